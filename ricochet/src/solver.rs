//! The optimal solver: fringe search over canonical states, with IDA* where memory ends.
//!
//! * The search raises a bound on the solution's length one move at a time, each bound
//!   searched depth first (`fringe`): a state enters at the first bound at which it could
//!   lie on a solution, and is expanded once, at the smallest depth it is met. Where its
//!   memory limit would be passed, the IDA* (`ida`) goes on from the bound reached.
//! * Slides use per-puzzle stop tables (where a robot stops with no other robot about)
//!   shortened by the robots in the way.
//! * The lower bound h is the number of moves the finishing robot needs if it could stop
//!   on any cell (a BFS from the target over straight wall-free lines).
//! * Tight states (h equal to the moves left) can only be finished by the finishing robot
//!   alone going downhill every move: `finishes_alone` settles them with a per-cell memo.
//!   On the last level this is the classic "move only the target robot".
//! * With one to three moves of slack, a helper move must matter to a later move of a
//!   solution (the `regions` module): smaller bounds ruled out shorter solutions, and
//!   dropping a move nothing depends on would leave one. With one move of slack only the
//!   finishing robot's downhill routes follow, so the move must touch them.
//! * For pruning, h is raised by one when no helper stands where a shortest route would
//!   need a blocker ("it cannot get there alone"), or by two: see `beyond_reach`.
//! * States are keyed canonically: the target robot's cell, then the other robots' cells
//!   sorted, since robots that cannot finish are interchangeable (all robots are, for the
//!   wild target).
//! * A robot never immediately reverses its previous move: wherever the reverse slide
//!   ends, the robot could have slid there directly one move earlier.
//! * Two moves in a row that commute (neither robot's start or end cell on the other's
//!   slide or stopping it) are searched in one order only, the lower robot first: the
//!   other order reaches the same state at the same depth.
//!
//! The bound tables are computed in `bounds`, the route regions and the relevance test in
//! `regions`, which move orders commute in `order`; this file holds what both searches
//! share.

use std::time::{Duration, Instant};

use crate::board::{Cell, Direction, GRID};
use crate::puzzle::{Move, Puzzle, MAX_ROBOTS};
use crate::transposition::TransTable;

mod bounds;
mod fringe;
mod ida;
mod order;
mod regions;
mod tables;
pub(crate) use bounds::{
    distances_over_ends, lower_bounds, stop_tables, stopped_slide, StopTables,
};
use fringe::{Fringe, FringeEnd, FRINGE_MAX_BOUND};
use order::meets_slide;
pub(crate) use order::{commutes, Slide};
pub(crate) use regions::{contains, insert, intersects, CellSet, HelperTest, Regions};
pub(crate) use tables::{Reach, Tables};

/// Default longest solution looked for; no known puzzle comes close.
pub const DEFAULT_MAX_MOVES: u8 = 40;
/// Default size limit of the transposition table.
pub const DEFAULT_TABLE_BYTES: usize = 16 << 20;

/// Default memory limit of the fringe search (its table and the states waiting in its
/// buckets), beyond which the IDA* takes over: the hardest published positions stay below
/// half of it, and it bounds what a hostile puzzle costs a coordinator's check.
pub const DEFAULT_FRINGE_BYTES: usize = 256 << 20;

/// Lower bound of a cell from which the target cannot be reached at all.
pub(crate) const UNREACHABLE: u8 = u8::MAX;
const NO_MOVE: u8 = u8::MAX;

/// An optimal solution and what finding it cost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    pub moves: Vec<Move>,
    pub stats: SearchStats,
}

/// What a search did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// States expanded over all iterations.
    pub states: u64,
    pub elapsed: Duration,
}

/// Why no solution was returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unsolved {
    #[error("no robot allowed on the target can ever reach its cell")]
    Unreachable,
    #[error("unsolved within {0} move{plural}: no solution that short exists", plural = if *.0 == 1 { "" } else { "s" })]
    TooLong(u8),
    #[error("no proof either way within {0} positions searched")]
    Unsettled(u64),
}

