//! Rule sets beyond today's rule, and the optimal search under them.
//!
//! Today's rule (every robot slides until it meets a wall or a robot, any move of any robot
//! counts, the target's robot must stop on it) is [`Rules::STANDARD`] and goes to the fast
//! [`Solver`]. A rule set that forbids moves goes to [`solve`] here: IDA* over states that
//! also remember what each robot's last move was, since the rules depend on it, with the
//! fast solver's lower bound taken under the rules (a robot that could stop anywhere, but
//! moves and finishes as they allow, needs no fewer moves), its transposition table and
//! its order of commuting moves (see `docs/rule-search.md` for why each holds).
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

use crate::board::{Cell, Direction, CELLS};
use crate::mirrors::Walks;
use crate::puzzle::{Colour, Move, Puzzle, MAX_ROBOTS};
use crate::solver::{commutes, stop_tables, Slide, StopTables};
use crate::solver::{lower_bounds, SearchStats, Solution, Solver, Unsolved, UNREACHABLE};
use crate::transposition::TransTable;
use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::time::Instant;

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
    let mut search = Restricted::new(puzzle, rules, progress);
    let start = State::start(puzzle.robots());
    let first = search.bound(&start);
    if first == UNREACHABLE {
        return Err(Unsolved::Unreachable);
    }
    for limit in first.max(1)..=max_moves.min(254) {
        search.path.clear();
        progress.bound.store(limit, Ordering::Relaxed);
        let solved = search.dfs(&start, limit, None);
        progress.states.store(search.states, Ordering::Relaxed);
        if solved {
            return Ok(Solution {
                moves: search.path,
                stats: SearchStats {
                    states: search.states,
                    elapsed: started.elapsed(),
                },
            });
        }
    }
    Err(Unsolved::TooLong(max_moves))
}

/// The line of a robot's last move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Line {
    None,
    NorthSouth,
    EastWest,
}

impl Line {
    /// Whether a move in `dir` after a last move on this line turns at a right angle.
    fn turns_to(self, dir: Direction) -> bool {
        self != Line::None && self != Line::of(dir)
    }

    fn of(dir: Direction) -> Line {
        match dir {
            Direction::North | Direction::South => Line::NorthSouth,
            Direction::East | Direction::West => Line::EastWest,
        }
    }
}

/// Robot cells, the lines of their last moves, and which robots have turned (one bit per
/// robot; kept only where the ricochet rule asks); entries past the puzzle's robots are
/// unused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct State {
    pub(crate) robots: [Cell; MAX_ROBOTS],
    pub(crate) lines: [Line; MAX_ROBOTS],
    pub(crate) turned: u8,
}

impl State {
    /// A position before any move.
    pub(crate) fn start(robots: &[Cell]) -> State {
        let mut state = State {
            robots: [0; MAX_ROBOTS],
            lines: [Line::None; MAX_ROBOTS],
            turned: 0,
        };
        state.robots[..robots.len()].copy_from_slice(robots);
        state
    }
}

/// What one move does under the rules.
pub(crate) enum Play {
    /// Not a move: the robot does not move, rebounds where that is forbidden, or stops on
    /// the target too early.
    NoMove,
    /// The move finishes the puzzle.
    Finishes,
    Continues(State),
}

/// Plays moves under a rule set on a puzzle's board and target, with the ricochet duties
/// of the position the play started from.
pub(crate) struct Mover<'p> {
    puzzle: &'p Puzzle,
    rules: Rules,
    count: usize,
    /// The finishing robot must have turned.
    must_turn: bool,
    /// A robot that may finish must not stop on the target before the last move.
    no_early_stop: bool,
    /// On a board with mirrors, the robots (bits) that are interchangeable: those of the
    /// key's sorted range whose colour no mirror has, so every mirror turns them alike.
    alike_at_mirrors: u8,
    /// The board's walks, on a board with mirrors.
    walks: Option<Walks>,
    /// Where the key with every part in full would be too wide for the table, the sorted
    /// robots' parts (a cell and a line each) taken as one set and ranked: `C(value, k)`
    /// by value (`cell * 3 + line`) and k from 1, and the rank's bits.
    ranked: Option<(Vec<[u64; MAX_ROBOTS + 1]>, u32)>,
}

