//! Text pictures of puzzles for terminals.
//!
//! Each cell is three characters wide: `###` blocked, ` R ` a robot (colour letter),
//! `(b)` the target (lower-case colour of the robot that must reach it, `*` any robot),
//! `(R)` a robot standing on the target, `\g\` or `/g/` a mirror (its lean, and the
//! lower-case colour of the robot that passes through it). Walls are `|` and `---`.

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
                // No robot stops on a mirror, and no target lies on one.
                (_, _) if board.mirror(cell).is_some() => {
                    let mirror = board.mirror(cell).expect("checked");
                    let lean = mirror.symbol();
                    let colour = mirror.colour.letter().to_ascii_lowercase();
                    format!("{lean}{colour}{lean}")
                }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mirrors::Mirror;
    use crate::puzzle::Target;
    use crate::Board;

    /// Mirrors are drawn where they stand, with their lean and colour.
    #[test]
    fn mirrors_are_drawn() {
        let lean = |leans_left, colour| Mirror { leans_left, colour };
        let board = Board::new(4, 4, &[0; 16], &[])
            .unwrap()
            .with_mirrors(&[
                (5, lean(true, Colour::Green)),
                (10, lean(false, Colour::Blue)),
            ])
            .unwrap();
        let target = Target {
            cell: 51,
            colour: Some(Colour::Red),
            shape: None,
        };
        let puzzle = Puzzle::new(board, vec![0], target).unwrap();
        let picture = ascii(&puzzle);
        let rows: Vec<&str> = picture.lines().collect();
        // Row y is text line 2y + 1; cell x starts at column 4x + 1.
        assert_eq!(&rows[3][5..8], "\\g\\");
        assert_eq!(&rows[5][9..12], "/b/");
        assert_eq!(picture.matches(['\\', '/']).count(), 4);
    }
}
