//! Adaptive replication, as BOINC's: what an identity has to show before its word
//! counts. Until [`crate::Config::trust_after`] of its units were confirmed (by the
//! coordinator solving them in full, or by another identity's agreeing check), every
//! seed unit it sends is solved again in full by the coordinator before it is taken,
//! and every exhaustive unit (too costly for the coordinator) is checked by another
//! identity. After that, checks come on a secret schedule per identity
//! ([`CheckSchedule`]): the run of unchecked units between two checks is drawn at random
//! and bounded, so that an identity forging many units is caught, however patient. A
//! seed unit due for a check is solved in full by the coordinator itself, so no other
//! identity's word is involved; an exhaustive one goes to a checker the coordinator
//! picks (`leasing`), never one that asked for it. A distrusted identity starts over.
//! Since any picked checker may be the producer's colluder, an agreeing check is not
//! enough on its own either: the coordinator solves an agreeing seed unit in full (a
//! top-up to the verify share, or a distrusted producer's unit), and analyses an
//! exhaustive one itself for a distrusted producer and for a secret share of the others
//! ([`crate::Config::own_analysis_share`]). A result it refutes leaves the store, and
//! producer and checker are both distrusted.

use rrm_model::{UnitRecord, UnitState, Verification};
use std::collections::HashMap;

/// When each identity's next check comes: the units it may still send unchecked. A run
/// is drawn in secret and afresh after each check ([`RunDraw`]): an identity cannot tell
/// which of its units will be checked, and never sends more than
/// [`RunDraw::longest`] − 1 in a row unchecked. Memory only: a restart draws new runs.
#[derive(Debug, Default)]
pub(super) struct CheckSchedule(HashMap<String, u32>);

impl CheckSchedule {
    /// Whether the unit `identity` sends now is checked; `draw` gives a number in [0, 1)
    /// (the secret generator).
    pub(super) fn due(
        &mut self,
        identity: &str,
        share: f64,
        mut draw: impl FnMut() -> f64,
    ) -> bool {
        if share <= 0.0 {
            return false;
        }
        let runs = RunDraw::new(share);
        let mut run = || runs.run(draw());
        // Looked up before inserting: no allocation for an identity already seen.
        let left = match self.0.get_mut(identity) {
            Some(left) => left,
            None => self.0.entry(identity.to_string()).or_insert_with(&mut run),
        };
        *left -= 1;
        if *left == 0 {
            *left = run();
            return true;
        }
        false
    }

    /// Forgets `identity`'s run (distrusted: it starts over).
    pub(super) fn forget(&mut self, identity: &str) {
        self.0.remove(identity);
    }
}

/// How long a run (the units up to and including the next check) is at verify share
/// `share`: drawn uniformly from 1 to `spread`, capped at `longest` (about 1.5 / share).
/// The mean is about 1 / share, so checks cost about `share` of the work. The cap is why
/// the draw is not uniform up to 2 / share: a forger of `longest` units in a row is
/// caught for certain, where a uniform draw of the same mean left a 17-unit forgery of
/// an 80-unit campaign about 3 % to survive whole (its checks before and after it). Runs
/// still start at 1: a forger that can tell it was just checked (a seed unit's full
/// solve shows in its Submit's time) risks a check on its very next unit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct RunDraw {
    pub(super) spread: u32,
    pub(super) longest: u32,
}

impl RunDraw {
    /// The draw for `share`, above 0 (at 0 [`CheckSchedule::due`] checks nothing).
    pub(super) fn new(share: f64) -> RunDraw {
        let mean = 1.0 / share;
        let longest = (1.5 * mean).round().clamp(1.0, f64::from(u32::MAX));
        // The smallest spread whose capped mean reaches 1 / share: with spread d and cap
        // c the mean is (c(c − 1)/2 + (d − c + 1)c) / d.
        let spread = match longest > mean {
            // Less a hair: a whole spread computed as 6.000…01 is 6.
            true => (longest * (longest - 1.0) / (2.0 * (longest - mean)) - 1e-9).ceil(),
            false => longest,
        };
        RunDraw {
            spread: spread.clamp(1.0, f64::from(u32::MAX)) as u32,
            longest: longest as u32,
        }
    }

    /// A run from `draw` in [0, 1).
    pub(super) fn run(self, draw: f64) -> u32 {
        let uniform = 1 + ((draw * f64::from(self.spread)) as u32).min(self.spread - 1);
        uniform.min(self.longest)
    }

    /// The mean run: one unit in this many is checked.
    #[cfg(test)]
    fn mean(self) -> f64 {
        let (d, c) = (f64::from(self.spread), f64::from(self.longest));
        match d <= c {
            true => (d + 1.0) / 2.0,
            false => (c * (c - 1.0) / 2.0 + (d - c + 1.0) * c) / d,
        }
    }
}

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
    fn checks_come_at_most_a_bounded_run_apart_and_about_share_of_the_units() {
        let mut schedule = CheckSchedule::default();
        let mut state = 12345u64;
        let mut draw = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let (mut checked, mut run, mut longest, mut first) = (0, 0, 0, 0);
        for _ in 0..100_000 {
            run += 1;
            if schedule.due("a", 0.1, &mut draw) {
                checked += 1;
                first += u32::from(run == 1);
                longest = longest.max(run);
                run = 0;
            }
        }
        let runs = RunDraw::new(0.1);
        assert_eq!(
            runs,
            RunDraw {
                spread: 21,
                longest: 15
            }
        );
        assert_eq!(longest, 15, "runs are capped, and reach the cap");
        // A check right after a check: 1 in 21 runs.
        assert!((300..700).contains(&first), "{first}");
        // Mean run 10 units: 10 % checked.
        assert!((9_500..10_500).contains(&checked), "{checked}");
        // Each identity has its own schedule; none with share 0.
        let mut never = CheckSchedule::default();
        assert!((0..10_000).all(|_| !never.due("b", 0.0, &mut draw)));
    }

    #[test]
    fn runs_average_one_over_the_share_under_a_cap_of_one_and_a_half_times_that() {
        for share in [1.0, 0.5, 0.3, 0.2, 0.1, 0.09, 0.05, 0.01, 0.001] {
            let runs = RunDraw::new(share);
            let mean = runs.mean();
            assert!(mean >= 1.0 / share - 1e-9, "{share}: {runs:?} mean {mean}");
            // The smallest such spread.
            let narrower = RunDraw {
                spread: runs.spread - 1,
                ..runs
            };
            assert!(
                runs.spread == 1 || narrower.mean() < 1.0 / share - 1e-9,
                "{share}: {runs:?}"
            );
            // Checks cost no more than about the share.
            assert!(mean < 1.0 / share + 0.5, "{share}: {runs:?} mean {mean}");
            assert!(
                f64::from(runs.longest) <= (1.5 / share).round(),
                "{share}: {runs:?}"
            );
            assert_eq!(runs.run(0.0), 1);
            assert_eq!(runs.run(0.999_999_9), runs.longest.min(runs.spread));
        }
        assert_eq!(RunDraw::new(1.0).run(0.99), 1, "share 1 checks every unit");
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
