//! The restricted engine against the bitset sweep under today's rule (every figure and
//! list equal), and against the rules' plain breadth-first search, placement by
//! placement, under every rule set.

use super::*;
use crate::board::Cell;
use crate::exhaustive::{analyse, Legality};
use crate::mt::PyRandom;
use crate::rules::tests::{random_puzzle, reference_moves, ALL_RULES};

fn options(off_cells: Vec<Cell>, watch: Vec<Placement>) -> Options {
    Options {
        legality: Legality {
            off_cells,
            past_one_move: false,
        },
        sample_size: 25,
        watch,
        top_from: 2,
        top_per_depth: 5,
        legal_per_depth: 4,
        legal_hardest: 6,
        portable_kernel: false,
    }
}

fn go_on(_: &Layer) -> ControlFlow<()> {
    ControlFlow::Continue(())
}

/// Every placement of a unit, as the engines name them.
fn all_placements(board: &Board, helpers: usize, finisher: Finisher) -> Vec<Placement> {
    let free: Vec<Cell> = board.cells().filter(|&c| !board.is_blocked(c)).collect();
    let mut sets: Vec<Vec<Cell>> = vec![Vec::new()];
    for _ in 0..helpers {
        sets = sets
            .iter()
            .flat_map(|set| {
                free.iter()
                    .filter(move |&&c| set.last().is_none_or(|&last| c > last))
                    .map(move |&c| [set.clone(), vec![c]].concat())
            })
            .collect();
    }
    let mut placements = Vec::new();
    for set in sets {
        for &cell in free.iter().filter(|c| !set.contains(c)) {
            let placement = Placement {
                target_robot: cell,
                helpers: set.clone(),
            };
            if finisher == Finisher::TargetRobot || cell < set[0] {
                placements.push(placement);
            }
        }
    }
    placements
}

#[test]
fn under_todays_rule_it_reports_what_the_sweep_reports() {
    let mut rng = PyRandom::new(41);
    for case in 0..24 {
        let (size, robots) = [(4, 4), (5, 3), (6, 3), (5, 2)][case % 4];
        let puzzle = random_puzzle(&mut rng, size, robots);
        let (board, target) = (puzzle.board(), puzzle.target());
        let slot = target.colour.map_or(0, |colour| colour.robot());
        let mut own = Placement {
            target_robot: puzzle.robots()[slot],
            helpers: puzzle.robots().to_vec(),
        };
        own.helpers.remove(slot);
        own.helpers.sort_unstable();
        if target.colour.is_none() {
            own = own.as_set();
        }
        let mut options = options(puzzle.robots()[..1].to_vec(), vec![own]);
        // Odd cases: DriftingDroids' rule, which the sweep keeps as cell masks and a
        // first depth, and the restricted engine asks of each placement.
        if case % 2 == 1 {
            options.legality = Legality {
                off_cells: Vec::new(),
                past_one_move: true,
            };
        }
        let swept = analyse(board, target, robots - 1, &options, go_on).unwrap();
        let searched =
            analyse_restricted(board, target, robots - 1, Rules::STANDARD, &options, go_on)
                .unwrap();
        assert_eq!(searched, swept, "case {case}");
        assert!(swept.max_moves > 0, "case {case}: nothing solvable");
    }
}

#[test]
fn every_placement_gets_the_plain_bfs_count_under_every_rule_set() {
    let mut rng = PyRandom::new(42);
    let mut differ = 0;
    for case in 0..30 {
        let (size, robots) = [(4, 3), (5, 2), (4, 2)][case % 3];
        let puzzle = random_puzzle(&mut rng, size, robots);
        let (board, target) = (puzzle.board(), puzzle.target());
        let slot = target.colour.map_or(0, |colour| colour.robot());
        let finisher = Finisher::of(&target);
        let placements = all_placements(board, robots - 1, finisher);
        let options = options(Vec::new(), placements.clone());
        let mut standard = None;
        for rules in ALL_RULES {
            let analysis =
                analyse_restricted(board, target, robots - 1, rules, &options, go_on).unwrap();
            assert_eq!(analysis.placements, placements.len() as u64);
            for (placement, &moves) in placements.iter().zip(&analysis.watched) {
                let position = Puzzle::new(board.clone(), placement.robots(slot), target).unwrap();
                let expected = reference_moves(&position, rules).map(|m| m as u8);
                assert_eq!(moves, expected, "case {case} {rules} {placement:?}");
            }
            let solved = analysis.histogram.iter().sum::<u64>();
            assert_eq!(solved + analysis.unsolvable, analysis.placements);
            match &standard {
                None => standard = Some(analysis.histogram),
                Some(histogram) => differ += usize::from(*histogram != analysis.histogram),
            }
        }
    }
    // The rules matter on these boards.
    assert!(differ >= 30, "{differ} histograms differ from today's rule");
}

#[test]
fn a_unit_beyond_the_state_limit_is_refused() {
    let board = crate::fogleman::Layout::parse("1A 3B 4A 2B")
        .unwrap()
        .board();
    let rules = Rules::parse("no-rebounds").unwrap();
    let target = Target {
        cell: board.cell_checked(0).unwrap(),
        colour: None,
        shape: None,
    };
    let refused = analyse_restricted(&board, target, 3, rules, &Options::default(), go_on);
    assert_eq!(refused.unwrap_err(), UnitError::TooManyStates(STATE_LIMIT));
}
