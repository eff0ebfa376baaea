//! Quality metrics of a solved puzzle, for record lists and puzzle packs: how many optimal
//! solutions it has, how many robots and ricochets its solution uses, and how much the
//! other robots help (the solo distance of the robot that must finish).

use crate::board::{Cell, Direction, CELLS};
use crate::puzzle::{robots_moved, Move, Puzzle};
use crate::rules::Rules;
use crate::solver::{lower_bounds, UNREACHABLE};
use std::collections::{HashMap, VecDeque};

/// States a solution count visits at most unless told otherwise (about 1–2 s of CPU).
pub const COUNT_STATES: usize = 2_000_000;

/// How far optimal solutions are counted: up to `cap` solutions, visiting at most
/// `states` states (past that the count is unknown).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counting {
    pub cap: u64,
    pub states: usize,
}

impl Counting {
    /// Up to `cap` solutions within [`COUNT_STATES`] states.
    pub fn up_to(cap: u64) -> Counting {
        Counting {
            cap,
            states: COUNT_STATES,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Metrics {
    /// Distinct optimal move sequences, up to the cap; `None` when the count ran out of budget.
    pub optimal_solutions: Option<u64>,
    /// Whether `optimal_solutions` reached the cap (there may be more).
    pub capped: bool,
    pub robots_moved: usize,
    /// Moves of the solution that stop against a robot rather than a wall.
    pub ricochets: usize,
    /// Moves the finishing robot needs alone, the others standing still; `None` if it
    /// cannot get there alone.
    pub solo_moves: Option<u8>,
}

impl Metrics {
    /// Extra moves the finishing robot needs alone, beyond the optimum.
    pub fn solo_gap(&self, optimum: usize) -> Option<usize> {
        self.solo_moves
            .map(|solo| usize::from(solo).saturating_sub(optimum))
    }
}

/// [`metrics`] of a puzzle played under `rules`: optimal solutions are counted over
/// straight slides with every move allowed, so under rules that restrict the moves of
/// this position, or on a board with mirrors, their count is unknown (`None`).
pub fn metrics_under(
    puzzle: &Puzzle,
    solution: &[Move],
    counting: Counting,
    rules: Rules,
) -> Metrics {
    if crate::rules::fast_solver_plays(puzzle, rules) {
        return metrics(puzzle, solution, counting);
    }
    Metrics {
        optimal_solutions: None,
        capped: false,
        robots_moved: robots_moved(solution),
        ricochets: ricochets(puzzle, solution),
        solo_moves: (!puzzle.board().has_mirrors())
            .then(|| solo_moves(puzzle))
            .flatten(),
    }
}

/// Measures `puzzle` given one optimal `solution`; solutions are counted as `counting` says.
pub fn metrics(puzzle: &Puzzle, solution: &[Move], counting: Counting) -> Metrics {
    let (optimal_solutions, capped) = match count_optimal(puzzle, solution.len() as u8, counting) {
        Some(count) => (Some(count), count >= counting.cap),
        None => (None, false),
    };
    Metrics {
        optimal_solutions,
        capped,
        robots_moved: robots_moved(solution),
        ricochets: ricochets(puzzle, solution),
        solo_moves: solo_moves(puzzle),
    }
}

fn ricochets(puzzle: &Puzzle, solution: &[Move]) -> usize {
    let mut robots = puzzle.robots().to_vec();
    let mut count = 0;
    for &step in solution {
        let to = puzzle.slide(&robots, step);
        let stopped_by_robot = puzzle
            .board()
            .step_open(to, step.dir)
            .is_some_and(|next| robots.contains(&next));
        count += usize::from(stopped_by_robot);
        robots[step.robot as usize] = to;
    }
    count
}

/// BFS over the cells of each robot allowed to finish, the others fixed; the best of them.
fn solo_moves(puzzle: &Puzzle) -> Option<u8> {
    let target = puzzle.target().cell;
    (0..puzzle.robots().len())
        .filter(|&robot| puzzle.may_finish(robot))
        .filter_map(|robot| {
            let mut robots = puzzle.robots().to_vec();
            let mut distance = [u8::MAX; CELLS];
            let mut queue = VecDeque::from([robots[robot]]);
            distance[robots[robot] as usize] = 0;
            while let Some(at) = queue.pop_front() {
                robots[robot] = at;
                for dir in Direction::ALL {
                    let to = puzzle.slide(
                        &robots,
                        Move {
                            robot: robot as u8,
                            dir,
                        },
                    );
                    if to == at {
                        continue;
                    }
                    // A robot starting on the target still has to come back to it.
                    if to == target {
                        return Some(distance[at as usize] + 1);
                    }
                    if distance[to as usize] == u8::MAX {
                        distance[to as usize] = distance[at as usize] + 1;
                        queue.push_back(to);
                    }
                }
            }
            None
        })
        .min()
}

/// Counts move sequences of exactly `moves` moves that solve the puzzle, up to
/// `counting.cap`; `None` if more than `counting.states` states would be needed.
fn count_optimal(puzzle: &Puzzle, moves: u8, counting: Counting) -> Option<u64> {
    let mut counter = Counter {
        puzzle,
        bound: lower_bounds(puzzle.board(), puzzle.target().cell),
        memo: HashMap::new(),
        cap: counting.cap,
        states: counting.states,
    };
    let mut robots = puzzle.robots().to_vec();
    counter.count(&mut robots, moves)
}

struct Counter<'p> {
    puzzle: &'p Puzzle,
    bound: [u8; CELLS],
    /// (exact robot cells, moves left) → solutions from there, capped.
    memo: HashMap<(u64, u8), u64>,
    cap: u64,
    states: usize,
}

impl Counter<'_> {
    fn key(robots: &[Cell]) -> u64 {
        robots.iter().fold(0, |key, &c| key << 8 | u64::from(c))
    }

    fn count(&mut self, robots: &mut [Cell], left: u8) -> Option<u64> {
        let lowest = (0..robots.len())
            .filter(|&r| self.puzzle.may_finish(r))
            .map(|r| self.bound[robots[r] as usize])
            .min()
            .unwrap_or(UNREACHABLE);
        if lowest > left {
            return Some(0);
        }
        let key = (Self::key(robots), left);
        if let Some(&known) = self.memo.get(&key) {
            return Some(known);
        }
        if self.memo.len() >= self.states {
            return None;
        }
        let mut total = 0u64;
        for robot in 0..robots.len() {
            for dir in Direction::ALL {
                let step = Move {
                    robot: robot as u8,
                    dir,
                };
                let from = robots[robot];
                let to = self.puzzle.slide(robots, step);
                if to == from {
                    continue;
                }
                let solutions = if to == self.puzzle.target().cell && self.puzzle.may_finish(robot)
                {
                    // Optimal sequences end at their first arrival.
                    u64::from(left == 1)
                } else if left > 1 {
                    robots[robot] = to;
                    let below = self.count(robots, left - 1);
                    robots[robot] = from;
                    below?
                } else {
                    0
                };
                total = (total + solutions).min(self.cap);
            }
        }
        self.memo.insert(key, total);
        Some(total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Game, Solver};

    #[test]
    fn seed_one_metrics_are_consistent() {
        let puzzle = Game::generate(1).unwrap().puzzle();
        let solution = Solver::new().solve(&puzzle).unwrap().moves;
        let metrics = metrics(&puzzle, &solution, Counting::up_to(1000));
        let count = metrics.optimal_solutions.expect("within budget");
        assert!(count >= 1);
        assert!(metrics.robots_moved >= 1 && metrics.robots_moved <= 4);
        assert!(metrics.ricochets <= solution.len());
        if let Some(solo) = metrics.solo_moves {
            assert!(
                usize::from(solo) >= solution.len(),
                "alone is never shorter"
            );
        }
    }
}
