//! Why the coordinator refuses a request: [`CoordinatorError`], and [`Rejection`] for a
//! submission whose contents are wrong. Each variant maps to one gRPC status code at the
//! edge (`crate::service`); tests match on variants, never on message text.

use rrm_store::StoreError;

/// Why a request was refused.
#[derive(Debug, thiserror::Error)]
pub enum CoordinatorError {
    #[error("unknown campaign {:?}", crate::names::shown(.0))]
    UnknownCampaign(String),
    #[error("campaign {campaign:?} has no unit {unit}")]
    UnknownUnit { campaign: String, unit: u64 },
    /// An id the coordinator does not know, or a session that is not the id's.
    #[error("unknown worker {0} or wrong session; register again")]
    UnknownWorker(u64),
    #[error("worker {0} was registered with another token")]
    NotYourWorker(u64),
    #[error("{0:?} is distrusted: one of its results was proven wrong; an operator clears it with `rrm campaign trust`")]
    Distrusted(String),
    #[error("unit {0} is not quarantined")]
    NotQuarantined(u64),
    #[error(
        "the coordinator's disk is nearly full ({} free, below its reserve of {}): \
         no new work until space is freed; results of units already leased are still taken",
        size(*available),
        size(*reserve)
    )]
    DiskLow { available: u64, reserve: u64 },
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
    // Not `#[from]`: that would make the cause a source too, and a chain printed with it
    // would say the reason twice.
    #[error("invalid submission: {0}")]
    Invalid(Rejection),
    #[error("unit {0} is quarantined")]
    Quarantined(u64),
    #[error("invalid campaign: {0}")]
    InvalidCampaign(rrm_model::SpecError),
    #[error("campaign too large: {count} {what}, more than this coordinator's limit of {limit}")]
    CampaignTooLarge {
        what: &'static str,
        count: u64,
        limit: u64,
    },
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
    /// A seed query on an exhaustive campaign, or a placement query on a seed campaign.
    #[error("campaign {campaign:?} is not {expected}")]
    WrongKind {
        campaign: String,
        expected: &'static str,
    },
    /// An exhaustive result for a board or token the campaign does not analyse.
    #[error("campaign {campaign:?} has no unit for board {board:?} and target {token:?}")]
    NoSuchUnit {
        campaign: String,
        board: String,
        token: String,
    },
    /// A placement no done unit lists (only the hardest and top placements are kept).
    #[error("unit {unit} of {campaign:?} lists no placement {placement:?}")]
    NotListed {
        campaign: String,
        unit: u64,
        placement: [u8; 4],
    },
    /// A unit with no result yet (or no such unit).
    #[error("unit {unit} of {campaign:?} is not done")]
    UnitNotDone { campaign: String, unit: u64 },
    #[error("the coordinator is shutting down")]
    ShuttingDown,
    /// The identity holds all the leases its registrations' threads, or its recent
    /// results, allow.
    #[error(
        "{:?} holds {held} leases, all {limit} allow ({allowed}); submit or give some up first",
        crate::names::shown(identity)
    )]
    LeaseQuota {
        identity: String,
        held: usize,
        allowed: usize,
        limit: QuotaLimit,
    },
    /// Every registration (of one identity, or in all) holds a lease.
    #[error("too many {what} (limit {limit}), all of them holding leases")]
    TooManyRegistrations { what: &'static str, limit: usize },
    /// The coordinator's own analysis of a unit it created failed.
    #[error("the coordinator could not analyse the unit itself: {0}")]
    OwnAnalysis(String),
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
    #[error("a {got} result for a unit of {expected}")]
    WrongKind {
        expected: &'static str,
        got: &'static str,
    },
    #[error(
        "the histogram and unsolvable count add up to {got} placements, the unit has {expected}"
    )]
    PlacementTotal { expected: u64, got: u128 },
    #[error("the histogram has {all} depths, the legal histogram {legal}")]
    HistogramLengths { all: usize, legal: usize },
    #[error("depth {depth}: more legal placements than placements")]
    LegalOverAll { depth: usize },
    #[error("depth {depth} is empty below the maximum (or 0 moves are claimed)")]
    EmptyDepth { depth: usize },
    #[error("maximum {claimed} is not the last depth of the histogram ({last})")]
    WrongMaximum { claimed: u8, last: usize },
    #[error("{list}: {got} placements, at most {bound} allowed")]
    TooMany {
        list: PlacementList,
        bound: usize,
        got: usize,
    },
    #[error("{list}: {got} placements, the histogram asks for {expected}")]
    WrongCount {
        list: PlacementList,
        expected: usize,
        got: usize,
    },
    #[error("top placements for depths {got:?}, expected {expected:?}")]
    TopDepths { expected: Vec<u8>, got: Vec<u8> },
    #[error("{list}: placement {index} is not a placement of this unit")]
    InvalidPlacement { list: PlacementList, index: usize },
    #[error("{list}: placement {index} is listed twice")]
    DuplicatePlacement { list: PlacementList, index: usize },
    #[error("{list}: placement {index} has a robot on a target cell")]
    IllegalPlacement { list: PlacementList, index: usize },
    #[error("{list}: placement {index}'s claimed solution does not solve it in {depth} moves")]
    WrongPlacementSolution {
        list: PlacementList,
        index: usize,
        depth: u8,
    },
    #[error("sample placement {index} is not the one sample_placements gives")]
    WrongSample { index: usize },
    #[error("the coordinator's own analysis of the unit differs from the result")]
    OwnAnalysisDiffers,
    #[error("{list}: placement {index} claimed {} moves, the coordinator finds {}", show_depth(*claimed), match found {
        Some(moves) => format!("{moves}"),
        None => "none within the claim".to_string(),
    })]
    WrongDepth {
        list: PlacementList,
        index: usize,
        /// `None`: claimed unsolvable.
        claimed: Option<u8>,
        /// `None`: no solution within the claimed depth (or the unit's maximum).
        found: Option<usize>,
    },
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
    #[error(
        "seed {seed} needs {moves} moves (a record candidate or one of the unit's hardest) \
         but has no solution"
    )]
    MissingSolution { seed: u64, moves: u8 },
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
    #[error("seed {seed}: {moves} moves with {robots} robots moved is impossible: {why}")]
    Impossible {
        seed: u64,
        moves: u8,
        robots: u8,
        why: &'static str,
    },
    #[error("seed {seed}: claimed {claimed} moves ({claimed_robots} robots), the coordinator finds {found} ({found_robots} robots)")]
    SpotCheck {
        seed: u64,
        claimed: u8,
        claimed_robots: u8,
        found: usize,
        found_robots: usize,
    },
    #[error("seed {seed}: claimed {claimed} moves, the coordinator finds {reason}")]
    Unconfirmed {
        seed: u64,
        claimed: u8,
        reason: ricochet::Unsolved,
    },
}

