//! The queries on exhaustive campaigns: their done units with provenance (one or all),
//! each unit's maxima for the census map, the exact distribution by board and target, and
//! the placements the units list, by depth.

use super::{exhaustive_of, unit_board, unit_work, DoneUnit, Provenance, CONFIRMED_BY_COORDINATOR};
use crate::core::campaign_state::{CampaignState, Kind};
use crate::core::{
    CampaignStats, Coordinator, CoordinatorError, ExactStats, ExhaustiveUnit, MinedPlacement,
    Result,
};
use rrm_model::{
    Aggregates, ExhaustiveRecord, ExhaustiveSpec, Group, PlacementCells, UnitState, Verification,
};
use rrm_model::{UnitMap, UnitMaxima};
use std::collections::{BTreeMap, HashSet};
use std::ops::RangeInclusive;

impl Coordinator {
    /// Every done unit of exhaustive campaign `name` with its result and provenance, in
    /// unit order.
    pub fn done_units(&self, name: &str) -> Result<Vec<DoneUnit>> {
        let state = self.lock();
        let campaign = state.campaign(name)?;
        let spec = exhaustive_of(campaign)?;
        Ok(campaign
            .exhaustive
            .iter()
            .filter_map(|(&unit, record)| done_unit(campaign, &spec, unit, record))
            .collect())
    }

    /// The provenance of every done unit of exhaustive campaign `name`, by unit: what
    /// tells a unit file writer which files changed, without copying the results.
    pub fn done_provenances(&self, name: &str) -> Result<Vec<(u64, Provenance)>> {
        let state = self.lock();
        let campaign = state.campaign(name)?;
        let spec = exhaustive_of(campaign)?;
        Ok((campaign.exhaustive.keys())
            .filter_map(|&unit| Some((unit, provenance(campaign, &spec, unit)?)))
            .collect())
    }

    /// Done unit `unit` of exhaustive campaign `name` with its result and provenance.
    pub fn done_unit(&self, name: &str, unit: u64) -> Result<DoneUnit> {
        let state = self.lock();
        let campaign = state.campaign(name)?;
        let spec = exhaustive_of(campaign)?;
        campaign
            .exhaustive
            .get(&unit)
            .and_then(|record| done_unit(campaign, &spec, unit, record))
            .ok_or_else(|| CoordinatorError::UnitNotDone {
                campaign: name.to_string(),
                unit,
            })
    }

    /// The placements at done unit `unit`'s maximum (or at its legal maximum, if `legal`),
    /// with the coordinator's solutions (empty for those it did not draw).
    pub fn hardest_placements(
        &self,
        name: &str,
        unit: u64,
        legal: bool,
    ) -> Result<Vec<MinedPlacement>> {
        let state = self.lock();
        let campaign = state.campaign(name)?;
        let spec = exhaustive_of(campaign)?;
        let not_done = || CoordinatorError::UnitNotDone {
            campaign: name.to_string(),
            unit,
        };
        let record = campaign.exhaustive.get(&unit).ok_or_else(not_done)?;
        let lister = Lister::new(name, &spec, unit)?.ok_or_else(not_done)?;
        Ok(lister.hardest(record, legal))
    }

    /// The canonical boards of exhaustive campaign `name` (its spec alone: no unit read).
    pub fn exhaustive_boards(&self, name: &str) -> Result<Vec<String>> {
        let state = self.lock();
        Ok(exhaustive_of(state.campaign(name)?)?.boards.clone())
    }

    /// The map of exhaustive campaign `name`: its boards and targets, and each done unit's
    /// maxima (what the census heatmap draws), without copying the units' lists.
    pub fn unit_maxima(&self, name: &str) -> Result<UnitMap> {
        let state = self.lock();
        let campaign = state.campaign(name)?;
        let spec = exhaustive_of(campaign)?;
        let maxima = campaign
            .exhaustive
            .iter()
            .filter_map(|(&unit, record)| {
                let (board, token) = spec.unit(unit)?;
                let maxima = UnitMaxima {
                    unit,
                    all: record.result.max_moves,
                    legal: record.result.legal_max_moves(),
                };
                Some(((board.to_string(), token.to_string()), maxima))
            })
            .collect();
        Ok(UnitMap {
            boards: spec.boards.clone(),
            targets: spec.targets.clone(),
            maxima,
        })
    }

