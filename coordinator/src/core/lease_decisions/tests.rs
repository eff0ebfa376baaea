//! Leasing decisions on one campaign in memory, under a clock the tests move by hand:
//! the order units are handed out in, expiry and stalls with their charges, heartbeats
//! extending only the holder's lease, and an operator's retry.

use super::*;
use crate::core::campaign_state::tests::campaign;
use ricochet::Generator;

const POLICY: Policy = Policy {
    stall_timeout: Duration::from_secs(600),
    life_floor: Duration::from_secs(120),
    max_failures: 2,
    top_count: 5,
};

fn worker(id: u64, identity: &str) -> Worker {
    Worker {
        id,
        identity: identity.into(),
    }
}

/// Leases the next unit to `who` and files the change, as the coordinator would (`who`
/// the only identity registered, so that it is picked for every check it may make).
fn lease_next(c: &mut CampaignState, who: &Worker, deadline: i64) -> Option<Assignment> {
    let registered = std::collections::BTreeSet::from([who.identity.as_str()]);
    pick_checkers(c, &registered, 64, || 0.0);
    let (change, assignment) = next(c, who, deadline, &POLICY).unwrap()?;
    assert_eq!(change.event, Event::Leased);
    assert_eq!(change.unit, assignment.lease.unit);
    c.track(change.unit, change.record, 0);
    Some(assignment)
}

fn apply(c: &mut CampaignState, changes: Vec<Change>) {
    for change in changes {
        c.track(change.unit, change.record, 0);
    }
}

fn done(producer: &str) -> UnitRecord {
    UnitRecord {
        state: UnitState::Done {
            digest: [0; 32],
            producer: producer.into(),
            commit: 1,
            verification: Verification::Pending,
        },
        ..UnitRecord::fresh()
    }
}

#[test]
fn units_go_out_checks_by_others_first_then_waiting_then_own_failures() {
    let mut c = campaign();
    let a = worker(1, "a");
    let b = worker(2, "b");
    let first = lease_next(&mut c, &a, 1_000).unwrap();
    assert_eq!((first.lease.unit, first.lease.lease), (0, 1));
    assert_eq!(
        first.work,
        Work::Seeds {
            generator: Generator::Fogleman,
            rules: rrm_model::Rules::STANDARD,
            seeds: 1..11,
            record_threshold: 20,
            top_count: 5,
        }
    );
    // Unit 0 comes back failed by "a"; unit 1 is done by "b" and awaits a check; unit 2
    // waits (as the units an import went past do).
    let mut failed = c.records[&0].clone();
    failed.state = UnitState::Pending { expired: None };
    failed.failed_by.push("a".into());
    c.track(0, failed, 0);
    c.track(1, done("b"), 0);
    c.track(2, UnitRecord::fresh(), 0);
    // "a" checks b's unit before the waiting one, and retries its own failure only
    // when nothing else is left.
    assert_eq!(lease_next(&mut c, &a, 1_000).unwrap().lease.unit, 1);
    assert!(matches!(
        &c.records[&1].state,
        UnitState::Done { verification: Verification::Leased(lease), .. } if lease.identity == "a"
    ));
    assert_eq!(lease_next(&mut c, &a, 1_000).unwrap().lease.unit, 2);
    // With nothing else left, "a" gets its failed unit again, as its second lease.
    let again = lease_next(&mut c, &a, 1_000).unwrap();
    assert_eq!((again.lease.unit, again.lease.lease), (0, 2));
    assert!(lease_next(&mut c, &a, 1_000).is_none());
    // "b" never checks its own result.
    let mut own = campaign();
    own.track(0, done("b"), 0);
    own.track(1, done("b"), 0);
    own.track(2, done("b"), 0);
    assert!(lease_next(&mut own, &b, 1_000).is_none());
    assert_eq!(lease_next(&mut own, &a, 1_000).unwrap().lease.unit, 0);
}

