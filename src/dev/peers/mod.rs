//! `rrm-dev peer-bench`: rrm against the public solvers on the same puzzles. The peers are
//! DriftingDroids, K. Cox's `ricochetrobots` crate and Fogleman's C solver, each behind a
//! driver of ours that `bench/peers/build` compiles from the peer's own sources.
//!
//! Every solver is a process of its own, pinned to one core, one process at a time, the
//! solvers' order rotating from run to run so that a drift of the machine falls on all of
//! them. The figures are each process's CPU time (user + system, from `wait4`; the median
//! over the runs) and peak resident memory. Start-up counts: it is part of what a user
//! waits for. Every answer is replayed on its puzzle and must have the optimal length
//! (the published count, or else rrm's); a wrong answer fails the command.

mod answers;
mod process;

use crate::dev::bench::median;
use crate::input;
use answers::{check, puzzle_seconds, read_driver, read_rrm, Verdict};
use anyhow::{Context, Result};
use clap::Args;
use ricochet::rules::Rules;
use ricochet::{Puzzle, Solver};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;

/// The peers' drivers, as `bench/peers/build` names them in its output directory.
const PEERS: [&str; 3] = ["driftingdroids", "kcox", "fogleman"];

#[derive(Args)]
pub struct PeerBenchArgs {
    /// The directory of the peers' drivers (`bench/peers/build` writes them there).
    #[arg(long, default_value = "/tmp/rrm-peers")]
    peers: PathBuf,
    /// Runs of every solver on every set; the median CPU time is reported.
    #[arg(long, default_value_t = 3, value_parser = input::at_least_one)]
    runs: usize,
    /// Hard positions (JSON Lines puzzle file), each timed alone; default: the built-in set.
    #[arg(long)]
    positions: Option<PathBuf>,
    /// Random 4-robot puzzles (coloured targets, the target robot elsewhere, 2 or more
    /// moves) solved as one batch.
    #[arg(long, default_value_t = 5000)]
    random4: usize,
    /// Random 5-robot puzzles, chosen alike, solved as one batch.
    #[arg(long, default_value_t = 2000)]
    random5: usize,
    /// Random puzzles on boards with mirrors, of 4 robots and again of 5, each count
    /// solved as one batch (`ricochet::random::RandomMirrorPuzzles`: the second
    /// edition's four D sides with their diagonals, as in K. Cox's mirror games and in
    /// DriftingDroids' order, and random boards with random mirrors). Only the solvers
    /// that know mirrors (rrm, K. Cox's) take them.
    #[arg(long, default_value_t = 500)]
    mirrors: usize,
    /// The core every solver process is pinned to.
    #[arg(long, default_value_t = 1)]
    cpu: usize,
    /// A process running longer than this many seconds is killed and counted as failed.
    #[arg(long, default_value_t = 900)]
    timeout: u64,
    /// Also write every measurement as JSON Lines to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Keep the puzzle sets (one JSON Lines file each, as the solvers read them) in this
    /// directory, to time or profile them alone afterwards.
    #[arg(long)]
    sets_out: Option<PathBuf>,
}

/// Puzzles timed together in one process: a hard position alone, or a random batch.
struct Set {
    label: String,
    /// Name, puzzle, optimal count.
    puzzles: Vec<(String, Puzzle, usize)>,
    file: PathBuf,
    /// Its boards have mirrors.
    mirrors: bool,
}

/// A solver and how its process is started on a set's file.
struct Contender {
    name: String,
    program: PathBuf,
    args: Vec<String>,
    reads_json: bool,
    /// It knows diagonal walls (mirrors).
    takes_mirrors: bool,
}

impl Contender {
    fn command(&self, file: &Path) -> Command {
        let mut command = Command::new(&self.program);
        command.args(&self.args).arg(file);
        command
    }
}

/// One solver on one set, over the runs.
#[derive(Default)]
struct Row {
    cpu: Vec<f64>,
    /// The median puzzle's seconds of each run, where the solver reports its puzzles'.
    median_puzzle: Vec<f64>,
    peak_mb: f64,
    verdict: Verdict,
    failure: Option<String>,
}

