//! rrm's command line as a library: each command's arguments and logic, so that they can
//! be tested in-process, behind two thin binaries: `rrm` (what users run) and `rrm-dev`
//! (the developer tools that measure).
//!
//! - [`commands`]: the user commands, one module each;
//! - [`client`]: where a command gets its answers (a local store or a coordinator);
//! - [`format`]: every puzzle and pack format, read and written in one place;
//! - [`output`]: reports, summaries, progress and output files;
//! - [`input`]: reading what the user names (seeds, ranges, placements);
//! - [`interrupt`]: Ctrl-C for the synchronous commands;
//! - [`dev`]: the developer tools.
//!
//! The game lives in `ricochet`, the domain in `rrm_model`, the services in
//! `rrm_coordinator` and `rrm_worker`: this crate only wires them to a terminal.

pub mod client;
pub mod commands;
pub mod dev;
pub mod format;
pub mod input;
pub mod interrupt;
pub mod output;

use std::io::IsTerminal;
use std::process::ExitCode;

/// The logging options both binaries take.
#[derive(clap::Args)]
pub struct Logging {
    /// Log lines as human-readable text or as JSON objects (one per line, with the
    /// fields of their spans).
    #[arg(long, global = true, env = "RRM_LOG_FORMAT", value_enum, default_value_t = LogFormat::Pretty)]
    pub log_format: LogFormat,
}

/// How log lines are written.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable text, coloured on a terminal.
    Pretty,
    /// One JSON object per line, with the fields of their spans.
    Json,
}

/// Logs to stderr at `level` unless `RUST_LOG` says otherwise. SIGPIPE keeps Rust's
/// disposition (ignored): the embedded coordinator and worker of `rrm mine` may write to
/// a closed loopback socket while shutting down, which must be an error, not the end of
/// the process; a closed stdout ends commands through `output::stdout::is_closed`.
pub fn init_logs(logging: &Logging, level: &str) {
    let logs = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(level)),
        )
        .with_writer(std::io::stderr);
    match logging.log_format {
        LogFormat::Pretty => logs.with_ansi(std::io::stderr().is_terminal()).init(),
        LogFormat::Json => logs
            .json()
            .with_current_span(true)
            .with_span_list(false)
            .init(),
    }
}

/// A command's result as the process's exit: its own code, success when stdout was
/// closed under it, or one line on stderr and status 2.
pub fn exit(program: &str, result: anyhow::Result<ExitCode>) -> ExitCode {
    match result {
        Ok(code) => code,
        Err(error) if output::stdout::is_closed(&error) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{program}: error: {error:#}");
            ExitCode::from(2)
        }
    }
}
