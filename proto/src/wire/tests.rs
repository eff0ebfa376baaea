//! Round trips through the wire types, and the values either side must refuse.

use super::*;
use crate::v1 as pb;
use ricochet::rules::Rules;
use rrm_model::{
    Aggregates, Assignment, Campaign, CampaignSpec, CampaignStats, CampaignStatus, Distribution,
    Distrust, ExactStats, ExhaustiveRequest, ExhaustiveResult, ExhaustiveUnit, LeaseRef,
    MinedPlacement, MinedPuzzle, Mismatch, QuarantinedUnit, Resolution, Submission, Work,
};
use std::collections::BTreeMap;

fn status() -> CampaignStatus {
    CampaignStatus {
        campaign: Campaign {
            id: 0,
            spec: CampaignSpec {
                name: "round-trip".parse().unwrap(),
                generator: "fogleman".into(),
                seed_start: 5,
                seed_end: u64::MAX,
                unit_size: 1 << 20,
                record_threshold: 255,
                rules: rrm_model::Rules::STANDARD,
            },
            created_unix_ms: -3,
        },
        units_total: 9,
        units_done: 4,
        units_leased: 2,
        units_quarantined: 1,
        units_verified: 1,
        units_to_check: 2,
        seeds_done: 123,
        hardest_moves: 21,
        seeds_per_second: 1.5,
        seeds_in_progress: 17,
        placements_per_unit: Some(656_239_500),
        quarantined: vec![QuarantinedUnit {
            unit: 3,
            failures: 5,
            last_error: "lease 5 expired".into(),
        }],
        mismatches: vec![Mismatch {
            unit: 2,
            lease: 3,
            producer: "alice".into(),
            verifier: "bob".into(),
            digest: [0; 32],
            detail: "differs".into(),
            resolution: Resolution::VerifierWon,
        }],
        distrusted: vec![Distrust {
            identity: "alice".into(),
            since_unix_ms: 1_700_000_000_000,
            reason: "seed 9 claimed 1 move, it needs 6".into(),
        }],
    }
}

#[test]
fn a_status_survives_the_round_trip() {
    let wire: pb::CampaignStatus = status().into();
    assert_eq!(CampaignStatus::try_from(wire), Ok(status()));
}

#[test]
fn stats_survive_the_round_trip() {
    let mut aggregates = Aggregates::default();
    aggregates.add(12, 2, "BT", "1A 3B 4A 2B");
    aggregates.add(3, 1, "RQ", "1A 3B 4A 2B");
    aggregates.add(255, 4, "RQ", "2A 3B 4A 1B");
    let stats = CampaignStats {
        campaign: "c".parse().unwrap(),
        aggregates,
        exhaustive: None,
    };
    let wire: pb::Stats = stats.clone().into();
    assert_eq!(wire.puzzles, 3);
    assert_eq!(CampaignStats::try_from(wire), Ok(stats));
}

#[test]
fn exact_stats_survive_the_round_trip() {
    let mut by_target = BTreeMap::new();
    let mut by_board = BTreeMap::new();
    let mut overall = Distribution::default();
    for (board, token) in [
        ("1A 3B 4A 2B", "RT"),
        ("1A 3B 4A 2B", "GQ"),
        ("1B 2A 4B 3A", "RT"),
    ] {
        let result = exhaustive();
        overall.add(&result);
        by_target
            .entry(token.to_string())
            .or_insert_with(Distribution::default)
            .add(&result);
        by_board
            .entry(board.to_string())
            .or_insert_with(Distribution::default)
            .add(&result);
    }
    assert_eq!(overall.units, 3);
    assert_eq!(overall.legal_histogram, [0, 12, 27]);
    assert_eq!(by_target["RT"].unsolvable, 6);
    let stats = CampaignStats {
        campaign: "ex".into(),
        aggregates: Aggregates {
            histogram: overall.histogram.clone(),
            ..Aggregates::default()
        },
        exhaustive: Some(ExactStats {
            overall,
            by_target,
            by_board,
        }),
    };
    let wire: pb::Stats = stats.clone().into();
    assert!(wire.exhaustive);
    assert_eq!(CampaignStats::try_from(wire), Ok(stats));
    // An exhaustive campaign with no unit done yet is still one.
    let empty = CampaignStats {
        campaign: "new".into(),
        aggregates: Aggregates::default(),
        exhaustive: Some(ExactStats::default()),
    };
    assert_eq!(
        CampaignStats::try_from(pb::Stats::from(empty.clone())),
        Ok(empty)
    );
}

