//! The optimal search under rules that restrict moves: IDA* over [`State`]s with the
//! admissible bound taken under the rules ([`relaxed_bounds`]), the table of states
//! searched, commuting moves searched in one order only, and on a board without mirrors
//! the fast solver's raised bound and helper tests, read with today's bound, and without
//! rebounds the cells the finisher's stops need a helper moved onto (`blockers`); on a
//! board with mirrors, K. Cox's +1, a node with one move to spare searched over the
//! finisher's cells alone (`one_spare`), and the raised bound and helper tests of the
//! finisher's routes over its colour's walks (`crate::mirrors::Routes`). Apart from the
//! entry points, which only set it up and raise its bound (`super::solve_watched`).

mod blockers;
mod one_spare;

use super::bounds::relaxed_bounds;
use super::mover::{Mover, Play, State};
use super::rule_set::Rules;
use super::searched::Searched;
use super::{SearchProgress, PROGRESS_EVERY};
use crate::board::{Cell, Direction, CELLS};
use crate::mirrors::{Routes, Walks};
use crate::puzzle::{Move, Puzzle, MAX_ROBOTS};
use crate::solver::{
    commutes, contains, CellSet, HelperTest, Reach, Regions, Slide, Tables, UNREACHABLE,
};
use blockers::BlockerBound;
use std::cell::RefCell;
use std::mem::MaybeUninit;
use std::sync::atomic::Ordering;

pub(super) struct Restricted<'p> {
    puzzle: &'p Puzzle,
    progress: &'p SearchProgress,
    mover: Mover<'p>,
    count: usize,
    /// Moves a finishing robot needs at least, by robot (its colour, on a board with
    /// mirrors), whether it turned, the line of its last move and its cell.
    lower_bound: Vec<[[[u8; CELLS]; 3]; 2]>,
    /// Today's rule: rebounds allowed and no turn asked (one bound table per robot).
    plain_rule: bool,
    /// The most moves each state was searched with, or is being searched with.
    searched: Searched,
    /// For a coloured target on a board without mirrors, the fast solver's tables: every
    /// solution under the rules is a solution of today's rule, so what those prove of
    /// today's rule (raised bounds, which helper moves can matter) holds under the rules.
    standard: Option<Box<Tables>>,
    /// For a coloured target on a board with mirrors, where the other robots matter to
    /// the finisher's routes: the same test of helper moves, at one or two moves of slack
    /// (once the search is long enough to repay them).
    routes: Option<Routes>,
    /// Without rebounds (and no ricochet rule), for a coloured target on a board without
    /// mirrors: the blocker bound (`blockers`), set up once the search is long enough to
    /// repay it; in a cell, since a state's children are tested while its helper test
    /// holds the search.
    blockers_apply: bool,
    blockers: RefCell<Option<BlockerBound>>,
    pub(super) path: Vec<Move>,
    pub(super) states: u64,
}

