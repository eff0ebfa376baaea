//! The rrm worker: leases units (seed ranges) from a coordinator, solves every seed
//! optimally on a rayon pool, heartbeats while solving and submits the move counts.
//!
//! [`run`] keeps [`IN_FLIGHT`] units in flight so that the pool never idles on the slow
//! tail of one unit. The work is split by concern: `connection` reaches the coordinator
//! and decides which failures are retried and for how long, `heartbeat` keeps the held
//! leases alive, `unit` mines one unit from lease to verdict, `solve` solves its seeds,
//! `exhaustive` analyses an exhaustive unit (every placement of a board and target).
//! On shutdown, units still solving are abandoned (their leases expire and go to someone
//! else); finished results get a few last tries.

mod connection;
mod exhaustive;
mod heartbeat;
mod solve;
mod unit;

pub use exhaustive::{analyse_unit, Analysed};
pub use solve::{solve_unit, UnitResult};

use connection::{Credentials, Retry};
use heartbeat::Leases;
use rrm_model::Assignment;
use rrm_proto::access::AuthChannel;
use rrm_proto::v1 as pb;
use rrm_proto::v1::mining_client::MiningClient;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::task::{JoinError, JoinHandle, JoinSet};
use tonic::Code;

/// Units a worker mines at once: the next one starts while the last seeds of the other
/// are still solving.
pub const IN_FLIGHT: usize = 2;

/// How long a worker keeps retrying while the coordinator answers with internal errors
/// (its store failing) before giving up: long enough to ride out a full disk being
/// cleaned up, short enough that a broken coordinator is noticed.
pub const STORE_FAULT_LIMIT: Duration = Duration::from_secs(300);

/// How long one call to the coordinator may take before it is abandoned (and retried, as
/// an unreachable coordinator is): long, since submissions wait while the coordinator
/// re-solves record candidates.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(600);

/// How a worker runs.
#[derive(Clone, Debug)]
pub struct Config {
    /// The coordinator's URL, e.g. `http://127.0.0.1:7878` or `https://…`.
    pub coordinator: String,
    /// The CA, client certificate and token to reach it with.
    pub access: rrm_proto::access::ClientAccess,
    /// Solver threads, at least one.
    pub threads: usize,
    /// Shown in the coordinator's log.
    pub name: String,
    /// Give up when the coordinator has been unreachable (or not speaking gRPC) this long;
    /// `None` keeps trying forever, as a service should.
    pub give_up_after: Option<Duration>,
    /// Give up when the coordinator has been failing internally this long.
    pub store_fault_limit: Duration,
    /// Stop, successfully, once the coordinator reports every campaign done.
    pub exit_when_done: bool,
    /// How long one call may take before it is abandoned and retried.
    pub call_timeout: Duration,
    /// Bumped after every seed solved, for progress displays; share it to watch.
    pub seeds_solved: Arc<AtomicU64>,
    /// Set to drain: lease nothing more, finish and submit the units in flight, then stop
    /// (successfully). Shutdown still abandons them at once.
    pub draining: Arc<AtomicBool>,
}

impl Config {
    /// A worker for `coordinator` that never gives up on an unreachable coordinator,
    /// gives up on store faults after [`STORE_FAULT_LIMIT`], waits [`CALL_TIMEOUT`] for
    /// an answer and runs until stopped.
    pub fn new(coordinator: impl Into<String>, threads: usize, name: impl Into<String>) -> Config {
        Config {
            coordinator: coordinator.into(),
            access: Default::default(),
            threads,
            name: name.into(),
            give_up_after: None,
            store_fault_limit: STORE_FAULT_LIMIT,
            exit_when_done: false,
            call_timeout: CALL_TIMEOUT,
            seeds_solved: Arc::default(),
            draining: Arc::default(),
        }
    }
}

/// Why a worker stopped before it was told to.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    /// The coordinator URL, TLS settings or token are unusable.
    #[error(transparent)]
    Access(#[from] rrm_proto::access::AccessError),
    /// The coordinator answered with an error that retrying cannot fix (e.g. another
    /// protocol version).
    #[error("the coordinator refused this worker: {0}")]
    Refused(String),
    /// Calls kept failing past their limit (see [`Config::give_up_after`] and
    /// [`Config::store_fault_limit`]).
    #[error("gave up after {after:?} of failures {call}: {cause}")]
    GaveUp {
        /// What the worker was trying, e.g. "registering with http://…".
        call: String,
        after: Duration,
        /// The last failure.
        cause: String,
    },
    /// [`Config::threads`] is zero.
    #[error("a worker needs at least one solver thread")]
    NoThreads,
    /// The rayon pool could not be built.
    #[error("cannot start solver threads: {0}")]
    Pool(String),
}

