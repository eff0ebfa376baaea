//! The write-ahead journal: every change to the store is appended here as one group,
//! in order, before it is applied to sled; a flush makes the groups durable with one
//! write and one data sync of one file. sled therefore needs neither transactions nor
//! a flush per group commit: each of those made it write and sync a small buffer, and
//! on a disk limited in I/O operations that bounded the coordinator (BENCHMARKS.md,
//! issue 12). sled is flushed at a checkpoint now and then, after which the journal
//! files it covers are deleted; opening a store replays the groups sled lacks.
//!
//! A journal file `journal-<number of its first group, 20 digits>` holds records:
//! payload length (`u32` LE), CRC-32 of the payload (`u32` LE), payload. A payload is
//! the group's number (`u64` LE) and its changes, each a table byte, the key (`u32` LE
//! length, bytes) and either 0 (removed) or 1 and the value (`u32` LE length, bytes).
//!
//! A group is applied whole or not at all: a record torn at the tail fails its CRC and
//! replay stops there. sled holds the number of the last group applied (`meta` key
//! `journal_group`), inserted after each group's changes; sled recovers a prefix of
//! its inserts, so every group up to that number is whole in it and replay starts
//! after it. sled may also write a group before the journal is synced; a group of
//! several changes therefore leaves its record in sled first (`journal_intent`), from
//! which opening completes it if sled kept only part of it.
//!
//! A failed write keeps its bytes and is retried whole at the same offset, so a record
//! torn by a full disk is overwritten, never followed. A failed sync (the kernel may
//! have dropped the pages it could not write, and a second sync would not know) or a
//! failed sled write stops the journal: no flush succeeds and no write is taken until
//! the store is reopened (`Store::reopen`), which replays. In tests, [`Faults`] fails
//! the file writes and syncs on demand.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

/// The `meta` key of the last group applied to sled.
pub(crate) const APPLIED_KEY: &[u8] = b"journal_group";
/// The `meta` key of the record of the last group of several changes applied to sled,
/// written before its changes (see `writing::apply`).
pub(crate) const INTENT_KEY: &[u8] = b"journal_intent";

/// Whether `key` of `table` is bookkeeping of these files (where sled stands in the
/// journal, whether a mark was written beside them), not the store's contents: exports
/// leave it out.
pub(crate) fn is_bookkeeping(table: Table, key: &[u8]) -> bool {
    table == Table::Meta
        && (key == APPLIED_KEY || key == INTENT_KEY || key == super::durability::MARK_KEPT_KEY)
}

const PREFIX: &str = "journal-";
/// Appended groups are written out (not synced) once this many bytes wait, so that a
/// bulk import does not hold them all in memory.
const SPILL: usize = 4 << 20;
/// A checkpoint is due once the active file holds this much, or [`CHECKPOINT_AGE`] has
/// passed with anything in it.
const CHECKPOINT_BYTES: u64 = 64 << 20;
const CHECKPOINT_AGE: std::time::Duration = std::time::Duration::from_secs(30);

/// The store's tables, by their number in journal records (never renumbered).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Table {
    Meta = 0,
    Campaigns = 1,
    Exhaustive = 2,
    Units = 3,
    Results = 4,
    Hardest = 5,
    Commits = 6,
    Aggregates = 7,
    Mismatches = 8,
    Distrusted = 9,
    Rules = 10,
}

impl Table {
    pub(crate) const ALL: [Table; 11] = [
        Table::Meta,
        Table::Campaigns,
        Table::Exhaustive,
        Table::Units,
        Table::Results,
        Table::Hardest,
        Table::Commits,
        Table::Aggregates,
        Table::Mismatches,
        Table::Distrusted,
        Table::Rules,
    ];

    /// The table whose journal byte (its discriminant) is `byte`.
    fn from_byte(byte: u8) -> Option<Table> {
        Table::ALL.into_iter().find(|&table| table as u8 == byte)
    }

    /// Its sled tree's name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Table::Meta => "meta",
            Table::Campaigns => "campaigns",
            Table::Exhaustive => "exhaustive",
            Table::Units => "units",
            Table::Results => "results",
            Table::Hardest => "hardest",
            Table::Commits => "commits",
            Table::Aggregates => "aggregates",
            Table::Mismatches => "mismatches",
            Table::Distrusted => "distrusted",
            Table::Rules => "rules",
        }
    }
}

/// One key set or removed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Change {
    pub(crate) table: Table,
    pub(crate) key: Vec<u8>,
    pub(crate) value: Option<Vec<u8>>,
}

