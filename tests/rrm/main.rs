//! Integration tests of rrm: one test binary, one module per topic.
//!
//! `referee` holds the independent move checker and the plain reference BFS that every
//! solver answer is held against; it shares no code with the solver.

use std::process::{Command, Output};

mod cli;
mod dashboard;
mod dashboard_access;
mod exhaustive;
mod generator;
mod mining;
mod referee;
mod reports;
mod solver;
mod stores;

/// Runs the `rrm` binary with `args`.
pub fn rrm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rrm"))
        .args(args)
        .output()
        .expect("rrm runs")
}

/// Runs `rrm` with `args`, insists that it succeeds and returns its stdout.
pub fn rrm_ok(args: &[&str]) -> String {
    let output = rrm(args);
    assert!(
        output.status.success(),
        "rrm {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8 output")
}
