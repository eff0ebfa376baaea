//! Where campaign and query commands get their answers: a local store (`--data DIR`,
//! when no coordinator has it open) or a running coordinator (`--coordinator URL`).

use anyhow::{Context, Result};
use clap::{ArgGroup, Args};
use rrm_coordinator::{CampaignStatus, Coordinator, MinedPuzzle};
use rrm_proto::v1 as pb;
use rrm_store::{Aggregates, Campaign, CampaignSpec, Group, Mismatch};
use std::path::PathBuf;
use std::sync::Arc;
use tonic::transport::Channel;

#[derive(Args, Clone)]
#[command(group(ArgGroup::new("backend").args(["data", "coordinator"])))]
pub struct BackendArgs {
    /// A local store directory (default: ./rrm-data).
    #[arg(long)]
    data: Option<PathBuf>,
    /// A running coordinator's URL, e.g. http://127.0.0.1:7878.
    #[arg(long)]
    coordinator: Option<String>,
}

pub enum Backend {
    Local(Arc<Coordinator>),
    Remote(Box<Remote>),
}

/// gRPC clients of a running coordinator, with the runtime that drives them.
pub struct Remote {
    runtime: tokio::runtime::Runtime,
    campaigns: pb::campaigns_client::CampaignsClient<Channel>,
    query: pb::query_client::QueryClient<Channel>,
}

impl Backend {
    pub fn open(args: &BackendArgs) -> Result<Backend> {
        if let Some(url) = &args.coordinator {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            let channel = runtime
                .block_on(
                    tonic::transport::Endpoint::from_shared(url.clone())
                        .with_context(|| format!("invalid coordinator URL {url:?}"))?
                        .connect(),
                )
                .with_context(|| format!("cannot reach the coordinator at {url}"))?;
            return Ok(Backend::Remote(Box::new(Remote {
                runtime,
                campaigns: pb::campaigns_client::CampaignsClient::new(channel.clone()),
                query: pb::query_client::QueryClient::new(channel)
                    .max_decoding_message_size(rrm_proto::MAX_MESSAGE),
            })));
        }
        let data = args
            .data
            .clone()
            .unwrap_or_else(|| PathBuf::from("rrm-data"));
        let coordinator =
            crate::services::open_coordinator(&data, rrm_coordinator::Config::default())?;
        Ok(Backend::Local(coordinator))
    }

    pub fn create_campaign(&mut self, spec: CampaignSpec) -> Result<CampaignStatus> {
        match self {
            Backend::Local(coordinator) => {
                let status = coordinator.create_campaign(spec)?;
                coordinator.store().flush_blocking()?;
                Ok(status)
            }
            Backend::Remote(remote) => {
                let Remote {
                    runtime, campaigns, ..
                } = &mut **remote;
                let request = pb::CreateCampaignRequest {
                    name: spec.name,
                    generator: spec.generator,
                    seed_start: spec.seed_start,
                    seed_end: spec.seed_end,
                    unit_size: spec.unit_size,
                    record_threshold: spec.record_threshold.into(),
                };
                let reply = runtime
                    .block_on(campaigns.create_campaign(request))
                    .map_err(status_error)?;
                from_pb_status(reply.into_inner())
            }
        }
    }

    pub fn campaigns(&mut self) -> Result<Vec<CampaignStatus>> {
        match self {
            Backend::Local(coordinator) => coordinator
                .campaign_names()
                .iter()
                .map(|name| Ok(coordinator.status(name)?))
                .collect(),
            Backend::Remote(remote) => {
                let Remote { runtime, query, .. } = &mut **remote;
                let reply = runtime
                    .block_on(query.list_campaigns(pb::ListCampaignsRequest {}))
                    .map_err(status_error)?;
                reply
                    .into_inner()
                    .campaigns
                    .into_iter()
                    .map(from_pb_status)
                    .collect()
            }
        }
    }
}

impl Backend {
    /// The campaign to report on: the one named, or the only one there is.
    pub fn campaign_name(&mut self, named: Option<&str>) -> Result<String> {
        if let Some(name) = named {
            return Ok(name.to_string());
        }
        let names: Vec<String> = self
            .campaigns()?
            .into_iter()
            .map(|s| s.campaign.spec.name)
            .collect();
        match names.as_slice() {
            [only] => Ok(only.clone()),
            [] => anyhow::bail!("no campaigns yet; mine some seeds first (`rrm mine`)"),
            _ => anyhow::bail!(
                "several campaigns ({}); choose one with --campaign",
                names.join(", ")
            ),
        }
    }