impl<'p> Mover<'p> {
    /// The mover of plays starting from `puzzle`'s position.
    pub(crate) fn new(puzzle: &'p Puzzle, rules: Rules) -> Mover<'p> {
        let (must_turn, no_early_stop) = ricochet_duties(puzzle, rules);
        let board = puzzle.board();
        let mirrored =
            |colour| (board.cells()).any(|c| board.mirror(c).is_some_and(|m| m.colour == colour));
        let alike_at_mirrors = (0..puzzle.robots().len())
            .filter(|&robot| puzzle.target().colour.is_none_or(|c| c.robot() != robot))
            .filter(|&robot| !mirrored(Colour::ALL[robot]))
            .fold(0, |bits, robot| bits | 1 << robot);
        let mut mover = Mover {
            puzzle,
            rules,
            count: puzzle.robots().len(),
            must_turn,
            no_early_stop,
            alike_at_mirrors,
            walks: board.has_mirrors().then(|| Walks::new(board)),
            ranked: None,
        };
        mover.ranked = mover.set_ranking();
        mover
    }

    /// The ranking of [`Mover::ranked`], where it makes a key narrow enough for the table
    /// (five robots without rebounds: 50 bits in full, 44 ranked).
    fn set_ranking(&self) -> Option<(Vec<[u64; MAX_ROBOTS + 1]>, u32)> {
        let sorted = self.sorted_range();
        let plain_bits: u32 = (0..self.count).map(|robot| self.part_bits(robot)).sum();
        let cell_and_line = sorted
            .clone()
            .all(|robot| self.key_fields(robot) == (true, false));
        if plain_bits <= TABLE_KEY_BITS || self.puzzle.board().has_mirrors() || !cell_and_line {
            return None;
        }
        let values = CELLS * 3;
        let mut binomials = vec![[0u64; MAX_ROBOTS + 1]; values + 1];
        for n in 0..=values {
            binomials[n][0] = 1;
            for k in 1..=MAX_ROBOTS {
                binomials[n][k] = if n == 0 {
                    0
                } else {
                    binomials[n - 1][k - 1] + binomials[n - 1][k]
                };
            }
        }
        let sets = binomials[values][sorted.len()];
        let rank_bits = u64::BITS - (sets - 1).leading_zeros();
        let others: u32 = (0..self.count)
            .filter(|robot| !sorted.contains(robot))
            .map(|robot| self.part_bits(robot))
            .sum();
        (rank_bits + others <= TABLE_KEY_BITS).then_some((binomials, rank_bits))
    }

    /// The key's slots whose parts are sorted (after the target's robot is swapped into
    /// slot 0 for a coloured target), on a board without mirrors.
    fn sorted_range(&self) -> std::ops::Range<usize> {
        match self.puzzle.target().colour {
            Some(_) => 1..self.count,
            None => 0..self.count,
        }
    }

    /// The duties this mover plays by, as two bits (part of a state's identity where
    /// plays from different starts meet).
    pub(crate) fn duties(&self) -> u8 {
        u8::from(self.must_turn) | u8::from(self.no_early_stop) << 1
    }

    pub(crate) fn play(&self, state: &State, step: Move) -> Play {
        let robot = usize::from(step.robot);
        if !self.rules.rebounds && state.lines[robot] == Line::of(step.dir) {
            return Play::NoMove;
        }
        let to = self.slide(&state.robots[..self.count], step);
        if to == state.robots[robot] {
            return Play::NoMove;
        }
        let mut next = *state;
        next.robots[robot] = to;
        next.lines[robot] = Line::of(step.dir);
        let may_finish = self.puzzle.may_finish(robot);
        if self.must_turn && may_finish && state.lines[robot].turns_to(step.dir) {
            next.turned |= 1 << robot;
        }
        let on_target = to == self.puzzle.target().cell && may_finish;
        if on_target && (!self.must_turn || next.turned >> robot & 1 == 1) {
            Play::Finishes
        } else if on_target && self.no_early_stop {
            Play::NoMove
        } else {
            Play::Continues(next)
        }
    }

    /// Where a move ends ([`Puzzle::slide`]).
    #[inline]
    fn slide(&self, robots: &[Cell], step: Move) -> Cell {
        match &self.walks {
            Some(walks) => walks.slide(robots, usize::from(step.robot), step.dir),
            None => self.puzzle.slide(robots, step),
        }
    }

    /// Whether a robot's key holds its last line (2 bits) and whether it turned (1 bit):
    /// the line where a later move may depend on it (without rebounds, or for a robot
    /// that must turn before it finishes), the turn where the ricochet rule asks for one.
    fn key_fields(&self, robot: usize) -> (bool, bool) {
        let turns = self.must_turn && self.puzzle.may_finish(robot);
        (!self.rules.rebounds || turns, turns)
    }

    /// Bits of robot `robot`'s part of a key: its cell, then the fields it keeps.
    fn part_bits(&self, robot: usize) -> u32 {
        let (line, turn) = self.key_fields(robot);
        8 + 2 * u32::from(line) + u32::from(turn)
    }

    /// Bits of a key: 40 for five robots under today's rule, 44 without rebounds (the
    /// helpers ranked as a set, [`Mover::ranked`]).
    pub(crate) fn key_bits(&self) -> u32 {
        let sorted = self.sorted_range();
        match &self.ranked {
            Some((_, rank_bits)) => (0..self.count)
                .filter(|robot| !sorted.contains(robot))
                .map(|robot| self.part_bits(robot))
                .fold(*rank_bits, |bits, part| bits + part),
            None => (0..self.count).map(|robot| self.part_bits(robot)).sum(),
        }
    }

    /// The state's table key: robots that cannot finish are interchangeable (all of them
    /// for the vortex), so theirs are sorted; on a board with mirrors, only those whose
    /// colour no mirror has ([`Mover::alike_at_mirrors`]). A robot's
    /// part holds its cell and the fields of [`Mover::key_fields`]; a robot that has
    /// turned keeps no line where it needed one only to turn. States that differ in the
    /// lines left out have the same moves ahead.
    pub(crate) fn key(&self, state: &State) -> u64 {
        let mut parts = [0u64; MAX_ROBOTS];
        let mut widths = [0u32; MAX_ROBOTS];
        for (robot, part) in parts.iter_mut().enumerate().take(self.count) {
            let (keeps_line, keeps_turn) = self.key_fields(robot);
            let turned = state.turned >> robot & 1 == 1;
            let line = if !self.rules.rebounds || (keeps_turn && !turned) {
                state.lines[robot] as u64
            } else {
                0
            };
            *part = u64::from(state.robots[robot]);
            if keeps_line {
                *part = *part << 2 | line;
            }
            if keeps_turn {
                *part = *part << 1 | u64::from(turned);
            }
            widths[robot] = self.part_bits(robot);
        }
        let mirrors = self.puzzle.board().has_mirrors();
        if mirrors {
            // Sorted in their own slots.
            let slots = (0..self.count).filter(|&robot| self.alike_at_mirrors >> robot & 1 == 1);
            let mut alike = [0u64; MAX_ROBOTS];
            let mut n = 0;
            for robot in slots.clone() {
                alike[n] = parts[robot];
                n += 1;
            }
            alike[..n].sort_unstable();
            for (robot, &part) in slots.zip(&alike) {
                parts[robot] = part;
            }
        }
        if let Some(colour) = self.puzzle.target().colour {
            parts.swap(0, colour.robot());
            widths.swap(0, colour.robot());
        }
        let interchangeable = self.sorted_range();
        if !mirrors {
            parts[interchangeable.clone()].sort_unstable();
        }
        if let Some((binomials, rank_bits)) = &self.ranked {
            // Distinct cells make distinct values, ascending as the parts are.
            let rank = (parts[interchangeable.clone()].iter().enumerate())
                .map(|(k, &part)| binomials[((part >> 2) * 3 + (part & 3)) as usize][k + 1])
                .sum::<u64>();
            return (parts[..interchangeable.start].iter())
                .zip(&widths)
                .fold(0, |key, (&part, &width)| key << width | part)
                << rank_bits
                | rank;
        }
        // Interchangeable robots keep the same fields, so sorting leaves the widths.
        (parts[..self.count].iter())
            .zip(&widths)
            .fold(0, |key, (&part, &width)| key << width | part)
    }
}

/// The most memory the table grows to (past it, a bucket's shallowest entry makes room:
/// a lost entry only means a state is searched again).
const TABLE_BYTES: usize = 256 << 20;

/// A hasher for keys that are already well-mixed integers once multiplied.
#[derive(Default)]
pub(crate) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.write_u64(self.0 << 8 | u64::from(byte));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// The depth each state was searched with: the fast solver's table where the keys are
/// narrow enough for it (four robots; five where only the finisher keeps a line, or
/// without rebounds with the helpers ranked as a set), else a hash map (five robots
/// without rebounds on a mirror board, or under the ricochet rule too: the table would
/// start at a gigabyte). A state
/// is marked on entry: met again with no more moves left while it is being searched, it
/// has nothing new to offer.
enum Searched {
    Table(TransTable),
    Map(HashMap<u64, u8, BuildHasherDefault<KeyHasher>>),
}

/// The widest key the fast solver's table takes here (it starts at 2^(bits − 20) bytes).
const TABLE_KEY_BITS: u32 = 44;

impl Searched {
    fn new(key_bits: u32) -> Searched {
        if key_bits <= TABLE_KEY_BITS {
            let mut table = TransTable::new(TABLE_BYTES);
            table.reset(key_bits);
            Searched::Table(table)
        } else {
            Searched::Map(HashMap::default())
        }
    }

