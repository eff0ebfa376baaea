//! Rule sets beyond today's rule, and the optimal search under them.
//!
//! Today's rule (every robot slides until it meets a wall or a robot, any move of any robot
//! counts, the target's robot must stop on it) is [`Rules::STANDARD`] and goes to the fast
//! [`Solver`]. A rule set that forbids moves goes to [`solve`] here: IDA* over states that
//! also remember what each robot's last move was, since the rules depend on it, with the
//! fast solver's lower bound taken under the rules (a robot that could stop anywhere, but
//! moves and finishes as they allow, needs no fewer moves), its transposition table and
//! its order of commuting moves. On a board without mirrors it starts at today's optimum,
//! found by the fast solver (every solution under the rules is one of today's rule), and
//! borrows today's raised bound and helper tests; without rebounds it also counts the
//! helper moves the finisher's stops need (see `docs/rule-search.md` for why each holds).
//!
//! DriftingDroids forbids rebounds as its solver does: a robot may not move along the line
//! of its own previous move, neither back the way it came nor on in the same direction,
//! whatever the other robots did in between.
//!
//! The ricochet rule asks the robot that finishes to have turned at a right angle at least
//! once: two of its own consecutive moves on different lines. The rulebook asks it of every
//! solution ([`Ricochet::Official`]). DriftingDroids asks it only of a position whose
//! target its robot could reach in one straight move (or stands on), judged by the walls
//! and by whether a robot stands just past the target, and then also forbids that robot to
//! stop on the target before the last move ([`Ricochet::DriftingDroids`]).
//!
//! A minimum number of moves is a house rule about deals, not moves: a position that needs
//! fewer moves is refused ([`Verdict::Refused`]), as players put such a target back.
//!
//! The code is split along its seams: `rule_set` holds the [`Rules`] type, how it is read
//! and written and what its ricochet rule asks of a position; `mover` how one move is
//! played under the rules and how a state is keyed; `searched` the table of states
//! searched; `restricted` the IDA* search itself, with its bounds and its order of
//! commuting moves. The entry points ([`solve`], [`solve_on_thread`], [`solve_watched`],
//! [`judge`], [`obeys`]) are here.

use crate::puzzle::{Move, Puzzle};
use crate::solver::{SearchStats, Solution, Solver, Unsolved, UNREACHABLE};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::time::Instant;

mod bounds;
mod mover;
mod restricted;
mod rule_set;
mod searched;

pub(crate) use mover::{Mover, Play, State};
use restricted::Restricted;
use rule_set::ricochet_duties;
pub use rule_set::{reachable_at_once, Ricochet, Rules, RulesError};
pub(crate) use searched::KeyHasher;

/// A position judged under a rule set.
#[derive(Clone, Debug)]
pub enum Verdict {
    /// Played: its proven optimal solution.
    Solved(Solution),
    /// Refused by the minimum number of moves: it needs only this many.
    Refused(Solution),
}

/// Judges `puzzle` under `rules`: solved with at most `max_moves`, or refused for
/// needing fewer than `rules.min_moves`.
pub fn judge(puzzle: &Puzzle, rules: Rules, max_moves: u8) -> Result<Verdict, Unsolved> {
    let solution = solve(puzzle, rules, max_moves)?;
    Ok(if rules.refuses(solution.moves.len()) {
        Verdict::Refused(solution)
    } else {
        Verdict::Solved(solution)
    })
}

/// [`solve`], with this thread's reusable solver where the rules leave the moves free.
pub fn solve_on_thread(puzzle: &Puzzle, rules: Rules, max_moves: u8) -> Result<Solution, Unsolved> {
    if fast_solver_plays(puzzle, rules) {
        crate::solver::with_thread_solver(max_moves, |solver| solver.solve(puzzle))
    } else {
        solve(puzzle, rules, max_moves)
    }
}

/// Whether the fast solver plays `puzzle` under `rules`: it knows neither mirrors nor
/// restricted moves, and DriftingDroids' ricochet rule restricts none where the target
/// is not reachable at once (most positions).
pub fn fast_solver_plays(puzzle: &Puzzle, rules: Rules) -> bool {
    let frees_moves = rules.rebounds && ricochet_duties(puzzle, rules) == (false, false);
    frees_moves && !puzzle.board().has_mirrors()
}

/// How far a search under move rules has got, for a progress display on another thread:
/// the bound being searched and the states searched so far (updated every
/// [`PROGRESS_EVERY`] states and at each bound).
#[derive(Debug, Default)]
pub struct SearchProgress {
    pub bound: AtomicU8,
    pub states: AtomicU64,
}

/// States searched between two updates of a [`SearchProgress`].
pub const PROGRESS_EVERY: u64 = 1 << 16;

