//! Boards with mirrors: the walks a mirror search slides by, and the solver on random
//! small boards with random mirrors, against the plain breadth-first search.

use super::*;
use crate::board::CELLS;
use crate::mirrors::Walks;

/// Random small boards with diagonal walls of random colours: the solver (through the
/// general search) agrees with the plain BFS over the reference slides (in `mod.rs`), and
/// every solution replays move by move with those slides.
#[test]
fn mirrors_agree_with_a_plain_bfs_on_random_small_boards() {
    let (compared, differ) =
        mirrors_against_the_plain_bfs(25, 150, |case| 1 + case % 3, Rules::STANDARD);
    assert!(compared >= 80, "{compared} compared");
    // The mirrors matter: many positions need another count than without them.
    assert!(differ >= 30, "{differ} differ");
}

/// Four and five robots: more robots to bounce off, and the interchangeable helpers'
/// colours told apart by the mirrors.
#[test]
fn mirrors_with_four_and_five_robots_agree_with_a_plain_bfs() {
    let (compared, differ) =
        mirrors_against_the_plain_bfs(45, 60, |case| 4 + case % 2, Rules::STANDARD);
    assert!(compared >= 30, "{compared} compared");
    assert!(differ >= 10, "{differ} differ");
}

/// Games as `rrm-dev peer-bench` deals them (K. Cox's two boards and full-size boards
/// with random mirrors, four and five robots): every one that the plain BFS solves in
/// four moves or fewer gets the same count, and every other none within four. Full-size
/// boards meet what small ones seldom do, such as a helper whose walk bends onto the
/// finisher's descent from far off. Searched as outside the tests, where a short search
/// never works out the routes and tests the helpers by the finisher's descent alone, and
/// with the routes from the second bound on.
#[test]
fn dealt_mirror_games_agree_with_a_plain_bfs() {
    const MOST: usize = 4;
    let production = restricted::ROUTES_AFTER_STATES;
    for (robots, routes_after) in [(4, production), (5, production), (4, 1), (5, 1)] {
        restricted::TEST_ROUTES_AFTER_STATES.set(routes_after);
        let mut games = crate::random::RandomMirrorPuzzles::new(robots as u64, robots);
        let mut solved = 0;
        for game in 0..1500 {
            let puzzle = games.next_puzzle();
            let target = puzzle.target();
            if target
                .colour
                .is_none_or(|c| puzzle.robots()[c.robot()] == target.cell)
            {
                continue;
            }
            let expected = reference_moves_within(&puzzle, Rules::STANDARD, MOST);
            match (solve(&puzzle, Rules::STANDARD, MOST as u8), expected) {
                (Ok(solution), Some(moves)) => {
                    let game = format!("{robots} robots, game {game}");
                    assert_eq!(solution.moves.len(), moves, "{game}");
                    assert_replays(&puzzle, &solution.moves, Rules::STANDARD, &game);
                    solved += 1;
                }
                (Err(Unsolved::TooLong(_)), None) => {}
                (found, expected) => {
                    panic!("{robots} robots, game {game}: {found:?} vs {expected:?}")
                }
            }
        }
        assert!(
            solved >= 300,
            "{robots} robots: {solved} solved within {MOST}"
        );
    }
}

/// Under each rule set that restricts moves, on boards with mirrors: the rule search
/// (its bounds, routes and raised bound there being today's rule's, read under the
/// rules) agrees with the plain BFS under the same rules, and its moves obey them.
#[test]
fn mirrors_under_every_rule_set_agree_with_a_plain_bfs() {
    for (index, rules) in ALL_RULES.into_iter().enumerate().skip(1) {
        let seed = 60 + index as u64;
        let (compared, differ) =
            mirrors_against_the_plain_bfs(seed, 90, |case| 2 + case % 2, rules);
        assert!(compared >= 40, "{rules}: {compared} compared");
        assert!(differ >= 10, "{rules}: {differ} differ");
    }
}

