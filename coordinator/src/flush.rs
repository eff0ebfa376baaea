//! Group commit: callers wait for a flush of the store that started after their write,
//! and one flush serves everyone who asked while the previous one ran.

use crate::Coordinator;
use rrm_store::StoreError;
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};

/// How long a flush waits for company: short next to the flush itself.
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

type Waiter = oneshot::Sender<Result<(), FlushError>>;

#[derive(Clone)]
pub(crate) struct GroupFlush {
    requests: mpsc::UnboundedSender<Waiter>,
}

impl GroupFlush {
    pub(crate) fn start(coordinator: Arc<Coordinator>) -> GroupFlush {
        let (requests, mut incoming) = mpsc::unbounded_channel::<Waiter>();
        tokio::spawn(async move {
            while let Some(first) = incoming.recv().await {
                // A moment's wait lets the calls arriving meanwhile share this flush.
                tokio::time::sleep(GATHER).await;
                let mut waiting = vec![first];
                while let Ok(next) = incoming.try_recv() {
                    waiting.push(next);
                }
                let started = std::time::Instant::now();
                let result =
                    match tokio::time::timeout(FLUSH_TIMEOUT, coordinator.store().flush()).await {
                        Ok(flushed) => flushed.map_err(|e| FlushError::Failed(Arc::new(e))),
                        Err(_) => Err(FlushError::TimedOut(FLUSH_TIMEOUT)),
                    };
                coordinator.metrics().flushed(started.elapsed());
                for waiter in waiting {
                    let _ = waiter.send(result.clone());
                }
            }
        });
        GroupFlush { requests }
    }

    /// Returns once everything written before the call is on disk.
    pub(crate) async fn flushed(&self) -> Result<(), FlushError> {
        let (done, wait) = oneshot::channel();
        self.requests.send(done).map_err(|_| FlushError::Stopped)?;
        wait.await.map_err(|_| FlushError::Stopped)?
    }
}
