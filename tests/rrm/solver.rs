//! Solver answers: replayed by the referee and checked against published optimal counts
//! and, on small random boards, against the reference BFS.

use crate::generator::seed_records;
use crate::referee::{bfs_moves, check_solution, count_solutions, solo_moves};
use proptest::prelude::*;
use ricochet::solver::with_thread_solver;
use ricochet::{Game, Puzzle, PuzzleRecord, Solver, Unsolved};

/// Solves `record`'s puzzle and checks the answer with the referee; returns the move count.
fn solve_checked(solver: &mut Solver, record: &PuzzleRecord) -> Option<usize> {
    let puzzle = Puzzle::from_record(record).expect("valid puzzle");
    let solution = solver.solve(&puzzle).ok()?;
    let moves: Vec<String> = solution.moves.iter().map(|m| m.notation()).collect();
    if let Err(problem) = check_solution(record, &moves) {
        panic!(
            "solution {moves:?} of {:?} fails the referee: {problem}",
            record.name
        );
    }
    Some(moves.len())
}

fn records(text: &str) -> Vec<PuzzleRecord> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("puzzle record"))
        .collect()
}

/// The three ways a search can go: all fringe search, all IDA* (no fringe memory), and
/// fringe search running out of its 1 MiB on the longer seeds and handing over to the IDA*.
#[test]
fn fogleman_seeds_1_to_200_solve_to_published_counts() {
    let mut states = Vec::new();
    for fringe_bytes in [ricochet::solver::DEFAULT_FRINGE_BYTES, 0, 1 << 20] {
        let mut solver = Solver::new().with_fringe_bytes(fringe_bytes);
        let mut total = 0;
        for seed in seed_records() {
            let game = Game::generate(seed.seed).unwrap();
            let puzzle = game.puzzle();
            let record = puzzle.to_record(Some(format!("seed {}", seed.seed)));
            assert_eq!(
                solve_checked(&mut solver, &record),
                Some(seed.moves),
                "seed {} with {fringe_bytes} bytes of fringe",
                seed.seed
            );
            total += solver.solve(&puzzle).expect("solved above").stats.states;
        }
        states.push(total);
    }
    // Each way searched differently: the hand-over happened.
    assert!(
        states[2] != states[0] && states[2] != states[1],
        "states searched {states:?}"
    );
}

/// A solver carries the set-up of one board and target over to the next puzzle on them
/// (as mining solves a unit's seeds, grouped by `tables_key`): the answer found, the robots
/// it moves and the states searched must still be those of a fresh solver, or a worker and
/// a coordinator checking it would disagree. Seeds 1..3000 in key order give runs of one
/// board (other targets) and of one board and target.
#[test]
fn carried_set_up_changes_no_answer() {
    let mut games: Vec<_> = (1..3000)
        .map(|seed| Game::generate(seed).unwrap())
        .collect();
    games.sort_by_key(|game| game.puzzle().tables_key());
    let shared = games
        .windows(2)
        .filter(|pair| pair[0].puzzle().tables_key() == pair[1].puzzle().tables_key())
        .count();
    assert!(
        shared > 100,
        "{shared} seeds follow one of their board and target"
    );
    let mut carrying = Solver::new();
    for game in &games {
        let puzzle = game.puzzle();
        let carried = carrying.solve(&puzzle).unwrap();
        let fresh = Solver::new().solve(&puzzle).unwrap();
        assert_eq!(carried.moves, fresh.moves, "seed {}", game.seed);
        assert_eq!(
            carried.stats.states, fresh.stats.states,
            "seed {}",
            game.seed
        );
        let record = puzzle.to_record(None);
        assert_eq!(
            solve_checked(&mut carrying, &record),
            Some(fresh.moves.len())
        );
    }
}

#[test]
fn fogleman_seeds_agree_with_reference_bfs_where_it_is_cheap() {
    let mut solver = Solver::new();
    for seed in seed_records().into_iter().filter(|s| s.moves <= 5) {
        let record = Game::generate(seed.seed).unwrap().puzzle().to_record(None);
        assert_eq!(
            solve_checked(&mut solver, &record),
            bfs_moves(&record),
            "seed {}",
            seed.seed
        );
    }
}

#[test]
fn hard_positions_solve_to_their_optimal_counts() {
    let records = records(include_str!("../data/hard-positions.jsonl"));
    assert_eq!(records.len(), 7);
    assert_published_counts(records);
}

/// Solves every record and checks each against its published `moves`.
fn assert_published_counts(records: Vec<PuzzleRecord>) {
    let mut solver = Solver::new();
    for record in records {
        let expected = record.moves.map(|m| m as usize);
        assert!(
            expected.is_some(),
            "{:?} has no published count",
            record.name
        );
        assert_eq!(
            solve_checked(&mut solver, &record),
            expected,
            "{:?}",
            record.name
        );
    }
}

