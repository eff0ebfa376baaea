//! Campaign operations on the `campaigns`, `rules` and `exhaustive` trees: creating a
//! campaign (with what it analyses and its rules, in one write) and reading campaigns back.

use super::blocks::{CAMPAIGN_RULES, CAMPAIGN_RULES_V1, EXHAUSTIVE_SPEC_V1};
use super::journal::{Change, Table};
use super::{decode, decode_record, encode, records, Result, Store, StoreError};
use rrm_model::{Campaign, CampaignSpec, ExhaustiveSpec, Rules, SpecError};

const NEXT_CAMPAIGN_ID: &[u8] = b"next_campaign_id";

impl Store {
    /// Creates a campaign after checking its spec; names are unique.
    pub fn create_campaign(&self, spec: CampaignSpec, created_unix_ms: i64) -> Result<Campaign> {
        self.create(spec, None, created_unix_ms)
    }

    /// Creates an exhaustive campaign: its spec (generator [`EXHAUSTIVE_FOGLEMAN`], one
    /// unit per seed) and what it analyses, in one write.
    pub fn create_exhaustive_campaign(
        &self,
        spec: CampaignSpec,
        exhaustive: &ExhaustiveSpec,
        created_unix_ms: i64,
    ) -> Result<Campaign> {
        if !spec.is_exhaustive() || spec.unit_size != 1 || spec.seed_start != 0 {
            return Err(SpecError::ExhaustiveShape.into());
        }
        if spec.seed_end != exhaustive.units_total() {
            return Err(SpecError::ExhaustiveUnits {
                units: spec.seed_end,
                boards: exhaustive.boards.len(),
                targets: exhaustive.targets.len(),
            }
            .into());
        }
        self.create(spec, Some(exhaustive), created_unix_ms)
    }

    fn create(
        &self,
        spec: CampaignSpec,
        exhaustive: Option<&ExhaustiveSpec>,
        created_unix_ms: i64,
    ) -> Result<Campaign> {
        spec.validate()?;
        let exhaustive = exhaustive.map(|e| [&[EXHAUSTIVE_SPEC_V1][..], &encode(e)].concat());
        let rules = (spec.rules != Rules::STANDARD)
            .then(|| [&[CAMPAIGN_RULES][..], spec.rules.to_string().as_bytes()].concat());
        self.write_checked(|| {
            if self
                .table(Table::Campaigns)?
                .get(spec.name.as_bytes())?
                .is_some()
            {
                return Err(StoreError::CampaignExists(spec.name.to_string()));
            }
            let counter = |detail| StoreError::Corrupt {
                what: "campaign counter",
                detail,
            };
            let id = match self.table(Table::Meta)?.get(NEXT_CAMPAIGN_ID)? {
                Some(bytes) => u32::from_be_bytes(
                    bytes
                        .as_ref()
                        .try_into()
                        .map_err(|_| counter(format!("{} bytes", bytes.len())))?,
                ),
                None => 1,
            };
            let next = id
                .checked_add(1)
                .ok_or_else(|| counter("no campaign ids left".into()))?;
            let campaign = Campaign {
                id,
                spec: spec.clone(),
                created_unix_ms,
            };
            let mut changes = vec![
                Change::put(Table::Meta, NEXT_CAMPAIGN_ID, next.to_be_bytes().to_vec()),
                Change::put(Table::Campaigns, spec.name.as_bytes(), encode(&campaign)),
            ];
            if let Some(bytes) = exhaustive {
                changes.push(Change::put(Table::Exhaustive, &id.to_be_bytes(), bytes));
            }
            if let Some(bytes) = rules {
                changes.push(Change::put(Table::Rules, &id.to_be_bytes(), bytes));
            }
            Ok((changes, campaign))
        })
    }

    /// Every campaign, by name.
    pub fn campaigns(&self) -> Result<Vec<Campaign>> {
        self.table(Table::Campaigns)?
            .iter()
            .values()
            .map(|value| self.with_rules(decode("campaign", &value?)?))
            .collect()
    }

    /// A campaign read from its record, with the rules kept beside it (standard ones when
    /// none are: every campaign of an older store).
    fn with_rules(&self, mut campaign: Campaign) -> Result<Campaign> {
        if let Some(value) = self.table(Table::Rules)?.get(campaign.id.to_be_bytes())? {
            campaign.spec.rules = match value.split_first() {
                Some((&CAMPAIGN_RULES, bytes)) => std::str::from_utf8(bytes)
                    .ok()
                    .and_then(|text| Rules::parse(text).ok())
                    .ok_or_else(|| StoreError::Corrupt {
                        what: "campaign rules",
                        detail: format!("not a rule set: {:?}", String::from_utf8_lossy(bytes)),
                    })?,
                Some((&CAMPAIGN_RULES_V1, bytes)) => {
                    decode_record::<records::v2::Rules>("campaign rules", bytes)?.try_into()?
                }
                _ => {
                    return Err(StoreError::Corrupt {
                        what: "campaign rules",
                        detail: "unknown version".into(),
                    })
                }
            };
        }
        Ok(campaign)
    }

    /// What an exhaustive campaign analyses; `None` for seed campaigns.
    pub fn exhaustive_spec(&self, campaign: u32) -> Result<Option<ExhaustiveSpec>> {
        let Some(value) = self.table(Table::Exhaustive)?.get(campaign.to_be_bytes())? else {
            return Ok(None);
        };
        match value.split_first() {
            Some((&EXHAUSTIVE_SPEC_V1, bytes)) => decode("exhaustive spec", bytes).map(Some),
            _ => Err(StoreError::Corrupt {
                what: "exhaustive spec",
                detail: "unknown version".into(),
            }),
        }
    }

    pub fn campaign(&self, name: &str) -> Result<Option<Campaign>> {
        self.table(Table::Campaigns)?
            .get(name.as_bytes())?
            .map(|value| self.with_rules(decode("campaign", &value)?))
            .transpose()
    }
}
