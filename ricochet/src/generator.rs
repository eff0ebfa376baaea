//! The seed → puzzle generators a mining campaign can name.
//!
//! Campaigns store a generator by name, so that other generators (and rule sets) can be
//! added without touching stored data; each one also says how its puzzles group for
//! statistics (target token, board arrangement).

use crate::driftingdroids::DdGame;
use crate::fogleman::{Game, SeedError};
use crate::puzzle::Puzzle;
use crate::puzzle::Target;
use crate::rules::Rules;
use crate::solver::{Solution, Unsolved};
use std::fmt;
use std::str::FromStr;

/// A known generator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Generator {
    /// Michael Fogleman's Python 2 generator (see `../shared/spec/fogleman-generator.md`).
    Fogleman,
    /// Games dealt as DriftingDroids deals them: 16 tile sides, the vortex, 4 robots
    /// (`driftingdroids::DdGame::deal`).
    DriftingDroids,
    /// The same with the fifth robot, silver, which no coloured target asks for.
    DriftingDroids5,
}

/// A seed campaign's positions: dealt by a generator, solved under a rule set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dealer {
    pub generator: Generator,
    pub rules: Rules,
}

impl Dealer {
    /// `generator` under the standard rules.
    pub const fn standard(generator: Generator) -> Dealer {
        Dealer {
            generator,
            rules: Rules::STANDARD,
        }
    }

    pub fn generate(self, seed: u64) -> Result<GeneratedPuzzle, SeedError> {
        self.generator.generate(seed)
    }

    /// A proven optimal solution of at most `max_moves` under the rules.
    pub fn solve(self, puzzle: &Puzzle, max_moves: u8) -> Result<Solution, Unsolved> {
        crate::rules::solve_on_thread(puzzle, self.rules, max_moves)
    }
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
    pub const ALL: [Generator; 3] = [
        Generator::Fogleman,
        Generator::DriftingDroids,
        Generator::DriftingDroids5,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Generator::Fogleman => "fogleman",
            Generator::DriftingDroids => "driftingdroids",
            Generator::DriftingDroids5 => "driftingdroids5",
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
            Generator::DriftingDroids | Generator::DriftingDroids5 => {
                let robots = if self == Generator::DriftingDroids {
                    4
                } else {
                    5
                };
                let game = DdGame::deal(seed, robots);
                let target = Target {
                    cell: game.goal.cell,
                    colour: game.goal.colour,
                    shape: game.goal.shape,
                };
                Ok(GeneratedPuzzle {
                    puzzle: game
                        .puzzle()
                        .expect("dealt robots avoid the centre and each other"),
                    token: target.token(),
                    arrangement: game.board.sides.map(|side| side.name()).join(" "),
                })
            }
        }
    }

    /// The smallest seed the generator accepts.
    pub fn first_seed(self) -> u64 {
        match self {
            Generator::Fogleman => 1,
            Generator::DriftingDroids | Generator::DriftingDroids5 => 1,
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
#[error("unknown generator {0:?} (known: fogleman, driftingdroids, driftingdroids5)")]
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

    #[test]
    fn driftingdroids_deals_one_of_each_tile_and_postpones_one_move_targets() {
        let mut vortex = 0;
        for seed in 1..301 {
            let game = DdGame::deal(seed, 4);
            assert_eq!(game, DdGame::deal(seed, 4), "deterministic");
            let mut tiles: Vec<u8> = game.board.sides.iter().map(|side| side.tile()).collect();
            tiles.sort_unstable();
            assert_eq!(tiles, [1, 2, 3, 4]);
            // A 0/1-move target only when every target of the deck is one.
            if game.within_one_move() {
                let all_near = (game.board.goals.iter()).all(|&goal| {
                    DdGame {
                        goal,
                        ..game.clone()
                    }
                    .within_one_move()
                });
                assert!(all_near, "seed {seed}");
            }
            vortex += usize::from(game.goal.colour.is_none());
            let generated = Generator::DriftingDroids.generate(seed).unwrap();
            assert_eq!(generated.token == "*", game.goal.colour.is_none());
            // The one-move test agrees with the solver.
            let optimum = crate::Solver::new()
                .solve(&generated.puzzle)
                .map(|s| s.moves.len());
            let near = optimum.is_ok_and(|moves| moves <= 1);
            assert_eq!(game.within_one_move(), near, "seed {seed}");
            assert_eq!(DdGame::parse(&game.id()), Ok(game));
        }
        // One target in 17 is the vortex.
        assert!((5..40).contains(&vortex), "{vortex} vortex games");
        let five = Generator::DriftingDroids5.generate(7).unwrap().puzzle;
        assert_eq!(five.robots().len(), 5);
        assert_eq!(five.robots()[..4], DdGame::deal(7, 5).robots[..4]);
    }
}
