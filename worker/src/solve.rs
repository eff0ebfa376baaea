//! Solving one unit: every seed optimally (or its shortest forced win), in parallel on the
//! current rayon pool.

use rayon::prelude::*;
use ricochet::solver::DEFAULT_MAX_MOVES;
use ricochet::{Dealer, Dealt, SeedAnswer};
use rrm_model::UNSOLVED;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

/// A solved unit: per seed the move count and robots moved, and the solutions worth keeping.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnitResult {
    /// Optimal moves of each seed, in seed order; `UNSOLVED` beyond the solver's limit.
    pub move_counts: Vec<u8>,
    /// Different robots each seed's solution moves.
    pub robots_moved: Vec<u8>,
    /// (seed, moves in notation): every seed at or above the record threshold and the
    /// unit's `top_count` hardest, hardest first.
    pub solutions: Vec<(u64, Vec<String>)>,
}

/// Solves `seeds`, calling `on_seed` after each seed (for progress); `None` if `cancel`
/// was raised before the end.
pub fn solve_unit(
    dealer: Dealer,
    seeds: Range<u64>,
    record_threshold: u8,
    top_count: usize,
    cancel: &AtomicBool,
    on_seed: &(impl Fn() + Sync),
) -> Option<UnitResult> {
    let dealt: Vec<Option<Dealt>> = seeds
        .clone()
        .into_par_iter()
        .map(|seed| dealer.deal(seed).ok())
        .collect();
    // Seeds of one board and target are solved one after another, mostly on one thread,
    // whose solver then sets them up once.
    let mut order: Vec<usize> = (0..dealt.len()).collect();
    order.sort_by_cached_key(|&i| dealt[i].as_ref().map(Dealt::tables_key));
    let answers: Vec<(usize, Option<SeedAnswer>)> = order
        .into_par_iter()
        .map(|i| {
            if cancel.load(Ordering::Relaxed) {
                return (i, None);
            }
            let answer =
                (dealt[i].as_ref()).and_then(|dealt| dealer.answer(dealt, DEFAULT_MAX_MOVES).ok());
            on_seed();
            (i, answer)
        })
        .collect();
    if cancel.load(Ordering::Relaxed) {
        return None;
    }
    let mut solved: Vec<Option<SeedAnswer>> = vec![None; dealt.len()];
    for (i, answer) in answers {
        solved[i] = answer;
    }
    let count = |i: usize| solved[i].as_ref().map_or(UNSOLVED, |a| a.moves);
    let mut ranked: Vec<usize> = (0..solved.len()).filter(|&i| solved[i].is_some()).collect();
    ranked.sort_by_key(|&i| (std::cmp::Reverse(count(i)), i));
    let solutions = ranked
        .iter()
        .enumerate()
        .take_while(|&(rank, &i)| rank < top_count || count(i) >= record_threshold)
        .filter_map(|(_, &i)| Some((seeds.start + i as u64, solved[i].as_ref()?.line.clone())))
        .collect();
    Some(UnitResult {
        move_counts: (0..solved.len()).map(count).collect(),
        robots_moved: solved
            .iter()
            .map(|a| a.as_ref().map_or(0, |a| a.robots))
            .collect(),
        solutions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ricochet::rules::Rules;

    const FOGLEMAN: Dealer = Dealer {
        generator: ricochet::Generator::Fogleman,
        rules: Rules::STANDARD,
    };

    #[test]
    fn keeps_the_hardest_and_every_record() {
        let cancel = AtomicBool::new(false);
        let solved = std::sync::atomic::AtomicU64::new(0);
        let count = || {
            solved.fetch_add(1, Ordering::Relaxed);
        };
        let result = solve_unit(FOGLEMAN, 1..41, 9, 2, &cancel, &count).unwrap();
        assert_eq!(result.move_counts.len(), 40);
        assert_eq!(solved.load(Ordering::Relaxed), 40);
        let kept: Vec<u64> = result.solutions.iter().map(|s| s.0).collect();
        let records = result.move_counts.iter().filter(|&&m| m >= 9).count();
        assert_eq!(kept.len(), records.max(2));
        for (seed, moves) in &result.solutions {
            assert_eq!(
                moves.len(),
                usize::from(result.move_counts[(*seed - 1) as usize])
            );
        }
        // Solved in another order than the seeds', yet each seed's answer is a fresh
        // solver's, robots moved included.
        for (i, seed) in (1..41).enumerate() {
            let Dealt::Puzzle(dealt) = FOGLEMAN.deal(seed).unwrap() else {
                unreachable!("Fogleman deals puzzles")
            };
            let fresh = ricochet::Solver::new().solve(&dealt.puzzle).unwrap().moves;
            assert_eq!(usize::from(result.move_counts[i]), fresh.len());
            let robots = ricochet::puzzle::robots_moved(&fresh);
            assert_eq!(usize::from(result.robots_moved[i]), robots);
        }
        cancel.store(true, Ordering::Relaxed);
        assert_eq!(solve_unit(FOGLEMAN, 1..41, 9, 2, &cancel, &count), None);
    }
}
