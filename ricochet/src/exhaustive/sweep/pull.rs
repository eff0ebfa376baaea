//! A later layer's blocks, one group segment at a time: the blocks of a run whose helper
//! sets share their outer helpers ([`Outer`]).
//!
//! A block first takes its target robot's moves and its inner helper's moves
//! ([`Sweep::open_block`]); the blocks still open then take the outer helpers' moves slide
//! by slide across the whole segment ([`Sweep::pull_outer`]). An outer helper's slide is
//! the same for every block of the group unless the inner helper stands on its path, and
//! since the inner helper is the smallest cell of a set, the set it lands on has a rank
//! that is one table term plus a constant of the slide: the loop over the blocks is a
//! stream of consecutive frontier and `beyond` blocks, with no per-block planning.

use super::super::block::{and, has, minus, or, shift, Block, EMPTY};
use super::super::MAX_HELPERS;
use super::group::Outer;
use super::{Sweep, Tally};
use crate::board::{Cell, Direction};

/// An open block of a segment while the outer helpers' moves are gathered into it.
#[derive(Clone, Copy, Default)]
pub(super) struct Open {
    /// The block's place in its run of 64, its helper set's rank and its inner helper.
    index: usize,
    rank: usize,
    inner: Cell,
    /// Its unreached placements, and those found so far.
    candidates: Block,
    pulled: Block,
    /// Per direction, the helper stops the target robot makes (see [`Sweep::gather`]).
    stops: [Block; 4],
}

/// The block of one cell, made in registers (a bit set through memory would be read
/// back as a whole block before the store has landed).
#[inline(always)]
fn cell_block(cell: Cell) -> Block {
    let word = cell as usize / 64;
    let bit = 1u64 << (cell as usize % 64);
    std::array::from_fn(|w| if w == word { bit } else { 0 })
}

impl<const H: usize> Sweep<H> {
    /// Starts block `index` (helper set `rank` of the group `outer`) in `open`: its target
    /// robot's and inner helper's moves. Records a block they finish and returns false;
    /// the others go on to [`Sweep::pull_outer`]. (Filled in place: an `Open` is a few
    /// cache lines, and a returned one is copied twice.)
    #[inline(always)]
    pub(super) fn open_block(
        &self,
        tally: &mut Tally<'_>,
        outer: &Outer,
        open: &mut Open,
        index: usize,
        rank: usize,
        alone: bool,
    ) -> bool {
        let inner = self.sets[rank][0];
        let mask = or(&outer.mask, &cell_block(inner));
        let candidates = minus(&minus(&self.moves.free, &mask), &tally.blocks.seen[index]);
        if candidates == EMPTY {
            *tally.blocks.open &= !(1 << index);
            return false;
        }
        // Field by field: a whole `Open` built on the stack and copied in is read back in
        // wider pieces than it was written, which stalls on the stores.
        open.index = index;
        open.rank = rank;
        open.inner = inner;
        open.candidates = candidates;
        open.pulled = EMPTY;
        open.stops = [EMPTY; 4];
        if self.is_nonempty(rank) {
            let frontier = &self.frontier[rank];
            for dir in Direction::ALL {
                open.pulled = or(&open.pulled, &self.moves.pull(&mask, frontier, dir));
            }
            if minus(&candidates, &open.pulled) == EMPTY {
                let others = outer.others_ranks(&self.cells, inner);
                tally.record(self, index, rank, &others, candidates, true, alone);
                return false;
            }
        }
        // The inner helper slides among the outer ones; what it keeps still is the group.
        let outer_cells = &outer.cells[..H - 1];
        for dir in Direction::ALL {
            let end = self.slide_end(inner, outer_cells, dir);
            if end != inner {
                let landing = self.cells.rank_with(outer_cells, end);
                self.gather(open, dir, inner, end, landing, outer.rank);
            }
        }
        true
    }

