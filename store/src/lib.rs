//! The durable store of mined results (sled), opened by one process at a time: the coordinator
//! (also in-process, for local commands), or an offline `rrm store` command.
//!
//! # Schema
//! Keys are big-endian, so sled's byte order is numeric order. Values are postcard.
//!
//! | tree | key | value |
//! |---|---|---|
//! | `campaigns` | name (UTF-8) | `Campaign`: id, spec, creation time |
//! | `units` | campaign id `u32` · unit `u64` | `UnitRecord`: lease, result digest, verification, failures |
//! | `results` | campaign id · unit | kind byte, then the unit's move counts and robots moved (raw, deflated, or deflated as one joint byte per seed); kind 4: an exhaustive unit's `ExhaustiveRecord` (version 2; kind 3 is version 1, read only) |
//! | `hardest` | campaign id · `255 - moves` `u8` · seed `u64` | `HardEntry`: solution, re-solved flag |
//! | `commits` | commit number `u64` | campaign id · unit: the log of accepted results, in order; a 13th byte 1 marks a correction (a result taken out, see [`Store::correct`]) |
//! | `aggregates` | campaign id | `Aggregates`: histograms, and the last commit they include |
//! | `mismatches` | campaign id · unit · lease `u64` | `Mismatch`: how it was settled |
//! | `distrusted` | identity (UTF-8) | `Distrust`: identities proven wrong, until an operator clears them |
//! | `meta` | `next_campaign_id` | `u32` |
//! | `meta` | `format` | `u32`: the schema version ([`FORMAT`]); older stores are refused |
//! | `meta` | `journal_group` | `u64`: the last journal group applied (see `journal`) |
//! | `meta` | `journal_intent` | the record of the last group of several changes, written before them |
//! | `exhaustive` | campaign id | version byte 1, then `ExhaustiveSpec`: only exhaustive campaigns have one |
//! | `rules` | campaign id | version byte 2, then the campaign's rules as their canonical text (`no-rebounds,min-moves=3`; version 1, read only: a positional record): only campaigns under other rules than the standard ones have one |
//!
//! Every write is one group of changes, appended to the write-ahead journal
//! (`journal`) before sled sees it, so a group survives a crash whole or not at all
//! and a flush is one sync of one file. A unit is done exactly when it has a `results`
//! entry; the unit record, its result, its hardest entries and its commit log entry
//! are one group, so a crash leaves either all of them or none. Aggregates are saved
//! now and then with the commit number they include; [`Store::commits_after`] gives
//! what to add back on start.
//!
//! A result proven wrong is taken out in one group too ([`Store::correct`]): its
//! block, hardest entries and commit entry go, a correction entry takes a new commit
//! number, and the campaign's statistics are saved through that commit, so the log never
//! needs replaying across a correction.
//!
//! Values are the records of `records` (domain types of `rrm_model` converted in one
//! place). Postcard values are not self-describing: a field added to a stored record
//! needs a new version (a new kind or version byte), never an edit of the old one.

mod blocks;
mod campaigns;
mod correction;
mod durability;
mod error;
mod files;
mod journal;
mod keys;
mod portable;
mod records;
mod writing;

pub use correction::Correction;
pub use durability::{space_of, Space, MARK_FILE};
pub use error::{Result, StoreError};
pub use files::WriteTrouble;
pub use portable::Moved;

use blocks::*;
use error::{io_error, open_error};
use files::Files;
use journal::{Change, Table};
use keys::*;
use records::Stored;
use rrm_model::{Aggregates, Distrust, ExhaustiveRecord, HardEntry, Mismatch, UnitRecord};
use std::path::{Path, PathBuf};

/// The opened store.
pub struct Store {
    dir: PathBuf,
    /// sled and the journal, until a reopen replaces them (see `files`).
    files: std::sync::Mutex<Option<std::sync::Arc<Files>>>,
    /// Held through a reopen, so that two never race.
    reopening: std::sync::Mutex<()>,
    /// Why the last flush failed, until one succeeds.
    flush_failure: std::sync::Mutex<Option<String>>,
    /// The acknowledged-commits mark as last written (see `durability`).
    marked: std::sync::atomic::AtomicU64,
    /// The mark's file once this store wrote it, rewritten in place from then on.
    mark_file: std::sync::Mutex<Option<std::fs::File>>,
}