impl Change {
    pub(crate) fn put(table: Table, key: &[u8], value: Vec<u8>) -> Change {
        Change {
            table,
            key: key.to_vec(),
            value: Some(value),
        }
    }

    pub(crate) fn remove(table: Table, key: &[u8]) -> Change {
        Change {
            table,
            key: key.to_vec(),
            value: None,
        }
    }
}

/// A group read back: its number and changes.
pub(crate) type Group = (u64, Vec<Change>);

/// A group's record: header and payload.
fn encode_group(number: u64, changes: &[Change]) -> Vec<u8> {
    let mut out = vec![0; 8];
    out.extend_from_slice(&number.to_le_bytes());
    let length = |bytes: &[u8]| u32::try_from(bytes.len()).expect("keys and values under 4 GiB");
    for change in changes {
        out.push(change.table as u8);
        out.extend_from_slice(&length(&change.key).to_le_bytes());
        out.extend_from_slice(&change.key);
        match &change.value {
            None => out.push(0),
            Some(value) => {
                out.push(1);
                out.extend_from_slice(&length(value).to_le_bytes());
                out.extend_from_slice(value);
            }
        }
    }
    let payload = &out[8..];
    let header = [
        length(payload).to_le_bytes(),
        crc32fast::hash(payload).to_le_bytes(),
    ]
    .concat();
    out[..8].copy_from_slice(&header);
    out
}

/// The first record of `bytes` and what follows it; `None` if it is torn, fails its
/// CRC or does not parse.
pub(crate) fn parse_record(bytes: &[u8]) -> Option<(Group, &[u8])> {
    let (header, tail) = bytes.split_first_chunk::<8>()?;
    let length = u32::from_le_bytes(header[..4].try_into().ok()?) as usize;
    let crc = u32::from_le_bytes(header[4..].try_into().ok()?);
    let (payload, tail) = tail.split_at_checked(length)?;
    if crc32fast::hash(payload) != crc {
        return None;
    }
    Some((decode_group(payload)?, tail))
}

/// Reads a payload back; `None` if it does not parse (it passed its CRC, so it was
/// written by something else).
fn decode_group(payload: &[u8]) -> Option<Group> {
    let mut cursor = Cursor(payload);
    let number = u64::from_le_bytes(cursor.take(8)?.try_into().ok()?);
    let mut changes = Vec::new();
    while !cursor.0.is_empty() {
        let table = Table::from_byte(cursor.take(1)?[0])?;
        let key = cursor.bytes()?;
        let value = match cursor.take(1)?[0] {
            0 => None,
            1 => Some(cursor.bytes()?),
            _ => return None,
        };
        changes.push(Change { table, key, value });
    }
    Some((number, changes))
}

/// What is left of a payload being read.
struct Cursor<'a>(&'a [u8]);

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, tail) = self.0.split_at_checked(n)?;
        self.0 = tail;
        Some(head)
    }

    /// A length-prefixed byte string.
    fn bytes(&mut self) -> Option<Vec<u8>> {
        let n = u32::from_le_bytes(self.take(4)?.try_into().ok()?);
        self.take(n as usize).map(<[u8]>::to_vec)
    }
}

/// The groups of the journal files in `dir` numbered above `applied`, in order, up to
/// the first torn or missing one; and the files read.
pub(crate) fn read(dir: &Path, applied: u64) -> io::Result<(Vec<Group>, Vec<PathBuf>)> {
    let files = files(dir)?;
    let mut groups = Vec::new();
    let Some(mut next) = applied.checked_add(1) else {
        return Ok((groups, files.into_iter().map(|(_, path)| path).collect()));
    };
    'files: for (_, path) in &files {
        let mut bytes = Vec::new();
        File::open(path)?.read_to_end(&mut bytes)?;
        let mut rest = bytes.as_slice();
        while !rest.is_empty() {
            let Some(((number, changes), tail)) = parse_record(rest) else {
                break 'files;
            };
            rest = tail;
            if number < next {
                continue;
            }
            if number > next {
                // A gap: the groups after it cannot be applied in order.
                break 'files;
            }
            groups.push((number, changes));
            next += 1;
        }
    }
    Ok((groups, files.into_iter().map(|(_, path)| path).collect()))
}

