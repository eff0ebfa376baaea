//! What the store knows of its disk beyond sled: the high-water mark of acknowledged
//! commits, kept in a small file outside sled so that a store that comes back shorter
//! than what was acknowledged (damaged files, a copy taken mid-write, a rolled-back
//! volume) is refused instead of silently serving less; and the free space of the
//! store's volume. Once a store has had a mark, sled says so ([`MARK_KEPT_KEY`]), and
//! a missing mark is refused too: deleting the file cannot turn the check off.

use super::journal::Table;
use super::{Result, Store, StoreError};
use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::Ordering;

/// The high-water mark's file in the store's directory.
pub const MARK_FILE: &str = "acknowledged";
const MARK_HEADER: &str = "rrm acknowledged commits v1";
/// In the meta table once the store has written a mark.
pub(crate) const MARK_KEPT_KEY: &[u8] = b"mark_kept";

/// Space on the store's volume, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Space {
    /// What an unprivileged writer may still use.
    pub available: u64,
    pub total: u64,
}

/// Reads the mark in `dir`: the last commit acknowledged, `None` without a mark.
fn read_mark(dir: &Path) -> Result<Option<u64>> {
    let path = dir.join(MARK_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => {
            return Err(StoreError::Open {
                path: path.clone(),
                detail: format!("reading the acknowledged-commits mark: {error}"),
            })
        }
    };
    let mut lines = text.lines();
    let commit = match (lines.next(), lines.next()) {
        (Some(MARK_HEADER), Some(line)) => line
            .strip_prefix("commit ")
            .and_then(|n| n.parse::<u64>().ok()),
        _ => None,
    };
    commit.map(Some).ok_or_else(|| StoreError::CorruptFiles {
        path,
        detail: "the acknowledged-commits mark is unreadable".into(),
    })
}

/// The mark's text: fixed width, so that it can be rewritten in place.
fn mark_text(commit: u64) -> String {
    format!("{MARK_HEADER}\ncommit {commit:020}\n")
}

/// Writes a new mark file atomically: a new file, synced, renamed over the old one, and
/// the directory synced so that the rename itself survives a crash. Returns it open for
/// the rewrites in place that follow.
fn create_mark(dir: &Path, commit: u64) -> std::io::Result<File> {
    let temporary = dir.join(format!("{MARK_FILE}.new"));
    let mut file = File::create(&temporary)?;
    file.write_all(mark_text(commit).as_bytes())?;
    file.sync_all()?;
    std::fs::rename(&temporary, dir.join(MARK_FILE))?;
    File::open(dir)?.sync_all()?;
    Ok(file)
}

/// Rewrites the mark in place: the same length at the same offset and one data sync,
/// about a sixth of what a new file, a rename and two syncs cost per group flush. The
/// few bytes lie in one sector; a torn write would leave the mark unreadable, which
/// refuses the store rather than trusting it.
fn rewrite_mark(file: &File, commit: u64) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    file.write_all_at(mark_text(commit).as_bytes(), 0)?;
    file.sync_data()
}

/// The mark of the store in `dir` whose commit log ends at `last` (0 without one: a new
/// store, or one from before marks); refuses a store whose log ends before it, and one
/// whose mark is gone although it had one (`kept`).
pub(crate) fn check_mark(dir: &Path, last: u64, kept: bool) -> Result<u64> {
    let acknowledged = match read_mark(dir)? {
        Some(commit) => commit,
        None if kept => {
            return Err(StoreError::MarkMissing {
                path: dir.join(MARK_FILE),
            })
        }
        None => 0,
    };
    if last < acknowledged {
        return Err(StoreError::BehindMark {
            path: dir.to_path_buf(),
            acknowledged,
            last,
        });
    }
    Ok(acknowledged)
}

impl Store {
    /// Records in sled, durably, that this store has a mark: once in its life, after the
    /// mark file exists, so that a crash between the two never refuses a sound store.
    /// Straight into sled and flushed, outside the journal: it is no result.
    pub(crate) fn note_mark_kept(&self) -> Result<()> {
        if self.table(Table::Meta)?.contains_key(MARK_KEPT_KEY)? {
            return Ok(());
        }
        self.table(Table::Meta)?.insert(MARK_KEPT_KEY, &[1])?;
        self.files()?.db.flush()?;
        Ok(())
    }

    /// Raises the mark to `commit` (a commit known to be on disk) if it is below.
    pub(crate) fn acknowledge(&self, commit: u64) -> Result<()> {
        if commit <= self.marked.load(Ordering::SeqCst) {
            return Ok(());
        }
        let mut open = self.mark_file.lock().unwrap_or_else(|e| e.into_inner());
        // Again under the lock: a flush that raced this one may have written a higher mark.
        if commit <= self.marked.load(Ordering::SeqCst) {
            return Ok(());
        }
        let first = open.is_none();
        let written = match open.as_ref() {
            Some(file) => rewrite_mark(file, commit),
            None => create_mark(&self.dir, commit).map(|file| *open = Some(file)),
        };
        written.map_err(|error| super::io_error(&self.dir, error))?;
        if first {
            self.note_mark_kept()?;
        }
        self.marked.fetch_max(commit, Ordering::SeqCst);
        Ok(())
    }

    /// Free and total space on the store's volume.
    pub fn space(&self) -> std::io::Result<Space> {
        space_of(&self.dir)
    }

    /// The store's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// Free and total space on the volume holding `dir`.
pub fn space_of(dir: &Path) -> std::io::Result<Space> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    let mut stats: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `path` is a NUL-terminated string and `stats` a writable statvfs.
    if unsafe { libc::statvfs(path.as_ptr(), &mut stats) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    let block = stats.f_frsize as u64;
    Ok(Space {
        available: stats.f_bavail as u64 * block,
        total: stats.f_blocks as u64 * block,
    })
}
