//! Rule sets beyond today's rule, and the optimal search under them.
//!
//! Today's rule (every robot slides until it meets a wall or a robot, any move of any robot
//! counts, the target's robot must stop on it) is [`Rules::STANDARD`] and goes to the fast
//! [`Solver`]. A rule set that forbids moves goes to [`solve`] here: IDA* over states that
//! also remember what each robot's last move was, since the rules depend on it, with the
//! same admissible lower bound as the fast solver (a robot that could stop anywhere needs
//! no fewer moves) and a transposition table of the depth left at each state.
//!
//! DriftingDroids forbids rebounds as its solver does: a robot may not move along the line
//! of its own previous move, neither back the way it came nor on in the same direction,
//! whatever the other robots did in between.

use crate::board::{Cell, Direction, CELLS};
use crate::puzzle::{Move, Puzzle, MAX_ROBOTS};
use crate::solver::{lower_bounds, SearchStats, Solution, Solver, Unsolved, UNREACHABLE};
use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::time::Instant;

/// What a solution may do, besides sliding robots.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    /// Whether a robot may move along the line of its own previous move.
    pub rebounds: bool,
}

impl Rules {
    /// Today's rule, as Fogleman's program and the board game's first edition play it.
    pub const STANDARD: Rules = Rules { rebounds: true };

    /// Short names of the rules that differ from [`Rules::STANDARD`] (empty for it).
    pub fn differences(self) -> Vec<&'static str> {
        let mut names = Vec::new();
        if !self.rebounds {
            names.push("no-rebounds");
        }
        names
    }
}

impl Default for Rules {
    fn default() -> Rules {
        Rules::STANDARD
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.differences()[..] {
            [] => f.write_str("standard"),
            ref names => f.write_str(&names.join(",")),
        }
    }
}

/// Finds a proven optimal solution of `puzzle` under `rules` of at most `max_moves`.
pub fn solve(puzzle: &Puzzle, rules: Rules, max_moves: u8) -> Result<Solution, Unsolved> {
    if rules == Rules::STANDARD {
        return Solver::with_limits(max_moves, crate::solver::DEFAULT_TABLE_BYTES).solve(puzzle);
    }
    let started = Instant::now();
    let mut search = Restricted::new(puzzle, rules);
    let mut start = State {
        robots: [0; MAX_ROBOTS],
        lines: [Line::None; MAX_ROBOTS],
    };
    start.robots[..search.count].copy_from_slice(puzzle.robots());
    let first = search.bound(&start);
    if first == UNREACHABLE {
        return Err(Unsolved::Unreachable);
    }
    for limit in first.max(1)..=max_moves.min(254) {
        search.path.clear();
        if search.dfs(&start, limit) {
            return Ok(Solution {
                moves: search.path,
                stats: SearchStats {
                    states: search.states,
                    elapsed: started.elapsed(),
                },
            });
        }
    }
    Err(Unsolved::TooLong(max_moves))
}

/// The line of a robot's last move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Line {
    None,
    NorthSouth,
    EastWest,
}

impl Line {
    fn of(dir: Direction) -> Line {
        match dir {
            Direction::North | Direction::South => Line::NorthSouth,
            Direction::East | Direction::West => Line::EastWest,
        }
    }
}

/// Robot cells and the lines of their last moves; entries past the puzzle's robots are
/// unused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct State {
    robots: [Cell; MAX_ROBOTS],
    lines: [Line; MAX_ROBOTS],
}

/// Most states the table keeps before it starts afresh (a lost entry only means a state
/// is searched again): about 400 MB.
const TABLE_LIMIT: usize = 1 << 24;

/// A hasher for keys that are already well-mixed integers once multiplied.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.write_u64(self.0 << 8 | u64::from(byte));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

struct Restricted<'p> {
    puzzle: &'p Puzzle,
    rules: Rules,
    count: usize,
    /// Moves a finishing robot needs from each cell, by the line of its last move.
    lower_bound: [[u8; CELLS]; 3],
    /// The most moves each state was searched with, without a solution.
    searched: HashMap<u64, u8, BuildHasherDefault<KeyHasher>>,
    path: Vec<Move>,
    states: u64,
}

