//! SVG pictures of puzzles, drawn like the board game: cream cells, thick walls, the grey
//! centre block, the target token in its colour and shape, robots as coloured discs and a
//! solution as numbered arrows. Pure string building, so every front end can embed them.

use crate::board::{Cell, Direction, GRID};
use crate::puzzle::{Colour, Move, Puzzle, Shape};
use std::fmt::Write;

/// Side of a cell in SVG units.
pub const CELL: f64 = 32.0;
/// Margin around the board.
const MARGIN: f64 = 4.0;

/// What to draw besides the board, the robots and the target.
#[derive(Clone, Debug, Default)]
pub struct Picture<'a> {
    /// Moves drawn as numbered arrows from the start position.
    pub solution: Option<&'a [Move]>,
    /// Other tokens on the board (name like `BT`, cell), drawn faintly.
    pub other_tokens: &'a [(String, Cell)],
    /// Text for the picture's `<title>` (tooltips, accessibility).
    pub title: Option<&'a str>,
}

/// Fill colour of a robot or token colour.
pub fn colour_hex(colour: Option<Colour>) -> &'static str {
    match colour {
        Some(Colour::Red) => "#d7263d",
        Some(Colour::Green) => "#1b998b",
        Some(Colour::Blue) => "#2e5eaa",
        Some(Colour::Yellow) => "#f4b400",
        Some(Colour::Silver) => "#8d99ae",
        None => "#7a4ea3",
    }
}

/// Centre of `cell` in picture coordinates.
pub fn centre(cell: Cell) -> (f64, f64) {
    let (x, y) = (cell as usize % GRID, cell as usize / GRID);
    (
        MARGIN + (x as f64 + 0.5) * CELL,
        MARGIN + (y as f64 + 0.5) * CELL,
    )
}

/// The puzzle as a standalone `<svg>` element.
pub fn board(puzzle: &Puzzle, picture: &Picture<'_>) -> String {
    let board = puzzle.board();
    let (width, height) = (board.width(), board.height());
    let (w, h) = (
        width as f64 * CELL + 2.0 * MARGIN,
        height as f64 * CELL + 2.0 * MARGIN,
    );
    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}" class="rrm-board" role="img">"#
    );
    if let Some(title) = picture.title {
        let _ = write!(svg, "<title>{}</title>", escape(title));
    }
    svg.push_str(
        r##"<defs><marker id="arrow" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="5" markerHeight="5" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="context-stroke"/></marker></defs>"##,
    );
    let _ = write!(
        svg,
        r##"<rect x="0" y="0" width="{w}" height="{h}" fill="#3b3b3b"/>"##
    );
    let cells = || (0..height).flat_map(move |y| (0..width).map(move |x| (y * GRID + x) as Cell));
    for cell in cells() {
        let (cx, cy) = centre(cell);
        let fill = if board.is_blocked(cell) {
            "#6b6b6b"
        } else {
            "#f4eedc"
        };
        let _ = write!(
            svg,
            r##"<rect x="{}" y="{}" width="{CELL}" height="{CELL}" fill="{fill}" stroke="#d8cfb4" stroke-width="0.6"/>"##,
            cx - CELL / 2.0,
            cy - CELL / 2.0
        );
    }
    for (name, cell) in picture.other_tokens {
        let mut letters = name.chars();
        let colour = letters.next().and_then(Colour::from_letter);
        let shape = letters.next().and_then(Shape::from_letter);
        token(&mut svg, *cell, colour, shape, 0.3);
    }
    let target = puzzle.target();
    token(&mut svg, target.cell, target.colour, target.shape, 1.0);
    walls(&mut svg, puzzle);
    mirrors(&mut svg, puzzle);
    let labels = picture
        .solution
        .map(|solution| arrows(&mut svg, puzzle, solution))
        .unwrap_or_default();
    for (robot, &cell) in puzzle.robots().iter().enumerate() {
        let (cx, cy) = centre(cell);
        let colour = Colour::ALL[robot];
        let _ = write!(
            svg,
            r##"<g class="robot" id="robot-{robot}" data-cell="{}" transform="translate({cx} {cy})"><circle r="{}" fill="{}" stroke="#1d1d1d" stroke-width="1.5"/><text y="4" text-anchor="middle" font-family="sans-serif" font-size="11" font-weight="bold" fill="#fff">{}</text></g>"##,
            board.index_of(cell),
            ROBOT_RADIUS,
            colour_hex(Some(colour)),
            colour.letter()
        );
    }
    // Step numbers go over the robots, where no robot hides them.
    svg.push_str(&labels);
    svg.push_str("</svg>");
    svg
}

