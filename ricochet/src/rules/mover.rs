//! How one move is played under a rule set, and how the state it leads to is keyed: a
//! [`State`] (robot cells, the lines of their last moves, their turns), the [`Mover`] that
//! plays a move from it ([`Play`]) and makes its table key. Apart from the search, since
//! the exhaustive engine (`crate::exhaustive::restricted`) and [`super::obeys`] play moves
//! through the same mover.

use super::rule_set::{ricochet_duties, Rules};
use super::searched::TABLE_KEY_BITS;
use crate::board::{Board, Cell, Direction, CELLS};
use crate::mirrors::Walks;
use crate::puzzle::{Move, Puzzle, MAX_ROBOTS};
use crate::solver::{stop_tables, stopped_slide, StopTables};
use std::cell::RefCell;
use std::sync::Arc;

/// The line of a robot's last move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Line {
    None,
    NorthSouth,
    EastWest,
}

impl Line {
    /// Whether a move in `dir` after a last move on this line turns at a right angle.
    pub(super) fn turns_to(self, dir: Direction) -> bool {
        self != Line::None && self != Line::of(dir)
    }

    pub(super) fn of(dir: Direction) -> Line {
        match dir {
            Direction::North | Direction::South => Line::NorthSouth,
            Direction::East | Direction::West => Line::EastWest,
        }
    }
}

/// Robot cells, the lines of their last moves, and which robots have turned (one bit per
/// robot; kept only where the ricochet rule asks); entries past the puzzle's robots are
/// unused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct State {
    pub(crate) robots: [Cell; MAX_ROBOTS],
    pub(crate) lines: [Line; MAX_ROBOTS],
    pub(crate) turned: u8,
}

impl State {
    /// A position before any move.
    pub(crate) fn start(robots: &[Cell]) -> State {
        let mut state = State {
            robots: [0; MAX_ROBOTS],
            lines: [Line::None; MAX_ROBOTS],
            turned: 0,
        };
        state.robots[..robots.len()].copy_from_slice(robots);
        state
    }
}

/// What one move does under the rules.
pub(crate) enum Play {
    /// Not a move: the robot does not move, rebounds where that is forbidden, or stops on
    /// the target too early.
    NoMove,
    /// The move finishes the puzzle.
    Finishes,
    /// The move leads to the state written out.
    Continues,
}

/// Where slides end on a board: bent by its mirrors, or straight to the stop tables'
/// cells, cut short by robots.
enum Slides {
    Bent(Arc<Walks>),
    Straight(Box<StopTables>),
}

/// Boards whose walks a thread keeps: puzzles on a few boards, in any order (a game's
/// targets, a batch dealt on alternating boards), work out each board's walks once.
const KEPT_WALKS: usize = 4;

/// Bound tables a thread keeps for each board whose walks it keeps: a game's targets.
const KEPT_BOUNDS: usize = 32;

/// A board's walks kept by a thread, with the bounds worked out on them.
struct Kept {
    /// Boxed, so that the list moves small entries as it reorders.
    board: Box<Board>,
    colours: usize,
    walks: Arc<Walks>,
    /// By target and colour, the bound of a robot of that colour (latest last).
    bounds: Vec<(Cell, usize, Box<[u8; CELLS]>)>,
}

thread_local! {
    /// The walks of the boards this thread played on last, latest first.
    static WALKS: RefCell<Vec<Kept>> = const { RefCell::new(Vec::new()) };
}

/// The walks of `board` for its first `colours` robots, kept for the next puzzles.
fn walks_of(board: &Board, colours: usize) -> Arc<Walks> {
    WALKS.with_borrow_mut(|kept| {
        let found = (kept.iter()).position(|k| k.colours == colours && *k.board == *board);
        let entry = match found {
            Some(index) => kept.remove(index),
            None => {
                // The walks dropped to make room lend their buffers, where no search
                // still holds them.
                let dropped = (kept.len() == KEPT_WALKS).then(|| kept.pop()).flatten();
                let old = dropped.and_then(|entry| Arc::into_inner(entry.walks));
                Kept {
                    board: Box::new(board.clone()),
                    colours,
                    walks: Arc::new(Walks::new_in(board, colours, old)),
                    bounds: Vec::new(),
                }
            }
        };
        let walks = Arc::clone(&entry.walks);
        kept.insert(0, entry);
        kept.truncate(KEPT_WALKS);
        walks
    })
}

