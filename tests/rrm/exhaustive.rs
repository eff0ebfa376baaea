//! Exhaustive analysis of a unit against the referee's plain rounds over every placement,
//! and its sampled placements against the IDA* solver.

use crate::referee::{all_depths, RefPlacement};
use crate::solver::small_puzzle;
use proptest::prelude::*;
use ricochet::exhaustive::{analyse, Options, Placement};
use ricochet::solver::with_thread_solver;
use ricochet::{Puzzle, PuzzleRecord};

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
/// referee's depths.
fn compare(record: &PuzzleRecord, helpers: usize) {
    let Ok(puzzle) = Puzzle::from_record(record) else {
        return; // the generator's robots may stand where none may
    };
    let board = puzzle.board();
    let forbidden_cells: Vec<i64> = (0..(record.width * record.height) as i64)
        .step_by(3)
        .collect();
    let options = Options {
        forbidden: forbidden_cells
            .iter()
            .map(|&i| board.cell_of(i as usize))
            .collect(),
        sample_size: 50,
        ..Options::default()
    };
    let target = board.cell_of(record.target_cell as usize);
    let Ok(analysis) = analyse(board, target, helpers, &options, |_| {}) else {
        return; // a target no robot may stand on
    };
    let expected = all_depths(record, helpers);
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
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn every_placement_gets_the_referees_move_count(record in small_puzzle()) {
        let helpers = record.robots.len().clamp(2, 4) - 1;
        compare(&record, helpers);
    }
}
