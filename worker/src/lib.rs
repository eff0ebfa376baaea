//! The rrm worker: leases units (seed ranges) from a coordinator, solves every seed
//! optimally on a rayon pool, heartbeats while solving and submits the move counts.
//!
//! Two units are kept in flight so that the pool never idles on the slow tail of one
//! unit. A finished result is kept and resubmitted with backoff until the coordinator
//! acknowledges or refuses it; on shutdown, units still solving are abandoned (their
//! leases expire and go to someone else).

mod solve;

pub use solve::{solve_unit, UnitResult};

use rrm_proto::v1 as pb;
use rrm_proto::v1::mining_client::MiningClient;
use std::collections::HashMap;
use std::future::Future;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::task::JoinSet;
use tonic::transport::{Channel, Endpoint};
use tonic::Code;

/// How a worker runs.
#[derive(Clone, Debug)]
pub struct Config {
    /// The coordinator's URL, e.g. `http://127.0.0.1:7878`.
    pub coordinator: String,
    pub threads: usize,
    /// Shown in the coordinator's log.
    pub name: String,
}

#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    #[error("invalid coordinator address {address:?}: {reason}")]
    Address { address: String, reason: String },
    #[error("the coordinator refused this worker: {0}")]
    Refused(String),
    #[error("cannot start solver threads: {0}")]
    Pool(String),
}

/// What a worker did before it stopped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub units_submitted: u64,
    pub seeds_solved: u64,
}

/// Waits grow from 100 ms to 5 s while the coordinator is away.
struct Backoff(Duration);

impl Backoff {
    fn new() -> Backoff {
        Backoff(Duration::from_millis(100))
    }

    async fn wait(&mut self) {
        tokio::time::sleep(self.0).await;
        self.0 = (self.0 * 2).min(Duration::from_secs(5));
    }
}

/// Errors worth retrying: the coordinator is away or restarting.
fn transient(status: &tonic::Status) -> bool {
    matches!(
        status.code(),
        Code::Unavailable
            | Code::Unknown
            | Code::DeadlineExceeded
            | Code::Cancelled
            | Code::Internal
    )
}

/// Leases held now, by (campaign, unit, lease), with the worker id each was issued to
/// and the flag that abandons it.
type Held = Arc<Mutex<HashMap<(String, u64, u64), (u64, Arc<AtomicBool>)>>>;

