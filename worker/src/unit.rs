//! One leased unit, from lease to verdict: solve it on the pool, then submit the result
//! until the coordinator acknowledges or refuses it.
//!
//! Error policy: a unit the worker cannot solve (unknown generator, a board or token it
//! does not know, a panic while solving) and a refused result abandon the unit (its lease
//! expires or is already ended); a lost lease or shutdown stops the solving (a seed unit
//! after the seeds in hand, an exhaustive analysis after its current layer). A result is
//! resubmitted under the retry limits of [`crate::connection`]; past them the worker ends
//! with that error.
//! Once shutdown began, an unreachable coordinator gets [`LAST_TRIES`] more tries.

use crate::connection::{Credentials, Limits, Retry};
use crate::exhaustive::{analyse_unit, Analysed};
use crate::heartbeat::{Leases, UnitFlags};
use crate::{solve_unit, UnitResult, WorkerError};
use ricochet::exhaustive::UnitError;
use rrm_model::{AnalysisError, Assignment, ExhaustiveUnit, LeaseRef, Submission, Work};
use rrm_proto::access::AuthChannel;
use rrm_proto::v1 as pb;
use rrm_proto::v1::mining_client::MiningClient;
use std::ops::ControlFlow;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use tonic::{Code, Status};

/// Submission attempts left for a result once shutdown began.
const LAST_TRIES: u32 = 3;

/// What every unit task of a worker shares.
#[derive(Clone)]
pub(crate) struct Shared {
    pub client: MiningClient<AuthChannel>,
    pub pool: Arc<rayon::ThreadPool>,
    pub leases: Leases,
    /// Raised on shutdown: results still unacknowledged get a few last tries.
    pub stopping: Arc<AtomicBool>,
    /// Seeds solved by this worker, bumped per seed.
    pub seeds_solved: Arc<AtomicU64>,
    pub limits: Limits,
    /// Held by the exhaustive analysis under way: each already uses the whole pool, and
    /// one at a time the process's CPU time while it runs is its own.
    pub analysing: Arc<std::sync::Mutex<()>>,
    /// Raised by a submission the coordinator no longer knows the sender of (it
    /// restarted): the worker registers again, and the submission goes on under the new
    /// registration.
    pub forgotten: Arc<tokio::sync::Notify>,
}

/// Mines one leased unit; `Ok(true)` if its result was accepted.
pub(crate) async fn mine_unit(
    shared: Shared,
    credentials: Credentials,
    unit: Assignment,
    flags: UnitFlags,
) -> Result<bool, WorkerError> {
    let lease = unit.lease;
    let key = lease.clone();
    let solved = match unit.work {
        Work::Exhaustive(exhaustive) => analyse(&shared, exhaustive, &lease, &flags)
            .await
            .map(Solved::Exhaustive),
        Work::Seeds {
            generator,
            rules,
            seeds,
            record_threshold,
            top_count,
        } => solve(
            &shared,
            ricochet::Dealer { generator, rules },
            seeds.clone(),
            record_threshold,
            top_count,
            &flags,
        )
        .await
        .map(|result| Solved::Seeds(seeds, result)),
    };
    // Submitted under the registration the lease goes under now (the worker may have
    // registered again while it solved).
    let credentials = shared.leases.credentials(&key).unwrap_or(credentials);
    let outcome = match solved.and_then(|result| request(&credentials, lease, result)) {
        Some(request) => {
            shared.leases.submitting(&key);
            submit(&shared, &key, request).await
        }
        None => Ok(false),
    };
    shared.leases.release(&key);
    outcome
}

/// A unit's result before submission.
enum Solved {
    Seeds(Range<u64>, UnitResult),
    Exhaustive(Analysed),
}