    /// Asks for `key`'s table slot ahead of its visit.
    fn prefetch(&self, key: u64) {
        if let Searched::Table(table) = self {
            table.prefetch(table.hash(key));
        }
    }

    /// Notes that `key` is searched with `left` moves; false when it already was with as
    /// many (so the search skips it).
    fn visit(&mut self, key: u64, left: u8) -> bool {
        match self {
            Searched::Table(table) => table.visit(table.hash(key), left),
            Searched::Map(map) => {
                if map.get(&key).is_some_and(|&done| done >= left) {
                    return false;
                }
                if map.len() >= MAP_LIMIT {
                    map.clear();
                } else if map.len() == MAP_GROWN {
                    // Straight to its last size: growing by doubling would hold the old
                    // buckets beside the new ones, half as much again at the last step.
                    map.reserve(MAP_LIMIT - MAP_GROWN);
                }
                map.insert(key, left);
                true
            }
        }
    }
}

/// Most states the map keeps before it starts afresh: its buckets take about 290 MB.
const MAP_LIMIT: usize = 1 << 23;

/// The states a map holds before it takes its last size at once (a small search never
/// takes it).
const MAP_GROWN: usize = 1 << 16;

struct Restricted<'p> {
    puzzle: &'p Puzzle,
    progress: &'p SearchProgress,
    mover: Mover<'p>,
    count: usize,
    /// Where a robot slides with no other robot about, to tell commuting moves apart;
    /// none on a board with mirrors, whose slides bend ([`Restricted::commutes_bent`]).
    stops: Option<StopTables>,
    /// Moves a finishing robot needs at least, by robot (its colour, on a board with
    /// mirrors), whether it turned, the line of its last move and its cell.
    lower_bound: Vec<[[[u8; CELLS]; 3]; 2]>,
    /// Today's rule: rebounds allowed and no turn asked (one bound table per robot).
    plain_rule: bool,
    /// The most moves each state was searched with, or is being searched with.
    searched: Searched,
    path: Vec<Move>,
    states: u64,
}

