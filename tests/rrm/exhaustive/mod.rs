//! Exhaustive analysis of a unit against the referee's plain rounds over every placement,
//! and its sampled placements against the IDA* solver; the `exhaust` command
//! (`command`), and the committed unit files computed again (`committed`).

mod command;
mod committed;

use crate::referee::{all_depths, placement_depths, RefPlacement};
use crate::solver::{puzzle_on, small_puzzle};
use proptest::prelude::*;
use ricochet::exhaustive::{analyse, sample_placements, Finisher, Legality, Options, Placement};
use ricochet::solver::with_thread_solver;
use ricochet::{Game, Puzzle, PuzzleRecord};

fn from_ref(puzzle: &Puzzle, (target_robot, helpers): &RefPlacement) -> Placement {
    let board = puzzle.board();
    Placement {
        target_robot: board.cell_of(*target_robot as usize),
        helpers: helpers.iter().map(|&c| board.cell_of(c as usize)).collect(),
    }
}

fn to_ref(puzzle: &Puzzle, placement: &Placement) -> RefPlacement {
    let board = puzzle.board();
    (
        board.index_of(placement.target_robot) as i64,
        placement
            .helpers
            .iter()
            .map(|&c| board.index_of(c) as i64)
            .collect(),
    )
}

/// Runs the analysis on `record`'s board and target and compares every figure with the
/// referee's depths; false when the record is no unit (nothing compared).
fn compare(record: &PuzzleRecord, helpers: usize) -> bool {
    let forbidden_cells: Vec<i64> = (0..(record.width * record.height) as i64)
        .step_by(3)
        .collect();
    compare_with(record, helpers, &forbidden_cells)
}

