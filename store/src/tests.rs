//! Store round trips: campaigns, results, hardest order, block layouts, aggregates,
//! corrections of wrong results and distrust, the schema version;
//! exhaustive campaigns (in `exhaustive`); crash images replayed from the journal
//! (in `journal`); injected write and sync failures (in `faults`); the records' bytes
//! pinned (in `records`);
//! opening errors and corrupt keys.

use super::*;
use rrm_model::*;

mod exhaustive;
mod faults;
mod journal;
mod records;

fn spec(name: &str) -> CampaignSpec {
    CampaignSpec {
        name: name.parse().unwrap(),
        generator: "fogleman".into(),
        seed_start: 1,
        seed_end: 1001,
        unit_size: 100,
        record_threshold: 18,
        rules: Rules::STANDARD,
    }
}

fn done(commit: u64) -> UnitRecord {
    UnitRecord {
        state: UnitState::Done {
            digest: [7; 32],
            producer: "alice".into(),
            commit,
            verification: Verification::NotChosen,
        },
        leases_issued: 1,
        failed_by: Vec::new(),
        last_error: None,
    }
}

/// Commits `unit`'s result as commit number `commit`, its record done by that commit.
fn commit_done(
    store: &Store,
    campaign: u32,
    unit: u64,
    commit: u64,
    counts: &[u8],
    robots: &[u8],
    hardest: &[HardEntry],
) {
    store
        .commit_result(&UnitResult {
            campaign,
            unit,
            record: &done(commit),
            move_counts: counts,
            robots_moved: robots,
            hardest,
            commit,
        })
        .unwrap();
}

#[test]
fn campaigns_are_unique_and_validated() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let first = store.create_campaign(spec("a"), 5).unwrap();
    let second = store.create_campaign(spec("b"), 6).unwrap();
    assert_ne!(first.id, second.id);
    assert!(matches!(
        store.create_campaign(spec("a"), 7),
        Err(StoreError::CampaignExists(_))
    ));
    let mut empty = spec("c");
    empty.seed_end = empty.seed_start;
    assert!(matches!(
        store.create_campaign(empty, 8),
        Err(StoreError::InvalidCampaign(
            SpecError::EmptySeedRange { .. }
        ))
    ));
    let mut no_unit = spec("d");
    no_unit.unit_size = 0;
    assert!(matches!(
        store.create_campaign(no_unit, 8),
        Err(StoreError::InvalidCampaign(SpecError::UnitSize(0)))
    ));
    let names: Vec<_> = store
        .campaigns()
        .unwrap()
        .into_iter()
        .map(|c| c.spec.name)
        .collect();
    assert_eq!(names, ["a", "b"]);
    assert_eq!(first.spec.units_total(), 10);
    assert_eq!(first.spec.unit_seeds(9), 901..1001);
    assert_eq!(first.spec.unit_of(1000), Some(9));
    assert_eq!(first.spec.unit_of(1001), None);
    let top = CampaignSpec {
        seed_start: u64::MAX - 10,
        seed_end: u64::MAX,
        ..spec("top")
    };
    assert_eq!(top.units_total(), 1);
    assert_eq!(top.unit_seeds(0), u64::MAX - 10..u64::MAX);
}

/// Rules are kept as their canonical text, so a rule added later needs no new record
/// version; a store written with the positional record of version 1 still reads, and a
/// damaged text is refused as corrupt, not read as the standard rules.
#[test]
fn campaign_rules_are_kept_as_text_and_the_old_record_still_reads() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let mut ruled = spec("ruled");
    ruled.rules = Rules::parse("no-rebounds,min-moves=3").unwrap();
    let id = store.create_campaign(ruled, 1).unwrap().id;
    let rules = store.table(Table::Rules).unwrap();
    let key = id.to_be_bytes();
    let kept = rules.get(key).unwrap().unwrap();
    assert_eq!(&kept[..], b"\x02no-rebounds,min-moves=3");

    // Version 1: rebounds false, the rulebook's ricochet (1), min-moves 3, postcard.
    rules.insert(key, &[1u8, 0, 1, 3][..]).unwrap();
    let read = store.campaign("ruled").unwrap().unwrap().spec.rules;
    assert_eq!(
        read,
        Rules::parse("no-rebounds,ricochet,min-moves=3").unwrap()
    );

    rules
        .insert(key, &b"\x02no-rebounds,warp-drive"[..])
        .unwrap();
    let damaged = store.campaign("ruled").unwrap_err().to_string();
    assert!(damaged.contains("warp-drive"), "{damaged}");
}

