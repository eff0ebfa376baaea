//! Text pictures of puzzles for terminals.
//!
//! Each cell is three characters wide: `###` blocked, ` R ` a robot (colour letter),
//! `(b)` the target (lower-case colour of the robot that must reach it, `*` any robot),
//! `(R)` a robot standing on the target. Walls are `|` and `---`.

use crate::board::{Cell, Direction, GRID};
use crate::puzzle::{Colour, Puzzle};

/// Draws `puzzle` as ASCII art, one line per text row.
pub fn ascii(puzzle: &Puzzle) -> String {
    let board = puzzle.board();
    let (width, height) = (board.width(), board.height());
    let cell_at = |x: usize, y: usize| (y * GRID + x) as Cell;
    let target = puzzle.target();
    let mut out = String::new();
    for y in 0..=height {
        for x in 0..width {
            let walled = if y < height {
                board.has_wall(cell_at(x, y), Direction::North)
            } else {
                true
            };
            out.push('+');
            out.push_str(if walled { "---" } else { "   " });
        }
        out.push_str("+\n");
        if y == height {
            break;
        }
        for x in 0..width {
            let cell = cell_at(x, y);
            out.push(if board.has_wall(cell, Direction::West) {
                '|'
            } else {
                ' '
            });
            let robot = puzzle
                .robots()
                .iter()
                .position(|&r| r == cell)
                .map(|r| Colour::ALL[r].letter());
            let content = match (robot, cell == target.cell) {
                (_, _) if board.is_blocked(cell) => "###".to_string(),
                (Some(letter), true) => format!("({letter})"),
                (Some(letter), false) => format!(" {letter} "),
                (None, true) => format!(
                    "({})",
                    target
                        .colour
                        .map_or('*', |c| c.letter().to_ascii_lowercase())
                ),
                (None, false) => "   ".to_string(),
            };
            out.push_str(&content);
        }
        out.push_str("|\n");
    }
    out
}