/// [`compare`] with the cells no robot may stand on in a legal placement.
fn compare_with(record: &PuzzleRecord, helpers: usize, forbidden_cells: &[i64]) -> bool {
    let Ok(puzzle) = Puzzle::from_record(record) else {
        return false; // the generator's robots may stand where none may
    };
    let board = puzzle.board();
    let expected = placement_depths(record, helpers);
    // A wild target (any robot finishes) counts each set of cells once: as the placement
    // whose target robot has the smallest cell.
    let wild = record.target_robot == -1;
    let counted = |(t, set): &RefPlacement| !wild || set.iter().all(|h| t < h);
    // Some hundreds of watched placements, whatever the unit's size.
    let step = (expected.count() / 300).max(7);
    let mut watched: Vec<RefPlacement> = expected.iter().step_by(step).map(|(p, _)| p).collect();
    watched.sort();
    assert!(!watched.is_empty(), "some placements are watched");
    let options = Options {
        legality: Legality {
            off_cells: (forbidden_cells.iter())
                .map(|&i| board.cell_of(i as usize))
                .collect(),
            past_one_move: false,
        },
        sample_size: 50,
        watch: watched.iter().map(|p| from_ref(&puzzle, p)).collect(),
        top_from: 2,
        top_per_depth: 3,
        legal_per_depth: 4,
        legal_hardest: 5,
        ..Options::default()
    };
    let target = puzzle.target();
    let Ok(analysis) = analyse(board, target, helpers, &options, |_| {
        std::ops::ControlFlow::Continue(())
    }) else {
        return false; // a target no robot may stand on
    };
    let placements = expected.iter().filter(|(p, _)| counted(p)).count();
    assert_eq!(analysis.placements, placements as u64);
    let mut histogram = vec![0u64];
    let mut legal = vec![0u64];
    for ((t, set), depth) in expected.iter().filter(|(p, _)| counted(p)) {
        let Some(depth) = depth else { continue };
        if histogram.len() <= depth {
            histogram.resize(depth + 1, 0);
            legal.resize(depth + 1, 0);
        }
        histogram[depth] += 1;
        if !forbidden_cells.contains(&t) && set.iter().all(|c| !forbidden_cells.contains(c)) {
            legal[depth] += 1;
        }
    }
    assert_eq!(analysis.histogram, histogram, "{record:?}");
    assert_eq!(analysis.legal_histogram, legal);
    let unsolvable = (expected.iter())
        .filter(|(p, d)| counted(p) && d.is_none())
        .count() as u64;
    assert_eq!(analysis.unsolvable, unsolvable);
    let max = histogram.len() - 1;
    assert_eq!(usize::from(analysis.max_moves), max);
    let mut hardest: Vec<RefPlacement> = analysis
        .hardest
        .iter()
        .map(|p| to_ref(&puzzle, p))
        .collect();
    hardest.sort();
    let mut want: Vec<RefPlacement> = expected
        .iter()
        .filter(|(p, d)| counted(p) && max > 0 && *d == Some(max))
        .map(|(p, _)| p)
        .collect();
    want.sort();
    assert_eq!(hardest, want);
    // Zipped lists stop at the shorter one: the lengths must agree first.
    assert_eq!(
        analysis.watched.len(),
        watched.len(),
        "one count per watched"
    );
    for (placement, depth) in watched.iter().zip(&analysis.watched) {
        assert_eq!(
            depth.map(usize::from),
            expected.depth(placement),
            "watched {placement:?}"
        );
    }
    let depths_listed: Vec<u8> = analysis.top.iter().map(|(d, _)| *d).collect();
    let depths_wanted: Vec<u8> = (2..=analysis.max_moves).collect();
    assert_eq!(depths_listed, depths_wanted, "top lists every depth from 2");
    for (depth, placements) in &analysis.top {
        let d = usize::from(*depth);
        assert_eq!(placements.len() as u64, histogram[d].min(3), "top at {d}");
        let mut distinct = placements.clone();
        distinct.dedup();
        assert_eq!(
            &distinct, placements,
            "top placements are distinct and ordered"
        );
        for placement in placements {
            assert_eq!(
                expected.depth(&to_ref(&puzzle, placement)),
                Some(d),
                "top at {d}"
            );
        }
    }
    let is_legal = |(t, set): &RefPlacement| {
        !forbidden_cells.contains(t) && set.iter().all(|c| !forbidden_cells.contains(c))
    };
    // Legal placements of a depth in the analysis' order: helper sets in colex order (the
    // largest helper first), then the target robot's cell; and the even spread of `k`.
    let mut legal_at: Vec<Vec<RefPlacement>> = vec![Vec::new(); max + 1];
    for (placement, depth) in expected.iter() {
        match depth {
            Some(depth) if is_legal(&placement) && counted(&placement) => {
                legal_at[depth].push(placement)
            }
            _ => {}
        }
    }
    for list in &mut legal_at {
        list.sort_by_key(|(t, set)| (set.iter().rev().copied().collect::<Vec<_>>(), *t));
    }
    let legal_spread = |depth: usize, k: usize| -> Vec<RefPlacement> {
        let all = &legal_at[depth];
        let k = k.min(all.len());
        (0..k).map(|i| all[i * all.len() / k].clone()).collect()
    };
    assert_eq!(
        analysis.legal_samples.len(),
        max,
        "one legal sample per depth"
    );
    for (index, placements) in analysis.legal_samples.iter().enumerate() {
        let listed: Vec<RefPlacement> = placements.iter().map(|p| to_ref(&puzzle, p)).collect();
        assert_eq!(
            listed,
            legal_spread(index + 1, 4),
            "legal sample at {}",
            index + 1
        );
    }
    let legal_max = (1..legal.len()).rev().find(|&d| legal[d] > 0).unwrap_or(0);
    let legal_hardest: Vec<RefPlacement> = analysis
        .legal_hardest
        .iter()
        .map(|p| to_ref(&puzzle, p))
        .collect();
    assert_eq!(legal_hardest, legal_spread(legal_max, 5), "legal hardest");
    let sampled: Vec<Placement> = analysis.sample.iter().map(|(p, _)| p.clone()).collect();
    let finisher = Finisher::of(&target);
    assert_eq!(finisher == Finisher::AnyRobot, wild);
    assert_eq!(
        sampled,
        sample_placements(board, helpers, finisher, 50).unwrap()
    );
    assert!(!sampled.is_empty(), "some placements are sampled");
    for (placement, depth) in &analysis.sample {
        let key = to_ref(&puzzle, placement);
        assert_eq!(
            depth.map(usize::from),
            expected.depth(&key),
            "sample {key:?}"
        );
        // The IDA* solver agrees on the same position. Only solvable ones: on the others
        // iterative deepening would search to its limit.
        let Some(depth) = *depth else { continue };
        let position = PuzzleRecord {
            robots: std::iter::once(key.0)
                .chain(key.1.iter().copied())
                .collect(),
            target_robot: record.target_robot.min(0),
            moves: None,
            ..record.clone()
        };
        let position = Puzzle::from_record(&position).expect("a placement is a valid position");
        let solved = with_thread_solver(depth, |solver| solver.solve(&position));
        assert_eq!(
            solved.map(|s| s.moves.len()),
            Ok(usize::from(depth)),
            "IDA* on sample {key:?}"
        );
    }
    true
}

