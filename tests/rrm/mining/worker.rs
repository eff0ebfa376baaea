//! The worker's own policies: which coordinators it refuses, when it gives up, when it is
//! done, what it reports while solving, that shutdown stops an exhaustive analysis, and
//! the arguments it refuses.

use super::*;
use crate::rrm;
use std::io::Read;
use std::process::ExitStatus;

/// Starts `rrm args` with its stderr read as it comes (so that a chatty process never
/// blocks on a full pipe); the reader returns all of it once the process is gone.
fn spawn_reading_stderr(args: &[&str]) -> (Process, std::thread::JoinHandle<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rrm"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rrm starts");
    let mut stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    (Process(child), reader)
}

/// Runs a one-thread worker against `url` that gives up after `after`, until it exits.
fn worker_giving_up(url: &str, after: &str) -> (ExitStatus, String, Duration) {
    let args = [
        "worker",
        "--coordinator",
        url,
        "--threads",
        "1",
        "--give-up-after",
        after,
    ];
    run_until_exit(&args, Duration::from_secs(30))
}

/// Runs `rrm args` to its end, killing it after `limit`; its exit status, stderr and
/// running time.
fn run_until_exit(args: &[&str], limit: Duration) -> (ExitStatus, String, Duration) {
    let started = Instant::now();
    let (mut process, reader) = spawn_reading_stderr(args);
    let status = process.exit_within(limit);
    (status, reader.join().unwrap(), started.elapsed())
}

/// The last line of `stderr`: the error `rrm` ends with.
fn last_line(stderr: &str) -> &str {
    stderr.lines().last().unwrap_or_default()
}

#[test]
fn a_worker_refuses_a_coordinator_url_it_cannot_speak_to_at_once() {
    for url in ["ftp://127.0.0.1:1", "127.0.0.1:7878"] {
        let (status, stderr, _) = run_until_exit(
            &["worker", "--coordinator", url, "--threads", "1"],
            Duration::from_secs(10),
        );
        assert_eq!(status.code(), Some(2), "{stderr}");
        let error = last_line(&stderr);
        assert!(
            error.contains(url) && error.contains("http://"),
            "unclear: {error}"
        );
    }
}

#[test]
fn a_worker_gives_up_on_a_dead_port_after_the_given_time() {
    // A port just freed: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let (status, stderr, took) = worker_giving_up(&url, "2s");
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(took >= Duration::from_secs(2), "gave up after {took:?}");
    assert!(
        took < Duration::from_secs(15),
        "gave up only after {took:?}"
    );
    let error = last_line(&stderr);
    assert!(error.contains("gave up") && error.contains(&url), "{error}");
    // Each failed attempt is logged once, and no message repeats its own parts.
    let attempts = stderr.lines().filter(|l| l.contains("failed")).count();
    assert!(
        (2..=20).contains(&attempts),
        "{attempts} attempts:\n{stderr}"
    );
    for line in stderr.lines() {
        let parts: Vec<&str> = line.split(": ").collect();
        assert!(
            parts.windows(2).all(|pair| pair[0] != pair[1]),
            "repeated text: {line}"
        );
    }
}

#[test]
fn a_worker_gives_up_on_a_server_that_does_not_speak_grpc() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    // A plain HTTP/1 server: every connection gets a 400 and is closed.
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let _ = std::io::Write::write_all(
                &mut stream,
                b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n",
            );
        }
    });
    let (status, stderr, took) = worker_giving_up(&url, "1s");
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(
        took < Duration::from_secs(10),
        "gave up only after {took:?}"
    );
    assert!(last_line(&stderr).contains("gave up"), "{stderr}");
}

/// A coordinator whose store is broken: it registers workers, then every lease fails
/// with `INTERNAL`, as the real one answers store faults.
struct BrokenStore;

#[tonic::async_trait]
impl pb::mining_server::Mining for BrokenStore {
    async fn register(
        &self,
        _: tonic::Request<pb::RegisterRequest>,
    ) -> Result<tonic::Response<pb::RegisterReply>, tonic::Status> {
        Ok(tonic::Response::new(pb::RegisterReply {
            worker_id: 1,
            session: vec![1; 16],
            lease_seconds: 60,
            heartbeat_seconds: 15,
        }))
    }

    async fn lease(
        &self,
        _: tonic::Request<pb::LeaseRequest>,
    ) -> Result<tonic::Response<pb::LeaseReply>, tonic::Status> {
        Err(tonic::Status::internal("store: disk full"))
    }

    async fn heartbeat(
        &self,
        _: tonic::Request<pb::HeartbeatRequest>,
    ) -> Result<tonic::Response<pb::HeartbeatReply>, tonic::Status> {
        Err(tonic::Status::internal("store: disk full"))
    }

