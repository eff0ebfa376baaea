//! Exhaustive analysis of one unit: for a board, a target cell and a robot that must reach
//! it, the optimal move count of *every* placement of that robot and its interchangeable
//! helpers (the other robots, whose colours do not matter to a coloured target).
//!
//! A layered BFS runs backwards from the goal. Layer 1 holds the placements whose target
//! robot reaches the target in one slide; layer `d + 1` the unreached placements with a
//! move into layer `d` (a "pull" step, so each helper set writes only its own bits and
//! the step runs in parallel on the caller's rayon pool). Placements are kept as one
//! 256-bit block per helper set (colex rank of the set), one bit per cell of the internal
//! 16×16 grid for the target robot. Target-robot moves are computed for the whole block at
//! once with shifts (`block.rs`); a helper's move reads one other block, with the cells
//! on its path (where the target robot would stop it early) taken one by one. A block is
//! skipped once all its placements are reached, and a landing block whose frontier is
//! empty is never read (a bitmap of non-empty frontier blocks stays in cache).

mod block;
mod cells;

use crate::board::{Board, Cell, Direction};
use block::{and, count, has, minus, or, set, Block, Moves, EMPTY};
use cells::{Cells, Rays, Set};
use rayon::prelude::*;

/// The most helpers a unit may have (four robots in all).
pub const MAX_HELPERS: usize = 3;

/// One placement: the target robot's cell and the helpers' cells (ascending).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Placement {
    pub target_robot: Cell,
    pub helpers: Vec<Cell>,
}

impl Placement {
    /// Robot cells in colour order: the target robot in slot `target_slot`, the helpers
    /// (ascending) in the other slots.
    pub fn robots(&self, target_slot: usize) -> Vec<Cell> {
        let mut robots = self.helpers.clone();
        robots.insert(target_slot.min(robots.len()), self.target_robot);
        robots
    }
}

/// What to collect besides the histograms.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Cells no robot may stand on in a legal placement (e.g. the board's targets).
    pub forbidden: Vec<Cell>,
    /// How many placements to sample, spread evenly over the helper sets
    /// ([`sample_placements`]); their move counts come back in [`Analysis::sample`].
    pub sample_size: usize,
    /// Placements whose move counts come back in [`Analysis::watched`].
    pub watch: Vec<Placement>,
    /// Depths from this one on keep up to `top_per_depth` placements in [`Analysis::top`].
    pub top_from: u8,
    pub top_per_depth: usize,
}

/// What the analysis of one unit finds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// Every placement counted once.
    pub placements: u64,
    /// `histogram[d]`: placements needing `d` moves (`histogram[0]` is always 0: the
    /// target robot must make the last move).
    pub histogram: Vec<u64>,
    /// The same over legal placements: no robot on a forbidden cell.
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
}

/// Checks the unit's shape and returns its free cells.
fn unit_cells(board: &Board, helpers: usize) -> Result<Cells, UnitError> {
    if !(1..=MAX_HELPERS).contains(&helpers) {
        return Err(UnitError::Helpers(helpers));
    }
    Ok(Cells::new(board))
}

