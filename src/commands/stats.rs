//! `rrm stats`: difficulty statistics of a campaign, as text, JSON or an SVG histogram;
//! for an exhaustive campaign its exact distributions (`exact`).

mod exact;

use crate::client::backend::{Backend, BackendArgs};
use crate::output::outfile::OutFile;
use anyhow::{bail, Result};
use clap::Args;
use rrm_charts::{rarity, Counted};
use rrm_model::{Aggregates, Group, Rules};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Percentiles reported besides the median.
const PERCENTILES: [(&str, f64); 5] = [
    ("p10", 0.10),
    ("p90", 0.90),
    ("p99", 0.99),
    ("p99.9", 0.999),
    ("p99.99", 0.9999),
];
/// Arrangements listed in text: this many hardest and easiest by mean.
const ARRANGEMENTS_SHOWN: usize = 5;

#[derive(Args)]
pub struct StatsArgs {
    /// The campaign (default: the only one).
    #[arg(long)]
    campaign: Option<String>,
    /// Another campaign to put side by side.
    #[arg(long)]
    compare: Option<String>,
    /// One JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Also draw the histogram as SVG into this file.
    #[arg(long)]
    svg: Option<PathBuf>,
    #[command(flatten)]
    backend: BackendArgs,
}

pub fn run(args: StatsArgs) -> Result<ExitCode> {
    let svg = args.svg.as_deref().map(OutFile::create).transpose()?;
    let mut backend = Backend::open(&args.backend)?;
    let name = backend.campaign_name(args.campaign.as_deref())?;
    let stats = backend.stats(&name)?;
    let rules = backend.status(&name)?.campaign.spec.rules;
    let mut campaigns = vec![(name.clone(), stats.aggregates.clone())];
    if let Some(other) = &args.compare {
        let other_rules = backend.status(other)?.campaign.spec.rules;
        if other_rules != rules {
            bail!("{name} is mined under the rules {rules} and {other} under {other_rules}: results under different rules are never compared");
        }
        campaigns.push((other.clone(), backend.stats(other)?.aggregates));
    }
    let exact = match &stats.exhaustive {
        Some(exact) => Some((backend.status(&name)?.units_total, exact)),
        None => None,
    };
    if let Some(svg) = svg {
        let mut series: Vec<(String, &[u64])> = campaigns
            .iter()
            .map(|(name, a)| (name.clone(), a.histogram.as_slice()))
            .collect();
        if let Some((_, exact)) = exact {
            series[0].0 = format!("{name}, all placements");
            series.insert(
                1,
                (
                    format!("{name}, legal placements"),
                    exact.overall.legal_histogram.as_slice(),
                ),
            );
        }
        let series: Vec<(&str, &[u64])> = series.iter().map(|(n, h)| (n.as_str(), *h)).collect();
        let title = match &args.compare {
            Some(other) => format!("Optimal move counts: {name} and {other}"),
            None => format!("Optimal move counts: {name}"),
        };
        svg.write(rrm_charts::histogram_svg(&title, Counted::Puzzles, &series).as_bytes())?;
    }
    let mut out = crate::output::stdout::lock();
    if args.json {
        let report = StatsJson {
            campaign: CampaignJson::new(&name, rules, &campaigns[0].1),
            compare: (campaigns.get(1)).map(|(other, a)| CampaignJson::new(other, rules, a)),
            legal_histogram: exact.map(|(_, exact)| exact.overall.legal_histogram.clone()),
            unsolvable: exact.map(|(_, exact)| exact.overall.unsolvable),
            exhaustive: exact.map(|(units_total, exact)| exact::json(units_total, exact)),
        };
        writeln!(out, "{}", serde_json::to_string(&report)?)?;
    } else if let Some((units_total, exact)) = exact {
        writeln!(out, "rules: {rules}")?;
        if args.compare.is_some() {
            writeln!(out, "{}", text(&campaigns))?;
        }
        write!(out, "{}", exact::text(&name, units_total, exact))?;
    } else {
        writeln!(out, "rules: {rules}")?;
        if rules.min_moves > 1 {
            writeln!(
                out,
                "refused (fewer than {} moves): {} puzzles, counted below but never in packs",
                rules.min_moves,
                refused(rules, &campaigns[0].1)
            )?;
        }
        write!(out, "{}", text(&campaigns))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The move counts a histogram shows, for one campaign or several side by side: from the
/// fewest moves any puzzle needs to the most, empty bins between them included, so that
/// a gap reads as a zero in text and JSON alike.
fn shown_bins(histograms: &[&[u64]]) -> std::ops::Range<usize> {
    let first = |h: &&[u64]| h.iter().position(|&count| count > 0);
    let last = |h: &&[u64]| h.iter().rposition(|&count| count > 0);
    match (
        histograms.iter().filter_map(first).min(),
        histograms.iter().filter_map(last).max(),
    ) {
        (Some(first), Some(last)) => first..last + 1,
        _ => 0..0,
    }
}

/// Puzzles the rules' minimum refuses.
fn refused(rules: Rules, a: &Aggregates) -> u64 {
    let below = usize::from(rules.min_moves).min(a.histogram.len());
    a.histogram[..below].iter().sum()
}

fn share(count: u64, total: u64) -> f64 {
    count as f64 / total.max(1) as f64
}

/// `rrm stats --json`: the campaign's summary, the one compared with it, and an
/// exhaustive campaign's exact distributions.
#[derive(Serialize)]
struct StatsJson {
    #[serde(flatten)]
    campaign: CampaignJson,
    #[serde(skip_serializing_if = "Option::is_none")]
    compare: Option<CampaignJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    legal_histogram: Option<Vec<u64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    unsolvable: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    exhaustive: Option<exact::ExhaustiveJson>,
}

/// One campaign's summary: counts, mean, percentiles, maximum, histogram and groups,
/// with the rules it was mined under and the puzzles their minimum refuses. Statistics
/// of an empty campaign are null, not a made-up zero.
#[derive(Serialize)]
struct CampaignJson {
    campaign: String,
    rules: String,
    refused: u64,
    puzzles: u64,
    mean: Option<f64>,
    median: Option<u8>,
    percentiles: BTreeMap<&'static str, Option<u8>>,
    max: Option<u8>,
    histogram: Vec<BinJson>,
    by_target: Vec<GroupJson>,
    by_colour: Vec<GroupJson>,
    by_shape: Vec<GroupJson>,
    by_arrangement: Vec<GroupJson>,
    by_robots_moved: Vec<RobotsJson>,
}

/// A histogram's bin of puzzles needing `moves` moves (empty bins left out).
#[derive(Serialize)]
struct BinJson {
    moves: usize,
    puzzles: u64,
    share: f64,
    rarity: String,
}

#[derive(Serialize)]
struct GroupJson {
    group: String,
    puzzles: u64,
    mean_moves: f64,
    max_moves: u8,
}

#[derive(Serialize)]
struct RobotsJson {
    robots: usize,
    puzzles: u64,
    share: f64,
}

impl CampaignJson {
    fn new(name: &str, rules: Rules, a: &Aggregates) -> Self {
        let total = a.puzzles();
        let groups = |groups: &BTreeMap<String, Group>| -> Vec<GroupJson> {
            (groups.iter())
                .map(|(group, g)| GroupJson {
                    group: group.clone(),
                    puzzles: g.puzzles,
                    mean_moves: g.mean(),
                    max_moves: g.max_moves,
                })
                .collect()
        };
        let mined = total > 0;
        let percentile = |p: f64| mined.then(|| a.percentile(p));
        let bins = |histogram: &[u64]| -> Vec<(usize, u64)> {
            (shown_bins(&[histogram]))
                .map(|moves| (moves, histogram[moves]))
                .collect()
        };
        CampaignJson {
            campaign: name.to_string(),
            rules: rules.to_string(),
            refused: refused(rules, a),
            puzzles: total,
            mean: mined.then(|| a.mean()),
            median: percentile(0.5),
            percentiles: (PERCENTILES.iter())
                .map(|&(label, p)| (label, percentile(p)))
                .collect(),
            max: mined.then(|| a.max_moves()),
            histogram: (bins(&a.histogram).into_iter())
                .map(|(moves, count)| BinJson {
                    moves,
                    puzzles: count,
                    share: share(count, total),
                    rarity: rarity(count, total),
                })
                .collect(),
            by_target: groups(&a.by_target),
            by_colour: groups(&by_letter(a, 0)),
            by_shape: groups(&by_letter(a, 1)),
            by_arrangement: groups(&a.by_arrangement),
            by_robots_moved: (bins(&a.by_robots_moved).into_iter())
                .map(|(robots, count)| RobotsJson {
                    robots,
                    puzzles: count,
                    share: share(count, total),
                })
                .collect(),
        }
    }
}

/// Target groups merged by one letter of the token: 0 = colour, 1 = shape.
fn by_letter(a: &Aggregates, position: usize) -> BTreeMap<String, Group> {
    let mut merged: BTreeMap<String, Group> = BTreeMap::new();
    for (token, group) in &a.by_target {
        let key = token
            .chars()
            .nth(position)
            .map_or_else(|| "none".to_string(), |c| c.to_string());
        merged.entry(key).or_default().merge(group);
    }
    merged
}

fn text(campaigns: &[(String, Aggregates)]) -> String {
    let mut out = String::new();
    for (name, a) in campaigns {
        if a.puzzles() == 0 {
            out += &format!("{name}: no puzzles mined yet\n");
            continue;
        }
        out += &format!("{name}: {}\n", summary_line(a, "puzzles"));
    }
    let mined: Vec<&(String, Aggregates)> =
        campaigns.iter().filter(|(_, a)| a.puzzles() > 0).collect();
    if mined.is_empty() {
        return out;
    }
    // The histogram, one column group per campaign, each as wide as its full name.
    let widths: Vec<usize> = mined
        .iter()
        .map(|(name, _)| name.chars().count().max(10))
        .collect();
    out += "\nmoves";
    for ((name, _), width) in mined.iter().zip(&widths) {
        out += &format!(" | {name:>width$} {:>8} {:>14}", "share", "rarity");
    }
    out += "\n";
    let histograms: Vec<&[u64]> = mined.iter().map(|(_, a)| a.histogram.as_slice()).collect();
    for moves in shown_bins(&histograms) {
        out += &format!("{moves:>5}");
        for ((_, a), width) in mined.iter().zip(&widths) {
            let count = a.histogram.get(moves).copied().unwrap_or(0);
            out += &format!(
                " | {count:>width$} {:>7.3}% {:>14}",
                share(count, a.puzzles()) * 100.0,
                rarity(count, a.puzzles())
            );
        }
        out += "\n";
    }
    for (name, a) in mined {
        out += &format!("\n{name} by target colour: ");
        out += &groups_line(&by_letter(a, 0));
        out += &format!("\n{name} by target shape: ");
        out += &groups_line(&by_letter(a, 1));
        out += &format!("\n{name} by robots the solution moves: ");
        out += &a
            .by_robots_moved
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(robots, &c)| format!("{robots}: {c} ({:.2}%)", share(c, a.puzzles()) * 100.0))
            .collect::<Vec<_>>()
            .join(", ");
        let mut arrangements: Vec<(&String, &Group)> = a.by_arrangement.iter().collect();
        arrangements.sort_by(|x, y| y.1.mean().total_cmp(&x.1.mean()).then(x.0.cmp(y.0)));
        out += &format!(
            "\n{name} by board arrangement ({} seen; mean moves): hardest ",
            arrangements.len()
        );
        out += &arrangement_list(arrangements.iter().take(ARRANGEMENTS_SHOWN));
        out += "; easiest ";
        out += &arrangement_list(arrangements.iter().rev().take(ARRANGEMENTS_SHOWN));
        out += "\n";
    }
    out
}

/// Count, mean, median, percentiles and maximum in one line: `N {what}, mean ...`.
fn summary_line(a: &Aggregates, what: &str) -> String {
    format!(
        "{} {what}, mean {:.3} moves, median {}, {}, max {}",
        a.puzzles(),
        a.mean(),
        a.percentile(0.5),
        PERCENTILES
            .iter()
            .map(|(label, p)| format!("{label} {}", a.percentile(*p)))
            .collect::<Vec<_>>()
            .join(", "),
        a.max_moves()
    )
}

fn groups_line(groups: &BTreeMap<String, Group>) -> String {
    groups
        .iter()
        .map(|(key, g)| {
            format!(
                "{key} {} (mean {:.2}, max {})",
                g.puzzles,
                g.mean(),
                g.max_moves
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn arrangement_list<'a>(items: impl Iterator<Item = &'a (&'a String, &'a Group)>) -> String {
    items
        .map(|(name, g)| format!("[{name}] {:.2}", g.mean()))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aggregates(histogram: &[u64]) -> Aggregates {
        Aggregates {
            histogram: histogram.to_vec(),
            by_robots_moved: vec![0, histogram.iter().sum()],
            ..Aggregates::default()
        }
    }

    /// One campaign or two side by side, text or JSON: the same bins, gaps as zeros.
    #[test]
    fn empty_bins_between_the_extremes_are_shown_alike() {
        let one = aggregates(&[0, 3, 0, 2]);
        let other = aggregates(&[0, 0, 1, 0, 0, 5]);
        assert_eq!(shown_bins(&[&one.histogram]), 1..4);
        assert_eq!(shown_bins(&[&one.histogram, &other.histogram]), 1..6);
        assert_eq!(shown_bins(&[&[0, 0]]), 0..0);

        let alone = text(&[("one".into(), one.clone())]);
        let row = |moves: usize| format!("\n{moves:>5} | ");
        assert!(alone.contains(&row(2)), "{alone}");
        assert!(
            !alone.contains(&row(0)) && !alone.contains(&row(4)),
            "{alone}"
        );
        let json = serde_json::to_value(CampaignJson::new("one", Rules::STANDARD, &one)).unwrap();
        let moves: Vec<u64> = (json["histogram"].as_array().unwrap().iter())
            .map(|bin| bin["moves"].as_u64().unwrap())
            .collect();
        assert_eq!(moves, [1, 2, 3]);
        assert_eq!(json["histogram"][1]["puzzles"], 0);

        let both = text(&[("one".into(), one), ("other".into(), other)]);
        for moves in 1..6 {
            assert!(both.contains(&row(moves)), "{moves}: {both}");
        }
    }
}
