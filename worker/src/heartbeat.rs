//! The leases a worker holds, what each unit is doing, and the heartbeats that keep them
//! alive and report progress.
//!
//! Error policy: a failed heartbeat is logged and tried again at the next tick (the
//! lease lasts four ticks); it never ends the worker. A lease the coordinator reports
//! lost abandons its unit only while the unit is still solving. Once its result is being
//! submitted, the submission's verdict decides: the coordinator reports a lease lost as
//! soon as it has accepted the result, before that acceptance is flushed and acknowledged,
//! so a heartbeat crossing the submission must not be taken for a lost unit.

use crate::connection::Credentials;
use rrm_model::LeaseRef;
use rrm_proto::access::AuthChannel;
use rrm_proto::v1 as pb;
use rrm_proto::v1::mining_client::MiningClient;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// What a held unit is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    Solving,
    /// Solved; its result is on its way to the coordinator.
    Submitting,
}

/// One held lease.
struct Held {
    /// The registration the lease was issued to (the worker may have registered again
    /// since).
    worker: Credentials,
    phase: Phase,
    /// Raised to stop solving the unit.
    cancel: Arc<AtomicBool>,
    /// Seeds of the unit solved so far.
    solved: Arc<AtomicU64>,
}

/// The leases a worker holds now, shared by its unit tasks and its heartbeats.
#[derive(Clone, Default)]
pub(crate) struct Leases(Arc<Mutex<HashMap<LeaseRef, Held>>>);

/// The flags of one unit task, handed out when its lease is taken.
pub(crate) struct UnitFlags {
    pub cancel: Arc<AtomicBool>,
    pub solved: Arc<AtomicU64>,
}

impl Leases {
    fn lock(&self) -> MutexGuard<'_, HashMap<LeaseRef, Held>> {
        // Nothing panics under this lock; a poisoned map is still consistent.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Holds a new lease, solving.
    pub(crate) fn take(&self, key: LeaseRef, worker: Credentials) -> UnitFlags {
        let flags = UnitFlags {
            cancel: Arc::default(),
            solved: Arc::default(),
        };
        self.lock().insert(
            key,
            Held {
                worker,
                phase: Phase::Solving,
                cancel: flags.cancel.clone(),
                solved: flags.solved.clone(),
            },
        );
        flags
    }

    /// The worker registered again (the coordinator forgot it, e.g. restarted): its held
    /// leases go on under the new registration, whose heartbeats take them up.
    pub(crate) fn registered_again(&self, worker: &Credentials) {
        for held in self.lock().values_mut() {
            held.worker = worker.clone();
        }
    }

    /// The registration a held lease goes under now.
    pub(crate) fn credentials(&self, key: &LeaseRef) -> Option<Credentials> {
        self.lock().get(key).map(|held| held.worker.clone())
    }

    /// The unit is solved: from now on only its submission's verdict ends it.
    pub(crate) fn submitting(&self, key: &LeaseRef) {
        if let Some(held) = self.lock().get_mut(key) {
            held.phase = Phase::Submitting;
        }
    }

    /// The unit task is over.
    pub(crate) fn release(&self, key: &LeaseRef) {
        self.lock().remove(key);
    }

    /// Stops every unit still solving (shutdown).
    pub(crate) fn cancel_all(&self) {
        for held in self.lock().values() {
            held.cancel.store(true, Ordering::SeqCst);
        }
    }

    /// One heartbeat request per worker id the held leases were issued to, with the
    /// seeds solved of each.
    fn requests(&self) -> Vec<pb::HeartbeatRequest> {
        let mut by_worker: HashMap<u64, pb::HeartbeatRequest> = HashMap::new();
        for (lease, held) in self.lock().iter() {
            let request = by_worker
                .entry(held.worker.id)
                .or_insert_with(|| pb::HeartbeatRequest {
                    worker_id: held.worker.id,
                    session: held.worker.session.clone(),
                    ..Default::default()
                });
            request.leases.push(lease.clone().into());
            request
                .seeds_solved
                .push(held.solved.load(Ordering::Relaxed));
        }
        by_worker.into_values().collect()
    }

