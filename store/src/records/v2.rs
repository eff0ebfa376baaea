//! Store format 2: every record this code writes, field for field in postcard order.

use crate::StoreError;
use rrm_model as model;
use rrm_model::PlacementCells;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Serialize, Deserialize)]
pub(crate) struct Campaign {
    id: u32,
    spec: CampaignSpec,
    created_unix_ms: i64,
}

#[derive(Serialize, Deserialize)]
struct CampaignSpec {
    name: String,
    generator: String,
    seed_start: u64,
    seed_end: u64,
    unit_size: u64,
    record_threshold: u8,
}

impl From<&model::Campaign> for Campaign {
    fn from(campaign: &model::Campaign) -> Campaign {
        let spec = &campaign.spec;
        Campaign {
            id: campaign.id,
            spec: CampaignSpec {
                name: spec.name.to_string(),
                generator: spec.generator.clone(),
                seed_start: spec.seed_start,
                seed_end: spec.seed_end,
                unit_size: spec.unit_size,
                record_threshold: spec.record_threshold,
            },
            created_unix_ms: campaign.created_unix_ms,
        }
    }
}

impl TryFrom<Campaign> for model::Campaign {
    type Error = StoreError;
    fn try_from(record: Campaign) -> Result<model::Campaign, StoreError> {
        let spec = record.spec;
        let name = model::CampaignName::new(spec.name).map_err(|e| StoreError::Corrupt {
            what: "campaign",
            detail: e.to_string(),
        })?;
        Ok(model::Campaign {
            id: record.id,
            spec: model::CampaignSpec {
                name,
                generator: spec.generator,
                seed_start: spec.seed_start,
                seed_end: spec.seed_end,
                unit_size: spec.unit_size,
                record_threshold: spec.record_threshold,
                // Kept in the `rules` tree; the store fills them in.
                rules: model::Rules::STANDARD,
            },
            created_unix_ms: record.created_unix_ms,
        })
    }
}

/// A campaign's rules as stores before the canonical text kept them (read only: the
/// `rules` tree now holds the text, see `CAMPAIGN_RULES`).
#[derive(Serialize, Deserialize)]
pub(crate) struct Rules {
    rebounds: bool,
    /// 0: none, 1: the rulebook's, 2: DriftingDroids'.
    ricochet: u8,
    min_moves: u8,
}

impl TryFrom<Rules> for model::Rules {
    type Error = StoreError;
    fn try_from(record: Rules) -> Result<model::Rules, StoreError> {
        use model::Ricochet;
        let ricochet = match record.ricochet {
            0 => Ricochet::None,
            1 => Ricochet::Official,
            2 => Ricochet::DriftingDroids,
            other => {
                return Err(StoreError::Corrupt {
                    what: "campaign rules",
                    detail: format!("ricochet rule {other}"),
                })
            }
        };
        Ok(model::Rules {
            rebounds: record.rebounds,
            ricochet,
            min_moves: record.min_moves,
        })
    }
}

#[derive(Serialize, Deserialize)]
pub(crate) struct UnitRecord {
    state: UnitState,
    leases_issued: u64,
    failed_by: Vec<String>,
    last_error: Option<String>,
}

#[derive(Serialize, Deserialize)]
enum UnitState {
    Pending {
        expired: Option<Lease>,
    },
    Leased(Lease),
    Done {
        digest: [u8; 32],
        producer: String,
        commit: u64,
        verification: Verification,
    },
    Quarantined,
}

#[derive(Serialize, Deserialize)]
struct Lease {
    number: u64,
    worker: u64,
    identity: String,
    deadline_unix_ms: i64,
}

#[derive(Serialize, Deserialize)]
enum Verification {
    NotChosen,
    Pending,
    Leased(Lease),
    Agreed { by: String },
    Confirmed,
}

