//! A node with one move to spare on a board with mirrors, searched as what it is: the
//! finisher's downhill moves with the other robots in place, and at each cell they reach
//! the one move that is not downhill (a helper's, or a sideways slide of the finisher's)
//! followed by the finisher's descent alone.

use super::{Restricted, Seen};
use crate::board::{Cell, Direction};
use crate::puzzle::{Move, MAX_ROBOTS};
use crate::solver::{contains, insert, intersects, CellSet};

impl Restricted<'_> {
    /// Whether the finisher `finisher`, at bound `bound` (at least 1) among `robots`,
    /// reaches the target in `bound + 1` moves; its moves pushed onto `path` if so.
    ///
    /// Each move lowers the finisher's bound by at most one, so such a solution has one
    /// move that does not: a helper's, which leaves the bound as it is, or the
    /// finisher's onto a cell of the same bound. Before it, every move is the finisher's
    /// downhill with the helpers in place; after it, the finisher descends alone. So the
    /// search runs over the finisher's cells alone, each met once: `failed` holds the
    /// cells from which no such solution exists (the helpers' cells, and so a cell's
    /// bound and moves left, being the same throughout). A helper move is tried only
    /// where it can change the descent: from a cell the descent's slides pass, or onto
    /// one of its blockers (the argument of `Restricted::stuck_alone`).
    pub(super) fn one_spare(
        &mut self,
        robots: &[Cell; MAX_ROBOTS],
        finisher: usize,
        bound: u8,
        failed: &mut CellSet,
    ) -> bool {
        insert(failed, robots[finisher]);
        let mut seen = Seen {
            passed: [0; 4],
            blockers: [0; 4],
        };
        if self.descends(robots, finisher, bound, Some(&mut seen)) {
            self.push_descent(*robots, finisher, bound);
            return true;
        }
        let walks = self.mover.walks().expect("a board with mirrors");
        let Seen { passed, blockers } = seen;
        // The spare move first: the finisher's sideways slides, then the helpers'.
        let mut downhill = [None; 4];
        for (slot, dir) in downhill.iter_mut().zip(Direction::ALL) {
            let step = Move {
                robot: finisher as u8,
                dir,
            };
            let to = self.mover.slide(&robots[..self.count], step);
            if to == robots[finisher] {
                continue;
            }
            if to == self.puzzle.target().cell {
                self.path.push(step);
                return true;
            }
            let mut next = *robots;
            next[finisher] = to;
            let to_bound = self.lower_bound[finisher][0][0][usize::from(to)];
            if to_bound == bound - 1 && !contains(failed, to) {
                *slot = Some((step, next));
            } else if to_bound == bound && self.descends(&next, finisher, bound, None) {
                self.path.push(step);
                self.push_descent(next, finisher, bound);
                return true;
            }
        }
        for helper in (0..self.count).filter(|&robot| robot != finisher) {
            let from = robots[helper];
            if !contains(&passed, from) && !intersects(&walks.passes(helper, from), &blockers) {
                continue;
            }
            for dir in Direction::ALL {
                let step = Move {
                    robot: helper as u8,
                    dir,
                };
                let to = self.mover.slide(&robots[..self.count], step);
                if to == from || !contains(&passed, from) && !contains(&blockers, to) {
                    continue;
                }
                let mut next = *robots;
                next[helper] = to;
                if self.descends(&next, finisher, bound, None) {
                    self.path.push(step);
                    self.push_descent(next, finisher, bound);
                    return true;
                }
            }
        }
        for (step, next) in downhill.into_iter().flatten() {
            // Met again through another downhill move of this search.
            if contains(failed, next[finisher]) {
                continue;
            }
            self.states += 1;
            self.path.push(step);
            if self.one_spare(&next, finisher, bound - 1, failed) {
                return true;
            }
            self.path.pop();
        }
        false
    }

    /// Pushes onto `path` the moves of the finisher's descent alone from `robots`, at
    /// bound `bound`, which `descends` has found.
    fn push_descent(&mut self, mut robots: [Cell; MAX_ROBOTS], finisher: usize, bound: u8) {
        let target = self.puzzle.target().cell;
        for bound in (1..=bound).rev() {
            let table = &self.lower_bound[finisher][0][0];
            let (step, to) = (Direction::ALL.into_iter())
                .map(|dir| {
                    let step = Move {
                        robot: finisher as u8,
                        dir,
                    };
                    (step, self.mover.slide(&robots[..self.count], step))
                })
                .find(|&(_, to)| {
                    let mut next = robots;
                    next[finisher] = to;
                    to != robots[finisher]
                        && table[usize::from(to)] == bound - 1
                        && (to == target || self.descends(&next, finisher, bound - 1, None))
                })
                .expect("a descent found before");
            self.path.push(step);
            robots[finisher] = to;
        }
    }
}
