//! What `rrm-dev load-test` prints of a load: rates and percentiles as the clients saw
//! them, and where a round trip's time went inside the coordinator (its stage
//! counters), so that a slow run explains itself.

use rrm_coordinator::stages::{Stage, StageTimes};
use std::io::Write;
use std::time::Duration;

/// The `p` quantile (0 to 1) of sorted durations, in milliseconds.
pub(super) fn percentile_ms(sorted: &[Duration], p: f64) -> f64 {
    sorted
        .get(((sorted.len() as f64 * p) as usize).min(sorted.len().saturating_sub(1)))
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

/// Prints the mean time per round trip of each stage, nested as a Submit passes them,
/// and what the coordinator's handlers do not account for.
pub(super) fn where_time_went(
    out: &mut impl Write,
    stages: &StageTimes,
    round_trips: usize,
    mean_round_trip: Duration,
) -> std::io::Result<()> {
    let per_round_trip = |stage| ms(stages.of(stage).1) / round_trips.max(1) as f64;
    let mean_of = |stage| {
        let (count, time) = stages.of(stage);
        ms(time) / count.max(1) as f64
    };
    let lease = per_round_trip(Stage::LeaseCall);
    let submit = per_round_trip(Stage::SubmitCall);
    let before_flush = per_round_trip(Stage::CheckPermit)
        + per_round_trip(Stage::BlockingQueue)
        + per_round_trip(Stage::Checking);
    let flush_queue = per_round_trip(Stage::FlushQueue);
    let total = ms(mean_round_trip);
    let (flushes, _) = stages.of(Stage::Flush);
    let (flushed_writes, _) = stages.of(Stage::FlushQueue);
    let (locks, _) = stages.of(Stage::LockWait);
    writeln!(
        out,
        "where a round trip's {total:.2} ms went (means per round trip, from the coordinator's stage counters):"
    )?;
    let rows = [
        ("Lease call in the coordinator", lease, 0),
        ("Submit call in the coordinator", submit, 0),
        (
            "waiting for a checking permit",
            per_round_trip(Stage::CheckPermit),
            1,
        ),
        (
            "waiting for a blocking thread",
            per_round_trip(Stage::BlockingQueue),
            1,
        ),
        (
            "checking (the lock and store writes within)",
            per_round_trip(Stage::Checking),
            1,
        ),
        (
            "of which the coordinator solving units in full",
            per_round_trip(Stage::SolvingInFull),
            2,
        ),
        ("waiting for its flush to start", flush_queue, 1),
        (
            "its flush, and waking up after it",
            (submit - before_flush - flush_queue).max(0.0),
            1,
        ),
        (
            "outside the handlers: network, HTTP/2, scheduling, clients",
            (total - lease - submit).max(0.0),
            0,
        ),
    ];
    for (what, took, depth) in rows {
        writeln!(
            out,
            "  {:indent$}{what:<width$} {took:>8.3} ms {:>5.1} %",
            "",
            100.0 * took / total.max(f64::MIN_POSITIVE),
            indent = 2 * depth,
            width = 60 - 2 * depth,
        )?;
    }
    writeln!(
        out,
        "  the state's lock: taken {:.1} times per round trip, {:.3} ms waiting and {:.3} ms held (store writes {:.3} ms)",
        locks as f64 / round_trips.max(1) as f64,
        per_round_trip(Stage::LockWait),
        per_round_trip(Stage::LockHeld),
        per_round_trip(Stage::StoreWrite),
    )?;
    writeln!(
        out,
        "  group flushes: {flushes}, {:.3} ms each, {:.1} writes each",
        mean_of(Stage::Flush),
        flushed_writes as f64 / flushes.max(1) as f64,
    )
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}
