//! `rrm ricocheckers tournament`: N games between two players on all cores, the first
//! move alternating, with wins, ties and losses, 95 % Wilson intervals, and the first
//! mover's share; a table on stdout and the games' summary as JSON.

use super::{parse_kind, BoardArgs};
use anyhow::{Context, Result};
use clap::Args;
use cpu_time::ProcessTime;
use ricochet::ricocheckers::players::Kind;
use ricochet::ricocheckers::tournament::{tournament, wilson, Tally};
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Args)]
pub struct TournamentArgs {
    #[command(flatten)]
    board: BoardArgs,
    /// Player A: `random`, `minimax:N`, `alphabeta:N` (N plies; the published program
    /// plays 5), `rrm[:NODES]`.
    #[arg(value_parser = parse_kind)]
    a: Kind,
    /// Player B.
    #[arg(value_parser = parse_kind)]
    b: Kind,
    /// Games to play (A moves first in half of them).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    games: u32,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Random plies before the players take over, the same for both orders of a pair of
    /// games: without them two deterministic players play the same two games throughout.
    #[arg(long, default_value_t = 0)]
    opening: u16,
    /// Worker threads (default: all cores).
    #[arg(long, value_parser = crate::input::at_least_one)]
    threads: Option<usize>,
    /// Write the summary as JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
}

#[derive(Serialize)]
struct Share {
    count: u32,
    share: f64,
    low95: f64,
    high95: f64,
}

impl Share {
    fn of(count: u32, of: u32) -> Share {
        let (low95, high95) = wilson(count, of);
        Share {
            count,
            share: if of == 0 {
                0.0
            } else {
                f64::from(count) / f64::from(of)
            },
            low95,
            high95,
        }
    }
}

#[derive(Serialize)]
struct Summary {
    a: String,
    b: String,
    games: u32,
    seed: u64,
    opening_plies: u16,
    a_wins: Share,
    ties: Share,
    b_wins: Share,
    /// Of the decisive games, those the first mover won.
    first_mover_wins: Share,
    mean_plies: f64,
    cpu_seconds: f64,
    wall_seconds: f64,
}

pub fn run(args: TournamentArgs) -> Result<ExitCode> {
    let field = args.board.field()?;
    let (pool, _) = crate::input::thread_pool(args.threads)?;
    let bar = crate::output::progress::bar(u64::from(args.games), "games");
    let (cpu, wall) = (ProcessTime::now(), Instant::now());
    let games = pool.install(|| {
        tournament(
            &field,
            (args.a, args.b),
            args.games,
            args.opening,
            args.seed,
            || bar.inc(1),
        )
    });
    bar.finish_and_clear();
    let tally = Tally::of(&games);
    let decisive = tally.first_wins + tally.second_wins;
    let plies: usize = games.iter().map(|g| g.moves.len()).sum();
    let summary = Summary {
        a: args.a.to_string(),
        b: args.b.to_string(),
        games: tally.games(),
        seed: args.seed,
        opening_plies: args.opening,
        a_wins: Share::of(tally.a_wins, tally.games()),
        ties: Share::of(tally.ties, tally.games()),
        b_wins: Share::of(tally.b_wins, tally.games()),
        first_mover_wins: Share::of(tally.first_wins, decisive),
        mean_plies: plies as f64 / f64::from(tally.games().max(1)),
        cpu_seconds: cpu.elapsed().as_secs_f64(),
        wall_seconds: wall.elapsed().as_secs_f64(),
    };
    if let Some(path) = &args.json {
        std::fs::write(path, serde_json::to_string_pretty(&summary)? + "\n")
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    let mut out = crate::output::stdout::lock();
    writeln!(
        out,
        "{} against {}: {} games, seed {}, {} opening plies",
        summary.a, summary.b, summary.games, summary.seed, summary.opening_plies
    )?;
    writeln!(
        out,
        "{:<22} {:>6} {:>8}   95 % interval",
        "", "games", "share"
    )?;
    let row = |name: &str, share: &Share| {
        format!(
            "{name:<22} {:>6} {:>7.1}%   {:.1}–{:.1}%",
            share.count,
            share.share * 100.0,
            share.low95 * 100.0,
            share.high95 * 100.0
        )
    };
    writeln!(
        out,
        "{}",
        row(&format!("{} wins", summary.a), &summary.a_wins)
    )?;
    writeln!(out, "{}", row("ties", &summary.ties))?;
    writeln!(
        out,
        "{}",
        row(&format!("{} wins", summary.b), &summary.b_wins)
    )?;
    writeln!(
        out,
        "{}",
        row("first mover (decisive)", &summary.first_mover_wins)
    )?;
    writeln!(
        out,
        "mean {:.1} plies a game; {:.1} s CPU, {:.1} s wall",
        summary.mean_plies, summary.cpu_seconds, summary.wall_seconds
    )?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
