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
//!
//! The games compared, by board, are kept beside the report ([`KEPT_GAMES`]): a report
//! written again without the store compares its units with them.

use anyhow::{bail, Context, Result};
use ricochet::driftingdroids::DdGame;
use ricochet::edition::canonical_board;
use rrm_coordinator::Config;
use rrm_model::numbers::thousands;
use rrm_model::UNSOLVED;
use serde::{Deserialize, Serialize};
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

/// A mined campaign's games by board, as the cross-check compares them. The report keeps
/// them beside itself ([`KEPT_GAMES`]), so that a report written again without the store
/// compares its units with the same games.
pub struct MinedGames {
    pub header: MinedHeader,
    /// By canonical board, the games' counts by moves.
    pub by_board: BTreeMap<String, Vec<u64>>,
}

/// The first line of [`KEPT_GAMES`].
#[derive(Serialize, Deserialize)]
pub struct MinedHeader {
    pub seed_campaign: String,
    /// The campaign's generator: `fogleman` or `driftingdroids`.
    pub generator: String,
    pub seeds_mined: u64,
    /// DriftingDroids' games are kept for these goal tokens only (the report's).
    pub tokens: Vec<String>,
}

/// A line of [`KEPT_GAMES`] after the header.
#[derive(Serialize, Deserialize)]
struct BoardGames {
    board: String,
    games: Vec<u64>,
}

/// The file in a report's directory that keeps the games it was cross-checked against.
pub const KEPT_GAMES: &str = "mined-games.jsonl";

/// The done units as (board, token, legal histogram).
pub type UnitHistograms<'u> = [(&'u str, &'u str, &'u Vec<u64>)];

/// The games of seed campaign `name` of the store in `data` that the cross-check of
/// `units` can compare.
pub fn mined_games(data: &Path, name: &str, units: &UnitHistograms<'_>) -> Result<MinedGames> {
    let coordinator = crate::commands::services::open_coordinator(data, Config::default())?;
    let status = coordinator.status(name)?;
    let spec = &status.campaign.spec;
    let rules = spec.rules;
    if rules != rrm_model::Rules::STANDARD {
        anyhow::bail!("{name} is mined under the rules {rules}; the census counts the standard rules, and results under different rules are never compared");
    }
    let tokens: std::collections::BTreeSet<&str> = units.iter().map(|u| u.1).collect();
    let by_board = match spec.generator.as_str() {
        "fogleman" => fogleman_seeds(&coordinator, name)?,
        "driftingdroids" => dd_games(&coordinator, status.campaign.id, spec, &tokens)?,
        other => bail!(
            "{name} deals {other} games; the census is cross-checked against fogleman or \
             driftingdroids (4 robots) games"
        ),
    };
    Ok(MinedGames {
        header: MinedHeader {
            seed_campaign: name.to_string(),
            generator: spec.generator.clone(),
            seeds_mined: status.seeds_done,
            tokens: tokens.into_iter().map(String::from).collect(),
        },
        by_board,
    })
}