impl<'p> Restricted<'p> {
    fn new(puzzle: &'p Puzzle, rules: Rules, progress: &'p SearchProgress) -> Restricted<'p> {
        let mover = Mover::new(puzzle, rules);
        Restricted {
            puzzle,
            progress,
            count: puzzle.robots().len(),
            stops: (!puzzle.board().has_mirrors()).then(|| stop_tables(puzzle.board())),
            lower_bound: relaxed_bounds(puzzle, rules, mover.must_turn),
            plain_rule: rules.rebounds && !mover.must_turn && !mover.no_early_stop,
            searched: Searched::new(mover.key_bits()),
            mover,
            path: Vec::new(),
            states: 0,
        }
    }

    /// Whether, under today's rule with a coloured target, the target's robot cannot
    /// finish in `bound` moves of its own (its bound one lower at each), the others where
    /// they are: then some other robot must move too, and the state needs `bound + 1`.
    fn stuck_alone(&self, state: &State, bound: u8) -> bool {
        let Some(colour) = self.puzzle.target().colour else {
            return false;
        };
        if !self.plain_rule {
            return false;
        }
        let robot = colour.robot();
        !self.descends(&state.robots, robot, bound)
    }

    /// Whether robot `robot` at bound `bound` reaches the target by moves that each lower
    /// its bound by one, no other robot moving.
    fn descends(&self, robots: &[Cell; MAX_ROBOTS], robot: usize, bound: u8) -> bool {
        if bound == 0 {
            return true;
        }
        let table = &self.lower_bound[robot][0][0];
        Direction::ALL.into_iter().any(|dir| {
            let step = Move {
                robot: robot as u8,
                dir,
            };
            let to = self.mover.slide(&robots[..self.count], step);
            if to == robots[robot] || table[to as usize] != bound - 1 {
                return false;
            }
            if to == self.puzzle.target().cell {
                return true;
            }
            let mut next = *robots;
            next[robot] = to;
            self.descends(&next, robot, bound - 1)
        })
    }

    /// Moves at least still needed: the fewest of any robot allowed to finish.
    fn bound(&self, state: &State) -> u8 {
        (0..self.count)
            .filter(|&robot| self.puzzle.may_finish(robot))
            .map(|robot| {
                let turned = usize::from(state.turned >> robot & 1);
                let bounds = &self.lower_bound[robot][turned];
                bounds[state.lines[robot] as usize][state.robots[robot] as usize]
            })
            .min()
            .unwrap_or(UNREACHABLE)
    }

    /// Whether a solution of at most `left` more moves exists from `state` (pushed onto
    /// `path` if so); `last` is the move that led there (its robot and slide).
    ///
    /// Two moves in a row of different robots that commute (neither's start or end cell
    /// on the other's slide or stopping it) are searched in one order only, the lower
    /// robot first, as the fast solver does. The rules keep this sound: whether a move is
    /// allowed depends only on its own robot's last move and turn (no rebound, the turn
    /// the ricochet rule asks for), which the other robot's move leaves as they were, and
    /// both orders end with the same cells.
    fn dfs(&mut self, state: &State, left: u8, last: Option<(usize, Slide)>) -> bool {
        self.states += 1;
        if self.states.is_multiple_of(PROGRESS_EVERY) {
            self.progress.states.store(self.states, Ordering::Relaxed);
        }
        let bound = self.bound(state);
        if left == 0 || bound > left {
            return false;
        }
        if !self.searched.visit(self.mover.key(state), left) {
            return false;
        }
        // With no move to spare, every move must bring the target's robot one closer:
        // no other robot's move changes its bound.
        let movers = match self.puzzle.target().colour {
            Some(colour) if bound == left => colour.robot()..colour.robot() + 1,
            _ => 0..self.count,
        };
        // The children first, with their table slots prefetched (a slot is a miss in a
        // table far bigger than the cache), then searched in order.
        let unused = (
            Move {
                robot: 0,
                dir: Direction::North,
            },
            *state,
            Slide {
                from: 0,
                to: 0,
                dir: 0,
            },
        );
        let mut children = [unused; 4 * MAX_ROBOTS];
        let mut count = 0;
        for robot in movers {
            for dir in Direction::ALL {
                let step = Move {
                    robot: robot as u8,
                    dir,
                };
                match self.mover.play(state, step) {
                    Play::NoMove => {}
                    Play::Finishes => {
                        self.path.push(step);
                        return true;
                    }
                    Play::Continues(next) => {
                        let slide = Slide {
                            from: state.robots[robot],
                            to: next.robots[robot],
                            dir: dir as usize,
                        };
                        if let Some((before, previous)) = last {
                            let commuting = match &self.stops {
                                Some(stops) => commutes(stops, previous, slide),
                                None => self.commutes_bent(state, (before, previous), robot, slide),
                            };
                            if robot < before && commuting {
                                continue;
                            }
                        }
                        let bound = self.bound(&next);
                        let tight = bound + 1 == left;
                        if left > 1 && bound < left && !(tight && self.stuck_alone(&next, bound)) {
                            self.searched.prefetch(self.mover.key(&next));
                            children[count] = (step, next, slide);
                            count += 1;
                        }
                    }
                }
            }
        }
        for &(step, next, slide) in &children[..count] {
            self.path.push(step);
            if self.dfs(&next, left - 1, Some((usize::from(step.robot), slide))) {
                return true;
            }
            self.path.pop();
        }
        false
    }
}

