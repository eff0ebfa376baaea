//! The layered search of one unit ([`Sweep`]), generic over its number of helpers so
//! that every loop over them is unrolled: the per-block work of a layer is the whole
//! cost of a unit.

use super::block::{self, and, count, has, mask_of, minus, or, set, Block, Moves, EMPTY};
use super::cells::{Cells, Rays, Set};
use super::{even_picks, Finisher, Placement, UnitError, MAX_HELPERS};
use crate::board::{Board, Cell, Direction};
use group::{others_of, Outer};
use pull::Open;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

mod group;
mod pull;

/// The layered search's state: the current layer and everything reached so far.
pub(super) struct Sweep<const H: usize> {
    pub(super) cells: Cells,
    rays: Rays,
    moves: Moves,
    finisher: Finisher,
    /// Helper sets by rank.
    sets: Vec<Set>,
    /// Placements first reached in the last layer, one block per helper set; a block is
    /// valid only where `nonempty` has its bit (the others may be stale).
    frontier: Vec<Block>,
    /// Placements reached in any layer.
    visited: Vec<Block>,
    /// The buffer the next layer is written into (the layer before the frontier).
    spare: Vec<Block>,
    /// Cells the target robot, then cells a helper, does not stand on in a legal placement.
    off_legal: [Block; 2],
    /// One bit per helper set: its frontier block is not empty. A frontier block whose
    /// bit is clear may hold stale cells: it is read only through this bitmap.
    nonempty: Vec<u64>,
    /// One bit per helper set, cleared once every placement of it is reached. A layer
    /// visits only the blocks whose bit is set, so the late layers skip the done ones.
    open: Vec<u64>,
    /// Placements of the frontier (all, legal) in each run of 64 blocks, so that picking
    /// placements by position skips whole runs.
    chunk_counts: Vec<[u64; 2]>,
    /// `beyond[rank of others][dir]`: the cells `c` where a helper at `c` with `others`
    /// and the target robot on the next cell in `dir` is a frontier placement. A helper
    /// sliding in `dir` into the target robot stops on such a cell, so this turns the
    /// cells of a path into one block operation.
    beyond: Vec<[Block; 4]>,
    /// The same for the layer being computed, filled as its blocks are (any thread may
    /// add a cell to any entry, hence atomics).
    next_beyond: Vec<[AtomicBlock; 4]>,
    /// Whether layers run the AVX-512 kernel ([`Sweep::chunk_wide`]).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    wide: bool,
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
        wide_if_able: bool,
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
            open: (0..sets.len().div_ceil(64))
                .map(|chunk| match sets.len() - chunk * 64 {
                    n if n >= 64 => u64::MAX,
                    n => (1 << n) - 1,
                })
                .collect(),
            chunk_counts: Vec::new(),
            beyond: vec![[EMPTY; 4]; cells.sets_of(H - 1)],
            next_beyond: atomic_blocks(cells.sets_of(H - 1)),
            wide: wide_if_able && has_wide_kernel(),
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
        self.advance(&LayerKind::First { target, goal })
    }

    /// Block `rank` of layer 1.
    fn first_block(&self, rank: usize, target: Cell, goal: &Block) -> (Block, bool) {
        let group = &self.sets[rank][..H];
        let mask = mask_of(group);
        if has(&mask, target) {
            return (EMPTY, false);
        }
        let layer = Direction::ALL.iter().fold(EMPTY, |layer, &dir| {
            or(&layer, &self.moves.pull(&mask, goal, dir))
        });
        let layer = match self.finisher {
            Finisher::TargetRobot => layer,
            Finisher::AnyRobot => or(&layer, &self.helper_finishes(group, target)),
        };
        (layer, false)
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

    /// Computes the next layer (`layer` tells which), block by block, noting the blocks
    /// now done (every placement reached); marks the layer visited and makes it the
    /// frontier unless it is empty. Only open blocks are visited. One pass over the blocks
    /// also counts the layer (all and legal placements) and notes its non-empty blocks.
    fn advance(&mut self, layer: &LayerKind) -> (u64, u64) {
        let blocks = self.sets.len();
        let mut next = std::mem::take(&mut self.spare);
        next.resize(blocks, EMPTY);
        let mut visited = std::mem::take(&mut self.visited);
        visited.resize(blocks, EMPTY);
        let mut open = std::mem::take(&mut self.open);
        // One thread alone may add to `next_beyond` without locked instructions.
        let alone = rayon::current_num_threads() == 1;
        let sweep = &*self;
        let summaries: Vec<(u64, u64, u64)> = next
            .par_chunks_mut(64)
            .zip(visited.par_chunks_mut(64))
            .zip(open.par_iter_mut())
            .enumerate()
            .map(|(chunk, ((new_blocks, seen_blocks), open_bits))| {
                let blocks = ChunkBlocks {
                    chunk,
                    new: new_blocks,
                    seen: seen_blocks,
                    open: open_bits,
                };
                #[cfg(target_arch = "x86_64")]
                if sweep.wide {
                    // SAFETY: the CPU has every feature `chunk_wide` is compiled for.
                    return unsafe { sweep.chunk_wide(layer, blocks, alone) };
                }
                sweep.chunk(layer, blocks, alone)
            })
            .collect();
        self.visited = visited;
        self.open = open;
        let all: u64 = summaries.iter().map(|s| s.1).sum();
        let legal: u64 = summaries.iter().map(|s| s.2).sum();
        if all == 0 {
            self.spare = next;
            return (0, 0);
        }
        self.spare = std::mem::replace(&mut self.frontier, next);
        self.nonempty = summaries.iter().map(|s| s.0).collect();
        self.chunk_counts = summaries.iter().map(|s| [s.1, s.2]).collect();
        // The layer's index becomes the frontier's, as plain blocks: a layer only reads
        // it, and a plain block loads in one instruction.
        self.beyond
            .par_iter_mut()
            .zip(&self.next_beyond)
            .for_each(|(entry, next)| {
                for (block, words) in entry.iter_mut().zip(next) {
                    *block = std::array::from_fn(|i| words[i].swap(0, Ordering::Relaxed));
                }
            });
        (all, legal)
    }

    /// Computes a run of 64 blocks of the next layer (see [`Sweep::advance`]) and returns
    /// its non-empty blocks (bits) and its counts (all, legal). A later layer takes the
    /// run's blocks a group segment at a time (`sweep/pull.rs`).
    #[inline(always)]
    fn chunk(&self, layer: &LayerKind, blocks: ChunkBlocks<'_>, alone: bool) -> (u64, u64, u64) {
        let mut tally = Tally {
            blocks,
            bits: 0,
            all: 0,
            legal: 0,
        };
        let mut outer = Outer::default();
        // The open blocks of the current segment, waiting for the outer helpers' moves.
        let mut segment = [Open::default(); 64];
        let mut waiting = 0;
        let mut rest = *tally.blocks.open;
        while rest != 0 {
            let i = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let rank = tally.blocks.chunk * 64 + i;
            let set = &self.sets[rank];
            match layer {
                LayerKind::First { target, goal } => {
                    outer.refresh(self, set);
                    let (new, done) = self.first_block(rank, *target, goal);
                    let others = outer.others_ranks(&self.cells, set[0]);
                    tally.record(self, i, rank, &others, new, done, alone);
                }
                LayerKind::Pull => {
                    if !outer.holds::<H>(set) {
                        self.pull_outer(&mut tally, &outer, &mut segment[..waiting], alone);
                        waiting = 0;
                        outer.refresh(self, set);
                    }
                    let open = &mut segment[waiting];
                    if self.open_block(&mut tally, &outer, open, i, rank, alone) {
                        waiting += 1;
                    }
                }
            }
        }
        self.pull_outer(&mut tally, &outer, &mut segment[..waiting], alone);
        (tally.bits, tally.all, tally.legal)
    }

    /// [`Sweep::chunk`] compiled for AVX-512 with its funnel shifts and population
    /// counts: a block's shifts and counts then take a few instructions instead of a
    /// dozen (a unit takes about a quarter less CPU; the results are the same bits).
    ///
    /// # Safety
    /// The CPU must have the features enabled here ([`has_wide_kernel`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(
        enable = "avx2,bmi1,bmi2,popcnt,lzcnt,avx512f,avx512vl,avx512bw,avx512dq,avx512vbmi2,avx512vpopcntdq"
    )]
    unsafe fn chunk_wide(
        &self,
        layer: &LayerKind,
        blocks: ChunkBlocks<'_>,
        alone: bool,
    ) -> (u64, u64, u64) {
        self.chunk(layer, blocks, alone)
    }

    /// Adds the new frontier block of helper set `rank` to `next_beyond`: for each helper
    /// (`others`: the rank of the other helpers), the directions in which the target
    /// robot stands next to it.
    #[inline(always)]
    fn note_beyond(&self, rank: usize, others: &[usize; MAX_HELPERS], block: &Block, alone: bool) {
        let group = &self.sets[rank][..H];
        for moving in 0..H {
            let cell = group[moving];
            let entry = &self.next_beyond[others[moving]];
            for dir in Direction::ALL {
                let bit = u64::from(has(block, self.rays.next(cell, dir))) << (cell as usize % 64);
                let word = &entry[dir as usize][cell as usize / 64];
                // Alone, without a branch (which the block's cells make unpredictable).
                if alone {
                    word.store(word.load(Ordering::Relaxed) | bit, Ordering::Relaxed);
                } else if bit != 0 {
                    word.fetch_or(bit, Ordering::Relaxed);
                }
            }
        }
    }

    /// The frontier's `beyond` block of the helpers `others` (rank) and `dir`.
    #[inline(always)]
    fn beyond(&self, others: usize, dir: Direction) -> Block {
        self.beyond[others][dir as usize]
    }

    /// Whether the frontier holds the placement of helper set `rank` and `cell`.
    pub(super) fn frontier_has(&self, rank: usize, cell: Cell) -> bool {
        self.is_nonempty(rank) && has(&self.frontier[rank], cell)
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
                if !self.is_nonempty(rank) {
                    continue;
                }
                let block = &self.frontier[rank];
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
        self.advance(&LayerKind::Pull)
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

/// Which layer [`Sweep::advance`] computes.
enum LayerKind {
    /// Layer 1: one slide onto `target` (`goal` is its block).
    First { target: Cell, goal: Block },
    /// A later layer: a move into the frontier.
    Pull,
}

/// One run of 64 blocks of a layer: the new layer's blocks, the visited blocks and their
/// bitmap of open blocks.
struct ChunkBlocks<'a> {
    chunk: usize,
    new: &'a mut [Block],
    seen: &'a mut [Block],
    open: &'a mut u64,
}

