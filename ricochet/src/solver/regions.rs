//! Where the other robots matter to the finishing robot's shortest routes, per cell of the
//! finishing robot, and what that says about which helper moves are worth searching.
//!
//! A route here is a sequence of the finishing robot's stop-anywhere slides to the target;
//! a downhill slide lowers its bound by one, a sideways one keeps it, an uphill one raises
//! it by one. Robots matter to a route by standing on its path (leaving opens it) or just
//! beyond one of its stops (its blocker cells: a stop not against a wall needs a robot
//! there).
//!
//! The search knows every state at `remaining` moves has no shorter solution (earlier
//! iterations failed). With `slack` moves beyond the bound, a solution spends exactly
//! `slack` moves off the downhill routes: helper moves, or sideways and uphill moves of the
//! finishing robot. A helper move that no later move of such a solution depends on
//! (none slides through the cell it left, is stopped by the cell it reached, or is its own
//! next move) could be dropped, leaving a shorter solution, which cannot exist: so only
//! moves that can matter are searched. [`Relevance`] is that test at two and three moves
//! of slack; at one, `dfs` tests path and blocker cells directly.

use crate::board::{Board, Cell, Direction, CELLS};
use crate::puzzle::MAX_ROBOTS;

/// A set of cells: bit `cell % 64` of word `cell / 64`.
pub(crate) type CellSet = [u64; 4];

pub(crate) fn contains(set: &CellSet, cell: Cell) -> bool {
    set[cell as usize / 64] >> (cell % 64) & 1 != 0
}

pub(crate) fn insert(set: &mut CellSet, cell: Cell) {
    set[cell as usize / 64] |= 1 << (cell % 64);
}

pub(crate) fn intersects(a: &CellSet, b: &CellSet) -> bool {
    (0..4).any(|word| a[word] & b[word] != 0)
}

fn union(a: &CellSet, b: &CellSet) -> CellSet {
    std::array::from_fn(|word| a[word] | b[word])
}

/// Per cell of the finishing robot, where other robots matter to its routes when it slides
/// alone.
pub(crate) struct Regions {
    /// The cells each downhill slide passes: a robot leaving one can open a route.
    pub(super) path: [CellSet; CELLS],
    /// The cells just beyond each downhill stop: only a robot here makes the stop possible.
    pub(super) blockers: [CellSet; CELLS],
    /// Blocker cells of the routes one move longer (one move keeps the bound).
    pub(super) lateral_blockers: [CellSet; CELLS],
    /// The cells the routes one move longer pass.
    lateral_path: [CellSet; CELLS],
    /// Paths of the routes up to two moves longer (see [`Regions::compute_wider`]).
    wide_path: [CellSet; CELLS],
    /// Blocker cells of the routes up to two moves longer.
    wide_blockers: [CellSet; CELLS],
    /// Where a helper can stand and make a move that matters with one more move to spare.
    wide_movers: [CellSet; CELLS],
    /// Cells on the four wall-bounded lines through the cell: wherever a robot there can
    /// get in one move.
    pub(super) cross: [CellSet; CELLS],
}

impl Regions {
    pub(super) fn new() -> Box<Regions> {
        Box::new(Regions {
            path: [[0; 4]; CELLS],
            blockers: [[0; 4]; CELLS],
            lateral_blockers: [[0; 4]; CELLS],
            lateral_path: [[0; 4]; CELLS],
            wide_path: [[0; 4]; CELLS],
            wide_blockers: [[0; 4]; CELLS],
            wide_movers: [[0; 4]; CELLS],
            cross: [[0; 4]; CELLS],
        })
    }

    /// The regions of the downhill routes and of the routes one move longer (the lines
    /// come from [`Regions::compute_lines`]).
    pub(super) fn compute(&mut self, board: &Board, lower_bound: &[u8; CELLS]) {
        let by_bound = by_bound(lower_bound);
        let routes = Routes {
            board,
            lower_bound,
            by_bound: &by_bound,
        };
        routes.fill(
            &mut self.path,
            &mut self.blockers,
            |added, at, paths, blockers| (added == DOWNHILL).then(|| (paths[at], blockers[at])),
        );
        // A longer route keeps the bound in one move and goes downhill in all others.
        routes.fill(
            &mut self.lateral_path,
            &mut self.lateral_blockers,
            |added, at, paths, blockers| match added {
                DOWNHILL => Some((paths[at], blockers[at])),
                SIDEWAYS => Some((self.path[at], self.blockers[at])),
                _ => None,
            },
        );
    }