/// Mines for the coordinator until `shutdown` completes.
pub async fn run(
    config: Config,
    shutdown: impl Future<Output = ()>,
) -> Result<Summary, WorkerError> {
    let endpoint = Endpoint::from_shared(config.coordinator.clone())
        .map_err(|e| WorkerError::Address {
            address: config.coordinator.clone(),
            reason: e.to_string(),
        })?
        .connect_timeout(Duration::from_secs(5))
        // Submissions wait while the coordinator re-solves record candidates.
        .timeout(Duration::from_secs(600));
    let client = MiningClient::new(endpoint.connect_lazy())
        .max_decoding_message_size(rrm_proto::MAX_MESSAGE)
        .max_encoding_message_size(rrm_proto::MAX_MESSAGE);
    let pool = Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(config.threads.max(1))
            .build()
            .map_err(|e| WorkerError::Pool(e.to_string()))?,
    );
    let held: Held = Arc::default();
    let stopping = Arc::new(AtomicBool::new(false));
    let seeds_solved = Arc::new(AtomicU64::new(0));
    let shared = Shared {
        client: client.clone(),
        pool,
        held: held.clone(),
        stopping: stopping.clone(),
        seeds_solved: seeds_solved.clone(),
    };
    let mut summary = Summary::default();
    let mut units: JoinSet<bool> = JoinSet::new();
    let mut worker_id = None;
    let mut heartbeats: Option<tokio::task::JoinHandle<()>> = None;
    let mut backoff = Backoff::new();
    tokio::pin!(shutdown);
    loop {
        let id = match worker_id {
            Some(id) => id,
            None => {
                let registered = tokio::select! {
                    () = &mut shutdown => break,
                    registered = register(client.clone(), &config) => registered,
                };
                match registered {
                    Ok(reply) => {
                        tracing::info!(worker_id = reply.worker_id, "registered");
                        let interval = Duration::from_secs(reply.heartbeat_seconds.max(1).into());
                        if let Some(old) = heartbeats.replace(tokio::spawn(heartbeat_loop(
                            client.clone(),
                            held.clone(),
                            interval,
                        ))) {
                            old.abort();
                        }
                        backoff = Backoff::new();
                        worker_id = Some(reply.worker_id);
                        reply.worker_id
                    }
                    Err(status) if transient(&status) => {
                        tracing::warn!("coordinator unavailable: {}", status.message());
                        tokio::select! {
                            () = &mut shutdown => break,
                            () = backoff.wait() => continue,
                        }
                    }
                    Err(status) => return Err(WorkerError::Refused(status.message().to_string())),
                }
            }
        };
        // Two units in flight; otherwise wait for one to finish.
        if units.len() >= 2 {
            tokio::select! {
                () = &mut shutdown => break,
                Some(done) = units.join_next() => summary.units_submitted += u64::from(done.unwrap_or(false)),
            }
            continue;
        }
        let mut lease_client = client.clone();
        let leased = tokio::select! {
            () = &mut shutdown => break,
            leased = lease_client.lease(pb::LeaseRequest { worker_id: id }) => leased,
        };
        match leased.map(tonic::Response::into_inner) {
            Ok(pb::LeaseReply {
                unit: Some(unit), ..
            }) => {
                backoff = Backoff::new();
                let Some(lease) = unit.lease.clone() else {
                    tracing::error!("coordinator sent a unit without a lease; skipping it");
                    continue;
                };
                let cancel = Arc::new(AtomicBool::new(false));
                held.lock().expect("held leases").insert(
                    (lease.campaign.clone(), lease.unit, lease.lease),
                    (id, cancel.clone()),
                );
                units.spawn(mine_unit(shared.clone(), id, unit, lease, cancel));
            }
            Ok(pb::LeaseReply {
                unit: None,
                retry_after_ms,
            }) => {
                let wait = Duration::from_millis(retry_after_ms.clamp(50, 10_000).into());
                tokio::select! {
                    () = &mut shutdown => break,
                    Some(done) = units.join_next() => summary.units_submitted += u64::from(done.unwrap_or(false)),
                    () = tokio::time::sleep(wait) => {}
                }
            }
            Err(status) if status.code() == Code::Unauthenticated => {
                tracing::info!("coordinator forgot this worker (restarted?); registering again");
                worker_id = None;
            }
            Err(status) => {
                tracing::warn!("lease failed: {}", status.message());
                tokio::select! {
                    () = &mut shutdown => break,
                    () = backoff.wait() => {}
                }
            }
        }
    }
    // Abandon what is still solving; results already finished get a last chance.
    stopping.store(true, Ordering::SeqCst);
    for (_, cancel) in held.lock().expect("held leases").values() {
        cancel.store(true, Ordering::SeqCst);
    }
    while let Some(done) = units.join_next().await {
        summary.units_submitted += u64::from(done.unwrap_or(false));
    }
    if let Some(heartbeats) = heartbeats {
        heartbeats.abort();
    }
    summary.seeds_solved = seeds_solved.load(Ordering::SeqCst);
    Ok(summary)
}

async fn register(
    mut client: MiningClient<Channel>,
    config: &Config,
) -> Result<pb::RegisterReply, tonic::Status> {
    client
        .register(pb::RegisterRequest {
            name: config.name.clone(),
            threads: config.threads as u32,
            version: env!("CARGO_PKG_VERSION").to_string(),
        })
        .await
        .map(tonic::Response::into_inner)
}

/// Extends the held leases; abandons those the coordinator says are lost.
async fn heartbeat_loop(client: MiningClient<Channel>, held: Held, interval: Duration) {
    let mut ticks = tokio::time::interval(interval);
    loop {
        ticks.tick().await;
        let mut by_worker: HashMap<u64, Vec<pb::LeaseRef>> = HashMap::new();
        for ((campaign, unit, lease), (worker, _)) in held.lock().expect("held leases").iter() {
            by_worker.entry(*worker).or_default().push(pb::LeaseRef {
                campaign: campaign.clone(),
                unit: *unit,
                lease: *lease,
            });
        }
        for (worker_id, leases) in by_worker {
            let reply = client
                .clone()
                .heartbeat(pb::HeartbeatRequest { worker_id, leases })
                .await;
            match reply {
                Ok(reply) => {
                    let held = held.lock().expect("held leases");
                    for lost in reply.into_inner().lost {
                        if let Some((_, cancel)) = held.get(&(lost.campaign, lost.unit, lost.lease))
                        {
                            tracing::warn!(unit = lost.unit, "lease lost; abandoning the unit");
                            cancel.store(true, Ordering::SeqCst);
                        }
                    }
                }
                Err(status) => tracing::warn!("heartbeat failed: {}", status.message()),
            }
        }
    }
}

