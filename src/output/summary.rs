//! The closing summary of a campaign: histogram with shares, mean, and the hardest seeds
//! (for Ricocheckers positions, what a count means).

use anyhow::Result;
use rrm_coordinator::Coordinator;
use rrm_model::numbers::thousands;
use std::io::Write;

/// Seeds listed at the end of the summary.
const HARDEST_SHOWN: usize = 10;
/// Moves of a solution per line under its seed: 25 fit 80 columns with the indent.
const MOVES_PER_LINE: usize = 25;

/// `n` with thousands separators and the noun, plural unless `n` is 1.
fn count(n: u64, noun: &str) -> String {
    let plural = if n == 1 { "" } else { "s" };
    format!("{} {noun}{plural}", thousands(n))
}

pub fn print(coordinator: &Coordinator, name: &str) -> Result<()> {
    let status = coordinator.status(name)?;
    let aggregates = coordinator.aggregates(name)?;
    let puzzles = aggregates.puzzles();
    let mut out = crate::output::stdout::lock();
    writeln!(
        out,
        "campaign {name}: {} of {} mined ({} of {})",
        thousands(status.seeds_done),
        count(
            status.campaign.spec.seed_end - status.campaign.spec.seed_start,
            "seed"
        ),
        thousands(status.units_done),
        count(status.units_total, "unit")
    )?;
    if puzzles == 0 {
        return Ok(());
    }
    let widest = aggregates.histogram.iter().copied().max().unwrap_or(1);
    if status.campaign.spec.generator == ricochet::Generator::Ricocheckers.name() {
        writeln!(
            out,
            "moves: the side to move's shortest forced win; 0: none within {}",
            ricochet::ricocheckers::puzzles::FORCED_WIN_BOUND
        )?;
    }
    writeln!(out, "moves       puzzles   share")?;
    for (moves, &count) in aggregates.histogram.iter().enumerate() {
        if count == 0 {
            continue;
        }
        let share = count as f64 / puzzles as f64;
        let bar = "#".repeat(((count as f64 / widest as f64) * 40.0).ceil() as usize);
        let count = thousands(count);
        writeln!(out, "{moves:>5} {count:>13} {:>6.2}%  {bar}", share * 100.0)?;
    }
    writeln!(
        out,
        "mean {:.3} moves over {}",
        aggregates.mean(),
        count(puzzles, "puzzle")
    )?;
    writeln!(out, "hardest seeds:")?;
    // The solution under its seed, so that every line fits 80 columns.
    for puzzle in coordinator.hardest(name, HARDEST_SHOWN, 0)? {
        // A seed is a name to copy, not a count: no separators.
        writeln!(out, "  seed {}: {} moves", puzzle.seed, puzzle.moves)?;
        for moves in puzzle.solution.chunks(MOVES_PER_LINE) {
            writeln!(out, "    {}", moves.join(" "))?;
        }
    }
    for q in &status.quarantined {
        writeln!(
            out,
            "quarantined unit {} after {} failures: {}",
            q.unit, q.failures, q.last_error
        )?;
    }
    Ok(())
}
