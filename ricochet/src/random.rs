//! Random benchmark puzzles: Fogleman's tiles placed at random, robots anywhere outside
//! the centre, a random one of the 16 tokens or the wild target, trivial ones left out.
//!
//! Deterministic from a seed, so every benchmark run measures the same puzzles.

use crate::board::Cell;
use crate::fogleman::Game;
use crate::mt::PyRandom;
use crate::puzzle::{Colour, Puzzle, Shape, Target, MAX_ROBOTS};

/// An endless, reproducible stream of random puzzles with 4 or 5 robots (every token
/// colour needs its robot).
pub struct RandomPuzzles {
    rng: PyRandom,
    robots: usize,
}

impl RandomPuzzles {
    pub fn new(seed: u64, robots: usize) -> RandomPuzzles {
        RandomPuzzles {
            rng: PyRandom::new(seed.max(1)),
            robots: robots.clamp(4, MAX_ROBOTS),
        }
    }

    /// The next puzzle, whatever its length (callers filter trivial ones by solving).
    pub fn next_puzzle(&mut self) -> Puzzle {
        // A Fogleman game supplies a random tile arrangement with its 16 targets.
        let game = Game::generate(self.rng.next_u32() as u64 + 1).expect("seed is not zero");
        let board = game.layout.board();
        let mut robots: Vec<Cell> = Vec::with_capacity(self.robots);
        while robots.len() < self.robots {
            let cell = self.rng.randint(0, 255) as Cell;
            if !board.is_blocked(cell) && !robots.contains(&cell) {
                robots.push(cell);
            }
        }
        let token = self.rng.randint(0, 16) as usize;
        let target = match game.layout.targets.get(token) {
            Some(&(name, cell)) => Target {
                cell,
                colour: name.chars().next().and_then(Colour::from_letter),
                shape: name.chars().nth(1).and_then(Shape::from_letter),
            },
            None => {
                let &(_, cell) = &game.layout.targets[self.rng.randint(0, 15) as usize];
                Target {
                    cell,
                    colour: None,
                    shape: None,
                }
            }
        };
        Puzzle::new(board, robots, target).expect("robots avoid blocked cells and each other")
    }
}
