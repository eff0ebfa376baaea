//! The pure checks on real solved units, without a store or a lock.

use super::*;
use crate::core::LeaseRef;
use ricochet::solver::{with_thread_solver, DEFAULT_MAX_MOVES};
use ricochet::{Generator, Move};

const SEEDS: Range<u64> = 1..61;
const TOP: u32 = 3;

fn spec(record_threshold: u8) -> CampaignSpec {
    CampaignSpec {
        name: "checks".parse().unwrap(),
        generator: "fogleman".into(),
        seed_start: SEEDS.start,
        seed_end: SEEDS.end,
        unit_size: SEEDS.end - SEEDS.start,
        record_threshold,
        rules: rrm_model::Rules::STANDARD,
    }
}

/// Every seed of [`SEEDS`] solved here: (move counts, robots moved, solutions).
fn solved() -> (Vec<u8>, Vec<u8>, Vec<Vec<Move>>) {
    let solutions: Vec<Vec<Move>> = SEEDS
        .map(|seed| {
            let puzzle = Generator::Fogleman.generate(seed).unwrap().puzzle;
            with_thread_solver(DEFAULT_MAX_MOVES, |s| s.solve(&puzzle).unwrap().moves)
        })
        .collect();
    let counts = solutions.iter().map(|m| m.len() as u8).collect();
    let robots = solutions
        .iter()
        .map(|m| ricochet::puzzle::robots_moved(m) as u8)
        .collect();
    (counts, robots, solutions)
}

/// An honest submission: solutions of the records and of the `TOP` hardest seeds.
fn submission(
    spec: &CampaignSpec,
    counts: Vec<u8>,
    robots: Vec<u8>,
    moves: &[Vec<Move>],
) -> Submission {
    let mut order: Vec<usize> = (0..counts.len())
        .filter(|&i| counts[i] != UNSOLVED)
        .collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(counts[i]), i));
    let solutions = order
        .iter()
        .enumerate()
        .filter(|&(rank, &i)| rank < TOP as usize || counts[i] >= spec.record_threshold)
        .map(|(_, &i)| {
            let notation = moves[i].iter().map(Move::notation).collect();
            (SEEDS.start + i as u64, notation)
        })
        .collect();
    with_digest(
        spec,
        Submission {
            worker: 7,
            identity: "tester".into(),
            lease: LeaseRef {
                campaign: spec.name.clone(),
                unit: 0,
                lease: 1,
            },
            move_counts: counts,
            robots_moved: robots,
            digest: Vec::new(),
            solutions,
            exhaustive: None,
            cpu_ms: 0,
            own_process: false,
        },
    )
}

fn with_digest(spec: &CampaignSpec, mut submission: Submission) -> Submission {
    submission.digest = rrm_model::unit_digest(
        &spec.name,
        SEEDS,
        &submission.move_counts,
        &submission.robots_moved,
    )
    .to_vec();
    submission
}

fn check(
    spec: &CampaignSpec,
    submission: &Submission,
    max_moves: u8,
) -> Result<CheckedResult, Rejection> {
    checked_with(spec, submission, max_moves, 0, Bar::open())
}

/// [`check`] with `spot_checks` seeds re-solved (whatever the unit's size).
fn checked_with(
    spec: &CampaignSpec,
    submission: &Submission,
    max_moves: u8,
    spot_checks: u32,
    shown_bar: Bar,
) -> Result<CheckedResult, Rejection> {
    let checks = ContentChecks {
        top_count: TOP,
        max_moves,
        spot_checks,
        spot_share: 1.0,
        shown_bar,
    };
    check_contents(
        Dealer::standard(Generator::Fogleman),
        spec,
        SEEDS,
        submission,
        checks,
    )
}

#[test]
fn an_honest_result_adds_every_seed_and_keeps_records_and_the_hardest() {
    let (counts, robots, moves) = solved();
    let threshold = *counts.iter().max().unwrap();
    let spec = spec(threshold);
    let records = counts.iter().filter(|&&c| c >= threshold).count();
    let submission = submission(&spec, counts.clone(), robots, &moves);
    assert_eq!(
        check_integrity(&submission, &spec, SEEDS),
        Ok(submission.digest.clone().try_into().unwrap())
    );
    let checked = check(&spec, &submission, DEFAULT_MAX_MOVES).unwrap();
    assert_eq!(checked.aggregates.puzzles(), SEEDS.end - SEEDS.start);
    assert_eq!(checked.aggregates.max_moves(), threshold);
    assert_eq!(checked.hardest.len(), records.max(TOP as usize));
    for entry in &checked.hardest {
        assert!(
            entry.re_solved,
            "an open bar solves every kept puzzle again"
        );
        assert_eq!(entry.moves, counts[(entry.seed - SEEDS.start) as usize]);
    }
    // Behind a full list's bar, only the records are solved again.
    let behind = checked_with(&spec, &submission, DEFAULT_MAX_MOVES, 0, Bar::closed()).unwrap();
    assert_eq!(behind.hardest.len(), checked.hardest.len());
    for entry in &behind.hardest {
        assert_eq!(entry.re_solved, entry.moves >= threshold);
    }
}

