//! The two kernels of the sweep (portable and AVX-512), and one thread against two, give
//! the same analysis, list for list, on random boards with one to three helpers and on a
//! full board.

use super::*;
use crate::mt::PyRandom;
use crate::puzzle::Colour;
use crate::rules::tests::random_puzzle;

fn options(legality: Legality, portable_kernel: bool) -> Options {
    Options {
        legality,
        sample_size: 40,
        watch: Vec::new(),
        top_from: 2,
        top_per_depth: 7,
        legal_per_depth: 5,
        legal_hardest: 9,
        portable_kernel,
    }
}

/// The analysis by each kernel on two threads, and by the default kernel on one thread
/// (which writes the `beyond` index without locked instructions): all the same.
fn both_kernels(board: &Board, target: Target, helpers: usize, legality: Legality) -> Analysis {
    let go_on = |_: &Layer| ControlFlow::Continue(());
    let run = |portable_kernel: bool, threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let options = options(legality.clone(), portable_kernel);
        pool.install(|| analyse(board, target, helpers, &options, go_on))
            .unwrap()
    };
    let wide = run(false, 2);
    assert_eq!(wide, run(true, 2), "{helpers} helpers, target {target:?}");
    assert_eq!(wide, run(false, 1), "{helpers} helpers, one thread");
    assert!(wide.max_moves > 0, "nothing solvable");
    wide
}

#[test]
fn both_kernels_and_one_thread_give_the_same_analysis() {
    if !has_wide_kernel() {
        eprintln!("skipped in part: this CPU has no AVX-512, so only the portable kernel ran");
    }
    let mut rng = PyRandom::new(43);
    for case in 0..12 {
        let (size, robots) = [(8, 4), (10, 3), (6, 4), (12, 2)][case % 4];
        let puzzle = random_puzzle(&mut rng, size, robots);
        let legality = Legality {
            off_cells: puzzle.robots()[..1].to_vec(),
            past_one_move: case % 2 == 1,
        };
        both_kernels(puzzle.board(), puzzle.target(), robots - 1, legality);
    }
    // A full board, coloured and wild targets, two helpers (every rank of a 16×16 board).
    let board = crate::fogleman::Layout::parse("1A 3B 4A 2B")
        .unwrap()
        .board();
    for (cell, colour) in [(0x36, Some(Colour::Red)), (0x9d, None)] {
        let target = Target {
            cell: board.cell_checked(cell).unwrap(),
            colour,
            shape: None,
        };
        let legality = Legality {
            off_cells: Vec::new(),
            past_one_move: true,
        };
        let analysis = both_kernels(&board, target, 2, legality);
        assert!(analysis.max_moves >= 8, "{analysis:?}");
    }
}
