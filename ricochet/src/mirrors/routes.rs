//! Where other robots matter to the finishing robot's routes on a board with mirrors, and
//! which helper moves that leaves worth searching: the mirror form of the fast solver's
//! regions (`crate::solver::Regions`, whose module doc gives the argument), and of the
//! bound they raise ([`Routes::raised_beyond`]).
//!
//! A route is a chain of the finishing robot's stop-anywhere walks to the target
//! ([`Walks::relaxed_bounds`]); a downhill slide lowers the bound by one, a sideways one
//! keeps it. A slide passes its walk's cells up to its stop, and a stop short of the
//! walk's end needs a robot on the walk's next cell. That cell cannot be a mirror, where
//! no robot stands, so no slide stops just before one.

use super::Walks;
use crate::board::{Cell, CELLS};
use crate::puzzle::MAX_ROBOTS;
use crate::solver::{contains, distances_over_ends, insert, intersects, CellSet, UNREACHABLE};

/// Per cell of the finishing robot, where other robots matter to its routes.
pub(crate) struct Routes {
    /// The cells the downhill routes' slides pass: a robot leaving one can open a route.
    path: Vec<CellSet>,
    /// The cells beyond the downhill routes' stops: only a robot there makes the stop.
    blockers: Vec<CellSet>,
    /// The same for the routes one move longer (one sideways slide).
    lateral_path: Vec<CellSet>,
    lateral_blockers: Vec<CellSet>,
    /// The moves the finishing robot needs from each cell with no other robot about:
    /// only walls, walk ends and mirrors stopping it.
    alone: [u8; CELLS],
}

/// What a helper's move must touch to be searched.
pub(crate) enum RouteTest<'r> {
    /// One move of slack: only the finisher's downhill routes follow, so the move must
    /// leave a cell of their path or reach one of their blocker cells.
    OneSpare {
        path: &'r CellSet,
        blockers: &'r CellSet,
    },
    /// Two moves of slack: the move serves a route one move longer, or the next helper
    /// move, which then serves a downhill route: the same helper's (a walk from where it
    /// arrived reaches a blocker) or another's (whose walks pass the cell left or reached).
    TwoSpare {
        lateral_path: &'r CellSet,
        lateral_blockers: &'r CellSet,
        blockers: &'r CellSet,
        /// Per helper, the cells the walks of the other helpers that can serve pass.
        others: [CellSet; MAX_ROBOTS],
    },
}

impl Walks {
    /// Calls `visit` for each stop a slide of a robot of the `colour`-th colour from
    /// `cell` can make: the stop, the cells passed up to it, and the cells one of which a
    /// robot must hold to make it (none at a wall; the whole walk where the walk goes
    /// round for ever, its next cell being one it passed).
    fn stops(&self, colour: usize, cell: usize, mut visit: impl FnMut(Cell, &CellSet, &CellSet)) {
        let first = (colour * CELLS + cell) * 4;
        for i in first..first + 4 {
            let span = self.spans[i];
            let (begin, loops) = (usize::from(span.begin), span.loops);
            let walk = &self.cells[begin..begin + usize::from(span.length)];
            let mut passed = [0u64; 4];
            for (k, &at) in walk.iter().enumerate() {
                insert(&mut passed, at);
                if self.is_mirror(at) {
                    continue;
                }
                let mut beyond = [0u64; 4];
                match walk.get(k + 1) {
                    Some(&next) if self.is_mirror(next) => continue,
                    Some(&next) => insert(&mut beyond, next),
                    None if loops => beyond = self.masks[i],
                    None => {}
                }
                visit(at, &passed, &beyond);
            }
        }
    }

    /// The routes of a robot of the `colour`-th colour whose bound is `bounds`.
    pub(crate) fn routes(&self, bounds: &[u8; CELLS], colour: usize) -> Routes {
        let mut order: Vec<usize> = (0..CELLS)
            .filter(|&cell| bounds[cell] != UNREACHABLE && bounds[cell] > 0)
            .collect();
        order.sort_unstable_by_key(|&cell| bounds[cell]);
        let empty = vec![[0; 4]; CELLS];
        let mut routes = Routes {
            path: empty.clone(),
            blockers: empty.clone(),
            lateral_path: empty.clone(),
            lateral_blockers: empty,
            alone: self.alone_distances(bounds, colour),
        };
        let union = |into: &mut CellSet, a: &CellSet, b: &CellSet| {
            (0..4).for_each(|w| into[w] |= a[w] | b[w]);
        };
        // Downhill first: a longer route's sideways slide goes on downhill, from a cell of
        // the same bound. A stop that cannot reach the target is downhill from nowhere.
        for &cell in &order {
            let (mut path, mut blockers) = ([0; 4], [0; 4]);
            self.stops(colour, cell, |at, passed, beyond| {
                if bounds[at as usize].saturating_add(1) == bounds[cell] {
                    union(&mut path, passed, &routes.path[at as usize]);
                    union(&mut blockers, beyond, &routes.blockers[at as usize]);
                }
            });
            routes.path[cell] = path;
            routes.blockers[cell] = blockers;
        }
        for &cell in &order {
            let (mut path, mut blockers) = ([0; 4], [0; 4]);
            self.stops(colour, cell, |at, passed, beyond| {
                let at = at as usize;
                if bounds[at].saturating_add(1) == bounds[cell] {
                    union(&mut path, passed, &routes.lateral_path[at]);
                    union(&mut blockers, beyond, &routes.lateral_blockers[at]);
                } else if bounds[at] == bounds[cell] {
                    union(&mut path, passed, &routes.path[at]);
                    union(&mut blockers, beyond, &routes.blockers[at]);
                }
            });
            routes.lateral_path[cell] = path;
            routes.lateral_blockers[cell] = blockers;
        }
        routes
    }

