//! The players: the published program's random, minimax and alpha-beta players (its
//! evaluation, its leaf rule and its anti-backtrack rule), and rrm's own
//! ([`super::rrm_player`]), behind one trait. Every player is deterministic given its seed.
//!
//! The published evaluation (`gameValue`) scores the mover's own pieces only: a win is
//! +1, a loss and a tie −1; otherwise, for the goal cells no piece stands on, greedily
//! the nearest (piece, goal) pair in slides (the piece lifted, every other piece a
//! blocker), each adding `1 / (d + 1)` divided by the pieces not yet on a goal. Leaves lose
//! 0.01 per ply below the root's reply, so quicker is better. The published minimax
//! searches to the end of the game and plays its own pieces for the opponent (a bug); here
//! it is depth-limited and correct, so that alpha-beta returns its value at equal depth.

use super::rrm_player::RrmSearch;
use super::{Field, Outcome, Position, Step, PIECES};
use crate::board::{Cell, Direction, CELLS};
use crate::mt::PyRandom;
use std::fmt;

/// A player of one side for one game.
pub trait Player {
    /// The move to play at `position` (the side to move has at least one).
    fn choose(&mut self, field: &Field, position: &Position) -> Step;
}

/// Which player, as written on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Uniform over the legal moves.
    Random,
    /// The published evaluation, searched `plies` deep by plain minimax.
    Minimax { plies: u8 },
    /// The same with alpha-beta pruning (the published program plays 5 plies).
    AlphaBeta { plies: u8 },
    /// rrm's player, with this many nodes per move.
    Rrm { nodes: u64 },
}

/// Why a player name could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown player {0:?} (players are random, minimax:N, alphabeta:N, rrm or rrm:NODES)")]
pub struct UnknownPlayer(pub String);

/// The published program's alpha-beta depth: `AlphaBetaPlayer(1, 4)`, leaves five plies
/// below the position.
pub const PUBLISHED_PLIES: u8 = 5;

/// rrm's player's default budget per move.
pub const RRM_NODES: u64 = 10_000;

impl Kind {
    pub fn parse(text: &str) -> Result<Kind, UnknownPlayer> {
        let bad = || UnknownPlayer(text.to_string());
        let (name, arg) = match text.split_once(':') {
            Some((name, arg)) => (name, Some(arg)),
            None => (text, None),
        };
        let number = |default: u64, max: u64| -> Result<u64, UnknownPlayer> {
            match arg {
                None => Ok(default),
                Some(arg) => arg
                    .parse()
                    .ok()
                    .filter(|n| (1..=max).contains(n))
                    .ok_or_else(bad),
            }
        };
        Ok(match name {
            "random" if arg.is_none() => Kind::Random,
            "minimax" => Kind::Minimax {
                plies: number(u64::from(PUBLISHED_PLIES), 8)? as u8,
            },
            "alphabeta" => Kind::AlphaBeta {
                plies: number(u64::from(PUBLISHED_PLIES), 12)? as u8,
            },
            "rrm" => Kind::Rrm {
                nodes: number(RRM_NODES, 100_000_000)?,
            },
            _ => return Err(bad()),
        })
    }

    /// A player of this kind for games on `field`; `seed` drives any randomness it has.
    pub fn player(self, field: &Field, seed: u64) -> Box<dyn Player + Send> {
        match self {
            Kind::Random => Box::new(RandomPlayer(PyRandom::new(seed))),
            Kind::Minimax { plies } => Box::new(Published::new(plies, false)),
            Kind::AlphaBeta { plies } => Box::new(Published::new(plies, true)),
            Kind::Rrm { nodes } => Box::new(RrmPlayer(RrmSearch::new(field, nodes, 40))),
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Kind::Random => write!(f, "random"),
            Kind::Minimax { plies } => write!(f, "minimax:{plies}"),
            Kind::AlphaBeta { plies } => write!(f, "alphabeta:{plies}"),
            Kind::Rrm { nodes } => write!(f, "rrm:{nodes}"),
        }
    }
}

struct RandomPlayer(PyRandom);

impl Player for RandomPlayer {
    fn choose(&mut self, field: &Field, position: &Position) -> Step {
        let steps = field.steps(position);
        steps[self.0.randint(0, steps.len() as u32 - 1) as usize]
    }
}

struct RrmPlayer(RrmSearch);

impl Player for RrmPlayer {
    fn choose(&mut self, field: &Field, position: &Position) -> Step {
        self.0.choose(field, position).step
    }
}

/// The published minimax and alpha-beta players.
pub struct Published {
    plies: u8,
    pruning: bool,
    /// Where this player's last two moves went (the latest first): a root move back to
    /// where the move before the last one went is skipped, as the published player does.
    last: [Option<Cell>; 2],
    /// Leaves evaluated by the last search.
    pub leaves: u64,
}

impl Published {
    pub fn new(plies: u8, pruning: bool) -> Published {
        Published {
            plies,
            pruning,
            last: [None; 2],
            leaves: 0,
        }
    }

