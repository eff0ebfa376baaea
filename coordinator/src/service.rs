//! The gRPC edge: `rrm.v1` requests go through `rrm_proto::wire` to the coordinator's types
//! and back, and its errors become status codes. No bookkeeping happens here.

use crate::auth::{Caller, Gate, Roles};
use crate::budget::SubmitBudgetLayer;
use crate::connections::{ConnectionLimits, Incoming};
use crate::core::{
    Coordinator, CoordinatorError, Counts, Rejection, Remaining, Session, Worker, HARDEST_SHOWN,
};
use crate::flush::{FlushError, GroupFlush};
use crate::limits::CallLimitLayer;
use crate::names::check_name;
use crate::refusals::RefusalLog;
use crate::stages::Stage;
use crate::Security;
use rrm_model::{CampaignName, LeaseRef, MinedPuzzle, Submission, UNSOLVED};
use rrm_proto::v1 as pb;
use rrm_proto::wire::{exhaustive_from_request, moves_u8, spec_from_request, WireError};
use std::future::Future;
use std::sync::Arc;
use std::time::Instant;
use tokio::net::TcpListener;
use tonic::service::interceptor::InterceptedService;
use tonic::{Request, Response, Status};
use tracing::field::Empty;
use tracing::Span;

#[derive(Clone)]
struct Service {
    coordinator: Arc<Coordinator>,
    flusher: GroupFlush,
    /// Submissions being checked: each takes a permit before its blocking thread.
    checking: Arc<tokio::sync::Semaphore>,
}

/// The sockets the coordinator serves: gRPC, and perhaps a plaintext health-only one.
pub(crate) struct Listeners {
    pub grpc: TcpListener,
    pub health: Option<TcpListener>,
}

pub(crate) async fn serve(
    listeners: Listeners,
    coordinator: Arc<Coordinator>,
    flusher: GroupFlush,
    security: Security,
    shutdown: impl Future<Output = ()>,
) -> Result<(), tonic::transport::Error> {
    let config = coordinator.config().clone();
    let service = Service {
        coordinator,
        flusher,
        checking: Arc::new(tokio::sync::Semaphore::new(config.max_checking.max(1))),
    };
    let (health, health_service) = tonic_health::server::health_reporter();
    set_health(&health, true).await;
    let watcher = tokio::spawn(crate::resume::watch(
        service.coordinator.clone(),
        health.clone(),
    ));
    let reflection = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()
        .expect("the embedded descriptor sets are valid");
    let metrics = service.coordinator.metrics().rpc_layer();
    let incoming = Incoming::new(listeners.grpc, config.connections);
    let refusals = Arc::new(RefusalLog::default());
    let gate = |roles, name| {
        Gate::new(security.keyring.clone(), roles, name)
            .on_listener(incoming.prover(), refusals.clone())
    };
    let mining = pb::mining_server::MiningServer::new(service.clone())
        .max_decoding_message_size(rrm_proto::MAX_MINING_MESSAGE);
    let query = pb::query_server::QueryServer::new(service.clone())
        .max_encoding_message_size(rrm_proto::MAX_MESSAGE);
    let campaigns = pb::campaigns_server::CampaignsServer::new(service);

    // Probes make no gated call: their listener has no grace.
    let probe_limits = ConnectionLimits {
        grace: None,
        ..config.connections
    };
    let probes = listeners.health.map(|listener| {
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tonic::transport::Server::builder()
            .add_service(health_service.clone())
            .serve_with_incoming_shutdown(Incoming::new(listener, probe_limits), async {
                let _ = stopped.await;
            });
        (stop, tokio::spawn(server))
    });
    let mut builder = tonic::transport::Server::builder();
    if let Some(tls) = &security.tls {
        builder = builder.tls_config(tls.grpc())?;
    }
    let served = builder
        // Dead peers are found by pings; silent ones are closed by `Incoming`.
        .http2_keepalive_interval(Some(KEEPALIVE_INTERVAL))
        .http2_keepalive_timeout(Some(KEEPALIVE_TIMEOUT))
        .initial_stream_window_size(Some(RECEIVE_WINDOW))
        .initial_connection_window_size(Some(RECEIVE_WINDOW))
        .concurrency_limit_per_connection(config.max_requests_per_connection)
        .load_shed(true)
        .timeout(config.request_timeout)
        .layer(metrics)
        .layer(CallLimitLayer::new(config.max_requests))
        .layer(SubmitBudgetLayer::new(
            config.submit_budget,
            config.submit_wait,
            config.submit_body_time,
        ))
        .add_service(health_service)
        .add_service(reflection)
        .add_service(InterceptedService::new(
            mining,
            gate(Roles::Worker, "Mining"),
        ))
        .add_service(InterceptedService::new(
            campaigns,
            gate(Roles::Admin, "Campaigns"),
        ))
        .add_service(InterceptedService::new(query, gate(Roles::Reader, "Query")))
        .serve_with_incoming_shutdown(incoming, async {
            shutdown.await;
            // Probes see the drain, so no new work is routed here.
            set_health(&health, false).await;
        })
        .await;
    watcher.abort();
    if let Some((stop, server)) = probes {
        let _ = stop.send(());
        let _ = server.await;
    }
    served
}

