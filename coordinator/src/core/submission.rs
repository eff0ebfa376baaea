//! Submissions: judging a worker's result against its unit's state, then accepting it
//! (one store transaction), comparing it with the stored result, or charging the unit a
//! failure. Seed and exhaustive units differ only in their checks and what is stored.

use super::campaign_state::{CampaignState, Kind};
use super::checks::{check_contents, check_integrity, unit_hash, CheckedResult};
use super::exhaustive::{check_exhaustive, check_exhaustive_integrity, unit_board, unit_work};
use super::{
    Coordinator, CoordinatorError, ExhaustiveUnit, LeaseRef, Outcome, Result, State, Submission,
};
use ricochet::solver::DEFAULT_MAX_MOVES;
use rrm_store::{
    CampaignSpec, ExhaustiveRecord, ExhaustiveSpec, Mismatch, UnitRecord, UnitResult, UnitState,
    Verification,
};

/// A fresh result that passed its checks, with what it stores.
pub(super) enum Checked<'a> {
    Seeds {
        checked: CheckedResult,
        move_counts: &'a [u8],
        robots_moved: &'a [u8],
    },
    Exhaustive(ExhaustiveRecord),
}

/// Units up to this many seeds are checked in microseconds (see [`Coordinator::is_quick`]).
const QUICK_UNIT: usize = 1024;

impl Coordinator {
    /// Takes a worker's result. Malformed submissions (unknown unit or lease, wrong
    /// length, bad digest) change nothing; refused contents count as a failure of the
    /// unit.
    pub fn submit(&self, submission: Submission) -> Result<Outcome> {
        let (kind, spec, record) = self.lookup(&submission.lease)?;
        let lease = &submission.lease;
        let digest = match &kind {
            Kind::Seeds(_) => check_integrity(&submission, &spec, spec.unit_seeds(lease.unit))?,
            Kind::Exhaustive(exhaustive) => {
                check_exhaustive_integrity(&submission, &work_of(exhaustive, lease)?)?
            }
        };
        if lease.lease == 0 || lease.lease > record.leases_issued {
            return Err(unknown_lease(lease));
        }
        let stale = |superseded_by| CoordinatorError::StaleLease {
            unit: lease.unit,
            lease: lease.lease,
            superseded_by,
        };
        let not_yours = || CoordinatorError::NotYourLease {
            unit: lease.unit,
            lease: lease.lease,
        };
        match &record.state {
            UnitState::Done { .. } => self.compare(&submission, digest),
            UnitState::Quarantined => Err(CoordinatorError::Quarantined(lease.unit)),
            UnitState::Leased(held) if held.number != lease.lease => Err(stale(Some(held.number))),
            UnitState::Leased(held) if held.worker != submission.worker => Err(not_yours()),
            UnitState::Leased(_) => self.check_and_accept(&kind, &spec, &submission, digest),
            // The unit's last lease expired and nobody has it yet: its holder's result is
            // still welcome.
            UnitState::Pending {
                expired: Some(held),
            } if held.number == lease.lease => {
                if held.worker == submission.worker {
                    self.check_and_accept(&kind, &spec, &submission, digest)
                } else {
                    Err(not_yours())
                }
            }
            UnitState::Pending { .. } => Err(stale(None)),
        }
    }

    /// Whether checking `submission` takes only microseconds: a small unit without record
    /// candidates to re-solve. Others (and every exhaustive result, whose placements are
    /// re-solved) are best checked off the async threads.
    pub fn is_quick(&self, submission: &Submission) -> bool {
        if submission.exhaustive.is_some() {
            return false;
        }
        let state = self.lock();
        let threshold = state
            .campaigns
            .get(&submission.lease.campaign)
            .map_or(0, |c| c.campaign.spec.record_threshold);
        submission.move_counts.len() <= QUICK_UNIT
            && submission.move_counts.iter().all(|&m| m < threshold)
    }

