//! Solving one unit: every seed optimally, in parallel on the current rayon pool.

use rayon::prelude::*;
use ricochet::solver::{with_thread_solver, DEFAULT_MAX_MOVES};
use ricochet::Generator;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

/// Move count recorded for a seed the solver could not finish (none is known).
pub const UNSOLVED: u8 = u8::MAX;

/// A solved unit: one move count per seed, and the solutions worth keeping.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnitResult {
    pub move_counts: Vec<u8>,
    /// (seed, moves in notation): every seed at or above the record threshold and the
    /// unit's `top_count` hardest, hardest first.
    pub solutions: Vec<(u64, Vec<String>)>,
}

/// Solves `seeds`; `None` if `cancel` was raised before the end.
pub fn solve_unit(
    generator: Generator,
    seeds: Range<u64>,
    record_threshold: u8,
    top_count: usize,
    cancel: &AtomicBool,
) -> Option<UnitResult> {
    let solved: Vec<(u8, Vec<String>)> = seeds
        .clone()
        .into_par_iter()
        .map(|seed| {
            if cancel.load(Ordering::Relaxed) {
                return (UNSOLVED, Vec::new());
            }
            let Ok(generated) = generator.generate(seed) else {
                return (UNSOLVED, Vec::new());
            };
            with_thread_solver(DEFAULT_MAX_MOVES, |solver| {
                match solver.solve(&generated.puzzle) {
                    Ok(solution) => (
                        solution.moves.len() as u8,
                        solution.moves.iter().map(|m| m.notation()).collect(),
                    ),
                    Err(_) => (UNSOLVED, Vec::new()),
                }
            })
        })
        .collect();
    if cancel.load(Ordering::Relaxed) {
        return None;
    }
    let mut ranked: Vec<usize> = (0..solved.len())
        .filter(|&i| solved[i].0 != UNSOLVED)
        .collect();
    ranked.sort_by_key(|&i| (std::cmp::Reverse(solved[i].0), i));
    let solutions = ranked
        .iter()
        .enumerate()
        .take_while(|&(rank, &i)| rank < top_count || solved[i].0 >= record_threshold)
        .map(|(_, &i)| (seeds.start + i as u64, solved[i].1.clone()))
        .collect();
    Some(UnitResult {
        move_counts: solved.iter().map(|s| s.0).collect(),
        solutions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_hardest_and_every_record() {
        let cancel = AtomicBool::new(false);
        let result = solve_unit(Generator::Fogleman, 1..41, 9, 2, &cancel).unwrap();
        assert_eq!(result.move_counts.len(), 40);
        let kept: Vec<u64> = result.solutions.iter().map(|s| s.0).collect();
        let records = result.move_counts.iter().filter(|&&m| m >= 9).count();
        assert_eq!(kept.len(), records.max(2));
        for (seed, moves) in &result.solutions {
            assert_eq!(
                moves.len(),
                usize::from(result.move_counts[(*seed - 1) as usize])
            );
        }
        cancel.store(true, Ordering::Relaxed);
        assert_eq!(solve_unit(Generator::Fogleman, 1..41, 9, 2, &cancel), None);
    }
}
