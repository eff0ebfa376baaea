//! `rrm`: the Ricochet Robots puzzle miner's command line.
//!
//! `main` only parses arguments, sets up logging and maps errors to exit codes: every
//! failure prints one line on stderr and exits with status 2.

mod backend;
mod bench;
mod campaign;
mod input;
mod loadtest;
mod mine;
mod pack;
mod report;
mod services;
mod show;
mod solve;
mod stats;
mod summary;
mod top;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "rrm",
    version,
    about = "Mines Ricochet Robots puzzles and solves them optimally"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Solve one puzzle or a batch optimally.
    Solve(solve::SolveArgs),
    /// Mine a seed range here and now: coordinator and worker in one process.
    Mine(mine::MineArgs),
    /// Create or list mining campaigns.
    Campaign(campaign::CampaignArgs),
    /// Difficulty statistics of a campaign (text, JSON, SVG histogram).
    Stats(stats::StatsArgs),
    /// The hardest mined puzzles with solutions and quality metrics.
    Top(top::TopArgs),
    /// Show one puzzle: ASCII, SVG, optionally solved.
    Show(show::ShowArgs),
    /// Build a puzzle pack (printable HTML or JSON) from mined puzzles.
    Pack(pack::PackArgs),
    /// Serve campaigns to workers over gRPC, keeping results in a store.
    Coordinator(services::CoordinatorArgs),
    /// Mine units leased from a coordinator.
    Worker(services::WorkerArgs),
    /// Measure the solver on the hard positions and on seeded batches.
    Bench(bench::BenchArgs),
    /// Measure the coordinator alone under simulated workers over loopback.
    LoadTest(loadtest::LoadTestArgs),
}

/// Restores the default action of SIGPIPE (end the process), which Rust replaces with an
/// error that `println!` turns into a panic.
fn stop_quietly_on_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: called before any thread starts; SIG_DFL is a valid disposition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // The services log their progress and outlive a closed stdout; one-shot commands only
    // warn, and stop quietly when their reader goes away (`rrm solve ... | head`).
    let level = match cli.command {
        Command::Coordinator(_) | Command::Worker(_) => "info",
        _ => {
            stop_quietly_on_closed_pipe();
            "warn"
        }
    };
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(level)),
        )
        .with_writer(std::io::stderr)
        .init();
    let result = match cli.command {
        Command::Solve(args) => solve::run(args),
        Command::Mine(args) => mine::run(args),
        Command::Campaign(args) => campaign::run(args),
        Command::Stats(args) => stats::run(args),
        Command::Top(args) => top::run(args),
        Command::Show(args) => show::run(args),
        Command::Pack(args) => pack::run(args),
        Command::Coordinator(args) => services::coordinator(args),
        Command::Worker(args) => services::worker(args),
        Command::Bench(args) => bench::run(args),
        Command::LoadTest(args) => loadtest::run(args),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("rrm: error: {error:#}");
            ExitCode::from(2)
        }
    }
}
