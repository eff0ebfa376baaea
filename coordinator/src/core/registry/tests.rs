//! The registry on its own: sessions, tokens, caps and pruning under a clock the tests
//! move by hand.

use super::*;

const CAPS: Caps = Caps {
    per_identity: 2,
    all: 3,
};

fn no_leases(_: u64) -> bool {
    false
}

#[test]
fn a_session_proves_its_worker_and_nothing_else_does() {
    let mut registry = Registry::default();
    let t0 = Instant::now();
    let session = registry
        .register(Some("alice".into()), "w", 4, CAPS, t0, no_leases)
        .unwrap();
    let worker = registry.authenticate(&session, Some("alice"), t0).unwrap();
    assert_eq!(
        (worker.id, worker.identity.as_str()),
        (session.worker, "alice")
    );
    let mut forged = session.clone();
    forged.secret[SESSION_BYTES - 1] ^= 1;
    assert!(matches!(
        registry.authenticate(&forged, Some("alice"), t0),
        Err(CoordinatorError::UnknownWorker(id)) if id == session.worker
    ));
    // Another token cannot speak for alice's registration.
    assert!(matches!(
        registry.authenticate(&session, Some("mallory"), t0),
        Err(CoordinatorError::NotYourWorker(_))
    ));
    // Without tokens, each registration is its own identity.
    let open = registry
        .register(None, "w", 1, CAPS, t0, no_leases)
        .unwrap();
    let worker = registry.authenticate(&open, None, t0).unwrap();
    assert_eq!(worker.identity, format!("w#{}", open.worker));
    assert_ne!(open.worker, session.worker);
}

#[test]
fn caps_make_room_by_dropping_the_longest_silent_registration_without_a_lease() {
    let mut registry = Registry::default();
    let t0 = Instant::now();
    let at = |s: u64| t0 + Duration::from_secs(s);
    let first = registry
        .register(Some("a".into()), "w", 1, CAPS, at(0), no_leases)
        .unwrap();
    let second = registry
        .register(Some("a".into()), "w", 1, CAPS, at(1), no_leases)
        .unwrap();
    // The first speaks again: the second is now the longest silent.
    registry.authenticate(&first, Some("a"), at(2)).unwrap();
    let third = registry
        .register(Some("a".into()), "w", 1, CAPS, at(3), no_leases)
        .unwrap();
    assert_eq!(registry.len(), 2);
    assert!(registry.contains(first.worker) && registry.contains(third.worker));
    assert!(!registry.contains(second.worker));
    // Every registration of "a" holds a lease: a third one of "a" is refused.
    let refused = registry.register(Some("a".into()), "w", 1, CAPS, at(4), |_| true);
    assert!(matches!(
        refused,
        Err(CoordinatorError::TooManyRegistrations { limit: 2, .. })
    ));
    // The overall cap: "b" takes the third place, "c" makes room by dropping the
    // longest silent registration of anyone.
    registry
        .register(Some("b".into()), "w", 1, CAPS, at(5), no_leases)
        .unwrap();
    registry
        .register(Some("c".into()), "w", 1, CAPS, at(6), no_leases)
        .unwrap();
    assert_eq!(registry.len(), 3);
    assert!(
        !registry.contains(first.worker),
        "silent since 2 s, the longest"
    );
}

#[test]
fn idle_registrations_go_unless_they_hold_a_lease() {
    let mut registry = Registry::default();
    let t0 = Instant::now();
    let caps = Caps {
        per_identity: 10,
        all: 10,
    };
    let idle = registry
        .register(Some("a".into()), "w", 1, caps, t0, no_leases)
        .unwrap();
    let leasing = registry
        .register(Some("a".into()), "w", 1, caps, t0, no_leases)
        .unwrap();
    let later = t0 + Duration::from_secs(30);
    let fresh = registry
        .register(Some("a".into()), "w", 1, caps, later, no_leases)
        .unwrap();
    registry.prune_idle(Duration::from_secs(20), later, |id| id == leasing.worker);
    assert!(!registry.contains(idle.worker));
    assert!(registry.contains(leasing.worker) && registry.contains(fresh.worker));
}

#[test]
fn the_lease_allowance_follows_the_declared_threads_within_bounds() {
    let mut registry = Registry::default();
    let t0 = Instant::now();
    let caps = Caps {
        per_identity: 10,
        all: 10,
    };
    for threads in [0, 3, 10_000] {
        registry
            .register(Some("a".into()), "w", threads, caps, t0, no_leases)
            .unwrap();
    }
    registry
        .register(Some("b".into()), "w", 7, caps, t0, no_leases)
        .unwrap();
    // 0 threads counts as 1, 10,000 as MAX_THREADS; one more lease each.
    assert_eq!(
        registry.lease_allowance("a"),
        2 + 4 + MAX_THREADS as usize + 1
    );
    assert_eq!(registry.lease_allowance("b"), 8);
    assert_eq!(registry.lease_allowance("nobody"), 0);
}
