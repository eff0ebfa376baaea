//! `rrm mine`: the embedded default. Coordinator and one worker in this process, talking
//! gRPC over loopback, on a local store; resumable, with progress and a closing summary.

use crate::commands::campaign::SpecArgs;
use crate::commands::services::{
    at_least_one, default_threads, open_coordinator, runtime, shutdown_signal, start_dashboard,
};
use anyhow::{Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressFinish, ProgressState, ProgressStyle};
use rrm_coordinator::auth::Keyring;
use rrm_coordinator::{Config, Coordinator, CoordinatorError, Security};
use rrm_model::CampaignStatus;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The range `rrm mine` mines when given none: about 20 seconds on two cores.
const DEFAULT_SEEDS: &str = "1..100001";

/// The embedded worker's name and identity.
const EMBEDDED: &str = "embedded";

#[derive(Args)]
pub struct MineArgs {
    /// Seed range `A..B` (B excluded) or `A..=B`.
    #[arg(long, default_value = DEFAULT_SEEDS)]
    seeds: String,
    /// Store directory; rerunning the same command continues where it stopped.
    #[arg(long, default_value = "rrm-data")]
    data: PathBuf,
    /// Solver threads (default: all cores).
    #[arg(long, value_parser = at_least_one)]
    threads: Option<usize>,
    /// Campaign name (default: `GENERATOR-A-B` from the range).
    #[arg(long)]
    campaign: Option<String>,
    /// Also serve the web dashboard on this address, e.g. 127.0.0.1:7880.
    #[arg(long)]
    dashboard: Option<String>,
    #[command(flatten)]
    spec: SpecArgs,
}

/// Seeds per unit of a campaign that `rrm mine` creates: the first Ctrl-C waits for the
/// units in flight (two), about 4 s of solving on two cores at 10,000 seeds each. Smaller
/// units cost about 1 % more CPU than 50,000-seed ones (BENCHMARKS.md, Mining).
pub const MINE_UNIT_SIZE: u64 = 10_000;

pub fn run(args: MineArgs) -> Result<ExitCode> {
    // One worker cannot check itself, so no unit waits for a second opinion; it runs in
    // this process, so its results need no earning of trust either (and its seeds are
    // not solved twice: see `Keyring::own_worker`).
    let config = Config {
        verify_share: 0.0,
        trust_after: 0,
        ..Config::default()
    };
    // Every argument is checked before the store is opened: a refused command leaves no
    // store behind.
    let name = args.campaign.as_deref().map(str::parse).transpose()?;
    let mut spec = args.spec.spec(name, &args.seeds)?;
    spec.validate()?;
    spec.generator.parse::<ricochet::Generator>()?;
    let coordinator = open_coordinator(&args.data, config)?;
    // Leases left by an interrupted run belonged to its worker, gone with its process.
    coordinator.release_leases()?;
    let name = spec.name.clone();
    let existing = existing(coordinator.status(&name))?;
    if !args.spec.unit_size_given() {
        // A campaign begun under another default unit size goes on with its own.
        spec.unit_size = existing
            .as_ref()
            .map_or(MINE_UNIT_SIZE, |status| status.campaign.spec.unit_size);
    }
    match existing {
        Some(status) if status.campaign.spec != spec => anyhow::bail!(
            "campaign {name} exists in {} with other settings ({}..{}, units of {}, records from {}); \
             use the same flags or another --campaign",
            args.data.display(),
            status.campaign.spec.seed_start,
            status.campaign.spec.seed_end,
            status.campaign.spec.unit_size,
            status.campaign.spec.record_threshold
        ),
        Some(_) => {}
        None => {
            coordinator.create_campaign(spec.clone())?;
        }
    }
    let threads = args.threads.unwrap_or_else(default_threads);
    let ended = runtime()?.block_on(mine(
        coordinator.clone(),
        &name,
        threads,
        args.dashboard.as_deref(),
    ))?;
    crate::output::summary::print(&coordinator, &name)?;
    let again = "run the same command again to continue";
    match ended {
        Ended::Done => return Ok(ExitCode::SUCCESS),
        Ended::Drained => eprintln!(
            "interrupted; every seed solved is stored in {}: {again}",
            args.data.display()
        ),
        Ended::Stopped { lost } => eprintln!(
            "stopped; {} solved in units not finished {} not stored and will be mined \
             again; the rest is stored in {}: {again}",
            thousands_count(lost, "seed"),
            if lost == 1 { "was" } else { "were" },
            args.data.display()
        ),
    }
    Ok(ExitCode::from(130))
}

