//! DriftingDroids' boards and game IDs.
//!
//! DriftingDroids (M. Henke's solver GUI) builds a 16×16 board from four of its 16 quadrant
//! tile sides: tiles 1–4, sides A and B of the original edition and C and D of the second,
//! numbered 0–15 as `1A 2A 3A 4A 1B … 4D`. Tile 4 of every side carries the vortex, a
//! target any robot may finish on. Up to five robots play: red, green, blue, yellow and
//! silver. A position travels as a game ID such as `7650+42+E2302B12+C9`: the tile sides
//! top-left, top-right, bottom-right, bottom-left; the number of robots and the target
//! robot (`F`: any, the vortex); each robot's cell `x + 16 y`; the target's cell.
//!
//! DriftingDroids names its tiles differently from Fogleman's program: the physical tile
//! side Fogleman calls 1A is DriftingDroids' 1B, his 2A its 4A. [`FOGLEMAN_TILES`] maps
//! them; the tests prove the mapping by building every board both ways.

mod deal;
mod dump;

pub use dump::{read_dump, write_dump, DumpError};

use crate::board::{Board, Cell, Direction, GRID, WALL_E, WALL_N, WALL_S, WALL_W};
use crate::mirrors::Mirror;
use crate::puzzle::{Colour, Puzzle, PuzzleError, Shape, Target, MAX_ROBOTS};
use std::fmt;

/// The tile sides in DriftingDroids' order, drawn as the top-left quadrant (the centre
/// block at its bottom right): `xy WALLS [TOKEN]` per marked cell, a token being a colour
/// and shape (`RC` red circle, … `YH` yellow hexagon) or `*`, the vortex.
const SIDES: [(&str, &str); 16] = [
    (
        "1A",
        "10 E, 41 NW RC, 12 NE GT, 63 SE YH, 05 S, 36 SW BQ, 77 NESW",
    ),
    (
        "2A",
        "30 E, 51 SE GH, 12 SW RQ, 03 S, 64 NW YC, 26 NE BT, 77 NESW",
    ),
    (
        "3A",
        "30 E, 52 SE BH, 04 S, 24 NE GC, 75 SW RT, 16 NW YQ, 77 NESW",
    ),
    (
        "4A",
        "30 E, 61 SW BC, 13 NE YT, 54 NW GQ, 25 SE RH, 75 SE *, 06 S, 77 NESW",
    ),
    (
        "1B",
        "40 E, 61 SE YH, 12 NW GT, 05 S, 65 NE BQ, 36 SW RC, 77 NESW",
    ),
    (
        "2B",
        "40 E, 21 NW YC, 63 SW BT, 04 S, 45 NE RQ, 16 SE GH, 77 NESW",
    ),
    (
        "3B",
        "30 E, 11 SW RT, 62 NE GC, 24 SE BH, 05 S, 75 NW YQ, 77 NESW",
    ),
    (
        "4B",
        "40 E, 21 SE RH, 13 SW GQ, 04 S, 64 NW YT, 56 NE BC, 37 SE *, 77 NESW",
    ),
    (
        "1C",
        "10 E, 31 NW GT, 63 SE YH, 14 SW RC, 06 S, 46 NE BQ, 77 NESW",
    ),
    (
        "2C",
        "50 E, 32 NW YC, 03 S, 53 SW BT, 24 NE RQ, 45 SE GH, 77 NESW",
    ),
    (
        "3C",
        "10 E, 41 NE GC, 13 SW RT, 05 S, 55 NW YQ, 36 SE BH, 77 NESW",
    ),
    (
        "4C",
        "20 E, 51 SW BC, 72 SE *, 03 S, 34 SE RH, 65 NW GQ, 16 NE YT, 77 NESW",
    ),
    (
        "1D",
        "50 E, 13 NW RC, 64 SE YH, 05 S, 26 NE GT, 36 SW BQ, 77 NESW",
    ),
    (
        "2D",
        "20 E, 52 SE GH, 62 NW YC, 15 SW RQ, 06 S, 47 NE BT, 77 NESW",
    ),
    (
        "3D",
        "40 E, 02 S, 62 SE BH, 24 NE GC, 34 SW RT, 56 NW YQ, 77 NESW",
    ),
    (
        "4D",
        "40 E, 62 NW YT, 23 NE BC, 33 SW GQ, 15 SE RH, 06 S, 57 SE *, 77 NESW",
    ),
];

