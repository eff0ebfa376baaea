//! What can go wrong with the store, and how sled's and the system's errors map to it.

use super::FORMAT;
use std::path::{Path, PathBuf};

/// What can go wrong with the store. Opening failures say what is wrong in one line, without
/// repeating sled's own message.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(
        "the store in {} is in use by another process (a coordinator or `rrm mine`): stop \
         it or give another --data; queries and campaign commands can instead reach a \
         running coordinator with --coordinator URL",
        path.display()
    )]
    Locked { path: PathBuf },
    #[error("{} is not a directory", path.display())]
    NotADirectory { path: PathBuf },
    #[error(
        "{} holds no store (is --data mistyped? `rrm mine`, `rrm coordinator` and \
         `rrm campaign create` start one)",
        path.display()
    )]
    Missing { path: PathBuf },
    #[error("no permission to open the store in {}", path.display())]
    PermissionDenied { path: PathBuf },
    #[error("no space left on the device holding {}", path.display())]
    NoSpace { path: PathBuf },
    #[error("the store in {} is corrupt ({detail})", path.display())]
    CorruptFiles { path: PathBuf, detail: String },
    #[error("cannot open the store in {}: {detail}", path.display())]
    Open { path: PathBuf, detail: String },
    #[error("reading or writing the store in {} failed: {detail}", path.display())]
    Io { path: PathBuf, detail: String },
    #[error("store: {0}")]
    Sled(sled::Error),
    #[error(
        "the store in {} is missing acknowledged results: its commit log ends at {last} but \
         {acknowledged} commits were acknowledged ({} missing); it was damaged or rolled \
         back: restore a backup (`rrm store import`) or check it with `rrm store verify`",
        path.display(),
        acknowledged - last
    )]
    BehindMark {
        path: PathBuf,
        acknowledged: u64,
        last: u64,
    },
    #[error(
        "the store's acknowledged-commits mark {} is missing, though the store has had one: \
         results it acknowledged may be missing too; put the file back, or restore a backup \
         (`rrm store import`)",
        path.display()
    )]
    MarkMissing { path: PathBuf },
    #[error("no space left on the device holding {}: free space, then retry", path.display())]
    DiskFull { path: PathBuf },
    #[error(
        "the store's writes stopped ({0}); they resume once it is reopened, which a \
         coordinator does by itself when its disk has room"
    )]
    WritesStopped(String),
    #[error("the store in {} is being reopened after its writes stopped; retry shortly", path.display())]
    Reopening { path: PathBuf },
    #[error("the store in {} could not be reopened: calls still hold it", path.display())]
    Busy { path: PathBuf },
    #[error("store: corrupt {what}: {detail}")]
    Corrupt { what: &'static str, detail: String },
    #[error("campaign {0:?} already exists")]
    CampaignExists(String),
    #[error("invalid campaign: {0}")]
    InvalidCampaign(#[from] rrm_model::SpecError),
    #[error(
        "the store in {} has schema version {found}, this rrm reads version {FORMAT}; \
         mine into a new --data directory",
        path.display()
    )]
    OldFormat { path: PathBuf, found: u32 },
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// Sled's errors, sorted: damaged data and a full disk are told apart from the rest.
impl From<sled::Error> for StoreError {
    fn from(error: sled::Error) -> StoreError {
        match error {
            sled::Error::Corruption { at, .. } => StoreError::Corrupt {
                what: "data",
                detail: match at {
                    Some(at) => format!("unreadable data at {at:?}; run `rrm store verify`"),
                    None => "unreadable data; run `rrm store verify`".into(),
                },
            },
            sled::Error::Io(e) if e.raw_os_error() == Some(libc::ENOSPC) => StoreError::DiskFull {
                path: PathBuf::new(),
            },
            other => StoreError::Sled(other),
        }
    }
}

impl StoreError {
    /// Whether the store cannot write for now and will again by itself: its writes
    /// stopped, or it is being reopened.
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            StoreError::WritesStopped(_) | StoreError::Reopening { .. } | StoreError::Busy { .. }
        )
    }

    /// Whether the error is the disk being full (nothing is wrong with the data).
    pub fn is_disk_full(&self) -> bool {
        matches!(
            self,
            StoreError::NoSpace { .. } | StoreError::DiskFull { .. }
        )
    }
}

/// An I/O error on a file of the store in `dir`.
pub(crate) fn io_error(dir: &Path, error: std::io::Error) -> StoreError {
    let full = matches!(error.raw_os_error(), Some(libc::ENOSPC | libc::EDQUOT));
    match full {
        true => StoreError::DiskFull {
            path: dir.to_path_buf(),
        },
        false => StoreError::Io {
            path: dir.to_path_buf(),
            detail: error.to_string(),
        },
    }
}

/// Says what is wrong when sled cannot open the store in `dir`.
pub(crate) fn open_error(dir: &Path, error: sled::Error) -> StoreError {
    let path = dir.to_path_buf();
    match error {
        // sled reports a lock held by another process as an `Other` error with this text.
        sled::Error::Io(e) if e.to_string().contains("could not acquire lock") => {
            StoreError::Locked { path }
        }
        sled::Error::Io(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            StoreError::PermissionDenied { path }
        }
        sled::Error::Io(e) if e.raw_os_error() == Some(libc::ENOSPC) => {
            StoreError::NoSpace { path }
        }
        sled::Error::Io(e) => StoreError::Open {
            path,
            detail: e.to_string(),
        },
        sled::Error::Corruption { at, .. } => StoreError::CorruptFiles {
            path,
            detail: match at {
                Some(at) => format!("unreadable data at {at:?}"),
                None => "unreadable data".into(),
            },
        },
        other => StoreError::Open {
            path,
            detail: other.to_string(),
        },
    }
}