#[test]
fn integrity_refuses_wrong_lengths_and_digests() {
    let (counts, robots, moves) = solved();
    let spec = spec(30);
    let honest = submission(&spec, counts, robots, &moves);
    let mut short = honest.clone();
    short.robots_moved.pop();
    assert_eq!(
        check_integrity(&short, &spec, SEEDS),
        Err(Rejection::WrongLength {
            unit: 0,
            counts: Counts::RobotsMoved,
            expected: 60,
            got: 59
        })
    );
    let mut forged = honest.clone();
    forged.move_counts[0] += 1;
    assert_eq!(
        check_integrity(&forged, &spec, SEEDS),
        Err(Rejection::DigestMismatch)
    );
}

#[test]
fn an_agreed_unsolved_seed_stays_out_of_the_statistics() {
    let (mut counts, mut robots, moves) = solved();
    let spec = spec(30);
    // With a limit below a seed's optimum, the coordinator agrees it is unsolved.
    let hardest = (0..counts.len())
        .max_by_key(|&i| (counts[i], std::cmp::Reverse(i)))
        .unwrap();
    let most = counts[hardest];
    let limit = most - 1;
    // Every seed beyond the limit (the hardest and any tied with it) is unsolved.
    let beyond: Vec<usize> = (0..counts.len()).filter(|&i| counts[i] > limit).collect();
    for &i in &beyond {
        counts[i] = UNSOLVED;
        robots[i] = 0;
    }
    let submission = submission(&spec, counts, robots, &moves);
    let checked = check(&spec, &submission, limit).unwrap();
    assert_eq!(
        checked.aggregates.puzzles(),
        SEEDS.end - SEEDS.start - beyond.len() as u64
    );
    assert!(checked.aggregates.histogram.len() <= usize::from(most) + 1);
    assert!(checked.aggregates.by_robots_moved[0] == 0);
    assert!(checked.hardest.iter().all(|e| e.moves != UNSOLVED));
}

#[test]
fn a_false_unsolved_claim_is_refused() {
    let (mut counts, mut robots, moves) = solved();
    let spec = spec(30);
    let true_count = counts[4];
    counts[4] = UNSOLVED;
    robots[4] = 0;
    let submission = submission(&spec, counts, robots, &moves);
    assert_eq!(
        check(&spec, &submission, DEFAULT_MAX_MOVES).unwrap_err(),
        Rejection::FalselyUnsolved {
            seed: SEEDS.start + 4,
            found: usize::from(true_count)
        }
    );
}

#[test]
fn solutions_beyond_the_records_and_the_top_count_are_refused() {
    let (counts, robots, moves) = solved();
    let spec = spec(30);
    let mut greedy = submission(&spec, counts.clone(), robots, &moves);
    let kept: Vec<u64> = greedy.solutions.iter().map(|s| s.0).collect();
    let extra = (0..counts.len())
        .find(|&i| !kept.contains(&(SEEDS.start + i as u64)))
        .unwrap();
    greedy.solutions.push((
        SEEDS.start + extra as u64,
        moves[extra].iter().map(Move::notation).collect(),
    ));
    assert_eq!(
        check(&spec, &greedy, DEFAULT_MAX_MOVES).unwrap_err(),
        Rejection::UnaskedSolution {
            seed: SEEDS.start + extra as u64,
            top_count: TOP
        }
    );
}

