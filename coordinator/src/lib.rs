//! The rrm coordinator: hands seed ranges of campaigns to workers over gRPC, checks and
//! stores their results durably, and answers queries about them.
//!
//! [`run`] serves the `Mining`, `Campaigns` and `Query` services of `rrm.v1` plus gRPC
//! health and reflection on one listener until `shutdown` completes, then stops leasing,
//! drains in-flight calls (bounded by [`Config::drain_timeout`]) and flushes the store.
//! [`dashboard::serve`] serves the read-only web dashboard beside it, with the Prometheus
//! metrics of the coordinator on `/metrics`.

pub mod auth;
mod budget;
mod connections;
mod core;
pub mod dashboard;
mod flush;
mod limits;
mod metrics;
pub mod names;
mod refusals;
mod resume;
mod service;
pub mod stages;
pub mod tls;

pub use crate::core::{
    verify_store, Coordinator, CoordinatorError, Counts, DiskReserve, DoneUnit, PlacementList,
    Provenance, QuotaLimit, ReSolving, Rejection, Remaining, Session, SpaceProbe, SubmitBounds,
    UnitBoard, VerifyReport, Worker, CONFIRMED_BY_COORDINATOR, IMPORTED, IMPORT_RESOLVE_BUDGET,
    RESOLVE_BUDGET, SETTLE_BUDGET, SPOT_SHARE,
};

pub use connections::ConnectionLimits;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;

/// The span of seeds [`Config::top_count`] is given for.
pub const KEPT_PER: u64 = 10_000;

/// How many hardest seeds of a unit of `unit_size` seeds keep their solutions: `top_count`
/// per [`KEPT_PER`] seeds begun, so that the kept puzzles' density does not depend on
/// the unit size.
pub fn kept_per_unit(top_count: u32, unit_size: u64) -> u32 {
    let spans = unit_size.div_ceil(KEPT_PER).max(1);
    u32::try_from(u64::from(top_count) * spans).unwrap_or(u32::MAX)
}

