//! `rrm show`: one puzzle (a seed, a puzzle file, or a placement of an exhaustive
//! campaign) as ASCII in the terminal and, with `--svg`, as a picture; with `--solution`,
//! an optimal solution (numbered arrows in the picture) and its metrics.

use crate::format::PuzzleFormat;
use crate::input::{self, Job, Source};
use crate::output::outfile::OutFile;
use anyhow::{Context, Result};
use clap::{ArgGroup, Args};
use ricochet::metrics::{metrics, Counting, Metrics};
use ricochet::svg::Picture;
use ricochet::{render, Move, Solver};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Optimal solutions are counted up to this many.
pub const SOLUTION_COUNT_CAP: u64 = 1000;

#[derive(Args)]
#[command(group(ArgGroup::new("input").required(true).args(["seed", "puzzle", "board"])))]
pub struct ShowArgs {
    /// A Fogleman generator seed.
    // A negative seed is a wrong value, not an unknown option.
    #[arg(long, allow_negative_numbers = true)]
    seed: Option<u64>,
    /// A puzzle file (JSON puzzle format, a DriftingDroids game ID or dump), or a
    /// DriftingDroids game ID itself.
    #[arg(long)]
    puzzle: Option<String>,
    /// A placement of an exhaustive campaign: its board, e.g. "1A 3B 4A 2B" or
    /// "DD 1C 2D 3C 4D" (with --target and --placement).
    #[arg(long, requires_all = ["target", "placement"])]
    board: Option<String>,
    /// The placement's target token, e.g. RT.
    #[arg(long, requires = "board")]
    target: Option<String>,
    /// The placement's cells (y*16+x on the board as named): the target robot's, then the
    /// three helpers', e.g. 57,17,40,200 (as `rrm top` lists them).
    #[arg(long, requires = "board", value_parser = input::parse_placement)]
    placement: Option<[u8; 4]>,
    /// Write an SVG picture of the board to this file.
    #[arg(long)]
    svg: Option<PathBuf>,
    /// Solve it: print an optimal solution and its quality metrics, and draw it.
    #[arg(long)]
    solution: bool,
    /// Print the puzzle alone on stdout as rrm's JSON puzzle, or as a DriftingDroids game
    /// ID or dump, instead of the board in text.
    #[arg(long, value_enum)]
    format: Option<PuzzleFormat>,
}

pub fn run(args: ShowArgs) -> Result<ExitCode> {
    let svg = args.svg.as_deref().map(OutFile::create).transpose()?;
    let (job, others) = match (args.seed, &args.puzzle, &args.board) {
        (Some(seed), _, _) => {
            let job = input::seed_job(seed)?;
            let others = other_tokens(&job);
            (job, others)
        }
        (_, Some(puzzle), _) => (
            crate::format::read_puzzle_arg(puzzle, PuzzleFormat::Auto)?,
            Vec::new(),
        ),
        (_, _, Some(board)) => {
            let (token, cells) = args
                .target
                .as_deref()
                .zip(args.placement)
                .context("--board needs --target and --placement")?;
            input::placement_job(board, token, cells)?
        }
        _ => unreachable!("clap requires one input"),
    };
    if let Some(format) = args.format {
        let (written, note) = crate::format::write(&job, format)?;
        if let Some(note) = note {
            eprintln!("rrm show: {note}");
        }
        crate::output::stdout::lock().write_all(written.as_bytes())?;
        return Ok(ExitCode::SUCCESS);
    }
    let title = title(&job);
    let mut out = crate::output::stdout::lock();
    writeln!(out, "{title}")?;
    write!(out, "{}", render::ascii(&job.puzzle))?;
    let solution = if args.solution {
        let solution = Solver::new()
            .solve(&job.puzzle)
            .with_context(|| format!("{title}: no solution"))?
            .moves;
        let measured = metrics(&job.puzzle, &solution, Counting::up_to(SOLUTION_COUNT_CAP));
        writeln!(
            out,
            "{} moves: {}",
            solution.len(),
            solution
                .iter()
                .map(Move::notation)
                .collect::<Vec<_>>()
                .join(" ")
        )?;
        writeln!(out, "{}", metrics_line(&measured, solution.len()))?;
        Some(solution)
    } else {
        None
    };
    if let Some(svg) = svg {
        let picture = ricochet::svg::board(
            &job.puzzle,
            &Picture {
                solution: solution.as_deref(),
                other_tokens: &others,
                title: Some(&title),
            },
        );
        svg.write(picture.as_bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}

fn title(job: &Job) -> String {
    match &job.source {
        Source::Seed(game) => format!(
            "seed {} ({}, target {})",
            game.seed,
            game.layout.tiles.join(" "),
            game.token
        ),
        Source::File { name, .. } => name.clone().unwrap_or_else(|| "puzzle".into()),
    }
}

/// The tokens of a generated board other than the target, to draw faintly.
pub fn other_tokens(job: &Job) -> Vec<(String, ricochet::Cell)> {
    match &job.source {
        Source::Seed(game) => game
            .layout
            .targets
            .iter()
            .filter(|(token, _)| *token != game.token)
            .map(|&(token, cell)| (token.to_string(), cell))
            .collect(),
        Source::File { .. } => Vec::new(),
    }
}

/// Quality metrics in one line.
pub fn metrics_line(m: &Metrics, optimum: usize) -> String {
    format!(
        "optimal solutions {}, robots moved {}, ricochets off robots {}, solo {}",
        solutions_text(m),
        m.robots_moved,
        m.ricochets,
        match (m.solo_moves, m.solo_gap(optimum)) {
            (Some(solo), Some(gap)) => format!("{solo} moves (+{gap})"),
            _ => "impossible".into(),
        }
    )
}

fn solutions_text(m: &Metrics) -> String {
    match (m.optimal_solutions, m.capped) {
        (Some(n), false) => n.to_string(),
        (Some(n), true) => format!("{n}+"),
        (None, _) => "not counted (too many states)".into(),
    }
}