/// Fogleman's tile names (his program's `1A` … `4B`) and the DriftingDroids side that is
/// the same physical tile side. Fogleman's program leaves the vortex out, and with it the
/// two walls beside it: his 2A and 2B are DriftingDroids' 4A and 4B but for those walls.
pub const FOGLEMAN_TILES: [(&str, &str); 8] = [
    ("1A", "1B"),
    ("1B", "1A"),
    ("2A", "4A"),
    ("2B", "4B"),
    ("3A", "2A"),
    ("3B", "2B"),
    ("4A", "3A"),
    ("4B", "3B"),
];

/// A diagonal wall on a side: x, y, whether it leans left (`\`), its colour.
type Diagonal = (usize, usize, bool, Colour);

/// The second edition's diagonal walls, which DriftingDroids leaves off its D sides: two
/// on each, in the side's own frame (the top-left tile: x to the right, y down), `\` or
/// not, and the colour of the robot that passes. K. Cox's four mirror quarters are these
/// sides with these diagonals, and a second, independent transcription agrees.
const D_SIDE_DIAGONALS: [(&str, [Diagonal; 2]); 4] = [
    (
        "1D",
        [(4, 1, false, Colour::Green), (5, 7, true, Colour::Yellow)],
    ),
    (
        "2D",
        [(2, 1, false, Colour::Blue), (7, 4, true, Colour::Red)],
    ),
    (
        "3D",
        [(4, 1, true, Colour::Blue), (6, 3, true, Colour::Yellow)],
    ),
    (
        "4D",
        [(2, 1, true, Colour::Red), (3, 6, true, Colour::Green)],
    ),
];

/// One of DriftingDroids' 16 tile sides, by its number in game IDs (0 = 1A … 15 = 4D).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TileSide(u8);

impl TileSide {
    pub const ALL: [TileSide; 16] = {
        let mut all = [TileSide(0); 16];
        let mut i = 0;
        while i < 16 {
            all[i] = TileSide(i as u8);
            i += 1;
        }
        all
    };

    /// The side numbered `number` in game IDs.
    pub fn from_number(number: u8) -> Option<TileSide> {
        (number < 16).then_some(TileSide(number))
    }

    pub fn number(self) -> u8 {
        self.0
    }

    /// Its DriftingDroids name, e.g. `3B`.
    pub fn name(self) -> &'static str {
        SIDES[self.0 as usize].0
    }

    /// The side named `name` (`1A` … `4D`, any case).
    pub fn from_name(name: &str) -> Option<TileSide> {
        let name = name.to_ascii_uppercase();
        Self::ALL.into_iter().find(|side| side.name() == name)
    }

    /// The tile's number, 1 to 4.
    pub fn tile(self) -> u8 {
        self.0 % 4 + 1
    }

    /// The same physical side under Fogleman's name, for sides A and B.
    pub fn fogleman_name(self) -> Option<&'static str> {
        FOGLEMAN_TILES
            .iter()
            .find(|(_, ours)| *ours == self.name())
            .map(|(fogleman, _)| *fogleman)
    }

    /// The side Fogleman calls `name` (`1A` … `4B`).
    pub fn from_fogleman_name(name: &str) -> Option<TileSide> {
        let name = name.to_ascii_uppercase();
        FOGLEMAN_TILES
            .iter()
            .find(|(fogleman, _)| *fogleman == name)
            .and_then(|(_, ours)| TileSide::from_name(ours))
    }
}

