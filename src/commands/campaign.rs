//! `rrm campaign create|list|import|retry|trust`: define what to mine (seed ranges or
//! exhaustive units), see how far it got (mismatches and how they were settled,
//! distrusted workers), load exhaustive unit results computed elsewhere, release
//! quarantined units and clear distrusted workers.

use crate::client::backend::{Backend, BackendArgs};
use crate::input::parse_campaign_range;
use crate::output::report::count;
use anyhow::Result;
use clap::{Args, Subcommand};
use ricochet::edition::EditionBoard;
use rrm_model::{CampaignName, CampaignSpec, Resolution, Rules};
use rrm_model::{CampaignStatus, ExhaustiveRequest};
use serde::Serialize;
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

/// Unit size, record threshold and generator of a new campaign.
#[derive(Args)]
pub struct SpecArgs {
    /// Seeds per work unit [default: 50000; `rrm mine`: 10000, or an existing
    /// campaign's own].
    #[arg(long)]
    unit_size: Option<u64>,
    /// Seeds needing at least this many moves keep their solution and are re-solved.
    #[arg(long, default_value_t = DEFAULT_RECORD_THRESHOLD)]
    record_threshold: u8,
    /// The seed → puzzle generator.
    #[arg(long, default_value = "fogleman")]
    generator: String,
    /// The rule set every seed is solved under (see `rrm solve --rules`); a campaign's
    /// results are never merged with those of other rules.
    #[arg(long, value_parser = crate::commands::solve::parse_rules, default_value = "standard")]
    rules: Rules,
}

impl SpecArgs {
    /// Whether `--unit-size` was given.
    pub fn unit_size_given(&self) -> bool {
        self.unit_size.is_some()
    }

    /// The spec of `seeds`, named `name` or, without one, after its generator and range
    /// (`fogleman-1-1001`).
    pub fn spec(&self, name: Option<CampaignName>, seeds: &str) -> Result<CampaignSpec> {
        let range = parse_campaign_range(seeds)?;
        let name = match name {
            Some(name) => name,
            None => {
                let mut name = format!("{}-{}-{}", self.generator, range.start, range.end);
                for rule in self.rules.differences() {
                    name += &format!("-{}", rule.replace('=', ""));
                }
                name.parse()?
            }
        };
        Ok(CampaignSpec {
            name,
            generator: self.generator.clone(),
            seed_start: range.start,
            seed_end: range.end,
            unit_size: self.unit_size.unwrap_or(DEFAULT_UNIT_SIZE),
            record_threshold: self.record_threshold,
            rules: self.rules,
        })
    }
}

/// What an exhaustive campaign analyses and keeps.
#[derive(Args)]
struct ExhaustiveArgs {
    /// Boards, comma-separated, e.g. "1A 3B 4A 2B,1B 2A 3A 4B" or "DD 1C 2D 3C 4D"; any
    /// rotation, stored as the canonical one (tile 1 top-left). Default: every board of
    /// the family (96 for `fogleman`; for `driftingdroids`, those of --sides).
    #[arg(long, requires = "exhaustive")]
    boards: Option<String>,
    /// DriftingDroids' side letters its boards are made of: `CD` is the second edition
    /// (96 boards), `ABCD` every board it deals (1,536).
    #[arg(long, default_value = "ABCD", value_parser = parse_sides)]
    sides: String,
    /// Target tokens, comma-separated, e.g. RT,GQ. Default: all 16.
    #[arg(long, requires = "exhaustive")]
    targets: Option<String>,
    /// Placements each unit samples; the coordinator re-solves them.
    #[arg(long, default_value_t = rrm_model::DEFAULT_SAMPLE_SIZE)]
    sample_size: u32,
    /// Depths from which placements are kept for packs.
    #[arg(long, default_value_t = rrm_model::DEFAULT_TOP_FROM)]
    top_from: u8,
    /// Placements kept per depth.
    #[arg(long, default_value_t = rrm_model::DEFAULT_TOP_PER_DEPTH)]
    top_per_depth: u32,
    /// Placements at a unit's maximum kept (and re-solved) at most.
    #[arg(long, default_value_t = rrm_model::DEFAULT_MAX_HARDEST)]
    max_hardest: u32,
}

/// Side letters: some of A, B, C and D.
fn parse_sides(text: &str) -> Result<String, String> {
    let letters = text.to_ascii_uppercase();
    if letters.is_empty() || !letters.chars().all(|c| "ABCD".contains(c)) {
        return Err(format!(
            "{text:?}: sides are letters A, B, C and D, e.g. CD"
        ));
    }
    Ok(letters)
}

