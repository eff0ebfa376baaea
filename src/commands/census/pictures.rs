//! The census's pictures: the distribution (the histogram chart `rrm stats` draws), the
//! 96 × 16 heatmaps of unit maxima and each drawn record position with its solution.

use super::report::{drawn, Census, Record};
use anyhow::{Context, Result};
use ricochet::svg::Picture;
use ricochet::Move;
use rrm_charts::{histogram_svg, unit_heatmap_svg, Counted};
use rrm_coordinator::UnitBoard;
use rrm_model::UnitMap;
use std::path::Path;

/// The file names written into the figures directory.
pub struct Figures {
    pub distribution: String,
    pub heatmap: String,
    pub all_records: Vec<String>,
    pub legal_records: Vec<String>,
}

pub fn write(dir: &Path, census: &Census, maxima: &UnitMap) -> Result<Figures> {
    let save = |name: &str, svg: String| -> Result<String> {
        std::fs::write(dir.join(name), svg)
            .with_context(|| format!("cannot write {}", dir.join(name).display()))?;
        Ok(name.to_string())
    };
    let distribution = save(
        "distribution.svg",
        histogram_svg(
            &format!(
                "{}{}: placements by optimal move count",
                capitalised(census.edition.title()),
                if census.targets == [ricochet::edition::VORTEX] {
                    ", the vortex"
                } else {
                    ""
                }
            ),
            Counted::Placements,
            &[
                ("all placements", &census.all.histogram),
                ("legal placements", &census.legal.histogram),
            ],
        ),
    )?;
    let heatmap = save("heatmap.svg", unit_heatmap_svg(maxima, |_| None))?;
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

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}
