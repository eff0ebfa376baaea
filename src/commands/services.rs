//! `rrm coordinator` and `rrm worker`: the two long-running services, each a thin wrapper
//! that parses arguments, waits for SIGINT/SIGTERM and calls its crate's `run`.

use crate::client::access::ClientArgs;
use crate::commands::census::UnitFiles;
use anyhow::{Context, Result};
use clap::Args;
use rrm_coordinator::auth::Keyring;
use rrm_coordinator::tls::ServerTls;
use rrm_coordinator::{Config, ConnectionLimits, Coordinator, DiskReserve, Security};
use rrm_store::Store;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

#[derive(Args)]
pub struct CoordinatorArgs {
    /// Address to serve gRPC on, e.g. 127.0.0.1:7878 (port 0 picks a free one). Any
    /// address but loopback needs --tokens-file (or --client-ca), or --insecure.
    #[arg(long, env = "RRM_LISTEN", default_value = "127.0.0.1:7878")]
    listen: String,
    /// Store directory (created if missing); no other process may use it meanwhile.
    #[arg(long, env = "RRM_DATA", default_value = "rrm-data")]
    data: PathBuf,
    /// Address of the web dashboard (and of /metrics).
    #[arg(long, env = "RRM_DASHBOARD", default_value = "127.0.0.1:7880")]
    dashboard: String,
    /// Serve no dashboard.
    #[arg(long)]
    no_dashboard: bool,
    /// Also serve gRPC health alone, in plaintext and without tokens, on this address
    /// (for Kubernetes' gRPC probes, which speak neither TLS nor tokens).
    #[arg(long, env = "RRM_HEALTH", value_name = "ADDR")]
    health: Option<String>,
    /// Keep the unit files of exhaustive campaign NAME in DIR (as `rrm census export`
    /// writes them), refreshed every 30 s and at shutdown; repeatable.
    #[arg(long, value_name = "NAME=DIR", value_parser = parse_unit_files)]
    unit_files: Vec<(String, PathBuf)>,
    /// Write the `--unit-files` gzipped (`.json.gz`): a quarter of the size.
    #[arg(long, requires = "unit_files")]
    gzip_unit_files: bool,
    #[command(flatten)]
    security: SecurityArgs,
    #[command(flatten)]
    config: ConfigArgs,
}

/// Tokens and TLS of `rrm coordinator`.
#[derive(Args)]
pub struct SecurityArgs {
    /// Hashed tokens, one `NAME ROLE sha256:HEX` per line (see `rrm token`); re-read
    /// when the file changes, so tokens rotate without a restart.
    #[arg(long, env = "RRM_TOKENS_FILE", value_name = "FILE")]
    tokens_file: Option<PathBuf>,
    /// Read tokens in the same format, kept apart; reads (queries, dashboard) then need a
    /// read or admin token. (Read tokens in --tokens-file also close reads.)
    #[arg(long, env = "RRM_READ_TOKEN_FILE", value_name = "FILE")]
    read_token_file: Option<PathBuf>,
    /// PEM certificate (chain) for TLS on gRPC and the dashboard.
    #[arg(long, env = "RRM_TLS_CERT", value_name = "FILE", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// PEM private key of --tls-cert.
    #[arg(long, env = "RRM_TLS_KEY", value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Require gRPC clients to show a certificate signed by this CA (mutual TLS).
    #[arg(
        long,
        env = "RRM_CLIENT_CA",
        value_name = "FILE",
        requires = "tls_cert"
    )]
    client_ca: Option<PathBuf>,
    /// Allow listening beyond loopback with no token and no client certificate: anyone
    /// who reaches the port may then create campaigns and submit results.
    #[arg(long)]
    insecure: bool,
}

impl SecurityArgs {
    /// Reads the tokens and certificates; refuses an open coordinator beyond loopback
    /// before anything listens on `listen`.
    fn security(&self, listen: &str) -> Result<Security> {
        use std::net::ToSocketAddrs;
        let loopback = listen
            .to_socket_addrs()
            .is_ok_and(|mut addresses| addresses.all(|address| address.ip().is_loopback()));
        let tokens: Vec<PathBuf> = self.tokens_file.iter().cloned().collect();
        let reads: Vec<PathBuf> = self.read_token_file.iter().cloned().collect();
        let keyring = Keyring::load(&tokens, &reads)?;
        let tls = match (&self.tls_cert, &self.tls_key) {
            (Some(cert), Some(key)) => Some(ServerTls::load(cert, key, self.client_ca.as_deref())?),
            _ => None,
        };
        if let Some(warning) = tls
            .as_ref()
            .and_then(|tls| tls.validity_warning(std::time::SystemTime::now()))
        {
            tracing::warn!("{warning}");
        }
        let authenticated = keyring.is_enforced() || tls.as_ref().is_some_and(ServerTls::mutual);
        if !loopback && !authenticated && !self.insecure {
            anyhow::bail!(
                "refusing to serve {listen} to the network with no --tokens-file (or \
                 --client-ca): anyone could create campaigns and submit results; give \
                 tokens (see `rrm token new`), or --insecure on a network you trust"
            );
        }
        if !loopback && tls.is_none() && keyring.is_enforced() {
            tracing::warn!(
                "tokens travel in plaintext: give --tls-cert and --tls-key on a shared network"
            );
        }
        Ok(Security { keyring, tls })
    }
}

