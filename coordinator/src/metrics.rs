//! Prometheus metrics of one coordinator, served on the dashboard's `/metrics` (no token).
//!
//! Each [`Coordinator`] owns a [`Metrics`] with its own registry (no process-global
//! recorder), so coordinators sharing a process keep apart. The bookkeeping in `core`
//! counts events as they are stored (units leased, completed, expired, quarantined,
//! mismatched; seeds completed; workers registered); [`RpcMetricsLayer`] times every gRPC
//! call by method and status; the group commit times its flushes; and [`scrape`] fills
//! the gauges that are read rather than counted (each campaign's rate, workers holding
//! leases, the store's size) just before it encodes the OpenMetrics text.

use crate::core::Coordinator;
use crate::limits::BoxedCall;
use crate::stages::StageClock;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use prometheus_client::encoding::text::encode;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::{Registry, Unit};
use rrm_store::StoreError;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tonic::Code;

/// The content type of the exposition `prometheus-client` writes.
const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// The `method` label of calls to paths no service serves: their paths are the callers'
/// choice, and would make a label value each.
const UNKNOWN_METHOD: &str = "unknown";

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CampaignLabel {
    campaign: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RpcLabels {
    /// The gRPC path, e.g. `/rrm.v1.Mining/Lease`.
    method: String,
    /// The status code's name, e.g. `OK`, `NOT_FOUND`.
    code: &'static str,
}

type PerCampaign<M> = Family<CampaignLabel, M>;
type Latencies<L> = Family<L, Histogram, fn() -> Histogram>;

/// Latency buckets from 0.5 ms to 16 s, doubling.
fn latency_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.0005, 2.0, 16))
}

/// One coordinator's metrics and the registry that encodes them.
pub(crate) struct Metrics {
    registry: Registry,
    units_leased: PerCampaign<Counter>,
    units_completed: PerCampaign<Counter>,
    units_expired: PerCampaign<Counter>,
    units_quarantined: PerCampaign<Counter>,
    units_mismatched: PerCampaign<Counter>,
    seeds_completed: PerCampaign<Counter>,
    seeds_per_second: PerCampaign<Gauge<f64, AtomicU64>>,
    workers_registered: Counter,
    identities_distrusted: Counter,
    workers_holding_leases: Gauge,
    registrations: Gauge,
    rpc_duration: Latencies<RpcLabels>,
    flush_duration: Histogram,
    store_size: Gauge,
    stages: StageClock,
}

