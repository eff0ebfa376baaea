//! The one place where `rrm.v1` messages and the coordinator's domain types meet:
//! `From` where every value fits, `TryFrom` (refusing with a [`WireError`]) where a wire
//! value may not. Used by the gRPC service and by the `rrm` binary's remote backend, so
//! both refuse the same values (the worker, which does not link the coordinator, refuses
//! a unit whose values do not fit).

use crate::core::{
    Assignment, CampaignStatus, LeaseRef, MinedPuzzle, Outcome, QuarantinedUnit, Submission,
};
use rrm_proto::v1 as pb;
use rrm_store::{Aggregates, Campaign, CampaignSpec, Group, Mismatch};
use std::collections::BTreeMap;

/// Why a message cannot become a domain value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    #[error("a message without its {0}")]
    Missing(&'static str),
    #[error("{field} {value} is over 255")]
    OverMoveLimit { field: &'static str, value: u32 },
}

impl From<WireError> for tonic::Status {
    fn from(error: WireError) -> tonic::Status {
        tonic::Status::invalid_argument(error.to_string())
    }
}

/// A move count on the wire (`uint32`) as the `u8` every store and solver type uses.
pub fn moves_u8(value: u32, field: &'static str) -> Result<u8, WireError> {
    u8::try_from(value).map_err(|_| WireError::OverMoveLimit { field, value })
}

/// A campaign's statistics under its name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CampaignStats {
    pub campaign: String,
    pub aggregates: Aggregates,
}

impl From<pb::LeaseRef> for LeaseRef {
    fn from(lease: pb::LeaseRef) -> LeaseRef {
        LeaseRef {
            campaign: lease.campaign,
            unit: lease.unit,
            lease: lease.lease,
        }
    }
}

impl From<LeaseRef> for pb::LeaseRef {
    fn from(lease: LeaseRef) -> pb::LeaseRef {
        pb::LeaseRef {
            campaign: lease.campaign,
            unit: lease.unit,
            lease: lease.lease,
        }
    }
}

impl From<Assignment> for pb::WorkUnit {
    fn from(assignment: Assignment) -> pb::WorkUnit {
        pb::WorkUnit {
            lease: Some(assignment.lease.into()),
            generator: assignment.generator.name().to_string(),
            seed_start: assignment.seeds.start,
            seed_end: assignment.seeds.end,
            record_threshold: assignment.record_threshold.into(),
            top_count: assignment.top_count,
            deadline_unix_ms: assignment.deadline_unix_ms,
        }
    }
}

impl TryFrom<pb::SubmitRequest> for Submission {
    type Error = WireError;

    fn try_from(request: pb::SubmitRequest) -> Result<Submission, WireError> {
        Ok(Submission {
            worker: request.worker_id,
            lease: request.lease.ok_or(WireError::Missing("lease"))?.into(),
            move_counts: request.move_counts,
            robots_moved: request.robots_moved,
            digest: request.digest,
            solutions: request
                .solutions
                .into_iter()
                .map(|s| (s.seed, s.moves))
                .collect(),
        })
    }
}

impl From<Outcome> for pb::SubmitOutcome {
    fn from(outcome: Outcome) -> pb::SubmitOutcome {
        match outcome {
            Outcome::Accepted => pb::SubmitOutcome::Accepted,
            Outcome::Duplicate => pb::SubmitOutcome::Duplicate,
            Outcome::Mismatch => pb::SubmitOutcome::Mismatch,
            Outcome::Verified => pb::SubmitOutcome::Verified,
        }
    }
}

/// A campaign spec from a creation request (both types are foreign here, hence a function).
pub fn spec_from_request(request: pb::CreateCampaignRequest) -> Result<CampaignSpec, WireError> {
    Ok(CampaignSpec {
        name: request.name,
        generator: request.generator,
        seed_start: request.seed_start,
        seed_end: request.seed_end,
        unit_size: request.unit_size,
        record_threshold: moves_u8(request.record_threshold, "record threshold")?,
    })
}

/// The creation request for `spec`.
pub fn create_request(spec: CampaignSpec) -> pb::CreateCampaignRequest {
    pb::CreateCampaignRequest {
        name: spec.name,
        generator: spec.generator,
        seed_start: spec.seed_start,
        seed_end: spec.seed_end,
        unit_size: spec.unit_size,
        record_threshold: spec.record_threshold.into(),
    }
}