/// At two moves of slack a helper's move may serve only another helper's: here blue
/// clears green's way to the cell that stops red on the target (blue itself is turned
/// off that line by green's mirror). The search must keep blue's move, which touches
/// none of red's routes.
#[test]
fn a_helper_that_clears_the_way_for_another_is_searched() {
    let size = 6;
    let at = |x: usize, y: usize| y * size + x;
    let mut walls = vec![0u32; size * size];
    // A wall north of (4, 2): green going north up column 4 stops there.
    walls[at(4, 1)] |= 4;
    walls[at(4, 2)] |= 1;
    let green_mirror = crate::mirrors::Mirror {
        leans_left: false,
        colour: Colour::Green,
    };
    let board = Board::new(size, size, &walls, &[])
        .unwrap()
        .with_mirrors(&[(at(4, 3) as i64, green_mirror)])
        .unwrap();
    let cell = |x, y| board.cell_checked(at(x, y) as i64).unwrap();
    let (red, green, blue) = (cell(0, 2), cell(4, 5), cell(4, 4));
    let target = Target {
        cell: cell(3, 2),
        colour: Some(Colour::Red),
        shape: None,
    };
    let puzzle = Puzzle::new(board.clone(), vec![red, green, blue], target).unwrap();
    assert_eq!(reference_moves(&puzzle, Rules::STANDARD), Some(3));
    // No more than 3 moves looked for: a search that dropped blue's move would find the
    // solution only with a bound of 4.
    let solution = solve(&puzzle, Rules::STANDARD, 3).unwrap();
    assert_eq!(solution.moves.len(), 3, "{:?}", solution.moves);
    // Blue first, off every route of red's.
    assert_eq!(solution.moves[0].robot, 2, "{:?}", solution.moves);
}

/// At two moves of slack a helper's move may only open a route of the finisher's one move
/// longer (one slide that keeps its bound): here red's first move, on a 5×5 board found
/// by a random search, is one that touches no downhill route of green's.
#[test]
fn a_helper_that_opens_a_longer_route_is_searched() {
    let walls = [
        9, 3, 9, 1, 3, 10, 14, 8, 2, 14, 8, 1, 0, 2, 15, 8, 0, 0, 0, 7, 14, 12, 4, 4, 7,
    ];
    let mirror = |leans_left, colour| crate::mirrors::Mirror { leans_left, colour };
    let board = Board::new(5, 5, &walls, &[])
        .unwrap()
        .with_mirrors(&[
            (18, mirror(false, Colour::Silver)),
            (20, mirror(false, Colour::Blue)),
            (22, mirror(true, Colour::Silver)),
        ])
        .unwrap();
    let cell = |index| board.cell_checked(index).unwrap();
    let target = Target {
        cell: cell(6),
        colour: Some(Colour::Green),
        shape: None,
    };
    let puzzle = Puzzle::new(board.clone(), vec![cell(0), cell(11)], target).unwrap();
    assert_eq!(reference_moves(&puzzle, Rules::STANDARD), Some(7));
    let solution = solve(&puzzle, Rules::STANDARD, 7).unwrap();
    assert_eq!(solution.moves.len(), 7, "{:?}", solution.moves);
}

/// A thread keeps each board's bounds by target and colour: puzzles that differ only in
/// the target's cell or colour, solved in turn twice on one board, each get the plain
/// BFS's count.
#[test]
fn kept_bounds_follow_the_target_and_its_colour() {
    let mut compared = 0;
    for (case, puzzle) in crowded_mirror_puzzles(79, 40, [5, 6, 6, 7], (2, 8)) {
        let robots = puzzle.robots().to_vec();
        let cells = puzzle.board().cells().filter(|c| !robots.contains(c));
        let targets: Vec<Target> = (cells.take(2))
            .flat_map(|cell| {
                (Colour::ALL[..robots.len()].iter()).map(move |&colour| Target {
                    cell,
                    colour: Some(colour),
                    shape: None,
                })
            })
            .collect();
        let variants: Vec<Puzzle> = (targets.into_iter())
            .filter_map(|target| Puzzle::new(puzzle.board().clone(), robots.clone(), target).ok())
            .collect();
        for variant in variants.iter().chain(&variants) {
            let expected = reference_moves(variant, Rules::STANDARD);
            let limit = expected.map_or(10, |moves| moves as u8);
            let found = solve(variant, Rules::STANDARD, limit)
                .ok()
                .map(|s| s.moves.len());
            assert_eq!(found, expected, "case {case}: {:?}", variant.target());
            compared += usize::from(expected.is_some());
        }
    }
    assert!(compared >= 200, "{compared} compared");
}

