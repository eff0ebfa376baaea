//! Ricocheckers: the two-player game on Ricochet Robots' moves. Each player has three
//! pieces that slide like robots (walls and all six pieces stop them); players alternate,
//! one slide per turn; a player wins by filling the opponent's three start cells with their
//! own pieces, any piece on any of them; a game without a winner after [`TIE_PLIES`] plies
//! is a tie. The board comes from a board file ([`Field::from_json`]); the published
//! 11×11 board is built in ([`Field::standard`]).
//!
//! Pure computation: the rules here, the players in [`players`], rrm's own player in
//! [`rrm_player`], exact forced-win search in [`proof`], the
//! puzzles a mining campaign deals in [`puzzles`].

pub mod players;
pub mod proof;
pub mod puzzles;
pub mod render;
pub mod rrm_player;
pub mod slab;
pub mod tournament;

use crate::board::{Board, BoardError, Cell, Direction};
use serde::Deserialize;

/// Pieces per player.
pub const PIECES: usize = 3;

/// A game with no winner after this many plies is a tie (the published program stops
/// when its move stack holds more than 200 moves).
pub const TIE_PLIES: u16 = 201;

/// The published board file, as `../shared/boards/ricocheckers-11x11.json` has it.
const STANDARD_BOARD: &str = include_str!("board-11x11.json");

/// A board and the players' start cells.
#[derive(Clone, Debug)]
pub struct Field {
    board: Board,
    /// `starts[p]`: player `p`'s start cells (player 0 moves first), ascending.
    starts: [[Cell; PIECES]; 2],
}

/// Why a board file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum FieldError {
    #[error("not a Ricocheckers board file: {0}")]
    Json(#[from] serde_json::Error),
    #[error(transparent)]
    Board(#[from] BoardError),
    #[error("player {player} has {got} start cells, not {PIECES}")]
    StartCount { player: usize, got: usize },
    #[error("start cell {0} is blocked or taken twice")]
    StartCell(i64),
    #[error("the first player is {0}, not 1 or 2")]
    FirstPlayer(u8),
}

/// Why a position or a move could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    #[error("a position is `P1/P2/SIDE`: three cells of each player (y * width + x, commas) and the player to move (1 or 2), e.g. 49,50,59/61,70,71/1; not {0:?}")]
    Shape(String),
    #[error("cell {0:?} is not an open cell of the board")]
    Cell(String),
    #[error("cell {0} holds two pieces")]
    Twice(usize),
    #[error("a move is a piece (a, b or c) and a direction (N, E, S, W or a word), e.g. `a N`; not {0:?}")]
    Step(String),
}

/// The fields of a board file rrm reads (others are notes).
#[derive(Deserialize)]
struct BoardFile {
    width: usize,
    height: usize,
    cells: Vec<u32>,
    #[serde(default)]
    blocked_cells: Vec<i64>,
    player1_start_cells: Vec<i64>,
    player2_start_cells: Vec<i64>,
    #[serde(default = "player_one")]
    first_player: u8,
}

fn player_one() -> u8 {
    1
}

/// A position: the pieces (player 0's three, then player 1's), who moves, and the plies
/// played so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pub pieces: [Cell; 2 * PIECES],
    /// 0 or 1.
    pub to_move: u8,
    pub plies: u16,
}

/// One slide: a piece of the side to move (0 to 2) and a direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Step {
    pub piece: u8,
    pub dir: Direction,
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// This player (0 or 1) won.
    Win(u8),
    Tie,
}

/// Up to 12 steps (3 pieces × 4 directions), without allocating.
#[derive(Clone, Copy, Debug)]
pub struct Steps {
    steps: [Step; 4 * PIECES],
    len: u8,
}

impl Steps {
    pub fn as_slice(&self) -> &[Step] {
        &self.steps[..usize::from(self.len)]
    }
}

impl std::ops::Deref for Steps {
    type Target = [Step];
    fn deref(&self) -> &[Step] {
        self.as_slice()
    }
}

impl Field {
    /// The published 11×11 board.
    pub fn standard() -> Field {
        Field::from_json(STANDARD_BOARD).expect("the built-in board file is valid")
    }

