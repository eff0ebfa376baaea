//! The records the store keeps, as plain Rust types (serialised with postcard).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::ops::Range;

/// What a campaign mines: a generator over a seed range, in units.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CampaignSpec {
    pub name: String,
    /// A generator name, e.g. `fogleman`.
    pub generator: String,
    pub seed_start: u64,
    /// Excluded.
    pub seed_end: u64,
    pub unit_size: u64,
    /// Seeds needing at least this many moves keep their full solution, re-solved.
    pub record_threshold: u8,
}

impl CampaignSpec {
    /// Checks what the store relies on; the generator name is the coordinator's to check.
    pub fn validate(&self) -> Result<(), String> {
        let name_ok = !self.name.is_empty()
            && self.name.len() <= 64
            && self
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
        // `.` and `..` would be path segments in the dashboard's URLs, not names.
        let dots_only = self.name.chars().all(|c| c == '.');
        if !name_ok || dots_only {
            return Err(format!(
                "name {:?}: use 1 to 64 letters, digits, '-', '_' or '.', not only dots",
                self.name
            ));
        }
        if self.seed_start >= self.seed_end {
            return Err(format!(
                "seed range {}..{} is empty",
                self.seed_start, self.seed_end
            ));
        }
        if !(1..=1 << 20).contains(&self.unit_size) {
            return Err(format!(
                "unit size {} must be 1 to 1048576 seeds",
                self.unit_size
            ));
        }
        Ok(())
    }

    pub fn units_total(&self) -> u64 {
        (self.seed_end - self.seed_start).div_ceil(self.unit_size)
    }

    /// The seeds of unit `unit`.
    pub fn unit_seeds(&self, unit: u64) -> Range<u64> {
        let start = self.seed_start + unit * self.unit_size;
        // Never `start + unit_size`: it may pass u64::MAX in the last unit.
        start..start + (self.seed_end - start).min(self.unit_size)
    }

    /// The unit holding `seed`, if the campaign covers it.
    pub fn unit_of(&self, seed: u64) -> Option<u64> {
        (self.seed_start..self.seed_end)
            .contains(&seed)
            .then(|| (seed - self.seed_start) / self.unit_size)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Campaign {
    pub id: u32,
    pub spec: CampaignSpec,
    pub created_unix_ms: i64,
}

/// Where a unit stands. Units without a record are pending.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum UnitState {
    /// Waiting to be leased again: its last lease expired (and may still deliver, from the
    /// worker that held it) or its result was refused (`None`).
    Pending {
        expired: Option<Lease>,
    },
    Leased(Lease),
    Done {
        digest: [u8; 32],
        /// The identity (token name, or registration) whose result is stored.
        producer: String,
        commit: u64,
        verification: Verification,
    },
    /// Failed too often; left alone until someone looks.
    Quarantined,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lease {
    /// The unit's lease number: the `n`-th lease issued for this unit.
    pub number: u64,
    /// The registration holding it (ids change when a worker registers again).
    pub worker: u64,
    /// Who that registration is: its token's name (or, without tokens, the registration).
    pub identity: String,
    pub deadline_unix_ms: i64,
}

/// A done unit's check by another identity than its producer. Which units are checked
/// is drawn at random when a result is accepted and never shown outside the store.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verification {
    NotChosen,
    Pending,
    Leased(Lease),
    Agreed {
        by: String,
    },
    /// The coordinator settled a disagreement by solving the seeds in dispute itself.
    Confirmed,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitRecord {
    pub state: UnitState,
    /// Leases issued so far, verification leases included; lease numbers are 1..=this.
    pub leases_issued: u64,
    /// The identities charged a failure of this unit, each once.
    pub failed_by: Vec<String>,
    pub last_error: Option<String>,
}

impl UnitRecord {
    /// The record of a unit never leased.
    pub fn fresh() -> UnitRecord {
        UnitRecord {
            state: UnitState::Pending { expired: None },
            leases_issued: 0,
            failed_by: Vec::new(),
            last_error: None,
        }
    }

    /// Failures charged so far: one per identity.
    pub fn failures(&self) -> u32 {
        self.failed_by.len() as u32
    }
}

/// A kept solution.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HardEntry {
    pub seed: u64,
    pub moves: u8,
    /// Move notation, e.g. `BS`.
    pub solution: Vec<String>,
    /// The coordinator solved it itself and found the same optimum.
    pub re_solved: bool,
}

/// Puzzles of one group and their move counts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
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

fn add_bins(into: &mut Vec<u64>, from: &[u64]) {
    if into.len() < from.len() {
        into.resize(from.len(), 0);
    }
    for (bin, count) in from.iter().enumerate() {
        into[bin] += count;
    }
}

/// The generator name an exhaustive campaign of Fogleman boards stores in its
/// [`CampaignSpec`] (whose seed range is then its unit numbers, one unit per "seed"); no
/// seed generator has this name, so code that only knows seed campaigns refuses it.
pub const EXHAUSTIVE_FOGLEMAN: &str = "exhaustive-fogleman";

impl CampaignSpec {
    /// Whether this is an exhaustive campaign (its [`ExhaustiveSpec`] is stored beside it).
    pub fn is_exhaustive(&self) -> bool {
        self.generator == EXHAUSTIVE_FOGLEMAN
    }
}

/// What an exhaustive campaign analyses: every (board, target) pair of `boards` ×
/// `targets`, unit `i` being board `i / targets.len()` and target `i % targets.len()`.
/// Stored in the `exhaustive` tree as version 1 (see the crate doc).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExhaustiveSpec {
    /// Canonical board names (tile 1 top-left), e.g. `1A 3B 4A 2B`, in canonical order.
    pub boards: Vec<String>,
    /// Target tokens in token order, e.g. `RT`.
    pub targets: Vec<String>,
    /// Placements each result samples (re-solved by the coordinator).
    pub sample_size: u32,
    /// Depths from this one on keep up to `top_per_depth` placements.
    pub top_from: u8,
    pub top_per_depth: u32,
    /// At most this many placements at the maximum depth come with a result.
    pub max_hardest: u32,
}