pub fn run(args: PeerBenchArgs) -> Result<ExitCode> {
    let work = tempfile::tempdir().context("a scratch directory")?;
    let sets_dir = match &args.sets_out {
        Some(dir) => {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            dir.clone()
        }
        None => work.path().to_path_buf(),
    };
    let sets = puzzle_sets(&args, &sets_dir)?;
    let solvers = solvers(&args.peers)?;
    let mut rows: Vec<Vec<Row>> = sets
        .iter()
        .map(|_| solvers.iter().map(|_| Row::default()).collect())
        .collect();
    let progress =
        crate::output::progress::bar((sets.len() * solvers.len() * args.runs) as u64, "runs");
    let limit = Duration::from_secs(args.timeout);
    let mut problems = Vec::new();
    for run in 0..args.runs {
        for (s, set) in sets.iter().enumerate() {
            for k in 0..solvers.len() {
                let which = (k + run + s) % solvers.len();
                let solver = &solvers[which];
                let row = &mut rows[s][which];
                if set.mirrors && !solver.takes_mirrors {
                    row.failure = Some("knows no mirrors".to_string());
                    continue;
                }
                progress.set_message(format!("{} on {}", solver.name, set.label));
                let stdout = work.path().join("answers");
                let measured =
                    process::run_pinned(solver.command(&set.file), args.cpu, &stdout, limit)?;
                progress.inc(1);
                let usage = match measured {
                    Ok(usage) => usage,
                    Err(failure) => {
                        row.failure = Some(failure.to_string());
                        continue;
                    }
                };
                let output = std::fs::read_to_string(&stdout)?;
                let answers = if solver.reads_json {
                    read_rrm(&output)
                } else {
                    read_driver(&output)
                };
                row.verdict = check(&set.puzzles, &answers, |name, why| {
                    problems.push(format!("{} on {name}: {why}", solver.name))
                });
                row.cpu.push(usage.cpu_seconds);
                let mut seconds = puzzle_seconds(&output, solver.reads_json);
                let median_puzzle = (!seconds.is_empty()).then(|| median(&mut seconds));
                row.median_puzzle.extend(median_puzzle);
                row.peak_mb = row.peak_mb.max(usage.peak_mb);
                if let Some(json) = &args.json {
                    let measured = (&usage, median_puzzle);
                    append_json(json, run, &set.label, &solver.name, measured, row.verdict)?;
                }
            }
        }
    }
    progress.finish_and_clear();
    let mut out = crate::output::stdout::lock();
    print_table(&mut out, args.runs, &sets, &solvers, &mut rows)?;
    for problem in problems.iter().take(20) {
        writeln!(out, "WRONG: {problem}")?;
    }
    Ok(if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// rrm itself (`rrm solve` on one thread, the `rrm` beside this executable), then the
/// peers found in `dir`.
fn solvers(dir: &Path) -> Result<Vec<Contender>> {
    let this = std::env::current_exe().context("this executable")?;
    let rrm = this.with_file_name("rrm");
    anyhow::ensure!(
        rrm.is_file(),
        "no rrm beside {} (cargo build --release builds both)",
        this.display()
    );
    let mut solvers = vec![Contender {
        name: "rrm".to_string(),
        program: rrm,
        args: ["solve", "--json", "--threads", "1", "--puzzles"]
            .map(String::from)
            .to_vec(),
        reads_json: true,
        takes_mirrors: true,
    }];
    for peer in PEERS {
        let program = dir.join(peer);
        if program.is_file() {
            solvers.push(Contender {
                name: peer.to_string(),
                program,
                args: Vec::new(),
                reads_json: false,
                takes_mirrors: peer == "kcox",
            });
        } else {
            eprintln!(
                "rrm: no {} (run bench/peers/build); left out",
                program.display()
            );
        }
    }
    Ok(solvers)
}

/// The hard positions one by one, then the random batches, written where the solvers
/// read them, each puzzle with its optimal count.
fn puzzle_sets(args: &PeerBenchArgs, dir: &Path) -> Result<Vec<Set>> {
    let jobs = match &args.positions {
        Some(path) => crate::format::read_puzzles(path)?,
        None => crate::format::parse_puzzles(crate::dev::bench::HARD_POSITIONS)?,
    };
    let mut sets = Vec::new();
    for (i, job) in jobs.iter().enumerate() {
        let (name, expected) = match &job.source {
            input::Source::File {
                name,
                expected_moves,
            } => (
                name.clone().unwrap_or(format!("position {}", i + 1)),
                *expected_moves,
            ),
            input::Source::Seed(game) => (format!("seed {}", game.seed), None),
        };
        // The file's count where it has one (every answer, rrm's too, is checked
        // against it); else rrm's, found here.
        let moves = match expected {
            Some(moves) => moves as usize,
            None => Solver::new()
                .solve(&job.puzzle)
                .with_context(|| format!("solving {name}"))?
                .moves
                .len(),
        };
        let puzzles = vec![(name.clone(), job.puzzle.clone(), moves)];
        let mirrors = job.puzzle.board().has_mirrors();
        sets.push(write_set(
            dir,
            format!("{name} ({moves})"),
            puzzles,
            mirrors,
        )?);
    }
    for (robots, count) in [(4, args.random4), (5, args.random5)] {
        if count == 0 {
            continue;
        }
        // The peers take a target of one colour only. A target robot standing on the
        // target is left out: rrm counts a move away and back (2 moves), the drivers
        // answer 0, and DriftingDroids demands a ricochet.
        let keep = |puzzle: &Puzzle| {
            let target = puzzle.target();
            target
                .colour
                .is_some_and(|colour| puzzle.robots()[colour.robot()] != target.cell)
        };
        let puzzles = crate::dev::bench::random_puzzles(robots, count, keep)
            .into_iter()
            .enumerate()
            .map(|(i, (puzzle, moves))| (format!("r{robots}-{}", i + 1), puzzle, moves))
            .collect();
        sets.push(write_set(
            dir,
            format!("{count} random, {robots} robots"),
            puzzles,
            false,
        )?);
    }
    for robots in [4, 5] {
        if args.mirrors == 0 {
            continue;
        }
        let puzzles = mirror_puzzles(robots, args.mirrors)
            .into_iter()
            .enumerate()
            .map(|(i, (puzzle, moves))| (format!("m{robots}-{}", i + 1), puzzle, moves))
            .collect();
        let label = format!("{} mirror games, {robots} robots", args.mirrors);
        sets.push(write_set(dir, label, puzzles, true)?);
    }
    Ok(sets)
}

/// `count` random puzzles of `robots` robots on boards with mirrors, with their optimal
/// counts (rrm's; a peer that disagrees is reported): a coloured target whose robot
/// stands elsewhere, 2 or more moves.
fn mirror_puzzles(robots: usize, count: usize) -> Vec<(Puzzle, usize)> {
    let mut stream = ricochet::random::RandomMirrorPuzzles::new(robots as u64, robots);
    let elsewhere = |puzzle: &Puzzle| {
        let target = puzzle.target();
        (target.colour).is_some_and(|c| puzzle.robots()[c.robot()] != target.cell)
    };
    crate::dev::bench::dealt_puzzles(
        count,
        || stream.next_puzzle(),
        elsewhere,
        |puzzle| {
            let solved = ricochet::rules::solve_on_thread(puzzle, Rules::STANDARD, MIRROR_MOVES);
            solved.ok().map(|s| s.moves.len())
        },
    )
}

/// The longest mirror game the set keeps (a longer one is dealt again).
const MIRROR_MOVES: u8 = 30;

fn write_set(
    dir: &Path,
    label: String,
    puzzles: Vec<(String, Puzzle, usize)>,
    mirrors: bool,
) -> Result<Set> {
    let file = dir.join(format!(
        "set-{}.jsonl",
        label.replace([' ', ',', '(', ')'], "_")
    ));
    let mut text = String::new();
    for (name, puzzle, _) in &puzzles {
        text += &serde_json::to_string(&puzzle.to_record(Some(name.clone())))?;
        text.push('\n');
    }
    std::fs::write(&file, text).with_context(|| format!("writing {}", file.display()))?;
    Ok(Set {
        label,
        puzzles,
        file,
        mirrors,
    })
}

fn append_json(
    path: &Path,
    run: usize,
    set: &str,
    solver: &str,
    (usage, median_puzzle): (&process::Usage, Option<f64>),
    verdict: Verdict,
) -> Result<()> {
    /// One solver's run on one set, a line of `--json-out`.
    #[derive(serde::Serialize)]
    struct RunLine<'a> {
        run: usize,
        set: &'a str,
        solver: &'a str,
        cpu_seconds: f64,
        wall_seconds: f64,
        peak_mb: f64,
        /// The median puzzle's seconds, where the solver reports its puzzles'.
        median_puzzle_seconds: Option<f64>,
        right: usize,
        unsupported: usize,
        wrong: usize,
    }
    let line = serde_json::to_string(&RunLine {
        run,
        set,
        solver,
        cpu_seconds: usage.cpu_seconds,
        wall_seconds: usage.wall_seconds,
        peak_mb: usage.peak_mb,
        median_puzzle_seconds: median_puzzle,
        right: verdict.right,
        unsupported: verdict.unsupported,
        wrong: verdict.wrong,
    })?;
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("opening {}", path.display()))?;
    writeln!(file, "{line}")?;
    Ok(())
}

