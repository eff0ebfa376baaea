//! The closing summary of a campaign: histogram with shares, mean, and the hardest seeds.

use anyhow::Result;
use rrm_coordinator::Coordinator;

/// Seeds listed at the end of the summary.
const HARDEST_SHOWN: usize = 10;

pub fn print(coordinator: &Coordinator, name: &str) -> Result<()> {
    let status = coordinator.status(name)?;
    let aggregates = coordinator.aggregates(name)?;
    let puzzles = aggregates.puzzles();
    println!(
        "campaign {name}: {} of {} seeds mined ({} of {} units)",
        status.seeds_done,
        status.campaign.spec.seed_end - status.campaign.spec.seed_start,
        status.units_done,
        status.units_total
    );
    if puzzles == 0 {
        return Ok(());
    }
    let widest = aggregates.histogram.iter().copied().max().unwrap_or(1);
    println!("moves   puzzles   share");
    for (moves, &count) in aggregates.histogram.iter().enumerate() {
        if count == 0 {
            continue;
        }
        let share = count as f64 / puzzles as f64;
        let bar = "#".repeat(((count as f64 / widest as f64) * 40.0).ceil() as usize);
        println!("{moves:>5} {count:>9} {:>6.2}%  {bar}", share * 100.0);
    }
    println!("mean {:.3} moves over {puzzles} puzzles", aggregates.mean());
    println!("hardest seeds:");
    for puzzle in coordinator.hardest(name, HARDEST_SHOWN, 0)? {
        println!(
            "  seed {:>12}  {:>2} moves  {}",
            puzzle.seed,
            puzzle.moves,
            puzzle.solution.join(" ")
        );
    }
    for q in &status.quarantined {
        println!(
            "quarantined unit {} after {} failures: {}",
            q.unit, q.failures, q.last_error
        );
    }
    Ok(())
}