#[test]
fn expiry_charges_a_heard_registered_holder_and_quarantines_at_the_limit() {
    let start = Instant::now();
    let mut c = campaign();
    let (mut stalls, mut credit) = (LeaseStalls::default(), Credit::default());
    let a = worker(1, "a");
    let b = worker(2, "b");
    let held = lease_next(&mut c, &a, 1_000).unwrap().lease;
    stalls.reported(&held, 3, start);
    // Before the deadline, nothing expires.
    let at = |unix_ms, secs| Now {
        unix_ms,
        instant: start + Duration::from_secs(secs),
    };
    let quotas = (&mut stalls, &mut credit);
    assert!(expired(&c, at(999, 1), |_| true, quotas, &POLICY).is_empty());
    // After it: the heard lease of a registered worker is a failure of "a".
    let changes = expired(
        &c,
        at(1_001, 2),
        |_| true,
        (&mut stalls, &mut credit),
        &POLICY,
    );
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].event, Event::Expired);
    assert_eq!(changes[0].record.failed_by, ["a"]);
    assert!(matches!(
        &changes[0].record.state,
        UnitState::Pending { expired: Some(lease) } if lease.identity == "a"
    ));
    apply(&mut c, changes);
    // "b" takes it, is heard, and lets it expire too: the second identity quarantines it.
    let held = lease_next(&mut c, &b, 2_000).unwrap().lease;
    assert_eq!((held.unit, held.lease), (0, 2));
    stalls.reported(&held, 1, start);
    let changes = expired(
        &c,
        at(2_001, 3),
        |_| true,
        (&mut stalls, &mut credit),
        &POLICY,
    );
    assert_eq!(changes[0].event, Event::Quarantined);
    assert_eq!(changes[0].record.failed_by, ["a", "b"]);
    apply(&mut c, changes);
    assert_eq!(c.records[&0].state, UnitState::Quarantined);
    assert!(c.leased.is_empty() && c.pending.is_empty());
}

#[test]
fn a_lease_never_heard_or_held_by_an_unknown_registration_expires_without_a_failure() {
    let start = Instant::now();
    let now = Now {
        unix_ms: 5_000,
        instant: start,
    };
    let (mut stalls, mut credit) = (LeaseStalls::default(), Credit::default());
    let mut c = campaign();
    // Never heard of.
    lease_next(&mut c, &worker(1, "a"), 1_000).unwrap();
    // Heard of, but its registration is gone (a restart).
    let gone = lease_next(&mut c, &worker(9, "z"), 1_000).unwrap().lease;
    stalls.reported(&gone, 1, start);
    let registered = |id| id != 9;
    let changes = expired(&c, now, registered, (&mut stalls, &mut credit), &POLICY);
    assert_eq!(changes.len(), 2);
    for change in &changes {
        assert_eq!(change.event, Event::Expired);
        assert!(change.record.failed_by.is_empty(), "{change:?}");
        assert!(change.record.last_error.is_none());
    }
}

#[test]
fn a_stalled_lease_expires_before_its_deadline_and_costs_its_holder_credit() {
    let start = Instant::now();
    let mut c = campaign();
    let (mut stalls, mut credit) = (LeaseStalls::default(), Credit::default());
    credit.earned("a", Instant::now());
    let held = lease_next(&mut c, &worker(1, "a"), i64::MAX).unwrap().lease;
    stalls.reported(&held, 4, start);
    let at = |secs| Now {
        unix_ms: 0,
        instant: start + Duration::from_secs(secs),
    };
    // The same progress reported again is no progress; it stalls once the timeout passed.
    stalls.reported(&held, 4, start + Duration::from_secs(300));
    let changes = expired(&c, at(599), |_| true, (&mut stalls, &mut credit), &POLICY);
    assert!(changes.is_empty());
    let changes = expired(&c, at(601), |_| true, (&mut stalls, &mut credit), &POLICY);
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].record.failed_by, ["a"]);
    let why = changes[0].record.last_error.as_deref().unwrap();
    assert!(why.contains("no progress for 600 s"), "{why}");
    // The credit earned is gone, and the lapse noted.
    let mut fresh = Credit::default();
    fresh.earned("a", Instant::now());
    fresh.forfeited("a", start + Duration::from_secs(601));
    assert_eq!(format!("{credit:?}"), format!("{fresh:?}"));
}

