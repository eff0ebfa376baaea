//! Reaching the coordinator: the gRPC client, registration, and the policy for failed
//! calls: which errors are retried, how long the worker waits between attempts and when
//! it gives up.
//!
//! | failure | status codes | policy |
//! |---|---|---|
//! | coordinator unreachable or not speaking gRPC | any code made here from a transport error (it has a source error); `UNAVAILABLE`, `UNKNOWN`, `DEADLINE_EXCEEDED`, `CANCELLED` | retried with backoff until [`Config::give_up_after`](crate::Config::give_up_after) (default: forever) |
//! | coordinator fault (its store failed) | `INTERNAL` from the coordinator | retried with backoff until [`Config::store_fault_limit`](crate::Config::store_fault_limit) |
//! | anything else | | not retried; the caller decides |

use crate::{Config, WorkerError};
use rrm_proto::v1 as pb;
use rrm_proto::v1::mining_client::MiningClient;
use std::time::Duration;
// Tokio's clock, so that tests can move it.
use rrm_proto::access::{AuthChannel, ClientAccess};
use tokio::time::Instant;
use tonic::{Code, Status};

/// A registration as Register returned it: the public id and the secret session every
/// later call presents with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Credentials {
    pub(crate) id: u64,
    pub(crate) session: Vec<u8>,
}

#[cfg(test)]
impl Credentials {
    pub(crate) fn test(id: u64) -> Credentials {
        Credentials {
            id,
            session: vec![id as u8; 16],
        }
    }
}

/// The first wait after a failed call; each further failure doubles it.
const FIRST_WAIT: Duration = Duration::from_millis(100);
/// The longest wait between two attempts.
const LONGEST_WAIT: Duration = Duration::from_secs(5);

/// A client for the coordinator at `address` (`http://` or `https://`) with `access`'s
/// TLS settings and token, whose calls are abandoned after `timeout`. The connection is
/// made on the first call, so an unreachable coordinator is not an error here.
pub(crate) fn client(
    address: &str,
    access: &ClientAccess,
    timeout: Duration,
) -> Result<MiningClient<AuthChannel>, WorkerError> {
    let channel = access.channel(address, timeout)?;
    Ok(MiningClient::new(channel)
        .max_decoding_message_size(rrm_proto::MAX_MINING_MESSAGE)
        .max_encoding_message_size(rrm_proto::MAX_MINING_MESSAGE))
}

/// Introduces this worker to the coordinator: one attempt.
pub(crate) async fn register(
    mut client: MiningClient<AuthChannel>,
    config: &Config,
) -> Result<pb::RegisterReply, Status> {
    client
        .register(pb::RegisterRequest {
            name: config.name.clone(),
            threads: config.threads as u32,
            version: env!("CARGO_PKG_VERSION").to_string(),
        })
        .await
        .map(tonic::Response::into_inner)
}

/// How long failures of each kind are retried before the worker gives up.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    pub unreachable: Option<Duration>,
    pub store_fault: Duration,
}

impl Limits {
    pub(crate) fn of(config: &Config) -> Limits {
        Limits {
            unreachable: config.give_up_after,
            store_fault: config.store_fault_limit,
        }
    }
}

/// Retries of one kind of call: the growing wait between attempts and since when the
/// calls have been failing.
pub(crate) struct Retry {
    wait: Duration,
    failing_since: Option<Instant>,
    /// When the current failure reaches its limit: no wait goes beyond it.
    give_up_at: Option<Instant>,
    limits: Limits,
}

impl Retry {
    pub(crate) fn new(limits: Limits) -> Retry {
        Retry {
            wait: FIRST_WAIT,
            failing_since: None,
            give_up_at: None,
            limits,
        }
    }

    /// A call went through: the next failure starts a fresh count.
    pub(crate) fn succeeded(&mut self) {
        self.wait = FIRST_WAIT;
        self.failing_since = None;
        self.give_up_at = None;
    }

    /// Judges a failed call. `Ok` if it is worth another attempt (logged once, as a
    /// warning saying what `call` was and when the next attempt comes); `Err` when the
    /// failure is not retried or has lasted past its limit. Call [`Retry::wait`] next.
    pub(crate) fn failed(&mut self, call: &str, status: &Status) -> Result<(), WorkerError> {
        let since = *self.failing_since.get_or_insert_with(Instant::now);
        let failing_for = since.elapsed();
        let cause = describe(status);
        // Transport failures come with their cause; h2 gives some of them INTERNAL.
        let transport = std::error::Error::source(status).is_some();
        let limit = match status.code() {
            // RESOURCE_EXHAUSTED: the coordinator sheds load; come back later.
            Code::Unavailable
            | Code::Unknown
            | Code::DeadlineExceeded
            | Code::Cancelled
            | Code::ResourceExhausted => self.limits.unreachable,
            _ if transport => self.limits.unreachable,
            Code::Internal => Some(self.limits.store_fault),
            _ => {
                return Err(WorkerError::Refused(format!("{call}: {cause}")));
            }
        };
        if let Some(limit) = limit.filter(|&limit| failing_for >= limit) {
            return Err(WorkerError::GaveUp {
                call: call.to_string(),
                after: limit,
                cause,
            });
        }
        self.give_up_at = limit.map(|limit| since + limit);
        let next = self.give_up_at.map_or(self.wait, |at| {
            self.wait.min(at.saturating_duration_since(Instant::now()))
        });
        tracing::warn!(
            "{call} failed (for {}s now; next attempt in {} ms): {cause}",
            failing_for.as_secs(),
            next.as_millis()
        );
        Ok(())
    }

