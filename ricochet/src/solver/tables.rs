//! What a search computes from its puzzle's board and target alone: the stop tables, the
//! bound tables and, for long searches, the route regions. A solver keeps the last
//! puzzle's tables and the next puzzle takes them over: all of them on the same board and
//! target cell, the stop tables and the wall-bounded lines on the same board. Solving
//! puzzles grouped by board and target (as a unit's seeds are) saves most of the set-up.

use super::bounds::{
    empty_board_distances, lower_bounds, lower_bounds_walled_arrival, stop_tables, StopTables,
};
use super::regions::{contains, insert, intersects, CellSet, HelperTest, Regions};
use super::UNREACHABLE;
use crate::board::{Board, Cell, Direction, CELLS};

/// From this bound on, searches pay for [`Regions::compute`]; below it they are too short
/// for the pruning to repay its set-up.
const REGIONS_FROM_DEPTH: u8 = 7;
/// From this bound on, searches also pay for [`Regions::compute_wider`].
const WIDER_REGIONS_FROM_DEPTH: u8 = 10;

/// What [`Tables::raised_reach`] says of a state.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reach {
    /// Possibly solved within the moves.
    Within,
    /// Not solved within the moves.
    Beyond,
    /// Not solved within the moves unless the finishing robot finishes alone, going
    /// downhill every move but one sideways move.
    IfNotAlone,
}

/// The tables of one board and target cell.
pub(crate) struct Tables {
    board: Board,
    pub(super) target: Cell,
    /// Where a robot stops with no other robot about.
    pub(super) stops: StopTables,
    /// Moves the finishing robot needs from each cell if it could stop anywhere.
    pub(super) lower_bound: [u8; CELLS],
    /// Per cell: moves needed alone on an empty board (once regions are ready).
    pub(super) empty_board: [u8; CELLS],
    /// Per cell: `min(bound with a last move stopped by a wall, lower bound + 1)`.
    pub(super) walled_arrival: [u8; CELLS],
    /// Cells beyond the target on its sides without a wall.
    pub(super) blocker_cells: CellSet,
    /// The route regions, filled as the flags below say (its allocation is reused from
    /// puzzle to puzzle).
    pub(super) regions: Box<Regions>,
    /// Whether the regions hold this board's wall-bounded lines.
    lines_ready: bool,
    /// Whether the regions hold this board and target's downhill regions (and the tables
    /// above marked "once regions are ready" are filled).
    regions_computed: bool,
    /// Whether the regions also hold those of routes up to two moves longer.
    wider_computed: bool,
    /// Whether this search uses the downhill regions: from the bound where a fresh set-up
    /// would have computed them, so that a puzzle's search never depends on the puzzles
    /// solved before it (the solution found, and the robots it moves, stay the same).
    pub(super) regions_ready: bool,
    /// Whether this search uses the regions of routes up to two moves longer.
    pub(super) wider_ready: bool,
}

impl Tables {
    /// The tables of `board` and `target`, taking over what `kept` (the last puzzle's)
    /// holds for them.
    pub(crate) fn for_puzzle(kept: Option<Tables>, board: &Board, target: Cell) -> Tables {
        match kept {
            Some(kept) if kept.board == *board && kept.target == target => Tables {
                regions_ready: false,
                wider_ready: false,
                ..kept
            },
            Some(kept) if kept.board == *board => Tables::new(
                kept.board,
                kept.stops,
                kept.lines_ready,
                kept.regions,
                target,
            ),
            kept => {
                let regions = kept.map_or_else(Regions::new, |kept| kept.regions);
                Tables::new(board.clone(), stop_tables(board), false, regions, target)
            }
        }
    }

    /// The tables of `target` on a board whose stop tables (and lines, if ready) are given;
    /// `regions` only lends its room.
    fn new(
        board: Board,
        stops: StopTables,
        lines_ready: bool,
        regions: Box<Regions>,
        target: Cell,
    ) -> Tables {
        Tables {
            lower_bound: lower_bounds(&board, target),
            board,
            target,
            stops,
            empty_board: [UNREACHABLE; CELLS],
            walled_arrival: [UNREACHABLE; CELLS],
            blocker_cells: [0; 4],
            regions,
            lines_ready,
            regions_computed: false,
            wider_computed: false,
            regions_ready: false,
            wider_ready: false,
        }
    }

