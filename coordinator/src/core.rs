//! The coordinator's bookkeeping, free of gRPC: leases, submissions, status and statistics.
//!
//! All state lives in [`State`] behind one mutex, mirrored to the store under that lock
//! so that memory and disk never disagree. Slow work (checking solutions, re-solving
//! record candidates, regenerating puzzles for statistics) happens outside the lock and
//! the state is checked again before anything is written.

use crate::{unix_ms, Config};
use ricochet::{Generator, Move, Solver};
use rrm_store::{
    Aggregates, Campaign, CampaignSpec, HardEntry, Lease, Mismatch, Store, StoreError, UnitRecord,
    UnitResult, UnitState, Verification,
};
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How often leasing looks for expired leases (each look walks every lease out).
const EXPIRY_SCAN: Duration = Duration::from_millis(100);

/// The span over which the mining rate is measured.
const RATE_WINDOW: Duration = Duration::from_secs(60);

/// Units up to this many seeds are checked in microseconds (see [`Coordinator::is_quick`]).
const QUICK_UNIT: usize = 1024;

/// Names one lease of one unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaseRef {
    pub campaign: String,
    pub unit: u64,
    pub lease: u64,
}

/// A unit handed to a worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assignment {
    pub lease: LeaseRef,
    pub generator: Generator,
    pub seeds: Range<u64>,
    pub record_threshold: u8,
    pub top_count: u32,
    pub deadline_unix_ms: i64,
}

/// A worker's result for one lease.
#[derive(Clone, Debug)]
pub struct Submission {
    pub worker: u64,
    pub lease: LeaseRef,
    pub move_counts: Vec<u8>,
    pub robots_moved: Vec<u8>,
    pub digest: Vec<u8>,
    pub solutions: Vec<(u64, Vec<String>)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Accepted,
    Duplicate,
    Mismatch,
    Verified,
}

/// Why a request was refused. Each maps to one gRPC status code at the edge.
#[derive(Debug, thiserror::Error)]
pub enum CoordinatorError {
    #[error("unknown campaign {0:?}")]
    UnknownCampaign(String),
    #[error("campaign {campaign:?} has no unit {unit}")]
    UnknownUnit { campaign: String, unit: u64 },
    #[error("unknown worker {0}; register again")]
    UnknownWorker(u64),
    #[error("unit {unit} of {campaign:?} never had lease {lease}")]
    UnknownLease {
        campaign: String,
        unit: u64,
        lease: u64,
    },
    #[error("stale lease: {0}")]
    StaleLease(String),
    #[error("lease {lease} of unit {unit} belongs to another worker")]
    NotYourLease { unit: u64, lease: u64 },
    #[error("invalid submission: {0}")]
    Invalid(String),
    #[error("unit {0} is quarantined")]
    Quarantined(u64),
    #[error("invalid campaign: {0}")]
    InvalidCampaign(String),
    #[error("campaign {0:?} already exists")]
    CampaignExists(String),
    #[error("not found: {0}")]
    NotFound(String),
    #[error("the coordinator is shutting down")]
    ShuttingDown,
    #[error(transparent)]
    Store(StoreError),
}

impl From<ricochet::UnknownGenerator> for CoordinatorError {
    fn from(error: ricochet::UnknownGenerator) -> Self {
        CoordinatorError::InvalidCampaign(error.to_string())
    }
}

impl From<StoreError> for CoordinatorError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::CampaignExists(name) => CoordinatorError::CampaignExists(name),
            StoreError::InvalidCampaign(why) => CoordinatorError::InvalidCampaign(why),
            other => CoordinatorError::Store(other),
        }
    }
}

pub type Result<T, E = CoordinatorError> = std::result::Result<T, E>;

/// A campaign's progress.
#[derive(Clone, Debug, PartialEq)]
pub struct CampaignStatus {
    pub campaign: Campaign,
    pub units_total: u64,
    pub units_done: u64,
    pub units_leased: u64,
    pub units_quarantined: u64,
    pub units_verified: u64,
    pub seeds_done: u64,
    pub hardest_moves: u8,
    /// Seeds mined per second over the last minute.
    pub seeds_per_second: f64,
    /// Seeds solved in units still leased, as their workers last reported.
    pub seeds_in_progress: u64,
    /// (unit, failures, last error)
    pub quarantined: Vec<(u64, u32, String)>,
    pub mismatches: Vec<Mismatch>,
}