fn print_table(
    out: &mut impl Write,
    runs: usize,
    sets: &[Set],
    solvers: &[Contender],
    rows: &mut [Vec<Row>],
) -> Result<()> {
    writeln!(
        out,
        "process CPU s (user + system), median of {runs} runs, one core; peak RSS; the median",
    )?;
    writeln!(
        out,
        "puzzle's ms as the solver reports it (rrm: thread CPU; drivers: wall time inside"
    )?;
    writeln!(out, "the process, on its pinned core), median of the runs")?;
    writeln!(
        out,
        "{:<30} {:<14} {:>8} {:>7} {:>6} {:>9} {:>9}",
        "puzzles", "solver", "CPU s", "peak MB", "÷ rrm", "ms/puzzle", "optimal"
    )?;
    for (set, set_rows) in sets.iter().zip(rows.iter_mut()) {
        let rrm_cpu = median(&mut set_rows[0].cpu);
        let rrm_puzzle = median_puzzle(&mut set_rows[0]);
        let mut puzzle_ratios = Vec::new();
        for (k, (solver, row)) in solvers.iter().zip(set_rows.iter_mut()).enumerate() {
            let label = if k == 0 { set.label.as_str() } else { "" };
            let answered = format!(
                "{}/{}{}",
                row.verdict.right,
                set.puzzles.len(),
                if row.verdict.unsupported > 0 {
                    format!(" ({} unsupp.)", row.verdict.unsupported)
                } else {
                    String::new()
                }
            );
            match (&row.failure, median(&mut row.cpu)) {
                (Some(failure), _) => writeln!(out, "{label:<30} {:<14} {failure}", solver.name)?,
                (None, cpu) => {
                    // A ratio only where the solver answered something.
                    let ratio = match row.verdict.right {
                        0 => "-".to_string(),
                        _ => format!("{:.1}", cpu / rrm_cpu),
                    };
                    let seconds = median_puzzle(row);
                    let per_puzzle = seconds.map_or("-".to_string(), |s| format!("{:.3}", s * 1e3));
                    if let (Some(seconds), Some(rrm)) = (seconds, rrm_puzzle) {
                        if k > 0 && row.verdict.right > 0 {
                            puzzle_ratios.push(format!("{} {:.2}×", solver.name, seconds / rrm));
                        }
                    }
                    writeln!(
                        out,
                        "{label:<30} {:<14} {cpu:>8.2} {:>7.0} {ratio:>6} {per_puzzle:>9} \
                         {answered:>9}",
                        solver.name, row.peak_mb,
                    )?
                }
            }
        }
        // The median puzzle's time against rrm's: issue 45's measure on the mirror games.
        if !puzzle_ratios.is_empty() {
            writeln!(
                out,
                "{:<30} median puzzle ÷ rrm's: {}",
                "",
                puzzle_ratios.join(", ")
            )?;
        }
    }
    Ok(())
}

