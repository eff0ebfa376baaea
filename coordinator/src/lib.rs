//! The coordinator: leases seed ranges to workers over gRPC and records their results.
//!
//! Empty until the distributed miner lands (issue 3); it alone will open the store.
