//! The layered search of one unit ([`Sweep`]), generic over its number of helpers so
//! that every loop over them is unrolled: the per-block work of a layer is the whole
//! cost of a unit.

use super::block::{self, and, count, has, mask_of, minus, or, set, shift, Block, Moves, EMPTY};
use super::cells::{Cells, Rays, Set};
use super::{even_picks, Finisher, Placement, UnitError, MAX_HELPERS};
use crate::board::{Board, Cell, Direction};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

/// The layered search's state: the current layer and everything reached so far.
pub(super) struct Sweep<const H: usize> {
    pub(super) cells: Cells,
    rays: Rays,
    moves: Moves,
    finisher: Finisher,
    /// Helper sets by rank.
    sets: Vec<Set>,
    /// Placements first reached in the last layer, one block per helper set.
    pub(super) frontier: Vec<Block>,
    /// Placements reached in any layer.
    visited: Vec<Block>,
    /// The buffer the next layer is written into (the layer before the frontier).
    spare: Vec<Block>,
    /// Cells the target robot, then cells a helper, does not stand on in a legal placement.
    off_legal: [Block; 2],
    /// One bit per helper set: its frontier block is not empty.
    nonempty: Vec<u64>,
    /// Placements of the frontier (all, legal) in each run of 64 blocks, so that picking
    /// placements by position skips whole runs.
    chunk_counts: Vec<[u64; 2]>,
    /// `beyond[rank of others][dir]`: the cells `c` where a helper at `c` with `others`
    /// and the target robot on the next cell in `dir` is a frontier placement. A helper
    /// sliding in `dir` into the target robot stops on such a cell, so this turns the
    /// cells of a path into one block operation.
    beyond: Vec<[AtomicBlock; 4]>,
    /// The same for the layer being computed, filled as its blocks are (any thread may
    /// add a cell to any entry, hence atomics).
    next_beyond: Vec<[AtomicBlock; 4]>,
}

/// A block that threads may add cells to concurrently.
type AtomicBlock = [AtomicU64; 4];

fn atomic_blocks(count: usize) -> Vec<[AtomicBlock; 4]> {
    (0..count)
        .map(|_| std::array::from_fn(|_| std::array::from_fn(|_| AtomicU64::new(0))))
        .collect()
}

impl<const H: usize> Sweep<H> {
    pub(super) fn new(
        board: &Board,
        cells: Cells,
        finisher: Finisher,
        off_legal: [Block; 2],
    ) -> Sweep<H> {
        let sets = cells.sets(H);
        Sweep {
            rays: Rays::new(board),
            moves: Moves::new(board),
            finisher,
            frontier: Vec::new(),
            visited: Vec::new(),
            spare: Vec::new(),
            off_legal,
            nonempty: Vec::new(),
            chunk_counts: Vec::new(),
            beyond: atomic_blocks(cells.sets_of(H - 1)),
            next_beyond: atomic_blocks(cells.sets_of(H - 1)),
            sets,
            cells,
        }
    }

    /// The helper-set rank and target cell of a placement of this unit.
    pub(super) fn locate(&self, placement: &Placement) -> Result<(usize, Cell), UnitError> {
        let bad = || UnitError::Placement(placement.clone());
        let cells = &placement.helpers;
        let valid = cells.len() == H
            && cells.windows(2).all(|w| w[0] < w[1])
            && cells.iter().all(|&c| self.cells.is_free(c))
            && self.cells.is_free(placement.target_robot)
            && !cells.contains(&placement.target_robot);
        if !valid {
            return Err(bad());
        }
        Ok((self.cells.rank(cells), placement.target_robot))
    }

    /// Layer 1: one slide of the target robot onto the target, in any direction (or of
    /// any robot, when any robot finishes).
    pub(super) fn first_layer(&mut self, target: Cell) -> (u64, u64) {
        let mut goal = EMPTY;
        set(&mut goal, target);
        self.advance(|sweep, rank, _| {
            let group = &sweep.sets[rank][..H];
            let mask = mask_of(group);
            if has(&mask, target) {
                return EMPTY;
            }
            let layer = Direction::ALL.iter().fold(EMPTY, |layer, &dir| {
                or(&layer, &sweep.moves.pull(&mask, &goal, dir))
            });
            match sweep.finisher {
                Finisher::TargetRobot => layer,
                Finisher::AnyRobot => or(&layer, &sweep.helper_finishes(group, target)),
            }
        })
    }

