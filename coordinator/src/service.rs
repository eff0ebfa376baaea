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

mod campaigns;
mod mining;

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
