//! Pictures of a position: text drawn the way the published README draws the board
//! (`+---+` for south walls, `|` for east walls, three characters per cell), pieces named
//! by player and slot (`1a` is player 1's first piece), and SVG.

use super::{Field, Position, PIECES};
use crate::board::{Cell, Direction};
use std::fmt::Write;

/// The name of piece `index` (0..6): player number, then slot letter.
pub fn piece_name(index: usize) -> String {
    format!(
        "{}{}",
        index / PIECES + 1,
        (b'a' + (index % PIECES) as u8) as char
    )
}

/// The position as text: the published grid, pieces by name, goal cells of the side to
/// move marked `*` when empty, and a line saying who moves.
pub fn text(field: &Field, position: &Position) -> String {
    let board = field.board();
    let (width, height) = (board.width(), board.height());
    let goals = field.goals(position.to_move);
    let mut out = String::new();
    out.push('+');
    for _ in 0..width {
        out.push_str("---+");
    }
    out.push('\n');
    for y in 0..height {
        out.push('|');
        for x in 0..width {
            let cell = board.cell_of(y * width + x);
            let label = match position.pieces.iter().position(|&p| p == cell) {
                Some(index) => format!(" {}", piece_name(index)),
                None if board.is_blocked(cell) => "###".to_string(),
                None if goals.contains(&cell) => " * ".to_string(),
                None => "   ".to_string(),
            };
            out.push_str(&label);
            out.push(if board.has_wall(cell, Direction::East) {
                '|'
            } else {
                ' '
            });
        }
        out.push_str("\n+");
        for x in 0..width {
            let cell = board.cell_of(y * width + x);
            out.push_str(if board.has_wall(cell, Direction::South) {
                "---+"
            } else {
                "   +"
            });
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "player {} to move (ply {}); * marks the cells it must fill",
        position.to_move + 1,
        position.plies
    );
    out
}

/// A cell's side in [`svg`]'s pictures.
const CELL: usize = 40;

/// The top-left corner of the cell at column `x` and row `y` in [`svg`]'s pictures.
fn origin(x: usize, y: usize) -> (usize, usize) {
    (10 + x * CELL, 35 + y * CELL)
}

/// Where [`svg`] draws the centre of `cell`: a page that plays a line back moves the
/// pieces (`<g id="robot-N">`, N the piece's index) there.
pub fn centre(field: &Field, cell: Cell) -> (usize, usize) {
    let width = field.board().width();
    let at = field.board().index_of(cell);
    let (px, py) = origin(at % width, at / width);
    (px + CELL / 2, py + CELL / 2)
}

/// The position as an SVG picture: walls, the blocked cell, both players' goal cells
/// tinted in the other's colour, and the pieces with their names.
pub fn svg(field: &Field, position: &Position, title: &str) -> String {
    let board = field.board();
    let (width, height) = (board.width(), board.height());
    const COLOURS: [&str; 2] = ["#d62728", "#1f77b4"];
    let (w, h) = (width * CELL + 20, height * CELL + 50);
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\">\n\
         <rect width=\"{w}\" height=\"{h}\" fill=\"white\"/>\n\
         <text x=\"10\" y=\"22\" font-family=\"sans-serif\" font-size=\"15\">{}</text>\n",
        escape(title)
    );
    for y in 0..height {
        for x in 0..width {
            let cell = board.cell_of(y * width + x);
            let (px, py) = origin(x, y);
            let fill = if board.is_blocked(cell) {
                "#444"
            } else if let Some(player) = (0..2u8).find(|&p| field.starts(p).contains(&cell)) {
                // A start cell, which the other player must fill: tinted in its colour.
                if player == 0 {
                    "#dbe9f6"
                } else {
                    "#f8dcdc"
                }
            } else {
                "#f7f7f2"
            };
            let _ = writeln!(
                out,
                "<rect x=\"{px}\" y=\"{py}\" width=\"{CELL}\" height=\"{CELL}\" fill=\"{fill}\" stroke=\"#ccc\" stroke-width=\"0.5\"/>"
            );
        }
    }
    for y in 0..height {
        for x in 0..width {
            let cell = board.cell_of(y * width + x);
            let (px, py) = origin(x, y);
            let mut wall = |x1, y1, x2, y2| {
                let _ = writeln!(
                    out,
                    "<line x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\" stroke=\"#222\" stroke-width=\"4\" stroke-linecap=\"round\"/>"
                );
            };
            if board.has_wall(cell, Direction::North) {
                wall(px, py, px + CELL, py);
            }
            if board.has_wall(cell, Direction::West) {
                wall(px, py, px, py + CELL);
            }
            if board.has_wall(cell, Direction::East) {
                wall(px + CELL, py, px + CELL, py + CELL);
            }
            if board.has_wall(cell, Direction::South) {
                wall(px, py + CELL, px + CELL, py + CELL);
            }
        }
    }
    for (index, &cell) in position.pieces.iter().enumerate() {
        let (cx, cy) = centre(field, cell);
        let _ = writeln!(
            out,
            "<g id=\"robot-{index}\" transform=\"translate({cx} {cy})\"><circle r=\"14\" fill=\"{}\"/><text y=\"4\" font-family=\"sans-serif\" font-size=\"12\" fill=\"white\" text-anchor=\"middle\">{}</text></g>",
            COLOURS[index / PIECES],
            piece_name(index)
        );
    }
    out.push_str("</svg>\n");
    out
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
