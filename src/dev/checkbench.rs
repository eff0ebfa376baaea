//! `rrm-dev check-bench`: what the coordinator's checks of a submission cost and what they
//! catch. Units are solved honestly once; then each is submitted to an in-process
//! coordinator (no network) honestly, and by forgers that raise 1 %, 10 % or 100 % of
//! its move counts by one, each forgery under an identity of its own (so a distrusted
//! forger does not stop the count). It prints the coordinator's CPU per unit (median)
//! with and without spot checks, and the share of forged units refused at once.
//! Verification by other workers, which catches the rest, is not counted here.

use crate::output::progress::bar;
use anyhow::{Context, Result};
use clap::Args;
use cpu_time::ThreadTime;
use rayon::prelude::*;
use ricochet::Generator;
use rrm_coordinator::{Config, Coordinator};
use rrm_model::CampaignSpec;
use rrm_model::{Outcome, Submission, Work};
use rrm_store::Store;
use std::io::Write;
use std::ops::Range;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

#[derive(Args)]
pub struct CheckBenchArgs {
    /// Units submitted per kind of submission.
    #[arg(long, default_value_t = 200)]
    units: u64,
    /// Seeds per unit.
    #[arg(long, default_value_t = 100)]
    unit_size: u64,
    /// Seeds of every unit the coordinator re-solves (see `Config::spot_checks`).
    #[arg(long, default_value_t = Config::default().spot_checks)]
    spot_checks: u32,
}

/// Shares of a unit's seeds a forger changes (0: honest).
const FORGED_SHARES: [f64; 4] = [0.0, 0.01, 0.10, 1.0];

pub fn run(args: CheckBenchArgs) -> Result<ExitCode> {
    let seeds = 1..1 + args.units * args.unit_size;
    let honest = solved_honestly(args.units, args.unit_size)?;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{} units of {} seeds, spot checks {} per unit (at most {:.0} % of its seeds)",
        args.units,
        args.unit_size,
        args.spot_checks,
        rrm_coordinator::SPOT_SHARE * 100.0
    )?;
    writeln!(out, "forged share  refused   median CPU per unit")?;
    for share in FORGED_SHARES {
        for spot_checks in [0, args.spot_checks] {
            let (refused, cpu) = submit_all(&seeds, args.unit_size, &honest, share, spot_checks)?;
            writeln!(
                out,
                "{:>11.0} %  {:>5.1} %   {:>8.3} ms{}",
                share * 100.0,
                100.0 * refused as f64 / args.units as f64,
                cpu * 1e3,
                if spot_checks == 0 {
                    "  (no spot checks)"
                } else {
                    ""
                }
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Submits every unit (forged at `share`) to a fresh coordinator; returns the units
/// refused and the median thread CPU of one submission, in seconds.
fn submit_all(
    seeds: &Range<u64>,
    unit_size: u64,
    honest: &[rrm_worker::UnitResult],
    share: f64,
    spot_checks: u32,
) -> Result<(u64, f64)> {
    let data = tempfile::tempdir()?;
    // Every submitter is a token of its own: as established ones, so that only the
    // spot checks solve seeds again (`tests/rrm/mining/patient_forgers.rs` measures the
    // scheduled checks).
    let config = Config {
        verify_share: 0.0,
        trust_after: 0,
        spot_checks,
        ..Config::default()
    };
    let coordinator = Coordinator::open(Store::open(data.path())?, config)?;
    let name = "bench";
    coordinator.create_campaign(CampaignSpec {
        name: name.parse()?,
        generator: "fogleman".into(),
        seed_start: seeds.start,
        seed_end: seeds.end,
        unit_size,
        record_threshold: 20,
        rules: rrm_model::Rules::STANDARD,
    })?;
    let mut refused = 0;
    let mut cpu = Vec::with_capacity(honest.len());
    for i in 0..honest.len() {
        let session = coordinator.register(None, &format!("submitter-{i}"), 1)?;
        let worker = coordinator.authenticate(&session, None)?;
        let assignment = coordinator.lease(&worker)?.context("a unit to lease")?;
        let solved = &honest[assignment.lease.unit as usize];
        let Work::Seeds { seeds, .. } = &assignment.work else {
            anyhow::bail!("a seed unit");
        };
        let mut counts = solved.move_counts.clone();
        let forged = (share * counts.len() as f64).round() as usize;
        // Spread over the unit, so that a sample of seeds meets them as often as it can.
        for k in 0..forged {
            let at = k * counts.len() / forged.max(1);
            counts[at] = counts[at]
                .saturating_add(1)
                .min(ricochet::solver::DEFAULT_MAX_MOVES);
        }
        let submission = seed_submission(&worker, assignment.lease, seeds, solved, counts);
        let started = ThreadTime::now();
        let outcome = coordinator.submit(submission);
        cpu.push(started.elapsed().as_secs_f64());
        match outcome {
            Ok(Outcome::Accepted) => {}
            Ok(other) => anyhow::bail!("unit {i}: unexpected outcome {other:?}"),
            Err(_) => refused += 1,
        }
    }
    cpu.sort_by(f64::total_cmp);
    Ok((refused, cpu[cpu.len() / 2]))
}

/// Fogleman seeds 1.. solved honestly as `units` units of `unit_size` seeds (record
/// threshold 20, the default kept hardest), in parallel with a progress bar.
pub(crate) fn solved_honestly(units: u64, unit_size: u64) -> Result<Vec<rrm_worker::UnitResult>> {
    let solving = bar(units, "units solved honestly");
    let honest = (0..units)
        .into_par_iter()
        .map(|unit| {
            let start = 1 + unit * unit_size;
            let solved = rrm_worker::solve_unit(
                ricochet::Dealer {
                    generator: Generator::Fogleman,
                    rules: rrm_model::Rules::STANDARD,
                },
                start..start + unit_size,
                20,
                rrm_coordinator::kept_per_unit(Config::default().top_count, unit_size) as usize,
                &AtomicBool::new(false),
                &|| {},
            );
            solving.inc(1);
            solved.context("a seed beyond the solver's limit")
        })
        .collect::<Result<_>>()?;
    solving.finish_and_clear();
    Ok(honest)
}

/// `worker`'s submission of `solved` for the seed unit `seeds` under `lease`, with
/// `counts` in place of its move counts and a digest that matches them.
pub fn seed_submission(
    worker: &rrm_coordinator::Worker,
    lease: rrm_model::LeaseRef,
    seeds: &Range<u64>,
    solved: &rrm_worker::UnitResult,
    counts: Vec<u8>,
) -> Submission {
    Submission {
        worker: worker.id,
        identity: worker.identity.clone(),
        digest: rrm_model::unit_digest(
            &lease.campaign,
            seeds.clone(),
            &counts,
            &solved.robots_moved,
        )
        .to_vec(),
        lease,
        move_counts: counts,
        robots_moved: solved.robots_moved.clone(),
        solutions: solved.solutions.clone(),
        exhaustive: None,
        cpu_ms: 0,
        own_process: false,
    }
}
