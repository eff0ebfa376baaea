//! Exhaustive campaigns: creating one (boards normalised to their canonical rotation),
//! the work of each unit, judging and storing results (from workers through
//! `submission`, or imported from files through the same checks), and the queries on
//! them: the exact distribution by board and target, and placements by depth.

mod checks;
mod queries;

pub(super) use checks::{check_exhaustive, check_exhaustive_integrity};
pub use checks::{ReSolving, UnitBoard, IMPORT_RESOLVE_BUDGET, RESOLVE_BUDGET};
use rrm_model::exhaustive_digest;

use super::campaign_state::{CampaignState, Kind};
use super::submission::Checked;
use super::{
    CampaignStatus, Coordinator, CoordinatorError, ExhaustiveUnit, LeaseRef, Outcome, Result,
};
use crate::unix_ms;
use ricochet::edition::{canonical_board, unit_tokens, EditionBoard, DD_PREFIX, VORTEX};
use rrm_model::{
    Aggregates, CampaignSpec, ExhaustiveRecord, ExhaustiveRequest, ExhaustiveResult,
    ExhaustiveSpec, Mismatch, Resolution, SpecError, UnitRecord, UnitState, Verification,
    EXHAUSTIVE_FOGLEMAN, LIST_BOUND,
};
use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::sync::{Arc, PoisonError};

/// The identity an imported result is recorded under when its file names none.
pub const IMPORTED: &str = "(imported)";
/// The verifier named for a unit whose disagreement the coordinator settled itself.
pub const CONFIRMED_BY_COORDINATOR: &str = "(coordinator)";

/// Who computed a unit and who checked it: what an imported unit file says, and what
/// [`Coordinator::done_units`] reports.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Provenance {
    /// The identity whose result is stored (`None` on import: [`IMPORTED`]).
    pub producer: Option<String>,
    /// The identity whose result agreed ([`CONFIRMED_BY_COORDINATOR`] when the
    /// coordinator settled a disagreement).
    pub verified_by: Option<String>,
    /// Drawn for a check that no identity has made yet.
    pub check_pending: bool,
    /// The producer's CPU time for the unit.
    pub cpu_ms: u64,
    pub rrm_version: String,
}

/// A done unit of an exhaustive campaign, as a unit file records it.
#[derive(Clone, Debug)]
pub struct DoneUnit {
    pub unit: u64,
    pub board: String,
    pub token: String,
    pub record: ExhaustiveRecord,
    pub provenance: Provenance,
}

/// What a request asks for, checked and normalised (boards canonical and in canonical
/// order: Fogleman's names, then DriftingDroids' sides; tokens in token order; each once).
/// No board named means the first edition's 96 under Fogleman's names.
fn exhaustive_spec(request: &ExhaustiveRequest) -> Result<ExhaustiveSpec> {
    let boards = if request.boards.is_empty() {
        (EditionBoard::fogleman_canonical().iter())
            .map(EditionBoard::name)
            .collect()
    } else {
        let mut named = Vec::new();
        for board in &request.boards {
            let board = EditionBoard::parse(board).map_err(SpecError::from)?;
            named.push(board.canonical().name());
        }
        named.sort_by_key(|name| (name.starts_with(DD_PREFIX), name.clone()));
        named.dedup();
        named
    };
    let all = unit_tokens();
    let targets: Vec<String> = if request.targets.is_empty() {
        // The census's units: the vortex only when named.
        (all.iter().filter(|&&t| t != VORTEX))
            .map(|t| t.to_string())
            .collect()
    } else {
        let named: Vec<String> = request
            .targets
            .iter()
            .map(|t| t.to_ascii_uppercase())
            .collect();
        if let Some(unknown) = named.iter().find(|t| !all.contains(&t.as_str())) {
            return Err(SpecError::from(ricochet::LayoutError::Token(unknown.clone())).into());
        }
        all.iter()
            .filter(|t| named.iter().any(|n| n == *t))
            .map(|t| t.to_string())
            .collect()
    };
    for (what, value) in [
        ("sample size", request.sample_size),
        ("top placements per depth", request.top_per_depth),
        ("hardest placements", request.max_hardest),
    ] {
        if value > LIST_BOUND {
            return Err(SpecError::OverBound {
                what,
                value,
                bound: LIST_BOUND,
            }
            .into());
        }
    }
    if request.max_hardest == 0 {
        return Err(SpecError::NoHardest.into());
    }
    Ok(ExhaustiveSpec {
        boards,
        targets,
        sample_size: request.sample_size,
        top_from: request.top_from,
        top_per_depth: request.top_per_depth,
        max_hardest: request.max_hardest,
    })
}