/// One mined puzzle as the query service reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MinedPuzzle {
    pub campaign: String,
    pub seed: u64,
    pub moves: u8,
    pub solution: Vec<String>,
    pub re_solved: bool,
}

pub(crate) struct CampaignState {
    pub(crate) campaign: Campaign,
    generator: Generator,
    pub(crate) records: BTreeMap<u64, UnitRecord>,
    /// Units from here on were never leased (and have no record).
    pub(crate) next_unit: u64,
    /// Units waiting for a lease again, oldest first.
    pub(crate) pending: BTreeSet<u64>,
    /// Done units chosen for a second worker's check.
    pub(crate) to_verify: BTreeSet<u64>,
    /// Units whose main or verification lease is out.
    pub(crate) leased: BTreeSet<u64>,
    aggregates: Aggregates,
    units_done: u64,
    seeds_done: u64,
    /// (when, seeds done then) at each accepted result of the last minute, for the rate.
    progress: VecDeque<(Instant, u64)>,
}

pub(crate) struct State {
    pub(crate) campaigns: BTreeMap<String, CampaignState>,
    /// Seeds solved in held leases, from heartbeats (see `progress`).
    pub(crate) progress: crate::progress::LeaseProgress,
    workers: HashMap<u64, String>,
    next_commit: u64,
    /// Where the next lease search starts, so campaigns share the workers.
    round_robin: usize,
    /// When leases were last checked for expiry: at most every [`EXPIRY_SCAN`].
    expiry_scanned: Option<Instant>,
}

/// The coordinator's state over its store.
pub struct Coordinator {
    store: Store,
    config: Config,
    state: Mutex<State>,
    shutting_down: AtomicBool,
}

/// What a submission for a fresh result must still prove, found without the lock.
struct CheckedResult {
    hardest: Vec<HardEntry>,
    aggregates: Aggregates,
}

impl Coordinator {
    /// Loads every campaign from `store`. Leases found there get a fresh deadline, so
    /// workers that outlived a coordinator restart can still submit.
    pub fn open(store: Store, config: Config) -> Result<Coordinator> {
        let now = unix_ms();
        let mut campaigns = BTreeMap::new();
        for campaign in store.campaigns()? {
            let generator: Generator = campaign.spec.generator.parse()?;
            let aggregates = store.aggregates(campaign.id)?.unwrap_or_default();
            let mut state = CampaignState::new(campaign, generator, aggregates);
            for (unit, mut record) in store.units(state.campaign.id)? {
                state.track(unit, &mut record, now + config.lease_ms());
                state.records.insert(unit, record);
                state.next_unit = unit + 1;
            }
            campaigns.insert(state.campaign.spec.name.clone(), state);
        }
        // Statistics saved before the last commits are brought up to date from the log.
        let by_id: HashMap<u32, String> = campaigns
            .values()
            .map(|c| (c.campaign.id, c.campaign.spec.name.clone()))
            .collect();
        let oldest = campaigns
            .values()
            .map(|c| c.aggregates.through_commit)
            .min()
            .unwrap_or(0);
        let last_commit = store.last_commit()?;
        for (commit, id, unit) in store.commits_after(oldest)? {
            let Some(state) = by_id.get(&id).and_then(|name| campaigns.get_mut(name)) else {
                continue;
            };
            if commit <= state.aggregates.through_commit {
                continue;
            }
            let (counts, robots) = store.unit_results(id, unit)?.ok_or_else(|| {
                CoordinatorError::Store(StoreError::Corrupt {
                    what: "commit log",
                    detail: format!("commit {commit} names unit {unit} without a result"),
                })
            })?;
            let seeds = state.campaign.spec.unit_seeds(unit);
            add_statistics(
                state.generator,
                seeds,
                &counts,
                &robots,
                &mut state.aggregates,
            );
        }
        // Saved statistics never name a commit the log lacks; if they did, numbering
        // goes on after them rather than reuse a number they claim to include.
        let last_commit = campaigns
            .values()
            .map(|c| c.aggregates.through_commit)
            .fold(last_commit, u64::max);
        for state in campaigns.values_mut() {
            state.aggregates.through_commit = last_commit;
        }
        Ok(Coordinator {
            store,
            config,
            state: Mutex::new(State {
                campaigns,
                progress: Default::default(),
                workers: HashMap::new(),
                next_commit: last_commit + 1,
                round_robin: 0,
                expiry_scanned: None,
            }),
            shutting_down: AtomicBool::new(false),
        })
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        // A panic under the lock cannot leave memory ahead of the store (the store is
        // written first), so the state stays usable.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Stops handing out units; submissions are still taken.
    pub fn stop_leasing(&self) {
        self.shutting_down.store(true, Ordering::SeqCst);
    }

    pub fn create_campaign(&self, spec: CampaignSpec) -> Result<CampaignStatus> {
        let generator: Generator = spec.generator.parse()?;
        if spec.seed_start < generator.first_seed() {
            return Err(CoordinatorError::InvalidCampaign(format!(
                "generator {generator} starts at seed {}",
                generator.first_seed()
            )));
        }
        let mut state = self.lock();
        let campaign = self.store.create_campaign(spec, unix_ms())?;
        let name = campaign.spec.name.clone();
        let aggregates = Aggregates {
            through_commit: state.next_commit - 1,
            ..Aggregates::default()
        };
        state.campaigns.insert(
            name.clone(),
            CampaignState::new(campaign, generator, aggregates),
        );
        drop(state);
        self.status(&name)
    }

    pub fn register(&self, name: String) -> u64 {
        let mut state = self.lock();
        let id = loop {
            let id = rand_id();
            if id != 0 && !state.workers.contains_key(&id) {
                break id;
            }
        };
        state.workers.insert(id, name);
        id
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
            let index = (state.round_robin + offset) % count.max(1);
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
            for unit in std::mem::take(&mut campaign.leased) {
                let mut record = campaign.records[&unit].clone();
                match &mut record.state {
                    UnitState::Done { verification, .. } => *verification = Verification::Pending,
                    state => *state = UnitState::Pending { expired: None },
                }
                self.store.put_unit(campaign.campaign.id, unit, &record)?;
                campaign.track(unit, &mut record, 0);
                campaign.records.insert(unit, record);
            }
        }
        Ok(())
    }