    /// Checks a fresh result's contents; accepts it, or charges the unit a failure.
    fn check_and_accept(
        &self,
        kind: &Kind,
        spec: &CampaignSpec,
        submission: &Submission,
        digest: [u8; 32],
    ) -> Result<Outcome> {
        let checked = match (kind, &submission.exhaustive) {
            (Kind::Seeds(generator), _) => check_contents(
                *generator,
                spec,
                spec.unit_seeds(submission.lease.unit),
                submission,
                self.config.top_count,
                DEFAULT_MAX_MOVES,
            )
            .map(|checked| Checked::Seeds {
                checked,
                move_counts: &submission.move_counts,
                robots_moved: &submission.robots_moved,
            }),
            (Kind::Exhaustive(exhaustive), Some(result)) => {
                let work = work_of(exhaustive, &submission.lease)?;
                check_exhaustive(&work, &unit_board(&work)?, result).map(Checked::Exhaustive)
            }
            // Refused by the integrity check already.
            (Kind::Exhaustive(_), None) => Err(super::Rejection::WrongKind {
                expected: "an exhaustive campaign",
                got: "seed",
            }),
        };
        match checked {
            Ok(checked) => self.accept(submission, digest, checked),
            Err(rejection) => {
                self.count_failure(&submission.lease, &rejection.to_string())?;
                Err(rejection.into())
            }
        }
    }

    /// The campaign's kind and spec and the unit's record, for judging a lease.
    fn lookup(&self, lease: &LeaseRef) -> Result<(Kind, CampaignSpec, UnitRecord)> {
        let state = self.lock();
        let campaign = state.campaign(&lease.campaign)?;
        let record = campaign.records.get(&lease.unit).cloned().ok_or_else(|| {
            if lease.unit < campaign.campaign.spec.units_total() {
                unknown_lease(lease)
            } else {
                CoordinatorError::UnknownUnit {
                    campaign: lease.campaign.clone(),
                    unit: lease.unit,
                }
            }
        })?;
        Ok((
            campaign.kind.clone(),
            campaign.campaign.spec.clone(),
            record,
        ))
    }

    /// A result for a unit already done: a duplicate, a verification, or a mismatch.
    fn compare(&self, submission: &Submission, digest: [u8; 32]) -> Result<Outcome> {
        let lease = &submission.lease;
        let mut state = self.lock();
        let (campaign, mut record) = state.looked_up(lease);
        let UnitState::Done {
            digest: stored,
            verification,
            ..
        } = &mut record.state
        else {
            drop(state);
            // Its state changed since the lookup; judge it again.
            return self.submit(submission.clone());
        };
        let agrees = *stored == digest;
        let verifying = matches!(verification, Verification::Leased(held)
            if held.number == lease.lease && held.worker == submission.worker);
        if agrees && !verifying {
            return Ok(Outcome::Duplicate);
        }
        if !agrees {
            let mismatch = Mismatch {
                unit: lease.unit,
                worker: submission.worker,
                detail: format!(
                    "lease {}: the result differs from the stored one",
                    lease.lease
                ),
            };
            self.store.add_mismatch(campaign.campaign.id, &mismatch)?;
            self.metrics.mismatched(&lease.campaign);
        }
        if verifying {
            let worker = submission.worker;
            *verification = if agrees {
                Verification::Agreed { worker }
            } else {
                Verification::Disagreed { worker }
            };
            self.store
                .put_unit(campaign.campaign.id, lease.unit, &record)?;
            campaign.track(lease.unit, record, 0);
        }
        Ok(if agrees {
            Outcome::Verified
        } else {
            Outcome::Mismatch
        })
    }

