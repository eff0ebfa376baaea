//! The user commands, one module each: the arguments a command takes (clap) and what it
//! does with them. `services` holds the two long-running ones, `rrm coordinator` and
//! `rrm worker`.

pub mod campaign;
pub mod census;
pub mod exhaust;
pub mod health;
pub mod import;
pub mod mine;
pub mod pack;
pub mod ricocheckers;
pub mod services;
pub mod show;
pub mod solve;
pub mod stats;
pub mod store;
pub mod token;
pub mod top;
