//! rrm's domain model: campaigns, units and their leases, workers' results, and the
//! statistics built from them, as the coordinator, the worker and the command line use
//! them.
//!
//! No storage or wire format lives here: the store keeps its own versioned records and
//! `rrm_proto::wire` converts to and from `rrm.v1` messages, each edge in one place.
//! Values are checked where they enter ([`CampaignName::new`], [`CampaignSpec::validate`])
//! and trusted inside.

mod campaign;
mod digest;
mod exhaustive;
pub mod numbers;
mod stats;
mod units;
mod work;

pub use campaign::*;
pub use digest::*;
pub use exhaustive::*;
/// The rules a campaign is played under (a campaign carries its own).
pub use ricochet::rules::{Ricochet, Rules};
pub use stats::*;
pub use units::*;
pub use work::*;
