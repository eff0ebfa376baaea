//! Random benchmark puzzles: Fogleman's tiles placed at random, robots anywhere outside
//! the centre, a random one of the 16 tokens or the wild target, trivial ones left out.
//!
//! Deterministic from a seed, so every benchmark run measures the same puzzles.

use crate::board::{Board, Cell};
use crate::driftingdroids::{DdBoard, TileSide};
use crate::fogleman::Game;
use crate::mirrors::Mirror;
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

/// A stream of random puzzles on boards with diagonal walls (mirrors), for comparing
/// mirror searches: in turn on the second edition's board of four D sides with their
/// diagonals as K. Cox's mirror games have it (3D, 1D, 4D, 2D), on the same four sides in
/// DriftingDroids' order (1D, 2D, 3D, 4D), and on two random DriftingDroids boards with
/// two to eight random mirrors each. Robots on random free cells off the mirrors; the
/// target one of the board's coloured goals.
pub struct RandomMirrorPuzzles {
    rng: PyRandom,
    robots: usize,
    dealt: usize,
}

impl RandomMirrorPuzzles {
    pub fn new(seed: u64, robots: usize) -> RandomMirrorPuzzles {
        RandomMirrorPuzzles {
            rng: PyRandom::new(seed.max(1)),
            robots: robots.clamp(1, MAX_ROBOTS),
            dealt: 0,
        }
    }

    /// The next puzzle, whatever its length (callers filter trivial ones by solving).
    pub fn next_puzzle(&mut self) -> Puzzle {
        let side = |name: &str| TileSide::from_name(name).expect("a side's name");
        let kind = self.dealt % 4;
        self.dealt += 1;
        let (dd, board) = match kind {
            0 | 1 => {
                let names = [["3D", "1D", "4D", "2D"], ["1D", "2D", "3D", "4D"]][kind];
                let dd = DdBoard::new(names.map(side));
                let board = dd.board_with_diagonals();
                (dd, board)
            }
            _ => {
                // Each tile in a random slot, on a random side.
                let mut tiles = [0u8, 1, 2, 3];
                for i in (1..4).rev() {
                    tiles.swap(i, self.rng.randint(0, i as u32) as usize);
                }
                let sides = tiles.map(|tile| {
                    let letter = self.rng.randint(0, 3) as u8;
                    TileSide::from_number(letter * 4 + tile).expect("a side's number")
                });
                let dd = DdBoard::new(sides);
                let board = self.random_mirrors(&dd);
                (dd, board)
            }
        };
        let mut robots: Vec<Cell> = Vec::with_capacity(self.robots);
        while robots.len() < self.robots {
            let cell = self.rng.randint(0, 255) as Cell;
            let free = !board.is_blocked(cell) && board.mirror(cell).is_none();
            if free && !robots.contains(&cell) {
                robots.push(cell);
            }
        }
        let goals: Vec<_> = (dd.goals.iter())
            .filter(|goal| goal.colour.is_some_and(|c| c.robot() < self.robots))
            .collect();
        let goal = goals[self.rng.randint(0, goals.len() as u32 - 1) as usize];
        let target = Target {
            cell: goal.cell,
            colour: goal.colour,
            shape: goal.shape,
        };
        Puzzle::new(board, robots, target).expect("robots avoid blocked cells and each other")
    }

    /// `dd`'s board with its D sides' diagonals and two to eight more mirrors of random
    /// lean and colour, on cells that are free and hold no goal.
    fn random_mirrors(&mut self, dd: &DdBoard) -> Board {
        let mut mirrors = dd.diagonals();
        let plain = dd.board();
        for _ in 0..self.rng.randint(2, 8) {
            let cell = self.rng.randint(0, 255) as Cell;
            let taken = mirrors.iter().any(|&(at, _)| at == i64::from(cell))
                || dd.goal_at(cell).is_some()
                || plain.is_blocked(cell);
            if !taken {
                let colour = Colour::ALL[self.rng.randint(0, MAX_ROBOTS as u32 - 1) as usize];
                let leans_left = self.rng.randint(0, 1) == 0;
                mirrors.push((i64::from(cell), Mirror { leans_left, colour }));
            }
        }
        plain.with_mirrors(&mirrors).expect("mirrors on free cells")
    }
}