impl Restricted<'_> {
    /// Whether the last move (robot `before`'s `previous` slide, which led to `state`) and
    /// robot `robot`'s `slide` from `state` reach the same state played the other way
    /// round, on a board with mirrors: the other order is played out, since a bent slide
    /// meets the other robot's cells off its row and column. Whether a move is allowed
    /// depends on its own robot alone, so equal cells mean equal plays.
    fn commutes_bent(
        &self,
        state: &State,
        (before, previous): (usize, Slide),
        robot: usize,
        slide: Slide,
    ) -> bool {
        let mut robots = state.robots;
        robots[before] = previous.from;
        let step = |robot: usize, dir: usize| Move {
            robot: robot as u8,
            dir: Direction::ALL[dir],
        };
        if self
            .mover
            .slide(&robots[..self.count], step(robot, slide.dir))
            != slide.to
        {
            return false;
        }
        robots[robot] = slide.to;
        self.mover
            .slide(&robots[..self.count], step(before, previous.dir))
            == previous.to
    }
}

/// The admissible bound of a robot that may finish, by whether it has turned, the line
/// of its last move and its cell: the moves it needs if it could stop anywhere on a
/// straight wall-free line, under the same rules. Without rebounds a move may not follow
/// the robot's last line, and where the ricochet rule asks for a turn the robot finishes
/// only once it has turned (a robot that has not yet turned needs at least two moves).
/// A fixed point over (turned, line, cell), 1,536 entries; where neither rule applies, the
/// fast solver's table for every entry. The same for every robot, but on a board with
/// mirrors: there each robot's colour's walks ([`crate::mirrors::relaxed_bounds`]) for
/// every entry.
fn relaxed_bounds(puzzle: &Puzzle, rules: Rules, must_turn: bool) -> Vec<[[[u8; CELLS]; 3]; 2]> {
    let robots = puzzle.robots().len();
    if puzzle.board().has_mirrors() {
        let (board, target) = (puzzle.board(), puzzle.target().cell);
        return (Colour::ALL[..robots].iter())
            .map(|&colour| [[crate::mirrors::relaxed_bounds(board, target, colour); 3]; 2])
            .collect();
    }
    vec![straight_bounds(puzzle, rules, must_turn); robots]
}

