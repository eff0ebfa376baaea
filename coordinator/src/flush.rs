//! Group commit: callers wait for a flush of the store that started after their write,
//! and one flush serves everyone who asked while the previous one ran.

use crate::stages::Stage;
use crate::Coordinator;
use rrm_store::StoreError;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::oneshot;

/// How long a flush waits for company. Measured (BENCHMARKS.md): without it flushes
/// carry a few writes each and cost more CPU per round trip than they save in latency.
const GATHER: std::time::Duration = std::time::Duration::from_millis(5);

/// Why a write could not be made durable.
#[derive(Clone, Debug, thiserror::Error)]
pub(crate) enum FlushError {
    #[error("the store flusher stopped")]
    Stopped,
    #[error("the store did not flush within {0:?}: is its disk failing?")]
    TimedOut(std::time::Duration),
    /// Shared by every caller the failed flush served.
    #[error("flushing the store failed: {0}")]
    Failed(Arc<StoreError>),
}

/// A flush taking longer fails its callers (their results stay unacknowledged and are
/// sent again) instead of holding them: the disk is failing or full.
const FLUSH_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// A caller waiting for a flush, and since when.
type Waiter = (Instant, oneshot::Sender<Result<(), FlushError>>);

#[derive(Clone)]
pub(crate) struct GroupFlush {
    requests: std::sync::mpsc::Sender<Waiter>,
}

impl GroupFlush {
    /// Starts the flusher: a thread of its own, so that flushes (the journal's and the mark's
    /// fsyncs) block no async thread and need no hand-off to another pool. It ends when
    /// the last handle is dropped.
    pub(crate) fn start(coordinator: Arc<Coordinator>) -> GroupFlush {
        let (requests, incoming) = std::sync::mpsc::channel::<Waiter>();
        std::thread::Builder::new()
            .name("rrm-flush".into())
            .spawn(move || {
                while let Ok(first) = incoming.recv() {
                    // A moment's wait lets the calls arriving meanwhile share this flush
                    // (each flush syncs the journal and the mark, whatever it carries).
                    std::thread::sleep(GATHER);
                    let mut waiting = vec![first];
                    waiting.extend(incoming.try_iter());
                    let started = Instant::now();
                    let stages = coordinator.metrics().stages();
                    for (since, _) in &waiting {
                        stages.record(Stage::FlushQueue, started - *since);
                    }
                    let result = coordinator
                        .store()
                        .flush_blocking()
                        .map_err(|e| FlushError::Failed(Arc::new(e)));
                    let took = started.elapsed();
                    coordinator.metrics().flushed(took);
                    stages.record(Stage::Flush, took);
                    for (_, waiter) in waiting {
                        let _ = waiter.send(result.clone());
                    }
                }
            })
            .expect("the flusher thread starts");
        GroupFlush { requests }
    }

    /// Returns once everything written before the call is on disk; fails when that
    /// takes longer than [`FLUSH_TIMEOUT`].
    pub(crate) async fn flushed(&self) -> Result<(), FlushError> {
        let (done, wait) = oneshot::channel();
        self.requests
            .send((Instant::now(), done))
            .map_err(|_| FlushError::Stopped)?;
        match tokio::time::timeout(FLUSH_TIMEOUT, wait).await {
            Ok(flushed) => flushed.map_err(|_| FlushError::Stopped)?,
            Err(_) => Err(FlushError::TimedOut(FLUSH_TIMEOUT)),
        }
    }
}
