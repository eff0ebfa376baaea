//! Leasing: registering workers, handing out units round-robin over the campaigns,
//! extending leases on heartbeats, expiring them, and releasing a dead worker's leases.

use super::campaign_state::{current_lease, current_lease_mut, CampaignState, Kind};
use super::exhaustive::unit_work;
use super::{Assignment, Coordinator, CoordinatorError, LeaseRef, Result, Work};
use crate::unix_ms;
use rrm_store::{Lease, UnitRecord, UnitState, Verification};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// How often leasing looks for expired leases (each look walks every lease out).
const EXPIRY_SCAN: Duration = Duration::from_millis(100);

impl Coordinator {
    /// Registers a worker under a fresh id.
    pub fn register(&self, name: String) -> u64 {
        let mut state = self.lock();
        let id = loop {
            let id = rand_id();
            if id != 0 && !state.workers.contains_key(&id) {
                break id;
            }
        };
        state.workers.insert(id, name);
        self.metrics.registered();
        id
    }

    /// The name `worker` registered under.
    pub fn worker_name(&self, worker: u64) -> Option<String> {
        self.lock().workers.get(&worker).cloned()
    }

    /// The next unit for `worker`, or `None` when nothing is to be done now.
    pub fn lease(&self, worker: u64) -> Result<Option<Assignment>> {
        if self.shutting_down.load(Ordering::SeqCst) {
            return Err(CoordinatorError::ShuttingDown);
        }
        let now = unix_ms();
        let deadline = now + self.config.lease_ms();
        let mut guard = self.lock();
        let state = &mut *guard;
        if !state.workers.contains_key(&worker) {
            return Err(CoordinatorError::UnknownWorker(worker));
        }
        if state
            .expiry_scanned
            .is_none_or(|scanned| scanned.elapsed() >= EXPIRY_SCAN)
        {
            for campaign in state.campaigns.values_mut() {
                self.expire(campaign, now)?;
            }
            state.expiry_scanned = Some(Instant::now());
        }
        let count = state.campaigns.len();
        for offset in 0..count {
            let index = (state.round_robin + offset) % count;
            let campaign = state
                .campaigns
                .values_mut()
                .nth(index)
                .expect("index < count");
            if let Some(assignment) = self.issue(campaign, worker, deadline)? {
                state.round_robin = index + 1;
                return Ok(Some(assignment));
            }
        }
        Ok(None)
    }

    /// Returns every lease out to the pending sets without counting a failure: for a
    /// store whose only worker died with its process (the embedded `rrm mine`).
    pub fn release_leases(&self) -> Result<()> {
        let mut state = self.lock();
        for campaign in state.campaigns.values_mut() {
            for unit in campaign.leased.clone() {
                let mut record = campaign.records[&unit].clone();
                match &mut record.state {
                    UnitState::Done { verification, .. } => *verification = Verification::Pending,
                    state => *state = UnitState::Pending { expired: None },
                }
                self.store.put_unit(campaign.campaign.id, unit, &record)?;
                campaign.track(unit, record, 0);
            }
        }
        Ok(())
    }

    /// Extends the leases `worker` still holds and keeps the seeds it reports solved in
    /// them (`seeds_solved[i]` for `leases[i]`; may be empty); returns the leases it lost
    /// and the new deadline.
    pub fn heartbeat(
        &self,
        worker: u64,
        leases: &[LeaseRef],
        seeds_solved: &[u64],
    ) -> (Vec<LeaseRef>, i64) {
        let deadline = unix_ms() + self.config.lease_ms();
        let mut state = self.lock();
        let mut lost = Vec::new();
        for lease in leases {
            let held = state
                .campaigns
                .get_mut(&lease.campaign)
                .and_then(|c| c.records.get_mut(&lease.unit))
                .and_then(current_lease_mut)
                .filter(|held| held.number == lease.lease && held.worker == worker);
            match held {
                // Deadlines live in memory; a restarted coordinator grants a fresh one.
                Some(held) => held.deadline_unix_ms = deadline,
                None => lost.push(lease.clone()),
            }
        }
        state.note_progress(worker, leases, seeds_solved);
        (lost, deadline)
    }