/// Says whether the coordinator serves, for the whole server (the service name `""`,
/// which Kubernetes' gRPC probes ask by default) and for each service.
pub(crate) async fn set_health(health: &tonic_health::server::HealthReporter, serving: bool) {
    use tonic::server::NamedService;
    use tonic_health::ServingStatus;
    let status = match serving {
        true => ServingStatus::Serving,
        false => ServingStatus::NotServing,
    };
    for name in ["", MiningServer::NAME, QueryServer::NAME] {
        health.set_service_status(name, status).await;
    }
}

/// The server pings a connection this often, and drops it when no answer comes within
/// the timeout.
const KEEPALIVE_INTERVAL: std::time::Duration = std::time::Duration::from_secs(30);
const KEEPALIVE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(20);
/// What a connection may send before the coordinator reads it: a Submit waiting for the
/// budget holds no more than this (hyper's default is 1 MiB), and an honest Submit of a
/// few kB is never slowed.
const RECEIVE_WINDOW: u32 = 128 << 10;

type MiningServer = pb::mining_server::MiningServer<Service>;
type QueryServer = pb::query_server::QueryServer<Service>;

/// Bytes of an error message a status carries at most: messages echo what clients sent
/// (names, versions), and a client must not make the coordinator send, or log, megabytes.
const MESSAGE_BOUND: usize = 512;

/// `text` cut to [`MESSAGE_BOUND`] bytes (at a character boundary), saying how long it was.
fn clipped(text: String) -> String {
    if text.len() <= MESSAGE_BOUND {
        return text;
    }
    let cut = (0..=MESSAGE_BOUND - 40)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    format!("{}… ({} bytes in all)", &text[..cut], text.len())
}

impl From<CoordinatorError> for Status {
    fn from(error: CoordinatorError) -> Status {
        use CoordinatorError::*;
        let message = clipped(error.to_string());
        match error {
            UnknownCampaign(_)
            | UnknownUnit { .. }
            | UnknownLease { .. }
            | SeedOutside { .. }
            | NotMined { .. } => Status::not_found(message),
            UnknownWorker(_) => Status::unauthenticated(message),
            NotYourWorker(_) | Distrusted(_) => Status::permission_denied(message),
            NotQuarantined(_) => Status::failed_precondition(message),
            StaleLease { .. } | Quarantined(_) => Status::failed_precondition(message),
            NotYourLease { .. } => Status::permission_denied(message),
            WrongKind { .. } => Status::failed_precondition(message),
            NoSuchUnit { .. } | NotListed { .. } | UnitNotDone { .. } => Status::not_found(message),
            Invalid(_) | InvalidCampaign(_) => Status::invalid_argument(message),
            CampaignTooLarge { .. } => Status::resource_exhausted(message),
            CampaignExists(_) => Status::already_exists(message),
            ShuttingDown => Status::unavailable(message),
            DiskLow { .. } | LeaseQuota { .. } | TooManyRegistrations { .. } => {
                Status::resource_exhausted(message)
            }
            Store(error) if error.is_disk_full() => Status::resource_exhausted(message),
            Store(error) if error.is_transient() => Status::unavailable(message),
            Store(_) | OwnAnalysis(_) => Status::internal(message),
        }
    }
}