/// [`Walks::relaxed_bounds`] of `walks` (on `board`) for `target` and the `colour`-th
/// colour, kept with the walks while this thread keeps them.
fn bounds_of(walks: &Arc<Walks>, board: &Board, target: Cell, colour: usize) -> [u8; CELLS] {
    WALKS.with_borrow_mut(|kept| {
        let Some(entry) = kept.iter_mut().find(|k| Arc::ptr_eq(&k.walks, walks)) else {
            return walks.relaxed_bounds(board, target, colour);
        };
        let found = (entry.bounds.iter()).find(|(t, c, _)| (*t, *c) == (target, colour));
        if let Some((_, _, bounds)) = found {
            return **bounds;
        }
        let bounds = walks.relaxed_bounds(board, target, colour);
        if entry.bounds.len() == KEPT_BOUNDS {
            entry.bounds.remove(0);
        }
        entry.bounds.push((target, colour, Box::new(bounds)));
        bounds
    })
}

/// Plays moves under a rule set on a puzzle's board and target, with the ricochet duties
/// of the position the play started from.
pub(crate) struct Mover<'p> {
    puzzle: &'p Puzzle,
    rules: Rules,
    count: usize,
    /// The finishing robot must have turned.
    pub(super) must_turn: bool,
    /// A robot that may finish must not stop on the target before the last move.
    pub(super) no_early_stop: bool,
    /// On a board with mirrors, the robots (bits) that are interchangeable: those of the
    /// key's sorted range whose colour no mirror has, so every mirror turns them alike.
    alike_at_mirrors: u8,
    /// How slides end: the board's walks on a board with mirrors, else its stop tables.
    slides: Slides,
    /// Where the key with every part in full would be too wide for the table, the sorted
    /// robots' parts (a cell and a line each) taken as one set and ranked: `C(value, k)`
    /// by value (`cell * 3 + line`) and k from 1, and the rank's bits.
    ranked: Option<(Vec<[u64; MAX_ROBOTS + 1]>, u32)>,
}

