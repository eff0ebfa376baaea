//! The rule set itself: what [`Rules`] may ask of a solution, how a rule set is read from
//! its names and written back, and what its ricochet rule asks of one position. Apart from
//! the search, since every user of the rules (parsing, reports, the wire) needs these and
//! nothing of how a position is searched.

use crate::board::Direction;
use crate::puzzle::Puzzle;
use std::fmt;

/// What a solution may do, besides sliding robots, and which positions are played.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    /// Whether a robot may move along the line of its own previous move.
    pub rebounds: bool,
    /// Whether the finishing robot must have turned, and when.
    pub ricochet: Ricochet,
    /// Positions needing fewer moves are refused (0 and 1: none is).
    pub min_moves: u8,
}

/// The ricochet rule: the finishing robot turns at a right angle at least once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ricochet {
    /// Not asked (Fogleman's program, DriftingDroids' plain positions).
    None,
    /// The rulebook's: asked of every solution.
    Official,
    /// DriftingDroids': asked only where its robot could reach the target at once.
    DriftingDroids,
}

/// Why a rule set could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    #[error(
        "unknown rule {0:?} (rules are standard, no-rebounds, ricochet, dd-ricochet, min-moves=N)"
    )]
    Unknown(String),
    #[error("rules {0:?} ask for two ricochet rules")]
    TwoRicochets(String),
    #[error("min-moves {0:?} is not a number from 2 to 40")]
    MinMoves(String),
}

impl Rules {
    /// Today's rule, as Fogleman's program and the board game's first edition play it.
    pub const STANDARD: Rules = Rules {
        rebounds: true,
        ricochet: Ricochet::None,
        min_moves: 0,
    };

    /// The rules' names that differ from [`Rules::STANDARD`] (empty for it), in the order
    /// [`Rules::parse`] reads them.
    pub fn differences(self) -> Vec<String> {
        let mut names = Vec::new();
        if !self.rebounds {
            names.push("no-rebounds".to_string());
        }
        match self.ricochet {
            Ricochet::None => {}
            Ricochet::Official => names.push("ricochet".into()),
            Ricochet::DriftingDroids => names.push("dd-ricochet".into()),
        }
        if self.min_moves > 1 {
            names.push(format!("min-moves={}", self.min_moves));
        }
        names
    }

    /// Reads a rule set as [`fmt::Display`] writes it: `standard`, or rules joined by
    /// commas (`no-rebounds,ricochet,min-moves=3`).
    pub fn parse(text: &str) -> Result<Rules, RulesError> {
        let mut rules = Rules::STANDARD;
        for name in text.split(',').map(str::trim) {
            let set_ricochet = |rules: &mut Rules, ricochet| {
                if rules.ricochet != Ricochet::None {
                    return Err(RulesError::TwoRicochets(text.to_string()));
                }
                rules.ricochet = ricochet;
                Ok(())
            };
            match name {
                "standard" => {}
                "no-rebounds" => rules.rebounds = false,
                "ricochet" => set_ricochet(&mut rules, Ricochet::Official)?,
                "dd-ricochet" => set_ricochet(&mut rules, Ricochet::DriftingDroids)?,
                _ => match name.strip_prefix("min-moves=") {
                    Some(number) => {
                        rules.min_moves = number
                            .parse()
                            .ok()
                            .filter(|n| (2..=40).contains(n))
                            .ok_or_else(|| RulesError::MinMoves(number.to_string()))?;
                    }
                    None => return Err(RulesError::Unknown(name.to_string())),
                },
            }
        }
        Ok(rules)
    }

    /// Whether a position needing `moves` is refused by the minimum.
    pub fn refuses(self, moves: usize) -> bool {
        moves < usize::from(self.min_moves)
    }

    /// Whether the moves themselves are restricted (else the fast solver plays them).
    pub fn restricts_moves(self) -> bool {
        !self.rebounds || self.ricochet != Ricochet::None
    }
}

impl Default for Rules {
    fn default() -> Rules {
        Rules::STANDARD
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.differences()[..] {
            [] => f.write_str("standard"),
            ref names => f.write_str(&names.join(",")),
        }
    }
}

/// What the ricochet rule asks of `puzzle`: whether the finishing robot must have turned,
/// and whether a robot that may finish must not stop on the target before the last move.
pub(super) fn ricochet_duties(puzzle: &Puzzle, rules: Rules) -> (bool, bool) {
    let at_once = rules.ricochet == Ricochet::DriftingDroids && reachable_at_once(puzzle);
    (rules.ricochet == Ricochet::Official || at_once, at_once)
}

/// DriftingDroids' test of a position for its ricochet rule: a robot that may finish
/// stands on the target, or the target lies on one of its straight lines (robots on the
/// way ignored) and a wall or a robot stops a slide there.
pub fn reachable_at_once(puzzle: &Puzzle) -> bool {
    let target = puzzle.target().cell;
    let robots = puzzle.robots();
    (0..robots.len())
        .filter(|&robot| puzzle.may_finish(robot))
        .any(|robot| {
            robots[robot] == target
                || Direction::ALL.iter().any(|&dir| {
                    let mut at = robots[robot];
                    while let Some(next) = puzzle.board().step_open(at, dir) {
                        if at == target && robots.contains(&next) {
                            return true;
                        }
                        at = next;
                    }
                    at == target
                })
        })
}