impl ExhaustiveArgs {
    fn request(&self, name: CampaignName, family: &str) -> ExhaustiveRequest {
        let list = |text: &Option<String>| -> Vec<String> {
            text.iter()
                .flat_map(|t| t.split(','))
                .map(|item| item.trim().to_string())
                .filter(|item| !item.is_empty())
                .collect()
        };
        let mut boards = list(&self.boards);
        if boards.is_empty() && family == "driftingdroids" {
            boards = (EditionBoard::driftingdroids_canonical(&self.sides).iter())
                .map(EditionBoard::name)
                .collect();
        }
        ExhaustiveRequest {
            name,
            boards,
            targets: list(&self.targets),
            sample_size: self.sample_size,
            top_from: self.top_from,
            top_per_depth: self.top_per_depth,
            max_hardest: self.max_hardest,
        }
    }
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

/// "1 unit of 5000 seeds", "3 units of 10000 seeds (the last of 5000)": the units as
/// they really are, not the unit size asked for.
fn units_text(spec: &CampaignSpec) -> String {
    let seeds = spec.seed_end - spec.seed_start;
    let units = spec.units_total();
    let size = spec.unit_size.min(seeds);
    let last = seeds - (units - 1) * spec.unit_size;
    let mut text = format!("{} of {}", count(units, "unit"), count(size, "seed"));
    if last != size {
        text += &format!(" (the last of {last})");
    }
    text
}

/// "  5.1 M placements/s, ETA 2 hours" of an exhaustive campaign mining now (its rate is
/// in units per second over the last minute), else nothing.
fn placement_rate(status: &CampaignStatus) -> String {
    let (Some(per_unit), rate) = (status.placements_per_unit, status.seeds_per_second) else {
        return String::new();
    };
    if rate <= 0.0 {
        return String::new();
    }
    let left = status.units_total.saturating_sub(status.units_done) as f64 / rate;
    format!(
        "  {:.1} M placements/s, ETA {}",
        rate * per_unit as f64 / 1e6,
        indicatif::HumanDuration(std::time::Duration::from_secs_f64(left))
    )
}

/// ` (rules R)` after a generator's name, nothing for the standard rules.
fn rules_note(rules: Rules) -> String {
    if rules == Rules::STANDARD {
        String::new()
    } else {
        format!(" (rules {rules})")
    }
}

fn status_line(status: &CampaignStatus) -> String {
    let spec = &status.campaign.spec;
    let mut line = if spec.is_exhaustive() {
        format!(
            "{:<20} {}  units {}/{} done, {} leased, {} quarantined, {} verified, {} to check  hardest {}{}",
            spec.name,
            spec.generator,
            status.units_done,
            status.units_total,
            status.units_leased,
            status.units_quarantined,
            status.units_verified,
            status.units_to_check,
            status.hardest_moves,
            placement_rate(status)
        )
    } else {
        format!(
        "{:<20} {}{} {}..{}  units {}/{} done, {} leased, {} quarantined, {} verified, {} to check  seeds {} (+{} in progress)  hardest {}",
        spec.name,
        spec.generator,
        rules_note(spec.rules),
        spec.seed_start,
        spec.seed_end,
        status.units_done,
        status.units_total,
        status.units_leased,
        status.units_quarantined,
        status.units_verified,
        status.units_to_check,
        status.seeds_done,
        status.seeds_in_progress,
        status.hardest_moves
    )
    };
    for q in &status.quarantined {
        line += &format!(
            "\n  quarantined unit {} after {} failures: {}",
            q.unit, q.failures, q.last_error
        );
    }
    let pending = status
        .mismatches
        .iter()
        .filter(|m| m.resolution.is_pending())
        .count();
    if !status.mismatches.is_empty() {
        line += &format!(
            "\n  mismatches: {} resolved, {pending} pending",
            status.mismatches.len() - pending
        );
    }
    for m in &status.mismatches {
        line += &format!(
            "\n  MISMATCH unit {} lease {} ({} against {}): {}: {}",
            m.unit,
            m.lease,
            m.verifier,
            m.producer,
            resolution_text(m.resolution),
            m.detail
        );
    }
    for d in &status.distrusted {
        line += &format!("\n  DISTRUSTED {}: {}", d.identity, d.reason);
    }
    line
}

fn resolution_text(resolution: Resolution) -> &'static str {
    match resolution {
        Resolution::Pending => "pending (another worker decides)",
        Resolution::StoredWon => "stored result confirmed",
        Resolution::VerifierWon => "replaced by the verified result",
        Resolution::Redone => "stored result removed, unit mined again",
    }
}

/// `rrm campaign list --json`: one campaign's definition and progress.
#[derive(Serialize)]
struct StatusJson<'a> {
    name: &'a str,
    generator: &'a str,
    rules: String,
    seed_start: u64,
    seed_end: u64,
    unit_size: u64,
    record_threshold: u8,
    units_total: u64,
    units_done: u64,
    seeds_in_progress: u64,
    units_leased: u64,
    units_quarantined: u64,
    units_verified: u64,
    units_to_check: u64,
    seeds_done: u64,
    seeds_per_second: f64,
    placements_per_unit: Option<u64>,
    hardest_moves: u8,
    quarantined: Vec<QuarantinedJson<'a>>,
    mismatches_resolved: usize,
    mismatches_pending: usize,
    mismatches: Vec<MismatchJson<'a>>,
    distrusted: Vec<DistrustJson<'a>>,
}

