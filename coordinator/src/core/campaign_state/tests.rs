//! One campaign's state on its own: how unit records file into the derived sets, when a
//! campaign is finished (for everyone, or for one identity), and its rate under a clock
//! the tests move by hand.

use super::*;
use rrm_model::CampaignSpec;

/// A seed campaign of 3 units: seeds 1..26 in units of 10 (the last holds 5).
pub(in crate::core) fn campaign() -> CampaignState {
    let spec = CampaignSpec {
        name: "c".parse().unwrap(),
        generator: "fogleman".into(),
        seed_start: 1,
        seed_end: 26,
        unit_size: 10,
        record_threshold: 20,
        rules: rrm_model::Rules::STANDARD,
    };
    let campaign = Campaign {
        id: 1,
        spec,
        created_unix_ms: 0,
    };
    CampaignState::new(
        campaign,
        Kind::Seeds(Dealer::standard(ricochet::Generator::Fogleman)),
        Aggregates::default(),
    )
}

fn lease(identity: &str, deadline_unix_ms: i64) -> Lease {
    Lease {
        number: 1,
        worker: 7,
        identity: identity.into(),
        deadline_unix_ms,
    }
}

fn record(state: UnitState) -> UnitRecord {
    UnitRecord {
        state,
        ..UnitRecord::fresh()
    }
}

fn done(producer: &str, verification: Verification) -> UnitRecord {
    record(UnitState::Done {
        digest: [0; 32],
        producer: producer.into(),
        commit: 1,
        verification,
    })
}

#[test]
fn records_file_into_the_sets_and_counts_follow_results_in_and_out() {
    let mut c = campaign();
    assert_eq!(
        (
            c.unit_work_size(0),
            c.unit_work_size(2),
            c.unit_work_size(3)
        ),
        (10, 5, 0)
    );
    c.track(0, record(UnitState::Leased(lease("a", 100))), 500);
    assert!(c.leased.contains(&0) && c.pending.is_empty());
    // A restart's grace: the later deadline wins, never the earlier.
    assert_eq!(current_lease(&c.records[&0]).unwrap().deadline_unix_ms, 500);
    c.track(0, record(UnitState::Leased(lease("a", 900))), 500);
    assert_eq!(current_lease(&c.records[&0]).unwrap().deadline_unix_ms, 900);
    c.track(2, done("a", Verification::Pending), 0);
    assert_eq!((c.units_done, c.seeds_done), (1, 5));
    assert!(c.to_verify.contains(&2));
    // Filing the same result again counts nothing twice.
    c.track(2, done("a", Verification::Agreed { by: "b".into() }), 0);
    assert_eq!((c.units_done, c.seeds_done), (1, 5));
    assert!(c.to_verify.is_empty());
    // A result proven wrong and taken out: the unit is pending and uncounted again.
    c.track(2, record(UnitState::Pending { expired: None }), 0);
    assert_eq!((c.units_done, c.seeds_done), (0, 0));
    assert!(c.pending.contains(&2));
    assert_eq!(c.next_unit, 3);
}

#[test]
fn a_campaign_is_finished_when_nothing_is_left_and_for_a_producer_when_only_its_checks_are() {
    let mut c = campaign();
    c.track(0, done("a", Verification::NotChosen), 0);
    c.track(1, record(UnitState::Quarantined), 0);
    assert!(!c.finished(), "unit 2 was never leased");
    c.track(2, done("a", Verification::Pending), 0);
    assert!(!c.finished(), "a check waits");
    assert!(
        c.finished_for("a"),
        "only another identity may check a's result"
    );
    assert!(!c.finished_for("b"));
    c.track(2, done("a", Verification::Leased(lease("b", 1))), 0);
    assert!(!c.finished() && !c.finished_for("a"), "the check is out");
    c.track(2, done("a", Verification::Agreed { by: "b".into() }), 0);
    assert!(c.finished() && c.finished_for("b"));
}

#[test]
fn the_rate_counts_the_last_minute_only() {
    let mut c = campaign();
    let t0 = Instant::now();
    let at = |s: u64| t0 + Duration::from_secs(s);
    assert_eq!(c.rate(at(0)), 0.0);
    c.seeds_done = 10;
    c.note_progress(at(0));
    assert_eq!(c.rate(at(1)), 0.0, "one result makes no rate");
    c.seeds_done = 30;
    c.note_progress(at(10));
    assert!((c.rate(at(10)) - 2.0).abs() < 1e-9, "20 seeds in 10 s");
    // Past the window the first result drops out: only one remains, no rate.
    assert_eq!(c.rate(at(65)), 0.0);
    c.seeds_done = 90;
    c.note_progress(at(70));
    assert!(
        (c.rate(at(70)) - 1.0).abs() < 1e-9,
        "60 seeds in the 60 s since 10 s"
    );
}

/// A holder sending each unit just before its lease ends, beside an honest worker's
/// 10 s units (two of each three): its times used to become the 95th percentile, so each
/// life was three times the last (10 s, 30 s, 90 s... past a day after 10 rounds). The
/// percentile is now capped at four medians: the life stays at 120 s.
#[test]
fn a_holder_submitting_at_each_leases_end_cannot_ratchet_the_life_up() {
    let mut c = campaign();
    let (floor, unmeasured) = (Duration::from_secs(1), Duration::from_secs(3600));
    let honest = Duration::from_secs(10);
    for _ in 0..UNIT_TIMES_NEEDED {
        c.note_unit_time(honest);
    }
    assert_eq!(c.lease_life(floor, unmeasured), 3 * honest);
    for _ in 0..200 {
        let life = c.lease_life(floor, unmeasured);
        c.note_unit_time(life);
        c.note_unit_time(honest);
        c.note_unit_time(honest);
    }
    assert_eq!(c.lease_life(floor, unmeasured), 3 * 4 * honest);
}
