//! The census report's record positions: every placement at a maximum that the unit
//! files list, each with an optimal solution (the coordinator's, the earlier report's once
//! it replays, or solved here).

use super::report::{Record, Unit};
use anyhow::{Context, Result};
use rayon::prelude::*;
use ricochet::driftingdroids::DdGame;
use ricochet::puzzle::Move;
use rrm_coordinator::UnitBoard;
use rrm_model::deepest;
use std::collections::HashMap;
use std::path::Path;

/// A record's position: board, token, placement and moves.
pub(super) type RecordKey = (String, String, String, u8);

/// Solutions known before a report solves its records: the earlier report's, and the
/// records over all placements for the legal ones.
pub(super) type Solutions = HashMap<RecordKey, String>;

impl Record {
    pub(super) fn key(&self) -> RecordKey {
        let (board, token) = (self.board.clone(), self.token.clone());
        (board, token, self.placement.clone(), self.moves)
    }
}

/// The solutions of the report already in `out` (its `census.json`), so that a report
/// written again, the census grown or complete, solves only the records it lacks (solving
/// the 26-move records of every board DriftingDroids deals took an hour). Each one is
/// replayed before it is used; a missing or unreadable report gives none.
pub(super) fn earlier_solutions(out: &Path) -> Solutions {
    let path = out.join("census.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Solutions::new();
    };
    #[derive(serde::Deserialize)]
    struct Earlier {
        all: EarlierList,
        legal: EarlierList,
    }
    #[derive(serde::Deserialize)]
    struct EarlierList {
        records: Vec<EarlierRecord>,
    }
    #[derive(serde::Deserialize)]
    struct EarlierRecord {
        board: String,
        token: String,
        placement: String,
        moves: u8,
        solution: String,
    }
    match serde_json::from_str::<Earlier>(&text) {
        Ok(earlier) => (earlier.all.records.into_iter())
            .chain(earlier.legal.records)
            .map(|r| ((r.board, r.token, r.placement, r.moves), r.solution))
            .collect(),
        Err(error) => {
            eprintln!(
                "rrm census report: {} is not a report ({error}): its records are solved again",
                path.display()
            );
            Solutions::new()
        }
    }
}

/// Every placement at depth `moves` (over legal placements if `legal`) that the unit files
/// list, each with a solution (the coordinator's, a `known` one that replays in `moves`
/// moves, or solved here), and whether the lists hold all of them.
pub(super) fn records(
    units: &[Unit],
    moves: u8,
    legal: bool,
    known: &Solutions,
) -> Result<(Vec<Record>, bool)> {
    let mut wanted = Vec::new();
    let mut complete = true;
    for unit in units {
        let file = &unit.file;
        let (list, solutions, histogram) = if legal {
            (
                &file.legal_hardest,
                &file.legal_hardest_solutions,
                &file.legal_histogram,
            )
        } else {
            (&file.hardest, &file.hardest_solutions, &file.histogram)
        };
        let at = histogram.get(usize::from(moves)).copied().unwrap_or(0);
        if at == 0 || deepest(histogram) != moves {
            continue;
        }
        complete &= list.len() as u64 == at;
        for (index, placement) in list.iter().enumerate() {
            let cells: Vec<u8> = std::iter::once(placement.target_robot)
                .chain(placement.helpers.iter().copied())
                .map(|c| u8::try_from(c).context("a cell over 255"))
                .collect::<Result<_>>()?;
            let cells: [u8; 4] = cells
                .try_into()
                .map_err(|_| anyhow::anyhow!("not four robots"))?;
            let key: RecordKey = (
                unit.board.clone(),
                unit.token.clone(),
                placement_text(&cells),
                moves,
            );
            let known = (solutions.get(index).filter(|s| !s.is_empty()).cloned())
                .or_else(|| known.get(&key).cloned());
            wanted.push((unit, cells, known));
        }
    }
    let records = wanted
        .par_iter()
        .map(|(unit, cells, known)| {
            let board = UnitBoard::new(&unit.board, &unit.token)?;
            let puzzle = board
                .puzzle(cells)
                .with_context(|| format!("{} {}: invalid placement", unit.board, unit.token))?;
            let replays = |text: &String| {
                let steps: Option<Vec<Move>> = text.split(' ').map(Move::from_notation).collect();
                steps.is_some_and(|s| s.len() == usize::from(moves) && puzzle.is_solution(&s))
            };
            let solution = match known.as_ref().filter(|&text| replays(text)) {
                Some(text) => text.clone(),
                None => crate::commands::top::solve_exactly(&puzzle, moves)?.join(" "),
            };
            let mut record = puzzle.to_record(Some(format!(
                "{} {} {}",
                unit.board,
                unit.token,
                placement_text(cells)
            )));
            record.moves = Some(moves.into());
            record.source = Some("rrm census: proven optimal by exhaustive analysis".into());
            Ok(Record {
                board: unit.board.clone(),
                token: unit.token.clone(),
                placement: placement_text(cells),
                moves,
                solution,
                dd_id: DdGame::from_puzzle(&puzzle).map(|game| game.id()),
                puzzle: record,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((records, complete))
}

pub(super) fn placement_text(cells: &[u8; 4]) -> String {
    cells.map(|c| c.to_string()).join(" ")
}
