//! K. Cox's plain text puzzle format, both ways.
//!
//! ```text
//! board 16 16          16 rows of 16 cells: B (walls north and west), N, W or C (none)
//! mirrors 1            optional: then one line per mirror, `x y \ colour` or `x y / colour`
//! 3 4 \ 2              (colour: a robot number or its name, `green`; rrm writes numbers)
//! robots 5             five lines `x y`: black, red, green, yellow, blue
//! target 0 6 14 1      `target 0 x y robot`, robot -1 for any
//! ```
//!
//! Only north and west walls are written; a cell's east and south walls are its
//! neighbours' west and north ones, and the board's outer edge is a wall. Robots are
//! numbered black 0, red 1, green 2, yellow 3, blue 4; rrm's silver robot is his black one.
//! His puzzles always have five robots: a four-robot puzzle is written with the black
//! robot shut in the board's closed centre block, where it never meets the others, so
//! the optimum is the same.

use crate::board::{Board, BoardError, Cell, Direction, GRID, WALL_N, WALL_W};
use crate::mirrors::Mirror;
use crate::puzzle::{Colour, Puzzle, PuzzleError, Target};
use std::fmt::Write as _;

/// rrm's robot (colour order R G B Y S) of each of K. Cox's robot numbers.
const OURS: [usize; 5] = [4, 0, 1, 3, 2];

/// K. Cox's robot names, by number (`silver`, rrm's name of his black robot, is read too).
const NAMES: [&str; 5] = ["black", "red", "green", "yellow", "blue"];

/// A mirror's colour as K. Cox's robot number: a number 0-4 or a robot's name.
fn robot_number(text: &str) -> Option<usize> {
    let name = text.to_ascii_lowercase();
    (text.parse().ok().filter(|&c: &usize| c < 5))
        .or_else(|| NAMES.iter().position(|&n| n == name))
        .or_else(|| (name == "silver").then_some(0))
}

/// The centre block's top-left cell, where a four-robot puzzle parks the black robot.
const CENTRE: Cell = 7 * GRID as Cell + 7;

/// Why a K. Cox text was refused (line numbers from 1).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KcoxError {
    #[error("line {line}: expected {expected}, found {found:?}")]
    Line {
        line: usize,
        expected: &'static str,
        found: String,
    },
    #[error("the text ends before its {0}")]
    Truncated(&'static str),
    #[error("K. Cox's format holds 16x16 boards with five robots (four and a closed centre block), not {width}x{height} with {robots}")]
    Shape {
        width: usize,
        height: usize,
        robots: usize,
    },
    #[error(transparent)]
    Board(#[from] BoardError),
    #[error(transparent)]
    Puzzle(#[from] PuzzleError),
}

/// Whether `text` looks like K. Cox's format (for format detection).
pub fn looks_like(text: &str) -> bool {
    text.trim_start().starts_with("board 16 16")
}

/// Reads the puzzles of a text holding one or more, one after another (each from its
/// `board` line, as `rrm pack --format kcox` writes them); an error names the puzzle.
pub fn parse_all(text: &str) -> Result<Vec<Puzzle>, (usize, KcoxError)> {
    let mut starts: Vec<usize> = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if line.trim_start().starts_with("board ") {
            starts.push(offset);
        }
        offset += line.len();
    }
    starts.push(text.len());
    let chunks = starts.windows(2).map(|w| &text[w[0]..w[1]]);
    (chunks.enumerate())
        .map(|(index, chunk)| parse(chunk).map_err(|e| (index + 1, e)))
        .collect()
}

/// Reads a puzzle written in K. Cox's format.
pub fn parse(text: &str) -> Result<Puzzle, KcoxError> {
    let mut lines = text
        .lines()
        .map(str::trim)
        .enumerate()
        .filter(|(_, line)| !line.is_empty())
        .map(|(number, line)| (number + 1, line));
    let mut next = |what: &'static str| lines.next().ok_or(KcoxError::Truncated(what));
    let bad = |line: usize, expected: &'static str, found: &str| KcoxError::Line {
        line,
        expected,
        found: found.chars().take(60).collect(),
    };
    let (line, header) = next("header")?;
    if header != "board 16 16" {
        return Err(bad(line, "\"board 16 16\"", header));
    }
    let mut walls = vec![0u32; GRID * GRID];
    for y in 0..GRID {
        let (line, row) = next("board rows")?;
        let cells: Vec<&str> = row.split_whitespace().collect();
        if cells.len() != GRID {
            return Err(bad(line, "16 cells B, N, W or C", row));
        }
        for (x, token) in cells.iter().enumerate() {
            let (north, west) = match token.to_ascii_uppercase().as_str() {
                "B" => (true, true),
                "N" => (true, false),
                "W" => (false, true),
                "C" => (false, false),
                _ => return Err(bad(line, "a cell B, N, W or C", token)),
            };
            let cell = y * GRID + x;
            if north {
                walls[cell] |= u32::from(WALL_N);
                if y > 0 {
                    walls[cell - GRID] |= u32::from(Direction::South.wall_bit());
                }
            }
            if west {
                walls[cell] |= u32::from(WALL_W);
                if x > 0 {
                    walls[cell - 1] |= u32::from(Direction::East.wall_bit());
                }
            }
        }
    }
    let mut board = Board::new(GRID, GRID, &walls, &[])?;
    let (mut line, mut text) = next("robots")?;
    if let Some(count) = text.strip_prefix("mirrors ") {
        let count: usize = count
            .trim()
            .parse()
            .map_err(|_| bad(line, "a number of mirrors", text))?;
        let mut mirrors = Vec::with_capacity(count.min(GRID * GRID));
        for _ in 0..count {
            let (line, entry) = next("mirrors")?;
            let words: Vec<&str> = entry.split_whitespace().collect();
            let mirror = match words[..] {
                [x, y, lean @ ("\\" | "/"), colour] => (|| {
                    let (x, y) = (coordinate(x)?, coordinate(y)?);
                    let colour = robot_number(colour)?;
                    let mirror = Mirror {
                        leans_left: lean == "\\",
                        colour: Colour::ALL[OURS[colour]],
                    };
                    Some(((y * GRID + x) as i64, mirror))
                })(),
                _ => None,
            };
            mirrors.push(mirror.ok_or_else(|| {
                bad(
                    line,
                    "a mirror `x y \\|/ colour` (colour: 0-4, or black, red, green, yellow, blue)",
                    entry,
                )
            })?);
        }
        board = board.with_mirrors(&mirrors)?;
        (line, text) = next("robots")?;
    }
    if text != "robots 5" {
        return Err(bad(line, "\"robots 5\"", text));
    }
    let mut robots = [0 as Cell; 5];
    for kc in 0..5 {
        let (line, entry) = next("robots")?;
        let cell = position(entry).ok_or_else(|| bad(line, "a robot `x y`", entry))?;
        robots[OURS[kc]] = cell;
    }
    let (line, entry) = next("target")?;
    let target = (|| {
        let words: Vec<&str> = entry
            .strip_prefix("target 0 ")?
            .split_whitespace()
            .collect();
        let [x, y, robot] = words[..] else {
            return None;
        };
        let cell = position(&format!("{x} {y}"))?;
        let colour = match robot.parse::<i64>().ok()? {
            -1 => None,
            kc @ 0..=4 => Some(Colour::ALL[OURS[kc as usize]]),
            _ => return None,
        };
        Some(Target {
            cell,
            colour,
            shape: None,
        })
    })()
    .ok_or_else(|| bad(line, "\"target 0 x y robot\"", entry))?;
    if let Some((line, extra)) = lines.next() {
        return Err(bad(line, "the end of the puzzle", extra));
    }
    Ok(Puzzle::new(board, robots.to_vec(), target)?)
}