impl ExhaustiveSpec {
    pub fn units_total(&self) -> u64 {
        (self.boards.len() * self.targets.len()) as u64
    }

    /// The board and target token of unit `unit`.
    pub fn unit(&self, unit: u64) -> Option<(&str, &str)> {
        let per_board = self.targets.len() as u64;
        let board = self
            .boards
            .get(usize::try_from(unit.checked_div(per_board)?).ok()?)?;
        Some((board, &self.targets[(unit % per_board) as usize]))
    }

    /// The unit of a board and token, if the campaign has it.
    pub fn unit_of(&self, board: &str, token: &str) -> Option<u64> {
        let b = self.boards.iter().position(|b| b == board)?;
        let t = self.targets.iter().position(|t| t == token)?;
        Some((b * self.targets.len() + t) as u64)
    }
}

/// One placement of four robots: the target robot's cell, then the three helpers' cells
/// ascending; cells are caller indices `y * 16 + x`.
pub type PlacementCells = [u8; 4];

/// An exhaustive unit's result as a worker computes it: both depth histograms, the
/// maximum with its placements, up to `top_per_depth` placements per depth from
/// `top_from` on, and the sampled placements with their depths (`None`: unsolvable).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExhaustiveResult {
    pub histogram: Vec<u64>,
    pub legal_histogram: Vec<u64>,
    pub unsolvable: u64,
    pub max_moves: u8,
    pub hardest: Vec<PlacementCells>,
    pub top: Vec<(u8, Vec<PlacementCells>)>,
    pub sample: Vec<(PlacementCells, Option<u8>)>,
    /// Index `d - 1`: up to 64 legal placements of depth `d`, spread evenly.
    pub legal_samples: Vec<Vec<PlacementCells>>,
    /// Legal placements at the deepest depth a legal placement needs.
    pub legal_hardest: Vec<PlacementCells>,
}

impl ExhaustiveResult {
    /// The most moves a legal placement needs (0 when none is legal).
    pub fn legal_max_moves(&self) -> u8 {
        deepest(&self.legal_histogram)
    }
}

/// The deepest non-empty bin of a histogram of move counts (0 when all are empty).
pub fn deepest(histogram: &[u64]) -> u8 {
    histogram.iter().rposition(|&count| count > 0).unwrap_or(0) as u8
}

