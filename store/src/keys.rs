//! Keys of the store's trees, big-endian so that sled's byte order is numeric order,
//! and reading them back (a key of the wrong length is corruption, not a panic).

use super::{Mismatch, Result, StoreError};

/// The highest commit number in the commit log `commits` (0 if none).
pub(crate) fn last_commit_in(commits: &sled::Tree) -> Result<u64> {
    match commits.last()? {
        Some((key, _)) => parse_commit_key(&key),
        None => Ok(0),
    }
}

/// The 13th byte of a commit log value that marks a correction.
pub(crate) const CORRECTION: u8 = 1;

pub(crate) fn unit_key(campaign: u32, unit: u64) -> [u8; 12] {
    let mut key = [0; 12];
    key[..4].copy_from_slice(&campaign.to_be_bytes());
    key[4..].copy_from_slice(&unit.to_be_bytes());
    key
}

pub(crate) fn mismatch_key(campaign: u32, mismatch: &Mismatch) -> Vec<u8> {
    [
        &unit_key(campaign, mismatch.unit)[..],
        &mismatch.lease.to_be_bytes(),
    ]
    .concat()
}

pub(crate) fn hardest_key(campaign: u32, moves: u8, seed: u64) -> [u8; 13] {
    let mut key = [0; 13];
    key[..4].copy_from_slice(&campaign.to_be_bytes());
    key[4] = 255 - moves;
    key[5..].copy_from_slice(&seed.to_be_bytes());
    key
}

/// Reads a `units`/`results` key (also a commit log value): campaign id and unit.
pub(crate) fn parse_unit_key(what: &'static str, key: &[u8]) -> Result<(u32, u64)> {
    key.split_first_chunk::<4>()
        .and_then(|(campaign, unit)| {
            Some((
                u32::from_be_bytes(*campaign),
                u64::from_be_bytes(unit.try_into().ok()?),
            ))
        })
        .ok_or_else(|| StoreError::Corrupt {
            what,
            detail: format!("{}-byte unit key", key.len()),
        })
}

/// Reads the move count of a `hardest` key.
pub(crate) fn hardest_key_moves(key: &[u8]) -> Result<u8> {
    match key {
        [_, _, _, _, inverted, _, _, _, _, _, _, _, _] => Ok(255 - inverted),
        _ => Err(StoreError::Corrupt {
            what: "hardest key",
            detail: format!("{}-byte key", key.len()),
        }),
    }
}

/// Reads a `commits` key: the commit number.
pub(crate) fn parse_commit_key(key: &[u8]) -> Result<u64> {
    Ok(u64::from_be_bytes(key.try_into().map_err(|_| {
        StoreError::Corrupt {
            what: "commit log",
            detail: format!("{}-byte key", key.len()),
        }
    })?))
}
