//! Boards: size, walls on cell sides and blocked cells, checked for consistency.
//!
//! Internally every board lives on a 16×16 grid (cell index `y * 16 + x`) whatever its
//! size, so the solver's tables have one fixed shape; cells outside the board are blocked.
//! The public API speaks in the caller's layout, index `y * width + x`.

use crate::mirrors::Mirror;
use std::fmt;

/// Side length of the internal grid and the largest supported board side.
pub const GRID: usize = 16;
/// Number of cells of the internal grid.
pub const CELLS: usize = GRID * GRID;

/// A cell of the internal 16×16 grid, `y * 16 + x`.
pub type Cell = u8;

/// Wall bit of each side, as in Fogleman's data and the puzzle files: N=1 E=2 S=4 W=8.
pub const WALL_N: u8 = 1;
pub const WALL_E: u8 = 2;
pub const WALL_S: u8 = 4;
pub const WALL_W: u8 = 8;
const ALL_WALLS: u8 = WALL_N | WALL_E | WALL_S | WALL_W;

/// One of the four sliding directions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    North,
    East,
    South,
    West,
}

impl Direction {
    pub const ALL: [Direction; 4] = [Self::North, Self::East, Self::South, Self::West];

    /// The wall bit that stops a slide in this direction.
    pub fn wall_bit(self) -> u8 {
        1 << self as u8
    }

    pub fn opposite(self) -> Direction {
        Self::ALL[(self as usize + 2) % 4]
    }

    pub fn letter(self) -> char {
        ['N', 'E', 'S', 'W'][self as usize]
    }

    pub fn from_letter(letter: char) -> Option<Direction> {
        Self::ALL.into_iter().find(|d| d.letter() == letter)
    }

    /// The neighbour of `cell` in this direction on the internal grid, if any.
    pub fn step(self, cell: Cell) -> Option<Cell> {
        let (x, y) = (cell as usize % GRID, cell as usize / GRID);
        let (nx, ny) = match self {
            Self::North => (x, y.checked_sub(1)?),
            Self::East => (x + 1, y),
            Self::South => (x, y + 1),
            Self::West => (x.checked_sub(1)?, y),
        };
        (nx < GRID && ny < GRID).then(|| (ny * GRID + nx) as Cell)
    }
}

/// Why a board description was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    #[error("board size {width}x{height} is not supported (each side must be 1..=16)")]
    BadSize { width: usize, height: usize },
    #[error("board of {width}x{height} needs {expected} wall masks, got {got}")]
    WallCount {
        width: usize,
        height: usize,
        expected: usize,
        got: usize,
    },
    #[error("wall mask {mask} at cell {index} is not in 0..=15")]
    BadWallMask { index: usize, mask: u32 },
    #[error("inconsistent walls: cell {index} has a {side} wall but its neighbour {neighbour} has no {other} wall")]
    InconsistentWall {
        index: usize,
        side: char,
        neighbour: usize,
        other: char,
    },
    #[error("a mirror on cell {index}, which no robot may enter")]
    MirrorOnBlockedCell { index: usize },
    #[error("cell {index} is outside the {width}x{height} board")]
    CellOutOfRange {
        index: i64,
        width: usize,
        height: usize,
    },
}

/// A board: walls per cell side and blocked cells, on the internal 16×16 grid.
#[derive(Clone, PartialEq, Eq)]
pub struct Board {
    width: u8,
    height: u8,
    walls: [u8; CELLS],
    blocked: [bool; CELLS],
    /// Diagonal walls (see `mirrors`); none on most boards.
    mirrors: [Option<Mirror>; CELLS],
    has_mirrors: bool,
}

impl Board {
    /// A cheap hash of the walls and blocked cells: equal boards have equal fingerprints,
    /// different ones rarely (boards differing only in diagonal walls always) do.
    pub fn fingerprint(&self) -> u64 {
        let blocked = self.blocked.map(u8::from);
        (self.walls.chunks_exact(8))
            .chain(blocked.chunks_exact(8))
            .fold(0u64, |hash, chunk| {
                let word = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
                (hash.rotate_left(23) ^ word).wrapping_mul(crate::transposition::KEY_SPREAD)
            })
    }

    /// Builds a board from wall masks in the caller's layout (`y * width + x`) and a list of
    /// blocked cells (same layout). Walls must agree between neighbours; the outer edge is a
    /// wall whether or not the masks say so.
    pub fn new(
        width: usize,
        height: usize,
        walls: &[u32],
        blocked: &[i64],
    ) -> Result<Board, BoardError> {
        if !(1..=GRID).contains(&width) || !(1..=GRID).contains(&height) {
            return Err(BoardError::BadSize { width, height });
        }
        if walls.len() != width * height {
            return Err(BoardError::WallCount {
                width,
                height,
                expected: width * height,
                got: walls.len(),
            });
        }
        if let Some((index, &mask)) = walls
            .iter()
            .enumerate()
            .find(|(_, &m)| m > ALL_WALLS as u32)
        {
            return Err(BoardError::BadWallMask { index, mask });
        }
        for (index, &mask) in walls.iter().enumerate() {
            let (x, y) = (index % width, index / width);
            let neighbours = [
                (WALL_E, x + 1 < width, index + 1, WALL_W),
                (WALL_S, y + 1 < height, index + width, WALL_N),
            ];
            for (bit, inside, neighbour, other) in neighbours {
                if !inside {
                    continue;
                }
                let here = mask as u8 & bit != 0;
                let there = walls[neighbour] as u8 & other != 0;
                if here != there {
                    let (index, side, neighbour, other) = if here {
                        (index, bit, neighbour, other)
                    } else {
                        (neighbour, other, index, bit)
                    };
                    return Err(BoardError::InconsistentWall {
                        index,
                        side: side_letter(side),
                        neighbour,
                        other: side_letter(other),
                    });
                }
            }
        }
        let mut board = Board {
            width: width as u8,
            height: height as u8,
            walls: [ALL_WALLS; CELLS],
            blocked: [true; CELLS],
            mirrors: [None; CELLS],
            has_mirrors: false,
        };
        for (index, &mask) in walls.iter().enumerate() {
            let cell = board.cell_of(index);
            board.walls[cell as usize] = mask as u8;
            board.blocked[cell as usize] = false;
        }
        for &index in blocked {
            let cell = board.cell_checked(index)?;
            board.blocked[cell as usize] = true;
        }
        board.seal_blocked_and_edges();
        Ok(board)
    }

