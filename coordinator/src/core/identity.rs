//! Who a worker is: registrations (a public id and a secret session every later call
//! presents), the identity results are charged to (the token's name, or without tokens
//! the registration itself), and distrust: an identity whose result was proven wrong
//! leases nothing until an operator clears it, and everything it produced or verified
//! is checked again by someone else.

use super::campaign_state::CampaignState;
use super::{Coordinator, CoordinatorError, Result, State};
use crate::unix_ms;
use rrm_model::{Distrust, UnitState, Verification};

/// A registered worker.
pub(super) struct Registration {
    /// Results, failures and verifications are charged to this name.
    pub(super) identity: String,
    session: [u8; SESSION_BYTES],
    /// Solver threads it declared (see `quotas`).
    pub(super) threads: u32,
    /// Its last authenticated call.
    pub(super) last_seen: std::time::Instant,
}

/// Bytes of a session secret: guessing one is hopeless.
pub const SESSION_BYTES: usize = 16;

/// A worker's id and the secret that proves it, as Register returns them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    pub worker: u64,
    pub secret: [u8; SESSION_BYTES],
}

/// A worker as a call proved it to be: its registration and its identity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Worker {
    pub id: u64,
    pub identity: String,
}

impl Coordinator {
    /// Registers a worker. With a token, its identity is the token's name; without, each
    /// registration is an identity of its own (`name#id`), so two registrations never
    /// count as two opinions only when tokens tell them apart. Past the registration
    /// caps, the longest silent registration without a lease makes room (see `quotas`).
    pub fn register(&self, token: Option<String>, name: &str, threads: u32) -> Result<Session> {
        let mut state = self.lock();
        if let Some(identity) = &token {
            let config = &self.config;
            state.make_room(
                identity,
                config.max_registrations_per_identity,
                config.max_registrations,
            )?;
        } else {
            state.make_room("", usize::MAX, self.config.max_registrations)?;
        }
        let (worker, secret) = loop {
            let (id, secret) = random_session();
            if id != 0 && !state.workers.contains_key(&id) {
                break (id, secret);
            }
        };
        let identity = token.unwrap_or_else(|| format!("{name}#{worker}"));
        state.workers.insert(
            worker,
            Registration {
                identity,
                session: secret,
                threads,
                last_seen: std::time::Instant::now(),
            },
        );
        self.metrics.registered();
        Ok(Session { worker, secret })
    }

    /// The worker a call speaks for: its session must match, and with tokens the
    /// caller's token must be the one it registered with.
    pub fn authenticate(&self, session: &Session, token: Option<&str>) -> Result<Worker> {
        let mut state = self.lock();
        let registration = state
            .workers
            .get_mut(&session.worker)
            .filter(|r| same_secret(&r.session, &session.secret))
            .ok_or(CoordinatorError::UnknownWorker(session.worker))?;
        if token.is_some_and(|token| token != registration.identity) {
            return Err(CoordinatorError::NotYourWorker(session.worker));
        }
        registration.last_seen = std::time::Instant::now();
        Ok(Worker {
            id: session.worker,
            identity: registration.identity.clone(),
        })
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

/// A fresh worker id and session secret from the operating system's generator.
fn random_session() -> (u64, [u8; SESSION_BYTES]) {
    let mut bytes = [0u8; 8 + SESSION_BYTES];
    // Without the system generator nothing here could be secret.
    getrandom::fill(&mut bytes).expect("the system random generator works");
    let (id, secret) = bytes.split_at(8);
    (
        u64::from_le_bytes(id.try_into().expect("8 bytes")),
        secret.try_into().expect("SESSION_BYTES bytes"),
    )
}

/// Compares secrets in time independent of where they differ.
fn same_secret(a: &[u8; SESSION_BYTES], b: &[u8; SESSION_BYTES]) -> bool {
    a.iter().zip(b).fold(0u8, |diff, (x, y)| diff | (x ^ y)) == 0
}

/// A random number in [0, 1) from the operating system's generator: which results are
/// verified and which seeds are re-solved must not be predictable.
pub(super) fn secret_draw() -> f64 {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).expect("the system random generator works");
    (u64::from_le_bytes(bytes) >> 11) as f64 / (1u64 << 53) as f64
}