/// A campaign's rules come back with it after reopening; standard campaigns (every one
/// of an older store) keep no entry in `rules` and read as standard.
#[test]
fn campaign_rules_survive_reopening_and_only_others_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let ricochet = Rules::parse("no-rebounds,dd-ricochet,min-moves=3").unwrap();
    {
        let store = Store::open(dir.path()).unwrap();
        store.create_campaign(spec("plain"), 1).unwrap();
        let mut ruled = spec("ruled");
        ruled.rules = ricochet;
        store.create_campaign(ruled, 2).unwrap();
        assert_eq!(store.table(Table::Rules).unwrap().len(), 1);
        store.flush_blocking().unwrap();
    }
    let store = Store::open(dir.path()).unwrap();
    let rules = |name: &str| store.campaign(name).unwrap().unwrap().spec.rules;
    assert_eq!(rules("plain"), Rules::STANDARD);
    assert_eq!(rules("ruled"), ricochet);
    let listed: Vec<Rules> = store
        .campaigns()
        .unwrap()
        .iter()
        .map(|c| c.spec.rules)
        .collect();
    assert_eq!(listed, [Rules::STANDARD, ricochet]);
}

#[test]
fn results_survive_reopening_with_their_log_and_hardest_order() {
    let dir = tempfile::tempdir().unwrap();
    let counts: Vec<u8> = (0..100).map(|i| (i % 13) as u8 + 2).collect();
    let robots: Vec<u8> = (0..100).map(|i| (i % 3) as u8 + 1).collect();
    {
        let store = Store::open(dir.path()).unwrap();
        let campaign = store.create_campaign(spec("a"), 0).unwrap();
        let hardest = [
            HardEntry {
                seed: 40,
                moves: 14,
                solution: vec!["RN".into()],
                re_solved: false,
            },
            HardEntry {
                seed: 12,
                moves: 19,
                solution: vec!["BS".into()],
                re_solved: true,
            },
            HardEntry {
                seed: 3,
                moves: 14,
                solution: vec![],
                re_solved: false,
            },
        ];
        for (commit, unit) in [(1, 4), (2, 0)] {
            commit_done(
                &store,
                campaign.id,
                unit,
                commit,
                &counts,
                &robots,
                &hardest,
            );
        }
        store.flush_blocking().unwrap();
        assert!(store.size_on_disk().unwrap() > 0);
    }
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(
        store.unit_results(1, 4).unwrap(),
        Some((counts.clone(), robots.clone()))
    );
    assert_eq!(store.unit_results(1, 1).unwrap(), None);
    assert_eq!(store.last_commit().unwrap(), 2);
    assert_eq!(store.commits_after(1).unwrap(), [(2, 1, 0)]);
    let seeds: Vec<_> = store
        .hardest(1, 10, 0)
        .unwrap()
        .iter()
        .map(|e| e.seed)
        .collect();
    assert_eq!(seeds, [12, 3, 40]);
    assert_eq!(store.hardest(1, 10, 15).unwrap().len(), 1);
    assert_eq!(store.units(1).unwrap().len(), 2);
}

#[test]
fn large_blocks_are_deflated_and_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let campaign = store.create_campaign(spec("a"), 0).unwrap();
    let counts: Vec<u8> = (0..5000u32).map(|i| (i * 7 % 11) as u8 + 1).collect();
    let robots: Vec<u8> = (0..5000u32).map(|i| (i % 4) as u8 + 1).collect();
    // Joint bytes, and the plain deflated layout when a count does not fit in five bits.
    let mut unsolved = counts.clone();
    unsolved[17] = 255;
    for (unit, counts) in [(0, counts), (1, unsolved)] {
        commit_done(&store, campaign.id, unit, unit + 1, &counts, &robots, &[]);
        assert_eq!(
            store.unit_results(campaign.id, unit).unwrap(),
            Some((counts, robots.clone()))
        );
    }
}

#[test]
fn a_second_opener_gets_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let _store = Store::open(dir.path()).unwrap();
    let error = Store::open_existing(dir.path()).err().expect("locked");
    assert!(matches!(error, StoreError::Locked { .. }), "{error:?}");
    let message = error.to_string();
    assert!(message.contains("in use by another process"), "{message}");
    assert_eq!(
        message.matches("lock").count(),
        0,
        "no sled text: {message}"
    );
}