/// An accepted exhaustive result as stored (kind byte 4 in `results`, version 2): the
/// result; for each of its hardest and legal hardest placements, the optimal solution the
/// coordinator found when it re-solved it (move notation); and how it was computed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExhaustiveRecord {
    pub result: ExhaustiveResult,
    pub hardest_solutions: Vec<Vec<String>>,
    pub legal_hardest_solutions: Vec<Vec<String>>,
    /// The CPU time its producer reported (informative).
    pub cpu_ms: u64,
    /// The rrm version that accepted it (workers run the coordinator's version).
    pub rrm_version: String,
}

/// Version 1 of [`ExhaustiveRecord`] (kind byte 3): no legal lists, no provenance.
#[derive(Deserialize)]
pub(crate) struct ExhaustiveRecordV1 {
    result: ExhaustiveResultV1,
    hardest_solutions: Vec<Vec<String>>,
}

#[derive(Deserialize)]
struct ExhaustiveResultV1 {
    histogram: Vec<u64>,
    legal_histogram: Vec<u64>,
    unsolvable: u64,
    max_moves: u8,
    hardest: Vec<PlacementCells>,
    top: Vec<(u8, Vec<PlacementCells>)>,
    sample: Vec<(PlacementCells, Option<u8>)>,
}

impl From<ExhaustiveRecordV1> for ExhaustiveRecord {
    fn from(old: ExhaustiveRecordV1) -> ExhaustiveRecord {
        let r = old.result;
        ExhaustiveRecord {
            result: ExhaustiveResult {
                histogram: r.histogram,
                legal_histogram: r.legal_histogram,
                unsolvable: r.unsolvable,
                max_moves: r.max_moves,
                hardest: r.hardest,
                top: r.top,
                sample: r.sample,
                legal_samples: Vec::new(),
                legal_hardest: Vec::new(),
            },
            hardest_solutions: old.hardest_solutions,
            legal_hardest_solutions: Vec::new(),
            cpu_ms: 0,
            rrm_version: String::new(),
        }
    }
}

/// A verification that disagreed with the stored result, and how it was settled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mismatch {
    pub unit: u64,
    /// The verification lease that brought the differing result.
    pub lease: u64,
    /// Who produced the stored result.
    pub producer: String,
    /// Who sent the differing result.
    pub verifier: String,
    /// The differing result's digest (a third opinion is compared with it).
    pub digest: [u8; 32],
    pub detail: String,
    pub resolution: Resolution,
}

/// How a mismatch was settled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Resolution {
    /// Waiting for another identity's result (exhaustive units).
    Pending,
    /// The stored result was right; the verifier is distrusted.
    StoredWon,
    /// The verifier was right: its result replaced the stored one, whose producer is
    /// distrusted.
    VerifierWon,
    /// The stored result was wrong and the verifier's could not be confirmed whole: the
    /// unit is mined again.
    Redone,
}

impl Resolution {
    pub fn is_pending(self) -> bool {
        self == Resolution::Pending
    }
}

/// An identity whose result was proven wrong: it gets no leases until an operator
/// clears it, and the results it produced or verified are checked again.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Distrust {
    pub identity: String,
    pub since_unix_ms: i64,
    /// What was proven wrong, e.g. "campaign c unit 7: seed 12 needs 6 moves, not 1".
    pub reason: String,
}

#[cfg(test)]
mod tests {
    use super::CampaignSpec;

    fn named(name: &str) -> CampaignSpec {
        CampaignSpec {
            name: name.into(),
            generator: "fogleman".into(),
            seed_start: 1,
            seed_end: 11,
            unit_size: 10,
            record_threshold: 20,
        }
    }

    #[test]
    fn names_must_be_reachable_as_url_segments() {
        for refused in [".", "..", "...", "", "a/b", "a b", &"x".repeat(65)] {
            assert!(named(refused).validate().is_err(), "{refused:?} accepted");
        }
        for accepted in ["a.b", ".hidden", "fogleman-1-100001", "x_2"] {
            assert_eq!(named(accepted).validate(), Ok(()), "{accepted:?} refused");
        }
    }
}