impl From<CampaignStatus> for pb::CampaignStatus {
    fn from(status: CampaignStatus) -> pb::CampaignStatus {
        let Campaign {
            spec,
            created_unix_ms,
            ..
        } = status.campaign;
        pb::CampaignStatus {
            campaign: Some(pb::Campaign {
                name: spec.name,
                generator: spec.generator,
                seed_start: spec.seed_start,
                seed_end: spec.seed_end,
                unit_size: spec.unit_size,
                record_threshold: spec.record_threshold.into(),
                created_unix_ms,
            }),
            units_total: status.units_total,
            units_done: status.units_done,
            units_leased: status.units_leased,
            units_quarantined: status.units_quarantined,
            seeds_done: status.seeds_done,
            units_verified: status.units_verified,
            quarantined: status
                .quarantined
                .into_iter()
                .map(|q| pb::QuarantinedUnit {
                    unit: q.unit,
                    failures: q.failures,
                    last_error: q.last_error,
                })
                .collect(),
            mismatches: status
                .mismatches
                .into_iter()
                .map(|m| pb::Mismatch {
                    unit: m.unit,
                    worker_id: m.worker,
                    detail: m.detail,
                })
                .collect(),
            hardest_moves: status.hardest_moves.into(),
            seeds_per_second: status.seeds_per_second,
            seeds_in_progress: status.seeds_in_progress,
        }
    }
}

/// A status from the wire. The campaign's store id is not sent, so it reads 0.
impl TryFrom<pb::CampaignStatus> for CampaignStatus {
    type Error = WireError;

    fn try_from(status: pb::CampaignStatus) -> Result<CampaignStatus, WireError> {
        let campaign = status.campaign.ok_or(WireError::Missing("campaign"))?;
        Ok(CampaignStatus {
            campaign: Campaign {
                id: 0,
                spec: CampaignSpec {
                    name: campaign.name,
                    generator: campaign.generator,
                    seed_start: campaign.seed_start,
                    seed_end: campaign.seed_end,
                    unit_size: campaign.unit_size,
                    record_threshold: moves_u8(campaign.record_threshold, "record threshold")?,
                },
                created_unix_ms: campaign.created_unix_ms,
            },
            units_total: status.units_total,
            units_done: status.units_done,
            units_leased: status.units_leased,
            units_quarantined: status.units_quarantined,
            units_verified: status.units_verified,
            seeds_done: status.seeds_done,
            hardest_moves: moves_u8(status.hardest_moves, "hardest moves")?,
            seeds_per_second: status.seeds_per_second,
            seeds_in_progress: status.seeds_in_progress,
            quarantined: status
                .quarantined
                .into_iter()
                .map(|q| QuarantinedUnit {
                    unit: q.unit,
                    failures: q.failures,
                    last_error: q.last_error,
                })
                .collect(),
            mismatches: status
                .mismatches
                .into_iter()
                .map(|m| Mismatch {
                    unit: m.unit,
                    worker: m.worker_id,
                    detail: m.detail,
                })
                .collect(),
        })
    }
}

impl From<CampaignStats> for pb::Stats {
    fn from(stats: CampaignStats) -> pb::Stats {
        let groups = |groups: BTreeMap<String, Group>| {
            groups
                .into_iter()
                .map(|(group, g)| pb::GroupStats {
                    group,
                    puzzles: g.puzzles,
                    total_moves: g.total_moves,
                    max_moves: g.max_moves.into(),
                })
                .collect()
        };
        let aggregates = stats.aggregates;
        pb::Stats {
            campaign: stats.campaign,
            puzzles: aggregates.puzzles(),
            histogram: aggregates.histogram,
            by_target: groups(aggregates.by_target),
            by_arrangement: groups(aggregates.by_arrangement),
            by_robots_moved: aggregates.by_robots_moved,
        }
    }
}

/// Statistics from the wire; `through_commit` is the coordinator's own and reads 0.
impl TryFrom<pb::Stats> for CampaignStats {
    type Error = WireError;

    fn try_from(stats: pb::Stats) -> Result<CampaignStats, WireError> {
        let groups = |groups: Vec<pb::GroupStats>| {
            groups
                .into_iter()
                .map(|g| {
                    let group = Group {
                        puzzles: g.puzzles,
                        total_moves: g.total_moves,
                        max_moves: moves_u8(g.max_moves, "group maximum moves")?,
                    };
                    Ok((g.group, group))
                })
                .collect::<Result<BTreeMap<_, _>, WireError>>()
        };
        Ok(CampaignStats {
            campaign: stats.campaign,
            aggregates: Aggregates {
                through_commit: 0,
                histogram: stats.histogram,
                by_target: groups(stats.by_target)?,
                by_arrangement: groups(stats.by_arrangement)?,
                by_robots_moved: stats.by_robots_moved,
            },
        })
    }
}

impl From<MinedPuzzle> for pb::MinedPuzzle {
    fn from(puzzle: MinedPuzzle) -> pb::MinedPuzzle {
        pb::MinedPuzzle {
            campaign: puzzle.campaign,
            seed: puzzle.seed,
            moves: puzzle.moves.into(),
            solution: puzzle.solution,
            re_solved: puzzle.re_solved,
        }
    }
}

impl TryFrom<pb::MinedPuzzle> for MinedPuzzle {
    type Error = WireError;

    fn try_from(puzzle: pb::MinedPuzzle) -> Result<MinedPuzzle, WireError> {
        Ok(MinedPuzzle {
            campaign: puzzle.campaign,
            seed: puzzle.seed,
            moves: moves_u8(puzzle.moves, "moves")?,
            solution: puzzle.solution,
            re_solved: puzzle.re_solved,
        })
    }
}

#[cfg(test)]
mod tests;