    /// The target-robot cells from which a helper of `group` (none on `target`) slides
    /// onto `target` in one move.
    fn helper_finishes(&self, group: &[Cell], target: Cell) -> Block {
        let candidates = minus(&self.moves.free, &mask_of(group));
        let mut cells = EMPTY;
        for (moving, &from) in group.iter().enumerate() {
            let others = others_of(group, moving);
            for dir in Direction::ALL {
                let end = self.slide_end(from, &others[..group.len() - 1], dir);
                let passed = minus(self.rays.mask(from, dir), self.rays.mask(end, dir));
                if !has(&passed, target) {
                    continue;
                }
                // The helper stops on `target` when the target robot is off the cells up
                // to it and, unless the slide ends there anyway, on the next one.
                let up_to = minus(self.rays.mask(from, dir), self.rays.mask(target, dir));
                let off_path = minus(&candidates, &up_to);
                if end == target {
                    cells = or(&cells, &off_path);
                } else {
                    let next = dir.step(target).expect("the slide goes on past target");
                    if has(&off_path, next) {
                        set(&mut cells, next);
                    }
                }
            }
        }
        cells
    }

    /// Computes the next layer, block by block, with `layer(sweep, rank, visited)`; marks
    /// it visited and makes it the frontier unless it is empty. One pass over the blocks
    /// also counts the layer (all and legal placements) and notes its non-empty blocks.
    fn advance(&mut self, layer: impl Fn(&Self, usize, &Block) -> Block + Sync) -> (u64, u64) {
        let blocks = self.sets.len();
        let mut next = std::mem::take(&mut self.spare);
        next.resize(blocks, EMPTY);
        let mut visited = std::mem::take(&mut self.visited);
        visited.resize(blocks, EMPTY);
        let sweep = &*self;
        let summaries: Vec<(u64, u64, u64)> = next
            .par_chunks_mut(64)
            .zip(visited.par_chunks_mut(64))
            .enumerate()
            .map(|(chunk, (new_blocks, seen_blocks))| {
                let (mut bits, mut all, mut legal) = (0u64, 0u64, 0u64);
                for (i, (new, seen)) in new_blocks.iter_mut().zip(seen_blocks).enumerate() {
                    let rank = chunk * 64 + i;
                    *new = layer(sweep, rank, seen);
                    if *new == EMPTY {
                        continue;
                    }
                    bits |= 1 << i;
                    sweep.note_beyond(rank, new);
                    *seen = or(seen, new);
                    let reported = sweep.reported(rank, new);
                    all += count(&reported);
                    legal += count(&sweep.legal_part(rank, &reported));
                }
                (bits, all, legal)
            })
            .collect();
        self.visited = visited;
        let all: u64 = summaries.iter().map(|s| s.1).sum();
        let legal: u64 = summaries.iter().map(|s| s.2).sum();
        if all == 0 {
            self.spare = next;
            return (0, 0);
        }
        self.spare = std::mem::replace(&mut self.frontier, next);
        self.nonempty = summaries.iter().map(|s| s.0).collect();
        self.chunk_counts = summaries.iter().map(|s| [s.1, s.2]).collect();
        std::mem::swap(&mut self.beyond, &mut self.next_beyond);
        self.next_beyond
            .par_iter()
            .flatten()
            .flatten()
            .for_each(|word| {
                word.store(0, Ordering::Relaxed);
            });
        (all, legal)
    }

    /// Adds the new frontier block of helper set `rank` to `next_beyond`: for each
    /// helper, the directions in which the target robot stands next to it.
    fn note_beyond(&self, rank: usize, block: &Block) {
        let group = &self.sets[rank][..H];
        for moving in 0..H {
            let cell = group[moving];
            let others = others_of(group, moving);
            let entry = &self.next_beyond[self.cells.rank(&others[..H - 1])];
            for dir in Direction::ALL {
                if dir.step(cell).is_some_and(|next| has(block, next)) {
                    entry[dir as usize][cell as usize / 64]
                        .fetch_or(1 << (cell as usize % 64), Ordering::Relaxed);
                }
            }
        }
    }

