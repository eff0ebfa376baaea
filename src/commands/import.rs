//! `rrm campaign import NAME FILE...`: exhaustive unit results computed elsewhere (by
//! `rrm exhaust --json`, or exported from a campaign by `rrm census export`) loaded into
//! an exhaustive campaign of a local store. Each result goes through the coordinator's
//! checks for a worker's result (histograms, list sizes and placements, legality, the
//! sample re-solved), with one difference unless `--recheck`: of each hardest list, a
//! few placements drawn in secret are solved again and the file's own solutions of the
//! others are replayed (proving a solution of the claimed length, taking on trust that
//! none is shorter); a worker's result has many more solved again. Its provenance (who
//! computed and who verified it) is the operator's word and is restored as it stands; a
//! unit without a verifier is drawn for a check as a worker's result is. The file format
//! is [`crate::output::unit_result`].

use crate::client::backend::{Backend, BackendArgs};
use crate::output::unit_result::{PlacementJson, UnitResultJson};
use anyhow::{bail, Context, Result};
use clap::Args;
use ricochet::edition::EditionBoard;
use rrm_coordinator::{Provenance, ReSolving, UnitBoard, IMPORT_RESOLVE_BUDGET, RESOLVE_BUDGET};
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
    /// Solve again as many placements of each hardest list as a worker's result gets
    /// (32, drawn in secret) instead of 2 and the file's solutions of the rest replayed.
    #[arg(long)]
    recheck: bool,
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
    let budget = match args.recheck {
        true => RESOLVE_BUDGET,
        false => IMPORT_RESOLVE_BUDGET,
    };
    let bar = crate::output::progress::bar(args.files.len() as u64, "files");
    let mut out = crate::output::stdout::lock();
    let (mut refused, mut accepted, mut stored) = (0, 0, 0);
    for file in &args.files {
        bar.inc(1);
        // A file that cannot be read or parsed is refused, and the others still go in.
        let text = match crate::output::unit_result::read_text(file) {
            Ok(text) => text,
            Err(error) => {
                refused += 1;
                bar.suspend(|| writeln!(out, "{}: refused: {error:#}", file.display()))?;
                continue;
            }
        };
        for unit in serde_json::Deserializer::from_str(&text).into_iter::<UnitResultJson>() {
            let unit = match unit {
                Ok(unit) => unit,
                Err(error) => {
                    refused += 1;
                    let line = format!("{}: refused: not a unit result: {error}", file.display());
                    bar.suspend(|| writeln!(out, "{line}"))?;
                    break;
                }
            };
            let label = match unit.unit() {
                Ok((board, token)) => format!("{} {board} {token}", file.display()),
                Err(_) => file.display().to_string(),
            };
            // A unit this campaign does not have is refused like a bad one, not the end of
            // the import.
            let outcome = (|| -> Result<Outcome> {
                let (board, token) = unit.unit()?;
                let work = coordinator.exhaustive_work(&args.name, board, token)?;
                let solutions = |lines: &[String]| -> Vec<Vec<String>> {
                    let moves = |line: &String| line.split_whitespace().map(String::from).collect();
                    lines.iter().map(moves).collect()
                };
                let claimed = [
                    solutions(&unit.hardest_solutions),
                    solutions(&unit.legal_hardest_solutions),
                ];
                let resolving = ReSolving {
                    budget,
                    claimed: [&claimed[0], &claimed[1]],
                };
                let result = unit.result(&work)?;
                Ok(coordinator.import_exhaustive(
                    &args.name,
                    board,
                    token,
                    result,
                    unit.provenance(),
                    resolving,
                )?)
            })();
            // Accepted and known units are counted; what needs a look gets its own line.
            let mut say = |line: String| bar.suspend(|| writeln!(out, "{label}: {line}"));
            match outcome {
                Ok(Outcome::Accepted) => accepted += 1,
                Ok(Outcome::Duplicate | Outcome::Verified) => stored += 1,
                Ok(Outcome::Mismatch) => say("MISMATCH with the stored result (recorded)".into())?,
                Err(error) => {
                    refused += 1;
                    say(format!("refused: {error:#}"))?;
                }
            }
        }
    }
    bar.finish_and_clear();
    coordinator.store().flush_blocking()?;
    writeln!(
        out,
        "{accepted} accepted, {stored} already stored, {refused} refused ({} hardest \
         placements of each list solved again{})",
        budget,
        if args.recheck {
            ""
        } else {
            ", the files' solutions of the others replayed"
        }
    )?;
    Ok(if refused > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