/// Compares `games` with the done `units`; `None` when no game falls on a board they
/// cover. DriftingDroids' games were kept for their header's tokens: units of other
/// tokens are not compared with them.
pub fn compare(games: &MinedGames, units: &UnitHistograms<'_>) -> Result<Option<CrossCheck>> {
    let header = &games.header;
    let tokens: std::collections::BTreeSet<&str> = units.iter().map(|u| u.1).collect();
    let dealt = header.generator == "driftingdroids";
    if dealt
        && !tokens
            .iter()
            .copied()
            .eq(header.tokens.iter().map(String::as_str))
    {
        bail!(
            "the games of {} were kept for the tokens {}, and these units have {}: mine them \
             again (--seeds-data) to compare",
            header.seed_campaign,
            header.tokens.join(" "),
            tokens.into_iter().collect::<Vec<_>>().join(" ")
        );
    }
    let mut by_board: BTreeMap<&str, Vec<&Vec<u64>>> = BTreeMap::new();
    for &(board, _, legal) in units {
        by_board.entry(board).or_default().push(legal);
    }
    // A board is compared when each of the report's tokens (the 16 coloured ones, or the
    // vortex) has its unit done; Fogleman's generator draws from all 16.
    let needed = if dealt { tokens.len() } else { 16 };
    let (mut observed, mut expected) = (Vec::new(), Vec::new());
    let (mut boards, mut compared) = (0, 0);
    for (board, histogram) in &games.by_board {
        let Some(legals) = (by_board.get(board.as_str())).filter(|l| l.len() == needed) else {
            continue;
        };
        let played: u64 = histogram.iter().sum();
        boards += 1;
        compared += played;
        for (moves, &count) in histogram.iter().enumerate() {
            add(&mut observed, moves, count);
        }
        // Fogleman's generator draws the token uniformly: each unit's distribution has
        // the same weight. DriftingDroids' kept games are uniform over a board's pairs of
        // a goal and a legal placement: each unit weighs its legal placements.
        let all: u64 = legals.iter().flat_map(|legal| legal.iter()).sum();
        for legal in legals {
            let (total, games) = match dealt {
                true => (all, played as f64),
                false => (legal.iter().sum(), played as f64 / legals.len() as f64),
            };
            add_share(&mut expected, legal, total, games);
        }
    }
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
        seed_campaign: header.seed_campaign.clone(),
        generator: header.generator.clone(),
        seeds_mined: header.seeds_mined,
        seeds_compared: compared,
        boards_compared: boards,
        p_value: puruspe::gammq(degrees_of_freedom as f64 / 2.0, chi_squared / 2.0),
        chi_squared,
        degrees_of_freedom,
        bins,
    }))
}

/// Writes `games` as [`KEPT_GAMES`] in `dir`: the header, then a line a board.
pub fn keep(games: &MinedGames, dir: &Path) -> Result<()> {
    let mut text = serde_json::to_string(&games.header)? + "\n";
    for (board, histogram) in &games.by_board {
        let line = BoardGames {
            board: board.clone(),
            games: histogram.clone(),
        };
        text += &(serde_json::to_string(&line)? + "\n");
    }
    std::fs::write(dir.join(KEPT_GAMES), text)?;
    Ok(())
}

/// The games an earlier report in `dir` kept, if it kept any.
pub fn kept(dir: &Path) -> Result<Option<MinedGames>> {
    let path = dir.join(KEPT_GAMES);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(error).with_context(|| format!("reading {}", path.display())),
    };
    let mut lines = text.lines().enumerate();
    let not_kept = |line: usize, error: serde_json::Error| {
        anyhow::anyhow!(
            "{} line {} is not a line of kept games ({error}): give --seeds-data to mine \
             them afresh, or remove the file",
            path.display(),
            line + 1
        )
    };
    let (_, first) = lines
        .next()
        .with_context(|| format!("{} is empty", path.display()))?;
    let header = serde_json::from_str(first).map_err(|e| not_kept(0, e))?;
    let mut by_board = BTreeMap::new();
    for (line, text) in lines {
        let board: BoardGames = serde_json::from_str(text).map_err(|e| not_kept(line, e))?;
        by_board.insert(board.board, board.games);
    }
    Ok(Some(MinedGames { header, by_board }))
}

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

/// Fogleman's seeds by board, from the campaign's statistics by arrangement (a turn of
/// an arrangement is the same board: it changes no move count).
fn fogleman_seeds(
    coordinator: &rrm_coordinator::Coordinator,
    name: &str,
) -> Result<BTreeMap<String, Vec<u64>>> {
    let stats = coordinator.stats(name)?;
    let mut by_board = BTreeMap::new();
    for (arrangement, group) in &stats.aggregates.by_arrangement {
        let histogram = by_board.entry(canonical_board(arrangement)?).or_default();
        for (moves, &count) in group.histogram.iter().enumerate() {
            add(histogram, moves, count);
        }
    }
    Ok(by_board)
}

/// DriftingDroids' games whose first goal was kept and is one of `tokens`, by board,
/// dealt again from their seeds to tell which, with their stored move counts.
fn dd_games(
    coordinator: &rrm_coordinator::Coordinator,
    campaign: u32,
    spec: &rrm_model::CampaignSpec,
    tokens: &std::collections::BTreeSet<&str>,
) -> Result<BTreeMap<String, Vec<u64>>> {
    let mut games = BTreeMap::new();
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
    Ok(games)
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
