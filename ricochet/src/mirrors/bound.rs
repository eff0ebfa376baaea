//! K. Cox's relaxed bound on a board with mirrors: the moves a robot that could stop
//! anywhere on its colour's walks needs to the target, worked out breadth first over the
//! walks reversed.

use super::{Walks, STEPS, STEP_OFFSET};
use crate::board::{Board, Cell, CELLS};
use crate::exhaustive::block;
use crate::solver::{insert, CellSet, UNREACHABLE};

impl Walks {
    /// Moves a robot of the `colour`-th colour (one of the walks' colours) that could
    /// stop anywhere needs from each cell to `target`: it follows its colour's walks
    /// (straight through a mirror of its colour, turned by any other) and may stop on any
    /// cell of a walk that is not a mirror. A real slide is such a walk cut short by a
    /// wall or a robot, so this is an admissible lower bound for that robot (K. Cox's
    /// relaxation). `UNREACHABLE` (the solver's) where it cannot get there; a blocked
    /// cell of `board` (the walks' board) gets there from nowhere.
    pub fn relaxed_bounds(&self, board: &Board, target: Cell, colour: usize) -> [u8; CELLS] {
        // Breadth first from the target over the walks reversed, a level at a time. On a
        // straight run the cells that reach a stop are those behind it on its line, all
        // lines filled at once. On a bent chain they are the cells of the steps leading to
        // the stop's step there, read off the chain nearest first, up to a cell already
        // reached in fewer moves that is not a mirror: that cell's own stepping back
        // covers the rest at no more moves.
        let first = colour * STEPS;
        let mut bounds = [UNREACHABLE; CELLS];
        bounds[target as usize] = 0;
        let mut reached = [0u64; 4];
        insert(&mut reached, target);
        let (mut stops, mut moves) = (reached, 0);
        while stops != [0; 4] {
            moves += 1;
            let mut found = [0u64; 4];
            for (open, by) in self.straight.iter().zip(STEP_OFFSET) {
                let behind = behind_on_lines(&stops, open, by);
                (0..4).for_each(|w| found[w] |= behind[w] & !reached[w]);
            }
            for cell in block::cells(&found) {
                bounds[cell as usize] = moves;
            }
            (0..4).for_each(|w| reached[w] |= found[w]);
            // A walk stops on no mirror: a mirror cell reaches, never is reached.
            let mut next: CellSet = std::array::from_fn(|w| found[w] & !self.mirrors[w]);
            for (dir, bent) in self.bent.iter().enumerate() {
                let on_chains: CellSet = std::array::from_fn(|w| stops[w] & bent[w]);
                for stop in block::cells(&on_chains).map(usize::from) {
                    let span = self.spans[first + stop * 4 + dir];
                    for &from in self.cells[span.behind()].iter().rev() {
                        let known = bounds[from as usize];
                        if known == UNREACHABLE {
                            if board.is_blocked(from) {
                                continue;
                            }
                            bounds[from as usize] = moves;
                            insert(&mut reached, from);
                            if !self.is_mirror(from) {
                                insert(&mut next, from);
                            }
                        } else if known < moves && !self.is_mirror(from) {
                            break;
                        }
                    }
                }
            }
            stops = next;
        }
        bounds
    }
}

/// The cells of `open` from which a robot moving `by` (a cell's step to its neighbour)
/// along a line of `open` cells reaches one of `stops`: `open` holds the cells whose
/// walk that way goes on to the next cell of a straight run. Lines are filled in
/// strides of 1, 2, 4 and 8 cells at once.
fn behind_on_lines(stops: &CellSet, open: &CellSet, by: isize) -> CellSet {
    // Each cell takes what the cell `distance` steps ahead of it holds.
    let ahead = |set: &CellSet, distance: isize| block::shift_by(set, -(distance * by) as i32);
    let mut reach = block::and(&ahead(stops, 1), open);
    let mut run = *open;
    for stride in [1, 2, 4, 8] {
        reach = block::or(&reach, &block::and(&run, &ahead(&reach, stride)));
        run = block::and(&run, &ahead(&run, stride));
    }
    reach
}
