//! `rrm-dev load-test`: the coordinator alone under simulated workers over loopback.
//!
//! Starts a coordinator on a scratch store and N clients that each lease a unit and
//! submit its true move counts (with a valid digest) as fast as they can; prints round
//! trips per second, latency percentiles, where a round trip's time went inside the
//! coordinator, and the store's bytes per seed. The clients do not solve: every seed
//! the load can reach is solved before the clock starts, so the coordinator's checks
//! (spot re-solves included) pass as they would for honest workers and cost what they
//! cost. The clients run in the coordinator's process, or with `--clients separate` in
//! a child process of their own (so they do not share the coordinator's runtime), or
//! both one after the other. Then, with the store full and the metrics filled, it times
//! scrapes of the dashboard's `/metrics`, one at a time. With `--compare-secure` the
//! same load runs again over TLS with bearer tokens.

mod clients;
mod report;
mod scrapes;

pub use clients::{run_child as run_clients, ClientsArgs};

use crate::commands::services::runtime;
use anyhow::Result;
use clap::Args;
use clients::{ClientFigures, TrueResults};
use rrm_coordinator::auth::Keyring;
use rrm_coordinator::tls::ServerTls;
use rrm_coordinator::{Config, Coordinator, Security};
use rrm_model::CampaignSpec;
use rrm_proto::access::{token_hash, ClientAccess};
use rrm_store::Store;
use std::io::Write;
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
    /// Where the simulated workers run: in the coordinator's process (sharing its
    /// runtime and cores), in a child process, or both, one load after the other.
    #[arg(long, value_enum, default_value_t = ClientsIn::InProcess)]
    clients: ClientsIn,
    /// `/metrics` scrapes timed after the load, each on a new connection (0: none).
    #[arg(long, default_value_t = 500)]
    scrapes: usize,
    /// Run the load twice, in plaintext and then with TLS and bearer tokens (a
    /// throwaway CA and certificate for localhost), and compare.
    #[arg(long)]
    compare_secure: bool,
}

impl LoadTestArgs {
    /// Seeds solved ahead for the load (1..=this).
    fn prepared_seeds(&self) -> u64 {
        self.seconds * PREPARED_PER_SECOND * self.unit_size
    }
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ClientsIn {
    InProcess,
    Separate,
    Both,
}

impl ClientsIn {
    fn placements(self) -> &'static [Placement] {
        match self {
            ClientsIn::InProcess => &[Placement::InProcess],
            ClientsIn::Separate => &[Placement::Separate],
            ClientsIn::Both => &[Placement::InProcess, Placement::Separate],
        }
    }
}

/// Where one load's clients run.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Placement {
    InProcess,
    Separate,
}

/// Round trips per second the prepared seeds allow for; a load that runs out stops
/// early and says so.
const PREPARED_PER_SECOND: u64 = 12_000;