impl From<FlushError> for Status {
    fn from(error: FlushError) -> Status {
        match &error {
            FlushError::Failed(store) if store.is_disk_full() => {
                Status::resource_exhausted(error.to_string())
            }
            FlushError::Failed(store) if store.is_transient() => {
                Status::unavailable(error.to_string())
            }
            FlushError::TimedOut(_) => Status::unavailable(error.to_string()),
            _ => Status::internal(error.to_string()),
        }
    }
}

impl Service {
    /// Refuses a seed unit's Submit whose shape its unit rules out, before it is
    /// unpacked: move counts not one per seed, more solutions than the unit keeps plus
    /// its record candidates, or a solution beyond the coordinator's move limit. A Submit
    /// of millions of moves costs its message's bytes, not tens of times more.
    fn check_bounds(&self, request: &pb::SubmitRequest) -> Result<(), Status> {
        let Some(lease) = &request.lease else {
            return Ok(()); // refused by the conversion
        };
        let lease: LeaseRef = lease.clone().try_into()?;
        let Some(bounds) = self.coordinator.submit_bounds(&lease)? else {
            return Ok(());
        };
        if request.move_counts.len() != bounds.seeds {
            return Err(CoordinatorError::from(Rejection::WrongLength {
                unit: lease.unit,
                counts: Counts::Moves,
                expected: bounds.seeds,
                got: request.move_counts.len(),
            })
            .into());
        }
        let candidates = (request.move_counts.iter())
            .filter(|&&c| c != UNSOLVED && c >= bounds.record_threshold)
            .count();
        let allowed = bounds.kept + candidates;
        rrm_proto::solutions::check_shape(&request.solutions, allowed, bounds.max_line)
            .map_err(|error| Status::invalid_argument(error.to_string()))
    }

    /// The worker a Mining call speaks for: its id and session must match a
    /// registration, and with tokens the caller's token must be the one that registered
    /// it. A worker id alone (they are public) is never enough.
    fn worker(
        &self,
        caller: Option<&Caller>,
        worker: u64,
        session: &[u8],
    ) -> Result<Worker, Status> {
        let secret = session
            .try_into()
            .map_err(|_| CoordinatorError::UnknownWorker(worker))?;
        Ok(self.coordinator.authenticate(
            &Session { worker, secret },
            caller.map(|caller| caller.name.as_str()),
        )?)
    }
}

/// Who made an admin call, for the log: the token's name, or "anyone" without tokens.
fn caller_name<T>(request: &Request<T>) -> String {
    request
        .extensions()
        .get::<Caller>()
        .map_or_else(|| "anyone".to_string(), |caller| caller.name.clone())
}

/// The span of one call, carrying what it is about; fields unknown at the start are
/// filled in once known.
fn rpc_span(method: &'static str) -> Span {
    tracing::info_span!(
        "rpc",
        method,
        worker = Empty,
        campaign = Empty,
        unit = Empty
    )
}