    /// Gives every blocked cell and the board's edge walls on both sides, so that slides
    /// never enter a blocked cell or leave the board.
    fn seal_blocked_and_edges(&mut self) {
        for cell in 0..CELLS {
            for dir in Direction::ALL {
                let open_neighbour = dir
                    .step(cell as Cell)
                    .filter(|&n| !self.blocked[n as usize]);
                if self.blocked[cell] || open_neighbour.is_none() {
                    self.walls[cell] |= dir.wall_bit();
                    if let Some(n) = dir.step(cell as Cell) {
                        self.walls[n as usize] |= dir.opposite().wall_bit();
                    }
                }
            }
        }
    }

    /// The board with diagonal walls on the given cells (caller indices).
    pub fn with_mirrors(mut self, mirrors: &[(i64, Mirror)]) -> Result<Board, BoardError> {
        for &(index, mirror) in mirrors {
            let cell = self.cell_checked(index)?;
            if self.is_blocked(cell) {
                return Err(BoardError::MirrorOnBlockedCell {
                    index: index as usize,
                });
            }
            self.mirrors[cell as usize] = Some(mirror);
            self.has_mirrors = true;
        }
        Ok(self)
    }

    /// The diagonal wall on an internal cell, if any.
    pub fn mirror(&self, cell: Cell) -> Option<Mirror> {
        self.mirrors[cell as usize]
    }

    pub fn has_mirrors(&self) -> bool {
        self.has_mirrors
    }

    /// Every diagonal wall, by caller index.
    pub fn mirror_list(&self) -> Vec<(usize, Mirror)> {
        (self.cells())
            .filter_map(|cell| Some((self.index_of(cell), self.mirror(cell)?)))
            .collect()
    }

    pub fn width(&self) -> usize {
        self.width as usize
    }

    pub fn height(&self) -> usize {
        self.height as usize
    }

    /// Wall mask of an internal cell (edges and blocked neighbours included).
    pub fn walls(&self, cell: Cell) -> u8 {
        self.walls[cell as usize]
    }

    pub fn has_wall(&self, cell: Cell, dir: Direction) -> bool {
        self.walls[cell as usize] & dir.wall_bit() != 0
    }

    /// The neighbour of `cell` in `dir` when no wall is between them.
    pub fn step_open(&self, cell: Cell, dir: Direction) -> Option<Cell> {
        if self.has_wall(cell, dir) {
            None
        } else {
            dir.step(cell)
        }
    }

    /// A cell no robot may stand on: blocked, outside the board, or walled on all sides.
    pub fn is_blocked(&self, cell: Cell) -> bool {
        self.blocked[cell as usize] || self.walls[cell as usize] == ALL_WALLS
    }

    /// Internal cell of a caller index `y * width + x` (which must be in range).
    pub fn cell_of(&self, index: usize) -> Cell {
        let (x, y) = (index % self.width(), index / self.width());
        (y * GRID + x) as Cell
    }

    /// Internal cell of a caller index, or an error when it is off the board.
    pub fn cell_checked(&self, index: i64) -> Result<Cell, BoardError> {
        if index < 0 || index as usize >= self.width() * self.height() {
            return Err(BoardError::CellOutOfRange {
                index,
                width: self.width(),
                height: self.height(),
            });
        }
        Ok(self.cell_of(index as usize))
    }

    /// Caller index `y * width + x` of an internal cell.
    pub fn index_of(&self, cell: Cell) -> usize {
        let (x, y) = (cell as usize % GRID, cell as usize / GRID);
        y * self.width() + x
    }

    /// All internal cells on the board, row by row.
    pub fn cells(&self) -> impl Iterator<Item = Cell> + '_ {
        (0..self.width() * self.height()).map(|i| self.cell_of(i))
    }

    /// Effective wall masks in the caller's layout: edge walls included, blocked cells 15.
    pub fn wall_masks(&self) -> Vec<u8> {
        self.cells().map(|c| self.walls(c)).collect()
    }
}

fn side_letter(bit: u8) -> char {
    Direction::ALL
        .into_iter()
        .find(|d| d.wall_bit() == bit)
        .map_or('?', Direction::letter)
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Board({}x{})", self.width, self.height)
    }
}
