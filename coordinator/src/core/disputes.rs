//! Settling a result that differs from a done unit's stored one. The differing result
//! must first pass the checks of a fresh one. Then:
//!
//! - **Seed units:** the coordinator solves the seeds on which the two differ (all of
//!   them up to [`SETTLE_BUDGET`], else that many drawn in secret). Whoever is wrong on
//!   one is distrusted. A wrong stored result leaves the store and the statistics; the
//!   other takes its place when every difference was checked, else the unit is mined
//!   again.
//! - **Exhaustive units** (a whole analysis to redo): the unit goes to another identity;
//!   two identities agreeing against the stored result win, and one agreeing with it
//!   settles the mismatch for the stored result.

use super::campaign_state::Kind;
use super::checks::secret_sample;
use super::identity::distrust_record;
use super::recovery::add_unit;
use super::submission::{Checked, Found};
use super::{Coordinator, LeaseRef, Outcome, Rejection, Result, State, Submission};
use ricochet::solver::DEFAULT_MAX_MOVES;
use ricochet::Dealer;
use rrm_model::UNSOLVED;
use rrm_model::{Aggregates, Mismatch, Resolution, UnitRecord, UnitState, Verification};
use rrm_store::{Correction, StoreError};

/// Differing seeds the coordinator solves at most to settle one mismatch.
pub const SETTLE_BUDGET: u32 = 64;

/// What solving the differing seeds showed: the first seed each side got wrong.
#[derive(Debug, Default)]
struct Verdict {
    stored_wrong: Option<String>,
    sender_wrong: Option<String>,
    /// Every differing seed was solved.
    complete: bool,
}

impl Coordinator {
    /// A result differing from the stored one (see the module doc).
    pub(super) fn dispute(
        &self,
        found: &Found,
        submission: &Submission,
        digest: [u8; 32],
    ) -> Result<Outcome> {
        let checked = match self.check_fresh(found, submission)? {
            Ok(checked) => checked,
            Err(rejection) => {
                if rejection.proves_wrong() {
                    let detail = format!("the differing result is refused: {rejection}");
                    self.record_mismatch(found, submission, digest, detail, Resolution::StoredWon)?;
                }
                return Err(self.refuse(submission, rejection)?);
            }
        };
        match (&found.kind, checked) {
            (Kind::Seeds(dealer), checked @ Checked::Seeds { .. }) => {
                self.settle_seeds(found, *dealer, submission, digest, checked)
            }
            (_, checked) => self.settle_exhaustive(found, submission, digest, checked),
        }
    }

    fn settle_seeds(
        &self,
        found: &Found,
        dealer: Dealer,
        submission: &Submission,
        digest: [u8; 32],
        checked: Checked<'_>,
    ) -> Result<Outcome> {
        let lease = &submission.lease;
        let seeds = found.spec.unit_seeds(lease.unit);
        let (old_counts, old_robots) = self.stored_seed_result(lease)?;
        let stored: Vec<(u8, u8)> = old_counts
            .iter()
            .copied()
            .zip(old_robots.iter().copied())
            .collect();
        let sent: Vec<(u8, u8)> = submission
            .move_counts
            .iter()
            .copied()
            .zip(submission.robots_moved.iter().copied())
            .collect();
        let verdict = solve_differences(dealer, seeds.start, &stored, &sent);
        let resolution = match (&verdict.stored_wrong, &verdict.sender_wrong) {
            (None, _) => Resolution::StoredWon,
            (Some(_), None) if verdict.complete => Resolution::VerifierWon,
            (Some(_), _) => Resolution::Redone,
        };
        let detail = verdict.describe();
        if resolution == Resolution::StoredWon {
            self.record_mismatch(found, submission, digest, detail.clone(), resolution)?;
            if let Some(wrong) = verdict.sender_wrong {
                let mut state = self.lock();
                let reason = format!("campaign {} unit {}: {wrong}", lease.campaign, lease.unit);
                self.distrust(&mut state, &submission.identity, reason)?;
            }
            return Ok(Outcome::Mismatch);
        }
        let taken_out = seed_aggregates(dealer, seeds, &old_counts, &old_robots);
        let mut state = self.lock();
        if !unchanged(&state, lease, &found.record) {
            drop(state);
            return self.judge(submission.clone());
        }
        let producer = producer_of(&found.record);
        let wrong = verdict.stored_wrong.clone().unwrap_or_default();
        self.take_out(
            &mut state,
            lease,
            &taken_out,
            &old_counts,
            mismatch_of(&producer, submission, digest, detail, resolution),
            format!("campaign {} unit {}: {wrong}", lease.campaign, lease.unit),
        )?;
        if let Some(wrong) = &verdict.sender_wrong {
            let reason = format!("campaign {} unit {}: {wrong}", lease.campaign, lease.unit);
            self.distrust(&mut state, &submission.identity, reason)?;
            return Ok(Outcome::Mismatch);
        }
        if resolution == Resolution::VerifierWon {
            self.write_settled(
                &mut state,
                lease,
                submission,
                digest,
                checked,
                Verification::Confirmed,
            )?;
            return Ok(Outcome::Accepted);
        }
        Ok(Outcome::Mismatch)
    }

