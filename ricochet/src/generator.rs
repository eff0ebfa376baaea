//! The seed → puzzle generators a mining campaign can name.
//!
//! Campaigns store a generator by name, so that other generators (and rule sets) can be
//! added without touching stored data; each one also says how its puzzles group for
//! statistics (target token, board arrangement).
//!
//! A [`Dealer`] is what workers and the coordinator call: it deals a seed ([`Dealt`]: a
//! Ricochet Robots puzzle, or a Ricocheckers position), answers it (a proven optimum and
//! its line) and replays a claimed line, so that the checks are written once for every
//! game.

use crate::board::Cell;
use crate::driftingdroids::DdGame;
use crate::fogleman::{Game, SeedError};
use crate::puzzle::{robots_moved, Move, Puzzle, Target};
use crate::ricocheckers::puzzles::{self, LineError};
use crate::ricocheckers::{Position, PositionError};
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
    /// Ricocheckers positions placed uniformly on the built-in board; a seed's answer is
    /// its shortest forced win for the side to move (`ricocheckers::puzzles`).
    Ricocheckers,
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

    /// The longest answer a search within `limit` moves can give: the limit, or the
    /// forced-win bound for Ricocheckers positions.
    pub fn max_moves(self, limit: u8) -> u8 {
        match self.generator {
            Generator::Ricocheckers => limit.min(puzzles::FORCED_WIN_BOUND),
            _ => limit,
        }
    }

    /// What `seed` deals: a puzzle, or a Ricocheckers position.
    pub fn deal(self, seed: u64) -> Result<Dealt, SeedError> {
        match self.generator {
            Generator::Ricocheckers => Ok(Dealt::Ricocheckers(puzzles::deal(
                puzzles::standard_field(),
                seed,
            ))),
            generator => generator.generate(seed).map(Dealt::Puzzle),
        }
    }

    /// A dealt seed's proven answer within `max_moves`: a puzzle's optimal solution, or a
    /// position's shortest forced win (0 moves when there is none within the bound).
    pub fn answer(self, dealt: &Dealt, max_moves: u8) -> Result<SeedAnswer, Unsolved> {
        match dealt {
            Dealt::Puzzle(generated) => {
                let moves = self.solve(&generated.puzzle, max_moves)?.moves;
                Ok(SeedAnswer::of_moves(&moves))
            }
            Dealt::Ricocheckers(position) => {
                let found = puzzles::answer(puzzles::standard_field(), position, max_moves)
                    .map_err(|spent| Unsolved::Unsettled(spent.0))?;
                Ok(SeedAnswer {
                    moves: found.moves,
                    robots: found.pieces,
                    line: found.line.iter().map(ToString::to_string).collect(),
                })
            }
        }
    }

    /// Replays a claimed line and says what it shows: a puzzle's solution under the rules,
    /// or a position's win. A replay proves a line valid, never that it is the shortest.
    pub fn replay(self, dealt: &Dealt, line: &[String]) -> Result<SeedAnswer, ReplayError> {
        match dealt {
            Dealt::Puzzle(generated) => {
                let moves = (line.iter())
                    .map(|m| Move::from_notation(m).ok_or_else(|| ReplayError::Notation(m.clone())))
                    .collect::<Result<Vec<_>, _>>()?;
                let puzzle = &generated.puzzle;
                if !puzzle.is_solution(&moves) || !crate::rules::obeys(puzzle, &moves, self.rules) {
                    return Err(ReplayError::Wrong);
                }
                Ok(SeedAnswer::of_moves(&moves))
            }
            Dealt::Ricocheckers(position) => {
                match puzzles::replay(puzzles::standard_field(), position, line) {
                    Ok(found) => Ok(SeedAnswer {
                        moves: found.moves,
                        robots: found.pieces,
                        line: line.to_vec(),
                    }),
                    Err(LineError::Step(PositionError::Step(text))) => {
                        Err(ReplayError::Notation(text))
                    }
                    Err(_) => Err(ReplayError::Wrong),
                }
            }
        }
    }
}

