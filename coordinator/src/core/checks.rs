//! The pure checks of a submission, which need no store and no lock: its integrity
//! (lengths, digest), its contents (kept solutions replayed, record candidates and
//! unsolved claims solved again, only the solutions asked for), what it adds to the
//! statistics, and which units a second worker checks.

use super::{Counts, Rejection, Submission};
use ricochet::solver::with_thread_solver;
use ricochet::{GeneratedPuzzle, Generator, Move};
use rrm_proto::UNSOLVED;
use rrm_store::{Aggregates, CampaignSpec, HardEntry};
use std::collections::{HashMap, HashSet};
use std::ops::Range;

/// What a fresh result adds once accepted, found without the lock.
#[derive(Debug)]
pub(super) struct CheckedResult {
    pub(super) hardest: Vec<HardEntry>,
    pub(super) aggregates: Aggregates,
}

/// Lengths and digest: a submission failing these is refused without any change.
/// Returns the digest.
pub(super) fn check_integrity(
    submission: &Submission,
    spec: &CampaignSpec,
    seeds: Range<u64>,
) -> Result<[u8; 32], Rejection> {
    if submission.exhaustive.is_some() {
        return Err(Rejection::WrongKind {
            expected: "a seed campaign",
            got: "exhaustive",
        });
    }
    let expected = (seeds.end - seeds.start) as usize;
    for (counts, values) in [
        (Counts::Moves, &submission.move_counts),
        (Counts::RobotsMoved, &submission.robots_moved),
    ] {
        if values.len() != expected {
            return Err(Rejection::WrongLength {
                unit: submission.lease.unit,
                counts,
                expected,
                got: values.len(),
            });
        }
    }
    let digest = rrm_proto::unit_digest(
        &spec.name,
        seeds,
        &submission.move_counts,
        &submission.robots_moved,
    );
    if submission.digest != digest {
        return Err(Rejection::DigestMismatch);
    }
    Ok(digest)
}

/// Checks a fresh result's contents and computes what it adds to the statistics.
///
/// Every record candidate (at least `spec.record_threshold` moves) must come with a
/// solution, which is replayed and solved again; every seed claimed unsolved is solved
/// again too. Besides the records, only the unit's `top_count` hardest seeds (most moves,
/// then lowest seed) may bring a solution, so a worker cannot grow the hardest list at
/// will. Searches give up beyond `max_moves`. Expects a submission that passed
/// [`check_integrity`].
pub(super) fn check_contents(
    generator: Generator,
    spec: &CampaignSpec,
    seeds: Range<u64>,
    submission: &Submission,
    top_count: u32,
    max_moves: u8,
) -> Result<CheckedResult, Rejection> {
    let solutions = asked_solutions(spec, seeds.clone(), submission, top_count)?;
    let mut aggregates = Aggregates::default();
    let mut hardest = Vec::new();
    let results = submission.move_counts.iter().zip(&submission.robots_moved);
    for (seed, (&count, &robots)) in seeds.zip(results) {
        let generated = generator
            .generate(seed)
            .map_err(|error| Rejection::Ungenerable { seed, error })?;
        if count == UNSOLVED {
            // Not solved within the worker's limit: the coordinator must agree. Such a
            // seed has no move count to enter the statistics.
            let found = with_thread_solver(max_moves, |solver| solver.solve(&generated.puzzle));
            if let Ok(found) = found {
                return Err(Rejection::FalselyUnsolved {
                    seed,
                    found: found.moves.len(),
                });
            }
            continue;
        }
        add_counts(&mut aggregates, &generated, count, robots);
        let record = count >= spec.record_threshold;
        let Some(notation) = solutions.get(&seed) else {
            if record {
                return Err(Rejection::MissingRecordSolution { seed, moves: count });
            }
            continue;
        };
        check_solution(&generated, seed, count, robots, notation)?;
        if record {
            let optimum = with_thread_solver(max_moves, |solver| solver.solve(&generated.puzzle))
                .map_err(|reason| Rejection::Unconfirmed {
                seed,
                claimed: count,
                reason,
            })?;
            if optimum.moves.len() != usize::from(count) {
                return Err(Rejection::NotOptimal {
                    seed,
                    claimed: count,
                    found: optimum.moves.len(),
                });
            }
        }
        hardest.push(HardEntry {
            seed,
            moves: count,
            solution: notation.to_vec(),
            re_solved: record,
        });
    }
    Ok(CheckedResult {
        hardest,
        aggregates,
    })
}

