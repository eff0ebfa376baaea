//! `rrm campaign import NAME FILE...`: exhaustive unit results computed elsewhere (by
//! `rrm exhaust --json`) loaded into an exhaustive campaign of a local store. Nothing in a
//! file is trusted: each result goes through the coordinator's checks for a worker's
//! result (histograms, lists, sample, every hardest and sampled placement re-solved).
//!
//! [`UnitResultJson`] is the one definition of the file format: one JSON object per unit
//! (a file may hold several, one after another), cells as `y * 16 + x`.

use crate::backend::{Backend, BackendArgs};
use anyhow::{bail, Context, Result};
use clap::Args;
use ricochet::Layout;
use rrm_coordinator::{ExhaustiveUnit, Outcome, UnitBoard};
use rrm_store::{ExhaustiveResult, PlacementCells};
use serde::Deserialize;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct ImportArgs {
    /// The exhaustive campaign to load into.
    name: String,
    /// JSON files of unit results (`rrm exhaust --json`).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    #[command(flatten)]
    backend: BackendArgs,
}

/// One unit's result as `rrm exhaust --json` prints it (other fields, e.g. timings, are
/// ignored).
#[derive(Clone, Debug, Deserialize)]
pub struct UnitResultJson {
    /// Tiles in slot order, in the canonical rotation (tile 1 top-left): cells are
    /// given on this board.
    pub board: String,
    pub token: String,
    pub target_cell: u32,
    pub placements: u64,
    pub histogram: Vec<u64>,
    pub legal_histogram: Vec<u64>,
    pub unsolvable: u64,
    pub max_moves: u8,
    /// Every placement at `max_moves` (the campaign keeps the first `max_hardest`).
    pub hardest: Vec<PlacementJson>,
    pub top: Vec<DepthJson>,
    pub sample: Vec<SampleJson>,
    pub sample_size: u32,
    pub top_from: u8,
    pub top_per_depth: u32,
}

#[derive(Clone, Debug, Deserialize)]
pub struct PlacementJson {
    pub target_robot: u32,
    /// Three cells, ascending.
    pub helpers: Vec<u32>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct DepthJson {
    pub depth: u8,
    pub placements: Vec<PlacementJson>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct SampleJson {
    pub placement: PlacementJson,
    /// `null`: unsolvable.
    pub moves: Option<u8>,
}

impl PlacementJson {
    fn cells(&self) -> Result<PlacementCells> {
        let cells: Vec<u8> = std::iter::once(self.target_robot)
            .chain(self.helpers.iter().copied())
            .map(|c| u8::try_from(c).context("a cell over 255"))
            .collect::<Result<_>>()?;
        cells
            .try_into()
            .map_err(|_| anyhow::anyhow!("a placement needs a target robot and three helpers"))
    }
}

impl UnitResultJson {
    /// The result as the campaign `work` asks for it: the analysis options must be the
    /// campaign's; the hardest list is cut to the campaign's bound, as a worker cuts it.
    pub fn result(&self, work: &ExhaustiveUnit) -> Result<ExhaustiveResult> {
        if (self.sample_size, self.top_from, self.top_per_depth)
            != (work.sample_size, work.top_from, work.top_per_depth)
        {
            bail!(
                "analysed with sample {}, top from {} ({} per depth); the campaign asks for sample {}, top from {} ({} per depth)",
                self.sample_size, self.top_from, self.top_per_depth,
                work.sample_size, work.top_from, work.top_per_depth
            );
        }
        // Cells of a rotated board are rotated too: only the campaign's own rotation fits.
        if Layout::parse(&self.board)?.name() != work.board {
            bail!(
                "board {:?} is not in its canonical rotation; analyse {:?} instead",
                self.board,
                work.board
            );
        }
        let board = UnitBoard::new(&self.board, &self.token)?;
        if u32::from(board.target_cell) != self.target_cell {
            bail!(
                "target cell {} is not the cell of {} on {} ({})",
                self.target_cell,
                self.token,
                self.board,
                board.target_cell
            );
        }
        if board.placements() != self.placements {
            bail!(
                "{} placements, the unit has {}",
                self.placements,
                board.placements()
            );
        }
        let cells = |list: &[PlacementJson]| {
            list.iter()
                .map(PlacementJson::cells)
                .collect::<Result<Vec<_>>>()
        };
        let mut hardest = cells(&self.hardest)?;
        hardest.truncate(work.max_hardest as usize);
        Ok(ExhaustiveResult {
            histogram: self.histogram.clone(),
            legal_histogram: self.legal_histogram.clone(),
            unsolvable: self.unsolvable,
            max_moves: self.max_moves,
            hardest,
            top: self
                .top
                .iter()
                .map(|d| Ok((d.depth, cells(&d.placements)?)))
                .collect::<Result<_>>()?,
            sample: self
                .sample
                .iter()
                .map(|s| Ok((s.placement.cells()?, s.moves)))
                .collect::<Result<_>>()?,
        })
    }
}

pub fn run(args: ImportArgs) -> Result<ExitCode> {
    let backend = Backend::open(&args.backend)?;
    let coordinator = backend.local("importing results")?;
    let mut out = crate::stdout::lock();
    let mut refused = 0;
    for file in &args.files {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        for unit in serde_json::Deserializer::from_str(&text).into_iter::<UnitResultJson>() {
            let unit = unit.with_context(|| format!("{}: not a unit result", file.display()))?;
            let label = format!("{} {} {}", file.display(), unit.board, unit.token);
            let work = coordinator.exhaustive_work(&args.name, &unit.board, &unit.token)?;
            let outcome = unit.result(&work).and_then(|result| {
                Ok(coordinator.import_exhaustive(&args.name, &unit.board, &unit.token, result)?)
            });
            match outcome {
                Ok(Outcome::Accepted) => {
                    writeln!(out, "{label}: accepted, max {}", unit.max_moves)?
                }
                Ok(Outcome::Duplicate | Outcome::Verified) => {
                    writeln!(out, "{label}: already stored")?
                }
                Ok(Outcome::Mismatch) => {
                    writeln!(out, "{label}: MISMATCH with the stored result (recorded)")?
                }
                Err(error) => {
                    refused += 1;
                    writeln!(out, "{label}: refused: {error:#}")?;
                }
            }
        }
    }
    coordinator.store().flush_blocking()?;
    Ok(if refused > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
