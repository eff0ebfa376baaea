//! Which order of two commuting moves the search keeps. Two moves in a row commute when
//! neither robot's start or end cell lies on the other's slide or stopped it: made the other
//! way round they reach the same state at the same depth. Of the two orders only the one
//! moving the lower robot first is searched, and a lower robot that cannot meet the previous
//! slide at all is not even slid.

use super::bounds::StopTables;
use crate::board::{Cell, GRID};

/// One move: where the robot started and stopped, and its direction (N, E, S, W as 0..4).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Slide {
    pub(crate) from: Cell,
    pub(crate) to: Cell,
    pub(crate) dir: usize,
}

/// Whether `first` followed by `second` (moves of two different robots) reaches the same
/// state as the other way round: unless either robot's start or end cell lies on the
/// other's slide or stopped it.
#[inline(always)]
pub(crate) fn commutes(stops: &StopTables, first: Slide, second: Slide) -> bool {
    !passes(second, first.from)
        && !stopped_by(stops, second, first.to)
        && !passes(first, second.to)
        && !stopped_by(stops, first, second.from)
}

/// Whether a robot on `cell` can have a move that does not commute with `slide`: every such
/// move starts or ends on the slide's line, passes one of its cells, or is stopped by its
/// end, so the robot's row or column meets the slide.
#[inline(always)]
pub(super) fn meets_slide(slide: Slide, cell: Cell) -> bool {
    let grid = GRID as u8;
    let (row, column) = (cell / grid, cell % grid);
    let (from_row, from_column) = (slide.from / grid, slide.from % grid);
    let (to_row, to_column) = (slide.to / grid, slide.to % grid);
    if from_column == to_column {
        column == from_column || (from_row.min(to_row)..=from_row.max(to_row)).contains(&row)
    } else {
        row == from_row
            || (from_column.min(to_column)..=from_column.max(to_column)).contains(&column)
    }
}

/// Whether `slide` passes `cell` (or ends on it).
#[inline(always)]
fn passes(slide: Slide, cell: Cell) -> bool {
    let Slide { from, to, dir } = slide;
    let vertical = dir % 2 == 0;
    cell != from
        && from.min(to) <= cell
        && cell <= from.max(to)
        && (!vertical || (cell ^ from).is_multiple_of(GRID as u8))
}

/// Whether `slide` was stopped by a robot on `cell`.
#[inline(always)]
fn stopped_by(stops: &StopTables, slide: Slide, cell: Cell) -> bool {
    const STEP: [u8; 4] = [(GRID as u8).wrapping_neg(), 1, GRID as u8, u8::MAX];
    let Slide { to: end, dir, .. } = slide;
    stops[dir][end as usize] != end && end.wrapping_add(STEP[dir]) == cell
}

#[cfg(test)]
mod tests {
    use super::super::bounds::stop_tables;
    use super::*;
    use crate::board::Direction;
    use crate::puzzle::Move;
    use crate::Game;

    /// On Fogleman boards with random robots: every move of a robot whose row and column
    /// miss the previous slide reaches the same state when played before that slide, and
    /// `commutes` says so; and every pair `commutes` accepts does reach the same state.
    #[test]
    fn a_robot_off_the_previous_slide_has_only_commuting_moves() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut random = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let (mut off_the_slide, mut accepted) = (0, 0);
        for seed in 1..=20 {
            // `Puzzle::slide`, the replay checker's cell-by-cell slide, is the referee: it
            // does not use the solver's stop tables.
            let puzzle = Game::generate(seed).expect("seed").puzzle();
            let slide = |robots: &[Cell], robot: usize, dir: Direction| {
                puzzle.slide(
                    robots,
                    Move {
                        robot: robot as u8,
                        dir,
                    },
                )
            };
            let board = puzzle.board();
            let stops = stop_tables(board);
            let cells: Vec<Cell> = board.cells().filter(|&c| !board.is_blocked(c)).collect();
            for _ in 0..300 {
                let mut before: Vec<Cell> = Vec::new();
                while before.len() < 4 {
                    let cell = cells[random(cells.len())];
                    if !before.contains(&cell) {
                        before.push(cell);
                    }
                }
                let (mover, mover_dir) = (random(4), Direction::ALL[random(4)]);
                let mut after = before.clone();
                after[mover] = slide(&before, mover, mover_dir);
                if after[mover] == before[mover] {
                    continue;
                }
                let first = Slide {
                    from: before[mover],
                    to: after[mover],
                    dir: mover_dir as usize,
                };
                for robot in (0..4).filter(|&robot| robot != mover) {
                    for dir in Direction::ALL {
                        let mut then = after.clone();
                        then[robot] = slide(&after, robot, dir);
                        if then[robot] == after[robot] {
                            continue;
                        }
                        let mut swapped = before.clone();
                        swapped[robot] = slide(&before, robot, dir);
                        swapped[mover] = slide(&swapped, mover, mover_dir);
                        let second = Slide {
                            from: after[robot],
                            to: then[robot],
                            dir: dir as usize,
                        };
                        let commuting = commutes(&stops, first, second);
                        if !meets_slide(first, after[robot]) {
                            off_the_slide += 1;
                            assert!(commuting, "{first:?} then {second:?}, robots {before:?}");
                        }
                        if commuting {
                            accepted += 1;
                            assert_eq!(then, swapped, "{first:?} then {second:?}");
                        }
                    }
                }
            }
        }
        assert!(
            off_the_slide > 5_000 && accepted > off_the_slide,
            "{off_the_slide} {accepted}"
        );
    }
}
