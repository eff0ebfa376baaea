//! What `rrm solve` prints for a solved puzzle: a JSON object or a text report; and
//! counts in words ("1 move", "9 moves") for every command's text.

use crate::input::{Job, Source};
use ricochet::rules::Rules;
use ricochet::{render, Puzzle, Solution, Unsolved};
use serde::Serialize;

/// One solved (or unsolvable) puzzle, as printed by `--json`.
#[derive(Serialize)]
pub struct Report {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Tile names in placement order (top-left, top-right, bottom-right, bottom-left).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quads: Option<[&'static str; 4]>,
    pub width: usize,
    pub height: usize,
    /// Robot cells `y * width + x` in colour order R G B Y S.
    pub robots: Vec<usize>,
    pub target: TargetReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moves: Option<usize>,
    pub solution: Vec<String>,
    /// The file's known optimum: under today's rule on the puzzle's board, so a rule
    /// set that restricts the moves may need more, never fewer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected_moves: Option<u32>,
    #[serde(skip)]
    expected_is_floor: bool,
    /// The rule set solved under: `standard`, or what differs from it (`no-rebounds`).
    pub rules: String,
    /// Solved, but needing fewer moves than the rules' minimum: a position the rules
    /// refuse.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub refused: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub states: u64,
    pub cpu_seconds: f64,
}

#[derive(Serialize)]
pub struct TargetReport {
    /// `BT`-style token, the colour letter alone when the shape is unknown, `*` for any robot.
    pub token: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub colour: Option<char>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shape: Option<char>,
    pub cell: usize,
}

impl Report {
    pub fn new(
        job: &Job,
        result: &Result<Solution, Unsolved>,
        cpu_seconds: f64,
        rules: Rules,
    ) -> Report {
        let puzzle = &job.puzzle;
        let target = puzzle.target();
        let (seed, name, quads, expected_moves) = match &job.source {
            Source::Seed(game) => (Some(game.seed), None, Some(game.layout.tiles), None),
            Source::File {
                name,
                expected_moves,
            } => (None, name.clone(), None, *expected_moves),
        };
        let (moves, solution, states, error) = match result {
            Ok(s) => (
                Some(s.moves.len()),
                s.moves.iter().map(|m| m.notation()).collect(),
                s.stats.states,
                None,
            ),
            Err(e) => (None, Vec::new(), 0, Some(e.to_string())),
        };
        Report {
            seed,
            name,
            quads,
            width: puzzle.board().width(),
            height: puzzle.board().height(),
            robots: puzzle.robot_indices(),
            target: TargetReport {
                token: target.token(),
                colour: target.colour.map(|c| c.letter()),
                shape: target.shape.map(|s| s.letter()),
                cell: puzzle.board().index_of(target.cell),
            },
            moves,
            solution,
            expected_moves,
            expected_is_floor: rules.restricts_moves(),
            rules: rules.to_string(),
            refused: moves.is_some_and(|moves| rules.refuses(moves)),
            error,
            states,
            cpu_seconds,
        }
    }

    /// Whether the puzzle went unsolved, the rules refuse it, or it disagrees with its
    /// file's known optimum (falls short of it, under rules that restrict the moves).
    pub fn failed(&self) -> bool {
        let Some(moves) = self.moves else {
            return true;
        };
        self.refused
            || self.expected_moves.is_some_and(|expected| {
                let expected = expected as usize;
                if self.expected_is_floor {
                    moves < expected
                } else {
                    moves != expected
                }
            })
    }

    /// A human-readable report: the board, then the solution and the search figures.
    pub fn text(&self, puzzle: &Puzzle) -> String {
        let mut out = String::new();
        if let Some(seed) = self.seed {
            out += &format!(
                "seed {seed}, tiles {}\n",
                self.quads.map(|q| q.join(" ")).unwrap_or_default()
            );
        }
        if let Some(name) = &self.name {
            out += &format!("puzzle {name}\n");
        }
        out += &render::ascii(puzzle);
        out += &format!(
            "target {} at cell {}\n",
            self.target.token, self.target.cell
        );
        match (&self.moves, &self.error) {
            (Some(moves), _) if self.refused => {
                out += &format!(
                    "refused: the rules ({}) ask for more moves than the {} this position needs: {}\n",
                    self.rules,
                    count(*moves as u64, "move"),
                    self.solution.join(" ")
                );
            }
            (Some(moves), _) => {
                let rules = match self.rules.as_str() {
                    "standard" => String::new(),
                    rules => format!(", {rules}"),
                };
                out += &format!(
                    "{} (optimal{rules}): {}\n",
                    count(*moves as u64, "move"),
                    self.solution.join(" ")
                );
            }
            (None, Some(error)) => out += &format!("unsolved: {error}\n"),
            (None, None) => {}
        }
        if let Some(expected) = self.expected_moves {
            let verdict = if self.failed() { "MISMATCH" } else { "ok" };
            let expected = count(expected.into(), "move");
            if self.expected_is_floor {
                out += &format!("expected at least {expected} (the file's optimum under today's rule): {verdict}\n");
            } else {
                out += &format!("expected {expected}: {verdict}\n");
            }
        }
        // An unsolved search reports no state count (its error carries none): only its time.
        match self.moves {
            Some(_) => out += &format!("{} states, {:.6} s CPU\n", self.states, self.cpu_seconds),
            None => out += &format!("{:.6} s CPU\n", self.cpu_seconds),
        }
        out
    }
}

/// `n` and the noun, plural unless `n` is 1.
pub fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(super::count(1, "puzzle"), "1 puzzle");
        assert_eq!(super::count(0, "placement"), "0 placements");
        assert_eq!(super::count(2, "placement"), "2 placements");
    }
}