thread_local! {
    static THREAD_SOLVER: std::cell::RefCell<Option<Solver>> = const { std::cell::RefCell::new(None) };
}

/// Runs `work` with this thread's reusable solver, giving up beyond `max_moves` for this
/// call, so that parallel batches allocate one table per thread rather than per puzzle.
pub fn with_thread_solver<R>(max_moves: u8, work: impl FnOnce(&mut Solver) -> R) -> R {
    THREAD_SOLVER.with(|cell| {
        let mut slot = cell.borrow_mut();
        let solver =
            slot.get_or_insert_with(|| Solver::with_limits(max_moves, DEFAULT_TABLE_BYTES));
        solver.max_moves = capped(max_moves);
        work(solver)
    })
}

/// The limit stays below `u8::MAX`, so depth arithmetic one move past it cannot overflow.
fn capped(max_moves: u8) -> u8 {
    max_moves.min(254)
}

/// A reusable solver; keeps its transposition table between puzzles, and the last
/// puzzle's tables for the next one on the same board and target (the `tables` module).
pub struct Solver {
    table: TransTable,
    tables: Option<Tables>,
    fringe: Fringe,
    max_moves: u8,
}

impl Default for Solver {
    fn default() -> Self {
        Solver::new()
    }
}

impl Solver {
    pub fn new() -> Solver {
        Solver::with_limits(DEFAULT_MAX_MOVES, DEFAULT_TABLE_BYTES)
    }

    /// A solver that gives up beyond `max_moves` and keeps its table under `table_bytes`
    /// (but at 1 MiB or more for 5-robot puzzles, whose wider keys need as many buckets).
    pub fn with_limits(max_moves: u8, table_bytes: usize) -> Solver {
        Solver {
            table: TransTable::new(table_bytes),
            tables: None,
            fringe: Fringe::new(DEFAULT_FRINGE_BYTES),
            max_moves: capped(max_moves),
        }
    }

    /// This solver with the fringe search limited to about `bytes` of memory (table and
    /// buckets); a search that would need more goes on as an IDA* within the table limit,
    /// and below 1 MiB the IDA* does all the searching.
    pub fn with_fringe_bytes(mut self, bytes: usize) -> Solver {
        self.fringe = Fringe::new(bytes);
        self
    }

    /// Finds a proven optimal solution of `puzzle` (on a board with mirrors, through the
    /// general search of `rules`: these tables know only straight slides).
    pub fn solve(&mut self, puzzle: &Puzzle) -> Result<Solution, Unsolved> {
        if puzzle.board().has_mirrors() {
            return crate::rules::solve(puzzle, crate::rules::Rules::STANDARD, self.max_moves);
        }
        let started = Instant::now();
        let result = match (puzzle.robots().len(), puzzle.target().colour.is_none()) {
            (1, false) => self.run::<1, false>(puzzle),
            (2, false) => self.run::<2, false>(puzzle),
            (3, false) => self.run::<3, false>(puzzle),
            (4, false) => self.run::<4, false>(puzzle),
            (5, false) => self.run::<5, false>(puzzle),
            (1, true) => self.run::<1, true>(puzzle),
            (2, true) => self.run::<2, true>(puzzle),
            (3, true) => self.run::<3, true>(puzzle),
            (4, true) => self.run::<4, true>(puzzle),
            (5, true) => self.run::<5, true>(puzzle),
            (n, _) => unreachable!("puzzles hold 1..={MAX_ROBOTS} robots, not {n}"),
        };
        result.map(|(moves, states)| Solution {
            moves,
            stats: SearchStats {
                states,
                elapsed: started.elapsed(),
            },
        })
    }

    /// The last puzzle's tables, lent to another search of the same puzzle (the rule
    /// search reads today's bounds and regions from them); [`Solver::keep_tables`] gives
    /// them back.
    pub(crate) fn lend_tables(&mut self) -> Option<Tables> {
        self.tables.take()
    }