impl<'p> Restricted<'p> {
    pub(super) fn new(
        puzzle: &'p Puzzle,
        rules: Rules,
        progress: &'p SearchProgress,
        kept: Option<Tables>,
    ) -> Restricted<'p> {
        let mover = Mover::new(puzzle, rules);
        // A coloured target on a board without mirrors: what today's rule and the
        // blockers prove of straight slides holds for its finisher.
        let straight_finisher = puzzle.target().colour.is_some() && !puzzle.board().has_mirrors();
        let no_ricochet = !mover.must_turn && !mover.no_early_stop;
        Restricted {
            puzzle,
            progress,
            count: puzzle.robots().len(),
            lower_bound: relaxed_bounds(puzzle, rules, &mover),
            routes: None,
            blockers_apply: !rules.rebounds && no_ricochet && straight_finisher,
            blockers: RefCell::new(None),
            plain_rule: rules.rebounds && no_ricochet,
            searched: Searched::new(mover.key_bits()),
            standard: straight_finisher.then(|| {
                Box::new(Tables::for_puzzle(
                    kept,
                    puzzle.board(),
                    puzzle.target().cell,
                ))
            }),
            mover,
            path: Vec::new(),
            states: 0,
        }
    }

    /// The fast solver's tables, for the next puzzle's (taken: the search has ended).
    pub(super) fn take_tables(&mut self) -> Option<Tables> {
        self.standard.take().map(|tables| *tables)
    }

    /// Computes what the search to `limit` moves repays.
    pub(super) fn prepare_for(&mut self, limit: u8) {
        if let Some(tables) = &mut self.standard {
            tables.prepare_for(limit, false);
        }
        let colour = self.puzzle.target().colour;
        if let (None, Some(walks), Some(colour)) = (&self.routes, self.mover.walks(), colour) {
            if self.states >= routes_after_states() {
                let robot = colour.robot();
                self.routes = Some(walks.routes(&self.lower_bound[robot][0][0], robot));
            }
        }
    }

    /// Whether, under today's rule with a coloured target, the target's robot cannot
    /// finish in `bound` moves of its own (its bound one lower at each), the others where
    /// they are: then some other robot must move too, and the state needs `bound + 1`.
    ///
    /// `child` is `parent` after one move; a helper's (`helper_move`, from and to) leaves
    /// the finisher's bound as it was, and on a board with mirrors the parent's own
    /// descent, worked out once in `memo`, answers for every child whose helper left a
    /// cell no slide of that descent passes and reached none of its [`Seen::blockers`].
    /// Such a helper changes only the slides whose walks pass its new cell, each of which
    /// now stops no further than the cell before it. Where a changed slide stops on a cell
    /// whose bound is one lower than its start's, the new cell is a blocker; elsewhere the
    /// slide no longer lowers the bound, and its branch ends. So a descent that failed
    /// fails again; one that succeeded rules nothing out.
    fn stuck_alone(
        &self,
        (parent, child): (&State, &State),
        bound: u8,
        helper_move: Option<(Cell, Cell)>,
        memo: &mut Option<(bool, Seen)>,
    ) -> bool {
        let Some(colour) = self.puzzle.target().colour else {
            return false;
        };
        if !self.plain_rule {
            return false;
        }
        let robot = colour.robot();
        if let (Some((from, to)), Some(_)) = (helper_move, self.mover.walks()) {
            let (descends, Seen { passed, blockers }) =
                *memo.get_or_insert_with(|| self.descent(parent, robot, bound));
            if !contains(&passed, from) && !contains(&blockers, to) {
                return !descends;
            }
        }
        !self.descends(&child.robots, robot, bound, None)
    }

    /// The finisher, where a node of bound `bound` with `left` moves left is searched by
    /// [`Restricted::one_spare`]: one move to spare, a coloured target under today's rule
    /// on a board with mirrors, before the finisher's routes are worked out (which test
    /// the helpers at less cost).
    fn one_spare_finisher(&self, bound: u8, left: u8) -> Option<usize> {
        let colour = self.puzzle.target().colour?;
        let applies = left == bound + 1
            && bound > 0
            && self.plain_rule
            && self.mover.walks().is_some()
            && self.routes.is_none();
        applies.then(|| colour.robot())
    }

    /// Whether the target's robot `robot` at bound `bound` in `state` reaches the target by
    /// moves that each lower its bound by one, no other robot moving, and what it saw of
    /// the slides it tried ([`Seen`]): a helper elsewhere, moved elsewhere, leaves the
    /// answer.
    fn descent(&self, state: &State, robot: usize, bound: u8) -> (bool, Seen) {
        let mut seen = Seen {
            passed: [0; 4],
            blockers: [0; 4],
        };
        let descends = self.descends(&state.robots, robot, bound, Some(&mut seen));
        (descends, seen)
    }

    /// Whether robot `robot` at bound `bound` reaches the target by moves that each lower
    /// its bound by one, no other robot moving; on a board with mirrors, what the slides
    /// it tried pass and where a robot would stop them one lower are added to `seen`, where
    /// asked (other robots elsewhere leave its answer as it is).
    fn descends(
        &self,
        robots: &[Cell; MAX_ROBOTS],
        robot: usize,
        bound: u8,
        mut seen: Option<&mut Seen>,
    ) -> bool {
        if bound == 0 {
            return true;
        }
        let table = &self.lower_bound[robot][0][0];
        Direction::ALL.into_iter().any(|dir| {
            let step = Move {
                robot: robot as u8,
                dir,
            };
            if let (Some(walks), Some(seen)) = (self.mover.walks(), seen.as_deref_mut()) {
                let walk = walks.cells_passed(robot, robots[robot], dir as usize);
                (0..4).for_each(|word| seen.passed[word] |= walk[word]);
                walks.stop_blockers(
                    robot,
                    robots[robot],
                    dir as usize,
                    table,
                    bound - 1,
                    &mut seen.blockers,
                );
            }
            let to = self.mover.slide(&robots[..self.count], step);
            if to == robots[robot] || table[to as usize] != bound - 1 {
                return false;
            }
            if to == self.puzzle.target().cell {
                return true;
            }
            let mut next = *robots;
            next[robot] = to;
            self.descends(&next, robot, bound - 1, seen.as_deref_mut())
        })
    }

    /// Whether `state`, whose bound is `bound`, provably has no solution within `moves`
    /// moves by what the helpers cannot do without moving: on a board with mirrors from
    /// the finisher's routes, else under today's rule from the fast solver's tables.
    fn raised_beyond(&self, state: &State, bound: u8, moves: u8) -> bool {
        let Some(colour) = self.puzzle.target().colour else {
            return false;
        };
        if let (Some(routes), Some(walks)) = (&self.routes, self.mover.walks()) {
            let robots = &state.robots[..self.count];
            return routes.raised_beyond(walks, robots, colour.robot(), (bound, moves));
        }
        let Some(tables) = &self.standard else {
            return false;
        };
        let mut robots = state.robots;
        robots.swap(0, colour.robot());
        tables.raised_reach(&robots[..self.count], moves) == Reach::Beyond
    }

    /// Moves at least still needed: the fewest of any robot allowed to finish.
    pub(super) fn bound(&self, state: &State) -> u8 {
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

    /// Whether a solution of at most `left` more moves exists from `state`, whose bound
    /// is `bound` (pushed onto `path` if so); `last` is the move that led there (its
    /// robot and slide). A child's table slot is claimed here before the child is
    /// searched, and children with fewer than [`MIN_TABLE_DEPTH`] moves left skip it.
    ///
    /// With one to three moves of slack beyond today's bound, a helper move must matter
    /// to a later move (the fast solver's `regions`; on a board with mirrors, with one or
    /// two, the finisher's routes): shorter solutions were ruled out, and dropping a move
    /// nothing depends on keeps the others allowed, since whether a move is allowed
    /// depends on its own robot alone.
    ///
    /// Two moves in a row of different robots that commute (neither's start or end cell
    /// on the other's slide or stopping it) are searched in one order only, the lower
    /// robot first, as the fast solver does. The rules keep this sound: whether a move is
    /// allowed depends only on its own robot's last move and turn (no rebound, the turn
    /// the ricochet rule asks for), which the other robot's move leaves as they were, and
    /// both orders end with the same cells.
    pub(super) fn dfs(
        &mut self,
        state: &State,
        bound: u8,
        left: u8,
        last: Option<(usize, Slide)>,
    ) -> bool {
        self.states += 1;
        if self.states.is_multiple_of(PROGRESS_EVERY) {
            self.progress.states.store(self.states, Ordering::Relaxed);
        }
        if left == 0 || bound > left {
            return false;
        }
        if let Some(finisher) = self.one_spare_finisher(bound, left) {
            let mut failed = [0; 4];
            return self.one_spare(&state.robots, finisher, bound, &mut failed);
        }
        // With no move to spare, every move must bring the target's robot one closer:
        // no other robot's move changes its bound.
        let movers = match self.puzzle.target().colour {
            Some(colour) if bound == left => colour.robot()..colour.robot() + 1,
            _ => 0..self.count,
        };
        let child_left = left - 1;
        let coloured = self.puzzle.target().colour.is_some();
        let finisher = self
            .puzzle
            .target()
            .colour
            .map_or(0, |colour| colour.robot());
        let helper_test = self.helper_test(state, left);
        let route_test = match (&self.routes, self.mover.walks()) {
            (Some(routes), Some(walks)) => {
                let test = routes.test(walks, &state.robots[..self.count], finisher, left - bound);
                test.map(|test| (test, walks))
            }
            _ => None,
        };
        // The children first, with their table slots prefetched (a slot is a miss in a
        // table far bigger than the cache), then searched in order. Left uninitialised:
        // zeroing every slot at every state is a cost of its own.
        let mut children = [MaybeUninit::<Child>::uninit(); 4 * MAX_ROBOTS];
        let mut count = 0;
        // The finisher's descent alone from here, worked out on a helper's first tight
        // child (`stuck_alone`) and kept for its siblings.
        let mut descent = None;
        let walks = self.mover.walks();
        for robot in movers {
            let from = state.robots[robot];
            let helper = robot != finisher;
            if helper
                && helper_test
                    .as_ref()
                    .is_some_and(|(test, regions)| test.rules_out(regions, from))
            {
                continue;
            }
            if helper
                && (route_test.as_ref())
                    .is_some_and(|(test, walks)| test.rules_out(walks, robot, from))
            {
                continue;
            }
            for dir in Direction::ALL {
                let step = Move {
                    robot: robot as u8,
                    dir,
                };
                let mut next = *state;
                match self.mover.play(state, step, &mut next) {
                    Play::NoMove => {}
                    Play::Finishes => {
                        self.path.push(step);
                        return true;
                    }
                    Play::Continues if left > 1 => {
                        let to = next.robots[robot];
                        if helper
                            && helper_test.as_ref().is_some_and(|(test, regions)| {
                                !test.allows(regions, finisher_first(robot, finisher), from, to)
                            })
                        {
                            continue;
                        }
                        if helper
                            && (route_test.as_ref())
                                .is_some_and(|(test, walks)| !test.allows(walks, robot, from, to))
                        {
                            continue;
                        }
                        let slide = Slide {
                            from,
                            to,
                            dir: dir as usize,
                        };
                        if let Some((before, previous)) = last {
                            if robot < before
                                && self.commute(state, (before, previous), robot, slide)
                            {
                                continue;
                            }
                        }
                        // Only the finisher's own move changes a coloured target's bound.
                        let bound = match helper && coloured {
                            true => bound,
                            false => self.bound(&next),
                        };
                        let tight = bound == child_left;
                        // The raised bound and the blockers first: they cost less than a
                        // descent.
                        let ruled_out = bound > child_left
                            || self.raised_beyond(&next, bound, child_left)
                            || self.beyond_blockers(&next, child_left)
                            || (tight
                                && self.stuck_alone(
                                    (state, &next),
                                    bound,
                                    helper.then_some((from, to)),
                                    &mut descent,
                                ));
                        if !ruled_out {
                            // A tight child of a coloured target moves its finisher
                            // alone: its small subtree costs less than a table miss.
                            let tight_alone = tight && coloured;
                            let probe = child_left >= MIN_TABLE_DEPTH && !tight_alone;
                            let key = probe.then(|| {
                                let key = self.mover.key(&next);
                                self.searched.prefetch(key);
                                key
                            });
                            children[count] = MaybeUninit::new(Child {
                                step,
                                next,
                                slide,
                                bound,
                                key,
                            });
                            count += 1;
                        }
                    }
                    Play::Continues => {}
                }
            }
        }
        let order = match walks {
            Some(walks) => self.most_promising_first(state, walks, &children[..count]),
            None => std::array::from_fn(|i| i as u8),
        };
        for &index in &order[..count] {
            // SAFETY: the first `count` slots were written above.
            let child = unsafe { children[index as usize].assume_init() };
            if child
                .key
                .is_some_and(|key| !self.searched.visit(key, child_left))
            {
                continue;
            }
            self.path.push(child.step);
            let led = Some((usize::from(child.step.robot), child.slide));
            if self.dfs(&child.next, child.bound, child_left, led) {
                return true;
            }
            self.path.pop();
        }
        false
    }

    /// The order to search the children of `state` in, on a board with mirrors: the last
    /// bound's search stops at its first solution, so the children most likely to lead
    /// there come first. The moves of the robots that may finish, the lowest bound first;
    /// then the helpers', first those that stop on a cell the finisher's walks pass (a new
    /// stop for it). Which order siblings are searched in changes no answer's length. Not
    /// on a board without mirrors: there the rules' answers lie one to three moves beyond
    /// today's optimum, nearly all states are in bounds searched in full, and ordering
    /// cost those searches 3–11 % (BENCHMARKS.md).
    fn most_promising_first(
        &self,
        state: &State,
        walks: &Walks,
        children: &[MaybeUninit<Child>],
    ) -> [u8; 4 * MAX_ROBOTS] {
        let finisher_walks = match self.puzzle.target().colour {
            Some(colour) => walks.passes(colour.robot(), state.robots[colour.robot()]),
            None => [u64::MAX; 4],
        };
        // Each child's rank above its index (5 bits): distinct keys, so ties keep the
        // order the children were made in.
        let mut keys = [0u16; 4 * MAX_ROBOTS];
        for (i, child) in children.iter().enumerate() {
            // SAFETY: the caller passes the children it wrote.
            let child = unsafe { child.assume_init_ref() };
            let helper = !self.puzzle.may_finish(usize::from(child.step.robot));
            let aside = helper && !contains(&finisher_walks, child.slide.to);
            let rank = u16::from(helper) << 9 | u16::from(aside) << 8 | u16::from(child.bound);
            keys[i] = rank << 5 | i as u16;
        }
        keys[..children.len()].sort_unstable();
        keys.map(|key| (key & 31) as u8)
    }

    /// The test helper moves from `state` with `left` moves left must pass, with the
    /// regions it reads: where the fast solver's tables are kept and the slack beyond
    /// today's bound is one to three moves.
    fn helper_test(&self, state: &State, left: u8) -> Option<(HelperTest, &Regions)> {
        let tables = self.standard.as_deref()?;
        let mut robots = state.robots;
        let finisher = self.puzzle.target().colour?.robot();
        robots.swap(0, finisher);
        let h = tables.lower_bounds()[robots[0] as usize];
        let test = tables.helper_test(&robots[..self.count], left - h)?;
        Some((test, tables.regions()))
    }
}

