//! The census's pictures: the distribution (the histogram chart `rrm stats` draws), the
//! 96 × 16 heatmaps of unit maxima and each drawn record position with its solution.

use super::report::{drawn, Census, Record};
use anyhow::{Context, Result};
use ricochet::svg::{escape, Picture};
use ricochet::{Layout, Move};
use rrm_coordinator::{charts::histogram_svg, UnitBoard};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// The file names written into the figures directory.
pub struct Figures {
    pub distribution: String,
    pub heatmap: String,
    pub all_records: Vec<String>,
    pub legal_records: Vec<String>,
}

pub fn write(
    dir: &Path,
    census: &Census,
    maxima: &BTreeMap<(String, String), (u8, u8)>,
) -> Result<Figures> {
    let save = |name: &str, svg: String| -> Result<String> {
        std::fs::write(dir.join(name), svg)
            .with_context(|| format!("cannot write {}", dir.join(name).display()))?;
        Ok(name.to_string())
    };
    let distribution = save(
        "distribution.svg",
        histogram_svg(
            "The first edition: placements by optimal move count",
            &[
                ("all placements", &census.all.histogram),
                ("legal placements", &census.legal.histogram),
            ],
        ),
    )?;
    let heatmap = save("heatmap.svg", heatmap(maxima))?;
    let draw = |prefix: &str, records: &[Record]| -> Result<Vec<String>> {
        drawn(records)
            .iter()
            .enumerate()
            .map(|(i, record)| save(&format!("{prefix}-{}.svg", i + 1), position(record)?))
            .collect()
    };
    Ok(Figures {
        all_records: draw("record-all", &census.all.records)?,
        legal_records: draw("record-legal", &census.legal.records)?,
        distribution,
        heatmap,
    })
}

/// A record position with its solution as numbered arrows.
fn position(record: &Record) -> Result<String> {
    let unit = UnitBoard::new(&record.board, &record.token)?;
    let cells: Vec<u8> = record
        .placement
        .split(' ')
        .map(str::parse)
        .collect::<Result<_, _>>()?;
    let cells: [u8; 4] = cells
        .try_into()
        .map_err(|_| anyhow::anyhow!("not four robots"))?;
    let puzzle = unit.puzzle(&cells).context("an invalid record placement")?;
    let moves: Vec<Move> = record
        .solution
        .split(' ')
        .map(|m| Move::from_notation(m).with_context(|| format!("bad move {m:?}")))
        .collect::<Result<_>>()?;
    let title = format!(
        "{} {}: {} moves ({})",
        record.board, record.token, record.moves, record.solution
    );
    Ok(ricochet::svg::board(
        &puzzle,
        &Picture {
            solution: Some(&moves),
            other_tokens: &[],
            title: Some(&title),
        },
    ))
}

/// Side of a heatmap cell.
const CELL: usize = 14;

/// Two panels (all placements, legal placements) of 96 boards × 16 tokens, each cell
/// coloured and labelled by the unit's maximum; units not done are grey.
fn heatmap(maxima: &BTreeMap<(String, String), (u8, u8)>) -> String {
    let boards: Vec<String> = Layout::canonical().iter().map(Layout::name).collect();
    let tokens: Vec<&str> = Layout::canonical()[0]
        .targets
        .iter()
        .map(|&(t, _)| t)
        .collect();
    let (label, top, gap) = (90, 40, 30);
    let panel = tokens.len() * CELL;
    let width = label + 2 * panel + gap + 10;
    let height = top + boards.len() * CELL + 10;
    let (low, high) = maxima
        .values()
        .flat_map(|&(a, l)| [a, l])
        .fold((u8::MAX, 0), |(lo, hi), m| (lo.min(m), hi.max(m)));
    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" font-family="sans-serif" font-size="9" role="img"><title>Unit maxima of the first edition</title>"#
    );
    for (p, name) in ["all placements", "legal placements"].iter().enumerate() {
        let x0 = label + p * (panel + gap);
        let _ = write!(
            svg,
            r#"<text x="{}" y="14" font-size="12" text-anchor="middle">{name}</text>"#,
            x0 + panel / 2
        );
        for (t, token) in tokens.iter().enumerate() {
            let _ = write!(
                svg,
                r#"<text x="{}" y="{}" text-anchor="middle">{token}</text>"#,
                x0 + t * CELL + CELL / 2,
                top - 6
            );
        }
        for (b, board) in boards.iter().enumerate() {
            for (t, token) in tokens.iter().enumerate() {
                let (x, y) = (x0 + t * CELL, top + b * CELL);
                let value = maxima
                    .get(&(board.clone(), token.to_string()))
                    .map(|&(all, legal)| if p == 0 { all } else { legal });
                let (fill, text) = match value {
                    Some(m) => (heat(m, low, high), m.to_string()),
                    None => ("#dddddd".to_string(), String::new()),
                };
                let _ = write!(
                    svg,
                    r#"<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{fill}" stroke="white" stroke-width="0.5"><title>{} {token}: {}</title></rect><text x="{}" y="{}" text-anchor="middle" font-size="8">{text}</text>"#,
                    escape(board),
                    if text.is_empty() {
                        "not done yet"
                    } else {
                        &text
                    },
                    x + CELL / 2,
                    y + CELL - 4
                );
            }
        }
    }
    for (b, board) in boards.iter().enumerate() {
        let _ = write!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="end">{}</text>"#,
            label - 4,
            top + b * CELL + CELL - 4,
            escape(board)
        );
    }
    svg.push_str("</svg>");
    svg
}

/// Pale yellow for the lowest maximum to deep red for the highest.
fn heat(value: u8, low: u8, high: u8) -> String {
    let t = if high > low {
        f64::from(value - low) / f64::from(high - low)
    } else {
        1.0
    };
    let lerp = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
    format!(
        "#{:02x}{:02x}{:02x}",
        lerp(255.0, 165.0),
        lerp(237.0, 15.0),
        lerp(160.0, 21.0)
    )
}
