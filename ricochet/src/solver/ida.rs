//! The IDA* search: one depth-first search per bound, over a transposition table of
//! remaining depths kept across iterations, so no state is searched twice at the same
//! depth. It needs no memory beyond its fixed-size table, so it takes over where the
//! fringe search would need more than its limit. Children's table slots are prefetched
//! together.

use super::*;

/// Children with fewer remaining moves are searched without a table probe: their
/// subtrees are cheaper than a cache miss.
const MIN_TABLE_DEPTH: u8 = 2;
/// Key hash of a child searched without a table probe (real ones have at most 40 bits).
const NO_HASH: u64 = u64::MAX;

impl<const N: usize, const WILD: bool> Search<'_, N, WILD> {
    /// Depth-first search for a solution of exactly `remaining` moves or fewer; `last` is
    /// the previous move as `robot * 4 + dir`, which started from `last_from`.
    ///
    /// Children are generated first and their table slots prefetched, so that the
    /// table's cache misses overlap instead of stalling one after the other.
    pub(super) fn dfs(
        &mut self,
        robots: [Cell; N],
        remaining: u8,
        last: u8,
        last_from: Cell,
    ) -> bool {
        let bound = self.bound(&robots);
        if bound == remaining {
            return self.finish_tight(robots, remaining);
        }
        self.states += 1;
        // With one move left only the finishing robot can still make it.
        let movers = if !WILD && remaining == 1 { 1 } else { N };
        // One move of slack: earlier iterations proved this state has no solution of
        // `remaining - 1` moves, so after a helper move the finishing robot must go
        // downhill alone; the move only helps if it leaves a route's path or enters one of
        // its blocker cells.
        let regions = (!WILD && self.regions_ready && bound + 1 == remaining).then(|| {
            let target = robots[0] as usize;
            (self.regions.path[target], self.regions.blockers[target])
        });
        // Two or three moves of slack: a helper move must matter to a later move.
        let relevance = match remaining - bound {
            2 if !WILD && self.regions_ready => Some(self.regions.relevance(&robots, false)),
            3 if !WILD && self.wider_ready => Some(self.regions.relevance(&robots, true)),
            _ => None,
        };
        let child = remaining - 1;
        // Left uninitialised: zeroing 20 slots at every state cost 5 % of the search.
        let mut children = [std::mem::MaybeUninit::<Child>::uninit(); 4 * MAX_ROBOTS];
        let mut count = 0;
        // A helper off the paths whose lines reach no blocker cell has no move to keep.
        let idle_helper = |search: &Self, robot: usize, from: Cell| {
            robot != 0
                && regions.is_some_and(|(path, blockers)| {
                    !contains(&path, from)
                        && !intersects(&search.regions.cross[from as usize], &blockers)
                })
        };
        let moves = self.each_move(
            &robots,
            movers,
            last,
            last_from,
            idle_helper,
            |search, robot, dir, from, to| {
                if robot != 0
                    && regions.is_some_and(|(path, blockers)| {
                        !contains(&path, from) && !contains(&blockers, to)
                    })
                {
                    return true;
                }
                if robot != 0
                    && relevance
                        .as_ref()
                        .is_some_and(|relevance| !relevance.allows(search.regions, robot, from, to))
                {
                    return true;
                }
                if remaining == 1 {
                    return true;
                }
                let next = moved(robots, robot, to);
                let bound = search.bound(&next);
                if !search.beyond_reach(&next, child) {
                    // Tight children are settled by `finishes_alone`, cheaper than a table probe.
                    let probe = child >= MIN_TABLE_DEPTH && bound < child;
                    let hash = if probe {
                        search.table.hash(Self::key(&next))
                    } else {
                        NO_HASH
                    };
                    if hash != NO_HASH {
                        search.table.prefetch(hash);
                    }
                    children[count] = std::mem::MaybeUninit::new(Child {
                        robot: robot as u8,
                        dir: dir as u8,
                        to,
                        hash,
                    });
                    count += 1;
                }
                true
            },
        );
        if moves == Moves::Goal {
            return true;
        }
        for child_slot in &children[..count] {
            // SAFETY: the first `count` slots were written above.
            let Child {
                robot,
                dir,
                to,
                hash,
            } = unsafe { child_slot.assume_init() };
            if hash != NO_HASH && !self.table.visit(hash, child) {
                continue;
            }
            let next = moved(robots, robot as usize, to);
            let solved = self.dfs(next, child, robot * 4 + dir, robots[robot as usize]);
            if solved {
                self.path.push((robot, dir));
                return true;
            }
        }
        false
    }
}

/// A move generated by `dfs`, waiting for its table slot to arrive in cache.
#[derive(Clone, Copy)]
struct Child {
    robot: u8,
    dir: u8,
    to: Cell,
    /// The table hash of the child's key, or [`NO_HASH`].
    hash: u64,
}