/// The settings of `rrm coordinator` (`rrm mine` runs with the defaults: its one worker
/// renews its leases and cannot give itself a second opinion).
#[derive(Args)]
pub struct ConfigArgs {
    /// Seconds a lease lasts without a heartbeat.
    #[arg(long, env = "RRM_LEASE_SECONDS", default_value_t = 60)]
    lease_seconds: u64,
    /// Failures (expired leases, refused results) before a unit is quarantined.
    #[arg(long, env = "RRM_MAX_FAILURES", default_value_t = 5)]
    max_failures: u32,
    /// Share of done units given to a second worker to compare digests (0 to 1).
    #[arg(long, env = "RRM_VERIFY_SHARE", default_value_t = Config::default().verify_share)]
    verify_share: f64,
    /// Share of the agreeing checks of exhaustive units that the coordinator analyses
    /// itself, in case the checker colludes with the producer (0 to 1).
    #[arg(long, env = "RRM_OWN_ANALYSIS_SHARE", default_value_t = Config::default().own_analysis_share)]
    own_analysis_share: f64,
    /// A token's seed units are solved again in full by the coordinator until this many
    /// were confirmed (adaptive replication; 0 trusts every token from the start).
    #[arg(long, env = "RRM_TRUST_AFTER", default_value_t = Config::default().trust_after)]
    trust_after: u32,
    /// A lease whose reported progress has not grown for this long is taken back and
    /// charged to its holder, e.g. 10m.
    #[arg(long, env = "RRM_STALL_TIMEOUT", value_name = "DURATION", value_parser = duration, default_value = "10m")]
    stall_timeout: Duration,
    /// Calls in progress at once over all connections; more are refused with
    /// RESOURCE_EXHAUSTED (workers back off and retry).
    #[arg(long, env = "RRM_MAX_REQUESTS", default_value_t = 256, value_parser = at_least_one)]
    max_requests: usize,
    /// Calls in progress at once on one connection.
    #[arg(long, env = "RRM_MAX_REQUESTS_PER_CONNECTION", default_value_t = 32, value_parser = at_least_one)]
    max_requests_per_connection: usize,
    /// A call running longer than this is cancelled, e.g. 10m.
    #[arg(long, env = "RRM_REQUEST_TIMEOUT", value_name = "DURATION", value_parser = duration, default_value = "10m")]
    request_timeout: Duration,
    /// The most units a new campaign may have.
    #[arg(long, env = "RRM_MAX_CAMPAIGN_UNITS", default_value_t = 1_000_000)]
    max_campaign_units: u64,
    /// The most seeds a new campaign may span.
    #[arg(long, env = "RRM_MAX_CAMPAIGN_SEEDS", default_value_t = 10_000_000_000)]
    max_campaign_seeds: u64,
    /// Free space to keep on the store's volume, in bytes (512MiB, 2GB) or as a share
    /// of the volume (2%); below it nothing is leased (RESOURCE_EXHAUSTED) until space
    /// returns. Default: the smaller of 256 MiB and 2 % of the volume.
    #[arg(long, env = "RRM_MIN_FREE_DISK", value_name = "SIZE|PERCENT", value_parser = disk_reserve)]
    min_free_disk: Option<DiskReserve>,
    /// Connections open at once from one IP address; more are closed at once.
    #[arg(long, env = "RRM_MAX_CONNECTIONS_PER_PEER", default_value_t = 256, value_parser = at_least_one)]
    max_connections_per_peer: usize,
    /// Connections that made no authenticated call yet, open at once from one network
    /// (/24 for IPv4, /64 for IPv6); a new one takes the place of the oldest.
    #[arg(long, env = "RRM_MAX_CONNECTIONS_PER_NETWORK", default_value_t = 256, value_parser = at_least_one)]
    max_connections_per_network: usize,
    /// Connections open at once in all.
    #[arg(long, env = "RRM_MAX_CONNECTIONS", default_value_t = 4096, value_parser = at_least_one)]
    max_connections: usize,
    /// Connections of --max-connections that only ones which made an authenticated call
    /// may hold.
    #[arg(long, env = "RRM_RESERVED_CONNECTIONS", default_value_t = 1024)]
    reserved_connections: usize,
    /// A connection that makes no authenticated call within this long is closed,
    /// whatever its pings.
    #[arg(long, env = "RRM_CONNECTION_GRACE", value_name = "DURATION", value_parser = duration, default_value = "10s")]
    connection_grace: Duration,
    /// A connection with no traffic for this long is closed (workers ping every 15 s).
    #[arg(long, env = "RRM_IDLE_TIMEOUT", value_name = "DURATION", value_parser = duration, default_value = "60s")]
    idle_timeout: Duration,
}

