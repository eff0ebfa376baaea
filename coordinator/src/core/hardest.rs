//! The part of a seed campaign's hardest list that can be shown (`rrm top`, the
//! dashboard): its [`HARDEST_SHOWN`] hardest kept puzzles, in memory, so that a fresh
//! result knows which of its kept solutions would enter it. Those are solved again by
//! the coordinator before they are stored: a valid but longer-than-optimal solution
//! never ranks, whatever the record threshold. (The coordinator's own worker, in
//! `rrm mine`, solved them with this process's solver already.)

use rrm_model::HardEntry;
use std::cmp::Reverse;
use std::collections::BTreeSet;

/// The most puzzles a hardest query returns; every one of them was solved by the
/// coordinator's process.
pub const HARDEST_SHOWN: usize = 10_000;

/// The rank of a kept puzzle: most moves first, then the lower seed.
type Rank = (Reverse<u8>, u64);

/// A campaign's shown hardest list, as ranks.
#[derive(Debug, Default)]
pub(super) struct HardestList {
    shown: BTreeSet<Rank>,
}

/// The last rank of a full list: a kept puzzle enters only by ranking before it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Bar(Option<Rank>);

impl Bar {
    /// Whether a kept puzzle of `moves` for `seed` would be shown.
    pub(super) fn admits(self, moves: u8, seed: u64) -> bool {
        self.0.is_none_or(|last| (Reverse(moves), seed) < last)
    }

    /// A bar every kept puzzle passes (an empty list).
    #[cfg(test)]
    pub(super) fn open() -> Bar {
        Bar(None)
    }

    /// A bar no kept puzzle passes (a full list of the hardest puzzles there are).
    pub(super) fn closed() -> Bar {
        Bar(Some((Reverse(u8::MAX), 0)))
    }
}

impl HardestList {
    /// The list as stored (its first [`HARDEST_SHOWN`] entries).
    pub(super) fn from_stored(entries: &[HardEntry]) -> HardestList {
        let mut list = HardestList::default();
        list.add(entries);
        list
    }

    /// What a kept puzzle must pass to enter the list now.
    pub(super) fn bar(&self) -> Bar {
        Bar((self.shown.len() >= HARDEST_SHOWN)
            .then(|| self.shown.last().copied())
            .flatten())
    }

    /// Adds a stored result's kept puzzles, keeping the list's length.
    pub(super) fn add(&mut self, entries: &[HardEntry]) {
        for entry in entries {
            self.shown.insert((Reverse(entry.moves), entry.seed));
            if self.shown.len() > HARDEST_SHOWN {
                self.shown.pop_last();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(moves: u8, seed: u64) -> HardEntry {
        HardEntry {
            seed,
            moves,
            solution: Vec::new(),
            re_solved: true,
        }
    }

    #[test]
    fn a_full_list_admits_only_what_ranks_before_its_last() {
        let mut list = HardestList::default();
        assert!(list.bar().admits(0, u64::MAX), "an empty list admits all");
        // Full of 12-move puzzles at seeds 100.., then one 13 pushing seed 100+N-1 out.
        let full: Vec<HardEntry> = (0..HARDEST_SHOWN as u64)
            .map(|i| entry(12, 100 + i))
            .collect();
        list.add(&full);
        let last = 100 + HARDEST_SHOWN as u64 - 1;
        assert!(
            !list.bar().admits(12, last),
            "a tie with the last is not before it"
        );
        assert!(list.bar().admits(12, last - 1));
        assert!(
            list.bar().admits(12, 5),
            "a lower seed of the same moves ranks first"
        );
        assert!(!list.bar().admits(11, 0));
        list.add(&[entry(13, 1)]);
        assert!(
            !list.bar().admits(12, last - 1),
            "the 13 pushed the last 12 out"
        );
        assert!(list.bar().admits(12, last - 2));
        assert_eq!(list.shown.len(), HARDEST_SHOWN);
    }
}
