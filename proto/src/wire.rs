//! The one place where `rrm.v1` messages and the domain types (`rrm_model`) meet:
//! `From` where every value fits, `TryFrom` (refusing with a [`WireError`]) where a wire
//! value may not. The coordinator's gRPC service, the worker and the `rrm` binary's remote
//! backend all convert here, so each side refuses the same values.

mod campaigns;
mod exhaustive;
mod mining;
mod query;

pub use campaigns::{
    create_request, exhaustive_create_request, exhaustive_from_request, spec_from_request,
};
pub use exhaustive::{exhaustive_message, exhaustive_result};
pub use mining::{exhaustive_unit, submit_request};

use ricochet::rules::Rules;
use rrm_model::NameError;

/// Why a message cannot become a domain value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    #[error("a message without its {0}")]
    Missing(&'static str),
    #[error("{field} {value} is over 255")]
    OverMoveLimit { field: &'static str, value: u32 },
    #[error("a placement needs a target robot and three helpers on cells 0 to 255")]
    BadPlacement,
    #[error("legal samples must list depths 1, 2, 3, … in order")]
    LegalSampleDepths,
    #[error(transparent)]
    Solutions(#[from] crate::solutions::SolutionsError),
    #[error(transparent)]
    Name(#[from] NameError),
    #[error(transparent)]
    Generator(#[from] ricochet::UnknownGenerator),
    #[error(transparent)]
    Rules(#[from] ricochet::rules::RulesError),
}

/// A rule set from the wire: empty (a peer that predates rules) is the standard one.
fn rules_from_wire(text: &str) -> Result<Rules, WireError> {
    if text.is_empty() {
        Ok(Rules::STANDARD)
    } else {
        Ok(Rules::parse(text)?)
    }
}

impl From<WireError> for tonic::Status {
    fn from(error: WireError) -> tonic::Status {
        tonic::Status::invalid_argument(error.to_string())
    }
}

/// A move count on the wire (`uint32`) as the `u8` every store and solver type uses.
pub fn moves_u8(value: u32, field: &'static str) -> Result<u8, WireError> {
    u8::try_from(value).map_err(|_| WireError::OverMoveLimit { field, value })
}

#[cfg(test)]
mod tests;