/// Parses `--min-free-disk`: a size with its unit, or a percentage of the volume.
fn disk_reserve(text: &str) -> Result<DiskReserve, String> {
    if let Some(percent) = text.strip_suffix('%') {
        return match percent.trim().parse::<f64>() {
            Ok(p) if (0.0..=100.0).contains(&p) => Ok(DiskReserve::Share(p / 100.0)),
            _ => Err(format!("{text:?} is not a percentage from 0% to 100%")),
        };
    }
    let digits = text.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = &text[digits.len()..];
    let scale: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "kb" => 1_000,
        "kib" | "k" => 1 << 10,
        "mb" => 1_000_000,
        "mib" | "m" => 1 << 20,
        "gb" => 1_000_000_000,
        "gib" | "g" => 1 << 30,
        _ => {
            return Err(format!(
                "{text:?}: unknown unit {unit:?} (use B, KiB, MiB, GiB, KB, MB, GB or %)"
            ))
        }
    };
    digits
        .trim()
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .map(DiskReserve::Bytes)
        .ok_or_else(|| format!("{text:?} is not a size such as 256MiB, 2GB or 2%"))
}

impl ConfigArgs {
    pub fn config(&self) -> Result<Config> {
        for (flag, share) in [
            ("--verify-share", self.verify_share),
            ("--own-analysis-share", self.own_analysis_share),
        ] {
            anyhow::ensure!(
                (0.0..=1.0).contains(&share),
                "{flag} must be between 0 and 1, not {share}"
            );
        }
        anyhow::ensure!(
            self.lease_seconds >= 1,
            "--lease-seconds must be at least 1"
        );
        Ok(Config {
            lease_duration: Duration::from_secs(self.lease_seconds),
            max_failures: self.max_failures.max(1),
            verify_share: self.verify_share,
            own_analysis_share: self.own_analysis_share,
            trust_after: self.trust_after,
            stall_timeout: self.stall_timeout,
            max_requests: self.max_requests,
            max_requests_per_connection: self.max_requests_per_connection,
            request_timeout: self.request_timeout,
            max_campaign_units: self.max_campaign_units,
            max_campaign_seeds: self.max_campaign_seeds,
            min_free_disk: self.min_free_disk.unwrap_or(DiskReserve::Default),
            connections: ConnectionLimits {
                per_peer: self.max_connections_per_peer,
                per_network: self.max_connections_per_network,
                total: self.max_connections,
                reserved: self.reserved_connections.min(self.max_connections - 1),
                idle: self.idle_timeout,
                grace: Some(self.connection_grace),
            },
            ..Config::default()
        })
    }
}

#[derive(Args)]
pub struct WorkerArgs {
    /// The coordinator's URL: http://HOST:PORT, or https:// for TLS.
    #[arg(long, env = "RRM_COORDINATOR", default_value = "http://127.0.0.1:7878")]
    coordinator: String,
    #[command(flatten)]
    access: ClientArgs,
    /// Solver threads (default: all cores).
    #[arg(long, env = "RRM_THREADS", value_parser = at_least_one)]
    threads: Option<usize>,
    /// A name for the coordinator's log (default: host name and process id); with
    /// tokens, the coordinator knows the worker by its token's name and logs this beside.
    #[arg(long, env = "RRM_WORKER_NAME")]
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
pub fn duration(text: &str) -> Result<Duration, String> {
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
    let security = args.security.security(&args.listen)?;
    let runtime = runtime()?;
    let served = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(&args.listen)
            .await
            .with_context(|| format!("cannot listen on {}", args.listen))?;
        let address = listener.local_addr()?;
        let health = match &args.health {
            Some(health) => Some(
                tokio::net::TcpListener::bind(health)
                    .await
                    .with_context(|| format!("cannot serve health on {health}"))?,
            ),
            None => None,
        };
        let coordinator = open_coordinator(&args.data, config)?;
        // Tests and scripts read the chosen ports from these lines.
        announce(&format!("listening on {address}"));
        if let Some(health) = &health {
            announce(&format!("health on {}", health.local_addr()?));
        }
        tracing::info!(
            %address,
            data = %args.data.display(),
            tls = security.tls.is_some(),
            tokens = security.keyring.is_enforced(),
            "coordinator started"
        );
        let watching = security.keyring.watch(TOKENS_POLL);
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let dashboard = if args.no_dashboard {
            None
        } else {
            Some(start_dashboard(&args.dashboard, coordinator.clone(), &security, stopped).await?)
        };
        let signal = async move {
            shutdown_signal().await;
            let _ = stop.send(true);
        };
        let exports: Exports = Arc::new(std::sync::Mutex::new(
            (args.unit_files.iter())
                .map(|(campaign, dir)| {
                    (
                        campaign.clone(),
                        UnitFiles::new(dir.clone(), args.gzip_unit_files),
                    )
                })
                .collect(),
        ));
        let exporting = (!args.unit_files.is_empty())
            .then(|| tokio::spawn(export_loop(coordinator.clone(), exports.clone())));
        rrm_coordinator::run_with(listener, coordinator.clone(), security, health, signal).await?;
        watching.abort();
        if let Some(exporting) = exporting {
            exporting.abort();
            export_unit_files(coordinator, exports).await;
        }
        if let Some(dashboard) = dashboard {
            stop_dashboard(dashboard).await;
        }
        Ok(ExitCode::SUCCESS)
    });
    // A blocking thread stuck on a failing disk must not keep the process alive.
    runtime.shutdown_timeout(Duration::from_secs(1));
    served
}

