//! Who a worker is: registering and authenticating through the `registry` (a public id
//! and a secret session every later call presents; the identity results are charged
//! to, the token's name or without tokens the registration itself), and distrust: an identity whose result was proven wrong
//! leases nothing until an operator clears it, and everything it produced or verified
//! is checked again by someone else.

use super::campaign_state::{current_lease, CampaignState};
use super::registry::{Caps, Session, Worker};
use super::{Coordinator, CoordinatorError, Result, State};
use crate::unix_ms;
use rrm_model::CampaignName;
use rrm_model::{Distrust, UnitState, Verification};
use std::collections::BTreeMap;
use std::time::Instant;

impl Coordinator {
    /// Registers a worker. With a token, its identity is the token's name; without, each
    /// registration is an identity of its own (`name#id`), so two registrations never
    /// count as two opinions only when tokens tell them apart. Past the registration
    /// caps, the longest silent registration without a lease makes room (see `registry`).
    pub fn register(&self, token: Option<String>, name: &str, threads: u32) -> Result<Session> {
        let mut state = self.lock();
        let caps = Caps {
            per_identity: self.config.max_registrations_per_identity,
            all: self.config.max_registrations,
        };
        let State {
            workers, campaigns, ..
        } = &mut *state;
        let holds = |id| holds_a_lease(campaigns, id);
        let session = workers.register(token, name, threads, caps, Instant::now(), holds)?;
        self.metrics.registered();
        Ok(session)
    }

    /// The worker a call speaks for: its session must match, and with tokens the
    /// caller's token must be the one it registered with.
    pub fn authenticate(&self, session: &Session, token: Option<&str>) -> Result<Worker> {
        self.lock()
            .workers
            .authenticate(session, token, Instant::now())
    }

    /// Refuses a distrusted identity.
    pub(super) fn check_trusted(state: &State, identity: &str) -> Result<()> {
        match state.distrusted.contains_key(identity) {
            true => Err(CoordinatorError::Distrusted(identity.to_string())),
            false => Ok(()),
        }
    }

    /// Distrusts `identity` for `reason`, stored, and queues its work to be checked again.
    pub(super) fn distrust(&self, state: &mut State, identity: &str, reason: String) -> Result<()> {
        let distrust = distrust_record(identity, reason);
        self.store.distrust(&distrust)?;
        self.remember_distrust(state, distrust)
    }

    /// Takes a distrust already stored into memory and queues the identity's work to be
    /// checked again.
    pub(super) fn remember_distrust(&self, state: &mut State, distrust: Distrust) -> Result<()> {
        tracing::warn!(identity = %distrust.identity, reason = %distrust.reason, "identity distrusted");
        state.standing.forget(&distrust.identity);
        state.checks.forget(&distrust.identity);
        state.distrusted.insert(distrust.identity.clone(), distrust);
        self.metrics.distrusted();
        for campaign in state.campaigns.values_mut() {
            self.recheck_distrusted(campaign, &state.distrusted)?;
        }
        Ok(())
    }

    /// Clears a distrusted identity; whether it was distrusted.
    pub fn trust(&self, identity: &str) -> Result<bool> {
        let mut state = self.lock();
        let cleared = self.store.trust(identity)?;
        state.distrusted.remove(identity);
        Ok(cleared)
    }

    /// Every distrusted identity.
    pub fn distrusted(&self) -> Vec<Distrust> {
        self.lock().distrusted.values().cloned().collect()
    }

    /// Sends back to verification every done unit of `campaign` a distrusted identity
    /// produced without another's check, or verified; returns to the pending set the
    /// units such an identity holds. Idempotent, so opening a store applies it again.
    pub(super) fn recheck_distrusted(
        &self,
        campaign: &mut CampaignState,
        distrusted: &std::collections::HashMap<String, Distrust>,
    ) -> Result<()> {
        let is_distrusted = |identity: &str| distrusted.contains_key(identity);
        let mut changed = Vec::new();
        for (&unit, record) in &campaign.records {
            let mut record = record.clone();
            let touched = match &mut record.state {
                UnitState::Leased(lease) if is_distrusted(&lease.identity) => {
                    record.state = UnitState::Pending { expired: None };
                    true
                }
                UnitState::Done {
                    producer,
                    verification,
                    ..
                } => {
                    let recheck = match verification {
                        Verification::NotChosen => is_distrusted(producer),
                        Verification::Agreed { by } => is_distrusted(by),
                        Verification::Leased(lease) => is_distrusted(&lease.identity),
                        Verification::Pending | Verification::Confirmed => false,
                    };
                    if recheck {
                        *verification = Verification::Pending;
                    }
                    recheck
                }
                _ => false,
            };
            if touched {
                changed.push((unit, record));
            }
        }
        for (unit, record) in changed {
            self.store.put_unit(campaign.campaign.id, unit, &record)?;
            campaign.track(unit, record, 0);
        }
        Ok(())
    }
}

/// The record of distrusting `identity` now for `reason`.
pub(super) fn distrust_record(identity: &str, reason: String) -> Distrust {
    Distrust {
        identity: identity.to_string(),
        since_unix_ms: unix_ms(),
        reason,
    }
}

/// A random number in [0, 1) from the operating system's generator: which results are
/// verified and which seeds are re-solved must not be predictable.
pub(super) fn secret_draw() -> f64 {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).expect("the system random generator works");
    (u64::from_le_bytes(bytes) >> 11) as f64 / (1u64 << 53) as f64
}

/// Whether registration `id` holds a lease (main or verification) in any campaign.
pub(super) fn holds_a_lease(campaigns: &BTreeMap<CampaignName, CampaignState>, id: u64) -> bool {
    campaigns.values().any(|campaign| {
        campaign
            .leased
            .iter()
            .filter_map(|unit| current_lease(&campaign.records[unit]))
            .any(|lease| lease.worker == id)
    })
}
