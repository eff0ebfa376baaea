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
//! once with shifts; a helper's move reads one other block, with the cells on its path
//! (where the target robot would stop it early) taken one by one.

use crate::board::{Board, Cell, Direction, CELLS, GRID};
use rayon::prelude::*;

/// The most helpers a unit may have (four robots in all).
pub const MAX_HELPERS: usize = 3;

/// A 256-bit set of internal cells.
type Block = [u64; 4];

/// One placement: the target robot's cell and the helpers' cells (ascending).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Placement {
    pub target_robot: Cell,
    pub helpers: Vec<Cell>,
}

/// What the analysis of one unit finds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// Every placement counted once.
    pub placements: u64,
    /// `histogram[d]`: placements needing `d` moves (`histogram[0]` is always 0).
    pub histogram: Vec<u64>,
    /// The same over legal placements: no robot on a forbidden cell.
    pub legal_histogram: Vec<u64>,
    /// Placements from which the target cannot be reached at all.
    pub unsolvable: u64,
    /// The most moves any solvable placement needs (0 if none is solvable).
    pub max_moves: u8,
    /// Every placement needing `max_moves`, in (helper set, cell) order.
    pub hardest: Vec<Placement>,
    /// The sampled placements with their move counts (`None`: unsolvable).
    pub sample: Vec<(Placement, Option<u8>)>,
}

/// Why a unit cannot be analysed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnitError {
    #[error("a unit has 1 to {MAX_HELPERS} helpers, not {0}")]
    Helpers(usize),
    #[error("the target cell {0} is not a cell a robot may stand on")]
    Target(Cell),
}

/// The free cells of a board and the colex ranking of helper sets over them.
struct Cells {
    /// Free cells in order; a helper set is a set of indices into this list.
    free: Vec<Cell>,
    /// `index[cell]`: the cell's position in `free`.
    index: [u16; CELLS],
    /// `binomial[n][k]` for n ≤ free cells, k ≤ MAX_HELPERS.
    binomial: Vec<[u64; MAX_HELPERS + 1]>,
}

impl Cells {
    fn new(board: &Board) -> Cells {
        let free: Vec<Cell> = (0..CELLS)
            .map(|c| c as Cell)
            .filter(|&c| !board.is_blocked(c))
            .collect();
        let mut index = [u16::MAX; CELLS];
        for (i, &cell) in free.iter().enumerate() {
            index[cell as usize] = i as u16;
        }
        let mut binomial = vec![[0u64; MAX_HELPERS + 1]; free.len() + 1];
        for n in 0..=free.len() {
            binomial[n][0] = 1;
            for k in 1..=MAX_HELPERS {
                binomial[n][k] = if n == 0 {
                    0
                } else {
                    binomial[n - 1][k - 1] + binomial[n - 1][k]
                };
            }
        }
        Cells {
            free,
            index,
            binomial,
        }
    }

    /// The colex rank of a helper set given as ascending cells.
    fn rank(&self, helpers: &[Cell]) -> usize {
        helpers
            .iter()
            .enumerate()
            .map(|(k, &cell)| self.binomial[self.index[cell as usize] as usize][k + 1])
            .sum::<u64>() as usize
    }

    /// Every helper set of `k` cells, in rank order.
    fn sets(&self, k: usize) -> Vec<[Cell; MAX_HELPERS]> {
        let mut sets = Vec::with_capacity(self.binomial[self.free.len()][k] as usize);
        let mut chosen = [0usize; MAX_HELPERS];
        for (i, slot) in chosen.iter_mut().enumerate().take(k) {
            *slot = i;
        }
        loop {
            let mut set = [0 as Cell; MAX_HELPERS];
            for i in 0..k {
                set[i] = self.free[chosen[i]];
            }
            sets.push(set);
            // Colex successor: raise the lowest index that can rise, reset those below.
            let Some(i) = (0..k).find(|&i| {
                let limit = if i + 1 < k {
                    chosen[i + 1]
                } else {
                    self.free.len()
                };
                chosen[i] + 1 < limit
            }) else {
                return sets;
            };
            chosen[i] += 1;
            for (j, slot) in chosen.iter_mut().enumerate().take(i) {
                *slot = j;
            }
        }
    }
}

