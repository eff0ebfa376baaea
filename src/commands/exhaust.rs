//! `rrm exhaust`: the exact optimal move count of every placement of one unit (a board, a
//! target and the robot that must reach it, with interchangeable helpers), with the
//! histogram, the hardest placements as puzzle records, and where a given position ranks.

use crate::input::{self, Job, Source};
use crate::output::unit_result::{Lists, PlacementJson, RunJson, UnitResultJson};
use anyhow::{bail, Context, Result};
use clap::{ArgGroup, Args};
use cpu_time::ProcessTime;
use ricochet::edition::{unit_geometry, EditionBoard, UnitGeometry};
use ricochet::exhaustive::{
    analyse, analyse_restricted, Analysis, Finisher, Layer, Legality, Options, Placement, UnitError,
};
use ricochet::rules::Rules;
use ricochet::{Board, Cell, Puzzle, PuzzleRecord, Target};
use rrm_model::{
    add_bins, DEFAULT_SAMPLE_SIZE, DEFAULT_TOP_FROM, DEFAULT_TOP_PER_DEPTH, LIST_BOUND,
};
use serde::Serialize;
use std::io::Write;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Args)]
#[command(group(ArgGroup::new("unit").required(true).args(["seed", "puzzle", "board"])))]
pub struct ExhaustArgs {
    /// The board and target of a Fogleman seed; the seed's own position is ranked.
    // A negative seed is a wrong value, not an unknown option.
    #[arg(long, allow_negative_numbers = true)]
    seed: Option<u64>,
    /// A puzzle file: its board, target cell and target robot (any robot for a wild
    /// target); the file's own position is ranked.
    #[arg(long)]
    puzzle: Option<PathBuf>,
    /// A board, tiles in slot order: Fogleman's names, e.g. "1A 3B 4A 2B", or
    /// DriftingDroids' sides, e.g. "DD 1C 2D 3C 4D" (needs --target).
    #[arg(long, requires = "target")]
    board: Option<String>,
    /// Target tokens on --board: `RT`, a list `RT,GQ`, `VX` (the vortex, any robot, on
    /// the physical board with its walls), or `all` (the 16 coloured ones, in turn).
    #[arg(long, requires = "board")]
    target: Option<String>,
    /// Print one JSON object per unit (the format `rrm campaign import` reads).
    #[arg(long)]
    json: bool,
    /// Worker threads (default: all cores).
    #[arg(long, value_parser = input::at_least_one)]
    threads: Option<usize>,
    /// Hardest placements printed as puzzle records in text (JSON has them all).
    #[arg(long, default_value_t = 3)]
    show: usize,
    /// Placements sampled with their move counts, for checking.
    #[arg(long, default_value_t = DEFAULT_SAMPLE_SIZE)]
    sample: u32,
    /// Keep up to --top-per-depth placements of every depth from this one on.
    #[arg(long, default_value_t = DEFAULT_TOP_FROM)]
    top_from: u8,
    #[arg(long, default_value_t = DEFAULT_TOP_PER_DEPTH)]
    top_per_depth: u32,
    /// Keep up to this many legal placements at the deepest depth a legal one needs
    #[arg(long, default_value_t = LIST_BOUND)]
    legal_hardest: u32,
    /// The rule set (see docs/editions.md, "Rules implemented"): `standard`, or e.g. `no-rebounds,min-moves=3`.
    /// Rules that restrict moves take an engine that also tracks each robot's last line,
    /// for small boards (at most 20,000,000 states). A minimum counts placements needing
    /// fewer moves as refused; the histogram keeps every count.
    #[arg(long, value_parser = crate::commands::solve::parse_rules, default_value = "standard")]
    rules: Rules,
    /// Write the histogram (summed over the units run) as an SVG picture.
    #[arg(long)]
    svg: Option<PathBuf>,
}

/// One unit to analyse.
struct Unit {
    /// What to call it, e.g. `board 1A 3B 4A 2B, target GQ`.
    label: String,
    board: Board,
    /// The Fogleman board and token, when the unit is one.
    fogleman: Option<(String, String)>,
    target: Target,
    /// The target robot's slot in colour order.
    slot: usize,
    helpers: usize,
    /// Which placements are legal.
    legality: Legality,
    /// A position to rank, and what to call it.
    position: Option<(String, Placement)>,
}

