//! 256-bit sets of internal cells and the whole-block target-robot moves.
//!
//! A block holds one bit per cell of the internal 16×16 grid. Sliding every robot of a
//! block at once is a shift; a slide of any length is an occluded fill (Kogge–Stone: four
//! doubling rounds instead of up to fifteen single steps).

use crate::board::{Board, Cell, Direction, CELLS, GRID};

/// A 256-bit set of internal cells.
pub type Block = [u64; 4];

pub const EMPTY: Block = [0; 4];

pub fn set(block: &mut Block, cell: Cell) {
    block[cell as usize / 64] |= 1 << (cell as usize % 64);
}

pub fn has(block: &Block, cell: Cell) -> bool {
    block[cell as usize / 64] >> (cell as usize % 64) & 1 != 0
}

#[inline(always)]
pub fn and(a: &Block, b: &Block) -> Block {
    [a[0] & b[0], a[1] & b[1], a[2] & b[2], a[3] & b[3]]
}

#[inline(always)]
pub fn or(a: &Block, b: &Block) -> Block {
    [a[0] | b[0], a[1] | b[1], a[2] | b[2], a[3] | b[3]]
}

/// `a` without the cells of `b`.
#[inline(always)]
pub fn minus(a: &Block, b: &Block) -> Block {
    [a[0] & !b[0], a[1] & !b[1], a[2] & !b[2], a[3] & !b[3]]
}

/// The cells below `cell`.
pub fn below(cell: Cell) -> Block {
    std::array::from_fn(|word| {
        let first = word * 64;
        match (cell as usize).saturating_sub(first) {
            0 => 0,
            n if n >= 64 => u64::MAX,
            n => (1u64 << n) - 1,
        }
    })
}

/// The block of `cells`.
pub fn mask_of(cells: &[Cell]) -> Block {
    let mut mask = EMPTY;
    for &cell in cells {
        set(&mut mask, cell);
    }
    mask
}

pub fn count(a: &Block) -> u64 {
    a.iter().map(|w| u64::from(w.count_ones())).sum()
}

/// The cells of a block in ascending order.
pub fn cells(block: &Block) -> impl Iterator<Item = Cell> + '_ {
    block.iter().enumerate().flat_map(|(word, &bits)| {
        let mut rest = bits;
        std::iter::from_fn(move || {
            (rest != 0).then(|| {
                let bit = rest.trailing_zeros();
                rest &= rest - 1;
                (word * 64 + bit as usize) as Cell
            })
        })
    })
}

/// Bit `c` moves to bit `c + by` (bits leaving the 256 are dropped).
#[inline(always)]
pub(crate) fn shift_by(block: &Block, by: i32) -> Block {
    let mut out = [0u64; 4];
    let (words, bits) = (by.unsigned_abs() as usize / 64, by.unsigned_abs() % 64);
    for (i, slot) in out.iter_mut().enumerate() {
        *slot = if by >= 0 {
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

/// Moves every cell of a block one step in `dir` (callers mask what wraps a row). One
/// branch picks a shift by a constant: a shift by an amount known only at run time costs
/// several times as many instructions.
#[inline(always)]
pub fn shift(block: &Block, dir: Direction) -> Block {
    match dir {
        Direction::North => shift_by(block, step(Direction::North)),
        Direction::South => shift_by(block, step(Direction::South)),
        Direction::East => shift_by(block, step(Direction::East)),
        Direction::West => shift_by(block, step(Direction::West)),
    }
}

/// The bit offset of one step in `dir` on the internal grid.
const fn step(dir: Direction) -> i32 {
    match dir {
        Direction::North => -(GRID as i32),
        Direction::South => GRID as i32,
        Direction::East => 1,
        Direction::West => -1,
    }
}

/// Per-board masks for the whole-block target-robot moves.
pub struct Moves {
    /// `open[d]`: cells with no wall in direction `d` (towards a free cell). Cells on an
    /// edge are never open towards it, so shifts cannot wrap from one row to the next.
    open: [Block; 4],
    /// Cells a robot may stand on.
    pub free: Block,
}

impl Moves {
    pub fn new(board: &Board) -> Moves {
        let mut open = [EMPTY; 4];
        let mut free = EMPTY;
        for cell in 0..CELLS {
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
    #[inline(always)]
    pub fn pull(&self, helpers: &Block, reached: &Block, dir: Direction) -> Block {
        // Each direction compiled with its shifts by constants (see `shift`).
        match dir {
            Direction::North => self.pull_by::<{ step(Direction::North) }>(helpers, reached, dir),
            Direction::South => self.pull_by::<{ step(Direction::South) }>(helpers, reached, dir),
            Direction::East => self.pull_by::<{ step(Direction::East) }>(helpers, reached, dir),
            Direction::West => self.pull_west(helpers, reached),
        }
    }

    /// [`Moves::pull`] westwards, where the fill runs towards higher bits: there an
    /// addition carries a stop's run of open cells in one step instead of four doubling
    /// rounds. No run crosses a word: a word is four whole rows, and a row's first cell
    /// is never open towards the west.
    #[inline(always)]
    fn pull_west(&self, helpers: &Block, reached: &Block) -> Block {
        let open = &self.open[Direction::West as usize];
        std::array::from_fn(|w| {
            let can = open[w] & !(helpers[w] << 1);
            let starts = (reached[w] & !can) << 1 & can;
            // Adding a run's first cell clears the run and sets the cell past it.
            (can.wrapping_add(starts) ^ can) & can & !helpers[w]
        })
    }

    #[inline(always)]
    fn pull_by<const FORWARD: i32>(
        &self,
        helpers: &Block,
        reached: &Block,
        dir: Direction,
    ) -> Block {
        let forward = FORWARD;
        // A cell can step on when no wall and no helper is in the way.
        let mut can = minus(&self.open[dir as usize], &shift_by(helpers, -forward));
        let stops = minus(reached, &can);
        // Fill backwards from each stop through cells that can step towards it: after
        // round k, `can` holds the cells with 2^k open steps ahead.
        let mut pulled = and(&shift_by(&stops, -forward), &can);
        for round in 0..4 {
            let by = -forward << round;
            pulled = or(&pulled, &and(&can, &shift_by(&pulled, by)));
            if round < 3 {
                can = and(&can, &shift_by(&can, by));
            }
        }
        minus(&pulled, helpers)
    }
}
