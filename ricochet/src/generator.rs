//! The seed → puzzle generators a mining campaign can name.
//!
//! Campaigns store a generator by name, so that other generators (and rule sets) can be
//! added without touching stored data; each one also says how its puzzles group for
//! statistics (target token, board arrangement).

use crate::fogleman::{Game, SeedError};
use crate::puzzle::Puzzle;
use std::fmt;
use std::str::FromStr;

/// A known generator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Generator {
    /// Michael Fogleman's Python 2 generator (see `../shared/spec/fogleman-generator.md`).
    Fogleman,
}

/// A generated puzzle and the groups it counts in.
#[derive(Clone, Debug)]
pub struct GeneratedPuzzle {
    pub puzzle: Puzzle,
    /// The target token, e.g. `BT`.
    pub token: String,
    /// The board arrangement: tile names in slot order, e.g. `1A 3B 4A 2B`.
    pub arrangement: String,
}

impl Generator {
    pub const ALL: [Generator; 1] = [Generator::Fogleman];

    pub fn name(self) -> &'static str {
        match self {
            Generator::Fogleman => "fogleman",
        }
    }

    pub fn generate(self, seed: u64) -> Result<GeneratedPuzzle, SeedError> {
        match self {
            Generator::Fogleman => {
                let game = Game::generate(seed)?;
                Ok(GeneratedPuzzle {
                    puzzle: game.puzzle(),
                    token: game.token.to_string(),
                    arrangement: game.layout.tiles.join(" "),
                })
            }
        }
    }

    /// The smallest seed the generator accepts.
    pub fn first_seed(self) -> u64 {
        match self {
            Generator::Fogleman => 1,
        }
    }
}

impl fmt::Display for Generator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A generator name nobody knows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown generator {0:?} (known: fogleman)")]
pub struct UnknownGenerator(pub String);

impl FromStr for Generator {
    type Err = UnknownGenerator;

    fn from_str(name: &str) -> Result<Generator, UnknownGenerator> {
        Generator::ALL
            .into_iter()
            .find(|g| g.name() == name)
            .ok_or_else(|| UnknownGenerator(name.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_are_refused() {
        for generator in Generator::ALL {
            assert_eq!(generator.name().parse(), Ok(generator));
        }
        assert!("drifting".parse::<Generator>().is_err());
    }

    #[test]
    fn fogleman_groups_by_token_and_tiles() {
        let generated = Generator::Fogleman.generate(1).unwrap();
        assert_eq!(generated.token, "GQ");
        assert_eq!(generated.arrangement, "1A 3B 4A 2B");
        assert!(Generator::Fogleman.generate(0).is_err());
    }
}
