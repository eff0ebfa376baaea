//! Progress beyond the units' states: the seeds workers report solved in units they still
//! hold (from heartbeats; memory only, a restart forgets it until the next heartbeat), and
//! whether every campaign is finished (for workers that stop when there is nothing left).

use crate::core::{CampaignState, Coordinator, LeaseRef, State};
use rrm_store::UnitState;
use std::collections::{BTreeMap, HashMap};

/// Seeds solved per held main lease as last reported: (campaign, unit, lease number) →
/// (worker, seeds solved).
#[derive(Debug, Default)]
pub(crate) struct LeaseProgress(HashMap<(String, u64, u64), (u64, u64)>);

impl Coordinator {
    /// True when there is at least one campaign and every campaign is finished: each unit
    /// done or quarantined, none pending, leased or awaiting a second opinion. Without
    /// campaigns a worker has nothing to be done with yet, so that is not "done".
    pub fn campaigns_done(&self) -> bool {
        let state = self.lock();
        !state.campaigns.is_empty() && state.campaigns.values().all(CampaignState::finished)
    }

    /// Keeps what `worker` reports in a heartbeat: `seeds_solved[i]` seeds of `leases[i]`.
    /// Only leases it still holds count; reports for leases since ended are dropped.
    pub fn note_progress(&self, worker: u64, leases: &[LeaseRef], seeds_solved: &[u64]) {
        let mut guard = self.lock();
        let state = &mut *guard;
        let progress = &mut state.progress.0;
        progress.retain(|_, (holder, _)| *holder != worker);
        for (lease, &seeds) in leases.iter().zip(seeds_solved) {
            let key = (lease.campaign.clone(), lease.unit, lease.lease);
            progress.insert(key, (worker, seeds));
        }
        // Also forgets the reports of workers that went away without a word.
        progress.retain(|key, (holder, _)| holds(&state.campaigns, key, *holder));
    }
}

impl State {
    /// Seeds of campaign `name` solved in units still leased, as last reported.
    pub(crate) fn seeds_in_progress(&self, name: &str) -> u64 {
        self.progress
            .0
            .iter()
            .filter(|(key, (holder, _))| key.0 == name && holds(&self.campaigns, key, *holder))
            .map(|(_, &(_, seeds))| seeds)
            .sum()
    }
}

impl CampaignState {
    fn finished(&self) -> bool {
        self.next_unit >= self.campaign.spec.units_total()
            && self.pending.is_empty()
            && self.leased.is_empty()
            && self.to_verify.is_empty()
    }
}

/// Whether `worker` holds the main lease `key` (a verification lease re-mines seeds
/// already counted done, so it is no progress).
fn holds(
    campaigns: &BTreeMap<String, CampaignState>,
    (campaign, unit, lease): &(String, u64, u64),
    worker: u64,
) -> bool {
    campaigns
        .get(campaign)
        .and_then(|c| c.records.get(unit))
        .is_some_and(|record| {
            matches!(&record.state, UnitState::Leased(held) if held.number == *lease && held.worker == worker)
        })
}
