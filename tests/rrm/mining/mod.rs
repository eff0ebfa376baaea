//! Distributed mining end to end: real coordinators on 127.0.0.1 with free ports, worker
//! processes (killed with SIGKILL where the test is about crashes), raw gRPC clients for
//! forged submissions, and totals checked against solving every seed directly; the
//! coordinator's Prometheus metrics (`metrics`).
//!
//! This module holds the harness (an in-process server, worker processes, raw clients);
//! the tests live in its children by topic.

mod attacks;
mod census;
mod connections;
mod durability;
mod exhaustive;
mod exhaustive_forgeries;
pub(crate) mod exhaustive_queries;
mod exhaustive_replication;
mod hoarding;
mod memory;
mod metrics;
mod own_worker;
mod partition;
mod patient_forgers;
mod recovery;
mod replication;
mod ricocheckers;
mod security;
mod service;
mod submissions;
mod tls;
mod worker;
mod workers;

use crate::referee::check_solution;
use crate::rrm_ok;
use ricochet::solver::{with_thread_solver, DEFAULT_MAX_MOVES};
use ricochet::Generator;
use rrm_coordinator::{Config, Coordinator};
use rrm_model::{CampaignSpec, UnitState};
use rrm_proto::v1 as pb;
use rrm_store::Store;
use std::io::{BufRead, BufReader};
use std::ops::Range;
use std::process::{Child, Command, ExitStatus, Stdio};
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
        Server::start_with(config, rrm_coordinator::Security::default())
    }

    /// A server with tokens and perhaps TLS; its URL is `https://localhost:…` with TLS.
    fn start_with(config: Config, security: rrm_coordinator::Security) -> Server {
        Server::serve(
            tempfile::tempdir().unwrap(),
            config,
            security,
            "127.0.0.1:0",
        )
    }

    /// Stops the server as a crash would leave its store (memory gone, the store as
    /// written) and starts a new one on the same data and port.
    fn restart(mut self, config: Config, security: rrm_coordinator::Security) -> Server {
        let address = self.url.rsplit(':').next().unwrap().to_string();
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            thread.join().unwrap();
        }
        let data = tempfile::tempdir().unwrap();
        let data = std::mem::replace(&mut self._data, data);
        drop(self);
        Server::serve(data, config, security, &format!("127.0.0.1:{address}"))
    }

    fn serve(
        data: tempfile::TempDir,
        config: Config,
        security: rrm_coordinator::Security,
        bind: &str,
    ) -> Server {
        let scheme = if security.tls.is_some() {
            "https://localhost"
        } else {
            "http://127.0.0.1"
        };
        let coordinator =
            Arc::new(Coordinator::open(Store::open(data.path()).unwrap(), config).unwrap());
        let bind = bind.to_string();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (address_tx, address_rx) = std::sync::mpsc::channel();
        let served = coordinator.clone();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Runtime::new().unwrap();
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind(bind).await.unwrap();
                address_tx.send(listener.local_addr().unwrap()).unwrap();
                rrm_coordinator::run_with(listener, served, security, None, async {
                    let _ = stopped.await;
                })
                .await
                .unwrap();
            });
        });
        let address: std::net::SocketAddr = address_rx.recv().unwrap();
        Server {
            url: format!("{scheme}:{}", address.port()),
            coordinator,
            stop: Some(stop),
            thread: Some(thread),
            _data: data,
        }
    }

    /// A server holding one campaign.
    fn with_campaign(config: Config, campaign: CampaignSpec) -> Server {
        Server::with_campaign_secured(config, rrm_coordinator::Security::default(), campaign)
    }

    /// A server with tokens and perhaps TLS holding one campaign.
    fn with_campaign_secured(
        config: Config,
        security: rrm_coordinator::Security,
        campaign: CampaignSpec,
    ) -> Server {
        let server = Server::start_with(config, security);
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
            // A server that panicked fails the test, unless the test failed already.
            if thread.join().is_err() && !std::thread::panicking() {
                panic!("the coordinator's server thread panicked");
            }
        }
    }
}

/// A child process killed when the test ends, however it ends.
struct Process(Child);

impl Process {
    /// Waits for the process to exit, failing after `limit`.
    fn exit_within(&mut self, limit: Duration) -> ExitStatus {
        crate::exit_within(&mut self.0, limit)
            .unwrap_or_else(|| panic!("rrm still runs after {limit:?}"))
    }
}

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

/// The default configuration with this share of done units drawn for a second
/// identity's check (none for a lone worker, which may not check its own results), and
/// every identity trusted from the start: no unit is solved again in full (the
/// `replication` tests cover that).
/// What an honest worker computes for Fogleman `seeds` (record threshold 20).
fn solve_honestly(seeds: Range<u64>, top_count: usize) -> rrm_worker::UnitResult {
    let cancel = std::sync::atomic::AtomicBool::new(false);
    let dealer = ricochet::Dealer::standard(Generator::Fogleman);
    rrm_worker::solve_unit(dealer, seeds, 20, top_count, &cancel, &|| {}).unwrap()
}

