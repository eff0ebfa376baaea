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
