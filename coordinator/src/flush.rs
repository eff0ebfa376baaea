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
    /// Shared by every caller the failed flush served.
    #[error("flushing the store failed: {0}")]
    Failed(Arc<StoreError>),
}

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
                let result = coordinator
                    .store()
                    .flush()
                    .await
                    .map_err(|e| FlushError::Failed(Arc::new(e)));
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
