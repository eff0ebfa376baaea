//! DriftingDroids' game dumps: `!DriftingDroids_game!CRC!DATA!`, the text its "copy game"
//! puts on the clipboard. DATA is base64 of a 4-byte big-endian length and the
//! zlib-deflated state; CRC the CRC-32 of DATA's text in 8 upper-case hex digits. The
//! state (version 0) is: width and height (4-byte big-endian integers), the robot count
//! (a byte) and each robot's cell (integers), the 4 tile sides (bytes), one byte per
//! cell for each wall direction N, E, S, W, the targets (a count, then per target its
//! cell, robot — 255 for any — and shape — 0 circle, 1 triangle, 2 square, 3 hexagon,
//! 4 vortex), the active target likewise, and a "freestyle" flag (a board not made of
//! tile sides).

use super::{DdGame, GameIdError};
use crate::board::{Board, BoardError, Cell, Direction, GRID};
use crate::puzzle::{Colour, Puzzle, PuzzleError, Shape, Target, MAX_ROBOTS};
use base64::Engine;
use std::io::{Read, Write};

const FRAME: &str = "DriftingDroids_game";
/// Largest state a dump may inflate to: a 16×16 board's is under 1,200 bytes.
const MAX_STATE: usize = 1 << 16;

/// Why a text is not a DriftingDroids dump.
#[derive(Debug, thiserror::Error)]
pub enum DumpError {
    #[error("a DriftingDroids dump is !{FRAME}!CRC!DATA!")]
    Frame,
    #[error(
        "the dump's CRC {found:08X} does not match its data's {computed:08X}: the text was changed"
    )]
    Crc { found: u32, computed: u32 },
    #[error("the dump's data is not base64")]
    Base64,
    #[error("the dump's data does not inflate to the {0} bytes it announces")]
    Inflate(usize),
    #[error("dump version {0} is unknown (rrm reads version 0)")]
    Version(u8),
    #[error("the dump's state ends early")]
    Truncated,
    #[error("a {width}x{height} board is beyond rrm's 16x16")]
    Size { width: i64, height: i64 },
    #[error("{0} robots: rrm plays 1 to {MAX_ROBOTS}")]
    Robots(usize),
    #[error("the active target's robot {0} is not on the board")]
    TargetRobot(u8),
    #[error(transparent)]
    Board(#[from] BoardError),
    #[error(transparent)]
    Puzzle(#[from] PuzzleError),
    #[error(transparent)]
    GameId(#[from] GameIdError),
}

/// Reads a dump (whitespace anywhere is ignored, as DriftingDroids ignores it).
pub fn read_dump(text: &str) -> Result<Puzzle, DumpError> {
    let text: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let inner = (text.strip_prefix('!'))
        .and_then(|rest| rest.strip_suffix('!'))
        .ok_or(DumpError::Frame)?;
    let [frame, crc, data] = inner.split('!').collect::<Vec<_>>()[..] else {
        return Err(DumpError::Frame);
    };
    if frame != FRAME {
        return Err(DumpError::Frame);
    }
    let found = u32::from_str_radix(crc, 16).map_err(|_| DumpError::Frame)?;
    let computed = crc32fast::hash(data.as_bytes());
    if found != computed {
        return Err(DumpError::Crc { found, computed });
    }
    let packed = (base64::engine::general_purpose::STANDARD)
        .decode(data)
        .map_err(|_| DumpError::Base64)?;
    let (length, deflated) = packed.split_at_checked(4).ok_or(DumpError::Truncated)?;
    let length = u32::from_be_bytes(length.try_into().expect("4 bytes")) as usize;
    if length > MAX_STATE {
        return Err(DumpError::Inflate(length));
    }
    let mut state = Vec::with_capacity(length);
    flate2::read::ZlibDecoder::new(deflated)
        .take(length as u64 + 1)
        .read_to_end(&mut state)
        .map_err(|_| DumpError::Inflate(length))?;
    if state.len() != length {
        return Err(DumpError::Inflate(length));
    }
    parse_state(&state)
}

/// Reads the state bytes in order.
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn byte(&mut self) -> Result<u8, DumpError> {
        let (&first, rest) = self.0.split_first().ok_or(DumpError::Truncated)?;
        self.0 = rest;
        Ok(first)
    }

    fn integer(&mut self) -> Result<i64, DumpError> {
        let (bytes, rest) = self.0.split_at_checked(4).ok_or(DumpError::Truncated)?;
        self.0 = rest;
        Ok(i64::from(i32::from_be_bytes(
            bytes.try_into().expect("4 bytes"),
        )))
    }
}

fn parse_state(state: &[u8]) -> Result<Puzzle, DumpError> {
    let mut read = Reader(state);
    let version = read.byte()?;
    if version != 0 {
        return Err(DumpError::Version(version));
    }
    let (width, height) = (read.integer()?, read.integer()?);
    if !(1..=GRID as i64).contains(&width) || !(1..=GRID as i64).contains(&height) {
        return Err(DumpError::Size { width, height });
    }
    let (width, height) = (width as usize, height as usize);
    let count = usize::from(read.byte()?);
    if !(1..=MAX_ROBOTS).contains(&count) {
        return Err(DumpError::Robots(count));
    }
    let robots: Vec<i64> = (0..count)
        .map(|_| read.integer())
        .collect::<Result<_, _>>()?;
    for _ in 0..4 {
        read.byte()?;
    }
    let mut walls = vec![0u32; width * height];
    for dir in Direction::ALL {
        for mask in &mut walls {
            if read.byte()? != 0 {
                *mask |= u32::from(dir.wall_bit());
            }
        }
    }
    let goals = read.integer()?;
    for _ in 0..goals.clamp(0, (width * height) as i64) {
        read.integer()?;
        read.byte()?;
        read.byte()?;
    }
    let (cell, robot, shape) = (read.integer()?, read.byte()?, read.byte()?);
    let board = Board::new(width, height, &walls, &[])?;
    let robots = (robots.into_iter())
        .map(|index| board.cell_checked(index))
        .collect::<Result<Vec<Cell>, _>>()?;
    let colour = match robot {
        255 => None,
        robot if usize::from(robot) < count => Some(Colour::ALL[usize::from(robot)]),
        robot => return Err(DumpError::TargetRobot(robot)),
    };
    let target = Target {
        cell: board.cell_checked(cell)?,
        colour,
        shape: Shape::ALL.get(usize::from(shape)).copied(),
    };
    Ok(Puzzle::new(board, robots, target)?)
}

/// The dump DriftingDroids reads back as `puzzle`: its tile sides and targets when the
/// board is one of theirs, else a "freestyle" board with the puzzle's target alone.
pub fn write_dump(puzzle: &Puzzle) -> String {
    let board = puzzle.board();
    let (width, height) = (board.width(), board.height());
    let game = DdGame::from_puzzle(puzzle);
    let mut state = vec![0u8];
    let integer = |state: &mut Vec<u8>, value: i64| {
        state.extend_from_slice(&(value as i32).to_be_bytes());
    };
    integer(&mut state, width as i64);
    integer(&mut state, height as i64);
    state.push(puzzle.robots().len() as u8);
    for index in puzzle.robot_indices() {
        integer(&mut state, index as i64);
    }
    let sides = game
        .as_ref()
        .map_or([0; 4], |game| game.board.sides.map(|side| side.number()));
    state.extend_from_slice(&sides);
    let masks = board.wall_masks();
    for dir in Direction::ALL {
        state.extend(
            masks
                .iter()
                .map(|&mask| u8::from(mask & dir.wall_bit() != 0)),
        );
    }
    let target = puzzle.target();
    let goal_bytes = |colour: Option<Colour>, shape: Option<Shape>| {
        let robot = colour.map_or(255, |c| c.robot() as u8);
        let shape = match (colour, shape) {
            (None, _) => 4,
            (_, shape) => shape.map_or(0, |s| s as u8),
        };
        [robot, shape]
    };
    let goals: Vec<(usize, [u8; 2])> = match &game {
        Some(game) => (game.board.goals.iter())
            .map(|goal| (goal.cell as usize, goal_bytes(goal.colour, goal.shape)))
            .collect(),
        None => vec![(
            board.index_of(target.cell),
            goal_bytes(target.colour, target.shape),
        )],
    };
    integer(&mut state, goals.len() as i64);
    for (cell, bytes) in &goals {
        integer(&mut state, *cell as i64);
        state.extend_from_slice(bytes);
    }
    let shape = game.as_ref().map_or(target.shape, |game| game.goal.shape);
    integer(&mut state, board.index_of(target.cell) as i64);
    state.extend_from_slice(&goal_bytes(target.colour, shape));
    state.push(u8::from(game.is_none()));
    let mut packed = (state.len() as u32).to_be_bytes().to_vec();
    let mut encoder = flate2::write::ZlibEncoder::new(&mut packed, flate2::Compression::best());
    encoder.write_all(&state).expect("writing to memory");
    encoder.finish().expect("writing to memory");
    let data = base64::engine::general_purpose::STANDARD.encode(&packed);
    format!("!{FRAME}!{:08X}!{data}!", crc32fast::hash(data.as_bytes()))
}
