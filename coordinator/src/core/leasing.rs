//! Leasing: handing out units round-robin over the campaigns, extending leases on
//! heartbeats, expiring them, releasing a dead worker's leases, and releasing
//! quarantined units on an operator's word.

use super::campaign_state::{current_lease, current_lease_mut, CampaignState, Kind};
use super::exhaustive::unit_work;
use super::quotas::{Credit, LeaseStalls};
use super::{Assignment, Coordinator, CoordinatorError, LeaseRef, Result, Work, Worker};
use crate::stages::Stage;
use crate::unix_ms;
use rrm_model::{Lease, UnitRecord, UnitState, Verification};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// How often leasing looks for expired leases (each look walks every lease out).
const EXPIRY_SCAN: Duration = Duration::from_millis(100);

impl Coordinator {
    /// The next unit for `worker`, or `None` when nothing is to be done now.
    pub fn lease(&self, worker: &Worker) -> Result<Option<Assignment>> {
        if self.shutting_down.load(Ordering::SeqCst) {
            return Err(CoordinatorError::ShuttingDown);
        }
        self.check_disk()?;
        let now = unix_ms();
        let deadline = now + self.config.lease_ms();
        let mut guard = self.lock();
        let state = &mut *guard;
        Self::check_trusted(state, &worker.identity)?;
        if state
            .expiry_scanned
            .is_none_or(|scanned| scanned.elapsed() >= EXPIRY_SCAN)
        {
            for campaign in state.campaigns.values_mut() {
                let quotas = (&mut state.stalls, &mut state.credit);
                self.expire(campaign, now, &state.workers, quotas)?;
            }
            let out = state.leases_out().map(|(lease, _)| lease).collect();
            state.stalls.keep_only(&out);
            let idle = self.registration_idle();
            let campaigns = &state.campaigns;
            let holds = |id| super::identity::holds_a_lease(campaigns, id);
            state.workers.prune_idle(idle, Instant::now(), holds);
            state.expiry_scanned = Some(Instant::now());
        }
        state.check_lease_quota(&worker.identity)?;
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

    /// Extends the leases `worker`'s identity still holds and keeps the seeds it reports
    /// solved in them (`seeds_solved[i]` for `leases[i]`; may be empty); returns the
    /// leases it lost and the new deadline.
    pub fn heartbeat(
        &self,
        worker: &Worker,
        leases: &[LeaseRef],
        seeds_solved: &[u64],
    ) -> (Vec<LeaseRef>, i64) {
        let deadline = unix_ms() + self.config.lease_ms();
        let mut state = self.lock();
        let mut lost = Vec::new();
        for (i, lease) in leases.iter().enumerate() {
            let Some(campaign) = state.campaigns.get_mut(lease.campaign.as_str()) else {
                lost.push(lease.clone());
                continue;
            };
            let work = campaign.unit_work_size(lease.unit);
            let held = campaign
                .records
                .get_mut(&lease.unit)
                .and_then(current_lease_mut)
                .filter(|held| held.number == lease.lease && held.identity == worker.identity);
            match held {
                // Deadlines live in memory; a restarted coordinator grants a fresh one.
                Some(held) => {
                    held.deadline_unix_ms = deadline;
                    let solved = seeds_solved.get(i).copied().unwrap_or(0);
                    state
                        .stalls
                        .reported(lease, solved.min(work), Instant::now());
                }
                None => lost.push(lease.clone()),
            }
        }
        state.note_progress(worker.id, leases, seeds_solved);
        (lost, deadline)
    }

    /// Returns expired leases to the pending set, or quarantines units that keep failing.
    /// A lease whose progress stalled for [`crate::Config::stall_timeout`] expires too,
    /// whatever its heartbeats: holding units without solving them is hoarding, charged
    /// to the unit and to its holder's lease credit. Two expiries are no fault of the
    /// unit's, so it goes back without a failure: a lease no heartbeat ever named (its
    /// reply may have been lost), and one held by a registration this coordinator does
    /// not know (granted before a restart: its holder registered again and cannot hand
    /// it in).
    fn expire(
        &self,
        campaign: &mut CampaignState,
        now: i64,
        registered: &super::registry::Registry,
        (stalls, credit): (&mut LeaseStalls, &mut Credit),
    ) -> Result<()> {
        let name = &campaign.campaign.spec.name;
        let mut expired = Vec::new();
        for &unit in &campaign.leased {
            let Some(lease) = current_lease(&campaign.records[&unit]) else {
                continue;
            };
            let reference = LeaseRef {
                campaign: name.to_string(),
                unit,
                lease: lease.number,
            };
            if lease.deadline_unix_ms < now {
                let why = format!("lease {} expired", lease.number);
                expired.push((unit, stalls.heard(&reference).then_some(why)));
            } else if stalls.stalled(&reference, self.config.stall_timeout, Instant::now()) {
                let limit = self.config.stall_timeout.as_secs();
                let why = format!("lease {} made no progress for {limit} s", lease.number);
                credit.forfeited(&lease.identity);
                expired.push((unit, Some(why)));
            }
        }
        for (unit, why) in expired {
            let mut record = campaign.records[&unit].clone();
            match &mut record.state {
                UnitState::Done { verification, .. } => *verification = Verification::Pending,
                state => {
                    let expired = match state {
                        UnitState::Leased(lease) => Some(lease.clone()),
                        _ => None,
                    };
                    let holder = expired
                        .as_ref()
                        .filter(|lease| registered.contains(lease.worker))
                        .map(|lease| lease.identity.clone());
                    *state = UnitState::Pending { expired };
                    if let (Some(holder), Some(why)) = (holder, why) {
                        self.charge_failure(&mut record, &holder, why);
                    }
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

    /// Releases quarantined units of campaign `name` (just `unit`, if given) to be
    /// leased again with their failures forgotten; returns the units released.
    pub fn retry(&self, name: &str, unit: Option<u64>) -> Result<Vec<u64>> {
        let mut state = self.lock();
        let campaign = state
            .campaigns
            .get_mut(name)
            .ok_or_else(|| CoordinatorError::UnknownCampaign(name.to_string()))?;
        let quarantined: Vec<u64> = match unit {
            Some(unit)
                if campaign
                    .records
                    .get(&unit)
                    .is_some_and(|r| r.state == UnitState::Quarantined) =>
            {
                vec![unit]
            }
            Some(unit) => return Err(CoordinatorError::NotQuarantined(unit)),
            None => campaign
                .records
                .iter()
                .filter(|(_, r)| r.state == UnitState::Quarantined)
                .map(|(&unit, _)| unit)
                .collect(),
        };
        for &unit in &quarantined {
            let mut record = campaign.records[&unit].clone();
            record.state = UnitState::Pending { expired: None };
            record.failed_by.clear();
            self.store.put_unit(campaign.campaign.id, unit, &record)?;
            campaign.track(unit, record, 0);
        }
        tracing::info!(
            campaign = name,
            units = quarantined.len(),
            "quarantined units released"
        );
        Ok(quarantined)
    }

    /// Leases `campaign`'s next unit to `worker`: a unit waiting again (one its identity
    /// failed only when nothing else is left), then a done unit awaiting another
    /// identity's check (never its producer's), then a fresh one.
    fn issue(
        &self,
        campaign: &mut CampaignState,
        worker: &Worker,
        deadline_unix_ms: i64,
    ) -> Result<Option<Assignment>> {
        let verification = campaign.to_verify.iter().copied().find(|unit| {
            matches!(&campaign.records[unit].state, UnitState::Done { producer, .. } if *producer != worker.identity)
        });
        let failed_here = |unit: &u64| {
            let failed_by = &campaign.records[unit].failed_by;
            failed_by.contains(&worker.identity)
        };
        let fresh = campaign.next_unit < campaign.campaign.spec.units_total();
        let unit = if let Some(unit) = campaign.pending.iter().copied().find(|u| !failed_here(u)) {
            unit
        } else if let Some(unit) = verification {
            unit
        } else if fresh {
            campaign.next_unit
        } else if let Some(unit) = campaign.pending.first().copied() {
            unit
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
                    campaign: spec.name.to_string(),
                    unit,
                },
            )?),
        };
        let mut record = campaign
            .records
            .get(&unit)
            .cloned()
            .unwrap_or_else(UnitRecord::fresh);
        record.leases_issued += 1;
        let lease = Lease {
            number: record.leases_issued,
            worker: worker.id,
            identity: worker.identity.clone(),
            deadline_unix_ms,
        };
        let number = lease.number;
        match &mut record.state {
            UnitState::Done { verification, .. } => *verification = Verification::Leased(lease),
            state => *state = UnitState::Leased(lease),
        }
        let writing = Instant::now();
        self.store.put_unit(campaign.campaign.id, unit, &record)?;
        self.metrics.stages().since(Stage::StoreWrite, writing);
        self.metrics.leased(&spec.name);
        campaign.track(unit, record, deadline_unix_ms);
        Ok(Some(Assignment {
            lease: LeaseRef {
                campaign: campaign.campaign.spec.name.to_string(),
                unit,
                lease: number,
            },
            work,
            deadline_unix_ms,
        }))
    }
}