    /// Returns expired leases to the pending set, or quarantines units that keep failing.
    fn expire(&self, campaign: &mut CampaignState, now: i64) -> Result<()> {
        let expired: Vec<u64> = campaign
            .leased
            .iter()
            .copied()
            .filter(|unit| {
                current_lease(&campaign.records[unit])
                    .is_some_and(|lease| lease.deadline_unix_ms < now)
            })
            .collect();
        for unit in expired {
            let mut record = campaign.records[&unit].clone();
            match &mut record.state {
                UnitState::Done { verification, .. } => *verification = Verification::Pending,
                state => {
                    let expired = match state {
                        UnitState::Leased(lease) => Some(*lease),
                        _ => None,
                    };
                    *state = UnitState::Pending { expired };
                    let why = format!("lease {} expired", record.leases_issued);
                    self.charge_failure(&mut record, why);
                }
            }
            self.store.put_unit(campaign.campaign.id, unit, &record)?;
            self.metrics.expired(&campaign.campaign.spec.name);
            if matches!(record.state, UnitState::Quarantined) {
                self.metrics.quarantined(&campaign.campaign.spec.name);
            }
            campaign.track(unit, record, now);
        }
        Ok(())
    }

    /// Counts a failure against a unit that is no longer leased; quarantines it at
    /// [`crate::Config::max_failures`].
    pub(super) fn charge_failure(&self, record: &mut UnitRecord, why: String) {
        record.failures += 1;
        record.last_error = Some(why);
        if record.failures >= self.config.max_failures {
            record.state = UnitState::Quarantined;
        }
    }

    /// Leases `campaign`'s next unit to `worker`: a unit waiting again, then a done unit
    /// awaiting a second worker's check (never its first worker), then a fresh one.
    fn issue(
        &self,
        campaign: &mut CampaignState,
        worker: u64,
        deadline_unix_ms: i64,
    ) -> Result<Option<Assignment>> {
        let verification = campaign.to_verify.iter().copied().find(|unit| {
            matches!(campaign.records[unit].state, UnitState::Done { worker: first, .. } if first != worker)
        });
        let unit = if let Some(unit) = campaign.pending.first().copied() {
            unit
        } else if let Some(unit) = verification {
            unit
        } else if campaign.next_unit < campaign.campaign.spec.units_total() {
            campaign.next_unit
        } else {
            return Ok(None);
        };
        let spec = &campaign.campaign.spec;
        let work = match &campaign.kind {
            Kind::Seeds(generator) => Work::Seeds {
                generator: *generator,
                seeds: spec.unit_seeds(unit),
                record_threshold: spec.record_threshold,
                top_count: self.config.top_count,
            },
            Kind::Exhaustive(exhaustive) => Work::Exhaustive(unit_work(exhaustive, unit).ok_or(
                CoordinatorError::UnknownUnit {
                    campaign: spec.name.clone(),
                    unit,
                },
            )?),
        };
        let mut record = campaign.records.get(&unit).cloned().unwrap_or(UnitRecord {
            state: UnitState::Pending { expired: None },
            leases_issued: 0,
            failures: 0,
            last_error: None,
        });
        record.leases_issued += 1;
        let lease = Lease {
            number: record.leases_issued,
            worker,
            deadline_unix_ms,
        };
        match &mut record.state {
            UnitState::Done { verification, .. } => *verification = Verification::Leased(lease),
            state => *state = UnitState::Leased(lease),
        }
        self.store.put_unit(campaign.campaign.id, unit, &record)?;
        self.metrics.leased(&spec.name);
        campaign.track(unit, record, deadline_unix_ms);
        Ok(Some(Assignment {
            lease: LeaseRef {
                campaign: campaign.campaign.spec.name.clone(),
                unit,
                lease: lease.number,
            },
            work,
            deadline_unix_ms,
        }))
    }
}

/// A random worker id (from the OS-seeded hasher), unlikely to repeat across restarts.
fn rand_id() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_i64(unix_ms());
    hasher.finish()
}