#[test]
fn an_expired_check_goes_back_to_waiting_for_a_new_pick_without_touching_the_result() {
    let mut c = campaign();
    c.track(0, done("a"), 0);
    let check = lease_next(&mut c, &worker(2, "b"), 1_000).unwrap().lease;
    assert_eq!(check.unit, 0);
    let (mut stalls, mut credit) = (LeaseStalls::default(), Credit::default());
    stalls.reported(&check, 1, Instant::now());
    let now = Now {
        unix_ms: 1_001,
        instant: Instant::now(),
    };
    let changes = expired(&c, now, |_| true, (&mut stalls, &mut credit), &POLICY);
    let unchecked = UnitRecord {
        leases_issued: 1,
        ..done("a")
    };
    assert_eq!(changes[0].record, unchecked);
    apply(&mut c, changes);
    assert_eq!(c.to_verify.iter().copied().collect::<Vec<_>>(), [0]);
    assert_eq!(c.units_done, 1);
    // Its checker is picked again: an identity that lets a check lapse is not handed it
    // first at every lease.
    assert!(!c.checkers.contains_key(&0));
}

#[test]
fn heartbeats_extend_only_the_holders_current_lease() {
    let mut c = campaign();
    let held = lease_next(&mut c, &worker(1, "a"), 1_000).unwrap().lease;
    let deadline = |c: &CampaignState| current_lease(&c.records[&0]).unwrap().deadline_unix_ms;
    assert_eq!(extend(&mut c, &held, &worker(2, "b"), 9_000), None);
    let stale = LeaseRef {
        lease: held.lease + 1,
        ..held.clone()
    };
    assert_eq!(extend(&mut c, &stale, &worker(1, "a"), 9_000), None);
    let elsewhere = LeaseRef {
        unit: 2,
        ..held.clone()
    };
    assert_eq!(extend(&mut c, &elsewhere, &worker(1, "a"), 9_000), None);
    assert_eq!(deadline(&c), 1_000);
    assert_eq!(extend(&mut c, &held, &worker(1, "a"), 9_000), Some(10));
    assert_eq!(deadline(&c), 9_000);
    // The same identity registered again (a restart): the lease is taken up by its new
    // registration.
    assert_eq!(extend(&mut c, &held, &worker(7, "a"), 9_500), Some(10));
    assert_eq!(current_lease(&c.records[&0]).unwrap().worker, 7);
}

#[test]
fn retry_releases_quarantined_units_with_their_failures_forgotten() {
    let mut c = campaign();
    let mut quarantined = UnitRecord::fresh();
    quarantined.failed_by = vec!["a".into(), "b".into()];
    quarantined.state = UnitState::Quarantined;
    c.track(0, quarantined.clone(), 0);
    c.track(2, quarantined, 0);
    c.track(1, done("a"), 0);
    assert!(matches!(
        retried(&c, Some(1)),
        Err(CoordinatorError::NotQuarantined(1))
    ));
    let only = retried(&c, Some(2)).unwrap();
    assert_eq!(
        only.iter().map(|change| change.unit).collect::<Vec<_>>(),
        [2]
    );
    let all = retried(&c, None).unwrap();
    assert_eq!(
        all.iter().map(|change| change.unit).collect::<Vec<_>>(),
        [0, 2]
    );
    apply(&mut c, all);
    assert_eq!(c.pending.iter().copied().collect::<Vec<_>>(), [0, 2]);
    assert!(c.records.values().all(|record| record.failed_by.is_empty()));
}

