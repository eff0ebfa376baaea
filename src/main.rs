//! `rrm`: the Ricochet Robots puzzle miner's command line.
//!
//! `main` only parses arguments and hands them to the library (`rrm::commands`): every
//! failure prints one line on stderr and exits with status 2; a closed stdout ends quietly.
//! The developer tools are `rrm-dev`'s.

use clap::{Parser, Subcommand};
use rrm::commands::{
    campaign, census, exhaust, health, mine, pack, ricocheckers, services, show, solve, stats,
    store, token, top,
};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "rrm",
    version,
    about = "Mines Ricochet Robots puzzles and solves them optimally"
)]
struct Cli {
    #[command(flatten)]
    logging: rrm::Logging,
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
    /// Exhaustive campaigns as unit files with provenance: the census's durable record.
    Census(census::CensusArgs),
    /// Difficulty statistics of a campaign (text, JSON, SVG histogram).
    Stats(stats::StatsArgs),
    /// The hardest mined puzzles with solutions and quality metrics.
    Top(top::TopArgs),
    /// Show one puzzle: ASCII, SVG, optionally solved.
    Show(show::ShowArgs),
    /// Build a puzzle pack (printable HTML, JSON, DriftingDroids game IDs or K. Cox text)
    /// from mined puzzles.
    Pack(pack::PackArgs),
    /// Serve campaigns to workers over gRPC, keeping results in a store.
    Coordinator(services::CoordinatorArgs),
    /// Mine units leased from a coordinator.
    Worker(services::WorkerArgs),
    /// The exact move count of every placement of one unit (board, target, robot).
    Exhaust(exhaust::ExhaustArgs),
    /// Make bearer tokens and their lines for a coordinator's tokens file.
    Token(token::TokenArgs),
    /// Ask a coordinator whether it is serving (exit status 0 if so).
    Health(health::HealthArgs),
    /// Check a store, or export and import it (backups, migrations).
    Store(store::StoreArgs),
    /// Ricocheckers, the two-player game on Ricochet moves: show, play, tournaments.
    Ricocheckers(ricocheckers::RicocheckersArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // The services log their progress; one-shot commands only warn.
    let level = match cli.command {
        Command::Coordinator(_) | Command::Worker(_) => "info",
        _ => "warn",
    };
    rrm::init_logs(&cli.logging, level);
    let result = match cli.command {
        Command::Solve(args) => solve::run(args),
        Command::Mine(args) => mine::run(args),
        Command::Campaign(args) => campaign::run(args),
        Command::Census(args) => census::run(args),
        Command::Stats(args) => stats::run(args),
        Command::Top(args) => top::run(args),
        Command::Show(args) => show::run(args),
        Command::Pack(args) => pack::run(args),
        Command::Coordinator(args) => services::coordinator(args),
        Command::Worker(args) => services::worker(args),
        Command::Exhaust(args) => exhaust::run(args),
        Command::Token(args) => token::run(args),
        Command::Health(args) => health::run(args),
        Command::Store(args) => store::run(args),
        Command::Ricocheckers(args) => ricocheckers::run(args),
    };
    rrm::exit("rrm", result)
}
