//! The restricted search against a plain breadth-first search written here, on random
//! small boards under every rule set, and every answer replayed.
//!
//! This module holds that plain search, its slides and the random boards (other modules'
//! tests use them too); the tests live in its children by topic.

mod mirrors;
mod rule_sets;
mod search;
mod without_rebounds;

use super::*;
use crate::board::{Board, Cell, Direction};
use crate::mt::PyRandom;
use crate::puzzle::{Colour, Target};
use std::collections::VecDeque;

const NO_REBOUNDS: Rules = Rules {
    rebounds: false,
    ..Rules::STANDARD
};
const RICOCHET: Rules = Rules {
    ricochet: Ricochet::Official,
    ..Rules::STANDARD
};
const DD_RICOCHET: Rules = Rules {
    ricochet: Ricochet::DriftingDroids,
    ..Rules::STANDARD
};
pub(crate) const ALL_RULES: [Rules; 5] = [
    Rules::STANDARD,
    NO_REBOUNDS,
    RICOCHET,
    DD_RICOCHET,
    Rules {
        rebounds: false,
        ricochet: Ricochet::Official,
        min_moves: 0,
    },
];

/// A random `size`×`size` board with a few walls, `robots` robots and a target.
pub(crate) fn random_puzzle(rng: &mut PyRandom, size: usize, robots: usize) -> Puzzle {
    loop {
        let mut walls = vec![0u32; size * size];
        for _ in 0..size * 2 {
            let cell = rng.randint(0, (size * size - 1) as u32) as usize;
            let (x, y) = (cell % size, cell / size);
            if rng.randint(0, 1) == 0 && x + 1 < size {
                walls[cell] |= 2;
                walls[cell + 1] |= 8;
            } else if y + 1 < size {
                walls[cell] |= 4;
                walls[cell + size] |= 1;
            }
        }
        let Ok(board) = Board::new(size, size, &walls, &[]) else {
            continue;
        };
        let mut cells: Vec<Cell> = Vec::new();
        while cells.len() < robots + 1 {
            let index = rng.randint(0, (size * size - 1) as u32);
            let cell = board.cell_checked(i64::from(index)).unwrap();
            if !cells.contains(&cell) && !board.is_blocked(cell) {
                cells.push(cell);
            }
        }
        let target_cell = cells.pop().unwrap();
        let colour = match rng.randint(0, robots as u32) as usize {
            wild if wild == robots => None,
            robot => Some(Colour::ALL[robot]),
        };
        let target = Target {
            cell: target_cell,
            colour,
            shape: None,
        };
        if let Ok(puzzle) = Puzzle::new(board, cells, target) {
            return puzzle;
        }
    }
}

/// DriftingDroids' condition for its ricochet rule, as its documentation states it: a
/// robot that may finish stands on the target, or sliding straight with the other robots
/// lifted off the board passes the target, which a wall or a robot just past it stops.
fn dd_reachable_at_once(puzzle: &Puzzle) -> bool {
    let robots = puzzle.robots();
    let target = puzzle.target().cell;
    (0..robots.len()).any(|robot| {
        if !puzzle.may_finish(robot) {
            return false;
        }
        if robots[robot] == target {
            return true;
        }
        Direction::ALL.iter().any(|&dir| {
            let mut ray = vec![robots[robot]];
            while let Some(next) = puzzle.board().step_open(*ray.last().unwrap(), dir) {
                ray.push(next);
            }
            ray.iter()
                .position(|&c| c == target)
                .is_some_and(|at| at + 1 == ray.len() || robots.contains(&ray[at + 1]))
        })
    })
}

/// A slide as K. Cox's solver describes it, by steps of (dx, dy): a mirror `\` swaps
/// them, `/` swaps and negates them, for robots of other colours than the mirror's. Legs
/// end at walls, robots and turns; the robot stops after the first leg that ends off a
/// mirror, and a leg that cannot start leaves it where it was.
fn reference_slide(puzzle: &Puzzle, robots: &[Cell], robot: usize, dir: Direction) -> Cell {
    let board = puzzle.board();
    let start = robots[robot];
    let (mut dx, mut dy): (i32, i32) = match dir {
        Direction::North => (0, -1),
        Direction::East => (1, 0),
        Direction::South => (0, 1),
        Direction::West => (-1, 0),
    };
    let heading = |dx: i32, dy: i32| match (dx, dy) {
        (0, -1) => Direction::North,
        (1, 0) => Direction::East,
        (0, 1) => Direction::South,
        _ => Direction::West,
    };
    let mut at = start;
    for _ in 0..2048 {
        let leg_start = at;
        while let Some(next) = board.step_open(at, heading(dx, dy)) {
            if next != start && robots.contains(&next) {
                break;
            }
            at = next;
            match board.mirror(at) {
                Some(m) if m.colour != Colour::ALL[robot] => {
                    (dx, dy) = if m.leans_left { (dy, dx) } else { (-dy, -dx) };
                    break;
                }
                _ => {}
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

/// Breadth-first over (robot cells, each robot's last direction, whether each has
/// turned), the rules applied move by move as they read: no search tricks.
pub(crate) fn reference_moves(puzzle: &Puzzle, rules: Rules) -> Option<usize> {
    reference_moves_within(puzzle, rules, usize::MAX)
}

/// [`reference_moves`], looking no further than `most` moves.
pub(crate) fn reference_moves_within(puzzle: &Puzzle, rules: Rules, most: usize) -> Option<usize> {
    type Node = (Vec<Cell>, Vec<Option<Direction>>, Vec<bool>);
    let count = puzzle.robots().len();
    let at_once = rules.ricochet == Ricochet::DriftingDroids && dd_reachable_at_once(puzzle);
    let must_turn = rules.ricochet == Ricochet::Official || at_once;
    // Today's rule needs neither the last moves nor the turns: leaving them out keeps the
    // positions of four and five robots countable.
    let tracks = !rules.rebounds || must_turn;
    let start: Node = (
        puzzle.robots().to_vec(),
        vec![None; count],
        vec![false; count],
    );
    // Seen nodes packed in 12 bits per robot (cell, last direction, turned).
    let pack = |(robots, last, turned): &Node| {
        (0..robots.len()).fold(0u64, |key, robot| {
            let dir = last[robot].map_or(0, |dir| dir as u64 + 1);
            key << 12 | u64::from(robots[robot]) << 4 | dir << 1 | u64::from(turned[robot])
        })
    };
    let mut seen = std::collections::HashSet::from([pack(&start)]);
    let mut queue = VecDeque::from([(start, 0usize)]);
    while let Some(((robots, last, turned), depth)) = queue.pop_front() {
        if depth >= most {
            break;
        }
        for robot in 0..robots.len() {
            for dir in Direction::ALL {
                let along =
                    last[robot].is_some_and(|before| before == dir || before == dir.opposite());
                if !rules.rebounds && along {
                    continue;
                }
                let turns = last[robot].is_some() && !along;
                let at = reference_slide(puzzle, &robots, robot, dir);
                if at == robots[robot] {
                    continue;
                }
                let on_target = at == puzzle.target().cell && puzzle.may_finish(robot);
                if on_target && (!must_turn || turned[robot] || turns) {
                    return Some(depth + 1);
                }
                if on_target && at_once {
                    continue; // DriftingDroids: not on the target before the end
                }
                let mut next = (robots.clone(), last.clone(), turned.clone());
                next.0[robot] = at;
                if tracks {
                    next.1[robot] = Some(dir);
                    next.2[robot] |= turns;
                }
                if seen.insert(pack(&next)) {
                    queue.push_back((next, depth + 1));
                }
            }
        }
    }
    None
}
