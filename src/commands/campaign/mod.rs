//! `rrm campaign create|list|import|retry|trust`: define what to mine (seed ranges or
//! exhaustive units), see how far it got (mismatches and how they were settled,
//! distrusted workers), load exhaustive unit results computed elsewhere, release
//! quarantined units and clear distrusted workers.

mod render;
mod spec;

pub use spec::SpecArgs;

use crate::client::backend::{Backend, BackendArgs};
use crate::output::report::count;
use anyhow::Result;
use clap::{Args, Subcommand};
use render::{rules_note, status_json, status_line, units_text};
use rrm_model::{CampaignName, CampaignSpec, Rules};
use rrm_model::{CampaignStatus, ExhaustiveRequest};
use spec::ExhaustiveArgs;
use std::io::Write;
use std::process::ExitCode;

/// Seeds per work unit unless told otherwise: under half a minute of solving on two cores,
/// and large enough that most of a unit's Fogleman seeds share their board and target
/// with others (about 8 a pair), whose set-up the worker then computes once.
pub const DEFAULT_UNIT_SIZE: u64 = 50_000;
/// Move counts from which full solutions are kept and re-solved: six of the first million seeds.
pub const DEFAULT_RECORD_THRESHOLD: u8 = 20;

#[derive(Args)]
pub struct CampaignArgs {
    #[command(subcommand)]
    command: CampaignCommand,
}

#[derive(Subcommand)]
enum CampaignCommand {
    /// Create a campaign: a generator over a seed range, mined in units.
    Create(CreateArgs),
    /// List campaigns with their progress.
    List(ListArgs),
    /// Load exhaustive unit results (`rrm exhaust --json` output) into an exhaustive
    /// campaign of a local store, through the checks a worker's result goes through.
    Import(crate::commands::import::ImportArgs),
    /// Release quarantined units so that they are leased again, their failures forgotten.
    Retry(RetryArgs),
    /// Clear a distrusted worker identity (a token's name, as `campaign list` shows it):
    /// it may lease again. Its results checked meanwhile stay checked.
    Trust(TrustArgs),
}

#[derive(Args)]
struct RetryArgs {
    /// The campaign.
    name: String,
    /// Only this unit.
    #[arg(
        long,
        conflicts_with = "quarantined",
        required_unless_present = "quarantined"
    )]
    unit: Option<u64>,
    /// Every quarantined unit of the campaign.
    #[arg(long)]
    quarantined: bool,
    #[command(flatten)]
    backend: BackendArgs,
}

#[derive(Args)]
struct TrustArgs {
    /// The identity to clear.
    identity: String,
    #[command(flatten)]
    backend: BackendArgs,
}

#[derive(Args)]
struct CreateArgs {
    /// Campaign name: letters, digits, '-', '_' or '.'.
    name: String,
    /// Seed range `A..B` (B excluded) or `A..=B`.
    #[arg(
        long,
        required_unless_present = "exhaustive",
        conflicts_with = "exhaustive"
    )]
    seeds: Option<String>,
    #[command(flatten)]
    spec: SpecArgs,
    /// An exhaustive campaign instead: every placement of four robots for each (board,
    /// target) unit of this family: `fogleman` (the first edition's 96 boards under
    /// Fogleman's tile names) or `driftingdroids` (the boards DriftingDroids deals, of the
    /// sides --sides names).
    #[arg(long, value_parser = ["fogleman", "driftingdroids"])]
    exhaustive: Option<String>,
    #[command(flatten)]
    units: ExhaustiveArgs,
    /// Leave a campaign of this name as it is, with exit status 0, when it exists with
    /// the same seeds and settings (or, exhaustive, as many units): for set-up that runs
    /// more than once, such as a Kubernetes Job.
    #[arg(long)]
    if_missing: bool,
    #[command(flatten)]
    backend: BackendArgs,
}

#[derive(Args)]
struct ListArgs {
    /// One JSON object per campaign.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    backend: BackendArgs,
}