    /// Adds the outer helpers' moves to the open blocks of a segment of group `outer`,
    /// then records each block.
    #[inline(always)]
    pub(super) fn pull_outer(
        &self,
        tally: &mut Tally<'_>,
        outer: &Outer,
        blocks: &mut [Open],
        alone: bool,
    ) {
        // A segment whose blocks were all settled by the inner helper (or the first,
        // before any group) has nothing to pull: its slides would be worked out for none.
        if blocks.is_empty() {
            return;
        }
        for moving in 0..H - 1 {
            let from = outer.cells[moving];
            let others = &outer.others[moving][..H - 2];
            for dir in Direction::ALL {
                let end = outer.ends[moving][dir as usize];
                if end == from {
                    continue;
                }
                let path = &outer.paths[moving][dir as usize];
                // The landing set's rank less the inner helper's term: with the end above
                // the inner helper, the inner one is the first cell and the others follow
                // in order; below it, the end is first and the inner helper second.
                let mut after = [end; MAX_HELPERS];
                after[..H - 2].copy_from_slice(others);
                after[..H - 1].sort_unstable();
                let end_above: usize = (0..H - 1).map(|k| self.cells.term(k + 1, after[k])).sum();
                let end_below = self.cells.term(0, end)
                    + (0..H - 2)
                        .map(|k| self.cells.term(k + 2, others[k]))
                        .sum::<usize>();
                for open in blocks.iter_mut() {
                    let inner = open.inner;
                    let others_rank = self.cells.term(0, inner) + outer.others_terms[moving];
                    if has(path, inner) {
                        // The inner helper stops this slide on the cell before it.
                        let end = dir
                            .opposite()
                            .step(inner)
                            .expect("a cell on a path has one before it");
                        if end != from {
                            let mut kept = [inner; MAX_HELPERS];
                            kept[1..H - 1].copy_from_slice(others);
                            let landing = self.cells.rank_with(&kept[..H - 1], end);
                            self.gather(open, dir, from, end, landing, others_rank);
                        }
                        continue;
                    }
                    let landing = if end > inner {
                        self.cells.term(0, inner) + end_above
                    } else {
                        self.cells.term(1, inner) + end_below
                    };
                    self.gather_on(open, dir, path, landing, others_rank);
                }
            }
        }
        for open in blocks.iter() {
            let mut pulled = open.pulled;
            for dir in Direction::ALL {
                pulled = or(&pulled, &shift(&open.stops[dir as usize], dir));
            }
            let found = and(&pulled, &open.candidates);
            let others = outer.others_ranks(&self.cells, open.inner);
            let done = found == open.candidates;
            tally.record(self, open.index, open.rank, &others, found, done, alone);
        }
    }

    /// Adds a helper's slide from `from` to `end` in `dir` to `open`: it lands on helper
    /// set `landing`, and the helpers that stay are the set `others`.
    #[inline(always)]
    fn gather(
        &self,
        open: &mut Open,
        dir: Direction,
        from: Cell,
        end: Cell,
        landing: usize,
        others: usize,
    ) {
        // The cells passed, `from` excluded, `end` included.
        let path = minus(self.rays.mask(from, dir), self.rays.mask(end, dir));
        self.gather_on(open, dir, &path, landing, others);
    }

    /// [`Sweep::gather`] of a slide whose path is known.
    ///
    /// Target robot off the path: the helper slides to the end, and the placement with the
    /// helper there is in the landing block. Target robot on the path (not its first cell,
    /// which stops the helper at once): the helper stops on the cell before it, which
    /// `beyond` tells; those cells are gathered per direction and shifted once each at the
    /// end (a shift costs as much as the rest of a slide). The path keeps `end`: the
    /// target robot one step beyond it is off the path, so `beyond` has `end` exactly when
    /// the landing block has that placement, and never on an edge.
    #[inline(always)]
    fn gather_on(
        &self,
        open: &mut Open,
        dir: Direction,
        path: &Block,
        landing: usize,
        others: usize,
    ) {
        if self.is_nonempty(landing) {
            open.pulled = or(&open.pulled, &minus(&self.frontier[landing], path));
        }
        let stops = &mut open.stops[dir as usize];
        *stops = or(stops, &and(path, &self.beyond(others, dir)));
    }
}