    /// The board's wall-bounded lines through each cell ([`Regions::cross`]): they depend on
    /// the board alone.
    pub(super) fn compute_lines(&mut self, board: &Board) {
        for cell in board.cells() {
            let mut cross = [0u64; 4];
            walk_lines(board, cell, |_, at, _| insert(&mut cross, at));
            self.cross[cell as usize] = cross;
        }
    }

    /// The regions of the routes up to two moves longer (two sideways moves or one uphill),
    /// and where helpers can matter with a move to spare, for [`Relevance`] at three moves
    /// of slack: only the longest searches repay them. Needs [`Regions::compute`] first.
    pub(super) fn compute_wider(&mut self, board: &Board, lower_bound: &[u8; CELLS]) {
        let by_bound = by_bound(lower_bound);
        let routes = Routes {
            board,
            lower_bound,
            by_bound: &by_bound,
        };
        routes.fill(
            &mut self.wide_path,
            &mut self.wide_blockers,
            |added, at, paths, blockers| match added {
                DOWNHILL => Some((paths[at], blockers[at])),
                SIDEWAYS => Some((
                    union(&self.path[at], &self.lateral_path[at]),
                    union(&self.blockers[at], &self.lateral_blockers[at]),
                )),
                UPHILL => Some((self.path[at], self.blockers[at])),
                _ => None,
            },
        );
        for &cell in &by_bound {
            let c = cell as usize;
            // A helper matters with no move to spare from a downhill path or a line to a
            // blocker cell; with one to spare, also from the routes one longer, or from a
            // line to where it matters with none to spare (moving twice).
            let tight = union(&self.path[c], &self.reaching(&self.blockers[c]));
            let lateral_path = union(&self.path[c], &self.lateral_path[c]);
            let lateral_blockers = union(&self.blockers[c], &self.lateral_blockers[c]);
            self.wide_movers[c] = union(
                &union(&lateral_path, &self.reaching(&lateral_blockers)),
                &union(&tight, &self.reaching(&tight)),
            );
        }
    }

    /// The cells whose wall-bounded lines reach a cell of `set`.
    fn reaching(&self, set: &CellSet) -> CellSet {
        let mut out = [0u64; 4];
        for (word, &bits) in set.iter().enumerate() {
            let mut bits = bits;
            while bits != 0 {
                let cell = word * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                // Lines are symmetric: `cell` is on the lines of every cell of its own.
                out = union(&out, &self.cross[cell]);
            }
        }
        out
    }

    /// What a helper move must touch in state `robots` (finishing robot first) with two
    /// moves of slack, or three if `wide` (which needs [`Regions::compute_wider`]).
    pub(super) fn relevance(&self, robots: &[Cell], wide: bool) -> Relevance {
        let finisher = robots[0] as usize;
        let (path, blockers) = (&self.path[finisher], &self.blockers[finisher]);
        // The lines of the helpers that can matter with no move to spare.
        let mut tight_lines = [[0u64; 4]; MAX_ROBOTS];
        for (robot, &cell) in robots.iter().enumerate().skip(1) {
            let cross = &self.cross[cell as usize];
            if contains(path, cell) || intersects(cross, blockers) {
                tight_lines[robot] = *cross;
            }
        }
        let others = |lines: &[CellSet; MAX_ROBOTS], robot: usize| {
            (1..robots.len())
                .filter(|&other| other != robot)
                .fold([0u64; 4], |set, other| union(&set, &lines[other]))
        };
        if !wide {
            return Relevance {
                left: union(path, &self.lateral_path[finisher]),
                reached: union(&union(blockers, &self.lateral_blockers[finisher]), path),
                reached_lines: *blockers,
                others: std::array::from_fn(|robot| others(&tight_lines, robot)),
            };
        }
        // The lines of the helpers that can matter with one move to spare: from where
        // they stand, or by moving a helper that then matters with none to spare.
        let mut spare_lines = [[0u64; 4]; MAX_ROBOTS];
        for (robot, &cell) in robots.iter().enumerate().skip(1) {
            let cross = &self.cross[cell as usize];
            let tight_others = others(&tight_lines, robot);
            if contains(&self.wide_movers[finisher], cell)
                || intersects(cross, &tight_others)
                || contains(&tight_others, cell)
            {
                spare_lines[robot] = *cross;
            }
        }
        Relevance {
            left: self.wide_path[finisher],
            reached: union(&self.wide_blockers[finisher], &self.wide_movers[finisher]),
            // Robot 0 is no helper: excluding it keeps every helper's lines.
            reached_lines: others(&tight_lines, 0),
            others: std::array::from_fn(|robot| others(&spare_lines, robot)),
        }
    }
}

