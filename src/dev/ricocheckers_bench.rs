//! `rrm-dev ricocheckers-bench`: the engine's positions per second (random playouts: move
//! generation and play), and nodes per second of the forced-win prover, rrm's player and
//! the published alpha-beta, on fixed positions; and slabs of the retrograde plan scanned
//! forward (moves generated and ranked). Process CPU time, one thread.

use crate::commands::ricocheckers::BoardArgs;
use anyhow::Result;
use clap::Args;
use cpu_time::ProcessTime;
use ricochet::mt::PyRandom;
use ricochet::ricocheckers::players::{Player, Published, PUBLISHED_PLIES};
use ricochet::ricocheckers::proof::forced_win;
use ricochet::ricocheckers::rrm_player::RrmSearch;
use ricochet::ricocheckers::slab::{SlabScan, Slabs};
use ricochet::ricocheckers::{Field, Position};
use std::io::Write;
use std::process::ExitCode;

#[derive(Args)]
pub struct BenchArgs {
    #[command(flatten)]
    board: BoardArgs,
    /// Random plies played to measure the engine.
    #[arg(long, default_value_t = 2_000_000)]
    plies: u64,
    /// Positions each search is measured on.
    #[arg(long, default_value_t = 20)]
    positions: usize,
    /// Slabs of the retrograde plan scanned (spread evenly over all slabs).
    #[arg(long, default_value_t = 6)]
    slabs: u64,
    /// Workers owning contiguous slab ranges, for the share of cross-slab moves that
    /// stay on one worker.
    #[arg(long, default_value_t = 14)]
    workers: u64,
}

/// Positions 20 random plies from the start (deterministic), counted from ply 0.
fn sample(field: &Field, count: usize) -> Vec<Position> {
    let mut positions = field.random_positions(&mut PyRandom::new(5), count, 20);
    for position in &mut positions {
        position.plies = 0;
    }
    positions
}

pub fn run(args: BenchArgs) -> Result<ExitCode> {
    let field = args.board.field()?;
    let mut out = crate::output::stdout::lock();
    let mut rng = PyRandom::new(1);
    let cpu = ProcessTime::now();
    let mut position = field.start();
    let mut generated = 0u64;
    for _ in 0..args.plies {
        let steps = field.steps(&position);
        generated += steps.len() as u64;
        if steps.is_empty() {
            position = field.start();
            continue;
        }
        position = field.play(
            &position,
            steps[rng.randint(0, steps.len() as u32 - 1) as usize],
        );
    }
    let seconds = cpu.elapsed().as_secs_f64();
    writeln!(
        out,
        "engine: {} plies, {} moves generated in {:.2} s CPU: {:.2} M positions/s, {:.1} M moves/s",
        args.plies,
        generated,
        seconds,
        args.plies as f64 / seconds / 1e6,
        generated as f64 / seconds / 1e6
    )?;
    let positions = sample(&field, args.positions);
    let cpu = ProcessTime::now();
    let mut nodes = 0;
    let mut wins = 0;
    for position in &positions {
        match forced_win(&field, position, 3, 50_000_000) {
            Ok(proof) => {
                wins += usize::from(proof.win.is_some());
                nodes += proof.nodes;
            }
            Err(spent) => nodes += spent.0,
        }
    }
    let seconds = cpu.elapsed().as_secs_f64();
    writeln!(out, "prover (win in ≤ 3, {} positions, {wins} wins): {nodes} nodes, {:.2} s CPU, {:.0} k nodes/s", positions.len(), seconds, nodes as f64 / seconds / 1e3)?;
    let cpu = ProcessTime::now();
    let mut nodes = 0;
    for position in &positions {
        nodes += RrmSearch::new(&field, 20_000, 40)
            .choose(&field, position)
            .nodes;
    }
    let seconds = cpu.elapsed().as_secs_f64();
    writeln!(out, "rrm player (20,000 nodes a move): {nodes} nodes, {:.2} s CPU, {:.0} k nodes/s, {:.1} ms a move", seconds, nodes as f64 / seconds / 1e3, seconds * 1e3 / positions.len() as f64)?;
    let cpu = ProcessTime::now();
    let mut leaves = 0;
    for position in &positions {
        let mut player = Published::new(PUBLISHED_PLIES, true);
        player.choose(&field, position);
        leaves += player.leaves;
    }
    let seconds = cpu.elapsed().as_secs_f64();
    writeln!(out, "published alpha-beta ({PUBLISHED_PLIES} plies): {leaves} leaves, {:.2} s CPU, {:.0} k leaves/s, {:.1} ms a move", seconds, leaves as f64 / seconds / 1e3, seconds * 1e3 / positions.len() as f64)?;
    slab_figures(&mut out, &field, args.slabs, args.workers)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Scans `count` slabs one by one: CPU per slab (median), positions and moves a second,
/// and the forward pass over every slab extrapolated.
fn slab_figures(out: &mut impl Write, field: &Field, count: u64, workers: u64) -> Result<()> {
    let slabs = Slabs::new(field);
    let total = slabs.count();
    let mut seconds = Vec::new();
    let mut sum = SlabScan::default();
    for i in 0..count {
        // Evenly spread, off the range ends.
        let slab = (2 * i + 1) * total / (2 * count);
        let cpu = ProcessTime::now();
        let scan = slabs.scan(field, slab, workers);
        seconds.push(cpu.elapsed().as_secs_f64());
        sum.positions += scan.positions;
        sum.moves += scan.moves;
        sum.wins_in_one += scan.wins_in_one;
        sum.cross_slab += scan.cross_slab;
        sum.same_worker += scan.same_worker;
    }
    let spent: f64 = seconds.iter().sum();
    seconds.sort_by(f64::total_cmp);
    let median = seconds[seconds.len() / 2];
    writeln!(
        out,
        "slabs: {count} of {total} scanned ({} positions each): median {median:.3} s CPU a slab, {:.1} M positions/s, {:.1} M ranked moves/s; wins in one ply {:.2} %; {:.1} % of first-player moves stay on one of {workers} workers",
        slabs.positions_per_slab(),
        sum.positions as f64 / spent / 1e6,
        sum.moves as f64 / spent / 1e6,
        sum.wins_in_one as f64 * 100.0 / sum.positions as f64,
        sum.same_worker as f64 * 100.0 / sum.cross_slab.max(1) as f64,
    )?;
    writeln!(
        out,
        "one forward pass over all slabs (layer 1, counters): {:.1} CPU-hours at the median",
        median * total as f64 / 3600.0
    )?;
    Ok(())
}
