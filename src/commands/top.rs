//! `rrm top`: the hardest mined puzzles with their solutions and quality metrics; for an
//! exhaustive campaign the proven record table: its units' hardest placements.

use crate::client::backend::{Backend, BackendArgs};
use crate::commands::show::{metrics_line, SOLUTION_COUNT_CAP};
use crate::format::{ListFormat, MetricsJson};
use anyhow::{bail, Context, Result};
use clap::Args;
use ricochet::metrics::{metrics_under, Counting, Metrics};
use ricochet::solver::with_thread_solver;
use ricochet::{Generator, Move, Puzzle};
use rrm_coordinator::UnitBoard;
use rrm_model::{MinedPlacement, Rules};
use serde::Serialize;
use std::io::Write;
use std::process::ExitCode;

#[derive(Args)]
pub struct TopArgs {
    /// How many puzzles.
    #[arg(long, default_value_t = 10, value_parser = crate::input::at_least_one)]
    limit: usize,
    /// Only puzzles needing at least this many moves.
    #[arg(long, default_value_t = 0)]
    min_moves: u8,
    /// The campaign (default: the only one).
    #[arg(long)]
    campaign: Option<String>,
    /// How the list is written: `text`, `json` (one object per puzzle), `dd-id` (one
    /// DriftingDroids game ID per line, for its players: Fogleman's boards there have the
    /// vortex's two walls, so an optimum may differ) or `kcox` (K. Cox's text).
    #[arg(long, value_enum, conflicts_with_all = ["json", "dd_ids", "kcox"])]
    format: Option<ListFormat>,
    /// Same as `--format json`.
    #[arg(long, conflicts_with_all = ["dd_ids", "kcox"])]
    json: bool,
    /// Same as `--format dd-id`.
    #[arg(long, conflicts_with = "kcox")]
    dd_ids: bool,
    /// Same as `--format kcox`.
    #[arg(long)]
    kcox: bool,
    #[command(flatten)]
    backend: BackendArgs,
}

