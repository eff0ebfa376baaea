//! `rrm pack`: a curated puzzle pack from the mined results, as a printable HTML page or
//! a JSON file for apps. Same store and flags, same pack: candidates are taken hardest
//! first, then by seed, and every step after that is deterministic.

use crate::backend::{Backend, BackendArgs};
use crate::outfile::OutFile;
use crate::show::{metrics_json, SOLUTION_COUNT_CAP};
use crate::top::generator_of;
use anyhow::{bail, Context, Result};
use clap::builder::RangedU64ValueParser;
use clap::Args;
use ricochet::metrics::{metrics, Metrics};
use ricochet::svg::{escape, Picture};
use ricochet::{GeneratedPuzzle, Move, Solver};
use serde_json::json;
use std::collections::HashSet;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

/// Candidates read from the store at most.
const CANDIDATES: usize = 100_000;

#[derive(Args)]
pub struct PackArgs {
    /// Fewest optimal moves of a puzzle in the pack.
    #[arg(long)]
    min_moves: u8,
    /// Most optimal moves of a puzzle in the pack.
    #[arg(long)]
    max_moves: u8,
    /// Puzzles in the pack.
    #[arg(long, value_parser = crate::input::at_least_one)]
    count: usize,
    /// Only puzzles with exactly one optimal solution.
    #[arg(long)]
    unique: bool,
    /// Only puzzles whose solution moves at least this many robots.
    #[arg(long, default_value_t = 1, value_parser = RangedU64ValueParser::<usize>::new().range(1..=5))]
    min_robots: usize,
    /// At most one puzzle per board arrangement.
    #[arg(long)]
    distinct_boards: bool,
    /// The campaign (default: the only one).
    #[arg(long)]
    campaign: Option<String>,
    /// Output file: `.html` (printable page) or `.json` (for apps).
    #[arg(long)]
    out: PathBuf,
    #[command(flatten)]
    backend: BackendArgs,
}

/// A puzzle chosen for the pack.
struct Chosen {
    seed: u64,
    generated: GeneratedPuzzle,
    solution: Vec<Move>,
    metrics: Metrics,
}

pub fn run(args: PackArgs) -> Result<ExitCode> {
    // Every argument is checked before the minutes of solving.
    let format = match args.out.extension().and_then(|e| e.to_str()) {
        Some("html") => Format::Html,
        Some("json") => Format::Json,
        _ => bail!(
            "--out must end in .html or .json, not {}",
            args.out.display()
        ),
    };
    if args.min_moves > args.max_moves {
        bail!(
            "--min-moves {} is above --max-moves {}",
            args.min_moves,
            args.max_moves
        );
    }
    let out = OutFile::create(&args.out)?;
    let mut backend = Backend::open(&args.backend)?;
    let name = backend.campaign_name(args.campaign.as_deref())?;
    let generator = generator_of(&mut backend, &name)?;
    let candidates = backend.find_puzzles(&name, args.min_moves..=args.max_moves, CANDIDATES)?;
    let chosen = choose(&args, generator, &candidates)?;
    if chosen.len() < args.count {
        eprintln!(
            "only {} of {} candidates with {}..={} moves pass the filters; the pack has {} puzzles",
            chosen.len(),
            candidates.len(),
            args.min_moves,
            args.max_moves,
            chosen.len()
        );
    }
    let content = match format {
        Format::Html => html(&name, &chosen),
        Format::Json => json_pack(&name, generator, &args, &chosen).to_string(),
    };
    out.write(content.as_bytes())?;
    writeln!(
        crate::stdout::lock(),
        "wrote {} puzzles to {}",
        chosen.len(),
        args.out.display()
    )?;
    Ok(ExitCode::SUCCESS)
}

enum Format {
    Html,
    Json,
}

