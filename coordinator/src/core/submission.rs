//! Submissions: judging a worker's result against its unit's state, then accepting it
//! (one atomic store write), comparing it with the stored result (a differing one goes
//! to `disputes`), or charging the unit a failure, once per identity. A result proven
//! wrong also distrusts its sender. Seed and exhaustive units differ only in their
//! checks and what is stored.

use super::campaign_state::{CampaignState, Kind};
use super::checks::{check_contents, check_integrity, CheckedResult, ContentChecks};
use super::exhaustive::{
    check_exhaustive, check_exhaustive_integrity, unit_board, unit_work, ReSolving,
};
use super::hardest::Bar;
use super::identity::secret_draw;
use super::replication::checks_short_of_share;
use super::{
    Coordinator, CoordinatorError, ExhaustiveUnit, LeaseRef, Outcome, Rejection, Result, State,
    Submission,
};
use crate::stages::Stage;
use ricochet::solver::DEFAULT_MAX_MOVES;
use rrm_model::{
    CampaignSpec, ExhaustiveRecord, ExhaustiveSpec, UnitRecord, UnitState, Verification,
};
use rrm_store::UnitResult;

/// A result that passed its content checks, with what it stores.
pub(super) enum Checked<'a> {
    Seeds {
        checked: CheckedResult,
        move_counts: &'a [u8],
        robots_moved: &'a [u8],
    },
    Exhaustive(ExhaustiveRecord),
}

/// What [`Coordinator::lookup`] finds for a lease: the campaign's kind and spec and
/// the unit's record.
#[derive(Clone)]
pub(super) struct Found {
    pub(super) kind: Kind,
    pub(super) spec: CampaignSpec,
    pub(super) record: UnitRecord,
    /// What a kept puzzle must pass to be shown among the campaign's hardest.
    pub(super) shown_bar: Bar,
    /// The sender has not earned trust yet (see `standing`): its seed unit is solved
    /// again in full.
    pub(super) solve_in_full: bool,
}

/// What a seed unit's Submit may carry, known from its unit before the Submit is
/// unpacked: so many move counts, at most `kept` solutions besides those of its record
/// candidates (seeds of `record_threshold` moves or more), none of more than
/// `max_line` moves (the coordinator's own search limit; a Ricocheckers line holds both
/// sides' moves).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubmitBounds {
    pub seeds: usize,
    pub kept: usize,
    pub record_threshold: u8,
    pub max_line: u8,
}

impl Coordinator {
    /// The bounds of a Submit for `lease`'s unit; `None` for an exhaustive unit (its
    /// result has no move counts).
    pub fn submit_bounds(&self, lease: &LeaseRef) -> Result<Option<SubmitBounds>> {
        let state = self.lock();
        let campaign = state.campaign(&lease.campaign)?;
        let spec = &campaign.campaign.spec;
        if lease.unit >= spec.units_total() {
            return Err(CoordinatorError::UnknownUnit {
                campaign: lease.campaign.to_string(),
                unit: lease.unit,
            });
        }
        Ok(match campaign.kind {
            Kind::Exhaustive(_) => None,
            Kind::Seeds(dealer) => {
                let seeds = spec.unit_seeds(lease.unit);
                Some(SubmitBounds {
                    seeds: (seeds.end - seeds.start) as usize,
                    kept: crate::kept_per_unit(self.config.top_count, spec.unit_size) as usize,
                    record_threshold: spec.record_threshold,
                    max_line: match dealer.generator {
                        ricochet::Generator::Ricocheckers => {
                            dealer.max_moves(DEFAULT_MAX_MOVES).saturating_mul(2)
                        }
                        _ => dealer.max_moves(DEFAULT_MAX_MOVES),
                    },
                })
            }
        })
    }

    /// Takes a worker's result. Malformed submissions (unknown unit or lease, wrong
    /// length, bad digest) and those of distrusted identities change nothing; refused
    /// contents count as a failure of the unit, and distrust their sender when they
    /// prove it wrong. A result taken earns its identity lease credit.
    pub fn submit(&self, submission: Submission) -> Result<Outcome> {
        let identity = submission.identity.clone();
        let outcome = self.judge(submission)?;
        if matches!(outcome, Outcome::Accepted | Outcome::Verified) {
            (self.lock().credit).earned(&identity, std::time::Instant::now());
        }
        Ok(outcome)
    }