/// How the coordinator runs.
#[derive(Clone, Debug)]
pub struct Config {
    /// How long a lease lasts without a heartbeat.
    pub lease_duration: Duration,
    /// A unit failing this often (expired leases, refused results) is quarantined.
    pub max_failures: u32,
    /// Share of an established identity's units checked, on a secret schedule per
    /// identity whose runs of unchecked units stay under about `1.5 / verify_share` (see
    /// `core::replication`): a seed unit by the coordinator solving it in full, an
    /// exhaustive one by another identity the coordinator picks, whose digest must agree.
    pub verify_share: f64,
    /// Exhaustive units whose maximum is this many moves or more are always checked by
    /// another identity: a record candidate never rests on one computation.
    pub verify_from_moves: u8,
    /// Share of the exhaustive checks that agree with the stored analysis which the
    /// coordinator analyses itself before counting them, drawn in secret (always, when the
    /// producer is distrusted): the checker the coordinator picked may be the producer's
    /// colluder, and this is the only opinion that is not another identity's.
    pub own_analysis_share: f64,
    /// Seeds of every submitted unit the coordinator solves again, drawn in secret (at
    /// most [`SPOT_SHARE`] of a unit's seeds on average).
    pub spot_checks: u32,
    /// Solutions of this many hardest seeds are kept per [`KEPT_PER`] seeds of a unit
    /// (see [`kept_per_unit`]).
    pub top_count: u32,
    /// How long shutdown waits for in-flight calls.
    pub drain_timeout: Duration,
    /// How often statistics are saved (the commit log covers the time between).
    pub checkpoint_interval: Duration,
    /// Calls in progress at once over all connections; more are refused
    /// (`RESOURCE_EXHAUSTED`) rather than queued.
    pub max_requests: usize,
    /// Calls in progress at once on one connection.
    pub max_requests_per_connection: usize,
    /// A call running longer than this is cancelled.
    pub request_timeout: Duration,
    /// The most units one campaign may have.
    pub max_campaign_units: u64,
    /// The most seeds one campaign may span.
    pub max_campaign_seeds: u64,
    /// Submissions checked at once (each re-solves seeds on a blocking thread); more
    /// wait their turn, within their call's bounds.
    pub max_checking: usize,
    /// Bytes of Submit messages being received, decoded or checked at once. A Submit
    /// beyond it waits up to [`Config::submit_wait`], then is refused with
    /// `RESOURCE_EXHAUSTED`: a burst of large Submits costs memory by this budget, not
    /// by the burst.
    pub submit_budget: usize,
    pub submit_wait: Duration,
    /// A Submit's message must have arrived this long after it got its bytes of the
    /// budget, or it is refused: a trickled body would hold them for the whole call.
    pub submit_body_time: Duration,
    /// Connections per peer and in all, and the idle timeout.
    pub connections: ConnectionLimits,
    /// Free space the store's volume keeps: below it nothing is leased.
    pub min_free_disk: DiskReserve,
    /// A lease whose reported progress has not grown for this long is taken back and
    /// charged to its holder, whatever its heartbeats.
    pub stall_timeout: Duration,
    /// An identity's seed units are solved again in full by the coordinator until this
    /// many were confirmed (once per identity and store, not per campaign); then its
    /// schedule of checks ([`Config::verify_share`]) takes over.
    pub trust_after: u32,
    /// Registrations kept per identity (token) and in all; past them the longest silent
    /// one without a lease is dropped.
    pub max_registrations_per_identity: usize,
    pub max_registrations: usize,
    /// The most entries one query answers (puzzles or placements found; the hardest
    /// list also stops at the kept `HARDEST_SHOWN`), and how many a query that names no
    /// limit gets.
    pub max_query_results: usize,
    pub default_query_results: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            lease_duration: Duration::from_secs(60),
            max_failures: 5,
            // Runs of 1 to 24 units capped at 17, 8.8 % checked: with the spot checks' 1 %, the
            // checks cost under a tenth of a campaign (BENCHMARKS.md, "Coordinator").
            verify_share: 0.09,
            verify_from_moves: 22,
            // One agreeing check in four: a colluder picked as the checker is caught at its
            // fourth agreement on average, for 1.4 % of a census's CPU (BENCHMARKS.md).
            own_analysis_share: 0.25,
            spot_checks: 4,
            top_count: 5,
            drain_timeout: Duration::from_secs(10),
            checkpoint_interval: Duration::from_secs(60),
            max_requests: 256,
            max_requests_per_connection: 32,
            request_timeout: Duration::from_secs(120),
            max_campaign_units: 1_000_000,
            max_campaign_seeds: 10_000_000_000,
            max_checking: std::thread::available_parallelism().map_or(2, |n| 2 * n.get()),
            // Four of the largest Submits; an honest one is a few kB.
            submit_budget: 4 * rrm_proto::MAX_MINING_MESSAGE,
            submit_wait: Duration::from_secs(5),
            submit_body_time: Duration::from_secs(30),
            connections: ConnectionLimits::default(),
            min_free_disk: DiskReserve::Default,
            stall_timeout: Duration::from_secs(600),
            trust_after: 4,
            max_registrations_per_identity: 64,
            max_registrations: 4096,
            max_query_results: 100_000,
            default_query_results: 10,
        }
    }
}

impl Config {
    /// The entries a query asking for `asked` (0: no limit named) gets.
    pub fn query_limit(&self, asked: u32) -> usize {
        match asked {
            0 => self.default_query_results,
            asked => (asked as usize).min(self.max_query_results),
        }
    }

    fn lease_ms(&self) -> i64 {
        self.lease_duration.as_millis() as i64
    }

    /// Workers heartbeat this often: four chances per lease.
    pub fn heartbeat_interval(&self) -> Duration {
        self.lease_duration / 4
    }
}

/// Milliseconds since the Unix epoch.
pub fn unix_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Who may call and how connections are protected; `Default` is plaintext and open to
/// all, for loopback.
#[derive(Clone, Default)]
pub struct Security {
    /// The valid tokens (none: every call is let through).
    pub keyring: auth::Keyring,
    /// TLS for gRPC and the dashboard.
    pub tls: Option<tls::ServerTls>,
}

/// Serves `coordinator` on `listener`, open to all over plaintext, until `shutdown`
/// completes.
pub async fn run(
    listener: TcpListener,
    coordinator: Arc<Coordinator>,
    shutdown: impl Future<Output = ()>,
) -> Result<(), tonic::transport::Error> {
    run_with(listener, coordinator, Security::default(), None, shutdown).await
}

