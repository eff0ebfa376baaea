//! Who may call what: bearer tokens, their roles, and the gate in front of each service.
//!
//! Tokens are stored hashed ([`rrm_proto::access::token_hash`]) in tokens files, one per
//! line: `NAME ROLE sha256:HEX`. A [`Keyring`] holds the tokens of all files and reloads
//! them when a file changes, so a token is rotated by adding the new one, moving clients
//! over and removing the old one, with no restart. With no token configured at all every
//! call is let through: the zero-configuration loopback setup of `rrm mine`.

use crate::connections::Prover;
use crate::refusals::RefusalLog;
use rrm_proto::access::{bearer_token, token_hash};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime};
use tonic::service::Interceptor;
use tonic::{Request, Status};

/// A fresh token: `rrm_` and 32 bytes of the system's random generator in hex.
pub fn fresh_token() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)?;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Ok(format!("rrm_{hex}"))
}

/// What a token allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// Lease, heartbeat and submit (`Mining`).
    Worker,
    /// Create campaigns (`Campaigns`), and read.
    Admin,
    /// Read results (`Query`, the dashboard).
    Read,
}

impl std::str::FromStr for Role {
    type Err = String;
    fn from_str(text: &str) -> Result<Role, String> {
        match text {
            "worker" => Ok(Role::Worker),
            "admin" => Ok(Role::Admin),
            "read" => Ok(Role::Read),
            other => Err(format!("unknown role {other:?}: worker, admin or read")),
        }
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Role::Worker => "worker",
            Role::Admin => "admin",
            Role::Read => "read",
        })
    }
}

/// The authenticated caller of a request, put in its extensions by the gate. Absent when
/// no tokens are configured.
#[derive(Clone, Debug)]
pub struct Caller {
    /// The token's name: the caller's identity in leases and logs.
    pub name: String,
    pub role: Role,
    /// Holds the token [`Keyring::own_worker`] made for a worker of this very process
    /// (`rrm mine`'s): its results come from this process's own solver.
    pub own_process: bool,
}

/// Why a tokens file was refused.
#[derive(Debug, thiserror::Error)]
pub enum TokensError {
    #[error("cannot read tokens file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {reason}")]
    File { path: PathBuf, reason: String },
    #[error("{path}:{line}: {reason}")]
    Line {
        path: PathBuf,
        line: usize,
        reason: String,
    },
}

/// One file's tokens: hash → caller.
type Entries = HashMap<String, Caller>;

/// Parses a tokens file's text (`path` only names it in errors).
fn parse(path: &Path, text: &str) -> Result<Entries, TokensError> {
    let mut entries = Entries::new();
    let mut names = std::collections::HashSet::new();
    for (index, line) in text.lines().enumerate() {
        let fail = |reason: String| TokensError::Line {
            path: path.to_path_buf(),
            line: index + 1,
            reason,
        };
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [name, role, hash] = fields[..] else {
            return Err(fail("expected `NAME ROLE sha256:HEX`".into()));
        };
        let role: Role = role.parse().map_err(fail)?;
        let hex = hash.strip_prefix("sha256:").ok_or_else(|| {
            fail("the hash must start with sha256: (see `rrm token hash`)".into())
        })?;
        if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(fail("the hash must be 64 hex digits".into()));
        }
        if !names.insert(name.to_string()) {
            return Err(fail(format!("the name {name:?} is given twice")));
        }
        let caller = Caller {
            name: name.to_string(),
            role,
            own_process: false,
        };
        if entries
            .insert(format!("sha256:{}", hex.to_ascii_lowercase()), caller)
            .is_some()
        {
            return Err(fail("this token is listed twice".into()));
        }
    }
    Ok(entries)
}

/// A tokens file and what was last read from it, or tokens made in memory.
struct Source {
    path: PathBuf,
    /// `None` for tokens made in memory: there is no file to reload.
    stamp: Option<Stamp>,
    entries: Entries,
    /// A `--read-token-file`: only read tokens may be listed.
    read_only: bool,
}

impl Source {
    fn load(path: &Path, read_only: bool) -> Result<Source, TokensError> {
        let read_error = |source| TokensError::Read {
            path: path.to_path_buf(),
            source,
        };
        let stamp = stamp(path).map_err(read_error)?;
        let text = std::fs::read_to_string(path).map_err(read_error)?;
        let entries = parse(path, &text)?;
        if read_only {
            if let Some(caller) = entries.values().find(|caller| caller.role != Role::Read) {
                return Err(TokensError::File {
                    path: path.to_path_buf(),
                    reason: format!(
                        "{:?} has role {}: a read tokens file holds read tokens only",
                        caller.name, caller.role
                    ),
                });
            }
        }
        Ok(Source {
            path: path.to_path_buf(),
            stamp: Some(stamp),
            entries,
            read_only,
        })
    }

