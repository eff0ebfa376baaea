//! The solvers' answers, read back and checked. rrm answers as `rrm solve --json` prints
//! (one JSON object a puzzle, moves in colour notation such as `BE`, its CPU seconds in
//! `cpu_seconds`); each peer's driver prints one line a puzzle,
//! `name<TAB>moves<TAB>solution[<TAB>seconds]`, the solution as robot indices and
//! directions (`2E 0N`) and optionally the seconds the puzzle took, or
//! `name<TAB>unsupported<TAB>reason`. Every solution is replayed on its puzzle and its
//! length compared with the reference count.

use ricochet::board::Direction;
use ricochet::{Move, Puzzle};
use std::collections::HashMap;

/// One puzzle's answer.
#[derive(Debug)]
pub enum Answer {
    Solved(Vec<Move>),
    /// The solver cannot take this puzzle (its driver says so, with a reason for people).
    Unsupported,
    /// The solver said it found no solution, or printed something unreadable.
    Unreadable(String),
}

/// rrm's answers, by puzzle name.
pub fn read_rrm(output: &str) -> HashMap<String, Answer> {
    let mut answers = HashMap::new();
    for line in output.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(value) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let Some(name) = value["name"].as_str() else {
            continue;
        };
        let moves: Option<Vec<Move>> = value["solution"].as_array().and_then(|moves| {
            moves
                .iter()
                .map(|m| m.as_str().and_then(Move::from_notation))
                .collect()
        });
        let answer = match (moves, value["error"].as_str()) {
            (_, Some(error)) => Answer::Unreadable(error.to_string()),
            (Some(moves), None) => Answer::Solved(moves),
            (None, None) => Answer::Unreadable(format!("no solution in {line:?}")),
        };
        answers.insert(name.to_string(), answer);
    }
    answers
}

/// A peer driver's answers, by puzzle name.
pub fn read_driver(output: &str) -> HashMap<String, Answer> {
    let mut answers = HashMap::new();
    for line in output.lines().filter(|l| !l.trim().is_empty()) {
        let mut fields = line.splitn(4, '\t');
        let (Some(name), Some(count)) = (fields.next(), fields.next()) else {
            continue;
        };
        let rest = fields.next().unwrap_or("").trim();
        let answer = if count == "unsupported" {
            Answer::Unsupported
        } else {
            let moves: Option<Vec<Move>> = rest.split_whitespace().map(driver_move).collect();
            match (moves, count.parse::<usize>()) {
                (Some(moves), Ok(n)) if moves.len() == n => Answer::Solved(moves),
                _ => Answer::Unreadable(format!("unreadable line {line:?}")),
            }
        };
        answers.insert(name.to_string(), answer);
    }
    answers
}

/// The seconds each puzzle took, as the solver reports them: rrm's `cpu_seconds`, a
/// driver's optional fourth field. Empty when it reports none.
pub fn puzzle_seconds(output: &str, reads_json: bool) -> Vec<f64> {
    let lines = output.lines().filter(|l| !l.trim().is_empty());
    if reads_json {
        let seconds = |line: &str| {
            let value = serde_json::from_str::<serde_json::Value>(line).ok()?;
            value["cpu_seconds"].as_f64()
        };
        lines.filter_map(seconds).collect()
    } else {
        lines
            .filter_map(|line| line.splitn(4, '\t').nth(3)?.trim().parse().ok())
            .collect()
    }
}

/// `2E`: robot 2 east.
fn driver_move(token: &str) -> Option<Move> {
    let (robot, dir) = token.split_at(token.len().checked_sub(1)?);
    Some(Move {
        robot: robot.parse().ok()?,
        dir: Direction::from_letter(dir.chars().next()?)?,
    })
}

/// How a solver's answers to a set compare with the reference counts.
#[derive(Default, Clone, Copy)]
pub struct Verdict {
    /// Optimal: the reference count, and the moves replay to the target.
    pub right: usize,
    /// Declined by the driver: the peer cannot represent the puzzle.
    pub unsupported: usize,
    /// Missing, unreadable, not replaying, or of the wrong length.
    pub wrong: usize,
}

/// Checks `answers` against `puzzles` (name, puzzle, reference count).
pub fn check(
    puzzles: &[(String, Puzzle, usize)],
    answers: &HashMap<String, Answer>,
    mut report: impl FnMut(&str, String),
) -> Verdict {
    let mut verdict = Verdict::default();
    for (name, puzzle, count) in puzzles {
        match answers.get(name) {
            Some(Answer::Solved(moves)) if moves.len() == *count && puzzle.is_solution(moves) => {
                verdict.right += 1
            }
            Some(Answer::Solved(moves)) => {
                verdict.wrong += 1;
                let replays = puzzle.is_solution(moves);
                report(
                    name,
                    format!(
                        "{} moves (optimal {count}), replays: {replays}",
                        moves.len()
                    ),
                );
            }
            Some(Answer::Unsupported) => verdict.unsupported += 1,
            Some(Answer::Unreadable(why)) => {
                verdict.wrong += 1;
                report(name, why.clone());
            }
            None => {
                verdict.wrong += 1;
                report(name, "no answer".to_string());
            }
        }
    }
    verdict
}
