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
    /// Address of the web dashboard.
    #[arg(long, default_value = "127.0.0.1:7880")]
    dashboard: String,
    /// Serve no dashboard.
    #[arg(long)]
    no_dashboard: bool,
    #[command(flatten)]
    config: ConfigArgs,
}

/// The settings of `rrm coordinator` (`rrm mine` runs with the defaults: its one worker
/// renews its leases and cannot give itself a second opinion).
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
    /// The coordinator's URL (http:// only).
    #[arg(long, default_value = "http://127.0.0.1:7878")]
    coordinator: String,
    /// Solver threads (default: all cores).
    #[arg(long, value_parser = at_least_one)]
    threads: Option<usize>,
    /// A name for the coordinator's log (default: host name and process id).
    #[arg(long)]
    name: Option<String>,
    /// Exit with an error once the coordinator has been unreachable this long, e.g. 30s,
    /// 5m, 1h (default: keep trying, as a service should).
    #[arg(long, value_name = "DURATION", value_parser = duration)]
    give_up_after: Option<Duration>,
    /// Exit successfully once the coordinator reports every campaign done.
    #[arg(long)]
    exit_when_done: bool,
}

/// Parses counts of threads and the like: whole numbers from 1.
pub fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(count) => Ok(count),
        Err(error) => Err(error.to_string()),
    }
}

/// Parses a duration with its unit (`250ms`, `90s`, `5m`, `1h 30m`).
fn duration(text: &str) -> Result<Duration, String> {
    humantime::parse_duration(text)
        .map_err(|error| format!("{text:?} is not a duration such as 30s, 5m or 1h: {error}"))
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
        // Tests and scripts read the chosen ports from these lines.
        announce(&format!("listening on {address}"));
        tracing::info!(%address, data = %args.data.display(), "coordinator started");
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let dashboard = if args.no_dashboard {
            None
        } else {
            Some(start_dashboard(&args.dashboard, coordinator.clone(), stopped).await?)
        };
        let signal = async move {
            shutdown_signal().await;
            let _ = stop.send(true);
        };
        rrm_coordinator::run(listener, coordinator, signal).await?;
        if let Some(dashboard) = dashboard {
            stop_dashboard(dashboard).await;
        }
        Ok(ExitCode::SUCCESS)
    })
}

/// Prints a line for scripts on stdout; a closed stdout must not stop a service.
fn announce(line: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{line}").and_then(|()| stdout.flush());
}

/// Serves the dashboard on `address` until `stopped` turns true; prints its URL.
pub async fn start_dashboard(
    address: &str,
    coordinator: Arc<Coordinator>,
    mut stopped: tokio::sync::watch::Receiver<bool>,
) -> Result<tokio::task::JoinHandle<std::io::Result<()>>> {
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .with_context(|| format!("cannot serve the dashboard on {address}"))?;
    announce(&format!("dashboard on http://{}", listener.local_addr()?));
    Ok(tokio::spawn(rrm_coordinator::dashboard::serve(
        listener,
        coordinator,
        async move {
            let _ = stopped.wait_for(|&stop| stop).await;
        },
    )))
}

/// Waits a little for open browser connections to finish, then drops them.
pub async fn stop_dashboard(dashboard: tokio::task::JoinHandle<std::io::Result<()>>) {
    let abort = dashboard.abort_handle();
    if tokio::time::timeout(Duration::from_secs(2), dashboard)
        .await
        .is_err()
    {
        abort.abort();
    }
}

pub fn worker(args: WorkerArgs) -> Result<ExitCode> {
    let name = args.name.unwrap_or_else(|| {
        let host = host_name().unwrap_or_else(|| "worker".into());
        format!("{host}-{}", std::process::id())
    });
    let threads = args.threads.unwrap_or_else(default_threads);
    let mut config = rrm_worker::Config::new(args.coordinator, threads, name);
    config.give_up_after = args.give_up_after;
    config.exit_when_done = args.exit_when_done;
    let summary = runtime()?.block_on(rrm_worker::run(config, shutdown_signal()))?;
    tracing::info!(
        units = summary.units_submitted,
        seeds = summary.seeds_solved,
        "worker stopped"
    );
    Ok(ExitCode::SUCCESS)
}

/// This machine's host name, if it has a readable one.
fn host_name() -> Option<String> {
    #[cfg(unix)]
    {
        let mut buffer = [0u8; 256];
        // SAFETY: the pointer and length describe `buffer`, which outlives the call.
        let failed = unsafe { libc::gethostname(buffer.as_mut_ptr().cast(), buffer.len()) } != 0;
        // A name as long as the buffer may come without its terminating zero: not used.
        let end = buffer.iter().position(|&b| b == 0).filter(|_| !failed)?;
        let name = std::str::from_utf8(&buffer[..end]).ok()?.trim();
        (!name.is_empty()).then(|| name.to_string())
    }
    #[cfg(not(unix))]
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_need_a_unit() {
        assert_eq!(duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(duration("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(duration("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(duration("1h 30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(duration("1.5s"), Ok(Duration::from_millis(1500)));
        for bad in ["2", "s", "", "-1s", "soon"] {
            assert!(duration(bad).is_err(), "{bad} was accepted");
        }
    }

    #[test]
    fn the_host_name_is_found() {
        let name = host_name().expect("a host name");
        assert!(!name.is_empty() && !name.contains('\0'), "{name:?}");
    }
}