/// A run of 64 blocks being computed, and what it has found so far.
struct Tally<'a> {
    blocks: ChunkBlocks<'a>,
    /// Its non-empty new blocks, and their placements (all, legal).
    bits: u64,
    all: u64,
    legal: u64,
}

impl Tally<'_> {
    /// Notes the new placements `new` of block `i` (helper set `rank`, whose helpers'
    /// others have the ranks `others`), and closes the block when it is `done`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn record<const H: usize>(
        &mut self,
        sweep: &Sweep<H>,
        i: usize,
        rank: usize,
        others: &[usize; MAX_HELPERS],
        new: Block,
        done: bool,
        alone: bool,
    ) {
        if done {
            *self.blocks.open &= !(1 << i);
        }
        if new == EMPTY {
            return;
        }
        self.blocks.new[i] = new;
        self.bits |= 1 << i;
        sweep.note_beyond(rank, others, &new, alone);
        let seen = &mut self.blocks.seen[i];
        *seen = or(seen, &new);
        let reported = sweep.reported(rank, &new);
        self.all += count(&reported);
        self.legal += count(&sweep.legal_part(rank, &reported));
    }
}

/// Whether this CPU runs the AVX-512 kernel.
#[cfg(not(target_arch = "x86_64"))]
pub fn has_wide_kernel() -> bool {
    false
}

/// Whether this CPU runs the AVX-512 kernel: every feature it is compiled for (those
/// enabled, and those they imply).
#[cfg(target_arch = "x86_64")]
pub fn has_wide_kernel() -> bool {
    std::is_x86_feature_detected!("avx")
        && std::is_x86_feature_detected!("fma")
        && std::is_x86_feature_detected!("f16c")
        && std::is_x86_feature_detected!("avx2")
        && std::is_x86_feature_detected!("bmi1")
        && std::is_x86_feature_detected!("bmi2")
        && std::is_x86_feature_detected!("popcnt")
        && std::is_x86_feature_detected!("lzcnt")
        && std::is_x86_feature_detected!("avx512f")
        && std::is_x86_feature_detected!("avx512vl")
        && std::is_x86_feature_detected!("avx512bw")
        && std::is_x86_feature_detected!("avx512dq")
        && std::is_x86_feature_detected!("avx512vbmi2")
        && std::is_x86_feature_detected!("avx512vpopcntdq")
}
