//! `rrm load-test`: the coordinator alone under simulated workers over loopback.
//!
//! Starts a coordinator on a scratch store and N clients that each lease a unit and
//! submit made-up move counts (with a valid digest) as fast as they can; prints round
//! trips per second, latency percentiles and the store's bytes per seed. Solving is left
//! out on purpose; the made-up counts follow the Fogleman distribution (measured on seeds
//! 1..1000000) so that they compress like real ones. Then, with the store full and the
//! metrics filled, it times scrapes of the dashboard's `/metrics`, one at a time.

use crate::services::runtime;
use anyhow::{Context, Result};
use clap::Args;
use rrm_coordinator::{Config, Coordinator};
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
}

pub fn run(args: LoadTestArgs) -> Result<ExitCode> {
    let scratch = std::env::temp_dir().join(format!("rrm-load-test-{}", std::process::id()));
    let result = load_test(&args, &scratch);
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

fn load_test(args: &LoadTestArgs, scratch: &std::path::Path) -> Result<ExitCode> {
    let coordinator = Arc::new(Coordinator::open(Store::open(scratch)?, Config::default())?);
    coordinator.create_campaign(CampaignSpec {
        name: "load".into(),
        generator: "fogleman".into(),
        seed_start: 1,
        seed_end: 1 << 40,
        unit_size: args.unit_size,
        record_threshold: 255,
    })?;
    let cpu = cpu_time::ProcessTime::now();
    let (mut latencies, cpu, scrapes) = runtime()?.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("http://{}", listener.local_addr()?);
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(rrm_coordinator::run(listener, coordinator.clone(), async {
            let _ = stopped.await;
        }));
        let until = Instant::now() + Duration::from_secs(args.seconds);
        let mut clients = Vec::new();
        for _ in 0..args.workers {
            clients.push(tokio::spawn(simulated_worker(url.clone(), until)));
        }
        let mut latencies = Vec::new();
        for client in clients {
            latencies.extend(client.await.context("simulated worker")??);
        }
        let cpu = cpu.elapsed().as_secs_f64();
        let scrapes = time_scrapes(coordinator.clone(), args.scrapes).await?;
        let _ = stop.send(());
        server.await??;
        anyhow::Ok((latencies, cpu, scrapes))
    })?;
    latencies.sort();
    let percentile = |p: f64| percentile_ms(&latencies, p);
    let mut out = crate::stdout::lock();
    writeln!(
        out,
        "{} simulated workers, {} s, units of {} seeds: {} lease + submit round trips, {:.0}/s",
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
    Ok(ExitCode::SUCCESS)
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

/// Puzzles per move count among Fogleman seeds 1..1000000, from `rrm mine`.
const FOGLEMAN_HISTOGRAM: [u32; 23] = [
    0, 45646, 39923, 65751, 106092, 152317, 175446, 158800, 115187, 69935, 36493, 18079, 8424,
    4055, 1989, 1039, 503, 208, 81, 26, 5, 0, 1,
];

/// Move counts drawn from [`FOGLEMAN_HISTOGRAM`] and robots moved (1 to 4), the same for
/// the same seeds.
fn made_up_results(seeds: std::ops::Range<u64>) -> (Vec<u8>, Vec<u8>) {
    let total: u64 = FOGLEMAN_HISTOGRAM.iter().map(|&c| u64::from(c)).sum();
    seeds
        .map(|seed| {
            // splitmix64 of the seed: two independent draws.
            let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            let mut draw = (z >> 32) % total;
            let moves = FOGLEMAN_HISTOGRAM
                .iter()
                .position(|&count| {
                    let below = draw < u64::from(count);
                    draw = draw.saturating_sub(u64::from(count));
                    below
                })
                .unwrap_or(6) as u8;
            let robots = [1, 1, 1, 2, 2, 2, 2, 3, 3, 4][(z & 0xffff) as usize % 10];
            (moves, robots.min(moves.max(1)))
        })
        .unzip()
}

/// Leases and submits until `until`; returns each round trip's duration.
async fn simulated_worker(url: String, until: Instant) -> Result<Vec<Duration>> {
    let mut client = pb::mining_client::MiningClient::connect(url).await?;
    let worker_id = client
        .register(pb::RegisterRequest {
            name: "simulated".into(),
            threads: 1,
            version: env!("CARGO_PKG_VERSION").into(),
        })
        .await?
        .into_inner()
        .worker_id;
    let mut latencies = Vec::new();
    while Instant::now() < until {
        let started = Instant::now();
        let Some(unit) = client
            .lease(pb::LeaseRequest { worker_id })
            .await?
            .into_inner()
            .unit
        else {
            continue;
        };
        let lease = unit.lease.context("unit without lease")?;
        let (counts, robots) = made_up_results(unit.seed_start..unit.seed_end);
        let digest = rrm_proto::unit_digest(
            &lease.campaign,
            unit.seed_start..unit.seed_end,
            &counts,
            &robots,
        );
        client
            .submit(pb::SubmitRequest {
                worker_id,
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