/// One seed as dealt.
// Dealt one at a time and never held in bulk: boxing the puzzle would only add an
// allocation per seed to mining.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Dealt {
    Puzzle(GeneratedPuzzle),
    Ricocheckers(Position),
}

/// Whether an answer of 0 moves is possible for a dealt seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZeroMoves {
    /// The robot starts on its target: 0 is the only answer.
    Only,
    /// The robot is not on its target.
    Impossible,
    /// A position with no forced win within the bound answers 0.
    Possible,
}

impl Dealt {
    /// A puzzle's [`Puzzle::tables_key`]: seeds solved in its order share their set-up.
    /// Positions have none.
    pub fn tables_key(&self) -> Option<(u64, Cell)> {
        match self {
            Dealt::Puzzle(generated) => Some(generated.puzzle.tables_key()),
            Dealt::Ricocheckers(_) => None,
        }
    }

    /// The group a seed counts in: the target token, or the side to move (`P1`, `P2`).
    pub fn token(&self) -> String {
        match self {
            Dealt::Puzzle(generated) => generated.token.clone(),
            Dealt::Ricocheckers(position) => format!("P{}", position.to_move + 1),
        }
    }

    /// The board: tile names in slot order, or the Ricocheckers board's size.
    pub fn arrangement(&self) -> String {
        match self {
            Dealt::Puzzle(generated) => generated.arrangement.clone(),
            Dealt::Ricocheckers(_) => {
                let board = puzzles::standard_field().board();
                format!("{}x{}", board.width(), board.height())
            }
        }
    }

    pub fn zero_moves(&self) -> ZeroMoves {
        match self {
            Dealt::Puzzle(generated) if generated.puzzle.is_solution(&[]) => ZeroMoves::Only,
            Dealt::Puzzle(_) => ZeroMoves::Impossible,
            Dealt::Ricocheckers(_) => ZeroMoves::Possible,
        }
    }

    /// The pieces an answer may move: robots on the board, or one player's pieces.
    pub fn pieces(&self) -> usize {
        match self {
            Dealt::Puzzle(generated) => generated.puzzle.robots().len(),
            Dealt::Ricocheckers(_) => crate::ricocheckers::PIECES,
        }
    }
}

/// A seed's answer: its move count, the different pieces moved, and the line in notation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeedAnswer {
    pub moves: u8,
    /// Robots moved by a solution, or the winner's pieces moved on a main line.
    pub robots: u8,
    pub line: Vec<String>,
}

impl SeedAnswer {
    fn of_moves(moves: &[Move]) -> SeedAnswer {
        SeedAnswer {
            moves: moves.len() as u8,
            robots: robots_moved(moves) as u8,
            line: moves.iter().map(Move::notation).collect(),
        }
    }
}

/// Why a claimed line does not replay.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    #[error("{0:?} is not a move")]
    Notation(String),
    #[error("the line does not solve the seed")]
    Wrong,
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
    pub const ALL: [Generator; 4] = [
        Generator::Fogleman,
        Generator::DriftingDroids,
        Generator::DriftingDroids5,
        Generator::Ricocheckers,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Generator::Fogleman => "fogleman",
            Generator::DriftingDroids => "driftingdroids",
            Generator::DriftingDroids5 => "driftingdroids5",
            Generator::Ricocheckers => "ricocheckers",
        }
    }

    /// The puzzle of `seed`; a Ricocheckers seed is no puzzle (see [`Dealer::deal`]).
    pub fn generate(self, seed: u64) -> Result<GeneratedPuzzle, SeedError> {
        match self {
            Generator::Ricocheckers => Err(SeedError::NotAPuzzle(self.name())),
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
            Generator::DriftingDroids | Generator::DriftingDroids5 | Generator::Ricocheckers => 1,
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
#[error("unknown generator {0:?} (known: fogleman, driftingdroids, driftingdroids5, ricocheckers)")]
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
