//! `rrm load-test`: the coordinator alone under simulated workers over loopback.
//!
//! Starts a coordinator on a scratch store and N clients that each lease a unit and
//! submit its true move counts (with a valid digest) as fast as they can; prints round
//! trips per second, latency percentiles and the store's bytes per seed. The clients do
//! not solve: every seed the load can reach is solved before the clock starts, so the
//! coordinator's checks (spot re-solves included) pass as they would for honest
//! workers and cost what they cost. Then, with the store full and the metrics filled, it
//! times scrapes of the dashboard's `/metrics`, one at a time. With `--compare-secure`
//! the same load runs again over TLS with bearer tokens.

use crate::services::runtime;
use anyhow::{Context, Result};
use clap::Args;
use rrm_coordinator::auth::Keyring;
use rrm_coordinator::tls::ServerTls;
use rrm_coordinator::{Config, Coordinator, Security};
use rrm_proto::access::{token_hash, AuthChannel, ClientAccess};
use rrm_proto::v1 as pb;
use rrm_store::{CampaignSpec, Store};
use std::io::{Read, Write};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Args)]
pub struct LoadTestArgs {
    /// Simulated workers, each on its own connection.
    #[arg(long, default_value_t = 200)]
    workers: usize,
    /// How long to run.
    #[arg(long, default_value_t = 10)]
    seconds: u64,
    /// Seeds per unit (each submission carries this many move counts).
    #[arg(long, default_value_t = 1)]
    unit_size: u64,
    /// `/metrics` scrapes timed after the load, each on a new connection (0: none).
    #[arg(long, default_value_t = 500)]
    scrapes: usize,
    /// Run the load twice, in plaintext and then with TLS and bearer tokens (a
    /// throwaway CA and certificate for localhost), and compare.
    #[arg(long)]
    compare_secure: bool,
}

/// Round trips per second the prepared seeds allow for; a load that runs out stops
/// early and says so.
const PREPARED_PER_SECOND: u64 = 12_000;

