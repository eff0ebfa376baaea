//! The census against mined seeds. Fogleman's generator draws a board arrangement, a
//! target token and a legal placement, each uniformly, so the seeds mined on a board
//! (any rotation: a turn changes no move count) should follow the mean of its 16 units'
//! legal distributions. Boards with all 16 units done are compared: the seeds' move
//! counts against the counts the census predicts for them, by Pearson's chi-squared
//! (depths pooled from the top until every expected count is at least 5).

use anyhow::{bail, Result};
use ricochet::edition::canonical_board;
use rrm_coordinator::Config;
use rrm_model::numbers::thousands;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

#[derive(Serialize)]
pub struct CrossCheck {
    pub seed_campaign: String,
    /// Seeds of the campaign, and those on boards the census has whole.
    pub seeds_mined: u64,
    pub seeds_compared: u64,
    pub boards_compared: usize,
    pub bins: Vec<Bin>,
    pub chi_squared: f64,
    pub degrees_of_freedom: usize,
    pub p_value: f64,
}

/// Seeds needing `moves` moves (or more, for the last, pooled bin).
#[derive(Serialize)]
pub struct Bin {
    pub moves: String,
    pub observed: u64,
    pub expected: f64,
}

/// Compares the seed campaign `name` of the store in `data` with the done units given as
/// (board, token, legal histogram).
pub fn against_seeds(
    data: &Path,
    name: &str,
    units: &[(&str, &str, &Vec<u64>)],
) -> Result<CrossCheck> {
    let coordinator = crate::commands::services::open_coordinator(data, Config::default())?;
    let rules = coordinator.status(name)?.campaign.spec.rules;
    if rules != rrm_model::Rules::STANDARD {
        anyhow::bail!("{name} is mined under the rules {rules}; the census counts the standard rules, and results under different rules are never compared");
    }
    let stats = coordinator.stats(name)?;
    let mut by_board: BTreeMap<&str, Vec<&Vec<u64>>> = BTreeMap::new();
    for &(board, _, legal) in units {
        by_board.entry(board).or_default().push(legal);
    }
    let (mut observed, mut expected) = (Vec::<u64>::new(), Vec::<f64>::new());
    let mut boards = std::collections::BTreeSet::new();
    let mut compared = 0;
    for (arrangement, group) in &stats.aggregates.by_arrangement {
        let board = canonical_board(arrangement)?;
        let Some(legals) = by_board.get(board.as_str()).filter(|l| l.len() == 16) else {
            continue;
        };
        boards.insert(board.clone());
        compared += group.puzzles;
        for (moves, &count) in group.histogram.iter().enumerate() {
            if observed.len() <= moves {
                observed.resize(moves + 1, 0);
            }
            observed[moves] += count;
        }
        for legal in legals {
            let total: u64 = legal.iter().sum();
            for (moves, &count) in legal.iter().enumerate() {
                if expected.len() <= moves {
                    expected.resize(moves + 1, 0.0);
                }
                expected[moves] += group.puzzles as f64 / 16.0 * count as f64 / total as f64;
            }
        }
    }
    if compared == 0 {
        bail!("no seed of campaign {name} falls on a board whose 16 units are all done");
    }
    let bins = pooled(&observed, &expected);
    let chi_squared: f64 = bins
        .iter()
        .map(|b| (b.observed as f64 - b.expected).powi(2) / b.expected)
        .sum();
    let degrees_of_freedom = bins.len().saturating_sub(1).max(1);
    Ok(CrossCheck {
        seed_campaign: name.to_string(),
        seeds_mined: stats.aggregates.histogram.iter().sum(),
        seeds_compared: compared,
        boards_compared: boards.len(),
        p_value: puruspe::gammq(degrees_of_freedom as f64 / 2.0, chi_squared / 2.0),
        chi_squared,
        degrees_of_freedom,
        bins,
    })
}

/// Depths with any seed or any expectation, the deepest ones pooled into one bin until it
/// expects at least 5 seeds; depths that neither the seeds nor the census have are left
/// out. A seed at a depth the census says no placement has lands in its own bin and
/// makes the statistic infinite: the census and the seeds would then disagree outright.
fn pooled(observed: &[u64], expected: &[f64]) -> Vec<Bin> {
    let depths = observed.len().max(expected.len());
    let at = |moves: usize| {
        (
            observed.get(moves).copied().unwrap_or(0),
            expected.get(moves).copied().unwrap_or(0.0),
        )
    };
    let mut bins: Vec<Bin> = Vec::new();
    let (mut tail_observed, mut tail_expected, mut tail_from) = (0, 0.0, None);
    for moves in (0..depths).rev() {
        let (o, e) = at(moves);
        if o == 0 && e == 0.0 {
            continue;
        }
        tail_observed += o;
        tail_expected += e;
        tail_from = Some(tail_from.unwrap_or(moves));
        if tail_expected >= 5.0 {
            let last = tail_from.expect("set above");
            bins.push(Bin {
                moves: if last == moves {
                    moves.to_string()
                } else {
                    format!("{moves}–{last}")
                },
                observed: tail_observed,
                expected: tail_expected,
            });
            (tail_observed, tail_expected, tail_from) = (0, 0.0, None);
        }
    }
    if let Some(last) = tail_from {
        // What is left at the shallow end joins the bin above it.
        match bins.last_mut() {
            Some(bin) => {
                bin.observed += tail_observed;
                bin.expected += tail_expected;
                bin.moves = format!("{}–{last}", bin.moves.split('–').next().unwrap_or(""));
            }
            None => bins.push(Bin {
                moves: format!("0–{last}"),
                observed: tail_observed,
                expected: tail_expected,
            }),
        }
    }
    bins.reverse();
    bins
}

/// The README's section on the cross-check.
pub fn markdown(check: &CrossCheck) -> String {
    let mut text = String::new();
    let _ = writeln!(
        text,
        "## The census against mined seeds\n\n\
         Fogleman's generator draws a board, a token and a legal placement uniformly, so the \
         seeds of seed campaign `{}` that fall on the {} boards the census has whole ({} of \
         its {} seeds) should follow those boards' legal distributions. Pearson's \
         chi-squared over the depths below (the deepest pooled until 5 seeds are expected): \
         **χ² = {:.2} on {} degrees of freedom, p = {:.3}**.\n",
        check.seed_campaign,
        check.boards_compared,
        thousands(check.seeds_compared),
        thousands(check.seeds_mined),
        check.chi_squared,
        check.degrees_of_freedom,
        check.p_value
    );
    let _ = writeln!(text, "| moves | seeds | expected |\n|---:|---:|---:|");
    for bin in &check.bins {
        let _ = writeln!(
            text,
            "| {} | {} | {:.1} |",
            bin.moves,
            thousands(bin.observed),
            bin.expected
        );
    }
    text
}
