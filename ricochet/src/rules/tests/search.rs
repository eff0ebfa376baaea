//! The search against the plain breadth-first search under every rule set: the same
//! counts, the two ricochet rules and the minimum number of moves told apart, and a
//! watched search's progress.

use super::*;

#[test]
fn the_search_agrees_with_a_plain_bfs_under_every_rule_set() {
    let mut rng = PyRandom::new(23);
    let mut differ = [0; ALL_RULES.len()];
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
                    assert!(
                        obeys(&puzzle, &solution.moves, rules),
                        "case {case} {rules}"
                    );
                }
                (Err(Unsolved::Unreachable | Unsolved::TooLong(_)), None) => {}
                (found, expected) => panic!("case {case} {rules}: {found:?} vs {expected:?}"),
            }
            counts.push(expected);
        }
        for (rule, count) in counts.iter().enumerate() {
            differ[rule] += usize::from(*count != counts[0]);
        }
    }
    // Each rule matters on these boards: some puzzles need more moves under it.
    assert!(
        differ[1..].iter().all(|&n| n >= 10),
        "{differ:?} puzzles differ"
    );
}

/// The ricochet rules differ where DriftingDroids waives its own (no robot reaches the
/// target at once) and the rulebook still asks for a turn; the minimum refuses exactly
/// the positions the plain search solves in fewer moves.
#[test]
fn the_two_ricochet_rules_differ_and_the_minimum_refuses_short_positions() {
    let mut rng = PyRandom::new(24);
    let (mut official_only, mut refused, mut judged) = (0, 0, 0);
    for case in 0..240 {
        let puzzle = random_puzzle(&mut rng, [5, 6][case % 2], 1 + case % 3);
        let official = reference_moves(&puzzle, RICOCHET);
        let dd = reference_moves(&puzzle, DD_RICOCHET);
        if !dd_reachable_at_once(&puzzle) {
            assert_eq!(dd, reference_moves(&puzzle, Rules::STANDARD), "case {case}");
            official_only += usize::from(official != dd);
        }
        let minimum = Rules {
            min_moves: 3,
            ..Rules::STANDARD
        };
        match (
            judge(&puzzle, minimum, 40),
            reference_moves(&puzzle, Rules::STANDARD),
        ) {
            (Ok(Verdict::Refused(solution)), Some(moves)) => {
                assert!(moves < 3 && solution.moves.len() == moves, "case {case}");
                refused += 1;
            }
            (Ok(Verdict::Solved(solution)), Some(moves)) => {
                assert!(moves >= 3 && solution.moves.len() == moves, "case {case}");
                judged += 1;
            }
            (Err(_), None) => {}
            (verdict, moves) => panic!("case {case}: {verdict:?} vs {moves:?}"),
        }
    }
    assert!(official_only >= 5, "{official_only}");
    assert!(
        refused >= 5 && judged >= 5,
        "{refused} refused, {judged} judged"
    );
}

/// A watched search under rules that restrict moves ends with its progress at the answer:
/// the bound that solved it and every state it searched.
#[test]
fn a_watched_search_reports_its_bound_and_states() {
    let puzzle = crate::fogleman::Game::generate(1).unwrap().puzzle();
    let rules = Rules::parse("no-rebounds").unwrap();
    let progress = SearchProgress::default();
    let solution = solve_watched(&puzzle, rules, 40, &progress).unwrap();
    assert_eq!(Some(solution.moves.len()), reference_moves(&puzzle, rules));
    assert_eq!(
        progress.bound.load(Ordering::Relaxed) as usize,
        solution.moves.len()
    );
    assert_eq!(
        progress.states.load(Ordering::Relaxed),
        solution.stats.states
    );
    assert!(solution.stats.states > 0);
}

