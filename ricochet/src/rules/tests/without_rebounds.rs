//! Without rebounds: the games where DriftingDroids' search answers longer than rrm's,
//! replayed move by move, and the 44-bit keys of five robots' states.

use super::*;
use crate::rules::mover::Line;
use std::collections::HashMap;

/// Games dealt as DriftingDroids deals them (`DdGame::deal`, 4 robots, seeds 1–2,000)
/// where DriftingDroids' own search without rebounds (the pinned peer, run by
/// `bench/peers/driftingdroids` with `DD_REBOUNDS=no`) answered longer than rrm: the
/// game ID and DriftingDroids' answer (robot, direction). 11 of the 1,868 games both answered differed,
/// always DriftingDroids longer (by 1 to 3 moves): all eleven.
const DRIFTINGDROIDS_LONGER_WITHOUT_REBOUNDS: [(&str, &str); 11] = [
    ("5076+41+2780E6AF+61", "3W 3N 3E 3N 3W 3N 1N 1E"),
    ("F520+41+7C2B14A6+33", "0W 0N 1S 1W 1N 1E 1N 1W"),
    ("8EF9+42+D63CBAD5+CD", "1S 1E 3S 3E 2S 2E 2N 2W"),
    ("6F49+43+F852A363+C2", "3N 3W 3S 3E 3S 3W 3N 3E 3S"),
    ("5B60+40+ACFE5493+B1", "3W 1W 2S 0S 0W 0S 0E 0N 0W 0S"),
    ("976C+42+68BDCA12+59", "3E 3S 3E 3S 3W 3N 2W 2N 2W 2N 2E"),
    ("4217+42+80C656F8+5D", "0E 0N 0E 3E 3N 3W 2W 2N 2E 2S 2W"),
    ("CDA3+41+5B46DCCF+5D", "0N 0E 3N 3W 3N 3E 1W 1S 1E 1N 1E 1S"),
    (
        "AB8D+41+AF22FD1F+A2",
        "3S 1E 1S 1W 0N 0W 0N 0W 0S 1S 1E 1S 1W 1N",
    ),
    (
        "8FE5+41+E140E3F7+3C",
        "3E 3N 2N 2E 2N 2E 2S 1N 1E 1S 1E 1N 1E 1S 1W",
    ),
    (
        "6D47+43+9361E9E0+57",
        "1E 3E 3N 0W 0N 0E 3W 3N 3E 1S 1W 1N 1W 0N 0W 0S 3N 3W 3S 3W",
    ),
];

/// Whether `moves` finish `puzzle` without a rebound, checked move by move with the
/// reference slide: no robot moves along the line of its own previous move, every move
/// moves its robot, and only the last brings a robot that may finish onto the target.
fn finishes_without_rebounds(puzzle: &Puzzle, moves: &[Move]) -> bool {
    let mut at = puzzle.robots().to_vec();
    let mut last: Vec<Option<Direction>> = vec![None; at.len()];
    for (index, step) in moves.iter().enumerate() {
        let robot = usize::from(step.robot);
        if last[robot].is_some_and(|before| before == step.dir || before == step.dir.opposite()) {
            return false;
        }
        let to = reference_slide(puzzle, &at, robot, step.dir);
        if to == at[robot] {
            return false;
        }
        at[robot] = to;
        last[robot] = Some(step.dir);
        let finished = to == puzzle.target().cell && puzzle.may_finish(robot);
        if finished != (index + 1 == moves.len()) {
            return false;
        }
    }
    !moves.is_empty()
}

