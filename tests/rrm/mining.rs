//! Distributed mining end to end: real coordinators on 127.0.0.1 with free ports, worker
//! processes (killed with SIGKILL where the test is about crashes), raw gRPC clients for
//! forged submissions, and totals checked against solving every seed directly.

use crate::referee::check_solution;
use crate::rrm_ok;
use ricochet::solver::{with_thread_solver, DEFAULT_MAX_MOVES};
use ricochet::Generator;
use rrm_coordinator::{Config, Coordinator};
use rrm_proto::v1 as pb;
use rrm_store::{CampaignSpec, Store, UnitState};
use std::io::{BufRead, BufReader};
use std::ops::Range;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tonic::Code;

/// A coordinator served from this process on its own runtime thread, on a fresh data
/// directory removed after it stops.
struct Server {
    url: String,
    coordinator: Arc<Coordinator>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
    _data: tempfile::TempDir,
}

impl Server {
    fn start(config: Config) -> Server {
        let data = tempfile::tempdir().unwrap();
        let coordinator =
            Arc::new(Coordinator::open(Store::open(data.path()).unwrap(), config).unwrap());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (address_tx, address_rx) = std::sync::mpsc::channel();
        let served = coordinator.clone();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Runtime::new().unwrap();
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                address_tx.send(listener.local_addr().unwrap()).unwrap();
                rrm_coordinator::run(listener, served, async {
                    let _ = stopped.await;
                })
                .await
                .unwrap();
            });
        });
        let address = address_rx.recv().unwrap();
        Server {
            url: format!("http://{address}"),
            coordinator,
            stop: Some(stop),
            thread: Some(thread),
            _data: data,
        }
    }

    /// A server holding one campaign.
    fn with_campaign(config: Config, campaign: CampaignSpec) -> Server {
        let server = Server::start(config);
        server.coordinator.create_campaign(campaign).unwrap();
        server
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A child process killed when the test ends, however it ends.
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn rrm_process(args: &[&str]) -> Process {
    Process(
        Command::new(env!("CARGO_BIN_EXE_rrm"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("rrm starts"),
    )
}

fn worker(url: &str, threads: usize) -> Process {
    rrm_process(&[
        "worker",
        "--coordinator",
        url,
        "--threads",
        &threads.to_string(),
    ])
}

fn spec(name: &str, seeds: Range<u64>, unit_size: u64) -> CampaignSpec {
    CampaignSpec {
        name: name.into(),
        generator: "fogleman".into(),
        seed_start: seeds.start,
        seed_end: seeds.end,
        unit_size,
        record_threshold: 20,
    }
}

fn wait_until(limit: Duration, what: &str, mut done: impl FnMut() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(started.elapsed() < limit, "timed out waiting until {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The histogram of optimal move counts from solving every seed here, on two threads.
pub(crate) fn direct_histogram(seeds: Range<u64>) -> Vec<u64> {
    let counts: Vec<usize> = std::thread::scope(|scope| {
        let halves = [
            seeds.start..seeds.start + (seeds.end - seeds.start) / 2,
            seeds.start + (seeds.end - seeds.start) / 2..seeds.end,
        ];
        let handles: Vec<_> = halves
            .into_iter()
            .map(|half| {
                scope.spawn(move || {
                    half.map(|seed| {
                        let puzzle = Generator::Fogleman.generate(seed).unwrap().puzzle;
                        with_thread_solver(DEFAULT_MAX_MOVES, |s| {
                            s.solve(&puzzle).unwrap().moves.len()
                        })
                    })
                    .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let mut histogram = vec![0; counts.iter().max().unwrap() + 1];
    for moves in counts {
        histogram[moves] += 1;
    }
    histogram
}

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future)
}

async fn query(url: &str) -> pb::query_client::QueryClient<tonic::transport::Channel> {
    pb::query_client::QueryClient::connect(url.to_string())
        .await
        .unwrap()
}

fn stats(url: &str, campaign: &str) -> pb::Stats {
    block_on(async {
        query(url)
            .await
            .get_stats(pb::CampaignRequest {
                campaign: campaign.into(),
            })
            .await
            .unwrap()
            .into_inner()
    })
}

fn status(url: &str, campaign: &str) -> Option<pb::CampaignStatus> {
    block_on(async {
        let mut client = pb::query_client::QueryClient::connect(url.to_string())
            .await
            .ok()?;
        client
            .get_campaign_status(pb::CampaignRequest {
                campaign: campaign.into(),
            })
            .await
            .ok()
            .map(tonic::Response::into_inner)
    })
}

/// A bare gRPC client registered as a worker, for hand-made requests.
async fn raw_worker(
    url: &str,
    name: &str,
) -> (
    pb::mining_client::MiningClient<tonic::transport::Channel>,
    u64,
) {
    let mut client = pb::mining_client::MiningClient::connect(url.to_string())
        .await
        .unwrap();
    let worker_id = client
        .register(pb::RegisterRequest {
            name: name.into(),
            threads: 1,
            version: env!("CARGO_PKG_VERSION").into(),
        })
        .await
        .unwrap()
        .into_inner()
        .worker_id;
    (client, worker_id)
}

fn is_done(status: &pb::CampaignStatus) -> bool {
    status.units_done == status.units_total
}

#[test]
fn three_workers_mine_what_solving_every_seed_gives() {
    let server = Server::with_campaign(Config::default(), spec("three", 1..20_000, 500));
    let _workers: Vec<Process> = (0..3).map(|_| worker(&server.url, 1)).collect();
    let expected = direct_histogram(1..20_000);
    wait_until(Duration::from_secs(600), "the campaign is mined", || {
        status(&server.url, "three").is_some_and(|s| is_done(&s))
    });
    let stored = stats(&server.url, "three");
    assert_eq!(stored.histogram, expected);
    assert_eq!(stored.puzzles, 19_999);
    let by_target: u64 = stored.by_target.iter().map(|g| g.puzzles).sum();
    assert_eq!(by_target, 19_999);
    let status = status(&server.url, "three").unwrap();
    assert_eq!(status.seeds_done, 19_999);
    assert!(status.mismatches.is_empty(), "{:?}", status.mismatches);

    // The report commands read the same through the query service.
    let report = |args: &[&str]| {
        let tail = [
            "--coordinator",
            &server.url,
            "--campaign",
            "three",
            "--json",
        ];
        rrm_ok(&[args, &tail].concat())
    };
    let remote: serde_json::Value = serde_json::from_str(&report(&["stats"])).unwrap();
    assert_eq!(remote["puzzles"], 19_999);
    assert_eq!(remote["max"].as_u64(), Some(expected.len() as u64 - 1));
    let top = report(&["top", "--limit", "2"]);
    let hardest: serde_json::Value = serde_json::from_str(top.lines().next().unwrap()).unwrap();
    assert_eq!(hardest["moves"].as_u64(), Some(expected.len() as u64 - 1));
}

#[test]
fn a_killed_workers_unit_is_reissued_and_totals_stay_exact() {
    let config = Config {
        lease_duration: Duration::from_secs(2),
        ..Config::default()
    };
    let server = Server::with_campaign(config, spec("crash", 1..3_001, 300));
    let mut doomed = worker(&server.url, 1);
    wait_until(
        Duration::from_secs(60),
        "the first worker holds a lease",
        || server.coordinator.status("crash").unwrap().units_leased > 0,
    );
    doomed.0.kill().unwrap(); // SIGKILL: no goodbye, the lease just stops being renewed
    let _survivor = worker(&server.url, 2);
    let expected = direct_histogram(1..3_001);
    wait_until(Duration::from_secs(300), "the campaign is mined", || {
        status(&server.url, "crash").is_some_and(|s| is_done(&s))
    });
    assert_eq!(stats(&server.url, "crash").histogram, expected);
    let reissued = server
        .coordinator
        .store()
        .units(1)
        .unwrap()
        .into_iter()
        .filter(|(_, record)| {
            record.leases_issued >= 2 && matches!(record.state, UnitState::Done { .. })
        })
        .count();
    assert!(reissued >= 1, "no unit was leased twice");
}

/// Starts `rrm coordinator` and reads the address it chose.
fn coordinator_process(data: &std::path::Path, listen: &str) -> (Process, String) {
    let mut process = rrm_process(&[
        "coordinator",
        "--listen",
        listen,
        "--data",
        data.to_str().unwrap(),
        "--lease-seconds",
        "3",
        "--dashboard",
        "127.0.0.1:0",
    ]);
    let mut line = String::new();
    let mut lines = BufReader::new(process.0.stdout.take().unwrap());
    lines.read_line(&mut line).unwrap();
    // Keep reading, so that the coordinator's later lines never meet a closed pipe.
    std::thread::spawn(move || std::io::copy(&mut lines, &mut std::io::sink()));
    let address = line
        .trim()
        .strip_prefix("listening on ")
        .expect("address line")
        .to_string();
    (process, address)
}

#[test]
fn a_killed_coordinator_resumes_exactly_after_restart() {
    let data = tempfile::tempdir().unwrap();
    let (mut coordinator, address) = coordinator_process(data.path(), "127.0.0.1:0");
    let url = format!("http://{address}");
    rrm_ok(&[
        "campaign",
        "create",
        "restart",
        "--seeds",
        "1..8001",
        "--unit-size",
        "100",
        "--coordinator",
        &url,
    ]);
    let _worker = worker(&url, 2);
    wait_until(Duration::from_secs(120), "some units are done", || {
        status(&url, "restart").is_some_and(|s| s.units_done >= 3)
    });
    coordinator.0.kill().unwrap();
    let at_kill = status(&url, "restart");
    assert!(at_kill.is_none(), "the coordinator is gone");
    coordinator.0.wait().unwrap();
    let (_restarted, again) = coordinator_process(data.path(), &address);
    assert_eq!(again, address);
    let resumed = status(&url, "restart").unwrap();
    assert!(
        !is_done(&resumed),
        "killed mid-campaign ({} of {} units)",
        resumed.units_done,
        resumed.units_total
    );
    let expected = direct_histogram(1..8_001);
    wait_until(Duration::from_secs(300), "the campaign is mined", || {
        status(&url, "restart").is_some_and(|s| is_done(&s))
    });
    let stored = stats(&url, "restart");
    assert_eq!(stored.histogram, expected);
    assert_eq!(status(&url, "restart").unwrap().seeds_done, 8_000);
}

#[test]
fn duplicate_late_and_malformed_submissions() {
    let config = Config {
        lease_duration: Duration::from_secs(1),
        ..Config::default()
    };
    let server = Server::with_campaign(config, spec("forge", 1..101, 10));
    block_on(async {
        let (mut client, worker_id) = raw_worker(&server.url, "test").await;
        let first = client
            .lease(pb::LeaseRequest { worker_id })
            .await
            .unwrap()
            .into_inner()
            .unit
            .unwrap();
        let first_lease = first.lease.clone().unwrap();
        // Let it expire; the same unit comes back under lease 2.
        tokio::time::sleep(Duration::from_millis(1200)).await;
        let second = client
            .lease(pb::LeaseRequest { worker_id })
            .await
            .unwrap()
            .into_inner()
            .unit
            .unwrap();
        let lease = second.lease.clone().unwrap();
        assert_eq!((lease.unit, lease.lease), (first_lease.unit, 2));
        let seeds = second.seed_start..second.seed_end;
        let cancel = std::sync::atomic::AtomicBool::new(false);
        let result =
            rrm_worker::solve_unit(Generator::Fogleman, seeds.clone(), 20, 5, &cancel).unwrap();
        let submit =
            |lease: pb::LeaseRef, counts: Vec<u8>, digest: Option<[u8; 32]>| pb::SubmitRequest {
                worker_id,
                digest: digest
                    .unwrap_or_else(|| {
                        rrm_proto::unit_digest(
                            &lease.campaign,
                            seeds.clone(),
                            &counts,
                            &result.robots_moved,
                        )
                    })
                    .to_vec(),
                lease: Some(lease),
                move_counts: counts,
                robots_moved: result.robots_moved.clone(),
                solutions: result
                    .solutions
                    .iter()
                    .map(|(seed, moves)| pb::Solution {
                        seed: *seed,
                        moves: moves.clone(),
                    })
                    .collect(),
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
                "someone else's lease",
                pb::SubmitRequest {
                    worker_id: worker_id ^ 1,
                    ..submit(lease.clone(), good.clone(), None)
                },
                Code::PermissionDenied,
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
        let disagreeing = client
            .submit(submit(first_lease.clone(), wrong, None))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(disagreeing.outcome(), pb::SubmitOutcome::Mismatch);
        let status = server.coordinator.status("forge").unwrap();
        assert_eq!(status.mismatches.len(), 1, "the mismatch is visible");
        assert_eq!(
            server.coordinator.aggregates("forge").unwrap(),
            after.1,
            "never counted twice"
        );
    });
}

#[test]
fn mining_finds_seed_1605212351_as_a_21_move_record() {
    let data = tempfile::tempdir().unwrap();
    let summary = rrm_ok(&[
        "mine",
        "--seeds",
        "1605212341..1605212361",
        "--unit-size",
        "10",
        "--data",
        data.path().to_str().unwrap(),
    ]);
    assert!(summary.contains("seed   1605212351  21 moves"), "{summary}");
    let coordinator =
        Coordinator::open(Store::open(data.path()).unwrap(), Config::default()).unwrap();
    let records = coordinator
        .hardest("fogleman-1605212341-1605212361", 10, 20)
        .unwrap();
    let record = records
        .iter()
        .find(|p| p.seed == 1_605_212_351)
        .expect("listed as a record");
    assert_eq!(record.moves, 21);
    assert!(record.re_solved, "the coordinator solved it again");
    let puzzle = Generator::Fogleman.generate(1_605_212_351).unwrap().puzzle;
    assert_eq!(
        check_solution(&puzzle.to_record(None), &record.solution),
        Ok(())
    );
}

#[test]
fn interrupted_mining_resumes_to_exact_totals() {
    let data = tempfile::tempdir().unwrap();
    let dir = data.path().to_str().unwrap();
    let args = [
        "mine",
        "--seeds",
        "1..6001",
        "--unit-size",
        "100",
        "--threads",
        "1",
        "--data",
        dir,
    ];
    let mut first = rrm_process(&args);
    std::thread::sleep(Duration::from_millis(1500));
    let interrupted = Command::new("kill")
        .args(["-INT", &first.0.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupted.success());
    let code = first.0.wait().unwrap().code();
    assert_eq!(code, Some(130), "Ctrl-C exits 130 after saving");
    rrm_ok(&args);
    let coordinator =
        Coordinator::open(Store::open(data.path()).unwrap(), Config::default()).unwrap();
    let aggregates = coordinator.aggregates("fogleman-1-6001").unwrap();
    assert_eq!(aggregates.histogram, direct_histogram(1..6_001));
}

#[test]
fn a_share_of_units_is_checked_by_a_second_worker() {
    let config = Config {
        verify_share: 1.0,
        ..Config::default()
    };
    let server = Server::with_campaign(config, spec("checked", 1..2_001, 250));
    let _workers: Vec<Process> = (0..2).map(|_| worker(&server.url, 1)).collect();
    wait_until(
        Duration::from_secs(300),
        "every unit is mined and verified",
        || {
            status(&server.url, "checked")
                .is_some_and(|s| is_done(&s) && s.units_verified == s.units_total)
        },
    );
    let status = status(&server.url, "checked").unwrap();
    assert!(status.mismatches.is_empty());
    assert_eq!(
        stats(&server.url, "checked").puzzles,
        2_000,
        "checks are not counted again"
    );
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
        let (mut client, worker_id) = raw_worker(&server.url, "liar").await;
        for attempt in 1..=2 {
            let unit = client
                .lease(pb::LeaseRequest { worker_id })
                .await
                .unwrap()
                .into_inner()
                .unit
                .expect("unit");
            let lease = unit.lease.unwrap();
            assert_eq!(lease.lease, attempt);
            // Record candidates without their solutions.
            let counts = vec![3u8; 10];
            let refused = client
                .submit(pb::SubmitRequest {
                    worker_id,
                    digest: rrm_proto::unit_digest("failing", 1..11, &counts, &[1; 10]).to_vec(),
                    lease: Some(lease),
                    move_counts: counts,
                    robots_moved: vec![1; 10],
                    solutions: Vec::new(),
                })
                .await
                .expect_err("no solutions");
            assert_eq!(refused.code(), Code::InvalidArgument);
        }
        let nothing = client
            .lease(pb::LeaseRequest { worker_id })
            .await
            .unwrap()
            .into_inner();
        assert!(
            nothing.unit.is_none(),
            "a quarantined unit is not leased again"
        );
    });
    let status = server.coordinator.status("failing").unwrap();
    assert_eq!(status.units_quarantined, 1);
    assert!(
        status.quarantined[0].2.contains("no solution"),
        "{:?}",
        status.quarantined
    );
    assert_eq!(
        server.coordinator.aggregates("failing").unwrap().puzzles(),
        0
    );
}

#[test]
fn health_and_reflection_are_served() {
    let server = Server::start(Config::default());
    block_on(async {
        let channel = tonic::transport::Endpoint::from_shared(server.url.clone())
            .unwrap()
            .connect()
            .await
            .unwrap();
        let mut health = tonic_health::pb::health_client::HealthClient::new(channel.clone());
        let reply = health
            .check(tonic_health::pb::HealthCheckRequest {
                service: "rrm.v1.Mining".into(),
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(
            reply.status(),
            tonic_health::pb::health_check_response::ServingStatus::Serving
        );
        use tonic_reflection::pb::v1::{
            server_reflection_client::ServerReflectionClient,
            server_reflection_request::MessageRequest, server_reflection_response::MessageResponse,
            ServerReflectionRequest,
        };
        let mut reflection = ServerReflectionClient::new(channel);
        let request = ServerReflectionRequest {
            host: String::new(),
            message_request: Some(MessageRequest::ListServices(String::new())),
        };
        let mut replies = reflection
            .server_reflection_info(tokio_stream::iter([request]))
            .await
            .unwrap()
            .into_inner();
        let Some(MessageResponse::ListServicesResponse(list)) =
            replies.message().await.unwrap().unwrap().message_response
        else {
            panic!("not a service list");
        };
        let names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
        for wanted in [
            "rrm.v1.Mining",
            "rrm.v1.Query",
            "rrm.v1.Campaigns",
            "grpc.health.v1.Health",
        ] {
            assert!(
                names.iter().any(|n| n == wanted),
                "{wanted} missing from {names:?}"
            );
        }
    });
}
