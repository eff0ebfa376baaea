//! `rrm census`: an exhaustive campaign's results as the durable record. `export` writes
//! one unit file per done unit ([`crate::output::unit_result`], with provenance) from a local
//! store; a running coordinator does the same as units finish (`--unit-files`), so the
//! files can be committed as they come and imported into a fresh store to resume.
//! `report` turns the unit files into the published results ([`report`]), `compare` sets
//! the editions side by side ([`compare`]).

mod compare;
mod crosscheck;
mod pictures;
mod report;

use crate::client::backend::{Backend, BackendArgs};
use crate::output::unit_result::UnitResultJson;
use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use rrm_coordinator::Coordinator;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args)]
pub struct CensusArgs {
    #[command(subcommand)]
    command: CensusCommand,
}

#[derive(Subcommand)]
enum CensusCommand {
    /// Write a unit file for every done unit of an exhaustive campaign.
    Export(ExportArgs),
    /// Regenerate census.json, README.md and figures/ from the unit files.
    Report(report::ReportArgs),
    /// Set the editions' reports side by side in data/exhaustive/EDITIONS.md.
    Compare(compare::CompareArgs),
}

#[derive(Args)]
struct ExportArgs {
    /// The exhaustive campaign.
    campaign: String,
    /// The directory the unit files go to (created if missing); a file whose content is
    /// unchanged is left as it is.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    #[command(flatten)]
    backend: BackendArgs,
}

pub fn run(args: CensusArgs) -> Result<ExitCode> {
    match args.command {
        CensusCommand::Export(args) => export(args),
        CensusCommand::Report(args) => report::run(args),
        CensusCommand::Compare(args) => compare::run(args),
    }
}

fn export(args: ExportArgs) -> Result<ExitCode> {
    let backend = Backend::open(&args.backend)?;
    let coordinator = backend.local("exporting unit files")?;
    let written = write_unit_files(coordinator, &args.campaign, &args.out)?;
    writeln!(
        crate::output::stdout::lock(),
        "{} of {} unit files written to {}",
        written.changed,
        written.units,
        args.out.display()
    )?;
    Ok(ExitCode::SUCCESS)
}

/// What [`write_unit_files`] did.
#[derive(Clone, Copy, Debug, Default)]
pub struct Written {
    /// Done units of the campaign.
    pub units: usize,
    /// Files created or replaced (their content had changed).
    pub changed: usize,
}

/// Writes the unit file of every done unit of `campaign` into `dir`, each whole (a
/// temporary file renamed over the old one) and only where its content changed.
pub fn write_unit_files(coordinator: &Coordinator, campaign: &str, dir: &Path) -> Result<Written> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let done = coordinator.done_units(campaign)?;
    let mut written = Written {
        units: done.len(),
        changed: 0,
    };
    for unit in &done {
        let work = coordinator.exhaustive_work(campaign, &unit.board, &unit.token)?;
        let file = UnitResultJson::of_done(unit, &work)?;
        let text = serde_json::to_string(&file)? + "\n";
        let path = dir.join(UnitResultJson::file_name(&unit.board, &unit.token));
        if std::fs::read_to_string(&path).is_ok_and(|old| old == text) {
            continue;
        }
        let partial = path.with_extension("json.partial");
        std::fs::write(&partial, &text)
            .with_context(|| format!("cannot write {}", partial.display()))?;
        std::fs::rename(&partial, &path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        written.changed += 1;
    }
    Ok(written)
}