/// Full-size boards: 16-cell rows, the centre block, walls on word boundaries; one
/// helper keeps the referee fast.
#[test]
fn fogleman_boards_with_one_helper_match_the_referee() {
    for seed in [1, 2, 1605212351] {
        let record = Game::generate(seed).unwrap().puzzle().to_record(None);
        assert!(compare(&record, 1), "seed {seed} is a unit");
    }
}

/// Whether a robot or the target of `record` stands on a cell no robot may stand on
/// (blocked, or closed on every side by walls, the edge or blocked cells): then the
/// record is no unit and `compare` has nothing to compare.
fn no_unit(record: &PuzzleRecord) -> bool {
    let (w, h) = (record.width as i64, record.height as i64);
    let unusable = |c: i64| {
        let closed = [(1, 0, -1), (2, 1, 0), (4, 0, 1), (8, -1, 0)]
            .iter()
            .all(|&(bit, dx, dy)| {
                let (x, y) = (c % w + dx, c / w + dy);
                record.walls[c as usize] & bit != 0
                    || x < 0
                    || y < 0
                    || x >= w
                    || y >= h
                    || record.blocked.contains(&(y * w + x))
            });
        closed || record.blocked.contains(&c)
    };
    record
        .robots
        .iter()
        .chain([&record.target_cell])
        .any(|&c| unusable(c))
}

/// Legal placements as the worker and `rrm exhaust` count them (no robot on one of the
/// board's 16 targets): the analysis' legal histogram with the target cells that the
/// generator's specification lists for seed 1605212351's board, against the referee's
/// depths counted here over the placements that avoid those cells.
#[test]
fn the_legal_histogram_leaves_out_placements_on_fogleman_targets() {
    // From ../shared/spec/fogleman-generator.md ("Target cells on that board"), pinned.
    const SPEC_TARGETS: [i64; 16] = [
        17, 25, 38, 46, 66, 74, 87, 108, 148, 156, 166, 201, 209, 222, 227, 235,
    ];
    let game = Game::generate(1_605_212_351).unwrap();
    let record = game.puzzle().to_record(None);
    let board = game.layout.board();
    let mut production: Vec<i64> = game
        .layout
        .target_cells()
        .iter()
        .map(|&c| board.index_of(c) as i64)
        .collect();
    production.sort_unstable();
    assert_eq!(production, SPEC_TARGETS, "the cells production forbids");
    assert!(compare_with(&record, 1, &SPEC_TARGETS));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::proptest_cases(40)))]

    #[test]
    fn every_placement_gets_the_referees_move_count(record in small_puzzle()) {
        let helpers = record.robots.len().clamp(2, 4) - 1;
        // Nothing compared is a pass only for a record that is no unit.
        prop_assert!(compare(&record, helpers) || no_unit(&record), "{record:?}");
    }
}

proptest! {
    // Each case is a unit of about two million placements (two seconds or so, release).
    #![proptest_config(ProptestConfig::with_cases(crate::proptest_cases(2)))]

    /// The production unit's three helpers, on random 8×8 boards.
    #[test]
    fn three_helpers_on_8x8_boards_get_the_referees_move_counts(
        record in puzzle_on(8, 8, 4).prop_filter("a unit", |r| !no_unit(r))
    ) {
        prop_assert!(compare(&record, 3), "{record:?}");
    }
}

