//! Puzzles: a board, 1 to 5 robots and a target, validated, plus the JSON puzzle format.
//!
//! Robot `i` has colour `Colour::ALL[i]` (red, green, blue, yellow, silver). A target is
//! either coloured (only the robot of that colour may finish on it) or wild (any robot).

use crate::board::{Board, BoardError, Cell, Direction};
use serde::{Deserialize, Serialize};

/// Most robots a puzzle may have.
pub const MAX_ROBOTS: usize = 5;

/// Robot and target colours, in robot order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Colour {
    Red,
    Green,
    Blue,
    Yellow,
    Silver,
}

impl Colour {
    pub const ALL: [Colour; MAX_ROBOTS] = [
        Self::Red,
        Self::Green,
        Self::Blue,
        Self::Yellow,
        Self::Silver,
    ];

    pub fn letter(self) -> char {
        ['R', 'G', 'B', 'Y', 'S'][self as usize]
    }

    pub fn from_letter(letter: char) -> Option<Colour> {
        Self::ALL.into_iter().find(|c| c.letter() == letter)
    }

    /// Index of the robot of this colour.
    pub fn robot(self) -> usize {
        self as usize
    }
}

/// Target shapes of the board game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Shape {
    Circle,
    Triangle,
    Square,
    Hexagon,
}

impl Shape {
    pub const ALL: [Shape; 4] = [Self::Circle, Self::Triangle, Self::Square, Self::Hexagon];

    pub fn letter(self) -> char {
        ['C', 'T', 'Q', 'H'][self as usize]
    }

    pub fn from_letter(letter: char) -> Option<Shape> {
        Self::ALL.into_iter().find(|s| s.letter() == letter)
    }
}

/// The target of a puzzle: its cell, the colour of the robot that must reach it (`None`:
/// any robot, the wild target) and its shape when known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    pub cell: Cell,
    pub colour: Option<Colour>,
    pub shape: Option<Shape>,
}

impl Target {
    /// Token name such as `BT`, `R` when only the colour is known, `*` for the wild target.
    pub fn token(&self) -> String {
        match (self.colour, self.shape) {
            (None, _) => "*".to_string(),
            (Some(c), Some(s)) => format!("{}{}", c.letter(), s.letter()),
            (Some(c), None) => c.letter().to_string(),
        }
    }
}

/// One move: a robot (index into the puzzle's robots) slides in a direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    pub robot: u8,
    pub dir: Direction,
}

impl Move {
    /// Notation of Fogleman's spec: robot colour letter then direction, e.g. `BE`.
    pub fn notation(&self) -> String {
        format!(
            "{}{}",
            Colour::ALL[self.robot as usize].letter(),
            self.dir.letter()
        )
    }

    /// Reads [`Move::notation`] back, e.g. `BE`; `None` for anything else.
    pub fn from_notation(text: &str) -> Option<Move> {
        let mut letters = text.chars();
        let robot = Colour::from_letter(letters.next()?)?.robot() as u8;
        let dir = Direction::from_letter(letters.next()?)?;
        letters.next().is_none().then_some(Move { robot, dir })
    }
}

/// How many different robots `moves` move.
pub fn robots_moved(moves: &[Move]) -> usize {
    let mut seen = 0u32;
    for step in moves {
        seen |= 1 << step.robot;
    }
    seen.count_ones() as usize
}

/// Why a puzzle was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PuzzleError {
    #[error(transparent)]
    Board(#[from] BoardError),
    #[error("a puzzle needs 1 to {MAX_ROBOTS} robots, got {0}")]
    RobotCount(usize),
    #[error("robot {robot} stands on cell {index}, which is blocked or walled on all sides")]
    RobotOnBlockedCell { robot: usize, index: usize },
    #[error("robots {first} and {second} both stand on cell {index}")]
    RobotsShareCell {
        first: usize,
        second: usize,
        index: usize,
    },
    #[error("the target is on cell {index}, which is blocked or walled on all sides")]
    TargetOnBlockedCell { index: usize },
    #[error(
        "target robot {robot} does not exist (the puzzle has {robots} robots; -1 means any robot)"
    )]
    NoSuchTargetRobot { robot: i64, robots: usize },
    #[error(
        "a mirror leans \\ or / and has a colour letter R, G, B, Y or S, not {lean:?} {colour:?}"
    )]
    BadMirror { lean: String, colour: String },
    #[error("cell {index} holds a mirror, where no robot stands and no target is")]
    OnMirror { index: usize },
}

