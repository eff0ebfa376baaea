//! `rrm campaign import NAME FILE...`: exhaustive unit results computed elsewhere (by
//! `rrm exhaust --json`, or exported from a campaign by `rrm census export`) loaded into
//! an exhaustive campaign of a local store. No result in a file is trusted: each goes
//! through the coordinator's checks for a worker's result (histograms, lists, sample,
//! every hardest and sampled placement re-solved). Its provenance (who computed and who
//! verified it) is the operator's word and is restored as it stands; a unit without a
//! verifier is drawn for a check as a worker's result is. The file format is
//! [`crate::unit_result`].

use crate::backend::{Backend, BackendArgs};
use crate::unit_result::{PlacementJson, UnitResultJson};
use anyhow::{bail, Context, Result};
use clap::Args;
use ricochet::edition::EditionBoard;
use rrm_coordinator::{Provenance, UnitBoard};
use rrm_model::{ExhaustiveResult, PlacementCells};
use rrm_model::{ExhaustiveUnit, Outcome};
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
        let (board_name, token) = self.unit()?;
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
        if EditionBoard::parse(board_name)?.name() != work.board {
            bail!(
                "board {board_name:?} is not in its canonical rotation; analyse {:?} instead",
                work.board
            );
        }
        let board = UnitBoard::new(board_name, token)?;
        if u32::from(board.target_cell) != self.target_cell {
            bail!(
                "target cell {} is not the cell of {token} on {board_name} ({})",
                self.target_cell,
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
        let mut legal_hardest = cells(&self.legal_hardest)?;
        legal_hardest.truncate(work.max_hardest as usize);
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
            legal_samples: self
                .legal_samples
                .iter()
                .map(|d| cells(&d.placements))
                .collect::<Result<_>>()?,
            legal_hardest,
        })
    }

    /// Who computed the unit, as the file says (none for `rrm exhaust` output).
    pub fn provenance(&self) -> Provenance {
        self.provenance
            .as_ref()
            .map(|p| Provenance {
                producer: Some(p.computed_by.clone()),
                verified_by: p.verified_by.clone(),
                check_pending: p.check_pending,
                cpu_ms: (p.cpu_seconds * 1000.0).round() as u64,
                rrm_version: p.rrm_version.clone(),
            })
            .unwrap_or_default()
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
            let (board, token) = unit.unit()?;
            let label = format!("{} {board} {token}", file.display());
            let work = coordinator.exhaustive_work(&args.name, board, token)?;
            let outcome = unit.result(&work).and_then(|result| {
                Ok(coordinator.import_exhaustive(
                    &args.name,
                    board,
                    token,
                    result,
                    unit.provenance(),
                )?)
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
