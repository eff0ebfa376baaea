//! The blocker bound without rebounds: the finisher's routes worked out once per (cell,
//! last line, moves left), on first use, and each state tested against them by where its
//! helpers stand, at the cost of a few bit tests.
//!
//! A robot stops only where a wall or a robot is on the cell beyond. So each stop of the
//! finisher that no wall ends needs a robot on the cell beyond when it stops, and where no
//! helper stands now, a helper move ending there first: one move for each such cell,
//! however many stops need it, besides the finisher's own. A state needs more than its
//! moves left when every route of its finisher needs more, counted so. The routes are the
//! relaxed bound's, under the rules: lines alternating (no rebounds), stopping anywhere,
//! passing through robots (they may move away), pruned by the rules' relaxed bound; a
//! real finisher's moves are one of them. Without rebounds many of a route's stops have
//! no wall beyond, since the finisher cannot go back along a line to the wall behind it.
//!
//! The helpers are not in the routes, so one family serves every state: a route whose
//! count is `k` moves too many with no helper standing where it needs one fits once `k`
//! of its cells hold a helper. A state is ruled out where, for each `k`, fewer than `k`
//! helpers stand among the cells of all the routes `k` moves too many.

use super::super::mover::{Line, State};
use super::Restricted;
use crate::board::{Board, Cell, Direction, CELLS};
use crate::puzzle::MAX_ROBOTS;
use crate::solver::{contains, insert, CellSet};

/// States searched before the blocker bound's routes are worked out: a short search costs
/// less than they do. One in the unit tests, whose searches are all short.
const BLOCKERS_AFTER_STATES: u64 = if cfg!(test) { 1 } else { 50_000 };

/// The fewest and most moves left at which states are tested: with fewer, the search's
/// own subtree costs less than a test; with more, the bound rules out next to nothing
/// (BENCHMARKS.md, 2026-12-07).
const FIRST_LEFT: u8 = 3;
const LAST_LEFT: u8 = 7;
const LEFTS: usize = (LAST_LEFT - FIRST_LEFT + 1) as usize;
/// The most helpers a route can find standing where it needs them.
const HELPERS: usize = MAX_ROBOTS - 1;

impl Restricted<'_> {
    /// Whether `state` provably has no solution within `left` moves by the cells its
    /// finisher's stops need a helper moved onto (`blockers`), where that bound applies.
    pub(super) fn beyond_blockers(&self, state: &State, left: u8) -> bool {
        if !self.blockers_apply
            || !BlockerBound::covers(left)
            || self.states < BLOCKERS_AFTER_STATES
        {
            return false;
        }
        let target = self.puzzle.target();
        let finisher = target.colour.map_or(0, |colour| colour.robot());
        let helpers = (0..self.count).filter(|&robot| robot != finisher);
        let board = (
            self.puzzle.board(),
            target.cell,
            &self.lower_bound[finisher][0],
        );
        let at = (state.robots[finisher], state.lines[finisher]);
        let mut blockers = self.blockers.borrow_mut();
        let blockers = blockers.get_or_insert_with(BlockerBound::new);
        blockers.rules_out(board, at, helpers.map(|robot| state.robots[robot]), left)
    }
}

/// The finisher's routes from one (cell, last line) within some moves, as far as the
/// helpers' cells can change them.
#[derive(Clone)]
struct Family {
    /// Some route needs no helper move: no state is ruled out.
    free: bool,
    /// `needs[k - 1]`: the cells needed by the routes `k` moves too many with no helper
    /// standing where one is needed.
    needs: [CellSet; HELPERS],
}

/// The families of one search's finisher, by moves left, last line and cell.
pub(super) struct BlockerBound {
    families: Vec<Option<Family>>,
}

impl BlockerBound {
    fn new() -> BlockerBound {
        BlockerBound {
            families: vec![None; LEFTS * 3 * CELLS],
        }
    }

    /// Whether states with `left` moves left are tested.
    fn covers(left: u8) -> bool {
        (FIRST_LEFT..=LAST_LEFT).contains(&left)
    }

