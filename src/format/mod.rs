//! Every format rrm reads or writes puzzles in, in one place: rrm's JSON records, the
//! DriftingDroids game IDs and dumps, K. Cox's text ([`PuzzleFormat`]: `read` and
//! `write`), and the puzzle packs ([`pack`]: HTML, JSON, game IDs, K. Cox text). A new
//! format is a variant and its arm here; the commands only pass `--format` through.

pub mod pack;
mod read;
mod write;

pub use read::{parse_puzzles, read_puzzle, read_puzzle_arg, read_puzzles, read_puzzles_as};
pub use write::{driftingdroids_game, tiles_named, write};

use ricochet::metrics::Metrics;
use serde::{Deserialize, Serialize};

/// How one puzzle is written: the one type for reading and for writing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum PuzzleFormat {
    /// Reading: a DriftingDroids game ID when the text is one or a file holds one, a
    /// dump, K. Cox's text, else JSON. Writing: rrm's JSON.
    Auto,
    /// rrm's JSON puzzle format (docs/editions.md).
    Json,
    /// A DriftingDroids game ID such as `7650+42+E2302B12+C9`.
    DdId,
    /// A DriftingDroids game dump, `!DriftingDroids_game!…`.
    DdDump,
    /// K. Cox's text format (`board 16 16` …), mirrors included (a four-robot puzzle's
    /// fifth robot shut in the centre).
    Kcox,
    /// Reading only: a printable pack page of `rrm pack`, by the JSON it carries.
    Html,
}

/// How a list of puzzles (`rrm top`) is written: a text table, JSON Lines, or each
/// puzzle in a player's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ListFormat {
    /// A ranked table with solutions and metrics.
    Text,
    /// One JSON object per puzzle.
    Json,
    /// One DriftingDroids game ID per line.
    DdId,
    /// K. Cox's text of each puzzle, a blank line between them.
    Kcox,
}

impl ListFormat {
    /// The format the old flags (`--json`, `--dd-ids`, `--kcox`) name, else `format`.
    pub fn or_flags(format: Option<Self>, json: bool, dd_ids: bool, kcox: bool) -> Self {
        match (format, json, dd_ids, kcox) {
            (Some(format), ..) => format,
            (None, true, _, _) => ListFormat::Json,
            (None, _, true, _) => ListFormat::DdId,
            (None, _, _, true) => ListFormat::Kcox,
            _ => ListFormat::Text,
        }
    }
}

/// A solution's quality metrics as JSON fields (`solve --json`, `top`, packs).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetricsJson {
    pub optimal_solutions: Option<u64>,
    pub optimal_solutions_capped: bool,
    pub robots_moved: usize,
    pub ricochets: usize,
    pub solo_moves: Option<u8>,
    pub solo_gap: Option<usize>,
}

impl MetricsJson {
    /// The fields of `metrics` for a solution of `optimum` moves.
    pub fn new(metrics: &Metrics, optimum: usize) -> Self {
        MetricsJson {
            optimal_solutions: metrics.optimal_solutions,
            optimal_solutions_capped: metrics.capped,
            robots_moved: metrics.robots_moved,
            ricochets: metrics.ricochets,
            solo_moves: metrics.solo_moves,
            solo_gap: metrics.solo_gap(optimum),
        }
    }
}