pub fn run(args: LoadTestArgs) -> Result<ExitCode> {
    let truth = Arc::new(TrueResults::prepared(
        args.seconds * PREPARED_PER_SECOND * args.unit_size,
    ));
    let plain = measured(&args, &truth, None, args.scrapes)?;
    if args.compare_secure {
        let secure = measured(&args, &truth, Some(Secure::throwaway()?), 0)?;
        writeln!(
            crate::stdout::lock(),
            "TLS and tokens: {:.0} round trips/s against {:.0} in plaintext ({:+.1} %); CPU per round trip {:.3} ms against {:.3} ms",
            secure.per_second(args.seconds),
            plain.per_second(args.seconds),
            (secure.per_second(args.seconds) / plain.per_second(args.seconds) - 1.0) * 100.0,
            secure.cpu_per_round_trip_ms(),
            plain.cpu_per_round_trip_ms(),
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The optimal move count and robots moved of Fogleman seeds 1..=N, as an honest
/// worker reports them.
struct TrueResults {
    moves: Vec<u8>,
    robots: Vec<u8>,
}

impl TrueResults {
    /// The results of seeds 1..=`seeds`, from a cache in the temporary directory when an
    /// earlier run left one (solving them takes a minute or two).
    fn prepared(seeds: u64) -> TrueResults {
        let cache = std::env::temp_dir().join(format!("rrm-load-test-fogleman-{seeds}.bin"));
        if let Ok(bytes) = std::fs::read(&cache) {
            if bytes.len() as u64 == 2 * seeds {
                let (moves, robots) = bytes.split_at(seeds as usize);
                return TrueResults {
                    moves: moves.to_vec(),
                    robots: robots.to_vec(),
                };
            }
        }
        let solved = TrueResults::solve(seeds);
        // A cache that cannot be written only costs the next run its time.
        let _ = std::fs::write(&cache, [&solved.moves[..], &solved.robots[..]].concat());
        solved
    }

    fn solve(seeds: u64) -> TrueResults {
        use rayon::prelude::*;
        let bar = crate::progress::bar(seeds, "seeds solved for the load");
        let solved: Vec<(u8, u8)> = (1..=seeds)
            .into_par_iter()
            .map(|seed| {
                bar.inc(1);
                let solved =
                    ricochet::Generator::Fogleman
                        .generate(seed)
                        .ok()
                        .and_then(|generated| {
                            ricochet::solver::with_thread_solver(
                                ricochet::solver::DEFAULT_MAX_MOVES,
                                |solver| solver.solve(&generated.puzzle).ok(),
                            )
                        });
                solved.map_or((rrm_proto::UNSOLVED, 0), |found| {
                    (
                        found.moves.len() as u8,
                        ricochet::puzzle::robots_moved(&found.moves) as u8,
                    )
                })
            })
            .collect();
        bar.finish_and_clear();
        let (moves, robots) = solved.into_iter().unzip();
        TrueResults { moves, robots }
    }

    /// The results of `seeds`, if prepared.
    fn of(&self, seeds: std::ops::Range<u64>) -> Option<(Vec<u8>, Vec<u8>)> {
        let range = usize::try_from(seeds.start - 1).ok()?..usize::try_from(seeds.end - 1).ok()?;
        Some((
            self.moves.get(range.clone())?.to_vec(),
            self.robots.get(range)?.to_vec(),
        ))
    }
}

/// One load on a scratch store removed afterwards, its figures printed.
fn measured(
    args: &LoadTestArgs,
    truth: &Arc<TrueResults>,
    secure: Option<Secure>,
    scrapes: usize,
) -> Result<Load> {
    let scratch = std::env::temp_dir().join(format!("rrm-load-test-{}", std::process::id()));
    let result = load_test(args, truth, secure, scrapes, &scratch);
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

/// What the load test serves with, beyond plaintext: a certificate and a worker token.
struct Secure {
    security: Security,
    access: ClientAccess,
}

impl Secure {
    /// A CA and a localhost certificate made now, and one worker token.
    fn throwaway() -> Result<Secure> {
        use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
        let dir = std::env::temp_dir().join(format!("rrm-load-test-tls-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        let ca_key = KeyPair::generate()?;
        let mut ca_params = CertificateParams::new(Vec::<String>::new())?;
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let ca = ca_params.self_signed(&ca_key)?;
        let key = KeyPair::generate()?;
        let cert = CertificateParams::new(vec!["localhost".into()])?
            .signed_by(&key, &Issuer::new(ca_params, ca_key))?;
        let (cert_path, key_path) = (dir.join("cert.pem"), dir.join("key.pem"));
        std::fs::write(&cert_path, cert.pem())?;
        std::fs::write(&key_path, key.serialize_pem())?;
        let tokens = dir.join("tokens");
        std::fs::write(
            &tokens,
            format!("load worker {}\n", token_hash("load-test-token")),
        )?;
        let loaded = (
            ServerTls::load(&cert_path, &key_path, None),
            Keyring::load(&[tokens], &[]),
        );
        let _ = std::fs::remove_dir_all(&dir);
        Ok(Secure {
            security: Security {
                keyring: loaded.1?,
                tls: Some(loaded.0?),
            },
            access: ClientAccess {
                ca_pem: Some(ca.pem().into_bytes()),
                identity_pem: None,
                token: Some("load-test-token".into()),
            },
        })
    }
}

/// A load's figures.
struct Load {
    round_trips: usize,
    cpu: f64,
}

impl Load {
    fn per_second(&self, seconds: u64) -> f64 {
        self.round_trips as f64 / seconds as f64
    }

    fn cpu_per_round_trip_ms(&self) -> f64 {
        self.cpu * 1000.0 / self.round_trips.max(1) as f64
    }
}

fn load_test(
    args: &LoadTestArgs,
    truth: &Arc<TrueResults>,
    secure: Option<Secure>,
    scrapes: usize,
    scratch: &std::path::Path,
) -> Result<Load> {
    // The campaign is as large as the load needs, beyond any sensible limit.
    // Every simulated worker connects from 127.0.0.1 (one peer, as many connections)
    // and has one call in progress at most.
    let defaults = Config::default();
    let config = Config {
        max_campaign_units: u64::MAX,
        max_campaign_seeds: u64::MAX,
        max_requests: defaults.max_requests.max(args.workers + 16),
        connections: rrm_coordinator::ConnectionLimits {
            per_peer: defaults.connections.per_peer.max(args.workers + 16),
            total: defaults.connections.total.max(args.workers + 16),
            ..defaults.connections
        },
        ..defaults
    };
    let coordinator = Arc::new(Coordinator::open(Store::open(scratch)?, config)?);
    coordinator.create_campaign(CampaignSpec {
        name: "load".into(),
        generator: "fogleman".into(),
        seed_start: 1,
        seed_end: 1 << 40,
        unit_size: args.unit_size,
        record_threshold: 255,
    })?;
    let (security, access, mode) = match secure {
        Some(secure) => (secure.security, secure.access, "TLS and tokens"),
        None => (Security::default(), ClientAccess::default(), "plaintext"),
    };
    let cpu = cpu_time::ProcessTime::now();
    let (mut latencies, cpu, scrapes) = runtime()?.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let port = listener.local_addr()?.port();
        let url = match security.tls {
            Some(_) => format!("https://localhost:{port}"),
            None => format!("http://127.0.0.1:{port}"),
        };
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(rrm_coordinator::run_with(
            listener,
            coordinator.clone(),
            security,
            None,
            async {
                let _ = stopped.await;
            },
        ));
        let until = Instant::now() + Duration::from_secs(args.seconds);
        let mut clients = Vec::new();
        for _ in 0..args.workers {
            let channel = access.channel(&url, Duration::from_secs(60))?;
            clients.push(tokio::spawn(simulated_worker(
                channel,
                truth.clone(),
                until,
            )));
        }
        let mut latencies = Vec::new();
        for client in clients {
            latencies.extend(client.await.context("simulated worker")??);
        }
        let cpu = cpu.elapsed().as_secs_f64();
        let scrapes = time_scrapes(coordinator.clone(), scrapes).await?;
        let _ = stop.send(());
        server.await??;
        anyhow::Ok((latencies, cpu, scrapes))
    })?;
    latencies.sort();
    let percentile = |p: f64| percentile_ms(&latencies, p);
    let mut out = crate::stdout::lock();
    writeln!(
        out,
        "{mode}: {} simulated workers, {} s, units of {} seeds: {} lease + submit round trips, {:.0}/s",
        args.workers,
        args.seconds,
        args.unit_size,
        latencies.len(),
        latencies.len() as f64 / args.seconds as f64
    )?;
    writeln!(
        out,
        "round trip ms: p50 {:.2}, p90 {:.2}, p99 {:.2}, max {:.2}; process CPU {:.1} s (clients included)",
        percentile(0.5),
        percentile(0.9),
        percentile(0.99),
        percentile(1.0),
        cpu
    )?;
    let status = coordinator.status("load")?;
    coordinator.store().flush_blocking()?;
    let bytes = coordinator.store().size_on_disk()?;
    writeln!(
        out,
        "coordinator: {} units done, {} puzzles counted; store {} bytes on disk, {:.3} bytes per seed",
        status.units_done,
        coordinator.aggregates("load")?.puzzles(),
        bytes,
        bytes as f64 / status.seeds_done.max(1) as f64
    )?;
    if let Some(Scrapes {
        mut durations,
        cpu,
        bytes,
    }) = scrapes
    {
        durations.sort();
        writeln!(
            out,
            "/metrics: {} scrapes of {} bytes, ms: p50 {:.3}, p90 {:.3}, max {:.3}; process CPU {:.3} ms per scrape (client included)",
            durations.len(),
            bytes,
            percentile_ms(&durations, 0.5),
            percentile_ms(&durations, 0.9),
            percentile_ms(&durations, 1.0),
            cpu * 1000.0 / durations.len() as f64
        )?;
    }
    Ok(Load {
        round_trips: latencies.len(),
        cpu,
    })
}

/// The `p` quantile (0 to 1) of sorted durations, in milliseconds.
fn percentile_ms(sorted: &[Duration], p: f64) -> f64 {
    sorted
        .get(((sorted.len() as f64 * p) as usize).min(sorted.len().saturating_sub(1)))
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

/// Timed scrapes of `/metrics`.
struct Scrapes {
    durations: Vec<Duration>,
    /// Process CPU seconds over all of them.
    cpu: f64,
    /// The size of the last exposition.
    bytes: usize,
}

/// Serves the dashboard of `coordinator` and GETs `/metrics` `count` times in a row, a
/// connection each, as Prometheus would; `None` for no scrapes.
async fn time_scrapes(coordinator: Arc<Coordinator>, count: usize) -> Result<Option<Scrapes>> {
    if count == 0 {
        return Ok(None);
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let address = listener.local_addr()?;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(rrm_coordinator::dashboard::serve(
        listener,
        coordinator,
        async {
            let _ = stopped.await;
        },
    ));
    let scrapes = tokio::task::spawn_blocking(move || {
        let cpu = cpu_time::ProcessTime::now();
        let mut durations = Vec::with_capacity(count);
        let mut bytes = 0;
        for _ in 0..count {
            let started = Instant::now();
            bytes = scrape(address)?.len();
            durations.push(started.elapsed());
        }
        let cpu = cpu.elapsed().as_secs_f64();
        anyhow::Ok(Scrapes {
            durations,
            cpu,
            bytes,
        })
    })
    .await
    .context("scraping")??;
    let _ = stop.send(());
    server.await??;
    Ok(Some(scrapes))
}

/// One `GET /metrics` on a new connection; returns the body.
fn scrape(address: std::net::SocketAddr) -> Result<String> {
    let mut stream = std::net::TcpStream::connect(address)?;
    write!(
        stream,
        "GET /metrics HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )?;
    let mut reply = String::new();
    stream.read_to_string(&mut reply)?;
    let (head, body) = reply
        .split_once("\r\n\r\n")
        .context("/metrics: no end of headers")?;
    anyhow::ensure!(
        head.starts_with("HTTP/1.1 200 "),
        "/metrics: {}",
        head.lines().next().unwrap_or_default()
    );
    Ok(body.to_string())
}

/// Leases and submits over `channel` until `until`; returns each round trip's duration.
async fn simulated_worker(
    channel: AuthChannel,
    truth: Arc<TrueResults>,
    until: Instant,
) -> Result<Vec<Duration>> {
    let mut client = pb::mining_client::MiningClient::new(channel);
    let registered = client
        .register(pb::RegisterRequest {
            name: "simulated".into(),
            threads: 1,
            version: env!("CARGO_PKG_VERSION").into(),
        })
        .await?
        .into_inner();
    let (worker_id, session) = (registered.worker_id, registered.session);
    let mut latencies = Vec::new();
    while Instant::now() < until {
        let started = Instant::now();
        let Some(unit) = client
            .lease(pb::LeaseRequest {
                worker_id,
                session: session.clone(),
            })
            .await?
            .into_inner()
            .unit
        else {
            continue;
        };
        let lease = unit.lease.context("unit without lease")?;
        let (counts, robots) = truth
            .of(unit.seed_start..unit.seed_end)
            .context("the load outran the seeds solved for it; raise PREPARED_PER_SECOND")?;
        let digest = rrm_proto::unit_digest(
            &lease.campaign,
            unit.seed_start..unit.seed_end,
            &counts,
            &robots,
        );
        client
            .submit(pb::SubmitRequest {
                worker_id,
                session: session.clone(),
                lease: Some(lease),
                move_counts: counts,
                robots_moved: robots,
                digest: digest.to_vec(),
                ..Default::default()
            })
            .await?;
        latencies.push(started.elapsed());
    }
    Ok(latencies)
}
