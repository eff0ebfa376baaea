//! `rrm-dev`: the developer tools that measure rrm. They ship apart from `rrm`, which
//! holds what users run; CI builds and tests both.

use clap::{Parser, Subcommand};
use rrm::dev::{bench, checkbench, loadtest, peers, ricocheckers_bench};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "rrm-dev",
    version,
    about = "Measures rrm: its solver, its peers, its coordinator"
)]
struct Cli {
    #[command(flatten)]
    logging: rrm::Logging,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Measure the solver on the hard positions and on seeded batches.
    Bench(bench::BenchArgs),
    /// Measure rrm against the public solvers (DriftingDroids, K. Cox's crate, Fogleman's
    /// C solver) on the same puzzles, one process at a time on one core.
    PeerBench(peers::PeerBenchArgs),
    /// Measure the coordinator alone under simulated workers over loopback.
    LoadTest(loadtest::LoadTestArgs),
    /// The simulated workers of `rrm-dev load-test --clients separate`, in their own process.
    #[command(hide = true)]
    LoadTestClients(loadtest::ClientsArgs),
    /// Measure what the coordinator's checks of a result cost and catch (honest units,
    /// and forgeries of 1 %, 10 % and 100 % of a unit).
    CheckBench(checkbench::CheckBenchArgs),
    /// Measure the Ricocheckers engine (positions per second) and its searches (nodes per
    /// second).
    RicocheckersBench(ricocheckers_bench::BenchArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Every forger the checks play is distrusted, which the coordinator warns of.
    let level = match cli.command {
        Command::CheckBench(_) => "error",
        _ => "warn",
    };
    rrm::init_logs(&cli.logging, level);
    let result = match cli.command {
        Command::Bench(args) => bench::run(args),
        Command::PeerBench(args) => peers::run(args),
        Command::LoadTest(args) => loadtest::run(args),
        Command::LoadTestClients(args) => loadtest::run_clients(args),
        Command::CheckBench(args) => checkbench::run(args),
        Command::RicocheckersBench(args) => ricocheckers_bench::run(args),
    };
    rrm::exit("rrm-dev", result)
}
