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
use crate::solver::{CellSet, UNREACHABLE};

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
        let walks = colours * CELLS * 4;
        let mut spans = Vec::with_capacity(walks);
        let mut cells = Vec::new();
        let mut masks = Vec::with_capacity(walks);
        // The (cell, direction) pairs each walk took, stamped with the walk's number: no
        // table to clear between walks.
        let mut seen = vec![[0u32; 4]; CELLS];
        let mut stamp = 0;
        for &colour in &Colour::ALL[..colours] {
            for cell in (0..CELLS).map(|cell| cell as Cell) {
                for first in Direction::ALL {
                    stamp += 1;
                    let begin = cells.len();
                    let (mut at, mut dir, mut loops) = (cell, first, false);
                    while let Some(next) = board.step_open(at, dir) {
                        let took = &mut seen[next as usize][dir as usize];
                        if std::mem::replace(took, stamp) == stamp {
                            loops = true;
                            break;
                        }
                        cells.push(next);
                        at = next;
                        if let Some(mirror) = board.mirror(at).filter(|m| m.colour != colour) {
                            dir = mirror.turn(dir);
                        }
                    }
                    let length = u16::try_from(cells.len() - begin).expect("a walk is short");
                    spans.push((begin as u32, length, loops));
                    let mut mask = [0u64; 4];
                    for &cell in &cells[begin..] {
                        mask[cell as usize / 64] |= 1 << (cell % 64);
                    }
                    masks.push(mask);
                }
            }
        }
        let mut walks = Walks {
            spans,
            cells,
            masks,
            ends: Vec::new(),
            mirrors: (0..CELLS)
                .filter(|&cell| board.mirror(cell as Cell).is_some())
                .fold([0; 4], |mut bits, cell| {
                    bits[cell / 64] |= 1 << (cell % 64);
                    bits
                }),
        };
        walks.ends = (0..walks.spans.len())
            .map(|i| {
                let start = (i / 4 % CELLS) as Cell;
                walks.walk_end(i, start, &[start])
            })
            .collect();
        walks
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
        // Breadth first from the target over the walks reversed: the stops reaching each
        // cell, as one list cut into runs (where a cell's run begins, then its cells).
        let walks = |cell: usize| {
            let first = (colour * CELLS + cell) * 4;
            (first..first + 4).flat_map(move |i| {
                let (begin, length, _) = self.spans[i];
                let walk = &self.cells[begin as usize..begin as usize + usize::from(length)];
                walk.iter().copied().filter(|&at| !self.is_mirror(at))
            })
        };
        let sources = || (0..CELLS).filter(|&cell| !board.is_blocked(cell as Cell));
        let mut begins = vec![0u32; CELLS + 1];
        for cell in sources() {
            for at in walks(cell) {
                begins[at as usize + 1] += 1;
            }
        }
        for cell in 0..CELLS {
            begins[cell + 1] += begins[cell];
        }
        let mut filled = begins.clone();
        let mut reached_from = vec![0 as Cell; begins[CELLS] as usize];
        for cell in sources() {
            for at in walks(cell) {
                reached_from[filled[at as usize] as usize] = cell as Cell;
                filled[at as usize] += 1;
            }
        }
        let mut bounds = [UNREACHABLE; CELLS];
        bounds[target as usize] = 0;
        let mut queue = std::collections::VecDeque::from([target]);
        while let Some(cell) = queue.pop_front() {
            let run = begins[cell as usize] as usize..begins[cell as usize + 1] as usize;
            for &from in &reached_from[run] {
                if bounds[from as usize] == UNREACHABLE {
                    bounds[from as usize] = bounds[cell as usize] + 1;
                    queue.push_back(from);
                }
            }
        }
        bounds
    }

    fn is_mirror(&self, cell: Cell) -> bool {
        self.mirrors[cell as usize / 64] >> (cell % 64) & 1 == 1
    }
}