/// Everything one accepted unit result writes.
pub struct UnitResult<'a> {
    pub campaign: u32,
    pub unit: u64,
    pub record: &'a UnitRecord,
    pub move_counts: &'a [u8],
    pub robots_moved: &'a [u8],
    pub hardest: &'a [HardEntry],
    pub commit: u64,
}

/// The schema version this code writes and reads (see the crate doc's table).
pub const FORMAT: u32 = 2;

/// How long opening waits for a store's lock: a store just closed in this process
/// holds it a moment longer, until sled's I/O threads let go of its file.
const LOCK_PATIENCE: std::time::Duration = std::time::Duration::from_secs(1);
const FORMAT_KEY: &[u8] = b"format";

/// A domain value as its record's bytes.
fn encode<T: Stored>(value: &T) -> Vec<u8> {
    postcard::to_stdvec(&T::Record::from(value)).expect("store records serialize")
}

/// A domain value from its record's bytes.
fn decode<T: Stored>(what: &'static str, bytes: &[u8]) -> Result<T> {
    T::from_record(decode_record(what, bytes)?)
}

fn decode_record<R: serde::de::DeserializeOwned>(what: &'static str, bytes: &[u8]) -> Result<R> {
    postcard::from_bytes(bytes).map_err(|e| StoreError::Corrupt {
        what,
        detail: e.to_string(),
    })
}

/// The files sled keeps in a store directory: a directory without them holds no store.
const SLED_FILES: [&str; 2] = ["conf", "db"];

/// Refuses a path that is, or lies under, something other than a directory.
fn refuse_non_directory(dir: &Path) -> Result<()> {
    match dir.ancestors().find(|path| path.exists()) {
        Some(existing) if !existing.is_dir() => Err(StoreError::NotADirectory {
            path: existing.to_path_buf(),
        }),
        _ => Ok(()),
    }
}

impl Store {
    /// Opens (creating if needed) the store in `dir`. Fails if another process has it.
    pub fn open(dir: &Path) -> Result<Store> {
        refuse_non_directory(dir)?;
        let (files, acknowledged) = Files::open(dir, LOCK_PATIENCE)?;
        Store {
            dir: dir.to_path_buf(),
            files: std::sync::Mutex::new(Some(std::sync::Arc::new(files))),
            reopening: Default::default(),
            flush_failure: Default::default(),
            marked: acknowledged.into(),
            mark_file: Default::default(),
        }
        .with_format(dir)
    }

    /// Stamps a new store with [`FORMAT`]; refuses a store of another version.
    fn with_format(self, dir: &Path) -> Result<Store> {
        let found = match self.table(Table::Meta)?.get(FORMAT_KEY)? {
            Some(bytes) => {
                u32::from_be_bytes(bytes.as_ref().try_into().map_err(|_| StoreError::Corrupt {
                    what: "schema version",
                    detail: format!("{} bytes", bytes.len()),
                })?)
            }
            // Version 1 stores did not say so; an empty store is new.
            None if self.table(Table::Campaigns)?.is_empty() => {
                self.write(vec![Change::put(
                    Table::Meta,
                    FORMAT_KEY,
                    FORMAT.to_be_bytes().to_vec(),
                )])?;
                FORMAT
            }
            None => 1,
        };
        if found != FORMAT {
            return Err(StoreError::OldFormat {
                path: dir.to_path_buf(),
                found,
            });
        }
        Ok(self)
    }

    /// Opens the store in `dir` only if there is one: commands that only read must not
    /// leave an empty store behind a mistyped `--data`.
    pub fn open_existing(dir: &Path) -> Result<Store> {
        refuse_non_directory(dir)?;
        if !SLED_FILES.iter().all(|file| dir.join(file).is_file()) {
            return Err(StoreError::Missing {
                path: dir.to_path_buf(),
            });
        }
        Store::open(dir)
    }

    /// Every unit record of a campaign (units never leased have none).
    pub fn units(&self, campaign: u32) -> Result<Vec<(u64, UnitRecord)>> {
        self.table(Table::Units)?
            .scan_prefix(campaign.to_be_bytes())
            .map(|entry| {
                let (key, value) = entry?;
                let (_, unit) = parse_unit_key("unit key", &key)?;
                Ok((unit, decode("unit record", &value)?))
            })
            .collect()
    }

