//! The coordinator's bookkeeping, free of gRPC: leases, submissions, status and statistics.
//!
//! All state lives in [`State`] behind one mutex. Every change to a unit is written to
//! the store under that lock before memory changes, so the stored records never lag
//! memory. Lease deadlines and heartbeats live in memory only: a restarted coordinator
//! grants every stored lease a fresh deadline. Slow work (checking solutions,
//! re-solving record candidates, regenerating puzzles for statistics) happens outside
//! the lock, and the state is checked again before anything is written.
//!
//! One child module per concern, each adding methods to [`Coordinator`]:
//! `recovery` (opening a store), `identity` (registrations, sessions, distrust),
//! `leasing` (storing what `lease_decisions` decides), `submission`, `disputes` (settling
//! results that disagree), `queries`, `progress` (seeds reported in heartbeats, what is
//! left for a worker), `exhaustive` (exhaustive campaigns: creation, import, their
//! checks and queries). Parts that need no store are types or pure functions with
//! their own unit tests: `campaign_state` (one campaign in memory), `registry`,
//! `lease_decisions`, `quotas`, `checks`; `error` holds the public error types.

mod campaign_state;
mod checks;
mod disk;
mod disputes;
mod error;
mod exhaustive;
mod hardest;
mod identity;
mod lease_decisions;
mod leasing;
mod progress;
mod queries;
mod quotas;
mod recovery;
mod registry;
mod replication;
mod store_check;
mod submission;

pub use checks::SPOT_SHARE;
pub use disk::{DiskReserve, SpaceProbe};
pub use disputes::SETTLE_BUDGET;
pub use error::{CoordinatorError, Counts, PlacementList, QuotaLimit, Rejection, Result};
pub use exhaustive::{
    DoneUnit, Provenance, ReSolving, UnitBoard, CONFIRMED_BY_COORDINATOR, IMPORTED,
    IMPORT_RESOLVE_BUDGET, RESOLVE_BUDGET,
};
pub use hardest::HARDEST_SHOWN;
pub use progress::Remaining;
pub use registry::{Session, Worker};
use rrm_model::{
    Assignment, CampaignStats, CampaignStatus, ExactStats, ExhaustiveUnit, LeaseRef,
    MinedPlacement, MinedPuzzle, Outcome, QuarantinedUnit, Submission,
};
pub use store_check::{verify_store, VerifyReport};
pub use submission::SubmitBounds;

use crate::metrics::Metrics;
use crate::stages::{Stage, StageClock, StageTimes};
use crate::{unix_ms, Config};
use campaign_state::{CampaignState, Kind};
use ricochet::{Dealer, Generator};
use rrm_model::{Aggregates, CampaignName, CampaignSpec};
use rrm_store::Store;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

/// Everything the coordinator keeps in memory, behind its one mutex.
struct State {
    campaigns: BTreeMap<CampaignName, CampaignState>,
    /// Seeds solved in held leases, from heartbeats.
    progress: progress::LeaseProgress,
    /// When each lease out last showed progress.
    stalls: quotas::LeaseStalls,
    /// Results each identity had taken since this coordinator started.
    credit: quotas::Credit,
    /// Confirmed units per identity: whose results are solved again in full.
    standing: replication::Standing,
    /// When each identity's next unit is checked.
    checks: replication::CheckSchedule,
    /// Registered workers by id.
    workers: registry::Registry,
    /// Identities proven wrong, as stored.
    distrusted: HashMap<String, rrm_model::Distrust>,
    /// The number the next accepted result gets in the commit log.
    next_commit: u64,
    /// Where the next lease search starts, so campaigns share the workers.
    round_robin: usize,
    /// When leases were last checked for expiry (see `leasing::EXPIRY_SCAN`).
    expiry_scanned: Option<Instant>,
}

impl State {
    fn campaign(&self, name: &str) -> Result<&CampaignState> {
        self.campaigns
            .get(name)
            .ok_or_else(|| CoordinatorError::UnknownCampaign(name.to_string()))
    }
}

/// The locked state; the time it was held is recorded when it is let go.
struct StateGuard<'a> {
    guard: MutexGuard<'a, State>,
    taken: Instant,
    stages: &'a StageClock,
}