    pub(crate) fn keep_tables(&mut self, tables: Tables) {
        self.tables = Some(tables);
    }

    fn run<const N: usize, const WILD: bool>(
        &mut self,
        puzzle: &Puzzle,
    ) -> Result<(Vec<Move>, u64), Unsolved> {
        // A key has eight bits per robot.
        self.table.reset(if N <= 4 { 32 } else { 40 });
        let board = puzzle.board();
        let target = puzzle.target();
        // Internal order: the robot that must finish first, the others after it.
        let mut order: [usize; N] = std::array::from_fn(|i| i);
        if let Some(colour) = target.colour {
            order.swap(0, colour.robot());
        }
        let robots: [Cell; N] = std::array::from_fn(|i| puzzle.robots()[order[i]]);
        let mut search = Search::<N, WILD> {
            tables: Tables::for_puzzle(self.tables.take(), board, target.cell),
            table: &mut self.table,
            path: Vec::new(),
            states: 0,
        };
        let solved = search.deepen(robots, &mut self.fringe, self.max_moves);
        let answer = solved.map(|()| (search.moves(&order), search.states));
        self.tables = Some(search.tables);
        answer
    }
}

struct Search<'t, const N: usize, const WILD: bool> {
    /// The tables of the puzzle's board and target.
    tables: Tables,
    table: &'t mut TransTable,
    /// Moves of the solution found, last move first, as (internal robot, direction).
    path: Vec<(u8, u8)>,
    states: u64,
}