/// How mining ended.
enum Ended {
    /// The campaign is done.
    Done,
    /// Ctrl-C, and the units in flight were finished and stored.
    Drained,
    /// A second Ctrl-C (or SIGTERM while draining) stopped the units in flight: `lost`
    /// seeds solved in them are not stored.
    Stopped { lost: u64 },
}

/// `n` with thousands separators and the noun, plural unless `n` is 1.
fn thousands_count(n: u64, noun: &str) -> String {
    let text = rrm_model::numbers::thousands(n);
    if n == 1 {
        format!("{text} {noun}")
    } else {
        format!("{text} {noun}s")
    }
}

/// The campaign's status if it exists; `None` only when it is unknown, so that a failing
/// store is reported rather than taken for a missing campaign.
fn existing(
    status: Result<CampaignStatus, CoordinatorError>,
) -> Result<Option<CampaignStatus>, CoordinatorError> {
    match status {
        Ok(status) => Ok(Some(status)),
        Err(CoordinatorError::UnknownCampaign(_)) => Ok(None),
        Err(error) => Err(error),
    }
}

/// Mines until the campaign is done or Ctrl-C. The first Ctrl-C (or SIGTERM) lets the
/// units in flight finish and be stored; a second stops them at once.
async fn mine(
    coordinator: Arc<Coordinator>,
    name: &str,
    threads: usize,
    dashboard: Option<&str>,
) -> Result<Ended> {
    let (stop_dashboard, dashboard_stopped) = tokio::sync::watch::channel(false);
    let dashboard = match dashboard {
        Some(address) => Some(
            start_dashboard(
                address,
                coordinator.clone(),
                &Default::default(),
                dashboard_stopped,
            )
            .await?,
        ),
        None => None,
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .context("cannot open a loopback port")?;
    let address = listener.local_addr()?;
    // Only this process holds the worker token: no other process on the machine can
    // lease or submit here, and what is submitted was solved by this process.
    let (keyring, token) =
        Keyring::own_worker(EMBEDDED).context("cannot make the embedded worker's token")?;
    let security = Security { keyring, tls: None };
    let served = crate::commands::services::serve_in_task(listener, coordinator.clone(), security);
    let (stop_worker, worker_stopped) = tokio::sync::oneshot::channel::<()>();
    let solved = Arc::new(AtomicU64::new(0));
    let mut worker_config = rrm_worker::Config::new(format!("http://{address}"), threads, EMBEDDED);
    worker_config.access.token = Some(token);
    worker_config.seeds_solved = solved.clone();
    let draining = worker_config.draining.clone();
    let worker = tokio::spawn(rrm_worker::run(worker_config, async {
        let _ = worker_stopped.await;
    }));
    let status = coordinator.status(name)?;
    let total = status.campaign.spec.seed_end - status.campaign.spec.seed_start;
    let start = status.seeds_done;
    let bar = progress_bar(total, start);
    let mut signal = Box::pin(shutdown_signal());
    let mut ticks = tokio::time::interval(Duration::from_millis(250));
    let mut worker = Some(worker);
    let ended = loop {
        tokio::select! {
            () = &mut signal => {
                if draining.swap(true, Ordering::SeqCst) {
                    break Ended::Stopped { lost: 0 };
                }
                // The next signal stops at once.
                signal = Box::pin(shutdown_signal());
                let note = draining_note(&coordinator.status(name)?, start, &solved, bar.per_sec());
                // Said on stderr even when it is no terminal (the bar is then hidden).
                bar.suspend(|| eprintln!("{note}"));
            }
            _ = ticks.tick() => {}
            // The worker stops early only on an error or once drained.
            stopped = worker.as_mut().expect("the worker runs until the loop ends") => {
                worker = None;
                stopped.context("worker task")??;
                if !draining.load(Ordering::SeqCst) {
                    anyhow::bail!("the worker stopped before the campaign was done");
                }
                break Ended::Drained;
            }
        }
        let status = coordinator.status(name)?;
        // Stored results plus the seeds solved since, counted by the worker as it goes.
        let position = (start + solved.load(Ordering::Relaxed)).max(status.seeds_done);
        bar.set_position(position.min(total));
        if status.units_done > 0 {
            bar.set_message(format!("hardest so far: {} moves", status.hardest_moves));
        }
        if status.units_done + status.units_quarantined == status.units_total {
            break Ended::Done;
        }
    };
    // The last frame shows what is stored: all of it only when the campaign is complete.
    let stored = coordinator.status(name)?.seeds_done;
    bar.set_position(stored);
    if stored == total {
        bar.finish();
    } else {
        // Seeds of unfinished units are lost: no speed or time left to show for them.
        bar.set_style(
            ProgressStyle::with_template(
                "  {elapsed_precise} {bar:16} {human_pos}/{human_len} seeds stored",
            )
            .expect("valid template"),
        );
        bar.abandon();
    }
    let _ = stop_worker.send(());
    if let Some(worker) = worker {
        worker.await.context("worker task")??;
    }
    // Seeds solved this run but not stored: those of the units stopped in flight.
    let ended = match ended {
        Ended::Stopped { .. } => Ended::Stopped {
            lost: (start + solved.load(Ordering::SeqCst)).saturating_sub(stored),
        },
        Ended::Drained if stored == total => Ended::Done,
        ended => ended,
    };
    served.stop().await?;
    let _ = stop_dashboard.send(true);
    if let Some(dashboard) = dashboard {
        crate::commands::services::stop_dashboard(dashboard).await;
    }
    Ok(ended)
}

/// The bar of `total` seeds, `done` of them stored before this run, under a line for the
/// hardest so far; it fits 80 columns. It shows the speed of this run and the time left
/// only once there is a speed to go by, and its last frame keeps the elapsed time and
/// speed; a bar dropped early (an error) stays where it was rather than jump to the end.
fn progress_bar(total: u64, done: u64) -> ProgressBar {
    let style = ProgressStyle::with_template(&format!(
        "{{msg}}\n{} seeds {{speed}}",
        crate::output::progress::LINE
    ))
    .expect("valid template")
    .with_key(
        "speed",
        move |state: &ProgressState, w: &mut dyn std::fmt::Write| {
            let solved = state.pos().saturating_sub(done);
            let left = state.len().unwrap_or(0).saturating_sub(state.pos());
            let _ = w.write_str(&speed(solved, state.elapsed(), left));
        },
    );
    ProgressBar::new(total)
        .with_position(done)
        .with_style(style)
        .with_finish(ProgressFinish::Abandon)
}

/// "2.3k/s ETA 6m05s" for `solved` seeds in `elapsed` with `left` to go; the first
/// second or a run with nothing solved yet has no speed to tell.
fn speed(solved: u64, elapsed: Duration, left: u64) -> String {
    let seconds = elapsed.as_secs_f64();
    if seconds < 1.0 || solved == 0 {
        return "measuring speed".into();
    }
    let rate = solved as f64 / seconds;
    let eta = (left as f64 / rate).round() as u64;
    format!(
        "{}/s ETA {}",
        rrm_model::numbers::si(rate),
        crate::output::progress::short_duration(eta)
    )
}

/// What the first Ctrl-C waits for: the seeds left in the units in flight and, at the
/// rate so far, how long they take.
fn draining_note(status: &CampaignStatus, start: u64, solved: &AtomicU64, rate: f64) -> String {
    let spec = &status.campaign.spec;
    let leased = (status.units_leased * spec.unit_size)
        .min(spec.seed_end - spec.seed_start - status.seeds_done);
    let solved_in_flight =
        (start + solved.load(Ordering::Relaxed)).saturating_sub(status.seeds_done);
    let left = leased.saturating_sub(solved_in_flight);
    let time = match rate > 0.0 {
        true => format!(", about {:.0} s", (left as f64 / rate).ceil()),
        false => String::new(),
    };
    format!(
        "finishing the {} in flight ({} seeds left{time}); Ctrl-C again to stop now",
        crate::output::report::count(status.units_leased, "unit"),
        rrm_model::numbers::thousands(left)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use rrm_store::StoreError;

    #[test]
    fn only_an_unknown_campaign_counts_as_missing() {
        assert!(matches!(
            existing(Err(CoordinatorError::UnknownCampaign("c".into()))),
            Ok(None)
        ));
        let fault = CoordinatorError::Store(StoreError::Corrupt {
            what: "test",
            detail: "unreadable".into(),
        });
        assert!(matches!(
            existing(Err(fault)),
            Err(CoordinatorError::Store(_))
        ));
    }

    #[test]
    fn speed_takes_a_unit_prefix_and_waits_for_a_measure() {
        assert_eq!(speed(0, Duration::from_secs(5), 100), "measuring speed");
        assert_eq!(
            speed(500, Duration::from_millis(500), 100),
            "measuring speed"
        );
        assert_eq!(
            speed(2500, Duration::from_secs(2), 12_500),
            "1.2k/s ETA 10s"
        );
        assert_eq!(
            speed(900, Duration::from_secs(1), 90_000),
            "900/s ETA 1m40s"
        );
    }
}
