//! Diagonal walls ("mirrors") of the game's second edition, as K. Cox's solver plays them.
//!
//! A mirror stands on a cell and has a colour. A robot of that colour passes through it;
//! any other robot is turned a quarter and slides on. No robot stops on a mirror cell: a
//! slide is a chain of straight legs, each ending at a wall, a robot or a turning mirror,
//! and the robot stops at the end of the first leg that is not a mirror cell. A leg that
//! cannot start (a wall or a robot right after a turn, or past a mirror it crossed) ends
//! the move where it is, and a move that would end on a mirror cell is no move at all.

use crate::board::{Board, Cell, Direction, CELLS};
use crate::puzzle::Colour;
use crate::solver::{insert, intersects, CellSet, UNREACHABLE};

mod routes;
pub(crate) use routes::Routes;

/// A diagonal wall: `\` leans left (its top on the left), `/` leans right.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Mirror {
    pub leans_left: bool,
    /// The colour of the robot that passes through it.
    pub colour: Colour,
}

impl Mirror {
    /// The direction a robot moving in `dir` leaves the mirror in, when it is turned.
    pub fn turn(self, dir: Direction) -> Direction {
        use Direction::*;
        match (dir, self.leans_left) {
            (North, true) | (South, false) => West,
            (North, false) | (South, true) => East,
            (East, true) | (West, false) => South,
            (East, false) | (West, true) => North,
        }
    }

    /// Its character in K. Cox's format: `\` or `/`.
    pub fn symbol(self) -> char {
        if self.leans_left {
            '\\'
        } else {
            '/'
        }
    }
}

/// Where robot `robot` at `robots[robot]` ends sliding in `dir` on a board with mirrors:
/// its own cell when the move is impossible.
pub fn slide(board: &Board, robots: &[Cell], robot: usize, dir: Direction) -> Cell {
    let start = robots[robot];
    let colour = Colour::ALL.get(robot).copied();
    let (mut at, mut dir) = (start, dir);
    // A chain of legs longer than every (cell, direction) pair loops for ever: no move.
    for _ in 0..CELLS * 4 {
        let leg_start = at;
        while let Some(next) = board.step_open(at, dir) {
            if next != start && robots.contains(&next) {
                break;
            }
            at = next;
            if let Some(mirror) = board.mirror(at) {
                if Some(mirror.colour) != colour {
                    dir = mirror.turn(dir);
                    break;
                }
            }
        }
        if at == leg_start {
            return start;
        }
        if board.mirror(at).is_none() {
            return at;
        }
    }
    start
}

/// Every slide's walk on a board with mirrors, worked out once: for each robot's colour,
/// cell and direction, the cells it passes with no robot about, so that a search slides
/// by scanning a list for the first robot instead of stepping through walls and mirrors.
/// [`Walks::slide`] is [`slide`], faster.
pub struct Walks {
    /// By (colour, cell, direction): where the walk's cells start in `cells`, how many
    /// there are, and whether the walk comes back to a cell and direction it took (then
    /// a robot that meets no other robot on it never stops: no move).
    spans: Vec<(u32, u16, bool)>,
    cells: Vec<Cell>,
    /// By (colour, cell, direction): the walk's cells as a bitset, and where it ends with
    /// no robot on it.
    masks: Vec<[u64; 4]>,
    ends: Vec<Cell>,
    /// The mirror cells, as a bitset (small enough to keep the walks inline).
    mirrors: [u64; 4],
}

impl Walks {
    /// The walks of the first `colours` colours' robots on `board`.
    pub fn new(board: &Board, colours: usize) -> Walks {
        let count = colours * CELLS * 4;
        // The mirror cells of each colour, in one pass over the board.
        let mut own_mirrors = [[0u64; 4]; Colour::ALL.len()];
        for cell in board.cells() {
            if let Some(mirror) = board.mirror(cell) {
                insert(&mut own_mirrors[mirror.colour.robot()], cell);
            }
        }
        let mut walks = Walks {
            spans: Vec::with_capacity(count),
            cells: Vec::new(),
            masks: Vec::with_capacity(count),
            ends: Vec::with_capacity(count),
            mirrors: std::array::from_fn(|w| own_mirrors.iter().fold(0, |all, m| all | m[w])),
        };
        let first_own = own_mirrors[0];
        for (index, &colour) in Colour::ALL[..colours].iter().enumerate() {
            // A walk of the first colour that meets no mirror of that colour or of this
            // one is turned alike by every mirror it meets: it is this colour's too.
            let own = own_mirrors[colour.robot()];
            let shared: CellSet = std::array::from_fn(|w| first_own[w] | own[w]);
            for cell in (0..CELLS).map(|cell| cell as Cell) {
                for first in Direction::ALL {
                    let same = (cell as usize * 4) + first as usize;
                    let mask = walks.masks.get(same).copied();
                    match mask.filter(|mask| !intersects(mask, &shared)) {
                        Some(mask) if index > 0 => {
                            walks.spans.push(walks.spans[same]);
                            walks.masks.push(mask);
                            walks.ends.push(walks.ends[same]);
                        }
                        _ => walks.trace(board, colour, cell, first),
                    }
                }
            }
        }
        walks
    }