    /// [`Coordinator::submit`]'s verdict, judged again when the unit changed meanwhile.
    pub(super) fn judge(&self, submission: Submission) -> Result<Outcome> {
        let found = self.lookup(&submission.lease, &submission.identity)?;
        let lease = &submission.lease;
        let digest = match &found.kind {
            Kind::Seeds(_) => {
                check_integrity(&submission, &found.spec, found.spec.unit_seeds(lease.unit))?
            }
            Kind::Exhaustive(exhaustive) => {
                check_exhaustive_integrity(&submission, &work_of(exhaustive, lease)?)?
            }
        };
        if lease.lease == 0 || lease.lease > found.record.leases_issued {
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
        match &found.record.state {
            UnitState::Done { .. } => self.compare(&found, &submission, digest),
            UnitState::Quarantined => Err(CoordinatorError::Quarantined(lease.unit)),
            UnitState::Leased(held) if held.number != lease.lease => Err(stale(Some(held.number))),
            UnitState::Leased(held) if held.identity != submission.identity => Err(not_yours()),
            UnitState::Leased(_) => self.check_and_accept(&found, &submission, digest),
            // The unit's last lease expired and nobody has it yet: its holder's result is
            // still welcome.
            UnitState::Pending {
                expired: Some(held),
            } if held.number == lease.lease => {
                if held.identity == submission.identity {
                    self.check_and_accept(&found, &submission, digest)
                } else {
                    Err(not_yours())
                }
            }
            UnitState::Pending { .. } => Err(stale(None)),
        }
    }

    /// Checks a fresh result's contents; accepts it, or refuses it.
    fn check_and_accept(
        &self,
        found: &Found,
        submission: &Submission,
        digest: [u8; 32],
    ) -> Result<Outcome> {
        // An established identity's unit is checked on its secret schedule (this
        // process's own worker is the coordinator's own solver): a seed unit by the
        // coordinator solving it in full now, an exhaustive one by another identity.
        let due = !found.solve_in_full
            && !submission.own_process
            && (self.lock().checks).due(
                &submission.identity,
                self.config.verify_share,
                secret_draw,
            );
        let in_full;
        let found = match (&found.kind, due) {
            (Kind::Seeds(_), true) => {
                in_full = Found {
                    solve_in_full: true,
                    ..found.clone()
                };
                &in_full
            }
            _ => found,
        };
        match self.check_fresh(found, submission)? {
            Ok(checked) => self.accept(submission, digest, checked, found.solve_in_full, due),
            Err(rejection) => Err(self.refuse(submission, rejection)?),
        }
    }

    /// The content checks of a result (see `checks` and `exhaustive::checks`).
    pub(super) fn check_fresh<'a>(
        &self,
        found: &Found,
        submission: &'a Submission,
    ) -> Result<Result<Checked<'a>, Rejection>> {
        Ok(match (&found.kind, &submission.exhaustive) {
            (Kind::Seeds(dealer), _) => {
                let started = std::time::Instant::now();
                let checked = check_contents(
                    *dealer,
                    &found.spec,
                    found.spec.unit_seeds(submission.lease.unit),
                    submission,
                    self.content_checks(found, submission.own_process),
                );
                if found.solve_in_full {
                    // What the checks cost apart from what every Submit costs.
                    self.metrics.stages().since(Stage::SolvingInFull, started);
                }
                checked.map(|checked| Checked::Seeds {
                    checked,
                    move_counts: &submission.move_counts,
                    robots_moved: &submission.robots_moved,
                })
            }
            (Kind::Exhaustive(exhaustive), Some(result)) => {
                let work = work_of(exhaustive, &submission.lease)?;
                check_exhaustive(
                    &work,
                    &unit_board(&work)?,
                    result,
                    submission.cpu_ms,
                    ReSolving::WORKER,
                )
                .map(Checked::Exhaustive)
            }
            // Refused by the integrity check already.
            (Kind::Exhaustive(_), None) => Err(Rejection::WrongKind {
                expected: "an exhaustive campaign",
                got: "seed",
            }),
        })
    }

    /// The checks of a seed unit's contents: all its seeds solved again for a sender on
    /// probation; none drawn and the shown list taken as solved for this process's own
    /// worker, whose seeds this process's solver has just solved (record candidates are
    /// solved again whoever sends them).
    fn content_checks(&self, found: &Found, own_process: bool) -> ContentChecks {
        let (spot_checks, spot_share, shown_bar) = match (found.solve_in_full, own_process) {
            (true, _) => (u32::MAX, 1.0, found.shown_bar),
            (false, true) => (0, 0.0, Bar::closed()),
            (false, false) => (
                self.config.spot_checks,
                super::checks::SPOT_SHARE,
                found.shown_bar,
            ),
        };
        ContentChecks {
            shown_bar,
            top_count: crate::kept_per_unit(self.config.top_count, found.spec.unit_size),
            max_moves: DEFAULT_MAX_MOVES,
            spot_checks,
            spot_share,
        }
    }

    /// Charges a refused fresh result to the unit (once per identity) and distrusts its
    /// sender when the refusal proves it wrong; returns the refusal.
    pub(super) fn refuse(
        &self,
        submission: &Submission,
        rejection: Rejection,
    ) -> Result<CoordinatorError> {
        let lease = &submission.lease;
        let mut state = self.lock();
        // A sender distrusted meanwhile (by a refusal checked beside this one) is charged
        // nothing more: its leases went back when it was distrusted.
        if state.distrusted.contains_key(&submission.identity) {
            return Ok(CoordinatorError::Distrusted(submission.identity.clone()));
        }
        let (campaign, mut record) = state.looked_up(lease);
        // Only the current lease is charged (an expired one was charged when it expired).
        if matches!(&record.state, UnitState::Leased(held) if held.number == lease.lease) {
            record.state = UnitState::Pending { expired: None };
            let why = rejection.to_string();
            record.charge_failure(&submission.identity, why, self.config.max_failures);
            self.store
                .put_unit(campaign.campaign.id, lease.unit, &record)?;
            if matches!(record.state, UnitState::Quarantined) {
                self.metrics.quarantined(&lease.campaign);
            }
            campaign.track(lease.unit, record, 0);
        }
        if rejection.proves_wrong() {
            let reason = format!(
                "campaign {} unit {}: {rejection}",
                lease.campaign, lease.unit
            );
            self.distrust(&mut state, &submission.identity, reason)?;
        }
        Ok(rejection.into())
    }

    /// Whether the producer of `found`'s done unit is distrusted.
    fn producer_distrusted(&self, found: &Found) -> bool {
        let UnitState::Done { producer, .. } = &found.record.state else {
            return false;
        };
        self.lock().distrusted.contains_key(producer)
    }

    /// The campaign's kind and spec and the unit's record, for judging a lease; refuses
    /// a distrusted sender.
    pub(super) fn lookup(&self, lease: &LeaseRef, identity: &str) -> Result<Found> {
        let state = self.lock();
        Self::check_trusted(&state, identity)?;
        let campaign = state.campaign(&lease.campaign)?;
        let record = campaign.records.get(&lease.unit).cloned().ok_or_else(|| {
            if lease.unit < campaign.campaign.spec.units_total() {
                unknown_lease(lease)
            } else {
                CoordinatorError::UnknownUnit {
                    campaign: lease.campaign.to_string(),
                    unit: lease.unit,
                }
            }
        })?;
        let solve_in_full = matches!(campaign.kind, Kind::Seeds(_))
            && !state
                .standing
                .established(identity, self.config.trust_after);
        Ok(Found {
            kind: campaign.kind.clone(),
            spec: campaign.campaign.spec.clone(),
            record,
            shown_bar: campaign.hardest.bar(),
            solve_in_full,
        })
    }

    /// A result for a unit already done: a duplicate, a verification, or a dispute.
    fn compare(&self, found: &Found, submission: &Submission, digest: [u8; 32]) -> Result<Outcome> {
        let lease = &submission.lease;
        let UnitState::Done { digest: stored, .. } = &found.record.state else {
            unreachable!("compare is called for done units");
        };
        if *stored != digest {
            return self.dispute(found, submission, digest);
        }
        let verifying_at_lookup = matches!(&found.record.state,
            UnitState::Done { verification: Verification::Leased(held), .. }
                if held.number == lease.lease && held.identity == submission.identity);
        // The checker may be the producer's colluder: an agreement is not enough. A seed
        // unit's is the coordinator's own full solve (as a scheduled check is), and so is
        // an exhaustive unit's for a distrusted producer or a secret share of the others.
        // Passing, the check still counts as the other identity's agreement.
        let distrusted = self.producer_distrusted(found);
        match &found.kind {
            Kind::Exhaustive(spec)
                if verifying_at_lookup
                    && (distrusted || secret_draw() < self.config.own_analysis_share) =>
            {
                let own = self.own_analysis(spec, lease)?;
                if own != digest {
                    let rejection = Rejection::OwnAnalysisDiffers;
                    return self.refute_agreement(found, submission, digest, rejection);
                }
            }
            Kind::Seeds(_) if verifying_at_lookup || distrusted => {
                let in_full = Found {
                    solve_in_full: true,
                    ..found.clone()
                };
                if let Err(rejection) = self.check_fresh(&in_full, submission)? {
                    // The stored result goes only if its counts are refuted: a checker
                    // that attaches a bad solution to right counts is wrong alone. A
                    // distrusted producer's result is out already, or goes to another check.
                    return match !distrusted && rejection.refutes_counts() {
                        true => self.refute_agreement(found, submission, digest, rejection),
                        false => Err(self.refuse(submission, rejection)?),
                    };
                }
            }
            _ => {}
        }
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
            return self.judge(submission.clone());
        };
        if *stored != digest {
            drop(state);
            return self.judge(submission.clone());
        }
        let verifying = matches!(verification, Verification::Leased(held)
            if held.number == lease.lease && held.identity == submission.identity);
        if !verifying {
            return Ok(Outcome::Duplicate);
        }
        *verification = Verification::Agreed {
            by: submission.identity.clone(),
        };
        let producer = match &record.state {
            UnitState::Done { producer, .. } => producer.clone(),
            _ => unreachable!("matched as done above"),
        };
        self.store
            .put_unit(campaign.campaign.id, lease.unit, &record)?;
        campaign.track(lease.unit, record, 0);
        state.standing.confirmed(&producer);
        self.settle_pending_for_stored(&mut state, lease)?;
        Ok(Outcome::Verified)
    }

    /// Stores a checked fresh result as the unit's, if its lease is still the open one.
    /// Whether another identity checks it is drawn in secret here.
    fn accept(
        &self,
        submission: &Submission,
        digest: [u8; 32],
        checked: Checked<'_>,
        solved_in_full: bool,
        due: bool,
    ) -> Result<Outcome> {
        let lease = &submission.lease;
        let mut state = self.lock();
        Self::check_trusted(&state, &submission.identity)?;
        let commit = state.next_commit;
        let (_, mut record) = state.looked_up(lease);
        let still_open = match &record.state {
            UnitState::Leased(held) => held.number == lease.lease,
            UnitState::Pending {
                expired: Some(held),
            } => held.number == lease.lease && held.identity == submission.identity,
            _ => false,
        };
        if !still_open {
            drop(state);
            // Someone else's result or an expiry came first; judge it again.
            return self.judge(submission.clone());
        }
        record.state = UnitState::Done {
            digest,
            producer: submission.identity.clone(),
            commit,
            verification: match solved_in_full {
                true => Verification::Confirmed,
                false => {
                    let established = state
                        .standing
                        .established(&submission.identity, self.config.trust_after);
                    self.draw_verification(&checked, established, due)
                }
            },
        };
        if let Some(granted) = state.stalls.granted(lease) {
            let campaign = (state.campaigns.get_mut(lease.campaign.as_str()))
                .expect("campaigns are never removed");
            campaign.note_unit_time(granted.elapsed());
        }
        self.write_done(&mut state, &lease.campaign, lease.unit, record, checked)?;
        if solved_in_full {
            state.standing.confirmed(&submission.identity);
        }
        Ok(Outcome::Accepted)
    }

    /// Whether another identity checks a result: when its producer's schedule says so
    /// (`due`), and always for an exhaustive unit whose maximum reaches
    /// `verify_from_moves` or whose producer is not `established` (a seed unit of such a
    /// producer was solved in full instead).
    pub(super) fn draw_verification(
        &self,
        checked: &Checked<'_>,
        established: bool,
        due: bool,
    ) -> Verification {
        let exhaustive_check = matches!(checked, Checked::Exhaustive(record)
            if record.result.max_moves >= self.config.verify_from_moves || !established);
        if exhaustive_check || due {
            Verification::Pending
        } else {
            Verification::NotChosen
        }
    }

    /// Marks for a check the done units a campaign lacks to reach the verify share once
    /// its last unit is done (see [`super::replication::checks_short_of_share`]). Only
    /// then: opening a store changes nothing in it.
    pub(super) fn top_up_checks(&self, campaign: &mut CampaignState) -> Result<()> {
        if !campaign.finished_but_checks() {
            return Ok(());
        }
        let chosen = checks_short_of_share(&campaign.records, self.config.verify_share, |n| {
            ((secret_draw() * n as f64) as usize).min(n - 1)
        });
        if !chosen.is_empty() {
            tracing::info!(
                campaign = %campaign.campaign.spec.name,
                units = chosen.len(),
                "finished short of the verify share: more units go to a check"
            );
        }
        for unit in chosen {
            let mut record = campaign.records[&unit].clone();
            if let UnitState::Done { verification, .. } = &mut record.state {
                *verification = Verification::Pending;
            }
            self.store.put_unit(campaign.campaign.id, unit, &record)?;
            campaign.track(unit, record, 0);
        }
        Ok(())
    }

    /// Stores a checked result with the unit's record (already `Done` with commit
    /// `state.next_commit`) in one atomic write, then updates memory.
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
        let writing = std::time::Instant::now();
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
                campaign.hardest.add(&checked.hardest);
            }
            Checked::Exhaustive(result) => {
                self.store
                    .commit_exhaustive((id, unit), &record, &result, commit)?;
                campaign.exhaustive.insert(unit, result);
            }
        }
        self.metrics.stages().since(Stage::StoreWrite, writing);
        let seeds = campaign.campaign.spec.unit_seeds(unit);
        self.metrics.completed(name, seeds.end - seeds.start);
        campaign.aggregates.through_commit = commit;
        campaign.track(unit, record, 0);
        campaign.note_progress(std::time::Instant::now());
        state.next_commit += 1;
        self.top_up_checks(campaign)
    }
}

impl State {
    /// The campaign of a lease [`Coordinator::lookup`] found (campaigns are never
    /// removed) and a copy of its unit's record to change.
    pub(super) fn looked_up(&mut self, lease: &LeaseRef) -> (&mut CampaignState, UnitRecord) {
        let campaign = self
            .campaigns
            .get_mut(lease.campaign.as_str())
            .expect("campaigns are never removed");
        let record = campaign.records[&lease.unit].clone();
        (campaign, record)
    }
}

/// The work of an exhaustive lease's unit.
pub(super) fn work_of(spec: &ExhaustiveSpec, lease: &LeaseRef) -> Result<ExhaustiveUnit> {
    unit_work(spec, lease.unit).ok_or_else(|| CoordinatorError::UnknownUnit {
        campaign: lease.campaign.to_string(),
        unit: lease.unit,
    })
}

fn unknown_lease(lease: &LeaseRef) -> CoordinatorError {
    CoordinatorError::UnknownLease {
        campaign: lease.campaign.to_string(),
        unit: lease.unit,
        lease: lease.lease,
    }
}