/// What a helper move must touch to be searched from a state with one, two or three
/// moves of slack: both searches ask the same, so that what one prunes the other would.
pub(crate) enum HelperTest {
    /// One move of slack: only the finishing robot's downhill routes follow, so the move
    /// must leave a cell of their `path` or reach one of their `blockers` cells.
    Routes { path: CellSet, blockers: CellSet },
    /// Two or three moves of slack.
    Relevance(Relevance),
}

impl HelperTest {
    /// Whether helper `robot`'s move from `a` to `b` can matter.
    #[inline(always)]
    pub(crate) fn allows(&self, regions: &Regions, robot: usize, a: Cell, b: Cell) -> bool {
        match self {
            HelperTest::Routes { path, blockers } => contains(path, a) || contains(blockers, b),
            HelperTest::Relevance(relevance) => relevance.allows(regions, robot, a, b),
        }
    }

    /// Whether no move of a helper on `cell` can pass: off the routes' paths, and no
    /// line of it reaches a blocker cell.
    #[inline(always)]
    pub(crate) fn rules_out(&self, regions: &Regions, cell: Cell) -> bool {
        match self {
            HelperTest::Routes { path, blockers } => {
                !contains(path, cell) && !intersects(&regions.cross[cell as usize], blockers)
            }
            HelperTest::Relevance(_) => false,
        }
    }
}

/// What a helper's move from `a` to `b` must touch to be searched (see the module doc):
/// a later move of the finishing robot (`a` on a route's path, `b` one of its blocker
/// cells), the helper's own next move (from `b`, to where it matters), or another helper's
/// move that matters (sliding through `a` or stopped by `b`, both on its lines).
pub(crate) struct Relevance {
    /// Cells whose leaving opens a route.
    left: CellSet,
    /// Cells whose reaching serves a route, or from where the helper's next move can.
    reached: CellSet,
    /// Cells a helper's next move can serve from anywhere on their lines.
    reached_lines: CellSet,
    /// Per helper, the lines of the other helpers whose moves can matter.
    others: [CellSet; MAX_ROBOTS],
}

impl Relevance {
    /// Whether helper `robot`'s move from `a` to `b` can matter.
    #[inline(always)]
    pub(super) fn allows(&self, regions: &Regions, robot: usize, a: Cell, b: Cell) -> bool {
        contains(&self.left, a)
            || contains(&self.reached, b)
            || intersects(&regions.cross[b as usize], &self.reached_lines)
            || contains(&self.others[robot], a)
            || contains(&self.others[robot], b)
    }
}

/// Moves a slide adds to a route beyond the bound of its start: a downhill slide none, a
/// sideways one (keeping the bound) one, an uphill one (raising it by one) two.
const DOWNHILL: u8 = 0;
const SIDEWAYS: u8 = 1;
const UPHILL: u8 = 2;

/// One cell set per cell of the finishing robot.
type PerCell = [CellSet; CELLS];

/// What filling one family of routes reads.
struct Routes<'a> {
    board: &'a Board,
    lower_bound: &'a [u8; CELLS],
    by_bound: &'a [Cell],
}