/// What a finisher's descent saw, from the slides it tried.
#[derive(Clone, Copy)]
struct Seen {
    /// The cells their walks pass.
    passed: CellSet,
    /// The cells of their walks where a robot would stop one on the cell before it, where
    /// that cell's bound is one lower than the slide's start's: a robot moved there may
    /// let the descent go on. Cells of `passed`.
    blockers: CellSet,
}

/// Robot `robot`'s index among the robots with the finisher swapped with robot 0, as the
/// fast solver's tables take them.
fn finisher_first(robot: usize, finisher: usize) -> usize {
    match robot {
        _ if robot == finisher => 0,
        0 => finisher,
        _ => robot,
    }
}

/// States searched before the routes on a board with mirrors are worked out: a short
/// search costs less than they do.
pub(super) const ROUTES_AFTER_STATES: u64 = 1000;

#[cfg(test)]
thread_local! {
    /// The unit tests' searches are all short: they test the routes from the second bound
    /// on, unless a test asks for the searches as they run outside tests.
    pub(crate) static TEST_ROUTES_AFTER_STATES: std::cell::Cell<u64> =
        const { std::cell::Cell::new(1) };
}

fn routes_after_states() -> u64 {
    #[cfg(test)]
    return TEST_ROUTES_AFTER_STATES.get();
    #[cfg(not(test))]
    ROUTES_AFTER_STATES
}

