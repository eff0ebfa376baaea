//! The pure checks of a submission, which need no store and no lock: its integrity
//! (lengths, digest), its contents (no impossible values, kept solutions replayed,
//! record candidates, kept puzzles entering the shown hardest list, unsolved claims and
//! a few secretly drawn seeds solved again, only the solutions asked for and all of
//! them), and what it adds to the statistics.

use super::hardest::Bar;
use super::identity::secret_draw;
use super::{Counts, Rejection, Submission};
use ricochet::{Dealer, Dealt, ReplayError, ZeroMoves};
use rrm_model::UNSOLVED;
use rrm_model::{Aggregates, CampaignSpec, HardEntry};
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
    let digest = rrm_model::unit_digest(
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

/// How a unit's contents are checked: the limits of the coordinator's own searches and
/// how many seeds it re-solves at random.
#[derive(Clone, Copy, Debug)]
pub(super) struct ContentChecks {
    /// Solutions of the unit's this many hardest seeds come with the result.
    pub(super) top_count: u32,
    /// Searches give up beyond this many moves.
    pub(super) max_moves: u8,
    /// Seeds of every unit re-solved at random, at most `spot_share` of its seeds on
    /// average (see [`spot_count`]).
    pub(super) spot_checks: u32,
    pub(super) spot_share: f64,
    /// Kept puzzles passing this bar would be shown among the campaign's hardest: they
    /// are solved again.
    pub(super) shown_bar: Bar,
}

/// Spot checks re-solve at most this share of a unit's seeds on average, so that they
/// cost the coordinator at most about this share of the mining work however small the
/// units (a unit of one seed is checked one time in a hundred).
pub const SPOT_SHARE: f64 = 0.01;

/// How many seeds of a unit of `size` seeds to re-solve: `spot_checks`, or `share` of
/// the seeds when that is fewer, its fraction drawn in secret.
pub(super) fn spot_count(size: u64, spot_checks: u32, share: f64) -> u32 {
    let expected = f64::from(spot_checks).min(size as f64 * share);
    let whole = expected.floor();
    whole as u32 + u32::from(secret_draw() < expected - whole)
}

/// Checks a fresh result's contents and computes what it adds to the statistics.
///
/// No seed may claim the impossible (see [`check_possible`]). Every record candidate
/// (at least `spec.record_threshold` moves) must come with a solution, which is replayed
/// and solved again; so must the unit's `top_count` hardest seeds (most moves, then
/// lowest seed), and those of them that would enter the campaign's shown hardest list
/// (`shown_bar`) are solved again too: a valid but longer solution never ranks. Every
/// seed claimed unsolved is solved again, and so are a few seeds drawn in secret
/// ([`spot_count`]), whose move count and robots moved must match. No other seed may
/// bring a solution, so a worker cannot grow the hardest list at will.
/// Expects a submission that passed [`check_integrity`].
pub(super) fn check_contents(
    dealer: Dealer,
    spec: &CampaignSpec,
    seeds: Range<u64>,
    submission: &Submission,
    checks: ContentChecks,
) -> Result<CheckedResult, Rejection> {
    let ContentChecks {
        top_count,
        max_moves,
        spot_checks,
        spot_share,
        shown_bar,
    } = checks;
    let max_moves = dealer.max_moves(max_moves);
    let top = hardest_seeds(seeds.clone(), &submission.move_counts, top_count);
    let solutions = asked_solutions(spec, seeds.clone(), submission, &top, top_count)?;
    let spot = secret_sample(
        seeds.clone(),
        spot_count(seeds.end - seeds.start, spot_checks, spot_share),
    );
    let mut aggregates = Aggregates::default();
    let mut hardest = Vec::new();
    // Solved last: a unit the deterministic checks refuse costs no spot check, and its
    // refusal does not depend on the draw.
    let mut spotted = Vec::new();
    let results = submission.move_counts.iter().zip(&submission.robots_moved);
    for (seed, (&count, &robots)) in seeds.zip(results) {
        let dealt = dealer
            .deal(seed)
            .map_err(|error| Rejection::Ungenerable { seed, error })?;
        check_possible(&dealt, seed, count, robots, max_moves)?;
        if spot.contains(&seed) && count != UNSOLVED {
            spotted.push((dealt.clone(), seed, count, robots));
        }
        if count == UNSOLVED {
            // Not solved within the worker's limit: the coordinator must agree. Such a
            // seed has no move count to enter the statistics.
            let found = dealer.answer(&dealt, max_moves);
            if let Ok(found) = found {
                return Err(Rejection::FalselyUnsolved {
                    seed,
                    found: usize::from(found.moves),
                });
            }
            continue;
        }
        add_counts(&mut aggregates, &dealt, count, robots);
        let record = count >= spec.record_threshold;
        let Some(notation) = solutions.get(&seed) else {
            if record || top.contains(&seed) {
                return Err(Rejection::MissingSolution { seed, moves: count });
            }
            continue;
        };
        check_solution(dealer, &dealt, seed, count, robots, notation)?;
        let re_solve = record || shown_bar.admits(count, seed);
        if re_solve {
            let optimum =
                dealer
                    .answer(&dealt, max_moves)
                    .map_err(|reason| Rejection::Unconfirmed {
                        seed,
                        claimed: count,
                        reason,
                    })?;
            if optimum.moves != count {
                return Err(Rejection::NotOptimal {
                    seed,
                    claimed: count,
                    found: usize::from(optimum.moves),
                });
            }
        }
        hardest.push(HardEntry {
            seed,
            moves: count,
            solution: notation.to_vec(),
            re_solved: re_solve,
        });
    }
    // Seeds of one board and target one after another: this thread's solver sets them up
    // once (a sender on probation has every seed solved again).
    spotted.sort_by_cached_key(|(dealt, ..)| dealt.tables_key());
    for (dealt, seed, count, robots) in &spotted {
        spot_check(dealer, dealt, *seed, *count, *robots, max_moves)?;
    }
    Ok(CheckedResult {
        hardest,
        aggregates,
    })
}

/// Refuses what no solver can report: 0 moves unless the robot starts on the target
/// (and then nothing else) or the seed is a position that may have no forced win, robots
/// moved outside 1..=min(moves, pieces that may move), more moves than the search limit
/// unless it is [`UNSOLVED`], which moves no robot.
fn check_possible(
    dealt: &Dealt,
    seed: u64,
    moves: u8,
    robots: u8,
    max_moves: u8,
) -> Result<(), Rejection> {
    let impossible = |why| Rejection::Impossible {
        seed,
        moves,
        robots,
        why,
    };
    let zero = dealt.zero_moves();
    let robot_count = dealt.pieces();
    match moves {
        UNSOLVED if robots != 0 => Err(impossible("an unsolved seed moves no robot")),
        UNSOLVED => Ok(()),
        moves if moves > max_moves => Err(impossible("beyond the search limit")),
        0 if zero == ZeroMoves::Impossible => {
            Err(impossible("the robot does not start on the target"))
        }
        0 if robots != 0 => Err(impossible("0 moves move no robot")),
        _ if moves > 0 && zero == ZeroMoves::Only => {
            Err(impossible("the robot starts on the target: 0 moves"))
        }
        0 => Ok(()),
        moves if robots == 0 || usize::from(robots) > robot_count.min(usize::from(moves)) => Err(
            impossible("robots moved must be 1 to the robots on the board, and at most the moves"),
        ),
        _ => Ok(()),
    }
}

/// Solves a seed again and compares the move count and robots moved: honest workers
/// of this version run the same deterministic solver.
fn spot_check(
    dealer: Dealer,
    dealt: &Dealt,
    seed: u64,
    count: u8,
    robots: u8,
    max_moves: u8,
) -> Result<(), Rejection> {
    let found = dealer
        .answer(dealt, max_moves)
        .map_err(|reason| Rejection::Unconfirmed {
            seed,
            claimed: count,
            reason,
        })?;
    if found.moves != count || found.robots != robots {
        return Err(Rejection::SpotCheck {
            seed,
            claimed: count,
            claimed_robots: robots,
            found: usize::from(found.moves),
            found_robots: usize::from(found.robots),
        });
    }
    Ok(())
}

/// `count` distinct seeds of `seeds` drawn in secret (all of them when it has no more).
pub(super) fn secret_sample(seeds: Range<u64>, count: u32) -> HashSet<u64> {
    let size = seeds.end - seeds.start;
    if size <= u64::from(count) {
        return seeds.collect();
    }
    let mut drawn = HashSet::new();
    while drawn.len() < count as usize {
        drawn.insert(seeds.start + (secret_draw() * size as f64) as u64 % size);
    }
    drawn
}

/// The submission's solutions by seed, refusing any the unit did not ask for.
fn asked_solutions<'a>(
    spec: &CampaignSpec,
    seeds: Range<u64>,
    submission: &'a Submission,
    top: &HashSet<u64>,
    top_count: u32,
) -> Result<HashMap<u64, &'a [String]>, Rejection> {
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

/// Replays a kept solution: it must solve the puzzle (or win) in `count` moves with
/// `robots` different robots (or pieces).
fn check_solution(
    dealer: Dealer,
    dealt: &Dealt,
    seed: u64,
    count: u8,
    robots: u8,
    notation: &[String],
) -> Result<(), Rejection> {
    let shown = dealer
        .replay(dealt, notation)
        .map_err(|error| match error {
            ReplayError::Notation(notation) => Rejection::BadMove { seed, notation },
            ReplayError::Wrong => Rejection::WrongSolution { seed, moves: count },
        })?;
    if shown.moves != count {
        return Err(Rejection::WrongSolution { seed, moves: count });
    }
    let actual = usize::from(shown.robots);
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
pub(super) fn add_counts(aggregates: &mut Aggregates, dealt: &Dealt, count: u8, robots: u8) {
    if count != UNSOLVED {
        aggregates.add(count, robots, &dealt.token(), &dealt.arrangement());
    }
}

#[cfg(test)]
mod tests;
