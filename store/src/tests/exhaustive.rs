//! Exhaustive campaigns in the store: the spec beside its campaign (version byte, unit
//! numbering), results as kind-3 blocks that survive reopening with their commit log, and
//! what the schema refuses: specs that do not match their campaign, unknown versions and
//! kinds, and one kind of block read as the other.

use super::*;

fn exhaustive_spec() -> ExhaustiveSpec {
    ExhaustiveSpec {
        boards: vec!["1A 3B 4A 2B".into(), "1B 2A 4B 3A".into()],
        targets: vec!["RT".into(), "GQ".into(), "YH".into()],
        sample_size: 32,
        top_from: 12,
        top_per_depth: 8,
        max_hardest: 4,
    }
}

fn campaign_spec(name: &str, units: u64) -> CampaignSpec {
    CampaignSpec {
        name: name.parse().unwrap(),
        generator: EXHAUSTIVE_FOGLEMAN.into(),
        seed_start: 0,
        seed_end: units,
        unit_size: 1,
        record_threshold: 12,
        rules: Rules::STANDARD,
    }
}

fn record(max_moves: u8) -> ExhaustiveRecord {
    let mut histogram = vec![0, 100, 2000, 30];
    histogram.resize(usize::from(max_moves) + 1, 1);
    ExhaustiveRecord {
        result: ExhaustiveResult {
            legal_histogram: histogram.iter().map(|c| c / 2).collect(),
            histogram,
            unsolvable: 7,
            max_moves,
            hardest: vec![[17, 3, 40, 200]],
            top: vec![
                (12, vec![[1, 2, 3, 4], [5, 6, 7, 8]]),
                (max_moves, vec![[17, 3, 40, 200]]),
            ],
            sample: vec![([9, 10, 11, 12], Some(3)), ([13, 14, 15, 16], None)],
            legal_samples: vec![vec![[1, 2, 3, 4]], Vec::new(), vec![[5, 6, 7, 8]]],
            legal_hardest: vec![[5, 6, 7, 8]],
        },
        hardest_solutions: vec![vec!["RN".into(), "GE".into()]],
        legal_hardest_solutions: vec![vec!["BS".into()]],
        cpu_ms: 5_700,
        rrm_version: "0.1.0".into(),
    }
}

#[test]
fn exhaustive_specs_and_results_round_trip_and_survive_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let spec = exhaustive_spec();
    let (seeds_id, id) = {
        let store = Store::open(dir.path()).unwrap();
        let seeds = store.create_campaign(super::spec("seeds"), 1).unwrap();
        let campaign = store
            .create_exhaustive_campaign(campaign_spec("ex", 6), &spec, 2)
            .unwrap();
        assert!(campaign.spec.is_exhaustive() && !seeds.spec.is_exhaustive());
        store
            .commit_exhaustive((campaign.id, 4), &done(1), &record(25), 1)
            .unwrap();
        store
            .commit_exhaustive((campaign.id, 0), &done(2), &record(14), 2)
            .unwrap();
        store.flush_blocking().unwrap();
        (seeds.id, campaign.id)
    };
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.exhaustive_spec(id).unwrap(), Some(spec.clone()));
    assert_eq!(store.exhaustive_spec(seeds_id).unwrap(), None);
    assert_eq!(
        store.exhaustive_results(id).unwrap(),
        [(0, record(14)), (4, record(25))]
    );
    assert_eq!(store.commits_after(0).unwrap(), [(1, id, 4), (2, id, 0)]);
    assert_eq!(store.units(id).unwrap(), [(0, done(2)), (4, done(1))]);
    // Unit i is board i / targets, target i % targets, and back.
    assert_eq!(spec.units_total(), 6);
    assert_eq!(spec.unit(4), Some(("1B 2A 4B 3A", "GQ")));
    assert_eq!(spec.unit(6), None);
    for unit in 0..6 {
        let (board, token) = spec.unit(unit).unwrap();
        assert_eq!(spec.unit_of(board, token), Some(unit));
    }
    assert_eq!(spec.unit_of("1A 3B 4A 2B", "BT"), None);
    // One kind of block is never read as the other.
    let corrupt = |error: StoreError, what: &str| match error {
        StoreError::Corrupt { what: found, .. } => assert_eq!(found, what),
        other => panic!("{what}: {other:?}"),
    };
    corrupt(store.unit_results(id, 4).unwrap_err(), "result block");
    store
        .commit_result(&UnitResult {
            campaign: seeds_id,
            unit: 0,
            record: &done(3),
            move_counts: &[5; 10],
            robots_moved: &[1; 10],
            hardest: &[],
            commit: 3,
        })
        .unwrap();
    corrupt(
        store.exhaustive_results(seeds_id).unwrap_err(),
        "exhaustive result",
    );
}

