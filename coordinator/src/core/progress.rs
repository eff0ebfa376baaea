//! Progress beyond the units' states: the seeds workers report solved in units they still
//! hold (from heartbeats; memory only, a restart forgets it until the next heartbeat), and
//! what is left for a worker that got no unit: nothing, only checks of its own identity's
//! results (which another identity must make), or work to come.

use super::campaign_state::CampaignState;
use super::{Coordinator, LeaseRef, State};
use rrm_model::{CampaignName, UnitState};
use std::collections::{BTreeMap, HashMap};

/// Seeds solved per held main lease as last reported: lease → (worker, seeds solved).
/// Bounded by the leases out: entries of ended leases are dropped at every report.
#[derive(Debug, Default)]
pub(super) struct LeaseProgress(HashMap<LeaseRef, (u64, u64)>);

impl Coordinator {
    /// True when there is at least one campaign and every campaign is finished: each unit
    /// done or quarantined, none pending, leased or awaiting a second opinion. Without
    /// campaigns a worker has nothing to be done with yet, so that is not "done".
    pub fn campaigns_done(&self) -> bool {
        self.lock().all_finished(CampaignState::finished)
    }

    /// What is left for `identity` when it got no unit.
    pub fn remaining_for(&self, identity: &str) -> Remaining {
        let state = self.lock();
        if state.all_finished(CampaignState::finished) {
            Remaining::Nothing
        } else if state.all_finished(|campaign| campaign.finished_for(identity)) {
            Remaining::OthersChecks
        } else {
            Remaining::Work
        }
    }
}

/// How much is left for one worker when it gets no unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Remaining {
    /// Units may still come its way (or there is no campaign yet).
    Work,
    /// Every campaign is finished.
    Nothing,
    /// Every campaign is finished but for checks of results its own identity produced,
    /// which another identity must make.
    OthersChecks,
}

impl State {
    /// Whether there is a campaign and every one is `finished`.
    fn all_finished(&self, finished: impl Fn(&CampaignState) -> bool) -> bool {
        !self.campaigns.is_empty() && self.campaigns.values().all(finished)
    }

    /// Keeps what `worker` reports in a heartbeat: `seeds_solved[i]` seeds of `leases[i]`,
    /// at most the unit's size (a worker's word, shown on the dashboard, must not claim
    /// more than the unit holds). Only leases it still holds count.
    pub(super) fn note_progress(&mut self, worker: u64, leases: &[LeaseRef], seeds_solved: &[u64]) {
        let progress = &mut self.progress.0;
        let campaigns = &self.campaigns;
        progress.retain(|_, (holder, _)| *holder != worker);
        for (lease, &seeds) in leases.iter().zip(seeds_solved) {
            let Some(campaign) = campaigns.get(lease.campaign.as_str()) else {
                continue;
            };
            if holds(campaigns, lease, worker) {
                let seeds = seeds.min(campaign.unit_work_size(lease.unit));
                progress.insert(lease.clone(), (worker, seeds));
            }
        }
        // Also forgets the reports of workers that went away without a word.
        progress.retain(|lease, (holder, _)| holds(campaigns, lease, *holder));
    }

    /// Seeds of campaign `name` solved in units still leased, as last reported.
    pub(super) fn seeds_in_progress(&self, name: &str) -> u64 {
        self.progress
            .0
            .iter()
            .filter(|(lease, (holder, _))| {
                lease.campaign == name && holds(&self.campaigns, lease, *holder)
            })
            .map(|(_, &(_, seeds))| seeds)
            .sum()
    }
}

/// Whether `worker` holds the main lease `lease` (a verification lease re-mines seeds
/// already counted done, so it is no progress).
fn holds(campaigns: &BTreeMap<CampaignName, CampaignState>, lease: &LeaseRef, worker: u64) -> bool {
    campaigns
        .get(lease.campaign.as_str())
        .and_then(|c| c.records.get(&lease.unit))
        .is_some_and(|record| {
            matches!(&record.state, UnitState::Leased(held) if held.number == lease.lease && held.worker == worker)
        })
}