    /// The root's value of `step` for the side to move, searched `plies` deep in all.
    pub fn value_of(&mut self, field: &Field, position: &Position, step: Step) -> f64 {
        let me = position.to_move;
        let next = field.play(position, step);
        self.search(field, &next, me, 1, f64::NEG_INFINITY, f64::INFINITY)
    }

    /// The value for `me` of `position`, `depth` plies below the root.
    fn search(
        &mut self,
        field: &Field,
        position: &Position,
        me: u8,
        depth: u8,
        mut alpha: f64,
        mut beta: f64,
    ) -> f64 {
        if field.outcome(position).is_some() || depth >= self.plies {
            self.leaves += 1;
            return game_value(field, position, me) - f64::from(depth - 1) * 0.01;
        }
        let maximising = position.to_move == me;
        let mut best = if maximising {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
        for &step in field.steps(position).iter() {
            let next = field.play(position, step);
            let value = self.search(field, &next, me, depth + 1, alpha, beta);
            if maximising {
                best = best.max(value);
                alpha = alpha.max(value);
            } else {
                best = best.min(value);
                beta = beta.min(value);
            }
            if self.pruning && alpha >= beta {
                break;
            }
        }
        best
    }
}

impl Player for Published {
    fn choose(&mut self, field: &Field, position: &Position) -> Step {
        self.leaves = 0;
        let steps = field.steps(position);
        let base = PIECES * usize::from(position.to_move);
        let destination =
            |step: &Step| field.play(position, *step).pieces[base + usize::from(step.piece)];
        let mut best: Option<(f64, Step)> = None;
        for &step in steps.iter() {
            if steps.len() > 1 && self.last[1] == Some(destination(&step)) {
                continue;
            }
            let value = self.value_of(field, position, step);
            // The first of equal moves, as the published root keeps it.
            if best.is_none_or(|(most, _)| value > most) {
                best = Some((value, step));
            }
        }
        let (_, step) = best.unwrap_or((0.0, steps[0]));
        self.last = [Some(destination(&step)), self.last[0]];
        step
    }
}

/// The published evaluation of `position` for `player` (see the module's documentation).
fn game_value(field: &Field, position: &Position, player: u8) -> f64 {
    match field.outcome(position) {
        Some(Outcome::Win(winner)) if winner == player => return 1.0,
        Some(_) => return -1.0,
        None => {}
    }
    let goals = field.goals(player);
    let base = PIECES * usize::from(player);
    let unfinished: Vec<usize> = (base..base + PIECES)
        .filter(|&i| !goals.contains(&position.pieces[i]))
        .collect();
    let mut unfilled: Vec<Cell> = goals
        .iter()
        .copied()
        .filter(|g| !position.pieces.contains(g))
        .collect();
    let mut distances: Vec<(usize, Vec<Option<u32>>)> = unfinished
        .iter()
        .map(|&piece| {
            (
                piece,
                slides_to_each(field, &position.pieces, piece, &unfilled),
            )
        })
        .collect();
    let share = 1.0 / unfinished.len().max(1) as f64;
    let mut value = 0.0;
    while !unfilled.is_empty() && !distances.is_empty() {
        // The nearest pair, the first in (piece, goal) order on ties.
        let mut nearest: Option<(u32, usize, usize)> = None;
        for (p, (_, row)) in distances.iter().enumerate() {
            for (g, d) in row.iter().enumerate() {
                if let Some(d) = d {
                    if nearest.is_none_or(|(best, _, _)| *d < best) {
                        nearest = Some((*d, p, g));
                    }
                }
            }
        }
        let Some((d, p, g)) = nearest else { break };
        value += share / f64::from(d + 1);
        distances.remove(p);
        unfilled.remove(g);
        for (_, row) in &mut distances {
            row.remove(g);
        }
    }
    value
}

/// Slides piece `index` needs to stop on each of `goals` (lifted off its cell, every other
/// piece a blocker), by breadth-first search until every goal is found; `None` where it
/// cannot.
fn slides_to_each(
    field: &Field,
    pieces: &[Cell; 2 * PIECES],
    index: usize,
    goals: &[Cell],
) -> Vec<Option<u32>> {
    let mut found: Vec<Option<u32>> = vec![None; goals.len()];
    let mut left = goals.len();
    let mut dist = [u32::MAX; CELLS];
    let mut queue = [0 as Cell; CELLS];
    let (mut head, mut tail) = (0, 1);
    queue[0] = pieces[index];
    dist[pieces[index] as usize] = 0;
    let mut moved = *pieces;
    while head < tail && left > 0 {
        let at = queue[head];
        head += 1;
        if let Some(g) = goals.iter().position(|&g| g == at) {
            found[g] = Some(dist[at as usize]);
            left -= 1;
        }
        moved[index] = at;
        for dir in Direction::ALL {
            let to = field.slide(&moved, index, dir);
            if dist[to as usize] == u32::MAX {
                dist[to as usize] = dist[at as usize] + 1;
                queue[tail] = to;
                tail += 1;
            }
        }
    }
    found
}