/// Finds a proven optimal solution of `puzzle` under the move rules of `rules` (their
/// minimum is [`judge`]'s) of at most `max_moves`.
pub fn solve(puzzle: &Puzzle, rules: Rules, max_moves: u8) -> Result<Solution, Unsolved> {
    solve_watched(puzzle, rules, max_moves, &SearchProgress::default())
}

/// [`solve`], reporting its bound and states to `progress` as it goes (the fast solver,
/// for rules that restrict no move, reports only its end).
pub fn solve_watched(
    puzzle: &Puzzle,
    rules: Rules,
    max_moves: u8,
    progress: &SearchProgress,
) -> Result<Solution, Unsolved> {
    if fast_solver_plays(puzzle, rules) {
        return Solver::with_limits(max_moves, crate::solver::DEFAULT_TABLE_BYTES).solve(puzzle);
    }
    let started = Instant::now();
    // Every solution under the rules is one of today's rule (the rules only forbid moves
    // or ask more of the finish), so today's optimum, found fast, is where the search
    // starts, and where today's solution obeys the rules it is their optimum too. Not on
    // a board with mirrors, which the fast solver does not know.
    let mut floor = 1;
    let mut states = 0;
    let mut tables = None;
    if !puzzle.board().has_mirrors() {
        let today = crate::solver::with_thread_solver(max_moves, |solver| {
            let today = solver.solve(puzzle);
            tables = solver.lend_tables();
            today
        })?;
        if obeys(puzzle, &today.moves, rules) {
            give_back(tables);
            progress
                .bound
                .store(today.moves.len() as u8, Ordering::Relaxed);
            progress.states.store(today.stats.states, Ordering::Relaxed);
            return Ok(today);
        }
        floor = today.moves.len() as u8;
        states = today.stats.states;
    }
    let mut search = Restricted::new(puzzle, rules, progress, tables);
    let solved = search_from(&mut search, puzzle, (floor, max_moves), progress, states);
    give_back(search.take_tables());
    let (moves, searched) = solved?;
    Ok(Solution {
        moves,
        stats: SearchStats {
            states: states + searched,
            elapsed: started.elapsed(),
        },
    })
}

/// Returns the fast solver's tables to this thread's solver, for the next puzzle.
fn give_back(tables: Option<crate::solver::Tables>) {
    if let Some(tables) = tables {
        let max_moves = crate::solver::DEFAULT_MAX_MOVES;
        crate::solver::with_thread_solver(max_moves, |solver| solver.keep_tables(tables));
    }
}

/// Raises the bound of `search` from the larger of its start's bound and `floor` until a
/// solution: its moves and the states searched. `progress` counts `before` states more.
fn search_from(
    search: &mut Restricted<'_>,
    puzzle: &Puzzle,
    (floor, max_moves): (u8, u8),
    progress: &SearchProgress,
    before: u64,
) -> Result<(Vec<Move>, u64), Unsolved> {
    let start = State::start(puzzle.robots());
    let first = search.bound(&start);
    if first == UNREACHABLE {
        return Err(Unsolved::Unreachable);
    }
    for limit in first.max(floor)..=max_moves.min(254) {
        search.path.clear();
        search.prepare_for(limit);
        progress.bound.store(limit, Ordering::Relaxed);
        let solved = search.dfs(&start, first, limit, None);
        progress
            .states
            .store(before + search.states, Ordering::Relaxed);
        if solved {
            return Ok((std::mem::take(&mut search.path), search.states));
        }
    }
    Err(Unsolved::TooLong(max_moves))
}

/// Whether `moves` obey the move rules of `rules` on `puzzle`, replayed through the
/// search's own `Mover`: every step moves its robot as the rules allow, and only the last
/// may finish (whether it reaches the target is the solution replay's to check).
pub fn obeys(puzzle: &Puzzle, moves: &[Move], rules: Rules) -> bool {
    let mover = Mover::new(puzzle, rules);
    let mut state = State::start(puzzle.robots());
    for (index, &step) in moves.iter().enumerate() {
        if usize::from(step.robot) >= puzzle.robots().len() {
            return false;
        }
        let mut next = state;
        match mover.play(&state, step, &mut next) {
            Play::NoMove => return false,
            Play::Finishes => return index + 1 == moves.len(),
            Play::Continues => state = next,
        }
    }
    // A last move onto the target that does not finish (the finishing robot has not
    // turned) breaks the rules; one that stops elsewhere is for the replay to refuse.
    moves.last().is_none_or(|step| {
        let robot = usize::from(step.robot);
        state.robots[robot] != puzzle.target().cell || !puzzle.may_finish(robot)
    })
}

#[cfg(test)]
pub(crate) mod tests;
