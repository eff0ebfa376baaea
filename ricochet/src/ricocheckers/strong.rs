//! rrm's own player: iterative deepening negamax alpha-beta with a transposition table,
//! the table's move first and the others ordered by a one-ply look, and an evaluation
//! built from slide distances, like the solver's lower bounds: for each piece, the slides
//! it needs to stop on each goal cell with the other pieces standing as blockers; a side's
//! cost is the cheapest assignment of its pieces to its goal cells.

use super::{Field, Outcome, Position, Step, PIECES};
use crate::board::{Cell, Direction, CELLS};
use crate::rules::KeyHasher;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

/// The score of a won position, less the plies to the win (so quicker wins score more).
pub const WIN: i32 = 100_000;

/// A piece that cannot reach a goal cell counts this many slides.
const FAR: u8 = 12;

/// For every cell, the slides a piece there needs at least to reach `goal`, as the
/// solver's lower bounds count them: a slide may stop anywhere along its path (so no
/// blocker is needed at the goal), and walls and the pieces cut the paths. A backward
/// breadth-first search from the goal; a cell holding a piece is reached but not passed.
fn bounds_to(field: &Field, pieces: &[Cell; 2 * PIECES], goal: Cell) -> [u8; CELLS] {
    let board = field.board();
    let mut dist = [FAR; CELLS];
    let mut queue = [0 as Cell; CELLS];
    let (mut head, mut tail) = (0, 1);
    queue[0] = goal;
    dist[goal as usize] = 0;
    while head < tail {
        let at = queue[head];
        head += 1;
        let d = dist[at as usize] + 1;
        if d >= FAR {
            continue;
        }
        if at != goal && pieces.contains(&at) {
            continue;
        }
        for dir in Direction::ALL {
            let mut from = at;
            while let Some(next) = board.step_open(from, dir) {
                if dist[next as usize] == FAR {
                    dist[next as usize] = d;
                    queue[tail] = next;
                    tail += 1;
                }
                if pieces.contains(&next) {
                    break;
                }
                from = next;
            }
        }
    }
    dist
}

/// The slides `player` needs at least to fill its goal cells: each piece's bound to each
/// goal cell with the other pieces cutting the paths, and the cheapest assignment of
/// pieces to goal cells.
pub fn cost(field: &Field, position: &Position, player: u8) -> u32 {
    let goals = field.goals(player);
    let own = position.pieces_of(player);
    let maps: Vec<[u8; CELLS]> = goals
        .iter()
        .map(|&goal| bounds_to(field, &position.pieces, goal))
        .collect();
    const ORDERS: [[usize; 3]; 6] = [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ];
    ORDERS
        .iter()
        .map(|order| {
            (0..PIECES)
                .map(|piece| u32::from(maps[order[piece]][own[piece] as usize]))
                .sum::<u32>()
        })
        .min()
        .unwrap_or(0)
}

/// The position's value for the side to move, without search: both sides' progress as the
/// published evaluation measures it (the nearest goal cells in real slides, which need a
/// stopper there), the opponent's subtracted, and the slide bounds as a finer tie-break.
pub fn evaluate(field: &Field, position: &Position) -> i32 {
    let me = position.to_move;
    let progress = |player| super::players::game_value(field, position, player);
    let lead = progress(me) - progress(1 - me);
    let bounds = cost(field, position, 1 - me) as i32 - cost(field, position, me) as i32;
    (lead * 10_000.0) as i32 + bounds * 100
}

/// The bound a table entry holds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Clone, Copy)]
struct Entry {
    depth: u8,
    score: i32,
    bound: Bound,
    best: Option<Step>,
}

/// The searcher's state between moves: its table and its budget.
pub struct Strong {
    /// Nodes per move; iterative deepening stops after the depth that passes it.
    pub nodes_per_move: u64,
    /// The deepest search.
    pub max_depth: u8,
    table: HashMap<u64, Entry, BuildHasherDefault<KeyHasher>>,
    nodes: u64,
}

/// What a search found.
#[derive(Clone, Copy, Debug)]
pub struct Choice {
    pub step: Step,
    pub score: i32,
    pub depth: u8,
    pub nodes: u64,
}

impl Strong {
    pub fn new(nodes_per_move: u64, max_depth: u8) -> Strong {
        Strong {
            nodes_per_move,
            max_depth,
            table: HashMap::default(),
            nodes: 0,
        }
    }

    /// Chooses a move of the side to move (which must have one): the best at the deepest
    /// depth completed within the budget. Deterministic: no clock, no randomness.
    pub fn choose(&mut self, field: &Field, position: &Position) -> Choice {
        self.nodes = 0;
        if self.table.len() > 1 << 22 {
            self.table.clear();
        }
        let mut best = None;
        for depth in 1..=self.max_depth {
            let score = self.negamax(field, position, depth, -WIN - 1, WIN + 1, 0);
            let step = self.table[&position.key()].best.expect("a side with moves");
            best = Some(Choice {
                step,
                score,
                depth,
                nodes: self.nodes,
            });
            if score.abs() >= WIN - 300 || self.nodes >= self.nodes_per_move {
                break;
            }
        }
        best.expect("at least depth 1")
    }

    fn negamax(
        &mut self,
        field: &Field,
        position: &Position,
        depth: u8,
        mut alpha: i32,
        beta: i32,
        ply: i32,
    ) -> i32 {
        self.nodes += 1;
        match field.outcome(position) {
            // The side that just moved won: the side to move has lost.
            Some(Outcome::Win(_)) => return -(WIN - ply),
            Some(Outcome::Tie) => return 0,
            None => {}
        }
        if depth == 0 {
            return evaluate(field, position);
        }
        let key = position.key();
        let entry = self.table.get(&key).copied();
        if let Some(entry) = entry {
            if entry.depth >= depth && ply > 0 {
                match entry.bound {
                    Bound::Exact => return entry.score,
                    Bound::Lower if entry.score >= beta => return entry.score,
                    Bound::Upper if entry.score <= alpha => return entry.score,
                    _ => {}
                }
            }
        }
        // The table's move first, then moves onto a goal cell, then the others in order:
        // ordering by evaluation would cost an evaluation per child at every node.
        let goals = field.goals(position.to_move);
        let base = PIECES * usize::from(position.to_move);
        let table_move = entry.and_then(|e| e.best);
        let mut ordered: Vec<(i32, Step)> = field
            .steps(position)
            .iter()
            .map(|&step| {
                let hint = if table_move == Some(step) {
                    2
                } else {
                    let to =
                        field.slide(&position.pieces, base + usize::from(step.piece), step.dir);
                    i32::from(goals.contains(&to))
                };
                (hint, step)
            })
            .collect();
        ordered.sort_by_key(|&(hint, _)| std::cmp::Reverse(hint));
        let original_alpha = alpha;
        let mut best = (-WIN - 1, None);
        for (_, step) in ordered {
            let next = field.play(position, step);
            let score = -self.negamax(field, &next, depth - 1, -beta, -alpha, ply + 1);
            if score > best.0 {
                best = (score, Some(step));
            }
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        let bound = if best.0 <= original_alpha {
            Bound::Upper
        } else if best.0 >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.table.insert(
            key,
            Entry {
                depth,
                score: best.0,
                bound,
                best: best.1,
            },
        );
        best.0
    }
}