    pub fn stats(&mut self, name: &str) -> Result<Aggregates> {
        match self {
            Backend::Local(coordinator) => Ok(coordinator.aggregates(name)?),
            Backend::Remote(remote) => {
                let Remote { runtime, query, .. } = &mut **remote;
                let stats = runtime
                    .block_on(query.get_stats(pb::CampaignRequest {
                        campaign: name.to_string(),
                    }))
                    .map_err(status_error)?
                    .into_inner();
                let groups = |groups: Vec<pb::GroupStats>| {
                    groups
                        .into_iter()
                        .map(|g| {
                            let group = Group {
                                puzzles: g.puzzles,
                                total_moves: g.total_moves,
                                max_moves: u8::try_from(g.max_moves).unwrap_or(u8::MAX),
                            };
                            (g.group, group)
                        })
                        .collect()
                };
                Ok(Aggregates {
                    through_commit: 0,
                    histogram: stats.histogram,
                    by_target: groups(stats.by_target),
                    by_arrangement: groups(stats.by_arrangement),
                    by_robots_moved: stats.by_robots_moved,
                })
            }
        }
    }

    pub fn hardest(&mut self, name: &str, limit: usize, min_moves: u8) -> Result<Vec<MinedPuzzle>> {
        match self {
            Backend::Local(coordinator) => Ok(coordinator.hardest(name, limit, min_moves)?),
            Backend::Remote(remote) => {
                let Remote { runtime, query, .. } = &mut **remote;
                let reply = runtime
                    .block_on(query.get_hardest(pb::HardestRequest {
                        campaign: name.to_string(),
                        limit: limit as u32,
                        min_moves: min_moves.into(),
                    }))
                    .map_err(status_error)?;
                Ok(reply
                    .into_inner()
                    .puzzles
                    .into_iter()
                    .map(from_pb_puzzle)
                    .collect())
            }
        }
    }

    /// Mined seeds within `moves`, hardest first then by seed.
    pub fn find_puzzles(
        &mut self,
        name: &str,
        moves: std::ops::RangeInclusive<u8>,
        limit: usize,
    ) -> Result<Vec<(u64, u8)>> {
        match self {
            Backend::Local(coordinator) => Ok(coordinator.find_puzzles(name, moves, limit)?),
            Backend::Remote(remote) => {
                let Remote { runtime, query, .. } = &mut **remote;
                let reply = runtime
                    .block_on(query.find_puzzles(pb::FindPuzzlesRequest {
                        campaign: name.to_string(),
                        min_moves: (*moves.start()).into(),
                        max_moves: (*moves.end()).into(),
                        limit: limit as u32,
                    }))
                    .map_err(status_error)?;
                Ok(reply
                    .into_inner()
                    .puzzles
                    .into_iter()
                    .map(|p| (p.seed, u8::try_from(p.moves).unwrap_or(u8::MAX)))
                    .collect())
            }
        }
    }
}

fn from_pb_puzzle(puzzle: pb::MinedPuzzle) -> MinedPuzzle {
    MinedPuzzle {
        campaign: puzzle.campaign,
        seed: puzzle.seed,
        moves: u8::try_from(puzzle.moves).unwrap_or(u8::MAX),
        solution: puzzle.solution,
        re_solved: puzzle.re_solved,
    }
}

fn status_error(status: tonic::Status) -> anyhow::Error {
    anyhow::anyhow!("coordinator: {} ({:?})", status.message(), status.code())
}

fn from_pb_status(status: pb::CampaignStatus) -> Result<CampaignStatus> {
    let campaign = status
        .campaign
        .context("coordinator sent a status without its campaign")?;
    Ok(CampaignStatus {
        campaign: Campaign {
            id: 0,
            spec: CampaignSpec {
                name: campaign.name,
                generator: campaign.generator,
                seed_start: campaign.seed_start,
                seed_end: campaign.seed_end,
                unit_size: campaign.unit_size,
                record_threshold: u8::try_from(campaign.record_threshold).unwrap_or(u8::MAX),
            },
            created_unix_ms: campaign.created_unix_ms,
        },
        units_total: status.units_total,
        units_done: status.units_done,
        units_leased: status.units_leased,
        units_quarantined: status.units_quarantined,
        units_verified: status.units_verified,
        seeds_done: status.seeds_done,
        hardest_moves: u8::try_from(status.hardest_moves).unwrap_or(u8::MAX),
        seeds_per_second: status.seeds_per_second,
        seeds_in_progress: status.seeds_in_progress,
        quarantined: status
            .quarantined
            .into_iter()
            .map(|q| (q.unit, q.failures, q.last_error))
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