    fn settle_exhaustive(
        &self,
        found: &Found,
        submission: &Submission,
        digest: [u8; 32],
        checked: Checked<'_>,
    ) -> Result<Outcome> {
        let lease = &submission.lease;
        let mut state = self.lock();
        if !unchanged(&state, lease, &found.record) {
            drop(state);
            return self.judge(submission.clone());
        }
        let id = state.campaign(&lease.campaign)?.campaign.id;
        let seconded: Vec<Mismatch> = self
            .store
            .mismatches(id)?
            .into_iter()
            .filter(|m| {
                m.unit == lease.unit
                    && m.resolution.is_pending()
                    && m.digest == digest
                    && m.verifier != submission.identity
            })
            .collect();
        let producer = producer_of(&found.record);
        let Some(second) = seconded.first() else {
            drop(state);
            let detail = "the analysis differs; another identity decides".to_string();
            self.record_mismatch(found, submission, digest, detail, Resolution::Pending)?;
            return Ok(Outcome::Mismatch);
        };
        let agreed_by = second.verifier.clone();
        for mut settled in seconded {
            settled.resolution = Resolution::VerifierWon;
            self.store.put_mismatch(id, &settled)?;
        }
        // Exhaustive results are not in the seed statistics: nothing to take out there.
        self.take_out(
            &mut state,
            lease,
            &Aggregates::default(),
            &[],
            mismatch_of(
                &producer,
                submission,
                digest,
                format!("{} and {agreed_by} agree against it", submission.identity),
                Resolution::VerifierWon,
            ),
            format!(
                "campaign {} unit {}: two others agree against its analysis",
                lease.campaign, lease.unit
            ),
        )?;
        self.write_settled(
            &mut state,
            lease,
            submission,
            digest,
            checked,
            Verification::Agreed { by: agreed_by },
        )?;
        Ok(Outcome::Accepted)
    }

    /// A check agreed with the stored result, and the coordinator's own solve or analysis
    /// refutes both (`rejection`): the stored result leaves the store and the statistics
    /// (its producer distrusted), the unit is mined again, and the checker is refused and
    /// distrusted.
    pub(super) fn refute_agreement(
        &self,
        found: &Found,
        submission: &Submission,
        digest: [u8; 32],
        rejection: Rejection,
    ) -> Result<Outcome> {
        let lease = &submission.lease;
        let (taken_out, old_counts) = match &found.kind {
            Kind::Seeds(dealer) => {
                let (counts, robots) = self.stored_seed_result(lease)?;
                let seeds = found.spec.unit_seeds(lease.unit);
                (seed_aggregates(*dealer, seeds, &counts, &robots), counts)
            }
            // Exhaustive results are not in the seed statistics.
            Kind::Exhaustive(_) => (Aggregates::default(), Vec::new()),
        };
        let mut state = self.lock();
        if !unchanged(&state, lease, &found.record) {
            drop(state);
            return self.judge(submission.clone());
        }
        let detail = format!("the coordinator refutes both: {rejection}");
        self.take_out(
            &mut state,
            lease,
            &taken_out,
            &old_counts,
            mismatch_of(
                &producer_of(&found.record),
                submission,
                digest,
                detail,
                Resolution::Redone,
            ),
            format!(
                "campaign {} unit {}: the coordinator refutes its result: {rejection}",
                lease.campaign, lease.unit
            ),
        )?;
        drop(state);
        Err(self.refuse(submission, rejection)?)
    }