impl fmt::Display for TileSide {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A target printed on a tile: its colour (`None`: the vortex, any robot) and shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Goal {
    pub cell: Cell,
    pub colour: Option<Colour>,
    pub shape: Option<Shape>,
}

/// A board of four tile sides, in slot order top-left, top-right, bottom-right,
/// bottom-left (each turned clockwise a quarter per slot).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DdBoard {
    pub sides: [TileSide; 4],
    walls: [u8; GRID * GRID],
    /// Every target on the board, in slot order.
    pub goals: Vec<Goal>,
}

impl DdBoard {
    pub fn new(sides: [TileSide; 4]) -> DdBoard {
        let mut walls = [0u8; GRID * GRID];
        let mut goals = Vec::with_capacity(17);
        for (slot, &side) in sides.iter().enumerate() {
            place(side, slot, &mut walls, &mut goals);
        }
        for edge in 0..GRID {
            walls[edge] |= WALL_N;
            walls[(GRID - 1) * GRID + edge] |= WALL_S;
            walls[edge * GRID] |= WALL_W;
            walls[edge * GRID + GRID - 1] |= WALL_E;
        }
        DdBoard {
            sides,
            walls,
            goals,
        }
    }

    /// Wall masks, index `y * 16 + x`, the outer edge included.
    pub fn walls(&self) -> &[u8; GRID * GRID] {
        &self.walls
    }

    pub fn board(&self) -> Board {
        let walls: Vec<u32> = self.walls.iter().map(|&w| u32::from(w)).collect();
        Board::new(GRID, GRID, &walls, &[]).expect("tile data is consistent")
    }

    /// The diagonal walls of its D sides as the second edition prints them (DriftingDroids
    /// plays without them), turned with their sides (a quarter turn swaps `\` and `/`),
    /// by cell index.
    pub fn diagonals(&self) -> Vec<(i64, Mirror)> {
        let mut diagonals = Vec::new();
        for (slot, side) in self.sides.iter().enumerate() {
            let on_side = D_SIDE_DIAGONALS
                .iter()
                .filter(|(name, _)| *name == side.name());
            for &(x, y, leans_left, colour) in on_side.flat_map(|(_, marks)| marks) {
                let mirror = Mirror {
                    leans_left: leans_left != (slot % 2 == 1),
                    colour,
                };
                diagonals.push((placed(x, y, slot) as i64, mirror));
            }
        }
        diagonals
    }

    /// [`DdBoard::board`] with its D sides' diagonal walls ([`DdBoard::diagonals`]).
    pub fn board_with_diagonals(&self) -> Board {
        (self.board().with_mirrors(&self.diagonals())).expect("no diagonal is on a wall or goal")
    }

    /// The target on `cell`, if any.
    pub fn goal_at(&self, cell: Cell) -> Option<Goal> {
        self.goals.iter().copied().find(|goal| goal.cell == cell)
    }
}

/// Adds `side`'s walls and targets, turned into `slot`.
fn place(side: TileSide, slot: usize, walls: &mut [u8; GRID * GRID], goals: &mut Vec<Goal>) {
    for mark in SIDES[side.0 as usize].1.split(", ") {
        let mut parts = mark.split(' ');
        let (xy, sides, token) = (parts.next(), parts.next(), parts.next());
        let xy = xy.expect("tile data: xy").as_bytes();
        let (x, y) = ((xy[0] - b'0') as usize, (xy[1] - b'0') as usize);
        let cell = placed(x, y, slot);
        for letter in sides.expect("tile data: walls").chars() {
            let dir = Direction::from_letter(letter).expect("tile data: N, E, S, W");
            add_wall(walls, cell, turned(dir, slot));
        }
        if let Some(token) = token {
            let mut letters = token.chars();
            goals.push(Goal {
                cell: cell as Cell,
                colour: letters.next().and_then(Colour::from_letter),
                shape: letters.next().and_then(Shape::from_letter),
            });
        }
    }
}

