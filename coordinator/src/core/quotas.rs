//! Bounds per identity, so that one token cannot take the work or the memory for
//! itself: the leases it holds at once (scaled to the threads its registrations
//! declare, and to the results it has had taken, since threads are only its word),
//! leases whose reported progress stalls (taken back and charged by `leasing`), and
//! registrations, capped per identity and in all, idle ones pruned.

use super::campaign_state::current_lease;
use super::identity::Registration;
use super::{Coordinator, CoordinatorError, LeaseRef, Result, State};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// The most solver threads one registration is believed to have.
pub const MAX_THREADS: u32 = 256;

/// Leases a registration of `threads` threads may hold: one per thread and one more, so
/// that an honest worker (two units in flight) always has its next unit.
fn allowance(threads: u32) -> usize {
    threads.clamp(1, MAX_THREADS) as usize + 1
}

/// Leases an identity may hold before any result of its was taken: enough for one
/// worker's two units in flight.
const FIRST_LEASES: usize = 2;

/// Results each identity had taken (accepted or agreeing checks) since this
/// coordinator started, less the leases it let stall: two more leases each.
#[derive(Debug, Default)]
pub(super) struct Credit(HashMap<String, usize>);

impl Credit {
    pub(super) fn earned(&mut self, identity: &str) {
        *self.0.entry(identity.to_string()).or_default() += 1;
    }

    pub(super) fn forfeited(&mut self, identity: &str) {
        if let Some(credit) = self.0.get_mut(identity) {
            *credit = credit.saturating_sub(1);
        }
    }

    /// Leases `identity` may hold on its record.
    fn allowed(&self, identity: &str) -> usize {
        FIRST_LEASES + 2 * self.0.get(identity).copied().unwrap_or(0)
    }
}

/// What is known of a lease out: the work last reported for it, when that last grew,
/// and whether a heartbeat named it at all.
#[derive(Debug)]
struct Watched {
    work: u64,
    since: Instant,
    heard: bool,
}

/// Each lease out, watched for progress.
#[derive(Debug, Default)]
pub(super) struct LeaseStalls(HashMap<LeaseRef, Watched>);

impl LeaseStalls {
    fn watched(&mut self, lease: &LeaseRef) -> &mut Watched {
        self.0.entry(lease.clone()).or_insert_with(|| Watched {
            work: 0,
            since: Instant::now(),
            heard: false,
        })
    }

    /// Notes `work` reported for `lease`: only growth counts as progress.
    pub(super) fn reported(&mut self, lease: &LeaseRef, work: u64) {
        let watched = self.watched(lease);
        watched.heard = true;
        if work > watched.work {
            (watched.work, watched.since) = (work, Instant::now());
        }
    }

    /// Whether `lease` has shown no progress for `limit`; a lease not seen before (just
    /// issued, or out before a restart) starts its clock now.
    pub(super) fn stalled(&mut self, lease: &LeaseRef, limit: Duration) -> bool {
        self.watched(lease).since.elapsed() >= limit
    }

    /// Whether a heartbeat ever named `lease`: one never named may have had its reply
    /// lost on the way, which is no fault of the unit's or its holder's.
    pub(super) fn heard(&self, lease: &LeaseRef) -> bool {
        self.0.get(lease).is_some_and(|watched| watched.heard)
    }

    /// Forgets every lease not in `out`.
    pub(super) fn keep_only(&mut self, out: &std::collections::HashSet<LeaseRef>) {
        self.0.retain(|lease, _| out.contains(lease));
    }
}

impl State {
    /// The leases out (main and verification), with their holders' identities.
    pub(super) fn leases_out(&self) -> impl Iterator<Item = (LeaseRef, &str)> + '_ {
        self.campaigns.values().flat_map(|campaign| {
            campaign.leased.iter().filter_map(|unit| {
                let lease = current_lease(&campaign.records[unit])?;
                let reference = LeaseRef {
                    campaign: campaign.campaign.spec.name.to_string(),
                    unit: *unit,
                    lease: lease.number,
                };
                Some((reference, lease.identity.as_str()))
            })
        })
    }

    /// Refuses a lease to `identity` when it holds as many as its registrations' threads
    /// allow, or as its record of taken results allows.
    pub(super) fn check_lease_quota(&self, identity: &str) -> Result<()> {
        let held = self
            .leases_out()
            .filter(|(_, holder)| *holder == identity)
            .count();
        let allowed: usize = self
            .workers
            .values()
            .filter(|registration| registration.identity == identity)
            .map(|registration| allowance(registration.threads))
            .sum::<usize>()
            .min(self.credit.allowed(identity));
        if held >= allowed {
            return Err(CoordinatorError::LeaseQuota {
                identity: identity.to_string(),
                held,
                allowed,
            });
        }
        Ok(())
    }

    /// Whether registration `id` holds a lease.
    fn holds_a_lease(&self, id: u64) -> bool {
        self.campaigns.values().any(|campaign| {
            campaign
                .leased
                .iter()
                .filter_map(|unit| current_lease(&campaign.records[unit]))
                .any(|lease| lease.worker == id)
        })
    }

    /// Drops registrations silent for `idle` that hold no lease (their workers register
    /// again if they come back).
    pub(super) fn prune_idle(&mut self, idle: Duration) {
        let silent: Vec<u64> = self
            .workers
            .iter()
            .filter(|(_, registration)| registration.last_seen.elapsed() >= idle)
            .map(|(&id, _)| id)
            .collect();
        for id in silent {
            if !self.holds_a_lease(id) {
                self.workers.remove(&id);
            }
        }
    }

    /// Makes room for one more registration of `identity`: past the per-identity or the
    /// overall cap, the longest silent registration (of that identity, or of anyone)
    /// without a lease goes; if every one holds a lease, the newcomer is refused.
    pub(super) fn make_room(
        &mut self,
        identity: &str,
        per_identity: usize,
        all: usize,
    ) -> Result<()> {
        let mine = |r: &Registration| r.identity == identity;
        if self.workers.values().filter(|r| mine(r)).count() >= per_identity {
            self.drop_longest_silent(mine, "registrations of this identity", per_identity)?;
        }
        if self.workers.len() >= all {
            self.drop_longest_silent(|_| true, "registrations", all)?;
        }
        Ok(())
    }

    fn drop_longest_silent(
        &mut self,
        among: impl Fn(&Registration) -> bool,
        what: &'static str,
        limit: usize,
    ) -> Result<()> {
        let mut candidates: Vec<(Instant, u64)> = self
            .workers
            .iter()
            .filter(|(_, registration)| among(registration))
            .map(|(&id, registration)| (registration.last_seen, id))
            .collect();
        candidates.sort_unstable();
        let dropped = candidates
            .into_iter()
            .map(|(_, id)| id)
            .find(|&id| !self.holds_a_lease(id))
            .ok_or(CoordinatorError::TooManyRegistrations { what, limit })?;
        self.workers.remove(&dropped);
        Ok(())
    }
}

impl Coordinator {
    /// Registrations silent this long are pruned: a live worker heartbeats four times a
    /// lease.
    pub(super) fn registration_idle(&self) -> Duration {
        self.config.lease_duration * 4
    }
}
