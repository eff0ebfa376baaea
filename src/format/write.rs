//! Writing a puzzle in the formats of the tools players already use: rrm's JSON puzzle
//! format, DriftingDroids' game IDs and its game dumps, K. Cox's text.

use super::PuzzleFormat;
use crate::input::{Job, Source};
use anyhow::{bail, Context, Result};
use ricochet::driftingdroids::{write_dump, DdBoard, DdGame, TileSide};
use ricochet::Puzzle;

/// The DriftingDroids game of `puzzle`: its own board, or for a board of Fogleman's tiles
/// (`fogleman_tiles`, in slot order) the same tile sides in DriftingDroids, with a note
/// that they add the two walls beside the vortex that Fogleman's program leaves out (so
/// the optimum there may differ).
pub fn driftingdroids_game(
    puzzle: &Puzzle,
    fogleman_tiles: Option<[&str; 4]>,
) -> Result<(DdGame, Option<String>)> {
    if let Some(game) = DdGame::from_puzzle(puzzle) {
        return Ok((game, None));
    }
    let Some(tiles) = fogleman_tiles else {
        bail!("this board is not four DriftingDroids tile sides, so it has no game ID (a dump can carry it: --format dd-dump)");
    };
    let sides = tiles
        .map(|name| TileSide::from_fogleman_name(name).context("not a Fogleman tile name"))
        .into_iter()
        .collect::<Result<Vec<_>>>()?;
    let board = DdBoard::new([sides[0], sides[1], sides[2], sides[3]]);
    let target = puzzle.target();
    let goal = board
        .goal_at(target.cell)
        .filter(|goal| goal.colour == target.colour)
        .context("the target is not one of the board's")?;
    let game = DdGame {
        board,
        robots: puzzle.robots().to_vec(),
        goal,
    };
    let note = format!(
        "DriftingDroids' boards have the two walls beside the vortex that Fogleman's program leaves out; `rrm solve --puzzle {}` gives the optimum there",
        game.id()
    );
    Ok((game, Some(note)))
}

/// The four tile names of an arrangement such as `1A 3B 4A 2B`.
pub fn tiles_named(arrangement: &str) -> Option<[&str; 4]> {
    let names: Vec<&str> = arrangement.split_whitespace().collect();
    names.try_into().ok()
}

/// The Fogleman tiles of a job's board, when it was generated.
fn tiles_of(job: &Job) -> Option<[&str; 4]> {
    match &job.source {
        Source::Seed(game) => Some(game.layout.tiles),
        Source::File { .. } => None,
    }
}

/// `job`'s puzzle written as `format`, and a note for stderr when the written puzzle is
/// not exactly the same.
pub fn write(job: &Job, format: PuzzleFormat) -> Result<(String, Option<String>)> {
    Ok(match format {
        PuzzleFormat::Auto | PuzzleFormat::Json => {
            let name = match &job.source {
                Source::Seed(game) => Some(format!("seed {}", game.seed)),
                Source::File { name, .. } => name.clone(),
            };
            let record = job.puzzle.to_record(name);
            (serde_json::to_string(&record)? + "\n", None)
        }
        PuzzleFormat::DdId => {
            let (game, note) = driftingdroids_game(&job.puzzle, tiles_of(job))?;
            (game.id() + "\n", note)
        }
        PuzzleFormat::DdDump => (write_dump(&job.puzzle) + "\n", None),
        PuzzleFormat::Kcox => (ricochet::kcox::write(&job.puzzle)?, None),
        PuzzleFormat::Html => anyhow::bail!(
            "html is a pack's format (rrm pack); one puzzle is written as json, dd-id, dd-dump or kcox"
        ),
    })
}