/// The submission's solutions by seed, refusing any the unit did not ask for.
fn asked_solutions<'a>(
    spec: &CampaignSpec,
    seeds: Range<u64>,
    submission: &'a Submission,
    top_count: u32,
) -> Result<HashMap<u64, &'a [String]>, Rejection> {
    let top = hardest_seeds(seeds.clone(), &submission.move_counts, top_count);
    let mut solutions = HashMap::new();
    for (seed, moves) in &submission.solutions {
        if !seeds.contains(seed) {
            return Err(Rejection::SolutionOutsideUnit { seed: *seed });
        }
        let count = submission
            .move_counts
            .get((seed - seeds.start) as usize)
            .copied()
            .unwrap_or(UNSOLVED);
        let record = count != UNSOLVED && count >= spec.record_threshold;
        if !record && !top.contains(seed) {
            return Err(Rejection::UnaskedSolution {
                seed: *seed,
                top_count,
            });
        }
        if solutions.insert(*seed, moves.as_slice()).is_some() {
            return Err(Rejection::DuplicateSolution { seed: *seed });
        }
    }
    Ok(solutions)
}

/// The `top_count` solved seeds needing the most moves, ties to the lower seed: the
/// ones whose solutions a unit keeps besides its record candidates.
fn hardest_seeds(seeds: Range<u64>, move_counts: &[u8], top_count: u32) -> HashSet<u64> {
    // The unit's own range, never an open one: a unit may end at u64::MAX.
    let mut ranked: Vec<(u8, u64)> = seeds
        .zip(move_counts)
        .filter(|&(_, &count)| count != UNSOLVED)
        .map(|(seed, &count)| (count, seed))
        .collect();
    ranked.sort_by_key(|&(count, seed)| (std::cmp::Reverse(count), seed));
    ranked
        .into_iter()
        .take(top_count as usize)
        .map(|(_, seed)| seed)
        .collect()
}

/// Replays a kept solution: it must solve the puzzle in `count` moves with `robots`
/// different robots.
fn check_solution(
    generated: &GeneratedPuzzle,
    seed: u64,
    count: u8,
    robots: u8,
    notation: &[String],
) -> Result<(), Rejection> {
    let moves: Vec<Move> = notation
        .iter()
        .map(|m| {
            Move::from_notation(m).ok_or_else(|| Rejection::BadMove {
                seed,
                notation: m.clone(),
            })
        })
        .collect::<Result<_, _>>()?;
    if moves.len() != usize::from(count) || !generated.puzzle.is_solution(&moves) {
        return Err(Rejection::WrongSolution { seed, moves: count });
    }
    let actual = ricochet::puzzle::robots_moved(&moves);
    if usize::from(robots) != actual {
        return Err(Rejection::WrongRobotsMoved {
            seed,
            claimed: robots,
            actual,
        });
    }
    Ok(())
}

/// Adds one solved seed to `aggregates`. The one place results enter the statistics:
/// unsolved seeds never do.
pub(super) fn add_counts(
    aggregates: &mut Aggregates,
    generated: &GeneratedPuzzle,
    count: u8,
    robots: u8,
) {
    if count != UNSOLVED {
        aggregates.add(count, robots, &generated.token, &generated.arrangement);
    }
}

/// A stable share in [0, 1) per unit: which units get a second worker's check.
pub(super) fn unit_hash(campaign: u32, unit: u64) -> f64 {
    let mixed = (u64::from(campaign) << 48 ^ unit)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .rotate_left(29)
        .wrapping_mul(0xBF58_476D_1CE4_E5B9);
    (mixed >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests;