    async fn submit(
        &self,
        _: tonic::Request<pb::SubmitRequest>,
    ) -> Result<tonic::Response<pb::SubmitReply>, tonic::Status> {
        Err(tonic::Status::internal("store: disk full"))
    }
}

#[test]
fn a_worker_gives_up_on_store_faults_after_its_limit() {
    let gave_up = block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(
            tonic::transport::Server::builder()
                .add_service(pb::mining_server::MiningServer::new(BrokenStore))
                .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener)),
        );
        let mut config = rrm_worker::Config::new(url, 1, "test");
        config.store_fault_limit = Duration::from_secs(1);
        let started = Instant::now();
        let never = std::future::pending::<()>();
        let ended = tokio::time::timeout(Duration::from_secs(30), rrm_worker::run(config, never))
            .await
            .expect("the worker gave up");
        (ended, started.elapsed())
    });
    let (ended, took) = gave_up;
    let error = ended.expect_err("store faults end the worker");
    assert!(
        matches!(error, rrm_worker::WorkerError::GaveUp { .. }),
        "{error}"
    );
    assert!(error.to_string().contains("disk full"), "{error}");
    assert!(took >= Duration::from_secs(1), "gave up after {took:?}");
}

/// Runs a one-thread worker told to exit when done: its exit status and stderr.
fn work_until_done(url: &str) -> (ExitStatus, String) {
    let args = [
        "worker",
        "--coordinator",
        url,
        "--threads",
        "1",
        "--exit-when-done",
    ];
    let (status, stderr, _) = run_until_exit(&args, Duration::from_secs(300));
    (status, stderr)
}

#[test]
fn a_worker_told_to_exit_when_done_exits_once_the_campaign_is_mined() {
    let server = Server::with_campaign(Config::default(), spec("done", 1..401, 100));
    let (status, stderr) = work_until_done(&server.url);
    assert!(status.success(), "{stderr}");
    assert_eq!(
        stderr.matches("every campaign is done").count(),
        1,
        "{stderr}"
    );
    let mined = server.coordinator.status("done").unwrap();
    assert_eq!(mined.units_done, mined.units_total);
    assert_eq!(mined.seeds_done, 400);
    // A newcomer's first units are solved in full by the coordinator: checked, so verified.
    assert_eq!(mined.units_verified, 4);
}

#[test]
fn a_worker_exits_when_only_checks_of_its_own_results_are_left() {
    // A share so small that no unit's run ends within the campaign: the one check is
    // the floor drawn when its last unit is done, which only another identity may make.
    let server = Server::with_campaign(checking(1e-6), spec("checked", 1..201, 50));
    let (status, stderr) = work_until_done(&server.url);
    assert!(status.success(), "{stderr}");
    assert_eq!(
        stderr.matches("but for checks of this identity").count(),
        1,
        "{stderr}"
    );
    let mined = server.coordinator.status("checked").unwrap();
    assert_eq!(
        (mined.units_done, mined.units_verified, mined.units_to_check),
        (4, 0, 1)
    );
    let listed = rrm_ok(&["campaign", "list", "--coordinator", &server.url]);
    assert!(listed.contains("0 verified, 1 to check"), "{listed}");
    assert!(!server.coordinator.campaigns_done());
    // Another one makes them, and then the campaign is done.
    let (status, stderr) = work_until_done(&server.url);
    assert!(status.success(), "{stderr}");
    assert_eq!(
        stderr.matches("every campaign is done;").count(),
        1,
        "{stderr}"
    );
    let checked = server.coordinator.status("checked").unwrap();
    assert_eq!((checked.units_verified, checked.units_to_check), (1, 0));
    assert!(server.coordinator.campaigns_done());
}

#[test]
fn a_worker_says_once_that_every_campaign_is_done_and_waits() {
    let server = Server::with_campaign(checking(0.0), spec("idle", 1..101, 100));
    let (mut process, reader) =
        spawn_reading_stderr(&["worker", "--coordinator", &server.url, "--threads", "1"]);
    wait_until(Duration::from_secs(120), "the campaign is mined", || {
        server.coordinator.campaigns_done()
    });
    // Idle workers ask again every second: a few more rounds.
    std::thread::sleep(Duration::from_millis(3500));
    assert!(
        process.0.try_wait().unwrap().is_none(),
        "the worker stopped"
    );
    process.0.kill().unwrap();
    process.0.wait().unwrap();
    let stderr = reader.join().unwrap();
    assert_eq!(
        stderr.matches("every campaign is done; waiting").count(),
        1,
        "{stderr}"
    );
}