    /// Stores a checked fresh result as the unit's, if its lease is still the open one.
    fn accept(
        &self,
        submission: &Submission,
        digest: [u8; 32],
        checked: Checked<'_>,
    ) -> Result<Outcome> {
        let lease = &submission.lease;
        let mut state = self.lock();
        let commit = state.next_commit;
        let (campaign, mut record) = state.looked_up(lease);
        let still_open = match &record.state {
            UnitState::Leased(held) => held.number == lease.lease,
            UnitState::Pending {
                expired: Some(held),
            } => held.number == lease.lease && held.worker == submission.worker,
            _ => false,
        };
        if !still_open {
            drop(state);
            // Someone else's result or an expiry came first; judge it again.
            return self.submit(submission.clone());
        }
        let chosen = self.config.verify_share > 0.0
            && unit_hash(campaign.campaign.id, lease.unit) < self.config.verify_share;
        record.state = UnitState::Done {
            digest,
            worker: submission.worker,
            commit,
            verification: if chosen {
                Verification::Pending
            } else {
                Verification::NotChosen
            },
        };
        self.write_done(&mut state, &lease.campaign, lease.unit, record, checked)?;
        Ok(Outcome::Accepted)
    }

    /// Stores a checked result with the unit's record (already `Done` with commit
    /// `state.next_commit`) in one transaction, then updates memory.
    pub(super) fn write_done(
        &self,
        state: &mut State,
        name: &str,
        unit: u64,
        record: UnitRecord,
        checked: Checked<'_>,
    ) -> Result<()> {
        let commit = state.next_commit;
        let campaign = state
            .campaigns
            .get_mut(name)
            .expect("campaigns are never removed");
        let id = campaign.campaign.id;
        match checked {
            Checked::Seeds {
                checked,
                move_counts,
                robots_moved,
            } => {
                self.store.commit_result(&UnitResult {
                    campaign: id,
                    unit,
                    record: &record,
                    move_counts,
                    robots_moved,
                    hardest: &checked.hardest,
                    commit,
                })?;
                campaign.aggregates.merge(&checked.aggregates);
            }
            Checked::Exhaustive(result) => {
                self.store
                    .commit_exhaustive((id, unit), &record, &result, commit)?;
                campaign.exhaustive.insert(unit, result);
            }
        }
        let seeds = campaign.campaign.spec.unit_seeds(unit);
        self.metrics.completed(name, seeds.end - seeds.start);
        campaign.aggregates.through_commit = commit;
        campaign.track(unit, record, 0);
        campaign.note_progress();
        state.next_commit += 1;
        Ok(())
    }

    /// Charges the unit of `lease` a failure for a refused result, if that lease is
    /// still the current one (an expired lease was charged when it expired).
    fn count_failure(&self, lease: &LeaseRef, why: &str) -> Result<()> {
        let mut state = self.lock();
        let (campaign, mut record) = state.looked_up(lease);
        if !matches!(record.state, UnitState::Leased(held) if held.number == lease.lease) {
            return Ok(());
        }
        record.state = UnitState::Pending { expired: None };
        self.charge_failure(&mut record, why.to_string());
        self.store
            .put_unit(campaign.campaign.id, lease.unit, &record)?;
        if matches!(record.state, UnitState::Quarantined) {
            self.metrics.quarantined(&lease.campaign);
        }
        campaign.track(lease.unit, record, 0);
        Ok(())
    }
}

impl State {
    /// The campaign of a lease [`Coordinator::lookup`] found (campaigns are never
    /// removed) and a copy of its unit's record to change.
    fn looked_up(&mut self, lease: &LeaseRef) -> (&mut CampaignState, UnitRecord) {
        let campaign = self
            .campaigns
            .get_mut(&lease.campaign)
            .expect("campaigns are never removed");
        let record = campaign.records[&lease.unit].clone();
        (campaign, record)
    }
}

/// The work of an exhaustive lease's unit.
fn work_of(spec: &ExhaustiveSpec, lease: &LeaseRef) -> Result<ExhaustiveUnit> {
    unit_work(spec, lease.unit).ok_or_else(|| CoordinatorError::UnknownUnit {
        campaign: lease.campaign.clone(),
        unit: lease.unit,
    })
}

fn unknown_lease(lease: &LeaseRef) -> CoordinatorError {
    CoordinatorError::UnknownLease {
        campaign: lease.campaign.clone(),
        unit: lease.unit,
        lease: lease.lease,
    }
}
