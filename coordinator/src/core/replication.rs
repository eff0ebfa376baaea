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

/// Whether a done unit's result is or will be checked: by another identity or by the
/// coordinator.
fn checked(verification: &Verification) -> bool {
    !matches!(verification, Verification::NotChosen)
}

/// The done units to check on top of those drawn, so that at least `share` of a
/// finished campaign's done units are checked: the draw gives `share` on average only,
/// and a census promises it. `pick(n)` draws an index below `n` (in secret, so that
/// which units are added cannot be foreseen either).
pub(super) fn checks_short_of_share<'a>(
    records: impl IntoIterator<Item = (&'a u64, &'a UnitRecord)>,
    share: f64,
    mut pick: impl FnMut(usize) -> usize,
) -> Vec<u64> {
    let mut done = 0usize;
    let mut already = 0usize;
    let mut unchecked = Vec::new();
    for (&unit, record) in records {
        if let UnitState::Done { verification, .. } = &record.state {
            done += 1;
            match checked(verification) {
                true => already += 1,
                false => unchecked.push(unit),
            }
        }
    }
    let wanted = ((done as f64 * share).ceil() as usize).min(done);
    let mut chosen = Vec::new();
    while already + chosen.len() < wanted && !unchecked.is_empty() {
        let index = pick(unchecked.len());
        chosen.push(unchecked.swap_remove(index));
    }
    chosen.sort_unstable();
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn done(verification: Verification) -> UnitRecord {
        let mut record = UnitRecord::fresh();
        record.state = UnitState::Done {
            digest: [0; 32],
            producer: "p".into(),
            commit: 1,
            verification,
        };
        record
    }

    #[test]
    fn a_finished_campaign_short_of_its_share_gets_the_difference_checked() {
        let mut records = BTreeMap::new();
        for unit in 0..100u64 {
            let verification = match unit {
                0..=2 => Verification::Agreed { by: "q".into() },
                3 => Verification::Pending,
                _ => Verification::NotChosen,
            };
            records.insert(unit, done(verification));
        }
        records.insert(100, UnitRecord::fresh());
        let mut next = 0;
        let chosen = checks_short_of_share(&records, 0.05, |n| {
            next += 7;
            next % n
        });
        // 5 % of 100 done units is 5; 4 are checked already.
        assert_eq!(chosen.len(), 1);
        assert!(chosen[0] >= 4 && chosen[0] < 100);
        assert!(checks_short_of_share(&records, 0.04, |_| 0).is_empty());
        let all = checks_short_of_share(&records, 1.0, |n| n - 1);
        assert_eq!(all, (4..100).collect::<Vec<_>>());
    }
}