    fn has_reader(&self) -> bool {
        self.entries
            .values()
            .any(|caller| caller.role == Role::Read)
    }
}

/// When a file was last modified, and its length: a change of either means a new text.
type Stamp = (SystemTime, u64);

fn stamp(path: &Path) -> std::io::Result<Stamp> {
    let metadata = std::fs::metadata(path)?;
    Ok((metadata.modified()?, metadata.len()))
}

/// A name given in two files: both tokens would act as one worker.
fn shared_name(sources: &[Source], candidate: &Source, skip: Option<usize>) -> Option<String> {
    sources
        .iter()
        .enumerate()
        .filter(|(index, _)| Some(*index) != skip)
        .flat_map(|(_, source)| source.entries.values())
        .find(|caller| {
            candidate
                .entries
                .values()
                .any(|other| other.name == caller.name)
        })
        .map(|caller| caller.name.clone())
}

/// The valid tokens of all files, shared by every gate; cheap to clone.
#[derive(Clone, Default)]
pub struct Keyring {
    sources: Arc<RwLock<Vec<Source>>>,
    /// Reads need a token: a read tokens file was given, or a read token was seen once.
    /// Never unset, so withdrawing the last read token does not open reads to all.
    reads_locked: Arc<AtomicBool>,
}

impl Keyring {
    /// The tokens of `tokens` files (any role) and `read_only` files (read tokens only;
    /// giving one locks reads even while it is empty); no files at all let every call
    /// through. Any unreadable or malformed file, or a name given in two files, is an
    /// error.
    pub fn load(tokens: &[PathBuf], read_only: &[PathBuf]) -> Result<Keyring, TokensError> {
        let mut sources: Vec<Source> = Vec::new();
        let files = tokens
            .iter()
            .map(|p| (p, false))
            .chain(read_only.iter().map(|p| (p, true)));
        for (path, read_only) in files {
            let source = Source::load(path, read_only)?;
            if let Some(name) = shared_name(&sources, &source, None) {
                return Err(TokensError::File {
                    path: path.clone(),
                    reason: format!("the name {name:?} is also given in another tokens file"),
                });
            }
            sources.push(source);
        }
        let locked = !read_only.is_empty() || sources.iter().any(Source::has_reader);
        Ok(Keyring {
            sources: Arc::new(RwLock::new(sources)),
            reads_locked: Arc::new(AtomicBool::new(locked)),
        })
    }

    /// A keyring holding one worker token, made here from the system's random generator
    /// and never written anywhere, for a worker in this process; returns the token. With
    /// it enforced, no other process can call `Mining` (nor `Campaigns`: no admin token
    /// exists), and the results of the one that can come from this process's own solver.
    pub fn own_worker(name: &str) -> Result<(Keyring, String), getrandom::Error> {
        let token = fresh_token()?;
        let caller = Caller {
            name: name.to_string(),
            role: Role::Worker,
            own_process: true,
        };
        let source = Source {
            path: PathBuf::new(),
            stamp: None,
            entries: Entries::from([(token_hash(&token), caller)]),
            read_only: false,
        };
        let keyring = Keyring {
            sources: Arc::new(RwLock::new(vec![source])),
            reads_locked: Arc::default(),
        };
        Ok((keyring, token))
    }

    /// Whether any tokens file is configured (an emptied file locks everyone out rather
    /// than opening the door).
    pub fn is_enforced(&self) -> bool {
        !self.read().is_empty()
    }

    /// Whether reads (Query, dashboard) need a token.
    pub fn reads_need_token(&self) -> bool {
        self.reads_locked.load(Ordering::SeqCst)
    }

    /// The caller holding `token`, if it is valid.
    pub fn caller(&self, token: &str) -> Option<Caller> {
        let hash = token_hash(token);
        self.read()
            .iter()
            .find_map(|source| source.entries.get(&hash).cloned())
    }

