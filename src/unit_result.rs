//! The exhaustive unit result file format: what `rrm exhaust --json` prints and
//! `rrm campaign import` reads. One JSON object per unit (a file may hold several, one
//! after another); cells are `y * 16 + x` on the board as named.

use anyhow::{Context, Result};
use ricochet::exhaustive::{Analysis, Placement};
use ricochet::Board;
use serde::{Deserialize, Serialize};

/// One unit's result. Fields beyond the analysis (timings, the analysed position) are
/// informative; import ignores them.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct UnitResultJson {
    /// Fogleman tiles in slot order; absent for a board read from a puzzle file. Import
    /// takes only the canonical rotation (tile 1 top-left), as campaigns do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<String>,
    /// The target token, e.g. `RT`; absent for a board read from a puzzle file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    pub target_cell: u32,
    pub placements: u64,
    /// `histogram[d]`: placements needing `d` moves.
    pub histogram: Vec<u64>,
    /// The same over Fogleman-legal placements (no robot on one of the board's 16 targets).
    pub legal_histogram: Vec<u64>,
    pub unsolvable: u64,
    pub max_moves: u8,
    /// Every placement at `max_moves` (a campaign keeps the first `max_hardest`).
    pub hardest: Vec<PlacementJson>,
    pub top: Vec<DepthJson>,
    pub sample: Vec<SampleJson>,
    pub sample_size: u32,
    pub top_from: u8,
    pub top_per_depth: u32,
    /// How the unit was computed (informative).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<RunJson>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PlacementJson {
    pub target_robot: u32,
    /// The helpers' cells, ascending.
    pub helpers: Vec<u32>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DepthJson {
    pub depth: u8,
    pub placements: Vec<PlacementJson>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SampleJson {
    pub placement: PlacementJson,
    /// `null`: unsolvable.
    pub moves: Option<u8>,
}

/// Where and how fast a unit was computed.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunJson {
    pub rrm_version: String,
    pub threads: usize,
    pub cpu_seconds: f64,
    pub wall_seconds: f64,
    pub peak_memory_bytes: u64,
}

/// Options of an analysis as a result file records them.
pub struct Lists {
    pub sample_size: u32,
    pub top_from: u8,
    pub top_per_depth: u32,
}

impl PlacementJson {
    pub fn new(board: &Board, placement: &Placement) -> PlacementJson {
        let indices = placement.indices(board);
        PlacementJson {
            target_robot: indices[0] as u32,
            helpers: indices[1..].iter().map(|&i| i as u32).collect(),
        }
    }
}

impl UnitResultJson {
    /// The result of `analysis` of a unit on `board` (cells become `y * 16 + x`).
    pub fn new(
        board: &Board,
        unit: (Option<String>, Option<String>),
        target: ricochet::Cell,
        analysis: &Analysis,
        lists: &Lists,
    ) -> UnitResultJson {
        let cells = |list: &[Placement]| -> Vec<PlacementJson> {
            list.iter().map(|p| PlacementJson::new(board, p)).collect()
        };
        UnitResultJson {
            board: unit.0,
            token: unit.1,
            target_cell: board.index_of(target) as u32,
            placements: analysis.placements,
            histogram: analysis.histogram.clone(),
            legal_histogram: analysis.legal_histogram.clone(),
            unsolvable: analysis.unsolvable,
            max_moves: analysis.max_moves,
            hardest: cells(&analysis.hardest),
            top: analysis
                .top
                .iter()
                .map(|(depth, list)| DepthJson {
                    depth: *depth,
                    placements: cells(list),
                })
                .collect(),
            sample: analysis
                .sample
                .iter()
                .map(|(placement, moves)| SampleJson {
                    placement: PlacementJson::new(board, placement),
                    moves: *moves,
                })
                .collect(),
            sample_size: lists.sample_size,
            top_from: lists.top_from,
            top_per_depth: lists.top_per_depth,
            run: None,
        }
    }

    /// The Fogleman unit (board, token) the result is for.
    pub fn unit(&self) -> Result<(&str, &str)> {
        self.board
            .as_deref()
            .zip(self.token.as_deref())
            .context("not a Fogleman unit: the result names no board and token")
    }
}