pub fn run(args: LoadTestArgs) -> Result<ExitCode> {
    let truth = Arc::new(TrueResults::prepared(args.prepared_seeds()));
    for &placement in args.clients.placements() {
        let plain = measured(&args, &truth, placement, None, args.scrapes)?;
        if args.compare_secure {
            let secure = measured(&args, &truth, placement, Some(Secure::throwaway()?), 0)?;
            writeln!(
                crate::output::stdout::lock(),
                "TLS and tokens: {:.0} round trips/s against {:.0} in plaintext ({:+.1} %); CPU per round trip {:.3} ms against {:.3} ms",
                secure.per_second(args.seconds),
                plain.per_second(args.seconds),
                (secure.per_second(args.seconds) / plain.per_second(args.seconds) - 1.0) * 100.0,
                secure.cpu_per_round_trip_ms(),
                plain.cpu_per_round_trip_ms(),
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// One load on a scratch store removed afterwards, its figures printed.
fn measured(
    args: &LoadTestArgs,
    truth: &Arc<TrueResults>,
    placement: Placement,
    secure: Option<Secure>,
    scrapes: usize,
) -> Result<Load> {
    let scratch = std::env::temp_dir().join(format!("rrm-load-test-{}", std::process::id()));
    let result = load_test(args, truth, placement, secure, scrapes, &scratch);
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
    placement: Placement,
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
        // The simulated workers send no solutions, so none are asked for: the load is
        // the round trip, not the solver (`rrm checkbench` measures the checks).
        top_count: 0,
        connections: rrm_coordinator::ConnectionLimits {
            per_peer: defaults.connections.per_peer.max(args.workers + 16),
            total: defaults.connections.total.max(args.workers + 16),
            ..defaults.connections
        },
        ..defaults
    };
    let coordinator = Arc::new(Coordinator::open(Store::open(scratch)?, config)?);
    coordinator.create_campaign(CampaignSpec {
        name: "load".parse()?,
        generator: "fogleman".into(),
        seed_start: 1,
        seed_end: 1 << 40,
        unit_size: args.unit_size,
        record_threshold: 255,
        rules: rrm_model::Rules::STANDARD,
    })?;
    let (security, access, mode) = match secure {
        Some(secure) => (secure.security, secure.access, "TLS and tokens"),
        None => (Security::default(), ClientAccess::default(), "plaintext"),
    };
    let stages_before = coordinator.stage_times();
    let cpu = cpu_time::ProcessTime::now();
    let (clients, cpu, scrapes) = runtime()?.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let port = listener.local_addr()?.port();
        let url = match security.tls {
            Some(_) => format!("https://localhost:{port}"),
            None => format!("http://127.0.0.1:{port}"),
        };
        let served =
            crate::commands::services::serve_in_task(listener, coordinator.clone(), security);
        let clients = match placement {
            Placement::InProcess => {
                let until = Instant::now() + Duration::from_secs(args.seconds);
                clients::in_process(&url, &access, args.workers, truth, until).await?
            }
            Placement::Separate => {
                clients::in_child(
                    &url,
                    &access,
                    args.workers,
                    args.seconds,
                    args.prepared_seeds(),
                    scratch,
                )
                .await?
            }
        };
        let cpu = cpu.elapsed().as_secs_f64();
        let scrapes = scrapes::time_scrapes(coordinator.clone(), scrapes).await?;
        served.stop().await?;
        anyhow::Ok((clients, cpu, scrapes))
    })?;
    let stages = coordinator.stage_times().since(&stages_before);
    let ClientFigures {
        round_trips_us,
        own_cpu_seconds: clients_cpu,
    } = clients;
    let mut latencies: Vec<Duration> = round_trips_us
        .into_iter()
        .map(Duration::from_micros)
        .collect();
    latencies.sort();
    let percentile = |p: f64| report::percentile_ms(&latencies, p);
    let mut out = crate::output::stdout::lock();
    let placed = match placement {
        Placement::InProcess => "clients in the coordinator's process",
        Placement::Separate => "clients in a process of their own",
    };
    writeln!(
        out,
        "{mode}, {placed}: {} simulated workers, {} s, units of {} seeds: {} lease + submit round trips, {:.0}/s",
        args.workers,
        args.seconds,
        args.unit_size,
        latencies.len(),
        latencies.len() as f64 / args.seconds as f64
    )?;
    let cpu_note = match clients_cpu {
        None => format!("process CPU {cpu:.1} s (clients included)"),
        // The figure that compares across machines: the coordinator's CPU per round trip.
        Some(clients) => format!(
            "coordinator's process CPU {cpu:.1} s ({:.0} µs per round trip), clients' {clients:.1} s",
            cpu * 1e6 / latencies.len().max(1) as f64
        ),
    };
    writeln!(
        out,
        "round trip ms: p50 {:.2}, p90 {:.2}, p99 {:.2}, max {:.2}; {cpu_note}",
        percentile(0.5),
        percentile(0.9),
        percentile(0.99),
        percentile(1.0),
    )?;
    let mean = latencies.iter().sum::<Duration>() / latencies.len().max(1) as u32;
    report::where_time_went(&mut out, &stages, latencies.len(), mean)?;
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
    if let Some(scrapes::Scrapes {
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
            report::percentile_ms(&durations, 0.5),
            report::percentile_ms(&durations, 0.9),
            report::percentile_ms(&durations, 1.0),
            cpu * 1000.0 / durations.len() as f64
        )?;
    }
    Ok(Load {
        round_trips: latencies.len(),
        cpu: cpu + clients_cpu.unwrap_or(0.0),
    })
}
