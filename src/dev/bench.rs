//! `rrm-dev bench`: CPU time, states and peak memory on the hard positions, then batch
//! throughput on Fogleman seeds and on random 4- and 5-robot puzzles, single-threaded.
//!
//! CPU time is the solving thread's own (`CLOCK_THREAD_CPUTIME_ID`), so a busy machine
//! disturbs it less than wall time; each hard position runs several times and the median
//! is shown. Peak memory is the process's resident high-water mark, reset before each
//! position through `/proc/self/clear_refs` (Linux).

use crate::input::{self, Job};
use anyhow::{Context, Result};
use clap::Args;
use cpu_time::ThreadTime;
use indicatif::{ProgressBar, ProgressStyle};
use ricochet::random::RandomPuzzles;
use ricochet::{Puzzle, Solver};
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// The hard positions of `tests/data/hard-positions.jsonl`, built in so `rrm-dev bench` runs anywhere.
pub const HARD_POSITIONS: &str = include_str!("../../tests/data/hard-positions.jsonl");

#[derive(Args)]
pub struct BenchArgs {
    /// Hard positions (JSON Lines puzzle file); default: the built-in hard-positions set.
    #[arg(long)]
    positions: Option<PathBuf>,
    /// Runs per hard position; the median CPU time is reported.
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Fogleman seeds solved as a batch, `A..B` (B excluded).
    #[arg(long, default_value = "1..5001")]
    seeds: String,
    /// Random 4-robot puzzles (2 or more moves) solved as a batch.
    #[arg(long, default_value_t = 5000)]
    random4: usize,
    /// Random 5-robot puzzles (2 or more moves) solved as a batch.
    #[arg(long, default_value_t = 2000)]
    random5: usize,
}