/// The work of unit `unit`, if the campaign has it.
pub(super) fn unit_work(spec: &ExhaustiveSpec, unit: u64) -> Option<ExhaustiveUnit> {
    let (board, token) = spec.unit(unit)?;
    Some(ExhaustiveUnit {
        board: board.to_string(),
        token: token.to_string(),
        sample_size: spec.sample_size,
        top_from: spec.top_from,
        top_per_depth: spec.top_per_depth,
        max_hardest: spec.max_hardest,
    })
}

/// The board of a unit's work; stored names were checked on creation, so failing here
/// means a damaged store.
pub(super) fn unit_board(work: &ExhaustiveUnit) -> Result<UnitBoard> {
    UnitBoard::new(&work.board, &work.token).map_err(|e| {
        CoordinatorError::Store(rrm_store::StoreError::Corrupt {
            what: "exhaustive spec",
            detail: e.to_string(),
        })
    })
}

impl Coordinator {
    /// Creates an exhaustive campaign of first-edition or DriftingDroids boards.
    pub fn create_exhaustive_campaign(&self, request: ExhaustiveRequest) -> Result<CampaignStatus> {
        let exhaustive = exhaustive_spec(&request)?;
        if exhaustive.boards.is_empty() || exhaustive.targets.is_empty() {
            return Err(SpecError::NoUnits.into());
        }
        self.check_size(exhaustive.units_total(), 0)?;
        let spec = CampaignSpec {
            name: request.name,
            generator: EXHAUSTIVE_FOGLEMAN.to_string(),
            seed_start: 0,
            seed_end: exhaustive.units_total(),
            unit_size: 1,
            record_threshold: exhaustive.top_from,
            rules: rrm_model::Rules::STANDARD,
        };
        let mut state = self.lock();
        let campaign = self
            .store
            .create_exhaustive_campaign(spec, &exhaustive, unix_ms())?;
        let name = campaign.spec.name.clone();
        let aggregates = Aggregates {
            through_commit: state.next_commit - 1,
            ..Aggregates::default()
        };
        let kind = Kind::Exhaustive(Arc::new(exhaustive));
        state
            .campaigns
            .insert(name.clone(), CampaignState::new(campaign, kind, aggregates));
        drop(state);
        self.status(&name)
    }

    /// Loads a unit result from elsewhere (e.g. `rrm exhaust --json`, or a unit file of
    /// an earlier campaign with its provenance) through the same checks as a worker's
    /// submission. A unit already done is compared by digest, as a second submission
    /// would be; a refused result changes nothing (no lease is charged). The provenance
    /// is the operator's word: a unit it says was verified, or was not drawn, is not drawn
    /// for a check (but for the checks every unit of its depth gets).
    /// Checks and stores a unit result computed elsewhere, its hardest lists checked as
    /// `resolving` says (a file's claimed solutions replayed).
    pub fn import_exhaustive(
        &self,
        name: &str,
        board: &str,
        token: &str,
        result: ExhaustiveResult,
        provenance: Provenance,
        resolving: ReSolving<'_>,
    ) -> Result<Outcome> {
        let (unit, work) = self.locate(name, board, token)?;
        let digest = exhaustive_digest(name, unit, (&work.board, &work.token), &result);
        if let Some(outcome) = self.compare_import(name, unit, digest)? {
            return Ok(outcome);
        }
        let unit_board = unit_board(&work)?;
        let mut record =
            check_exhaustive(&work, &unit_board, &result, provenance.cpu_ms, resolving)?;
        if !provenance.rrm_version.is_empty() {
            record.rrm_version = provenance.rrm_version.clone();
        }
        let checked = Checked::Exhaustive(record);
        let verification = match provenance.verified_by {
            Some(by) if by == CONFIRMED_BY_COORDINATOR => Verification::Confirmed,
            Some(by) => Verification::Agreed { by },
            // A check drawn before stays drawn: a new draw could drop it.
            None if provenance.check_pending => Verification::Pending,
            // The operator's word: imported results are checked as an established
            // identity's are, at the verify share (drawn per unit: the importer has no
            // run of its own). A coordinator's unit file records its draw, and one
            // declined stays declined: drawn again at every import, a census resumed on
            // a fresh machine would check another share of its units each time.
            None => {
                let drawn_before = provenance.producer.is_some();
                let due =
                    !drawn_before && super::identity::secret_draw() < self.config.verify_share;
                self.draw_verification(&checked, true, due)
            }
        };
        let mut state = self.lock();
        let commit = state.next_commit;
        let campaign = state
            .campaigns
            .get_mut(name)
            .expect("campaigns are never removed");
        if campaign
            .records
            .get(&unit)
            .is_some_and(|r| matches!(r.state, UnitState::Done { .. }))
        {
            drop(state);
            // Someone's result came first; compare with it.
            return Ok(self
                .compare_import(name, unit, digest)?
                .unwrap_or(Outcome::Duplicate));
        }
        // Units are leased in order: the ones before this unit get records, so that
        // none of them looks leased already.
        for earlier in campaign.next_unit..unit {
            let pending = UnitRecord::fresh();
            self.store
                .put_unit(campaign.campaign.id, earlier, &pending)?;
            campaign.track(earlier, pending, 0);
        }
        let mut record = campaign
            .records
            .get(&unit)
            .cloned()
            .unwrap_or_else(UnitRecord::fresh);
        record.state = UnitState::Done {
            digest,
            producer: provenance.producer.unwrap_or_else(|| IMPORTED.to_string()),
            commit,
            verification,
        };
        self.write_done(&mut state, name, unit, record, checked)?;
        Ok(Outcome::Accepted)
    }

