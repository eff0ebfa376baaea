//! One campaign's state in memory: its kind, its unit records and the sets derived from
//! them (pending, leased, awaiting verification), its statistics and its recent rate.

use super::hardest::{HardestList, HARDEST_SHOWN};
use super::UnitBoard;
use ricochet::Dealer;
use rrm_model::{
    Aggregates, Campaign, ExhaustiveRecord, ExhaustiveSpec, Lease, UnitRecord, UnitState,
    Verification,
};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What a campaign's units are.
#[derive(Clone, Debug)]
pub(super) enum Kind {
    /// Seed ranges of a generator, solved under the campaign's rules.
    Seeds(Dealer),
    /// (board, target) pairs analysed exhaustively.
    Exhaustive(Arc<ExhaustiveSpec>),
}

/// The span over which the mining rate is measured.
const RATE_WINDOW: Duration = Duration::from_secs(60);

/// Lease times of the most recent accepted units kept, for the campaign's lease life.
const UNIT_TIMES_KEPT: usize = 256;
/// Units measured before their times cap a lease's life.
const UNIT_TIMES_NEEDED: usize = 5;
/// A lease may live this many times the campaign's 95th-percentile unit time.
const LIFE_PER_P95: u32 = 3;
/// The percentile a lease's life follows counts at most this many median unit times. A
/// holder that sends each unit just before its lease would end raises the percentile to
/// the life, and with it the next life, threefold each time; the median moves only
/// with more than half the campaign's recent units.
const P95_PER_MEDIAN: u32 = 4;

pub(super) struct CampaignState {
    pub(super) campaign: Campaign,
    pub(super) kind: Kind,
    /// An exhaustive campaign's accepted results by unit (derived from the store on
    /// open, so each unit counts once); empty for seed campaigns.
    pub(super) exhaustive: BTreeMap<u64, ExhaustiveRecord>,
    /// Every unit leased at least once, as stored but for lease deadlines (memory only).
    pub(super) records: BTreeMap<u64, UnitRecord>,
    /// Units from here on were never leased (and have no record).
    pub(super) next_unit: u64,
    /// Units waiting for a lease again, in unit order.
    pub(super) pending: BTreeSet<u64>,
    /// Done units chosen for a second worker's check.
    pub(super) to_verify: BTreeSet<u64>,
    /// The identity the coordinator picked to check each of them (memory only; picked
    /// again when it is gone), see `leasing`.
    pub(super) checkers: BTreeMap<u64, String>,
    /// Units whose main or verification lease is out.
    pub(super) leased: BTreeSet<u64>,
    pub(super) aggregates: Aggregates,
    /// A seed campaign's shown hardest list (empty for exhaustive ones).
    pub(super) hardest: HardestList,
    pub(super) units_done: u64,
    pub(super) seeds_done: u64,
    /// (when, seeds done then) at each accepted result of the last minute, for the rate.
    progress: VecDeque<(Instant, u64)>,
    /// An exhaustive campaign's placements per unit (worked out once: it takes a board).
    pub(super) placements_per_unit: Option<u64>,
    /// How long the most recent accepted units were leased (memory only).
    unit_times: VecDeque<Duration>,
    /// Their 95th percentile, once [`UNIT_TIMES_NEEDED`] were measured.
    unit_p95: Option<Duration>,
}

impl CampaignState {
    /// Reads the shown hardest list back from the store: on open, and after a result
    /// was taken out of it.
    pub(super) fn reload_hardest(&mut self, store: &rrm_store::Store) -> rrm_store::Result<()> {
        let stored = store.hardest(self.campaign.id, HARDEST_SHOWN, 0)?;
        self.hardest = HardestList::from_stored(&stored);
        Ok(())
    }

    /// What a worker may report solved of `unit`: its seeds, or an exhaustive unit's
    /// placements (0 for a unit the campaign does not have).
    pub(super) fn unit_work_size(&self, unit: u64) -> u64 {
        let spec = &self.campaign.spec;
        if unit >= spec.units_total() {
            return 0;
        }
        match &self.kind {
            Kind::Seeds(_) => {
                let seeds = spec.unit_seeds(unit);
                seeds.end - seeds.start
            }
            Kind::Exhaustive(_) => self.placements_per_unit.unwrap_or(0),
        }
    }

    pub(super) fn new(campaign: Campaign, kind: Kind, aggregates: Aggregates) -> CampaignState {
        let placements_per_unit = match &kind {
            Kind::Seeds(_) => None,
            Kind::Exhaustive(spec) => placements_per_unit(spec),
        };
        CampaignState {
            placements_per_unit,
            unit_times: VecDeque::new(),
            unit_p95: None,
            campaign,
            kind,
            exhaustive: BTreeMap::new(),
            records: BTreeMap::new(),
            next_unit: 0,
            pending: BTreeSet::new(),
            to_verify: BTreeSet::new(),
            checkers: BTreeMap::new(),
            leased: BTreeSet::new(),
            aggregates,
            hardest: HardestList::default(),
            units_done: 0,
            seeds_done: 0,
            progress: VecDeque::new(),
        }
    }

