//! The census against mined games, by Pearson's chi-squared (depths pooled from the top
//! until every expected count is at least 5), on boards whose units are all done:
//! - Fogleman's generator draws a board arrangement, a target token and a legal
//!   placement, each uniformly, so the seeds mined on a board (any rotation: a turn
//!   changes no move count) should follow the mean of its 16 units' legal distributions.
//! - DriftingDroids deals a board, its robots on any free cells, and the first goal of a
//!   shuffled deck, putting a goal back while the game would need 0 or 1 move. The games
//!   whose first goal was kept are uniform over the board's legal pairs of a goal and a
//!   placement, so they follow the board's units' legal distributions pooled, each
//!   weighted by its number of legal placements. Games whose first goal was put back are
//!   left out: their goal depends on the robots.

use anyhow::{bail, Result};
use ricochet::driftingdroids::DdGame;
use ricochet::edition::canonical_board;
use rrm_coordinator::Config;
use rrm_model::numbers::thousands;
use rrm_model::UNSOLVED;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

#[derive(Serialize)]
pub struct CrossCheck {
    pub seed_campaign: String,
    /// The campaign's generator: `fogleman` or `driftingdroids`.
    pub generator: String,
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
/// (board, token, legal histogram); `None` when no game falls on a board they cover.
pub fn against_seeds(
    data: &Path,
    name: &str,
    units: &[(&str, &str, &Vec<u64>)],
) -> Result<Option<CrossCheck>> {
    let coordinator = crate::commands::services::open_coordinator(data, Config::default())?;
    let status = coordinator.status(name)?;
    let spec = &status.campaign.spec;
    let rules = spec.rules;
    if rules != rrm_model::Rules::STANDARD {
        anyhow::bail!("{name} is mined under the rules {rules}; the census counts the standard rules, and results under different rules are never compared");
    }
    let (observed, expected, boards, compared) = match spec.generator.as_str() {
        "fogleman" => fogleman_seeds(&coordinator, name, units)?,
        "driftingdroids" => dd_games(&coordinator, status.campaign.id, spec, units)?,
        other => bail!(
            "{name} deals {other} games; the census is cross-checked against fogleman or \
             driftingdroids (4 robots) games"
        ),
    };
    if compared == 0 {
        return Ok(None);
    }
    let bins = pooled(&observed, &expected);
    let chi_squared: f64 = bins
        .iter()
        .map(|b| (b.observed as f64 - b.expected).powi(2) / b.expected)
        .sum();
    let degrees_of_freedom = bins.len().saturating_sub(1).max(1);
    Ok(Some(CrossCheck {
        seed_campaign: name.to_string(),
        generator: spec.generator.clone(),
        seeds_mined: status.seeds_done,
        seeds_compared: compared,
        boards_compared: boards,
        p_value: puruspe::gammq(degrees_of_freedom as f64 / 2.0, chi_squared / 2.0),
        chi_squared,
        degrees_of_freedom,
        bins,
    }))
}

/// Observed and expected counts by depth, the boards compared and the games compared.
type Tally = (Vec<u64>, Vec<f64>, usize, u64);

fn add(histogram: &mut Vec<u64>, moves: usize, count: u64) {
    if histogram.len() <= moves {
        histogram.resize(moves + 1, 0);
    }
    histogram[moves] += count;
}

fn add_share(expected: &mut Vec<f64>, legal: &[u64], total: u64, games: f64) {
    if expected.len() < legal.len() {
        expected.resize(legal.len(), 0.0);
    }
    for (moves, &count) in legal.iter().enumerate() {
        expected[moves] += games * count as f64 / total as f64;
    }
}

/// Fogleman's seeds, from the campaign's statistics by arrangement.
fn fogleman_seeds(
    coordinator: &rrm_coordinator::Coordinator,
    name: &str,
    units: &[(&str, &str, &Vec<u64>)],
) -> Result<Tally> {
    let stats = coordinator.stats(name)?;
    let mut by_board: BTreeMap<&str, Vec<&Vec<u64>>> = BTreeMap::new();
    for &(board, _, legal) in units {
        by_board.entry(board).or_default().push(legal);
    }
    let (mut observed, mut expected) = (Vec::new(), Vec::new());
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
            add(&mut observed, moves, count);
        }
        for legal in legals {
            let total: u64 = legal.iter().sum();
            add_share(&mut expected, legal, total, group.puzzles as f64 / 16.0);
        }
    }
    Ok((observed, expected, boards.len(), compared))
}

