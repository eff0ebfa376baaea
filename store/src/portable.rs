//! Backups and migrations: a whole store as one JSON Lines file, independent of sled's
//! files. A header names the schema version; then one line per entry of every tree
//! (tree, key and value in hex, exactly as stored); an end line counts the entries and
//! carries the SHA-256 of every byte before it. Import checks the whole file before it
//! writes anything, and only into an empty store.

use super::journal::{is_bookkeeping, Change, Table};
use super::{Result, Store, StoreError, FORMAT};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::{BufRead, Write};
use std::path::Path;

/// One line of an export.
#[derive(Serialize, Deserialize)]
#[serde(tag = "line", rename_all = "snake_case")]
enum Line {
    Header {
        rrm_store_export: u32,
        format: u32,
    },
    Entry {
        tree: String,
        key: String,
        value: String,
    },
    End {
        entries: u64,
        sha256: String,
    },
}

/// Receives each entry of an export: its line number, tree name, and key and value.
type EntrySink<'a> = dyn FnMut(u64, &str, (Vec<u8>, Vec<u8>)) -> Result<()> + 'a;

/// Entries imported per journal group.
const IMPORT_GROUP: usize = 1024;

/// Version of the export layout itself.
const EXPORT_VERSION: u32 = 1;

/// What an export or import moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Moved {
    pub entries: u64,
    pub bytes: u64,
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// A malformed export.
fn bad(line: u64, detail: impl Into<String>) -> StoreError {
    StoreError::Corrupt {
        what: "export",
        detail: format!("line {line}: {}", detail.into()),
    }
}

impl Store {
    /// Writes the whole store to `out` (see the module doc). `on_entry` is called after
    /// each entry, for progress.
    pub fn export(&self, out: &mut impl Write, on_entry: &mut dyn FnMut()) -> Result<Moved> {
        let mut hash = Sha256::new();
        let mut moved = Moved {
            entries: 0,
            bytes: 0,
        };
        let mut emit = |line: &Line, hash: &mut Sha256| -> Result<()> {
            let mut text = serde_json::to_string(line).expect("lines serialise");
            text.push('\n');
            hash.update(text.as_bytes());
            moved.bytes += text.len() as u64;
            out.write_all(text.as_bytes())
                .map_err(|e| self.write_error(e))
        };
        emit(
            &Line::Header {
                rrm_store_export: EXPORT_VERSION,
                format: FORMAT,
            },
            &mut hash,
        )?;
        for table in Table::ALL {
            for entry in self.table(table)?.iter() {
                let (key, value) = entry?;
                if is_bookkeeping(table, &key) {
                    continue;
                }
                let line = Line::Entry {
                    tree: table.name().to_string(),
                    key: hex(&key),
                    value: hex(&value),
                };
                emit(&line, &mut hash)?;
                moved.entries += 1;
                on_entry();
            }
        }
        let end = Line::End {
            entries: moved.entries,
            sha256: hex(&hash.finalize()),
        };
        let mut text = serde_json::to_string(&end).expect("lines serialise");
        text.push('\n');
        out.write_all(text.as_bytes())
            .and_then(|()| out.flush())
            .map_err(|e| self.write_error(e))?;
        moved.bytes += text.len() as u64;
        Ok(moved)
    }

    fn write_error(&self, error: std::io::Error) -> StoreError {
        StoreError::Open {
            path: self.dir.clone(),
            detail: format!("writing the export: {error}"),
        }
    }

    /// Restores an export at `path` into this store, which must be empty. The file is
    /// read twice: once to check it whole (layout, schema version, count, checksum),
    /// then to write it; the acknowledged mark then covers every imported commit.
    pub fn import(&self, path: &Path, on_entry: &mut dyn FnMut()) -> Result<Moved> {
        if !self.table(Table::Campaigns)?.is_empty() || !self.table(Table::Commits)?.is_empty() {
            return Err(StoreError::Open {
                path: self.dir.clone(),
                detail: "import needs an empty store: give a new --data directory".into(),
            });
        }
        let moved = self.read_export(path, &mut |_, _, _| Ok(()))?;
        let mut group = Vec::new();
        self.read_export(path, &mut |line, tree, (key, value)| {
            let table = Table::ALL
                .into_iter()
                .find(|table| table.name() == tree)
                .ok_or_else(|| bad(line, format!("unknown tree {tree:?}")))?;
            if is_bookkeeping(table, &key) {
                return Err(bad(line, "a journal position, which no export holds"));
            }
            group.push(Change::put(table, &key, value));
            if group.len() == IMPORT_GROUP {
                self.write(std::mem::take(&mut group))?;
            }
            on_entry();
            Ok(())
        })?;
        self.write(group)?;
        self.flush_blocking()?;
        self.checkpoint_journal()?;
        Ok(moved)
    }

    /// Reads an export, checking it, and hands each entry to `entry`.
    fn read_export(&self, path: &Path, entry: &mut EntrySink<'_>) -> Result<Moved> {
        let file = std::fs::File::open(path).map_err(|e| StoreError::Open {
            path: path.to_path_buf(),
            detail: format!("reading the export: {e}"),
        })?;
        let mut reader = std::io::BufReader::new(file);
        let mut hash = Sha256::new();
        let mut moved = Moved {
            entries: 0,
            bytes: 0,
        };
        let mut text = String::new();
        for number in 1.. {
            text.clear();
            let read = reader
                .read_line(&mut text)
                .map_err(|e| bad(number, e.to_string()))?;
            if read == 0 {
                return Err(bad(
                    number,
                    "the file ends without its end line (cut short?)",
                ));
            }
            moved.bytes += read as u64;
            if !text.ends_with('\n') {
                return Err(bad(number, "the file ends mid-line (cut short?)"));
            }
            let line: Line =
                serde_json::from_str(text.trim_end()).map_err(|e| bad(number, e.to_string()))?;
            match line {
                Line::Header {
                    rrm_store_export,
                    format,
                } if number == 1 => {
                    if rrm_store_export != EXPORT_VERSION || format != FORMAT {
                        return Err(bad(
                            number,
                            format!(
                                "export version {rrm_store_export} of schema {format}; this rrm \
                                 reads version {EXPORT_VERSION} of schema {FORMAT}"
                            ),
                        ));
                    }
                }
                Line::Entry { tree, key, value } if number > 1 => {
                    let key = unhex(&key).ok_or_else(|| bad(number, "a key that is not hex"))?;
                    let value =
                        unhex(&value).ok_or_else(|| bad(number, "a value that is not hex"))?;
                    entry(number, &tree, (key, value))?;
                    moved.entries += 1;
                }
                Line::End { entries, sha256 } if number > 1 => {
                    if entries != moved.entries || sha256 != hex(&hash.finalize()) {
                        return Err(bad(
                            number,
                            "the entry count or checksum does not match: the file is damaged",
                        ));
                    }
                    return Ok(moved);
                }
                _ => return Err(bad(number, "a line out of place")),
            }
            hash.update(text.as_bytes());
        }
        unreachable!("the loop returns")
    }
}
