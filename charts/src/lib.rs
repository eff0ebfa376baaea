//! SVG charts of campaign statistics, shared by the dashboard, `rrm stats --svg` and
//! `rrm census report`: histograms, and the heatmap of exhaustive units' maxima.

use ricochet::svg::escape;
use rrm_model::numbers::{percent, thousands};
use rrm_model::UnitMap;
use std::fmt::Write;

/// Bar colours of the series drawn side by side.
const SERIES_COLOURS: [&str; 3] = ["#2e5eaa", "#d7263d", "#3a9d5d"];

pub use rrm_model::numbers::rarity;

/// What a histogram counts: a seed campaign's puzzles, an exhaustive analysis's
/// placements of robots, or a Ricocheckers campaign's positions by their shortest forced
/// win.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counted {
    Puzzles,
    Placements,
    /// Bin 0 holds the positions with no forced win within the bound: not a length, so it
    /// gets no bar (the page states that count in words) but still counts in the shares.
    ForcedWins,
}

impl Counted {
    fn noun(self) -> &'static str {
        match self {
            Counted::Puzzles => "puzzles",
            Counted::Placements => "placements",
            Counted::ForcedWins => "positions",
        }
    }

    /// What the bins are, under the length axis.
    fn length_axis(self) -> &'static str {
        match self {
            Counted::Puzzles | Counted::Placements => "optimal moves",
            Counted::ForcedWins => "moves to a forced win",
        }
    }

    /// The first bin drawn.
    fn first_bin(self) -> usize {
        match self {
            Counted::Puzzles | Counted::Placements => 0,
            Counted::ForcedWins => 1,
        }
    }

    /// A bar's length in its tooltip: `7 moves`, `win in 7`.
    fn length(self, moves: usize) -> String {
        match self {
            Counted::Puzzles | Counted::Placements => format!("{moves} moves"),
            Counted::ForcedWins => format!("win in {moves}"),
        }
    }
}

/// A histogram of optimal move counts for a few series (campaigns, placements), on a
/// logarithmic count axis so that the rare hard puzzles stay visible next to the common
/// easy ones. Each bar carries its count and share in a tooltip and as `data-*`
/// attributes.
pub fn histogram_svg(title: &str, counted: Counted, series: &[(&str, &[u64])]) -> String {
    let noun = counted.noun();
    let first = counted.first_bin();
    let bins = series
        .iter()
        .map(|(_, h)| h.len().saturating_sub(first))
        .max()
        .unwrap_or(0)
        .max(1);
    let peak = series
        .iter()
        .flat_map(|(_, h)| h.iter().skip(first).copied())
        .max()
        .unwrap_or(1)
        .max(1);
    let decades = (peak as f64).log10().ceil().max(1.0);
    let (left, right, top, bottom) = (64.0, 16.0, 40.0, 48.0);
    let plot_height = 260.0;
    let group_width = (760.0 / bins as f64).clamp(14.0, 40.0);
    let width = left + right + group_width * bins as f64;
    let height = top + plot_height + bottom;
    let y_of = |count: u64| {
        let scaled = if count == 0 {
            0.0
        } else {
            ((count as f64).log10() + 1.0) / (decades + 1.0)
        };
        top + plot_height * (1.0 - scaled)
    };
    let mut svg = String::new();
    let _ = write!(
        svg,
        r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" class="rrm-histogram" font-family="sans-serif" font-size="11"><rect width="{width}" height="{height}" fill="#fff"/><text x="{left}" y="22" font-size="14" font-weight="bold">{}</text>"##,
        escape(title)
    );
    // Axis: one grid line per decade, from 1.
    for decade in 0..=decades as u32 {
        let count = 10u64.pow(decade);
        let y = y_of(count);
        let _ = write!(
            svg,
            r##"<line x1="{left}" x2="{}" y1="{y}" y2="{y}" stroke="#ddd"/><text x="{}" y="{}" text-anchor="end" fill="#555">{}</text>"##,
            width - right,
            left - 6.0,
            y + 4.0,
            decade_label(decade)
        );
    }
    let bar_width = (group_width - 4.0) / series.len().max(1) as f64;
    for (index, (name, histogram)) in series.iter().enumerate() {
        let total: u64 = histogram.iter().sum();
        for (moves, &count) in histogram.iter().enumerate().skip(first) {
            if count == 0 {
                continue;
            }
            let x = left + (moves - first) as f64 * group_width + 2.0 + index as f64 * bar_width;
            let y = y_of(count);
            let _ = write!(
                svg,
                r#"<rect class="bar" data-moves="{moves}" data-count="{count}" x="{x:.1}" y="{y:.1}" width="{bar_width:.1}" height="{:.1}" fill="{}"><title>{}: {}, {} {noun} ({})</title></rect>"#,
                top + plot_height - y,
                SERIES_COLOURS[index % SERIES_COLOURS.len()],
                escape(name),
                counted.length(moves),
                thousands(count),
                percent(count, total),
            );
        }
    }
    for moves in first..first + bins {
        let x = left + ((moves - first) as f64 + 0.5) * group_width;
        let _ = write!(
            svg,
            r##"<text x="{x}" y="{}" text-anchor="middle" fill="#333">{moves}</text>"##,
            top + plot_height + 16.0
        );
    }
    let _ = write!(
        svg,
        r##"<text x="{}" y="{}" text-anchor="middle" fill="#333">{}</text><text x="14" y="{}" transform="rotate(-90 14 {})" text-anchor="middle" fill="#333">{noun} (log scale)</text>"##,
        left + (width - left - right) / 2.0,
        height - 8.0,
        counted.length_axis(),
        top + plot_height / 2.0,
        top + plot_height / 2.0
    );
    if series.len() > 1 {
        for (index, (name, _)) in series.iter().enumerate() {
            let x = width - right - 180.0;
            let y = 14.0 + index as f64 * 14.0;
            let _ = write!(
                svg,
                r#"<rect x="{x}" y="{}" width="10" height="10" fill="{}"/><text x="{}" y="{}">{}</text>"#,
                y - 9.0,
                SERIES_COLOURS[index % SERIES_COLOURS.len()],
                x + 14.0,
                y,
                escape(name)
            );
        }
    }
    svg.push_str("</svg>");
    svg
}

