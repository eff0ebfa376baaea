//! The steps [`Walks::new`] lays a board's walks out by: the straight runs a line at a
//! time, then the chains and cycles of the steps the mirrors bend (for the robot every
//! mirror turns, and again for each colour where its own mirrors let it pass).
use super::{Mirror, Span, Step, StepSet, Walks, NO_STEP, STEPS, STEP_OFFSET, STEP_WORDS};
use crate::board::{Board, Cell, Direction, CELLS, GRID};
use crate::puzzle::Colour;
use crate::solver::{contains, insert, CellSet};
use std::hint::select_unpredictable;

/// What [`Walks::lay_out`] works in: by step, where it leads and a chain being followed,
/// each written before it is read, so that one serves every layout of a board; and the
/// chains' steps in the order laid out, with where each chain lies there.
pub(super) struct Scratch {
    next: [u16; STEPS],
    chain: [u16; STEPS],
    order: Vec<u16>,
    chains: Vec<std::ops::Range<usize>>,
}

impl Scratch {
    pub(super) fn new() -> Scratch {
        Scratch {
            next: [NO_STEP; STEPS],
            chain: [0; STEPS],
            order: Vec::with_capacity(STEPS),
            chains: Vec::with_capacity(STEPS),
        }
    }

    /// The steps of each chain laid out so far, by its index: the first layout's chains
    /// keep theirs as later layouts add to the list.
    pub(super) fn chains(&self) -> impl Iterator<Item = &[u16]> + '_ {
        self.chains.iter().map(|range| &self.order[range.clone()])
    }

    /// The steps of chain `index`.
    pub(super) fn chain(&self, index: usize) -> &[u16] {
        &self.order[self.chains[index].clone()]
    }
}

/// By cell, how a mirror there turns the robot whose walks are laid out: 0 not at all
/// (none there, or one of its colour), 1 one leaning left, 2 one leaning right.
pub(super) type Turns = [u8; CELLS];
/// By a cell's turn ([`Turns`]) and a direction's index, the index of the direction a
/// robot leaves that cell in.
const TURNED: [[u8; 4]; 3] = {
    let mut table = [[0, 1, 2, 3]; 3];
    let mut dir = 0;
    while dir < 4 {
        let mut lean = 1;
        while lean < 3 {
            let mirror = Mirror {
                leans_left: lean == 1,
                colour: Colour::Red,
            };
            table[lean][dir] = mirror.turn(Direction::ALL[dir]) as u8;
            lean += 1;
        }
        dir += 1;
    }
    table
};

/// The steps of `set`, in order.
fn members(set: &StepSet) -> impl Iterator<Item = Step> + '_ {
    (set.iter().enumerate()).flat_map(|(w, &word)| {
        std::iter::successors((word != 0).then_some(word), |&rest| {
            let rest = rest & (rest - 1);
            (rest != 0).then_some(rest)
        })
        .map(move |rest| w * 64 + rest.trailing_zeros() as usize)
    })
}

impl Walks {
    /// Where a robot that leaves `step` steps next (`NO_STEP`: a wall is in the way), the
    /// mirrors that turn it as `turns` gives them. Selected, not branched on.
    fn step_after(board: &Board, turns: &Turns, step: Step) -> u16 {
        // A cell's walls include the board's edges: an open side has a neighbour.
        let (cell, dir) = ((step / 4) as Cell, step % 4);
        let open = !board.has_wall(cell, Direction::ALL[dir]);
        let to = usize::from(cell).wrapping_add_signed(STEP_OFFSET[dir]) % CELLS;
        let onward = TURNED[usize::from(turns[to])][dir];
        select_unpredictable(open, (to * 4 + usize::from(onward)) as u16, NO_STEP)
    }