pub fn run(args: CampaignArgs) -> Result<ExitCode> {
    let mut out = crate::output::stdout::lock();
    match args.command {
        CampaignCommand::Create(args) => {
            let name: CampaignName = args.name.parse()?;
            let spec = match &args.seeds {
                Some(seeds) if args.exhaustive.is_none() => {
                    Ok(args.spec.spec(Some(name), seeds)?)
                }
                _ if args.spec.rules != Rules::STANDARD => {
                    return Err(rrm_model::SpecError::ExhaustiveRules(args.spec.rules).into());
                }
                _ => Err(args
                    .units
                    .request(name, args.exhaustive.as_deref().unwrap_or("fogleman"))),
            };
            if args.if_missing {
                if let Some(existing) = existing_like(&args.backend, &spec)? {
                    writeln!(
                        out,
                        "campaign {} exists ({}): left as it is",
                        existing.campaign.spec.name,
                        count(existing.units_total, "unit")
                    )?;
                    return Ok(ExitCode::SUCCESS);
                }
            }
            let status = Backend::create_campaign_at(&args.backend, spec)?;
            let spec = &status.campaign.spec;
            if spec.is_exhaustive() {
                writeln!(
                    out,
                    "created exhaustive campaign {}: {}",
                    spec.name,
                    count(status.units_total, "unit")
                )?;
                return Ok(ExitCode::SUCCESS);
            }
            writeln!(
                out,
                "created campaign {}: {}{} seeds {}..{} in {}, records from {} moves",
                spec.name,
                spec.generator,
                rules_note(spec.rules),
                spec.seed_start,
                spec.seed_end,
                units_text(spec),
                spec.record_threshold
            )?;
        }
        CampaignCommand::Import(args) => return crate::commands::import::run(args),
        CampaignCommand::Retry(args) => {
            let released = Backend::open(&args.backend)?.retry(&args.name, args.unit)?;
            let units: Vec<String> = released.iter().map(u64::to_string).collect();
            writeln!(
                out,
                "released {} of {}{}{}",
                count(released.len() as u64, "quarantined unit"),
                args.name,
                if units.is_empty() { "" } else { ": " },
                units.join(", ")
            )?;
        }
        CampaignCommand::Trust(args) => {
            if Backend::open(&args.backend)?.trust(&args.identity)? {
                writeln!(out, "{} may lease again", args.identity)?;
            } else {
                writeln!(out, "{} was not distrusted", args.identity)?;
            }
        }
        CampaignCommand::List(args) => {
            let statuses = Backend::open(&args.backend)?.campaigns()?;
            for status in &statuses {
                if args.json {
                    writeln!(out, "{}", serde_json::to_string(&status_json(status))?)?;
                } else {
                    writeln!(out, "{}", status_line(status))?;
                }
            }
            if statuses.is_empty() && !args.json {
                writeln!(
                    out,
                    "no campaigns yet; create one with `rrm campaign create NAME --seeds A..B`"
                )?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The campaign `spec` would create, if one of its name exists with the same settings;
/// an error if it exists with others. A store that does not exist yet holds none.
fn existing_like(
    backend: &BackendArgs,
    spec: &Result<CampaignSpec, ExhaustiveRequest>,
) -> Result<Option<CampaignStatus>> {
    let name = match spec {
        Ok(spec) => &spec.name,
        Err(request) => &request.name,
    };
    let Ok(mut opened) = Backend::open(backend) else {
        return Ok(None);
    };
    let Some(status) = (opened.campaigns()?.into_iter()).find(|s| s.campaign.spec.name == *name)
    else {
        return Ok(None);
    };
    let same = match spec {
        Ok(spec) => status.campaign.spec == *spec,
        Err(request) => {
            request.targets.is_empty()
                || request.boards.is_empty()
                || status.units_total == (request.boards.len() * request.targets.len()) as u64
        }
    };
    if !same {
        anyhow::bail!(
            "campaign {name} exists with other settings ({}); use another name",
            count(status.units_total, "unit")
        );
    }
    Ok(Some(status))
}
