//! Writing a puzzle in the formats of the tools players already use: rrm's JSON puzzle
//! format, DriftingDroids' game IDs and its game dumps.

use crate::input::{Job, Source};
use anyhow::{bail, Result};
use ricochet::driftingdroids::{write_dump, DdBoard, DdGame, TileSide};

/// A format `show` can write besides its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// rrm's JSON puzzle format (README).
    Json,
    /// A DriftingDroids game ID.
    DdId,
    /// A DriftingDroids game dump (`!DriftingDroids_game!…`), which it pastes in.
    DdDump,
}

/// The DriftingDroids game of `job`: its own board, or for a Fogleman seed the same
/// tile sides in DriftingDroids, with a note that they add the two walls beside the
/// vortex that Fogleman's program leaves out (so the optimum there may differ).
pub fn driftingdroids_game(job: &Job) -> Result<(DdGame, Option<String>)> {
    if let Some(game) = DdGame::from_puzzle(&job.puzzle) {
        return Ok((game, None));
    }
    let Source::Seed(seed) = &job.source else {
        bail!("this board is not four DriftingDroids tile sides, so it has no game ID (a dump can carry it: --format dd-dump)");
    };
    let sides = seed
        .layout
        .tiles
        .map(|name| TileSide::from_fogleman_name(name).expect("Fogleman's tiles are mapped"));
    let board = DdBoard::new(sides);
    let target = job.puzzle.target();
    let goal = board
        .goal_at(target.cell)
        .filter(|goal| goal.colour == target.colour)
        .expect("the mapped board has the same targets");
    let game = DdGame {
        board,
        robots: job.puzzle.robots().to_vec(),
        goal,
    };
    let note = format!(
        "DriftingDroids' board {} has the two walls beside the vortex that Fogleman's program leaves out; `rrm solve --puzzle {}` gives its optimum there",
        sides.map(|side| side.name()).join(" "),
        game.id()
    );
    Ok((game, Some(note)))
}

/// `job`'s puzzle written as `format`, and a note for stderr when the written puzzle is
/// not exactly the same.
pub fn write(job: &Job, format: OutputFormat) -> Result<(String, Option<String>)> {
    Ok(match format {
        OutputFormat::Json => {
            let name = match &job.source {
                Source::Seed(game) => Some(format!("seed {}", game.seed)),
                Source::File { name, .. } => name.clone(),
            };
            let record = job.puzzle.to_record(name);
            (serde_json::to_string(&record)? + "\n", None)
        }
        OutputFormat::DdId => {
            let (game, note) = driftingdroids_game(job)?;
            (game.id() + "\n", note)
        }
        OutputFormat::DdDump => (write_dump(&job.puzzle) + "\n", None),
    })
}