    /// Lays out the chains and cycles of the steps in `steps` (a set that every step leads
    /// into and out of within) of a robot the mirrors turn as `turns` gives them, whose
    /// walks are indexed from `first`. Adds each chain's steps to `scratch.order`, and
    /// where they lie there to `scratch.chains`.
    pub(super) fn lay_out(
        &mut self,
        board: &Board,
        turns: &Turns,
        steps: &StepSet,
        first: usize,
        scratch: &mut Scratch,
    ) {
        let Scratch {
            next,
            chain,
            order,
            chains,
        } = scratch;
        let mut led_to = [0u64; STEP_WORDS + 1];
        for step in members(steps) {
            let onward = Self::step_after(board, turns, step);
            next[step] = onward;
            // No step is led to by a wall: its bit goes to a word past the set's.
            let word =
                select_unpredictable(onward == NO_STEP, STEP_WORDS, usize::from(onward) / 64);
            led_to[word] |= 1 << (onward % 64);
        }
        // Chains first, from each step nothing leads to; what is left lies on cycles.
        let heads: StepSet = std::array::from_fn(|w| steps[w] & !led_to[w]);
        let mut left = *steps;
        let mut lay_out_from = |walks: &mut Walks, head: Step, cycle: bool, left: &mut StepSet| {
            let (mut length, mut step) = (0, head);
            loop {
                chain[length] = step as u16;
                length += 1;
                left[step / 64] &= !(1 << (step % 64));
                step = match next[step] {
                    NO_STEP => break,
                    following => usize::from(following),
                };
                if step == head {
                    break;
                }
            }
            let chain = &chain[..length];
            walks.lay_out_chain(chain, cycle, first);
            chains.push(order.len()..order.len() + length);
            order.extend_from_slice(chain);
        };
        for head in members(&heads) {
            lay_out_from(self, head, false, &mut left);
        }
        loop {
            let Some(head) = members(&left).next() else {
                break;
            };
            lay_out_from(self, head, true, &mut left);
        }
    }

    /// Lays out the straight runs: the steps of every wall-bounded run of a row or column,
    /// in one direction, that holds no cell of `turning` (the mirrors that turn the robot
    /// laid out). Such a run is a chain of its own: nothing turns into it or out of it.
    /// Its cells lie in the first [`STEPS`] of `cells`, every line in every direction in
    /// order, so that they need no gathering. Gives the steps left: those of the runs that
    /// meet a turning mirror (a set that every step leads into and out of within), whose
    /// walks `lay_out` then writes over the straight ones written here.
    ///
    /// Every line is filled the same way whatever its walls, its choices selected rather
    /// than branched on: a board seen once has walls no branch predictor has learnt.
    pub(super) fn lay_out_straight(&mut self, board: &Board, turning: &CellSet) -> StepSet {
        debug_assert!(self.cells.is_empty());
        let mut bent = [0u64; STEP_WORDS];
        let (mut straight, mut bent_cells) = ([[0u64; 4]; 4], [[0u64; 4]; 4]);
        for dir in Direction::ALL {
            for line in 0..GRID {
                let line_start = self.cells.len();
                let cells: [Cell; GRID] = std::array::from_fn(|k| {
                    let (row, column) = match dir {
                        Direction::North => (GRID - 1 - k, line),
                        Direction::East => (line, k),
                        Direction::South => (k, line),
                        Direction::West => (line, GRID - 1 - k),
                    };
                    (row * GRID + column) as Cell
                });
                self.cells.extend_from_slice(&cells);
                // A slide that way stops at `k` when a wall is past it; the board's edges
                // are walls, so every run ends within its line.
                let stops: [bool; GRID] = std::array::from_fn(|k| board.has_wall(cells[k], dir));
                debug_assert!(stops[GRID - 1]);
                // Forward: where each cell's run starts, and whether it met a turning
                // mirror up to that cell.
                let (mut starts, mut turned) = ([0u8; GRID], [false; GRID]);
                let (mut start, mut turns) = (0, false);
                for k in 0..GRID {
                    let fresh = k > 0 && stops[k - 1];
                    start = select_unpredictable(fresh, k as u8, start);
                    turns = (turns && !fresh) | contains(turning, cells[k]);
                    (starts[k], turned[k]) = (start, turns);
                }
                // Backward: each step's walk, the cells after it up to its run's end.
                let (mut end, mut bends, mut onward) = (GRID - 1, false, [0u64; 4]);
                for k in (0..GRID).rev() {
                    let cell = cells[k];
                    end = select_unpredictable(stops[k], k, end);
                    bends = select_unpredictable(stops[k], turned[k], bends);
                    onward = select_unpredictable(stops[k], [0; 4], onward);
                    let step = usize::from(cell) * 4 + dir as usize;
                    self.spans[step] = Span {
                        begin: (line_start + k + 1) as u16,
                        length: (end - k) as u16,
                        chain: (line_start + usize::from(starts[k])) as u16,
                        loops: false,
                    };
                    self.masks[step] = onward;
                    self.ends[step] = cells[end];
                    bent[step / 64] |= u64::from(bends) << (step % 64);
                    bent_cells[dir as usize][usize::from(cell) / 64] |=
                        u64::from(bends) << (cell % 64);
                    let runs_on = !bends && k < end;
                    straight[dir as usize][usize::from(cell) / 64] |=
                        u64::from(runs_on) << (cell % 64);
                    // Word by word, so that the set stays in registers.
                    let (word, bit) = (usize::from(cell) / 64, cell % 64);
                    for (w, onward) in onward.iter_mut().enumerate() {
                        *onward |= u64::from(w == word) << bit;
                    }
                }
            }
        }
        (self.straight, self.bent) = (straight, bent_cells);
        bent
    }