impl<'p> Restricted<'p> {
    fn new(puzzle: &'p Puzzle, rules: Rules) -> Restricted<'p> {
        Restricted {
            puzzle,
            rules,
            count: puzzle.robots().len(),
            lower_bound: line_bounds(puzzle, rules),
            searched: HashMap::default(),
            path: Vec::new(),
            states: 0,
        }
    }

    /// Moves at least still needed: the fewest of any robot allowed to finish.
    fn bound(&self, state: &State) -> u8 {
        (0..self.count)
            .filter(|&robot| self.puzzle.may_finish(robot))
            .map(|robot| {
                self.lower_bound[state.lines[robot] as usize][state.robots[robot] as usize]
            })
            .min()
            .unwrap_or(UNREACHABLE)
    }

    /// The state's table key: robots that cannot finish are interchangeable (all of them
    /// for the vortex), so theirs are sorted; 10 bits per robot, 50 at most.
    fn key(&self, state: &State) -> u64 {
        let mut parts = [0u64; MAX_ROBOTS];
        for (part, (&cell, &line)) in parts.iter_mut().zip(state.robots.iter().zip(&state.lines)) {
            *part = u64::from(cell) << 2 | line as u64;
        }
        let interchangeable = match self.puzzle.target().colour {
            Some(colour) => {
                parts.swap(0, colour.robot());
                1..self.count
            }
            None => 0..self.count,
        };
        parts[interchangeable].sort_unstable();
        parts[..self.count]
            .iter()
            .fold(0, |key, &part| key << 10 | part)
    }

    /// Whether a solution of at most `left` more moves exists from `state` (pushed onto
    /// `path` if so).
    fn dfs(&mut self, state: &State, left: u8) -> bool {
        self.states += 1;
        let bound = self.bound(state);
        if left == 0 || bound > left {
            return false;
        }
        let key = self.key(state);
        if self.searched.get(&key).is_some_and(|&done| done >= left) {
            return false;
        }
        // With no move to spare, every move must bring the target's robot one closer:
        // no other robot's move changes its bound.
        let movers = match self.puzzle.target().colour {
            Some(colour) if bound == left => colour.robot()..colour.robot() + 1,
            _ => 0..self.count,
        };
        for robot in movers {
            for dir in Direction::ALL {
                if !self.rules.rebounds && state.lines[robot] == Line::of(dir) {
                    continue;
                }
                let step = Move {
                    robot: robot as u8,
                    dir,
                };
                let to = self.puzzle.slide(&state.robots[..self.count], step);
                if to == state.robots[robot] {
                    continue;
                }
                let mut next = *state;
                next.robots[robot] = to;
                next.lines[robot] = Line::of(dir);
                self.path.push(step);
                let finished = to == self.puzzle.target().cell && self.puzzle.may_finish(robot);
                if finished || self.dfs(&next, left - 1) {
                    return true;
                }
                self.path.pop();
            }
        }
        if self.searched.len() >= TABLE_LIMIT {
            self.searched.clear();
        }
        self.searched.insert(key, left);
        false
    }
}

/// The admissible bound by the line of the robot's last move: the moves it needs if it
/// could stop anywhere, its moves alternating between the lines when rebounds are
/// forbidden (relaxed routes lose nothing by alternating; only the first move is barred
/// from the line the robot last moved on).
fn line_bounds(puzzle: &Puzzle, rules: Rules) -> [[u8; CELLS]; 3] {
    let plain = lower_bounds(puzzle.board(), puzzle.target().cell);
    if rules.rebounds {
        return [plain; 3];
    }
    let board = puzzle.board();
    let target = puzzle.target().cell;
    let mut bounds = [plain, [UNREACHABLE; CELLS], [UNREACHABLE; CELLS]];
    for line in [Line::NorthSouth, Line::EastWest] {
        bounds[line as usize][target as usize] = 0;
    }
    let mut changed = true;
    while changed {
        changed = false;
        for cell in board.cells() {
            if cell == target {
                continue;
            }
            for line in [Line::NorthSouth, Line::EastWest] {
                let mut best = bounds[line as usize][cell as usize];
                for dir in Direction::ALL
                    .into_iter()
                    .filter(|&dir| Line::of(dir) != line)
                {
                    let mut at = cell;
                    while let Some(next) = board.step_open(at, dir) {
                        at = next;
                        let after = bounds[Line::of(dir) as usize][at as usize];
                        best = best.min(after.saturating_add(1));
                    }
                }
                if best < bounds[line as usize][cell as usize] {
                    bounds[line as usize][cell as usize] = best;
                    changed = true;
                }
            }
        }
    }
    bounds
}

/// Whether `moves` obey `rules` (a solution's replay checks the slides themselves).
pub fn obeys(moves: &[Move], rules: Rules, robots: usize) -> bool {
    let mut lines = vec![Line::None; robots];
    moves.iter().all(|step| {
        let Some(line) = lines.get_mut(step.robot as usize) else {
            return false;
        };
        let allowed = rules.rebounds || *line != Line::of(step.dir);
        *line = Line::of(step.dir);
        allowed
    })
}

#[cfg(test)]
mod tests;
