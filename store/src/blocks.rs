//! Value layouts of the `results` and `exhaustive` trees: the kind byte before a result
//! block and how its move counts and robots moved are packed (raw, deflated, or one
//! joint byte per seed), and the version byte before an exhaustive spec.

use super::{Result, StoreError};
use std::io::{Read, Write};

/// First byte of a result block: how the move counts `m` and robots moved `r` follow.
/// Raw: all `m` then all `r`. Deflate: the same, deflated. Joint: one byte `m << 3 | r`
/// per seed, deflated, which compresses a fifth better (the two are correlated); used
/// whenever every `m` < 32 and `r` < 8.
pub(crate) const BLOCK_RAW: u8 = 0;
pub(crate) const BLOCK_DEFLATE: u8 = 1;
pub(crate) const BLOCK_JOINT: u8 = 2;
/// A result block holding an exhaustive unit's [`ExhaustiveRecord`] in its version 1
/// (read only) or version 2.
pub(crate) const BLOCK_EXHAUSTIVE_V1: u8 = 3;
pub(crate) const BLOCK_EXHAUSTIVE: u8 = 4;
/// The version byte before an [`ExhaustiveSpec`] in the `exhaustive` tree.
pub(crate) const EXHAUSTIVE_SPEC_V1: u8 = 1;
/// The version byte of a `rules` value holding a positional record of three rules (read
/// only: a new rule would have needed a migration).
pub(crate) const CAMPAIGN_RULES_V1: u8 = 1;
/// The version byte of a `rules` value holding the rules' canonical text
/// (`no-rebounds,min-moves=3`, as `Rules::parse` reads it): a new rule needs no new version.
pub(crate) const CAMPAIGN_RULES: u8 = 2;
/// Units up to this many seeds are stored raw: deflate would save little and its set-up
/// (large match tables) would dominate tiny units.
pub(crate) const RAW_UP_TO: usize = 128;

pub(crate) fn deflate(kind: u8, bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::DeflateEncoder::new(vec![kind], flate2::Compression::best());
    encoder.write_all(bytes).expect("writing to memory");
    encoder.finish().expect("writing to memory")
}

pub(crate) fn pack_block(counts: &[u8], robots: &[u8]) -> Vec<u8> {
    if counts.len() <= RAW_UP_TO {
        return [&[BLOCK_RAW], counts, robots].concat();
    }
    if counts.iter().all(|&m| m < 32) && robots.iter().all(|&r| r < 8) {
        let joint: Vec<u8> = counts.iter().zip(robots).map(|(m, r)| m << 3 | r).collect();
        return deflate(BLOCK_JOINT, &joint);
    }
    deflate(BLOCK_DEFLATE, &[counts, robots].concat())
}

/// The move counts and robots moved of a block.
pub(crate) fn unpack_block(block: &[u8]) -> Result<(Vec<u8>, Vec<u8>)> {
    let corrupt = |detail: String| StoreError::Corrupt {
        what: "result block",
        detail,
    };
    let inflate = |packed: &[u8]| {
        let mut bytes = Vec::new();
        flate2::read::DeflateDecoder::new(packed)
            .read_to_end(&mut bytes)
            .map_err(|e| corrupt(e.to_string()))?;
        Ok::<_, StoreError>(bytes)
    };
    let halves = |mut both: Vec<u8>| {
        if !both.len().is_multiple_of(2) {
            return Err(corrupt(format!("odd length {}", both.len())));
        }
        let robots = both.split_off(both.len() / 2);
        Ok((both, robots))
    };
    match block.split_first() {
        Some((&BLOCK_RAW, bytes)) => halves(bytes.to_vec()),
        Some((&BLOCK_DEFLATE, packed)) => halves(inflate(packed)?),
        Some((&BLOCK_JOINT, packed)) => {
            let joint = inflate(packed)?;
            Ok((
                joint.iter().map(|j| j >> 3).collect(),
                joint.iter().map(|j| j & 7).collect(),
            ))
        }
        Some((&(BLOCK_EXHAUSTIVE | BLOCK_EXHAUSTIVE_V1), _)) => Err(corrupt(
            "an exhaustive unit's result where move counts were expected".into(),
        )),
        Some((kind, _)) => Err(corrupt(format!("unknown block kind {kind}"))),
        None => Err(corrupt("empty block".into())),
    }
}
