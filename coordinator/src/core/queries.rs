//! Read-only questions about campaigns: progress, statistics, the hardest puzzles, one
//! mined seed, seeds by move count for packs, and the live figures `/metrics` reads.

use super::campaign_state::{current_lease, CampaignState, Kind};
use super::exhaustive::hardest_moves;
use super::{CampaignStatus, Coordinator, CoordinatorError, MinedPuzzle, QuarantinedUnit, Result};
use crate::unix_ms;
use ricochet::Dealer;
use rrm_model::UNSOLVED;
use rrm_model::{Aggregates, CampaignSpec, HardEntry, UnitState, Verification};
use std::collections::HashSet;
use std::ops::RangeInclusive;
use std::time::Instant;

/// What the metrics read at scrape time rather than count.
pub(crate) struct LiveFigures {
    /// Each campaign's name and recent rate ([`CampaignStatus::seeds_per_second`]).
    pub(crate) rates: Vec<(String, f64)>,
    /// Distinct workers holding a lease (main or verification) whose deadline is ahead.
    pub(crate) workers_holding_leases: usize,
    /// Worker registrations kept.
    pub(crate) registrations: usize,
}

impl Coordinator {
    /// The names of every campaign, in order.
    pub fn campaign_names(&self) -> Vec<String> {
        self.lock()
            .campaigns
            .keys()
            .map(|name| name.to_string())
            .collect()
    }

    /// Worker registrations kept now (`rrm_registrations`).
    pub fn registrations(&self) -> usize {
        self.lock().workers.len()
    }

    /// Rates and lease holders now, under one look at the state.
    pub(crate) fn live_figures(&self) -> LiveFigures {
        let now = unix_ms();
        let state = self.lock();
        let mut holders = HashSet::new();
        for campaign in state.campaigns.values() {
            holders.extend(
                campaign
                    .leased
                    .iter()
                    .filter_map(|unit| current_lease(&campaign.records[unit]))
                    .filter(|lease| lease.deadline_unix_ms >= now)
                    .map(|lease| lease.worker),
            );
        }
        LiveFigures {
            rates: state
                .campaigns
                .iter()
                .map(|(name, campaign)| (name.to_string(), campaign.rate(Instant::now())))
                .collect(),
            workers_holding_leases: holders.len(),
            registrations: state.workers.len(),
        }
    }

    /// The progress of campaign `name`, with its quarantined units and mismatches.
    pub fn status(&self, name: &str) -> Result<CampaignStatus> {
        let state = self.lock();
        let campaign = state.campaign(name)?;
        let mut status = CampaignStatus {
            campaign: campaign.campaign.clone(),
            units_total: campaign.campaign.spec.units_total(),
            units_done: campaign.units_done,
            units_leased: campaign.leased.len() as u64,
            units_quarantined: 0,
            units_verified: 0,
            units_to_check: campaign.to_verify.len() as u64,
            seeds_done: campaign.seeds_done,
            hardest_moves: match campaign.kind {
                Kind::Seeds(_) => campaign.aggregates.max_moves(),
                Kind::Exhaustive(_) => hardest_moves(&campaign.exhaustive),
            },
            seeds_per_second: campaign.rate(Instant::now()),
            placements_per_unit: campaign.placements_per_unit,
            seeds_in_progress: state.seeds_in_progress(name),
            quarantined: Vec::new(),
            mismatches: self.store.mismatches(campaign.campaign.id)?,
            distrusted: state.distrusted.values().cloned().collect(),
        };
        for (&unit, record) in &campaign.records {
            match &record.state {
                UnitState::Quarantined => {
                    status.units_quarantined += 1;
                    status.quarantined.push(QuarantinedUnit {
                        unit,
                        failures: record.failures(),
                        last_error: record.last_error.clone().unwrap_or_default(),
                    });
                }
                // Checked by a second computation: another identity's, or the
                // coordinator's own full solve.
                UnitState::Done {
                    verification: Verification::Agreed { .. } | Verification::Confirmed,
                    ..
                } => status.units_verified += 1,
                _ => {}
            }
        }
        Ok(status)
    }

