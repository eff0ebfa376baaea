//! A mined puzzle's page: its board and a step-by-step playback of its stored solution,
//! or for a Ricocheckers position its board, its forced win and the main line played out.
//! The playback serves the exhaustive pages too.

use super::{page, Coord, PageError};
use axum::extract::{Path, State};
use axum::response::Html;
use ricochet::ricocheckers::puzzles::FORCED_WIN_BOUND;
use ricochet::svg::{centre, escape, Picture};
use ricochet::{Dealt, Move, Puzzle};
use std::fmt::Write;

pub(super) async fn puzzle_page(
    State(coordinator): Coord,
    Path((name, seed)): Path<(String, u64)>,
) -> Result<Html<String>, PageError> {
    let dealer = coordinator.dealer(&name)?;
    let mined = coordinator.puzzle(&name, seed)?;
    let generated = match dealer.deal(seed)? {
        Dealt::Puzzle(generated) => generated,
        Dealt::Ricocheckers(position) => {
            let mut body = format!(
                r#"<p id="puzzle" data-seed="{seed}" data-moves="{moves}">Seed {seed}: player {side} to move {verdict}{re}.</p><div class="card board">{board}</div>{legend}<p>Main line: <code>{line}</code></p>"#,
                side = position.to_move + 1,
                moves = mined.moves,
                verdict = match mined.moves {
                    0 => format!("has no forced win within {} moves", FORCED_WIN_BOUND),
                    moves => format!("forces a win in <b>{moves}</b> moves"),
                },
                re = if mined.re_solved {
                    ", proven again by the coordinator"
                } else {
                    ""
                },
                board = ricocheckers_svg(&position, &format!("seed {seed}")),
                legend = RICOCHECKERS_LEGEND,
                line = escape(&main_line(position.to_move, &mined.solution)),
            );
            let frames = ricocheckers_frames(&position, &mined.solution);
            if frames.len() > 1 {
                let labels = ply_labels(position.to_move, &mined.solution);
                line_playback(&mut body, &frames, &labels);
            }
            return Ok(Html(page(
                &format!("Seed {seed}"),
                &body,
                Some("puzzle.js"),
            )));
        }
    };
    let puzzle = &generated.puzzle;
    let board = ricochet::svg::board(
        puzzle,
        &Picture {
            title: Some(&format!("seed {seed}")),
            ..Picture::default()
        },
    );
    let mut body = String::new();
    let _ = write!(
        body,
        r#"<p id="puzzle" data-seed="{seed}" data-moves="{moves}">Seed {seed}: target <b>{token}</b> on tiles {arrangement}; optimal <b>{moves}</b> moves{re}.</p><div class="card board">{board}</div>"#,
        moves = mined.moves,
        token = escape(&generated.token),
        arrangement = escape(&generated.arrangement),
        re = if mined.re_solved {
            ", re-solved by the coordinator"
        } else {
            ""
        },
    );
    playback(
        &mut body,
        puzzle,
        &mined.solution,
        &format!("rrm show --seed {seed} --solution"),
    );
    Ok(Html(page(
        &format!("Seed {seed}"),
        &body,
        Some("puzzle.js"),
    )))
}

/// What a Ricocheckers picture's colours mean.
pub(super) const RICOCHECKERS_LEGEND: &str = r#"<p class="legend">Player 1's pieces are red, player 2's blue. A cell tinted <span style="background:#f8dcdc">red</span> is one player 1 must fill to win (player 2's start), one tinted <span style="background:#dbe9f6">blue</span> player 2's.</p>"#;

/// A main line with each move's player: `1:aW 2:cN …`, starting with the side to move.
fn main_line(to_move: u8, moves: &[String]) -> String {
    ply_labels(to_move, moves).join(" ")
}

/// Each move of a main line with its player (`1:aW`), starting with the side to move.
fn ply_labels(to_move: u8, moves: &[String]) -> Vec<String> {
    (moves.iter().enumerate())
        .map(|(ply, step)| format!("{}:{step}", (usize::from(to_move) + ply) % 2 + 1))
        .collect()
}

/// A Ricocheckers position on the built-in board, as SVG.
pub(super) fn ricocheckers_svg(position: &ricochet::ricocheckers::Position, title: &str) -> String {
    let field = ricochet::ricocheckers::puzzles::standard_field();
    ricochet::ricocheckers::render::svg(field, position, title)
}

/// The playback of a stored solution, or without one the command that solves the puzzle.
pub(super) fn playback(body: &mut String, puzzle: &Puzzle, stored: &[String], solve_command: &str) {
    let mut robots = puzzle.robots().to_vec();
    let mut frames = vec![robots.iter().map(|&c| centre(c)).collect::<Vec<_>>()];
    for step in stored.iter().map_while(|m| Move::from_notation(m)) {
        robots[step.robot as usize] = puzzle.slide(&robots, step);
        frames.push(robots.iter().map(|&c| centre(c)).collect());
    }
    if frames.len() == 1 {
        let _ = write!(
            body,
            "<p>Only the hardest puzzles keep their solutions; solve this one with <code>{}</code>.</p>",
            escape(solve_command)
        );
    }
    line_playback(body, &frames, &stored[..frames.len() - 1]);
}

/// The pieces' centres before and after each ply of a stored main line, which the
/// coordinator proved when it was mined; only the start if it does not replay.
fn ricocheckers_frames(
    position: &ricochet::ricocheckers::Position,
    stored: &[String],
) -> Vec<Vec<(f64, f64)>> {
    use ricochet::ricocheckers::{puzzles, render};
    let field = puzzles::standard_field();
    let frame = |at: &ricochet::ricocheckers::Position| {
        (at.pieces.iter())
            .map(|&cell| {
                let (x, y) = render::centre(field, cell);
                (x as f64, y as f64)
            })
            .collect::<Vec<_>>()
    };
    let line = puzzles::replay(field, position, stored).map_or_else(|_| Vec::new(), |a| a.line);
    let mut at = *position;
    let mut frames = vec![frame(&at)];
    for step in line {
        at = field.play(&at, step);
        frames.push(frame(&at));
    }
    frames
}

/// The playback of a line: buttons, its steps by `labels`, and the pieces' centres after
/// each step (`frames`, the start first) for `puzzle.js`. Nothing but the frames when the
/// line is empty.
fn line_playback(body: &mut String, frames: &[Vec<(f64, f64)>], labels: &[String]) {
    if !labels.is_empty() {
        body.push_str(r#"<div class="controls"><button id="back">◀ back</button><button id="play">▶ play</button><button id="next">next ▶</button> step <span id="step">0</span> / "#);
        let _ = write!(body, "{}</div><p class=\"moves\">", labels.len());
        for (index, label) in labels.iter().enumerate() {
            let _ = write!(
                body,
                r#"<span data-step="{}">{}</span> "#,
                index + 1,
                escape(label)
            );
        }
        body.push_str("</p>");
    }
    let _ = write!(
        body,
        r#"<script type="application/json" id="frames">{}</script>"#,
        serde_json::to_string(frames).expect("numbers serialise")
    );
}
