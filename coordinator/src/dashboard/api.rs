//! The dashboard's JSON API (`/api/...`), each answer a typed view of the coordinator's
//! values: a campaign's progress, its statistics (seeds, or an exhaustive campaign's
//! exact distributions) and its record placements. The index page draws from the same
//! progress view, so the page and `campaigns.js` agree.

use super::exhaustive::RECORDS_SHOWN;
use super::{ApiError, Coord};
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Json, Response};
use rrm_model::{Aggregates, CampaignStatus, Distribution, ExactStats, MinedPlacement};
use serde::Serialize;
use std::collections::BTreeMap;

/// One campaign's progress: `/api/campaigns` lists them.
#[derive(Serialize)]
pub(super) struct CampaignJson<'a> {
    pub name: &'a str,
    pub generator: &'a str,
    pub rules: String,
    pub seed_start: u64,
    pub seed_end: u64,
    pub seeds_total: u64,
    pub seeds_done: u64,
    pub seeds_in_progress: u64,
    pub units_total: u64,
    pub units_done: u64,
    pub units_leased: u64,
    pub units_quarantined: u64,
    pub units_verified: u64,
    pub units_to_check: u64,
    pub mismatches: usize,
    pub hardest_moves: u8,
    pub seeds_per_second: f64,
    pub eta_seconds: Option<f64>,
    /// An exhaustive campaign's "seeds" are its units: its progress in placements.
    pub exhaustive: Option<PlacementProgress>,
}

#[derive(Serialize)]
pub(super) struct PlacementProgress {
    pub placements_per_unit: u64,
    pub placements_total: u64,
    pub placements_done: u64,
    pub placements_in_progress: u64,
    pub placements_per_second: f64,
}

impl<'a> CampaignJson<'a> {
    pub fn new(status: &'a CampaignStatus) -> Self {
        let spec = &status.campaign.spec;
        let total = spec.seed_end - spec.seed_start;
        let remaining = total - status.seeds_done;
        let eta =
            (status.seeds_per_second > 0.0).then(|| remaining as f64 / status.seeds_per_second);
        CampaignJson {
            name: spec.name.as_str(),
            generator: &spec.generator,
            rules: spec.rules.to_string(),
            seed_start: spec.seed_start,
            seed_end: spec.seed_end,
            seeds_total: total,
            seeds_done: status.seeds_done,
            seeds_in_progress: status.seeds_in_progress,
            units_total: status.units_total,
            units_done: status.units_done,
            units_leased: status.units_leased,
            units_quarantined: status.units_quarantined,
            units_verified: status.units_verified,
            units_to_check: status.units_to_check,
            mismatches: status.mismatches.len(),
            hardest_moves: status.hardest_moves,
            seeds_per_second: status.seeds_per_second,
            eta_seconds: if remaining == 0 { Some(0.0) } else { eta },
            exhaustive: status
                .placements_per_unit
                .map(|per_unit| PlacementProgress {
                    placements_per_unit: per_unit,
                    placements_total: per_unit * status.units_total,
                    placements_done: per_unit * status.units_done,
                    placements_in_progress: status.seeds_in_progress,
                    placements_per_second: status.seeds_per_second * per_unit as f64,
                }),
        }
    }
}

#[derive(Serialize)]
pub(super) struct CampaignsJson<'a> {
    campaigns: Vec<CampaignJson<'a>>,
}

pub(super) async fn campaigns(State(coordinator): Coord) -> Result<Response, ApiError> {
    let statuses = super::statuses(&coordinator)?;
    let campaigns = statuses.iter().map(CampaignJson::new).collect();
    Ok(Json(CampaignsJson { campaigns }).into_response())
}

/// A seed campaign's statistics.
#[derive(Serialize)]
struct SeedStatsJson<'a> {
    campaign: &'a str,
    puzzles: u64,
    mean: f64,
    median: u8,
    p99: u8,
    max: u8,
    histogram: &'a [u64],
    by_robots_moved: &'a [u64],
}

/// One side (all or legal placements) of an exhaustive distribution.
#[derive(Serialize)]
struct SideJson {
    placements: u64,
    mean: f64,
    max: u8,
    histogram: Vec<u64>,
}

impl SideJson {
    fn new(a: Aggregates) -> Self {
        SideJson {
            placements: a.puzzles(),
            mean: a.mean(),
            max: a.max_moves(),
            histogram: a.histogram,
        }
    }
}

#[derive(Serialize)]
struct DistributionJson<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    group: Option<&'a str>,
    units: u64,
    unsolvable: u64,
    all: SideJson,
    legal: SideJson,
}

impl<'a> DistributionJson<'a> {
    fn new(group: Option<&'a str>, d: &Distribution) -> Self {
        DistributionJson {
            group,
            units: d.units,
            unsolvable: d.unsolvable,
            all: SideJson::new(d.all()),
            legal: SideJson::new(d.legal()),
        }
    }
}

/// An exhaustive campaign's statistics: the distribution overall, by target, by board.
#[derive(Serialize)]
struct ExactStatsJson<'a> {
    campaign: &'a str,
    exhaustive: bool,
    #[serde(flatten)]
    overall: DistributionJson<'a>,
    by_target: Vec<DistributionJson<'a>>,
    by_board: Vec<DistributionJson<'a>>,
}

pub(super) async fn stats(
    State(coordinator): Coord,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    let stats = coordinator.stats(&name)?;
    if let Some(exact) = &stats.exhaustive {
        return Ok(Json(exact_json(&name, exact)).into_response());
    }
    let a = &stats.aggregates;
    Ok(Json(SeedStatsJson {
        campaign: &name,
        puzzles: a.puzzles(),
        mean: a.mean(),
        median: a.percentile(0.5),
        p99: a.percentile(0.99),
        max: a.max_moves(),
        histogram: &a.histogram,
        by_robots_moved: &a.by_robots_moved,
    })
    .into_response())
}

fn exact_json<'a>(name: &'a str, exact: &'a ExactStats) -> ExactStatsJson<'a> {
    let groups = |groups: &'a BTreeMap<String, Distribution>| {
        (groups.iter())
            .map(|(group, d)| DistributionJson::new(Some(group), d))
            .collect()
    };
    ExactStatsJson {
        campaign: name,
        exhaustive: true,
        overall: DistributionJson::new(None, &exact.overall),
        by_target: groups(&exact.by_target),
        by_board: groups(&exact.by_board),
    }
}

#[derive(Serialize)]
struct RecordJson<'a> {
    unit: u64,
    board: &'a str,
    token: &'a str,
    placement: [u8; 4],
    moves: u8,
    solution: &'a [String],
}

#[derive(Serialize)]
struct RecordsJson<'a> {
    campaign: &'a str,
    records: Vec<RecordJson<'a>>,
}

/// `/api/campaign/NAME/records`: the record table, most moves first.
pub(super) async fn records(
    State(coordinator): Coord,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    let found: Vec<MinedPlacement> =
        coordinator.find_placements(&name, 0..=u8::MAX, RECORDS_SHOWN, true)?;
    let records = (found.iter())
        .map(|mined| RecordJson {
            unit: mined.unit,
            board: &mined.board,
            token: &mined.token,
            placement: mined.placement,
            moves: mined.moves,
            solution: &mined.solution,
        })
        .collect();
    Ok(Json(RecordsJson {
        campaign: &name,
        records,
    })
    .into_response())
}

/// The body of an API error.
#[derive(Serialize)]
pub(super) struct ErrorJson {
    pub error: String,
}
