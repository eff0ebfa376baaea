//! Random games dealt the way DriftingDroids deals them, from a seed: the four tile
//! numbers in random slots, each on a random side A–D; robots on random cells off the
//! centre; then targets drawn from a shuffled deck of the board's targets, a target the
//! game would finish in 0 or 1 move put back under the deck while others remain.
//! DriftingDroids itself draws from an unseeded generator, so these are games of its
//! distribution, not its exact games.

use super::{DdBoard, DdGame, Goal, TileSide};
use crate::board::{Cell, Direction};
use crate::mt::PyRandom;

impl DdGame {
    /// The game of `seed` with `robots` robots (1 to 5).
    pub fn deal(seed: u64, robots: usize) -> DdGame {
        DdGame::deal_counting(seed, robots).0
    }

    /// [`DdGame::deal`], and how many goals were put back before its goal was kept. A
    /// game whose first goal was kept (0) is uniform over the board's pairs of a goal
    /// and a placement that needs 2 moves or more: the deck's first goal is uniform and
    /// independent of the robots.
    pub fn deal_counting(seed: u64, robots: usize) -> (DdGame, usize) {
        let mut rng = PyRandom::new(seed);
        let mut numbers = [0u8, 1, 2, 3];
        rng.shuffle(&mut numbers);
        let sides = numbers.map(|number| TileSide(number + 4 * rng.randint(0, 3) as u8));
        let board = DdBoard::new(sides);
        let mut cells: Vec<Cell> = Vec::with_capacity(robots);
        while cells.len() < robots {
            let cell = rng.randint(0, 255) as Cell;
            if board.walls()[cell as usize] != 15 && !cells.contains(&cell) {
                cells.push(cell);
            }
        }
        let mut deck: Vec<Goal> = (board.goals.iter().copied())
            .filter(|goal| goal.colour.is_none_or(|colour| colour.robot() < robots))
            .collect();
        rng.shuffle(&mut deck);
        let game = |goal| DdGame {
            board: board.clone(),
            robots: cells.clone(),
            goal,
        };
        match (deck.iter().copied()).position(|goal| !game(goal).within_one_move()) {
            Some(put_back) => (game(deck[put_back]), put_back),
            None => (game(deck[0]), deck.len()),
        }
    }

    /// Whether a robot allowed on the target stands on it or reaches it in one slide.
    pub fn within_one_move(&self) -> bool {
        let walls = self.board.walls();
        (0..self.robots.len())
            .filter(|&robot| {
                self.goal
                    .colour
                    .is_none_or(|colour| colour.robot() == robot)
            })
            .any(|robot| {
                let start = self.robots[robot];
                start == self.goal.cell
                    || Direction::ALL.into_iter().any(|dir| {
                        let mut at = start;
                        while walls[at as usize] & dir.wall_bit() == 0 {
                            match dir.step(at) {
                                Some(next) if !self.robots.contains(&next) => at = next,
                                _ => break,
                            }
                        }
                        at != start && at == self.goal.cell
                    })
            })
    }
}