    /// Reads a board file (`y * width + x` cells, wall bits N 1, E 2, S 4, W 8).
    pub fn from_json(text: &str) -> Result<Field, FieldError> {
        let file: BoardFile = serde_json::from_str(text)?;
        let board = Board::new(file.width, file.height, &file.cells, &file.blocked_cells)?;
        if !(1..=2).contains(&file.first_player) {
            return Err(FieldError::FirstPlayer(file.first_player));
        }
        let mut starts = [[0; PIECES]; 2];
        let mut seen = Vec::new();
        let lists = [&file.player1_start_cells, &file.player2_start_cells];
        for (player, list) in lists.into_iter().enumerate() {
            if list.len() != PIECES {
                return Err(FieldError::StartCount {
                    player: player + 1,
                    got: list.len(),
                });
            }
            for (slot, &index) in list.iter().enumerate() {
                let cell = board.cell_checked(index)?;
                if board.is_blocked(cell) || seen.contains(&cell) {
                    return Err(FieldError::StartCell(index));
                }
                seen.push(cell);
                starts[player][slot] = cell;
            }
            starts[player].sort_unstable();
        }
        if file.first_player == 2 {
            starts.swap(0, 1);
        }
        Ok(Field { board, starts })
    }

    pub fn board(&self) -> &Board {
        &self.board
    }

    /// Player `player`'s start cells, which the other player must fill.
    pub fn starts(&self, player: u8) -> [Cell; PIECES] {
        self.starts[usize::from(player)]
    }

    /// The cells `player` must fill to win: the opponent's start cells.
    pub fn goals(&self, player: u8) -> [Cell; PIECES] {
        self.starts(1 - player)
    }

    /// The opening position.
    pub fn start(&self) -> Position {
        let mut pieces = [0; 2 * PIECES];
        pieces[..PIECES].copy_from_slice(&self.starts[0]);
        pieces[PIECES..].copy_from_slice(&self.starts[1]);
        Position {
            pieces,
            to_move: 0,
            plies: 0,
        }
    }

    /// Where piece `index` (0..6) slides in `dir`: to the last open cell before a wall or
    /// another piece (its own cell when blocked at once).
    pub fn slide(&self, pieces: &[Cell; 2 * PIECES], index: usize, dir: Direction) -> Cell {
        let mut at = pieces[index];
        while let Some(next) = self.board.step_open(at, dir) {
            if pieces.contains(&next) {
                break;
            }
            at = next;
        }
        at
    }

    /// The legal steps of the side to move (none once the game is over), pieces in
    /// order, directions N, E, S, W.
    pub fn steps(&self, position: &Position) -> Steps {
        let mut steps = Steps {
            steps: [Step {
                piece: 0,
                dir: Direction::North,
            }; 4 * PIECES],
            len: 0,
        };
        if self.outcome(position).is_some() {
            return steps;
        }
        let base = PIECES * usize::from(position.to_move);
        for piece in 0..PIECES {
            for dir in Direction::ALL {
                if self.slide(&position.pieces, base + piece, dir) != position.pieces[base + piece]
                {
                    steps.steps[usize::from(steps.len)] = Step {
                        piece: piece as u8,
                        dir,
                    };
                    steps.len += 1;
                }
            }
        }
        steps
    }

    /// The position after the side to move plays `step` (which must be one of its steps).
    pub fn play(&self, position: &Position, step: Step) -> Position {
        let index = PIECES * usize::from(position.to_move) + usize::from(step.piece);
        let mut next = *position;
        next.pieces[index] = self.slide(&position.pieces, index, step.dir);
        next.to_move = 1 - position.to_move;
        next.plies += 1;
        next
    }

    /// Whether `player`'s pieces stand on all of its goal cells.
    pub fn has_filled(&self, position: &Position, player: u8) -> bool {
        let own = &position.pieces[PIECES * usize::from(player)..][..PIECES];
        self.goals(player).iter().all(|goal| own.contains(goal))
    }

    /// The game's end, if it has ended. The tie limit comes first, as in the published
    /// program: the 201st ply ends the game as a tie even if it fills the goal cells. Then
    /// a win of the player who just moved (only its pieces changed).
    pub fn outcome(&self, position: &Position) -> Option<Outcome> {
        if position.plies >= TIE_PLIES {
            return Some(Outcome::Tie);
        }
        let moved = 1 - position.to_move;
        (position.plies > 0 && self.has_filled(position, moved)).then_some(Outcome::Win(moved))
    }

    /// Whether `cell` is one a piece may stand on.
    pub fn is_open(&self, cell: Cell) -> bool {
        !self.board.is_blocked(cell)
    }

