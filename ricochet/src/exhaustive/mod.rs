//! Exhaustive analysis of one unit: for a board, a target cell and a robot that must reach
//! it, the optimal move count of *every* placement of that robot and its interchangeable
//! helpers (the other robots, whose colours do not matter to a coloured target). A wild
//! target (the vortex) may be reached by any robot: all robots are then interchangeable,
//! and a placement is a set of cells ([`Finisher::AnyRobot`]).
//!
//! A layered BFS runs backwards from the goal. Layer 1 holds the placements whose target
//! robot reaches the target in one slide; layer `d + 1` the unreached placements with a
//! move into layer `d` (a "pull" step, so each helper set writes only its own bits and
//! the step runs in parallel on the caller's rayon pool). Placements are kept as one
//! 256-bit block per helper set (colex rank of the set), one bit per cell of the internal
//! 16×16 grid for the target robot. Target-robot moves are computed for the whole block at
//! once with shifts (`block.rs`); a helper's move reads the frontier block it lands in
//! (target robot off its path) and one block of `beyond`, an index of the frontier filled
//! while the layer is computed, for the target robot standing on its path. A block is
//! skipped once all its placements are reached, and a landing block whose frontier is
//! empty is never read (a bitmap of non-empty frontier blocks stays in cache).

mod block;
mod cells;
mod restricted;

pub use restricted::{analyse_restricted, STATE_LIMIT};

use crate::board::{Board, Cell, Direction};
use crate::puzzle::Target;
use block::{and, count, has, minus, or, set, shift, Block, Moves, EMPTY};
use cells::{Cells, Rays, Set};
use rayon::prelude::*;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicU64, Ordering};

/// The most helpers a unit may have (four robots in all).
pub const MAX_HELPERS: usize = 3;

/// Legal placements a unit result keeps of each depth ([`Analysis::legal_samples`]): 64
/// per depth is a whole pack's worth from every unit (98,304 per depth over the first
/// edition's 1,536 units) for 256 bytes per depth.
pub const LEGAL_PER_DEPTH: usize = 64;

/// Which robots finish a unit by stopping on its target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finisher {
    /// The target robot only (a coloured target).
    TargetRobot,
    /// Any robot (a wild target, the vortex). The robots are interchangeable, so the
    /// search still runs over (robot, helper set) pairs but counts and reports each set of
    /// cells once: as the placement whose "target robot" is its smallest cell.
    AnyRobot,
}

impl Finisher {
    pub fn of(target: &Target) -> Finisher {
        match target.colour {
            Some(_) => Finisher::TargetRobot,
            None => Finisher::AnyRobot,
        }
    }
}

/// One placement: the target robot's cell and the helpers' cells (ascending).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Placement {
    pub target_robot: Cell,
    pub helpers: Vec<Cell>,
}

impl Placement {
    /// The caller's `y * width + x` indices of the target robot, then of the helpers.
    pub fn indices(&self, board: &Board) -> Vec<usize> {
        std::iter::once(self.target_robot)
            .chain(self.helpers.iter().copied())
            .map(|cell| board.index_of(cell))
            .collect()
    }

    /// The same cells as a set: the smallest first, the others ascending (how a unit
    /// whose robots all finish names its placements).
    pub fn as_set(&self) -> Placement {
        let mut cells = self.helpers.clone();
        cells.push(self.target_robot);
        cells.sort_unstable();
        Placement {
            target_robot: cells.remove(0),
            helpers: cells,
        }
    }

    /// Robot cells in colour order: the target robot in slot `target_slot`, the helpers
    /// (ascending) in the other slots.
    pub fn robots(&self, target_slot: usize) -> Vec<Cell> {
        let mut robots = self.helpers.clone();
        robots.insert(target_slot.min(robots.len()), self.target_robot);
        robots
    }
}