#[derive(Serialize)]
struct QuarantinedJson<'a> {
    unit: u64,
    failures: u32,
    last_error: &'a str,
}

#[derive(Serialize)]
struct MismatchJson<'a> {
    unit: u64,
    lease: u64,
    producer: &'a str,
    verifier: &'a str,
    resolution: &'static str,
    detail: &'a str,
}

#[derive(Serialize)]
struct DistrustJson<'a> {
    identity: &'a str,
    since_unix_ms: i64,
    reason: &'a str,
}

fn status_json(status: &CampaignStatus) -> StatusJson<'_> {
    let spec = &status.campaign.spec;
    let pending = status
        .mismatches
        .iter()
        .filter(|m| m.resolution.is_pending())
        .count();
    StatusJson {
        name: spec.name.as_str(),
        generator: &spec.generator,
        rules: spec.rules.to_string(),
        seed_start: spec.seed_start,
        seed_end: spec.seed_end,
        unit_size: spec.unit_size,
        record_threshold: spec.record_threshold,
        units_total: status.units_total,
        units_done: status.units_done,
        seeds_in_progress: status.seeds_in_progress,
        units_leased: status.units_leased,
        units_quarantined: status.units_quarantined,
        units_verified: status.units_verified,
        units_to_check: status.units_to_check,
        seeds_done: status.seeds_done,
        seeds_per_second: status.seeds_per_second,
        placements_per_unit: status.placements_per_unit,
        hardest_moves: status.hardest_moves,
        quarantined: (status.quarantined.iter())
            .map(|q| QuarantinedJson {
                unit: q.unit,
                failures: q.failures,
                last_error: &q.last_error,
            })
            .collect(),
        mismatches_resolved: status.mismatches.len() - pending,
        mismatches_pending: pending,
        mismatches: (status.mismatches.iter())
            .map(|m| MismatchJson {
                unit: m.unit,
                lease: m.lease,
                producer: &m.producer,
                verifier: &m.verifier,
                resolution: resolution_text(m.resolution),
                detail: &m.detail,
            })
            .collect(),
        distrusted: (status.distrusted.iter())
            .map(|d| DistrustJson {
                identity: &d.identity,
                since_unix_ms: d.since_unix_ms,
                reason: &d.reason,
            })
            .collect(),
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use rrm_model::{Campaign, CampaignSpec};

    fn status(placements_per_unit: Option<u64>, units_per_second: f64) -> CampaignStatus {
        CampaignStatus {
            campaign: Campaign {
                id: 1,
                spec: CampaignSpec {
                    name: "census".parse().unwrap(),
                    generator: rrm_model::EXHAUSTIVE_FOGLEMAN.into(),
                    seed_start: 0,
                    seed_end: 1536,
                    unit_size: 1,
                    record_threshold: 22,
                    rules: Rules::STANDARD,
                },
                created_unix_ms: 0,
            },
            units_total: 1536,
            units_done: 1036,
            units_leased: 2,
            units_quarantined: 0,
            units_verified: 50,
            units_to_check: 0,
            seeds_done: 1036,
            hardest_moves: 23,
            seeds_per_second: units_per_second,
            seeds_in_progress: 0,
            placements_per_unit,
            quarantined: Vec::new(),
            mismatches: Vec::new(),
            distrusted: Vec::new(),
        }
    }

    #[test]
    fn exhaustive_campaigns_mining_show_placements_per_second_and_an_eta() {
        // 0.1 units/s of 656,239,500 placements; 500 units left: 5,000 s.
        let line = status_line(&status(Some(656_239_500), 0.1));
        assert!(line.contains("units 1036/1536 done"), "{line}");
        assert!(
            line.ends_with("  65.6 M placements/s, ETA 83 minutes"),
            "{line}"
        );
        assert!(!line.contains("seed"), "{line}");
        // Idle, or a seed campaign's status: no rate in placements.
        assert_eq!(placement_rate(&status(Some(656_239_500), 0.0)), "");
        assert_eq!(placement_rate(&status(None, 0.1)), "");
    }

    /// `campaign list --json` keeps its documented field names, in-process.
    #[test]
    fn status_json_has_the_documented_fields() {
        let json = serde_json::to_value(status_json(&status(None, 0.5))).unwrap();
        let mut fields: Vec<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        fields.sort_unstable();
        assert_eq!(
            fields,
            [
                "distrusted",
                "generator",
                "hardest_moves",
                "mismatches",
                "mismatches_pending",
                "mismatches_resolved",
                "name",
                "placements_per_unit",
                "quarantined",
                "record_threshold",
                "rules",
                "seed_end",
                "seed_start",
                "seeds_done",
                "seeds_in_progress",
                "seeds_per_second",
                "unit_size",
                "units_done",
                "units_leased",
                "units_quarantined",
                "units_to_check",
                "units_total",
                "units_verified",
            ]
        );
        assert_eq!(json["rules"], "standard");
        assert_eq!(json["units_done"], 1036);
    }
}
