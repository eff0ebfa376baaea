//! Campaigns: what one mines (a seed range of a generator, or every placement of some
//! boards and targets), under a validated name.

use ricochet::rules::Rules;
use std::fmt;
use std::ops::Range;

/// The longest campaign name, in bytes.
pub const MAX_CAMPAIGN_NAME: usize = 64;

/// A campaign's name: 1 to [`MAX_CAMPAIGN_NAME`] letters, digits, `-`, `_` or `.`, not
/// only dots (a name is a path segment in the dashboard's URLs). Checked once, where a
/// name enters (command line, wire, store).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CampaignName(String);

/// Why a text is not a campaign name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error("a campaign name cannot be empty")]
    Empty,
    #[error("a campaign name of {0} bytes is over the {MAX_CAMPAIGN_NAME} allowed")]
    TooLong(usize),
    #[error("campaign name {name:?}: {character:?} is not a letter, digit, '-', '_' or '.'")]
    Character { name: String, character: char },
    #[error("campaign name {0:?}: a name of dots only would be a path segment, not a name")]
    OnlyDots(String),
}

impl CampaignName {
    pub fn new(name: impl Into<String>) -> Result<CampaignName, NameError> {
        let name = name.into();
        if name.is_empty() {
            return Err(NameError::Empty);
        }
        if name.len() > MAX_CAMPAIGN_NAME {
            return Err(NameError::TooLong(name.len()));
        }
        if let Some(character) = name
            .chars()
            .find(|&c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        {
            return Err(NameError::Character { name, character });
        }
        if name.chars().all(|c| c == '.') {
            return Err(NameError::OnlyDots(name));
        }
        Ok(CampaignName(name))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for CampaignName {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for CampaignName {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for CampaignName {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for CampaignName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::str::FromStr for CampaignName {
    type Err = NameError;
    fn from_str(name: &str) -> Result<CampaignName, NameError> {
        CampaignName::new(name)
    }
}

impl TryFrom<String> for CampaignName {
    type Error = NameError;
    fn try_from(name: String) -> Result<CampaignName, NameError> {
        CampaignName::new(name)
    }
}

impl TryFrom<&str> for CampaignName {
    type Error = NameError;
    fn try_from(name: &str) -> Result<CampaignName, NameError> {
        CampaignName::new(name)
    }
}

impl From<CampaignName> for String {
    fn from(name: CampaignName) -> String {
        name.0
    }
}

impl PartialEq<str> for CampaignName {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for CampaignName {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl PartialEq<String> for CampaignName {
    fn eq(&self, other: &String) -> bool {
        &self.0 == other
    }
}

/// What a campaign mines: a generator over a seed range, in units.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CampaignSpec {
    pub name: CampaignName,
    /// A generator name, e.g. `fogleman`.
    pub generator: String,
    pub seed_start: u64,
    /// Excluded.
    pub seed_end: u64,
    pub unit_size: u64,
    /// Seeds needing at least this many moves keep their full solution, re-solved.
    pub record_threshold: u8,
    /// The rules every seed is solved under; results under other rules never mix with
    /// this campaign's.
    pub rules: Rules,
}

/// The most seeds one unit may hold.
pub const MAX_UNIT_SIZE: u64 = 1 << 20;

/// Why a campaign is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    #[error(transparent)]
    Name(#[from] NameError),
    #[error("seed range {start}..{end} is empty")]
    EmptySeedRange { start: u64, end: u64 },
    #[error("unit size {0} must be 1 to {MAX_UNIT_SIZE} seeds")]
    UnitSize(u64),
    #[error(transparent)]
    Generator(#[from] ricochet::UnknownGenerator),
    #[error("generator {generator} starts at seed {first}")]
    BeforeFirstSeed { generator: String, first: u64 },
    #[error(transparent)]
    Layout(#[from] ricochet::LayoutError),
    #[error("{what} {value} is over {bound}")]
    OverBound {
        what: &'static str,
        value: u32,
        bound: u32,
    },
    #[error("exhaustive analysis knows the standard rules only, not {0}")]
    ExhaustiveRules(Rules),
    #[error("Ricocheckers positions have their own rules, not {0}")]
    GameRules(Rules),
    #[error("a result needs at least one hardest placement")]
    NoHardest,
    #[error("no units: name at least one board and one target")]
    NoUnits,
    #[error(
        "an exhaustive campaign has generator {EXHAUSTIVE_FOGLEMAN} and one unit per seed from 0"
    )]
    ExhaustiveShape,
    #[error("{units} units for {boards} boards and {targets} targets")]
    ExhaustiveUnits {
        units: u64,
        boards: usize,
        targets: usize,
    },
}

impl CampaignSpec {
    /// Checks what the store relies on; the generator name is the coordinator's to check.
    pub fn validate(&self) -> Result<(), SpecError> {
        if self.seed_start >= self.seed_end {
            return Err(SpecError::EmptySeedRange {
                start: self.seed_start,
                end: self.seed_end,
            });
        }
        if !(1..=MAX_UNIT_SIZE).contains(&self.unit_size) {
            return Err(SpecError::UnitSize(self.unit_size));
        }
        Ok(())
    }

    pub fn units_total(&self) -> u64 {
        (self.seed_end - self.seed_start).div_ceil(self.unit_size)
    }

    /// The seeds of unit `unit`.
    pub fn unit_seeds(&self, unit: u64) -> Range<u64> {
        let start = self.seed_start + unit * self.unit_size;
        // Never `start + unit_size`: it may pass u64::MAX in the last unit.
        start..start + (self.seed_end - start).min(self.unit_size)
    }

    /// The unit holding `seed`, if the campaign covers it.
    pub fn unit_of(&self, seed: u64) -> Option<u64> {
        (self.seed_start..self.seed_end)
            .contains(&seed)
            .then(|| (seed - self.seed_start) / self.unit_size)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Campaign {
    pub id: u32,
    pub spec: CampaignSpec,
    pub created_unix_ms: i64,
}

/// The generator name an exhaustive campaign of Fogleman boards stores in its
/// [`CampaignSpec`] (whose seed range is then its unit numbers, one unit per "seed"); no
/// seed generator has this name, so code that only knows seed campaigns refuses it.
pub const EXHAUSTIVE_FOGLEMAN: &str = "exhaustive-fogleman";

impl CampaignSpec {
    /// Whether this is an exhaustive campaign (its [`ExhaustiveSpec`] is stored beside it).
    pub fn is_exhaustive(&self) -> bool {
        self.generator == EXHAUSTIVE_FOGLEMAN
    }
}

/// What an exhaustive campaign analyses: every (board, target) pair of `boards` ×
/// `targets`, unit `i` being board `i / targets.len()` and target `i % targets.len()`.
/// Stored in the `exhaustive` tree as version 1 (see the crate doc).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExhaustiveSpec {
    /// Canonical board names (tile 1 top-left), e.g. `1A 3B 4A 2B`, in canonical order.
    pub boards: Vec<String>,
    /// Target tokens in token order, e.g. `RT`.
    pub targets: Vec<String>,
    /// Placements each result samples (re-solved by the coordinator).
    pub sample_size: u32,
    /// Depths from this one on keep up to `top_per_depth` placements.
    pub top_from: u8,
    pub top_per_depth: u32,
    /// At most this many placements at the maximum depth come with a result.
    pub max_hardest: u32,
}

impl ExhaustiveSpec {
    pub fn units_total(&self) -> u64 {
        (self.boards.len() * self.targets.len()) as u64
    }

    /// The board and target token of unit `unit`.
    pub fn unit(&self, unit: u64) -> Option<(&str, &str)> {
        let per_board = self.targets.len() as u64;
        let board = self
            .boards
            .get(usize::try_from(unit.checked_div(per_board)?).ok()?)?;
        Some((board, &self.targets[(unit % per_board) as usize]))
    }

    /// The unit of a board and token, if the campaign has it.
    pub fn unit_of(&self, board: &str, token: &str) -> Option<u64> {
        let b = self.boards.iter().position(|b| b == board)?;
        let t = self.targets.iter().position(|t| t == token)?;
        Some((b * self.targets.len() + t) as u64)
    }
}

/// Sampled placements per unit unless told otherwise (each re-solved on acceptance).
pub const DEFAULT_SAMPLE_SIZE: u32 = 32;
/// Depths from which top placements are kept unless told otherwise.
pub const DEFAULT_TOP_FROM: u8 = 12;
pub const DEFAULT_TOP_PER_DEPTH: u32 = 8;
/// Placements at a unit's maximum a result carries at most unless told otherwise (each
/// re-solved on acceptance: a 25-move one takes seconds).
pub const DEFAULT_MAX_HARDEST: u32 = 32;
/// The largest sample, top list and hardest list a campaign may ask for.
pub const LIST_BOUND: u32 = 1024;

/// An exhaustive campaign to create: boards (any rotation) and tokens, all when empty.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExhaustiveRequest {
    pub name: CampaignName,
    pub boards: Vec<String>,
    pub targets: Vec<String>,
    pub sample_size: u32,
    pub top_from: u8,
    pub top_per_depth: u32,
    pub max_hardest: u32,
}

impl ExhaustiveRequest {
    /// Every board and target with the default lists.
    pub fn new(name: CampaignName) -> ExhaustiveRequest {
        ExhaustiveRequest {
            name,
            boards: Vec::new(),
            targets: Vec::new(),
            sample_size: DEFAULT_SAMPLE_SIZE,
            top_from: DEFAULT_TOP_FROM,
            top_per_depth: DEFAULT_TOP_PER_DEPTH,
            max_hardest: DEFAULT_MAX_HARDEST,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_must_be_reachable_as_url_segments() {
        let too_long = "x".repeat(MAX_CAMPAIGN_NAME + 1);
        let refused: [(&str, NameError); 6] = [
            (".", NameError::OnlyDots(".".into())),
            ("..", NameError::OnlyDots("..".into())),
            ("", NameError::Empty),
            (
                "a/b",
                NameError::Character {
                    name: "a/b".into(),
                    character: '/',
                },
            ),
            (
                "a b",
                NameError::Character {
                    name: "a b".into(),
                    character: ' ',
                },
            ),
            (&too_long, NameError::TooLong(MAX_CAMPAIGN_NAME + 1)),
        ];
        for (name, why) in refused {
            assert_eq!(CampaignName::new(name), Err(why), "{name:?}");
        }
        for accepted in [
            "a.b",
            ".hidden",
            "fogleman-1-100001",
            "x_2",
            &"x".repeat(64),
        ] {
            assert_eq!(CampaignName::new(accepted).unwrap(), accepted);
        }
    }

    #[test]
    fn specs_refuse_empty_ranges_and_bad_unit_sizes() {
        let spec = |seed_start, seed_end, unit_size| CampaignSpec {
            name: CampaignName::new("c").unwrap(),
            generator: "fogleman".into(),
            seed_start,
            seed_end,
            unit_size,
            record_threshold: 20,
            rules: Rules::STANDARD,
        };
        assert_eq!(spec(1, 11, 10).validate(), Ok(()));
        assert_eq!(
            spec(5, 5, 10).validate(),
            Err(SpecError::EmptySeedRange { start: 5, end: 5 })
        );
        assert_eq!(spec(1, 11, 0).validate(), Err(SpecError::UnitSize(0)));
        assert_eq!(
            spec(1, 11, MAX_UNIT_SIZE + 1).validate(),
            Err(SpecError::UnitSize(MAX_UNIT_SIZE + 1))
        );
        let last = spec(u64::MAX - 3, u64::MAX, 2);
        assert_eq!(last.units_total(), 2);
        assert_eq!(last.unit_seeds(1), u64::MAX - 1..u64::MAX);
        assert_eq!(last.unit_of(u64::MAX - 1), Some(1));
        assert_eq!(last.unit_of(u64::MAX), None);
    }
}