    /// The statistics of campaign `name` (for an exhaustive one, see
    /// [`Coordinator::stats`]).
    pub fn aggregates(&self, name: &str) -> Result<Aggregates> {
        Ok(self.stats(name)?.aggregates)
    }

    /// The generator and rules of seed campaign `name`.
    pub fn dealer(&self, name: &str) -> Result<Dealer> {
        seeds_of(self.lock().campaign(name)?)
    }

    /// At most `limit` of the kept puzzles needing at least `min_moves`, hardest first.
    pub fn hardest(&self, name: &str, limit: usize, min_moves: u8) -> Result<Vec<MinedPuzzle>> {
        let id = self.lock().campaign(name)?.campaign.id;
        Ok(self
            .store
            .hardest(id, limit, min_moves)?
            .into_iter()
            .map(|entry| mined(name, entry))
            .collect())
    }

    /// One mined seed: its move count, and its solution if it was kept.
    pub fn puzzle(&self, name: &str, seed: u64) -> Result<MinedPuzzle> {
        let (id, spec) = {
            let state = self.lock();
            let campaign = state.campaign(name)?;
            seeds_of(campaign)?;
            (campaign.campaign.id, campaign.campaign.spec.clone())
        };
        let unit = spec
            .unit_of(seed)
            .ok_or_else(|| CoordinatorError::SeedOutside {
                campaign: name.to_string(),
                seed,
                start: spec.seed_start,
                end: spec.seed_end,
            })?;
        let (counts, _) =
            self.store
                .unit_results(id, unit)?
                .ok_or_else(|| CoordinatorError::NotMined {
                    campaign: name.to_string(),
                    seed,
                })?;
        let moves = counts[(seed - spec.unit_seeds(unit).start) as usize];
        Ok(match self.store.hard_entry(id, moves, seed)? {
            Some(entry) => mined(name, entry),
            None => MinedPuzzle {
                campaign: name.to_string(),
                seed,
                moves,
                solution: Vec::new(),
                re_solved: false,
            },
        })
    }

    /// Mined seeds needing `moves` (inclusive range) moves, hardest first, then by seed
    /// (unsolved seeds never match);
    /// at most `limit`. Reads every done unit's block: for pack building, not hot paths.
    pub fn find_puzzles(
        &self,
        name: &str,
        moves: RangeInclusive<u8>,
        limit: usize,
    ) -> Result<Vec<(u64, u8)>> {
        let (id, spec, done): (u32, CampaignSpec, Vec<u64>) = {
            let state = self.lock();
            let campaign = state.campaign(name)?;
            seeds_of(campaign)?;
            let done = campaign
                .records
                .iter()
                .filter(|(_, r)| matches!(r.state, UnitState::Done { .. }))
                .map(|(&unit, _)| unit)
                .collect();
            (campaign.campaign.id, campaign.campaign.spec.clone(), done)
        };
        let mut found = Vec::new();
        for unit in done {
            if let Some((counts, _)) = self.store.unit_results(id, unit)? {
                let seeds = spec.unit_seeds(unit);
                // An unsolved seed (255) has no move count to match.
                found.extend(
                    seeds
                        .zip(counts)
                        .filter(|&(_, count)| count != UNSOLVED && moves.contains(&count)),
                );
            }
        }
        found.sort_by_key(|&(seed, count)| (std::cmp::Reverse(count), seed));
        found.truncate(limit);
        Ok(found)
    }
}

/// The generator and rules of a seed campaign; an exhaustive campaign is refused.
fn seeds_of(campaign: &CampaignState) -> Result<Dealer> {
    match campaign.kind {
        Kind::Seeds(dealer) => Ok(dealer),
        Kind::Exhaustive(_) => Err(CoordinatorError::WrongKind {
            campaign: campaign.campaign.spec.name.to_string(),
            expected: "a seed campaign",
        }),
    }
}

fn mined(campaign: &str, entry: HardEntry) -> MinedPuzzle {
    MinedPuzzle {
        campaign: campaign.to_string(),
        seed: entry.seed,
        moves: entry.moves,
        solution: entry.solution,
        re_solved: entry.re_solved,
    }
}
