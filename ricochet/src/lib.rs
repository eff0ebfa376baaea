//! Ricochet Robots as computation: the board and its moves ([`board`], [`mirrors`],
//! [`rules`]), the boards and deals of the editions and tools players use ([`fogleman`],
//! [`driftingdroids`], [`edition`], [`kcox`], [`generator`]), the optimal solver
//! ([`solver`]) and the exhaustive engine that counts every placement of a unit
//! ([`exhaustive`]), quality [`metrics`], pictures ([`render`], [`svg`]), and
//! Ricochet's two-player game ([`ricocheckers`]), whose puzzles the same generator deals.
//!
//! This crate is pure computation: no I/O, no async, no protobuf. Callers build a
//! [`Puzzle`] (from a [`PuzzleRecord`] or a [`fogleman::Game`]) and hand it to a
//! [`Solver`], which returns a proven optimal [`Solution`].

pub mod board;
pub mod driftingdroids;
pub mod edition;
pub mod exhaustive;
pub mod fogleman;
pub mod generator;
pub mod kcox;
pub mod metrics;
pub mod mirrors;
pub mod mt;
pub mod puzzle;
pub mod random;
pub mod render;
pub mod ricocheckers;
pub mod rules;
pub mod solver;
pub mod svg;
mod transposition;

pub use board::{Board, BoardError, Cell, Direction};
pub use fogleman::{Game, Layout, LayoutError, SeedError};
pub use generator::{
    Dealer, Dealt, GeneratedPuzzle, Generator, ReplayError, SeedAnswer, UnknownGenerator, ZeroMoves,
};
pub use puzzle::{Colour, MirrorRecord, Move, Puzzle, PuzzleError, PuzzleRecord, Shape, Target};
pub use solver::{SearchStats, Solution, Solver, Unsolved};
