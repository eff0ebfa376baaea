//! Partitions and flaky networks: workers reach a real coordinator through a TCP proxy of
//! the test's own, which drops, stalls, delays and resets their connections; whatever
//! the network does, the campaign's totals must equal solving every seed directly.
//!
//! The proxy ([`Proxy`]) listens on 127.0.0.1 and forwards each connection to the
//! coordinator. Faults apply to every connection or to one: added latency, bytes held
//! (not lost) in one direction, connections refused, closed or reset (RST). It also follows
//! the HTTP/2 frames it forwards, enough to log each gRPC call's request body and fate
//! (answered, or cancelled by the worker): a submission carries its unit's digest, so the
//! tests see which results were sent again, and when, without decoding protobuf.

mod proxy;

use super::*;
use proxy::*;
use std::collections::HashMap;
use std::io::BufRead;
use std::sync::Mutex;

/// A one-thread `rrm worker` for `url` whose log (stderr) is kept as it comes.
fn logged_worker(url: &str) -> (Process, Arc<Mutex<String>>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rrm"))
        .args(["worker", "--coordinator", url, "--threads", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rrm starts");
    let stderr = child.stderr.take().unwrap();
    let log = Arc::new(Mutex::new(String::new()));
    let kept = log.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let mut log = kept.lock().unwrap();
            log.push_str(&line);
            log.push('\n');
        }
    });
    (Process(child), log)
}

/// The units of campaign `id` and their records.
fn unit_records(server: &Server, id: u32) -> HashMap<u64, rrm_model::UnitRecord> {
    server
        .coordinator
        .store()
        .units(id)
        .unwrap()
        .into_iter()
        .collect()
}

/// The digest a done unit's result was stored with.
fn stored_digest(record: &rrm_model::UnitRecord) -> Option<[u8; 32]> {
    match record.state {
        UnitState::Done { digest, .. } => Some(digest),
        _ => None,
    }
}

/// Solves `seeds` directly, meanwhile.
fn solve_directly(seeds: Range<u64>) -> std::thread::JoinHandle<Vec<u64>> {
    std::thread::spawn(move || direct_histogram(seeds))
}

/// Checks that campaign `name` is mined to exactly what solving `seeds` directly gave
/// (`expected`): every seed counted once, nothing quarantined, nobody disagreed.
fn assert_exact(server: &Server, name: &str, seeds: Range<u64>, expected: Vec<u64>) {
    let count = seeds.end - seeds.start;
    let stored = stats(&server.url, name);
    assert_eq!(stored.histogram, expected, "nothing lost, nothing twice");
    assert_eq!(stored.puzzles, count);
    let status = status(&server.url, name).unwrap();
    assert_eq!(status.seeds_done, count);
    assert_eq!(status.units_quarantined, 0);
    assert!(status.mismatches.is_empty(), "{:?}", status.mismatches);
}

/// A worker cut off mid-unit (its connections reset, new ones refused) loses its leases;
/// another worker, on a slow link, takes them over. Reconnected after that, the cut-off
/// worker delivers its results late: they are refused or taken as duplicates, never
/// counted again.
#[test]
fn a_worker_cut_off_mid_unit_is_replaced_and_its_late_results_count_once() {
    // Enough units that the state the cut needs (both workers mining) comes about
    // however slow the machine.
    let seeds = 1..12_001;
    let config = Config {
        lease_duration: Duration::from_secs(2),
        ..Config::default()
    };
    let server = Server::with_campaign(config, spec("cut", seeds.clone(), 500));
    let expected = solve_directly(seeds.clone());
    let id = server.coordinator.status("cut").unwrap().campaign.id;
    let held_by = |worker: u64| {
        let units = unit_records(&server, id);
        let mut held: Vec<u64> = units
            .into_iter()
            .filter(
                |(_, record)| matches!(&record.state, UnitState::Leased(l) if l.worker == worker),
            )
            .map(|(unit, _)| unit)
            .collect();
        held.sort_unstable();
        held
    };

    let cut_proxy = Proxy::start(&server.url);
    let (_cut_worker, log) = logged_worker(&cut_proxy.url);
    let mut cut_id = 0;
    wait_until(
        Duration::from_secs(60),
        "the first worker holds a lease",
        || {
            let units = unit_records(&server, id);
            let leased = units.values().find_map(|record| match &record.state {
                UnitState::Leased(lease) => Some(lease.worker),
                _ => None,
            });
            leased.inspect(|&worker| cut_id = worker).is_some()
        },
    );
    let other_proxy = Proxy::start(&server.url);
    other_proxy.set_faults(Faults {
        delay: Duration::from_millis(20),
        ..Faults::default()
    });
    let _other_worker = worker(&other_proxy.url, 1);
    // Both units solving and no call on the wire: the cut loses no lease in transit.
    wait_until(
        Duration::from_secs(60),
        "both workers mine, the first with both units in hand",
        || {
            let held = held_by(cut_id).len();
            let all = server.coordinator.status("cut").unwrap().units_leased as usize;
            held == rrm_worker::IN_FLIGHT && all > held && cut_proxy.in_flight() == 0
        },
    );
    cut_proxy.refuse(Some(Ending::Close));
    cut_proxy.end_all(Ending::Reset);
    let cut_units = held_by(cut_id);
    let started = Instant::now();
    assert!(!cut_units.is_empty(), "units held at the cut");

    let log_text = || log.lock().unwrap().clone();
    let in_log = |what: &dyn Fn(u64) -> String| {
        let text = log_text();
        cut_units.iter().all(|&unit| text.contains(&what(unit)))
    };
    wait_until(
        Duration::from_secs(60),
        "the cut-off worker's leases expire and go to the other worker",
        || {
            let units = unit_records(&server, id);
            cut_units.iter().all(|unit| units[unit].leases_issued >= 2)
        },
    );
    wait_until(
        Duration::from_secs(60),
        "the cut-off worker has its results and fails to submit them",
        || in_log(&|unit| format!("submitting unit {unit} of cut failed")),
    );
    let expired_after = started.elapsed();
    cut_proxy.refuse(None);
    wait_until(
        Duration::from_secs(60),
        "the late results are judged",
        || {
            let text = log_text();
            cut_units.iter().all(|&unit| {
                text.lines().any(|line| {
                    line.contains(&format!(" unit={unit} campaign=cut"))
                        && (line.contains("submitted") || line.contains("result refused"))
                })
            })
        },
    );
    let judged_after = started.elapsed();
    wait_until(Duration::from_secs(120), "the campaign is mined", || {
        status(&server.url, "cut").is_some_and(|s| is_done(&s))
    });
    eprintln!(
        "cut: leases re-issued and results ready {expired_after:?} after the cut, \
         late results judged after {judged_after:?}, mined after {:?}",
        started.elapsed()
    );

    let text = log_text();
    for line in text.lines() {
        for &unit in &cut_units {
            let late = line.contains(&format!(" unit={unit} campaign=cut"));
            assert!(
                !(late && line.contains("outcome=Accepted")),
                "a late result was accepted: {line}"
            );
        }
    }
    // The late results named their units (by digest) and were answered.
    let units = unit_records(&server, id);
    let calls = cut_proxy.calls();
    for unit in &cut_units {
        let record = &units[unit];
        let UnitState::Done { producer, .. } = &record.state else {
            panic!("unit {unit} is not done: {record:?}");
        };
        // Without tokens an identity is `name#id`.
        assert!(
            !producer.ends_with(&format!("#{cut_id}")),
            "unit {unit} was taken from its late result"
        );
        let digest = stored_digest(record).unwrap();
        assert!(
            calls
                .iter()
                .any(|call| call.carries(&digest) && call.fate == Fate::Answered),
            "no late result of unit {unit} went through\n{text}"
        );
    }
    assert_exact(&server, "cut", seeds, expected.join().unwrap());
}