#[test]
fn opening_says_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file");
    std::fs::write(&file, "not a store").unwrap();
    for path in [file.clone(), file.join("below")] {
        let error = Store::open(&path).err().expect("a file");
        assert!(
            matches!(&error, StoreError::NotADirectory { path } if *path == file),
            "{error:?}"
        );
    }
    // Readers refuse a directory without a store and leave nothing behind.
    let missing = dir.path().join("mistyped");
    let error = Store::open_existing(&missing).err().expect("no store");
    assert!(matches!(error, StoreError::Missing { .. }), "{error:?}");
    assert!(!missing.exists());
    let empty = tempfile::tempdir().unwrap();
    let error = Store::open_existing(empty.path()).err().expect("empty");
    assert!(matches!(error, StoreError::Missing { .. }), "{error:?}");
    assert_eq!(std::fs::read_dir(empty.path()).unwrap().count(), 0);
    // Once created, the store opens for readers too.
    drop(Store::open(&missing).unwrap());
    Store::open_existing(&missing).unwrap();
}

#[test]
fn a_damaged_store_is_reported_as_corrupt() {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = Store::open(dir.path()).unwrap();
        store.create_campaign(spec("a"), 0).unwrap();
        store.flush_blocking().unwrap();
    }
    // Reopening writes sled's snapshot, which then points into the damaged log.
    drop(Store::open(dir.path()).unwrap());
    let db = dir.path().join("db");
    let mut bytes = std::fs::read(&db).unwrap();
    bytes.fill(0xab);
    std::fs::write(&db, bytes).unwrap();
    let error = Store::open_existing(dir.path()).err().expect("damaged");
    assert!(
        matches!(error, StoreError::CorruptFiles { .. }),
        "{error:?}"
    );
    assert!(error.to_string().contains("is corrupt"), "{error}");
}

#[test]
fn sled_failures_map_to_their_causes() {
    let path = Path::new("/data");
    let io = |error: std::io::Error| open_error(path, sled::Error::Io(error));
    assert!(matches!(
        io(std::io::Error::from_raw_os_error(libc::ENOSPC)),
        StoreError::NoSpace { .. }
    ));
    assert!(matches!(
        io(std::io::ErrorKind::PermissionDenied.into()),
        StoreError::PermissionDenied { .. }
    ));
    let corrupt = open_error(path, sled::Error::Corruption { at: None, bt: () });
    assert!(
        matches!(corrupt, StoreError::CorruptFiles { .. }),
        "{corrupt:?}"
    );
    let other = io(std::io::Error::other("disk on fire")).to_string();
    assert_eq!(other, "cannot open the store in /data: disk on fire");
}

#[test]
fn short_keys_and_values_are_corrupt_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let id = store.create_campaign(spec("a"), 0).unwrap().id;
    let corrupt = |result: Result<()>, what: &str| match result {
        Err(StoreError::Corrupt { what: found, .. }) => assert!(found.contains(what), "{found}"),
        other => panic!("{what}: {other:?}"),
    };
    store
        .table(Table::Units)
        .unwrap()
        .insert(&id.to_be_bytes()[..], encode(&done(1)))
        .unwrap();
    corrupt(store.units(id).map(drop), "unit key");
    let entry = HardEntry {
        seed: 5,
        moves: 9,
        solution: vec![],
        re_solved: false,
    };
    store
        .table(Table::Hardest)
        .unwrap()
        .insert(&id.to_be_bytes()[..], encode(&entry))
        .unwrap();
    corrupt(store.hardest(id, 10, 0).map(drop), "hardest key");
    store
        .table(Table::Commits)
        .unwrap()
        .insert(&[0, 1][..], &[1, 2][..])
        .unwrap();
    corrupt(store.last_commit().map(drop), "commit log");
    store
        .table(Table::Commits)
        .unwrap()
        .insert(&7u64.to_be_bytes()[..], &[1, 2][..])
        .unwrap();
    corrupt(store.commits_after(0).map(drop), "commit log");
    assert_eq!(store.commits_after(u64::MAX).unwrap(), []);
}

#[test]
fn aggregates_summarise_their_histogram() {
    let mut aggregates = Aggregates::default();
    for (moves, robots) in [(3, 1), (5, 2), (5, 2), (9, 3)] {
        aggregates.add(moves, robots, "RT", "1A 2A 3A 4A");
    }
    assert_eq!(aggregates.puzzles(), 4);
    assert!((aggregates.mean() - 5.5).abs() < 1e-9);
    assert_eq!(aggregates.percentile(0.5), 5);
    assert_eq!(aggregates.percentile(0.99), 9);
    assert_eq!(aggregates.max_moves(), 9);
    assert_eq!(aggregates.by_robots_moved, [0, 1, 2, 1]);
    let mut doubled = aggregates.clone();
    doubled.merge(&aggregates);
    assert_eq!(doubled.puzzles(), 8);
    assert_eq!(doubled.by_target["RT"].total_moves, 44);
}

