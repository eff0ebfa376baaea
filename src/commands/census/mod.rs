//! `rrm census`: an exhaustive campaign's results as the durable record. `export` writes
//! one unit file per done unit ([`crate::output::unit_result`], with provenance) from a local
//! store; a running coordinator does the same as units finish (`--unit-files`), so the
//! files can be committed as they come and imported into a fresh store to resume.
//! `report` turns the unit files into the published results ([`report`]), `compare` sets
//! the editions side by side ([`compare`]).

mod compare;
mod crosscheck;
mod pictures;
mod readme;
mod records;
mod report;

use crate::client::backend::{Backend, BackendArgs};
use crate::output::unit_result::{self, UnitResultJson};
use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use rrm_coordinator::{Coordinator, Provenance};
use std::collections::HashMap;
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
    /// Write the files gzipped (`.json.gz`).
    #[arg(long)]
    gzip: bool,
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
    let written =
        UnitFiles::new(args.out.clone(), args.gzip).refresh(coordinator, &args.campaign)?;
    writeln!(
        crate::output::stdout::lock(),
        "{} of {} unit files written to {}",
        written.changed,
        written.units,
        args.out.display()
    )?;
    Ok(ExitCode::SUCCESS)
}

/// What [`UnitFiles::refresh`] did.
#[derive(Clone, Copy, Debug, Default)]
pub struct Written {
    /// Done units of the campaign.
    pub units: usize,
    /// Files created or replaced (their content had changed).
    pub changed: usize,
}

/// A directory of unit files kept up to date with one exhaustive campaign: plain JSON,
/// or gzipped (`.json.gz`, a quarter of the size) for a census too large to commit
/// plain. Each file is written whole (a temporary file renamed over the old one) and
/// only where its content changed; a unit whose provenance is as last written is not
/// even serialised, so refreshing a large campaign costs little.
pub struct UnitFiles {
    dir: PathBuf,
    gzip: bool,
    written: HashMap<u64, Provenance>,
}

impl UnitFiles {
    pub fn new(dir: PathBuf, gzip: bool) -> UnitFiles {
        UnitFiles {
            dir,
            gzip,
            written: HashMap::new(),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes the file of every done unit of `campaign` that changed.
    pub fn refresh(&mut self, coordinator: &Coordinator, campaign: &str) -> Result<Written> {
        let dir = &self.dir;
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let provenances = coordinator.done_provenances(campaign)?;
        let mut written = Written {
            units: provenances.len(),
            changed: 0,
        };
        for (unit, provenance) in provenances {
            if self.written.get(&unit) == Some(&provenance) {
                continue;
            }
            let done = coordinator.done_unit(campaign, unit)?;
            let work = coordinator.exhaustive_work(campaign, &done.board, &done.token)?;
            let file = UnitResultJson::of_done(&done, &work)?;
            let text = serde_json::to_string(&file)? + "\n";
            let path = dir.join(UnitResultJson::file_name(
                &done.board,
                &done.token,
                self.gzip,
            ));
            if !unit_result::read_text(&path).is_ok_and(|old| old == text) {
                unit_result::write_text(&path, &text)?;
                written.changed += 1;
            }
            self.written.insert(unit, done.provenance);
        }
        Ok(written)
    }
}
