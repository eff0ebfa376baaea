//! Bounds per identity, so that one token cannot take the work or the memory for
//! itself: the leases it holds at once (scaled to the threads its registrations
//! declare, and to the results it has had taken, since threads are only its word),
//! leases whose reported progress stalls (taken back and charged by `leasing`);
//! registrations are capped in `registry`.

use super::campaign_state::current_lease;
use super::error::QuotaLimit;
use super::{Coordinator, CoordinatorError, LeaseRef, Result, State};
use rrm_model::Lease;
use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

/// Leases an identity may hold before any result of its was taken: enough for one
/// worker's two units in flight.
const FIRST_LEASES: usize = 2;

/// When each identity's results were taken (accepted or agreeing checks), and when its
/// leases stalled or outlived their life, over the last lease life: an identity may hold
/// what its own measured throughput finishes within a lease's life, and no more,
/// whatever it once did. One that only let leases lapse in that time gets none until
/// they are a life old: it cannot take back the units it just held.
#[derive(Debug, Default)]
pub(super) struct Credit(HashMap<String, Record>);

/// One identity's recent results and lapses.
#[derive(Debug, Default)]
struct Record {
    taken: VecDeque<Instant>,
    lapsed: VecDeque<Instant>,
}

impl Credit {
    pub(super) fn earned(&mut self, identity: &str, now: Instant) {
        let record = self.0.entry(identity.to_string()).or_default();
        record.taken.push_back(now);
    }

    /// A lease of `identity` stalled or outlived its life at `now`: one result less.
    pub(super) fn forfeited(&mut self, identity: &str, now: Instant) {
        let record = self.0.entry(identity.to_string()).or_default();
        record.taken.pop_back();
        record.lapsed.push_back(now);
    }

    /// Leases `identity` may hold on its record at `now`: its first leases and one per
    /// result taken within `life` (older ones are forgotten), none while it has lapses
    /// and no results within `life`.
    fn allowed(&mut self, identity: &str, now: Instant, life: Duration) -> usize {
        let Some(record) = self.0.get_mut(identity) else {
            return FIRST_LEASES;
        };
        let old = |at: &Instant| now.saturating_duration_since(*at) > life;
        for times in [&mut record.taken, &mut record.lapsed] {
            while times.front().is_some_and(old) {
                times.pop_front();
            }
        }
        match (record.taken.len(), record.lapsed.len()) {
            (0, 0) => FIRST_LEASES,
            (0, _) => 0,
            (taken, _) => FIRST_LEASES + taken,
        }
    }
}

/// What is known of a lease out: the work last reported for it, when that last grew,
/// and whether a heartbeat named it at all.
#[derive(Debug)]
struct Watched {
    work: u64,
    since: Instant,
    heard: bool,
    /// When the lease was first seen: granted, or found out at a restart.
    granted: Instant,
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
            granted: now,
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

    /// Starts watching `lease`, granted at `now`.
    pub(super) fn granted_at(&mut self, lease: &LeaseRef, now: Instant) {
        self.watched(lease, now);
    }

    /// How long `lease` has been out at `now` (a lease not seen before starts then).
    pub(super) fn age(&mut self, lease: &LeaseRef, now: Instant) -> Duration {
        now.saturating_duration_since(self.watched(lease, now).granted)
    }

    /// When `lease` was granted, if it is watched.
    pub(super) fn granted(&self, lease: &LeaseRef) -> Option<Instant> {
        self.0.get(lease).map(|watched| watched.granted)
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
    pub(super) fn check_lease_quota(
        &mut self,
        identity: &str,
        now: Instant,
        life: Duration,
    ) -> Result<()> {
        let held = self
            .leases_out()
            .filter(|(_, lease)| lease.identity == identity && self.workers.contains(lease.worker))
            .count();
        let threads = self.workers.lease_allowance(identity);
        let record = self.credit.allowed(identity, now, life);
        let (allowed, limit) = match record < threads {
            true => (record, QuotaLimit::Record),
            false => (threads, QuotaLimit::Threads),
        };
        if held >= allowed {
            return Err(CoordinatorError::LeaseQuota {
                identity: identity.to_string(),
                held,
                allowed,
                limit,
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
    fn credit_is_what_was_taken_within_a_lease_life_less_stalls() {
        let mut credit = Credit::default();
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let life = Duration::from_secs(60);
        assert_eq!(credit.allowed("a", at(0), life), FIRST_LEASES);
        for s in 0..20 {
            credit.earned("a", at(s));
        }
        assert_eq!(credit.allowed("a", at(20), life), FIRST_LEASES + 20);
        credit.forfeited("a", at(20));
        assert_eq!(credit.allowed("a", at(20), life), FIRST_LEASES + 19);
        // A minute later, what it did then no longer counts: 20 honest results do not
        // buy a year of hoarding.
        assert_eq!(credit.allowed("a", at(70), life), FIRST_LEASES + 9);
        // With no result in a life and a lapse, none; a life after the lapse, a start.
        assert_eq!(credit.allowed("a", at(80), life), 0);
        assert_eq!(credit.allowed("a", at(81), life), FIRST_LEASES);
        assert_eq!(credit.allowed("b", at(0), life), FIRST_LEASES);
    }
}
