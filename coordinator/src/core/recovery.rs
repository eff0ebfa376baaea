//! Opening a store: campaigns and unit records come back as they were stored, leases get
//! a fresh deadline, and statistics are brought up to date from the commit log.

use super::campaign_state::{CampaignState, Kind};
use super::checks::add_counts;
use super::disk::DiskGuard;
use super::replication::Standing;
use super::{Coordinator, CoordinatorError, Result, State};
use crate::metrics::Metrics;
use crate::{unix_ms, Config};
use ricochet::{Dealer, Generator};
use rrm_model::UNSOLVED;
use rrm_model::{Aggregates, CampaignName, Distrust};
use rrm_store::{Store, StoreError};
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

/// What the coordinator keeps in memory that comes from the store.
struct Loaded {
    campaigns: BTreeMap<CampaignName, CampaignState>,
    next_commit: u64,
    distrusted: HashMap<String, Distrust>,
    standing: Standing,
}

/// Loads every campaign from `store`. Leases found there get a fresh deadline, so
/// workers that outlived a coordinator restart can still submit. An exhaustive
/// campaign's results come back by unit, each counted once.
fn load(store: &Store, config: &Config) -> Result<Loaded> {
    let now = unix_ms();
    let mut campaigns = BTreeMap::new();
    for campaign in store.campaigns()? {
        let kind = match store.exhaustive_spec(campaign.id)? {
            Some(spec) => Kind::Exhaustive(Arc::new(spec)),
            None => Kind::Seeds(Dealer {
                generator: campaign.spec.generator.parse::<Generator>()?,
                rules: campaign.spec.rules,
            }),
        };
        let aggregates = store
            .aggregates(campaign.id)?
            .filter(|saved| !counts_unsolved(saved))
            .unwrap_or_default();
        let mut state = CampaignState::new(campaign, kind, aggregates);
        match state.kind {
            Kind::Exhaustive(_) => {
                state.exhaustive = store
                    .exhaustive_results(state.campaign.id)?
                    .into_iter()
                    .collect();
            }
            Kind::Seeds(_) => state.reload_hardest(store)?,
        }
        for (unit, record) in store.units(state.campaign.id)? {
            state.track(unit, record, now + config.lease_ms());
        }
        campaigns.insert(state.campaign.spec.name.clone(), state);
    }
    let last_commit = replay_commits(store, &mut campaigns)?;
    let distrusted: HashMap<_, _> = store
        .distrusted()?
        .into_iter()
        .map(|d| (d.identity.clone(), d))
        .collect();
    let mut standing = Standing::default();
    for campaign in campaigns.values() {
        standing.count(campaign.records.values());
    }
    for identity in distrusted.keys() {
        standing.forget(identity);
    }
    Ok(Loaded {
        campaigns,
        next_commit: last_commit + 1,
        distrusted,
        standing,
    })
}

impl Coordinator {
    /// Opens a coordinator over `store`, loading what it holds (see [`load`]).
    pub fn open(store: Store, config: Config) -> Result<Coordinator> {
        if store.replayed_groups() > 0 {
            tracing::info!(
                groups = store.replayed_groups(),
                "writes the store had not made durable came back from its journal"
            );
        }
        let loaded = load(&store, &config)?;
        let dir = store.dir().to_path_buf();
        let config_reserve = config.min_free_disk;
        let coordinator = Coordinator {
            store,
            config,
            state: Mutex::new(State {
                campaigns: BTreeMap::new(),
                progress: Default::default(),
                stalls: Default::default(),
                credit: Default::default(),
                standing: Standing::default(),
                checks: Default::default(),
                workers: Default::default(),
                distrusted: HashMap::new(),
                next_commit: 0,
                round_robin: 0,
                expiry_scanned: None,
            }),
            shutting_down: AtomicBool::new(false),
            analysing: Mutex::new(()),
            metrics: Metrics::new(),
            disk: Mutex::new(DiskGuard::new(
                config_reserve,
                Box::new(move || rrm_store::space_of(&dir)),
            )),
        };
        coordinator.install(&mut coordinator.lock(), loaded)?;
        Ok(coordinator)
    }

    /// Brings back the store's writes after they stopped (a full disk, a failed sync):
    /// reopens it, which replays its journal, and reloads what memory holds of it, as a
    /// restart would, while registrations and sessions stay. Writes the store had not
    /// acknowledged may be gone; their workers send them again.
    pub fn resume_writes(&self) -> Result<()> {
        let mut state = self.lock();
        self.store.reopen()?;
        let loaded = load(&self.store, &self.config)?;
        self.install(&mut state, loaded)?;
        tracing::info!("the store was reopened and takes writes again");
        Ok(())
    }

    /// Puts what was loaded from the store in `state`. A crash may have come between a
    /// distrust and the checks it queues: those are queued again.
    fn install(&self, state: &mut State, loaded: Loaded) -> Result<()> {
        let Loaded {
            mut campaigns,
            next_commit,
            distrusted,
            standing,
        } = loaded;
        for campaign in campaigns.values_mut() {
            self.recheck_distrusted(campaign, &distrusted)?;
        }
        state.campaigns = campaigns;
        state.next_commit = next_commit;
        state.distrusted = distrusted;
        state.standing = standing;
        Ok(())
    }
}

/// Adds the results committed after each campaign's saved statistics to them; returns
/// the last commit number in use.
fn replay_commits(
    store: &Store,
    campaigns: &mut BTreeMap<CampaignName, CampaignState>,
) -> Result<u64> {
    let by_id: HashMap<u32, String> = campaigns
        .values()
        .map(|c| (c.campaign.id, c.campaign.spec.name.to_string()))
        .collect();
    let oldest = campaigns
        .values()
        .map(|c| c.aggregates.through_commit)
        .min()
        .unwrap_or(0);
    for (commit, id, unit) in store.commits_after(oldest)? {
        let Some(state) = by_id
            .get(&id)
            .and_then(|name| campaigns.get_mut(name.as_str()))
        else {
            continue;
        };
        // Exhaustive results are loaded whole, by unit, not replayed.
        let Kind::Seeds(Dealer { generator, .. }) = state.kind else {
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
        add_unit(&mut state.aggregates, generator, seeds, &counts, &robots);
    }
    // Saved statistics never name a commit the log lacks; if they did, numbering goes on
    // after them rather than reuse a number they claim to include.
    let last_commit = campaigns
        .values()
        .map(|c| c.aggregates.through_commit)
        .fold(store.last_commit()?, u64::max);
    for state in campaigns.values_mut() {
        state.aggregates.through_commit = last_commit;
    }
    Ok(last_commit)
}

/// Whether saved statistics count unsolved seeds, as stores written before they were
/// left out do: such statistics are rebuilt from the whole commit log.
fn counts_unsolved(aggregates: &Aggregates) -> bool {
    aggregates
        .histogram
        .get(usize::from(UNSOLVED))
        .is_some_and(|&count| count > 0)
}

/// Adds a stored unit result (its seeds' counts and robots moved) to `aggregates`.
pub(super) fn add_unit(
    aggregates: &mut Aggregates,
    generator: Generator,
    seeds: std::ops::Range<u64>,
    counts: &[u8],
    robots: &[u8],
) {
    let dealer = Dealer::standard(generator);
    for (seed, (&count, &robots)) in seeds.zip(counts.iter().zip(robots)) {
        // Stored results were dealt when accepted; a seed failing now adds nothing.
        if let Ok(dealt) = dealer.deal(seed) {
            add_counts(aggregates, &dealt, count, robots);
        }
    }
}
