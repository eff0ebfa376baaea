//! The worker: leases seed ranges from the coordinator and solves them in parallel.
//!
//! Empty until the distributed miner lands (issue 3).