/// The count `10^decade` as an axis reads it: `1`, `10`, `100`, `1k` … `100G`, so that
/// the census's 10^11 fits the margin as `100G` does.
fn decade_label(decade: u32) -> String {
    let prefixes = ["", "k", "M", "G", "T", "P"];
    let prefix = prefixes[(decade / 3) as usize % prefixes.len()];
    format!("{}{prefix}", 10u64.pow(decade % 3))
}

/// Side of a heatmap cell.
const HEAT_CELL: usize = 22;

/// Two panels (all placements, legal placements) of the map's boards × targets, each cell
/// coloured and labelled by its unit's maximum; units not done are grey. `link` gives
/// the address a done unit's cell leads to, if any.
pub fn unit_heatmap_svg(map: &UnitMap, link: impl Fn(u64) -> Option<String>) -> String {
    let (label, top, gap) = (90, 40, 30);
    let panel = map.targets.len() * HEAT_CELL;
    let width = label + 2 * panel + gap + 10;
    let height = top + map.boards.len() * HEAT_CELL + 10;
    let (low, high) = map
        .maxima
        .values()
        .flat_map(|m| [m.all, m.legal])
        .fold((u8::MAX, 0), |(lo, hi), m| (lo.min(m), hi.max(m)));
    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" font-family="sans-serif" font-size="9" role="img" class="heatmap"><title>Unit maxima</title>"#
    );
    for (p, side) in ["all placements", "legal placements"].iter().enumerate() {
        let x0 = label + p * (panel + gap);
        let _ = write!(
            svg,
            r#"<text x="{}" y="14" font-size="12" text-anchor="middle">{side}</text>"#,
            x0 + panel / 2
        );
        for (t, token) in map.targets.iter().enumerate() {
            let _ = write!(
                svg,
                r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
                x0 + t * HEAT_CELL + HEAT_CELL / 2,
                top - 6,
                escape(token)
            );
        }
        for (b, board) in map.boards.iter().enumerate() {
            for (t, token) in map.targets.iter().enumerate() {
                let (x, y) = (x0 + t * HEAT_CELL, top + b * HEAT_CELL);
                let unit = map.maxima.get(&(board.clone(), token.clone()));
                let value = unit.map(|m| if p == 0 { m.all } else { m.legal });
                let (fill, ink, text) = match value {
                    Some(m) => {
                        let (fill, ink) = heat(m, low, high);
                        (fill, ink, m.to_string())
                    }
                    None => ("#dddddd".to_string(), "#1d1d1d", String::new()),
                };
                let href = unit.and_then(|m| link(m.unit));
                if let Some(href) = &href {
                    let _ = write!(svg, r#"<a href="{}">"#, escape(href));
                }
                let _ = write!(
                    svg,
                    r#"<rect x="{x}" y="{y}" width="{HEAT_CELL}" height="{HEAT_CELL}" fill="{fill}" stroke="white" stroke-width="0.5" data-board="{b_name}" data-token="{t_name}" data-max="{text}"><title>{b_name} {t_name}: {}</title></rect><text x="{}" y="{}" text-anchor="middle" font-size="11" fill="{ink}">{text}</text>"#,
                    if text.is_empty() {
                        "not done yet"
                    } else {
                        &text
                    },
                    x + HEAT_CELL / 2,
                    y + HEAT_CELL - 7,
                    b_name = escape(board),
                    t_name = escape(token),
                );
                if href.is_some() {
                    svg.push_str("</a>");
                }
            }
        }
    }
    for (b, board) in map.boards.iter().enumerate() {
        let _ = write!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="end">{}</text>"#,
            label - 4,
            top + b * HEAT_CELL + HEAT_CELL - 4,
            escape(board)
        );
    }
    svg.push_str("</svg>");
    svg
}