pub fn run(args: BenchArgs) -> Result<ExitCode> {
    let jobs = match &args.positions {
        Some(path) => crate::format::read_puzzles(path)?,
        None => crate::format::parse_puzzles(HARD_POSITIONS).context("built-in hard positions")?,
    };
    let mut out = crate::output::stdout::lock();
    writeln!(out, "machine: {}", machine_description())?;
    writeln!(
        out,
        "\nhard positions, single thread, median of {} runs",
        args.runs.max(1)
    )?;
    writeln!(
        out,
        "{:<28} {:>5} {:>8} {:>12} {:>10} {:>12} {:>9}",
        "position", "moves", "expected", "states", "cpu s", "states/s", "peak MB"
    )?;
    let mut failed = false;
    for job in &jobs {
        let row = bench_position(job, args.runs.max(1))?;
        failed |= row.mismatch;
        writeln!(
            out,
            "{:<28} {:>5} {:>8} {:>12} {:>10.3} {:>12.0} {:>9.1}{}",
            row.name,
            row.moves,
            row.expected.map_or("-".to_string(), |e| e.to_string()),
            row.states,
            row.cpu_seconds,
            row.states as f64 / row.cpu_seconds,
            row.peak_mb,
            if row.mismatch { "  MISMATCH" } else { "" }
        )?;
    }

    writeln!(out, "\nbatches, single thread (CPU ms per puzzle)")?;
    writeln!(
        out,
        "{:<34} {:>6} {:>6} {:>9} {:>8} {:>8} {:>8} {:>9} {:>10}",
        "batch", "count", "moves", "mean", "median", "p99", "max", "total s", "puzzles/s"
    )?;
    let seeds = input::parse_seed_range(&args.seeds)?;
    let seed_puzzles = seeds
        .clone()
        .map(|s| input::seed_job(s).map(|job| job.puzzle))
        .collect::<Result<Vec<_>>>()?;
    print_batch(
        &mut out,
        &format!("fogleman seeds {}", args.seeds),
        &solve_batch(&seed_puzzles),
    )?;
    for (robots, count) in [(4, args.random4), (5, args.random5)] {
        if count > 0 {
            let puzzles: Vec<Puzzle> = random_puzzles(robots, count, |_| true)
                .into_iter()
                .map(|(puzzle, _)| puzzle)
                .collect();
            let times = solve_batch(&puzzles);
            print_batch(
                &mut out,
                &format!("random {robots}-robot (2+ moves)"),
                &times,
            )?;
        }
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

struct PositionRow {
    name: String,
    moves: usize,
    expected: Option<u32>,
    states: u64,
    cpu_seconds: f64,
    peak_mb: f64,
    mismatch: bool,
}

fn bench_position(job: &Job, runs: usize) -> Result<PositionRow> {
    let (name, expected) = match &job.source {
        input::Source::File {
            name,
            expected_moves,
        } => (name.clone().unwrap_or_default(), *expected_moves),
        input::Source::Seed(game) => (format!("seed {}", game.seed), None),
    };
    let mut times = Vec::with_capacity(runs);
    let mut peak_mb = 0.0f64;
    let mut outcome = None;
    for _ in 0..runs {
        // A fresh solver, so the previous run's table is gone before the peak is reset.
        let mut solver = Solver::new();
        reset_peak_memory();
        let started = ThreadTime::now();
        let solution = solver
            .solve(&job.puzzle)
            .with_context(|| format!("position {name}"))?;
        times.push(started.elapsed().as_secs_f64());
        peak_mb = peak_mb.max(peak_memory_mb().unwrap_or(f64::NAN));
        outcome = Some(solution);
    }
    let solution = outcome.expect("at least one run");
    let moves = solution.moves.len();
    Ok(PositionRow {
        name,
        moves,
        expected,
        states: solution.stats.states,
        cpu_seconds: median(&mut times),
        peak_mb,
        mismatch: expected.is_some_and(|e| e as usize != moves),
    })
}

/// Random puzzles that `keep` accepts and that need 2 or more moves, with their optimal
/// lengths (from this solve).
pub fn random_puzzles(
    robots: usize,
    count: usize,
    keep: impl Fn(&Puzzle) -> bool,
) -> Vec<(Puzzle, usize)> {
    let mut stream = RandomPuzzles::new(robots as u64, robots);
    let mut solver = Solver::new();
    dealt_puzzles(
        count,
        || stream.next_puzzle(),
        keep,
        |puzzle| solver.solve(puzzle).ok().map(|s| s.moves.len()),
    )
}

/// The first `count` puzzles `deal` gives that `keep` accepts and that `moves` solves in
/// 2 moves or more, with those lengths.
pub fn dealt_puzzles(
    count: usize,
    mut deal: impl FnMut() -> Puzzle,
    keep: impl Fn(&Puzzle) -> bool,
    mut moves: impl FnMut(&Puzzle) -> Option<usize>,
) -> Vec<(Puzzle, usize)> {
    let mut puzzles = Vec::with_capacity(count);
    while puzzles.len() < count {
        let puzzle = deal();
        if !keep(&puzzle) {
            continue;
        }
        if let Some(moves) = moves(&puzzle).filter(|&m| m >= 2) {
            puzzles.push((puzzle, moves));
        }
    }
    puzzles
}

/// Per puzzle: (CPU seconds, moves). Unsolved puzzles count with 0 moves.
fn solve_batch(puzzles: &[Puzzle]) -> Vec<(f64, usize)> {
    let progress = ProgressBar::new(puzzles.len() as u64).with_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} {per_sec}").expect("valid template"),
    );
    let mut solver = Solver::new();
    let results = puzzles
        .iter()
        .map(|puzzle| {
            let started = ThreadTime::now();
            let moves = solver.solve(puzzle).map_or(0, |s| s.moves.len());
            progress.inc(1);
            (started.elapsed().as_secs_f64(), moves)
        })
        .collect();
    progress.finish_and_clear();
    results
}

fn print_batch(out: &mut impl Write, label: &str, results: &[(f64, usize)]) -> io::Result<()> {
    let mut times: Vec<f64> = results.iter().map(|&(t, _)| t).collect();
    let total: f64 = times.iter().sum();
    let count = times.len().max(1) as f64;
    let mean_moves = results.iter().map(|&(_, m)| m as f64).sum::<f64>() / count;
    times.sort_by(f64::total_cmp);
    let p99 = times[((times.len() as f64 * 0.99) as usize).min(times.len() - 1)];
    writeln!(
        out,
        "{:<34} {:>6} {:>6.2} {:>9.4} {:>8.4} {:>8.3} {:>8.1} {:>9.2} {:>10.0}",
        label,
        times.len(),
        mean_moves,
        total / count * 1e3,
        median(&mut times) * 1e3,
        p99 * 1e3,
        times.last().copied().unwrap_or(0.0) * 1e3,
        total,
        count / total
    )
}

/// The median (NaN for no values).
pub fn median(values: &mut [f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn reset_peak_memory() {
    // "5" resets the peak resident set size (Linux 4.0+); elsewhere the peak is lifetime.
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

fn peak_memory_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn machine_description() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".to_string());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!("{cpu}, {cores} cores")
}
