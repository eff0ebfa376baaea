//! How a command reaches its campaigns: a local store, or a coordinator over gRPC with a
//! token and a CA.

pub mod access;
pub mod backend;