#[test]
fn puzzles_leases_and_submissions_survive_the_round_trip() {
    let puzzle = MinedPuzzle {
        campaign: "c".parse().unwrap(),
        seed: u64::MAX,
        moves: 25,
        solution: vec!["RN".into(), "GW".into()],
        re_solved: true,
    };
    let wire: pb::MinedPuzzle = puzzle.clone().into();
    assert_eq!(MinedPuzzle::try_from(wire), Ok(puzzle));
    let lease = LeaseRef {
        campaign: "c".parse().unwrap(),
        unit: 8,
        lease: 2,
    };
    assert_eq!(
        LeaseRef::try_from(pb::LeaseRef::from(lease.clone())),
        Ok(lease.clone())
    );
    // A lease naming no possible campaign is refused at the edge, without its name.
    let forged = pb::LeaseRef {
        campaign: "x".repeat(1 << 20),
        ..lease.clone().into()
    };
    assert_eq!(
        LeaseRef::try_from(forged),
        Err(WireError::Name(NameError::TooLong(1 << 20)))
    );
    let request = pb::SubmitRequest {
        worker_id: 4,
        session: vec![5; 16],
        lease: Some(lease.clone().into()),
        move_counts: vec![3, 4],
        digest: vec![1; 32],
        solutions: crate::solutions::pack(&[(9, vec!["BS".into()])])
            .unwrap()
            .into(),
        robots_moved: vec![1, 2],
        exhaustive: None,
    };
    let submission = Submission::try_from(request).unwrap();
    assert_eq!(submission.lease, lease);
    assert_eq!(submission.solutions, vec![(9, vec!["BS".to_string()])]);
    let spec = status().campaign.spec;
    assert_eq!(spec_from_request(create_request(spec.clone())), Ok(spec));
}

#[test]
fn values_over_255_and_missing_parts_are_refused() {
    let mut wire: pb::CampaignStatus = status().into();
    wire.hardest_moves = 256;
    assert_eq!(
        CampaignStatus::try_from(wire.clone()),
        Err(WireError::OverMoveLimit {
            field: "hardest moves",
            value: 256
        })
    );
    wire.hardest_moves = 1;
    wire.campaign.as_mut().unwrap().record_threshold = 300;
    assert!(CampaignStatus::try_from(wire.clone()).is_err());
    wire.campaign = None;
    assert_eq!(
        CampaignStatus::try_from(wire),
        Err(WireError::Missing("campaign"))
    );
    let puzzle = pb::MinedPuzzle {
        moves: 1000,
        ..pb::MinedPuzzle::default()
    };
    assert!(MinedPuzzle::try_from(puzzle).is_err());
    let stats = pb::Stats {
        by_target: vec![pb::GroupStats {
            max_moves: 256,
            ..pb::GroupStats::default()
        }],
        ..pb::Stats::default()
    };
    assert!(CampaignStats::try_from(stats).is_err());
    let mut request = create_request(status().campaign.spec);
    request.record_threshold = 256;
    assert!(spec_from_request(request).is_err());
    assert_eq!(
        Submission::try_from(pb::SubmitRequest::default()),
        Err(WireError::Missing("lease"))
    );
}

fn exhaustive() -> ExhaustiveResult {
    ExhaustiveResult {
        histogram: vec![0, 10, 20],
        legal_histogram: vec![0, 4, 9],
        unsolvable: 3,
        max_moves: 2,
        hardest: vec![[200, 1, 2, 3]],
        top: vec![(1, vec![[5, 6, 7, 255]]), (2, vec![[200, 1, 2, 3]])],
        sample: vec![([9, 0, 1, 2], Some(1)), ([10, 0, 1, 2], None)],
        legal_samples: vec![vec![[5, 6, 7, 255]], vec![[200, 1, 2, 3]]],
        legal_hardest: vec![[200, 1, 2, 3]],
    }
}