#[test]
fn wrong_solutions_are_refused_by_kind() {
    let (counts, robots, moves) = solved();
    let threshold = *counts.iter().max().unwrap();
    let spec = spec(threshold);
    let honest = submission(&spec, counts.clone(), robots.clone(), &moves);
    let (seed, _) = honest.solutions[0].clone();
    let index = (seed - SEEDS.start) as usize;

    let mut missing = honest.clone();
    missing.solutions.remove(0);
    assert_eq!(
        check(&spec, &missing, DEFAULT_MAX_MOVES).unwrap_err(),
        Rejection::MissingSolution {
            seed,
            moves: threshold
        }
    );

    let mut bad_move = honest.clone();
    bad_move.solutions[0].1[0] = "XQ".into();
    assert_eq!(
        check(&spec, &bad_move, DEFAULT_MAX_MOVES).unwrap_err(),
        Rejection::BadMove {
            seed,
            notation: "XQ".into()
        }
    );

    let mut wrong = honest.clone();
    wrong.solutions[0].1.reverse();
    assert_eq!(
        check(&spec, &wrong, DEFAULT_MAX_MOVES).unwrap_err(),
        Rejection::WrongSolution {
            seed,
            moves: threshold
        }
    );

    let mut robots_off = robots.clone();
    robots_off[index] += 1;
    let lying = submission(&spec, counts, robots_off, &moves);
    assert_eq!(
        check(&spec, &lying, DEFAULT_MAX_MOVES).unwrap_err(),
        Rejection::WrongRobotsMoved {
            seed,
            claimed: robots[index] + 1,
            actual: usize::from(robots[index])
        }
    );

    let mut twice = honest.clone();
    twice.solutions.push(honest.solutions[0].clone());
    assert_eq!(
        check(&spec, &twice, DEFAULT_MAX_MOVES).unwrap_err(),
        Rejection::DuplicateSolution { seed }
    );
}

#[test]
fn impossible_values_are_refused_whatever_the_digest() {
    let (counts, robots, moves) = solved();
    let spec = spec(255);
    // A seed among the easiest, so that changing it leaves the hardest list alone.
    let easy = (0..counts.len())
        .filter(|&i| counts[i] >= 2 && robots[i] == 1)
        .min_by_key(|&i| counts[i])
        .unwrap();
    let seed = SEEDS.start + easy as u64;
    for (claimed, claimed_robots) in [(0, 0), (counts[easy], 0), (1, 2), (UNSOLVED, 1)] {
        let mut forged = submission(&spec, counts.clone(), robots.clone(), &moves);
        forged.move_counts[easy] = claimed;
        forged.robots_moved[easy] = claimed_robots;
        let forged = with_digest(&spec, forged);
        assert!(
            matches!(
                check(&spec, &forged, DEFAULT_MAX_MOVES),
                Err(Rejection::Impossible { seed: s, .. }) if s == seed
            ),
            "{claimed} moves, {claimed_robots} robots accepted"
        );
    }
    // An honest count beyond the search limit is not a count the solver could give.
    let honest = submission(&spec, counts.clone(), robots, &moves);
    let limit = counts.iter().max().unwrap() - 1;
    assert!(matches!(
        check(&spec, &honest, limit),
        Err(Rejection::Impossible { .. })
    ));
}

#[test]
fn spot_checks_catch_a_seed_claimed_easier_than_it_is() {
    let (counts, robots, moves) = solved();
    let spec = spec(255);
    let honest = submission(&spec, counts.clone(), robots.clone(), &moves);
    let every_seed = (SEEDS.end - SEEDS.start) as u32;
    assert!(checked_with(&spec, &honest, DEFAULT_MAX_MOVES, every_seed, Bar::open()).is_ok());
    let easy = (0..counts.len())
        .filter(|&i| counts[i] >= 2 && robots[i] == 1)
        .min_by_key(|&i| counts[i])
        .unwrap();
    let mut forged = honest.clone();
    forged.move_counts[easy] -= 1;
    let forged = with_digest(&spec, forged);
    // Without spot checks the forgery passes: nothing else looks at that seed.
    assert!(check(&spec, &forged, DEFAULT_MAX_MOVES).is_ok());
    assert_eq!(
        checked_with(&spec, &forged, DEFAULT_MAX_MOVES, every_seed, Bar::open()).unwrap_err(),
        Rejection::SpotCheck {
            seed: SEEDS.start + easy as u64,
            claimed: counts[easy] - 1,
            claimed_robots: 1,
            found: usize::from(counts[easy]),
            found_robots: 1,
        }
    );
}

#[test]
fn spot_checks_cost_at_most_their_share_of_small_units() {
    assert_eq!(spot_count(10_000, 4, SPOT_SHARE), 4);
    assert_eq!(spot_count(100, 4, SPOT_SHARE), 1);
    let draws = 20_000;
    let checked: u32 = (0..draws).map(|_| spot_count(1, 4, SPOT_SHARE)).sum();
    // One unit of one seed in a hundred, on average.
    assert!((120..280).contains(&checked), "{checked} of {draws}");
    let drawn = secret_sample(1..1001, 4);
    assert_eq!(drawn.len(), 4);
    assert!(drawn.iter().all(|seed| (1..1001).contains(seed)));
    assert_ne!(
        secret_sample(1..1_000_001, 4),
        secret_sample(1..1_000_001, 4)
    );
}
