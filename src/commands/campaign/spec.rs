//! The settings of a new campaign: `SpecArgs` (unit size, record threshold, generator and
//! rules of a seed campaign) and `ExhaustiveArgs` (what an exhaustive campaign analyses).

use super::{DEFAULT_RECORD_THRESHOLD, DEFAULT_UNIT_SIZE};
use crate::input::parse_campaign_range;
use anyhow::Result;
use clap::Args;
use ricochet::edition::EditionBoard;
use rrm_model::{CampaignName, CampaignSpec, ExhaustiveRequest, Rules};

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
    pub(super) rules: Rules,
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
pub(super) struct ExhaustiveArgs {
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
    pub(super) fn request(&self, name: CampaignName, family: &str) -> ExhaustiveRequest {
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
