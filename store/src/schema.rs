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
        if !name_ok {
            return Err(format!(
                "name {:?}: use 1 to 64 letters, digits, '-', '_' or '.'",
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
        start..(start + self.unit_size).min(self.seed_end)
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
    /// Waiting to be leased again (its last lease expired or its result was refused).
    Pending,
    Leased(Lease),
    Done {
        digest: [u8; 32],
        worker: u64,
        commit: u64,
        verification: Verification,
    },
    /// Failed too often; left alone until someone looks.
    Quarantined,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lease {
    /// The unit's lease number: the `n`-th lease issued for this unit.
    pub number: u64,
    pub worker: u64,
    pub deadline_unix_ms: i64,
}

/// A done unit's check by a second worker.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verification {
    NotChosen,
    Pending,
    Leased(Lease),
    Agreed { worker: u64 },
    Disagreed { worker: u64 },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitRecord {
    pub state: UnitState,
    /// Leases issued so far, verification leases included; lease numbers are 1..=this.
    pub leases_issued: u64,
    pub failures: u32,
    pub last_error: Option<String>,
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Group {
    pub puzzles: u64,
    pub total_moves: u64,
    pub max_moves: u8,
}

impl Group {
    pub fn add(&mut self, moves: u8) {
        self.puzzles += 1;
        self.total_moves += u64::from(moves);
        self.max_moves = self.max_moves.max(moves);
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
}

impl Aggregates {
    pub fn puzzles(&self) -> u64 {
        self.histogram.iter().sum()
    }

    pub fn add(&mut self, moves: u8, target: &str, arrangement: &str) {
        let bin = usize::from(moves);
        if self.histogram.len() <= bin {
            self.histogram.resize(bin + 1, 0);
        }
        self.histogram[bin] += 1;
        self.by_target
            .entry(target.to_string())
            .or_default()
            .add(moves);
        self.by_arrangement
            .entry(arrangement.to_string())
            .or_default()
            .add(moves);
    }
}

/// Two results for one unit that disagree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mismatch {
    pub unit: u64,
    pub worker: u64,
    pub detail: String,
}