/// Where DriftingDroids' search without rebounds answers longer, rrm's answer is a valid
/// play without rebounds, shorter than DriftingDroids' (which is valid too, so the rule
/// is the same and DriftingDroids missed the shorter one), and the plain BFS under the
/// rule finds no shorter one.
#[test]
fn without_rebounds_rrm_is_shorter_than_driftingdroids_and_the_bfs_agrees() {
    let rules = Rules::parse("no-rebounds").unwrap();
    for (id, theirs) in DRIFTINGDROIDS_LONGER_WITHOUT_REBOUNDS {
        let puzzle = crate::driftingdroids::DdGame::parse(id)
            .unwrap()
            .puzzle()
            .unwrap();
        let theirs: Vec<Move> = theirs
            .split(' ')
            .map(|step| {
                let (robot, dir) = step.split_at(1);
                Move {
                    robot: robot.parse().unwrap(),
                    dir: Direction::from_letter(dir.chars().next().unwrap()).unwrap(),
                }
            })
            .collect();
        let ours = solve(&puzzle, rules, 40).unwrap().moves;
        assert!(finishes_without_rebounds(&puzzle, &ours), "{id}: {ours:?}");
        assert!(obeys(&puzzle, &ours, rules), "{id}");
        assert!(finishes_without_rebounds(&puzzle, &theirs), "{id}: theirs");
        assert!(ours.len() < theirs.len(), "{id}: {} moves", ours.len());
        assert_eq!(reference_moves(&puzzle, rules), Some(ours.len()), "{id}");
    }
}

/// Five robots without rebounds: the helpers' (cell, line) parts ranked as a set make a
/// 44-bit key that the table takes. Helpers swapped (cells and lines together) keep the
/// key; any other change of a state changes it. Checked on random states of 16×16
/// boards, coloured and wild targets.
#[test]
fn five_robots_without_rebounds_have_44_bit_keys_that_tell_states_apart() {
    let mut rng = PyRandom::new(91);
    let lines = [Line::None, Line::NorthSouth, Line::EastWest];
    for wild in [false, true] {
        let plain = random_puzzle(&mut rng, 16, 5);
        let target = Target {
            colour: (!wild).then_some(Colour::Green),
            ..plain.target()
        };
        let puzzle = Puzzle::new(plain.board().clone(), plain.robots().to_vec(), target).unwrap();
        let mover = Mover::new(&puzzle, NO_REBOUNDS);
        let bits = mover.key_bits();
        assert_eq!(bits, if wild { 41 } else { 44 });
        // Canonical form: the target's robot (if any) as it is, the others sorted.
        let canonical = |state: &State| {
            let mut parts: Vec<(Cell, u8)> = (0..5)
                .map(|robot| (state.robots[robot], state.lines[robot] as u8))
                .collect();
            let first = if wild { 0 } else { 1 };
            parts.swap(0, Colour::Green.robot());
            parts[first..].sort_unstable();
            parts
        };
        let mut by_key = HashMap::new();
        for _ in 0..20_000 {
            let mut state = State::start(&[0; 5]);
            let mut cells = Vec::new();
            while cells.len() < 5 {
                let cell = rng.randint(0, 255) as Cell;
                if !puzzle.board().is_blocked(cell) && !cells.contains(&cell) {
                    cells.push(cell);
                }
            }
            state.robots[..5].copy_from_slice(&cells);
            for line in state.lines.iter_mut() {
                *line = lines[rng.randint(0, 2) as usize];
            }
            let key = mover.key(&state);
            assert!(key < 1 << bits, "{key:#x} wider than {bits} bits");
            let form = canonical(&state);
            let known = by_key.entry(key).or_insert_with(|| form.clone());
            assert_eq!(*known, form, "two states, one key");
            // Two helpers swapped: the same key.
            let (a, b) = if wild { (0, 4) } else { (2, 4) };
            let mut swapped = state;
            swapped.robots.swap(a, b);
            swapped.lines.swap(a, b);
            assert_eq!(mover.key(&swapped), key);
            // A helper's line, or the target's robot's, changed: another key.
            for robot in [3, Colour::Green.robot()] {
                let mut turned = state;
                turned.lines[robot] = lines[(state.lines[robot] as usize + 1) % 3];
                assert_ne!(mover.key(&turned), key);
            }
        }
    }
}
