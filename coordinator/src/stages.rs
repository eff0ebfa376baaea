//! Where the coordinator's calls spend their time: a total and a count per [`Stage`]
//! (waiting for the state's mutex, holding it, writing the store, waiting for a
//! checking permit or a blocking thread, waiting for and doing the group flush).
//!
//! The totals are Prometheus counters on `/metrics` (`rrm_stage_seconds_total` and
//! `rrm_stage_passes_total` by `stage`), so `rate()` of one over the other is a stage's mean;
//! `rrm-dev load-test` reads them through [`StageTimes`] before and after its load to say
//! where a round trip went.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::registry::{Registry, Unit};
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

/// A stage of the coordinator's work that a call may wait in or spend time on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// A Lease call in its handler, from its session's check to its reply.
    LeaseCall,
    /// A Submit call in its handler, from its session's check to its durable reply.
    SubmitCall,
    /// Waiting to take the state's mutex.
    LockWait,
    /// Holding the state's mutex (the store writes made under it included).
    LockHeld,
    /// Writing a lease or an accepted result to the store (under the mutex).
    StoreWrite,
    /// A submission waiting for one of the `max_checking` permits.
    CheckPermit,
    /// A submission with its permit waiting for a blocking thread to start on.
    BlockingQueue,
    /// Judging a submission on its blocking thread: checks, the mutex, store writes.
    Checking,
    /// Within `Checking`, a seed unit's checks when the coordinator solves every seed
    /// of it itself (a newcomer's first units, the scheduled checks): what the checks
    /// cost beyond what every Submit costs.
    SolvingInFull,
    /// A call whose writes are done, waiting for the flush that will carry them to
    /// start (the flush before it finishing, then the gathering window).
    FlushQueue,
    /// One group flush (the journal and the acknowledged-commits mark); counted per flush.
    Flush,
}

impl Stage {
    pub const ALL: [Stage; 11] = [
        Stage::LeaseCall,
        Stage::SubmitCall,
        Stage::LockWait,
        Stage::LockHeld,
        Stage::StoreWrite,
        Stage::CheckPermit,
        Stage::BlockingQueue,
        Stage::Checking,
        Stage::SolvingInFull,
        Stage::FlushQueue,
        Stage::Flush,
    ];

    /// Its `stage` label.
    pub fn name(self) -> &'static str {
        match self {
            Stage::LeaseCall => "lease_call",
            Stage::SubmitCall => "submit_call",
            Stage::LockWait => "lock_wait",
            Stage::LockHeld => "lock_held",
            Stage::StoreWrite => "store_write",
            Stage::CheckPermit => "check_permit",
            Stage::BlockingQueue => "blocking_queue",
            Stage::Checking => "checking",
            Stage::SolvingInFull => "solving_in_full",
            Stage::FlushQueue => "flush_queue",
            Stage::Flush => "flush",
        }
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StageLabel {
    stage: &'static str,
}

/// The counters of every stage, registered once; recording is two atomic adds.
pub(crate) struct StageClock {
    seconds: [Counter<f64, AtomicU64>; Stage::ALL.len()],
    events: [Counter; Stage::ALL.len()],
}

impl StageClock {
    /// Counters for every stage, registered in `registry`.
    pub(crate) fn registered(registry: &mut Registry) -> StageClock {
        let seconds = Family::<StageLabel, Counter<f64, AtomicU64>>::default();
        let events = Family::<StageLabel, Counter>::default();
        let label = |stage: Stage| StageLabel {
            stage: stage.name(),
        };
        let clock = StageClock {
            seconds: Stage::ALL.map(|stage| seconds.get_or_create_owned(&label(stage))),
            events: Stage::ALL.map(|stage| events.get_or_create_owned(&label(stage))),
        };
        registry.register_with_unit(
            "stage",
            "Time calls spent in each stage of the coordinator's work since it started: \
             lease_call and submit_call for those calls in their handlers, lock_wait \
             and lock_held for the state's mutex, store_write for leases and results \
             written under it, check_permit and blocking_queue before a submission's \
             check starts, checking for the check itself, flush_queue for a durable \
             write waiting for its flush to start, flush per group flush",
            Unit::Seconds,
            seconds,
        );
        registry.register(
            "stage_passes",
            "Times each stage was passed through (flush: flushes; flush_queue: writes \
             that waited for one)",
            events,
        );
        clock
    }

    pub(crate) fn record(&self, stage: Stage, took: Duration) {
        let index = stage as usize;
        self.seconds[index].inc_by(took.as_secs_f64());
        self.events[index].inc();
    }

    /// Records the time since `started` in `stage`.
    pub(crate) fn since(&self, stage: Stage, started: Instant) {
        self.record(stage, started.elapsed());
    }

    pub(crate) fn snapshot(&self) -> StageTimes {
        StageTimes {
            totals: Stage::ALL.map(|stage| {
                let index = stage as usize;
                (
                    self.events[index].get(),
                    Duration::from_secs_f64(self.seconds[index].get()),
                )
            }),
        }
    }
}

/// The stage totals at one moment: how often each stage was passed and the time spent.
#[derive(Clone, Debug, Default)]
pub struct StageTimes {
    totals: [(u64, Duration); Stage::ALL.len()],
}

impl StageTimes {
    /// How often `stage` was passed through, and the time spent in it in all.
    pub fn of(&self, stage: Stage) -> (u64, Duration) {
        self.totals[stage as usize]
    }

    /// What happened between `earlier` and this.
    pub fn since(&self, earlier: &StageTimes) -> StageTimes {
        StageTimes {
            totals: Stage::ALL.map(|stage| {
                let ((count, time), (before, before_time)) = (self.of(stage), earlier.of(stage));
                (
                    count.saturating_sub(before),
                    time.saturating_sub(before_time),
                )
            }),
        }
    }
}
