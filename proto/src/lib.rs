//! rrm's gRPC protocol: the versioned protobuf package shared by coordinator and workers.
//!
//! Empty until the distributed miner lands (issue 3); only this crate and the service
//! crates will know protobuf types.
