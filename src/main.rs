//! `rrm`: the Ricochet Robots puzzle miner's command line.
//!
//! `main` only parses arguments, sets up logging and maps errors to exit codes: every
//! failure prints one line on stderr and exits with status 2.

mod bench;
mod input;
mod report;
mod solve;

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
    /// Measure the solver on the hard positions and on seeded batches.
    Bench(bench::BenchArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    let result = match cli.command {
        Command::Solve(args) => solve::run(args),
        Command::Bench(args) => bench::run(args),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("rrm: error: {error:#}");
            ExitCode::from(2)
        }
    }
}
