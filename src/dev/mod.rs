//! The developer tools of `rrm-dev`: benchmarks of the solver, of rrm against the public
//! solvers, of the coordinator under load, of the checks and the trust model, and of the
//! Ricocheckers engine. They measure; users do not need them, so `rrm` does not ship them.

pub mod bench;
pub mod checkbench;
pub mod loadtest;
pub mod peers;
pub mod ricocheckers_bench;