/// Searches long enough for the fast solver's raised bounds and helper tests (from a
/// bound of 7 moves on, the wider test from 10), which the rule search borrows, agree
/// with the plain search: positions of three robots on 10×10 boards and of two on 16×16
/// boards needing 7 moves or more today, under the rules whose answers differ most.
#[test]
fn long_searches_under_rules_agree_with_a_plain_bfs() {
    let mut rng = PyRandom::new(45);
    let (mut long, mut longer, mut searched) = (0, 0, 0);
    let mut solver = Solver::new();
    while long < 24 {
        let (size, robots) = [(10, 3), (16, 2)][long % 2];
        let puzzle = random_puzzle(&mut rng, size, robots);
        let today = solver
            .solve(&puzzle)
            .map_or(0, |solution| solution.moves.len());
        if puzzle.target().colour.is_none() || today < 7 {
            continue;
        }
        long += 1;
        longer += usize::from(today >= 10);
        for rules in [NO_REBOUNDS, RICOCHET, ALL_RULES[4]] {
            let expected = reference_moves(&puzzle, rules);
            let solution = match (solve(&puzzle, rules, 40), expected) {
                (Ok(solution), _) => solution,
                (Err(Unsolved::Unreachable | Unsolved::TooLong(_)), None) => continue,
                (found, expected) => panic!("{puzzle:?} {rules}: {found:?} vs {expected:?}"),
            };
            assert_eq!(Some(solution.moves.len()), expected, "{puzzle:?} {rules}");
            assert!(puzzle.is_solution(&solution.moves), "{puzzle:?} {rules}");
            assert!(obeys(&puzzle, &solution.moves, rules), "{puzzle:?} {rules}");
            // Today's answer did not obey the rules: the rule search itself ran.
            searched += usize::from(solution.moves.len() > today);
        }
    }
    assert!(
        longer >= 3 && searched >= 10,
        "{longer} of 10 moves or more, {searched} searched"
    );
}

/// The rule search's bound on a board without mirrors equals the plain relaxation: for
/// every (turned, last line, cell), the fewest moves the rules allow a robot that may
/// stop anywhere, settled by relaxing every entry until nothing changes.
#[test]
fn straight_bounds_are_the_relaxed_distances_under_the_rules() {
    use crate::board::CELLS;
    use mover::Line;
    let mut rng = PyRandom::new(31);
    let mut compared = 0;
    for case in 0..60 {
        let size = [5, 8, 16][case % 3];
        let puzzle = random_puzzle(&mut rng, size, 1 + case % 3);
        let (board, target) = (puzzle.board(), puzzle.target().cell);
        for (rebounds, must_turn) in [(false, false), (true, true), (false, true)] {
            let rules = Rules {
                rebounds,
                ..Rules::STANDARD
            };
            let lines = [Line::None, Line::NorthSouth, Line::EastWest];
            let mut expected = [[[UNREACHABLE; CELLS]; 3]; 2];
            let mut changed = true;
            while changed {
                changed = false;
                for cell in board.cells() {
                    for turned in [false, true] {
                        for line in lines {
                            for dir in Direction::ALL {
                                if !rebounds && Line::of(dir) == line {
                                    continue;
                                }
                                let turned_now = turned || line.turns_to(dir);
                                let mut at = cell;
                                while let Some(next) = board.step_open(at, dir) {
                                    at = next;
                                    let finishes = at == target && (turned_now || !must_turn);
                                    let after = expected[usize::from(turned_now)]
                                        [Line::of(dir) as usize]
                                        [at as usize];
                                    let moves = if finishes { 0 } else { after };
                                    let entry = &mut expected[usize::from(turned)][line as usize]
                                        [cell as usize];
                                    if moves.saturating_add(1) < *entry {
                                        *entry = moves + 1;
                                        changed = true;
                                    }
                                }
                            }
                        }
                    }
                }
            }
            let found = bounds::straight_bounds(&puzzle, rules, must_turn);
            assert!(
                found == expected,
                "case {case}, {rules}, must turn {must_turn}"
            );
            compared += 1;
        }
    }
    assert_eq!(compared, 180);
}