#[test]
fn exhaustive_campaigns_must_match_their_spec() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let spec = exhaustive_spec();
    let refused = [
        campaign_spec("units", 5),
        CampaignSpec {
            generator: "fogleman".into(),
            ..campaign_spec("generator", 6)
        },
        CampaignSpec {
            unit_size: 2,
            ..campaign_spec("unit-size", 6)
        },
        CampaignSpec {
            seed_start: 1,
            seed_end: 7,
            ..campaign_spec("start", 6)
        },
    ];
    for campaign in refused {
        let name = campaign.name.clone();
        assert!(
            matches!(
                store.create_exhaustive_campaign(campaign, &spec, 0),
                Err(StoreError::InvalidCampaign(_))
            ),
            "{name}"
        );
    }
    assert!(store.campaigns().unwrap().is_empty());
    assert_eq!(
        store.table(Table::Exhaustive).unwrap().len(),
        0,
        "a refused spec left no trace"
    );
    let id = store
        .create_exhaustive_campaign(campaign_spec("ex", 6), &spec, 0)
        .unwrap()
        .id;
    assert!(matches!(
        store.create_exhaustive_campaign(campaign_spec("ex", 6), &spec, 0),
        Err(StoreError::CampaignExists(_))
    ));
    assert_eq!(store.exhaustive_spec(id).unwrap(), Some(spec));
}

#[test]
fn unknown_versions_and_damaged_records_are_corrupt_not_misread() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let id = store
        .create_exhaustive_campaign(campaign_spec("ex", 6), &exhaustive_spec(), 0)
        .unwrap()
        .id;
    let key = id.to_be_bytes();
    let stored = store
        .table(Table::Exhaustive)
        .unwrap()
        .get(key)
        .unwrap()
        .unwrap();
    assert_eq!(stored[0], EXHAUSTIVE_SPEC_V1);
    let corrupt = |result: Result<()>, what: &str| match result {
        Err(StoreError::Corrupt { what: found, .. }) => assert_eq!(found, what),
        other => panic!("{what}: {other:?}"),
    };
    // A spec of a later version (or none at all) is refused, not read as version 1.
    for damaged in [[&[2][..], &stored[1..]].concat(), Vec::new(), vec![1, 0xff]] {
        store
            .table(Table::Exhaustive)
            .unwrap()
            .insert(key, damaged)
            .unwrap();
        corrupt(store.exhaustive_spec(id).map(drop), "exhaustive spec");
    }
    // Likewise a result block of an unknown kind, or a truncated record.
    let block = [&[BLOCK_EXHAUSTIVE][..], &encode(&record(20))].concat();
    for damaged in [
        [&[BLOCK_EXHAUSTIVE + 1][..], &block[1..]].concat(),
        block[..block.len() / 2].to_vec(),
        Vec::new(),
    ] {
        store
            .table(Table::Results)
            .unwrap()
            .insert(unit_key(id, 1), damaged)
            .unwrap();
        corrupt(store.exhaustive_results(id).map(drop), "exhaustive result");
    }
    store
        .table(Table::Results)
        .unwrap()
        .insert(unit_key(id, 1), block)
        .unwrap();
    assert_eq!(store.exhaustive_results(id).unwrap(), [(1, record(20))]);
}