/// Where cell (`x`, `y`) of a top-left tile lands when the tile is turned into `slot`.
fn placed(x: usize, y: usize, slot: usize) -> usize {
    let last = GRID - 1;
    let (x, y) = match slot {
        0 => (x, y),
        1 => (last - y, x),
        2 => (last - x, last - y),
        _ => (y, last - x),
    };
    y * GRID + x
}

fn turned(dir: Direction, slot: usize) -> Direction {
    Direction::ALL[(dir as usize + slot) % 4]
}

/// Walls `cell`'s side `dir` and the facing side of its neighbour.
fn add_wall(walls: &mut [u8; GRID * GRID], cell: usize, dir: Direction) {
    walls[cell] |= dir.wall_bit();
    if let Some(neighbour) = dir.step(cell as Cell) {
        walls[neighbour as usize] |= dir.opposite().wall_bit();
    }
}

/// A position of DriftingDroids: its board, robots (in colour order) and target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DdGame {
    pub board: DdBoard,
    pub robots: Vec<Cell>,
    pub goal: Goal,
}

/// Why a text is not a DriftingDroids game ID; each names the bad part.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameIdError {
    #[error("a game ID is 4 tile digits, '+', robots and target robot, '+', 2 hex digits per robot, '+', 2 for the target (e.g. 7650+42+E2302B12+C9); got {0:?}")]
    Shape(String),
    #[error("tile sides {0:?}: each is a hex digit 0-F (1A 2A 3A 4A 1B … 4D)")]
    Sides(String),
    #[error("robots {0:?}: the count is 1 to {MAX_ROBOTS} and the target robot below it, or F for the vortex")]
    Robots(String),
    #[error("robot cells {cells:?}: {count} robots need {} hex digits", 2 * count)]
    RobotCells { cells: String, count: usize },
    #[error("robot {robot} on cell {cell:#04X}: {why}")]
    RobotCell {
        robot: usize,
        cell: usize,
        why: &'static str,
    },
    #[error("target {0:?}: two hex digits, the cell of a target on the board")]
    TargetCell(String),
    #[error("target cell {cell:#04X} holds no target of board {board}")]
    NoGoal { cell: usize, board: String },
    #[error("target cell {cell:#04X} is the {found} target, not the {named} robot's")]
    GoalRobot {
        cell: usize,
        found: String,
        named: String,
    },
}

impl DdGame {
    /// Reads a game ID such as `7650+42+E2302B12+C9` (hex digits in either case).
    pub fn parse(id: &str) -> Result<DdGame, GameIdError> {
        let id = id.trim();
        let parts: Vec<&str> = id.split('+').collect();
        let [sides, robots, cells, target] = parts[..] else {
            return Err(GameIdError::Shape(clip(id)));
        };
        let hex = |text: &str| -> Option<Vec<u8>> {
            text.chars()
                .map(|c| c.to_digit(16).map(|d| d as u8))
                .collect()
        };
        let side_digits = hex(sides)
            .filter(|digits| digits.len() == 4)
            .ok_or_else(|| GameIdError::Sides(clip(sides)))?;
        let sides = [0, 1, 2, 3].map(|i| TileSide(side_digits[i]));
        let (count, goal_robot) = match hex(robots).as_deref() {
            Some(&[count, goal])
                if (1..=MAX_ROBOTS as u8).contains(&count) && (goal < count || goal == 15) =>
            {
                (
                    count as usize,
                    (goal != 15).then(|| Colour::ALL[goal as usize]),
                )
            }
            _ => return Err(GameIdError::Robots(clip(robots))),
        };
        let cell_digits = hex(cells)
            .filter(|digits| digits.len() == 2 * count)
            .ok_or_else(|| GameIdError::RobotCells {
                cells: clip(cells),
                count,
            })?;
        let board = DdBoard::new(sides);
        let mut robot_cells = Vec::with_capacity(count);
        for robot in 0..count {
            let cell = usize::from(cell_digits[2 * robot] << 4 | cell_digits[2 * robot + 1]);
            let why = if board.walls[cell] == 15 {
                Some("the centre block")
            } else if robot_cells.contains(&(cell as Cell)) {
                Some("another robot is there")
            } else {
                None
            };
            if let Some(why) = why {
                return Err(GameIdError::RobotCell { robot, cell, why });
            }
            robot_cells.push(cell as Cell);
        }
        let target_digits = hex(target)
            .filter(|digits| digits.len() == 2)
            .ok_or_else(|| GameIdError::TargetCell(clip(target)))?;
        let cell = usize::from(target_digits[0] << 4 | target_digits[1]);
        let goal = board
            .goal_at(cell as Cell)
            .ok_or_else(|| GameIdError::NoGoal {
                cell,
                board: sides.map(|side| side.name()).join(" "),
            })?;
        if goal.colour != goal_robot {
            let name = |colour: Option<Colour>| {
                colour.map_or("vortex".into(), |c| format!("{c:?}").to_lowercase())
            };
            return Err(GameIdError::GoalRobot {
                cell,
                found: name(goal.colour),
                named: name(goal_robot),
            });
        }
        Ok(DdGame {
            board,
            robots: robot_cells,
            goal,
        })
    }

