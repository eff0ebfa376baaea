//! `rrm top`: the hardest mined puzzles with their solutions and quality metrics.

use crate::backend::{Backend, BackendArgs};
use crate::show::{metrics_json, metrics_line, SOLUTION_COUNT_CAP};
use anyhow::{Context, Result};
use clap::Args;
use ricochet::metrics::metrics;
use ricochet::{Generator, Move};
use serde_json::json;
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
    /// One JSON object per puzzle instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    backend: BackendArgs,
}

pub fn run(args: TopArgs) -> Result<ExitCode> {
    let mut backend = Backend::open(&args.backend)?;
    let name = backend.campaign_name(args.campaign.as_deref())?;
    let generator = generator_of(&mut backend, &name)?;
    let puzzles = backend.hardest(&name, args.limit, args.min_moves)?;
    // Counting optimal solutions of hard puzzles takes seconds each: measure them all
    // under a progress bar, then print.
    let progress = crate::progress::bar(puzzles.len() as u64, "puzzles measured");
    let mut measured = Vec::with_capacity(puzzles.len());
    for mined in &puzzles {
        let puzzle = generator.generate(mined.seed)?.puzzle;
        let solution: Vec<Move> = mined
            .solution
            .iter()
            .map(|m| Move::from_notation(m).with_context(|| format!("stored move {m:?}")))
            .collect::<Result<_>>()?;
        measured.push((
            metrics(&puzzle, &solution, SOLUTION_COUNT_CAP),
            solution.len(),
        ));
        progress.inc(1);
    }
    progress.finish_and_clear();
    let mut out = crate::stdout::lock();
    if puzzles.is_empty() && !args.json {
        writeln!(
            out,
            "{name}: no kept puzzles with at least {} moves yet",
            args.min_moves
        )?;
    }
    for (rank, (mined, (metrics, optimum))) in puzzles.iter().zip(&measured).enumerate() {
        if args.json {
            let row = json!({
                "campaign": name,
                "rank": rank + 1,
                "seed": mined.seed,
                "moves": mined.moves,
                "solution": mined.solution,
                "re_solved": mined.re_solved,
                "metrics": metrics_json(metrics, *optimum),
            });
            writeln!(out, "{row}")?;
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

/// The generator of a campaign, by its name.
pub fn generator_of(backend: &mut Backend, name: &str) -> Result<Generator> {
    let status = backend
        .campaigns()?
        .into_iter()
        .find(|s| s.campaign.spec.name == name)
        .with_context(|| format!("unknown campaign {name:?}"))?;
    Ok(status.campaign.spec.generator.parse()?)
}