fn choose(
    args: &PackArgs,
    generator: ricochet::Generator,
    candidates: &[(u64, u8)],
) -> Result<Vec<Chosen>> {
    let bar = crate::progress::bar(args.count as u64, "puzzles chosen");
    let mut solver = Solver::new();
    let mut boards = HashSet::new();
    let mut chosen = Vec::new();
    for (looked, &(seed, moves)) in candidates.iter().enumerate() {
        if chosen.len() == args.count {
            break;
        }
        bar.set_message(format!(
            "({looked} of {} candidates looked at)",
            candidates.len()
        ));
        let generated = generator.generate(seed)?;
        if args.distinct_boards && boards.contains(&generated.arrangement) {
            continue;
        }
        let solution = solver
            .solve(&generated.puzzle)
            .with_context(|| format!("seed {seed} has no solution"))?
            .moves;
        if solution.len() != usize::from(moves) {
            bail!(
                "seed {seed}: the store says {moves} moves, the solver finds {}",
                solution.len()
            );
        }
        if ricochet::puzzle::robots_moved(&solution) < args.min_robots {
            continue;
        }
        let cap = if args.unique { 2 } else { SOLUTION_COUNT_CAP };
        let measured = metrics(&generated.puzzle, &solution, cap);
        if args.unique && measured.optimal_solutions != Some(1) {
            continue;
        }
        boards.insert(generated.arrangement.clone());
        chosen.push(Chosen {
            seed,
            generated,
            solution,
            metrics: measured,
        });
        bar.inc(1);
    }
    bar.finish_and_clear();
    // Easiest first, like a puzzle book.
    chosen.sort_by_key(|c| (c.solution.len(), c.seed));
    Ok(chosen)
}

fn notation(moves: &[Move]) -> Vec<String> {
    moves.iter().map(Move::notation).collect()
}

/// The pack as JSON: see README, "Puzzle pack JSON".
fn json_pack(
    name: &str,
    generator: ricochet::Generator,
    args: &PackArgs,
    chosen: &[Chosen],
) -> serde_json::Value {
    json!({
        "format": "rrm-pack/1",
        "campaign": name,
        "generator": generator.name(),
        "filters": {
            "min_moves": args.min_moves,
            "max_moves": args.max_moves,
            "count": args.count,
            "unique": args.unique,
            "min_robots": args.min_robots,
            "distinct_boards": args.distinct_boards,
        },
        "puzzles": chosen.iter().enumerate().map(|(index, c)| {
            let mut record = c.generated.puzzle.to_record(Some(format!("seed {}", c.seed)));
            record.moves = Some(c.solution.len() as u32);
            json!({
                "number": index + 1,
                "seed": c.seed,
                "token": c.generated.token,
                "arrangement": c.generated.arrangement,
                "puzzle": record,
                "moves": c.solution.len(),
                "solution": notation(&c.solution),
                "metrics": metrics_json(&c.metrics, c.solution.len()),
            })
        }).collect::<Vec<_>>(),
    })
}

/// One self-contained printable page: the puzzles, then their solutions on new pages.
fn html(name: &str, chosen: &[Chosen]) -> String {
    let mut page = String::new();
    let _ = write!(
        page,
        r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font-family: Georgia, serif; margin: 1.5cm; color: #1d1d1d; }}
h1 {{ font-size: 1.6em; margin: 0 0 .2em; }} .sub {{ color: #555; margin-bottom: 1em; }}
.grid {{ display: grid; grid-template-columns: repeat(2, 1fr); gap: 1em 1.5em; }}
.card {{ break-inside: avoid; page-break-inside: avoid; }}
.card h2 {{ font-size: 1.05em; margin: .3em 0; }} .card svg {{ width: 100%; height: auto; }}
.moves {{ font-family: monospace; font-size: .95em; }}
.solutions {{ page-break-before: always; break-before: page; }}
@media print {{ body {{ margin: 0; }} }}
</style></head><body>
<h1>{title}</h1><div class="sub">{count} puzzles from campaign {campaign}, easiest first. Move the robot of the target's colour onto it; robots slide until they hit a wall or another robot. Solutions at the end.</div>
<div class="grid">"#,
        title = escape(&format!("Ricochet Robots: {} puzzles", chosen.len())),
        count = chosen.len(),
        campaign = escape(name)
    );
    for (index, c) in chosen.iter().enumerate() {
        let board = ricochet::svg::board(&c.generated.puzzle, &Picture::default());
        let _ = write!(
            page,
            r#"<div class="card" id="puzzle-{number}"><h2>Puzzle {number} · {moves} moves · seed {seed}</h2>{board}</div>"#,
            number = index + 1,
            moves = c.solution.len(),
            seed = c.seed
        );
    }
    page.push_str(r#"</div><div class="solutions"><h1>Solutions</h1><div class="grid">"#);
    for (index, c) in chosen.iter().enumerate() {
        let board = ricochet::svg::board(
            &c.generated.puzzle,
            &Picture {
                solution: Some(&c.solution),
                ..Picture::default()
            },
        );
        let _ = write!(
            page,
            r#"<div class="card"><h2>Puzzle {number}</h2>{board}<div class="moves">{moves}</div></div>"#,
            number = index + 1,
            moves = escape(&notation(&c.solution).join(" "))
        );
    }
    page.push_str("</div></div></body></html>\n");
    page
}
