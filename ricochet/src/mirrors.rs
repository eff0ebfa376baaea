//! Diagonal walls ("mirrors") of the game's second edition, as K. Cox's solver plays them.
//!
//! A mirror stands on a cell and has a colour. A robot of that colour passes through it;
//! any other robot is turned a quarter and slides on. No robot stops on a mirror cell: a
//! slide is a chain of straight legs, each ending at a wall, a robot or a turning mirror,
//! and the robot stops at the end of the first leg that is not a mirror cell. A leg that
//! cannot start (a wall or a robot right after a turn, or past a mirror it crossed) ends
//! the move where it is, and a move that would end on a mirror cell is no move at all.

use crate::board::{Board, Cell, Direction, CELLS};
use crate::puzzle::Colour;

/// A diagonal wall: `\` leans left (its top on the left), `/` leans right.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mirror {
    pub leans_left: bool,
    /// The colour of the robot that passes through it.
    pub colour: Colour,
}

impl Mirror {
    /// The direction a robot moving in `dir` leaves the mirror in, when it is turned.
    pub fn turn(self, dir: Direction) -> Direction {
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

/// Moves a robot that could stop anywhere needs from each cell to `target` on a board
/// with mirrors, whatever its colour (at every mirror it may pass or turn): an admissible
/// lower bound for every robot. `UNREACHABLE` (the solver's) where it cannot get there.
pub fn relaxed_bounds(board: &Board, target: Cell) -> [u8; CELLS] {
    let mut reach: Vec<Vec<Cell>> = vec![Vec::new(); CELLS];
    for cell in board.cells().filter(|&c| !board.is_blocked(c)) {
        let mut seen = [[false; 4]; CELLS];
        let mut stack: Vec<(Cell, Direction)> = Direction::ALL.map(|dir| (cell, dir)).to_vec();
        while let Some((at, dir)) = stack.pop() {
            let Some(next) = board.step_open(at, dir) else {
                continue;
            };
            if std::mem::replace(&mut seen[next as usize][dir as usize], true) {
                continue;
            }
            match board.mirror(next) {
                Some(mirror) => {
                    stack.push((next, dir));
                    stack.push((next, mirror.turn(dir)));
                }
                None => {
                    reach[cell as usize].push(next);
                    stack.push((next, dir));
                }
            }
        }
    }
    let mut bounds = [crate::solver::UNREACHABLE; CELLS];
    bounds[target as usize] = 0;
    let mut changed = true;
    while changed {
        changed = false;
        for cell in 0..CELLS {
            let best = (reach[cell].iter())
                .map(|&to| bounds[to as usize].saturating_add(1))
                .min()
                .unwrap_or(crate::solver::UNREACHABLE);
            if best < bounds[cell] {
                bounds[cell] = best;
                changed = true;
            }
        }
    }
    bounds
}
