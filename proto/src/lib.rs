//! The rrm gRPC protocol (package `rrm.v1`), generated from `rrm/v1/rrm.proto`.
//!
//! Only this crate and the service crates (coordinator, worker, the `rrm` binary's edge)
//! see these types; they convert to the store's and the solver's own types at once.

pub mod access;
pub mod solutions;
pub mod wire;

#[allow(clippy::all, missing_docs)]
pub mod v1 {
    tonic::include_proto!("rrm.v1");

    /// The gRPC path of every method of `rrm.v1`, e.g. `/rrm.v1.Mining/Lease`.
    pub const METHODS: &[&str] = include!(concat!(env!("OUT_DIR"), "/rrm_methods.rs"));

    /// The encoded descriptor set, for the gRPC reflection service.
    pub const FILE_DESCRIPTOR_SET: &[u8] =
        include_bytes!(concat!(env!("OUT_DIR"), "/rrm_descriptor.bin"));
}

use sha2::{Digest, Sha256};

/// Largest message either side accepts: a long list of puzzles in a query's reply.
pub const MAX_MESSAGE: usize = 64 << 20;

/// Largest mining message (a Submit): a unit of 2^20 seeds (2 MiB of counts and robots
/// moved) with [`solutions::MAX_SOLUTIONS`] kept solutions, or an exhaustive result.
pub const MAX_MINING_MESSAGE: usize = 4 << 20;

/// The move count a submission gives a seed its worker could not solve within its limit.
pub const UNSOLVED: u8 = u8::MAX;
use std::ops::Range;

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
    parts: &rrm_model::ExhaustiveResult,
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
