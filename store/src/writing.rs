//! How the store writes: every write is one group of changes, appended to the journal
//! and then applied to sled under the journal's lock, so that sled sees the journal's
//! order; flushes sync the journal and raise the acknowledged mark; checkpoints flush
//! sled and delete the journal files it covers; opening replays what sled lacks.

use super::durability::{check_mark, MARK_KEPT_KEY};
use super::files::{lock, Trees};
use super::journal::{parse_record, read, remove, Change, Journal, Table, APPLIED_KEY, INTENT_KEY};
use super::keys::last_commit_in;
use super::{io_error, Result, Store, StoreError};
use std::fs::File;
use std::io;
use std::path::Path;

impl Store {
    /// Writes `changes` as one group: to the journal, then to sled.
    pub(crate) fn write(&self, changes: Vec<Change>) -> Result<()> {
        self.write_checked(|| Ok((changes, ())))
    }

    /// Writes the changes `build` returns as one group, with no other write between
    /// what `build` reads and the group (for a write that depends on what is stored).
    pub(crate) fn write_checked<T>(
        &self,
        build: impl FnOnce() -> Result<(Vec<Change>, T)>,
    ) -> Result<T> {
        let files = self.files()?;
        let mut active = files.journal.lock();
        if let Some(why) = files.journal.failure() {
            return Err(StoreError::WritesStopped(why));
        }
        let (changes, built) = build()?;
        if changes.is_empty() {
            return Ok(built);
        }
        let (group, record) = active.append(&changes);
        let intent = (changes.len() > 1).then_some(record.as_slice());
        if let Err(error) = apply(|table| files.tree(table), group, &changes, intent) {
            files
                .journal
                .fail(format!("applying group {group} to sled failed: {error}"));
            return Err(error.into());
        }
        Ok(built)
    }

    /// The last group sled holds.
    fn applied(trees: &Trees) -> Result<u64> {
        match trees.of(Table::Meta).get(APPLIED_KEY)? {
            None => Ok(0),
            Some(bytes) => Ok(u64::from_be_bytes(bytes.as_ref().try_into().map_err(
                |_| StoreError::Corrupt {
                    what: "journal position",
                    detail: format!("{} bytes", bytes.len()),
                },
            )?)),
        }
    }

    /// Opens the journal of a store whose sled `db` and `trees` were just opened:
    /// completes the group sled may hold in part (from its intent), replays the groups
    /// sled lacks, makes sled durable, checks the acknowledged mark, and only then
    /// deletes the old journal files (a store refused keeps them) and starts a new one.
    /// Returns the journal and the mark.
    pub(crate) fn recover_journal(
        dir: &Path,
        db: &sled::Db,
        trees: &Trees,
    ) -> Result<(Journal, u64)> {
        let failed = |error: io::Error| io_error(dir, error);
        let tree = |table: Table| trees.of(table);
        let mut last = Store::applied(trees)?;
        let mut replayed = 0;
        let intent = tree(Table::Meta).get(INTENT_KEY)?;
        if let Some(((number, changes), _)) = intent.as_deref().and_then(parse_record) {
            if Some(number) == last.checked_add(1) {
                apply(tree, number, &changes, None)?;
                (last, replayed) = (number, 1);
            }
        }
        let (groups, files) = read(dir, last).map_err(failed)?;
        for (number, changes) in &groups {
            apply(tree, *number, changes, None)?;
            last = *number;
        }
        replayed += groups.len() as u64;
        if replayed > 0 || !files.is_empty() {
            // What sled holds may be in the page cache only (its last process was
            // killed): on disk before the journal goes.
            db.flush()?;
            File::open(dir.join("db"))
                .and_then(|db| db.sync_all())
                .map_err(failed)?;
        }
        let kept = tree(Table::Meta).contains_key(MARK_KEPT_KEY)?;
        let acknowledged = check_mark(dir, last_commit_in(tree(Table::Commits))?, kept)?;
        let (_, error) = remove(files);
        error.map_or(Ok(()), Err).map_err(failed)?;
        let mut journal = Journal::start(dir, last).map_err(failed)?;
        journal.replayed = replayed;
        Ok((journal, acknowledged))
    }

    /// How many journal groups opening the store replayed into sled.
    pub fn replayed_groups(&self) -> u64 {
        self.files().map_or(0, |files| files.journal.replayed)
    }

    /// Makes every write so far durable (in the journal), and raises the
    /// acknowledged-commits mark to the last commit written before the flush began.
    pub fn flush_blocking(&self) -> Result<()> {
        let last = self.last_commit()?;
        let synced = self
            .files()?
            .journal
            .sync()
            .map_err(|error| io_error(&self.dir, error))
            .and_then(|()| self.acknowledge(last));
        *lock(&self.flush_failure) = synced.as_ref().err().map(ToString::to_string);
        synced
    }

    /// Whether the journal has grown or aged enough for a [`Store::checkpoint_journal`].
    pub fn journal_checkpoint_due(&self) -> bool {
        self.files()
            .is_ok_and(|files| files.journal.checkpoint_due())
    }

    /// Makes sled durable up to now and deletes the journal files that covers, so the
    /// journal stays small and opening replays little.
    pub fn checkpoint_journal(&self) -> Result<()> {
        let failed = |error: io::Error| io_error(&self.dir, error);
        let files = self.files()?;
        let closed = files.journal.rotate().map_err(failed)?;
        if let Err(error) = files.db.flush() {
            files.journal.keep(closed);
            // sled takes nothing more after an I/O error: only a reopen repairs it.
            files
                .journal
                .fail(format!("sled could not make its writes durable: {error}"));
            return Err(self.located(error));
        }
        files.journal.retire(closed).map_err(failed)
    }
}

/// Applies one group to sled (its trees by table), then records it applied. A group of
/// several changes first leaves its whole record as its intent: sled recovers a prefix
/// of its inserts, so if any of them survives a crash the intent does, and opening
/// completes the group even when the journal never got it to disk.
fn apply<'a>(
    tree: impl Fn(Table) -> &'a sled::Tree,
    group: u64,
    changes: &[Change],
    intent: Option<&[u8]>,
) -> sled::Result<()> {
    if let Some(record) = intent {
        tree(Table::Meta).insert(INTENT_KEY, record)?;
    }
    for change in changes {
        match &change.value {
            Some(value) => tree(change.table).insert(&change.key, value.as_slice())?,
            None => tree(change.table).remove(&change.key)?,
        };
    }
    tree(Table::Meta).insert(APPLIED_KEY, &group.to_be_bytes())?;
    Ok(())
}
