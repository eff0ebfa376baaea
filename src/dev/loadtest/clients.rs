//! The simulated workers of `rrm-dev load-test`: honest results prepared ahead, clients that
//! lease and submit as fast as they can, run inside the load test's process or in a
//! child process of their own (the hidden `rrm-dev load-test-clients`), which reports its
//! round trips and CPU time to the parent as one JSON line.

use crate::client::access::ClientArgs;
use anyhow::{Context, Result};
use clap::Args;
use rrm_proto::access::{AuthChannel, ClientAccess};
use rrm_proto::v1 as pb;
use std::io::Write;
use std::path::Path;
use std::process::{ExitCode, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The optimal move count and robots moved of Fogleman seeds 1..=N, as an honest
/// worker reports them.
pub(super) struct TrueResults {
    moves: Vec<u8>,
    robots: Vec<u8>,
}

impl TrueResults {
    /// The results of seeds 1..=`seeds`, from a cache in the temporary directory when an
    /// earlier run of this build left one (solving them takes a minute or two).
    pub(super) fn prepared(seeds: u64) -> TrueResults {
        let Some(cache) = cache_path(seeds) else {
            return TrueResults::solve(seeds);
        };
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
        let bar = crate::output::progress::bar(seeds, "seeds solved for the load");
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
                solved.map_or((rrm_model::UNSOLVED, 0), |found| {
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

/// The cache of this build's results: another build's solver may find other optimal
/// solutions, moving other robots, which the coordinator's re-solves would refuse.
fn cache_path(seeds: u64) -> Option<std::path::PathBuf> {
    let build = std::fs::metadata(std::env::current_exe().ok()?).ok()?;
    let built = build
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    let stamp = format!("{}-{}", built.as_secs(), build.len());
    Some(std::env::temp_dir().join(format!("rrm-load-test-fogleman-{seeds}-{stamp}.bin")))
}

/// What a set of clients measured: every round trip, and their process's CPU time when
/// they had a process of their own.
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct ClientFigures {
    pub(super) round_trips_us: Vec<u64>,
    pub(super) own_cpu_seconds: Option<f64>,
}

/// Runs `workers` clients on the current runtime until `until`.
pub(super) async fn in_process(
    url: &str,
    access: &ClientAccess,
    workers: usize,
    truth: &Arc<TrueResults>,
    until: Instant,
) -> Result<ClientFigures> {
    let mut clients = Vec::new();
    for _ in 0..workers {
        let channel = access.channel(url, Duration::from_secs(60))?;
        clients.push(tokio::spawn(simulated_worker(
            channel,
            truth.clone(),
            until,
        )));
    }
    let mut round_trips_us = Vec::new();
    for client in clients {
        round_trips_us.extend(
            client
                .await
                .context("simulated worker")??
                .into_iter()
                .map(|d| d.as_micros() as u64),
        );
    }
    Ok(ClientFigures {
        round_trips_us,
        own_cpu_seconds: None,
    })
}

/// The hidden `rrm-dev load-test-clients`: the clients of a load test in a process of
/// their own.
#[derive(Args)]
pub struct ClientsArgs {
    /// The load test's coordinator.
    #[arg(long)]
    url: String,
    #[arg(long)]
    workers: usize,
    #[arg(long)]
    seconds: u64,
    /// Seeds prepared (their results are read from the parent's cache).
    #[arg(long)]
    prepared: u64,
    #[command(flatten)]
    access: ClientArgs,
}

pub fn run_child(args: ClientsArgs) -> Result<ExitCode> {
    let truth = Arc::new(TrueResults::prepared(args.prepared));
    let access = args.access.access()?;
    let cpu = cpu_time::ProcessTime::now();
    let mut figures = crate::commands::services::runtime()?.block_on(in_process(
        &args.url,
        &access,
        args.workers,
        &truth,
        Instant::now() + Duration::from_secs(args.seconds),
    ))?;
    figures.own_cpu_seconds = Some(cpu.elapsed().as_secs_f64());
    let mut out = crate::output::stdout::lock();
    serde_json::to_writer(&mut out, &figures)?;
    writeln!(out)?;
    Ok(ExitCode::SUCCESS)
}

/// Runs the clients in a child process of this executable and waits for its figures.
/// The CA (if any) goes through a file in `scratch`, the token through the environment.
pub(super) async fn in_child(
    url: &str,
    access: &ClientAccess,
    workers: usize,
    seconds: u64,
    prepared: u64,
    scratch: &Path,
) -> Result<ClientFigures> {
    let mut command = std::process::Command::new(
        std::env::current_exe().context("cannot find this executable to run the clients")?,
    );
    command
        .arg("load-test-clients")
        .args(["--url", url])
        .args(["--workers", &workers.to_string()])
        .args(["--seconds", &seconds.to_string()])
        .args(["--prepared", &prepared.to_string()])
        .env_remove("RRM_TOKEN_FILE")
        .env_remove("RRM_CLIENT_CERT")
        .env_remove("RRM_CLIENT_KEY")
        .stdin(Stdio::null())
        .stdout(Stdio::piped());
    match &access.ca_pem {
        Some(pem) => {
            let ca = scratch.join("clients-ca.pem");
            std::fs::write(&ca, pem)?;
            command.env("RRM_CA", ca);
        }
        None => {
            command.env_remove("RRM_CA");
        }
    }
    match &access.token {
        Some(token) => command.env("RRM_TOKEN", token),
        None => command.env_remove("RRM_TOKEN"),
    };
    // The child runs for the load's length: off the async threads the coordinator needs.
    let output = tokio::task::spawn_blocking(move || command.output())
        .await?
        .context("cannot run the clients' process")?;
    anyhow::ensure!(
        output.status.success(),
        "the clients' process failed ({})",
        output.status
    );
    serde_json::from_slice(&output.stdout).context("the clients' process reported nonsense")
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
        let digest = rrm_model::unit_digest(
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