#[tonic::async_trait]
impl pb::mining_server::Mining for Service {
    async fn register(
        &self,
        request: Request<pb::RegisterRequest>,
    ) -> Result<Response<pb::RegisterReply>, Status> {
        let caller = request.extensions().get::<Caller>().cloned();
        let request = request.into_inner();
        check_name("worker name", &request.name)?;
        let ours = env!("CARGO_PKG_VERSION");
        if request.version != ours {
            return Err(Status::failed_precondition(clipped(format!(
                "worker version {:?} does not match coordinator version {ours}",
                request.version
            ))));
        }
        // With tokens, the token's name is the worker's identity; what it calls itself
        // is only logged.
        let session = self.coordinator.register(
            caller.map(|caller| caller.name),
            &request.name,
            request.threads,
        )?;
        let worker = self.worker(None, session.worker, &session.secret)?;
        let span = rpc_span("Register");
        span.record("worker", worker.identity.as_str());
        span.in_scope(|| {
            tracing::info!(worker_id = worker.id, instance = %request.name, threads = request.threads, "worker registered")
        });
        let config = self.coordinator.config();
        Ok(Response::new(pb::RegisterReply {
            worker_id: session.worker,
            session: session.secret.to_vec(),
            lease_seconds: config.lease_duration.as_secs().max(1) as u32,
            heartbeat_seconds: config.heartbeat_interval().as_secs().max(1) as u32,
        }))
    }

    async fn lease(
        &self,
        request: Request<pb::LeaseRequest>,
    ) -> Result<Response<pb::LeaseReply>, Status> {
        let started = Instant::now();
        let span = rpc_span("Lease");
        let worker = self.worker(
            request.extensions().get(),
            request.get_ref().worker_id,
            &request.get_ref().session,
        )?;
        span.record("worker", worker.identity.as_str());
        // Not flushed: a lease lost in a crash only means its unit is leased again (units
        // after the last stored record count as never leased) and its holder's result
        // is refused as naming an unknown lease.
        let assignment = self.coordinator.lease(&worker)?;
        if let Some(assignment) = &assignment {
            span.record("campaign", assignment.lease.campaign.as_str());
            span.record("unit", assignment.lease.unit);
            span.in_scope(|| tracing::debug!(lease = assignment.lease.lease, "leased"));
        }
        let stages = self.coordinator.metrics().stages();
        stages.since(Stage::LeaseCall, started);
        let remaining = match assignment {
            Some(_) => Remaining::Work,
            None => self.coordinator.remaining_for(&worker.identity),
        };
        Ok(Response::new(pb::LeaseReply {
            retry_after_ms: if assignment.is_none() { 1000 } else { 0 },
            campaigns_done: remaining == Remaining::Nothing,
            only_others_checks_left: remaining == Remaining::OthersChecks,
            unit: assignment.map(Into::into),
        }))
    }

    async fn heartbeat(
        &self,
        request: Request<pb::HeartbeatRequest>,
    ) -> Result<Response<pb::HeartbeatReply>, Status> {
        let span = rpc_span("Heartbeat");
        let worker = self.worker(
            request.extensions().get(),
            request.get_ref().worker_id,
            &request.get_ref().session,
        )?;
        span.record("worker", worker.identity.as_str());
        let request = request.into_inner();
        let leases = (request.leases.into_iter())
            .map(LeaseRef::try_from)
            .collect::<Result<Vec<_>, _>>()?;
        let (lost, deadline) = self
            .coordinator
            .heartbeat(&worker, &leases, &request.seeds_solved);
        if !lost.is_empty() {
            span.in_scope(|| tracing::debug!(lost = lost.len(), "leases lost"));
        }
        Ok(Response::new(pb::HeartbeatReply {
            lost: lost.into_iter().map(Into::into).collect(),
            deadline_unix_ms: deadline,
        }))
    }

