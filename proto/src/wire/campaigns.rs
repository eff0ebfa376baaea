//! Campaigns: creation requests (seed and exhaustive campaigns) and a campaign's status.

use super::{moves_u8, rules_from_wire, WireError};
use crate::v1 as pb;
use rrm_model::{
    Campaign, CampaignName, CampaignSpec, CampaignStatus, Distrust, ExhaustiveRequest, Mismatch,
    QuarantinedUnit, Resolution, EXHAUSTIVE_FOGLEMAN,
};

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
