//! rrm's own player: iterative deepening negamax alpha-beta with a transposition table
//! (win scores stored relative to the node, so they mean the same at any depth), the
//! table's move first and the others ordered by their evaluation, and an evaluation built
//! from slide distances: for each piece, the slides it needs to stop on each goal cell,
//! and a side's need is the cheapest assignment of its pieces to its goal cells.
//!
//! The distances are those of a piece alone on the board (walls stop it; a goal cell the
//! opponent occupies costs two more), precomputed once per board, so an evaluation is a
//! few table reads. Measured against distances searched with the other pieces as blockers
//! (`BENCHMARKS.md`, 2026-11-26): those cost a breadth-first search per piece at every leaf,
//! about 180 times the time, and played no better, because the search itself sees the
//! blockers a few plies ahead.

use super::{Field, Outcome, Position, Step, PIECES};
use crate::board::{Cell, Direction, CELLS};
use crate::rules::KeyHasher;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

/// The score of a won position, less the plies to the win (so quicker wins score more).
pub const WIN: i32 = 100_000;

/// Scores this close to `WIN` are wins found by the search, not evaluations.
const WIN_ZONE: i32 = 1_000;

/// A piece that cannot reach a goal cell counts this many slides.
const FAR: u8 = 12;

/// Slides more when the opponent stands on the goal cell: it must leave first.
const OCCUPIED: i32 = 2;

/// One evaluation step: a slide of difference between the two sides' needs.
const SLIDE: i32 = 100;

/// For each goal cell of each player (`player * PIECES + goal`), the slides a piece alone
/// on the board needs from every cell to stop there.
pub struct GoalDistances(Box<[[u8; CELLS]; 2 * PIECES]>);

impl GoalDistances {
    pub fn new(field: &Field) -> GoalDistances {
        let mut table = Box::new([[FAR; CELLS]; 2 * PIECES]);
        let goals: Vec<Cell> = (0..2).flat_map(|player| field.goals(player)).collect();
        for from in field.open_cells() {
            let dist = alone_distances(field, from);
            for (column, &goal) in goals.iter().enumerate() {
                table[column][from as usize] = dist[goal as usize];
            }
        }
        GoalDistances(table)
    }

    /// The slides `player` needs at least to fill its goal cells: each piece's distance
    /// to each goal cell, and the cheapest assignment of pieces to goal cells.
    pub fn need(&self, field: &Field, position: &Position, player: u8) -> i32 {
        let goals = field.goals(player);
        let own = position.pieces_of(player);
        let other = position.pieces_of(1 - player);
        let mut slides = [[0i32; PIECES]; PIECES];
        for (piece, &cell) in own.iter().enumerate() {
            for (g, &goal) in goals.iter().enumerate() {
                let d = i32::from(self.0[usize::from(player) * PIECES + g][cell as usize]);
                slides[piece][g] = d + if d > 0 && other.contains(&goal) {
                    OCCUPIED
                } else {
                    0
                };
            }
        }
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
            .map(|order| (0..PIECES).map(|p| slides[p][order[p]]).sum())
            .min()
            .unwrap_or(0)
    }

    /// The position's value for the side to move, without search: the opponent's need
    /// less the mover's, in slides.
    pub fn evaluate(&self, field: &Field, position: &Position) -> i32 {
        let me = position.to_move;
        (self.need(field, position, 1 - me) - self.need(field, position, me)) * SLIDE
    }
}

/// Slides from `from` to every cell for a piece alone on the board (breadth-first).
fn alone_distances(field: &Field, from: Cell) -> [u8; CELLS] {
    let board = field.board();
    let mut dist = [FAR; CELLS];
    let mut queue = [0 as Cell; CELLS];
    let (mut head, mut tail) = (0, 1);
    queue[0] = from;
    dist[from as usize] = 0;
    while head < tail {
        let at = queue[head];
        head += 1;
        let d = dist[at as usize] + 1;
        if d >= FAR {
            continue;
        }
        for dir in Direction::ALL {
            let mut to = at;
            while let Some(next) = board.step_open(to, dir) {
                to = next;
            }
            if dist[to as usize] == FAR {
                dist[to as usize] = d;
                queue[tail] = to;
                tail += 1;
            }
        }
    }
    dist
}

/// A win score as the table keeps it: relative to the node, not the root.
fn to_table(score: i32, ply: i32) -> i32 {
    match score {
        s if s > WIN - WIN_ZONE => s + ply,
        s if s < -WIN + WIN_ZONE => s - ply,
        s => s,
    }
}

/// A table score as seen `ply` plies below the root.
fn from_table(score: i32, ply: i32) -> i32 {
    match score {
        s if s > WIN - WIN_ZONE => s - ply,
        s if s < -WIN + WIN_ZONE => s + ply,
        s => s,
    }
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

/// The searcher's state between moves: its distances, its table and its budget.
pub struct RrmSearch {
    /// Nodes per move; iterative deepening stops after the depth that passes it.
    pub nodes_per_move: u64,
    /// The deepest search.
    pub max_depth: u8,
    distances: GoalDistances,
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

impl RrmSearch {
    /// A searcher for positions of `field`.
    pub fn new(field: &Field, nodes_per_move: u64, max_depth: u8) -> RrmSearch {
        RrmSearch {
            nodes_per_move,
            max_depth,
            distances: GoalDistances::new(field),
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
            if score.abs() >= WIN - WIN_ZONE || self.nodes >= self.nodes_per_move {
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
            return self.distances.evaluate(field, position);
        }
        let key = position.key();
        let entry = self.table.get(&key).copied();
        if let Some(entry) = entry {
            if entry.depth >= depth && ply > 0 {
                let score = from_table(entry.score, ply);
                match entry.bound {
                    Bound::Exact => return score,
                    Bound::Lower if score >= beta => return score,
                    Bound::Upper if score <= alpha => return score,
                    _ => {}
                }
            }
        }
        // The table's move first, then winning moves, then the others by their
        // evaluation (a few table reads each).
        let table_move = entry.and_then(|e| e.best);
        let mut children: Vec<(i32, Step, Position)> = field
            .steps(position)
            .iter()
            .map(|&step| {
                let next = field.play(position, step);
                let rank = if table_move == Some(step) {
                    i32::MAX
                } else if matches!(field.outcome(&next), Some(Outcome::Win(_))) {
                    i32::MAX - 1
                } else {
                    -self.distances.evaluate(field, &next)
                };
                (rank, step, next)
            })
            .collect();
        children.sort_by_key(|&(rank, _, _)| std::cmp::Reverse(rank));
        let original_alpha = alpha;
        let mut best = (-WIN - 1, None);
        for (_, step, next) in children {
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
                score: to_table(best.0, ply),
                bound,
                best: best.1,
            },
        );
        best.0
    }
}