/// Analyses an exhaustive unit on the pool, reporting the placements solved after each
/// layer as the lease's progress and stopping after the layer in which it was cancelled
/// (lost lease, shutdown); `None` if it was cancelled or cannot be analysed here (the
/// unit is abandoned).
async fn analyse(
    shared: &Shared,
    unit: ExhaustiveUnit,
    lease: &LeaseRef,
    flags: &UnitFlags,
) -> Option<Analysed> {
    let (pool, solved) = (shared.pool.clone(), flags.solved.clone());
    let cancel = flags.cancel.clone();
    let (campaign, number) = (lease.campaign.clone(), lease.unit);
    let alone = shared.analysing.clone();
    let analysing = tokio::task::spawn_blocking(move || {
        // A poisoned lock only means another analysis panicked; this one is unaffected.
        let _alone = alone
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        pool.install(|| {
            analyse_unit(&campaign, number, &unit, &mut |placements| {
                solved.store(placements, Ordering::Relaxed);
                if cancel.load(Ordering::SeqCst) {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            })
        })
    });
    let analysed = match analysing.await {
        Ok(Ok(analysed)) => analysed,
        Ok(Err(AnalysisError::Unit(UnitError::Stopped(layers)))) => {
            tracing::info!(unit = lease.unit, "analysis stopped after {layers} layers");
            return None;
        }
        Ok(Err(error)) => {
            tracing::error!(unit = lease.unit, "{error}; abandoning the unit");
            return None;
        }
        Err(error) => {
            tracing::error!(
                unit = lease.unit,
                "analysis failed: {error}; abandoning the unit"
            );
            return None;
        }
    };
    (!flags.cancel.load(Ordering::SeqCst)).then_some(analysed)
}

/// Solves the unit's seeds on the pool; `None` if it was cancelled (lost lease,
/// shutdown) or a panic ended it: the unit is abandoned.
async fn solve(
    shared: &Shared,
    dealer: ricochet::Dealer,
    seeds: Range<u64>,
    threshold: u8,
    top_count: u32,
    flags: &UnitFlags,
) -> Option<UnitResult> {
    let top_count = top_count as usize;
    let pool = shared.pool.clone();
    let cancel = flags.cancel.clone();
    let solved = flags.solved.clone();
    let total = shared.seeds_solved.clone();
    let on_seed = move || {
        solved.fetch_add(1, Ordering::Relaxed);
        total.fetch_add(1, Ordering::Relaxed);
    };
    let solving = tokio::task::spawn_blocking(move || {
        pool.install(|| solve_unit(dealer, seeds, threshold, top_count, &cancel, &on_seed))
    });
    match solving.await {
        Ok(result) => result,
        Err(error) => {
            tracing::error!("solving failed: {error}; abandoning the unit");
            None
        }
    }
}

/// The submission of `solved`; `None` (the unit abandoned) if its kept solutions do
/// not fit in one.
fn request(
    credentials: &Credentials,
    lease: LeaseRef,
    solved: Solved,
) -> Option<pb::SubmitRequest> {
    let unit = lease.unit;
    let submission = match solved {
        Solved::Seeds(seeds, result) => Submission {
            digest: rrm_model::unit_digest(
                &lease.campaign,
                seeds,
                &result.move_counts,
                &result.robots_moved,
            )
            .to_vec(),
            move_counts: result.move_counts,
            robots_moved: result.robots_moved,
            solutions: result.solutions,
            exhaustive: None,
            cpu_ms: 0,
            ..submission(credentials, lease)
        },
        Solved::Exhaustive(analysed) => Submission {
            digest: analysed.digest.to_vec(),
            exhaustive: Some(analysed.result),
            cpu_ms: analysed.cpu_ms,
            ..submission(credentials, lease)
        },
    };
    rrm_proto::wire::submit_request(submission, credentials.session.clone())
        .inspect_err(|error| tracing::error!(unit, "{error}; abandoning the unit"))
        .ok()
}

/// An empty submission of `lease` by this worker.
fn submission(credentials: &Credentials, lease: LeaseRef) -> Submission {
    Submission {
        worker: credentials.id,
        // The coordinator knows who sends it from the call's credentials.
        identity: String::new(),
        lease,
        move_counts: Vec::new(),
        robots_moved: Vec::new(),
        digest: Vec::new(),
        solutions: Vec::new(),
        exhaustive: None,
        cpu_ms: 0,
        own_process: false,
    }
}

/// Submits until the coordinator answers; `Ok(true)` if it accepted the result. A
/// coordinator that forgot the registration (restarted) gets it again under the worker's
/// new one, which takes up the lease.
async fn submit(
    shared: &Shared,
    key: &LeaseRef,
    mut request: pb::SubmitRequest,
) -> Result<bool, WorkerError> {
    let lease = request.lease.clone().unwrap_or_default();
    let mut retry = Retry::new(shared.limits);
    let mut last_tries = LAST_TRIES;
    loop {
        let status = match shared.client.clone().submit(request.clone()).await {
            Ok(reply) => {
                let outcome = reply.into_inner().outcome();
                tracing::info!(unit = lease.unit, campaign = %lease.campaign, ?outcome, "submitted");
                return Ok(outcome == pb::SubmitOutcome::Accepted);
            }
            Err(status) => status,
        };
        let call = format!("submitting unit {} of {}", lease.unit, lease.campaign);
        let status = match status.code() {
            Code::Unauthenticated => match shared.leases.credentials(key) {
                Some(now) if now.id != request.worker_id => {
                    // Registered again meanwhile: the same result under the new one.
                    request.worker_id = now.id;
                    request.session = now.session;
                    continue;
                }
                _ => {
                    shared.forgotten.notify_one();
                    // Waited out like an unreachable coordinator while the worker registers.
                    Status::unavailable(format!("{}; registering again", status.message()))
                }
            },
            _ => status,
        };
        match retry.failed(&call, &status) {
            Ok(()) => {}
            Err(WorkerError::Refused(_)) => {
                let why = crate::connection::describe(&status);
                tracing::warn!(unit = lease.unit, campaign = %lease.campaign, "result refused: {why}");
                return Ok(false);
            }
            Err(gave_up) => return Err(gave_up),
        }
        if shared.stopping.load(Ordering::SeqCst) {
            last_tries -= 1;
            if last_tries == 0 {
                tracing::warn!(
                    unit = lease.unit,
                    "coordinator away at shutdown; result dropped"
                );
                return Ok(false);
            }
        }
        retry.wait().await;
    }
}