pub fn run(args: TopArgs) -> Result<ExitCode> {
    let format = ListFormat::or_flags(args.format, args.json, args.dd_ids, args.kcox);
    let mut backend = Backend::open(&args.backend)?;
    let name = backend.campaign_name(args.campaign.as_deref())?;
    if is_exhaustive(&mut backend, &name)? {
        return records(&mut backend, &name, &args, format);
    }
    let generator = generator_of(&mut backend, &name)?;
    let puzzles = backend.hardest(&name, args.limit, args.min_moves)?;
    if generator == Generator::Ricocheckers {
        if matches!(format, ListFormat::DdId | ListFormat::Kcox) {
            bail!(
                "{name} holds Ricocheckers positions, which have no DriftingDroids or K. Cox form"
            );
        }
        crate::commands::ricocheckers::mined::top(
            &name,
            &puzzles,
            format == ListFormat::Json,
            args.min_moves,
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    if format == ListFormat::DdId {
        let games = (puzzles.iter())
            .map(|mined| {
                let generated = generator.generate(mined.seed)?;
                let tiles = crate::format::tiles_named(&generated.arrangement);
                crate::format::driftingdroids_game(&generated.puzzle, tiles)
            })
            .collect::<Result<Vec<_>>>()?;
        return print_game_ids(&games);
    }
    if format == ListFormat::Kcox {
        let puzzles = (puzzles.iter())
            .map(|mined| Ok(generator.generate(mined.seed)?.puzzle))
            .collect::<Result<Vec<_>>>()?;
        return print_kcox(&puzzles);
    }
    let rules = spec_of(&mut backend, &name)?.rules;
    let measured = measure(&puzzles, rules, |mined| {
        Ok((generator.generate(mined.seed)?.puzzle, &mined.solution))
    })?;
    let mut out = crate::output::stdout::lock();
    if rules != Rules::STANDARD && format != ListFormat::Json {
        writeln!(out, "{name}: rules {rules}")?;
    }
    if puzzles.is_empty() && format != ListFormat::Json {
        writeln!(
            out,
            "{name}: no kept puzzles with at least {} moves yet",
            args.min_moves
        )?;
    }
    for (rank, (mined, (puzzle, metrics, optimum))) in puzzles.iter().zip(&measured).enumerate() {
        if format == ListFormat::Json {
            let row = SeedRow {
                campaign: &name,
                rules: rules.to_string(),
                rank: rank + 1,
                seed: mined.seed,
                moves: mined.moves,
                solution: &mined.solution,
                re_solved: mined.re_solved,
                puzzle: puzzle.to_record(Some(format!("seed {}", mined.seed))),
                metrics: MetricsJson::new(metrics, *optimum),
            };
            writeln!(out, "{}", serde_json::to_string(&row)?)?;
        } else {
            writeln!(
                out,
                "{:>3}. seed {:>12}  {:>2} moves{}  {}\n     {}",
                rank + 1,
                mined.seed,
                mined.moves,
                if mined.re_solved { " (re-solved)" } else { "" },
                mined.solution.join(" "),
                metrics_line(metrics, *optimum)
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// One mined seed of `top --format json`.
#[derive(Serialize)]
struct SeedRow<'a> {
    campaign: &'a str,
    rules: String,
    rank: usize,
    seed: u64,
    moves: u8,
    solution: &'a [String],
    re_solved: bool,
    /// The puzzle itself, so that `rrm solve --puzzles` reads the rows back.
    puzzle: ricochet::PuzzleRecord,
    metrics: MetricsJson,
}

/// One record placement of an exhaustive campaign in `top --format json`.
#[derive(Serialize)]
struct PlacementRow<'a> {
    campaign: &'a str,
    rules: String,
    rank: usize,
    unit: u64,
    board: &'a str,
    token: &'a str,
    placement: [u8; 4],
    moves: u8,
    solution: &'a [String],
    puzzle: ricochet::PuzzleRecord,
    metrics: MetricsJson,
}

/// Prints one game ID per line, and the first note (they are alike) as a plain line on
/// stderr, as `rrm pack` does.
fn print_game_ids(
    games: &[(ricochet::driftingdroids::DdGame, Option<String>)],
) -> Result<ExitCode> {
    if let Some(note) = games.iter().find_map(|(_, note)| note.as_ref()) {
        eprintln!("rrm top: {note}");
    }
    let mut out = crate::output::stdout::lock();
    for (game, _) in games {
        writeln!(out, "{}", game.id())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Each puzzle in K. Cox's text format, a blank line between them.
fn print_kcox(puzzles: &[Puzzle]) -> Result<ExitCode> {
    let texts = (puzzles.iter())
        .map(ricochet::kcox::write)
        .collect::<Result<Vec<_>, _>>()?;
    writeln!(
        crate::output::stdout::lock(),
        "{}",
        texts.join("\n").trim_end()
    )?;
    Ok(ExitCode::SUCCESS)
}

/// Measures the quality metrics of each puzzle with its stored solution: counting optimal
/// solutions of hard puzzles takes seconds each, so all are measured under a progress
/// bar before anything is printed. Gives each puzzle, its metrics and its optimum.
fn measure<T>(
    items: &[T],
    rules: Rules,
    puzzle_of: impl Fn(&T) -> Result<(Puzzle, &Vec<String>)>,
) -> Result<Vec<(Puzzle, Metrics, usize)>> {
    let progress = crate::output::progress::bar(items.len() as u64, "puzzles measured");
    let mut measured = Vec::with_capacity(items.len());
    for item in items {
        let (puzzle, stored) = puzzle_of(item)?;
        let solution: Vec<Move> = stored
            .iter()
            .map(|m| Move::from_notation(m).with_context(|| format!("stored move {m:?}")))
            .collect::<Result<_>>()?;
        let metrics = metrics_under(
            &puzzle,
            &solution,
            Counting::up_to(SOLUTION_COUNT_CAP),
            rules,
        );
        measured.push((puzzle, metrics, solution.len()));
        progress.inc(1);
    }
    progress.finish_and_clear();
    Ok(measured)
}

/// The generator of a campaign, by its name.
pub fn generator_of(backend: &mut Backend, name: &str) -> Result<Generator> {
    Ok(spec_of(backend, name)?.generator.parse()?)
}

/// Whether a campaign is exhaustive.
pub fn is_exhaustive(backend: &mut Backend, name: &str) -> Result<bool> {
    Ok(spec_of(backend, name)?.is_exhaustive())
}

fn spec_of(backend: &mut Backend, name: &str) -> Result<rrm_model::CampaignSpec> {
    Ok(backend.status(name)?.campaign.spec)
}

/// The puzzle of a mined placement, as a puzzle record can carry it.
pub fn placement_puzzle(mined: &MinedPlacement) -> Result<Puzzle> {
    UnitBoard::new(&mined.board, &mined.token)?
        .puzzle(&mined.placement)
        .with_context(|| {
            format!(
                "stored placement {:?} of {} {}",
                mined.placement, mined.board, mined.token
            )
        })
}

/// An optimal solution, in move notation, of a puzzle the store says needs `moves` moves;
/// anything else is an error (the store or the file would be wrong).
pub fn solve_exactly(puzzle: &Puzzle, moves: u8) -> Result<Vec<String>> {
    let solution = with_thread_solver(moves, |solver| solver.solve(puzzle))
        .map_err(|_| anyhow::anyhow!("no solution within the {moves} moves stored"))?;
    if solution.moves.len() != usize::from(moves) {
        bail!(
            "the solver needs {} moves, the store says {moves}",
            solution.moves.len()
        );
    }
    Ok(solution.moves.iter().map(Move::notation).collect())
}

/// The record table of an exhaustive campaign: every unit's hardest placements, most
/// moves first, with their metrics and the coordinator's solutions (solved here for the
/// placements a unit lists beyond those the coordinator re-solved).
fn records(
    backend: &mut Backend,
    name: &str,
    args: &TopArgs,
    format: ListFormat,
) -> Result<ExitCode> {
    let mut placements =
        backend.find_placements(name, args.min_moves..=u8::MAX, args.limit, true)?;
    if format == ListFormat::DdId {
        let games = (placements.iter())
            .map(|mined| {
                let tiles = crate::format::tiles_named(&mined.board);
                crate::format::driftingdroids_game(&placement_puzzle(mined)?, tiles)
            })
            .collect::<Result<Vec<_>>>()?;
        return print_game_ids(&games);
    }
    if format == ListFormat::Kcox {
        let puzzles = (placements.iter())
            .map(placement_puzzle)
            .collect::<Result<Vec<_>>>()?;
        return print_kcox(&puzzles);
    }
    for mined in placements.iter_mut().filter(|m| m.solution.is_empty()) {
        mined.solution = solve_exactly(&placement_puzzle(mined)?, mined.moves)
            .with_context(|| format!("placement {:?} of unit {}", mined.placement, mined.unit))?;
    }
    let measured = measure(&placements, Rules::STANDARD, |mined| {
        Ok((placement_puzzle(mined)?, &mined.solution))
    })?;
    let mut out = crate::output::stdout::lock();
    if placements.is_empty() && format != ListFormat::Json {
        writeln!(
            out,
            "{name}: no units with at least {} moves yet",
            args.min_moves
        )?;
    }
    for (rank, (mined, (puzzle, metrics, optimum))) in placements.iter().zip(&measured).enumerate()
    {
        let title = format!("{} {} unit {}", mined.board, mined.token, mined.unit);
        let placement = mined.placement.map(|c| c.to_string()).join(",");
        if format == ListFormat::Json {
            let row = PlacementRow {
                campaign: name,
                rules: Rules::STANDARD.to_string(),
                rank: rank + 1,
                unit: mined.unit,
                board: &mined.board,
                token: &mined.token,
                placement: mined.placement,
                moves: mined.moves,
                solution: &mined.solution,
                puzzle: puzzle.to_record(Some(title)),
                metrics: MetricsJson::new(metrics, *optimum),
            };
            writeln!(out, "{}", serde_json::to_string(&row)?)?;
        } else {
            writeln!(
                out,
                "{:>3}. {}  {:>2} moves  placement {placement}  {}\n     {}",
                rank + 1,
                title,
                mined.moves,
                mined.solution.join(" "),
                metrics_line(metrics, *optimum)
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