/// DriftingDroids' games whose first goal was kept, dealt again from their seeds to tell
/// which, with their stored move counts. A board is compared when each of the report's
/// tokens (the 16 coloured ones, or the vortex) has its unit done.
fn dd_games(
    coordinator: &rrm_coordinator::Coordinator,
    campaign: u32,
    spec: &rrm_model::CampaignSpec,
    units: &[(&str, &str, &Vec<u64>)],
) -> Result<Tally> {
    let tokens: std::collections::BTreeSet<&str> = units.iter().map(|u| u.1).collect();
    let mut by_board: BTreeMap<&str, BTreeMap<&str, &Vec<u64>>> = BTreeMap::new();
    for &(board, token, legal) in units {
        by_board.entry(board).or_default().insert(token, legal);
    }
    let mut games: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    let store = coordinator.store();
    for (unit, _) in store.units(campaign)? {
        let Some((counts, _)) = store.unit_results(campaign, unit)? else {
            continue;
        };
        for (seed, &moves) in spec.unit_seeds(unit).zip(&counts) {
            let (game, put_back) = DdGame::deal_counting(seed, 4);
            // Units name the vortex's token VX, puzzles `*`.
            let token = match game.goal.colour {
                None => ricochet::edition::VORTEX.to_string(),
                Some(_) => ricochet::Target {
                    cell: game.goal.cell,
                    colour: game.goal.colour,
                    shape: game.goal.shape,
                }
                .token(),
            };
            if put_back > 0 || moves == UNSOLVED || !tokens.contains(token.as_str()) {
                continue;
            }
            let sides = game.board.sides.map(|side| side.name()).join(" ");
            let board = canonical_board(&format!("DD {sides}"))?;
            add(games.entry(board).or_default(), usize::from(moves), 1);
        }
    }
    let (mut observed, mut expected) = (Vec::new(), Vec::new());
    let (mut boards, mut compared) = (0, 0);
    for (board, histogram) in &games {
        let Some(legals) = (by_board.get(board.as_str())).filter(|l| l.len() == tokens.len())
        else {
            continue;
        };
        let played: u64 = histogram.iter().sum();
        let total: u64 = legals.values().flat_map(|legal| legal.iter()).sum();
        boards += 1;
        compared += played;
        for (moves, &count) in histogram.iter().enumerate() {
            add(&mut observed, moves, count);
        }
        for legal in legals.values() {
            add_share(&mut expected, legal, total, played as f64);
        }
    }
    Ok((observed, expected, boards, compared))
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
    let how = match check.generator.as_str() {
        "driftingdroids" => format!(
            "DriftingDroids deals a board, its robots on any free cells and the first goal \
             of a shuffled deck, putting a goal back while it would take 0 or 1 move. The \
             games of campaign `{}` (`--generator driftingdroids`) whose first goal was kept \
             are uniform over a board's legal pairs of a goal and a placement; those on the \
             {} boards the census has whole ({} of its {} games) should follow those \
             boards' legal distributions, each unit weighted by its legal placements.",
            check.seed_campaign,
            check.boards_compared,
            thousands(check.seeds_compared),
            thousands(check.seeds_mined),
        ),
        _ => format!(
            "Fogleman's generator draws a board, a token and a legal placement uniformly, \
             so the seeds of seed campaign `{}` that fall on the {} boards the census has \
             whole ({} of its {} seeds) should follow those boards' legal distributions.",
            check.seed_campaign,
            check.boards_compared,
            thousands(check.seeds_compared),
            thousands(check.seeds_mined),
        ),
    };
    let _ = writeln!(
        text,
        "## The census against mined games\n\n{how} Pearson's chi-squared over the depths \
         below (the deepest pooled until 5 games are expected): **χ² = {:.2} on {} degrees \
         of freedom, p = {:.3}**.\n",
        check.chi_squared, check.degrees_of_freedom, check.p_value
    );
    let _ = writeln!(text, "| moves | games | expected |\n|---:|---:|---:|");
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