/// Per-board masks for the whole-block target-robot moves.
struct Moves {
    /// `open[d]`: cells with no wall in direction `d` (towards a free cell).
    open: [Block; 4],
    free: Block,
}

impl Moves {
    fn new(board: &Board) -> Moves {
        let mut open = [[0u64; 4]; 4];
        let mut free = [0u64; 4];
        for cell in 0..CELLS as u16 {
            let cell = cell as Cell;
            if board.is_blocked(cell) {
                continue;
            }
            set(&mut free, cell);
            for dir in Direction::ALL {
                if board
                    .step_open(cell, dir)
                    .is_some_and(|n| !board.is_blocked(n))
                {
                    set(&mut open[dir as usize], cell);
                }
            }
        }
        Moves { open, free }
    }

    /// The target-robot cells of a block whose slide in `dir` (helpers at `helpers`)
    /// ends on a cell of `reached`.
    fn pull(&self, helpers: &Block, reached: &Block, dir: Direction) -> Block {
        // A cell can step on when no wall and no helper is in the way.
        let back = |b: &Block| shift(b, dir.opposite());
        let blocked_ahead = back(helpers);
        let can = and(&self.open[dir as usize], &not(&blocked_ahead));
        let stops = and(reached, &not(&can));
        // Walk back from each stop along cells that can step towards it.
        let mut pulled = and(&back(&stops), &can);
        loop {
            let more = or(&pulled, &and(&back(&pulled), &can));
            if more == pulled {
                break;
            }
            pulled = more;
        }
        and(&pulled, &and(&self.free, &not(helpers)))
    }
}

fn set(block: &mut Block, cell: Cell) {
    block[cell as usize / 64] |= 1 << (cell as usize % 64);
}

fn has(block: &Block, cell: Cell) -> bool {
    block[cell as usize / 64] >> (cell as usize % 64) & 1 != 0
}

fn and(a: &Block, b: &Block) -> Block {
    [a[0] & b[0], a[1] & b[1], a[2] & b[2], a[3] & b[3]]
}

fn or(a: &Block, b: &Block) -> Block {
    [a[0] | b[0], a[1] | b[1], a[2] | b[2], a[3] | b[3]]
}

fn not(a: &Block) -> Block {
    [!a[0], !a[1], !a[2], !a[3]]
}

fn count(a: &Block) -> u64 {
    a.iter().map(|w| u64::from(w.count_ones())).sum()
}

/// Moves every cell of `block` one step in `dir` on the internal grid (bits leaving a row
/// or the grid are masked by the callers' wall masks).
fn shift(block: &Block, dir: Direction) -> Block {
    let bits = match dir {
        Direction::North => -(GRID as i32),
        Direction::South => GRID as i32,
        Direction::East => 1,
        Direction::West => -1,
    };
    shift_by(block, bits)
}

/// Bit `c` moves to bit `c + by`.
fn shift_by(block: &Block, by: i32) -> Block {
    let mut out = [0u64; 4];
    let (words, bits) = (by.unsigned_abs() as usize / 64, by.unsigned_abs() % 64);
    for i in 0..4 {
        out[i] = if by >= 0 {
            let from = i.checked_sub(words);
            let low = from.map_or(0, |f| block[f] << bits);
            let carry = if bits == 0 {
                0
            } else {
                from.and_then(|f| f.checked_sub(1))
                    .map_or(0, |f| block[f] >> (64 - bits))
            };
            low | carry
        } else {
            let from = i + words;
            let high = if from < 4 { block[from] >> bits } else { 0 };
            let carry = if bits == 0 || from + 1 >= 4 {
                0
            } else {
                block[from + 1] << (64 - bits)
            };
            high | carry
        };
    }
    out
}