    /// Writes a unit record. Units are leased in order, so the units after the last one
    /// with a record were never leased.
    pub fn put_unit(&self, campaign: u32, unit: u64, record: &UnitRecord) -> Result<()> {
        self.write(vec![Change::put(
            Table::Units,
            &unit_key(campaign, unit),
            encode(record),
        )])
    }

    /// Stores an accepted result: unit record, move counts, hardest entries and the commit
    /// log entry, all or nothing.
    pub fn commit_result(&self, result: &UnitResult<'_>) -> Result<()> {
        let block = pack_block(result.move_counts, result.robots_moved);
        let hardest: Vec<_> = result
            .hardest
            .iter()
            .map(|entry| {
                (
                    hardest_key(result.campaign, entry.moves, entry.seed),
                    encode(entry),
                )
            })
            .collect();
        self.commit(
            (result.campaign, result.unit),
            result.record,
            &block,
            &hardest,
            result.commit,
        )
    }

    /// Stores an accepted exhaustive result: unit record, result and commit log entry,
    /// all or nothing.
    pub fn commit_exhaustive(
        &self,
        (campaign, unit): (u32, u64),
        record: &UnitRecord,
        result: &ExhaustiveRecord,
        commit: u64,
    ) -> Result<()> {
        let block = [&[BLOCK_EXHAUSTIVE][..], &encode(result)].concat();
        self.commit((campaign, unit), record, &block, &[], commit)
    }

    /// The one group of an accepted result.
    fn commit(
        &self,
        (campaign, unit): (u32, u64),
        record: &UnitRecord,
        block: &[u8],
        hardest: &[([u8; 13], Vec<u8>)],
        commit: u64,
    ) -> Result<()> {
        let key = unit_key(campaign, unit);
        let mut changes = vec![
            Change::put(Table::Units, &key, encode(record)),
            Change::put(Table::Results, &key, block.to_vec()),
        ];
        changes.extend(
            hardest
                .iter()
                .map(|(hard_key, entry)| Change::put(Table::Hardest, hard_key, entry.clone())),
        );
        changes.push(Change::put(
            Table::Commits,
            &commit.to_be_bytes(),
            key.to_vec(),
        ));
        self.write(changes)
    }

    /// The move counts and robots moved stored for a unit, if it is done.
    pub fn unit_results(&self, campaign: u32, unit: u64) -> Result<Option<(Vec<u8>, Vec<u8>)>> {
        let Some(block) = self.table(Table::Results)?.get(unit_key(campaign, unit))? else {
            return Ok(None);
        };
        unpack_block(&block).map(Some)
    }

    /// Every stored exhaustive result of a campaign, by unit.
    pub fn exhaustive_results(&self, campaign: u32) -> Result<Vec<(u64, ExhaustiveRecord)>> {
        self.table(Table::Results)?
            .scan_prefix(campaign.to_be_bytes())
            .map(|entry| {
                let (key, value) = entry?;
                let (_, unit) = parse_unit_key("result key", &key)?;
                match value.split_first() {
                    Some((&BLOCK_EXHAUSTIVE, bytes)) => {
                        Ok((unit, decode("exhaustive result", bytes)?))
                    }
                    Some((&BLOCK_EXHAUSTIVE_V1, bytes)) => Ok((
                        unit,
                        decode_record::<records::v1::ExhaustiveRecordV1>(
                            "exhaustive result",
                            bytes,
                        )?
                        .into(),
                    )),
                    _ => Err(StoreError::Corrupt {
                        what: "exhaustive result",
                        detail: format!("unit {unit} holds move counts"),
                    }),
                }
            })
            .collect()
    }

    /// The hardest stored puzzles of a campaign, most moves first, then by seed.
    pub fn hardest(&self, campaign: u32, limit: usize, min_moves: u8) -> Result<Vec<HardEntry>> {
        let mut entries = Vec::new();
        for entry in self
            .table(Table::Hardest)?
            .scan_prefix(campaign.to_be_bytes())
        {
            let (key, value) = entry?;
            if hardest_key_moves(&key)? < min_moves || entries.len() >= limit {
                break;
            }
            entries.push(decode("hardest entry", &value)?);
        }
        Ok(entries)
    }

