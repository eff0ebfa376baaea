//! Where campaign and query commands get their answers: a local store (`--data DIR`,
//! when no coordinator has it open) or a running coordinator (`--coordinator URL`).

use crate::client::access::ClientArgs;
use anyhow::{Context, Result};
use clap::{ArgGroup, Args};
use rrm_coordinator::Coordinator;
use rrm_model::CampaignSpec;
use rrm_model::{CampaignStats, CampaignStatus, ExhaustiveRequest, MinedPlacement, MinedPuzzle};
use rrm_proto::access::AuthChannel;
use rrm_proto::v1 as pb;
use rrm_proto::wire::{create_request, exhaustive_create_request};
use rrm_store::{Store, StoreError};
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(Args, Clone)]
#[command(group(ArgGroup::new("backend").args(["data", "coordinator"])))]
pub struct BackendArgs {
    /// A local store directory (default: ./rrm-data).
    #[arg(long)]
    data: Option<PathBuf>,
    /// A running coordinator's URL, e.g. http://127.0.0.1:7878 or https://….
    #[arg(long, env = "RRM_COORDINATOR")]
    coordinator: Option<String>,
    #[command(flatten)]
    access: ClientArgs,
}

impl BackendArgs {
    /// The local store's directory.
    fn local_dir(&self) -> PathBuf {
        self.data
            .clone()
            .unwrap_or_else(|| PathBuf::from("rrm-data"))
    }
}

/// The longest a query or campaign call may take (pack queries scan whole campaigns).
const CALL_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(600);

pub enum Backend {
    Local(Arc<Coordinator>),
    Remote(Box<Remote>),
}

/// gRPC clients of a running coordinator, with the runtime that drives them.
pub struct Remote {
    runtime: tokio::runtime::Runtime,
    campaigns: pb::campaigns_client::CampaignsClient<AuthChannel>,
    query: pb::query_client::QueryClient<AuthChannel>,
}

impl Backend {
    /// For queries: a local store must exist already, so that a mistyped `--data` fails
    /// rather than look like an empty store.
    pub fn open(args: &BackendArgs) -> Result<Backend> {
        Backend::open_local_with(args, Store::open_existing)
    }

    /// For `campaign create`: a local store is created if there is none yet.
    fn open_or_create(args: &BackendArgs) -> Result<Backend> {
        Backend::open_local_with(args, Store::open)
    }

    fn open_local_with(
        args: &BackendArgs,
        open_store: fn(&Path) -> Result<Store, StoreError>,
    ) -> Result<Backend> {
        if let Some(url) = &args.coordinator {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            let access = args.access.access()?;
            let channel = runtime
                .block_on(access.connect(url, CALL_TIMEOUT))
                .with_context(|| format!("cannot reach the coordinator at {url}"))?;
            return Ok(Backend::Remote(Box::new(Remote {
                runtime,
                campaigns: pb::campaigns_client::CampaignsClient::new(channel.clone()),
                query: pb::query_client::QueryClient::new(channel)
                    .max_decoding_message_size(rrm_proto::MAX_MESSAGE),
            })));
        }
        let store = open_store(&args.local_dir())?;
        let coordinator = Coordinator::open(store, rrm_coordinator::Config::default())?;
        Ok(Backend::Local(Arc::new(coordinator)))
    }

    /// Creates a campaign (see [`Backend::create_campaign`]) where `args` says. A local
    /// store this call had to create is removed again if the campaign is refused: a
    /// mistyped name leaves no `./rrm-data` behind.
    pub fn create_campaign_at(
        args: &BackendArgs,
        spec: Result<CampaignSpec, ExhaustiveRequest>,
    ) -> Result<CampaignStatus> {
        let fresh =
            Some(args.local_dir()).filter(|dir| args.coordinator.is_none() && !dir.exists());
        let created =
            Backend::open_or_create(args).and_then(|mut backend| backend.create_campaign(spec));
        if let (Err(_), Some(dir)) = (&created, fresh) {
            let _ = std::fs::remove_dir_all(dir);
        }
        created
    }

    /// Creates a seed campaign (`Ok`) or an exhaustive one (`Err`).
    pub fn create_campaign(
        &mut self,
        spec: Result<CampaignSpec, ExhaustiveRequest>,
    ) -> Result<CampaignStatus> {
        match self {
            Backend::Local(coordinator) => {
                let status = match spec {
                    Ok(spec) => coordinator.create_campaign(spec)?,
                    Err(exhaustive) => coordinator.create_exhaustive_campaign(exhaustive)?,
                };
                coordinator.store().flush_blocking()?;
                Ok(status)
            }
            Backend::Remote(remote) => {
                let Remote {
                    runtime, campaigns, ..
                } = &mut **remote;
                let request = match spec {
                    Ok(spec) => create_request(spec),
                    Err(exhaustive) => exhaustive_create_request(exhaustive),
                };
                let reply = runtime
                    .block_on(campaigns.create_campaign(request))
                    .map_err(status_error)?;
                Ok(reply.into_inner().try_into()?)
            }
        }
    }

