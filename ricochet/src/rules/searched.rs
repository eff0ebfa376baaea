//! The record of the states a search has searched, and with how many moves left: the fast
//! solver's transposition table where the keys are narrow enough, else a bounded hash map.
//! Apart from the search, since it only stores keys and knows nothing of moves; its
//! [`KeyHasher`] also serves the exhaustive engine and the Ricocheckers player.

use crate::transposition::TransTable;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The most memory the table grows to (past it, a bucket's shallowest entry makes room:
/// a lost entry only means a state is searched again).
const TABLE_BYTES: usize = 256 << 20;

/// A hasher for keys that are already well-mixed integers once multiplied.
#[derive(Default)]
pub(crate) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.write_u64(self.0 << 8 | u64::from(byte));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// The depth each state was searched with: the fast solver's table where the keys are
/// narrow enough for it (four robots; five where only the finisher keeps a line, or
/// without rebounds with the helpers ranked as a set), else a hash map (five robots
/// without rebounds on a mirror board, or under the ricochet rule too: the table would
/// start at a gigabyte). A state
/// is marked on entry: met again with no more moves left while it is being searched, it
/// has nothing new to offer.
pub(super) enum Searched {
    Table(TransTable),
    Map(HashMap<u64, u8, BuildHasherDefault<KeyHasher>>),
}

/// The widest key the fast solver's table takes here (it starts at 2^(bits − 20) bytes).
pub(super) const TABLE_KEY_BITS: u32 = 44;

thread_local! {
    /// The table the last search on this thread used: the next takes it over, since
    /// first touching fresh pages costs more than clearing warm ones (most searches are
    /// short, and their set-up would cost more than their search).
    static KEPT: std::cell::Cell<Option<TransTable>> = const { std::cell::Cell::new(None) };
}

impl Searched {
    pub(super) fn new(key_bits: u32) -> Searched {
        if key_bits <= TABLE_KEY_BITS {
            let mut table = KEPT.take().unwrap_or_else(|| TransTable::new(TABLE_BYTES));
            table.reset(key_bits);
            Searched::Table(table)
        } else {
            Searched::Map(HashMap::default())
        }
    }

    /// Asks for `key`'s table slot ahead of its visit.
    pub(super) fn prefetch(&self, key: u64) {
        if let Searched::Table(table) = self {
            table.prefetch(table.hash(key));
        }
    }

    /// Notes that `key` is searched with `left` moves; false when it already was with as
    /// many (so the search skips it).
    pub(super) fn visit(&mut self, key: u64, left: u8) -> bool {
        match self {
            Searched::Table(table) => table.visit(table.hash(key), left),
            Searched::Map(map) => {
                if map.get(&key).is_some_and(|&done| done >= left) {
                    return false;
                }
                if map.len() >= MAP_LIMIT {
                    map.clear();
                } else if map.len() == MAP_GROWN {
                    // Straight to its last size: growing by doubling would hold the old
                    // buckets beside the new ones, half as much again at the last step.
                    map.reserve(MAP_LIMIT - MAP_GROWN);
                }
                map.insert(key, left);
                true
            }
        }
    }
}

impl Drop for Searched {
    fn drop(&mut self) {
        if let Searched::Table(table) = self {
            // Cleared on this search's account: after a long search that is the whole
            // table, a megabyte or more, which the next search (most often a short one)
            // would otherwise pay (BENCHMARKS.md, 2026-12-02).
            table.clear();
            KEPT.set(Some(std::mem::replace(table, TransTable::new(0))));
        }
    }
}

/// Most states the map keeps before it starts afresh: its buckets take about 290 MB.
const MAP_LIMIT: usize = 1 << 23;

/// The states a map holds before it takes its last size at once (a small search never
/// takes it).
const MAP_GROWN: usize = 1 << 16;

#[cfg(test)]
mod tests {
    use super::*;

    /// A search hands the next one a table already emptied: the next search, most often a
    /// short one, does not pay for clearing what a long one filled.
    #[test]
    fn a_finished_search_hands_on_an_empty_table() {
        // Five robots' keys: the table starts at a megabyte; 200,000 states outgrow it.
        let keys: Vec<u64> = (0..200_000u64)
            .map(|k| k * 0x1_0000_0001 % (1 << 40))
            .collect();
        let mut searched = Searched::new(40);
        for &key in &keys {
            assert!(searched.visit(key, 3));
        }
        assert!(!searched.visit(keys[0], 3), "a state met again is skipped");
        drop(searched);
        let mut kept = KEPT.take().expect("the table is kept for the next search");
        let forgotten = keys
            .iter()
            .filter(|&&key| kept.visit(kept.hash(key), 3))
            .count();
        assert_eq!(forgotten, keys.len(), "every state is forgotten");
    }
}
