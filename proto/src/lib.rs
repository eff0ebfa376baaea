//! The rrm gRPC protocol (package `rrm.v1`), generated from `rrm/v1/rrm.proto`.
//!
//! Only this crate and the service crates (coordinator, worker, the `rrm` binary's edge)
//! see these types; they convert to the store's and the solver's own types at once.

pub mod access;
pub mod solutions;
pub mod wire;

#[allow(clippy::all, missing_docs, unused_qualifications)]
pub mod v1 {
    tonic::include_proto!("rrm.v1");

    /// The gRPC path of every method of `rrm.v1`, e.g. `/rrm.v1.Mining/Lease`.
    pub const METHODS: &[&str] = include!(concat!(env!("OUT_DIR"), "/rrm_methods.rs"));

    /// The encoded descriptor set, for the gRPC reflection service.
    pub const FILE_DESCRIPTOR_SET: &[u8] =
        include_bytes!(concat!(env!("OUT_DIR"), "/rrm_descriptor.bin"));
}

/// Largest message either side accepts: a long list of puzzles in a query's reply.
pub const MAX_MESSAGE: usize = 64 << 20;

/// Largest mining message (a Submit): a unit of 2^20 seeds (2 MiB of counts and robots
/// moved) with [`solutions::MAX_SOLUTIONS`] kept solutions, or an exhaustive result.
pub const MAX_MINING_MESSAGE: usize = 4 << 20;
