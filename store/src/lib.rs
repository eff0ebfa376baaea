//! The durable store of mined results (sled), opened by the coordinator alone.
//!
//! Empty until the distributed miner lands (issue 3).