    /// Its game ID, in DriftingDroids' spelling (upper-case hex).
    pub fn id(&self) -> String {
        let sides: String = self
            .board
            .sides
            .iter()
            .map(|s| format!("{:X}", s.0))
            .collect();
        let goal_robot = self.goal.colour.map_or(15, |c| c.robot());
        let robots: String = self
            .robots
            .iter()
            .map(|&cell| format!("{cell:02X}"))
            .collect();
        format!(
            "{sides}+{:X}{goal_robot:X}+{robots}+{:02X}",
            self.robots.len(),
            self.goal.cell
        )
    }

    /// The position as a puzzle for the solver.
    pub fn puzzle(&self) -> Result<Puzzle, PuzzleError> {
        let target = Target {
            cell: self.goal.cell,
            colour: self.goal.colour,
            shape: self.goal.shape,
        };
        Puzzle::new(self.board.board(), self.robots.clone(), target)
    }

    /// The game a puzzle is, if its board is four DriftingDroids tile sides and its target
    /// one of theirs (the same cell and robot).
    pub fn from_puzzle(puzzle: &Puzzle) -> Option<DdGame> {
        let board = puzzle.board();
        if (board.width(), board.height()) != (GRID, GRID) {
            return None;
        }
        let walls = board.wall_masks();
        // A side fits a slot when every wall it brings is on the board.
        let fits = |slot: usize| -> Vec<TileSide> {
            TileSide::ALL
                .into_iter()
                .filter(|&side| {
                    let mut alone = [0u8; GRID * GRID];
                    place(side, slot, &mut alone, &mut Vec::new());
                    (0..GRID * GRID).all(|cell| alone[cell] & !walls[cell] == 0)
                })
                .collect()
        };
        let candidates = [fits(0), fits(1), fits(2), fits(3)];
        for &a in &candidates[0] {
            for &b in &candidates[1] {
                for &c in &candidates[2] {
                    for &d in &candidates[3] {
                        let dd = DdBoard::new([a, b, c, d]);
                        if dd.walls[..] != walls[..] {
                            continue;
                        }
                        let goal = dd.goal_at(puzzle.target().cell)?;
                        if goal.colour != puzzle.target().colour {
                            return None;
                        }
                        return Some(DdGame {
                            board: dd,
                            robots: puzzle.robots().to_vec(),
                            goal,
                        });
                    }
                }
            }
        }
        None
    }
}

/// A caller's text, shortened for an error message.
fn clip(text: &str) -> String {
    text.chars().take(40).collect()
}

#[cfg(test)]
mod tests;
