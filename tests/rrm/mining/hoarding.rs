//! Attacks on the work and the memory rather than the statistics: a token that leases
//! units and heartbeats them without solving (declaring a thousand threads, on two
//! registrations), and one that registers without end. Neither keeps an honest worker
//! from finishing the campaign with a direct solve's totals.

use super::attacks::{forged, honest_worker_finishes, honest_worker_runs, secured};
use super::security::{code, mining, register, register_threads, with_token};
use super::*;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

/// Leases for `worker` until refused; returns the units and the refusal's code.
async fn lease_all(url: &str, token: &str, worker: &Registered) -> (Vec<pb::WorkUnit>, Code) {
    let mut units = Vec::new();
    loop {
        match mining(url, &with_token(token)).lease(worker.lease()).await {
            Ok(reply) => units.push(reply.into_inner().unit.expect("a unit")),
            Err(refused) => return (units, refused.code()),
        }
    }
}

/// A hoarder used to hold all 80 units by heartbeating them: an honest worker mined
/// nothing, and the dashboard showed 80 trillion seeds in progress.
#[test]
fn a_hoarder_holds_two_leases_and_loses_them_when_they_stall() {
    let seeds = 1..801;
    let config = Config {
        stall_timeout: Duration::from_secs(3),
        ..checking(0.0)
    };
    let (server, tokens) = secured(config, spec("hoard", seeds.clone(), 10));
    let hoarded = block_on(async {
        let mallory = with_token("tok-mallory");
        let first = register_threads(&server.url, &mallory, "h1", 1000)
            .await
            .unwrap();
        let second = register_threads(&server.url, &mallory, "h2", 1000)
            .await
            .unwrap();
        let (mut units, refused) = lease_all(&server.url, "tok-mallory", &first).await;
        let (more, _) = lease_all(&server.url, "tok-mallory", &second).await;
        units.extend(more);
        assert_eq!(refused, Code::ResourceExhausted);
        assert_eq!(units.len(), 2, "a token without results holds two leases");
        let leases: Vec<pb::LeaseRef> = units.iter().map(|u| u.lease.clone().unwrap()).collect();
        let started = Instant::now();
        let mut lost = Vec::new();
        let mut regranted = 0;
        while lost.len() < leases.len() && started.elapsed() < Duration::from_secs(30) {
            let reply = mining(&server.url, &with_token("tok-mallory"))
                .heartbeat(pb::HeartbeatRequest {
                    worker_id: first.id,
                    session: first.session.clone(),
                    leases: leases.clone(),
                    seeds_solved: vec![1_000_000_000_000; leases.len()],
                })
                .await
                .unwrap()
                .into_inner();
            // Someone asking for work is when leases are looked at; mallory gets a unit
            // only once its stalled ones went back.
            let asked = mining(&server.url, &with_token("tok-mallory"))
                .lease(second.lease())
                .await;
            match asked {
                Ok(_) => regranted += 1,
                Err(refused) => {
                    assert_eq!(refused.code(), Code::ResourceExhausted);
                    // A thousand threads declared: what bounds it is its record.
                    assert!(
                        refused.message().contains(
                            "all its results of the last lease life (leases it let lapse"
                        ),
                        "{}",
                        refused.message()
                    );
                }
            }
            let status = server.coordinator.status("hoard").unwrap();
            assert!(
                status.seeds_in_progress <= 20,
                "{}",
                status.seeds_in_progress
            );
            lost = reply.lost;
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        let held = started.elapsed();
        assert_eq!(lost.len(), 2, "stalled leases are taken back");
        assert!(regranted <= 2, "{regranted} leases beyond the two");
        assert!(held >= Duration::from_secs(3), "{held:?}");
        eprintln!("hoarded 2 leases for {held:?} until they stalled");
        units
    });
    let id = server.coordinator.status("hoard").unwrap().campaign.id;
    let records = server.coordinator.store().units(id).unwrap();
    for unit in &hoarded {
        let unit = unit.lease.as_ref().unwrap().unit;
        let (_, record) = records.iter().find(|(u, _)| *u == unit).unwrap();
        assert_eq!(record.failed_by, ["mallory"], "the stall is charged");
    }
    honest_worker_finishes(&server, &tokens, "hoard", seeds);
}

/// The registry used to grow with every Register and never shrink.
#[test]
fn registrations_are_capped_per_token_the_longest_silent_going_first() {
    let config = Config {
        max_registrations_per_identity: 8,
        // The newest session's lease is never given back: the honest worker gets its
        // unit when it expires.
        lease_duration: Duration::from_secs(2),
        ..checking(0.0)
    };
    let (server, tokens) = secured(config, spec("registry", 1..101, 10));
    block_on(async {
        let mallory = with_token("tok-mallory");
        let mut sessions = Vec::new();
        for i in 0..50 {
            sessions.push(
                register(&server.url, &mallory, &format!("r{i}"))
                    .await
                    .unwrap(),
            );
        }
        // The first is long gone: its session no longer leases.
        let gone = mining(&server.url, &mallory)
            .lease(sessions[0].lease())
            .await;
        assert_eq!(code(gone), Code::Unauthenticated);
        let newest = mining(&server.url, &mallory)
            .lease(sessions[49].lease())
            .await;
        assert!(newest.unwrap().into_inner().unit.is_some());
    });
    let kept = server.coordinator.registrations();
    assert!(kept <= 8, "{kept} registrations kept");
    eprintln!("50 registrations of one token, {kept} kept");
    honest_worker_finishes(&server, &tokens, "registry", 1..101);
}

/// A restart forgets every registration, while the store still holds their leases. A
/// worker coming back (its token registering again) used to be refused new leases until
/// those expired (56 s at the default lease): they counted against its token's quota,
/// and nobody could hand them in. Leases of registrations gone no longer count: it gets
/// work at once, and an honest worker then finishes the campaign exactly.
#[test]
fn a_worker_gets_work_within_seconds_of_a_coordinator_restart() {
    let config = || Config {
        lease_duration: Duration::from_secs(20),
        ..checking(0.0)
    };
    let seeds = 1..2_001;
    let (server, tokens) = secured(config(), spec("reboot", seeds.clone(), 100));
    let worker = with_token("tok-honest");
    let url = server.url.clone();
    block_on(async {
        let before = register(&url, &worker, "w").await.unwrap();
        for _ in 0..2 {
            let lease = mining(&url, &worker).lease(before.lease()).await.unwrap();
            assert!(lease.into_inner().unit.is_some());
        }
        // Its quota is full: the third waits.
        let full = mining(&url, &worker).lease(before.lease()).await;
        assert_eq!(code(full), Code::ResourceExhausted);
    });
    let server = server.restart(config(), tokens.security());
    let restarted = Instant::now();
    let waited = block_on(async {
        let after = register(&url, &worker, "w").await.unwrap();
        loop {
            match mining(&url, &worker).lease(after.lease()).await {
                Ok(lease) if lease.get_ref().unit.is_some() => break restarted.elapsed(),
                _ if restarted.elapsed() > Duration::from_secs(60) => panic!("no lease in 60 s"),
                _ => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
    });
    eprintln!(
        "first lease {:.2} s after the restart",
        waited.as_secs_f64()
    );
    assert!(
        waited <= Duration::from_secs(5),
        "{waited:?} to the first lease"
    );
    honest_worker_finishes(&server, &tokens, "reboot", seeds);
}

/// A token honest for 20 units, then leasing all it may and reporting progress that
/// grows at every heartbeat, never submitting. Its progress used to keep its leases
/// alive for good and its 20 results bought it 42 of them: the honest worker got 18 of
/// 80 units and the campaign stalled. Now a lease lives three times the campaign's
/// 95th-percentile unit time (at least two lease durations), whatever its progress,
/// and an identity holds what it finished within that life: the campaign finishes
/// within twice its honest time, the honest worker doing the rest.
#[test]
fn faked_progress_neither_hoards_units_nor_stalls_the_campaign() {
    use super::security::leased_and_solved;
    let config = || Config {
        lease_duration: Duration::from_secs(2),
        ..checking(0.0)
    };
    let seeds = 1..20_001;
    let (server, tokens) = secured(config(), spec("honest", seeds.clone(), 250));
    let honest_time = honest_worker_runs(&server, &tokens, 1);
    drop(server);
    let (server, tokens) = secured(config(), spec("faked", seeds.clone(), 250));
    let url = server.url.clone();
    let mallory = with_token("tok-mallory");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let hoarder = runtime.block_on(async {
        let worker = register_threads(&url, &mallory, "faker", 64).await.unwrap();
        for _ in 0..20 {
            let (unit, solved) = leased_and_solved(&url, &mallory, &worker).await;
            let counts = solved.move_counts.clone();
            let honest = forged(&unit, &solved, &worker, counts);
            mining(&url, &mallory).submit(honest).await.unwrap();
        }
        worker
    });
    // Then it hoards, heartbeating with progress that grows, until the campaign ends.
    let stop = Arc::new(AtomicBool::new(false));
    let most_held = Arc::new(AtomicUsize::new(0));
    let hoarding = {
        let (url, stop, most_held) = (url.clone(), stop.clone(), most_held.clone());
        runtime.spawn(async move {
            let mallory = with_token("tok-mallory");
            let mut held: Vec<pb::LeaseRef> = Vec::new();
            let mut progress = 1;
            while !stop.load(Ordering::SeqCst) {
                while let Ok(reply) = mining(&url, &mallory).lease(hoarder.lease()).await {
                    match reply.into_inner().unit {
                        Some(unit) => held.push(unit.lease.unwrap()),
                        None => break,
                    }
                }
                most_held.fetch_max(held.len(), Ordering::SeqCst);
                progress += 1;
                if let Ok(reply) = (mining(&url, &mallory))
                    .heartbeat(pb::HeartbeatRequest {
                        worker_id: hoarder.id,
                        session: hoarder.session.clone(),
                        leases: held.clone(),
                        seeds_solved: vec![progress; held.len()],
                    })
                    .await
                {
                    let lost = reply.into_inner().lost;
                    held.retain(|lease| !lost.contains(lease));
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        })
    };
    let attacked_time = honest_worker_runs(&server, &tokens, 1);
    stop.store(true, Ordering::SeqCst);
    runtime.block_on(hoarding).unwrap();
    let status = server.coordinator.status("faked").unwrap();
    let id = status.campaign.id;
    let by_honest = (server.coordinator.store().units(id).unwrap().iter())
        .filter(|(_, record)| {
            matches!(&record.state, UnitState::Done { producer, .. } if producer == "honest")
        })
        .count();
    let most_held = most_held.load(Ordering::SeqCst);
    eprintln!(
        "honest alone {:.1} s; beside the faker {:.1} s ({:.2}x); the faker held at most {} \
         leases at once; the honest worker did {} of the {} units left after the faker's 20",
        honest_time.as_secs_f64(),
        attacked_time.as_secs_f64(),
        attacked_time.as_secs_f64() / honest_time.as_secs_f64(),
        most_held,
        by_honest,
        status.units_total - 20
    );
    assert_eq!(status.units_done, status.units_total);
    assert_eq!(
        by_honest as u64,
        status.units_total - 20,
        "the honest worker did the rest"
    );
    assert!(
        attacked_time <= 2 * honest_time,
        "{attacked_time:?} against {honest_time:?} alone"
    );
    assert_eq!(
        server.coordinator.aggregates("faked").unwrap().histogram,
        direct_histogram(seeds)
    );
}