fn checking(verify_share: f64) -> Config {
    Config {
        verify_share,
        trust_after: 0,
        ..Config::default()
    }
}

fn spec(name: &str, seeds: Range<u64>, unit_size: u64) -> CampaignSpec {
    CampaignSpec {
        name: name.parse().unwrap(),
        generator: "fogleman".into(),
        seed_start: seeds.start,
        seed_end: seeds.end,
        unit_size,
        record_threshold: 20,
        rules: rrm_model::Rules::STANDARD,
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

/// A registration as a hand-made client holds it: the public id and the session.
#[derive(Clone, Debug)]
struct Registered {
    id: u64,
    session: Vec<u8>,
}

impl Registered {
    fn lease(&self) -> pb::LeaseRequest {
        pb::LeaseRequest {
            worker_id: self.id,
            session: self.session.clone(),
        }
    }
}

/// A bare gRPC client registered as a worker, for hand-made requests.
async fn raw_worker(
    url: &str,
    name: &str,
) -> (
    pb::mining_client::MiningClient<tonic::transport::Channel>,
    Registered,
) {
    let mut client = pb::mining_client::MiningClient::connect(url.to_string())
        .await
        .unwrap();
    let reply = client
        .register(pb::RegisterRequest {
            name: name.into(),
            threads: 1,
            version: env!("CARGO_PKG_VERSION").into(),
        })
        .await
        .unwrap()
        .into_inner();
    let registered = Registered {
        id: reply.worker_id,
        session: reply.session,
    };
    (client, registered)
}

/// A worker registered in process (no tokens: its own identity), for direct calls.
fn in_process_worker(coordinator: &Coordinator, name: &str) -> rrm_coordinator::Worker {
    let session = coordinator.register(None, name, 1).unwrap();
    coordinator.authenticate(&session, None).unwrap()
}

/// A submission of `counts` for `seeds` under `lease`, with their digest and `solved`'s
/// robots moved and kept solutions.
fn submission(
    lease: pb::LeaseRef,
    seeds: Range<u64>,
    solved: &rrm_worker::UnitResult,
    worker: &Registered,
    counts: Vec<u8>,
) -> pb::SubmitRequest {
    pb::SubmitRequest {
        worker_id: worker.id,
        session: worker.session.clone(),
        digest: rrm_model::unit_digest(&lease.campaign, seeds, &counts, &solved.robots_moved)
            .to_vec(),
        lease: Some(lease),
        move_counts: counts,
        robots_moved: solved.robots_moved.clone(),
        solutions: rrm_proto::solutions::pack(&solved.solutions)
            .unwrap()
            .into(),
        exhaustive: None,
    }
}

/// Leases a unit for `worker`, insisting that there is one.
async fn leased_unit(
    client: &mut pb::mining_client::MiningClient<tonic::transport::Channel>,
    worker: &Registered,
) -> pb::WorkUnit {
    client
        .lease(worker.lease())
        .await
        .unwrap()
        .into_inner()
        .unit
        .expect("a unit to lease")
}

fn is_done(status: &pb::CampaignStatus) -> bool {
    status.units_done == status.units_total
}

/// Starts `rrm coordinator` and reads the address it chose.
fn coordinator_process(data: &std::path::Path, listen: &str) -> (Process, String) {
    let (process, address, _) = coordinator_with_dashboard(data, listen);
    (process, address)
}

/// Starts `rrm coordinator`; returns it with the addresses it chose for gRPC and for the
/// dashboard.
fn coordinator_with_dashboard(data: &std::path::Path, listen: &str) -> (Process, String, String) {
    coordinator_leasing_for(data, listen, 3)
}

/// [`coordinator_with_dashboard`] with leases of `lease_seconds`.
fn coordinator_leasing_for(
    data: &std::path::Path,
    listen: &str,
    lease_seconds: u32,
) -> (Process, String, String) {
    let mut process = rrm_process(&[
        "coordinator",
        "--listen",
        listen,
        "--data",
        data.to_str().unwrap(),
        "--lease-seconds",
        &lease_seconds.to_string(),
        "--dashboard",
        "127.0.0.1:0",
    ]);
    let mut lines = BufReader::new(process.0.stdout.take().unwrap());
    let (mut address, mut dashboard) = (None, None);
    while address.is_none() || dashboard.is_none() {
        let mut line = String::new();
        assert!(
            lines.read_line(&mut line).unwrap() > 0,
            "the coordinator ended"
        );
        if let Some(chosen) = line.trim().strip_prefix("listening on ") {
            address = Some(chosen.to_string());
        } else if let Some(chosen) = line.trim().strip_prefix("dashboard on http://") {
            dashboard = Some(chosen.to_string());
        }
    }
    // Keep reading, so that the coordinator's later lines never meet a closed pipe.
    std::thread::spawn(move || std::io::copy(&mut lines, &mut std::io::sink()));
    (process, address.unwrap(), dashboard.unwrap())
}