fn walls(svg: &mut String, puzzle: &Puzzle) {
    let board = puzzle.board();
    let half = CELL / 2.0;
    svg.push_str(r##"<g stroke="#1d1d1d" stroke-width="3.5" stroke-linecap="square">"##);
    for y in 0..board.height() {
        for x in 0..board.width() {
            let cell = (y * GRID + x) as Cell;
            let (cx, cy) = centre(cell);
            // Each wall once: north and west sides, plus the board's south and east edges.
            let mut sides = vec![Direction::North, Direction::West];
            if y + 1 == board.height() {
                sides.push(Direction::South);
            }
            if x + 1 == board.width() {
                sides.push(Direction::East);
            }
            for dir in sides {
                if !board.has_wall(cell, dir) {
                    continue;
                }
                let (x1, y1, x2, y2) = match dir {
                    Direction::North => (cx - half, cy - half, cx + half, cy - half),
                    Direction::South => (cx - half, cy + half, cx + half, cy + half),
                    Direction::West => (cx - half, cy - half, cx - half, cy + half),
                    Direction::East => (cx + half, cy - half, cx + half, cy + half),
                };
                let _ = write!(svg, r#"<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}"/>"#);
            }
        }
    }
    svg.push_str("</g>");
}

/// Diagonal walls: a thick line corner to corner, in the colour of the robot that passes.
fn mirrors(svg: &mut String, puzzle: &Puzzle) {
    let board = puzzle.board();
    let half = CELL / 2.0 - 2.0;
    for (index, mirror) in board.mirror_list() {
        let (cx, cy) = centre(board.cell_of(index));
        let (y1, y2) = if mirror.leans_left {
            (cy - half, cy + half)
        } else {
            (cy + half, cy - half)
        };
        let _ = write!(
            svg,
            r#"<line class="mirror" x1="{}" y1="{y1}" x2="{}" y2="{y2}" stroke="{}" stroke-width="4" stroke-linecap="round"/>"#,
            cx - half,
            cx + half,
            colour_hex(Some(mirror.colour))
        );
    }
}

/// A token: its shape in its colour (a star when the shape is unknown, a many-coloured
/// star for the wild target).
fn token(svg: &mut String, cell: Cell, colour: Option<Colour>, shape: Option<Shape>, opacity: f64) {
    let (cx, cy) = centre(cell);
    let r = CELL * 0.3;
    let fill = colour_hex(colour);
    let points = |corners: usize, start: f64, inner: Option<f64>| -> String {
        let total = if inner.is_some() {
            corners * 2
        } else {
            corners
        };
        (0..total)
            .map(|i| {
                let radius = match inner {
                    Some(inner) if i % 2 == 1 => r * inner,
                    _ => r,
                };
                let angle = start + i as f64 * std::f64::consts::TAU / total as f64;
                format!(
                    "{:.2},{:.2}",
                    cx + radius * angle.cos(),
                    cy + radius * angle.sin()
                )
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let up = -std::f64::consts::FRAC_PI_2;
    let shape_svg = match shape {
        // A ring, not a disc: a filled disc reads as a robot.
        Some(Shape::Circle) => format!(
            r##"<circle cx="{cx}" cy="{cy}" r="{:.2}" fill="#fff" stroke="{fill}" stroke-width="{:.2}"/><circle cx="{cx}" cy="{cy}" r="{:.2}"/>"##,
            r * 0.8,
            r * 0.4,
            r * 0.2
        ),
        Some(Shape::Triangle) => format!(r#"<polygon points="{}"/>"#, points(3, up, None)),
        Some(Shape::Square) => format!(
            r#"<rect x="{}" y="{}" width="{}" height="{}"/>"#,
            cx - r * 0.85,
            cy - r * 0.85,
            r * 1.7,
            r * 1.7
        ),
        Some(Shape::Hexagon) => format!(r#"<polygon points="{}"/>"#, points(6, 0.0, None)),
        None => format!(r#"<polygon points="{}"/>"#, points(5, up, Some(0.45))),
    };
    let _ = write!(
        svg,
        r##"<g class="token" fill="{fill}" stroke="#1d1d1d" stroke-width="1" opacity="{opacity}">{shape_svg}</g>"##
    );
    if colour.is_none() && opacity >= 1.0 {
        // The wild target: a ring of every robot colour around the star.
        for (i, c) in Colour::ALL.iter().take(4).enumerate() {
            let start = i as f64 * std::f64::consts::FRAC_PI_2;
            let (x1, y1) = (cx + r * 1.3 * start.cos(), cy + r * 1.3 * start.sin());
            let end = start + std::f64::consts::FRAC_PI_2;
            let (x2, y2) = (cx + r * 1.3 * end.cos(), cy + r * 1.3 * end.sin());
            let _ = write!(
                svg,
                r#"<path d="M{x1:.2},{y1:.2} A{0:.2},{0:.2} 0 0 1 {x2:.2},{y2:.2}" fill="none" stroke="{1}" stroke-width="2.5"/>"#,
                r * 1.3,
                colour_hex(Some(*c))
            );
        }
    }
}

/// A step number's disc.
const LABEL_RADIUS: f64 = 7.0;

/// Where step `from → to`'s number goes: on its arrow, as near its middle as it can be
/// without covering a robot drawn at `robots`, else beside the arrow's middle.
fn label_point(from: (f64, f64), to: (f64, f64), robots: &[(f64, f64)]) -> (f64, f64) {
    let clear_of = |(x, y): (f64, f64)| {
        robots
            .iter()
            .all(|&(rx, ry)| (x - rx).hypot(y - ry) >= ROBOT_RADIUS + LABEL_RADIUS)
    };
    let along = |t: f64| (from.0 + (to.0 - from.0) * t, from.1 + (to.1 - from.1) * t);
    let on_arrow = [0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8]
        .into_iter()
        .map(along)
        .find(|&point| clear_of(point));
    on_arrow.unwrap_or_else(|| {
        // Slides are straight: beside the middle means across the arrow's direction.
        let (mx, my) = along(0.5);
        let sideways = CELL / 2.0;
        if from.1 == to.1 {
            (mx, my - sideways)
        } else {
            (mx + sideways, my)
        }
    })
}

/// A robot's disc.
const ROBOT_RADIUS: f64 = CELL * 0.36;

/// Draws the solution as arrows in each robot's colour; returns their step numbers, to
/// be drawn over the robots.
fn arrows(svg: &mut String, puzzle: &Puzzle, solution: &[Move]) -> String {
    let drawn: Vec<(f64, f64)> = puzzle.robots().iter().map(|&cell| centre(cell)).collect();
    let mut labels = String::from(r#"<g class="steps">"#);
    let mut robots = puzzle.robots().to_vec();
    svg.push_str(r#"<g class="solution" fill="none" stroke-width="3" stroke-linecap="round">"#);
    for (number, &step) in solution.iter().enumerate() {
        let Some(&from) = robots.get(step.robot as usize) else {
            break;
        };
        let to = puzzle.slide(&robots, step);
        let ((x1, y1), (x2, y2)) = (centre(from), centre(to));
        let colour = colour_hex(Colour::ALL.get(step.robot as usize).copied());
        let _ = write!(
            svg,
            r#"<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{colour}" marker-end="url(#arrow)" opacity="0.85"/>"#
        );
        let (nx, ny) = label_point((x1, y1), (x2, y2), &drawn);
        let _ = write!(
            labels,
            r##"<g class="step"><circle cx="{nx}" cy="{ny}" r="{LABEL_RADIUS}" fill="#fff" stroke="{colour}" stroke-width="1.5"/><text x="{nx}" y="{}" text-anchor="middle" font-family="sans-serif" font-size="9" font-weight="bold" fill="#1d1d1d">{}</text></g>"##,
            ny + 3.0,
            number + 1
        );
        robots[step.robot as usize] = to;
    }
    svg.push_str("</g>");
    labels.push_str("</g>");
    labels
}

/// Escapes text for SVG and HTML.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Game, Solver};

    #[test]
    fn draws_mirrors_in_the_colour_that_passes() {
        let puzzle = Game::generate(1).unwrap().puzzle();
        let free: Vec<i64> = (0..256)
            .filter(|&i| {
                let cell = puzzle.board().cell_of(i as usize);
                !puzzle.board().is_blocked(cell)
                    && !puzzle.robots().contains(&cell)
                    && cell != puzzle.target().cell
            })
            .take(2)
            .collect();
        let mirrors = [
            (
                free[0],
                crate::mirrors::Mirror {
                    leans_left: true,
                    colour: Colour::Blue,
                },
            ),
            (
                free[1],
                crate::mirrors::Mirror {
                    leans_left: false,
                    colour: Colour::Red,
                },
            ),
        ];
        let board = puzzle.board().clone().with_mirrors(&mirrors).unwrap();
        let with = Puzzle::new(board, puzzle.robots().to_vec(), puzzle.target()).unwrap();
        let svg = board_svg(&with);
        assert_eq!(svg.matches(r#"class="mirror""#).count(), 2);
        assert!(svg.contains(colour_hex(Some(Colour::Blue))));
        assert_eq!(board_svg(&puzzle).matches(r#"class="mirror""#).count(), 0);
    }

    /// A circle target is drawn as a ring around a dot, never as a disc like a robot's.
    #[test]
    fn circle_targets_are_rings() {
        let circle = (1..200)
            .map(|seed| Game::generate(seed).unwrap().puzzle())
            .find(|p| p.target().shape == Some(Shape::Circle) && p.target().colour.is_some())
            .expect("a circle target");
        let svg = board_svg(&circle);
        let token = svg.split(r#"class="token""#).last().unwrap();
        let token = &token[..token.find("</g>").unwrap()];
        let hex = colour_hex(circle.target().colour);
        assert!(
            token.contains(&format!(r##"fill="#fff" stroke="{hex}""##)),
            "{token}"
        );
    }

    fn board_svg(puzzle: &Puzzle) -> String {
        board(puzzle, &Picture::default())
    }

    #[test]
    fn draws_robots_target_walls_and_numbered_arrows() {
        let game = Game::generate(1).unwrap();
        let puzzle = game.puzzle();
        let solution = Solver::new().solve(&puzzle).unwrap().moves;
        let svg = board(
            &puzzle,
            &Picture {
                solution: Some(&solution),
                title: Some("seed 1 <9 moves>"),
                ..Picture::default()
            },
        );
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert_eq!(svg.matches(r#"class="robot""#).count(), 4);
        assert_eq!(svg.matches(r#"class="step""#).count(), solution.len());
        assert!(svg.contains("seed 1 &lt;9 moves&gt;"));
        assert!(svg.matches("<line").count() > 40, "walls and arrows");
        let last_robot = svg.rfind(r#"class="robot""#).unwrap();
        assert!(
            svg.find(r#"class="step""#).unwrap() > last_robot,
            "numbers over robots"
        );
    }

    #[test]
    fn step_numbers_clear_the_robots() {
        let robots: Vec<(f64, f64)> = (0..4).map(|i| centre(i * 17)).collect();
        let clear = |p: (f64, f64)| {
            robots
                .iter()
                .all(|r| (p.0 - r.0).hypot(p.1 - r.1) >= ROBOT_RADIUS + LABEL_RADIUS)
        };
        // Every slide of every robot on an open 16×16 board, in the four directions.
        let mut slides = 0;
        for &from in &robots {
            for to in [
                (from.0, MARGIN + CELL / 2.0),
                (MARGIN + 15.5 * CELL, from.1),
            ] {
                if to != from {
                    slides += 1;
                    let point = label_point(from, to, &robots);
                    assert!(clear(point), "{from:?} → {to:?}: {point:?}");
                }
            }
        }
        assert!(slides >= 6);
        // A one-cell slide has no room on its arrow: its number goes beside it.
        let (from, to) = (centre(0), centre(1));
        let point = label_point(from, to, &[from, to]);
        assert!((point.1 - from.1).abs() >= CELL / 2.0, "{point:?}");
    }
}