    /// What exhaustive campaign `name` asks of the unit of `board` (any rotation) and
    /// `token`.
    pub fn exhaustive_work(&self, name: &str, board: &str, token: &str) -> Result<ExhaustiveUnit> {
        Ok(self.locate(name, board, token)?.1)
    }

    /// The unit number and work of a board (any rotation) and token.
    fn locate(&self, name: &str, board: &str, token: &str) -> Result<(u64, ExhaustiveUnit)> {
        let no_unit = || CoordinatorError::NoSuchUnit {
            campaign: name.to_string(),
            board: board.to_string(),
            token: token.to_string(),
        };
        let canonical = canonical_board(board).map_err(|_| no_unit())?;
        let state = self.lock();
        let spec = exhaustive_of(state.campaign(name)?)?;
        let unit = spec
            .unit_of(&canonical, &token.to_ascii_uppercase())
            .ok_or_else(no_unit)?;
        Ok((unit, unit_work(&spec, unit).ok_or_else(no_unit)?))
    }

    /// An import for a unit already done: the same digest is a duplicate, another one a
    /// mismatch (recorded under [`IMPORTED`], for an operator to look at); `None` while
    /// the unit is not done.
    fn compare_import(&self, name: &str, unit: u64, digest: [u8; 32]) -> Result<Option<Outcome>> {
        let state = self.lock();
        let campaign = state.campaign(name)?;
        let Some(UnitState::Done {
            digest: stored,
            producer,
            ..
        }) = campaign.records.get(&unit).map(|r| &r.state)
        else {
            return Ok(None);
        };
        if *stored == digest {
            return Ok(Some(Outcome::Duplicate));
        }
        let mismatch = Mismatch {
            unit,
            lease: 0,
            producer: producer.clone(),
            verifier: IMPORTED.to_string(),
            digest,
            detail: "an imported result differs from the stored one".into(),
            resolution: Resolution::Pending,
        };
        self.store.put_mismatch(campaign.campaign.id, &mismatch)?;
        self.metrics.mismatched(name);
        Ok(Some(Outcome::Mismatch))
    }
}

/// The spec of an exhaustive campaign; a seed campaign is refused.
fn exhaustive_of(campaign: &CampaignState) -> Result<Arc<ExhaustiveSpec>> {
    match &campaign.kind {
        Kind::Exhaustive(spec) => Ok(spec.clone()),
        Kind::Seeds(_) => Err(CoordinatorError::WrongKind {
            campaign: campaign.campaign.spec.name.to_string(),
            expected: "an exhaustive campaign",
        }),
    }
}

/// The most moves any placement of a done unit needs (0 before the first result).
pub(super) fn hardest_moves(records: &BTreeMap<u64, ExhaustiveRecord>) -> u8 {
    records
        .values()
        .map(|r| r.result.max_moves)
        .max()
        .unwrap_or(0)
}

impl Coordinator {
    /// The digest of the coordinator's own analysis of exhaustive unit `lease.unit` of
    /// campaign `spec`: the opinion no identity gives. One analysis at a time: each takes
    /// the rayon pool for seconds to a minute, so the others wait (within the worker's
    /// call timeout of ten minutes).
    pub(super) fn own_analysis(&self, spec: &ExhaustiveSpec, lease: &LeaseRef) -> Result<[u8; 32]> {
        let work = super::submission::work_of(spec, lease)?;
        let _alone = self
            .analysing
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let started = std::time::Instant::now();
        let (_, digest) =
            rrm_model::analyse_unit(lease.campaign.as_str(), lease.unit, &work, &mut |_| {
                ControlFlow::Continue(())
            })
            .map_err(|error| CoordinatorError::OwnAnalysis(error.to_string()))?;
        tracing::info!(
            campaign = %lease.campaign,
            unit = lease.unit,
            seconds = started.elapsed().as_secs_f32(),
            "analysed an agreeing check's unit itself"
        );
        Ok(digest)
    }
}