    /// Re-reads each file that changed since it was last read. A file that cannot be
    /// read or parsed (or that reuses another file's name) keeps its previous tokens, so
    /// a half-written edit locks no worker out; the error is logged.
    pub fn reload_changed(&self) {
        let files: Vec<(PathBuf, Option<Stamp>, bool)> = self
            .read()
            .iter()
            .map(|source| (source.path.clone(), source.stamp, source.read_only))
            .collect();
        for (index, (path, old_stamp, read_only)) in files.into_iter().enumerate() {
            if old_stamp.is_none() || stamp(&path).ok() == old_stamp {
                continue;
            }
            let loaded = Source::load(&path, read_only).and_then(|source| {
                match shared_name(&self.read(), &source, Some(index)) {
                    Some(name) => Err(TokensError::File {
                        path: path.clone(),
                        reason: format!("the name {name:?} is also given in another tokens file"),
                    }),
                    None => Ok(source),
                }
            });
            match loaded {
                Ok(source) => {
                    tracing::info!(path = %path.display(), tokens = source.entries.len(), "tokens reloaded");
                    if source.has_reader() {
                        self.reads_locked.store(true, Ordering::SeqCst);
                    }
                    self.sources.write().unwrap_or_else(|e| e.into_inner())[index] = source;
                }
                Err(error) => tracing::error!("keeping the previous tokens: {error}"),
            }
        }
    }

    /// Reloads changed files every `period` until the returned task is aborted.
    pub fn watch(&self, period: Duration) -> tokio::task::JoinHandle<()> {
        let keyring = self.clone();
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(period);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticks.tick().await;
                let keyring = keyring.clone();
                let _ = tokio::task::spawn_blocking(move || keyring.reload_changed()).await;
            }
        })
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Vec<Source>> {
        self.sources.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Who presents `token` (if any), if allowed to act in one of `roles`. `Ok(None)`:
    /// no token needed here.
    pub fn check(&self, token: Option<&str>, roles: Roles) -> Result<Option<Caller>, Refusal> {
        let needed = match roles {
            Roles::Reader => self.reads_need_token(),
            _ => self.is_enforced(),
        };
        let caller = match token {
            None if !needed => return Ok(None),
            None => return Err(Refusal::Missing),
            Some(token) => self.caller(token),
        };
        match caller {
            None if !needed => Ok(None),
            None => Err(Refusal::Unknown),
            Some(caller) if roles.allows(caller.role) => Ok(Some(caller)),
            Some(caller) => Err(Refusal::Role(caller)),
        }
    }
}

/// The roles a service admits.
#[derive(Clone, Copy, Debug)]
pub enum Roles {
    Worker,
    Admin,
    /// Read or admin.
    Reader,
}

impl Roles {
    fn allows(self, role: Role) -> bool {
        match self {
            Roles::Worker => role == Role::Worker,
            Roles::Admin => role == Role::Admin,
            Roles::Reader => matches!(role, Role::Read | Role::Admin),
        }
    }
}

/// Why a call was refused.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    #[error("this coordinator needs a bearer token")]
    Missing,
    #[error("the token is not valid here")]
    Unknown,
    #[error("token {:?} has role {}, which may not do this", .0.name, .0.role)]
    Role(Caller),
}

/// The interceptor in front of one gRPC service: checks the token, logs refusals in
/// summary (never the token), marks the connection of a call it lets through proven
/// (see `connections`), and hands the caller to the service in the request's extensions.
#[derive(Clone)]
pub struct Gate {
    keyring: Keyring,
    roles: Roles,
    service: &'static str,
    prover: Option<Prover>,
    refusals: Arc<RefusalLog>,
}

impl Gate {
    pub fn new(keyring: Keyring, roles: Roles, service: &'static str) -> Gate {
        Gate {
            keyring,
            roles,
            service,
            prover: None,
            refusals: Arc::default(),
        }
    }

    /// The gate, marking the connections of the calls it lets through with `prover` and
    /// logging refusals in `refusals` (shared by the server's gates).
    pub(crate) fn on_listener(self, prover: Prover, refusals: Arc<RefusalLog>) -> Gate {
        Gate {
            prover: Some(prover),
            refusals,
            ..self
        }
    }
}

impl Interceptor for Gate {
    fn call(&mut self, mut request: Request<()>) -> Result<Request<()>, Status> {
        let token = request
            .metadata()
            .get("authorization")
            .and_then(|value| value.to_str().ok())
            .and_then(bearer_token);
        match self.keyring.check(token, self.roles) {
            Ok(caller) => {
                if let (Some(prover), Some(peer)) = (&self.prover, request.remote_addr()) {
                    prover.prove(peer);
                }
                if let Some(caller) = caller {
                    request.extensions_mut().insert(caller);
                }
                Ok(request)
            }
            Err(refusal) => {
                let peer = request.remote_addr().map(|peer| peer.ip());
                self.refusals.refused(self.service, peer, &refusal);
                Err(match refusal {
                    Refusal::Role(_) => Status::permission_denied(refusal.to_string()),
                    _ => Status::unauthenticated(refusal.to_string()),
                })
            }
        }
    }
}

#[cfg(test)]
mod tests;
