//! The mining service's messages: leases, work units as the worker receives them,
//! submissions and their outcomes.

use super::exhaustive::{exhaustive_message, exhaustive_result};
use super::{moves_u8, rules_from_wire, WireError};
use crate::v1 as pb;
use rrm_model::{
    Assignment, ExhaustiveUnit, LeaseRef, Outcome, Submission, Work, EXHAUSTIVE_FOGLEMAN,
};

impl TryFrom<pb::LeaseRef> for LeaseRef {
    type Error = WireError;

    fn try_from(lease: pb::LeaseRef) -> Result<LeaseRef, WireError> {
        Ok(LeaseRef {
            campaign: lease.campaign.try_into()?,
            unit: lease.unit,
            lease: lease.lease,
        })
    }
}

impl From<LeaseRef> for pb::LeaseRef {
    fn from(lease: LeaseRef) -> pb::LeaseRef {
        pb::LeaseRef {
            campaign: lease.campaign.into(),
            unit: lease.unit,
            lease: lease.lease,
        }
    }
}

impl From<Assignment> for pb::WorkUnit {
    fn from(assignment: Assignment) -> pb::WorkUnit {
        let unit = assignment.lease.unit;
        let lease = Some(assignment.lease.into());
        let deadline_unix_ms = assignment.deadline_unix_ms;
        match assignment.work {
            Work::Seeds {
                generator,
                rules,
                seeds,
                record_threshold,
                top_count,
            } => pb::WorkUnit {
                lease,
                generator: generator.name().to_string(),
                rules: rules.to_string(),
                seed_start: seeds.start,
                seed_end: seeds.end,
                record_threshold: record_threshold.into(),
                top_count,
                deadline_unix_ms,
                exhaustive: None,
            },
            Work::Exhaustive(work) => pb::WorkUnit {
                lease,
                generator: EXHAUSTIVE_FOGLEMAN.to_string(),
                seed_start: unit,
                seed_end: unit + 1,
                record_threshold: work.top_from.into(),
                top_count: 0,
                deadline_unix_ms,
                exhaustive: Some(pb::ExhaustiveUnit {
                    board: work.board,
                    token: work.token,
                    sample_size: work.sample_size,
                    top_from: work.top_from.into(),
                    top_per_depth: work.top_per_depth,
                    max_hardest: work.max_hardest,
                }),
                rules: String::new(),
            },
        }
    }
}

/// A unit as the worker receives it.
impl TryFrom<pb::WorkUnit> for Assignment {
    type Error = WireError;

    fn try_from(unit: pb::WorkUnit) -> Result<Assignment, WireError> {
        let work = match unit.exhaustive {
            Some(exhaustive) => Work::Exhaustive(exhaustive_unit(exhaustive)?),
            None => Work::Seeds {
                generator: unit.generator.parse()?,
                rules: rules_from_wire(&unit.rules)?,
                seeds: unit.seed_start..unit.seed_end,
                record_threshold: moves_u8(unit.record_threshold, "record threshold")?,
                top_count: unit.top_count,
            },
        };
        Ok(Assignment {
            lease: unit.lease.ok_or(WireError::Missing("lease"))?.try_into()?,
            work,
            deadline_unix_ms: unit.deadline_unix_ms,
        })
    }
}

/// An exhaustive unit from the wire (the worker's view of [`Work::Exhaustive`]).
pub fn exhaustive_unit(unit: pb::ExhaustiveUnit) -> Result<ExhaustiveUnit, WireError> {
    Ok(ExhaustiveUnit {
        board: unit.board,
        token: unit.token,
        sample_size: unit.sample_size,
        top_from: moves_u8(unit.top_from, "top_from")?,
        top_per_depth: unit.top_per_depth,
        max_hardest: unit.max_hardest,
    })
}

impl TryFrom<pb::SubmitRequest> for Submission {
    type Error = WireError;

    fn try_from(request: pb::SubmitRequest) -> Result<Submission, WireError> {
        Ok(Submission {
            worker: request.worker_id,
            // Set by the service once the call is authenticated.
            identity: String::new(),
            lease: request
                .lease
                .ok_or(WireError::Missing("lease"))?
                .try_into()?,
            move_counts: request.move_counts,
            robots_moved: request.robots_moved,
            digest: request.digest,
            solutions: crate::solutions::unpack(&request.solutions)?,
            cpu_ms: request.exhaustive.as_ref().map_or(0, |e| e.cpu_ms),
            exhaustive: request.exhaustive.map(exhaustive_result).transpose()?,
            // Only the coordinator's gate can tell.
            own_process: false,
        })
    }
}

/// The request that submits `submission` in the worker's session `session`; refused if
/// its kept solutions do not fit in one.
pub fn submit_request(
    submission: Submission,
    session: Vec<u8>,
) -> Result<pb::SubmitRequest, WireError> {
    let cpu_ms = submission.cpu_ms;
    Ok(pb::SubmitRequest {
        worker_id: submission.worker,
        session,
        lease: Some(submission.lease.into()),
        move_counts: submission.move_counts,
        robots_moved: submission.robots_moved,
        digest: submission.digest,
        solutions: crate::solutions::pack(&submission.solutions)?.into(),
        exhaustive: submission.exhaustive.map(|result| pb::ExhaustiveResult {
            cpu_ms,
            ..exhaustive_message(&result)
        }),
    })
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
