//! `rrm solve`: one puzzle with a picture, or a batch in parallel as JSON Lines.

use crate::input::{self, Job};
use crate::output::progress::Notes;
use crate::output::report::{count, Report};
use anyhow::Result;
use clap::{ArgGroup, Args};
use cpu_time::ThreadTime;
use rayon::prelude::*;
use ricochet::rules::Rules;
use ricochet::{Solution, Unsolved};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Puzzles solved between two in-order flushes of a batch's output.
const CHUNK: usize = 4096;

#[derive(Args)]
#[command(group(ArgGroup::new("input").required(true).args(["seed", "puzzle", "seeds", "puzzles"])))]
pub struct SolveArgs {
    /// A Fogleman generator seed (1 or more).
    // A negative seed is a wrong value, not an unknown option.
    #[arg(long, allow_negative_numbers = true)]
    seed: Option<u64>,
    /// A puzzle file (JSON puzzle format or a DriftingDroids game ID, see docs/editions.md), or a
    /// DriftingDroids game ID itself, e.g. `7650+42+E2302B12+C9`.
    #[arg(long)]
    puzzle: Option<String>,
    /// How `--puzzle` or `--puzzles` is written (seeds have no format to choose).
    #[arg(long, value_enum, default_value_t = crate::format::PuzzleFormat::Auto, conflicts_with_all = ["seed", "seeds"])]
    format: crate::format::PuzzleFormat,
    /// The rule set (see docs/editions.md, "Rules implemented"): `standard`, or rules joined by commas:
    /// `no-rebounds`, `ricochet` (the rulebook's), `dd-ricochet` (DriftingDroids'),
    /// `min-moves=N` (positions needing fewer moves are refused).
    #[arg(long, value_parser = parse_rules, default_value = "standard")]
    rules: Rules,
    /// Forbid rebounds, as DriftingDroids can (the same as adding `no-rebounds` to
    /// --rules): no robot moves along the line of its own previous move.
    #[arg(long)]
    no_rebounds: bool,
    /// A seed range `A..B` (B excluded) or `A..=B`, solved in parallel.
    #[arg(long)]
    seeds: Option<String>,
    /// A file of puzzles, solved in parallel: JSON Lines records, a pack of any format
    /// `rrm pack` writes, game IDs or dumps one per line, or K. Cox texts.
    #[arg(long)]
    puzzles: Option<PathBuf>,
    /// Print one JSON object per puzzle instead of text.
    #[arg(long)]
    json: bool,
    /// Worker threads for batches (default: all cores).
    #[arg(long, value_parser = input::at_least_one)]
    threads: Option<usize>,
    /// Give up on puzzles needing more moves than this.
    #[arg(long, default_value_t = ricochet::solver::DEFAULT_MAX_MOVES)]
    max_moves: u8,
}

/// Solves under `rules` (today's rule on this thread's reusable solver), measuring the
/// thread's CPU time.
fn solve_timed(job: &Job, rules: Rules, max_moves: u8) -> (Result<Solution, Unsolved>, f64) {
    let started = ThreadTime::now();
    let result = ricochet::rules::solve_on_thread(&job.puzzle, rules, max_moves);
    (result, started.elapsed().as_secs_f64())
}

/// [`solve_timed`] for one puzzle: a search under rules that restrict moves (or on a
/// board with mirrors) may take minutes, so after a second a line on stderr shows the
/// bound being searched, the states so far and their rate, as `exhaust` and `mine` show
/// theirs.
fn solve_watched(job: &Job, rules: Rules, max_moves: u8) -> (Result<Solution, Unsolved>, f64) {
    if ricochet::rules::fast_solver_plays(&job.puzzle, rules) {
        return solve_timed(job, rules, max_moves);
    }
    let progress = ricochet::rules::SearchProgress::default();
    let spinner = crate::output::progress::spinner();
    std::thread::scope(|scope| {
        let solving = scope.spawn(|| {
            let started = ThreadTime::now();
            let result = ricochet::rules::solve_watched(&job.puzzle, rules, max_moves, &progress);
            (result, started.elapsed().as_secs_f64())
        });
        let begun = std::time::Instant::now();
        let mut notes = Notes::new(&spinner, "rrm solve", std::time::Duration::from_secs(10));
        while !solving.is_finished() {
            std::thread::sleep(std::time::Duration::from_millis(100));
            let seconds = begun.elapsed().as_secs_f64();
            if seconds >= 1.0 {
                let states = progress.states.load(std::sync::atomic::Ordering::Relaxed);
                let text = format!(
                    "searching {} moves under {rules}: {} states, {}/s",
                    progress.bound.load(std::sync::atomic::Ordering::Relaxed),
                    rrm_model::numbers::si(states as f64),
                    rrm_model::numbers::si(states as f64 / seconds),
                );
                notes.now_and_then(|| text.clone());
                spinner.set_message(text);
                spinner.tick();
            }
        }
        spinner.finish_and_clear();
        solving.join().expect("the solving thread does not panic")
    })
}