    /// Abandons the units of `lost` leases that are still solving; returns them. Units
    /// being submitted carry on (see the module doc).
    pub(crate) fn lost(&self, lost: Vec<pb::LeaseRef>) -> Vec<LeaseRef> {
        let held = self.lock();
        let mut abandoned = Vec::new();
        // A lease that is no lease (a name no campaign can have) is none of ours.
        for key in lost
            .into_iter()
            .filter_map(|lease| LeaseRef::try_from(lease).ok())
        {
            let Some(unit) = held.get(&key) else { continue };
            match unit.phase {
                Phase::Solving => {
                    tracing::warn!(unit = key.unit, campaign = %key.campaign, "lease lost; abandoning the unit");
                    unit.cancel.store(true, Ordering::SeqCst);
                    abandoned.push(key);
                }
                Phase::Submitting => tracing::debug!(
                    unit = key.unit,
                    campaign = %key.campaign,
                    "lease ended while the result is being submitted; the submission decides"
                ),
            }
        }
        abandoned
    }
}

/// Heartbeats every `interval` for the held leases until aborted.
pub(crate) async fn heartbeat_loop(
    client: MiningClient<AuthChannel>,
    leases: Leases,
    interval: Duration,
) {
    let mut ticks = tokio::time::interval(interval);
    loop {
        ticks.tick().await;
        for request in leases.requests() {
            match client.clone().heartbeat(request).await {
                Ok(reply) => {
                    leases.lost(reply.into_inner().lost);
                }
                Err(status) => tracing::warn!(
                    "heartbeat failed (next in {}s): {}",
                    interval.as_secs(),
                    crate::connection::describe(&status)
                ),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lease_ref(key: &LeaseRef) -> pb::LeaseRef {
        key.clone().into()
    }

    fn lease(campaign: &str, unit: u64, lease: u64) -> LeaseRef {
        LeaseRef {
            campaign: campaign.parse().unwrap(),
            unit,
            lease,
        }
    }

    #[test]
    fn a_lost_lease_abandons_a_solving_unit_but_not_one_being_submitted() {
        let leases = Leases::default();
        let solving = lease("c", 1, 1);
        let submitted = lease("c", 2, 1);
        let solving_flags = leases.take(solving.clone(), Credentials::test(7));
        let submitted_flags = leases.take(submitted.clone(), Credentials::test(7));
        leases.submitting(&submitted);
        // The heartbeat was sent before the submission was accepted, its reply comes after.
        let abandoned = leases.lost(vec![lease_ref(&solving), lease_ref(&submitted)]);
        assert_eq!(abandoned, vec![solving]);
        assert!(solving_flags.cancel.load(Ordering::SeqCst));
        assert!(!submitted_flags.cancel.load(Ordering::SeqCst));
        // Leases released meanwhile are not in the table any more.
        leases.release(&submitted);
        assert!(leases.lost(vec![lease_ref(&submitted)]).is_empty());
    }

    #[test]
    fn heartbeats_go_per_worker_id_with_progress() {
        let leases = Leases::default();
        leases
            .take(lease("c", 1, 1), Credentials::test(7))
            .solved
            .store(40, Ordering::Relaxed);
        leases.take(lease("c", 2, 1), Credentials::test(7));
        leases.take(lease("d", 1, 3), Credentials::test(8));
        let mut requests = leases.requests();
        requests.sort_by_key(|r| r.worker_id);
        assert_eq!(requests.len(), 2);
        assert_eq!(requests[0].worker_id, 7);
        assert_eq!(requests[0].leases.len(), 2);
        let solved: HashMap<u64, u64> = requests[0]
            .leases
            .iter()
            .map(|l| l.unit)
            .zip(requests[0].seeds_solved.iter().copied())
            .collect();
        assert_eq!(solved, HashMap::from([(1, 40), (2, 0)]));
        assert_eq!(requests[1].leases[0].lease, 3);
    }
}