/// The analysed position: its move count and how many placements need more.
#[derive(Serialize)]
struct PositionJson {
    label: String,
    placement: PlacementJson,
    moves: Option<u8>,
    /// Placements needing more moves (unsolvable ones included).
    harder: u64,
}

#[derive(Serialize)]
struct UnitJson {
    #[serde(flatten)]
    result: UnitResultJson,
    /// Placements the rules' minimum refuses (they need fewer moves).
    #[serde(skip_serializing_if = "is_zero")]
    refused: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    position: Option<PositionJson>,
}

impl Unit {
    /// The unit of a named board (either naming) and a token.
    fn edition(board: &str, token: &str) -> Result<Unit> {
        let UnitGeometry {
            board: geometry,
            target,
            legality,
        } = unit_geometry(board, token)?;
        Ok(Unit {
            label: format!("board {board}, target {token}"),
            board: geometry,
            fogleman: Some((board.to_string(), token.to_string())),
            target,
            slot: target.colour.map_or(0, |colour| colour.robot()),
            helpers: 3,
            legality,
            position: None,
        })
    }

    /// The unit of a puzzle's board, target and target robot, ranking the puzzle itself.
    fn of_puzzle(puzzle: &Puzzle, label: String) -> Result<Unit> {
        let target = puzzle.target();
        let slot = target.colour.map_or(0, |colour| colour.robot());
        let robots = puzzle.robots();
        let mut helpers: Vec<Cell> = robots
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != slot)
            .map(|(_, &c)| c)
            .collect();
        helpers.sort_unstable();
        Ok(Unit {
            label: label.clone(),
            board: puzzle.board().clone(),
            fogleman: None,
            target,
            slot,
            helpers: helpers.len(),
            legality: Legality::default(),
            position: Some((label, {
                let placement = Placement {
                    target_robot: robots[slot],
                    helpers,
                };
                match Finisher::of(&target) {
                    Finisher::TargetRobot => placement,
                    Finisher::AnyRobot => placement.as_set(),
                }
            })),
        })
    }
}

/// The units the arguments name.
fn units(args: &ExhaustArgs) -> Result<Vec<Unit>> {
    if let Some(seed) = args.seed {
        let job = input::seed_job(seed)?;
        let Source::Seed(game) = &job.source else {
            unreachable!("a seed job comes from a seed")
        };
        let mut unit = Unit::edition(&game.layout.name(), game.token)?;
        unit.position = Unit::of_puzzle(&job.puzzle, format!("seed {seed}"))?.position;
        return Ok(vec![unit]);
    }
    if let Some(path) = &args.puzzle {
        let Job { puzzle, source } = crate::format::read_puzzle(path)?;
        let name = match source {
            Source::File {
                name: Some(name), ..
            } => name,
            _ => path.display().to_string(),
        };
        return Ok(vec![Unit::of_puzzle(&puzzle, format!("puzzle {name}"))?]);
    }
    let (Some(board), Some(targets)) = (&args.board, &args.target) else {
        bail!("name a unit with --seed, --puzzle, or --board and --target");
    };
    let named = EditionBoard::parse(board)?;
    let tokens: Vec<String> = if targets.eq_ignore_ascii_case("all") {
        named.tokens().iter().map(|&(t, _)| t.to_string()).collect()
    } else {
        targets
            .split(',')
            .map(|t| t.trim().to_ascii_uppercase())
            .collect()
    };
    tokens
        .iter()
        .map(|t| Unit::edition(&named.name(), t))
        .collect()
}