    /// Steps the walk of a robot of `colour` from `cell` pushed `first` through `board`.
    /// The step from one (cell, direction entered) to the next is one-to-one (a mirror
    /// turns back the way it turned), so a walk that goes round for ever comes back to
    /// its first step: it is cut there, its last cell the start.
    fn trace(&mut self, board: &Board, colour: Colour, cell: Cell, first: Direction) {
        let begin = self.cells.len();
        let mut mask = [0u64; 4];
        let (mut at, mut dir, mut loops) = (cell, first, false);
        while let Some(next) = board.step_open(at, dir) {
            if at == cell && dir == first && self.cells.len() > begin {
                loops = true;
                break;
            }
            self.cells.push(next);
            insert(&mut mask, next);
            at = next;
            if let Some(mirror) = board.mirror(at).filter(|m| m.colour != colour) {
                dir = mirror.turn(dir);
            }
        }
        let length = u16::try_from(self.cells.len() - begin).expect("a walk is short");
        self.spans.push((begin as u32, length, loops));
        self.masks.push(mask);
        self.ends
            .push(if loops { cell } else { self.stop(cell, at) });
    }

    /// Where robot `robot` at `robots[robot]` ends sliding in `dir`: its own cell when
    /// the move is impossible.
    #[inline]
    pub fn slide(&self, robots: &[Cell], robot: usize, dir: Direction) -> Cell {
        let start = robots[robot];
        let i = (robot * CELLS + start as usize) * 4 + dir as usize;
        // Most walks meet no robot: their end is known.
        let mask = &self.masks[i];
        let meets = (robots.iter())
            .any(|&cell| cell != start && mask[cell as usize / 64] >> (cell % 64) & 1 == 1);
        if !meets {
            return self.ends[i];
        }
        self.walk_end(i, start, robots)
    }

    /// Whether the walk of robot `robot` from `start` pushed in direction `dir` (its
    /// index) passes none of `cells`: then robots there cannot change where it ends.
    #[inline]
    pub fn misses(&self, robot: usize, start: Cell, dir: usize, cells: [Cell; 2]) -> bool {
        let mask = self.cells_passed(robot, start, dir);
        (cells.iter()).all(|&cell| mask[cell as usize / 64] >> (cell % 64) & 1 == 0)
    }

    /// The cells the walk of robot `robot` from `start` pushed in direction `dir` (its
    /// index) passes with no robot about, as a set: only robots there change its end.
    #[inline]
    pub fn cells_passed(&self, robot: usize, start: Cell, dir: usize) -> &[u64; 4] {
        &self.masks[(robot * CELLS + start as usize) * 4 + dir]
    }

    /// The cells the four walks of robot `robot` from `start` pass, as one set.
    #[inline]
    pub(crate) fn passes(&self, robot: usize, start: Cell) -> CellSet {
        let first = (robot * CELLS + start as usize) * 4;
        let masks = &self.masks[first..first + 4];
        std::array::from_fn(|w| masks[0][w] | masks[1][w] | masks[2][w] | masks[3][w])
    }

    /// Where walk `i` from `start` ends among `robots`.
    fn walk_end(&self, i: usize, start: Cell, robots: &[Cell]) -> Cell {
        let (begin, length, loops) = self.spans[i];
        let walk = &self.cells[begin as usize..begin as usize + usize::from(length)];
        let mut at = start;
        for &next in walk {
            if next != start && robots.contains(&next) {
                return self.stop(start, at);
            }
            at = next;
        }
        if loops {
            return start;
        }
        self.stop(start, at)
    }

    /// The end of a slide held up at `at`: no move when it is a mirror cell.
    fn stop(&self, start: Cell, at: Cell) -> Cell {
        if self.is_mirror(at) {
            start
        } else {
            at
        }
    }
}

impl Walks {
    /// Moves a robot of the `colour`-th colour (one of the walks' colours) that could
    /// stop anywhere needs from each cell to `target`: it follows its colour's walks
    /// (straight through a mirror of its colour, turned by any other) and may stop on any
    /// cell of a walk that is not a mirror. A real slide is such a walk cut short by a
    /// wall or a robot, so this is an admissible lower bound for that robot (K. Cox's
    /// relaxation). `UNREACHABLE` (the solver's) where it cannot get there; a blocked
    /// cell of `board` (the walks' board) gets there from nowhere.
    pub fn relaxed_bounds(&self, board: &Board, target: Cell, colour: usize) -> [u8; CELLS] {
        // Breadth first from the target over the walks reversed. The step from one (cell,
        // direction entered) to the next is one-to-one, so the walks that pass a cell
        // entered in a direction are the cells on its one walk backwards: stepped back
        // against the direction, turned back by each mirror that turned it, until a wall
        // or the step it started from.
        let colour = Colour::ALL[colour];
        let turns = |cell: Cell| board.mirror(cell).filter(|m| m.colour != colour);
        let mut bounds = [UNREACHABLE; CELLS];
        bounds[target as usize] = 0;
        let mut queue = std::collections::VecDeque::from([target]);
        while let Some(stop) = queue.pop_front() {
            let moves = bounds[stop as usize] + 1;
            for entered in Direction::ALL {
                let (mut at, mut dir) = (stop, entered);
                for _ in 0..CELLS * 4 {
                    let Some(from) = board.step_open(at, dir.opposite()) else {
                        break;
                    };
                    if bounds[from as usize] == UNREACHABLE && !board.is_blocked(from) {
                        bounds[from as usize] = moves;
                        // A walk stops on no mirror: a mirror cell reaches, never is reached.
                        if !self.is_mirror(from) {
                            queue.push_back(from);
                        }
                    }
                    if let Some(mirror) = turns(from) {
                        dir = mirror.turn(dir);
                    }
                    at = from;
                    if (at, dir) == (stop, entered) {
                        break;
                    }
                }
            }
        }
        bounds
    }

    fn is_mirror(&self, cell: Cell) -> bool {
        self.mirrors[cell as usize / 64] >> (cell % 64) & 1 == 1
    }
}
