//! The exact statistics of an exhaustive campaign: the distribution over all placements
//! and over legal ones (no robot on a target cell), overall, by target and by board, as
//! text and JSON.

use super::{share, summary_line, PERCENTILES};
use rrm_charts::rarity;
use rrm_model::Aggregates;
use rrm_model::{Distribution, ExactStats};
use serde::Serialize;
use std::collections::BTreeMap;

/// One histogram's count, mean, median, percentiles and maximum, and its bins.
#[derive(Serialize)]
pub struct HistogramJson {
    placements: u64,
    mean: Option<f64>,
    median: Option<u8>,
    percentiles: BTreeMap<&'static str, Option<u8>>,
    max: Option<u8>,
    histogram: Vec<u64>,
}

impl HistogramJson {
    fn new(a: &Aggregates) -> Self {
        let total = a.puzzles();
        let some = total > 0;
        let percentile = |p: f64| some.then(|| a.percentile(p));
        HistogramJson {
            placements: total,
            mean: some.then(|| a.mean()),
            median: percentile(0.5),
            percentiles: (PERCENTILES.iter())
                .map(|&(label, p)| (label, percentile(p)))
                .collect(),
            max: some.then(|| a.max_moves()),
            histogram: a.histogram.clone(),
        }
    }
}

/// A distribution over all placements and legal ones, of a group (a target or a board)
/// or of the whole campaign.
#[derive(Serialize)]
pub struct DistributionJson {
    #[serde(skip_serializing_if = "Option::is_none")]
    group: Option<String>,
    units: u64,
    unsolvable: u64,
    all: HistogramJson,
    legal: HistogramJson,
}

impl DistributionJson {
    fn new(group: Option<&str>, d: &Distribution) -> Self {
        DistributionJson {
            group: group.map(str::to_string),
            units: d.units,
            unsolvable: d.unsolvable,
            all: HistogramJson::new(&d.all()),
            legal: HistogramJson::new(&d.legal()),
        }
    }
}

/// The `exhaustive` object of `rrm stats --json`.
#[derive(Serialize)]
pub struct ExhaustiveJson {
    #[serde(flatten)]
    overall: DistributionJson,
    units_total: u64,
    by_target: Vec<DistributionJson>,
    by_board: Vec<DistributionJson>,
}

pub fn json(units_total: u64, exact: &ExactStats) -> ExhaustiveJson {
    let groups = |groups: &BTreeMap<String, Distribution>| -> Vec<DistributionJson> {
        (groups.iter())
            .map(|(name, d)| DistributionJson::new(Some(name), d))
            .collect()
    };
    ExhaustiveJson {
        overall: DistributionJson::new(None, &exact.overall),
        units_total,
        by_target: groups(&exact.by_target),
        by_board: groups(&exact.by_board),
    }
}

/// The report in text: the summary of all and legal placements, the histogram of both,
/// and one line per target and per board.
pub fn text(name: &str, units_total: u64, exact: &ExactStats) -> String {
    let overall = &exact.overall;
    let mut out = format!(
        "{name}: {} of {units_total} units done (exhaustive), {} unsolvable placements\n",
        overall.units, overall.unsolvable
    );
    if overall.units == 0 {
        return out;
    }
    for (label, a) in [
        ("placements", overall.all()),
        ("legal placements (no robot on a target)", overall.legal()),
    ] {
        out += &format!("{}\n", summary_line(&a, label));
    }
    let (all, legal) = (overall.all().puzzles(), overall.legal().puzzles());
    out += &format!(
        "\nmoves | {:>13} {:>9} {:>16} | {:>13} {:>9} {:>16}\n",
        "all", "share", "rarity", "legal", "share", "rarity"
    );
    for (moves, &count) in overall.histogram.iter().enumerate() {
        let legal_count = overall.legal_histogram.get(moves).copied().unwrap_or(0);
        if count == 0 && legal_count == 0 {
            continue;
        }
        out += &format!(
            "{moves:>5} | {count:>13} {:>8.5}% {:>16} | {legal_count:>13} {:>8.5}% {:>16}\n",
            share(count, all) * 100.0,
            rarity(count, all),
            share(legal_count, legal) * 100.0,
            rarity(legal_count, legal),
        );
    }
    for (what, groups) in [("target", &exact.by_target), ("board", &exact.by_board)] {
        out += &format!("\nby {what}: units, all placements (mean, max, at max), legal placements (mean, max, at max)\n");
        let width = groups.keys().map(|k| k.len()).max().unwrap_or(0);
        for (group, d) in groups {
            out += &format!(
                "  {group:<width$} {:>4}  {}  {}\n",
                d.units,
                group_text(&d.all()),
                group_text(&d.legal())
            );
        }
    }
    out
}

/// A group's histogram in a few columns: placements, mean, maximum and how many need it.
fn group_text(a: &Aggregates) -> String {
    let max = a.max_moves();
    format!(
        "{:>12} {:>7.3} {:>3} {:>8}",
        a.puzzles(),
        a.mean(),
        max,
        a.histogram.get(usize::from(max)).copied().unwrap_or(0)
    )
}
