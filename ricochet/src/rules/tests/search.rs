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
