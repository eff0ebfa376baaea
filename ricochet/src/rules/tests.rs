//! The restricted search against a plain breadth-first search written here, on random
//! small boards under every rule set, and every answer replayed.

use super::*;
use crate::board::Board;
use crate::mt::PyRandom;
use crate::puzzle::{Colour, Target};
use std::collections::VecDeque;

const ALL_RULES: [Rules; 2] = [Rules::STANDARD, Rules { rebounds: false }];

/// A random `size`×`size` board with a few walls, `robots` robots and a target.
fn random_puzzle(rng: &mut PyRandom, size: usize, robots: usize) -> Puzzle {
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

/// Breadth-first over (robot cells, each robot's last direction), the rules applied
/// move by move as they read: no search tricks.
fn reference_moves(puzzle: &Puzzle, rules: Rules) -> Option<usize> {
    type Node = (Vec<Cell>, Vec<Option<Direction>>);
    let start: Node = (puzzle.robots().to_vec(), vec![None; puzzle.robots().len()]);
    let mut seen = std::collections::HashSet::from([start.clone()]);
    let mut queue = VecDeque::from([(start, 0usize)]);
    while let Some(((robots, last), depth)) = queue.pop_front() {
        for robot in 0..robots.len() {
            for dir in Direction::ALL {
                let along =
                    last[robot].is_some_and(|before| before == dir || before == dir.opposite());
                if !rules.rebounds && along {
                    continue;
                }
                let mut at = robots[robot];
                while let Some(next) = puzzle.board().step_open(at, dir) {
                    if robots.contains(&next) {
                        break;
                    }
                    at = next;
                }
                if at == robots[robot] {
                    continue;
                }
                if at == puzzle.target().cell && puzzle.may_finish(robot) {
                    return Some(depth + 1);
                }
                let mut next = (robots.clone(), last.clone());
                next.0[robot] = at;
                next.1[robot] = Some(dir);
                if seen.insert(next.clone()) {
                    queue.push_back((next, depth + 1));
                }
            }
        }
    }
    None
}

#[test]
fn the_search_agrees_with_a_plain_bfs_under_every_rule_set() {
    let mut rng = PyRandom::new(23);
    let mut differ = 0;
    for case in 0..160 {
        let size = [5, 6, 8][case % 3];
        let robots = 1 + case % 3;
        let puzzle = random_puzzle(&mut rng, size, robots);
        let mut counts = Vec::new();
        for rules in ALL_RULES {
            let expected = reference_moves(&puzzle, rules);
            let found = solve(&puzzle, rules, 40);
            match (&found, expected) {
                (Ok(solution), Some(moves)) => {
                    assert_eq!(solution.moves.len(), moves, "case {case} {rules}");
                    assert!(puzzle.is_solution(&solution.moves), "case {case} {rules}");
                    assert!(obeys(&solution.moves, rules, robots), "case {case} {rules}");
                }
                (Err(Unsolved::Unreachable | Unsolved::TooLong(_)), None) => {}
                (found, expected) => panic!("case {case} {rules}: {found:?} vs {expected:?}"),
            }
            counts.push(expected);
        }
        differ += usize::from(counts[0] != counts[1]);
    }
    // The rules matter on these boards: some puzzles need more moves without rebounds.
    assert!(differ >= 10, "only {differ} puzzles differ");
}

#[test]
fn obeys_tells_rebounds_by_robot() {
    let m = |robot, dir| Move { robot, dir };
    let no = Rules { rebounds: false };
    let back = [
        m(0, Direction::East),
        m(1, Direction::North),
        m(0, Direction::West),
    ];
    assert!(obeys(&back, Rules::STANDARD, 2));
    assert!(!obeys(&back, no, 2));
    let on = [m(0, Direction::East), m(0, Direction::East)];
    assert!(!obeys(&on, no, 1));
    let turns = [
        m(0, Direction::East),
        m(1, Direction::East),
        m(0, Direction::South),
    ];
    assert!(obeys(&turns, no, 2));
    assert!(!obeys(&[m(2, Direction::East)], no, 2));
}

#[test]
fn rule_sets_name_what_differs() {
    assert_eq!(Rules::STANDARD.to_string(), "standard");
    assert_eq!(Rules { rebounds: false }.to_string(), "no-rebounds");
    assert_eq!(Rules::default(), Rules::STANDARD);
}
