//! The restricted search against a plain breadth-first search written here, on random
//! small boards under every rule set, and every answer replayed.

use super::mover::Line;
use super::*;
use crate::board::{Board, Cell, Direction};
use crate::mirrors::Walks;
use crate::mt::PyRandom;
use crate::puzzle::{Colour, Target};
use std::collections::{HashMap, VecDeque};

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

#[test]
fn rule_sets_name_what_differs() {
    assert_eq!(Rules::STANDARD.to_string(), "standard");
    assert_eq!(NO_REBOUNDS.to_string(), "no-rebounds");
    assert_eq!(Rules::default(), Rules::STANDARD);
}

/// Random small boards with diagonal walls of random colours: the solver (through the
/// general search) agrees with the plain BFS over the reference slides above, and every
/// solution replays move by move with those slides.
#[test]
fn mirrors_agree_with_a_plain_bfs_on_random_small_boards() {
    let (compared, differ) = mirrors_against_the_plain_bfs(25, 150, |case| 1 + case % 3);
    assert!(compared >= 80, "{compared} compared");
    // The mirrors matter: many positions need another count than without them.
    assert!(differ >= 30, "{differ} differ");
}

/// Four and five robots: more robots to bounce off, and the interchangeable helpers'
/// colours told apart by the mirrors.
#[test]
fn mirrors_with_four_and_five_robots_agree_with_a_plain_bfs() {
    let (compared, differ) = mirrors_against_the_plain_bfs(45, 60, |case| 4 + case % 2);
    assert!(compared >= 30, "{compared} compared");
    assert!(differ >= 10, "{differ} differ");
}

/// `plain` (a `size` × `size` board) with `count` mirrors of random lean and colour on
/// random cells that hold no robot and not the target; `None` when two fall on one cell.
fn with_random_mirrors(
    rng: &mut PyRandom,
    plain: &Puzzle,
    size: usize,
    count: u32,
) -> Option<Puzzle> {
    let mut mirrors = Vec::new();
    for _ in 0..count {
        let index = i64::from(rng.randint(0, (size * size - 1) as u32));
        let cell = plain.board().cell_checked(index).unwrap();
        let taken = plain.robots().contains(&cell) || cell == plain.target().cell;
        if !taken && !plain.board().is_blocked(cell) {
            let colour = Colour::ALL[rng.randint(0, 4) as usize];
            let leans_left = rng.randint(0, 1) == 0;
            mirrors.push((index, crate::mirrors::Mirror { leans_left, colour }));
        }
    }
    let board = plain.board().clone().with_mirrors(&mirrors).ok()?;
    Some(Puzzle::new(board, plain.robots().to_vec(), plain.target()).unwrap())
}

/// The walks a mirror search slides by end where the test's own slide ends: every robot
/// in every direction, on random boards with many mirrors (bends, passes, loops, robots
/// met after a turn), and in loops that come back to the robot's own cell.
#[test]
fn walks_end_where_the_reference_slide_ends() {
    let mut rng = PyRandom::new(77);
    let (mut slides, mut bent) = (0, 0);
    for case in 0..200 {
        let size = [5, 6, 8, 16][case % 4];
        let plain = random_puzzle(&mut rng, size, 2 + case % 4);
        let count = rng.randint(2, (size * size / 4) as u32);
        let Some(puzzle) = with_random_mirrors(&mut rng, &plain, size, count) else {
            continue;
        };
        let walks = Walks::new(puzzle.board());
        let robots = puzzle.robots();
        for robot in 0..robots.len() {
            for dir in Direction::ALL {
                let expected = reference_slide(&puzzle, robots, robot, dir);
                assert_eq!(walks.slide(robots, robot, dir), expected, "case {case}");
                slides += 1;
                let straight = {
                    let mut at = robots[robot];
                    while let Some(next) =
                        (puzzle.board().step_open(at, dir)).filter(|next| !robots.contains(next))
                    {
                        at = next;
                    }
                    at
                };
                bent += usize::from(expected != straight);
            }
        }
    }
    assert!(slides >= 2_000, "{slides} slides");
    // The mirrors matter: many slides end elsewhere than a straight one would.
    assert!(bent >= 500, "{bent} bent");
}

/// Random small boards with one to four random mirrors, `robots(case)` robots: the
/// solver's count equals the plain BFS's, and its moves replayed by the reference slide
/// finish. Returns the positions compared, and those whose count the mirrors change.
fn mirrors_against_the_plain_bfs(
    seed: u64,
    cases: usize,
    robots: impl Fn(usize) -> usize,
) -> (usize, usize) {
    let mut rng = PyRandom::new(seed);
    let (mut compared, mut differ) = (0, 0);
    for case in 0..cases {
        let size = [5, 6, 7][case % 3];
        let robots = robots(case);
        let plain = random_puzzle(&mut rng, size, robots);
        let count = rng.randint(1, 5);
        let Some(puzzle) = with_random_mirrors(&mut rng, &plain, size, count) else {
            continue;
        };
        let expected = reference_moves(&puzzle, Rules::STANDARD);
        // Bounded, so that an unsolvable position of five robots ends soon: the search
        // must then find nothing within a dozen moves.
        let limit = expected.map_or(12, |moves| moves as u8);
        match (solve(&puzzle, Rules::STANDARD, limit), expected) {
            (Ok(solution), Some(moves)) => {
                assert_eq!(solution.moves.len(), moves, "case {case}");
                let mut at = puzzle.robots().to_vec();
                for step in &solution.moves {
                    let to = reference_slide(&puzzle, &at, step.robot as usize, step.dir);
                    assert_ne!(
                        to, at[step.robot as usize],
                        "case {case}: a move that moves"
                    );
                    at[step.robot as usize] = to;
                }
                let last = solution.moves.last().unwrap().robot as usize;
                assert!(at[last] == puzzle.target().cell && puzzle.may_finish(last));
                compared += 1;
            }
            (Err(Unsolved::Unreachable | Unsolved::TooLong(_)), None) => {}
            (found, expected) => panic!("case {case}: {found:?} vs {expected:?}"),
        }
        differ += usize::from(expected != reference_moves(&plain, Rules::STANDARD));
    }
    (compared, differ)
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