/// 3,200 published optimal counts on another board (read from ../shared when present).
#[test]
#[cfg_attr(rrm_without_shared, ignore = "../shared is not beside the checkout")]
fn thesis_robosolver_counts() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/testdata/thesis-robosolver-3200.jsonl"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let all = records(&text);
    assert_eq!(all.len(), 3200);
    assert_published_counts(all);
}

#[test]
fn a_robot_starting_on_its_target_must_leave_and_come_back() {
    // 3x1 corridor: the robot starts on the target at the west end.
    let record = PuzzleRecord {
        name: None,
        source: None,
        width: 3,
        height: 1,
        walls: vec![13, 5, 7],
        blocked: vec![],
        robots: vec![0],
        target_cell: 0,
        target_robot: 0,
        moves: None,
        mirrors: Vec::new(),
    };
    assert_eq!(solve_checked(&mut Solver::new(), &record), Some(2));
}

/// A random small board with consistent walls, robots and a target.
pub(crate) fn small_puzzle() -> impl Strategy<Value = PuzzleRecord> {
    (2usize..=8, 2usize..=8, 1usize..=4).prop_flat_map(|(width, height, robots)| {
        // Keep the reference BFS's state space small: fewer robots on larger boards.
        let cells = width * height;
        let robots = robots.min(match cells {
            0..=16 => 4,
            17..=36 => 3,
            _ => 2,
        });
        puzzle_on(width, height, robots)
    })
}

/// A random `width`×`height` board with consistent walls, `robots` robots and a target.
pub(crate) fn puzzle_on(
    width: usize,
    height: usize,
    robots: usize,
) -> impl Strategy<Value = PuzzleRecord> {
    let cells = width * height;
    {
        (
            proptest::collection::vec(0u8..5, cells * 2),
            proptest::sample::subsequence((0..cells as i64).collect::<Vec<_>>(), robots)
                .prop_shuffle(),
            0..cells as i64,
            -1..robots as i64,
            proptest::collection::vec(0u8..25, cells),
        )
            .prop_map(
                move |(edges, robots, target_cell, target_robot, blocked_cells)| {
                    let mut walls = vec![0u32; cells];
                    for (i, wall) in walls.iter_mut().enumerate() {
                        let (x, y) = (i % width, i / width);
                        if y == 0 {
                            *wall |= 1
                        }
                        if x == width - 1 {
                            *wall |= 2
                        }
                        if y == height - 1 {
                            *wall |= 4
                        }
                        if x == 0 {
                            *wall |= 8
                        }
                    }
                    for i in 0..cells {
                        let (x, y) = (i % width, i / width);
                        if edges[2 * i] == 0 && x + 1 < width {
                            walls[i] |= 2;
                            walls[i + 1] |= 8;
                        }
                        if edges[2 * i + 1] == 0 && y + 1 < height {
                            walls[i] |= 4;
                            walls[i + width] |= 1;
                        }
                    }
                    let blocked = (0..cells as i64)
                        .filter(|&c| blocked_cells[c as usize] == 0)
                        .collect();
                    PuzzleRecord {
                        name: None,
                        source: None,
                        width,
                        height,
                        walls,
                        blocked,
                        robots,
                        target_cell,
                        target_robot,
                        moves: None,
                        mirrors: Vec::new(),
                    }
                },
            )
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::proptest_cases(8000)))]

    #[test]
    fn solver_matches_reference_bfs_on_small_boards(record in small_puzzle()) {
        // Blocked, or every side closed by a wall, the edge or a blocked neighbour.
        let unusable = |c: i64| {
            let (w, h) = (record.width as i64, record.height as i64);
            let closed = [(1, 0, -1), (2, 1, 0), (4, 0, 1), (8, -1, 0)].iter().all(|&(bit, dx, dy)| {
                let (x, y) = (c % w + dx, c / w + dy);
                record.walls[c as usize] & bit != 0 || x < 0 || y < 0 || x >= w || y >= h || record.blocked.contains(&(y * w + x))
            });
            closed || record.blocked.contains(&c)
        };
        let Ok(puzzle) = Puzzle::from_record(&record) else {
            // Only robots or targets on blocked or fully walled cells are refused here.
            prop_assert!(record.robots.iter().chain([&record.target_cell]).any(|&c| unusable(c)));
            return Ok(());
        };
        prop_assert!(!record.robots.iter().chain([&record.target_cell]).any(|&c| unusable(c)));
        let expected = bfs_moves(&record);
        // The fringe search, and the IDA* alone.
        for mut solver in [Solver::new(), Solver::new().with_fringe_bytes(0)] {
        match (solver.solve(&puzzle), expected) {
            (Ok(solution), Some(moves)) => {
                let notation: Vec<String> = solution.moves.iter().map(|m| m.notation()).collect();
                prop_assert_eq!(notation.len(), moves);
                prop_assert_eq!(check_solution(&record, &notation), Ok(()));
            }
            // Beyond the solver's limit it must say so rather than return a longer answer.
            (Err(Unsolved::TooLong(limit)), Some(moves)) => prop_assert!(moves > usize::from(limit)),
            (Err(_), None) => {}
            (found, expected) => prop_assert!(false, "solver {found:?}, reference BFS {expected:?}"),
        }
        }
    }
}