impl From<&model::Lease> for Lease {
    fn from(lease: &model::Lease) -> Lease {
        Lease {
            number: lease.number,
            worker: lease.worker,
            identity: lease.identity.clone(),
            deadline_unix_ms: lease.deadline_unix_ms,
        }
    }
}

impl From<Lease> for model::Lease {
    fn from(lease: Lease) -> model::Lease {
        model::Lease {
            number: lease.number,
            worker: lease.worker,
            identity: lease.identity,
            deadline_unix_ms: lease.deadline_unix_ms,
        }
    }
}

impl From<&model::Verification> for Verification {
    fn from(verification: &model::Verification) -> Verification {
        match verification {
            model::Verification::NotChosen => Verification::NotChosen,
            model::Verification::Pending => Verification::Pending,
            model::Verification::Leased(lease) => Verification::Leased(lease.into()),
            model::Verification::Agreed { by } => Verification::Agreed { by: by.clone() },
            model::Verification::Confirmed => Verification::Confirmed,
        }
    }
}

impl From<Verification> for model::Verification {
    fn from(verification: Verification) -> model::Verification {
        match verification {
            Verification::NotChosen => model::Verification::NotChosen,
            Verification::Pending => model::Verification::Pending,
            Verification::Leased(lease) => model::Verification::Leased(lease.into()),
            Verification::Agreed { by } => model::Verification::Agreed { by },
            Verification::Confirmed => model::Verification::Confirmed,
        }
    }
}

impl From<&model::UnitRecord> for UnitRecord {
    fn from(record: &model::UnitRecord) -> UnitRecord {
        UnitRecord {
            state: match &record.state {
                model::UnitState::Pending { expired } => UnitState::Pending {
                    expired: expired.as_ref().map(Lease::from),
                },
                model::UnitState::Leased(lease) => UnitState::Leased(lease.into()),
                model::UnitState::Done {
                    digest,
                    producer,
                    commit,
                    verification,
                } => UnitState::Done {
                    digest: *digest,
                    producer: producer.clone(),
                    commit: *commit,
                    verification: verification.into(),
                },
                model::UnitState::Quarantined => UnitState::Quarantined,
            },
            leases_issued: record.leases_issued,
            failed_by: record.failed_by.clone(),
            last_error: record.last_error.clone(),
        }
    }
}

impl From<UnitRecord> for model::UnitRecord {
    fn from(record: UnitRecord) -> model::UnitRecord {
        model::UnitRecord {
            state: match record.state {
                UnitState::Pending { expired } => model::UnitState::Pending {
                    expired: expired.map(model::Lease::from),
                },
                UnitState::Leased(lease) => model::UnitState::Leased(lease.into()),
                UnitState::Done {
                    digest,
                    producer,
                    commit,
                    verification,
                } => model::UnitState::Done {
                    digest,
                    producer,
                    commit,
                    verification: verification.into(),
                },
                UnitState::Quarantined => model::UnitState::Quarantined,
            },
            leases_issued: record.leases_issued,
            failed_by: record.failed_by,
            last_error: record.last_error,
        }
    }
}

#[derive(Serialize, Deserialize)]
pub(crate) struct HardEntry {
    seed: u64,
    moves: u8,
    solution: Vec<String>,
    re_solved: bool,
}

impl From<&model::HardEntry> for HardEntry {
    fn from(entry: &model::HardEntry) -> HardEntry {
        HardEntry {
            seed: entry.seed,
            moves: entry.moves,
            solution: entry.solution.clone(),
            re_solved: entry.re_solved,
        }
    }
}

impl From<HardEntry> for model::HardEntry {
    fn from(entry: HardEntry) -> model::HardEntry {
        model::HardEntry {
            seed: entry.seed,
            moves: entry.moves,
            solution: entry.solution,
            re_solved: entry.re_solved,
        }
    }
}

#[derive(Serialize, Deserialize)]
pub(crate) struct Aggregates {
    through_commit: u64,
    histogram: Vec<u64>,
    by_target: BTreeMap<String, Group>,
    by_arrangement: BTreeMap<String, Group>,
    by_robots_moved: Vec<u64>,
}