impl<const N: usize, const WILD: bool> Search<'_, N, WILD> {
    /// Raises the bound from `robots`' lower bound until a solution is in `path`: by the
    /// fringe search while its memory lasts, then by the IDA*.
    fn deepen(
        &mut self,
        robots: [Cell; N],
        fringe: &mut Fringe,
        max_moves: u8,
    ) -> Result<(), Unsolved> {
        let start = self.bound(&robots);
        if start == UNREACHABLE {
            return Err(Unsolved::Unreachable);
        }
        let mut depth = start.max(1);
        // A bound over `max_moves` leaves nothing to search: the loop below says so.
        let last = max_moves.min(FRINGE_MAX_BOUND);
        if fringe.usable() && depth <= last {
            match self.fringe_search(fringe, robots, depth, last) {
                FringeEnd::Solved => return Ok(()),
                FringeEnd::Exhausted => depth = last + 1,
                // Every bound below `bound` was searched: the IDA* goes on from there.
                FringeEnd::GaveUp(bound) => {
                    depth = bound;
                    self.path.clear();
                }
            }
        }
        while depth <= max_moves {
            self.prepare_for(depth);
            if self.dfs(robots, depth, NO_MOVE, 0) {
                return Ok(());
            }
            depth += 1;
        }
        Err(Unsolved::TooLong(max_moves))
    }

    /// Computes what the search to `bound` repays and is not ready yet.
    fn prepare_for(&mut self, bound: u8) {
        self.tables.prepare_for(bound, WILD);
    }

    /// The solution in `path`, in the puzzle's robot numbering.
    fn moves(&self, order: &[usize; N]) -> Vec<Move> {
        self.path
            .iter()
            .rev()
            .map(|&(robot, dir)| Move {
                robot: order[robot as usize] as u8,
                dir: Direction::ALL[dir as usize],
            })
            .collect()
    }

    /// Lower bound on the moves left from this state.
    #[inline(always)]
    fn bound(&self, robots: &[Cell; N]) -> u8 {
        if WILD {
            robots
                .iter()
                .map(|&r| self.tables.lower_bound[r as usize])
                .min()
                .unwrap_or(UNREACHABLE)
        } else {
            self.tables.lower_bound[robots[0] as usize]
        }
    }

    /// Whether this state provably has no solution within `moves` moves: `bound` (h) says
    /// so, or h raised by what helpers cannot do without moving ([`Tables::raised_reach`]).
    #[inline(always)]
    fn beyond_reach(&self, robots: &[Cell; N], moves: u8) -> bool {
        let h = self.bound(robots);
        if h > moves {
            return true;
        }
        if WILD {
            return false;
        }
        match self.tables.raised_reach(robots, moves) {
            Reach::Within => false,
            Reach::Beyond => true,
            Reach::IfNotAlone => !self.finishes_alone(*robots, 0, true, &mut SoloRun::default()),
        }
    }

    /// The test helper moves from `robots` must pass with `slack` moves of slack (the
    /// `regions` module), once its regions are computed; `None` where none applies.
    fn helper_test(&self, robots: &[Cell; N], slack: u8) -> Option<HelperTest> {
        if WILD {
            return None;
        }
        self.tables.helper_test(robots, slack)
    }

    /// Settles a tight state (bound equal to the moves left): only a robot whose own bound
    /// is tight can finish, alone and downhill. On success `path` holds the moves.
    #[inline(always)]
    fn finish_tight(&mut self, robots: [Cell; N], remaining: u8) -> bool {
        let finishers = if WILD { N } else { 1 };
        let mut run = SoloRun::default();
        let solved = (0..finishers).any(|robot| {
            run.failed = Default::default();
            self.tables.lower_bound[robots[robot] as usize] == remaining
                && self.finishes_alone(robots, robot, false, &mut run)
        });
        self.states += run.visited;
        self.path.append(&mut run.moves);
        solved
    }

    /// Whether robot `finisher` alone, the others standing still, can finish going
    /// downhill every move but, if `sideways`, one move that keeps its bound. With the
    /// others fixed the outcome depends only on its cell and whether the sideways move is
    /// still free, so `run.failed` remembers the cells ruled out and each is searched once.
    /// On success `run.moves` holds the moves, last first.
    fn finishes_alone(
        &self,
        mut robots: [Cell; N],
        finisher: usize,
        sideways: bool,
        run: &mut SoloRun,
    ) -> bool {
        run.visited += 1;
        let from = robots[finisher];
        let here = self.tables.lower_bound[from as usize];
        for (dir, &to) in self.slides(&robots, finisher).iter().enumerate() {
            if to == self.tables.target {
                run.moves.push((finisher as u8, dir as u8));
                return true;
            }
            let step = self.tables.lower_bound[to as usize];
            let sideways_left = match step {
                _ if step.wrapping_add(1) == here => sideways,
                _ if step == here && sideways => false,
                _ => continue,
            };
            if to == from || contains(&run.failed[sideways_left as usize], to) {
                continue;
            }
            robots[finisher] = to;
            if self.finishes_alone(robots, finisher, sideways_left, run) {
                run.moves.push((finisher as u8, dir as u8));
                return true;
            }
            robots[finisher] = from;
            insert(&mut run.failed[sideways_left as usize], to);
        }
        false
    }

    /// Where robot `robot` stops sliding in each direction (N, E, S, W), in one pass over
    /// the robots: each one in the way shortens the slide to end next to it. The moving
    /// robot itself is never strictly between, so it needs no special case.
    #[inline(always)]
    fn slides(&self, robots: &[Cell; N], robot: usize) -> [Cell; 4] {
        let from = robots[robot];
        let at = from as usize;
        let [mut north, mut east, mut south, mut west] = [
            self.tables.stops[0][at],
            self.tables.stops[1][at],
            self.tables.stops[2][at],
            self.tables.stops[3][at],
        ];
        for &other in robots {
            if (other ^ from).is_multiple_of(GRID as u8) {
                if other < from && other >= north {
                    north = other + GRID as u8;
                }
                if other > from && other <= south {
                    south = other - GRID as u8;
                }
            } else {
                // Along a row the cells passed are consecutive, so the range is the test.
                if other > from && other <= east {
                    east = other - 1;
                }
                if other < from && other >= west {
                    west = other + 1;
                }
            }
        }
        [north, east, south, west]
    }

    /// Canonical key: the finishing robot's cell, then the others sorted (all sorted for
    /// the wild target).
    #[inline(always)]
    fn key(robots: &[Cell; N]) -> u64 {
        let mut sorted = *robots;
        let first = if WILD { 0 } else { 1 };
        for i in first + 1..N {
            let mut j = i;
            while j > first && sorted[j - 1] > sorted[j] {
                sorted.swap(j - 1, j);
                j -= 1;
            }
        }
        sorted
            .iter()
            .fold(0u64, |key, &cell| key << 8 | cell as u64)
    }

    /// Calls `visit(search, robot, dir, from, to)` for each move of robots `0..movers` but
    /// those that another order of the same moves replaces (reversals, commuting pairs) and
    /// those of robots `skip_robot` rules out, until `visit` returns false. A move onto the
    /// target by a robot that may finish ends it first, the move put in `path`.
    #[inline(always)]
    fn each_move(
        &mut self,
        robots: &[Cell; N],
        movers: usize,
        last: u8,
        last_from: Cell,
        skip_robot: impl Fn(&Self, usize, Cell) -> bool,
        mut visit: impl FnMut(&mut Self, usize, usize, Cell, Cell) -> bool,
    ) -> Moves {
        let last_robot = (last / 4) as usize;
        let last_slide = (last != NO_MOVE).then(|| Slide {
            from: last_from,
            to: robots[last_robot],
            dir: (last % 4) as usize,
        });
        for robot in 0..movers {
            let from = robots[robot];
            if skip_robot(self, robot, from) {
                continue;
            }
            // Every move of a lower robot that stays off the previous slide's lines commutes
            // with it: skipped before its slides are even computed.
            if robot < last_robot && last_slide.is_some_and(|slide| !meets_slide(slide, from)) {
                continue;
            }
            let ends = self.slides(robots, robot);
            for (dir, &to) in ends.iter().enumerate() {
                if to == from {
                    continue;
                }
                // The goal check comes before the reversal rule: a robot that starts on the
                // target finishes by coming back to it.
                if (WILD || robot == 0) && to == self.tables.target {
                    self.path.push((robot as u8, dir as u8));
                    return Moves::Goal;
                }
                if last == (robot * 4 + (dir ^ 2)) as u8 {
                    continue;
                }
                if robot < last_robot
                    && last_slide.is_some_and(|slide| {
                        commutes(&self.tables.stops, slide, Slide { from, to, dir })
                    })
                {
                    continue;
                }
                if !visit(self, robot, dir, from, to) {
                    return Moves::Stopped;
                }
            }
        }
        Moves::Done
    }
}

/// `robots` with robot `robot` on `to`, built in registers: a one-byte store into an array
/// in memory followed by reading the array whole (for the key) stalls store forwarding.
#[inline(always)]
fn moved<const N: usize>(robots: [Cell; N], robot: usize, to: Cell) -> [Cell; N] {
    let packed = robots
        .iter()
        .enumerate()
        .fold(0u64, |packed, (i, &cell)| packed | (cell as u64) << (8 * i));
    let packed = packed & !(0xff << (8 * robot)) | (to as u64) << (8 * robot);
    std::array::from_fn(|i| (packed >> (8 * i)) as Cell)
}

/// The state of one `finishes_alone` search.
#[derive(Default)]
struct SoloRun {
    /// Cells ruled out, without and with the sideways move still free.
    failed: [CellSet; 2],
    /// The moves found, last first.
    moves: Vec<(u8, u8)>,
    /// Positions searched.
    visited: u64,
}

/// How [`Search::each_move`] ended.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Moves {
    /// A move reached the target; it is in `path`.
    Goal,
    /// `visit` asked to stop.
    Stopped,
    Done,
}
