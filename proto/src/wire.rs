//! The one place where `rrm.v1` messages and the domain types (`rrm_model`) meet:
//! `From` where every value fits, `TryFrom` (refusing with a [`WireError`]) where a wire
//! value may not. The coordinator's gRPC service, the worker and the `rrm` binary's remote
//! backend all convert here, so each side refuses the same values.

use crate::v1 as pb;
use ricochet::rules::Rules;
use rrm_model::{
    Aggregates, Campaign, CampaignName, CampaignSpec, Distrust, ExhaustiveResult, Group, Mismatch,
    NameError, PlacementCells, Resolution, EXHAUSTIVE_FOGLEMAN,
};
use rrm_model::{
    Assignment, CampaignStats, CampaignStatus, Distribution, ExactStats, ExhaustiveRequest,
    ExhaustiveUnit, LeaseRef, MinedPlacement, MinedPuzzle, Outcome, QuarantinedUnit, Submission,
    Work,
};
use std::collections::BTreeMap;

/// Why a message cannot become a domain value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    #[error("a message without its {0}")]
    Missing(&'static str),
    #[error("{field} {value} is over 255")]
    OverMoveLimit { field: &'static str, value: u32 },
    #[error("a placement needs a target robot and three helpers on cells 0 to 255")]
    BadPlacement,
    #[error("legal samples must list depths 1, 2, 3, … in order")]
    LegalSampleDepths,
    #[error(transparent)]
    Solutions(#[from] crate::solutions::SolutionsError),
    #[error(transparent)]
    Name(#[from] NameError),
    #[error(transparent)]
    Generator(#[from] ricochet::UnknownGenerator),
    #[error(transparent)]
    Rules(#[from] ricochet::rules::RulesError),
}

/// A rule set from the wire: empty (a peer that predates rules) is the standard one.
fn rules_from_wire(text: &str) -> Result<Rules, WireError> {
    if text.is_empty() {
        Ok(Rules::STANDARD)
    } else {
        Ok(Rules::parse(text)?)
    }
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

fn placement_cells(placement: pb::Placement) -> Result<PlacementCells, WireError> {
    let cells: Vec<u8> = std::iter::once(placement.target_robot)
        .chain(placement.helpers)
        .map(|cell| u8::try_from(cell).map_err(|_| WireError::BadPlacement))
        .collect::<Result<_, _>>()?;
    cells.try_into().map_err(|_| WireError::BadPlacement)
}

fn placement_message(cells: &PlacementCells) -> pb::Placement {
    pb::Placement {
        target_robot: cells[0].into(),
        helpers: cells[1..].iter().map(|&c| c.into()).collect(),
    }
}

/// An exhaustive result from the wire; sizes are the coordinator's to judge.
pub fn exhaustive_result(result: pb::ExhaustiveResult) -> Result<ExhaustiveResult, WireError> {
    let placements = |list: Vec<pb::Placement>| {
        list.into_iter()
            .map(placement_cells)
            .collect::<Result<Vec<_>, _>>()
    };
    Ok(ExhaustiveResult {
        histogram: result.histogram,
        legal_histogram: result.legal_histogram,
        unsolvable: result.unsolvable,
        max_moves: moves_u8(result.max_moves, "max_moves")?,
        hardest: placements(result.hardest)?,
        top: result
            .top
            .into_iter()
            .map(|d| Ok((moves_u8(d.depth, "depth")?, placements(d.placements)?)))
            .collect::<Result<_, WireError>>()?,
        sample: result
            .sample
            .into_iter()
            .map(|s| {
                let placement = s.placement.ok_or(WireError::Missing("sample placement"))?;
                let moves = s.moves.map(|m| moves_u8(m, "sample moves")).transpose()?;
                Ok((placement_cells(placement)?, moves))
            })
            .collect::<Result<_, WireError>>()?,
        legal_samples: result
            .legal_samples
            .into_iter()
            .enumerate()
            .map(|(index, d)| {
                if d.depth as usize != index + 1 {
                    return Err(WireError::LegalSampleDepths);
                }
                placements(d.placements)
            })
            .collect::<Result<_, WireError>>()?,
        legal_hardest: placements(result.legal_hardest)?,
    })
}

/// The message of an exhaustive result.
pub fn exhaustive_message(result: &ExhaustiveResult) -> pb::ExhaustiveResult {
    let placements = |list: &[PlacementCells]| list.iter().map(placement_message).collect();
    pb::ExhaustiveResult {
        histogram: result.histogram.clone(),
        legal_histogram: result.legal_histogram.clone(),
        unsolvable: result.unsolvable,
        max_moves: result.max_moves.into(),
        hardest: placements(&result.hardest),
        top: result
            .top
            .iter()
            .map(|(depth, list)| pb::DepthPlacements {
                depth: (*depth).into(),
                placements: placements(list),
            })
            .collect(),
        sample: result
            .sample
            .iter()
            .map(|(cells, moves)| pb::SampledPlacement {
                placement: Some(placement_message(cells)),
                moves: moves.map(u32::from),
            })
            .collect(),
        legal_samples: result
            .legal_samples
            .iter()
            .zip(1u32..)
            .map(|(list, depth)| pb::DepthPlacements {
                depth,
                placements: placements(list),
            })
            .collect(),
        legal_hardest: placements(&result.legal_hardest),
        cpu_ms: 0,
    }
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

/// A campaign spec from a creation request (both types are foreign here, hence a function).
pub fn spec_from_request(request: pb::CreateCampaignRequest) -> Result<CampaignSpec, WireError> {
    Ok(CampaignSpec {
        name: CampaignName::new(request.name)?,
        generator: request.generator,
        seed_start: request.seed_start,
        seed_end: request.seed_end,
        unit_size: request.unit_size,
        record_threshold: moves_u8(request.record_threshold, "record threshold")?,
        rules: rules_from_wire(&request.rules)?,
    })
}

/// The creation request for `spec`.
pub fn create_request(spec: CampaignSpec) -> pb::CreateCampaignRequest {
    pb::CreateCampaignRequest {
        name: spec.name.into(),
        generator: spec.generator,
        seed_start: spec.seed_start,
        seed_end: spec.seed_end,
        unit_size: spec.unit_size,
        record_threshold: spec.record_threshold.into(),
        exhaustive: None,
        rules: spec.rules.to_string(),
    }
}

/// The exhaustive campaign a creation request asks for, if it asks for one.
pub fn exhaustive_from_request(
    request: &pb::CreateCampaignRequest,
) -> Result<Option<ExhaustiveRequest>, WireError> {
    let Some(exhaustive) = &request.exhaustive else {
        return Ok(None);
    };
    Ok(Some(ExhaustiveRequest {
        name: CampaignName::new(request.name.clone())?,
        boards: exhaustive.boards.clone(),
        targets: exhaustive.targets.clone(),
        sample_size: exhaustive.sample_size,
        top_from: moves_u8(exhaustive.top_from, "top_from")?,
        top_per_depth: exhaustive.top_per_depth,
        max_hardest: exhaustive.max_hardest,
    }))
}

/// The creation request for an exhaustive campaign.
pub fn exhaustive_create_request(request: ExhaustiveRequest) -> pb::CreateCampaignRequest {
    pb::CreateCampaignRequest {
        name: request.name.into(),
        generator: EXHAUSTIVE_FOGLEMAN.to_string(),
        exhaustive: Some(pb::ExhaustiveCampaign {
            boards: request.boards,
            targets: request.targets,
            sample_size: request.sample_size,
            top_from: request.top_from.into(),
            top_per_depth: request.top_per_depth,
            max_hardest: request.max_hardest,
        }),
        ..Default::default()
    }
}

impl From<MinedPlacement> for pb::MinedPlacement {
    fn from(mined: MinedPlacement) -> pb::MinedPlacement {
        pb::MinedPlacement {
            placement: Some(placement_message(&mined.placement)),
            campaign: mined.campaign,
            unit: mined.unit,
            board: mined.board,
            token: mined.token,
            target_cell: mined.target_cell.into(),
            moves: mined.moves.into(),
            solution: mined.solution,
        }
    }
}

impl TryFrom<pb::MinedPlacement> for MinedPlacement {
    type Error = WireError;

    fn try_from(mined: pb::MinedPlacement) -> Result<MinedPlacement, WireError> {
        let placement = mined.placement.ok_or(WireError::Missing("placement"))?;
        Ok(MinedPlacement {
            campaign: mined.campaign,
            unit: mined.unit,
            board: mined.board,
            token: mined.token,
            target_cell: u8::try_from(mined.target_cell).map_err(|_| WireError::BadPlacement)?,
            placement: placement_cells(placement)?,
            moves: moves_u8(mined.moves, "moves")?,
            solution: mined.solution,
        })
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
                name: spec.name.into(),
                generator: spec.generator,
                seed_start: spec.seed_start,
                seed_end: spec.seed_end,
                unit_size: spec.unit_size,
                record_threshold: spec.record_threshold.into(),
                created_unix_ms,
                rules: spec.rules.to_string(),
            }),
            units_total: status.units_total,
            units_done: status.units_done,
            units_leased: status.units_leased,
            units_quarantined: status.units_quarantined,
            seeds_done: status.seeds_done,
            units_verified: status.units_verified,
            units_to_check: status.units_to_check,
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
                    lease: m.lease,
                    producer: m.producer,
                    verifier: m.verifier,
                    detail: m.detail,
                    resolution: resolution_message(m.resolution).into(),
                })
                .collect(),
            distrusted: status
                .distrusted
                .into_iter()
                .map(|d| pb::DistrustedWorker {
                    identity: d.identity,
                    since_unix_ms: d.since_unix_ms,
                    reason: d.reason,
                })
                .collect(),
            hardest_moves: status.hardest_moves.into(),
            seeds_per_second: status.seeds_per_second,
            seeds_in_progress: status.seeds_in_progress,
            placements_per_unit: status.placements_per_unit,
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
                    name: CampaignName::new(campaign.name)?,
                    generator: campaign.generator,
                    seed_start: campaign.seed_start,
                    seed_end: campaign.seed_end,
                    unit_size: campaign.unit_size,
                    record_threshold: moves_u8(campaign.record_threshold, "record threshold")?,
                    rules: rules_from_wire(&campaign.rules)?,
                },
                created_unix_ms: campaign.created_unix_ms,
            },
            units_total: status.units_total,
            units_done: status.units_done,
            units_leased: status.units_leased,
            units_quarantined: status.units_quarantined,
            units_verified: status.units_verified,
            units_to_check: status.units_to_check,
            seeds_done: status.seeds_done,
            hardest_moves: moves_u8(status.hardest_moves, "hardest moves")?,
            seeds_per_second: status.seeds_per_second,
            seeds_in_progress: status.seeds_in_progress,
            placements_per_unit: status.placements_per_unit,
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
                .map(|m| {
                    Ok(Mismatch {
                        unit: m.unit,
                        lease: m.lease,
                        resolution: resolution_from(m.resolution())?,
                        producer: m.producer,
                        verifier: m.verifier,
                        // Digests stay with the coordinator.
                        digest: [0; 32],
                        detail: m.detail,
                    })
                })
                .collect::<Result<_, WireError>>()?,
            distrusted: status
                .distrusted
                .into_iter()
                .map(|d| Distrust {
                    identity: d.identity,
                    since_unix_ms: d.since_unix_ms,
                    reason: d.reason,
                })
                .collect(),
        })
    }
}