pub fn run(args: ExhaustArgs) -> Result<ExitCode> {
    let units = units(&args)?;
    let (pool, threads) = input::thread_pool(args.threads)?;
    let lists = Lists {
        sample_size: args.sample,
        top_from: args.top_from,
        top_per_depth: args.top_per_depth,
    };
    let mut all = Vec::new();
    let mut legal = Vec::new();
    // Ctrl-C stops after the layer under way, and says where (a unit takes seconds to
    // minutes; the units printed before it are whole).
    crate::interrupt::catch_ctrl_c();
    for (done, unit) in units.iter().enumerate() {
        let options = Options {
            legality: unit.legality.clone(),
            sample_size: args.sample as usize,
            watch: unit.position.iter().map(|(_, p)| p.clone()).collect(),
            top_from: args.top_from,
            top_per_depth: args.top_per_depth as usize,
            legal_per_depth: ricochet::exhaustive::LEGAL_PER_DEPTH,
            legal_hardest: args.legal_hardest as usize,
            ..Options::default()
        };
        let bar = crate::output::progress::bar_with_message(0, "placements");
        bar.set_message(unit.label.clone());
        let (cpu, wall) = (ProcessTime::now(), Instant::now());
        let on_layer = |layer: &Layer| {
            bar.set_length(layer.placements);
            bar.set_position(layer.solved);
            bar.set_message(format!("{}: layer {} done", unit.label, layer.depth));
            if crate::interrupt::interrupted() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let (board, target, helpers) = (&unit.board, unit.target, unit.helpers);
        let analysis = pool.install(|| {
            if args.rules.restricts_moves() {
                analyse_restricted(board, target, helpers, args.rules, &options, on_layer)
            } else {
                analyse(board, target, helpers, &options, on_layer)
            }
        });
        bar.finish_and_clear();
        if let Err(UnitError::Stopped(layers)) = analysis {
            eprintln!(
                "rrm exhaust: interrupted in {} after {}; {} of {} done before it",
                unit.label,
                crate::output::report::count(u64::from(layers), "layer"),
                done,
                crate::output::report::count(units.len() as u64, "unit")
            );
            return Ok(ExitCode::from(130));
        }
        let analysis = analysis.with_context(|| unit.label.clone())?;
        let run = RunJson {
            rrm_version: env!("CARGO_PKG_VERSION").to_string(),
            threads,
            cpu_seconds: cpu.elapsed().as_secs_f64(),
            wall_seconds: wall.elapsed().as_secs_f64(),
            peak_memory_bytes: peak_memory_bytes(),
        };
        add_bins(&mut all, &analysis.histogram);
        add_bins(&mut legal, &analysis.legal_histogram);
        let mut result = UnitResultJson::new(
            &unit.board,
            unit.fogleman.clone().unzip(),
            unit.target.cell,
            &analysis,
            &lists,
        );
        result.run = Some(run);
        if args.rules != Rules::STANDARD {
            result.rules = Some(args.rules.to_string());
        }
        let refused = refused(&analysis, args.rules);
        let position = unit.position.as_ref().map(|(label, placement)| {
            let moves = analysis.watched[0];
            PositionJson {
                label: label.clone(),
                placement: PlacementJson::new(&unit.board, placement),
                moves,
                harder: harder_than(&analysis, moves),
            }
        });
        let mut out = crate::output::stdout::lock();
        if args.json {
            let json = UnitJson {
                result,
                refused,
                position,
            };
            writeln!(out, "{}", serde_json::to_string(&json)?)?;
        } else {
            write!(
                out,
                "{}",
                text(
                    unit,
                    &analysis,
                    &result,
                    position.as_ref(),
                    refused,
                    args.show
                )?
            )?;
        }
        out.flush()?;
    }
    if let Some(path) = &args.svg {
        let title = match &units[..] {
            [unit] => unit.label.clone(),
            _ => format!("{} units", units.len()),
        };
        let svg = rrm_charts::histogram_svg(
            &title,
            rrm_charts::Counted::Placements,
            &[("all placements", &all), ("legal placements", &legal)],
        );
        std::fs::write(path, svg).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Placements the minimum of `rules` refuses: those needing fewer moves.
fn refused(analysis: &Analysis, rules: Rules) -> u64 {
    let below = usize::from(rules.min_moves).min(analysis.histogram.len());
    analysis.histogram[..below].iter().sum()
}

/// Placements needing more moves than `moves` (all unsolvable ones included).
fn harder_than(analysis: &Analysis, moves: Option<u8>) -> u64 {
    match moves {
        Some(moves) => {
            analysis.histogram[usize::from(moves) + 1..]
                .iter()
                .sum::<u64>()
                + analysis.unsolvable
        }
        None => 0,
    }
}

/// The report of one unit as text.
fn text(
    unit: &Unit,
    analysis: &Analysis,
    result: &UnitResultJson,
    position: Option<&PositionJson>,
    refused: u64,
    show: usize,
) -> Result<String> {
    let robots = match unit.target.colour {
        Some(colour) => format!(
            "target robot {} and {}",
            colour.letter(),
            crate::output::report::count(unit.helpers as u64, "interchangeable helper")
        ),
        None => format!("any of {} interchangeable robots", unit.helpers + 1),
    };
    let rules = result.rules.as_deref().unwrap_or("standard");
    let mut out = format!(
        "{}: {robots}, {}\nrules: {rules}\n",
        unit.label,
        crate::output::report::count(analysis.placements, "placement")
    );
    // A puzzle file names no other targets: then every placement is legal, and the
    // legal columns would only repeat the others.
    let with_legal = unit.legality != Legality::default();
    let legal_total: u64 = analysis.legal_histogram.iter().sum();
    out += "moves   placements    share";
    out += if with_legal {
        "  legal placements    share\n"
    } else {
        "\n"
    };
    for (moves, (&n, &l)) in analysis
        .histogram
        .iter()
        .zip(&analysis.legal_histogram)
        .enumerate()
        .skip(1)
    {
        out += &format!("{moves:>5} {n:>12} {:>7.3}%", share(n, analysis.placements));
        if with_legal {
            out += &format!(" {l:>17} {:>7.3}%", share(l, legal_total));
        }
        out.push('\n');
    }
    if refused > 0 {
        out += &format!(
            "refused by the minimum (fewer moves): {}\n",
            crate::output::report::count(refused, "placement")
        );
    }
    if analysis.unsolvable > 0 {
        out += &format!(
            "unsolvable: {}\n",
            crate::output::report::count(analysis.unsolvable, "placement")
        );
    }
    out += &format!(
        "max {} moves: {}",
        analysis.max_moves,
        crate::output::report::count(analysis.hardest.len() as u64, "placement")
    );
    if with_legal {
        let legal_at_max = analysis.legal_histogram.last().copied().unwrap_or(0);
        out += &format!(" ({legal_at_max} legal)");
    }
    out.push('\n');
    if let Some(position) = position {
        match position.moves {
            Some(moves) => {
                out += &format!(
                    "{}: {moves} moves; {} ({:.4}%) need more\n",
                    position.label,
                    crate::output::report::count(position.harder, "placement"),
                    share(position.harder, analysis.placements)
                )
            }
            None => out += &format!("{}: unsolvable\n", position.label),
        }
    }
    out += &format!(
        "hardest placements as puzzle records (`rrm solve --puzzle`){}:\n",
        if analysis.hardest.len() > show {
            format!(", {show} of {}", analysis.hardest.len())
        } else {
            String::new()
        }
    );
    for (i, placement) in analysis.hardest.iter().take(show).enumerate() {
        let record = record(unit, placement, analysis.max_moves, rules, i + 1)?;
        out += &serde_json::to_string(&record)?;
        out.push('\n');
    }
    if let Some(run) = &result.run {
        out += &format!(
            "{:.1} s CPU, {:.1} s wall on {} threads, peak memory {} MB\n",
            run.cpu_seconds,
            run.wall_seconds,
            run.threads,
            run.peak_memory_bytes / 1_000_000
        );
    }
    Ok(out)
}

/// A placement of the unit as a puzzle record, with its move count to check.
fn record(
    unit: &Unit,
    placement: &Placement,
    moves: u8,
    rules: &str,
    number: usize,
) -> Result<PuzzleRecord> {
    let puzzle = Puzzle::new(unit.board.clone(), placement.robots(unit.slot), unit.target)?;
    let mut record = puzzle.to_record(Some(format!("{} #{number}", unit.label)));
    record.source = Some(match rules {
        "standard" => format!("rrm exhaust: {moves} moves, proven by exhaustive analysis"),
        rules => format!(
            "rrm exhaust: {moves} moves under rules {rules} (`rrm solve --rules {rules}`), \
             proven by exhaustive analysis"
        ),
    });
    record.moves = Some(moves.into());
    Ok(record)
}

fn share(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 * 100.0 / whole as f64
    }
}

/// The most memory this process has held (resident set), in bytes.
fn peak_memory_bytes() -> u64 {
    // SAFETY: getrusage writes only into the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return 0;
    }
    // Linux reports kilobytes.
    u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024
}
