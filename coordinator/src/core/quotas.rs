//! Bounds per identity, so that one token cannot take the work or the memory for
//! itself: the leases it holds at once (scaled to the threads its registrations
//! declare, and to the results it has had taken, since threads are only its word),
//! leases whose reported progress stalls (taken back and charged by `leasing`);
//! registrations are capped in `registry`.

use super::campaign_state::current_lease;
use super::{Coordinator, CoordinatorError, LeaseRef, Result, State};
use rrm_model::Lease;
use std::collections::HashMap;
use std::time::{Duration, Instant};

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
    fn watched(&mut self, lease: &LeaseRef, now: Instant) -> &mut Watched {
        self.0.entry(lease.clone()).or_insert_with(|| Watched {
            work: 0,
            since: now,
            heard: false,
        })
    }

    /// Notes `work` reported for `lease` at `now`: only growth counts as progress.
    pub(super) fn reported(&mut self, lease: &LeaseRef, work: u64, now: Instant) {
        let watched = self.watched(lease, now);
        watched.heard = true;
        if work > watched.work {
            (watched.work, watched.since) = (work, now);
        }
    }

    /// Whether `lease` has shown no progress for `limit` at `now`; a lease not seen
    /// before (just issued, or out before a restart) starts its clock then.
    pub(super) fn stalled(&mut self, lease: &LeaseRef, limit: Duration, now: Instant) -> bool {
        now.saturating_duration_since(self.watched(lease, now).since) >= limit
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
    /// The leases out (main and verification), with their holders.
    pub(super) fn leases_out(&self) -> impl Iterator<Item = (LeaseRef, &Lease)> + '_ {
        self.campaigns.values().flat_map(|campaign| {
            campaign.leased.iter().filter_map(|unit| {
                let lease = current_lease(&campaign.records[unit])?;
                let reference = LeaseRef {
                    campaign: campaign.campaign.spec.name.clone(),
                    unit: *unit,
                    lease: lease.number,
                };
                Some((reference, lease))
            })
        })
    }

    /// Refuses a lease to `identity` when it holds as many as its registrations' threads
    /// allow, or as its record of taken results allows. A lease of a registration that
    /// no longer exists (granted before a restart, whose holder has not taken it up
    /// again with a heartbeat) does not count: nobody can hand it in, and it would keep
    /// a worker coming back from a restart waiting until it expired.
    pub(super) fn check_lease_quota(&self, identity: &str) -> Result<()> {
        let held = self
            .leases_out()
            .filter(|(_, lease)| lease.identity == identity && self.workers.contains(lease.worker))
            .count();
        let allowed = self
            .workers
            .lease_allowance(identity)
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
}

impl Coordinator {
    /// Registrations silent this long are pruned: a live worker heartbeats four times a
    /// lease.
    pub(super) fn registration_idle(&self) -> Duration {
        self.config.lease_duration * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lease(number: u64) -> LeaseRef {
        LeaseRef {
            campaign: "c".parse().unwrap(),
            unit: 1,
            lease: number,
        }
    }

    #[test]
    fn a_lease_stalls_when_its_reported_work_stops_growing() {
        let mut stalls = LeaseStalls::default();
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let limit = Duration::from_secs(60);
        // A lease first seen starts its clock then, heard of or not.
        assert!(!stalls.stalled(&lease(1), limit, at(0)));
        assert!(!stalls.heard(&lease(1)));
        stalls.reported(&lease(1), 10, at(50));
        assert!(stalls.heard(&lease(1)));
        // Growth at 50 s restarts the clock; the same figure again does not.
        stalls.reported(&lease(1), 10, at(100));
        assert!(!stalls.stalled(&lease(1), limit, at(109)));
        assert!(stalls.stalled(&lease(1), limit, at(110)));
        // Less work than before (a replayed heartbeat) is no progress either.
        stalls.reported(&lease(1), 3, at(111));
        assert!(stalls.stalled(&lease(1), limit, at(111)));
        stalls.reported(&lease(1), 11, at(112));
        assert!(!stalls.stalled(&lease(1), limit, at(171)));
        // Leases no longer out are forgotten: seen again, their clock starts again.
        stalls.keep_only(&std::collections::HashSet::from([lease(2)]));
        assert!(!stalls.heard(&lease(1)));
        assert!(!stalls.stalled(&lease(1), limit, at(500)));
    }

    #[test]
    fn credit_grows_with_results_taken_and_shrinks_with_stalls() {
        let mut credit = Credit::default();
        assert_eq!(credit.allowed("a"), FIRST_LEASES);
        credit.earned("a");
        credit.earned("a");
        assert_eq!(credit.allowed("a"), FIRST_LEASES + 4);
        credit.forfeited("a");
        credit.forfeited("a");
        credit.forfeited("a");
        assert_eq!(
            credit.allowed("a"),
            FIRST_LEASES,
            "never below the first leases"
        );
        assert_eq!(credit.allowed("b"), FIRST_LEASES);
    }
}