fn resolution_message(resolution: Resolution) -> pb::MismatchResolution {
    match resolution {
        Resolution::Pending => pb::MismatchResolution::Pending,
        Resolution::StoredWon => pb::MismatchResolution::StoredWon,
        Resolution::VerifierWon => pb::MismatchResolution::VerifierWon,
        Resolution::Redone => pb::MismatchResolution::Redone,
    }
}

fn resolution_from(resolution: pb::MismatchResolution) -> Result<Resolution, WireError> {
    Ok(match resolution {
        pb::MismatchResolution::Pending => Resolution::Pending,
        pb::MismatchResolution::StoredWon => Resolution::StoredWon,
        pb::MismatchResolution::VerifierWon => Resolution::VerifierWon,
        pb::MismatchResolution::Redone => Resolution::Redone,
        pb::MismatchResolution::Unspecified => return Err(WireError::Missing("resolution")),
    })
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
                    histogram: g.histogram,
                })
                .collect()
        };
        let distributions = |groups: BTreeMap<String, Distribution>| {
            groups
                .into_iter()
                .map(|(group, d)| distribution_message(group, d))
                .collect()
        };
        let aggregates = stats.aggregates;
        let mut message = pb::Stats {
            campaign: stats.campaign,
            puzzles: aggregates.puzzles(),
            histogram: aggregates.histogram,
            by_target: groups(aggregates.by_target),
            by_arrangement: groups(aggregates.by_arrangement),
            by_robots_moved: aggregates.by_robots_moved,
            ..pb::Stats::default()
        };
        if let Some(exact) = stats.exhaustive {
            let overall = exact.overall;
            message.exhaustive = true;
            message.units = overall.units;
            message.legal_histogram = overall.legal_histogram;
            message.unsolvable = overall.unsolvable;
            message.exact_by_target = distributions(exact.by_target);
            message.exact_by_board = distributions(exact.by_board);
        }
        message
    }
}