#[test]
fn a_dead_embedded_worker_s_leases_all_go_back_without_failures() {
    let mut c = campaign();
    c.track(0, done("b"), 0);
    assert_eq!(
        lease_next(&mut c, &worker(1, "a"), 1_000)
            .unwrap()
            .lease
            .unit,
        0
    );
    assert_eq!(
        lease_next(&mut c, &worker(1, "a"), 1_000)
            .unwrap()
            .lease
            .unit,
        1
    );
    assert_eq!(c.leased.len(), 2);
    let changes = released(&c);
    assert!(changes.iter().all(|change| change.event == Event::Released));
    apply(&mut c, changes);
    assert!(c.leased.is_empty());
    assert_eq!(c.pending.iter().copied().collect::<Vec<_>>(), [1]);
    assert_eq!(c.to_verify.iter().copied().collect::<Vec<_>>(), [0]);
    assert!(c.records.values().all(|record| record.failed_by.is_empty()));
}

#[test]
fn a_check_goes_to_the_identity_picked_for_it_not_to_whoever_asks() {
    let mut c = campaign();
    for unit in 0..40 {
        c.track(unit, done("forger"), 0);
    }
    let registered = std::collections::BTreeSet::from(["colluder", "forger", "honest"]);
    let mut draws = [0.1, 0.9].into_iter().cycle();
    pick_checkers(&mut c, &registered, 64, || draws.next().unwrap());
    // Never its producer; the two others picked as drawn.
    let picked = |who: &str| c.checkers.values().filter(|p| *p == who).count();
    assert_eq!(
        (picked("colluder"), picked("honest"), picked("forger")),
        (20, 20, 0)
    );
    // The colluder, asking for everything, gets only the checks picked for it.
    let colluder = worker(3, "colluder");
    for _ in 0..20 {
        let (change, assignment) = next(&c, &colluder, 1_000, &POLICY).unwrap().unwrap();
        assert_eq!(c.checkers[&assignment.lease.unit], "colluder");
        c.track(change.unit, change.record, 0);
    }
    assert!(
        next(&c, &colluder, 1_000, &POLICY).unwrap().is_none(),
        "the honest identity's checks are not the colluder's to take"
    );
    // A picked identity gone, its checks are picked again among those registered.
    let left = std::collections::BTreeSet::from(["forger", "honest"]);
    pick_checkers(&mut c, &left, 64, || 0.5);
    let waiting: Vec<_> = c.to_verify.iter().collect();
    assert_eq!(waiting.len(), 20);
    assert!(waiting.iter().all(|unit| c.checkers[unit] == "honest"));
}

#[test]
fn a_lease_outliving_the_campaigns_measured_units_expires_whatever_its_progress() {
    let start = Instant::now();
    let mut c = campaign();
    let policy = Policy {
        life_floor: Duration::from_secs(5),
        ..POLICY
    };
    // Unmeasured, a lease lives as long as it shows progress.
    assert_eq!(
        c.lease_life(policy.life_floor, policy.stall_timeout),
        policy.stall_timeout
    );
    for took in 1..=20 {
        c.note_unit_time(Duration::from_secs(took));
    }
    // The 95th percentile of 1..=20 s is 19 s: a life of 57 s.
    assert_eq!(
        c.lease_life(policy.life_floor, policy.stall_timeout),
        Duration::from_secs(57)
    );
    let (mut stalls, mut credit) = (LeaseStalls::default(), Credit::default());
    let held = lease_next(&mut c, &worker(1, "a"), i64::MAX).unwrap().lease;
    stalls.granted_at(&held, start);
    // Its holder reports growing progress every second: a hoarder's heartbeats.
    for s in 1..=60 {
        stalls.reported(&held, s, start + Duration::from_secs(s));
    }
    let at = |secs| Now {
        unix_ms: 0,
        instant: start + Duration::from_secs(secs),
    };
    let quotas = (&mut stalls, &mut credit);
    assert!(expired(&c, at(56), |_| true, quotas, &policy).is_empty());
    let changes = expired(&c, at(57), |_| true, (&mut stalls, &mut credit), &policy);
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].record.failed_by, ["a"]);
    let why = changes[0].record.last_error.as_deref().unwrap();
    assert!(why.contains("outlived 57.0 s"), "{why}");
}