    /// The stored solution of one seed, if it is among the kept ones.
    pub fn hard_entry(&self, campaign: u32, moves: u8, seed: u64) -> Result<Option<HardEntry>> {
        self.table(Table::Hardest)?
            .get(hardest_key(campaign, moves, seed))?
            .map(|value| decode("hardest entry", &value))
            .transpose()
    }

    /// The highest commit number used so far (0 if none).
    pub fn last_commit(&self) -> Result<u64> {
        last_commit_in(&self.table(Table::Commits)?)
    }

    /// Results accepted after `commit`, as (commit, campaign id, unit), in order.
    /// Corrections are left out: the statistics saved with them already include them.
    pub fn commits_after(&self, commit: u64) -> Result<Vec<(u64, u32, u64)>> {
        let Some(next) = commit.checked_add(1) else {
            return Ok(Vec::new());
        };
        self.table(Table::Commits)?
            .range(next.to_be_bytes()..)
            .filter_map(|entry| {
                let parsed = entry.map_err(StoreError::from).and_then(|(key, value)| {
                    if value.len() == 13 && value[12] == CORRECTION {
                        return Ok(None);
                    }
                    let (campaign, unit) = parse_unit_key("commit log entry", &value)?;
                    Ok(Some((parse_commit_key(&key)?, campaign, unit)))
                });
                parsed.transpose()
            })
            .collect()
    }

    pub fn aggregates(&self, campaign: u32) -> Result<Option<Aggregates>> {
        self.table(Table::Aggregates)?
            .get(campaign.to_be_bytes())?
            .map(|value| decode("aggregates", &value))
            .transpose()
    }

    pub fn save_aggregates(&self, campaign: u32, aggregates: &Aggregates) -> Result<()> {
        self.write(vec![Change::put(
            Table::Aggregates,
            &campaign.to_be_bytes(),
            encode(aggregates),
        )])
    }

    /// Writes a mismatch (again, when it is settled).
    pub fn put_mismatch(&self, campaign: u32, mismatch: &Mismatch) -> Result<()> {
        self.write(vec![Change::put(
            Table::Mismatches,
            &mismatch_key(campaign, mismatch),
            encode(mismatch),
        )])
    }

    /// Marks an identity distrusted.
    pub fn distrust(&self, distrust: &Distrust) -> Result<()> {
        self.write(vec![Change::put(
            Table::Distrusted,
            distrust.identity.as_bytes(),
            encode(distrust),
        )])
    }

    /// Clears an identity; whether it was distrusted.
    pub fn trust(&self, identity: &str) -> Result<bool> {
        self.write_checked(|| {
            let known = self
                .table(Table::Distrusted)?
                .contains_key(identity.as_bytes())?;
            let changes = if known {
                vec![Change::remove(Table::Distrusted, identity.as_bytes())]
            } else {
                Vec::new()
            };
            Ok((changes, known))
        })
    }

    /// Every distrusted identity.
    pub fn distrusted(&self) -> Result<Vec<Distrust>> {
        self.table(Table::Distrusted)?
            .iter()
            .values()
            .map(|value| decode("distrusted identity", &value?))
            .collect()
    }

    pub fn mismatches(&self, campaign: u32) -> Result<Vec<Mismatch>> {
        self.table(Table::Mismatches)?
            .scan_prefix(campaign.to_be_bytes())
            .values()
            .map(|value| decode("mismatch", &value?))
            .collect()
    }

    /// A sled error of this store, with its directory where that helps.
    fn located(&self, error: sled::Error) -> StoreError {
        match StoreError::from(error) {
            StoreError::DiskFull { .. } => StoreError::DiskFull {
                path: self.dir.clone(),
            },
            other => other,
        }
    }

    /// Bytes the store takes on disk: sled's files and the journal's.
    pub fn size_on_disk(&self) -> Result<u64> {
        let files = self.files()?;
        Ok(files.db.size_on_disk()? + files.journal.size())
    }
}

#[cfg(test)]
mod tests;