/// What every unit task of a worker shares.
#[derive(Clone)]
struct Shared {
    client: MiningClient<Channel>,
    pool: Arc<rayon::ThreadPool>,
    held: Held,
    /// Raised on shutdown: results still unacknowledged get a few last tries.
    stopping: Arc<AtomicBool>,
    seeds_solved: Arc<AtomicU64>,
}

/// Solves one leased unit and submits it until acknowledged. True if it was accepted.
async fn mine_unit(
    shared: Shared,
    worker_id: u64,
    unit: pb::WorkUnit,
    lease: pb::LeaseRef,
    cancel: Arc<AtomicBool>,
) -> bool {
    let key = (lease.campaign.clone(), lease.unit, lease.lease);
    let outcome = mine_leased(&shared, worker_id, unit, lease, cancel).await;
    shared.held.lock().expect("held leases").remove(&key);
    outcome
}

async fn mine_leased(
    shared: &Shared,
    worker_id: u64,
    unit: pb::WorkUnit,
    lease: pb::LeaseRef,
    cancel: Arc<AtomicBool>,
) -> bool {
    let generator: ricochet::Generator = match unit.generator.parse() {
        Ok(generator) => generator,
        Err(error) => {
            tracing::error!("unit {}: {error}; abandoning it", lease.unit);
            return false;
        }
    };
    let seeds: Range<u64> = unit.seed_start..unit.seed_end;
    let threshold = u8::try_from(unit.record_threshold).unwrap_or(u8::MAX);
    let top_count = unit.top_count as usize;
    let solving_cancel = cancel.clone();
    let solving_seeds = seeds.clone();
    let pool = shared.pool.clone();
    let solved = tokio::task::spawn_blocking(move || {
        pool.install(|| {
            solve_unit(
                generator,
                solving_seeds,
                threshold,
                top_count,
                &solving_cancel,
            )
        })
    })
    .await;
    let result = match solved {
        Ok(Some(result)) => result,
        Ok(None) => return false,
        Err(error) => {
            tracing::error!("unit {}: solving failed: {error}", lease.unit);
            return false;
        }
    };
    shared
        .seeds_solved
        .fetch_add(seeds.end - seeds.start, Ordering::Relaxed);
    let request = pb::SubmitRequest {
        worker_id,
        digest: rrm_proto::unit_digest(
            &lease.campaign,
            seeds,
            &result.move_counts,
            &result.robots_moved,
        )
        .to_vec(),
        lease: Some(lease.clone()),
        move_counts: result.move_counts,
        robots_moved: result.robots_moved,
        solutions: result
            .solutions
            .into_iter()
            .map(|(seed, moves)| pb::Solution { seed, moves })
            .collect(),
    };
    let mut backoff = Backoff::new();
    // Kept until acknowledged; after shutdown began, a few last tries only.
    let mut last_tries = 3;
    loop {
        match shared.client.clone().submit(request.clone()).await {
            Ok(reply) => {
                let outcome = reply.into_inner().outcome();
                tracing::info!(unit = lease.unit, campaign = %lease.campaign, ?outcome, "submitted");
                return outcome == pb::SubmitOutcome::Accepted;
            }
            Err(status) if transient(&status) => {
                if shared.stopping.load(Ordering::SeqCst) {
                    last_tries -= 1;
                    if last_tries == 0 {
                        tracing::warn!(
                            unit = lease.unit,
                            "coordinator away at shutdown; result dropped"
                        );
                        return false;
                    }
                }
                tracing::warn!(
                    unit = lease.unit,
                    "submit failed, retrying: {}",
                    status.message()
                );
                backoff.wait().await;
            }
            Err(status) => {
                tracing::warn!(unit = lease.unit, "result refused: {}", status.message());
                return false;
            }
        }
    }
}