/// Pale yellow for the lowest maximum to deep red for the highest, and the ink that reads
/// on it: dark on the pale half, white on the dark one.
fn heat(value: u8, low: u8, high: u8) -> (String, &'static str) {
    let t = if high > low {
        f64::from(value - low) / f64::from(high - low)
    } else {
        1.0
    };
    let lerp = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
    let fill = format!(
        "#{:02x}{:02x}{:02x}",
        lerp(255.0, 165.0),
        lerp(237.0, 15.0),
        lerp(160.0, 21.0)
    );
    (fill, if t > 0.5 { "#fff" } else { "#1d1d1d" })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The deepest cells carry white numbers, the palest dark ones.
    #[test]
    fn heat_numbers_read_on_their_cells() {
        assert_eq!(heat(25, 10, 25).1, "#fff");
        assert_eq!(heat(10, 10, 25).1, "#1d1d1d");
        assert_eq!(heat(25, 10, 25).0, "#a50f15");
    }

    #[test]
    fn axis_labels_stay_short() {
        let labels: Vec<String> = (0..=12).map(decade_label).collect();
        assert_eq!(
            labels,
            [
                "1", "10", "100", "1k", "10k", "100k", "1M", "10M", "100M", "1G", "10G", "100G",
                "1T"
            ]
        );
    }

    #[test]
    fn one_bar_per_non_empty_bin_and_series() {
        let a = [0, 5, 100, 2];
        let b = [0, 1, 0, 7, 1];
        let svg = histogram_svg("x & y", Counted::Puzzles, &[("a", &a), ("b", &b)]);
        assert_eq!(svg.matches(r#"class="bar""#).count(), 3 + 3);
        assert!(svg.contains(r#"data-moves="2" data-count="100""#));
        assert!(svg.contains("x &amp; y"));
        assert!(svg.contains(">puzzles (log scale)<"));
        assert!(svg.contains("2 moves, 100 puzzles"));
        let placements = histogram_svg("p", Counted::Placements, &[("a", &a)]);
        assert!(placements.contains(">placements (log scale)<"));
        assert!(placements.contains("2 moves, 100 placements"));
        assert!(!placements.contains("puzzles"));
    }

    /// Tooltips read as the tables do: grouped counts, shares with two digits.
    #[test]
    fn tooltips_group_counts_and_keep_rare_shares() {
        let histogram = [0, 15_131_715, 640_000_000, 355];
        let svg = histogram_svg("p", Counted::Placements, &[("all", &histogram)]);
        assert!(
            svg.contains("1 moves, 15,131,715 placements (2.3 %)"),
            "{svg}"
        );
        assert!(
            svg.contains("3 moves, 355 placements (0.000054 %)"),
            "{svg}"
        );
    }

    /// No forced win is no length: no bar or tick at 0, yet it counts in the shares.
    #[test]
    fn forced_wins_start_at_one_move() {
        let histogram = [270, 20, 0, 10];
        let svg = histogram_svg("w", Counted::ForcedWins, &[("rc", &histogram)]);
        assert_eq!(svg.matches(r#"class="bar""#).count(), 2);
        assert!(!svg.contains(r#"data-moves="0""#), "{svg}");
        assert!(!svg.contains(">0</text>"), "{svg}");
        assert!(svg.contains("rc: win in 3, 10 positions (3.3 %)"), "{svg}");
        assert!(svg.contains(">moves to a forced win<"), "{svg}");
        assert!(svg.contains(">positions (log scale)<"), "{svg}");
        assert!(!svg.contains("optimal moves"), "{svg}");
    }
}