    /// [`Routes::alone`] for a robot of the `colour`-th colour whose bound is `bounds`
    /// (the target is where it is 0): distances over the slides with no robot about,
    /// settled by relaxing every slide until none shortens a distance.
    fn alone_distances(&self, bounds: &[u8; CELLS], colour: usize) -> [u8; CELLS] {
        let Some(target) = (0..CELLS).find(|&cell| bounds[cell] == 0) else {
            return [UNREACHABLE; CELLS];
        };
        let first = colour * CELLS * 4;
        distances_over_ends(target as Cell, |cell| {
            std::array::from_fn(|dir| self.ends[first + cell * 4 + dir])
        })
    }
}

impl Routes {
    /// Whether `robots` (`finisher` finishes, at bound `bound`, the others help) have no
    /// solution within `moves` moves by what the helpers cannot do without moving: the
    /// raised bound of the fast solver (`Tables::raised_reach`), over bent walks.
    ///
    /// A solution of `bound` moves moves the finisher alone, each move downhill, so each
    /// of its stops is a walk's end with no robot about or a helper on a blocker cell.
    /// With no helper on one it is a route of the finisher alone, `alone` moves at least.
    /// A solution of `bound + 1` moves either moves the finisher alone with one sideways
    /// slide (its stops made by walk ends, or by helpers on the longer routes' blocker
    /// cells) or moves one helper once and the finisher downhill; dropping that move
    /// leaves a route of the finisher alone unless the helper reaches a blocker cell, and
    /// it reaches only cells its walks pass.
    pub(crate) fn raised_beyond(
        &self,
        walks: &Walks,
        robots: &[Cell],
        finisher: usize,
        (bound, moves): (u8, u8),
    ) -> bool {
        if bound + 2 <= moves {
            return false;
        }
        let at = usize::from(robots[finisher]);
        let mut helpers = (robots.iter().enumerate()).filter(|&(robot, _)| robot != finisher);
        if self.alone[at] <= moves
            || helpers
                .clone()
                .any(|(_, &cell)| contains(&self.blockers[at], cell))
        {
            return false;
        }
        bound == moves
            || !helpers.any(|(robot, &cell)| {
                contains(&self.lateral_blockers[at], cell)
                    || intersects(&walks.passes(robot, cell), &self.blockers[at])
            })
    }

    /// The test of helper moves from `robots` (`finisher` finishes, the others help) with
    /// `slack` moves beyond the finisher's bound, where there is one.
    pub(crate) fn test(
        &self,
        walks: &Walks,
        robots: &[Cell],
        finisher: usize,
        slack: u8,
    ) -> Option<RouteTest<'_>> {
        let at = usize::from(robots[finisher]);
        let (path, blockers) = (&self.path[at], &self.blockers[at]);
        match slack {
            1 => Some(RouteTest::OneSpare { path, blockers }),
            2 => {
                let mut serving = [[0u64; 4]; MAX_ROBOTS];
                for (helper, &from) in robots.iter().enumerate() {
                    if helper == finisher {
                        continue;
                    }
                    if serves(walks, (path, blockers), helper, from) {
                        serving[helper] = walks.passes(helper, from);
                    }
                }
                let others = std::array::from_fn(|helper| {
                    let mut cells = [0u64; 4];
                    for (other, passes) in serving.iter().enumerate() {
                        if other != helper {
                            (0..4).for_each(|w| cells[w] |= passes[w]);
                        }
                    }
                    cells
                });
                Some(RouteTest::TwoSpare {
                    lateral_path: &self.lateral_path[at],
                    lateral_blockers: &self.lateral_blockers[at],
                    blockers,
                    others,
                })
            }
            _ => None,
        }
    }
}

/// Whether a move of helper `robot` from `cell` can serve a downhill route whose cells
/// are `path` and `blockers`: it leaves the path, or one of its walks reaches a blocker.
fn serves(walks: &Walks, (path, blockers): (&CellSet, &CellSet), robot: usize, cell: Cell) -> bool {
    contains(path, cell) || intersects(&walks.passes(robot, cell), blockers)
}

impl RouteTest<'_> {
    /// Whether helper `robot`'s move from `a` to `b` can matter.
    #[inline]
    pub(crate) fn allows(&self, walks: &Walks, robot: usize, a: Cell, b: Cell) -> bool {
        match self {
            RouteTest::OneSpare { path, blockers } => contains(path, a) || contains(blockers, b),
            RouteTest::TwoSpare {
                lateral_path,
                lateral_blockers,
                blockers,
                others,
            } => {
                contains(lateral_path, a)
                    || contains(lateral_blockers, b)
                    || contains(&others[robot], a)
                    || contains(&others[robot], b)
                    // Its own next move serves only by reaching a blocker: leaving a path
                    // cell it has just reached opens nothing the two moves did not close.
                    || intersects(&walks.passes(robot, b), blockers)
            }
        }
    }

    /// Whether no move of helper `robot` from `a` can pass (at one move of slack: off the
    /// path, and none of its walks reaches a blocker cell).
    #[inline]
    pub(crate) fn rules_out(&self, walks: &Walks, robot: usize, a: Cell) -> bool {
        match self {
            RouteTest::OneSpare { path, blockers } => !serves(walks, (path, blockers), robot, a),
            RouteTest::TwoSpare { .. } => false,
        }
    }
}