/// Reads `--rules` (clap's value parser).
pub fn parse_rules(text: &str) -> Result<Rules, ricochet::rules::RulesError> {
    Rules::parse(text)
}

impl SolveArgs {
    fn rules(&self) -> Rules {
        Rules {
            rebounds: self.rules.rebounds && !self.no_rebounds,
            ..self.rules
        }
    }
}

pub fn run(args: SolveArgs) -> Result<ExitCode> {
    let single = match (&args.seed, &args.puzzle) {
        (Some(seed), _) => Some(input::seed_job(*seed)?),
        (_, Some(puzzle)) => Some(crate::format::read_puzzle_arg(puzzle, args.format)?),
        _ => None,
    };
    if let Some(job) = single {
        let (result, cpu) = solve_watched(&job, args.rules(), args.max_moves);
        let report = Report::new(&job, &result, cpu, args.rules());
        let mut out = crate::output::stdout::lock();
        if args.json {
            writeln!(out, "{}", serde_json::to_string(&report)?)?;
        } else {
            write!(out, "{}", report.text(&job.puzzle))?;
        }
        return Ok(exit_code(report.failed()));
    }
    let (pool, threads) = input::thread_pool(args.threads)?;
    // Batches of CHUNK jobs, generated or read ahead of solving, in input order.
    let (total, batches): (u64, Box<dyn Iterator<Item = Result<Vec<Job>>>>) =
        match (&args.seeds, &args.puzzles) {
            (Some(range), _) => {
                let seeds = input::parse_seed_range(range)?;
                let (first, last) = (*seeds.start(), *seeds.end());
                // Inclusive chunks: the range may end at u64::MAX, which no end can pass.
                let batches = seeds.step_by(CHUNK).map(move |start| {
                    (start..=last.min(start.saturating_add(CHUNK as u64 - 1)))
                        .map(input::seed_job)
                        .collect()
                });
                // No overflow: seeds start at 1.
                (last - first + 1, Box::new(batches))
            }
            (_, Some(path)) => {
                let mut jobs = crate::format::read_puzzles_as(path, args.format)?;
                let total = jobs.len() as u64;
                let mut batches = Vec::new();
                while !jobs.is_empty() {
                    let rest = jobs.split_off(jobs.len().min(CHUNK));
                    batches.push(Ok(std::mem::replace(&mut jobs, rest)));
                }
                (total, Box::new(batches.into_iter()))
            }
            _ => unreachable!("clap requires one input"),
        };
    let started = std::time::Instant::now();
    let progress = crate::output::progress::bar(total, "puzzles");
    let mut failed = false;
    for batch in batches {
        let jobs = batch?;
        failed |= solve_batch(&pool, &jobs, &args)?;
        progress.inc(jobs.len() as u64);
    }
    progress.finish_and_clear();
    tracing::info!(
        puzzles = total,
        threads,
        seconds = started.elapsed().as_secs_f64(),
        "batch solved"
    );
    Ok(exit_code(failed))
}

/// Solves `jobs` on the pool and prints them in input order; true if any failed.
fn solve_batch(pool: &rayon::ThreadPool, jobs: &[Job], args: &SolveArgs) -> Result<bool> {
    let reports: Vec<Report> = pool.install(|| {
        jobs.par_iter()
            .map(|job| {
                let (result, cpu) = solve_timed(job, args.rules(), args.max_moves);
                Report::new(job, &result, cpu, args.rules())
            })
            .collect()
    });
    let mut out = crate::output::stdout::lock();
    for report in &reports {
        if args.json {
            writeln!(out, "{}", serde_json::to_string(report)?)?;
        } else {
            let label = report.seed.map_or_else(
                || report.name.clone().unwrap_or_default(),
                |s| format!("seed {s}"),
            );
            let outcome = report.moves.map_or_else(
                || report.error.clone().unwrap_or_default(),
                |m| match report.refused {
                    true => format!("refused ({}), {}", report.rules, count(m as u64, "move")),
                    false => count(m as u64, "move"),
                },
            );
            writeln!(out, "{label}: {outcome} {}", report.solution.join(" "))?;
        }
    }
    Ok(reports.iter().any(Report::failed))
}

fn exit_code(failed: bool) -> ExitCode {
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