#[test]
fn exhaustive_units_results_and_placements_survive_the_round_trip() {
    let result = exhaustive();
    assert_eq!(exhaustive_result(exhaustive_message(&result)), Ok(result));
    let work = ExhaustiveUnit {
        board: "1A 3B 4A 2B".into(),
        token: "RT".into(),
        sample_size: 32,
        top_from: 12,
        top_per_depth: 8,
        max_hardest: 32,
    };
    let assignment = Assignment {
        lease: LeaseRef {
            campaign: "e".parse().unwrap(),
            unit: 7,
            lease: 1,
        },
        work: Work::Exhaustive(work.clone()),
        deadline_unix_ms: 5,
    };
    let unit = pb::WorkUnit::from(assignment);
    assert_eq!((unit.seed_start, unit.seed_end), (7, 8));
    assert_eq!(exhaustive_unit(unit.exhaustive.unwrap()), Ok(work));
    let placement = MinedPlacement {
        campaign: "e".parse().unwrap(),
        unit: 7,
        board: "1A 3B 4A 2B".into(),
        token: "RT".into(),
        target_cell: 42,
        placement: [200, 1, 2, 3],
        moves: 25,
        solution: vec!["RN".into()],
    };
    let wire: pb::MinedPlacement = placement.clone().into();
    assert_eq!(MinedPlacement::try_from(wire), Ok(placement));
    let request = ExhaustiveRequest {
        name: "e".parse().unwrap(),
        boards: vec!["2B 1A 3B 4A".into()],
        targets: vec!["RT".into()],
        sample_size: 1,
        top_from: 2,
        top_per_depth: 3,
        max_hardest: 4,
    };
    let wire = exhaustive_create_request(request.clone());
    assert_eq!(exhaustive_from_request(&wire), Ok(Some(request)));
}

#[test]
fn bad_exhaustive_placements_are_refused() {
    let mut wire = exhaustive_message(&exhaustive());
    wire.hardest[0].helpers.pop();
    assert_eq!(exhaustive_result(wire), Err(WireError::BadPlacement));
    let mut wire = exhaustive_message(&exhaustive());
    wire.sample[0].placement.as_mut().unwrap().target_robot = 256;
    assert_eq!(exhaustive_result(wire), Err(WireError::BadPlacement));
    let mut wire = exhaustive_message(&exhaustive());
    wire.top[0].depth = 300;
    assert!(matches!(
        exhaustive_result(wire),
        Err(WireError::OverMoveLimit { .. })
    ));
}

#[test]
fn units_and_submissions_survive_the_worker_s_round_trip() {
    let lease = LeaseRef {
        campaign: "c".parse().unwrap(),
        unit: 3,
        lease: 1,
    };
    let seeds = Assignment {
        lease: lease.clone(),
        work: Work::Seeds {
            generator: ricochet::Generator::Fogleman,
            rules: Rules::parse("no-rebounds,ricochet,min-moves=5").unwrap(),
            seeds: 10..20,
            record_threshold: 21,
            top_count: 4,
        },
        deadline_unix_ms: 99,
    };
    let analysis = Assignment {
        work: Work::Exhaustive(ExhaustiveUnit {
            board: "1A 3B 4A 2B".into(),
            token: "RT".into(),
            sample_size: 32,
            top_from: 12,
            top_per_depth: 8,
            max_hardest: 32,
        }),
        ..seeds.clone()
    };
    for assignment in [seeds, analysis] {
        let wire = pb::WorkUnit::from(assignment.clone());
        assert_eq!(Assignment::try_from(wire), Ok(assignment));
    }
    let mut unknown = pb::WorkUnit::from(Assignment {
        lease: lease.clone(),
        work: Work::Seeds {
            generator: ricochet::Generator::Fogleman,
            rules: Rules::STANDARD,
            seeds: 1..2,
            record_threshold: 20,
            top_count: 0,
        },
        deadline_unix_ms: 0,
    });
    // A peer that predates rules sends none: the standard ones.
    unknown.rules = String::new();
    assert!(matches!(
        Assignment::try_from(unknown.clone()),
        Ok(Assignment {
            work: Work::Seeds {
                rules: Rules::STANDARD,
                ..
            },
            ..
        })
    ));
    unknown.rules = "bounce".into();
    assert!(matches!(
        Assignment::try_from(unknown.clone()),
        Err(WireError::Rules(_))
    ));
    unknown.rules = String::new();
    unknown.generator = "dice".into();
    assert!(matches!(
        Assignment::try_from(unknown),
        Err(WireError::Generator(_))
    ));
    let submission = Submission {
        worker: 4,
        identity: String::new(),
        lease,
        move_counts: Vec::new(),
        robots_moved: Vec::new(),
        digest: vec![2; 32],
        solutions: vec![(9, vec!["BS".into()])],
        exhaustive: Some(exhaustive()),
        cpu_ms: 1234,
        own_process: false,
    };
    let request = submit_request(submission.clone(), vec![5; 16]).unwrap();
    assert_eq!(request.session, vec![5; 16]);
    assert_eq!(Submission::try_from(request), Ok(submission));
}
