//! Exhaustive analysis results: every placement of a board and a target, as histograms
//! and the placements kept.

mod analysis;

pub use analysis::{analyse_unit, AnalysisError};

use crate::deepest;
use std::collections::BTreeMap;

/// One placement of four robots: the target robot's cell, then the three helpers' cells
/// ascending; cells are caller indices `y * 16 + x`.
pub type PlacementCells = [u8; 4];

/// An exhaustive unit's result as a worker computes it: both depth histograms, the
/// maximum with its placements, up to `top_per_depth` placements per depth from
/// `top_from` on, and the sampled placements with their depths (`None`: unsolvable).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExhaustiveResult {
    pub histogram: Vec<u64>,
    pub legal_histogram: Vec<u64>,
    pub unsolvable: u64,
    pub max_moves: u8,
    pub hardest: Vec<PlacementCells>,
    pub top: Vec<(u8, Vec<PlacementCells>)>,
    pub sample: Vec<(PlacementCells, Option<u8>)>,
    /// Index `d - 1`: up to 64 legal placements of depth `d`, spread evenly.
    pub legal_samples: Vec<Vec<PlacementCells>>,
    /// Legal placements at the deepest depth a legal placement needs.
    pub legal_hardest: Vec<PlacementCells>,
}

impl ExhaustiveResult {
    /// The most moves a legal placement needs (0 when none is legal).
    pub fn legal_max_moves(&self) -> u8 {
        deepest(&self.legal_histogram)
    }
}

/// An accepted exhaustive result as stored (kind byte 4 in `results`, version 2): the
/// result; for each of its hardest and legal hardest placements, the optimal solution the
/// coordinator found when it re-solved it (move notation); and how it was computed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExhaustiveRecord {
    pub result: ExhaustiveResult,
    pub hardest_solutions: Vec<Vec<String>>,
    pub legal_hardest_solutions: Vec<Vec<String>>,
    /// The CPU time its producer reported (informative).
    pub cpu_ms: u64,
    /// The rrm version that accepted it (workers run the coordinator's version).
    pub rrm_version: String,
}

/// A done unit's maxima: over all its placements and over its legal ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnitMaxima {
    pub unit: u64,
    pub all: u8,
    pub legal: u8,
}

/// An exhaustive campaign's boards and targets, and the maxima of its done units by
/// (board, target): what a census heatmap draws.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UnitMap {
    pub boards: Vec<String>,
    pub targets: Vec<String>,
    pub maxima: BTreeMap<(String, String), UnitMaxima>,
}
