//! A later layer's block: its helper moves planned one block ahead ([`Plan`]), then the
//! moves into the frontier pulled ([`Sweep::pull_block`]).
//!
//! The helper moves read frontier and `beyond` blocks scattered over the whole layer;
//! waiting for those reads is most of a block's cost. So a block's moves are planned, and
//! their blocks prefetched, while the block before it is still to be computed: the reads
//! then have a whole block's work to arrive.

use super::super::block::{and, has, minus, or, set, shift, Block, EMPTY};
use super::super::MAX_HELPERS;
use super::group::{Outer, Slide};
use super::{prefetch, Sweep};
use crate::board::{Cell, Direction};

/// One block's work planned before its blocks are read.
#[derive(Default)]
pub(super) struct Plan {
    /// The block's place in its run of 64, and its helper set's rank.
    pub(super) index: usize,
    pub(super) rank: usize,
    /// Its helpers' cells, and its unreached placements.
    mask: Block,
    candidates: Block,
    /// For each helper, the rank of the others (what its moves keep still).
    pub(super) others: [usize; MAX_HELPERS],
    slides: [Slide; MAX_HELPERS * 4],
    planned: usize,
}

impl<const H: usize> Sweep<H> {
    /// Plans block `index` (helper set `rank`, of the group `outer`; `visited` its reached
    /// placements) into `plan` and prefetches what its moves read; false when every
    /// placement of the block is reached.
    #[inline(always)]
    pub(super) fn plan_block(
        &self,
        plan: &mut Plan,
        outer: &Outer,
        index: usize,
        rank: usize,
        visited: &Block,
    ) -> bool {
        let inner = self.sets[rank][0];
        let mut mask = outer.mask;
        set(&mut mask, inner);
        let candidates = minus(&minus(&self.moves.free, &mask), visited);
        if candidates == EMPTY {
            return false;
        }
        plan.index = index;
        plan.rank = rank;
        plan.mask = mask;
        plan.candidates = candidates;
        plan.others = outer.others_ranks(&self.cells, inner);
        plan.planned = 0;
        let mut add = |slide: Slide| {
            if slide.lands_in_frontier {
                prefetch(&self.frontier[slide.landing]);
            }
            prefetch(&self.beyond[slide.others][slide.dir as usize]);
            plan.slides[plan.planned] = slide;
            plan.planned += 1;
        };
        // The outer helpers' slides among themselves were planned for the whole group;
        // the inner helper changes them only when it stands on their path.
        let outer_cells = &outer.cells[..H - 1];
        for dir in Direction::ALL {
            let end = self.slide_end(inner, outer_cells, dir);
            if end != inner {
                add(self.slide(dir, inner, end, outer_cells, outer.rank));
            }
        }
        for moving in 1..H {
            let from = outer.cells[moving - 1];
            let mut others = [inner; MAX_HELPERS];
            others[1..H - 1].copy_from_slice(&outer.others[moving - 1][..H - 2]);
            let others_rank = outer.others_rank(&self.cells, inner, moving);
            for dir in Direction::ALL {
                let end = if has(&outer.paths[moving - 1][dir as usize], inner) {
                    dir.opposite()
                        .step(inner)
                        .expect("a cell on a path has one before it")
                } else {
                    outer.ends[moving - 1][dir as usize]
                };
                if end != from {
                    add(self.slide(dir, from, end, &others[..H - 1], others_rank));
                }
            }
        }
        true
    }

    /// The unreached placements of a planned block with a move into the frontier, and
    /// whether they are all that was unreached.
    #[inline(always)]
    pub(super) fn pull_block(&self, plan: &Plan) -> (Block, bool) {
        let mut pulled = EMPTY;
        if self.is_nonempty(plan.rank) {
            let frontier = &self.frontier[plan.rank];
            for dir in Direction::ALL {
                pulled = or(&pulled, &self.moves.pull(&plan.mask, frontier, dir));
            }
        }
        if minus(&plan.candidates, &pulled) == EMPTY {
            return (plan.candidates, true);
        }
        // Target robot off the path: the helper slides to the end, and the placement with
        // the helper there is in the landing block. Target robot on the path (not its
        // first cell, which stops the helper at once): the helper stops on the cell before
        // it, which `beyond` tells; those cells are gathered per direction and shifted once
        // each at the end (a shift costs as much as the rest of a slide, and more with a
        // direction known only at run time). The path keeps `end`: the target robot one
        // step beyond it is off the path, so `beyond` has `end` exactly when the landing
        // block has that placement, and never on an edge.
        let mut stops = [EMPTY; 4];
        for slide in &plan.slides[..plan.planned] {
            // The cells passed, `from` excluded, `end` included (kept as two cells, not
            // as blocks: planning all slides of a block then stays in a few cache lines).
            let path = minus(
                self.rays.mask(slide.from, slide.dir),
                self.rays.mask(slide.end, slide.dir),
            );
            if slide.lands_in_frontier {
                pulled = or(&pulled, &minus(&self.frontier[slide.landing], &path));
            }
            let beyond = self.beyond(slide.others, slide.dir);
            let gathered = &mut stops[slide.dir as usize];
            *gathered = or(gathered, &and(&path, &beyond));
        }
        for dir in Direction::ALL {
            pulled = or(&pulled, &shift(&stops[dir as usize], dir));
        }
        let found = and(&pulled, &plan.candidates);
        (found, found == plan.candidates)
    }

    /// The helper move from `from` to `end` in `dir` among `others` (of rank
    /// `others_rank`), and what it reads.
    #[inline(always)]
    fn slide(
        &self,
        dir: Direction,
        from: Cell,
        end: Cell,
        others: &[Cell],
        others_rank: usize,
    ) -> Slide {
        let landing = self.cells.rank_with(others, end);
        Slide {
            dir,
            from,
            end,
            landing,
            lands_in_frontier: self.is_nonempty(landing),
            others: others_rank,
        }
    }
}