/// Which placements of a unit are *legal*: those its generator could deal for its target.
/// The default calls every placement legal.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Legality {
    /// Cells no robot stands on (Fogleman's generator keeps robots off every target).
    pub off_cells: Vec<Cell>,
    /// DriftingDroids' goal deck puts a goal back while the game would finish it in 0 or 1
    /// move: no robot that may finish stands on the target, and at least 2 moves are needed.
    pub past_one_move: bool,
}

impl Legality {
    /// The fewest moves a legal placement needs.
    pub fn min_moves(&self) -> u8 {
        if self.past_one_move {
            2
        } else {
            1
        }
    }

    /// Cells the target robot (any robot when any robot finishes) may not stand on.
    fn off_finisher(&self, target: Cell) -> Vec<Cell> {
        let mut cells = self.off_cells.clone();
        if self.past_one_move {
            cells.push(target);
        }
        cells
    }

    /// Whether `placement` of a unit on `target` is legal; `moves` is its optimum (`None`:
    /// unsolvable, which no deck puts back).
    pub fn allows(&self, placement: &Placement, target: Target, moves: Option<u8>) -> bool {
        let off_finisher = self.off_finisher(target.cell);
        let helpers_off = match Finisher::of(&target) {
            Finisher::TargetRobot => &self.off_cells,
            Finisher::AnyRobot => &off_finisher,
        };
        !off_finisher.contains(&placement.target_robot)
            && !placement.helpers.iter().any(|c| helpers_off.contains(c))
            && moves.is_none_or(|moves| moves >= self.min_moves())
    }
}

/// What to collect besides the histograms.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Which placements are legal.
    pub legality: Legality,
    /// How many placements to sample, spread evenly over the helper sets
    /// ([`sample_placements`]); their move counts come back in [`Analysis::sample`].
    pub sample_size: usize,
    /// Placements whose move counts come back in [`Analysis::watched`].
    pub watch: Vec<Placement>,
    /// Depths from this one on keep up to `top_per_depth` placements in [`Analysis::top`].
    pub top_from: u8,
    pub top_per_depth: usize,
    /// Every depth keeps up to this many legal placements in [`Analysis::legal_samples`].
    pub legal_per_depth: usize,
    /// The deepest legal depth keeps up to this many placements in
    /// [`Analysis::legal_hardest`].
    pub legal_hardest: usize,
}

/// What the analysis of one unit finds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// Every placement counted once.
    pub placements: u64,
    /// `histogram[d]`: placements needing `d` moves (`histogram[0]` is always 0: the
    /// target robot must make the last move).
    pub histogram: Vec<u64>,
    /// The same over legal placements ([`Legality`]).
    pub legal_histogram: Vec<u64>,
    /// Placements from which the target cannot be reached at all.
    pub unsolvable: u64,
    /// The most moves any solvable placement needs (0 if none is solvable).
    pub max_moves: u8,
    /// Every placement needing `max_moves`, in (helper set rank, cell) order.
    pub hardest: Vec<Placement>,
    /// For each depth from `top_from` on (ascending), up to `top_per_depth` of its
    /// placements, spread evenly over that depth's placements in (rank, cell) order.
    pub top: Vec<(u8, Vec<Placement>)>,
    /// The sampled placements with their move counts (`None`: unsolvable).
    pub sample: Vec<(Placement, Option<u8>)>,
    /// For each depth from 1 to `max_moves`, up to `legal_per_depth` of its legal
    /// placements, spread evenly over them in (rank, cell) order (empty where none is
    /// legal): a deterministic sample of every depth, for packs.
    pub legal_samples: Vec<Vec<Placement>>,
    /// Up to `legal_hardest` legal placements at the deepest depth any legal placement
    /// needs (every one of them when there are no more), spread as above.
    pub legal_hardest: Vec<Placement>,
    /// The watched placements' move counts, in the order given.
    pub watched: Vec<Option<u8>>,
}

/// One finished layer, for progress reports.
#[derive(Clone, Copy, Debug)]
pub struct Layer {
    pub depth: u8,
    /// Placements needing exactly `depth` moves.
    pub found: u64,
    /// Placements solved so far (depth at most `depth`).
    pub solved: u64,
    /// All placements of the unit.
    pub placements: u64,
}