/// The median over the runs of the median puzzle's seconds, where the solver reports them.
fn median_puzzle(row: &mut Row) -> Option<f64> {
    (!row.median_puzzle.is_empty()).then(|| median(&mut row.median_puzzle))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Under a set's rows, each peer that answered and reports its puzzles' times has its
    /// median puzzle's over rrm's; a peer without times, or with no right answer, has none.
    #[test]
    fn a_set_gives_each_peers_median_puzzle_over_rrm_s() {
        let set = Set {
            label: "2 mirror games, 4 robots".to_string(),
            puzzles: Vec::new(),
            file: PathBuf::new(),
            mirrors: true,
        };
        let solvers = ["rrm", "kcox", "fogleman", "liar"].map(|name| Contender {
            name: name.to_string(),
            program: PathBuf::new(),
            args: Vec::new(),
            reads_json: false,
            takes_mirrors: true,
        });
        let row = |cpu, puzzle: Option<f64>, right| Row {
            cpu: vec![cpu],
            median_puzzle: puzzle.into_iter().collect(),
            verdict: Verdict {
                right,
                ..Verdict::default()
            },
            ..Row::default()
        };
        let mut rows = vec![vec![
            row(1.0, Some(0.000_1), 2),
            row(4.0, Some(0.000_48), 2),
            row(2.0, None, 2),
            row(9.0, Some(0.001), 0),
        ]];
        let mut out = Vec::new();
        print_table(&mut out, 1, &[set], &solvers, &mut rows).unwrap();
        let text = String::from_utf8(out).unwrap();
        let ratios: Vec<&str> = text.lines().filter(|l| l.contains("÷ rrm's")).collect();
        assert_eq!(ratios.len(), 1, "{text}");
        assert!(
            ratios[0].ends_with("median puzzle ÷ rrm's: kcox 4.80×"),
            "{text}"
        );
    }
}
