//! The rrm gRPC protocol (package `rrm.v1`), generated from `rrm/v1/rrm.proto`.
//!
//! Only this crate and the service crates (coordinator, worker, the `rrm` binary's edge)
//! see these types; they convert to the store's and the solver's own types at once.

#![allow(clippy::all, missing_docs)]

pub mod v1 {
    tonic::include_proto!("rrm.v1");

    /// The encoded descriptor set, for the gRPC reflection service.
    pub const FILE_DESCRIPTOR_SET: &[u8] =
        include_bytes!(concat!(env!("OUT_DIR"), "/rrm_descriptor.bin"));
}

use sha2::{Digest, Sha256};

/// Largest message either side accepts: a unit of 2^20 seeds (2 MiB of counts) with its
/// kept solutions, or a long list of puzzles.
pub const MAX_MESSAGE: usize = 64 << 20;

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