/// Serves `coordinator` on `listener` with `security` until `shutdown` completes, and the
/// health service alone, in plaintext and without tokens, on `health` (for probes that
/// speak neither TLS nor tokens, such as Kubernetes' gRPC probes).
pub async fn run_with(
    listener: TcpListener,
    coordinator: Arc<Coordinator>,
    security: Security,
    health: Option<TcpListener>,
    shutdown: impl Future<Output = ()>,
) -> Result<(), tonic::transport::Error> {
    let flusher = flush::GroupFlush::start(coordinator.clone());
    let checkpoints = tokio::spawn(checkpoint_now_and_then(coordinator.clone()));
    let journal_checkpoints = tokio::spawn(checkpoint_journal_when_due(coordinator.clone()));
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let drain_timeout = coordinator.config().drain_timeout;
    let server = service::serve(
        service::Listeners {
            grpc: listener,
            health,
        },
        coordinator.clone(),
        flusher.clone(),
        security,
        async {
            let _ = stop_rx.await;
        },
    );
    tokio::pin!(server);
    let result = tokio::select! {
        result = &mut server => result,
        () = shutdown => {
            tracing::info!("shutting down: no more leases, draining calls");
            coordinator.stop_leasing();
            let _ = stop_tx.send(());
            match tokio::time::timeout(drain_timeout, &mut server).await {
                Ok(result) => result,
                Err(_) => {
                    tracing::warn!("calls still running after {drain_timeout:?}; closing anyway");
                    Ok(())
                }
            }
        }
    };
    checkpoints.abort();
    journal_checkpoints.abort();
    let coordinator_for_close = coordinator.clone();
    let closed = tokio::task::spawn_blocking(move || {
        coordinator_for_close.checkpoint()?;
        let store = coordinator_for_close.store();
        store.flush_blocking()?;
        store.checkpoint_journal()?;
        Ok::<_, CoordinatorError>(())
    });
    // A store that cannot write (a failing disk) must not hold the process: everything
    // acknowledged is on disk already, and the statistics are rebuilt on start.
    match tokio::time::timeout(drain_timeout.max(CLOSE_AT_LEAST), closed).await {
        Ok(Ok(Ok(()))) => tracing::info!("store flushed; coordinator stopped"),
        Ok(Ok(Err(error))) => tracing::error!("final flush failed: {error}"),
        Ok(Err(error)) => tracing::error!("final flush panicked: {error}"),
        Err(_) => tracing::error!("the final flush did not finish in time; stopping without it"),
    }
    result
}

/// How often the store's journal is looked at for a checkpoint (see
/// [`rrm_store::Store::checkpoint_journal`]).
const JOURNAL_LOOK: Duration = Duration::from_secs(1);

/// Checkpoints the store's journal whenever it has grown or aged enough, on a blocking
/// thread: sled's flush can take a while, and group flushes go on meanwhile.
async fn checkpoint_journal_when_due(coordinator: Arc<Coordinator>) {
    let mut interval = tokio::time::interval(JOURNAL_LOOK);
    loop {
        interval.tick().await;
        if !coordinator.store().journal_checkpoint_due() {
            continue;
        }
        let coordinator = coordinator.clone();
        let done =
            tokio::task::spawn_blocking(move || coordinator.store().checkpoint_journal()).await;
        if let Ok(Err(error)) = done {
            tracing::error!("checkpointing the store's journal failed: {error}");
        }
    }
}

/// The final checkpoint and flush get at least this long, however short the drain.
const CLOSE_AT_LEAST: Duration = Duration::from_secs(2);

async fn checkpoint_now_and_then(coordinator: Arc<Coordinator>) {
    let mut interval = tokio::time::interval(coordinator.config().checkpoint_interval);
    interval.tick().await;
    loop {
        interval.tick().await;
        let coordinator = coordinator.clone();
        let saved = tokio::task::spawn_blocking(move || coordinator.checkpoint()).await;
        if let Ok(Err(error)) = saved {
            tracing::error!("saving statistics failed: {error}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Config;

    #[test]
    fn queries_get_the_default_when_they_name_no_limit_and_never_past_the_cap() {
        let config = Config {
            max_query_results: 50,
            default_query_results: 7,
            ..Config::default()
        };
        assert_eq!(config.query_limit(0), 7);
        assert_eq!(config.query_limit(1), 1);
        assert_eq!(config.query_limit(49), 49);
        assert_eq!(config.query_limit(u32::MAX), 50);
    }

    #[test]
    fn kept_solutions_scale_with_the_unit_size() {
        assert_eq!(crate::kept_per_unit(5, 1), 5);
        assert_eq!(crate::kept_per_unit(5, 10_000), 5);
        assert_eq!(crate::kept_per_unit(5, 10_001), 10);
        assert_eq!(crate::kept_per_unit(5, 50_000), 25);
        assert_eq!(crate::kept_per_unit(u32::MAX, u64::MAX), u32::MAX);
    }
}