/// What a worker did before it stopped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Units whose results the coordinator accepted.
    pub units_submitted: u64,
    /// Seeds solved, including those of units abandoned on the way.
    pub seeds_solved: u64,
}

/// Mines for the coordinator until `shutdown` completes, every campaign is done (with
/// [`Config::exit_when_done`]) or a failure outlasts its limit (see `connection`).
pub async fn run(
    config: Config,
    shutdown: impl Future<Output = ()>,
) -> Result<Summary, WorkerError> {
    if config.threads == 0 {
        return Err(WorkerError::NoThreads);
    }
    let client = connection::client(&config.coordinator, &config.access, config.call_timeout)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.threads)
        .build()
        .map_err(|e| WorkerError::Pool(e.to_string()))?;
    let solved_before = config.seeds_solved.load(Ordering::SeqCst);
    let mut miner = Miner::new(config, client, pool);
    let ended = miner.mine_until(shutdown).await;
    let mut summary = miner.wind_down().await;
    summary.seeds_solved -= solved_before;
    ended.map(|()| summary)
}

/// Whether the worker goes on.
enum Flow {
    Continue,
    Finished,
}

/// The worker's state between steps.
struct Miner {
    config: Config,
    shared: unit::Shared,
    units: JoinSet<Result<bool, WorkerError>>,
    /// The current registration; `None` until (re-)registered.
    credentials: Option<Credentials>,
    /// Heartbeats of the last registration; they outlive it until the next one.
    heartbeats: Option<JoinHandle<()>>,
    /// Retries of registering and leasing.
    retry: Retry,
    units_submitted: u64,
    /// "Every campaign is done" was said since the last unit.
    announced_done: bool,
}

impl Miner {
    fn new(config: Config, client: MiningClient<AuthChannel>, pool: rayon::ThreadPool) -> Miner {
        let limits = connection::Limits::of(&config);
        Miner {
            shared: unit::Shared {
                client,
                pool: Arc::new(pool),
                leases: Leases::default(),
                stopping: Arc::default(),
                seeds_solved: config.seeds_solved.clone(),
                limits,
                analysing: Arc::default(),
                forgotten: Arc::default(),
            },
            config,
            units: JoinSet::new(),
            credentials: None,
            heartbeats: None,
            retry: Retry::new(limits),
            units_submitted: 0,
            announced_done: false,
        }
    }

    /// Takes steps until `shutdown`, the end of the work, or an error that ends the worker.
    async fn mine_until(&mut self, shutdown: impl Future<Output = ()>) -> Result<(), WorkerError> {
        tokio::pin!(shutdown);
        loop {
            // A step dropped at shutdown leaves nothing half done; a lease granted to a
            // dropped call expires like any other.
            let flow = tokio::select! {
                () = &mut shutdown => return Ok(()),
                flow = self.step() => flow?,
            };
            if let Flow::Finished = flow {
                return Ok(());
            }
        }
    }

    /// Registers if needed, else waits for a free slot, else leases a unit; an error is
    /// that step's (see each).
    async fn step(&mut self) -> Result<Flow, WorkerError> {
        let Some(credentials) = self.credentials.clone() else {
            self.register().await?;
            return Ok(Flow::Continue);
        };
        let draining = self.config.draining.load(Ordering::Relaxed);
        if draining || self.units.len() >= IN_FLIGHT {
            let forgotten = self.shared.forgotten.clone();
            return tokio::select! {
                joined = self.units.join_next() => match joined {
                    Some(joined) => self.finished(joined).map(|()| Flow::Continue),
                    None => Ok(Flow::Finished),
                },
                // A unit's submission found this registration forgotten.
                () = forgotten.notified() => Ok(self.forgotten()),
            };
        }
        self.lease(credentials).await
    }

    /// One registration attempt; on success the heartbeats start. Failures are retried
    /// under the connection limits, a refusal (e.g. another version) ends the worker.
    async fn register(&mut self) -> Result<(), WorkerError> {
        match connection::register(self.shared.client.clone(), &self.config).await {
            Ok(reply) => {
                tracing::info!(worker_id = reply.worker_id, "registered");
                self.retry.succeeded();
                let interval = Duration::from_secs(reply.heartbeat_seconds.max(1).into());
                let heartbeats = tokio::spawn(heartbeat::heartbeat_loop(
                    self.shared.client.clone(),
                    self.shared.leases.clone(),
                    interval,
                ));
                if let Some(old) = self.heartbeats.replace(heartbeats) {
                    old.abort();
                }
                let credentials = Credentials {
                    id: reply.worker_id,
                    session: reply.session,
                };
                self.shared.leases.registered_again(&credentials);
                self.credentials = Some(credentials);
                Ok(())
            }
            Err(status) => {
                let call = format!("registering with {}", self.config.coordinator);
                self.retry.failed(&call, &status)?;
                self.retry.wait().await;
                Ok(())
            }
        }
    }