#[test]
fn leases_say_when_every_campaign_is_done_and_heartbeats_report_progress() {
    let server = Server::with_campaign(checking(0.0), spec("progress", 1..11, 10));
    block_on(async {
        let (mut client, worker) = raw_worker(&server.url, "test").await;
        let leasing = client.clone();
        let lease = || {
            let mut client = leasing.clone();
            let request = worker.lease();
            async move { client.lease(request).await.unwrap().into_inner() }
        };
        let first = lease().await;
        assert!(!first.campaigns_done);
        let unit = first.unit.unwrap();
        let held = unit.lease.clone().unwrap();
        // The only unit is out: nothing to lease, but not done either.
        let waiting = lease().await;
        assert!(waiting.unit.is_none() && !waiting.campaigns_done);

        let beat = |seeds: Vec<u64>| pb::HeartbeatRequest {
            worker_id: worker.id,
            session: worker.session.clone(),
            leases: vec![held.clone()],
            seeds_solved: seeds,
        };
        client.heartbeat(beat(vec![7])).await.unwrap();
        assert_eq!(
            server
                .coordinator
                .status("progress")
                .unwrap()
                .seeds_in_progress,
            7
        );
        // Through gRPC too, for `campaign list --coordinator`.
        let reported = query(&server.url)
            .await
            .get_campaign_status(pb::CampaignRequest {
                campaign: "progress".into(),
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(reported.seeds_in_progress, 7);
        // A worker claiming more than its unit holds is believed up to the unit's 10 seeds.
        client.heartbeat(beat(vec![u64::MAX])).await.unwrap();
        let claimed = server.coordinator.status("progress").unwrap();
        assert_eq!(claimed.seeds_in_progress, 10);

        let seeds = unit.seed_start..unit.seed_end;
        let result = solve_honestly(seeds.clone(), 5);
        client
            .submit(pb::SubmitRequest {
                worker_id: worker.id,
                session: worker.session.clone(),
                digest: rrm_model::unit_digest(
                    &held.campaign,
                    seeds,
                    &result.move_counts,
                    &result.robots_moved,
                )
                .to_vec(),
                lease: Some(held.clone()),
                move_counts: result.move_counts,
                robots_moved: result.robots_moved,
                solutions: rrm_proto::solutions::pack(&result.solutions)
                    .unwrap()
                    .into(),
                exhaustive: None,
            })
            .await
            .unwrap();
        // Accepted seeds are done, no longer in progress, even if a late heartbeat says so.
        client.heartbeat(beat(vec![10])).await.unwrap();
        let finished = server.coordinator.status("progress").unwrap();
        assert_eq!((finished.seeds_done, finished.seeds_in_progress), (10, 0));
        let done = lease().await;
        assert!(done.unit.is_none() && done.campaigns_done);
    });
}

#[test]
fn zero_threads_are_refused() {
    for command in ["worker", "mine"] {
        let output = rrm(&[command, "--threads", "0"]);
        assert_eq!(output.status.code(), Some(2), "rrm {command} --threads 0");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("--threads"), "{stderr}");
    }
}

#[test]
fn a_worker_stops_an_exhaustive_analysis_on_shutdown() {
    let server = Server::start(Config {
        lease_duration: Duration::from_secs(4),
        ..Config::default()
    });
    let request = rrm_model::ExhaustiveRequest {
        boards: vec!["1A 3B 4A 2B".into()],
        targets: vec!["RT".into()],
        ..rrm_model::ExhaustiveRequest::new("stop".parse().unwrap())
    };
    server
        .coordinator
        .create_exhaustive_campaign(request)
        .unwrap();
    let (mut process, reader) =
        spawn_reading_stderr(&["worker", "--coordinator", &server.url, "--threads", "1"]);
    // The first layers are in: the analysis runs (the whole takes tens of seconds).
    wait_until(
        Duration::from_secs(60),
        "the analysis reports layers",
        || {
            server
                .coordinator
                .status("stop")
                .is_ok_and(|s| s.seeds_in_progress > 0)
        },
    );
    // SAFETY: kill(2) on our own child's pid.
    assert_eq!(
        unsafe { libc::kill(process.0.id() as i32, libc::SIGINT) },
        0
    );
    let status = process.exit_within(Duration::from_secs(60));
    let stderr = reader.join().unwrap();
    assert!(status.success(), "{stderr}");
    assert!(stderr.contains("analysis stopped after"), "{stderr}");
    assert!(!stderr.contains("submitted"), "{stderr}");
    assert_eq!(server.coordinator.status("stop").unwrap().units_done, 0);
}