    /// Lays out one chain of steps (a cycle when `cycle`, its last step leading to its
    /// first).
    fn lay_out_chain(&mut self, chain: &[u16], cycle: bool, first: usize) {
        let begin = self.cells.len();
        // A layout puts each step at most twice (a cycle's), after the straight runs'
        // stretch: 13,312 cells for the robot every mirror turns and five colours, so that
        // a span's positions fit in 16 bits.
        debug_assert!(begin + 2 * chain.len() < usize::from(u16::MAX));
        let cell_of = |step: u16| (step / 4) as Cell;
        let copies = if cycle { 2 } else { 1 };
        for _ in 0..copies {
            self.cells.extend(chain.iter().map(|&step| cell_of(step)));
        }
        self.fill_chain(chain, cycle, first, begin);
    }

    /// The walks of the steps of `chain`, whose cells lie in `cells` from `begin`.
    fn fill_chain(&mut self, chain: &[u16], cycle: bool, first: usize, begin: usize) {
        let cell_of = |step: u16| (step / 4) as Cell;
        let length = chain.len();
        let last = cell_of(chain[length - 1]);
        let mut cycle_mask = [0u64; 4];
        if cycle {
            chain
                .iter()
                .for_each(|&step| insert(&mut cycle_mask, cell_of(step)));
        }
        let mut onward = [0u64; 4];
        for (k, &step) in chain.iter().enumerate().rev() {
            let i = first + usize::from(step);
            let start = cell_of(step);
            if cycle {
                // Its walk is the cycle's next `length` cells, back to itself.
                self.spans[i] = Span {
                    begin: (begin + k + 1) as u16,
                    length: length as u16,
                    chain: begin as u16,
                    loops: true,
                };
                self.masks[i] = cycle_mask;
                self.ends[i] = start;
            } else {
                self.spans[i] = Span {
                    begin: (begin + k + 1) as u16,
                    length: (length - k - 1) as u16,
                    chain: begin as u16,
                    loops: false,
                };
                self.masks[i] = onward;
                self.ends[i] = self.stop(start, last);
                // Word by word, so that the set stays in registers.
                let (word, bit) = (start as usize / 64, start % 64);
                for (w, onward) in onward.iter_mut().enumerate() {
                    *onward |= u64::from(w == word) << bit;
                }
            }
        }
    }
}