impl Metrics {
    pub(crate) fn new() -> Metrics {
        let mut registry = Registry::with_prefix("rrm");
        let mut metrics = Metrics {
            stages: StageClock::registered(&mut registry),
            registry,
            units_leased: Family::default(),
            units_completed: Family::default(),
            units_expired: Family::default(),
            units_quarantined: Family::default(),
            units_mismatched: Family::default(),
            seeds_completed: Family::default(),
            seeds_per_second: Family::default(),
            workers_registered: Counter::default(),
            identities_distrusted: Counter::default(),
            workers_holding_leases: Gauge::default(),
            registrations: Gauge::default(),
            rpc_duration: Family::new_with_constructor(latency_histogram),
            flush_duration: latency_histogram(),
            store_size: Gauge::default(),
        };
        let registry = &mut metrics.registry;
        // No help text holds a double quote: OpenMetrics wants it escaped there, and
        // `prometheus-client` escapes nothing in help texts.
        registry.register(
            "units_leased",
            "Leases issued since the coordinator started: fresh units, units leased again, \
             and second opinions on done units",
            metrics.units_leased.clone(),
        );
        registry.register(
            "units_completed",
            "Units whose result was accepted and stored since the coordinator started \
             (imported exhaustive results included)",
            metrics.units_completed.clone(),
        );
        registry.register(
            "units_expired",
            "Leases that ran out without a heartbeat since the coordinator started",
            metrics.units_expired.clone(),
        );
        registry.register(
            "units_quarantined",
            "Units quarantined after too many failures since the coordinator started",
            metrics.units_quarantined.clone(),
        );
        registry.register(
            "units_mismatched",
            "Results for a done unit that differ from its stored one (second opinions, \
             late duplicates and imports) since the coordinator started",
            metrics.units_mismatched.clone(),
        );
        registry.register(
            "identities_distrusted",
            "Identities distrusted since the coordinator started: a result of theirs \
             was proven wrong",
            metrics.identities_distrusted.clone(),
        );
        registry.register(
            "seeds_completed",
            "Seeds in units accepted since the coordinator started (a unit of an \
             exhaustive campaign counts one); rate() of it is the mining speed",
            metrics.seeds_completed.clone(),
        );
        registry.register(
            "seeds_per_second",
            "The coordinator's own rate per campaign at scrape time: seeds accepted over \
             the last minute, per second (0 when idle that long)",
            metrics.seeds_per_second.clone(),
        );
        registry.register(
            "workers_registered",
            "Workers registered since the coordinator started (a restarted worker \
             registers again)",
            metrics.workers_registered.clone(),
        );
        registry.register(
            "workers_holding_leases",
            "Workers holding at least one unexpired lease at scrape time; a worker \
             waiting for work holds none and is not counted",
            metrics.workers_holding_leases.clone(),
        );
        registry.register(
            "registrations",
            "Worker registrations kept at scrape time (capped per token and in all; idle \
             ones without a lease are pruned)",
            metrics.registrations.clone(),
        );
        registry.register_with_unit(
            "rpc_duration",
            "gRPC calls by method and status code, from the request to the response \
             headers; the code is the grpc-status of the headers (errors of unary calls), \
             OK without one, UNKNOWN when no response was made; calls to paths no \
             service serves count under the method unknown",
            Unit::Seconds,
            metrics.rpc_duration.clone(),
        );
        registry.register_with_unit(
            "store_flush_duration",
            "Group commits: one flush of the store to disk, serving every write waiting \
             for it",
            Unit::Seconds,
            metrics.flush_duration.clone(),
        );
        registry.register_with_unit(
            "store_size",
            "The store's size on disk at scrape time",
            Unit::Bytes,
            metrics.store_size.clone(),
        );
        metrics
    }

    fn counter_of(family: &PerCampaign<Counter>, campaign: &str) -> Counter {
        family.get_or_create_owned(&CampaignLabel {
            campaign: campaign.to_string(),
        })
    }

    /// A lease of a unit of `campaign` was stored.
    pub(crate) fn leased(&self, campaign: &str) {
        Self::counter_of(&self.units_leased, campaign).inc();
    }

    /// A unit of `seeds` seeds of `campaign` was accepted and stored.
    pub(crate) fn completed(&self, campaign: &str, seeds: u64) {
        Self::counter_of(&self.units_completed, campaign).inc();
        Self::counter_of(&self.seeds_completed, campaign).inc_by(seeds);
    }

    /// A lease of `campaign` expired.
    pub(crate) fn expired(&self, campaign: &str) {
        Self::counter_of(&self.units_expired, campaign).inc();
    }

    /// A unit of `campaign` was quarantined.
    pub(crate) fn quarantined(&self, campaign: &str) {
        Self::counter_of(&self.units_quarantined, campaign).inc();
    }

    /// A result for a done unit of `campaign` differed from the stored one.
    pub(crate) fn mismatched(&self, campaign: &str) {
        Self::counter_of(&self.units_mismatched, campaign).inc();
    }

    /// An identity was distrusted.
    pub(crate) fn distrusted(&self) {
        self.identities_distrusted.inc();
    }

    /// A worker registered.
    pub(crate) fn registered(&self) {
        self.workers_registered.inc();
    }

    /// A group commit's flush took `took`.
    pub(crate) fn flushed(&self, took: Duration) {
        self.flush_duration.observe(took.as_secs_f64());
    }

    /// Where calls spend their time.
    pub(crate) fn stages(&self) -> &StageClock {
        &self.stages
    }

    /// The layer that times the gRPC calls of a server into these metrics.
    pub(crate) fn rpc_layer(&self) -> RpcMetricsLayer {
        RpcMetricsLayer {
            latencies: self.rpc_duration.clone(),
        }
    }
}

