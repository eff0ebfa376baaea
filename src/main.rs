//! `rrm`: the Ricochet Robots puzzle miner's command line.
//!
//! `main` only parses arguments, sets up logging and maps errors to exit codes: every
//! failure prints one line on stderr and exits with status 2; a closed stdout ends quietly.

mod access;
mod backend;
mod bench;
mod campaign;
mod census;
mod checkbench;
mod exhaust;
mod formats;
mod health;
mod import;
mod input;
mod interrupt;
mod loadtest;
mod mine;
mod outfile;
mod pack;
mod peers;
mod progress;
mod report;
mod ricocheckers;
mod services;
mod show;
mod solve;
mod stats;
mod stdout;
mod store;
mod summary;
mod token;
mod top;
mod trustsim;
mod unit_result;

use clap::{Parser, Subcommand};
use std::io::IsTerminal;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "rrm",
    version,
    about = "Mines Ricochet Robots puzzles and solves them optimally"
)]
struct Cli {
    /// Log lines as human-readable text or as JSON objects (one per line, with the
    /// fields of their spans).
    #[arg(long, global = true, env = "RRM_LOG_FORMAT", value_enum, default_value_t = LogFormat::Pretty)]
    log_format: LogFormat,
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum LogFormat {
    Pretty,
    Json,
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
    /// Measure the solver on the hard positions and on seeded batches.
    Bench(bench::BenchArgs),
    /// Measure rrm against the public solvers (DriftingDroids, K. Cox's crate, Fogleman's
    /// C solver) on the same puzzles, one process at a time on one core.
    PeerBench(peers::PeerBenchArgs),
    /// Measure the coordinator alone under simulated workers over loopback.
    LoadTest(loadtest::LoadTestArgs),
    /// The simulated workers of `rrm load-test --clients separate`, in their own process.
    #[command(hide = true)]
    LoadTestClients(loadtest::ClientsArgs),
    /// Measure what the coordinator's checks of a result cost and catch (honest units,
    /// and forgeries of 1 %, 10 % and 100 % of a unit).
    CheckBench(checkbench::CheckBenchArgs),
    /// Measure how many forged units survive the trust model (one or two colluding
    /// forging tokens among honest ones, adaptive replication on and off).
    TrustSim(trustsim::TrustSimArgs),
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
    // The services log their progress; one-shot commands only warn. SIGPIPE keeps Rust's
    // disposition (ignored): the embedded coordinator and worker of `rrm mine` may write to
    // a closed loopback socket while shutting down, which must be an error, not the end of
    // the process; a closed stdout ends commands through `stdout::is_closed` instead.
    let level = match cli.command {
        Command::Coordinator(_) | Command::Worker(_) => "info",
        // Every forger it plays is distrusted, which the coordinator warns of.
        Command::CheckBench(_) | Command::TrustSim(_) => "error",
        _ => "warn",
    };
    let logs = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(level)),
        )
        .with_writer(std::io::stderr);
    match cli.log_format {
        LogFormat::Pretty => logs.with_ansi(std::io::stderr().is_terminal()).init(),
        LogFormat::Json => logs
            .json()
            .with_current_span(true)
            .with_span_list(false)
            .init(),
    }
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
        Command::Bench(args) => bench::run(args),
        Command::PeerBench(args) => peers::run(args),
        Command::LoadTest(args) => loadtest::run(args),
        Command::LoadTestClients(args) => loadtest::run_clients(args),
        Command::CheckBench(args) => checkbench::run(args),
        Command::TrustSim(args) => trustsim::run(args),
        Command::Token(args) => token::run(args),
        Command::Health(args) => health::run(args),
        Command::Store(args) => store::run(args),
        Command::Ricocheckers(args) => ricocheckers::run(args),
    };
    match result {
        Ok(code) => code,
        Err(error) if stdout::is_closed(&error) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("rrm: error: {error:#}");
            ExitCode::from(2)
        }
    }
}