    /// The statistics of campaign `name`: for an exhaustive campaign the exact
    /// distribution over its done units, overall, by target token and by board.
    pub fn stats(&self, name: &str) -> Result<CampaignStats> {
        let state = self.lock();
        let campaign = state.campaign(name)?;
        let mut stats = CampaignStats {
            campaign: name.to_string(),
            aggregates: Aggregates::default(),
            exhaustive: None,
        };
        let Kind::Exhaustive(spec) = &campaign.kind else {
            stats.aggregates = campaign.aggregates.clone();
            return Ok(stats);
        };
        let mut exact = ExactStats::default();
        for (&unit, record) in &campaign.exhaustive {
            let Some((board, token)) = spec.unit(unit) else {
                continue;
            };
            let result = &record.result;
            exact.overall.add(result);
            exact
                .by_target
                .entry(token.to_string())
                .or_default()
                .add(result);
            exact
                .by_board
                .entry(board.to_string())
                .or_default()
                .add(result);
        }
        let aggregates = &mut stats.aggregates;
        aggregates.histogram = exact.overall.histogram.clone();
        for (groups, exact) in [
            (&mut aggregates.by_target, &exact.by_target),
            (&mut aggregates.by_arrangement, &exact.by_board),
        ] {
            for (name, distribution) in exact {
                groups.insert(name.clone(), group_of(&distribution.histogram));
            }
        }
        stats.exhaustive = Some(exact);
        Ok(stats)
    }

    /// Placements of exhaustive campaign `name` needing `moves` (inclusive range), most
    /// moves first, then the units in turns (each one's first, then each one's second...):
    /// each unit's placements at its maximum (with the coordinator's solutions), and unless
    /// `hardest_only` the rest it lists (see `listed`); at most `limit`.
    pub fn find_placements(
        &self,
        name: &str,
        moves: RangeInclusive<u8>,
        limit: usize,
        hardest_only: bool,
    ) -> Result<Vec<MinedPlacement>> {
        let state = self.lock();
        let campaign = state.campaign(name)?;
        let spec = exhaustive_of(campaign)?;
        let mut found = Hardest::default();
        for (&unit, record) in &campaign.exhaustive {
            let listed = listed(name, &spec, unit, record, &moves, hardest_only)?;
            for (index, mined) in listed.into_iter().enumerate() {
                found.keep(unit, index, mined, limit);
            }
        }
        Ok(found.into_values().collect())
    }

    /// The hardest placements each target token of exhaustive campaign `name` lists, up to
    /// `per_target` of each, hardest first: a campaign's records, target by target.
    pub fn records_by_target(
        &self,
        name: &str,
        per_target: usize,
    ) -> Result<BTreeMap<String, Vec<MinedPlacement>>> {
        let state = self.lock();
        let campaign = state.campaign(name)?;
        let spec = exhaustive_of(campaign)?;
        let mut found: BTreeMap<String, Hardest> = BTreeMap::new();
        for (&unit, record) in &campaign.exhaustive {
            let listed = listed(name, &spec, unit, record, &(0..=u8::MAX), true)?;
            for (index, mined) in listed.into_iter().enumerate() {
                let of_token = found.entry(mined.token.clone()).or_default();
                of_token.keep(unit, index, mined, per_target);
            }
        }
        Ok(found
            .into_iter()
            .map(|(token, hardest)| (token, hardest.into_values().collect()))
            .collect())
    }

    /// One placement a done unit of campaign `name` lists (at its maximum, with the
    /// coordinator's solution, or in its top placements of a depth).
    pub fn placement(
        &self,
        name: &str,
        unit: u64,
        cells: PlacementCells,
    ) -> Result<MinedPlacement> {
        let state = self.lock();
        let campaign = state.campaign(name)?;
        let spec = exhaustive_of(campaign)?;
        let not_listed = || CoordinatorError::NotListed {
            campaign: name.to_string(),
            unit,
            placement: cells,
        };
        let record = campaign.exhaustive.get(&unit).ok_or_else(not_listed)?;
        listed(name, &spec, unit, record, &(0..=u8::MAX), false)?
            .into_iter()
            .find(|mined| mined.placement == cells)
            .ok_or_else(not_listed)
    }
}

/// A done unit with its provenance, or `None` when it is not done (or not the spec's).
fn done_unit(
    campaign: &CampaignState,
    spec: &ExhaustiveSpec,
    unit: u64,
    record: &ExhaustiveRecord,
) -> Option<DoneUnit> {
    let (board, token) = spec.unit(unit)?;
    Some(DoneUnit {
        unit,
        board: board.to_string(),
        token: token.to_string(),
        provenance: provenance(campaign, spec, unit)?,
        record: record.clone(),
    })
}

/// Who computed and who checked done unit `unit` (`None` if it is not done).
fn provenance(campaign: &CampaignState, spec: &ExhaustiveSpec, unit: u64) -> Option<Provenance> {
    spec.unit(unit)?;
    let record = campaign.exhaustive.get(&unit)?;
    let Some(UnitState::Done {
        producer,
        verification,
        ..
    }) = campaign.records.get(&unit).map(|r| &r.state)
    else {
        return None;
    };
    let (verified_by, check_pending) = match verification {
        Verification::Agreed { by } => (Some(by.clone()), false),
        Verification::Confirmed => (Some(CONFIRMED_BY_COORDINATOR.to_string()), false),
        Verification::Pending | Verification::Leased(_) => (None, true),
        Verification::NotChosen => (None, false),
    };
    Some(Provenance {
        producer: Some(producer.clone()),
        verified_by,
        check_pending,
        cpu_ms: record.cpu_ms,
        rrm_version: record.rrm_version.clone(),
    })
}

