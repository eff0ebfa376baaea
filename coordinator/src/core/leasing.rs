//! Leasing as the coordinator does it: under the lock, it asks [`super::lease_decisions`] what
//! changes, stores each change, counts it in the metrics, and only then lets memory
//! take it.

use super::campaign_state::CampaignState;
use super::identity::secret_draw;
use super::lease_decisions::{self, Change, Event, Now, Policy};
use super::{Assignment, Coordinator, CoordinatorError, LeaseRef, Result, Worker};
use crate::stages::Stage;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// How often leasing looks for expired leases (each look walks every lease out).
const EXPIRY_SCAN: Duration = Duration::from_millis(100);

/// Units awaiting a check whose checker is picked at each lease (the queue's head).
const PICKED_AHEAD: usize = 64;

impl Coordinator {
    /// The next unit for `worker`, or `None` when nothing is to be done now.
    pub fn lease(&self, worker: &Worker) -> Result<Option<Assignment>> {
        if self.shutting_down.load(Ordering::SeqCst) {
            return Err(CoordinatorError::ShuttingDown);
        }
        self.check_disk()?;
        let now = Now::read();
        let deadline = now.unix_ms + self.config.lease_ms();
        let policy = self.lease_policy();
        let mut guard = self.lock();
        let state = &mut *guard;
        Self::check_trusted(state, &worker.identity)?;
        if state
            .expiry_scanned
            .is_none_or(|scanned| now.instant.saturating_duration_since(scanned) >= EXPIRY_SCAN)
        {
            for campaign in state.campaigns.values_mut() {
                let registered = |worker| state.workers.contains(worker);
                let quotas = (&mut state.stalls, &mut state.credit);
                let changes = lease_decisions::expired(campaign, now, registered, quotas, &policy);
                self.apply(campaign, changes)?;
            }
            let out = state.leases_out().map(|(lease, _)| lease).collect();
            state.stalls.keep_only(&out);
            let idle = self.registration_idle();
            let campaigns = &state.campaigns;
            let holds = |id| super::identity::holds_a_lease(campaigns, id);
            state.workers.prune_idle(idle, now.instant, holds);
            state.expiry_scanned = Some(now.instant);
        }
        let life = (state.campaigns.values())
            .map(|campaign| campaign.lease_life(policy.life_floor, policy.stall_timeout))
            .max()
            .unwrap_or(policy.stall_timeout);
        state.check_lease_quota(&worker.identity, now.instant, life)?;
        // Checkers are picked among the identities registered now (a set of strings:
        // built only when some check waits).
        if (state.campaigns.values()).any(|campaign| !campaign.to_verify.is_empty()) {
            let distrusted = &state.distrusted;
            let registered = (state.workers.identities().into_iter())
                .filter(|identity| !distrusted.contains_key(*identity))
                .collect();
            for campaign in state.campaigns.values_mut() {
                if !campaign.to_verify.is_empty() {
                    lease_decisions::pick_checkers(
                        campaign,
                        &registered,
                        PICKED_AHEAD,
                        secret_draw,
                    );
                }
            }
        }
        let count = state.campaigns.len();
        for offset in 0..count {
            let index = (state.round_robin + offset) % count;
            let campaign = state
                .campaigns
                .values_mut()
                .nth(index)
                .expect("index < count");
            if let Some((change, assignment)) =
                lease_decisions::next(campaign, worker, deadline, &policy)?
            {
                self.apply(campaign, vec![change])?;
                state.stalls.granted_at(&assignment.lease, now.instant);
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
            let changes = lease_decisions::released(campaign);
            self.apply(campaign, changes)?;
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
        let now = Now::read();
        let deadline = now.unix_ms + self.config.lease_ms();
        let mut state = self.lock();
        let mut lost = Vec::new();
        for (i, lease) in leases.iter().enumerate() {
            let held = state
                .campaigns
                .get_mut(lease.campaign.as_str())
                .and_then(|campaign| lease_decisions::extend(campaign, lease, worker, deadline));
            match held {
                Some(work) => {
                    let solved = seeds_solved.get(i).copied().unwrap_or(0);
                    state.stalls.reported(lease, solved.min(work), now.instant);
                }
                None => lost.push(lease.clone()),
            }
        }
        state.note_progress(worker.id, leases, seeds_solved);
        (lost, deadline)
    }

    /// Releases quarantined units of campaign `name` (just `unit`, if given) to be
    /// leased again with their failures forgotten; returns the units released.
    pub fn retry(&self, name: &str, unit: Option<u64>) -> Result<Vec<u64>> {
        let mut state = self.lock();
        let campaign = state
            .campaigns
            .get_mut(name)
            .ok_or_else(|| CoordinatorError::UnknownCampaign(name.to_string()))?;
        let changes = lease_decisions::retried(campaign, unit)?;
        let released: Vec<u64> = changes.iter().map(|change| change.unit).collect();
        self.apply(campaign, changes)?;
        tracing::info!(
            campaign = name,
            units = released.len(),
            "quarantined units released"
        );
        Ok(released)
    }

    fn lease_policy(&self) -> Policy {
        Policy {
            stall_timeout: self.config.stall_timeout,
            life_floor: self.config.lease_duration * 2,
            max_failures: self.config.max_failures,
            top_count: self.config.top_count,
        }
    }

    /// Stores each change, counts it, and files it into `campaign`'s memory.
    fn apply(&self, campaign: &mut CampaignState, changes: Vec<Change>) -> Result<()> {
        let name = campaign.campaign.spec.name.clone();
        for Change {
            unit,
            record,
            event,
        } in changes
        {
            let writing = Instant::now();
            self.store.put_unit(campaign.campaign.id, unit, &record)?;
            self.metrics.stages().since(Stage::StoreWrite, writing);
            match event {
                Event::Leased => self.metrics.leased(&name),
                Event::Expired => self.metrics.expired(&name),
                Event::Quarantined => {
                    self.metrics.expired(&name);
                    self.metrics.quarantined(&name);
                }
                Event::Released => {}
            }
            campaign.track(unit, record, 0);
        }
        Ok(())
    }
}
