//! The free cells of a board, the colex ranking of helper sets over them, and each cell's
//! slide paths on the empty board.

use crate::board::{Board, Cell, Direction, CELLS};

use super::block::{set, Block, EMPTY};

use super::{Finisher, MAX_HELPERS};

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
    /// `terms[k][cell]`: what `cell` adds to a set's rank as its `k`-th smallest (from 0),
    /// `C(index, k + 1)`, looked up by cell in one step.
    terms: [[u32; CELLS]; MAX_HELPERS],
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
        let mut terms = [[0u32; CELLS]; MAX_HELPERS];
        for (k, row) in terms.iter_mut().enumerate() {
            for (i, &cell) in free.iter().enumerate() {
                row[cell as usize] =
                    u32::try_from(binomial[i][k + 1]).expect("C(256, 3) ranks fit 32 bits");
            }
        }
        Cells {
            free,
            index,
            binomial,
            terms,
        }
    }

    pub fn is_free(&self, cell: Cell) -> bool {
        self.index[cell as usize] != u16::MAX
    }

    /// How many sets of `k` free cells there are.
    pub fn sets_of(&self, k: usize) -> usize {
        self.binomial[self.free.len()][k] as usize
    }

    /// How many placements of a target robot and `k` helpers there are: as sets of
    /// `k + 1` cells when any robot finishes (n·C(n−1, k) = (k+1)·C(n, k+1)).
    pub fn placements(&self, k: usize, finisher: Finisher) -> u64 {
        let ordered = self.free.len() as u64 * self.binomial[self.free.len().saturating_sub(1)][k];
        match finisher {
            Finisher::TargetRobot => ordered,
            Finisher::AnyRobot => ordered / (k as u64 + 1),
        }
    }

    /// `C(i, k)`: what the free cell of index `i` adds to the rank as a set's `k`-th cell.
    pub fn rank_term(&self, i: usize, k: usize) -> usize {
        self.binomial[i][k] as usize
    }

    /// What `cell` adds to a set's rank as its `k`-th smallest cell (from 0).
    #[inline(always)]
    pub fn term(&self, k: usize, cell: Cell) -> usize {
        self.terms[k][cell as usize] as usize
    }

    /// The colex rank of a helper set given as ascending free cells.
    #[inline(always)]
    pub fn rank(&self, helpers: &[Cell]) -> usize {
        helpers
            .iter()
            .enumerate()
            .map(|(k, &cell)| self.terms[k][cell as usize] as usize)
            .sum()
    }

    /// The colex rank of the ascending free cells `others` plus `cell` (not among them).
    #[inline(always)]
    pub fn rank_with(&self, others: &[Cell], cell: Cell) -> usize {
        let mut rank = 0;
        let mut below = 0;
        for (k, &other) in others.iter().enumerate() {
            let above = usize::from(other > cell);
            rank += self.terms[k + above][other as usize] as usize;
            below += 1 - above;
        }
        rank + self.terms[below][cell as usize] as usize
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

/// Every free cell's slide paths on the empty board, as cell sets.
pub struct Rays {
    /// `masks[cell][dir]`: the cells a robot passes sliding from `cell` in `dir`.
    masks: Vec<[Block; 4]>,
    /// `last[cell][dir]`: where that slide ends (`cell` itself when it cannot move).
    last: Vec<[Cell; 4]>,
    /// `next[cell][dir]`: the cell one step in `dir`, walls or not, or `cell` itself on
    /// the edge (a helper's own cell is in none of its set's blocks, so it reads as empty).
    next: Vec<[Cell; 4]>,
}

impl Rays {
    pub fn new(board: &Board) -> Rays {
        let mut masks = vec![[EMPTY; 4]; CELLS];
        let mut last = vec![[0 as Cell; 4]; CELLS];
        for cell in 0..CELLS {
            let cell = cell as Cell;
            for dir in Direction::ALL {
                let mut at = cell;
                if !board.is_blocked(cell) {
                    while let Some(next) =
                        board.step_open(at, dir).filter(|&n| !board.is_blocked(n))
                    {
                        set(&mut masks[cell as usize][dir as usize], next);
                        at = next;
                    }
                }
                last[cell as usize][dir as usize] = at;
            }
        }
        let next = (0..CELLS)
            .map(|cell| Direction::ALL.map(|dir| dir.step(cell as Cell).unwrap_or(cell as Cell)))
            .collect();
        Rays { masks, last, next }
    }

    #[inline(always)]
    pub fn next(&self, cell: Cell, dir: Direction) -> Cell {
        self.next[cell as usize][dir as usize]
    }

    #[inline(always)]
    pub fn mask(&self, cell: Cell, dir: Direction) -> &Block {
        &self.masks[cell as usize][dir as usize]
    }

    #[inline(always)]
    pub fn last(&self, cell: Cell, dir: Direction) -> Cell {
        self.last[cell as usize][dir as usize]
    }
}