/// The coordinator's answers stall (held in the proxy) while a worker submits: the
/// coordinator stores the result, the worker's call times out and it sends the result
/// again, which the coordinator recognises once the answers flow again.
#[test]
fn a_result_whose_answer_stalls_is_sent_again_and_counted_once() {
    let seeds = 4_001..6_001;
    let config = Config {
        lease_duration: Duration::from_secs(4),
        ..Config::default()
    };
    let server = Server::with_campaign(config, spec("stall", seeds.clone(), 500));
    let expected = solve_directly(seeds.clone());
    let id = server.coordinator.status("stall").unwrap().campaign.id;
    let proxy = Proxy::start(&server.url);
    let mut config = rrm_worker::Config::new(proxy.url.clone(), 1, "stalled");
    config.call_timeout = Duration::from_secs(1);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let worker = std::thread::spawn(move || {
        block_on(rrm_worker::run(config, async {
            let _ = stopped.await;
        }))
    });
    wait_until(
        Duration::from_secs(60),
        "the worker holds both its units, no call on the wire",
        || {
            let leased = server.coordinator.status("stall").unwrap().units_leased;
            leased == rrm_worker::IN_FLIGHT as u64 && proxy.in_flight() == 0
        },
    );
    let links = proxy.open_links();
    assert_eq!(links.len(), 1, "the worker keeps one connection");
    proxy.set_link_faults(
        links[0],
        Faults {
            hold_replies: true,
            ..Faults::default()
        },
    );
    let started = Instant::now();
    // A result is stored, its answer held; the call times out and the result goes again.
    let mut repeated = None;
    wait_until(
        Duration::from_secs(60),
        "a stored result is sent again after its call timed out",
        || {
            let calls = proxy.calls();
            repeated = unit_records(&server, id)
                .values()
                .filter_map(stored_digest)
                .find(|digest| {
                    let sent: Vec<&Call> = calls
                        .iter()
                        .filter(|call| call.sent && call.carries(digest))
                        .collect();
                    sent.len() >= 2 && sent[0].fate == Fate::Cancelled
                });
            repeated.is_some()
        },
    );
    let repeated = repeated.unwrap();
    let resent_after = started.elapsed();
    proxy.set_link_faults(links[0], Faults::default());
    wait_until(
        Duration::from_secs(60),
        "a repeated submission is answered",
        || {
            proxy
                .calls()
                .iter()
                .any(|call| call.carries(&repeated) && call.fate == Fate::Answered)
        },
    );
    wait_until(Duration::from_secs(120), "the campaign is mined", || {
        status(&server.url, "stall").is_some_and(|s| is_done(&s))
    });
    eprintln!(
        "stall: result sent again {resent_after:?} after the stall began, mined after {:?}",
        started.elapsed()
    );
    stop.send(()).unwrap();
    worker.join().unwrap().expect("the worker stops cleanly");

    let units = unit_records(&server, id);
    let (unit, record) = units
        .iter()
        .find(|(_, record)| stored_digest(record) == Some(repeated))
        .unwrap();
    assert_eq!(
        record.leases_issued, 1,
        "unit {unit} was never leased again: its result was not lost"
    );
    let sends = proxy
        .calls()
        .iter()
        .filter(|call| call.sent && call.carries(&repeated))
        .count();
    assert!(sends >= 2, "unit {unit} was submitted {sends} times");
    assert_exact(&server, "stall", seeds, expected.join().unwrap());
}
