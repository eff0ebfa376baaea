//! A unit's life in a campaign (pending, leased, done, checked, quarantined), the
//! solutions kept, and the disagreements and distrust that checks bring.

/// Where a unit stands. Units without a record are pending.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnitState {
    /// Waiting to be leased again: its last lease expired (and may still deliver, from the
    /// worker that held it) or its result was refused (`None`).
    Pending {
        expired: Option<Lease>,
    },
    Leased(Lease),
    Done {
        digest: [u8; 32],
        /// The identity (token name, or registration) whose result is stored.
        producer: String,
        commit: u64,
        verification: Verification,
    },
    /// Failed too often; left alone until someone looks.
    Quarantined,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lease {
    /// The unit's lease number: the `n`-th lease issued for this unit.
    pub number: u64,
    /// The registration holding it (ids change when a worker registers again).
    pub worker: u64,
    /// Who that registration is: its token's name (or, without tokens, the registration).
    pub identity: String,
    pub deadline_unix_ms: i64,
}

/// A done unit's check by another identity than its producer. Which units are checked
/// is drawn at random when a result is accepted and never shown outside the store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verification {
    NotChosen,
    Pending,
    Leased(Lease),
    Agreed {
        by: String,
    },
    /// The coordinator settled a disagreement by solving the seeds in dispute itself.
    Confirmed,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnitRecord {
    pub state: UnitState,
    /// Leases issued so far, verification leases included; lease numbers are 1..=this.
    pub leases_issued: u64,
    /// The identities charged a failure of this unit, each once.
    pub failed_by: Vec<String>,
    pub last_error: Option<String>,
}

impl UnitRecord {
    /// The record of a unit never leased.
    pub fn fresh() -> UnitRecord {
        UnitRecord {
            state: UnitState::Pending { expired: None },
            leases_issued: 0,
            failed_by: Vec::new(),
            last_error: None,
        }
    }

    /// Failures charged so far: one per identity.
    pub fn failures(&self) -> u32 {
        self.failed_by.len() as u32
    }

    /// Charges a failure to `identity` for `why`, once per identity (so one sender,
    /// however many its registrations or submissions, cannot quarantine a unit); the
    /// unit is quarantined once `max_failures` identities failed it.
    pub fn charge_failure(&mut self, identity: &str, why: String, max_failures: u32) {
        if !self.failed_by.iter().any(|charged| charged == identity) {
            self.failed_by.push(identity.to_string());
        }
        self.last_error = Some(why);
        if self.failures() >= max_failures {
            self.state = UnitState::Quarantined;
        }
    }
}

/// A kept solution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HardEntry {
    pub seed: u64,
    pub moves: u8,
    /// Move notation, e.g. `BS`.
    pub solution: Vec<String>,
    /// The coordinator solved it itself and found the same optimum.
    pub re_solved: bool,
}

/// A verification that disagreed with the stored result, and how it was settled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub unit: u64,
    /// The verification lease that brought the differing result.
    pub lease: u64,
    /// Who produced the stored result.
    pub producer: String,
    /// Who sent the differing result.
    pub verifier: String,
    /// The differing result's digest (a third opinion is compared with it).
    pub digest: [u8; 32],
    pub detail: String,
    pub resolution: Resolution,
}

/// How a mismatch was settled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolution {
    /// Waiting for another identity's result (exhaustive units).
    Pending,
    /// The stored result was right; the verifier is distrusted.
    StoredWon,
    /// The verifier was right: its result replaced the stored one, whose producer is
    /// distrusted.
    VerifierWon,
    /// The stored result was wrong and the verifier's could not be confirmed whole: the
    /// unit is mined again.
    Redone,
}

impl Resolution {
    pub fn is_pending(self) -> bool {
        self == Resolution::Pending
    }
}

/// An identity whose result was proven wrong: it gets no leases until an operator
/// clears it, and the results it produced or verified are checked again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Distrust {
    pub identity: String,
    pub since_unix_ms: i64,
    /// What was proven wrong, e.g. "campaign c unit 7: seed 12 needs 6 moves, not 1".
    pub reason: String,
}
