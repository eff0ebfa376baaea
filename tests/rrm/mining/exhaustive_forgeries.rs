//! Forged exhaustive results: each refused with the typed rejection it deserves and a
//! failure charged, the unit leased again; malformed submissions charged nothing; the
//! honest result then stored once, also after the store is reopened and the same result
//! imported again.

use super::exhaustive::{assert_stored_once, easier_sample, honest, request, submission};
use super::exhaustive::{BOARD, ROTATED, TOKEN};
use super::*;
use rrm_coordinator::{CoordinatorError, PlacementList, Rejection};
use rrm_model::{ExhaustiveResult, Outcome, Work, DEFAULT_MAX_HARDEST, DEFAULT_TOP_PER_DEPTH};

/// A forged result, and whether a rejection is the one it deserves.
type Case = (
    &'static str,
    ExhaustiveResult,
    Box<dyn Fn(&Rejection) -> bool>,
);

#[test]
#[cfg_attr(
    rrm_fast_tests,
    ignore = "heavy: first-edition units (the full suite runs it)"
)]
fn forged_exhaustive_results_are_refused_and_the_unit_leased_again() {
    let honest = honest();
    let data = tempfile::tempdir().unwrap();
    let config = Config {
        max_failures: 100,
        verify_share: 0.0,
        ..Config::default()
    };
    let coordinator = Coordinator::open(Store::open(data.path()).unwrap(), config.clone()).unwrap();
    let status = coordinator
        .create_exhaustive_campaign(request("ex"))
        .unwrap();
    assert_eq!(status.units_total, 1);

    let (sampled, easier, depth) = easier_sample(honest);
    let mut cases: Vec<Case> = Vec::new();
    let mut forged = honest.clone();
    forged.histogram[5] += 1;
    cases.push((
        "forged histogram",
        forged,
        Box::new(|r| matches!(r, Rejection::PlacementTotal { .. })),
    ));
    let mut forged = honest.clone();
    forged.sample[sampled].1 = Some(depth + 1);
    cases.push((
        "changed sample depth",
        forged,
        Box::new(move |r| {
            *r == Rejection::WrongDepth {
                list: PlacementList::Sample,
                index: sampled,
                claimed: Some(depth + 1),
                found: Some(usize::from(depth)),
            }
        }),
    ));
    let mut forged = honest.clone();
    forged.hardest[0] = easier;
    cases.push((
        "wrong max placement",
        forged,
        Box::new(|r| {
            matches!(
                r,
                Rejection::WrongDepth {
                    list: PlacementList::Hardest,
                    index: 0,
                    ..
                }
            )
        }),
    ));
    let mut forged = honest.clone();
    forged.hardest.pop();
    cases.push((
        "missing max placement",
        forged,
        Box::new(|r| {
            matches!(
                r,
                Rejection::WrongCount {
                    list: PlacementList::Hardest,
                    ..
                }
            )
        }),
    ));
    let extra: Vec<[u8; 4]> = honest
        .sample
        .iter()
        .map(|(cells, _)| *cells)
        .filter(|cells| !honest.hardest.contains(cells))
        .collect();
    let mut forged = honest.clone();
    let missing = DEFAULT_MAX_HARDEST as usize + 1 - forged.hardest.len();
    forged.hardest.extend(extra.iter().take(missing));
    cases.push((
        "oversize hardest list",
        forged,
        Box::new(|r| {
            matches!(
                r,
                Rejection::TooMany {
                    list: PlacementList::Hardest,
                    got: 33,
                    ..
                }
            )
        }),
    ));
    let mut forged = honest.clone();
    let (top_depth, top) = &mut forged.top[0];
    let top_depth = *top_depth;
    let missing = DEFAULT_TOP_PER_DEPTH as usize + 1 - top.len();
    top.extend(
        extra
            .iter()
            .filter(|c| !top.contains(c))
            .take(missing)
            .collect::<Vec<_>>(),
    );
    cases.push((
        "oversize top list",
        forged,
        Box::new(move |r| {
            matches!(r, Rejection::TooMany { list: PlacementList::Top { depth }, .. } if *depth == top_depth)
        }),
    ));
    for (failures, (what, forged, expected)) in cases.into_iter().enumerate() {
        // A forger is distrusted after its first refusal: each case is another one.
        let worker = in_process_worker(&coordinator, "forger");
        let assignment = coordinator.lease(&worker).unwrap().expect("the unit again");
        assert_eq!(assignment.lease.lease, failures as u64 + 1, "{what}");
        let Work::Exhaustive(work) = &assignment.work else {
            panic!("an exhaustive unit")
        };
        assert_eq!((work.board.as_str(), work.token.as_str()), (BOARD, TOKEN));
        match coordinator.submit(submission(&worker, assignment.lease, &forged)) {
            Err(CoordinatorError::Invalid(rejection)) => {
                assert!(expected(&rejection), "{what}: refused with {rejection:?}")
            }
            other => panic!("{what}: {other:?}"),
        }
        assert!(
            coordinator
                .store()
                .exhaustive_results(1)
                .unwrap()
                .is_empty(),
            "{what}"
        );
        let status = coordinator.status("ex").unwrap();
        assert_eq!((status.units_done, status.units_leased), (0, 0), "{what}");
        assert_eq!(
            coordinator.store().units(1).unwrap()[0].1.failures(),
            failures as u32 + 1
        );
    }
    // Malformed submissions change nothing: no failure is charged.
    let worker = in_process_worker(&coordinator, "honest");
    let assignment = coordinator.lease(&worker).unwrap().expect("the unit again");
    let mut bad_digest = submission(&worker, assignment.lease.clone(), honest);
    bad_digest.digest[0] ^= 1;
    assert!(matches!(
        coordinator.submit(bad_digest),
        Err(CoordinatorError::Invalid(Rejection::DigestMismatch))
    ));
    let mut seed_style = submission(&worker, assignment.lease.clone(), honest);
    seed_style.exhaustive = None;
    assert!(matches!(
        coordinator.submit(seed_style),
        Err(CoordinatorError::Invalid(Rejection::WrongKind { .. }))
    ));
    let honest_submission = submission(&worker, assignment.lease, honest);
    assert_eq!(
        coordinator.submit(honest_submission.clone()).unwrap(),
        Outcome::Accepted
    );
    assert_eq!(
        coordinator.submit(honest_submission).unwrap(),
        Outcome::Duplicate
    );
    assert_eq!(coordinator.store().units(1).unwrap()[0].1.failures(), 6);
    assert_stored_once(&coordinator, "ex", honest);
    // Reopened without a checkpoint, the unit counts exactly once; an import of the same
    // result is a duplicate.
    drop(coordinator);
    let coordinator = Coordinator::open(reopened(data.path()), config).unwrap();
    assert_stored_once(&coordinator, "ex", honest);
    assert_eq!(
        coordinator
            .import_exhaustive(
                "ex",
                ROTATED,
                TOKEN,
                honest.clone(),
                Default::default(),
                rrm_coordinator::ReSolving::WORKER
            )
            .unwrap(),
        Outcome::Duplicate
    );
    assert_stored_once(&coordinator, "ex", honest);
}

/// The store in `dir` opened again once the previous handle's background flush has let
/// go of it (sled releases its lock when its last thread ends, a moment after a drop).
fn reopened(dir: &std::path::Path) -> Store {
    let started = Instant::now();
    loop {
        match Store::open(dir) {
            Err(rrm_store::StoreError::Locked { .. })
                if started.elapsed() < Duration::from_secs(10) =>
            {
                std::thread::sleep(Duration::from_millis(50))
            }
            opened => return opened.unwrap(),
        }
    }
}