/// The journal files in `dir`, by the number of their first group.
fn files(dir: &Path) -> io::Result<Vec<(u64, PathBuf)>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let first = name
            .to_str()
            .and_then(|name| name.strip_prefix(PREFIX))
            .and_then(|number| number.parse::<u64>().ok());
        if let Some(first) = first {
            files.push((first, entry.path()));
        }
    }
    files.sort();
    Ok(files)
}

/// The journal being appended to.
pub(crate) struct Journal {
    dir: PathBuf,
    active: Mutex<Active>,
    /// Groups replayed when the store was opened.
    pub(crate) replayed: u64,
    /// Why the journal stopped taking writes: a failed sync may have dropped written
    /// pages, and a failed sled write left a group half applied; only reopening the
    /// store (which replays) repairs either.
    failure: Mutex<Option<String>>,
    #[cfg(test)]
    pub(crate) faults: Arc<Faults>,
}

/// Failures a test injects into the journal's file operations, each counting down.
#[cfg(test)]
#[derive(Default)]
pub(crate) struct Faults {
    /// Writes that fail before writing anything.
    pub(crate) writes: std::sync::atomic::AtomicU32,
    /// Writes that write half their bytes, then fail (a disk filling mid-write).
    pub(crate) torn_writes: std::sync::atomic::AtomicU32,
    /// Syncs that fail.
    pub(crate) syncs: std::sync::atomic::AtomicU32,
}

#[cfg(test)]
impl Faults {
    fn take(counter: &std::sync::atomic::AtomicU32) -> bool {
        use std::sync::atomic::Ordering::SeqCst;
        counter
            .fetch_update(SeqCst, SeqCst, |n| n.checked_sub(1))
            .is_ok()
    }

    fn write(&self, file: &File, bytes: &[u8], offset: u64) -> io::Result<()> {
        let full = || io::Error::from_raw_os_error(libc::ENOSPC);
        if Faults::take(&self.torn_writes) {
            file.write_all_at(&bytes[..bytes.len() / 2], offset)?;
            return Err(full());
        }
        if Faults::take(&self.writes) {
            return Err(full());
        }
        file.write_all_at(bytes, offset)
    }

    fn sync(&self, file: &File) -> io::Result<()> {
        if Faults::take(&self.syncs) {
            return Err(io::Error::from_raw_os_error(libc::EIO));
        }
        file.sync_data()
    }
}

/// The active file and the groups appended since it was last written.
pub(crate) struct Active {
    last_group: u64,
    pending: Vec<u8>,
    file: Arc<File>,
    path: PathBuf,
    /// Bytes of the file written so far: the next write's offset. A failed write is
    /// retried whole at the same offset, so no torn record is ever followed by another.
    written: u64,
    started: Instant,
    /// Files whose groups a checkpoint has yet to cover (older than `file`).
    retired: Vec<PathBuf>,
    #[cfg(test)]
    faults: Arc<Faults>,
}

impl Journal {
    /// Starts a new, empty journal file for the groups after `last_group`.
    pub(crate) fn start(dir: &Path, last_group: u64) -> io::Result<Journal> {
        let (file, path) = new_file(dir, last_group + 1)?;
        #[cfg(test)]
        let faults = Arc::new(Faults::default());
        Ok(Journal {
            dir: dir.to_path_buf(),
            replayed: 0,
            failure: Mutex::new(None),
            #[cfg(test)]
            faults: faults.clone(),
            active: Mutex::new(Active {
                #[cfg(test)]
                faults,
                last_group,
                pending: Vec::new(),
                file,
                path,
                written: 0,
                started: Instant::now(),
                retired: Vec::new(),
            }),
        })
    }

    /// The journal, for appending: the caller applies the group to sled before letting
    /// go, so that sled sees the groups in journal order.
    pub(crate) fn lock(&self) -> MutexGuard<'_, Active> {
        self.active
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Makes every group appended before the call durable.
    pub(crate) fn sync(&self) -> io::Result<()> {
        if let Some(why) = self.failure() {
            return Err(io::Error::other(why));
        }
        let file = {
            let mut active = self.lock();
            active.write_out()?;
            active.file.clone()
        };
        self.sync_file(&file)
    }

    /// Syncs `file`; a failure stops the journal (see the module doc).
    fn sync_file(&self, file: &File) -> io::Result<()> {
        #[cfg(test)]
        let synced = self.faults.sync(file);
        #[cfg(not(test))]
        let synced = file.sync_data();
        synced.inspect_err(|error| {
            self.fail(format!("syncing the journal failed: {error}"));
        })
    }