#[derive(Serialize, Deserialize)]
struct Group {
    puzzles: u64,
    total_moves: u64,
    max_moves: u8,
    histogram: Vec<u64>,
}

fn groups_to(groups: &BTreeMap<String, model::Group>) -> BTreeMap<String, Group> {
    let group = |g: &model::Group| Group {
        puzzles: g.puzzles,
        total_moves: g.total_moves,
        max_moves: g.max_moves,
        histogram: g.histogram.clone(),
    };
    groups.iter().map(|(k, g)| (k.clone(), group(g))).collect()
}

fn groups_from(groups: BTreeMap<String, Group>) -> BTreeMap<String, model::Group> {
    let group = |g: Group| model::Group {
        puzzles: g.puzzles,
        total_moves: g.total_moves,
        max_moves: g.max_moves,
        histogram: g.histogram,
    };
    groups.into_iter().map(|(k, g)| (k, group(g))).collect()
}

impl From<&model::Aggregates> for Aggregates {
    fn from(a: &model::Aggregates) -> Aggregates {
        Aggregates {
            through_commit: a.through_commit,
            histogram: a.histogram.clone(),
            by_target: groups_to(&a.by_target),
            by_arrangement: groups_to(&a.by_arrangement),
            by_robots_moved: a.by_robots_moved.clone(),
        }
    }
}

impl From<Aggregates> for model::Aggregates {
    fn from(a: Aggregates) -> model::Aggregates {
        model::Aggregates {
            through_commit: a.through_commit,
            histogram: a.histogram,
            by_target: groups_from(a.by_target),
            by_arrangement: groups_from(a.by_arrangement),
            by_robots_moved: a.by_robots_moved,
        }
    }
}

/// After version byte 1 in the `exhaustive` tree.
#[derive(Serialize, Deserialize)]
pub(crate) struct ExhaustiveSpec {
    boards: Vec<String>,
    targets: Vec<String>,
    sample_size: u32,
    top_from: u8,
    top_per_depth: u32,
    max_hardest: u32,
}

impl From<&model::ExhaustiveSpec> for ExhaustiveSpec {
    fn from(spec: &model::ExhaustiveSpec) -> ExhaustiveSpec {
        ExhaustiveSpec {
            boards: spec.boards.clone(),
            targets: spec.targets.clone(),
            sample_size: spec.sample_size,
            top_from: spec.top_from,
            top_per_depth: spec.top_per_depth,
            max_hardest: spec.max_hardest,
        }
    }
}

impl From<ExhaustiveSpec> for model::ExhaustiveSpec {
    fn from(spec: ExhaustiveSpec) -> model::ExhaustiveSpec {
        model::ExhaustiveSpec {
            boards: spec.boards,
            targets: spec.targets,
            sample_size: spec.sample_size,
            top_from: spec.top_from,
            top_per_depth: spec.top_per_depth,
            max_hardest: spec.max_hardest,
        }
    }
}

/// Kind byte 4 in `results`.
#[derive(Serialize, Deserialize)]
pub(crate) struct ExhaustiveRecord {
    result: ExhaustiveResult,
    hardest_solutions: Vec<Vec<String>>,
    legal_hardest_solutions: Vec<Vec<String>>,
    cpu_ms: u64,
    rrm_version: String,
}

#[derive(Serialize, Deserialize)]
struct ExhaustiveResult {
    histogram: Vec<u64>,
    legal_histogram: Vec<u64>,
    unsolvable: u64,
    max_moves: u8,
    hardest: Vec<PlacementCells>,
    top: Vec<(u8, Vec<PlacementCells>)>,
    sample: Vec<(PlacementCells, Option<u8>)>,
    legal_samples: Vec<Vec<PlacementCells>>,
    legal_hardest: Vec<PlacementCells>,
}

