//! Statistics of move counts: a campaign's aggregates (histograms, by target, by robot
//! arrangement), exact distributions of exhaustive units, and their summaries.

use crate::ExhaustiveResult;
use std::collections::BTreeMap;

/// Puzzles of one group and their move counts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Group {
    pub puzzles: u64,
    pub total_moves: u64,
    pub max_moves: u8,
    /// `histogram[m]`: the group's puzzles needing `m` moves, so that a result proven
    /// wrong can be taken out again (its maximum included). Empty in groups read from
    /// the wire.
    pub histogram: Vec<u64>,
}

impl Group {
    pub fn add(&mut self, moves: u8) {
        self.puzzles += 1;
        self.total_moves += u64::from(moves);
        self.max_moves = self.max_moves.max(moves);
        count(&mut self.histogram, moves);
    }

    /// Takes out the puzzles of `other` (a part of this group).
    pub fn subtract(&mut self, other: &Group) {
        subtract_bins(&mut self.histogram, &other.histogram);
        self.puzzles = self.puzzles.saturating_sub(other.puzzles);
        self.total_moves = self.total_moves.saturating_sub(other.total_moves);
        self.max_moves = deepest(&self.histogram);
    }

    /// Adds the puzzles of `other`.
    pub fn merge(&mut self, other: &Group) {
        self.puzzles += other.puzzles;
        self.total_moves += other.total_moves;
        self.max_moves = self.max_moves.max(other.max_moves);
        add_bins(&mut self.histogram, &other.histogram);
    }

    /// Mean optimal move count (0 when empty).
    pub fn mean(&self) -> f64 {
        self.total_moves as f64 / self.puzzles.max(1) as f64
    }
}

/// A campaign's statistics, including every commit up to `through_commit`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Aggregates {
    pub through_commit: u64,
    /// `histogram[m]`: puzzles needing `m` moves.
    pub histogram: Vec<u64>,
    pub by_target: BTreeMap<String, Group>,
    pub by_arrangement: BTreeMap<String, Group>,
    /// `by_robots_moved[k]`: puzzles whose solution moves `k` different robots.
    pub by_robots_moved: Vec<u64>,
}

impl Aggregates {
    pub fn puzzles(&self) -> u64 {
        self.histogram.iter().sum()
    }

    /// Mean optimal move count (0 when empty).
    pub fn mean(&self) -> f64 {
        let total: u64 = self
            .histogram
            .iter()
            .enumerate()
            .map(|(moves, &count)| moves as u64 * count)
            .sum();
        total as f64 / self.puzzles().max(1) as f64
    }

    /// The move count at or below which `share` (0 to 1) of the puzzles lie.
    pub fn percentile(&self, share: f64) -> u8 {
        let wanted = (share * self.puzzles() as f64).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (moves, &count) in self.histogram.iter().enumerate() {
            seen += count;
            if seen >= wanted {
                return moves as u8;
            }
        }
        self.histogram.len().saturating_sub(1) as u8
    }

    /// The hardest move count seen (0 when empty).
    pub fn max_moves(&self) -> u8 {
        deepest(&self.histogram)
    }

    /// Adds the counts of `other`.
    pub fn merge(&mut self, other: &Aggregates) {
        add_bins(&mut self.histogram, &other.histogram);
        add_bins(&mut self.by_robots_moved, &other.by_robots_moved);
        for (groups, from) in [
            (&mut self.by_target, &other.by_target),
            (&mut self.by_arrangement, &other.by_arrangement),
        ] {
            for (name, group) in from {
                groups.entry(name.clone()).or_default().merge(group);
            }
        }
    }

    pub fn add(&mut self, moves: u8, robots_moved: u8, target: &str, arrangement: &str) {
        count(&mut self.histogram, moves);
        count(&mut self.by_robots_moved, robots_moved);
        self.by_target
            .entry(target.to_string())
            .or_default()
            .add(moves);
        self.by_arrangement
            .entry(arrangement.to_string())
            .or_default()
            .add(moves);
    }