    /// Notes the seeds done at `now`, for [`CampaignState::rate`].
    pub(super) fn note_progress(&mut self, now: Instant) {
        self.progress.push_back((now, self.seeds_done));
        while self
            .progress
            .front()
            .is_some_and(|&(when, _)| now - when > RATE_WINDOW)
        {
            self.progress.pop_front();
        }
    }

    /// Seeds per second over the [`RATE_WINDOW`] before `now`, counting from the seeds
    /// done at the oldest result in it (0 when idle that long).
    pub(super) fn rate(&self, now: Instant) -> f64 {
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

    /// Files a unit record into the derived sets and keeps it; a leased unit gets
    /// `deadline` if it is later than the stored one (a restarted coordinator gives
    /// holders a grace period).
    pub(super) fn track(&mut self, unit: u64, mut record: UnitRecord, deadline: i64) {
        let was_done = self
            .records
            .get(&unit)
            .is_some_and(|r| matches!(r.state, UnitState::Done { .. }));
        if was_done && !matches!(record.state, UnitState::Done { .. }) {
            // A result proven wrong was taken out.
            self.units_done -= 1;
            let seeds = self.campaign.spec.unit_seeds(unit);
            self.seeds_done -= seeds.end - seeds.start;
        }
        let check_lapsed = matches!(
            (self.records.get(&unit).map(|r| &r.state), &record.state),
            (
                Some(UnitState::Done {
                    verification: Verification::Leased(_),
                    ..
                }),
                UnitState::Done {
                    verification: Verification::Pending,
                    ..
                },
            )
        );
        if check_lapsed {
            // Picked again, among those registered then.
            self.checkers.remove(&unit);
        }
        self.pending.remove(&unit);
        self.leased.remove(&unit);
        if self.to_verify.remove(&unit)
            && !matches!(
                record.state,
                UnitState::Done {
                    verification: Verification::Pending | Verification::Leased(_),
                    ..
                }
            )
        {
            self.checkers.remove(&unit);
        }
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
        self.next_unit = self.next_unit.max(unit + 1);
        self.records.insert(unit, record);
    }

    /// Notes that an accepted unit's lease was out for `took`.
    pub(super) fn note_unit_time(&mut self, took: Duration) {
        if self.unit_times.len() == UNIT_TIMES_KEPT {
            self.unit_times.pop_front();
        }
        self.unit_times.push_back(took);
        // Worked out here, once per unit, rather than at every lease.
        self.unit_p95 = (self.unit_times.len() >= UNIT_TIMES_NEEDED).then(|| {
            let mut times: Vec<Duration> = self.unit_times.iter().copied().collect();
            let count = times.len();
            let mut nth = |percent: usize| {
                *times
                    .select_nth_unstable((count * percent).div_ceil(100) - 1)
                    .1
            };
            let median = nth(50);
            nth(95).min(median * P95_PER_MEDIAN)
        });
    }

    /// How long a lease of this campaign may live, whatever progress its holder reports:
    /// [`LIFE_PER_P95`] times the 95th percentile of its recent units' lease times (at
    /// most [`P95_PER_MEDIAN`] medians), at least `floor`; `unmeasured` until
    /// [`UNIT_TIMES_NEEDED`] units were measured.
    pub(super) fn lease_life(&self, floor: Duration, unmeasured: Duration) -> Duration {
        match self.unit_p95 {
            Some(p95) => (p95 * LIFE_PER_P95).max(floor),
            None => unmeasured,
        }
    }

    /// Whether nothing is left to do: every unit done or quarantined, no check waiting.
    pub(super) fn finished(&self) -> bool {
        self.finished_but_checks() && self.to_verify.is_empty()
    }

    /// Whether nothing is left that `identity` may do: finished but for checks of results
    /// it produced itself, which only another identity may make.
    pub(super) fn finished_for(&self, identity: &str) -> bool {
        self.finished_but_checks()
            && self.to_verify.iter().all(|unit| {
                matches!(&self.records[unit].state, UnitState::Done { producer, .. } if producer == identity)
            })
    }

    pub(super) fn finished_but_checks(&self) -> bool {
        self.next_unit >= self.campaign.spec.units_total()
            && self.pending.is_empty()
            && self.leased.is_empty()
    }
}

/// The lease out on a unit: its main lease, or a done unit's verification lease.
pub(super) fn current_lease(record: &UnitRecord) -> Option<&Lease> {
    match &record.state {
        UnitState::Leased(lease)
        | UnitState::Done {
            verification: Verification::Leased(lease),
            ..
        } => Some(lease),
        _ => None,
    }
}

pub(super) fn current_lease_mut(record: &mut UnitRecord) -> Option<&mut Lease> {
    match &mut record.state {
        UnitState::Leased(lease)
        | UnitState::Done {
            verification: Verification::Leased(lease),
            ..
        } => Some(lease),
        _ => None,
    }
}

/// The placements of each unit of an exhaustive campaign (the same on every board of
/// the first edition); `None` if its first board cannot be read.
fn placements_per_unit(spec: &ExhaustiveSpec) -> Option<u64> {
    let (board, token) = spec.unit(0)?;
    UnitBoard::new(board, token)
        .ok()
        .map(|unit| unit.placements())
}

#[cfg(test)]
pub(super) mod tests;