    /// A done seed unit's stored move counts and robots moved.
    fn stored_seed_result(&self, lease: &LeaseRef) -> Result<(Vec<u8>, Vec<u8>)> {
        let id = self.lock().campaign(&lease.campaign)?.campaign.id;
        Ok(self
            .store
            .unit_results(id, lease.unit)?
            .ok_or_else(|| StoreError::Corrupt {
                what: "unit",
                detail: format!("done unit {} has no result", lease.unit),
            })?)
    }

    /// Takes a wrong stored result out of the store and memory (see
    /// [`rrm_store::Store::correct`]) and distrusts its producer.
    fn take_out(
        &self,
        state: &mut State,
        lease: &LeaseRef,
        taken_out: &Aggregates,
        old_counts: &[u8],
        mismatch: Mismatch,
        reason: String,
    ) -> Result<()> {
        let commit = state.next_commit;
        let (campaign, mut record) = state.looked_up(lease);
        let UnitState::Done {
            commit: old_commit,
            producer,
            ..
        } = record.state.clone()
        else {
            unreachable!("take_out is called for done units");
        };
        record.state = UnitState::Pending { expired: None };
        let mut aggregates = campaign.aggregates.clone();
        aggregates.subtract(taken_out);
        aggregates.through_commit = commit;
        let distrust = distrust_record(&producer, reason);
        let seeds = match campaign.kind {
            Kind::Seeds(_) => campaign.campaign.spec.unit_seeds(lease.unit),
            Kind::Exhaustive(_) => 0..0,
        };
        self.store.correct(&Correction {
            campaign: campaign.campaign.id,
            unit: lease.unit,
            record: &record,
            seeds,
            old_counts,
            old_commit,
            commit,
            aggregates: &aggregates,
            mismatch: &mismatch,
            distrust: &distrust,
        })?;
        campaign.aggregates = aggregates;
        campaign.exhaustive.remove(&lease.unit);
        if let Kind::Seeds(_) = campaign.kind {
            campaign.reload_hardest(&self.store)?;
        }
        campaign.track(lease.unit, record, 0);
        state.next_commit += 1;
        self.metrics.mismatched(&lease.campaign);
        self.remember_distrust(state, distrust)
    }

    /// Stores the result that won a dispute as the unit's.
    fn write_settled(
        &self,
        state: &mut State,
        lease: &LeaseRef,
        submission: &Submission,
        digest: [u8; 32],
        checked: Checked<'_>,
        verification: Verification,
    ) -> Result<()> {
        let (_, mut record) = state.looked_up(lease);
        record.state = UnitState::Done {
            digest,
            producer: submission.identity.clone(),
            commit: state.next_commit,
            verification,
        };
        self.write_done(state, &lease.campaign, lease.unit, record, checked)
    }

    /// Records a mismatch that leaves the stored result in place. A pending one sends
    /// the unit to another identity; the sender's verification lease ends either way.
    fn record_mismatch(
        &self,
        found: &Found,
        submission: &Submission,
        digest: [u8; 32],
        detail: String,
        resolution: Resolution,
    ) -> Result<()> {
        let lease = &submission.lease;
        let mut state = self.lock();
        let (campaign, mut record) = state.looked_up(lease);
        let mismatch = mismatch_of(
            &producer_of(&found.record),
            submission,
            digest,
            detail,
            resolution,
        );
        self.store.put_mismatch(campaign.campaign.id, &mismatch)?;
        self.metrics.mismatched(&lease.campaign);
        if let UnitState::Done { verification, .. } = &mut record.state {
            let held_by_sender = matches!(verification, Verification::Leased(held)
                if held.number == lease.lease);
            if held_by_sender || resolution.is_pending() {
                *verification = Verification::Pending;
                self.store
                    .put_unit(campaign.campaign.id, lease.unit, &record)?;
                campaign.track(lease.unit, record, 0);
            }
        }
        Ok(())
    }