    /// The cells a piece may stand on, row by row.
    pub fn open_cells(&self) -> Vec<Cell> {
        self.board.cells().filter(|&c| self.is_open(c)).collect()
    }
}

impl Field {
    /// Reads a position as [`Field::write_position`] writes it (the ply count is 0).
    pub fn parse_position(&self, text: &str) -> Result<Position, PositionError> {
        let shape = || PositionError::Shape(text.to_string());
        let parts: Vec<&str> = text.trim().split('/').collect();
        let [first, second, side] = parts[..] else {
            return Err(shape());
        };
        let to_move = match side.trim() {
            "1" => 0,
            "2" => 1,
            _ => return Err(shape()),
        };
        let mut pieces = [0; 2 * PIECES];
        for (player, list) in [first, second].into_iter().enumerate() {
            let cells: Vec<&str> = list.split(',').map(str::trim).collect();
            if cells.len() != PIECES {
                return Err(shape());
            }
            for (slot, cell) in cells.into_iter().enumerate() {
                let bad = || PositionError::Cell(cell.to_string());
                let index: i64 = cell.parse().map_err(|_| bad())?;
                let cell = self.board.cell_checked(index).map_err(|_| bad())?;
                if !self.is_open(cell) {
                    return Err(bad());
                }
                if pieces[..player * PIECES + slot].contains(&cell) {
                    return Err(PositionError::Twice(index as usize));
                }
                pieces[player * PIECES + slot] = cell;
            }
        }
        Ok(Position {
            pieces,
            to_move,
            plies: 0,
        })
    }

    /// A position as text: each player's cells (`y * width + x`), then who moves.
    pub fn write_position(&self, position: &Position) -> String {
        let cells = |player: u8| -> String {
            position
                .pieces_of(player)
                .iter()
                .map(|&c| self.board.index_of(c).to_string())
                .collect::<Vec<_>>()
                .join(",")
        };
        format!("{}/{}/{}", cells(0), cells(1), position.to_move + 1)
    }
}

impl Step {
    /// Reads a move typed as piece and direction: `a N`, `bE`, `c south`.
    pub fn parse(text: &str) -> Result<Step, PositionError> {
        let bad = || PositionError::Step(text.to_string());
        let text = text.trim().to_ascii_lowercase();
        let mut chars = text.chars();
        let piece = match chars.next() {
            Some(letter @ 'a'..='c') => letter as u8 - b'a',
            _ => return Err(bad()),
        };
        let rest = chars.as_str().trim();
        let dir = match rest {
            "n" | "north" => Direction::North,
            "e" | "east" => Direction::East,
            "s" | "south" => Direction::South,
            "w" | "west" => Direction::West,
            _ => return Err(bad()),
        };
        Ok(Step { piece, dir })
    }
}

impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", (b'a' + self.piece) as char, self.dir.letter())
    }
}

impl Field {
    /// `count` positions, each `plies` uniformly random plies from the start, the games
    /// still on (deterministic given `rng`).
    pub fn random_positions(
        &self,
        rng: &mut crate::mt::PyRandom,
        count: usize,
        plies: u16,
    ) -> Vec<Position> {
        let mut positions = Vec::new();
        while positions.len() < count {
            let mut position = self.start();
            for _ in 0..plies {
                let steps = self.steps(&position);
                if steps.is_empty() {
                    break;
                }
                position = self.play(
                    &position,
                    steps[rng.randint(0, steps.len() as u32 - 1) as usize],
                );
            }
            if self.outcome(&position).is_none() {
                positions.push(position);
            }
        }
        positions
    }
}

impl Position {
    /// A key that ignores the order of each player's pieces and the ply count: two
    /// positions with the same key have the same future up to the tie limit.
    pub fn key(&self) -> u64 {
        let mut own = [self.pieces[0], self.pieces[1], self.pieces[2]];
        let mut other = [self.pieces[3], self.pieces[4], self.pieces[5]];
        own.sort_unstable();
        other.sort_unstable();
        own.iter()
            .chain(&other)
            .fold(u64::from(self.to_move), |key, &cell| {
                key << 8 | u64::from(cell)
            })
    }

    /// The pieces of `player`.
    pub fn pieces_of(&self, player: u8) -> &[Cell] {
        &self.pieces[PIECES * usize::from(player)..][..PIECES]
    }
}

#[cfg(test)]
mod tests;