    /// The frontier's `beyond` block of the helpers `others` (rank) and `dir`.
    #[inline(always)]
    fn beyond(&self, others: usize, dir: Direction) -> Block {
        let words = &self.beyond[others][dir as usize];
        std::array::from_fn(|i| words[i].load(Ordering::Relaxed))
    }

    #[inline(always)]
    fn is_nonempty(&self, rank: usize) -> bool {
        self.nonempty[rank / 64] >> (rank % 64) & 1 != 0
    }

    /// The placements of a block that the unit counts and reports: all of them, or when
    /// any robot finishes, those whose target robot is below every helper (each set once).
    #[inline(always)]
    fn reported(&self, rank: usize, block: &Block) -> Block {
        match self.finisher {
            Finisher::TargetRobot => *block,
            Finisher::AnyRobot => and(block, &block::below(self.sets[rank][0])),
        }
    }

    /// The placements of a frontier block that no robot makes illegal by where it stands:
    /// none when a helper does, else those whose target robot does not.
    fn legal_part(&self, rank: usize, block: &Block) -> Block {
        let helpers = &self.sets[rank][..H];
        let [off_target_robot, off_helpers] = &self.off_legal;
        if helpers.iter().all(|&cell| !has(off_helpers, cell)) {
            minus(block, off_target_robot)
        } else {
            EMPTY
        }
    }

    /// Up to `wanted` of the frontier's `found` placements (legal ones only if `legal`),
    /// evenly spaced in (rank, cell) order.
    pub(super) fn spread(&self, found: u64, wanted: usize, legal: bool) -> Vec<Placement> {
        let picks: Vec<u64> = even_picks(found, wanted).collect();
        self.pick(&picks, legal)
    }

    /// The frontier's placements (legal ones only if `legal`) of the given positions in
    /// (rank, cell) order, which must ascend.
    pub(super) fn pick(&self, picks: &[u64], legal: bool) -> Vec<Placement> {
        let mut picks = picks.iter().copied();
        let mut next = picks.next();
        let mut seen = 0u64;
        let mut chosen = Vec::with_capacity(picks.len() + 1);
        for (chunk, counts) in self.chunk_counts.iter().enumerate() {
            let Some(pick) = next else { break };
            let in_chunk = counts[usize::from(legal)];
            if seen + in_chunk <= pick {
                seen += in_chunk;
                continue;
            }
            let ranks = chunk * 64..(chunk * 64 + 64).min(self.frontier.len());
            for rank in ranks {
                let Some(pick) = next else { break };
                let block = &self.frontier[rank];
                if *block == EMPTY {
                    continue;
                }
                let reported = self.reported(rank, block);
                let layer = &if legal {
                    self.legal_part(rank, &reported)
                } else {
                    reported
                };
                let in_block = count(layer);
                if seen + in_block <= pick {
                    seen += in_block;
                    continue;
                }
                for cell in block::cells(layer) {
                    if Some(seen) == next {
                        chosen.push(Placement {
                            target_robot: cell,
                            helpers: self.sets[rank][..H].to_vec(),
                        });
                        next = picks.next();
                    }
                    seen += 1;
                }
            }
        }
        chosen
    }

    /// Computes the next layer and returns its counts (all, legal); (0, 0) when it is
    /// empty, which leaves the frontier as it was.
    pub(super) fn step(&mut self) -> (u64, u64) {
        self.advance(|sweep, rank, visited| sweep.pull_block(rank, visited))
    }