impl<'p> Mover<'p> {
    /// The mover of plays starting from `puzzle`'s position.
    pub(crate) fn new(puzzle: &'p Puzzle, rules: Rules) -> Mover<'p> {
        let (must_turn, no_early_stop) = ricochet_duties(puzzle, rules);
        let board = puzzle.board();
        let slides = match board.has_mirrors() {
            true => Slides::Bent(walks_of(board, puzzle.robots().len())),
            false => Slides::Straight(Box::new(stop_tables(board))),
        };
        let mirrored = match &slides {
            Slides::Bent(walks) => walks.mirror_colours(),
            Slides::Straight(_) => 0,
        };
        let alike_at_mirrors = (0..puzzle.robots().len())
            .filter(|&robot| puzzle.target().colour.is_none_or(|c| c.robot() != robot))
            .filter(|&robot| mirrored >> robot & 1 == 0)
            .fold(0, |bits, robot| bits | 1 << robot);
        let mut mover = Mover {
            puzzle,
            rules,
            count: puzzle.robots().len(),
            must_turn,
            no_early_stop,
            alike_at_mirrors,
            slides,
            ranked: None,
        };
        mover.ranked = mover.set_ranking();
        mover
    }

    /// The ranking of [`Mover::ranked`], where it makes a key narrow enough for the table
    /// (five robots without rebounds: 50 bits in full, 44 ranked).
    fn set_ranking(&self) -> Option<(Vec<[u64; MAX_ROBOTS + 1]>, u32)> {
        let sorted = self.sorted_range();
        let plain_bits: u32 = (0..self.count).map(|robot| self.part_bits(robot)).sum();
        let cell_and_line = sorted
            .clone()
            .all(|robot| self.key_fields(robot) == (true, false));
        if plain_bits <= TABLE_KEY_BITS || self.puzzle.board().has_mirrors() || !cell_and_line {
            return None;
        }
        let values = CELLS * 3;
        let mut binomials = vec![[0u64; MAX_ROBOTS + 1]; values + 1];
        for n in 0..=values {
            binomials[n][0] = 1;
            for k in 1..=MAX_ROBOTS {
                binomials[n][k] = if n == 0 {
                    0
                } else {
                    binomials[n - 1][k - 1] + binomials[n - 1][k]
                };
            }
        }
        let sets = binomials[values][sorted.len()];
        let rank_bits = u64::BITS - (sets - 1).leading_zeros();
        let others: u32 = (0..self.count)
            .filter(|robot| !sorted.contains(robot))
            .map(|robot| self.part_bits(robot))
            .sum();
        (rank_bits + others <= TABLE_KEY_BITS).then_some((binomials, rank_bits))
    }

    /// The key's slots whose parts are sorted (after the target's robot is swapped into
    /// slot 0 for a coloured target), on a board without mirrors.
    fn sorted_range(&self) -> std::ops::Range<usize> {
        match self.puzzle.target().colour {
            Some(_) => 1..self.count,
            None => 0..self.count,
        }
    }

    /// The duties this mover plays by, as two bits (part of a state's identity where
    /// plays from different starts meet).
    pub(crate) fn duties(&self) -> u8 {
        u8::from(self.must_turn) | u8::from(self.no_early_stop) << 1
    }

    /// Plays `step` from `state`, writing the state it leads to into `next` (a copy of
    /// `state` on entry). Written in place rather than returned, so that the search reads
    /// the new state byte by byte where it was stored instead of copying it whole at once
    /// (a wide load of narrow stores still in flight stalls).
    #[inline(always)]
    pub(crate) fn play(&self, state: &State, step: Move, next: &mut State) -> Play {
        let robot = usize::from(step.robot);
        if !self.rules.rebounds && state.lines[robot] == Line::of(step.dir) {
            return Play::NoMove;
        }
        let to = self.slide(&state.robots[..self.count], step);
        if to == state.robots[robot] {
            return Play::NoMove;
        }
        next.robots[robot] = to;
        next.lines[robot] = Line::of(step.dir);
        let may_finish = self.puzzle.may_finish(robot);
        if self.must_turn && may_finish && state.lines[robot].turns_to(step.dir) {
            next.turned |= 1 << robot;
        }
        let on_target = to == self.puzzle.target().cell && may_finish;
        if on_target && (!self.must_turn || next.turned >> robot & 1 == 1) {
            Play::Finishes
        } else if on_target && self.no_early_stop {
            Play::NoMove
        } else {
            Play::Continues
        }
    }

    /// Where a move ends (as [`Puzzle::slide`] finds it).
    #[inline]
    pub(super) fn slide(&self, robots: &[Cell], step: Move) -> Cell {
        match &self.slides {
            Slides::Bent(walks) => walks.slide(robots, usize::from(step.robot), step.dir),
            Slides::Straight(stops) => {
                stopped_slide(stops, robots, usize::from(step.robot), step.dir)
            }
        }
    }

    /// The bound of a robot of the `colour`-th colour ([`Walks::relaxed_bounds`]), on a
    /// board with mirrors: kept with the board's walks, for the next puzzles on it.
    pub(super) fn walk_bounds(&self, colour: usize) -> Option<[u8; CELLS]> {
        match &self.slides {
            Slides::Bent(walks) => {
                let (board, target) = (self.puzzle.board(), self.puzzle.target().cell);
                Some(bounds_of(walks, board, target, colour))
            }
            Slides::Straight(_) => None,
        }
    }

    /// The board's walks, on a board with mirrors.
    pub(super) fn walks(&self) -> Option<&Walks> {
        match &self.slides {
            Slides::Bent(walks) => Some(walks),
            Slides::Straight(_) => None,
        }
    }

    /// Where a robot slides with no other robot about, on a board without mirrors.
    pub(super) fn stops(&self) -> Option<&StopTables> {
        match &self.slides {
            Slides::Straight(stops) => Some(stops),
            Slides::Bent(_) => None,
        }
    }

    /// Whether a robot's key holds its last line (2 bits) and whether it turned (1 bit):
    /// the line where a later move may depend on it (without rebounds, or for a robot
    /// that must turn before it finishes), the turn where the ricochet rule asks for one.
    fn key_fields(&self, robot: usize) -> (bool, bool) {
        let turns = self.must_turn && self.puzzle.may_finish(robot);
        (!self.rules.rebounds || turns, turns)
    }

    /// Bits of robot `robot`'s part of a key: its cell, then the fields it keeps.
    fn part_bits(&self, robot: usize) -> u32 {
        let (line, turn) = self.key_fields(robot);
        8 + 2 * u32::from(line) + u32::from(turn)
    }

    /// Bits of a key: 40 for five robots under today's rule, 44 without rebounds (the
    /// helpers ranked as a set, [`Mover::ranked`]).
    pub(crate) fn key_bits(&self) -> u32 {
        let sorted = self.sorted_range();
        match &self.ranked {
            Some((_, rank_bits)) => (0..self.count)
                .filter(|robot| !sorted.contains(robot))
                .map(|robot| self.part_bits(robot))
                .fold(*rank_bits, |bits, part| bits + part),
            None => (0..self.count).map(|robot| self.part_bits(robot)).sum(),
        }
    }

    /// The state's table key: robots that cannot finish are interchangeable (all of them
    /// for the vortex), so theirs are sorted; on a board with mirrors, only those whose
    /// colour no mirror has ([`Mover::alike_at_mirrors`]). A robot's
    /// part holds its cell and the fields of [`Mover::key_fields`]; a robot that has
    /// turned keeps no line where it needed one only to turn. States that differ in the
    /// lines left out have the same moves ahead.
    pub(crate) fn key(&self, state: &State) -> u64 {
        let mut parts = [0u64; MAX_ROBOTS];
        let mut widths = [0u32; MAX_ROBOTS];
        for (robot, part) in parts.iter_mut().enumerate().take(self.count) {
            let (keeps_line, keeps_turn) = self.key_fields(robot);
            let turned = state.turned >> robot & 1 == 1;
            let line = if !self.rules.rebounds || (keeps_turn && !turned) {
                state.lines[robot] as u64
            } else {
                0
            };
            *part = u64::from(state.robots[robot]);
            if keeps_line {
                *part = *part << 2 | line;
            }
            if keeps_turn {
                *part = *part << 1 | u64::from(turned);
            }
            widths[robot] = self.part_bits(robot);
        }
        let mirrors = self.puzzle.board().has_mirrors();
        if mirrors {
            // Sorted in their own slots.
            let slots = (0..self.count).filter(|&robot| self.alike_at_mirrors >> robot & 1 == 1);
            let mut alike = [0u64; MAX_ROBOTS];
            let mut n = 0;
            for robot in slots.clone() {
                alike[n] = parts[robot];
                n += 1;
            }
            alike[..n].sort_unstable();
            for (robot, &part) in slots.zip(&alike) {
                parts[robot] = part;
            }
        }
        if let Some(colour) = self.puzzle.target().colour {
            parts.swap(0, colour.robot());
            widths.swap(0, colour.robot());
        }
        let interchangeable = self.sorted_range();
        if !mirrors {
            parts[interchangeable.clone()].sort_unstable();
        }
        if let Some((binomials, rank_bits)) = &self.ranked {
            // Distinct cells make distinct values, ascending as the parts are.
            let rank = (parts[interchangeable.clone()].iter().enumerate())
                .map(|(k, &part)| binomials[((part >> 2) * 3 + (part & 3)) as usize][k + 1])
                .sum::<u64>();
            return (parts[..interchangeable.start].iter())
                .zip(&widths)
                .fold(0, |key, (&part, &width)| key << width | part)
                << rank_bits
                | rank;
        }
        // Interchangeable robots keep the same fields, so sorting leaves the widths.
        (parts[..self.count].iter())
            .zip(&widths)
            .fold(0, |key, (&part, &width)| key << width | part)
    }
}