fn coordinate(text: &str) -> Option<usize> {
    text.parse().ok().filter(|&c| c < GRID)
}

/// An internal cell from `x y`.
fn position(text: &str) -> Option<Cell> {
    let mut words = text.split_whitespace();
    let (x, y) = (coordinate(words.next()?)?, coordinate(words.next()?)?);
    words.next().is_none().then_some((y * GRID + x) as Cell)
}

/// Writes a 16×16 puzzle with five robots, or four and a closed centre block, in K.
/// Cox's format. The wall between two blocked cells (the centre block) is left out, as
/// his boards draw it.
pub fn write(puzzle: &Puzzle) -> Result<String, KcoxError> {
    let board = puzzle.board();
    let (width, height, count) = (board.width(), board.height(), puzzle.robots().len());
    let centre_closed = [0, 1, GRID as Cell, GRID as Cell + 1]
        .iter()
        .all(|&offset| board.is_blocked(CENTRE + offset));
    let mut robots = puzzle.robots().to_vec();
    match (width, height, count) {
        (GRID, GRID, 5) => {}
        (GRID, GRID, 4) if centre_closed => robots.push(CENTRE),
        _ => {
            return Err(KcoxError::Shape {
                width,
                height,
                robots: count,
            })
        }
    }
    let mut out = String::from("board 16 16\n");
    let wall = |cell: Cell, dir: Direction| {
        let inner = dir
            .step(cell)
            .is_some_and(|other| board.is_blocked(cell) && board.is_blocked(other));
        board.has_wall(cell, dir) && !inner
    };
    for y in 0..GRID {
        let row: Vec<&str> = (0..GRID)
            .map(|x| {
                let cell = (y * GRID + x) as Cell;
                match (wall(cell, Direction::North), wall(cell, Direction::West)) {
                    (true, true) => "B",
                    (true, false) => "N",
                    (false, true) => "W",
                    (false, false) => "C",
                }
            })
            .collect();
        out += &row.join(" ");
        out.push('\n');
    }
    let mirrors = board.mirror_list();
    let _ = writeln!(out, "mirrors {}", mirrors.len());
    for (index, mirror) in mirrors {
        let kc = OURS
            .iter()
            .position(|&ours| Colour::ALL[ours] == mirror.colour)
            .expect("five colours both ways");
        let _ = writeln!(
            out,
            "{} {} {} {kc}",
            index % GRID,
            index / GRID,
            mirror.symbol()
        );
    }
    out += "robots 5\n";
    for ours in OURS {
        let cell = robots[ours];
        let _ = writeln!(out, "{} {}", cell as usize % GRID, cell as usize / GRID);
    }
    let target = puzzle.target();
    let robot = match target.colour {
        None => -1,
        Some(colour) => OURS
            .iter()
            .position(|&ours| ours == colour.robot())
            .expect("five colours both ways") as i64,
    };
    let _ = writeln!(
        out,
        "target 0 {} {} {robot}",
        target.cell as usize % GRID,
        target.cell as usize / GRID
    );
    Ok(out)
}

#[cfg(test)]
mod tests;
