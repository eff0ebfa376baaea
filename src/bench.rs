//! `rrm bench`: CPU time, states and peak memory on the hard positions, then batch
//! throughput on Fogleman seeds and random 4- and 5-robot puzzles, single-threaded.

use anyhow::Result;
use clap::Args;
use std::process::ExitCode;

#[derive(Args)]
pub struct BenchArgs {}

pub fn run(_args: BenchArgs) -> Result<ExitCode> {
    anyhow::bail!("not yet")
}