fn distribution_message(group: String, d: Distribution) -> pb::Distribution {
    pb::Distribution {
        group,
        units: d.units,
        histogram: d.histogram,
        legal_histogram: d.legal_histogram,
        unsolvable: d.unsolvable,
    }
}

fn distribution(d: pb::Distribution) -> (String, Distribution) {
    let distribution = Distribution {
        units: d.units,
        histogram: d.histogram,
        legal_histogram: d.legal_histogram,
        unsolvable: d.unsolvable,
    };
    (d.group, distribution)
}

/// Statistics from the wire; `through_commit` is the coordinator's own and reads 0. The
/// overall exact histogram is the aggregates' one.
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
                        histogram: g.histogram,
                    };
                    Ok((g.group, group))
                })
                .collect::<Result<BTreeMap<_, _>, WireError>>()
        };
        let exhaustive = stats.exhaustive.then(|| ExactStats {
            overall: Distribution {
                units: stats.units,
                histogram: stats.histogram.clone(),
                legal_histogram: stats.legal_histogram,
                unsolvable: stats.unsolvable,
            },
            by_target: stats
                .exact_by_target
                .into_iter()
                .map(distribution)
                .collect(),
            by_board: stats.exact_by_board.into_iter().map(distribution).collect(),
        });
        Ok(CampaignStats {
            campaign: stats.campaign,
            aggregates: Aggregates {
                through_commit: 0,
                histogram: stats.histogram,
                by_target: groups(stats.by_target)?,
                by_arrangement: groups(stats.by_arrangement)?,
                by_robots_moved: stats.by_robots_moved,
            },
            exhaustive,
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
