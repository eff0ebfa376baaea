//! Submissions a coordinator must judge: duplicates, late and malformed results, and units
//! that keep failing.

use super::*;
use rrm_coordinator::{CoordinatorError, Rejection};
use rrm_model::{Outcome, Submission, Work};

#[test]
fn duplicate_late_and_malformed_submissions() {
    let config = Config {
        lease_duration: Duration::from_secs(1),
        ..Config::default()
    };
    let server = Server::with_campaign(config, spec("forge", 1..101, 10));
    block_on(async {
        let (mut client, worker) = raw_worker(&server.url, "test").await;
        let first = leased_unit(&mut client, &worker).await;
        let first_lease = first.lease.clone().unwrap();
        // Let it expire; the same unit comes back under lease 2.
        tokio::time::sleep(Duration::from_millis(1200)).await;
        let second = leased_unit(&mut client, &worker).await;
        let lease = second.lease.clone().unwrap();
        assert_eq!((lease.unit, lease.lease), (first_lease.unit, 2));
        let seeds = second.seed_start..second.seed_end;
        let result = solve_honestly(seeds.clone(), 5);
        let submit = |lease: pb::LeaseRef, counts: Vec<u8>, digest: Option<[u8; 32]>| {
            let mut request = submission(lease, seeds.clone(), &result, &worker, counts);
            if let Some(digest) = digest {
                request.digest = digest.to_vec();
            }
            request
        };
        let snapshot = |server: &Server| {
            let store = server.coordinator.store();
            (
                server.coordinator.status("forge").unwrap(),
                server.coordinator.aggregates("forge").unwrap(),
                store.units(1).unwrap(),
                store.hardest(1, 100, 0).unwrap(),
            )
        };
        let before = snapshot(&server);
        let good = result.move_counts.clone();
        let cases = [
            (
                "wrong length",
                submit(lease.clone(), good[1..].to_vec(), None),
                Code::InvalidArgument,
            ),
            (
                "bad digest",
                submit(lease.clone(), good.clone(), Some([0; 32])),
                Code::InvalidArgument,
            ),
            (
                "unknown unit",
                submit(
                    pb::LeaseRef {
                        unit: 999,
                        ..lease.clone()
                    },
                    good.clone(),
                    None,
                ),
                Code::NotFound,
            ),
            (
                "unknown campaign",
                submit(
                    pb::LeaseRef {
                        campaign: "nope".into(),
                        ..lease.clone()
                    },
                    good.clone(),
                    None,
                ),
                Code::NotFound,
            ),
            (
                "never issued lease",
                submit(
                    pb::LeaseRef {
                        lease: 9,
                        ..lease.clone()
                    },
                    good.clone(),
                    None,
                ),
                Code::NotFound,
            ),
            (
                "stale lease",
                submit(first_lease.clone(), good.clone(), None),
                Code::FailedPrecondition,
            ),
            (
                "another worker's id",
                pb::SubmitRequest {
                    worker_id: worker.id ^ 1,
                    ..submit(lease.clone(), good.clone(), None)
                },
                Code::Unauthenticated,
            ),
            (
                "a forged session",
                pb::SubmitRequest {
                    session: vec![0; 16],
                    ..submit(lease.clone(), good.clone(), None)
                },
                Code::Unauthenticated,
            ),
        ];
        for (what, request, code) in cases {
            let refused = client.submit(request).await.expect_err(what);
            assert_eq!(refused.code(), code, "{what}: {}", refused.message());
            assert_eq!(snapshot(&server), before, "{what} changed the store");
        }
        let accepted = client
            .submit(submit(lease.clone(), good.clone(), None))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(accepted.outcome(), pb::SubmitOutcome::Accepted);
        let after = snapshot(&server);
        assert_eq!(after.1.puzzles(), 10);
        let duplicate = client
            .submit(submit(lease.clone(), good.clone(), None))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(duplicate.outcome(), pb::SubmitOutcome::Duplicate);
        let late = client
            .submit(submit(first_lease.clone(), good.clone(), None))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(late.outcome(), pb::SubmitOutcome::Duplicate);
        assert_eq!(snapshot(&server), after, "duplicates changed the store");
        let mut wrong = good.clone();
        wrong[0] += 1;
        // A differing result must pass the checks of a fresh one: this one's kept
        // solution no longer matches its count, so it is refused, the stored result
        // stands, and the sender is distrusted.
        let disagreeing = client
            .submit(submit(first_lease.clone(), wrong, None))
            .await
            .expect_err("a differing result that fails its checks");
        assert_eq!(disagreeing.code(), Code::InvalidArgument);
        let status = server.coordinator.status("forge").unwrap();
        assert_eq!(status.mismatches.len(), 1, "the mismatch is visible");
        assert_eq!(
            status.mismatches[0].resolution,
            rrm_model::Resolution::StoredWon
        );
        assert_eq!(status.distrusted.len(), 1, "its sender is distrusted");
        assert_eq!(
            server.coordinator.aggregates("forge").unwrap(),
            after.1,
            "never counted twice"
        );
    });
}