/// Three helpers on the production shape: a 16×16 Fogleman board (seed 1's) with only
/// its top two and bottom two rows open (64 free cells, so that the referee can hold
/// every placement), so that slides run along full 16-cell rows and over both edges.
#[test]
fn three_helpers_on_a_16x16_board_get_the_referees_move_counts() {
    let mut record = Game::generate(1).unwrap().puzzle().to_record(None);
    record.blocked = (32..224).collect();
    record.robots = vec![3, 17, 240, 255];
    record.target_cell = 227; // GQ, seed 1's target
    record.target_robot = 0;
    assert!(compare(&record, 3));
}

/// An 8×8 board with inner walls and two blocked cells, three helpers.
#[test]
fn three_helpers_on_the_walled_8x8_board_get_the_referees_move_counts() {
    assert!(compare(&walled_puzzle(0), 3));
}

/// The vortex's rule on the same board: any of the four robots finishes, and the
/// analysis counts each set of four cells once.
#[test]
fn any_of_four_robots_on_the_walled_8x8_board_get_the_referees_move_counts() {
    assert!(compare(&walled_puzzle(-1), 3));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::proptest_cases(40)))]

    /// Wild targets on random small boards: helpers that finish, block or stop each other.
    #[test]
    fn wild_targets_get_the_referees_move_counts_once_per_set(record in small_puzzle()) {
        let record = PuzzleRecord { target_robot: -1, ..record };
        let helpers = record.robots.len().clamp(2, 4) - 1;
        prop_assert!(compare(&record, helpers) || no_unit(&record), "{record:?}");
    }
}

/// The reference itself: its flat breadth-first search agrees with the referee's plain
/// rounds over every state on small random units.
#[test]
fn the_two_references_agree() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut compared = 0;
    while compared < 60 {
        let record = small_puzzle().new_tree(&mut runner).unwrap().current();
        if no_unit(&record) {
            continue;
        }
        let helpers = record.robots.len().clamp(2, 4) - 1;
        let rounds = all_depths(&record, helpers);
        let search = placement_depths(&record, helpers);
        assert_eq!(search.count(), rounds.len(), "{record:?}");
        for (placement, depth) in search.iter() {
            assert_eq!(rounds[&placement], depth, "{placement:?} of {record:?}");
        }
        compared += 1;
    }
}

/// An 8×8 board with a few inner walls (on both sides of each), three robots, robot 0
/// to reach the target.
pub(super) fn walled_puzzle(target_robot: i64) -> PuzzleRecord {
    let (width, height) = (8usize, 8usize);
    let mut walls = vec![0u32; width * height];
    for y in 0..height {
        for x in 0..width {
            let cell = &mut walls[y * width + x];
            *cell |= u32::from(y == 0) | u32::from(x == width - 1) << 1;
            *cell |= u32::from(y == height - 1) << 2 | u32::from(x == 0) << 3;
        }
    }
    // East walls of (x, y), mirrored as west walls of (x + 1, y); south walls likewise.
    for (x, y) in [(2, 1), (5, 3), (1, 5), (3, 6)] {
        walls[y * width + x] |= 2;
        walls[y * width + x + 1] |= 8;
    }
    for (x, y) in [(4, 1), (2, 3), (6, 5), (0, 2)] {
        walls[y * width + x] |= 4;
        walls[(y + 1) * width + x] |= 1;
    }
    PuzzleRecord {
        name: Some("walled".into()),
        source: None,
        width,
        height,
        walls,
        blocked: vec![27, 28],
        robots: vec![0, 63, 12],
        target_cell: 45,
        target_robot,
        moves: None,
        mirrors: Vec::new(),
    }
}

pub(super) fn json_file(name: &str, record: &PuzzleRecord) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("rrm-exhaust-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string(record).unwrap()).unwrap();
    path
}
