//! What `rrm campaign` prints: the parts of a new campaign's summary, and each campaign's
//! `campaign list` line or JSON object.

use crate::output::report::count;
use rrm_model::{CampaignSpec, CampaignStatus, Resolution, Rules};
use serde::Serialize;

/// "1 unit of 5000 seeds", "3 units of 10000 seeds (the last of 5000)": the units as
/// they really are, not the unit size asked for.
pub(super) fn units_text(spec: &CampaignSpec) -> String {
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
pub(super) fn rules_note(rules: Rules) -> String {
    if rules == Rules::STANDARD {
        String::new()
    } else {
        format!(" (rules {rules})")
    }
}

pub(super) fn status_line(status: &CampaignStatus) -> String {
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
pub(super) struct StatusJson<'a> {
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

pub(super) fn status_json(status: &CampaignStatus) -> StatusJson<'_> {
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