/// `NAME=DIR` of `--unit-files`.
fn parse_unit_files(text: &str) -> Result<(String, PathBuf), String> {
    match text.split_once('=') {
        Some((name, dir)) if !name.is_empty() && !dir.is_empty() => {
            Ok((name.to_string(), PathBuf::from(dir)))
        }
        _ => Err(format!("{text:?} is not NAME=DIR")),
    }
}

/// How often `--unit-files` directories are refreshed.
const UNIT_FILES_EVERY: Duration = Duration::from_secs(30);

/// The `--unit-files` directories, each with what it was last written with.
type Exports = Arc<std::sync::Mutex<Vec<(String, UnitFiles)>>>;

async fn export_loop(coordinator: Arc<Coordinator>, exports: Exports) {
    let mut every = tokio::time::interval(UNIT_FILES_EVERY);
    loop {
        every.tick().await;
        export_unit_files(coordinator.clone(), exports.clone()).await;
    }
}

/// Refreshes the unit files (on a blocking thread: it writes files); failures are
/// logged, since the store still holds every result.
async fn export_unit_files(coordinator: Arc<Coordinator>, exports: Exports) {
    let exported = tokio::task::spawn_blocking(move || {
        let mut exports = exports
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        for (campaign, files) in exports.iter_mut() {
            match files.refresh(&coordinator, campaign) {
                Ok(written) if written.changed > 0 => tracing::info!(
                    campaign,
                    dir = %files.dir().display(),
                    units = written.units,
                    changed = written.changed,
                    "unit files written"
                ),
                Ok(_) => {}
                Err(error) => tracing::warn!(campaign, "cannot write unit files: {error:#}"),
            }
        }
    });
    if let Err(error) = exported.await {
        tracing::warn!("writing unit files failed: {error}");
    }
}

/// How often the tokens files are checked for changes.
const TOKENS_POLL: Duration = Duration::from_secs(2);

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
    security: &Security,
    mut stopped: tokio::sync::watch::Receiver<bool>,
) -> Result<tokio::task::JoinHandle<std::io::Result<()>>> {
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .with_context(|| format!("cannot serve the dashboard on {address}"))?;
    let scheme = if security.tls.is_some() {
        "https"
    } else {
        "http"
    };
    announce(&format!(
        "dashboard on {scheme}://{}",
        listener.local_addr()?
    ));
    let security = security.clone();
    Ok(tokio::spawn(async move {
        rrm_coordinator::dashboard::serve_with(listener, coordinator, &security, async move {
            let _ = stopped.wait_for(|&stop| stop).await;
        })
        .await
    }))
}

/// A coordinator served in a task of its own, within this process.
pub struct Served {
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<Result<(), tonic::transport::Error>>,
}

/// Serves `coordinator` on `listener` with `security` until [`Served::stop`].
pub fn serve_in_task(
    listener: tokio::net::TcpListener,
    coordinator: Arc<Coordinator>,
    security: Security,
) -> Served {
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(rrm_coordinator::run_with(
        listener,
        coordinator,
        security,
        None,
        async {
            let _ = stopped.await;
        },
    ));
    Served { stop, task }
}

impl Served {
    /// Stops serving (draining calls in progress) and says how serving ended.
    pub async fn stop(self) -> Result<()> {
        let _ = self.stop.send(());
        self.task.await.context("coordinator task")??;
        Ok(())
    }
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
    config.access = args.access.access()?;
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
