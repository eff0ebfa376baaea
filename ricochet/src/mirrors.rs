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
use crate::solver::{insert, CellSet};
use layout::{Scratch, Turns};

mod bound;
mod layout;
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

/// A (cell, direction) step as an index: `cell * 4 + direction`.
type Step = usize;
/// No step: where a wall ends a chain.
const NO_STEP: u16 = u16::MAX;
const STEPS: usize = CELLS * 4;
const STEP_WORDS: usize = STEPS / 64;
/// A set of steps, as a bitset.
type StepSet = [u64; STEP_WORDS];
/// What a step in each direction adds to a cell.
const STEP_OFFSET: [isize; 4] = [-(GRID as isize), 1, GRID as isize, -1];

impl Walks {
    /// The walks of the first `colours` colours' robots on `board`.
    pub fn new(board: &Board, colours: usize) -> Walks {
        Walks::new_in(board, colours, None)
    }

    /// [`Walks::new`], in the buffers of `old` where given: a thread that keeps a few
    /// boards' walks hands on the one it drops, whose memory is already its own.
    pub(crate) fn new_in(board: &Board, colours: usize, old: Option<Walks>) -> Walks {
        let count = colours * STEPS;
        let (spans, cells, masks, ends) = old.map_or_else(Default::default, |old| {
            (old.spans, old.cells, old.masks, old.ends)
        });
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
            spans: emptied(spans, count),
            cells: emptied(cells, count + STEPS),
            masks: emptied(masks, count),
            ends: emptied(ends, count),
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
        let mut scratch = Scratch::new();
        // Its straight runs by rows and columns, then the chains the mirrors bend.
        let turning = walks.mirrors;
        let bent = walks.lay_out_straight(board, &turning);
        walks.lay_out(board, &turns, &bent, 0, &mut scratch);
        // Each bent step lies on one chain, and a mirror's steps are all bent: the chains a
        // mirror meets are those of its steps. The colours' layouts add theirs after these.
        let mut chain_of = [0u16; STEPS];
        for (index, steps) in scratch.chains().enumerate() {
            for &step in steps {
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
                    for &step in scratch.chain(usize::from(*chain)) {
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

/// `vec` emptied, with room for `capacity` items.
fn emptied<T>(mut vec: Vec<T>, capacity: usize) -> Vec<T> {
    vec.clear();
    vec.reserve(capacity);
    vec
}