/// [`relaxed_bounds`] on a board without mirrors.
fn straight_bounds(puzzle: &Puzzle, rules: Rules, must_turn: bool) -> [[[u8; CELLS]; 3]; 2] {
    let plain = lower_bounds(puzzle.board(), puzzle.target().cell);
    if rules.rebounds && !must_turn {
        return [[plain; 3]; 2];
    }
    let board = puzzle.board();
    let target = puzzle.target().cell;
    let lines = [Line::None, Line::NorthSouth, Line::EastWest];
    let mut bounds = [[[UNREACHABLE; CELLS]; 3]; 2];
    let mut changed = true;
    while changed {
        changed = false;
        for cell in board.cells() {
            for turned in [false, true] {
                for line in lines {
                    let mut best = bounds[usize::from(turned)][line as usize][cell as usize];
                    let allowed = |dir: Direction| rules.rebounds || Line::of(dir) != line;
                    for dir in Direction::ALL.into_iter().filter(|&dir| allowed(dir)) {
                        let turned_now = turned || line.turns_to(dir);
                        let after = &bounds[usize::from(turned_now)][Line::of(dir) as usize];
                        let mut at = cell;
                        while let Some(next) = board.step_open(at, dir) {
                            at = next;
                            let finishes = at == target && (turned_now || !must_turn);
                            let moves = if finishes { 0 } else { after[at as usize] };
                            best = best.min(moves.saturating_add(1));
                        }
                    }
                    let entry = &mut bounds[usize::from(turned)][line as usize][cell as usize];
                    if best < *entry {
                        *entry = best;
                        changed = true;
                    }
                }
            }
        }
    }
    bounds
}

/// What the ricochet rule asks of `puzzle`: whether the finishing robot must have turned,
/// and whether a robot that may finish must not stop on the target before the last move.
fn ricochet_duties(puzzle: &Puzzle, rules: Rules) -> (bool, bool) {
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
        match mover.play(&state, step) {
            Play::NoMove => return false,
            Play::Finishes => return index + 1 == moves.len(),
            Play::Continues(next) => state = next,
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