    /// Sleeps before the next attempt; the waits double from 100 ms to 5 s, and the last
    /// one ends when the limit is reached, for one more attempt then.
    pub(crate) async fn wait(&mut self) {
        let until = Instant::now() + self.wait;
        tokio::time::sleep_until(self.give_up_at.map_or(until, |limit| until.min(limit))).await;
        self.wait = (self.wait * 2).min(LONGEST_WAIT);
    }
}

/// A failed call in one line: the status message and its chain of causes, each part
/// once (transport errors repeat their own text down the chain).
pub(crate) fn describe(status: &Status) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut add = |part: String| {
        let part = part.trim().to_string();
        if part.is_empty() || parts.iter().any(|p| p.contains(&part)) {
            return;
        }
        // A cause that already quotes the text before it replaces it.
        if parts
            .last()
            .is_some_and(|last| part.contains(last.as_str()))
        {
            parts.pop();
        }
        parts.push(part);
    };
    add(status.message().to_string());
    let mut source = std::error::Error::source(status);
    while let Some(error) = source {
        add(error.to_string());
        source = error.source();
    }
    if parts.is_empty() {
        return status.code().description().to_string();
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Chain(&'static str, Option<Box<Chain>>);

    impl std::fmt::Display for Chain {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }

    impl std::error::Error for Chain {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.1.as_deref().map(|e| e as _)
        }
    }

    #[test]
    fn descriptions_name_each_cause_once() {
        let chain = Chain(
            "tcp connect error",
            Some(Box::new(Chain(
                "tcp connect error",
                Some(Box::new(Chain("Connection refused (os error 111)", None))),
            ))),
        );
        let mut status = Status::unavailable("tcp connect error");
        status.set_source(std::sync::Arc::new(chain));
        assert_eq!(
            describe(&status),
            "tcp connect error: Connection refused (os error 111)"
        );
        assert_eq!(describe(&Status::internal("")), "Internal error");
    }

    #[tokio::test]
    async fn only_http_and_https_urls_are_accepted() {
        let access = ClientAccess::default();
        for refused in ["ftp://127.0.0.1:1", "127.0.0.1:1", "http://"] {
            let Err(error) = client(refused, &access, crate::CALL_TIMEOUT) else {
                panic!("{refused} was accepted");
            };
            assert!(error.to_string().contains(refused), "{error}");
        }
        assert!(client("http://127.0.0.1:1", &access, crate::CALL_TIMEOUT).is_ok());
        assert!(client("https://127.0.0.1:1", &access, crate::CALL_TIMEOUT).is_ok());
    }

    #[tokio::test]
    async fn failures_are_retried_until_their_limit() {
        let mut retry = Retry::new(Limits {
            unreachable: Some(Duration::from_millis(200)),
            store_fault: Duration::from_millis(600),
        });
        let unavailable = Status::unavailable("down");
        assert!(retry.failed("lease", &unavailable).is_ok());
        tokio::time::sleep(Duration::from_millis(300)).await;
        let gave_up = retry.failed("lease", &unavailable).unwrap_err();
        assert!(gave_up.to_string().contains("down"), "{gave_up}");

        // Store faults have their own, longer limit; success resets the count.
        retry.succeeded();
        let fault = Status::internal("store failed");
        assert!(retry.failed("submit", &fault).is_ok());
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(retry.failed("submit", &fault).is_ok());
        tokio::time::sleep(Duration::from_millis(400)).await;
        assert!(matches!(
            retry.failed("submit", &fault),
            Err(WorkerError::GaveUp { .. })
        ));

        // An h2 protocol error (a server not speaking gRPC) is no store fault.
        retry.succeeded();
        let mut garbled = Status::internal("h2 protocol error: frame with invalid size");
        garbled.set_source(std::sync::Arc::new(Chain("frame with invalid size", None)));
        assert!(retry.failed("register", &garbled).is_ok());
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(matches!(
            retry.failed("register", &garbled),
            Err(WorkerError::GaveUp { .. })
        ));

        // Refusals are never retried.
        assert!(matches!(
            retry.failed("register", &Status::failed_precondition("old version")),
            Err(WorkerError::Refused(_))
        ));
    }
}
