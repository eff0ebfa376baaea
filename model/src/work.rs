//! Work and its results: leases, units handed to workers, their submissions, and what
//! queries report of mined puzzles and campaigns.

use crate::{Campaign, CampaignName, Distrust, ExhaustiveResult, Mismatch, PlacementCells};
use ricochet::rules::Rules;
use ricochet::Generator;
use std::ops::Range;

/// Names one lease of one unit.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LeaseRef {
    pub campaign: CampaignName,
    pub unit: u64,
    /// The lease's number within its unit, counting from 1.
    pub lease: u64,
}

/// A unit handed to a worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assignment {
    pub lease: LeaseRef,
    pub work: Work,
    /// When the lease expires unless a heartbeat extends it.
    pub deadline_unix_ms: i64,
}

/// What a unit asks of its worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Work {
    /// Solve every seed of a range.
    Seeds {
        generator: Generator,
        /// The campaign's rules: every seed is solved under them.
        rules: Rules,
        seeds: Range<u64>,
        /// Seeds needing at least this many moves are record candidates: their solutions
        /// must come with the result and are solved again.
        record_threshold: u8,
        /// Solutions of this many of the unit's hardest seeds come with the result.
        top_count: u32,
    },
    /// Analyse every placement of one board and target.
    Exhaustive(ExhaustiveUnit),
}

/// One exhaustive unit: a board (canonical name), a target token, and what its result
/// must carry besides the histograms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExhaustiveUnit {
    pub board: String,
    pub token: String,
    pub sample_size: u32,
    pub top_from: u8,
    pub top_per_depth: u32,
    pub max_hardest: u32,
}

/// A placement of an exhaustive campaign with its exact move count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MinedPlacement {
    pub campaign: String,
    pub unit: u64,
    pub board: String,
    pub token: String,
    /// The token's cell, `y * 16 + x`.
    pub target_cell: u8,
    pub placement: PlacementCells,
    pub moves: u8,
    /// The coordinator's optimal solution (hardest placements only, else empty).
    pub solution: Vec<String>,
}

/// A worker's result for one lease.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submission {
    /// The registration that sent it (for logs).
    pub worker: u64,
    /// Who sent it, as the coordinator's authentication proved: the result,
    /// a failure or a distrust is charged to this name.
    pub identity: String,
    pub lease: LeaseRef,
    /// One optimal move count per seed of the unit (`rrm_model::UNSOLVED` when the
    /// worker gave up).
    pub move_counts: Vec<u8>,
    /// Per seed, the different robots its solution moves.
    pub robots_moved: Vec<u8>,
    /// `rrm_model::unit_digest` of the above.
    pub digest: Vec<u8>,
    /// (seed, moves in notation) for the record candidates and the hardest seeds.
    pub solutions: Vec<(u64, Vec<String>)>,
    /// An exhaustive unit's result (the seed fields are then empty); `digest` is
    /// `rrm_model::exhaustive_digest` of it.
    pub exhaustive: Option<ExhaustiveResult>,
    /// The CPU time the worker reports for an exhaustive unit (informative, unchecked).
    pub cpu_ms: u64,
    /// Sent by the worker of the coordinator's own process, as its gate proved (never
    /// read from the wire): its seeds were solved by this process's own solver.
    pub own_process: bool,
}

/// What became of a submission the coordinator took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The unit's first valid result: stored and counted.
    Accepted,
    /// The same result as the stored one, sent again: nothing changes.
    Duplicate,
    /// A result that differs from the stored one: recorded as a mismatch and settled
    /// (see [`crate::Resolution`]); it counts only if it proved right.
    Mismatch,
    /// A second worker's check agreed with the stored result.
    Verified,
}

/// A campaign's progress.
#[derive(Clone, Debug, PartialEq)]
pub struct CampaignStatus {
    pub campaign: Campaign,
    pub units_total: u64,
    pub units_done: u64,
    /// Units whose main or verification lease is out.
    pub units_leased: u64,
    pub units_quarantined: u64,
    /// Done units checked by a second computation: another identity agreed, or the
    /// coordinator solved the unit in full.
    pub units_verified: u64,
    /// Done units drawn for a second identity's check that no one has taken yet (a check
    /// taken is in `units_leased`).
    pub units_to_check: u64,
    pub seeds_done: u64,
    /// The most moves any mined seed needs (0 before the first result).
    pub hardest_moves: u8,
    /// Seeds mined per second over the last minute (units, for an exhaustive campaign).
    pub seeds_per_second: f64,
    /// An exhaustive campaign's placements per unit (`None` for a seed campaign): its
    /// progress and rate read in placements.
    pub placements_per_unit: Option<u64>,
    /// Seeds solved in units still leased, as their workers last reported (not yet in
    /// `seeds_done`).
    pub seeds_in_progress: u64,
    pub quarantined: Vec<QuarantinedUnit>,
    pub mismatches: Vec<Mismatch>,
    /// Identities proven wrong (on any campaign), leasing nothing until cleared.
    pub distrusted: Vec<Distrust>,
}

/// A unit that failed too often to be leased again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuarantinedUnit {
    pub unit: u64,
    pub failures: u32,
    pub last_error: String,
}

/// One mined puzzle as the query service reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MinedPuzzle {
    pub campaign: String,
    pub seed: u64,
    pub moves: u8,
    /// The kept solution in move notation; empty when the seed's solution was not kept.
    pub solution: Vec<String>,
    /// Whether the coordinator solved it again (record candidates).
    pub re_solved: bool,
}
