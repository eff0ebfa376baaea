//! The gRPC edge: `rrm.v1` requests go through `crate::wire` to the coordinator's types
//! and back, and its errors become status codes. No bookkeeping happens here.

use crate::core::{Coordinator, CoordinatorError, LeaseRef, MinedPuzzle, Submission};
use crate::flush::{FlushError, GroupFlush};
use crate::wire::{exhaustive_from_request, moves_u8, spec_from_request};
use rrm_proto::v1 as pb;
use std::future::Future;
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio_stream::wrappers::TcpListenerStream;
use tonic::{Request, Response, Status};

#[derive(Clone)]
struct Service {
    coordinator: Arc<Coordinator>,
    flusher: GroupFlush,
}

pub(crate) async fn serve(
    listener: TcpListener,
    coordinator: Arc<Coordinator>,
    flusher: GroupFlush,
    shutdown: impl Future<Output = ()>,
) -> Result<(), tonic::transport::Error> {
    let service = Service {
        coordinator,
        flusher,
    };
    let (health, health_service) = tonic_health::server::health_reporter();
    health
        .set_serving::<pb::mining_server::MiningServer<Service>>()
        .await;
    health
        .set_serving::<pb::query_server::QueryServer<Service>>()
        .await;
    let reflection = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()
        .expect("the embedded descriptor sets are valid");
    tonic::transport::Server::builder()
        .layer(service.coordinator.metrics().rpc_layer())
        .add_service(health_service)
        .add_service(reflection)
        .add_service(
            pb::mining_server::MiningServer::new(service.clone())
                .max_decoding_message_size(rrm_proto::MAX_MESSAGE),
        )
        .add_service(pb::campaigns_server::CampaignsServer::new(service.clone()))
        .add_service(
            pb::query_server::QueryServer::new(service)
                .max_encoding_message_size(rrm_proto::MAX_MESSAGE),
        )
        .serve_with_incoming_shutdown(TcpListenerStream::new(listener), shutdown)
        .await
}

impl From<CoordinatorError> for Status {
    fn from(error: CoordinatorError) -> Status {
        use CoordinatorError::*;
        let message = error.to_string();
        match error {
            UnknownCampaign(_)
            | UnknownUnit { .. }
            | UnknownLease { .. }
            | SeedOutside { .. }
            | NotMined { .. } => Status::not_found(message),
            UnknownWorker(_) => Status::unauthenticated(message),
            StaleLease { .. } | Quarantined(_) => Status::failed_precondition(message),
            NotYourLease { .. } => Status::permission_denied(message),
            WrongKind { .. } => Status::failed_precondition(message),
            NoSuchUnit { .. } | NotListed { .. } => Status::not_found(message),
            Invalid(_) | InvalidCampaign(_) => Status::invalid_argument(message),
            CampaignExists(_) => Status::already_exists(message),
            ShuttingDown => Status::unavailable(message),
            Store(_) => Status::internal(message),
        }
    }
}

impl From<FlushError> for Status {
    fn from(error: FlushError) -> Status {
        Status::internal(error.to_string())
    }
}

#[tonic::async_trait]
impl pb::mining_server::Mining for Service {
    async fn register(
        &self,
        request: Request<pb::RegisterRequest>,
    ) -> Result<Response<pb::RegisterReply>, Status> {
        let request = request.into_inner();
        let ours = env!("CARGO_PKG_VERSION");
        if request.version != ours {
            return Err(Status::failed_precondition(format!(
                "worker version {:?} does not match coordinator version {ours}",
                request.version
            )));
        }
        let worker_id = self.coordinator.register(request.name.clone());
        tracing::info!(worker_id, name = %request.name, threads = request.threads, "worker registered");
        let config = self.coordinator.config();
        Ok(Response::new(pb::RegisterReply {
            worker_id,
            lease_seconds: config.lease_duration.as_secs().max(1) as u32,
            heartbeat_seconds: config.heartbeat_interval().as_secs().max(1) as u32,
        }))
    }

    async fn lease(
        &self,
        request: Request<pb::LeaseRequest>,
    ) -> Result<Response<pb::LeaseReply>, Status> {
        let worker = request.into_inner().worker_id;
        // Not flushed: a lease lost in a crash only means its unit is leased again (units
        // after the last stored record count as never leased) and its holder's result
        // is refused as naming an unknown lease.
        let assignment = self.coordinator.lease(worker)?;
        Ok(Response::new(pb::LeaseReply {
            retry_after_ms: if assignment.is_none() { 1000 } else { 0 },
            campaigns_done: assignment.is_none() && self.coordinator.campaigns_done(),
            unit: assignment.map(Into::into),
        }))
    }

    async fn heartbeat(
        &self,
        request: Request<pb::HeartbeatRequest>,
    ) -> Result<Response<pb::HeartbeatReply>, Status> {
        let request = request.into_inner();
        let leases: Vec<LeaseRef> = request.leases.into_iter().map(Into::into).collect();
        let (lost, deadline) =
            self.coordinator
                .heartbeat(request.worker_id, &leases, &request.seeds_solved);
        Ok(Response::new(pb::HeartbeatReply {
            lost: lost.into_iter().map(Into::into).collect(),
            deadline_unix_ms: deadline,
        }))
    }