#[test]
fn a_correction_takes_a_result_out_whole_and_the_log_skips_it() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let campaign = store.create_campaign(spec("a"), 0).unwrap();
    let counts: Vec<u8> = (0..100).map(|i| (i % 7) as u8 + 1).collect();
    let robots = vec![1; 100];
    let entry = |seed, moves| HardEntry {
        seed,
        moves,
        solution: vec![],
        re_solved: false,
    };
    // Unit 0 holds seeds 1..101: seed 7 needs counts[6] moves.
    for (commit, unit, hardest) in [
        (1, 0, vec![entry(7, counts[6])]),
        (2, 1, vec![entry(150, 9)]),
    ] {
        commit_done(
            &store,
            campaign.id,
            unit,
            commit,
            &counts,
            &robots,
            &hardest,
        );
    }
    let mut aggregates = Aggregates::default();
    aggregates.add(3, 1, "RT", "1A");
    aggregates.through_commit = 3;
    let mismatch = Mismatch {
        unit: 0,
        lease: 2,
        producer: "alice".into(),
        verifier: "bob".into(),
        digest: [1; 32],
        detail: "seed 7".into(),
        resolution: Resolution::Redone,
    };
    let distrust = Distrust {
        identity: "alice".into(),
        since_unix_ms: 5,
        reason: "seed 7".into(),
    };
    store
        .correct(&Correction {
            campaign: campaign.id,
            unit: 0,
            record: &UnitRecord::fresh(),
            seeds: 1..101,
            old_counts: &counts,
            old_commit: 1,
            commit: 3,
            aggregates: &aggregates,
            mismatch: &mismatch,
            distrust: &distrust,
        })
        .unwrap();
    drop(store);
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.unit_results(campaign.id, 0).unwrap(), None);
    assert!(store.unit_results(campaign.id, 1).unwrap().is_some());
    let kept: Vec<u64> = store
        .hardest(campaign.id, 10, 0)
        .unwrap()
        .iter()
        .map(|e| e.seed)
        .collect();
    assert_eq!(kept, [150], "the wrong result's hardest entry is gone");
    assert_eq!(store.last_commit().unwrap(), 3);
    // The accepted result of unit 1 is replayed; the correction is not.
    assert_eq!(store.commits_after(0).unwrap(), [(2, campaign.id, 1)]);
    assert_eq!(store.aggregates(campaign.id).unwrap(), Some(aggregates));
    assert_eq!(store.mismatches(campaign.id).unwrap(), [mismatch]);
    assert_eq!(store.distrusted().unwrap(), [distrust]);
    assert_eq!(
        store.units(campaign.id).unwrap()[0],
        (0, UnitRecord::fresh())
    );
    assert!(store.trust("alice").unwrap());
    assert!(!store.trust("alice").unwrap());
    assert!(store.distrusted().unwrap().is_empty());
}

#[test]
fn a_store_of_another_schema_version_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = Store::open(dir.path()).unwrap();
        store.create_campaign(spec("a"), 0).unwrap();
        // What a store written before versions were stamped looks like.
        store
            .table(Table::Meta)
            .unwrap()
            .remove(FORMAT_KEY)
            .unwrap();
        store.flush_blocking().unwrap();
    }
    let refused = Store::open(dir.path()).err().unwrap();
    assert!(matches!(refused, StoreError::OldFormat { found: 1, .. }));
    assert!(refused.to_string().contains("version 1"), "{refused}");
}

#[test]
fn subtracting_a_result_restores_the_statistics_without_it() {
    let mut without = Aggregates::default();
    without.add(5, 1, "RT", "1A 2A 3A 4A");
    without.add(9, 2, "GQ", "1A 2A 3A 4A");
    let mut part = Aggregates::default();
    part.add(14, 3, "RT", "1A 2A 3A 4A");
    part.add(2, 1, "YC", "1B 2A 3A 4A");
    let mut with = without.clone();
    with.merge(&part);
    assert_eq!(with.max_moves(), 14);
    with.subtract(&part);
    assert_eq!(with, without);
    assert_eq!(with.by_target["RT"].max_moves, 5);
}