    /// The unreached placements of helper set `rank` with a move into the frontier.
    fn pull_block(&self, rank: usize, visited: &Block) -> Block {
        let group = &self.sets[rank][..H];
        let mask = mask_of(group);
        let candidates = minus(&minus(&self.moves.free, &mask), visited);
        if candidates == EMPTY {
            return EMPTY;
        }
        // Plan the helper moves and prefetch the blocks they read before the target robot's
        // moves, which then hide some of the wait: those reads are scattered over the whole
        // layer, and waiting for them one by one is the cost.
        let mut slides = [Slide::default(); MAX_HELPERS * 4];
        let mut planned = 0;
        for moving in 0..H {
            let others = others_of(group, moving);
            let others = &others[..H - 1];
            let others_rank = self.cells.rank(others);
            for dir in Direction::ALL {
                if let Some(slide) = self.plan_slide(group[moving], others, others_rank, dir) {
                    if slide.lands_in_frontier {
                        prefetch(&self.frontier[slide.landing]);
                    }
                    prefetch(&self.beyond[slide.others][dir as usize]);
                    slides[planned] = slide;
                    planned += 1;
                }
            }
        }
        let mut pulled = EMPTY;
        if self.is_nonempty(rank) {
            let frontier = &self.frontier[rank];
            for dir in Direction::ALL {
                pulled = or(&pulled, &self.moves.pull(&mask, frontier, dir));
            }
        }
        if minus(&candidates, &pulled) == EMPTY {
            return candidates;
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
        for slide in &slides[..planned] {
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
        and(&pulled, &candidates)
    }

    /// Where the helper at `from` slides in `dir` among `others` (of rank `others_rank`),
    /// and what that move reads; `None` when it cannot move.
    #[inline(always)]
    fn plan_slide(
        &self,
        from: Cell,
        others: &[Cell],
        others_rank: usize,
        dir: Direction,
    ) -> Option<Slide> {
        let end = self.slide_end(from, others, dir);
        if end == from {
            return None;
        }
        // The cells passed, `from` excluded, `end` included.
        let landing = self.cells.rank_with(others, end);
        Some(Slide {
            dir,
            from,
            end,
            landing,
            lands_in_frontier: self.is_nonempty(landing),
            others: others_rank,
        })
    }

    /// Where a robot at `from` slides in `dir` among `others` (no other robot moves).
    #[inline(always)]
    fn slide_end(&self, from: Cell, others: &[Cell], dir: Direction) -> Cell {
        let ray = self.rays.mask(from, dir);
        // The nearest other robot on the ray stops the slide on the cell before it.
        let ahead = |cell: Cell| match dir {
            Direction::East | Direction::South => cell,
            Direction::North | Direction::West => !cell,
        };
        let blocker = others
            .iter()
            .copied()
            .filter(|&c| has(ray, c))
            .min_by_key(|&c| ahead(c));
        match blocker {
            Some(cell) => dir
                .opposite()
                .step(cell)
                .expect("a blocker on a ray has a cell before it"),
            None => self.rays.last(from, dir),
        }
    }
}

/// `group` without its `moving`-th cell, still ascending. A fixed array, not a vector:
/// this runs for every block of every layer.
#[inline(always)]
fn others_of(group: &[Cell], moving: usize) -> Set {
    let mut others = [0 as Cell; MAX_HELPERS];
    others[..moving].copy_from_slice(&group[..moving]);
    others[moving..group.len() - 1].copy_from_slice(&group[moving + 1..]);
    others
}

/// One helper move of a block, planned before its blocks are read.
#[derive(Clone, Copy)]
struct Slide {
    dir: Direction,
    from: Cell,
    end: Cell,
    /// The rank of the helper set after the move (target robot off the path).
    landing: usize,
    lands_in_frontier: bool,
    /// The rank of the helpers that do not move.
    others: usize,
}

impl Default for Slide {
    fn default() -> Slide {
        Slide {
            dir: Direction::North,
            from: 0,
            end: 0,
            landing: 0,
            lands_in_frontier: false,
            others: 0,
        }
    }
}

/// Asks the CPU to start loading a block it will read soon.
#[inline(always)]
fn prefetch<T>(data: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint; it never faults and reads nothing into the program.
    unsafe {
        std::arch::x86_64::_mm_prefetch(
            (data as *const T).cast::<i8>(),
            std::arch::x86_64::_MM_HINT_T0,
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = data;
}