/// Why a unit cannot be analysed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnitError {
    #[error("a unit has 1 to {MAX_HELPERS} helpers, not {0}")]
    Helpers(usize),
    #[error("the target cell {0} is not a cell a robot may stand on")]
    Target(Cell),
    #[error("placement {0:?} is not one of this unit's placements")]
    Placement(Placement),
    #[error("some placement needs more than 254 moves")]
    TooDeep,
    #[error("exhaustive analysis does not know diagonal walls (mirrors)")]
    Mirrors,
    #[error(
        "the unit has more than {0} states under these rules (each robot's last line \
         counts); exhaustive analysis under rules that restrict moves is for small boards"
    )]
    TooManyStates(usize),
    #[error("the analysis was stopped after {0} layers")]
    Stopped(u8),
}

/// Checks the unit's shape and returns its free cells.
fn unit_cells(board: &Board, helpers: usize) -> Result<Cells, UnitError> {
    if !(1..=MAX_HELPERS).contains(&helpers) {
        return Err(UnitError::Helpers(helpers));
    }
    Ok(Cells::new(board))
}

/// Checks that the unit can be analysed (no mirrors, a free target) and returns its free
/// cells.
fn analysed_cells(board: &Board, target: Target, helpers: usize) -> Result<Cells, UnitError> {
    let cells = unit_cells(board, helpers)?;
    if board.has_mirrors() {
        return Err(UnitError::Mirrors);
    }
    if !cells.is_free(target.cell) {
        return Err(UnitError::Target(target.cell));
    }
    Ok(cells)
}

/// How many placements of a target robot and `helpers` helpers `board` has (sets of
/// `helpers + 1` cells when any robot finishes).
pub fn placements(board: &Board, helpers: usize, finisher: Finisher) -> Result<u64, UnitError> {
    Ok(unit_cells(board, helpers)?.placements(helpers, finisher))
}

/// The `size` placements an analysis samples: helper sets evenly spread over their ranks,
/// each with a target-robot cell chosen by rank among the cells the set leaves free.
/// Deterministic, so a checker can tell which placements a result must report. When any
/// robot finishes, each placement is given as its set: the smallest cell first.
pub fn sample_placements(
    board: &Board,
    helpers: usize,
    finisher: Finisher,
    size: usize,
) -> Result<Vec<Placement>, UnitError> {
    let cells = unit_cells(board, helpers)?;
    let sets = cells.sets_of(helpers);
    let size = size.min(sets);
    Ok((0..size)
        .filter_map(|i| {
            let rank = (i as u128 * sets as u128 / size as u128) as usize;
            let set = nth_set(&cells, helpers, rank);
            let open: Vec<Cell> = cells
                .free
                .iter()
                .copied()
                .filter(|c| !set[..helpers].contains(c))
                .collect();
            let &cell = open.get(rank % open.len().max(1))?;
            let placement = Placement {
                target_robot: cell,
                helpers: set[..helpers].to_vec(),
            };
            Some(match finisher {
                Finisher::TargetRobot => placement,
                Finisher::AnyRobot => placement.as_set(),
            })
        })
        .collect())
}

/// The helper set of colex rank `rank` (greedy from the largest element down).
fn nth_set(cells: &Cells, helpers: usize, mut rank: usize) -> Set {
    let mut set = [0 as Cell; MAX_HELPERS];
    let mut limit = cells.free.len();
    for k in (1..=helpers).rev() {
        // The largest index i < limit with C(i, k) ≤ rank.
        let i = (k - 1..limit)
            .rev()
            .find(|&i| cells.rank_term(i, k) <= rank)
            .expect("rank is below C(free, k)");
        rank -= cells.rank_term(i, k);
        set[k - 1] = cells.free[i];
        limit = i;
    }
    set
}

