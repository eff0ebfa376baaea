//! `rrm coordinator` and `rrm worker`: the two long-running services, each a thin wrapper
//! that parses arguments, waits for SIGINT/SIGTERM and calls its crate's `run`.

use anyhow::{Context, Result};
use clap::Args;
use rrm_coordinator::{Config, Coordinator};
use rrm_store::Store;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

#[derive(Args)]
pub struct CoordinatorArgs {
    /// Address to serve gRPC on, e.g. 127.0.0.1:7878 (port 0 picks a free one).
    #[arg(long, default_value = "127.0.0.1:7878")]
    listen: String,
    /// Store directory (created if missing); no other process may use it meanwhile.
    #[arg(long, default_value = "rrm-data")]
    data: PathBuf,
    #[command(flatten)]
    config: ConfigArgs,
}

/// Coordinator settings shared by `rrm coordinator` and `rrm mine`.
#[derive(Args)]
pub struct ConfigArgs {
    /// Seconds a lease lasts without a heartbeat.
    #[arg(long, default_value_t = 60)]
    lease_seconds: u64,
    /// Failures (expired leases, refused results) before a unit is quarantined.
    #[arg(long, default_value_t = 5)]
    max_failures: u32,
    /// Share of done units given to a second worker to compare digests (0 to 1).
    #[arg(long, default_value_t = 0.01)]
    verify_share: f64,
}

impl ConfigArgs {
    pub fn config(&self) -> Result<Config> {
        anyhow::ensure!(
            (0.0..=1.0).contains(&self.verify_share),
            "--verify-share must be between 0 and 1, not {}",
            self.verify_share
        );
        anyhow::ensure!(
            self.lease_seconds >= 1,
            "--lease-seconds must be at least 1"
        );
        Ok(Config {
            lease_duration: Duration::from_secs(self.lease_seconds),
            max_failures: self.max_failures.max(1),
            verify_share: self.verify_share,
            ..Config::default()
        })
    }
}

#[derive(Args)]
pub struct WorkerArgs {
    /// The coordinator's URL.
    #[arg(long, default_value = "http://127.0.0.1:7878")]
    coordinator: String,
    /// Solver threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// A name for the coordinator's log (default: host name and process id).
    #[arg(long)]
    name: Option<String>,
}

pub fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// Completes on the first SIGINT (Ctrl-C) or SIGTERM.
pub async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut terminate =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
                .expect("installing a SIGTERM handler");
        tokio::select! {
            _ = interrupt => {}
            _ = terminate.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = interrupt.await;
}

pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

pub fn open_coordinator(data: &std::path::Path, config: Config) -> Result<Arc<Coordinator>> {
    let store = Store::open(data)?;
    Ok(Arc::new(Coordinator::open(store, config)?))
}

pub fn coordinator(args: CoordinatorArgs) -> Result<ExitCode> {
    let config = args.config.config()?;
    let coordinator = open_coordinator(&args.data, config)?;
    runtime()?.block_on(async {
        let listener = tokio::net::TcpListener::bind(&args.listen)
            .await
            .with_context(|| format!("cannot listen on {}", args.listen))?;
        let address = listener.local_addr()?;
        // Tests and scripts read the chosen port from this line.
        println!("listening on {address}");
        tracing::info!(%address, data = %args.data.display(), "coordinator started");
        rrm_coordinator::run(listener, coordinator, shutdown_signal()).await?;
        Ok(ExitCode::SUCCESS)
    })
}

pub fn worker(args: WorkerArgs) -> Result<ExitCode> {
    let config = rrm_worker::Config {
        coordinator: args.coordinator,
        threads: args.threads.unwrap_or_else(default_threads),
        name: args
            .name
            .unwrap_or_else(|| format!("worker-{}", std::process::id())),
    };
    let summary = runtime()?.block_on(rrm_worker::run(config, shutdown_signal()))?;
    tracing::info!(
        units = summary.units_submitted,
        seeds = summary.seeds_solved,
        "worker stopped"
    );
    Ok(ExitCode::SUCCESS)
}
