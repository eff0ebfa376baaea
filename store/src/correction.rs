//! Taking a result proven wrong out of the store, in one group of changes (see
//! [`Store::correct`]).

use super::journal::{Change, Table};
use super::keys::{hardest_key, mismatch_key, unit_key, CORRECTION};
use super::{encode, Result, Store};
use rrm_model::{Aggregates, Distrust, Mismatch, UnitRecord};

/// Everything taking a wrong result out of the store writes (see [`Store::correct`]).
pub struct Correction<'a> {
    pub campaign: u32,
    pub unit: u64,
    /// The unit's record afterwards (pending: mined again).
    pub record: &'a UnitRecord,
    /// The unit's seeds and the move counts of the result taken out: its hardest
    /// entries are found by them.
    pub seeds: std::ops::Range<u64>,
    pub old_counts: &'a [u8],
    /// The commit that accepted the result taken out.
    pub old_commit: u64,
    /// This correction's commit number.
    pub commit: u64,
    /// The campaign's statistics without the result, through `commit`.
    pub aggregates: &'a Aggregates,
    pub mismatch: &'a Mismatch,
    pub distrust: &'a Distrust,
}

impl Store {
    /// Takes a result proven wrong out of the store, all or nothing: its block, hardest
    /// entries and commit entry go, a correction entry takes commit number `commit`, the
    /// campaign's statistics are saved through it, and the mismatch and the distrust
    /// that go with it are written. The unit's right result, when known, is then
    /// committed as any accepted result.
    pub fn correct(&self, correction: &Correction<'_>) -> Result<()> {
        let key = unit_key(correction.campaign, correction.unit);
        let stale_hardest: Vec<[u8; 13]> = correction
            .seeds
            .clone()
            .zip(correction.old_counts)
            .map(|(seed, &moves)| hardest_key(correction.campaign, moves, seed))
            .collect();
        let mut changes = vec![
            Change::put(Table::Units, &key, encode(correction.record)),
            Change::remove(Table::Results, &key),
        ];
        changes.extend(
            stale_hardest
                .iter()
                .map(|stale| Change::remove(Table::Hardest, stale)),
        );
        changes.extend([
            Change::remove(Table::Commits, &correction.old_commit.to_be_bytes()),
            Change::put(
                Table::Commits,
                &correction.commit.to_be_bytes(),
                [&key[..], &[CORRECTION]].concat(),
            ),
            Change::put(
                Table::Aggregates,
                &correction.campaign.to_be_bytes(),
                encode(correction.aggregates),
            ),
            Change::put(
                Table::Mismatches,
                &mismatch_key(correction.campaign, correction.mismatch),
                encode(correction.mismatch),
            ),
            Change::put(
                Table::Distrusted,
                correction.distrust.identity.as_bytes(),
                encode(correction.distrust),
            ),
        ]);
        self.write(changes)
    }
}
