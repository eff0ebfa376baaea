//! Diagonal walls ("mirrors") of the game's second edition, as K. Cox's solver plays them.
//!
//! A mirror stands on a cell and has a colour. A robot of that colour passes through it;
//! any other robot is turned a quarter and slides on. No robot stops on a mirror cell: a
//! slide is a chain of straight legs, each ending at a wall, a robot or a turning mirror,
//! and the robot stops at the end of the first leg that is not a mirror cell. A leg that
//! cannot start (a wall or a robot right after a turn, or past a mirror it crossed) ends
//! the move where it is, and a move that would end on a mirror cell is no move at all.

use crate::board::{Board, Cell, Direction, CELLS, GRID};
use crate::exhaustive::block;
use crate::puzzle::Colour;
use crate::solver::{contains, insert, CellSet};
use std::hint::select_unpredictable;

mod bound;
mod routes;
pub(crate) use routes::Routes;

/// A diagonal wall: `\` leans left (its top on the left), `/` leans right.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mirror {
    pub leans_left: bool,
    /// The colour of the robot that passes through it.
    pub colour: Colour,
}

impl Mirror {
    /// The direction a robot moving in `dir` leaves the mirror in, when it is turned.
    pub const fn turn(self, dir: Direction) -> Direction {
        use Direction::*;
        match (dir, self.leans_left) {
            (North, true) | (South, false) => West,
            (North, false) | (South, true) => East,
            (East, true) | (West, false) => South,
            (East, false) | (West, true) => North,
        }
    }

    /// Its character in K. Cox's format: `\` or `/`.
    pub fn symbol(self) -> char {
        if self.leans_left {
            '\\'
        } else {
            '/'
        }
    }
}

/// Where robot `robot` at `robots[robot]` ends sliding in `dir` on a board with mirrors:
/// its own cell when the move is impossible.
pub fn slide(board: &Board, robots: &[Cell], robot: usize, dir: Direction) -> Cell {
    let start = robots[robot];
    let colour = Colour::ALL.get(robot).copied();
    let (mut at, mut dir) = (start, dir);
    // A chain of legs longer than every (cell, direction) pair loops for ever: no move.
    for _ in 0..CELLS * 4 {
        let leg_start = at;
        while let Some(next) = board.step_open(at, dir) {
            if next != start && robots.contains(&next) {
                break;
            }
            at = next;
            if let Some(mirror) = board.mirror(at) {
                if Some(mirror.colour) != colour {
                    dir = mirror.turn(dir);
                    break;
                }
            }
        }
        if at == leg_start {
            return start;
        }
        if board.mirror(at).is_none() {
            return at;
        }
    }
    start
}

/// Every slide's walk on a board with mirrors, worked out once: for each robot's colour,
/// cell and direction, the cells it passes with no robot about, so that a search slides
/// by scanning a list for the first robot instead of stepping through walls and mirrors.
/// [`Walks::slide`] is [`slide`], faster.
///
/// A walk is a chain of steps from one (cell, direction left in) to the next, and that
/// step is one-to-one: the step into a cell and the turn there tell where it came from.
/// So a colour's steps fall into disjoint chains (from a step nothing leads to, up to a
/// wall) and cycles, and the walk from a step is the rest of its chain. Each chain's
/// cells are laid out once, a cycle's twice over so that each of its walks is one span;
/// the straight runs (a row or column between walls, no mirror on it) lie in a fixed
/// first stretch, every line in every direction in order.
pub struct Walks {
    /// By (colour, cell, direction): where its walk's cells are in `cells`, and the
    /// steps that lead to it.
    spans: Vec<Span>,
    cells: Vec<Cell>,
    /// By (colour, cell, direction): the walk's cells as a bitset, and where it ends with
    /// no robot on it.
    masks: Vec<[u64; 4]>,
    ends: Vec<Cell>,
    /// The mirror cells, as a bitset (small enough to keep the walks inline).
    mirrors: [u64; 4],
    /// The colours (bits, by robot) some mirror has.
    mirror_colours: u8,
    /// By direction: the cells whose walk that way runs straight along a row or column
    /// (laid out in the fixed first stretch of `cells`) and goes on to the next cell; the
    /// bound fills such runs a line at a time. The same for every colour: a run that
    /// meets a mirror is laid out as a chain for every colour.
    straight: [CellSet; 4],
    /// By direction: the cells whose step that way lies on such a chain, for every colour;
    /// the bound reads the walks that lead to them off their chains.
    bent: [CellSet; 4],
}

/// Where a step's walk lies in [`Walks`]' cells: it starts at `begin`, the cell after the
/// step's own, and has `length` cells; `loops` where it comes back to a cell and direction
/// it took (then a robot that meets no other robot on it never stops: no move). The steps
/// that lead to it, the walks that pass it, are the cells from `chain` (its chain's first
/// cell) up to its own, the nearest last; a cycle's are the `length` cells from its own,
/// ending with itself.
#[derive(Clone, Copy, Default)]
struct Span {
    begin: u16,
    length: u16,
    chain: u16,
    loops: bool,
}

