//! `rrm store verify|export|import`: checks of a store at rest (digests, commit log,
//! statistics), and backups or migrations through a portable file of its own
//! (JSON Lines with a checksum, see `rrm_store`'s `portable` module).

use crate::output::progress::bar;
use crate::output::report::count;
use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use rrm_store::Store;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct StoreArgs {
    #[command(subcommand)]
    command: StoreCommand,
}

#[derive(Subcommand)]
enum StoreCommand {
    /// Check every result block against its digest, the commit log against the units,
    /// and the statistics against the results; exit 1 if anything is wrong.
    Verify(DataArgs),
    /// Write every campaign, unit, result and log entry to a portable file.
    Export {
        #[command(flatten)]
        data: DataArgs,
        /// The file to write (it must not exist).
        #[arg(long, short)]
        output: PathBuf,
    },
    /// Restore an export into a new store (an empty --data directory).
    Import {
        #[command(flatten)]
        data: DataArgs,
        /// The export to read.
        input: PathBuf,
    },
}

#[derive(Args)]
struct DataArgs {
    /// The store's directory (the coordinator using it must be stopped).
    #[arg(long, env = "RRM_DATA")]
    data: PathBuf,
}

pub fn run(args: StoreArgs) -> Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    match args.command {
        StoreCommand::Verify(data) => {
            let store = Store::open_existing(&data.data)?;
            let units: u64 = store
                .campaigns()?
                .iter()
                .map(|c| c.spec.units_total())
                .sum();
            let progress = bar(units, "units");
            let report = rrm_coordinator::verify_store(&store, &mut || progress.inc(1))?;
            progress.finish_and_clear();
            writeln!(
                out,
                "{}, {} done, {} counted, {}",
                count(report.campaigns, "campaign"),
                count(report.units_done, "unit"),
                count(report.seeds_counted, "seed"),
                count(report.commits, "commit")
            )?;
            for problem in &report.problems {
                writeln!(out, "PROBLEM {problem}")?;
            }
            if report.problems.is_empty() {
                writeln!(out, "the store is sound")?;
                Ok(ExitCode::SUCCESS)
            } else {
                writeln!(out, "{}", count(report.problems.len() as u64, "problem"))?;
                Ok(ExitCode::from(1))
            }
        }
        StoreCommand::Export { data, output } => {
            let store = Store::open_existing(&data.data)?;
            let file = std::fs::File::create_new(&output)
                .with_context(|| format!("cannot create {}", output.display()))?;
            let mut writer = std::io::BufWriter::new(file);
            let progress = bar(0, "entries");
            let moved = store.export(&mut writer, &mut || progress.inc(1))?;
            writer
                .into_inner()
                .map_err(|e| e.into_error())
                .and_then(|file| file.sync_all())
                .with_context(|| format!("cannot write {}", output.display()))?;
            progress.finish_and_clear();
            writeln!(
                out,
                "exported {} entries ({} bytes) to {}",
                moved.entries,
                moved.bytes,
                output.display()
            )?;
            Ok(ExitCode::SUCCESS)
        }
        StoreCommand::Import { data, input } => {
            let store = Store::open(&data.data)?;
            let progress = bar(0, "entries");
            let moved = store.import(&input, &mut || progress.inc(1))?;
            progress.finish_and_clear();
            writeln!(
                out,
                "imported {} entries into {}",
                moved.entries,
                data.data.display()
            )?;
            Ok(ExitCode::SUCCESS)
        }
    }
}