/// Children with fewer moves left are searched without a table probe: their subtrees
/// cost less than a cache miss.
const MIN_TABLE_DEPTH: u8 = 2;

/// A move generated by `Restricted::dfs`, waiting for its table slot to arrive in cache.
#[derive(Clone, Copy)]
struct Child {
    step: Move,
    next: State,
    slide: Slide,
    bound: u8,
    /// The child's table key, where it is probed.
    key: Option<u64>,
}

impl Restricted<'_> {
    /// Whether the last move (robot `before`'s `previous` slide, which led to `state`) and
    /// robot `robot`'s `slide` from `state` reach the same state played the other way
    /// round. Straight slides tell it from their cells; on a board with mirrors, two walks
    /// that pass neither robot's cells commute, and otherwise the other order is played
    /// out, since a bent slide meets the other robot's cells off its row and column. Whether a move is allowed depends on its own robot alone, so equal
    /// cells mean equal plays.
    fn commute(
        &self,
        state: &State,
        (before, previous): (usize, Slide),
        robot: usize,
        slide: Slide,
    ) -> bool {
        if let Some(stops) = self.mover.stops() {
            return commutes(stops, previous, slide);
        }
        // Neither walk passes the other robot's cells, before or after: each slide ends
        // where it did whichever order they are played in.
        if let Some(walks) = self.mover.walks() {
            let apart = walks.misses(robot, slide.from, slide.dir, [previous.from, previous.to])
                && walks.misses(before, previous.from, previous.dir, [slide.from, slide.to]);
            if apart {
                return true;
            }
        }
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