impl Span {
    /// The cells of the steps that lead to this one, as a range of `cells`.
    fn behind(self) -> std::ops::Range<usize> {
        let own = usize::from(self.begin) - 1;
        match self.loops {
            true => own..own + usize::from(self.length),
            false => usize::from(self.chain)..own,
        }
    }
}

/// What [`Walks::lay_out`] works in: by step, where it leads and a chain being followed,
/// each written before it is read, so that one serves every layout of a board; and the
/// chains' steps in the order laid out, with where each chain lies there.
struct Scratch {
    next: [u16; STEPS],
    chain: [u16; STEPS],
    order: Vec<u16>,
    chains: Vec<std::ops::Range<usize>>,
}

/// A (cell, direction) step as an index: `cell * 4 + direction`.
type Step = usize;
/// No step: where a wall ends a chain.
const NO_STEP: u16 = u16::MAX;
/// By cell, how a mirror there turns the robot whose walks are laid out: 0 not at all
/// (none there, or one of its colour), 1 one leaning left, 2 one leaning right.
type Turns = [u8; CELLS];
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
const STEPS: usize = CELLS * 4;
const STEP_WORDS: usize = STEPS / 64;
/// A set of steps, as a bitset.
type StepSet = [u64; STEP_WORDS];
/// What a step in each direction adds to a cell.
const STEP_OFFSET: [isize; 4] = [-(GRID as isize), 1, GRID as isize, -1];

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
    /// The walks of the first `colours` colours' robots on `board`.
    pub fn new(board: &Board, colours: usize) -> Walks {
        let count = colours * STEPS;
        // The mirror cells of each colour, and how each cell turns a robot that every
        // mirror turns, in one pass over the board.
        let mut own_mirrors = [[0u64; 4]; Colour::ALL.len()];
        let mut turns: Turns = [0; CELLS];
        for cell in (0..CELLS).map(|cell| cell as Cell) {
            if let Some(mirror) = board.mirror(cell) {
                insert(&mut own_mirrors[mirror.colour.robot()], cell);
                turns[usize::from(cell)] = 1 + u8::from(!mirror.leans_left);
            }
        }
        // The walks of a robot that every mirror turns; each colour's are a copy of them.
        let mut walks = Walks {
            spans: Vec::with_capacity(count),
            cells: Vec::with_capacity(count + STEPS),
            masks: Vec::with_capacity(count),
            ends: Vec::with_capacity(count),
            mirrors: std::array::from_fn(|w| own_mirrors.iter().fold(0, |all, m| all | m[w])),
            mirror_colours: (own_mirrors.iter().enumerate()).fold(0, |bits, (colour, m)| {
                bits | u8::from(*m != [0; 4]) << colour
            }),
            straight: [[0; 4]; 4],
            bent: [[0; 4]; 4],
        };
        walks.spans.resize(STEPS, Span::default());
        walks.masks.resize(STEPS, [0; 4]);
        walks.ends.resize(STEPS, 0);
        let mut scratch = Scratch {
            next: [NO_STEP; STEPS],
            chain: [0; STEPS],
            order: Vec::with_capacity(STEPS),
            chains: Vec::with_capacity(STEPS),
        };
        // Its straight runs by rows and columns, then the chains the mirrors bend.
        let turning = walks.mirrors;
        let bent = walks.lay_out_straight(board, &turning);
        walks.lay_out(board, &turns, &bent, 0, &mut scratch);
        // Each bent step lies on one chain, and a mirror's steps are all bent: the chains a
        // mirror meets are those of its steps. The colours' layouts add theirs after these.
        let mut chain_of = [0u16; STEPS];
        for (index, steps) in scratch.chains.iter().enumerate() {
            for &step in &scratch.order[steps.clone()] {
                chain_of[usize::from(step)] = index as u16;
            }
        }
        // A chain that meets no mirror of a colour is turned by every mirror it meets, as
        // that colour's robot is, and nothing else leads into it: it is that colour's too.
        // The others are laid out again. The first colour's in place, once the others
        // have been copied.
        for index in (1..colours).chain([0]) {
            if index > 0 {
                walks.spans.extend_from_within(..STEPS);
                walks.masks.extend_from_within(..STEPS);
                walks.ends.extend_from_within(..STEPS);
            }
            let mut again = [0u64; STEP_WORDS];
            for mirror in block::cells(&own_mirrors[index]).map(usize::from) {
                for chain in &chain_of[mirror * 4..mirror * 4 + 4] {
                    let steps = scratch.chains[usize::from(*chain)].clone();
                    for &step in &scratch.order[steps] {
                        let step = usize::from(step);
                        // A chain met twice is laid out again once.
                        if again[step / 64] >> (step % 64) & 1 == 1 {
                            break;
                        }
                        again[step / 64] |= 1 << (step % 64);
                    }
                }
            }
            if again != [0; STEP_WORDS] {
                // Its robot passes its own mirrors.
                let mut its_turns = turns;
                for mirror in block::cells(&own_mirrors[index]) {
                    its_turns[usize::from(mirror)] = 0;
                }
                walks.lay_out(board, &its_turns, &again, index * STEPS, &mut scratch);
            }
        }
        // Room for `walk_end` to read a whole word at the last walk's end.
        walks.cells.extend([0; 8]);
        walks
    }

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
    fn lay_out(
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
    fn lay_out_straight(&mut self, board: &Board, turning: &CellSet) -> StepSet {
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

    /// The colours (bits, by robot) some mirror of the board has.
    pub(crate) fn mirror_colours(&self) -> u8 {
        self.mirror_colours
    }

    /// Where robot `robot` at `robots[robot]` ends sliding in `dir`: its own cell when
    /// the move is impossible.
    #[inline]
    pub fn slide(&self, robots: &[Cell], robot: usize, dir: Direction) -> Cell {
        let start = robots[robot];
        let i = (robot * CELLS + start as usize) * 4 + dir as usize;
        // Most walks meet no robot: their end is known.
        let mask = &self.masks[i];
        let meets = (robots.iter())
            .any(|&cell| cell != start && mask[cell as usize / 64] >> (cell % 64) & 1 == 1);
        if !meets {
            return self.ends[i];
        }
        self.walk_end(i, start, robots)
    }

    /// Whether the walk of robot `robot` from `start` pushed in direction `dir` (its
    /// index) passes none of `cells`: then robots there cannot change where it ends.
    #[inline]
    pub fn misses(&self, robot: usize, start: Cell, dir: usize, cells: [Cell; 2]) -> bool {
        let mask = self.cells_passed(robot, start, dir);
        (cells.iter()).all(|&cell| mask[cell as usize / 64] >> (cell % 64) & 1 == 0)
    }

    /// The cells the walk of robot `robot` from `start` pushed in direction `dir` (its
    /// index) passes with no robot about, as a set: only robots there change its end.
    #[inline]
    pub fn cells_passed(&self, robot: usize, start: Cell, dir: usize) -> &[u64; 4] {
        &self.masks[(robot * CELLS + start as usize) * 4 + dir]
    }

    /// Adds to `blockers` the cells of the walk of robot `robot` from `start` pushed in
    /// direction `dir` (its index) that come right after a cell of it off the mirrors
    /// whose `table` entry is `wanted`: a robot there stops the walk on that cell.
    pub(crate) fn stop_blockers(
        &self,
        robot: usize,
        start: Cell,
        dir: usize,
        table: &[u8; CELLS],
        wanted: u8,
        blockers: &mut CellSet,
    ) {
        let i = (robot * CELLS + start as usize) * 4 + dir;
        let Span { begin, length, .. } = self.spans[i];
        let walk = &self.cells[usize::from(begin)..usize::from(begin) + usize::from(length)];
        for pair in walk.windows(2) {
            let stop = pair[0];
            if table[stop as usize] == wanted && !self.is_mirror(stop) {
                insert(blockers, pair[1]);
            }
        }
    }

    /// The cells the four walks of robot `robot` from `start` pass, as one set.
    #[inline]
    pub(crate) fn passes(&self, robot: usize, start: Cell) -> CellSet {
        let first = (robot * CELLS + start as usize) * 4;
        let masks = &self.masks[first..first + 4];
        std::array::from_fn(|w| masks[0][w] | masks[1][w] | masks[2][w] | masks[3][w])
    }

    /// Where walk `i` from `start` ends among `robots`: eight of its cells at a time, each
    /// byte compared with every other robot's cell at once.
    fn walk_end(&self, i: usize, start: Cell, robots: &[Cell]) -> Cell {
        const LOW_BITS: u64 = 0x0101_0101_0101_0101;
        let Span {
            begin,
            length,
            loops,
            ..
        } = self.spans[i];
        let (begin, length) = (usize::from(begin), usize::from(length));
        for chunk in (0..length).step_by(8) {
            let bytes = &self.cells[begin + chunk..begin + chunk + 8];
            let word = u64::from_le_bytes(bytes.try_into().expect("eight cells"));
            // The high bit of each byte equal to a robot's cell; a flag above the lowest
            // may be false (a borrow), but the lowest is true.
            let mut held = (robots.iter().filter(|&&cell| cell != start)).fold(0, |held, &cell| {
                let equal = word ^ (LOW_BITS * u64::from(cell));
                held | (equal.wrapping_sub(LOW_BITS) & !equal & (LOW_BITS << 7))
            });
            if length - chunk < 8 {
                held &= (1 << (8 * (length - chunk))) - 1;
            }
            if held != 0 {
                let at = chunk + held.trailing_zeros() as usize / 8;
                return match at {
                    0 => start,
                    _ => self.stop(start, self.cells[begin + at - 1]),
                };
            }
        }
        if loops {
            return start;
        }
        self.ends[i]
    }

    /// The end of a slide held up at `at`: no move when it is a mirror cell.
    fn stop(&self, start: Cell, at: Cell) -> Cell {
        if self.is_mirror(at) {
            start
        } else {
            at
        }
    }

    fn is_mirror(&self, cell: Cell) -> bool {
        self.mirrors[cell as usize / 64] >> (cell % 64) & 1 == 1
    }
}
