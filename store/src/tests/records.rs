//! The records' bytes, pinned: a domain type may change, but what a store of format
//! `FORMAT` holds on disk may not (a change of layout is a new version, see `records`).
//! Each value below is encoded and compared with the bytes format 2 has always written
//! (checked, when the records moved out of the domain types, against the bytes those
//! types wrote themselves), then read back whole.

use super::*;
use crate::portable::hex;

fn lease() -> Lease {
    Lease {
        number: 3,
        worker: 7,
        identity: "w".into(),
        deadline_unix_ms: -2,
    }
}

/// Encodes `value`, checks its bytes, and reads it back.
fn pinned<T: Stored + PartialEq + std::fmt::Debug>(value: T, bytes: &str) {
    let encoded = encode(&value);
    assert_eq!(hex(&encoded), bytes, "{value:?}");
    assert_eq!(decode::<T>("pinned", &encoded).unwrap(), value);
}

#[test]
fn every_record_keeps_its_format_2_bytes() {
    pinned(
        Campaign {
            id: 2,
            spec: CampaignSpec {
                name: "c".parse().unwrap(),
                generator: "fogleman".into(),
                seed_start: 1,
                seed_end: 300,
                unit_size: 128,
                record_threshold: 20,
                rules: Rules::STANDARD,
            },
            created_unix_ms: 5,
        },
        "02016308666f676c656d616e01ac028001140a",
    );
    pinned(
        UnitRecord {
            state: UnitState::Done {
                digest: [9; 32],
                producer: "p".into(),
                commit: 4,
                verification: Verification::Leased(lease()),
            },
            leases_issued: 2,
            failed_by: vec!["x".into()],
            last_error: Some("e".into()),
        },
        "02090909090909090909090909090909090909090909090909090909090909090901700402030701770302010178010165",
    );
    pinned(
        UnitRecord {
            state: UnitState::Pending {
                expired: Some(lease()),
            },
            ..UnitRecord::fresh()
        },
        "00010307017703000000",
    );
    pinned(
        HardEntry {
            seed: 1605212351,
            moves: 21,
            solution: vec!["BS".into()],
            re_solved: true,
        },
        "bfb1b6fd05150102425301",
    );
    let mut aggregates = Aggregates {
        through_commit: 6,
        ..Aggregates::default()
    };
    aggregates.add(3, 2, "RT", "1A 3B 4A 2B");
    pinned(
        aggregates,
        "060400000001010252540103030400000001010b3141203342203441203242010303040000000103000001",
    );
    pinned(
        ExhaustiveSpec {
            boards: vec!["1A 3B 4A 2B".into()],
            targets: vec!["RT".into()],
            sample_size: 32,
            top_from: 12,
            top_per_depth: 8,
            max_hardest: 32,
        },
        "010b314120334220344120324201025254200c0820",
    );
    pinned(
        ExhaustiveRecord {
            result: ExhaustiveResult {
                histogram: vec![0, 5],
                legal_histogram: vec![0, 4],
                unsolvable: 1,
                max_moves: 1,
                hardest: vec![[1, 2, 3, 4]],
                top: vec![(1, vec![[1, 2, 3, 4]])],
                sample: vec![([1, 2, 3, 4], Some(1)), ([5, 6, 7, 8], None)],
                legal_samples: vec![vec![[1, 2, 3, 4]]],
                legal_hardest: vec![[1, 2, 3, 4]],
            },
            hardest_solutions: vec![vec!["RN".into()]],
            legal_hardest_solutions: vec![vec!["RN".into()]],
            cpu_ms: 300,
            rrm_version: "0.1.0".into(),
        },
        "02000502000401010101020304010101010203040201020304010105060708000101010203040101020304010102524e010102524eac0205302e312e30",
    );
    pinned(
        Mismatch {
            unit: 1,
            lease: 2,
            producer: "p".into(),
            verifier: "v".into(),
            digest: [1; 32],
            detail: "d".into(),
            resolution: Resolution::VerifierWon,
        },
        "0102017001760101010101010101010101010101010101010101010101010101010101010101016402",
    );
    pinned(
        Distrust {
            identity: "w".into(),
            since_unix_ms: 8,
            reason: "r".into(),
        },
        "0177100172",
    );
}
