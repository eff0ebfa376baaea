//! The digests that tie a worker's result to its unit, and the move count that marks a
//! seed unsolved. They are facts of the work itself, computed alike by the worker that
//! sends a result and the coordinator that checks it, whatever carries the bytes.

use crate::ExhaustiveResult;
use sha2::{Digest, Sha256};
use std::ops::Range;

/// The move count a submission gives a seed its worker could not solve within its limit.
pub const UNSOLVED: u8 = u8::MAX;

/// The digest a submission carries: SHA-256 over the campaign name, a zero byte, the
/// unit's first and end seed (big-endian `u64`), the move counts and the robots moved. It
/// ties the results to their unit, so a result sent for the wrong unit or damaged on the
/// way is refused.
pub fn unit_digest(
    campaign: &str,
    seeds: Range<u64>,
    move_counts: &[u8],
    robots_moved: &[u8],
) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(campaign.as_bytes());
    hasher.update([0]);
    hasher.update(seeds.start.to_be_bytes());
    hasher.update(seeds.end.to_be_bytes());
    hasher.update(move_counts);
    hasher.update(robots_moved);
    hasher.finalize().into()
}

/// The digest of an exhaustive unit's result: SHA-256 over the campaign name, a zero
/// byte, the unit number (big-endian `u64`), the board and token each followed by a zero
/// byte, then each list with its length first (big-endian `u32`): the histogram and the
/// legal histogram (`u64` each), the unsolvable count (`u64`), the maximum (one byte),
/// the hardest placements (four bytes each), the top lists (depth byte, then the
/// placements), the sample (placement, then 255 for unsolvable or the depth), the legal
/// samples (each depth's list) and the legal hardest placements.
/// The unit is number `unit` of `campaign`, of `board` (canonical name) and `token`.
pub fn exhaustive_digest(
    campaign: &str,
    unit: u64,
    (board, token): (&str, &str),
    parts: &ExhaustiveResult,
) -> [u8; 32] {
    let mut hasher = Sha256::new();
    let length = |hasher: &mut Sha256, len: usize| hasher.update((len as u32).to_be_bytes());
    hasher.update(campaign.as_bytes());
    hasher.update([0]);
    hasher.update(unit.to_be_bytes());
    for text in [board, token] {
        hasher.update(text.as_bytes());
        hasher.update([0]);
    }
    for counts in [&parts.histogram, &parts.legal_histogram] {
        length(&mut hasher, counts.len());
        for count in counts {
            hasher.update(count.to_be_bytes());
        }
    }
    hasher.update(parts.unsolvable.to_be_bytes());
    hasher.update([parts.max_moves]);
    length(&mut hasher, parts.hardest.len());
    parts.hardest.iter().for_each(|p| hasher.update(p));
    length(&mut hasher, parts.top.len());
    for (depth, placements) in &parts.top {
        hasher.update([*depth]);
        length(&mut hasher, placements.len());
        placements.iter().for_each(|p| hasher.update(p));
    }
    length(&mut hasher, parts.sample.len());
    for (placement, depth) in &parts.sample {
        hasher.update(placement);
        hasher.update([depth.unwrap_or(UNSOLVED)]);
    }
    length(&mut hasher, parts.legal_samples.len());
    for placements in &parts.legal_samples {
        length(&mut hasher, placements.len());
        placements.iter().for_each(|p| hasher.update(p));
    }
    length(&mut hasher, parts.legal_hardest.len());
    parts.legal_hardest.iter().for_each(|p| hasher.update(p));
    hasher.finalize().into()
}