/// Random puzzles of 2 to 5 robots on boards of the four `sizes` in turn, crowded with
/// mirrors: from `least` up to one cell in `one_in` (`(least, one_in)`), with the case
/// each was dealt as (a case whose mirrors fall on one cell is left out).
fn crowded_mirror_puzzles(
    seed: u64,
    cases: usize,
    sizes: [usize; 4],
    (least, one_in): (u32, usize),
) -> impl Iterator<Item = (usize, Puzzle)> {
    let mut rng = PyRandom::new(seed);
    (0..cases).filter_map(move |case| {
        let size = sizes[case % 4];
        let plain = random_puzzle(&mut rng, size, 2 + case % 4);
        let count = rng.randint(least, (size * size / one_in) as u32);
        with_random_mirrors(&mut rng, &plain, size, count).map(|puzzle| (case, puzzle))
    })
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
/// (each of its own colour's walks) from every free cell in every direction, on random
/// boards with many mirrors (bends, passes, loops, robots met after a turn), and in loops
/// that come back to the robot's own cell. Every other case's walks are laid out in the
/// buffers of the case before, of another board and another count of colours.
#[test]
fn walks_end_where_the_reference_slide_ends() {
    let (mut slides, mut bent) = (0, 0);
    let mut previous = None;
    for (case, puzzle) in crowded_mirror_puzzles(77, 200, [5, 6, 8, 16], (2, 4)) {
        let board = puzzle.board();
        let old = previous.take().filter(|_| case % 2 == 1);
        let walks = Walks::new_in(board, puzzle.robots().len(), old);
        for robot in 0..puzzle.robots().len() {
            let mut robots = puzzle.robots().to_vec();
            let others: Vec<Cell> = (robots.iter().enumerate())
                .filter(|&(other, _)| other != robot)
                .map(|(_, &cell)| cell)
                .collect();
            let free = |c: &Cell| !board.is_blocked(*c) && board.mirror(*c).is_none();
            for start in board.cells().filter(free) {
                if others.contains(&start) {
                    continue;
                }
                robots[robot] = start;
                for dir in Direction::ALL {
                    let expected = reference_slide(&puzzle, &robots, robot, dir);
                    assert_eq!(walks.slide(&robots, robot, dir), expected, "case {case}");
                    slides += 1;
                    let straight = {
                        let mut at = start;
                        while let Some(next) =
                            (board.step_open(at, dir)).filter(|next| !robots.contains(next))
                        {
                            at = next;
                        }
                        at
                    };
                    bent += usize::from(expected != straight);
                }
            }
        }
        previous = Some(walks);
    }
    assert!(slides >= 200_000, "{slides} slides");
    // The mirrors matter: many slides end elsewhere than a straight one would.
    assert!(bent >= 50_000, "{bent} bent");
}

/// The bound a mirror search starts from is K. Cox's relaxation, computed here the plain
/// way: from every cell, each direction's walk stepped through the board (turned by every
/// mirror not of the robot's colour, cut after as many steps as there are (cell,
/// direction) pairs), any non-mirror cell on it a stop, and the distances relaxed until
/// they settle.
#[test]
fn relaxed_bounds_are_the_stop_anywhere_distances() {
    let (mut compared, mut finite) = (0, 0);
    for (case, puzzle) in crowded_mirror_puzzles(78, 120, [5, 7, 8, 16], (1, 5)) {
        let board = puzzle.board();
        let target = puzzle.target().cell;
        let walks = Walks::new(board, puzzle.robots().len());
        for (index, &colour) in Colour::ALL[..puzzle.robots().len()].iter().enumerate() {
            let mut stops: Vec<Vec<Cell>> = vec![Vec::new(); CELLS];
            for cell in board.cells().filter(|&c| !board.is_blocked(c)) {
                for first in Direction::ALL {
                    let (mut at, mut dir) = (cell, first);
                    for _ in 0..CELLS * 4 {
                        let Some(next) = board.step_open(at, dir) else {
                            break;
                        };
                        at = next;
                        match board.mirror(at) {
                            Some(mirror) if mirror.colour != colour => dir = mirror.turn(dir),
                            Some(_) => {}
                            None => stops[cell as usize].push(at),
                        }
                    }
                }
            }
            let mut expected = [UNREACHABLE; CELLS];
            expected[target as usize] = 0;
            let mut changed = true;
            while changed {
                changed = false;
                for cell in 0..CELLS {
                    for &to in &stops[cell] {
                        let through = expected[to as usize].saturating_add(1);
                        if through < expected[cell] {
                            expected[cell] = through;
                            changed = true;
                        }
                    }
                }
            }
            assert_eq!(
                walks.relaxed_bounds(board, target, index),
                expected,
                "case {case}, colour {index}"
            );
            compared += 1;
            finite += expected
                .iter()
                .filter(|&&b| b != UNREACHABLE && b > 1)
                .count();
        }
    }
    assert!(compared >= 200, "{compared} tables");
    assert!(finite >= 2_000, "{finite} cells two or more moves away");
}

/// Random small boards with one to four random mirrors, `robots(case)` robots, under
/// `rules`: the solver's count equals the plain BFS's, and its moves replayed by the
/// reference slide finish and obey the rules. Returns the positions compared, and those
/// whose count the mirrors change.
fn mirrors_against_the_plain_bfs(
    seed: u64,
    cases: usize,
    robots: impl Fn(usize) -> usize,
    rules: Rules,
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
        let expected = reference_moves(&puzzle, rules);
        // Bounded, so that an unsolvable position of five robots ends soon: the search
        // must then find nothing within a dozen moves.
        let limit = expected.map_or(12, |moves| moves as u8);
        // With the routes from the second bound on, and as outside the tests (a short
        // search tests its nodes of one move to spare without them).
        for routes_after in [1, restricted::ROUTES_AFTER_STATES] {
            restricted::TEST_ROUTES_AFTER_STATES.set(routes_after);
            let case = format!("case {case}, routes after {routes_after} states");
            match (solve(&puzzle, rules, limit), expected) {
                (Ok(solution), Some(moves)) => {
                    assert_eq!(solution.moves.len(), moves, "{case}");
                    assert_replays(&puzzle, &solution.moves, rules, &case);
                }
                (Err(Unsolved::Unreachable | Unsolved::TooLong(_)), None) => {}
                (found, expected) => panic!("{case}: {found:?} vs {expected:?}"),
            }
        }
        compared += usize::from(expected.is_some());
        differ += usize::from(expected != reference_moves(&plain, rules));
    }
    (compared, differ)
}

/// `moves` replayed by the reference slide: each moves its robot, the last brings a robot
/// that may finish onto the target, and all obey `rules`.
fn assert_replays(puzzle: &Puzzle, moves: &[Move], rules: Rules, game: &str) {
    let mut at = puzzle.robots().to_vec();
    for step in moves {
        let to = reference_slide(puzzle, &at, step.robot as usize, step.dir);
        assert_ne!(to, at[step.robot as usize], "{game}: a move that moves");
        at[step.robot as usize] = to;
    }
    let last = moves.last().unwrap().robot as usize;
    assert!(
        at[last] == puzzle.target().cell && puzzle.may_finish(last),
        "{game}"
    );
    assert!(obeys(puzzle, moves, rules), "{game}");
}