/// A validated puzzle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Puzzle {
    board: Board,
    robots: Vec<Cell>,
    target: Target,
}

impl Puzzle {
    pub fn new(board: Board, robots: Vec<Cell>, target: Target) -> Result<Puzzle, PuzzleError> {
        if robots.is_empty() || robots.len() > MAX_ROBOTS {
            return Err(PuzzleError::RobotCount(robots.len()));
        }
        for (robot, &cell) in robots.iter().enumerate() {
            if board.is_blocked(cell) {
                return Err(PuzzleError::RobotOnBlockedCell {
                    robot,
                    index: board.index_of(cell),
                });
            }
            if let Some(first) = robots[..robot].iter().position(|&c| c == cell) {
                return Err(PuzzleError::RobotsShareCell {
                    first,
                    second: robot,
                    index: board.index_of(cell),
                });
            }
        }
        let on_mirror = robots
            .iter()
            .chain([&target.cell])
            .find(|&&c| board.mirror(c).is_some());
        if let Some(&cell) = on_mirror {
            return Err(PuzzleError::OnMirror {
                index: board.index_of(cell),
            });
        }
        if board.is_blocked(target.cell) {
            return Err(PuzzleError::TargetOnBlockedCell {
                index: board.index_of(target.cell),
            });
        }
        if let Some(colour) = target.colour {
            if colour.robot() >= robots.len() {
                return Err(PuzzleError::NoSuchTargetRobot {
                    robot: colour.robot() as i64,
                    robots: robots.len(),
                });
            }
        }
        Ok(Puzzle {
            board,
            robots,
            target,
        })
    }

    pub fn board(&self) -> &Board {
        &self.board
    }

    /// Puzzles with equal keys (but for a hash collision) share their board and target
    /// cell, the set-up a [`crate::Solver`] carries over from one puzzle to the next: a
    /// batch solved in key order pays it once per board and target.
    pub fn tables_key(&self) -> (u64, Cell) {
        (self.board.fingerprint(), self.target.cell)
    }

    /// Robot cells in colour order.
    pub fn robots(&self) -> &[Cell] {
        &self.robots
    }

    pub fn target(&self) -> Target {
        self.target
    }

    /// Whether `moves` end with a robot allowed on the target standing on it (each move
    /// must move its robot). Checks claimed solutions cheaply; says nothing of optimality.
    pub fn is_solution(&self, moves: &[Move]) -> bool {
        let mut robots = self.robots.clone();
        for step in moves {
            if step.robot as usize >= robots.len() {
                return false;
            }
            let to = self.slide(&robots, *step);
            if to == robots[step.robot as usize] {
                return false;
            }
            robots[step.robot as usize] = to;
        }
        moves.last().is_some_and(|last| {
            robots[last.robot as usize] == self.target.cell && self.may_finish(last.robot as usize)
        })
    }

    /// Where `step` takes its robot with the robots at `robots` (its own cell if blocked).
    pub fn slide(&self, robots: &[Cell], step: Move) -> Cell {
        if self.board.has_mirrors() {
            return crate::mirrors::slide(&self.board, robots, step.robot as usize, step.dir);
        }
        let mut at = robots[step.robot as usize];
        while let Some(next) = self.board.step_open(at, step.dir) {
            if robots.contains(&next) {
                break;
            }
            at = next;
        }
        at
    }

    /// Whether `robot` finishes the puzzle by stopping on the target.
    pub fn may_finish(&self, robot: usize) -> bool {
        self.target.colour.is_none_or(|c| c.robot() == robot)
    }

