//! Faults injected into the journal's file operations: a write that fails, whole or
//! torn half-way, is retried at the same offset and leaves a journal whose records
//! follow one another; a failed sync stops the store's writes (no later flush
//! pretends to succeed) until [`Store::reopen`], after which every acknowledged
//! result is there and writes go on.

use super::*;
use crate::journal::{parse_record, Journal, Table};
use std::sync::atomic::Ordering;

/// The journal of `store` and its fault switches.
fn faults(store: &Store) -> std::sync::Arc<crate::journal::Faults> {
    store.files().unwrap().journal.faults.clone()
}

fn unit_counts() -> (Vec<u8>, Vec<u8>) {
    ((0..100).map(|i| (i % 13) as u8 + 1).collect(), vec![1; 100])
}

/// Commits unit `unit` of `campaign` as commit `unit + 1`.
fn commit_unit(store: &Store, campaign: u32, unit: u64) -> Result<()> {
    let (counts, robots) = unit_counts();
    store.commit_result(&UnitResult {
        campaign,
        unit,
        record: &done(unit + 1),
        move_counts: &counts,
        robots_moved: &robots,
        hardest: &[],
        commit: unit + 1,
    })
}

/// Every record of the journal file at `path`, in order; fails on bytes that are not
/// a whole record.
fn records(path: &Path) -> Vec<u64> {
    let bytes = std::fs::read(path).unwrap();
    let mut rest = bytes.as_slice();
    let mut numbers = Vec::new();
    while !rest.is_empty() {
        let ((number, _), tail) = parse_record(rest).expect("only whole records");
        numbers.push(number);
        rest = tail;
    }
    numbers
}

#[test]
fn a_failed_write_whole_or_torn_is_retried_at_the_same_offset() {
    let dir = tempfile::tempdir().unwrap();
    let journal = Journal::start(dir.path(), 0).unwrap();
    let change = || vec![Change::put(Table::Units, b"k", vec![9; 300])];
    journal.lock().append(&change());
    journal.sync().unwrap();
    journal.faults.torn_writes.store(1, Ordering::SeqCst);
    journal.lock().append(&change());
    let refused = journal.sync().unwrap_err();
    assert_eq!(refused.raw_os_error(), Some(libc::ENOSPC));
    // Half of group 2 is on disk: the file ends in a torn record.
    let path = journal.open_files().pop().unwrap();
    assert!(std::panic::catch_unwind(|| records(&path)).is_err());
    journal.faults.writes.store(1, Ordering::SeqCst);
    journal.lock().append(&change());
    assert!(journal.sync().is_err(), "the second fault");
    assert!(journal.failure().is_none(), "a failed write stops nothing");
    journal.lock().append(&change());
    journal.sync().unwrap();
    // The retry overwrote the torn record: every group once, in order, nothing between.
    assert_eq!(records(&path), [1, 2, 3, 4]);
}

#[test]
fn a_store_whose_flush_failed_on_a_full_disk_says_so_until_one_succeeds() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let id = store.create_campaign(spec("a"), 0).unwrap().id;
    commit_unit(&store, id, 0).unwrap();
    faults(&store).torn_writes.store(1, Ordering::SeqCst);
    assert!(store.flush_blocking().unwrap_err().is_disk_full());
    assert!(matches!(
        store.write_trouble(),
        Some(WriteTrouble::FlushFailing(_))
    ));
    // Writes are still taken; they are acknowledged by the next flush that succeeds.
    commit_unit(&store, id, 1).unwrap();
    store.flush_blocking().unwrap();
    assert_eq!(store.write_trouble(), None);
    assert_eq!(store.marked.load(Ordering::SeqCst), 2);
}

#[test]
fn a_failed_sync_stops_writes_until_the_store_is_reopened() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let id = store.create_campaign(spec("a"), 0).unwrap().id;
    commit_unit(&store, id, 0).unwrap();
    store.flush_blocking().unwrap();
    commit_unit(&store, id, 1).unwrap();
    faults(&store).syncs.store(1, Ordering::SeqCst);
    store.flush_blocking().unwrap_err();
    assert!(matches!(
        store.write_trouble(),
        Some(WriteTrouble::Stopped(_))
    ));
    // No write is taken, and no later flush pretends the lost pages are on disk.
    let refused = commit_unit(&store, id, 2).unwrap_err();
    assert!(matches!(refused, StoreError::WritesStopped(_)), "{refused}");
    assert!(refused.is_transient());
    assert!(store.flush_blocking().is_err());
    assert_eq!(
        store.marked.load(Ordering::SeqCst),
        1,
        "commit 2 unacknowledged"
    );
    assert!(store.units(id).is_ok(), "reads go on");

    store.reopen().unwrap();
    assert_eq!(store.write_trouble(), None);
    assert!(store.unit_results(id, 0).unwrap().is_some(), "acknowledged");
    let last = store.last_commit().unwrap();
    assert!(last >= 1, "the acknowledged commit is there");
    commit_unit(&store, id, 2).unwrap();
    store.flush_blocking().unwrap();
    assert_eq!(store.last_commit().unwrap(), 3);
    assert_eq!(store.marked.load(Ordering::SeqCst), 3);
    drop(store);
    let again = Store::open(dir.path()).unwrap();
    assert_eq!(again.units(id).unwrap().len(), 3);
}

#[test]
fn a_failed_sync_at_a_checkpoint_stops_writes_too() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let id = store.create_campaign(spec("a"), 0).unwrap().id;
    commit_unit(&store, id, 0).unwrap();
    faults(&store).syncs.store(1, Ordering::SeqCst);
    store.checkpoint_journal().unwrap_err();
    assert!(matches!(
        commit_unit(&store, id, 1),
        Err(StoreError::WritesStopped(_))
    ));
    store.reopen().unwrap();
    commit_unit(&store, id, 1).unwrap();
    store.flush_blocking().unwrap();
    assert_eq!(store.units(id).unwrap().len(), 2);
}

#[test]
fn a_reopen_waits_for_the_calls_holding_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    store.create_campaign(spec("a"), 0).unwrap();
    let held = store.files().unwrap();
    let started = std::time::Instant::now();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(200));
            drop(held);
        });
        store.reopen().unwrap();
    });
    assert!(started.elapsed() >= std::time::Duration::from_millis(200));
    assert_eq!(store.campaigns().unwrap().len(), 1);
}