/// Found by the property test: a 7×6 board whose only solutions take 41 moves.
fn forty_one_move_record() -> PuzzleRecord {
    serde_json::from_str(
        r#"{"width":7,"height":6,
            "walls":[9,5,1,1,7,15,15,12,1,0,0,3,15,15,13,4,0,0,0,5,3,15,13,0,4,0,5,6,15,9,0,5,0,5,3,15,12,6,13,4,5,6],
            "blocked":[5,6,12,13,14,21,28,35],"robots":[30,40],"target_cell":17,"target_robot":0}"#,
    )
    .expect("valid record")
}

#[test]
fn puzzle_longer_than_the_limit_is_reported_and_solved_with_a_higher_one() {
    let record = forty_one_move_record();
    let puzzle = Puzzle::from_record(&record).expect("valid puzzle");
    let expected = bfs_moves(&record).expect("solvable");
    assert!(expected > 40, "reference BFS says {expected}");
    assert_eq!(
        Solver::with_limits(40, 1 << 20).solve(&puzzle).err(),
        Some(Unsolved::TooLong(40))
    );
    let solution = Solver::with_limits(60, 1 << 20)
        .solve(&puzzle)
        .expect("solved within 60");
    let notation: Vec<String> = solution.moves.iter().map(|m| m.notation()).collect();
    assert_eq!(notation.len(), expected);
    assert_eq!(check_solution(&record, &notation), Ok(()));
}

/// A thread's reusable solver takes each call's limit, not only its first one's.
#[test]
fn the_thread_solver_follows_each_calls_move_limit() {
    let record = forty_one_move_record();
    let puzzle = Puzzle::from_record(&record).expect("valid puzzle");
    let expected = bfs_moves(&record).expect("solvable");
    let solve = |limit: u8| with_thread_solver(limit, |solver| solver.solve(&puzzle));
    assert_eq!(solve(40).err(), Some(Unsolved::TooLong(40)));
    let solution = solve(60).expect("solved within 60");
    let notation: Vec<String> = solution.moves.iter().map(|m| m.notation()).collect();
    assert_eq!(notation.len(), expected);
    assert_eq!(check_solution(&record, &notation), Ok(()));
    assert_eq!(solve(40).err(), Some(Unsolved::TooLong(40)));
}

#[test]
fn quality_metrics_agree_with_brute_force_on_short_seeds() {
    let mut checked = 0;
    // Robots-moved values seen: more than one, so a constant answer cannot pass.
    let mut moved_counts = std::collections::BTreeSet::new();
    for record in seed_records()
        .into_iter()
        .filter(|r| (2..=4).contains(&r.moves))
    {
        let puzzle = Game::generate(record.seed).unwrap().puzzle();
        let solution = Solver::new().solve(&puzzle).unwrap().moves;
        let measured = ricochet::metrics::metrics(
            &puzzle,
            &solution,
            ricochet::metrics::Counting::up_to(u64::MAX),
        );
        let file = puzzle.to_record(None);
        let notation: Vec<String> = solution.iter().map(|m| m.notation()).collect();
        assert_eq!(
            check_solution(&file, &notation),
            Ok(()),
            "seed {}",
            record.seed
        );
        assert_eq!(
            measured.optimal_solutions,
            Some(count_solutions(&file, solution.len())),
            "seed {}",
            record.seed
        );
        assert_eq!(
            measured.solo_moves.map(usize::from),
            solo_moves(&file),
            "seed {}",
            record.seed
        );
        // Distinct robot letters of the replayed moves, not the code under test's count.
        let mut letters: Vec<char> = notation.iter().filter_map(|m| m.chars().next()).collect();
        letters.sort_unstable();
        letters.dedup();
        assert_eq!(measured.robots_moved, letters.len(), "seed {}", record.seed);
        moved_counts.insert(letters.len());
        checked += 1;
    }
    assert!(checked >= 30, "only {checked} short seeds");
    assert!(moved_counts.len() >= 2, "robots moved: {moved_counts:?}");
}
