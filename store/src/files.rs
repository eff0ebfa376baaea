//! The store's open files: sled's database, its trees and the journal, held as one
//! [`Files`] that [`Store::reopen`] replaces whole. sled stops for good after an I/O
//! error (a full disk, a failed sync), and so does the journal after a failed sync or a
//! group sled could not apply; only closing and opening both again, which replays the
//! journal, repairs that. Callers hold the files only for the length of one call, so a
//! reopen waits for the calls in flight and refuses the ones that arrive meanwhile
//! ([`StoreError::Reopening`]).

use super::journal::{remove, Journal, Table};
use super::{open_error, Result, Store, StoreError};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub(crate) const SEGMENT: usize = 1 << 17;
/// How long a reopen waits for the calls holding the old files, and for sled's lock.
const REOPEN_PATIENCE: Duration = Duration::from_secs(10);

/// One opening of the store's files.
pub(crate) struct Files {
    pub(crate) db: sled::Db,
    trees: Trees,
    pub(crate) journal: Journal,
}

/// The sled tree of each table, found by its table (never by position).
pub(crate) struct Trees {
    meta: sled::Tree,
    campaigns: sled::Tree,
    exhaustive: sled::Tree,
    units: sled::Tree,
    results: sled::Tree,
    hardest: sled::Tree,
    commits: sled::Tree,
    aggregates: sled::Tree,
    mismatches: sled::Tree,
    distrusted: sled::Tree,
    rules: sled::Tree,
}

impl Trees {
    fn open(db: &sled::Db) -> sled::Result<Trees> {
        let open = |table: Table| db.open_tree(table.name());
        Ok(Trees {
            meta: open(Table::Meta)?,
            campaigns: open(Table::Campaigns)?,
            exhaustive: open(Table::Exhaustive)?,
            units: open(Table::Units)?,
            results: open(Table::Results)?,
            hardest: open(Table::Hardest)?,
            commits: open(Table::Commits)?,
            aggregates: open(Table::Aggregates)?,
            mismatches: open(Table::Mismatches)?,
            distrusted: open(Table::Distrusted)?,
            rules: open(Table::Rules)?,
        })
    }

    /// The sled tree of `table`.
    pub(crate) fn of(&self, table: Table) -> &sled::Tree {
        match table {
            Table::Meta => &self.meta,
            Table::Campaigns => &self.campaigns,
            Table::Exhaustive => &self.exhaustive,
            Table::Units => &self.units,
            Table::Results => &self.results,
            Table::Hardest => &self.hardest,
            Table::Commits => &self.commits,
            Table::Aggregates => &self.aggregates,
            Table::Mismatches => &self.mismatches,
            Table::Distrusted => &self.distrusted,
            Table::Rules => &self.rules,
        }
    }
}

/// Why the store cannot take writes now.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WriteTrouble {
    /// Its writes stopped; [`Store::reopen`] brings them back.
    #[error("its writes stopped: {0}")]
    Stopped(String),
    /// A reopen is under way, or the last one failed.
    #[error("it is being reopened")]
    Reopening,
    /// Its last flush failed (a full disk); the next that succeeds clears this.
    #[error("its last flush failed: {0}")]
    FlushFailing(String),
}

impl Files {
    /// Opens sled in `dir`, waiting up to `patience` for a lock its last opening in
    /// this process still holds, and recovers the journal; returns the files and the
    /// acknowledged mark.
    pub(crate) fn open(dir: &Path, patience: Duration) -> Result<(Files, u64)> {
        let asked = Instant::now();
        let db = loop {
            let opened = sled::Config::new()
                .path(dir)
                .segment_size(SEGMENT)
                .open()
                .map_err(|error| open_error(dir, error));
            match opened {
                Err(StoreError::Locked { .. }) if asked.elapsed() < patience => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                opened => break opened?,
            }
        };
        sync_sled_config(dir)?;
        let trees = Trees::open(&db)?;
        let (journal, acknowledged) = Store::recover_journal(dir, &db, &trees)?;
        Ok((Files { db, trees, journal }, acknowledged))
    }

    /// The sled tree of `table`.
    pub(crate) fn tree(&self, table: Table) -> &sled::Tree {
        self.trees.of(table)
    }
}

/// Files closed cleanly leave no journal: sled is flushed and the journal's files go
/// (a failed flush, or a journal that stopped, keeps them for the next opening to replay).
impl Drop for Files {
    fn drop(&mut self) {
        if self.journal.failure().is_none() && self.db.flush().is_ok() {
            let _ = remove(self.journal.open_files());
        }
    }
}

/// Makes sled's `conf` file durable, with its directory entry. sled writes it when it
/// creates a store and never syncs it: a crash soon after could leave it torn, and sled
/// then refuses the store as corrupt (found by `tests/rrm/crash_images.rs`).
fn sync_sled_config(dir: &Path) -> Result<()> {
    let synced = std::fs::File::open(dir.join("conf"))
        .and_then(|conf| conf.sync_all())
        .and_then(|()| std::fs::File::open(dir)?.sync_all());
    synced.map_err(|error| super::io_error(dir, error))
}

impl Store {
    /// The open files, for one call.
    pub(crate) fn files(&self) -> Result<Arc<Files>> {
        lock(&self.files)
            .clone()
            .ok_or_else(|| StoreError::Reopening {
                path: self.dir.clone(),
            })
    }

    /// The sled tree of `table`, for one call.
    pub(crate) fn table(&self, table: Table) -> Result<sled::Tree> {
        Ok(self.files()?.tree(table).clone())
    }

    /// Why the store cannot take writes now, if it cannot.
    pub fn write_trouble(&self) -> Option<WriteTrouble> {
        let Ok(files) = self.files() else {
            return Some(WriteTrouble::Reopening);
        };
        if let Some(why) = files.journal.failure() {
            return Some(WriteTrouble::Stopped(why));
        }
        lock(&self.flush_failure)
            .clone()
            .map(WriteTrouble::FlushFailing)
    }

    /// Closes the store's files and opens them again, which replays the journal into
    /// sled: how writes resume after they stopped. Writes not yet flushed may be lost
    /// (none was acknowledged), so whoever keeps the store's contents in memory reloads
    /// them afterwards. Calls arriving meanwhile are refused; a failed reopen leaves the
    /// store closed, for the next to retry.
    pub fn reopen(&self) -> Result<()> {
        let _one_at_a_time = lock(&self.reopening);
        if let Some(old) = lock(&self.files).take() {
            if let Err(old) = sole_owner(old, REOPEN_PATIENCE) {
                *lock(&self.files) = Some(old);
                return Err(StoreError::Busy {
                    path: self.dir.clone(),
                });
            }
        }
        let (files, acknowledged) = Files::open(&self.dir, REOPEN_PATIENCE)?;
        self.marked
            .fetch_max(acknowledged, std::sync::atomic::Ordering::SeqCst);
        *lock(&self.files) = Some(Arc::new(files));
        *lock(&self.flush_failure) = None;
        Ok(())
    }
}

/// Waits until `files` has no other owner, then drops it; gives it back after
/// `patience`.
fn sole_owner(files: Arc<Files>, patience: Duration) -> std::result::Result<(), Arc<Files>> {
    let asked = Instant::now();
    let mut files = files;
    loop {
        match Arc::try_unwrap(files) {
            Ok(files) => {
                drop(files);
                return Ok(());
            }
            Err(shared) if asked.elapsed() < patience => {
                files = shared;
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(shared) => return Err(shared),
        }
    }
}

/// A mutex's contents, whether or not a thread panicked holding it (what it guards
/// is replaced whole, never left half changed).
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
