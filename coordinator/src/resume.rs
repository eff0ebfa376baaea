//! Health follows the store's writes, and writes that stopped come back by themselves.
//! While the store cannot write (its writes stopped, it is being reopened, or its last
//! flush failed on a full disk), gRPC health says NOT_SERVING, so that Kubernetes and
//! compose restart the coordinator or route away from it. Once the volume has room
//! again, the coordinator reopens the store ([`Coordinator::resume_writes`]) and says
//! SERVING again: no restart is needed.

use crate::Coordinator;
use rrm_store::WriteTrouble;
use std::sync::Arc;
use std::time::Duration;
use tonic_health::server::HealthReporter;

/// How often the store's writes are looked at.
const LOOK: Duration = Duration::from_secs(1);

/// Watches the store until shutdown, setting `health` by what it sees (see the
/// module doc).
pub(crate) async fn watch(coordinator: Arc<Coordinator>, health: HealthReporter) {
    let mut interval = tokio::time::interval(LOOK);
    let mut serving = true;
    let mut last_failure = None;
    loop {
        interval.tick().await;
        if coordinator.is_shutting_down() {
            return;
        }
        let trouble = coordinator.store().write_trouble();
        if trouble.is_none() != serving {
            serving = trouble.is_none();
            match &trouble {
                None => tracing::info!("the store takes writes again: serving"),
                Some(why) => tracing::error!("the store cannot write ({why}): not serving"),
            }
            crate::service::set_health(&health, serving).await;
        }
        if trouble.is_none() || !coordinator.has_room_to_reopen() {
            continue;
        }
        let repairing = coordinator.clone();
        let repaired = tokio::task::spawn_blocking(move || match trouble {
            // With no results coming in, no flush would find out that space is back.
            Some(WriteTrouble::FlushFailing(_)) => repairing
                .store()
                .flush_blocking()
                .map_err(crate::CoordinatorError::from),
            _ => repairing.resume_writes(),
        });
        match repaired.await {
            Ok(Ok(())) => last_failure = None,
            Ok(Err(error)) => {
                // Said once per cause, not every second.
                let said = error.to_string();
                if last_failure.as_ref() != Some(&said) {
                    tracing::warn!("the store's writes are still failing (retried): {said}");
                    last_failure = Some(said);
                }
            }
            Err(panicked) => tracing::error!("repairing the store's writes panicked: {panicked}"),
        }
    }
}