    /// Releases quarantined units of campaign `name` (only `unit`, if given); returns
    /// the units released.
    pub fn retry(&mut self, name: &str, unit: Option<u64>) -> Result<Vec<u64>> {
        match self {
            Backend::Local(coordinator) => {
                let released = coordinator.retry(name, unit)?;
                coordinator.store().flush_blocking()?;
                Ok(released)
            }
            Backend::Remote(remote) => {
                let Remote {
                    runtime, campaigns, ..
                } = &mut **remote;
                let request = pb::RetryUnitsRequest {
                    campaign: name.to_string(),
                    unit,
                };
                let reply = runtime
                    .block_on(campaigns.retry_units(request))
                    .map_err(status_error)?;
                Ok(reply.into_inner().released)
            }
        }
    }

    /// Clears a distrusted identity; whether it was distrusted.
    pub fn trust(&mut self, identity: &str) -> Result<bool> {
        match self {
            Backend::Local(coordinator) => {
                let cleared = coordinator.trust(identity)?;
                coordinator.store().flush_blocking()?;
                Ok(cleared)
            }
            Backend::Remote(remote) => {
                let Remote {
                    runtime, campaigns, ..
                } = &mut **remote;
                let request = pb::TrustWorkerRequest {
                    identity: identity.to_string(),
                };
                let reply = runtime
                    .block_on(campaigns.trust_worker(request))
                    .map_err(status_error)?;
                Ok(reply.into_inner().cleared)
            }
        }
    }

    /// The local coordinator, for what only a local store allows (imports).
    pub fn local(&self, what: &str) -> Result<&Coordinator> {
        match self {
            Backend::Local(coordinator) => Ok(coordinator),
            Backend::Remote(_) => anyhow::bail!("{what} needs a local store (--data DIR)"),
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
                    .map(|status| Ok(status.try_into()?))
                    .collect()
            }
        }
    }
}

impl Backend {
    /// The progress and spec of campaign `name`.
    pub fn status(&mut self, name: &str) -> Result<CampaignStatus> {
        self.campaigns()?
            .into_iter()
            .find(|s| s.campaign.spec.name == name)
            .with_context(|| format!("unknown campaign {name:?}"))
    }

    /// The campaign to report on: the one named, or the only one there is.
    pub fn campaign_name(&mut self, named: Option<&str>) -> Result<String> {
        if let Some(name) = named {
            return Ok(name.to_string());
        }
        let names: Vec<String> = self
            .campaigns()?
            .into_iter()
            .map(|s| s.campaign.spec.name.into())
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

    pub fn stats(&mut self, name: &str) -> Result<CampaignStats> {
        match self {
            Backend::Local(coordinator) => Ok(coordinator.stats(name)?),
            Backend::Remote(remote) => {
                let Remote { runtime, query, .. } = &mut **remote;
                let stats = runtime
                    .block_on(query.get_stats(pb::CampaignRequest {
                        campaign: name.to_string(),
                    }))
                    .map_err(status_error)?
                    .into_inner();
                Ok(CampaignStats::try_from(stats)?)
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
                reply
                    .into_inner()
                    .puzzles
                    .into_iter()
                    .map(|puzzle| Ok(puzzle.try_into()?))
                    .collect()
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
                reply
                    .into_inner()
                    .puzzles
                    .into_iter()
                    .map(|puzzle| {
                        let puzzle = MinedPuzzle::try_from(puzzle)?;
                        Ok((puzzle.seed, puzzle.moves))
                    })
                    .collect()
            }
        }
    }
}

impl Backend {
    /// Placements of an exhaustive campaign within `moves`, hardest first.
    pub fn find_placements(
        &mut self,
        name: &str,
        moves: std::ops::RangeInclusive<u8>,
        limit: usize,
        hardest_only: bool,
    ) -> Result<Vec<MinedPlacement>> {
        match self {
            Backend::Local(coordinator) => {
                Ok(coordinator.find_placements(name, moves, limit, hardest_only)?)
            }
            Backend::Remote(remote) => {
                let Remote { runtime, query, .. } = &mut **remote;
                let reply = runtime
                    .block_on(query.find_placements(pb::FindPlacementsRequest {
                        campaign: name.to_string(),
                        min_moves: (*moves.start()).into(),
                        max_moves: (*moves.end()).into(),
                        limit: limit as u32,
                        hardest_only,
                    }))
                    .map_err(status_error)?;
                reply
                    .into_inner()
                    .placements
                    .into_iter()
                    .map(|placement| Ok(placement.try_into()?))
                    .collect()
            }
        }
    }
}

fn status_error(status: tonic::Status) -> anyhow::Error {
    anyhow::anyhow!("coordinator: {} ({:?})", status.message(), status.code())
}