    /// Robot cells in the caller's layout (`y * width + x`).
    pub fn robot_indices(&self) -> Vec<usize> {
        self.robots
            .iter()
            .map(|&c| self.board.index_of(c))
            .collect()
    }

    /// Builds a puzzle from a record of the JSON puzzle format.
    pub fn from_record(record: &PuzzleRecord) -> Result<Puzzle, PuzzleError> {
        let mirrors = (record.mirrors.iter())
            .map(MirrorRecord::mirror)
            .collect::<Result<Vec<_>, _>>()?;
        let board = Board::new(record.width, record.height, &record.walls, &record.blocked)?
            .with_mirrors(&mirrors)?;
        let robots = record
            .robots
            .iter()
            .map(|&i| board.cell_checked(i))
            .collect::<Result<Vec<_>, _>>()?;
        let colour = match record.target_robot {
            -1 => None,
            r if (0..robots.len() as i64).contains(&r) => Some(Colour::ALL[r as usize]),
            robot => {
                return Err(PuzzleError::NoSuchTargetRobot {
                    robot,
                    robots: robots.len(),
                })
            }
        };
        let cell = board.cell_checked(record.target_cell)?;
        Puzzle::new(
            board,
            robots,
            Target {
                cell,
                colour,
                shape: None,
            },
        )
    }

    /// The puzzle as a record of the JSON puzzle format.
    pub fn to_record(&self, name: Option<String>) -> PuzzleRecord {
        PuzzleRecord {
            name,
            source: None,
            width: self.board.width(),
            height: self.board.height(),
            walls: self.board.wall_masks().into_iter().map(u32::from).collect(),
            blocked: Vec::new(),
            robots: self.robot_indices().into_iter().map(|i| i as i64).collect(),
            target_cell: self.board.index_of(self.target.cell) as i64,
            target_robot: self.target.colour.map_or(-1, |c| c.robot() as i64),
            moves: None,
            mirrors: (self.board.mirror_list().into_iter())
                .map(|(index, mirror)| MirrorRecord {
                    cell: index as i64,
                    lean: mirror.symbol().to_string(),
                    colour: mirror.colour.letter().to_string(),
                })
                .collect(),
        }
    }
}

/// A diagonal wall in the JSON puzzle format: its cell, `\` or `/`, and the colour letter
/// of the robot that passes through it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MirrorRecord {
    pub cell: i64,
    pub lean: String,
    pub colour: String,
}

impl MirrorRecord {
    fn mirror(&self) -> Result<(i64, crate::mirrors::Mirror), PuzzleError> {
        let bad = || PuzzleError::BadMirror {
            lean: self.lean.clone(),
            colour: self.colour.clone(),
        };
        let leans_left = match self.lean.as_str() {
            "\\" => true,
            "/" => false,
            _ => return Err(bad()),
        };
        let mut letters = self.colour.chars();
        let colour = letters
            .next()
            .and_then(Colour::from_letter)
            .ok_or_else(bad)?;
        if letters.next().is_some() {
            return Err(bad());
        }
        Ok((self.cell, crate::mirrors::Mirror { leans_left, colour }))
    }
}

/// One puzzle of the JSON puzzle format (documented in docs/editions.md): cells are indexed
/// `y * width + x`, wall masks are N=1 E=2 S=4 W=8 per cell.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PuzzleRecord {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Where the position comes from (free text, ignored by the solver).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    pub width: usize,
    pub height: usize,
    pub walls: Vec<u32>,
    /// Cells no robot may enter (e.g. the centre block) besides cells walled on all sides.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocked: Vec<i64>,
    /// Robot cells in colour order R G B Y S.
    pub robots: Vec<i64>,
    pub target_cell: i64,
    /// Index of the robot that must reach the target, -1 for any robot.
    pub target_robot: i64,
    /// Known optimal move count, if any (checked by `rrm solve`, not trusted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moves: Option<u32>,
    /// Diagonal walls (K. Cox's second-edition boards); none on most boards.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mirrors: Vec<MirrorRecord>,
}