/// What to collect besides the histograms.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Cells no robot may stand on in a legal placement (e.g. the board's targets).
    pub forbidden: Vec<Cell>,
    /// Every `sample_stride`-th helper set (by rank) gives one sampled placement; 0: none.
    pub sample_stride: usize,
}

/// Analyses every placement of a target robot and `helpers` interchangeable helpers on
/// `board` for the target at `target` (internal cell). Runs on the current rayon pool.
pub fn analyse(
    board: &Board,
    target: Cell,
    helpers: usize,
    options: &Options,
) -> Result<Analysis, UnitError> {
    if !(1..=MAX_HELPERS).contains(&helpers) {
        return Err(UnitError::Helpers(helpers));
    }
    if board.is_blocked(target) {
        return Err(UnitError::Target(target));
    }
    let cells = Cells::new(board);
    let moves = Moves::new(board);
    let sets = cells.sets(helpers);
    let mut forbidden: Block = [0; 4];
    for &cell in &options.forbidden {
        set(&mut forbidden, cell);
    }
    let masks: Vec<Block> = sets
        .iter()
        .map(|set_cells| {
            let mut mask = [0u64; 4];
            for &cell in &set_cells[..helpers] {
                set(&mut mask, cell);
            }
            mask
        })
        .collect();
    let legal_set: Vec<bool> = masks.iter().map(|m| and(m, &forbidden) == [0; 4]).collect();
    let legal_cells = and(&moves.free, &not(&forbidden));
    let mut goal: Block = [0; 4];
    set(&mut goal, target);
    // Layer 1: one slide of the target robot onto the target, in any direction.
    let mut frontier: Vec<Block> = masks
        .par_iter()
        .map(|helpers| {
            if has(helpers, target) {
                return [0; 4];
            }
            Direction::ALL.iter().fold([0; 4], |layer, &dir| {
                or(&layer, &moves.pull(helpers, &goal, dir))
            })
        })
        .collect();
    let mut visited = frontier.clone();
    let sample: Vec<(usize, Cell)> = if options.sample_stride == 0 {
        Vec::new()
    } else {
        (0..sets.len())
            .step_by(options.sample_stride)
            .filter_map(|rank| {
                let open = and(&moves.free, &not(&masks[rank]));
                // A cell spread over the board by rank: deterministic and varied.
                let cells: Vec<Cell> = (0..CELLS as u16)
                    .map(|c| c as Cell)
                    .filter(|&c| has(&open, c))
                    .collect();
                cells.get(rank % cells.len().max(1)).map(|&c| (rank, c))
            })
            .collect()
    };
    let mut sample_depth: Vec<Option<u8>> = vec![None; sample.len()];
    let mut histogram = vec![0u64];
    let mut legal_histogram = vec![0u64];
    let mut depth: u8 = 1;
    loop {
        let (all, legal) = frontier
            .par_iter()
            .zip(&legal_set)
            .map(|(layer, &legal)| {
                let legal = if legal {
                    count(&and(layer, &legal_cells))
                } else {
                    0
                };
                (count(layer), legal)
            })
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        if all == 0 {
            break;
        }
        histogram.push(all);
        legal_histogram.push(legal);
        for (found, &(rank, cell)) in sample_depth.iter_mut().zip(&sample) {
            if found.is_none() && has(&frontier[rank], cell) {
                *found = Some(depth);
            }
        }
        let next: Vec<Block> = (0..sets.len())
            .into_par_iter()
            .map(|rank| {
                let helpers_mask = &masks[rank];
                let open = and(&moves.free, &not(helpers_mask));
                let candidates = and(&open, &not(&visited[rank]));
                if candidates == [0; 4] {
                    return [0; 4];
                }
                let mut pulled = [0u64; 4];
                for dir in Direction::ALL {
                    pulled = or(&pulled, &moves.pull(helpers_mask, &frontier[rank], dir));
                }
                let set_cells = &sets[rank][..helpers];
                for moving in 0..helpers {
                    for dir in Direction::ALL {
                        pull_helper(
                            board,
                            &cells,
                            set_cells,
                            moving,
                            dir,
                            &frontier,
                            &mut pulled,
                        );
                    }
                }
                and(&pulled, &candidates)
            })
            .collect();
        if next.iter().all(|b| *b == [0; 4]) {
            break;
        }
        visited
            .par_iter_mut()
            .zip(&next)
            .for_each(|(seen, new)| *seen = or(seen, new));
        frontier = next;
        depth += 1;
    }
    let max_moves = (histogram.len() - 1) as u8;
    let hardest = if max_moves == 0 {
        Vec::new()
    } else {
        frontier
            .iter()
            .enumerate()
            .flat_map(|(rank, layer)| {
                let helpers_cells = sets[rank][..helpers].to_vec();
                (0..CELLS as u16)
                    .map(|c| c as Cell)
                    .filter(|&c| has(layer, c))
                    .map(move |c| Placement {
                        target_robot: c,
                        helpers: helpers_cells.clone(),
                    })
            })
            .collect()
    };
    let placements = cells.free.len() as u64 * cells.binomial[cells.free.len() - 1][helpers];
    let solvable: u64 = histogram.iter().sum();
    Ok(Analysis {
        placements,
        histogram,
        legal_histogram,
        unsolvable: placements - solvable,
        max_moves,
        hardest,
        sample: sample
            .iter()
            .zip(sample_depth)
            .map(|(&(rank, cell), found)| {
                (
                    Placement {
                        target_robot: cell,
                        helpers: sets[rank][..helpers].to_vec(),
                    },
                    found,
                )
            })
            .collect(),
    })
}