impl std::ops::Deref for StateGuard<'_> {
    type Target = State;
    fn deref(&self) -> &State {
        &self.guard
    }
}

impl std::ops::DerefMut for StateGuard<'_> {
    fn deref_mut(&mut self) -> &mut State {
        &mut self.guard
    }
}

impl Drop for StateGuard<'_> {
    fn drop(&mut self) {
        self.stages.since(Stage::LockHeld, self.taken);
    }
}

/// The coordinator's state over its store. Methods are synchronous and may block on the
/// store; async callers run the slow ones (submissions with record candidates, pack
/// queries) on blocking threads.
pub struct Coordinator {
    store: Store,
    config: Config,
    state: Mutex<State>,
    /// Raised by [`Coordinator::stop_leasing`] at shutdown.
    shutting_down: AtomicBool,
    /// Its own metrics, counted where events are stored.
    metrics: Metrics,
    /// Free space on the store's volume, checked before new work.
    disk: Mutex<disk::DiskGuard>,
    /// Held over the coordinator's own analysis of an exhaustive unit: one at a time.
    analysing: Mutex<()>,
}

impl Coordinator {
    /// The settings it was opened with.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Its store, for flushing and for reading what the coordinator does not keep in
    /// memory.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Its metrics, for the gRPC server's layer, the group commit and `/metrics`.
    pub(crate) fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// The state, timed: waiting for it and holding it count as their stages.
    fn lock(&self) -> StateGuard<'_> {
        let asked = Instant::now();
        // A panic under the lock cannot leave memory ahead of the store (the store is
        // written first), so the state stays usable.
        let guard = self
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let taken = Instant::now();
        let stages = self.metrics.stages();
        stages.record(Stage::LockWait, taken - asked);
        StateGuard {
            guard,
            taken,
            stages,
        }
    }

    /// Where calls spent their time so far.
    pub fn stage_times(&self) -> StageTimes {
        self.metrics.stages().snapshot()
    }

    /// Stops handing out units; submissions are still taken.
    pub fn stop_leasing(&self) {
        self.shutting_down.store(true, Ordering::SeqCst);
    }

    /// Whether it is shutting down ([`Coordinator::stop_leasing`]).
    pub fn is_shutting_down(&self) -> bool {
        self.shutting_down.load(Ordering::SeqCst)
    }

    /// Creates a campaign after checking its spec and generator.
    pub fn create_campaign(&self, spec: CampaignSpec) -> Result<CampaignStatus> {
        let generator: Generator = spec.generator.parse()?;
        let spec_rules = spec.rules;
        if generator == Generator::Ricocheckers && spec_rules != ricochet::rules::Rules::STANDARD {
            return Err(rrm_model::SpecError::GameRules(spec_rules).into());
        }
        if spec.seed_start < generator.first_seed() {
            return Err(rrm_model::SpecError::BeforeFirstSeed {
                generator: generator.to_string(),
                first: generator.first_seed(),
            }
            .into());
        }
        let seeds = spec.seed_end.saturating_sub(spec.seed_start);
        self.check_size(seeds.div_ceil(spec.unit_size.max(1)), seeds)?;
        let mut state = self.lock();
        let campaign = self.store.create_campaign(spec, unix_ms())?;
        let name = campaign.spec.name.clone();
        let aggregates = Aggregates {
            through_commit: state.next_commit - 1,
            ..Aggregates::default()
        };
        state.campaigns.insert(
            name.clone(),
            CampaignState::new(
                campaign,
                Kind::Seeds(Dealer {
                    generator,
                    rules: spec_rules,
                }),
                aggregates,
            ),
        );
        drop(state);
        self.status(&name)
    }

    /// Refuses a campaign of more units or seeds than the configured limits.
    pub(crate) fn check_size(&self, units: u64, seeds: u64) -> Result<()> {
        let over = |what, count, limit| CoordinatorError::CampaignTooLarge { what, count, limit };
        if units > self.config.max_campaign_units {
            return Err(over("units", units, self.config.max_campaign_units));
        }
        if seeds > self.config.max_campaign_seeds {
            return Err(over("seeds", seeds, self.config.max_campaign_seeds));
        }
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
}
