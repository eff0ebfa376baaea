//! What the blocks of a group share ([`Outer`]): the sets whose helpers but the smallest
//! are the same have consecutive ranks, so a layer plans the other helpers' slides among
//! themselves once per group.

use super::super::block::{mask_of, minus, Block};
use super::super::cells::{Cells, Set};
use super::super::MAX_HELPERS;
use super::Sweep;
use crate::board::{Cell, Direction};

/// `group` without its `moving`-th cell, still ascending. A fixed array, not a vector:
/// this runs for every block of every layer.
#[inline(always)]
pub(super) fn others_of(group: &[Cell], moving: usize) -> Set {
    let mut others = [0 as Cell; MAX_HELPERS];
    others[..moving].copy_from_slice(&group[..moving]);
    others[moving..group.len() - 1].copy_from_slice(&group[moving + 1..]);
    others
}

/// What the blocks of one group share: the helper sets whose cells but the smallest (the
/// inner helper) are the same `cells` (the outer helpers). A group's sets have consecutive
/// ranks, so a layer plans the outer helpers' slides among themselves once per group.
#[derive(Default)]
pub(super) struct Outer {
    /// Whether the fields below describe a group yet.
    pub(super) known: bool,
    /// The outer helpers, ascending (the first `H - 1` slots).
    pub(super) cells: Set,
    pub(super) mask: Block,
    /// Their rank as a set: the others of the inner helper's moves.
    pub(super) rank: usize,
    /// For outer helper `j`: the other outer helpers, ascending, and their rank terms as
    /// the second and later cells of a set (the inner helper is the first).
    pub(super) others: [Set; MAX_HELPERS - 1],
    pub(super) others_terms: [usize; MAX_HELPERS - 1],
    /// For outer helper `j` and a direction: where it slides among the outer helpers, and
    /// the cells passed (its own cell excluded, the end included).
    pub(super) ends: [[Cell; 4]; MAX_HELPERS - 1],
    pub(super) paths: [[Block; 4]; MAX_HELPERS - 1],
}

impl Outer {
    /// Whether helper set `set` (of `H` cells) is of this group.
    #[inline(always)]
    pub(super) fn holds<const H: usize>(&self, set: &Set) -> bool {
        // Compared cell by cell: a slice comparison calls a byte compare per block.
        self.known && (0..H - 1).all(|k| self.cells[k] == set[k + 1])
    }

    /// Makes this the group of helper set `set` (of `H` cells).
    #[inline(always)]
    pub(super) fn refresh<const H: usize>(&mut self, sweep: &Sweep<H>, set: &Set) {
        let cells = &set[1..H];
        if self.holds::<H>(set) {
            return;
        }
        self.known = true;
        self.cells[..H - 1].copy_from_slice(cells);
        self.mask = mask_of(cells);
        self.rank = sweep.cells.rank(cells);
        for j in 0..H - 1 {
            let others = others_of(cells, j);
            self.others[j] = others;
            self.others_terms[j] = (0..H - 2).map(|k| sweep.cells.term(k + 1, others[k])).sum();
            for dir in Direction::ALL {
                let end = sweep.slide_end(cells[j], &others[..H - 2], dir);
                self.ends[j][dir as usize] = end;
                self.paths[j][dir as usize] =
                    minus(sweep.rays.mask(cells[j], dir), sweep.rays.mask(end, dir));
            }
        }
    }

    /// The rank of the helpers other than the `moving`-th (0: the inner one, at `inner`).
    #[inline(always)]
    pub(super) fn others_rank(&self, cells: &Cells, inner: Cell, moving: usize) -> usize {
        match moving {
            0 => self.rank,
            j => cells.term(0, inner) + self.others_terms[j - 1],
        }
    }

    /// [`Outer::others_rank`] of each helper.
    #[inline(always)]
    pub(super) fn others_ranks(&self, cells: &Cells, inner: Cell) -> [usize; MAX_HELPERS] {
        std::array::from_fn(|moving| self.others_rank(cells, inner, moving))
    }
}