/// The `size` placements an analysis samples: helper sets evenly spread over their ranks,
/// each with a target-robot cell chosen by rank among the cells the set leaves free.
/// Deterministic, so a checker can tell which placements a result must report.
pub fn sample_placements(
    board: &Board,
    helpers: usize,
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
            open.get(rank % open.len().max(1)).map(|&cell| Placement {
                target_robot: cell,
                helpers: set[..helpers].to_vec(),
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
/// `board` for the target at `target` (internal cell). Runs on the current rayon pool and
/// calls `on_layer` after each layer.
pub fn analyse(
    board: &Board,
    target: Cell,
    helpers: usize,
    options: &Options,
    mut on_layer: impl FnMut(&Layer),
) -> Result<Analysis, UnitError> {
    let cells = unit_cells(board, helpers)?;
    if !cells.is_free(target) {
        return Err(UnitError::Target(target));
    }
    let sampled = sample_placements(board, helpers, options.sample_size)?;
    let mut sweep = Sweep::new(board, cells, helpers);
    let probes: Vec<(usize, Cell)> = sampled
        .iter()
        .chain(&options.watch)
        .map(|p| sweep.locate(p))
        .collect::<Result<_, _>>()?;
    let mut probe_depths: Vec<Option<u8>> = vec![None; probes.len()];
    let mut forbidden = EMPTY;
    for &cell in &options.forbidden {
        set(&mut forbidden, cell);
    }
    let placements = sweep.cells.placements(helpers);
    let mut histogram = vec![0u64];
    let mut legal_histogram = vec![0u64];
    let mut top = Vec::new();
    sweep.first_layer(target);
    loop {
        let depth = (histogram.len()) as u8;
        let (found, legal) = sweep.count_frontier(&forbidden);
        if found == 0 {
            break;
        }
        histogram.push(found);
        legal_histogram.push(legal);
        for (known, &(rank, cell)) in probe_depths.iter_mut().zip(&probes) {
            if known.is_none() && has(&sweep.frontier[rank], cell) {
                *known = Some(depth);
            }
        }
        if depth >= options.top_from && options.top_per_depth > 0 {
            top.push((depth, sweep.spread(found, options.top_per_depth)));
        }
        on_layer(&Layer {
            depth,
            found,
            solved: histogram.iter().sum(),
            placements,
        });
        if depth == u8::MAX - 1 {
            return Err(UnitError::TooDeep);
        }
        if !sweep.step() {
            break;
        }
    }
    let max_moves = (histogram.len() - 1) as u8;
    let hardest = if max_moves == 0 {
        Vec::new()
    } else {
        sweep.spread(histogram[max_moves as usize], usize::MAX)
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
    })
}

/// The layered search's state: the current layer and everything reached so far.
struct Sweep {
    cells: Cells,
    rays: Rays,
    moves: Moves,
    helpers: usize,
    /// Helper sets by rank.
    sets: Vec<Set>,
    /// Placements first reached in the last layer, one block per helper set.
    frontier: Vec<Block>,
    /// Placements reached in any layer.
    visited: Vec<Block>,
    /// One bit per helper set: its frontier block is not empty.
    nonempty: Vec<u64>,
}

fn mask_of(cells: &[Cell]) -> Block {
    let mut mask = EMPTY;
    for &cell in cells {
        set(&mut mask, cell);
    }
    mask
}

impl Sweep {
    fn new(board: &Board, cells: Cells, helpers: usize) -> Sweep {
        let sets = cells.sets(helpers);
        Sweep {
            rays: Rays::new(board),
            moves: Moves::new(board),
            helpers,
            frontier: Vec::new(),
            visited: Vec::new(),
            nonempty: Vec::new(),
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

    /// Layer 1: one slide of the target robot onto the target, in any direction.
    fn first_layer(&mut self, target: Cell) {
        let mut goal = EMPTY;
        set(&mut goal, target);
        let (moves, helpers) = (&self.moves, self.helpers);
        self.frontier = self
            .sets
            .par_iter()
            .map(|set| {
                let mask = mask_of(&set[..helpers]);
                if has(&mask, target) {
                    return EMPTY;
                }
                Direction::ALL.iter().fold(EMPTY, |layer, &dir| {
                    or(&layer, &moves.pull(&mask, &goal, dir))
                })
            })
            .collect();
        self.visited = self.frontier.clone();
        self.mark_nonempty();
    }

    fn mark_nonempty(&mut self) {
        self.nonempty = self
            .frontier
            .par_chunks(64)
            .map(|chunk| {
                chunk
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| **b != EMPTY)
                    .fold(0u64, |bits, (i, _)| bits | 1 << i)
            })
            .collect();
    }

    #[inline(always)]
    fn is_nonempty(&self, rank: usize) -> bool {
        self.nonempty[rank / 64] >> (rank % 64) & 1 != 0
    }

    /// Placements in the frontier, all and legal (no robot on a forbidden cell).
    fn count_frontier(&self, forbidden: &Block) -> (u64, u64) {
        let legal_cells = minus(&self.moves.free, forbidden);
        self.frontier
            .par_iter()
            .zip(&self.sets)
            .map(|(layer, set)| {
                let legal_set = and(&mask_of(&set[..self.helpers]), forbidden) == EMPTY;
                let legal = if legal_set {
                    count(&and(layer, &legal_cells))
                } else {
                    0
                };
                (count(layer), legal)
            })
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    }

    /// Up to `wanted` of the frontier's `found` placements, evenly spaced in (rank, cell)
    /// order.
    fn spread(&self, found: u64, wanted: usize) -> Vec<Placement> {
        let wanted = (wanted as u64).min(found);
        let mut picks = (0..wanted).map(|i| (i as u128 * found as u128 / wanted as u128) as u64);
        let mut next = picks.next();
        let mut seen = 0u64;
        let mut chosen = Vec::with_capacity(wanted as usize);
        for (rank, layer) in self.frontier.iter().enumerate() {
            let Some(pick) = next else { break };
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
        chosen
    }

    /// Computes the next layer; false when it is empty.
    fn step(&mut self) -> bool {
        let next: Vec<Block> = (0..self.sets.len())
            .into_par_iter()
            .map(|rank| self.pull_block(rank))
            .collect();
        if next.iter().all(|b| *b == EMPTY) {
            return false;
        }
        self.visited
            .par_iter_mut()
            .zip(&next)
            .for_each(|(seen, new)| *seen = or(seen, new));
        self.frontier = next;
        self.mark_nonempty();
        true
    }

    /// The unreached placements of helper set `rank` with a move into the frontier.
    fn pull_block(&self, rank: usize) -> Block {
        let group = &self.sets[rank][..self.helpers];
        let mask = mask_of(group);
        let candidates = minus(&minus(&self.moves.free, &mask), &self.visited[rank]);
        if candidates == EMPTY {
            return EMPTY;
        }
        let mut pulled = EMPTY;
        if self.is_nonempty(rank) {
            let frontier = &self.frontier[rank];
            for dir in Direction::ALL {
                pulled = or(&pulled, &self.moves.pull(&mask, frontier, dir));
            }
        }
        for moving in 0..self.helpers {
            for dir in Direction::ALL {
                if minus(&candidates, &pulled) == EMPTY {
                    return candidates;
                }
                self.pull_helper(group, moving, dir, &candidates, &mut pulled);
            }
        }
        and(&pulled, &candidates)
    }

    /// Adds to `pulled` the target-robot cells from which helper `moving` of `group`,
    /// sliding in `dir`, reaches a placement in the frontier.
    #[inline(always)]
    fn pull_helper(
        &self,
        group: &[Cell],
        moving: usize,
        dir: Direction,
        candidates: &Block,
        pulled: &mut Block,
    ) {
        let from = group[moving];
        // Fixed arrays, not vectors: this runs a dozen times per block and layer.
        let mut others = [0 as Cell; MAX_HELPERS];
        let kept = group.len() - 1;
        for (slot, &cell) in others.iter_mut().zip(group.iter().filter(|&&c| c != from)) {
            *slot = cell;
        }
        let others = &others[..kept];
        let ray = self.rays.get(from, dir);
        let length = ray
            .iter()
            .position(|c| others.contains(c))
            .unwrap_or(ray.len());
        let path = &ray[..length];
        let Some(&end) = path.last() else {
            return;
        };
        let landed = |stop: Cell| {
            let mut moved = [0 as Cell; MAX_HELPERS];
            moved[..kept].copy_from_slice(others);
            moved[kept] = stop;
            moved[..=kept].sort_unstable();
            let rank = self.cells.rank(&moved[..=kept]);
            self.is_nonempty(rank).then(|| &self.frontier[rank])
        };
        // Target robot off the path: the helper slides to the end.
        if let Some(layer) = landed(end) {
            *pulled = or(pulled, &minus(layer, &mask_of(path)));
        }
        // Target robot on the path (not its first cell, which stops the helper at once):
        // the helper stops just before it. Only cells still to be reached are looked up.
        for pair in path.windows(2) {
            let (stop, robot) = (pair[0], pair[1]);
            if has(candidates, robot)
                && !has(pulled, robot)
                && landed(stop).is_some_and(|l| has(l, robot))
            {
                set(pulled, robot);
            }
        }
    }
}
