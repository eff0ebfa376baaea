//! The admissible bounds of the rule search: the moves a robot that may finish needs if
//! it could stop anywhere, under the same rules, by whether it has turned, the line of its
//! last move and its cell. Apart from the search, which only reads them.

use super::mover::{Line, Mover};
use super::rule_set::Rules;
use crate::board::{Cell, Direction, CELLS};
use crate::puzzle::Puzzle;
use crate::solver::{lower_bounds, UNREACHABLE};

/// The admissible bound of a robot that may finish, by whether it has turned, the line
/// of its last move and its cell: the moves it needs if it could stop anywhere on a
/// straight wall-free line, under the same rules. Without rebounds a move may not follow
/// the robot's last line, and where the ricochet rule asks for a turn the robot finishes
/// only once it has turned (a robot that has not yet turned needs at least two moves).
/// A fixed point over (turned, line, cell), 1,536 entries; where neither rule applies, the
/// fast solver's table for every entry. The same for every robot, but on a board with
/// mirrors: there each robot's colour's walks ([`crate::mirrors::Walks::relaxed_bounds`])
/// for every entry, and only for the robots that may finish.
pub(super) fn relaxed_bounds(
    puzzle: &Puzzle,
    rules: Rules,
    mover: &Mover<'_>,
) -> Vec<[[[u8; CELLS]; 3]; 2]> {
    let robots = puzzle.robots().len();
    if mover.walks().is_some() {
        // Only the robots that may finish read theirs.
        let bounds = |colour| {
            (puzzle
                .may_finish(colour)
                .then(|| mover.walk_bounds(colour))
                .flatten())
            .unwrap_or([UNREACHABLE; CELLS])
        };
        return (0..robots).map(|colour| [[bounds(colour); 3]; 2]).collect();
    }
    vec![straight_bounds(puzzle, rules, mover.must_turn); robots]
}

/// [`relaxed_bounds`] on a board without mirrors: breadth first from the target, over the
/// moves reversed. The entries a move in `dir` that passes `at` comes from are the cells
/// behind `at` (the other way along its wall-bounded line), with every turned bit and last
/// line that allows the move and leaves the robot turned as `turned_after` says.
pub(super) fn straight_bounds(
    puzzle: &Puzzle,
    rules: Rules,
    must_turn: bool,
) -> [[[u8; CELLS]; 3]; 2] {
    let plain = lower_bounds(puzzle.board(), puzzle.target().cell);
    if rules.rebounds && !must_turn {
        return [[plain; 3]; 2];
    }
    let board = puzzle.board();
    let lines = [Line::None, Line::NorthSouth, Line::EastWest];
    let mut bounds = [[[UNREACHABLE; CELLS]; 3]; 2];
    let mut queue = Queue::new();
    // Gives every unreached entry a move in `dir` through `at` comes from `moves`, if the
    // robot's turned bit after that move passes `turned_after`.
    type Queue = std::collections::VecDeque<(bool, Line, Cell)>;
    let reach_behind = |(bounds, queue): (&mut [[[u8; CELLS]; 3]; 2], &mut Queue),
                        at: Cell,
                        dir: Direction,
                        moves: u8,
                        turned_after: &dyn Fn(bool) -> bool| {
        let mut cell = at;
        while let Some(behind) = board.step_open(cell, dir.opposite()) {
            cell = behind;
            for turned in [false, true] {
                for line in lines {
                    let allowed = rules.rebounds || Line::of(dir) != line;
                    let entry = &mut bounds[usize::from(turned)][line as usize][cell as usize];
                    if allowed
                        && *entry == UNREACHABLE
                        && turned_after(turned || line.turns_to(dir))
                    {
                        *entry = moves;
                        queue.push_back((turned, line, cell));
                    }
                }
            }
        }
    };
    // One move: one that passes the target and may finish there.
    for dir in Direction::ALL {
        let target = puzzle.target().cell;
        reach_behind((&mut bounds, &mut queue), target, dir, 1, &|turned| {
            turned || !must_turn
        });
    }
    while let Some((turned, line, at)) = queue.pop_front() {
        let moves = bounds[usize::from(turned)][line as usize][at as usize] + 1;
        for dir in Direction::ALL
            .into_iter()
            .filter(|&dir| Line::of(dir) == line)
        {
            reach_behind((&mut bounds, &mut queue), at, dir, moves, &|after| {
                after == turned
            });
        }
    }
    bounds
}