    async fn submit(
        &self,
        request: Request<pb::SubmitRequest>,
    ) -> Result<Response<pb::SubmitReply>, Status> {
        let submission = Submission::try_from(request.into_inner())?;
        let outcome = if self.coordinator.is_quick(&submission) {
            self.coordinator.submit(submission)?
        } else {
            // Re-solving record candidates takes seconds: off the async threads.
            let coordinator = self.coordinator.clone();
            tokio::task::spawn_blocking(move || coordinator.submit(submission))
                .await
                .map_err(|e| Status::internal(format!("checking the submission failed: {e}")))??
        };
        // Acknowledged only once on disk.
        self.flusher.flushed().await?;
        Ok(Response::new(pb::SubmitReply {
            outcome: pb::SubmitOutcome::from(outcome).into(),
        }))
    }
}

#[tonic::async_trait]
impl pb::campaigns_server::Campaigns for Service {
    async fn create_campaign(
        &self,
        request: Request<pb::CreateCampaignRequest>,
    ) -> Result<Response<pb::CampaignStatus>, Status> {
        let request = request.into_inner();
        let status = match exhaustive_from_request(&request)? {
            Some(exhaustive) => self.coordinator.create_exhaustive_campaign(exhaustive)?,
            None => self
                .coordinator
                .create_campaign(spec_from_request(request)?)?,
        };
        self.flusher.flushed().await?;
        Ok(Response::new(status.into()))
    }
}

#[tonic::async_trait]
impl pb::query_server::Query for Service {
    async fn list_campaigns(
        &self,
        _request: Request<pb::ListCampaignsRequest>,
    ) -> Result<Response<pb::ListCampaignsReply>, Status> {
        let campaigns = self
            .coordinator
            .campaign_names()
            .iter()
            .map(|name| self.coordinator.status(name).map(Into::into))
            .collect::<Result<_, _>>()?;
        Ok(Response::new(pb::ListCampaignsReply { campaigns }))
    }

    async fn get_campaign_status(
        &self,
        request: Request<pb::CampaignRequest>,
    ) -> Result<Response<pb::CampaignStatus>, Status> {
        let name = request.into_inner().campaign;
        Ok(Response::new(self.coordinator.status(&name)?.into()))
    }

    async fn get_stats(
        &self,
        request: Request<pb::CampaignRequest>,
    ) -> Result<Response<pb::Stats>, Status> {
        let name = request.into_inner().campaign;
        Ok(Response::new(self.coordinator.stats(&name)?.into()))
    }

    async fn get_hardest(
        &self,
        request: Request<pb::HardestRequest>,
    ) -> Result<Response<pb::HardestReply>, Status> {
        let request = request.into_inner();
        let limit = if request.limit == 0 {
            10
        } else {
            request.limit as usize
        };
        let min_moves = moves_u8(request.min_moves, "minimum moves")?;
        let puzzles = self
            .coordinator
            .hardest(&request.campaign, limit.min(10_000), min_moves)?;
        Ok(Response::new(pb::HardestReply {
            puzzles: puzzles.into_iter().map(Into::into).collect(),
        }))
    }

    async fn find_puzzles(
        &self,
        request: Request<pb::FindPuzzlesRequest>,
    ) -> Result<Response<pb::FindPuzzlesReply>, Status> {
        let request = request.into_inner();
        let moves = moves_u8(request.min_moves, "minimum moves")?
            ..=moves_u8(request.max_moves, "maximum moves")?;
        let limit = (request.limit as usize).clamp(1, 100_000);
        let coordinator = self.coordinator.clone();
        let campaign = request.campaign.clone();
        let found = tokio::task::spawn_blocking(move || {
            coordinator.find_puzzles(&request.campaign, moves, limit)
        })
        .await
        .map_err(|e| Status::internal(e.to_string()))??;
        Ok(Response::new(pb::FindPuzzlesReply {
            puzzles: found
                .into_iter()
                .map(|(seed, moves)| {
                    MinedPuzzle {
                        campaign: campaign.clone(),
                        seed,
                        moves,
                        solution: Vec::new(),
                        re_solved: false,
                    }
                    .into()
                })
                .collect(),
        }))
    }

    async fn find_placements(
        &self,
        request: Request<pb::FindPlacementsRequest>,
    ) -> Result<Response<pb::FindPlacementsReply>, Status> {
        let request = request.into_inner();
        let moves = moves_u8(request.min_moves, "minimum moves")?
            ..=moves_u8(request.max_moves, "maximum moves")?;
        let limit = (request.limit as usize).clamp(1, 100_000);
        let found = self.coordinator.find_placements(
            &request.campaign,
            moves,
            limit,
            request.hardest_only,
        )?;
        Ok(Response::new(pb::FindPlacementsReply {
            placements: found.into_iter().map(Into::into).collect(),
        }))
    }

    async fn get_puzzle(
        &self,
        request: Request<pb::PuzzleRequest>,
    ) -> Result<Response<pb::MinedPuzzle>, Status> {
        let request = request.into_inner();
        let puzzle = self.coordinator.puzzle(&request.campaign, request.seed)?;
        Ok(Response::new(puzzle.into()))
    }
}