    /// Takes out the counts [`Aggregates::merge`] put in: a result proven wrong leaves
    /// the statistics.
    pub fn subtract(&mut self, other: &Aggregates) {
        subtract_bins(&mut self.histogram, &other.histogram);
        subtract_bins(&mut self.by_robots_moved, &other.by_robots_moved);
        for (groups, from) in [
            (&mut self.by_target, &other.by_target),
            (&mut self.by_arrangement, &other.by_arrangement),
        ] {
            for (name, taken) in from {
                if let Some(group) = groups.get_mut(name) {
                    group.subtract(taken);
                    if group.puzzles == 0 {
                        groups.remove(name);
                    }
                }
            }
        }
    }
}

fn count(histogram: &mut Vec<u64>, bin: u8) {
    let bin = usize::from(bin);
    if histogram.len() <= bin {
        histogram.resize(bin + 1, 0);
    }
    histogram[bin] += 1;
}

/// Undoes [`add_bins`], dropping emptied bins at the end so that taking a result out
/// leaves the histogram it would have had without it.
fn subtract_bins(into: &mut Vec<u64>, from: &[u64]) {
    for (bin, count) in from.iter().enumerate() {
        if let Some(into) = into.get_mut(bin) {
            *into = into.saturating_sub(*count);
        }
    }
    while into.last() == Some(&0) {
        into.pop();
    }
}

/// Adds histogram `from` into `into`, bin by bin.
pub fn add_bins(into: &mut Vec<u64>, from: &[u64]) {
    if into.len() < from.len() {
        into.resize(from.len(), 0);
    }
    for (bin, count) in from.iter().enumerate() {
        into[bin] += count;
    }
}

/// The deepest non-empty bin of a histogram of move counts (0 when all are empty).
pub fn deepest(histogram: &[u64]) -> u8 {
    histogram.iter().rposition(|&count| count > 0).unwrap_or(0) as u8
}

/// A campaign's statistics under its name; for exhaustive campaigns also the exact
/// distributions (the aggregates then hold the histogram over all placements, and each
/// target's and board's count, mean and maximum).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CampaignStats {
    pub campaign: String,
    pub aggregates: Aggregates,
    pub exhaustive: Option<ExactStats>,
}

/// The exact distributions of an exhaustive campaign's done units: over them all, by
/// target token and by board (canonical name).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExactStats {
    pub overall: Distribution,
    pub by_target: BTreeMap<String, Distribution>,
    pub by_board: BTreeMap<String, Distribution>,
}

/// The exact depth distribution of the placements of some exhaustive units.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Distribution {
    pub units: u64,
    /// `histogram[d]`: placements needing `d` moves.
    pub histogram: Vec<u64>,
    /// The same over legal placements (no robot on a target cell).
    pub legal_histogram: Vec<u64>,
    pub unsolvable: u64,
}

impl Distribution {
    /// The histogram over all placements, with the summaries of [`Aggregates`] (mean,
    /// percentiles, maximum).
    pub fn all(&self) -> Aggregates {
        histogram_only(&self.histogram)
    }

    /// The same over legal placements.
    pub fn legal(&self) -> Aggregates {
        histogram_only(&self.legal_histogram)
    }

    /// Adds one unit's result.
    pub fn add(&mut self, result: &ExhaustiveResult) {
        self.add_histograms(
            &result.histogram,
            &result.legal_histogram,
            result.unsolvable,
        );
    }

    /// Adds one unit's histograms (all and legal placements) and unsolvable count.
    pub fn add_histograms(&mut self, histogram: &[u64], legal: &[u64], unsolvable: u64) {
        self.units += 1;
        add_bins(&mut self.histogram, histogram);
        add_bins(&mut self.legal_histogram, legal);
        self.unsolvable += unsolvable;
    }
}

fn histogram_only(histogram: &[u64]) -> Aggregates {
    Aggregates {
        histogram: histogram.to_vec(),
        ..Aggregates::default()
    }
}