    /// A verification agreed with the stored result: mismatches waiting for another
    /// opinion on the unit are settled for it, and their senders distrusted.
    pub(super) fn settle_pending_for_stored(
        &self,
        state: &mut State,
        lease: &LeaseRef,
    ) -> Result<()> {
        let id = state.campaign(&lease.campaign)?.campaign.id;
        let pending: Vec<Mismatch> = self
            .store
            .mismatches(id)?
            .into_iter()
            .filter(|m| m.unit == lease.unit && m.resolution.is_pending())
            .collect();
        for mut mismatch in pending {
            mismatch.resolution = Resolution::StoredWon;
            self.store.put_mismatch(id, &mismatch)?;
            let reason = format!(
                "campaign {} unit {}: others agree against its result",
                lease.campaign, lease.unit
            );
            self.distrust(state, &mismatch.verifier, reason)?;
        }
        Ok(())
    }
}

impl Verdict {
    fn describe(&self) -> String {
        let side = |wrong: &Option<String>| wrong.clone().unwrap_or_else(|| "right".into());
        format!(
            "stored result: {}; differing result: {}{}",
            side(&self.stored_wrong),
            side(&self.sender_wrong),
            if self.complete {
                ""
            } else {
                " (differences sampled)"
            }
        )
    }
}

/// Solves the seeds on which `stored` and `sent` differ (see the module doc).
fn solve_differences(
    dealer: Dealer,
    first_seed: u64,
    stored: &[(u8, u8)],
    sent: &[(u8, u8)],
) -> Verdict {
    let differing: Vec<u64> = (0..stored.len())
        .filter(|&i| stored[i] != sent[i])
        .map(|i| i as u64)
        .collect();
    let complete = differing.len() <= SETTLE_BUDGET as usize;
    let chosen: Vec<u64> = if complete {
        differing
    } else {
        let picks = secret_sample(0..differing.len() as u64, SETTLE_BUDGET);
        picks.into_iter().map(|i| differing[i as usize]).collect()
    };
    let mut verdict = Verdict {
        complete,
        ..Verdict::default()
    };
    for index in chosen {
        let seed = first_seed + index;
        let Ok(dealt) = dealer.deal(seed) else {
            continue;
        };
        let truth = (dealer.answer(&dealt, DEFAULT_MAX_MOVES))
            .map_or((UNSOLVED, 0), |found| (found.moves, found.robots));
        let claim = |(moves, robots): (u8, u8)| {
            format!(
                "seed {seed} claimed {moves} moves ({robots} robots), it needs {} ({})",
                truth.0, truth.1
            )
        };
        let i = index as usize;
        if stored[i] != truth && verdict.stored_wrong.is_none() {
            verdict.stored_wrong = Some(claim(stored[i]));
        }
        if sent[i] != truth && verdict.sender_wrong.is_none() {
            verdict.sender_wrong = Some(claim(sent[i]));
        }
    }
    verdict
}

/// What a seed unit's result added to the statistics (and leaves them with when it is
/// taken out).
fn seed_aggregates(
    dealer: Dealer,
    seeds: std::ops::Range<u64>,
    counts: &[u8],
    robots: &[u8],
) -> Aggregates {
    let mut aggregates = Aggregates::default();
    add_unit(&mut aggregates, dealer.generator, seeds, counts, robots);
    aggregates
}

/// Whether the unit's record is still the one a dispute started from.
fn unchanged(state: &State, lease: &LeaseRef, record: &UnitRecord) -> bool {
    let now = state
        .campaigns
        .get(lease.campaign.as_str())
        .and_then(|c| c.records.get(&lease.unit));
    match (now.map(|r| &r.state), &record.state) {
        (
            Some(UnitState::Done {
                digest: a,
                commit: x,
                ..
            }),
            UnitState::Done {
                digest: b,
                commit: y,
                ..
            },
        ) => a == b && x == y,
        _ => false,
    }
}

/// The mismatch between the stored result of `producer` and `submission`'s.
fn mismatch_of(
    producer: &str,
    submission: &Submission,
    digest: [u8; 32],
    detail: String,
    resolution: Resolution,
) -> Mismatch {
    Mismatch {
        unit: submission.lease.unit,
        lease: submission.lease.lease,
        producer: producer.to_string(),
        verifier: submission.identity.clone(),
        digest,
        detail,
        resolution,
    }
}

fn producer_of(record: &UnitRecord) -> String {
    match &record.state {
        UnitState::Done { producer, .. } => producer.clone(),
        _ => String::new(),
    }
}
