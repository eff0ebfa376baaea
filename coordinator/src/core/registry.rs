//! The registered workers: each registration's public id, its secret session, the
//! identity its results are charged to, the threads it declared and when it was last
//! heard from. Registrations are capped per identity and in all; past a cap the longest
//! silent one without a lease makes room. Memory only: a restart forgets them all and
//! workers register again. The clock and "who holds a lease" are the caller's, so this
//! is tested on its own.

use super::{CoordinatorError, Result};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// Bytes of a session secret: guessing one is hopeless.
pub const SESSION_BYTES: usize = 16;

/// The most solver threads one registration is believed to have.
pub const MAX_THREADS: u32 = 256;

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

/// How many registrations there may be.
#[derive(Clone, Copy, Debug)]
pub(super) struct Caps {
    pub per_identity: usize,
    pub all: usize,
}

/// A registered worker.
struct Registration {
    /// Results, failures and verifications are charged to this name.
    identity: String,
    session: [u8; SESSION_BYTES],
    /// Solver threads it declared.
    threads: u32,
    /// Its last authenticated call.
    last_seen: Instant,
}

/// Every registration, by worker id.
#[derive(Default)]
pub(super) struct Registry(HashMap<u64, Registration>);

impl Registry {
    /// Registers a worker at `now`. With a token, its identity is the token's name;
    /// without, each registration is an identity of its own (`name#id`). Past a cap,
    /// the longest silent registration for which `holds_a_lease` is false goes; if there
    /// is none, the newcomer is refused.
    pub(super) fn register(
        &mut self,
        token: Option<String>,
        name: &str,
        threads: u32,
        caps: Caps,
        now: Instant,
        holds_a_lease: impl Fn(u64) -> bool,
    ) -> Result<Session> {
        if let Some(identity) = &token {
            let mine = |r: &Registration| &r.identity == identity;
            if self.0.values().filter(|r| mine(r)).count() >= caps.per_identity {
                let what = "registrations of this identity";
                self.drop_longest_silent(mine, what, caps.per_identity, &holds_a_lease)?;
            }
        }
        if self.0.len() >= caps.all {
            self.drop_longest_silent(|_| true, "registrations", caps.all, &holds_a_lease)?;
        }
        let (worker, secret) = loop {
            let (id, secret) = random_session();
            if id != 0 && !self.0.contains_key(&id) {
                break (id, secret);
            }
        };
        let identity = token.unwrap_or_else(|| format!("{name}#{worker}"));
        let registration = Registration {
            identity,
            session: secret,
            threads,
            last_seen: now,
        };
        self.0.insert(worker, registration);
        Ok(Session { worker, secret })
    }

    /// The worker a call speaks for at `now`: its session must match, and with tokens
    /// the caller's token must be the one it registered with.
    pub(super) fn authenticate(
        &mut self,
        session: &Session,
        token: Option<&str>,
        now: Instant,
    ) -> Result<Worker> {
        let registration = self
            .0
            .get_mut(&session.worker)
            .filter(|r| same_secret(&r.session, &session.secret))
            .ok_or(CoordinatorError::UnknownWorker(session.worker))?;
        if token.is_some_and(|token| token != registration.identity) {
            return Err(CoordinatorError::NotYourWorker(session.worker));
        }
        registration.last_seen = now;
        Ok(Worker {
            id: session.worker,
            identity: registration.identity.clone(),
        })
    }

    /// Drops registrations silent for `idle` at `now` that hold no lease (their workers
    /// register again if they come back).
    pub(super) fn prune_idle(
        &mut self,
        idle: Duration,
        now: Instant,
        holds_a_lease: impl Fn(u64) -> bool,
    ) {
        self.0.retain(|&id, registration| {
            now.saturating_duration_since(registration.last_seen) < idle || holds_a_lease(id)
        });
    }

    /// Leases the registrations of `identity` may hold at once: one per declared thread
    /// and one more each, so that an honest worker always has its next unit.
    pub(super) fn lease_allowance(&self, identity: &str) -> usize {
        self.0
            .values()
            .filter(|registration| registration.identity == identity)
            .map(|registration| registration.threads.clamp(1, MAX_THREADS) as usize + 1)
            .sum()
    }

    /// Whether registration `id` exists (a lease of a registration gone was granted
    /// before a restart, and its holder cannot hand it in).
    pub(super) fn contains(&self, id: u64) -> bool {
        self.0.contains_key(&id)
    }

    /// The identities registered now.
    pub(super) fn identities(&self) -> std::collections::BTreeSet<&str> {
        self.0.values().map(|r| r.identity.as_str()).collect()
    }

    pub(super) fn len(&self) -> usize {
        self.0.len()
    }

    fn drop_longest_silent(
        &mut self,
        among: impl Fn(&Registration) -> bool,
        what: &'static str,
        limit: usize,
        holds_a_lease: &impl Fn(u64) -> bool,
    ) -> Result<()> {
        let mut candidates: Vec<(Instant, u64)> = self
            .0
            .iter()
            .filter(|(_, registration)| among(registration))
            .map(|(&id, registration)| (registration.last_seen, id))
            .collect();
        candidates.sort_unstable();
        let dropped = candidates
            .into_iter()
            .map(|(_, id)| id)
            .find(|&id| !holds_a_lease(id))
            .ok_or(CoordinatorError::TooManyRegistrations { what, limit })?;
        self.0.remove(&dropped);
        Ok(())
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

#[cfg(test)]
mod tests;