/// Analyses every placement of a target robot and `helpers` interchangeable helpers on
/// `board` for `target` (internal cell; a wild target lets any robot finish). Runs on the
/// current rayon pool and calls `on_layer` after each layer, which may stop the analysis
/// (a lost lease, Ctrl-C).
pub fn analyse(
    board: &Board,
    target: Target,
    helpers: usize,
    options: &Options,
    mut on_layer: impl FnMut(&Layer) -> ControlFlow<()>,
) -> Result<Analysis, UnitError> {
    let cells = analysed_cells(board, target, helpers)?;
    let finisher = Finisher::of(&target);
    let sampled = sample_placements(board, helpers, finisher, options.sample_size)?;
    let legality = &options.legality;
    let off_target_robot = mask_of(&legality.off_finisher(target.cell));
    let off_helpers = match finisher {
        Finisher::TargetRobot => mask_of(&legality.off_cells),
        Finisher::AnyRobot => off_target_robot,
    };
    let mut sweep = Sweep::new(
        board,
        cells,
        helpers,
        finisher,
        [off_target_robot, off_helpers],
    );
    let probes: Vec<(usize, Cell)> = sampled
        .iter()
        .chain(&options.watch)
        .map(|p| sweep.locate(p))
        .collect::<Result<_, _>>()?;
    let mut probe_depths: Vec<Option<u8>> = vec![None; probes.len()];
    let placements = sweep.cells.placements(helpers, finisher);
    let mut histogram = vec![0u64];
    let mut legal_histogram = vec![0u64];
    let mut top = Vec::new();
    let mut legal_samples = Vec::new();
    let mut legal_hardest = Vec::new();
    let (mut found, mut legal) = sweep.first_layer(target.cell);
    while found > 0 {
        let depth = histogram.len() as u8;
        if depth < legality.min_moves() {
            legal = 0;
        }
        histogram.push(found);
        legal_histogram.push(legal);
        for (known, &(rank, cell)) in probe_depths.iter_mut().zip(&probes) {
            if known.is_none() && has(&sweep.frontier[rank], cell) {
                *known = Some(depth);
            }
        }
        if depth >= options.top_from && options.top_per_depth > 0 {
            top.push((depth, sweep.spread(found, options.top_per_depth, false)));
        }
        // One pass over the layer picks both lists.
        let sample_picks: Vec<u64> = even_picks(legal, options.legal_per_depth).collect();
        let hardest_picks: Vec<u64> = even_picks(legal, options.legal_hardest).collect();
        let mut picks = [sample_picks.as_slice(), &hardest_picks].concat();
        picks.sort_unstable();
        picks.dedup();
        let picked = sweep.pick(&picks, true);
        let placements_at = |wanted: &[u64]| -> Vec<Placement> {
            let at = |pick| picked[picks.binary_search(pick).expect("a pick of the union")].clone();
            wanted.iter().map(at).collect()
        };
        legal_samples.push(placements_at(&sample_picks));
        if legal > 0 {
            legal_hardest = placements_at(&hardest_picks);
        }
        let layer = Layer {
            depth,
            found,
            solved: histogram.iter().sum(),
            placements,
        };
        if on_layer(&layer).is_break() {
            return Err(UnitError::Stopped(depth));
        }
        if depth == u8::MAX - 1 {
            return Err(UnitError::TooDeep);
        }
        (found, legal) = sweep.step();
    }
    let max_moves = (histogram.len() - 1) as u8;
    let hardest = if max_moves == 0 {
        Vec::new()
    } else {
        sweep.spread(histogram[max_moves as usize], usize::MAX, false)
    };
    let solvable: u64 = histogram.iter().sum();
    let sample_depths = probe_depths.split_off(sampled.len());
    Ok(Analysis {
        placements,
        histogram,
        legal_histogram,
        unsolvable: placements - solvable,
        max_moves,
        hardest,
        top,
        sample: sampled.into_iter().zip(probe_depths).collect(),
        watched: sample_depths,
        legal_samples,
        legal_hardest,
    })
}

