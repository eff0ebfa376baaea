//! Rule sets written and read back, and named; `obeys` telling rebounds and finishes
//! without a turn on an open board.

use super::*;

#[test]
fn rule_sets_read_back_what_they_write() {
    for rules in ALL_RULES {
        assert_eq!(Rules::parse(&rules.to_string()), Ok(rules));
    }
    let all = Rules::parse("no-rebounds, dd-ricochet,min-moves=3").unwrap();
    assert_eq!(all.to_string(), "no-rebounds,dd-ricochet,min-moves=3");
    assert_eq!(
        Rules::parse("ricochet,dd-ricochet"),
        Err(RulesError::TwoRicochets("ricochet,dd-ricochet".into()))
    );
    assert_eq!(
        Rules::parse("min-moves=99"),
        Err(RulesError::MinMoves("99".into()))
    );
    assert_eq!(
        Rules::parse("bounce"),
        Err(RulesError::Unknown("bounce".into()))
    );
}

#[test]
fn rule_sets_name_what_differs() {
    assert_eq!(Rules::STANDARD.to_string(), "standard");
    assert_eq!(NO_REBOUNDS.to_string(), "no-rebounds");
    assert_eq!(Rules::default(), Rules::STANDARD);
}

/// An open 5×5 board, robot 0 in the top-left corner and robot 1 at the centre; robot
/// 0's target at `target` (`x + 5 y`).
fn open_board(target: i64) -> Puzzle {
    let board = Board::new(5, 5, &[0; 25], &[]).unwrap();
    let cell = |i| board.cell_checked(i).unwrap();
    let target = Target {
        cell: cell(target),
        colour: Some(Colour::Red),
        shape: None,
    };
    Puzzle::new(board.clone(), vec![cell(0), cell(12)], target).unwrap()
}

#[test]
fn obeys_tells_rebounds_by_robot() {
    let puzzle = open_board(24);
    let m = |robot, dir| Move { robot, dir };
    let back = [
        m(0, Direction::East),
        m(1, Direction::North),
        m(0, Direction::West),
    ];
    assert!(obeys(&puzzle, &back, Rules::STANDARD));
    assert!(!obeys(&puzzle, &back, NO_REBOUNDS));
    let on = [m(0, Direction::East), m(0, Direction::East)];
    assert!(!obeys(&puzzle, &on, NO_REBOUNDS));
    let turns = [
        m(0, Direction::East),
        m(1, Direction::East),
        m(0, Direction::South),
    ];
    assert!(obeys(&puzzle, &turns, NO_REBOUNDS));
    assert!(!obeys(&puzzle, &[m(2, Direction::East)], NO_REBOUNDS));
}

#[test]
fn obeys_tells_a_finish_without_a_turn() {
    let m = |robot, dir| Move { robot, dir };
    // Target in the top-right corner: one straight move away.
    let straight = open_board(4);
    assert!(reachable_at_once(&straight));
    let at_once = [m(0, Direction::East)];
    assert!(obeys(&straight, &at_once, Rules::STANDARD));
    assert!(!obeys(&straight, &at_once, RICOCHET));
    assert!(!obeys(&straight, &at_once, DD_RICOCHET));
    let around = [
        m(0, Direction::South),
        m(0, Direction::East),
        m(0, Direction::North),
    ];
    assert!(obeys(&straight, &around, RICOCHET));
    // Bottom-right corner: two moves, with a turn.
    let corner = open_board(24);
    assert!(obeys(
        &corner,
        &[m(0, Direction::South), m(0, Direction::East)],
        RICOCHET
    ));
    // Next to the corner: robot 1 comes north as a blocker, robot 0 goes straight east.
    // DriftingDroids asks nothing of a target no robot reaches at once; the rulebook does.
    let blocked = open_board(1);
    assert!(!reachable_at_once(&blocked));
    let no_turn = [m(1, Direction::North), m(0, Direction::East)];
    assert!(blocked.is_solution(&no_turn));
    assert!(obeys(&blocked, &no_turn, DD_RICOCHET));
    assert!(!obeys(&blocked, &no_turn, RICOCHET));
}