/// The OpenMetrics text of `coordinator`'s metrics, the scrape-time gauges read now.
pub(crate) fn exposition(coordinator: &Coordinator) -> Result<String, StoreError> {
    let metrics = coordinator.metrics();
    let live = coordinator.live_figures();
    for (campaign, rate) in live.rates {
        // Every campaign shows every counter, at 0 until its first event, so that rate()
        // and increase() see that event.
        for family in [
            &metrics.units_leased,
            &metrics.units_completed,
            &metrics.units_expired,
            &metrics.units_quarantined,
            &metrics.units_mismatched,
            &metrics.seeds_completed,
        ] {
            Metrics::counter_of(family, &campaign);
        }
        metrics
            .seeds_per_second
            .get_or_create(&CampaignLabel { campaign })
            .set(rate);
    }
    metrics
        .workers_holding_leases
        .set(i64::try_from(live.workers_holding_leases).unwrap_or(i64::MAX));
    metrics
        .registrations
        .set(i64::try_from(live.registrations).unwrap_or(i64::MAX));
    let bytes = coordinator.store().size_on_disk()?;
    metrics
        .store_size
        .set(i64::try_from(bytes).unwrap_or(i64::MAX));
    let mut text = String::new();
    encode(&mut text, &metrics.registry).expect("writing to a String cannot fail");
    Ok(text)
}

/// `GET /metrics` on the dashboard.
pub(crate) async fn scrape(State(coordinator): State<Arc<Coordinator>>) -> Response {
    match exposition(&coordinator) {
        Ok(text) => ([(header::CONTENT_TYPE, CONTENT_TYPE)], text).into_response(),
        Err(error) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("reading the store's size failed: {error}\n"),
        )
            .into_response(),
    }
}

/// A tower layer for the tonic server: times each call into `rrm_rpc_duration_seconds`.
#[derive(Clone, Debug)]
pub(crate) struct RpcMetricsLayer {
    latencies: Latencies<RpcLabels>,
}

impl<S> tower::Layer<S> for RpcMetricsLayer {
    type Service = RpcMetrics<S>;

    fn layer(&self, inner: S) -> RpcMetrics<S> {
        RpcMetrics {
            inner,
            latencies: self.latencies.clone(),
        }
    }
}

/// The service [`RpcMetricsLayer`] wraps around the server's routes.
#[derive(Clone, Debug)]
pub(crate) struct RpcMetrics<S> {
    inner: S,
    latencies: Latencies<RpcLabels>,
}

impl<S, B, R> tower::Service<http::Request<B>> for RpcMetrics<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<R>>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = BoxedCall<S::Response, S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let started = Instant::now();
        let path = request.uri().path().to_string();
        let call = self.inner.call(request);
        let latencies = self.latencies.clone();
        Box::pin(async move {
            let result = call.await;
            let code = match &result {
                Ok(response) => response
                    .headers()
                    .get("grpc-status")
                    .map_or(Code::Ok, |value| Code::from_bytes(value.as_bytes())),
                Err(_) => Code::Unknown,
            };
            // Only paths of this server become labels: callers cannot add label values.
            let method = if known_method(&path) {
                path
            } else {
                UNKNOWN_METHOD.to_string()
            };
            latencies
                .get_or_create(&RpcLabels {
                    method,
                    code: code_name(code),
                })
                .observe(started.elapsed().as_secs_f64());
            result
        })
    }
}

/// Whether `path` names a method this server serves (rrm.v1, health, reflection).
fn known_method(path: &str) -> bool {
    const OTHERS: [&str; 3] = [
        "/grpc.health.v1.Health/Check",
        "/grpc.health.v1.Health/Watch",
        "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
    ];
    rrm_proto::v1::METHODS.contains(&path) || OTHERS.contains(&path)
}

/// A status code's name as the gRPC specification writes it.
fn code_name(code: Code) -> &'static str {
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "CANCELLED",
        Code::Unknown => "UNKNOWN",
        Code::InvalidArgument => "INVALID_ARGUMENT",
        Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        Code::NotFound => "NOT_FOUND",
        Code::AlreadyExists => "ALREADY_EXISTS",
        Code::PermissionDenied => "PERMISSION_DENIED",
        Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        Code::FailedPrecondition => "FAILED_PRECONDITION",
        Code::Aborted => "ABORTED",
        Code::OutOfRange => "OUT_OF_RANGE",
        Code::Unimplemented => "UNIMPLEMENTED",
        Code::Internal => "INTERNAL",
        Code::Unavailable => "UNAVAILABLE",
        Code::DataLoss => "DATA_LOSS",
        Code::Unauthenticated => "UNAUTHENTICATED",
    }
}
