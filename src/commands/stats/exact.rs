//! The exact statistics of an exhaustive campaign: the distribution over all placements
//! and over legal ones (no robot on a target cell), overall, by target and by board, as
//! text and JSON.

use super::{share, summary_line, PERCENTILES};
use rrm_charts::rarity;
use rrm_model::Aggregates;
use rrm_model::{Distribution, ExactStats};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// One histogram's count, mean, median, percentiles and maximum, and its bins.
fn histogram_json(a: &Aggregates) -> Value {
    let total = a.puzzles();
    let some = total > 0;
    let percentile = |p: f64| some.then(|| a.percentile(p));
    json!({
        "placements": total,
        "mean": some.then(|| a.mean()),
        "median": percentile(0.5),
        "percentiles": PERCENTILES.iter().map(|(label, p)| (label.to_string(), json!(percentile(*p)))).collect::<serde_json::Map<_, _>>(),
        "max": some.then(|| a.max_moves()),
        "histogram": a.histogram,
    })
}

fn distribution_json(group: Option<&str>, d: &Distribution) -> Value {
    let mut value = json!({
        "units": d.units,
        "unsolvable": d.unsolvable,
        "all": histogram_json(&d.all()),
        "legal": histogram_json(&d.legal()),
    });
    if let Some(group) = group {
        value["group"] = json!(group);
    }
    value
}

/// The `exhaustive` object of `rrm stats --json`.
pub fn json(units_total: u64, exact: &ExactStats) -> Value {
    let groups = |groups: &BTreeMap<String, Distribution>| -> Vec<Value> {
        groups
            .iter()
            .map(|(name, d)| distribution_json(Some(name), d))
            .collect()
    };
    let mut value = distribution_json(None, &exact.overall);
    value["units_total"] = json!(units_total);
    value["by_target"] = json!(groups(&exact.by_target));
    value["by_board"] = json!(groups(&exact.by_board));
    value
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
