//! What a search computes from its puzzle's board and target alone: the stop tables, the
//! bound tables and, for long searches, the route regions. A solver keeps the last
//! puzzle's tables and the next puzzle takes them over: all of them on the same board and
//! target cell, the stop tables and the wall-bounded lines on the same board. Solving
//! puzzles grouped by board and target (as a unit's seeds are) saves most of the set-up.

use super::bounds::{
    empty_board_distances, lower_bounds, lower_bounds_walled_arrival, stop_tables, StopTables,
};
use super::regions::{insert, CellSet, Regions};
use super::UNREACHABLE;
use crate::board::{Board, Cell, Direction, CELLS};

/// From this bound on, searches pay for [`Regions::compute`]; below it they are too short
/// for the pruning to repay its set-up.
const REGIONS_FROM_DEPTH: u8 = 7;
/// From this bound on, searches also pay for [`Regions::compute_wider`].
const WIDER_REGIONS_FROM_DEPTH: u8 = 10;

/// The tables of one board and target cell.
pub(super) struct Tables {
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
    pub(super) fn for_puzzle(kept: Option<Tables>, board: &Board, target: Cell) -> Tables {
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
    pub(super) fn prepare_for(&mut self, bound: u8, wild: bool) {
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