impl Routes<'_> {
    /// Fills `path` and `blockers` for every cell, lower bounds first: over the cell's
    /// slides that `tail` continues (given the moves the slide adds and its end), the cells
    /// passed and the tail's path, the tail's blocker cells and the cell beyond the stop
    /// when no wall is there. `tail` reads this family's sets of cells already filled from
    /// its last two arguments.
    fn fill(
        &self,
        path: &mut PerCell,
        blockers: &mut PerCell,
        tail: impl Fn(u8, usize, &PerCell, &PerCell) -> Option<(CellSet, CellSet)>,
    ) {
        for &cell in self.by_bound {
            let here = self.lower_bound[cell as usize];
            let (mut route_path, mut route_blockers) = ([0u64; 4], [0u64; 4]);
            walk_lines(self.board, cell, |dir, at, line| {
                // Every cell on a reachable cell's lines is reachable: no overflow.
                let added = (self.lower_bound[at as usize] + 1).wrapping_sub(here);
                let Some((tail_path, tail_blockers)) = tail(added, at as usize, path, blockers)
                else {
                    return;
                };
                route_path = union(&union(&route_path, &tail_path), line);
                route_blockers = union(&route_blockers, &tail_blockers);
                if let Some(beyond) = self.board.step_open(at, dir) {
                    insert(&mut route_blockers, beyond);
                }
            });
            path[cell as usize] = route_path;
            blockers[cell as usize] = route_blockers;
        }
    }
}

/// The cells from which the target can be reached, lower bounds first, so that every
/// route's tail is known when its start is computed.
fn by_bound(lower_bound: &[u8; CELLS]) -> Vec<Cell> {
    let mut cells: Vec<Cell> = (0..CELLS)
        .map(|c| c as Cell)
        .filter(|&c| lower_bound[c as usize] != super::UNREACHABLE)
        .collect();
    cells.sort_by_key(|&c| lower_bound[c as usize]);
    cells
}

/// Walks the four wall-bounded lines from `cell`, calling `visit(direction, cell passed,
/// cells passed so far on this line)` for every cell.
pub(super) fn walk_lines(
    board: &Board,
    cell: Cell,
    mut visit: impl FnMut(Direction, Cell, &CellSet),
) {
    for dir in Direction::ALL {
        let mut line = [0u64; 4];
        let mut at = cell;
        while !board.has_wall(at, dir) {
            at = dir.step(at).expect("edge walls");
            insert(&mut line, at);
            visit(dir, at, &line);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(row: u8, column: u8) -> Cell {
        row * 16 + column
    }

    /// On an empty board, the finishing robot in a corner needs two moves to (5, 5), each
    /// stop needing a helper beyond it; a lone helper far from every route can only matter
    /// at two moves of slack by reaching one of those blocker cells.
    #[test]
    fn at_two_moves_of_slack_only_moves_that_can_matter_are_allowed() {
        let board = Board::new(16, 16, &[0; CELLS], &[]).unwrap();
        let lower_bound = super::super::lower_bounds(&board, cell(5, 5));
        assert_eq!(lower_bound[cell(0, 0) as usize], 2);
        let mut regions = Regions::new();
        regions.compute_lines(&board);
        regions.compute(&board, &lower_bound);
        let helper = cell(10, 10);
        let relevance = regions.relevance(&[cell(0, 0), helper], false);
        assert!(
            !relevance.allows(&regions, 1, helper, cell(10, 15)),
            "off every route, onto no blocker cell or line to one"
        );
        assert!(!relevance.allows(&regions, 1, helper, cell(15, 10)));
        assert!(
            relevance.allows(&regions, 1, cell(10, 6), cell(0, 6)),
            "beyond the stop at (0, 5)"
        );
        assert!(
            relevance.allows(&regions, 1, cell(3, 9), cell(3, 15)),
            "leaving a route one move longer (via (0, 9) and (5, 9))"
        );
        assert!(
            relevance.allows(&regions, 1, helper, cell(6, 10)),
            "one slide from (6, 5), beyond the stop at (5, 5)"
        );
    }
}
