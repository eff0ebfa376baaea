//! Adaptive replication, as BOINC's: what an identity has to show before its word
//! counts. Until [`crate::Config::trust_after`] of its units were confirmed (by the
//! coordinator solving them in full, or by another identity's agreeing check), every
//! seed unit it sends is solved again in full by the coordinator before it is taken,
//! and every exhaustive unit (too costly for the coordinator) is checked by another
//! identity; after that, a secret share stays checked by another identity for good. A distrusted
//! identity starts over. A check that agrees with a distrusted identity's result is not
//! enough on its own either (the checker may be its colluder): the coordinator solves
//! that unit in full before calling it agreed.

use rrm_model::{UnitRecord, UnitState, Verification};
use std::collections::HashMap;

/// Confirmed units per identity, as the store shows them.
#[derive(Debug, Default)]
pub(super) struct Standing(HashMap<String, u32>);

impl Standing {
    /// Counts the confirmed units among `records`.
    pub(super) fn count<'a>(&mut self, records: impl IntoIterator<Item = &'a UnitRecord>) {
        for record in records {
            if let UnitState::Done {
                producer,
                verification,
                ..
            } = &record.state
            {
                let confirmed = match verification {
                    Verification::Confirmed => true,
                    Verification::Agreed { by } => by != producer,
                    _ => false,
                };
                if confirmed {
                    self.confirmed(producer);
                }
            }
        }
    }

    /// Notes one more confirmed unit of `identity`.
    pub(super) fn confirmed(&mut self, identity: &str) {
        *self.0.entry(identity.to_string()).or_default() += 1;
    }

    /// Forgets what `identity` had shown (it was proven wrong).
    pub(super) fn forget(&mut self, identity: &str) {
        self.0.remove(identity);
    }

    /// Whether `identity` has shown `trust_after` confirmed units.
    pub(super) fn established(&self, identity: &str, trust_after: u32) -> bool {
        self.0.get(identity).copied().unwrap_or(0) >= trust_after
    }
}
