//! The bound tables of one puzzle, computed before its search: where a robot stops on an
//! empty board, and how many moves the finishing robot needs from each cell under
//! relaxations of the rules (stopping anywhere; the last stop against a wall; only walls
//! stopping it). Each is admissible: no real route is shorter.

use super::regions::walk_lines;
use super::UNREACHABLE;
use crate::board::{Board, Cell, Direction, CELLS, GRID};

/// `stops[dir][cell]`: where a robot at `cell` stops sliding in `dir` on an empty board.
pub(crate) type StopTables = [[Cell; CELLS]; 4];

pub(crate) fn stop_tables(board: &Board) -> StopTables {
    let mut stops = [[0; CELLS]; 4];
    for dir in Direction::ALL {
        // Visit cells so that the next cell in `dir` is always done first.
        let towards_end = matches!(dir, Direction::East | Direction::South);
        for i in 0..CELLS {
            let cell = if towards_end { CELLS - 1 - i } else { i } as Cell;
            stops[dir as usize][cell as usize] = match board.has_wall(cell, dir) {
                true => cell,
                false => stops[dir as usize][dir.step(cell).expect("edge walls") as usize],
            };
        }
    }
    stops
}

/// Where robot `robot` stops sliding in `dir` on a board without mirrors: its wall stop
/// in `stops`, cut short next to the nearest robot in the way (the moving robot itself is
/// never strictly between). One direction of the fast solver's `slides`, for searches
/// that play one move at a time.
#[inline(always)]
pub(crate) fn stopped_slide(
    stops: &StopTables,
    robots: &[Cell],
    robot: usize,
    dir: Direction,
) -> Cell {
    let from = robots[robot];
    let mut to = stops[dir as usize][from as usize];
    let grid = GRID as Cell;
    let same_column = |other: Cell| (other ^ from).is_multiple_of(grid);
    // Along a row the cells passed are consecutive, so the range is the test.
    for &other in robots {
        match dir {
            Direction::North if other < from && other >= to && same_column(other) => {
                to = other + grid
            }
            Direction::South if other > from && other <= to && same_column(other) => {
                to = other - grid
            }
            Direction::East if other > from && other <= to => to = other - 1,
            Direction::West if other < from && other >= to => to = other + 1,
            _ => {}
        }
    }
    to
}

/// Moves the finishing robot needs from each cell if it could stop anywhere: a BFS from the
/// target along wall-free straight lines. Admissible, since every real move is such a line.
pub(crate) fn lower_bounds(board: &Board, target: Cell) -> [u8; CELLS] {
    stop_anywhere_distances(board, target, |_| true)
}

/// Like [`lower_bounds`], but the last move must stop on the target against a wall.
pub(super) fn lower_bounds_walled_arrival(board: &Board, target: Cell) -> [u8; CELLS] {
    stop_anywhere_distances(board, target, |dir| board.has_wall(target, dir))
}

/// BFS from `target` along wall-free lines; `arrival(dir)` says which last moves count.
fn stop_anywhere_distances(
    board: &Board,
    target: Cell,
    arrival: impl Fn(Direction) -> bool,
) -> [u8; CELLS] {
    let mut bound = [UNREACHABLE; CELLS];
    let mut queue = [0 as Cell; CELLS];
    let (mut head, mut tail) = (0, 1);
    bound[target as usize] = 0;
    queue[0] = target;
    while head < tail {
        let cell = queue[head];
        head += 1;
        let next = bound[cell as usize] + 1;
        // Cells from which a slide passes `cell`: those on its lines, moving towards it.
        walk_lines(board, cell, |back, from, _| {
            if (cell != target || arrival(back.opposite())) && bound[from as usize] == UNREACHABLE {
                bound[from as usize] = next;
                queue[tail] = from;
                tail += 1;
            }
        });
    }
    bound
}

/// Moves the finishing robot needs from each cell on an empty board (every stop against a
/// wall).
pub(super) fn empty_board_distances(stops: &StopTables, target: Cell) -> [u8; CELLS] {
    distances_over_ends(target, |cell| std::array::from_fn(|dir| stops[dir][cell]))
}

/// Moves from each cell to `target` when the moves from a cell end where `ends` says (its
/// own cell for no move), by relaxing `1 + distance of each end` until nothing changes.
pub(crate) fn distances_over_ends(target: Cell, ends: impl Fn(usize) -> [Cell; 4]) -> [u8; CELLS] {
    let mut distance = [UNREACHABLE; CELLS];
    distance[target as usize] = 0;
    let mut changed = true;
    while changed {
        changed = false;
        for cell in 0..CELLS {
            let best = (ends(cell).iter())
                .map(|&end| distance[usize::from(end)].saturating_add(1))
                .min()
                .unwrap_or(UNREACHABLE);
            if best < distance[cell] {
                distance[cell] = best;
                changed = true;
            }
        }
    }
    distance
}