/// A done unit's placements as [`MinedPlacement`]s: the unit's board, token and target
/// cell are looked up once.
struct Lister<'a> {
    name: &'a str,
    unit: u64,
    work: ExhaustiveUnit,
    target_cell: u8,
}

impl<'a> Lister<'a> {
    /// `None` for a unit the spec does not have.
    fn new(name: &'a str, spec: &ExhaustiveSpec, unit: u64) -> Result<Option<Lister<'a>>> {
        let Some(work) = unit_work(spec, unit) else {
            return Ok(None);
        };
        let target_cell = unit_board(&work)?.target_cell;
        Ok(Some(Lister {
            name,
            unit,
            work,
            target_cell,
        }))
    }

    fn mined(&self, placement: PlacementCells, moves: u8, solution: Vec<String>) -> MinedPlacement {
        MinedPlacement {
            campaign: self.name.to_string(),
            unit: self.unit,
            board: self.work.board.clone(),
            token: self.work.token.clone(),
            target_cell: self.target_cell,
            placement,
            moves,
            solution,
        }
    }

    /// The placements at the unit's maximum (or its legal maximum), with the coordinator's
    /// solutions (empty for those it did not draw).
    fn hardest(&self, record: &ExhaustiveRecord, legal: bool) -> Vec<MinedPlacement> {
        let result = &record.result;
        let (moves, placements, solutions) = if legal {
            let lists = (&result.legal_hardest, &record.legal_hardest_solutions);
            (result.legal_max_moves(), lists.0, lists.1)
        } else {
            (result.max_moves, &result.hardest, &record.hardest_solutions)
        };
        placements
            .iter()
            .zip(solutions)
            .map(|(&cells, solution)| self.mined(cells, moves, solution.clone()))
            .collect()
    }
}

/// The placements a done unit lists needing `moves`: those at its maximum (with the
/// coordinator's solutions), then unless `hardest_only` those at its legal maximum (with
/// solutions too), its legal samples and its top placements per depth not listed already.
/// Samples come first: they are spread over the placements' ranks, where a top list holds
/// a depth's first placements in rank order, whose helpers crowd the low cells.
fn listed(
    name: &str,
    spec: &ExhaustiveSpec,
    unit: u64,
    record: &ExhaustiveRecord,
    moves: &RangeInclusive<u8>,
    hardest_only: bool,
) -> Result<Vec<MinedPlacement>> {
    let Some(lister) = Lister::new(name, spec, unit)? else {
        return Ok(Vec::new());
    };
    let result = &record.result;
    let mut listed: Vec<MinedPlacement> = Vec::new();
    if moves.contains(&result.max_moves) {
        listed = lister.hardest(record, false);
    }
    if hardest_only {
        return Ok(listed);
    }
    let mut seen: HashSet<PlacementCells> = listed.iter().map(|m| m.placement).collect();
    if moves.contains(&result.legal_max_moves()) {
        let legal = lister.hardest(record, true);
        listed.extend(legal.into_iter().filter(|m| seen.insert(m.placement)));
    }
    let samples = result
        .legal_samples
        .iter()
        .zip(1u8..)
        .map(|(list, d)| (d, list));
    let by_depth = samples.chain(result.top.iter().map(|(d, list)| (*d, list)));
    for (depth, placements) in by_depth.filter(|(d, _)| moves.contains(d)) {
        for &cells in placements {
            if seen.insert(cells) {
                listed.push(lister.mined(cells, depth, Vec::new()));
            }
        }
    }
    Ok(listed)
}

/// The count, total and maximum of a histogram's placements.
fn group_of(histogram: &[u64]) -> Group {
    let mut group = Group::default();
    for (depth, &count) in histogram.iter().enumerate().filter(|(_, &c)| c > 0) {
        group.puzzles += count;
        group.total_moves += depth as u64 * count;
        group.max_moves = depth as u8;
    }
    group
}

/// Placements kept hardest first. Within a depth, the units take turns (first placement
/// of each, then second...): a limit then cuts every unit's list short rather than the
/// last units'.
#[derive(Default)]
struct Hardest(BTreeMap<(std::cmp::Reverse<u8>, usize, u64), MinedPlacement>);

impl Hardest {
    /// Keeps `mined`, the `index`-th placement unit `unit` lists, if it is among the
    /// `limit` hardest so far.
    fn keep(&mut self, unit: u64, index: usize, mined: MinedPlacement, limit: usize) {
        self.0
            .insert((std::cmp::Reverse(mined.moves), index, unit), mined);
        if self.0.len() > limit {
            self.0.pop_last();
        }
    }

    fn into_values(self) -> impl Iterator<Item = MinedPlacement> {
        self.0.into_values()
    }
}
