//! Free space before new work: below a reserve on the store's volume the coordinator
//! leases nothing (`DiskLow`, which becomes `RESOURCE_EXHAUSTED`) and takes up leasing
//! again by itself once space returns. Results of units already leased are still
//! taken: the reserve is there so that they fit. Reads never need space.

use super::{Coordinator, CoordinatorError, Result};
use rrm_store::Space;
use std::time::{Duration, Instant};

/// How much free space the coordinator keeps for itself.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DiskReserve {
    /// This many bytes.
    Bytes(u64),
    /// This share (0 to 1) of the volume.
    Share(f64),
    /// The smaller of 256 MiB and 2 % of the volume: enough for the results in flight
    /// on a large volume, and not most of a small one.
    Default,
}

impl DiskReserve {
    /// The reserve in bytes on a volume of `total` bytes.
    pub fn bytes(self, total: u64) -> u64 {
        match self {
            DiskReserve::Bytes(bytes) => bytes,
            DiskReserve::Share(share) => (total as f64 * share) as u64,
            DiskReserve::Default => (256 << 20).min(total / 50),
        }
    }
}

/// Where the free space comes from: the store's volume, or a test's stand-in.
pub type SpaceProbe = Box<dyn Fn() -> std::io::Result<Space> + Send + Sync>;

/// Free space a reopen needs at least, whatever the reserve.
pub const ROOM_TO_REOPEN: u64 = 4 << 20;

/// A free-space reading is trusted this long: a lease costs no system call.
const READING_AGE: Duration = Duration::from_millis(500);

/// The reserve, the probe and its last reading.
pub(super) struct DiskGuard {
    reserve: DiskReserve,
    probe: SpaceProbe,
    last: Option<(Instant, std::io::Result<Space>)>,
}

impl DiskGuard {
    pub(super) fn new(reserve: DiskReserve, probe: SpaceProbe) -> DiskGuard {
        DiskGuard {
            reserve,
            probe,
            last: None,
        }
    }

    /// The last reading's free space, if it could be read.
    fn available(&self) -> Option<u64> {
        match &self.last {
            Some((_, Ok(space))) => Some(space.available),
            _ => None,
        }
    }

    /// Refuses new work while free space is below the reserve. A volume whose space
    /// cannot be read does not stop the coordinator (the store's own errors will).
    pub(super) fn check(&mut self) -> Result<()> {
        let fresh = |(read, _): &(Instant, _)| read.elapsed() < READING_AGE;
        if !self.last.as_ref().is_some_and(fresh) {
            self.last = Some((Instant::now(), (self.probe)()));
        }
        match &self.last.as_ref().expect("just read").1 {
            Ok(space) => {
                let reserve = self.reserve.bytes(space.total);
                if space.available < reserve {
                    return Err(CoordinatorError::DiskLow {
                        available: space.available,
                        reserve,
                    });
                }
                Ok(())
            }
            Err(error) => {
                tracing::debug!("reading free space failed: {error}");
                Ok(())
            }
        }
    }
}

impl Coordinator {
    /// Replaces where free space is read from (tests stand in for a full disk).
    pub fn set_space_probe(&self, probe: SpaceProbe) {
        *self.disk.lock().unwrap_or_else(|e| e.into_inner()) =
            DiskGuard::new(self.config.min_free_disk, probe);
    }

    /// Refuses new work while the store's volume is below the reserve.
    pub(super) fn check_disk(&self) -> Result<()> {
        self.disk.lock().unwrap_or_else(|e| e.into_inner()).check()
    }

    /// Whether the store's volume has room to reopen the store after its writes
    /// stopped: its reserve, and at least [`ROOM_TO_REOPEN`] (sled writes as it opens).
    pub fn has_room_to_reopen(&self) -> bool {
        let mut guard = self.disk.lock().unwrap_or_else(|e| e.into_inner());
        guard.check().is_ok() && guard.available().is_none_or(|free| free >= ROOM_TO_REOPEN)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;

    #[test]
    fn the_reserve_refuses_below_and_resumes_above() {
        assert_eq!(DiskReserve::Default.bytes(1 << 40), 256 << 20);
        assert_eq!(DiskReserve::Default.bytes(1000 << 20), 20 << 20);
        assert_eq!(DiskReserve::Share(0.1).bytes(1000), 100);
        let free = Arc::new(AtomicU64::new(50));
        let probe_free = free.clone();
        let mut guard = DiskGuard::new(
            DiskReserve::Bytes(100),
            Box::new(move || {
                Ok(Space {
                    available: probe_free.load(Ordering::SeqCst),
                    total: 1000,
                })
            }),
        );
        assert!(matches!(
            guard.check(),
            Err(CoordinatorError::DiskLow {
                available: 50,
                reserve: 100
            })
        ));
        free.store(500, Ordering::SeqCst);
        std::thread::sleep(READING_AGE);
        assert!(guard.check().is_ok());
    }
}
