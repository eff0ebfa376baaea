//! Integration tests of rrm: one test binary, one module per topic.
//!
//! `referee` holds the independent move checker and the plain reference BFS that every
//! solver answer is held against; it shares no code with the solver.

mod cli;
mod dashboard;
mod generator;
mod mining;
mod referee;
mod reports;
mod solver;