    /// Returns expired leases to the pending set, or quarantines units that keep failing.
    fn expire(&self, campaign: &mut CampaignState, now: i64) -> Result<()> {
        let expired: Vec<u64> = campaign
            .leased
            .iter()
            .copied()
            .filter(|unit| {
                campaign.records[unit]
                    .current_lease()
                    .is_some_and(|lease| lease.deadline_unix_ms < now)
            })
            .collect();
        for unit in expired {
            let mut record = campaign.records[&unit].clone();
            match &mut record.state {
                UnitState::Done { verification, .. } => *verification = Verification::Pending,
                state => {
                    record.failures += 1;
                    record.last_error = Some(format!("lease {} expired", record.leases_issued));
                    let expired = match state {
                        UnitState::Leased(lease) => Some(*lease),
                        _ => None,
                    };
                    *state = if record.failures >= self.config.max_failures {
                        UnitState::Quarantined
                    } else {
                        UnitState::Pending { expired }
                    };
                }
            }
            self.store.put_unit(campaign.campaign.id, unit, &record)?;
            campaign.leased.remove(&unit);
            campaign.track(unit, &mut record, now);
            campaign.records.insert(unit, record);
        }
        Ok(())
    }

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
            campaign.pending.remove(&unit);
            unit
        } else if let Some(unit) = verification {
            campaign.to_verify.remove(&unit);
            unit
        } else if campaign.next_unit < campaign.campaign.spec.units_total() {
            campaign.next_unit += 1;
            campaign.next_unit - 1
        } else {
            return Ok(None);
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
        campaign.records.insert(unit, record);
        campaign.leased.insert(unit);
        let spec = &campaign.campaign.spec;
        Ok(Some(Assignment {
            lease: LeaseRef {
                campaign: spec.name.clone(),
                unit,
                lease: lease.number,
            },
            generator: campaign.generator,
            seeds: spec.unit_seeds(unit),
            record_threshold: spec.record_threshold,
            top_count: self.config.top_count,
            deadline_unix_ms,
        }))
    }

    /// Extends the leases `worker` still holds; returns those it lost.
    pub fn heartbeat(&self, worker: u64, leases: &[LeaseRef]) -> (Vec<LeaseRef>, i64) {
        let deadline = unix_ms() + self.config.lease_ms();
        let mut state = self.lock();
        let mut lost = Vec::new();
        for lease in leases {
            let held = state
                .campaigns
                .get_mut(&lease.campaign)
                .and_then(|c| c.records.get_mut(&lease.unit))
                .and_then(|record| record.current_lease_mut())
                .filter(|held| held.number == lease.lease && held.worker == worker);
            match held {
                // Deadlines live in memory; a restarted coordinator grants a fresh one.
                Some(held) => held.deadline_unix_ms = deadline,
                None => lost.push(lease.clone()),
            }
        }
        (lost, deadline)
    }

    /// Takes a worker's result. Protocol errors (unknown unit or lease, wrong length,
    /// bad digest) change nothing; refused contents count as a failure of the unit.
    pub fn submit(&self, submission: Submission) -> Result<Outcome> {
        let (generator, spec, record) = self.lookup(&submission.lease)?;
        let seeds = spec.unit_seeds(submission.lease.unit);
        check_integrity(&submission, &spec, seeds.clone())?;
        let lease = &submission.lease;
        let digest: [u8; 32] = submission.digest.as_slice().try_into().expect("checked");
        if lease.lease == 0 || lease.lease > record.leases_issued {
            return Err(self.unknown_lease(lease));
        }
        match &record.state {
            UnitState::Done { .. } => self.compare(&submission, digest),
            UnitState::Quarantined => Err(CoordinatorError::Quarantined(lease.unit)),
            UnitState::Leased(held) if held.number != lease.lease => {
                Err(CoordinatorError::StaleLease(format!(
                    "lease {} of unit {} was superseded by lease {}",
                    lease.lease, lease.unit, held.number
                )))
            }
            UnitState::Leased(held) if held.worker != submission.worker => {
                Err(CoordinatorError::NotYourLease {
                    unit: lease.unit,
                    lease: lease.lease,
                })
            }
            UnitState::Pending { expired } => match expired {
                // The unit's last lease expired and nobody has it yet: its holder's
                // result is still welcome.
                Some(held) if held.number == lease.lease && held.worker == submission.worker => {
                    self.check_and_accept(generator, &spec, seeds, &submission, digest)
                }
                Some(held) if held.number == lease.lease => Err(CoordinatorError::NotYourLease {
                    unit: lease.unit,
                    lease: lease.lease,
                }),
                _ => Err(CoordinatorError::StaleLease(format!(
                    "lease {} of unit {} expired or its result was refused",
                    lease.lease, lease.unit
                ))),
            },
            UnitState::Leased(_) => {
                self.check_and_accept(generator, &spec, seeds, &submission, digest)
            }
        }
    }

    /// Checks a fresh result's contents; accepts it, or charges the unit a failure.
    fn check_and_accept(
        &self,
        generator: Generator,
        spec: &CampaignSpec,
        seeds: Range<u64>,
        submission: &Submission,
        digest: [u8; 32],
    ) -> Result<Outcome> {
        match check_contents(generator, spec, seeds, submission) {
            Ok(checked) => self.accept(submission, digest, checked),
            Err(why) => {
                self.count_failure(&submission.lease, &why)?;
                Err(CoordinatorError::Invalid(why))
            }
        }
    }

    /// Whether checking `submission` takes only microseconds: a small unit without record
    /// candidates to re-solve. Others are best checked off the async threads.
    pub fn is_quick(&self, submission: &Submission) -> bool {
        let state = self.lock();
        let threshold = state
            .campaigns
            .get(&submission.lease.campaign)
            .map_or(0, |c| c.campaign.spec.record_threshold);
        submission.move_counts.len() <= QUICK_UNIT
            && submission.move_counts.iter().all(|&m| m < threshold)
    }

    fn unknown_lease(&self, lease: &LeaseRef) -> CoordinatorError {
        CoordinatorError::UnknownLease {
            campaign: lease.campaign.clone(),
            unit: lease.unit,
            lease: lease.lease,
        }
    }

    fn lookup(&self, lease: &LeaseRef) -> Result<(Generator, CampaignSpec, UnitRecord)> {
        let state = self.lock();
        let campaign = state
            .campaigns
            .get(&lease.campaign)
            .ok_or_else(|| CoordinatorError::UnknownCampaign(lease.campaign.clone()))?;
        let record = campaign.records.get(&lease.unit).cloned().ok_or_else(|| {
            if lease.unit < campaign.campaign.spec.units_total() {
                self.unknown_lease(lease)
            } else {
                CoordinatorError::UnknownUnit {
                    campaign: lease.campaign.clone(),
                    unit: lease.unit,
                }
            }
        })?;
        Ok((campaign.generator, campaign.campaign.spec.clone(), record))
    }

    /// A result for a unit already done: a duplicate, a verification, or a mismatch.
    fn compare(&self, submission: &Submission, digest: [u8; 32]) -> Result<Outcome> {
        let lease = &submission.lease;
        let mut state = self.lock();
        let campaign = state.campaigns.get_mut(&lease.campaign).expect("looked up");
        let mut record = campaign.records[&lease.unit].clone();
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
        let mismatch = (!agrees).then(|| Mismatch {
            unit: lease.unit,
            worker: submission.worker,
            detail: format!(
                "lease {}: move counts differ from the stored result",
                lease.lease
            ),
        });
        if let Some(mismatch) = &mismatch {
            self.store.add_mismatch(campaign.campaign.id, mismatch)?;
        }
        if verifying {
            *verification = if agrees {
                Verification::Agreed {
                    worker: submission.worker,
                }
            } else {
                Verification::Disagreed {
                    worker: submission.worker,
                }
            };
            self.store
                .put_unit(campaign.campaign.id, lease.unit, &record)?;
            campaign.leased.remove(&lease.unit);
            campaign.records.insert(lease.unit, record);
        }
        Ok(if agrees {
            Outcome::Verified
        } else {
            Outcome::Mismatch
        })
    }

    fn accept(
        &self,
        submission: &Submission,
        digest: [u8; 32],
        checked: CheckedResult,
    ) -> Result<Outcome> {
        let lease = &submission.lease;
        let mut guard = self.lock();
        let state = &mut *guard;
        let commit = state.next_commit;
        let campaign = state.campaigns.get_mut(&lease.campaign).expect("looked up");
        let mut record = campaign.records[&lease.unit].clone();
        let still_open = match &record.state {
            UnitState::Leased(held) => held.number == lease.lease,
            UnitState::Pending {
                expired: Some(held),
            } => held.number == lease.lease && held.worker == submission.worker,
            _ => false,
        };
        if !still_open {
            drop(guard);
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
        self.store.commit_result(&UnitResult {
            campaign: campaign.campaign.id,
            unit: lease.unit,
            record: &record,
            move_counts: &submission.move_counts,
            robots_moved: &submission.robots_moved,
            hardest: &checked.hardest,
            commit,
        })?;
        state.next_commit += 1;
        campaign.aggregates.merge(&checked.aggregates);
        campaign.aggregates.through_commit = commit;
        campaign.leased.remove(&lease.unit);
        campaign.pending.remove(&lease.unit);
        campaign.track(lease.unit, &mut record, 0);
        campaign.records.insert(lease.unit, record);
        let now = Instant::now();
        campaign.progress.push_back((now, campaign.seeds_done));
        while campaign
            .progress
            .front()
            .is_some_and(|&(when, _)| now - when > RATE_WINDOW)
        {
            campaign.progress.pop_front();
        }
        Ok(Outcome::Accepted)
    }

    fn count_failure(&self, lease: &LeaseRef, why: &str) -> Result<()> {
        let mut state = self.lock();
        let campaign = state.campaigns.get_mut(&lease.campaign).expect("looked up");
        let mut record = campaign.records[&lease.unit].clone();
        // Only the current lease is charged; an expired one was charged when it expired.
        if !matches!(record.state, UnitState::Leased(held) if held.number == lease.lease) {
            return Ok(());
        }
        record.failures += 1;
        record.last_error = Some(why.to_string());
        record.state = if record.failures >= self.config.max_failures {
            UnitState::Quarantined
        } else {
            UnitState::Pending { expired: None }
        };
        self.store
            .put_unit(campaign.campaign.id, lease.unit, &record)?;
        campaign.leased.remove(&lease.unit);
        campaign.track(lease.unit, &mut record, 0);
        campaign.records.insert(lease.unit, record);
        Ok(())
    }

    /// Writes the statistics of every campaign with the last commit they include.
    pub fn checkpoint(&self) -> Result<()> {
        let state = self.lock();
        for campaign in state.campaigns.values() {
            self.store
                .save_aggregates(campaign.campaign.id, &campaign.aggregates)?;
        }
        Ok(())
    }

    pub fn campaign_names(&self) -> Vec<String> {
        self.lock().campaigns.keys().cloned().collect()
    }

    pub fn status(&self, name: &str) -> Result<CampaignStatus> {
        let state = self.lock();
        let campaign = state
            .campaigns
            .get(name)
            .ok_or_else(|| CoordinatorError::UnknownCampaign(name.to_string()))?;
        let mut status = CampaignStatus {
            campaign: campaign.campaign.clone(),
            units_total: campaign.campaign.spec.units_total(),
            units_done: campaign.units_done,
            units_leased: 0,
            units_quarantined: 0,
            units_verified: 0,
            seeds_done: campaign.seeds_done,
            hardest_moves: campaign.aggregates.max_moves(),
            seeds_per_second: campaign.rate(),
            seeds_in_progress: state.seeds_in_progress(name),
            quarantined: Vec::new(),
            mismatches: self.store.mismatches(campaign.campaign.id)?,
        };
        for (&unit, record) in &campaign.records {
            match &record.state {
                UnitState::Leased(_) => status.units_leased += 1,
                UnitState::Quarantined => {
                    status.units_quarantined += 1;
                    status.quarantined.push((
                        unit,
                        record.failures,
                        record.last_error.clone().unwrap_or_default(),
                    ));
                }
                UnitState::Done {
                    verification: Verification::Agreed { .. },
                    ..
                } => status.units_verified += 1,
                _ => {}
            }
        }
        Ok(status)
    }

    pub fn aggregates(&self, name: &str) -> Result<Aggregates> {
        let state = self.lock();
        let campaign = state
            .campaigns
            .get(name)
            .ok_or_else(|| CoordinatorError::UnknownCampaign(name.to_string()))?;
        Ok(campaign.aggregates.clone())
    }

    pub fn hardest(&self, name: &str, limit: usize, min_moves: u8) -> Result<Vec<MinedPuzzle>> {
        let id = self.campaign_id(name)?;
        Ok(self
            .store
            .hardest(id, limit, min_moves)?
            .into_iter()
            .map(|entry| mined(name, entry))
            .collect())
    }

    pub fn puzzle(&self, name: &str, seed: u64) -> Result<MinedPuzzle> {
        let (id, spec) = {
            let state = self.lock();
            let campaign = state
                .campaigns
                .get(name)
                .ok_or_else(|| CoordinatorError::UnknownCampaign(name.to_string()))?;
            (campaign.campaign.id, campaign.campaign.spec.clone())
        };
        let unit = spec.unit_of(seed).ok_or_else(|| {
            CoordinatorError::NotFound(format!(
                "seed {seed} is outside campaign {name:?} ({}..{})",
                spec.seed_start, spec.seed_end
            ))
        })?;
        let (counts, _) = self.store.unit_results(id, unit)?.ok_or_else(|| {
            CoordinatorError::NotFound(format!("seed {seed} of {name:?} is not mined yet"))
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

    /// Mined seeds needing `moves` (inclusive range) moves, hardest first, then by seed;
    /// at most `limit`. Reads every done unit's block: for pack building, not hot paths.
    pub fn find_puzzles(
        &self,
        name: &str,
        moves: std::ops::RangeInclusive<u8>,
        limit: usize,
    ) -> Result<Vec<(u64, u8)>> {
        let (id, spec, done): (u32, CampaignSpec, Vec<u64>) = {
            let state = self.lock();
            let campaign = state
                .campaigns
                .get(name)
                .ok_or_else(|| CoordinatorError::UnknownCampaign(name.to_string()))?;
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
                found.extend(seeds.zip(counts).filter(|(_, count)| moves.contains(count)));
            }
        }
        found.sort_by_key(|&(seed, count)| (std::cmp::Reverse(count), seed));
        found.truncate(limit);
        Ok(found)
    }

    /// The generator of campaign `name`.
    pub fn generator(&self, name: &str) -> Result<Generator> {
        self.lock()
            .campaigns
            .get(name)
            .map(|c| c.generator)
            .ok_or_else(|| CoordinatorError::UnknownCampaign(name.to_string()))
    }

    fn campaign_id(&self, name: &str) -> Result<u32> {
        self.lock()
            .campaigns
            .get(name)
            .map(|c| c.campaign.id)
            .ok_or_else(|| CoordinatorError::UnknownCampaign(name.to_string()))
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

impl CampaignState {
    fn new(campaign: Campaign, generator: Generator, aggregates: Aggregates) -> CampaignState {
        CampaignState {
            campaign,
            generator,
            records: BTreeMap::new(),
            next_unit: 0,
            pending: BTreeSet::new(),
            to_verify: BTreeSet::new(),
            leased: BTreeSet::new(),
            aggregates,
            units_done: 0,
            seeds_done: 0,
            progress: VecDeque::new(),
        }
    }

    /// Seeds per second over the last [`RATE_WINDOW`], counting from the seeds done just
    /// before the oldest result in it (0 when idle that long).
    fn rate(&self) -> f64 {
        let now = Instant::now();
        let recent: Vec<&(Instant, u64)> = self
            .progress
            .iter()
            .filter(|(when, _)| now - *when <= RATE_WINDOW)
            .collect();
        match (recent.first(), recent.last()) {
            (Some(&&(first, seeds_first)), Some(&&(_, seeds_last))) if recent.len() >= 2 => {
                let elapsed = (now - first).as_secs_f64().max(1e-3);
                (seeds_last - seeds_first) as f64 / elapsed
            }
            _ => 0.0,
        }
    }

    /// Files a unit record into the derived sets; a leased unit gets `deadline` if it is
    /// later than the stored one (a restarted coordinator gives holders a grace period).
    fn track(&mut self, unit: u64, record: &mut UnitRecord, deadline: i64) {
        let was_done = self
            .records
            .get(&unit)
            .is_some_and(|r| matches!(r.state, UnitState::Done { .. }));
        self.pending.remove(&unit);
        match &mut record.state {
            UnitState::Pending { .. } => {
                self.pending.insert(unit);
            }
            UnitState::Leased(lease) => {
                lease.deadline_unix_ms = lease.deadline_unix_ms.max(deadline);
                self.leased.insert(unit);
            }
            UnitState::Done { verification, .. } => {
                if !was_done {
                    self.units_done += 1;
                    let seeds = self.campaign.spec.unit_seeds(unit);
                    self.seeds_done += seeds.end - seeds.start;
                }
                match verification {
                    Verification::Pending => {
                        self.to_verify.insert(unit);
                    }
                    Verification::Leased(lease) => {
                        lease.deadline_unix_ms = lease.deadline_unix_ms.max(deadline);
                        self.leased.insert(unit);
                    }
                    _ => {}
                }
            }
            UnitState::Quarantined => {}
        }
    }
}

trait CurrentLease {
    fn current_lease(&self) -> Option<&Lease>;
    fn current_lease_mut(&mut self) -> Option<&mut Lease>;
}

impl CurrentLease for UnitRecord {
    /// The lease out on this unit: its main lease, or a done unit's verification lease.
    fn current_lease(&self) -> Option<&Lease> {
        match &self.state {
            UnitState::Leased(lease)
            | UnitState::Done {
                verification: Verification::Leased(lease),
                ..
            } => Some(lease),
            _ => None,
        }
    }

    fn current_lease_mut(&mut self) -> Option<&mut Lease> {
        match &mut self.state {
            UnitState::Leased(lease)
            | UnitState::Done {
                verification: Verification::Leased(lease),
                ..
            } => Some(lease),
            _ => None,
        }
    }
}

/// Length and digest: a submission failing these is refused without any change.
fn check_integrity(submission: &Submission, spec: &CampaignSpec, seeds: Range<u64>) -> Result<()> {
    let expected = (seeds.end - seeds.start) as usize;
    for (what, values) in [
        ("move counts", &submission.move_counts),
        ("robots-moved counts", &submission.robots_moved),
    ] {
        if values.len() != expected {
            return Err(CoordinatorError::Invalid(format!(
                "unit {} has {expected} seeds, got {} {what}",
                submission.lease.unit,
                values.len()
            )));
        }
    }
    let digest = rrm_proto::unit_digest(
        &spec.name,
        seeds,
        &submission.move_counts,
        &submission.robots_moved,
    );
    if submission.digest != digest {
        return Err(CoordinatorError::Invalid(
            "digest does not match the unit and its move counts".into(),
        ));
    }
    Ok(())
}

/// Checks a fresh result's solutions and computes what it adds to the statistics. Every
/// record candidate is solved again here; other kept solutions are replayed.
fn check_contents(
    generator: Generator,
    spec: &CampaignSpec,
    seeds: Range<u64>,
    submission: &Submission,
) -> Result<CheckedResult, String> {
    let mut solutions: HashMap<u64, &[String]> = HashMap::new();
    for (seed, moves) in &submission.solutions {
        if !seeds.contains(seed) {
            return Err(format!("solution for seed {seed}, outside the unit"));
        }
        if solutions.insert(*seed, moves).is_some() {
            return Err(format!("two solutions for seed {seed}"));
        }
    }
    let mut aggregates = Aggregates::default();
    let mut hardest = Vec::new();
    let mut solver = None;
    let results = submission.move_counts.iter().zip(&submission.robots_moved);
    for (seed, (&count, &robots)) in seeds.clone().zip(results) {
        let generated = generator
            .generate(seed)
            .map_err(|e| format!("seed {seed}: {e}"))?;
        aggregates.add(count, robots, &generated.token, &generated.arrangement);
        if count == rrm_proto::UNSOLVED {
            // Not solved within the worker's limit: the coordinator must agree.
            let solver = solver.get_or_insert_with(Solver::new);
            if let Ok(found) = solver.solve(&generated.puzzle) {
                return Err(format!(
                    "seed {seed}: reported unsolved, the coordinator finds {} moves",
                    found.moves.len()
                ));
            }
            continue;
        }
        let record = count >= spec.record_threshold;
        let Some(notation) = solutions.get(&seed) else {
            if record {
                return Err(format!(
                    "seed {seed} needs {count} moves (a record candidate) but has no solution"
                ));
            }
            continue;
        };
        let moves: Vec<Move> = notation
            .iter()
            .map(|m| Move::from_notation(m).ok_or_else(|| format!("seed {seed}: bad move {m:?}")))
            .collect::<Result<_, _>>()?;
        if moves.len() != usize::from(count) || !generated.puzzle.is_solution(&moves) {
            return Err(format!(
                "seed {seed}: the solution does not solve the puzzle in {count} moves"
            ));
        }
        if usize::from(robots) != ricochet::puzzle::robots_moved(&moves) {
            return Err(format!(
                "seed {seed}: the solution moves {} robots, not {robots}",
                ricochet::puzzle::robots_moved(&moves)
            ));
        }
        if record {
            let solver = solver.get_or_insert_with(Solver::new);
            let optimum = solver
                .solve(&generated.puzzle)
                .map_err(|e| format!("seed {seed}: the coordinator finds {e}"))?;
            if optimum.moves.len() != moves.len() {
                return Err(format!(
                    "seed {seed}: claimed {count} moves, the coordinator finds {}",
                    optimum.moves.len()
                ));
            }
        }
        hardest.push(HardEntry {
            seed,
            moves: count,
            solution: notation.to_vec(),
            re_solved: record,
        });
    }
    Ok(CheckedResult {
        hardest,
        aggregates,
    })
}

/// Adds a stored unit's counts to `aggregates`, regenerating its puzzles for the groups.
fn add_statistics(
    generator: Generator,
    seeds: Range<u64>,
    counts: &[u8],
    robots: &[u8],
    aggregates: &mut Aggregates,
) {
    for (seed, (&count, &robots)) in seeds.zip(counts.iter().zip(robots)) {
        if let Ok(generated) = generator.generate(seed) {
            aggregates.add(count, robots, &generated.token, &generated.arrangement);
        }
    }
}

/// A stable share in [0, 1) per unit: which units get a second worker's check.
fn unit_hash(campaign: u32, unit: u64) -> f64 {
    let mixed = (u64::from(campaign) << 48 ^ unit)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .rotate_left(29)
        .wrapping_mul(0xBF58_476D_1CE4_E5B9);
    (mixed >> 11) as f64 / (1u64 << 53) as f64
}

/// A random worker id (from the OS-seeded hasher), unlikely to repeat across restarts.
fn rand_id() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_i64(unix_ms());
    hasher.finish()
}