    /// Whether a finisher at `cell` whose last move ran on `line`, with the other robots
    /// on `helpers`' cells and `left` moves left (a number [`BlockerBound::covers`]),
    /// cannot reach `target` on `board` within them; `bounds` is the rules' relaxed bound
    /// of the finisher by line and cell.
    fn rules_out(
        &mut self,
        (board, target, bounds): (&Board, Cell, &[[u8; CELLS]; 3]),
        (cell, line): (Cell, Line),
        helpers: impl Iterator<Item = Cell>,
        left: u8,
    ) -> bool {
        debug_assert!(BlockerBound::covers(left));
        let index = (usize::from(left - FIRST_LEFT) * 3 + line as usize) * CELLS + cell as usize;
        let family = self.families[index].get_or_insert_with(|| {
            let routes = Routes {
                board,
                target,
                bounds,
                left,
            };
            let mut family = Family {
                free: false,
                needs: [[0; 4]; HELPERS],
            };
            routes.walk(cell, line, &mut [None; LAST_LEFT as usize], 0, &mut family);
            family
        });
        if family.free {
            return false;
        }
        let mut held = [0u32; HELPERS];
        for helper in helpers {
            for (count, needs) in held.iter_mut().zip(&family.needs) {
                *count += u32::from(contains(needs, helper));
            }
        }
        (held.iter().zip(1..)).all(|(&count, k)| count < k)
    }
}

/// What the finisher's routes are walked over.
struct Routes<'b> {
    board: &'b Board,
    target: Cell,
    bounds: &'b [[u8; CELLS]; 3],
    left: u8,
}

impl Routes<'_> {
    /// Adds to `family` every route from `cell` after a move on `line`, `moves` moves in,
    /// whose stops so far need the cells in `stops` (`None` beside a wall).
    fn walk(
        &self,
        cell: Cell,
        line: Line,
        stops: &mut [Option<Cell>; LAST_LEFT as usize],
        moves: usize,
        family: &mut Family,
    ) {
        for dir in Direction::ALL {
            let after = Line::of(dir);
            if after == line {
                continue;
            }
            let mut at = cell;
            while let Some(next) = self.board.step_open(at, dir) {
                if family.free {
                    return;
                }
                at = next;
                stops[moves] = self.board.step_open(at, dir);
                let made = moves + 1;
                if at == self.target {
                    let stops = &stops[..made];
                    let needed = (stops.iter().enumerate())
                        .filter_map(|(i, &cell)| cell.filter(|&c| !stops[..i].contains(&Some(c))));
                    let over =
                        (made + needed.clone().count()).saturating_sub(usize::from(self.left));
                    match over {
                        0 => family.free = true,
                        1..=HELPERS => needed.for_each(|c| insert(&mut family.needs[over - 1], c)),
                        _ => {}
                    }
                } else if made + usize::from(self.bounds[after as usize][at as usize])
                    <= usize::from(self.left)
                {
                    self.walk(at, after, stops, made, family);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mt::PyRandom;
    use crate::rules::bounds::straight_bounds;
    use crate::rules::tests::{random_puzzle, reference_moves_within};
    use crate::rules::Rules;

    /// The bound rules out only positions that cannot be finished: on random positions of
    /// two and three robots (no last lines yet), every one it rules out with 3–7 moves
    /// left, within the rules' relaxed bound, has no solution that short by the plain
    /// BFS without rebounds; and it rules out many.
    #[test]
    fn ruled_out_positions_have_no_solution_within_their_moves() {
        let rules = Rules {
            rebounds: false,
            ..Rules::STANDARD
        };
        let mut rng = PyRandom::new(7);
        let (mut tested, mut ruled_out) = (0, 0);
        for case in 0..240 {
            let (size, robots) = [(8, 2), (10, 3), (16, 2)][case % 3];
            let puzzle = random_puzzle(&mut rng, size, robots);
            let Some(colour) = puzzle.target().colour else {
                continue;
            };
            let finisher = colour.robot();
            let bounds = straight_bounds(&puzzle, rules, false)[0];
            let at = puzzle.robots()[finisher];
            let relaxed = bounds[Line::None as usize][at as usize];
            let helpers = || {
                let robots = puzzle.robots().iter().enumerate();
                robots
                    .filter(|&(robot, _)| robot != finisher)
                    .map(|(_, &cell)| cell)
            };
            let mut bound = BlockerBound::new();
            for left in (FIRST_LEFT..=LAST_LEFT).filter(|&left| left >= relaxed) {
                tested += 1;
                let board = (puzzle.board(), puzzle.target().cell, &bounds);
                if bound.rules_out(board, (at, Line::None), helpers(), left) {
                    ruled_out += 1;
                    let found = reference_moves_within(&puzzle, rules, usize::from(left));
                    assert_eq!(found, None, "case {case}: ruled out with {left} moves left");
                }
            }
        }
        assert!(ruled_out >= 40, "{ruled_out} of {tested} ruled out");
    }
}
