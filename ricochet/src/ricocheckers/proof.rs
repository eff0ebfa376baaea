//! Exact forced wins: the fewest moves in which the side to move can force a win, whatever
//! the opponent plays, proven by an exhaustive AND/OR search (every reply of the opponent
//! is searched; a transposition table only remembers what is already proven).

use super::{Field, Outcome, Position};
use std::collections::HashMap;

/// A proven forced win.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForcedWin {
    /// The winner's moves (its plies): a win in `moves` takes `2 * moves - 1` plies.
    pub moves: u8,
    /// A main line: the winner's first move, the opponent's longest-resisting reply, and so
    /// on to the winning move.
    pub line: Vec<super::Step>,
}

/// What a forced-win search proved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proof {
    /// The shortest forced win within the bound, or none: no win exists within it.
    pub win: Option<ForcedWin>,
    /// Positions searched.
    pub nodes: u64,
}

/// The search ran out of its node budget before proving either way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("no proof within {0} positions searched")]
pub struct OutOfBudget(pub u64);

/// The proof search's memory: for a position key, the most plies shown not to suffice.
struct Prover<'f> {
    field: &'f Field,
    /// `failed[key]`: the side to move cannot force a win within this many plies.
    failed: HashMap<u64, u8>,
    /// `proven[key]`: the side to move forces a win within this many plies.
    proven: HashMap<u64, u8>,
    nodes: u64,
    /// Positions searched before the prover gives up.
    budget: u64,
}

/// The shortest forced win of the side to move in at most `max_moves` of its moves, or
/// the proof that there is none; [`OutOfBudget`] when `budget` positions did not settle it.
pub fn forced_win(
    field: &Field,
    position: &Position,
    max_moves: u8,
    budget: u64,
) -> Result<Proof, OutOfBudget> {
    let mut prover = Prover {
        field,
        failed: HashMap::new(),
        proven: HashMap::new(),
        nodes: 0,
        budget,
    };
    for moves in 1..=max_moves {
        let plies = 2 * moves - 1;
        match prover.wins(position, plies) {
            Some(true) => {
                let line = prover.main_line(position, plies);
                return Ok(Proof {
                    win: Some(ForcedWin { moves, line }),
                    nodes: prover.nodes,
                });
            }
            Some(false) => {}
            None => return Err(OutOfBudget(prover.nodes)),
        }
    }
    Ok(Proof {
        win: None,
        nodes: prover.nodes,
    })
}

impl Prover<'_> {
    /// Whether the side to move forces a win within `plies` plies (odd), or `None` when
    /// the budget ran out.
    fn wins(&mut self, position: &Position, plies: u8) -> Option<bool> {
        self.nodes += 1;
        if self.nodes > self.budget {
            return None;
        }
        if self.field.outcome(position).is_some() {
            return Some(false);
        }
        let key = position.key();
        if self.failed.get(&key).is_some_and(|&p| p >= plies) {
            return Some(false);
        }
        if self.proven.get(&key).is_some_and(|&p| p <= plies) {
            return Some(true);
        }
        let me = position.to_move;
        let mut won = false;
        for &step in self.field.steps(position).iter() {
            let next = self.field.play(position, step);
            if self.field.outcome(&next) == Some(Outcome::Win(me)) {
                won = true;
                break;
            }
            if plies >= 3 && self.loses(&next, plies - 1)? {
                won = true;
                break;
            }
        }
        if won {
            self.proven.insert(key, plies);
        } else {
            let entry = self.failed.entry(key).or_insert(0);
            *entry = (*entry).max(plies);
        }
        Some(won)
    }

    /// Whether the side to move at `position` loses within `plies` plies (even): every
    /// reply leaves the opponent a forced win in `plies - 1`. A tie or a win ends it.
    fn loses(&mut self, position: &Position, plies: u8) -> Option<bool> {
        if self.field.outcome(position).is_some() {
            return Some(false);
        }
        let steps = self.field.steps(position);
        if steps.is_empty() {
            return Some(false);
        }
        for &step in steps.iter() {
            let next = self.field.play(position, step);
            if self.field.outcome(&next).is_some() || !self.wins(&next, plies - 1)? {
                return Some(false);
            }
        }
        Some(true)
    }

    /// A main line of a proven win within `plies`: the winner's quickest win at each of its
    /// turns, and the opponent's reply that holds out longest.
    fn main_line(&mut self, position: &Position, plies: u8) -> Vec<super::Step> {
        let mut line = Vec::new();
        let mut at = *position;
        let me = position.to_move;
        let mut left = plies;
        loop {
            // The winner's quickest winning move.
            let mut chosen = None;
            'depth: for within in (1..=left).step_by(2) {
                for &step in self.field.steps(&at).iter() {
                    let next = self.field.play(&at, step);
                    let wins_now = self.field.outcome(&next) == Some(Outcome::Win(me));
                    if wins_now || (within >= 3 && self.loses(&next, within - 1).unwrap_or(false)) {
                        chosen = Some((step, next, wins_now, within));
                        break 'depth;
                    }
                }
            }
            let Some((step, next, wins_now, within)) = chosen else {
                return line;
            };
            line.push(step);
            if wins_now {
                return line;
            }
            // The reply after which the winner needs the most plies.
            let mut reply = None;
            for &answer in self.field.steps(&next).iter() {
                let after = self.field.play(&next, answer);
                let need = (1..=within - 2)
                    .step_by(2)
                    .find(|&p| self.wins(&after, p).unwrap_or(false))
                    .unwrap_or(within - 2);
                if reply.is_none_or(|(_, _, most)| need > most) {
                    reply = Some((answer, after, need));
                }
            }
            let Some((answer, after, need)) = reply else {
                return line;
            };
            line.push(answer);
            at = after;
            left = need;
        }
    }
}