    async fn submit(
        &self,
        request: Request<pb::SubmitRequest>,
    ) -> Result<Response<pb::SubmitReply>, Status> {
        let started = Instant::now();
        let span = rpc_span("Submit");
        let caller = request.extensions().get::<Caller>();
        let own_process = caller.is_some_and(|caller| caller.own_process);
        let worker = self.worker(
            caller,
            request.get_ref().worker_id,
            &request.get_ref().session,
        )?;
        span.record("worker", worker.identity.as_str());
        let request = request.into_inner();
        self.check_bounds(&request)?;
        let mut submission = Submission::try_from(request)?;
        submission.identity = worker.identity;
        submission.own_process = own_process;
        span.record("campaign", submission.lease.campaign.as_str());
        span.record("unit", submission.lease.unit);
        // Submissions have seeds solved again (record candidates; spot checks unless from
        // this process's own worker): off the async threads.
        let stages = self.coordinator.metrics().stages();
        let asked = Instant::now();
        let permit = self
            .checking
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| Status::unavailable("the coordinator is stopping"))?;
        let permitted = Instant::now();
        stages.record(Stage::CheckPermit, permitted - asked);
        let coordinator = self.coordinator.clone();
        let checking = span.clone();
        let outcome = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let started = Instant::now();
            let stages = coordinator.metrics().stages();
            stages.record(Stage::BlockingQueue, started - permitted);
            let outcome = checking.in_scope(|| coordinator.submit(submission));
            stages.since(Stage::Checking, started);
            outcome
        })
        .await
        .map_err(|e| Status::internal(format!("checking the submission failed: {e}")))??;
        // Acknowledged only once on disk.
        self.flusher.flushed().await?;
        stages.since(Stage::SubmitCall, started);
        span.in_scope(|| tracing::debug!(?outcome, "submitted"));
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
        let caller = caller_name(&request);
        let request = request.into_inner();
        let name: CampaignName = request.name.parse().map_err(WireError::from)?;
        let span = rpc_span("CreateCampaign");
        span.record("campaign", name.as_str());
        let status = match exhaustive_from_request(&request)? {
            Some(exhaustive) => self.coordinator.create_exhaustive_campaign(exhaustive)?,
            None => self
                .coordinator
                .create_campaign(spec_from_request(request)?)?,
        };
        self.flusher.flushed().await?;
        span.in_scope(|| tracing::info!(by = caller.as_str(), "campaign created"));
        Ok(Response::new(status.into()))
    }

    async fn retry_units(
        &self,
        request: Request<pb::RetryUnitsRequest>,
    ) -> Result<Response<pb::RetryUnitsReply>, Status> {
        let caller = caller_name(&request);
        let request = request.into_inner();
        let name: CampaignName = request.campaign.parse().map_err(WireError::from)?;
        let span = rpc_span("RetryUnits");
        span.record("campaign", name.as_str());
        let released = self.coordinator.retry(&name, request.unit)?;
        self.flusher.flushed().await?;
        span.in_scope(|| {
            tracing::info!(
                by = caller.as_str(),
                units = released.len(),
                "quarantined units released"
            )
        });
        Ok(Response::new(pb::RetryUnitsReply { released }))
    }

    async fn trust_worker(
        &self,
        request: Request<pb::TrustWorkerRequest>,
    ) -> Result<Response<pb::TrustWorkerReply>, Status> {
        let caller = caller_name(&request);
        let identity = request.into_inner().identity;
        check_name("identity", &identity)?;
        let cleared = self.coordinator.trust(&identity)?;
        self.flusher.flushed().await?;
        tracing::info!(
            by = caller.as_str(),
            identity,
            cleared,
            "identity trusted again"
        );
        Ok(Response::new(pb::TrustWorkerReply { cleared }))
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
        let limit = self.coordinator.config().query_limit(request.limit);
        let min_moves = moves_u8(request.min_moves, "minimum moves")?;
        let puzzles =
            self.coordinator
                .hardest(&request.campaign, limit.min(HARDEST_SHOWN), min_moves)?;
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
        let limit = self.coordinator.config().query_limit(request.limit);
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
        let limit = self.coordinator.config().query_limit(request.limit);
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
