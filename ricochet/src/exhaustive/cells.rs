//! The free cells of a board, the colex ranking of helper sets over them, and each cell's
//! slide paths with no robot in the way.

use crate::board::{Board, Cell, Direction, CELLS, GRID};

use super::MAX_HELPERS;

/// A helper set: ascending cells, the first `k` slots used.
pub type Set = [Cell; MAX_HELPERS];

/// The free cells of a board and the colex ranking of helper sets over them.
pub struct Cells {
    /// Free cells in order; a helper set is a set of indices into this list.
    pub free: Vec<Cell>,
    /// `index[cell]`: the cell's position in `free`.
    index: [u16; CELLS],
    /// `binomial[n][k]` for n ≤ free cells, k ≤ MAX_HELPERS.
    binomial: Vec<[u64; MAX_HELPERS + 1]>,
}

impl Cells {
    pub fn new(board: &Board) -> Cells {
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

    pub fn is_free(&self, cell: Cell) -> bool {
        self.index[cell as usize] != u16::MAX
    }

    /// How many sets of `k` free cells there are.
    pub fn sets_of(&self, k: usize) -> usize {
        self.binomial[self.free.len()][k] as usize
    }

    /// How many placements of a target robot and `k` helpers there are.
    pub fn placements(&self, k: usize) -> u64 {
        self.free.len() as u64 * self.binomial[self.free.len().saturating_sub(1)][k]
    }

    /// `C(i, k)`: what the free cell of index `i` adds to the rank as a set's `k`-th cell.
    pub fn rank_term(&self, i: usize, k: usize) -> usize {
        self.binomial[i][k] as usize
    }

    /// The colex rank of a helper set given as ascending free cells.
    #[inline(always)]
    pub fn rank(&self, helpers: &[Cell]) -> usize {
        helpers
            .iter()
            .enumerate()
            .map(|(k, &cell)| self.binomial[self.index[cell as usize] as usize][k + 1])
            .sum::<u64>() as usize
    }

    /// Every helper set of `k` cells, in rank order.
    pub fn sets(&self, k: usize) -> Vec<Set> {
        let mut sets = Vec::with_capacity(self.sets_of(k));
        let mut chosen = [0usize; MAX_HELPERS];
        for (i, slot) in chosen.iter_mut().enumerate().take(k) {
            *slot = i;
        }
        if k > self.free.len() {
            return sets;
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

/// A slide path: the cells a robot passes, in order, until a wall stops it.
#[derive(Clone, Copy)]
pub struct Ray {
    cells: [Cell; GRID - 1],
    len: u8,
}

impl Ray {
    pub fn cells(&self) -> &[Cell] {
        &self.cells[..self.len as usize]
    }
}

/// Every free cell's four slide paths on the empty board.
pub struct Rays(Vec<[Ray; 4]>);

impl Rays {
    pub fn new(board: &Board) -> Rays {
        let empty = Ray {
            cells: [0; GRID - 1],
            len: 0,
        };
        let mut rays = vec![[empty; 4]; CELLS];
        for cell in 0..CELLS {
            let cell = cell as Cell;
            if board.is_blocked(cell) {
                continue;
            }
            for dir in Direction::ALL {
                let ray = &mut rays[cell as usize][dir as usize];
                let mut at = cell;
                while let Some(next) = board.step_open(at, dir).filter(|&n| !board.is_blocked(n)) {
                    ray.cells[ray.len as usize] = next;
                    ray.len += 1;
                    at = next;
                }
            }
        }
        Rays(rays)
    }

    pub fn get(&self, cell: Cell, dir: Direction) -> &[Cell] {
        self.0[cell as usize][dir as usize].cells()
    }
}