    /// Computes what the search to `bound` repays and is not ready yet; the wild target
    /// uses none of it.
    pub(crate) fn prepare_for(&mut self, bound: u8, wild: bool) {
        if wild {
            return;
        }
        if bound >= REGIONS_FROM_DEPTH && !self.regions_ready {
            if !self.regions_computed {
                self.prepare_deep_search();
            }
            self.regions_ready = true;
        }
        if bound >= WIDER_REGIONS_FROM_DEPTH && !self.wider_ready {
            if !self.wider_computed {
                self.regions.compute_wider(&self.board, &self.lower_bound);
                self.wider_computed = true;
            }
            self.wider_ready = true;
        }
    }

    /// Moves the finishing robot needs from each cell if it could stop anywhere.
    pub(crate) fn lower_bounds(&self) -> &[u8; CELLS] {
        &self.lower_bound
    }

    pub(crate) fn regions(&self) -> &Regions {
        &self.regions
    }

    /// The test helper moves from `robots` (finishing robot first) must pass with `slack`
    /// moves of slack (the `regions` module), once its regions are computed; `None` where
    /// none applies.
    pub(crate) fn helper_test(&self, robots: &[Cell], slack: u8) -> Option<HelperTest> {
        let finisher = robots[0] as usize;
        match slack {
            1 if self.regions_ready => Some(HelperTest::Routes {
                path: self.regions.path[finisher],
                blockers: self.regions.blockers[finisher],
            }),
            2 if self.regions_ready => {
                Some(HelperTest::Relevance(self.regions.relevance(robots, false)))
            }
            3 if self.wider_ready => {
                Some(HelperTest::Relevance(self.regions.relevance(robots, true)))
            }
            _ => None,
        }
    }

    /// Whether `robots` (finishing robot first, its bound h at most `moves`) provably
    /// have no solution within `moves` moves by what helpers cannot do without moving,
    /// up to the one case only a solo search decides ([`Reach::IfNotAlone`]). Any route
    /// of h moves that stops somewhere without a wall needs a robot in one of its
    /// blocker cells:
    /// * no helper in one: without a helper move only an all-walls route (the empty-board
    ///   distance) is that short, and any helper move costs one more: `min(empty, h + 1)`;
    /// * moreover no all-walls route is one move longer, no helper can get to a blocker
    ///   cell in one move, and the helpers where they stand serve no route one move longer
    ///   (a solo search with one sideways move decides, when one stands in such a route's
    ///   blocker cells): `h + 2`;
    /// * no helper beyond the target where it has no wall: the last move must stop against
    ///   a wall, or a helper must move there: `min(walled arrival, h + 1)`.
    ///
    /// Only the raise that can matter for `moves` is evaluated.
    #[inline(always)]
    pub(crate) fn raised_reach(&self, robots: &[Cell], moves: u8) -> Reach {
        let finisher = robots[0] as usize;
        let h = self.lower_bound[finisher];
        if !self.regions_ready || h + 2 <= moves {
            return Reach::Within;
        }
        let helpers = &robots[1..];
        let regions = &*self.regions;
        let blockers = &regions.blockers[finisher];
        let empty = self.empty_board[finisher];
        let no_target_blocker = || !helpers.iter().any(|&r| contains(&self.blocker_cells, r));
        let beyond = |yes: bool| if yes { Reach::Beyond } else { Reach::Within };
        if helpers.iter().any(|&r| contains(blockers, r)) {
            return beyond(
                h == moves && self.walled_arrival[finisher] > moves && no_target_blocker(),
            );
        }
        if h == moves {
            return beyond(
                empty > moves || (self.walled_arrival[finisher] > moves && no_target_blocker()),
            );
        }
        if empty <= moves
            || helpers
                .iter()
                .any(|&r| intersects(&regions.cross[r as usize], blockers))
        {
            return Reach::Within;
        }
        if helpers
            .iter()
            .any(|&r| contains(&regions.lateral_blockers[finisher], r))
        {
            Reach::IfNotAlone
        } else {
            Reach::Beyond
        }
    }

    /// Computes what only long searches repay: the route regions and the raised bounds.
    fn prepare_deep_search(&mut self) {
        let board = &self.board;
        if !self.lines_ready {
            self.regions.compute_lines(board);
            self.lines_ready = true;
        }
        self.regions.compute(board, &self.lower_bound);
        let lower_bound = &self.lower_bound;
        let plus_one = |distance: [u8; CELLS]| {
            std::array::from_fn(|c| distance[c].min(lower_bound[c].saturating_add(1)))
        };
        self.empty_board = empty_board_distances(&self.stops, self.target);
        self.walled_arrival = plus_one(lower_bounds_walled_arrival(board, self.target));
        for dir in Direction::ALL {
            if let Some(beyond) = board.step_open(self.target, dir) {
                insert(&mut self.blocker_cells, beyond);
            }
        }
        self.regions_computed = true;
    }
}