impl Rejection {
    /// Whether the refusal proves its sender wrong: no worker of this version, honest
    /// and working, sends such a result. Not so for what the coordinator itself could
    /// not decide (a seed it cannot generate or solve within its limit), nor for
    /// damage in transit (lengths, digest), which changes nothing anyway.
    /// Whether the coordinator's own solve shows a seed unit's move counts wrong, not only
    /// what the sender added to them (its solutions, which another result with the same
    /// counts need not share).
    pub fn refutes_counts(&self) -> bool {
        matches!(
            self,
            Rejection::FalselyUnsolved { .. }
                | Rejection::NotOptimal { .. }
                | Rejection::Impossible { .. }
                | Rejection::SpotCheck { .. }
        )
    }

    pub fn proves_wrong(&self) -> bool {
        !matches!(
            self,
            Rejection::WrongLength { .. }
                | Rejection::DigestMismatch
                | Rejection::WrongKind { .. }
                | Rejection::Ungenerable { .. }
                | Rejection::Unconfirmed { .. }
        )
    }
}

/// Which placement list of an exhaustive result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlacementList {
    Hardest,
    Top {
        depth: u8,
    },
    Sample,
    /// The legal samples of one depth (0: the list of depths itself).
    LegalSample {
        depth: u8,
    },
    LegalHardest,
}

impl std::fmt::Display for PlacementList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlacementList::Hardest => f.write_str("hardest placements"),
            PlacementList::Top { depth } => write!(f, "top placements at depth {depth}"),
            PlacementList::Sample => f.write_str("sample"),
            PlacementList::LegalSample { depth: 0 } => f.write_str("legal samples' depths"),
            PlacementList::LegalSample { depth } => write!(f, "legal samples at depth {depth}"),
            PlacementList::LegalHardest => f.write_str("legal hardest placements"),
        }
    }
}

fn show_depth(depth: Option<u8>) -> String {
    depth.map_or("unsolvable, no".to_string(), |d| d.to_string())
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

impl From<Rejection> for CoordinatorError {
    fn from(rejection: Rejection) -> Self {
        CoordinatorError::Invalid(rejection)
    }
}

impl From<rrm_model::SpecError> for CoordinatorError {
    fn from(error: rrm_model::SpecError) -> Self {
        CoordinatorError::InvalidCampaign(error)
    }
}

impl From<ricochet::UnknownGenerator> for CoordinatorError {
    fn from(error: ricochet::UnknownGenerator) -> Self {
        CoordinatorError::InvalidCampaign(error.into())
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

/// A size for people: whole bytes below a KiB, then KiB, MiB or GiB with one decimal
/// (a reserve of 300 KiB is not "0 MiB").
fn size(bytes: u64) -> String {
    const UNITS: [&str; 3] = ["KiB", "MiB", "GiB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod size_tests {
    #[test]
    fn small_reserves_are_not_zero_mib() {
        assert_eq!(super::size(0), "0 bytes");
        assert_eq!(super::size(300 << 10), "300.0 KiB");
        assert_eq!(super::size(1536 << 10), "1.5 MiB");
        assert_eq!(super::size(5 << 30), "5.0 GiB");
    }
}

/// What bounds an identity's leases at the moment ([`CoordinatorError::LeaseQuota`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum QuotaLimit {
    #[error("its registrations' threads")]
    Threads,
    /// Its results taken within a lease life; none while it only let leases lapse (a
    /// paused or hoarding worker waits one lease life).
    #[error("its results of the last lease life (leases it let lapse count against it)")]
    Record,
}
