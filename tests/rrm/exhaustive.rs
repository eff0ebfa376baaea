//! Exhaustive analysis of a unit against the referee's plain rounds over every placement,
//! and its sampled placements against the IDA* solver.

use crate::referee::{all_depths, RefPlacement};
use crate::solver::small_puzzle;
use proptest::prelude::*;
use ricochet::exhaustive::{analyse, sample_placements, Options, Placement};
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
    let Ok(puzzle) = Puzzle::from_record(record) else {
        return false; // the generator's robots may stand where none may
    };
    let board = puzzle.board();
    let forbidden_cells: Vec<i64> = (0..(record.width * record.height) as i64)
        .step_by(3)
        .collect();
    let expected = all_depths(record, helpers);
    let mut watched: Vec<&RefPlacement> = expected.keys().step_by(7).collect();
    watched.sort();
    let options = Options {
        forbidden: forbidden_cells
            .iter()
            .map(|&i| board.cell_of(i as usize))
            .collect(),
        sample_size: 50,
        watch: watched.iter().map(|p| from_ref(&puzzle, p)).collect(),
        top_from: 2,
        top_per_depth: 3,
    };
    let target = board.cell_of(record.target_cell as usize);
    let Ok(analysis) = analyse(board, target, helpers, &options, |_| {
        std::ops::ControlFlow::Continue(())
    }) else {
        return false; // a target no robot may stand on
    };
    assert_eq!(analysis.placements, expected.len() as u64);
    let mut histogram = vec![0u64];
    let mut legal = vec![0u64];
    for ((t, set), depth) in &expected {
        let Some(depth) = *depth else { continue };
        if histogram.len() <= depth {
            histogram.resize(depth + 1, 0);
            legal.resize(depth + 1, 0);
        }
        histogram[depth] += 1;
        if !forbidden_cells.contains(t) && set.iter().all(|c| !forbidden_cells.contains(c)) {
            legal[depth] += 1;
        }
    }
    assert_eq!(analysis.histogram, histogram, "{record:?}");
    assert_eq!(analysis.legal_histogram, legal);
    let unsolvable = expected.values().filter(|d| d.is_none()).count() as u64;
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
        .filter(|(_, d)| max > 0 && **d == Some(max))
        .map(|(p, _)| p.clone())
        .collect();
    want.sort();
    assert_eq!(hardest, want);
    for (placement, depth) in watched.iter().zip(&analysis.watched) {
        assert_eq!(
            depth.map(usize::from),
            expected[*placement],
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
            assert_eq!(expected[&to_ref(&puzzle, placement)], Some(d), "top at {d}");
        }
    }
    let sampled: Vec<Placement> = analysis.sample.iter().map(|(p, _)| p.clone()).collect();
    assert_eq!(sampled, sample_placements(board, helpers, 50).unwrap());
    for (placement, depth) in &analysis.sample {
        let key = to_ref(&puzzle, placement);
        assert_eq!(depth.map(usize::from), expected[&key], "sample {key:?}");
        // The IDA* solver agrees on the same position. Only solvable ones: on the others
        // iterative deepening would search to its limit.
        let Some(depth) = *depth else { continue };
        let position = PuzzleRecord {
            robots: std::iter::once(key.0)
                .chain(key.1.iter().copied())
                .collect(),
            target_robot: 0,
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

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn every_placement_gets_the_referees_move_count(record in small_puzzle()) {
        let helpers = record.robots.len().clamp(2, 4) - 1;
        compare(&record, helpers);
    }
}
