//! Why the coordinator refuses a request: [`CoordinatorError`], and [`Rejection`] for a
//! submission whose contents are wrong. Each variant maps to one gRPC status code at the
//! edge (`crate::service`); tests match on variants, never on message text.

use rrm_store::StoreError;

/// Why a request was refused.
#[derive(Debug, thiserror::Error)]
pub enum CoordinatorError {
    #[error("unknown campaign {0:?}")]
    UnknownCampaign(String),
    #[error("campaign {campaign:?} has no unit {unit}")]
    UnknownUnit { campaign: String, unit: u64 },
    #[error("unknown worker {0}; register again")]
    UnknownWorker(u64),
    #[error("unit {unit} of {campaign:?} never had lease {lease}")]
    UnknownLease {
        campaign: String,
        unit: u64,
        lease: u64,
    },
    /// The lease is no longer the unit's current one.
    #[error("stale lease: lease {lease} of unit {unit} {}", match superseded_by {
        Some(newer) => format!("was superseded by lease {newer}"),
        None => "expired or its result was refused".to_string(),
    })]
    StaleLease {
        unit: u64,
        lease: u64,
        /// The unit's current lease, if one is out.
        superseded_by: Option<u64>,
    },
    #[error("lease {lease} of unit {unit} belongs to another worker")]
    NotYourLease { unit: u64, lease: u64 },
    #[error("invalid submission: {0}")]
    Invalid(#[from] Rejection),
    #[error("unit {0} is quarantined")]
    Quarantined(u64),
    #[error("invalid campaign: {0}")]
    InvalidCampaign(String),
    #[error("campaign {0:?} already exists")]
    CampaignExists(String),
    #[error("seed {seed} is outside campaign {campaign:?} ({start}..{end})")]
    SeedOutside {
        campaign: String,
        seed: u64,
        start: u64,
        end: u64,
    },
    #[error("seed {seed} of {campaign:?} is not mined yet")]
    NotMined { campaign: String, seed: u64 },
    #[error("the coordinator is shutting down")]
    ShuttingDown,
    #[error(transparent)]
    Store(StoreError),
}

/// Why a submission was refused. Wrong lengths and digests are refused before anything
/// else and change nothing; the other rejections come from checking a fresh result's
/// contents and are charged to the unit as a failure.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Rejection {
    #[error("unit {unit} has {expected} seeds, got {got} {counts}")]
    WrongLength {
        unit: u64,
        counts: Counts,
        expected: usize,
        got: usize,
    },
    #[error("digest does not match the unit and its move counts")]
    DigestMismatch,
    #[error("solution for seed {seed}, outside the unit")]
    SolutionOutsideUnit { seed: u64 },
    #[error("two solutions for seed {seed}")]
    DuplicateSolution { seed: u64 },
    #[error("a solution for seed {seed}, which is neither a record candidate nor among the unit's {top_count} hardest")]
    UnaskedSolution { seed: u64, top_count: u32 },
    #[error("seed {seed}: {error}")]
    Ungenerable {
        seed: u64,
        error: ricochet::SeedError,
    },
    #[error("seed {seed}: reported unsolved, the coordinator finds {found} moves")]
    FalselyUnsolved { seed: u64, found: usize },
    #[error("seed {seed} needs {moves} moves (a record candidate) but has no solution")]
    MissingRecordSolution { seed: u64, moves: u8 },
    #[error("seed {seed}: bad move {notation:?}")]
    BadMove { seed: u64, notation: String },
    #[error("seed {seed}: the solution does not solve the puzzle in {moves} moves")]
    WrongSolution { seed: u64, moves: u8 },
    #[error("seed {seed}: the solution moves {actual} robots, not {claimed}")]
    WrongRobotsMoved {
        seed: u64,
        claimed: u8,
        actual: usize,
    },
    #[error("seed {seed}: claimed {claimed} moves, the coordinator finds {found}")]
    NotOptimal {
        seed: u64,
        claimed: u8,
        found: usize,
    },
    #[error("seed {seed}: claimed {claimed} moves, the coordinator finds {reason}")]
    Unconfirmed {
        seed: u64,
        claimed: u8,
        reason: ricochet::Unsolved,
    },
}

/// Which per-seed list of a submission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counts {
    Moves,
    RobotsMoved,
}

impl std::fmt::Display for Counts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Counts::Moves => "move counts",
            Counts::RobotsMoved => "robots-moved counts",
        })
    }
}

impl From<ricochet::UnknownGenerator> for CoordinatorError {
    fn from(error: ricochet::UnknownGenerator) -> Self {
        CoordinatorError::InvalidCampaign(error.to_string())
    }
}

impl From<StoreError> for CoordinatorError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::CampaignExists(name) => CoordinatorError::CampaignExists(name),
            StoreError::InvalidCampaign(why) => CoordinatorError::InvalidCampaign(why),
            other => CoordinatorError::Store(other),
        }
    }
}

pub type Result<T, E = CoordinatorError> = std::result::Result<T, E>;