/// The picks of an even spread of `wanted` over `found` items, in order.
fn even_picks(found: u64, wanted: usize) -> impl Iterator<Item = u64> {
    let wanted = (wanted as u64).min(found);
    (0..wanted).map(move |i| (i as u128 * found as u128 / wanted as u128) as u64)
}

/// The layered search's state: the current layer and everything reached so far.
struct Sweep {
    cells: Cells,
    rays: Rays,
    moves: Moves,
    helpers: usize,
    finisher: Finisher,
    /// Helper sets by rank.
    sets: Vec<Set>,
    /// Placements first reached in the last layer, one block per helper set.
    frontier: Vec<Block>,
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

fn mask_of(cells: &[Cell]) -> Block {
    let mut mask = EMPTY;
    for &cell in cells {
        set(&mut mask, cell);
    }
    mask
}

impl Sweep {
    fn new(
        board: &Board,
        cells: Cells,
        helpers: usize,
        finisher: Finisher,
        off_legal: [Block; 2],
    ) -> Sweep {
        let sets = cells.sets(helpers);
        Sweep {
            rays: Rays::new(board),
            moves: Moves::new(board),
            helpers,
            finisher,
            frontier: Vec::new(),
            visited: Vec::new(),
            spare: Vec::new(),
            off_legal,
            nonempty: Vec::new(),
            chunk_counts: Vec::new(),
            beyond: atomic_blocks(cells.sets_of(helpers - 1)),
            next_beyond: atomic_blocks(cells.sets_of(helpers - 1)),
            sets,
            cells,
        }
    }

    /// The helper-set rank and target cell of a placement of this unit.
    fn locate(&self, placement: &Placement) -> Result<(usize, Cell), UnitError> {
        let bad = || UnitError::Placement(placement.clone());
        let cells = &placement.helpers;
        let valid = cells.len() == self.helpers
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
    fn first_layer(&mut self, target: Cell) -> (u64, u64) {
        let mut goal = EMPTY;
        set(&mut goal, target);
        self.advance(|sweep, rank, _| {
            let group = &sweep.sets[rank][..sweep.helpers];
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
    fn advance(&mut self, layer: impl Fn(&Sweep, usize, &Block) -> Block + Sync) -> (u64, u64) {
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
        let group = &self.sets[rank][..self.helpers];
        for moving in 0..self.helpers {
            let cell = group[moving];
            let others = others_of(group, moving);
            let entry = &self.next_beyond[self.cells.rank(&others[..self.helpers - 1])];
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
        let helpers = &self.sets[rank][..self.helpers];
        let [off_target_robot, off_helpers] = &self.off_legal;
        if helpers.iter().all(|&cell| !has(off_helpers, cell)) {
            minus(block, off_target_robot)
        } else {
            EMPTY
        }
    }

    /// Up to `wanted` of the frontier's `found` placements (legal ones only if `legal`),
    /// evenly spaced in (rank, cell) order.
    fn spread(&self, found: u64, wanted: usize, legal: bool) -> Vec<Placement> {
        let picks: Vec<u64> = even_picks(found, wanted).collect();
        self.pick(&picks, legal)
    }

    /// The frontier's placements (legal ones only if `legal`) of the given positions in
    /// (rank, cell) order, which must ascend.
    fn pick(&self, picks: &[u64], legal: bool) -> Vec<Placement> {
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
                            helpers: self.sets[rank][..self.helpers].to_vec(),
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
    fn step(&mut self) -> (u64, u64) {
        self.advance(|sweep, rank, visited| sweep.pull_block(rank, visited))
    }

    /// The unreached placements of helper set `rank` with a move into the frontier.
    fn pull_block(&self, rank: usize, visited: &Block) -> Block {
        let group = &self.sets[rank][..self.helpers];
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
        for moving in 0..self.helpers {
            let others = others_of(group, moving);
            let others = &others[..self.helpers - 1];
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