#[test]
fn a_unit_that_keeps_failing_is_quarantined_with_its_error() {
    let config = Config {
        max_failures: 2,
        ..Config::default()
    };
    let mut every_seed_a_record = spec("failing", 1..11, 10);
    every_seed_a_record.record_threshold = 1;
    let server = Server::with_campaign(config, every_seed_a_record);
    block_on(async {
        // Two identities (without tokens, two registrations): one identity's refusals
        // count once, however many.
        for attempt in 1..=2 {
            let (mut client, worker) = raw_worker(&server.url, "liar").await;
            let unit = leased_unit(&mut client, &worker).await;
            let lease = unit.lease.unwrap();
            assert_eq!(lease.lease, attempt);
            // Record candidates without their solutions.
            let counts = vec![3u8; 10];
            let refused = client
                .submit(pb::SubmitRequest {
                    worker_id: worker.id,
                    session: worker.session.clone(),
                    digest: rrm_model::unit_digest("failing", 1..11, &counts, &[1; 10]).to_vec(),
                    lease: Some(lease),
                    move_counts: counts,
                    robots_moved: vec![1; 10],
                    solutions: Default::default(),
                    exhaustive: None,
                })
                .await
                .expect_err("no solutions");
            assert_eq!(refused.code(), Code::InvalidArgument);
        }
        let (mut client, worker) = raw_worker(&server.url, "honest").await;
        let nothing = client.lease(worker.lease()).await.unwrap().into_inner();
        assert!(
            nothing.unit.is_none(),
            "a quarantined unit is not leased again"
        );
    });
    let status = server.coordinator.status("failing").unwrap();
    assert_eq!(status.units_quarantined, 1);
    let missing = Rejection::MissingSolution { seed: 1, moves: 3 };
    assert_eq!(status.quarantined[0].last_error, missing.to_string());
    assert_eq!(
        server.coordinator.aggregates("failing").unwrap().puzzles(),
        0
    );
}