    /// Stops the journal taking writes, for `why`.
    pub(crate) fn fail(&self, why: String) {
        let mut failure = self.failure.lock().unwrap_or_else(|e| e.into_inner());
        failure.get_or_insert(why);
    }

    /// Why the journal stopped taking writes, if it did.
    pub(crate) fn failure(&self) -> Option<String> {
        self.failure
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Whether a checkpoint is due.
    pub(crate) fn checkpoint_due(&self) -> bool {
        let active = self.lock();
        let size = active.written + active.pending.len() as u64;
        size >= CHECKPOINT_BYTES || (size > 0 && active.started.elapsed() >= CHECKPOINT_AGE)
    }

    /// Closes the active file (written and synced) and starts another; returns the
    /// files closed, for [`Journal::retire`] once sled holds their groups durably.
    pub(crate) fn rotate(&self) -> io::Result<Vec<PathBuf>> {
        let mut active = self.lock();
        if active.written == 0 && active.pending.is_empty() {
            // Nothing to close: a new file would take this one's name.
            return Ok(std::mem::take(&mut active.retired));
        }
        active.write_out()?;
        // Groups already in the closed file may be waiting for a sync of the file being
        // appended to, which no longer covers them.
        self.sync_file(&active.file)?;
        let (file, path) = new_file(&self.dir, active.last_group + 1)?;
        let old = std::mem::replace(&mut active.path, path);
        active.file = file;
        active.written = 0;
        active.started = Instant::now();
        let mut closed = std::mem::take(&mut active.retired);
        closed.push(old);
        Ok(closed)
    }

    /// Deletes journal files sled now covers; on failure they are kept for the next
    /// checkpoint (replay skips what sled holds).
    pub(crate) fn retire(&self, files: Vec<PathBuf>) -> io::Result<()> {
        let (left, error) = remove(files);
        self.keep(left);
        error.map_or(Ok(()), Err)
    }

    /// Keeps closed files for a later checkpoint.
    pub(crate) fn keep(&self, files: Vec<PathBuf>) {
        self.lock().retired.extend(files);
    }

    /// Every journal file not yet deleted, the active one included.
    pub(crate) fn open_files(&self) -> Vec<PathBuf> {
        let active = self.lock();
        active
            .retired
            .iter()
            .chain([&active.path])
            .cloned()
            .collect()
    }

    /// Bytes in the journal's files, written or waiting.
    pub(crate) fn size(&self) -> u64 {
        let active = self.lock();
        let retired: u64 = active
            .retired
            .iter()
            .filter_map(|path| std::fs::metadata(path).ok())
            .map(|metadata| metadata.len())
            .sum();
        retired + active.written + active.pending.len() as u64
    }
}

impl Active {
    #[cfg(test)]
    pub(crate) fn last_group(&self) -> u64 {
        self.last_group
    }

    /// Appends a group of changes; returns its number and record. Written out (not
    /// synced) once enough waits; a failed write is retried by the next.
    pub(crate) fn append(&mut self, changes: &[Change]) -> (u64, Vec<u8>) {
        let number = self.last_group + 1;
        let record = encode_group(number, changes);
        self.last_group = number;
        self.pending.extend_from_slice(&record);
        if self.pending.len() >= SPILL {
            // An error here resurfaces at the next sync, which retries the write.
            let _ = self.write_out();
        }
        (number, record)
    }

    fn write_out(&mut self) -> io::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        #[cfg(test)]
        self.faults.write(&self.file, &self.pending, self.written)?;
        #[cfg(not(test))]
        self.file.write_all_at(&self.pending, self.written)?;
        self.written += self.pending.len() as u64;
        self.pending.clear();
        Ok(())
    }
}

/// Deletes `files`; returns those left and the last error.
pub(crate) fn remove(files: Vec<PathBuf>) -> (Vec<PathBuf>, Option<io::Error>) {
    let mut left = Vec::new();
    let mut failed = None;
    for path in files {
        match std::fs::remove_file(&path) {
            Err(error) if error.kind() != io::ErrorKind::NotFound => {
                left.push(path);
                failed = Some(error);
            }
            _ => {}
        }
    }
    (left, failed)
}

/// Creates the journal file for groups from `first` on, and syncs the directory so
/// that the file itself survives a crash along with the groups later synced into it.
fn new_file(dir: &Path, first: u64) -> io::Result<(Arc<File>, PathBuf)> {
    let path = dir.join(format!("{PREFIX}{first:020}"));
    let file = File::options()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&path)?;
    File::open(dir)?.sync_all()?;
    Ok((Arc::new(file), path))
}
