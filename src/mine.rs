//! `rrm mine`: the embedded default. Coordinator and one worker in this process, talking
//! gRPC over loopback, on a local store; resumable, with progress and a closing summary.

use crate::campaign::SpecArgs;
use crate::services::{
    at_least_one, default_threads, open_coordinator, runtime, shutdown_signal, start_dashboard,
};
use anyhow::{Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use rrm_coordinator::{CampaignStatus, Config, Coordinator, CoordinatorError};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

/// The range `rrm mine` mines when given none: about a minute on two cores.
const DEFAULT_SEEDS: &str = "1..100001";

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

pub fn run(args: MineArgs) -> Result<ExitCode> {
    // One worker cannot check itself, so no unit waits for a second opinion.
    let config = Config {
        verify_share: 0.0,
        ..Config::default()
    };
    let coordinator = open_coordinator(&args.data, config)?;
    // Leases left by an interrupted run belonged to its worker, gone with its process.
    coordinator.release_leases()?;
    let mut spec = args.spec.spec(String::new(), &args.seeds)?;
    spec.name = args
        .campaign
        .clone()
        .unwrap_or_else(|| format!("{}-{}-{}", spec.generator, spec.seed_start, spec.seed_end));
    let name = spec.name.clone();
    match existing(coordinator.status(&name))? {
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
    let interrupted = runtime()?.block_on(mine(
        coordinator.clone(),
        &name,
        threads,
        args.dashboard.as_deref(),
    ))?;
    crate::summary::print(&coordinator, &name)?;
    if interrupted {
        eprintln!(
            "interrupted; the results so far are stored in {}: run the same command again to continue",
            args.data.display()
        );
        return Ok(ExitCode::from(130));
    }
    Ok(ExitCode::SUCCESS)
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

/// Mines until the campaign is done or Ctrl-C; true if interrupted.
async fn mine(
    coordinator: Arc<Coordinator>,
    name: &str,
    threads: usize,
    dashboard: Option<&str>,
) -> Result<bool> {
    let (stop_dashboard, dashboard_stopped) = tokio::sync::watch::channel(false);
    let dashboard = match dashboard {
        Some(address) => {
            Some(start_dashboard(address, coordinator.clone(), dashboard_stopped).await?)
        }
        None => None,
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .context("cannot open a loopback port")?;
    let address = listener.local_addr()?;
    let (stop_coordinator, coordinator_stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(rrm_coordinator::run(listener, coordinator.clone(), async {
        let _ = coordinator_stopped.await;
    }));
    let (stop_worker, worker_stopped) = tokio::sync::oneshot::channel::<()>();
    let worker_config =
        rrm_worker::Config::new(format!("http://{address}"), threads, "embedded");
    let worker = tokio::spawn(rrm_worker::run(worker_config, async {
        let _ = worker_stopped.await;
    }));
    let status = coordinator.status(name)?;
    let total = status.campaign.spec.seed_end - status.campaign.spec.seed_start;
    let bar = ProgressBar::new(total).with_position(status.seeds_done);
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {wide_bar} {human_pos}/{human_len} seeds, {per_sec}, ETA {eta} {msg}",
        )
        .expect("valid template"),
    );
    bar.reset_eta();
    let signal = shutdown_signal();
    tokio::pin!(signal);
    let mut ticks = tokio::time::interval(Duration::from_millis(250));
    let mut worker = worker;
    let interrupted = loop {
        tokio::select! {
            () = &mut signal => break true,
            _ = ticks.tick() => {}
            // The worker only stops early on an error; report it rather than wait.
            stopped = &mut worker => {
                stopped.context("worker task")??;
                anyhow::bail!("the worker stopped before the campaign was done");
            }
        }
        let status = coordinator.status(name)?;
        bar.set_position(status.seeds_done);
        bar.set_message(format!("hardest so far: {} moves", status.hardest_moves));
        if status.units_done + status.units_quarantined == status.units_total {
            break false;
        }
    };
    bar.finish();
    let _ = stop_worker.send(());
    worker.await.context("worker task")??;
    let _ = stop_coordinator.send(());
    server.await.context("coordinator task")??;
    let _ = stop_dashboard.send(true);
    if let Some(dashboard) = dashboard {
        crate::services::stop_dashboard(dashboard).await;
    }
    Ok(interrupted)
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
}