/// Adds to `pulled` the target-robot cells from which helper `moving` of `helpers`,
/// sliding in `dir`, reaches a placement in `frontier`.
fn pull_helper(
    board: &Board,
    cells: &Cells,
    helpers: &[Cell],
    moving: usize,
    dir: Direction,
    frontier: &[Block],
    pulled: &mut Block,
) {
    let from = helpers[moving];
    // Fixed arrays, not vectors: this runs a dozen times per block and layer.
    let mut others = [0 as Cell; MAX_HELPERS];
    let kept = helpers.len() - 1;
    for (slot, &cell) in others
        .iter_mut()
        .zip(helpers.iter().filter(|&&c| c != from))
    {
        *slot = cell;
    }
    let others = &others[..kept];
    // The slide's cells with only the other helpers in the way.
    let mut cells_on_path = [0 as Cell; GRID];
    let mut length = 0;
    let mut at = from;
    while let Some(next) = board.step_open(at, dir) {
        if board.is_blocked(next) || others.contains(&next) {
            break;
        }
        cells_on_path[length] = next;
        length += 1;
        at = next;
    }
    let path = &cells_on_path[..length];
    let Some(&end) = path.last() else {
        return;
    };
    let landed = |stop: Cell| {
        let mut moved = [0 as Cell; MAX_HELPERS];
        moved[..kept].copy_from_slice(others);
        moved[kept] = stop;
        moved[..=kept].sort_unstable();
        &frontier[cells.rank(&moved[..=kept])]
    };
    // Target robot off the path: the helper slides to the end.
    let mut path_mask = [0u64; 4];
    for &cell in path {
        set(&mut path_mask, cell);
    }
    *pulled = or(pulled, &and(landed(end), &not(&path_mask)));
    // Target robot on the path (not its first cell, which stops the helper at once):
    // the helper stops just before it.
    for pair in path.windows(2) {
        let (stop, robot) = (pair[0], pair[1]);
        if has(landed(stop), robot) {
            set(pulled, robot);
        }
    }
}