    /// The coordinator no longer knows this registration (it restarted): the next step
    /// registers again.
    fn forgotten(&mut self) -> Flow {
        tracing::info!("coordinator forgot this worker (restarted?); registering again");
        self.credentials = None;
        Flow::Continue
    }

    /// One lease attempt: a unit starts mining, or the worker waits as the coordinator
    /// says. A forgotten worker registers again; other failures are retried under the
    /// connection limits.
    async fn lease(&mut self, credentials: Credentials) -> Result<Flow, WorkerError> {
        let request = pb::LeaseRequest {
            worker_id: credentials.id,
            session: credentials.session.clone(),
        };
        let reply = match self.shared.client.clone().lease(request).await {
            Ok(reply) => reply.into_inner(),
            Err(status) if status.code() == Code::Unauthenticated => return Ok(self.forgotten()),
            Err(status) => {
                self.retry.failed("leasing a unit", &status)?;
                self.retry.wait().await;
                return Ok(Flow::Continue);
            }
        };
        self.retry.succeeded();
        match reply.unit {
            Some(unit) => {
                self.announced_done = false;
                self.start(credentials, unit);
                Ok(Flow::Continue)
            }
            None if (reply.campaigns_done || reply.only_others_checks_left)
                && self.all_done(reply.campaigns_done) =>
            {
                Ok(Flow::Finished)
            }
            None => {
                let wait = Duration::from_millis(reply.retry_after_ms.clamp(50, 10_000).into());
                tokio::select! {
                    Some(joined) = self.units.join_next() => self.finished(joined)?,
                    () = tokio::time::sleep(wait) => {}
                }
                Ok(Flow::Continue)
            }
        }
    }

    /// Says once that nothing is left for this worker: every campaign is done, or (not
    /// `campaigns_done`) all that is left are checks of its own identity's results; true
    /// if the worker should stop for it.
    fn all_done(&mut self, campaigns_done: bool) -> bool {
        if !self.announced_done {
            self.announced_done = true;
            let then = if self.config.exit_when_done {
                "stopping"
            } else {
                "waiting for new work"
            };
            if campaigns_done {
                tracing::info!("every campaign is done; {then}");
            } else {
                tracing::warn!(
                    "every campaign is done but for checks of this identity's results, which \
                     a worker of another identity must make; {then}"
                );
            }
        }
        self.config.exit_when_done
    }

    /// Spawns the task mining `unit`.
    /// A unit whose values do not fit (no lease, an unknown generator, a move count over
    /// 255) is skipped: its lease expires on the coordinator.
    fn start(&mut self, credentials: Credentials, unit: pb::WorkUnit) {
        let unit = match Assignment::try_from(unit) {
            Ok(unit) => unit,
            Err(error) => {
                tracing::error!(
                    "coordinator sent a unit this worker cannot take ({error}); skipping it"
                );
                return;
            }
        };
        let lease = &unit.lease;
        let key = lease.clone();
        let flags = self.shared.leases.take(key, credentials.clone());
        self.units.spawn(unit::mine_unit(
            self.shared.clone(),
            credentials,
            unit,
            flags,
        ));
    }

    /// Counts a finished unit task. Its error ends the worker; a panic only loses the unit.
    fn finished(
        &mut self,
        joined: Result<Result<bool, WorkerError>, JoinError>,
    ) -> Result<(), WorkerError> {
        match joined {
            Ok(accepted) => self.units_submitted += u64::from(accepted?),
            Err(error) => tracing::error!("a unit task failed: {error}"),
        }
        Ok(())
    }

    /// Abandons what is still solving, gives finished results their last tries, stops
    /// the heartbeats. Errors of the last units are only logged: the worker is ending.
    async fn wind_down(mut self) -> Summary {
        self.shared.stopping.store(true, Ordering::SeqCst);
        self.shared.leases.cancel_all();
        while let Some(joined) = self.units.join_next().await {
            if let Err(error) = self.finished(joined) {
                tracing::warn!("{error}");
            }
        }
        if let Some(heartbeats) = self.heartbeats {
            heartbeats.abort();
        }
        Summary {
            units_submitted: self.units_submitted,
            seeds_solved: self.shared.seeds_solved.load(Ordering::SeqCst),
        }
    }
}