impl From<&model::ExhaustiveRecord> for ExhaustiveRecord {
    fn from(record: &model::ExhaustiveRecord) -> ExhaustiveRecord {
        let r = &record.result;
        ExhaustiveRecord {
            result: ExhaustiveResult {
                histogram: r.histogram.clone(),
                legal_histogram: r.legal_histogram.clone(),
                unsolvable: r.unsolvable,
                max_moves: r.max_moves,
                hardest: r.hardest.clone(),
                top: r.top.clone(),
                sample: r.sample.clone(),
                legal_samples: r.legal_samples.clone(),
                legal_hardest: r.legal_hardest.clone(),
            },
            hardest_solutions: record.hardest_solutions.clone(),
            legal_hardest_solutions: record.legal_hardest_solutions.clone(),
            cpu_ms: record.cpu_ms,
            rrm_version: record.rrm_version.clone(),
        }
    }
}

impl From<ExhaustiveRecord> for model::ExhaustiveRecord {
    fn from(record: ExhaustiveRecord) -> model::ExhaustiveRecord {
        let r = record.result;
        model::ExhaustiveRecord {
            result: model::ExhaustiveResult {
                histogram: r.histogram,
                legal_histogram: r.legal_histogram,
                unsolvable: r.unsolvable,
                max_moves: r.max_moves,
                hardest: r.hardest,
                top: r.top,
                sample: r.sample,
                legal_samples: r.legal_samples,
                legal_hardest: r.legal_hardest,
            },
            hardest_solutions: record.hardest_solutions,
            legal_hardest_solutions: record.legal_hardest_solutions,
            cpu_ms: record.cpu_ms,
            rrm_version: record.rrm_version,
        }
    }
}

#[derive(Serialize, Deserialize)]
pub(crate) struct Mismatch {
    unit: u64,
    lease: u64,
    producer: String,
    verifier: String,
    digest: [u8; 32],
    detail: String,
    resolution: Resolution,
}

#[derive(Serialize, Deserialize)]
enum Resolution {
    Pending,
    StoredWon,
    VerifierWon,
    Redone,
}

impl From<&model::Mismatch> for Mismatch {
    fn from(m: &model::Mismatch) -> Mismatch {
        Mismatch {
            unit: m.unit,
            lease: m.lease,
            producer: m.producer.clone(),
            verifier: m.verifier.clone(),
            digest: m.digest,
            detail: m.detail.clone(),
            resolution: match m.resolution {
                model::Resolution::Pending => Resolution::Pending,
                model::Resolution::StoredWon => Resolution::StoredWon,
                model::Resolution::VerifierWon => Resolution::VerifierWon,
                model::Resolution::Redone => Resolution::Redone,
            },
        }
    }
}

impl From<Mismatch> for model::Mismatch {
    fn from(m: Mismatch) -> model::Mismatch {
        model::Mismatch {
            unit: m.unit,
            lease: m.lease,
            producer: m.producer,
            verifier: m.verifier,
            digest: m.digest,
            detail: m.detail,
            resolution: match m.resolution {
                Resolution::Pending => model::Resolution::Pending,
                Resolution::StoredWon => model::Resolution::StoredWon,
                Resolution::VerifierWon => model::Resolution::VerifierWon,
                Resolution::Redone => model::Resolution::Redone,
            },
        }
    }
}

#[derive(Serialize, Deserialize)]
pub(crate) struct Distrust {
    identity: String,
    since_unix_ms: i64,
    reason: String,
}

impl From<&model::Distrust> for Distrust {
    fn from(d: &model::Distrust) -> Distrust {
        Distrust {
            identity: d.identity.clone(),
            since_unix_ms: d.since_unix_ms,
            reason: d.reason.clone(),
        }
    }
}

impl From<Distrust> for model::Distrust {
    fn from(d: Distrust) -> model::Distrust {
        model::Distrust {
            identity: d.identity,
            since_unix_ms: d.since_unix_ms,
            reason: d.reason,
        }
    }
}
