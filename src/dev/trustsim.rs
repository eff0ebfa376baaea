//! `rrm-dev trust-sim`: how many forged units survive the coordinator's trust model. Each
//! run is a fresh in-process coordinator (no network) mining one seed campaign with two
//! honest tokens and one or two forging tokens. A forger is patient: honest until the
//! coordinator had confirmed `--patience` of its units, then it raises one easy seed of
//! every unit it produces by one, with a digest to match, and agrees with its colluder
//! whenever it checks the other's unit (an honest unit it checks honestly). At the end,
//! a unit survives if its stored counts differ from the honest solve. It prints the
//! forged units, the survivors and the coordinator's CPU, with adaptive replication on
//! (`trust_after` as configured) and off (0: every token trusted from the start).

use crate::dev::checkbench::{seed_submission, solved_honestly};
use crate::output::progress::bar;
use anyhow::{Context, Result};
use clap::Args;
use rrm_coordinator::{Config, Coordinator, CoordinatorError, Worker};
use rrm_model::CampaignSpec;
use rrm_model::Work;
use rrm_store::Store;
use std::io::Write;
use std::process::ExitCode;

#[derive(Args)]
pub struct TrustSimArgs {
    /// Campaigns simulated per case.
    #[arg(long, default_value_t = 30)]
    runs: u32,
    /// Units per campaign.
    #[arg(long, default_value_t = 100)]
    units: u64,
    /// Seeds per unit.
    #[arg(long, default_value_t = 20)]
    unit_size: u64,
    /// Units a forger gets confirmed before it forges.
    #[arg(long, default_value_t = Config::default().trust_after)]
    patience: u32,
    /// Share of a trusted token's units checked by another token.
    #[arg(long, default_value_t = Config::default().verify_share)]
    verify_share: f64,
}

const CAMPAIGN: &str = "sim";

pub fn run(args: TrustSimArgs) -> Result<ExitCode> {
    let mining_cpu = cpu_time::ProcessTime::now();
    let honest = solved_honestly(args.units, args.unit_size)?;
    let mining_cpu = mining_cpu.elapsed().as_secs_f64();
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{} runs of {} units of {} seeds; 2 honest tokens; forgers forge after {} confirmed \
         units; verify share {} %",
        args.runs,
        args.units,
        args.unit_size,
        args.patience,
        args.verify_share * 100.0
    )?;
    writeln!(
        out,
        "mining the campaign once takes {mining_cpu:.2} s of CPU; the coordinator's checks:"
    )?;
    writeln!(
        out,
        "forgers  trust_after  forged  survived  share   runs caught  coordinator CPU/run"
    )?;
    let runs = bar(u64::from(args.runs) * 4, "campaigns simulated");
    for forgers in [1, 2] {
        for trust_after in [0, Config::default().trust_after] {
            let mut totals = Totals::default();
            for _ in 0..args.runs {
                let run = simulate(&args, &honest, forgers, trust_after)?;
                totals.forged += run.forged;
                totals.survived += run.survived;
                totals.caught_runs += u32::from(run.caught);
                totals.cpu += run.cpu;
                runs.inc(1);
            }
            runs.suspend(|| {
                writeln!(
                    out,
                    "{forgers:>7}  {trust_after:>11}  {:>6}  {:>8}  {:>4.1} %  {:>5}/{:<5}  {:>10.2} s",
                    totals.forged,
                    totals.survived,
                    100.0 * totals.survived as f64 / totals.forged.max(1) as f64,
                    totals.caught_runs,
                    args.runs,
                    totals.cpu / f64::from(args.runs),
                )
            })?;
        }
    }
    runs.finish_and_clear();
    Ok(ExitCode::SUCCESS)
}

#[derive(Default)]
struct Totals {
    forged: u64,
    survived: u64,
    caught_runs: u32,
    cpu: f64,
}

/// One simulated campaign's figures.
struct Run {
    forged: u64,
    survived: u64,
    /// A forger ended distrusted.
    caught: bool,
    cpu: f64,
}