/// The coordinator's own answers, without gRPC: every refusal is a typed variant, and a
/// result keeps no more solutions than its records and the unit's top count.
#[test]
fn refusals_are_typed_and_kept_solutions_are_bounded() {
    let data = tempfile::tempdir().unwrap();
    let config = Config {
        top_count: 2,
        ..Config::default()
    };
    let coordinator = Coordinator::open(Store::open(data.path()).unwrap(), config).unwrap();
    coordinator
        .create_campaign(spec("typed", 1..41, 40))
        .unwrap();
    let worker = in_process_worker(&coordinator, "typed");
    let first = coordinator.lease(&worker).unwrap().expect("a unit");
    // The worker vanishes; its unit comes back under lease 2.
    coordinator.release_leases().unwrap();
    let assignment = coordinator.lease(&worker).unwrap().expect("the unit again");
    assert_eq!(assignment.lease.lease, 2);
    let Work::Seeds { seeds, .. } = assignment.work else {
        panic!("a seed unit")
    };
    let solved = solve_honestly(seeds.clone(), 2);
    let honest = Submission {
        worker: worker.id,
        identity: worker.identity.clone(),
        lease: assignment.lease.clone(),
        digest: rrm_model::unit_digest(
            "typed",
            seeds.clone(),
            &solved.move_counts,
            &solved.robots_moved,
        )
        .to_vec(),
        move_counts: solved.move_counts.clone(),
        robots_moved: solved.robots_moved.clone(),
        solutions: solved.solutions.clone(),
        exhaustive: None,
        cpu_ms: 0,
        own_process: false,
    };
    let mut short = honest.clone();
    short.move_counts.pop();
    assert!(matches!(
        coordinator.submit(short),
        Err(CoordinatorError::Invalid(Rejection::WrongLength {
            expected: 40,
            got: 39,
            ..
        }))
    ));
    let mut forged = honest.clone();
    forged.digest[0] ^= 1;
    assert!(matches!(
        coordinator.submit(forged),
        Err(CoordinatorError::Invalid(Rejection::DigestMismatch))
    ));
    let stale = Submission {
        lease: first.lease.clone(),
        ..honest.clone()
    };
    assert!(matches!(
        coordinator.submit(stale),
        Err(CoordinatorError::StaleLease {
            unit: 0,
            lease: 1,
            superseded_by: Some(2)
        })
    ));
    let someone_else = Submission {
        identity: "someone else".into(),
        ..honest.clone()
    };
    assert!(matches!(
        coordinator.submit(someone_else),
        Err(CoordinatorError::NotYourLease { unit: 0, lease: 2 })
    ));
    let mut beyond = honest.clone();
    beyond.lease.unit = 5;
    assert!(matches!(
        coordinator.submit(beyond),
        Err(CoordinatorError::UnknownUnit { unit: 5, .. })
    ));
    // A solution the unit did not ask for would grow the hardest list: refused, charged
    // to the unit like any wrong result, and its sender distrusted.
    let kept: Vec<u64> = honest.solutions.iter().map(|s| s.0).collect();
    let extra = (1..41).find(|seed| !kept.contains(seed)).unwrap();
    let mut greedy = honest.clone();
    greedy.solutions.push((extra, vec!["RN".into()]));
    assert!(matches!(
        coordinator.submit(greedy),
        Err(CoordinatorError::Invalid(Rejection::UnaskedSolution { seed, top_count: 2 })) if seed == extra
    ));
    assert_eq!(coordinator.store().units(1).unwrap()[0].1.failures(), 1);
    assert!(matches!(
        coordinator.lease(&worker),
        Err(CoordinatorError::Distrusted(identity)) if identity == worker.identity
    ));
    // The unit went back to the queue; its next lease, to another worker, delivers the
    // honest result.
    let other = in_process_worker(&coordinator, "other");
    let third = coordinator
        .lease(&other)
        .unwrap()
        .expect("the unit once more");
    let honest = Submission {
        lease: third.lease,
        worker: other.id,
        identity: other.identity.clone(),
        ..honest
    };
    assert_eq!(
        coordinator.submit(honest.clone()).unwrap(),
        Outcome::Accepted
    );
    assert_eq!(coordinator.submit(honest).unwrap(), Outcome::Duplicate);
    let records = solved.move_counts.iter().filter(|&&m| m >= 20).count();
    let stored = coordinator.store().hardest(1, 1000, 0).unwrap();
    assert_eq!(stored.len(), records.max(2));
    for entry in stored {
        let index = (entry.seed - 1) as usize;
        assert_eq!(entry.moves, solved.move_counts[index]);
        check_solution(
            &Generator::Fogleman
                .generate(entry.seed)
                .unwrap()
                .puzzle
                .to_record(None),
            &entry.solution,
        )
        .unwrap();
    }
    assert!(matches!(
        coordinator.puzzle("typed", 99),
        Err(CoordinatorError::SeedOutside { seed: 99, .. })
    ));
}