/// A token in the simulation.
struct Player {
    worker: Worker,
    forger: bool,
    /// Its units taken so far.
    produced: u32,
    out: bool,
}

fn simulate(
    args: &TrustSimArgs,
    honest: &[rrm_worker::UnitResult],
    forgers: usize,
    trust_after: u32,
) -> Result<Run> {
    let data = tempfile::tempdir()?;
    let config = Config {
        trust_after,
        verify_share: args.verify_share,
        ..Config::default()
    };
    let coordinator = Coordinator::open(Store::open(data.path())?, config)?;
    coordinator.create_campaign(CampaignSpec {
        name: CAMPAIGN.parse()?,
        generator: "fogleman".into(),
        seed_start: 1,
        seed_end: 1 + args.units * args.unit_size,
        unit_size: args.unit_size,
        record_threshold: 20,
        rules: rrm_model::Rules::STANDARD,
    })?;
    let mut players = Vec::new();
    for (name, forger) in [("honest-1", false), ("honest-2", false)]
        .into_iter()
        .chain(
            [("mallory-1", true), ("mallory-2", true)]
                .into_iter()
                .take(forgers),
        )
    {
        let session = coordinator.register(Some(name.into()), name, 1)?;
        let worker = coordinator.authenticate(&session, Some(name))?;
        players.push(Player {
            worker,
            forger,
            produced: 0,
            out: false,
        });
    }
    let id = coordinator.status(CAMPAIGN)?.campaign.id;
    let cpu = cpu_time::ProcessTime::now();
    let mut forged_units = std::collections::HashSet::new();
    loop {
        let mut leased = false;
        for player in players.iter_mut().filter(|p| !p.out) {
            let assignment = match coordinator.lease(&player.worker) {
                Ok(Some(assignment)) => assignment,
                Ok(None) => continue,
                Err(CoordinatorError::Distrusted(_)) => {
                    player.out = true;
                    continue;
                }
                Err(error) => return Err(error.into()),
            };
            leased = true;
            let unit = assignment.lease.unit;
            let Work::Seeds { seeds, .. } = &assignment.work else {
                anyhow::bail!("a seed unit");
            };
            let solved = &honest[unit as usize];
            // A unit with a stored result is leased for its check.
            let checking = coordinator.store().unit_results(id, unit)?.is_some();
            let forge = player.forger
                && if checking {
                    forged_units.contains(&unit)
                } else {
                    player.produced >= args.patience
                };
            let counts = if forge {
                one_easy_seed_raised(solved)
            } else {
                solved.move_counts.clone()
            };
            let submission =
                seed_submission(&player.worker, assignment.lease, seeds, solved, counts);
            match coordinator.submit(submission) {
                Ok(_) if !checking => {
                    player.produced += 1;
                    if forge {
                        forged_units.insert(unit);
                    }
                }
                Ok(_) => {}
                Err(CoordinatorError::Distrusted(_)) => player.out = true,
                Err(_) if player.forger => {}
                Err(error) => return Err(error).context("an honest result refused"),
            }
        }
        if !leased {
            break;
        }
    }
    let cpu = cpu.elapsed().as_secs_f64();
    let mut survived = 0;
    for (unit, solved) in honest.iter().enumerate() {
        let stored = coordinator.store().unit_results(id, unit as u64)?;
        if stored.is_some_and(|(counts, _)| counts != solved.move_counts) {
            survived += 1;
        }
    }
    Ok(Run {
        forged: forged_units.len() as u64,
        survived,
        caught: !coordinator.distrusted().is_empty(),
        cpu,
    })
}

/// The honest counts with the first seed well below the unit's hardest raised by one:
/// no kept solution gives it away, only solving it again does.
fn one_easy_seed_raised(solved: &rrm_worker::UnitResult) -> Vec<u8> {
    let mut counts = solved.move_counts.clone();
    let mut sorted = counts.clone();
    sorted.sort_unstable();
    let bar = sorted[sorted.len().saturating_sub(6)];
    if let Some(easy) = counts.iter().position(|&c| c + 1 < bar) {
        counts[easy] += 1;
    }
    counts
}
