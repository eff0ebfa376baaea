//! Fringe search: the bounds of an IDA*, each state expanded once.
//!
//! An IDA* iteration searches again every state its predecessor searched; with iterations
//! growing about 1.6 times, most of a failing iteration repeats the one before. Fringe
//! search keeps instead what a bound cut off, in buckets by the bound at which it enters
//! the search, and starts the next bound from there. A state is expanded once, at the
//! smallest depth it is met (the exact table `Fringe` remembers), and the move that led
//! there is kept with it, from which the solution's moves are read back.
//!
//! Nothing a bound prunes is lost: a child enters at its own `g + h`, or at the next bound
//! when the relevance test of its parent's slack (the `regions` module) refuses the helper
//! move that made it. The raised bound (`beyond_reach`) is a property of the state alone,
//! tested when it is taken from its bucket. Only the moves that another order of the same
//! moves replaces (reversals, commuting pairs) are dropped, as in the IDA*. The relevance
//! tests stay sound: they rest on every shorter bound having been searched, which holds
//! here too.

use super::*;

/// Deepest bound a bucket entry can hold (six bits of depth).
pub(super) const FRINGE_MAX_BOUND: u8 = 62;
/// A bucket's room kept from one search to the next.
const BUCKET_KEPT: usize = 1 << 16;
const FIRST_TABLE_SLOTS: usize = 1 << 12;
/// Tables smaller than this grow four times, larger ones twice.
const QUADRUPLE_BELOW: usize = 1 << 20;
/// How many bucket states ahead their table slots are prefetched.
const PREFETCH_AHEAD: usize = 12;

const KEY_BITS: u32 = 40;
const KEY_MASK: u64 = (1 << KEY_BITS) - 1;
const OCCUPIED: u64 = 1 << 63;

/// The exact table and the buckets of a fringe search, kept between puzzles.
pub(super) struct Fringe {
    /// Per state reached: key, depth, the cell the last move started from and the key
    /// slot of the robot it moved; 0 is an empty slot.
    table: Vec<u64>,
    used: usize,
    /// Per bound, the states that enter the search at it.
    buckets: Vec<Vec<u64>>,
    /// States in the buckets.
    queued: usize,
    /// Table slots and bucket states allowed together.
    budget: usize,
    /// The last bound of this search.
    last_bound: u8,
}

impl Fringe {
    /// An empty fringe that may use about `bytes` of memory.
    pub(super) fn new(bytes: usize) -> Fringe {
        Fringe {
            table: Vec::new(),
            used: 0,
            buckets: Vec::new(),
            queued: 0,
            budget: bytes / size_of::<u64>(),
            last_bound: 0,
        }
    }

    /// Whether the budget is worth a search (1 MiB or more).
    pub(super) fn usable(&self) -> bool {
        self.budget >= (1 << 20) / size_of::<u64>()
    }

    fn reset(&mut self, last_bound: u8) {
        // A large table is dropped rather than cleared: most searches need a small one.
        if self.table.len() != FIRST_TABLE_SLOTS {
            self.table = zeroed(FIRST_TABLE_SLOTS);
        } else if self.used > 0 {
            self.table.fill(0);
        }
        self.used = 0;
        self.queued = 0;
        self.last_bound = last_bound;
        self.buckets.resize_with(last_bound as usize + 2, Vec::new);
        for bucket in &mut self.buckets {
            // What a hard puzzle needed is not kept for the easy ones after it.
            match bucket.capacity() > BUCKET_KEPT {
                true => *bucket = Vec::new(),
                false => bucket.clear(),
            }
        }
    }

    /// Puts a state on `stack`, the current bound's, or in the bucket of bound `f`; false
    /// when that would exceed the budget.
    #[inline(always)]
    fn queue(&mut self, stack: &mut Vec<u64>, bound: u8, f: u8, node: u64) -> bool {
        if f <= bound {
            stack.push(node);
        } else if f <= self.last_bound {
            if self.queued + self.table.len() >= self.budget {
                return false;
            }
            self.queued += 1;
            self.buckets[f as usize].push(node);
        }
        true
    }

    #[inline(always)]
    fn home(&self, key: u64) -> usize {
        let shift = 64 - self.table.len().trailing_zeros();
        (key.wrapping_mul(crate::transposition::KEY_SPREAD) >> shift) as usize
    }

    #[inline(always)]
    fn prefetch(&self, key: u64) {
        crate::transposition::prefetch_line(self.table.as_ptr().wrapping_add(self.home(key)));
    }

    /// Records state `key` reached at depth `g` by a move from `from` of the robot now in
    /// key slot `slot`, unless it was reached before at depth `g` or less. `None` when the
    /// table is full.
    #[inline(always)]
    fn enter(&mut self, key: u64, g: u8, from: Cell, slot: usize) -> Option<bool> {
        if 2 * (self.used + 1) > self.table.len() && !self.grow() {
            return None;
        }
        let entry = OCCUPIED | key | (g as u64) << 40 | (from as u64) << 46 | (slot as u64) << 54;
        let mask = self.table.len() - 1;
        let mut at = self.home(key);
        loop {
            let old = self.table[at];
            if old == 0 {
                self.table[at] = entry;
                self.used += 1;
                return Some(true);
            }
            if old & KEY_MASK == key {
                if depth_of(old) <= g {
                    return Some(false);
                }
                self.table[at] = entry;
                return Some(true);
            }
            at = (at + 1) & mask;
        }
    }

    fn find(&self, key: u64) -> Option<u64> {
        let mask = self.table.len() - 1;
        let mut at = self.home(key);
        loop {
            match self.table[at] {
                0 => return None,
                entry if entry & KEY_MASK == key => return Some(entry),
                _ => at = (at + 1) & mask,
            }
        }
    }

    fn grow(&mut self) -> bool {
        // Small tables quadruple: most searches stay small, and each growth is a new
        // allocation, filled again.
        let factor = if self.table.len() < QUADRUPLE_BELOW {
            4
        } else {
            2
        };
        let slots = self.table.len() * factor;
        if slots + self.queued > self.budget {
            return false;
        }
        let old = std::mem::replace(&mut self.table, zeroed(slots));
        let mask = slots - 1;
        for entry in old.into_iter().filter(|&e| e != 0) {
            let mut at = self.home(entry & KEY_MASK);
            while self.table[at] != 0 {
                at = (at + 1) & mask;
            }
            self.table[at] = entry;
        }
        true
    }
}

fn zeroed(slots: usize) -> Vec<u64> {
    let mut table = crate::transposition::with_huge_pages(slots);
    table.resize(slots, 0);
    table
}

fn depth_of(entry: u64) -> u8 {
    (entry >> 40) as u8 & 63
}

/// A state waiting in a bucket: robots, depth, and the move that led there.
#[derive(Clone, Copy)]
struct Node<const N: usize> {
    robots: [Cell; N],
    g: u8,
    last: u8,
    last_from: Cell,
}

impl<const N: usize> Node<N> {
    fn pack(self) -> u64 {
        let robots = self
            .robots
            .iter()
            .enumerate()
            .fold(0u64, |packed, (i, &cell)| packed | (cell as u64) << (8 * i));
        robots
            | (self.g as u64) << 40
            | ((self.last & 31) as u64) << 46
            | (self.last_from as u64) << 51
    }

    fn unpack(packed: u64) -> Node<N> {
        let last = (packed >> 46) as u8 & 31;
        Node {
            robots: std::array::from_fn(|i| (packed >> (8 * i)) as Cell),
            g: (packed >> 40) as u8 & 63,
            last: if last == 31 { NO_MOVE } else { last },
            last_from: (packed >> 51) as Cell,
        }
    }
}

/// How a fringe search ended.
pub(super) enum FringeEnd {
    /// Solved: `Search::path` holds the moves.
    Solved,
    /// No solution up to the last bound.
    Exhausted,
    /// The table is full; bounds from this one on are not settled.
    GaveUp(u8),
}

/// What taking one state from a bucket led to.
enum Settled<const N: usize> {
    Open,
    /// The solution goes through this state; `Search::path` holds the moves after it.
    Solved(Node<N>),
    TableFull,
}

impl<const N: usize, const WILD: bool> Search<'_, N, WILD> {
    /// Searches bounds `first..=last` from `root`, every shorter bound already searched.
    pub(super) fn fringe_search(
        &mut self,
        fringe: &mut Fringe,
        root: [Cell; N],
        first: u8,
        last: u8,
    ) -> FringeEnd {
        fringe.reset(last);
        let root_node = Node {
            robots: root,
            g: 0,
            last: NO_MOVE,
            last_from: 0,
        };
        fringe.buckets[first as usize].push(root_node.pack());
        fringe.queued += 1;
        for bound in first..=last {
            self.prepare_for(bound);
            let mut stack = std::mem::take(&mut fringe.buckets[bound as usize]);
            // The states this bound starts from lie at the bottom of the stack; their table
            // slots are fetched a few states ahead.
            let mut seeds = stack.len();
            while let Some(packed) = stack.pop() {
                if stack.len() < seeds {
                    seeds = stack.len();
                    fringe.queued -= 1;
                    if let Some(&ahead) = seeds.checked_sub(PREFETCH_AHEAD).map(|at| &stack[at]) {
                        fringe.prefetch(Self::key(&Node::<N>::unpack(ahead).robots));
                    }
                }
                match self.settle(fringe, &mut stack, Node::unpack(packed), bound) {
                    Settled::Open => {}
                    Settled::TableFull => return FringeEnd::GaveUp(bound),
                    Settled::Solved(node) => {
                        return match self.read_back(fringe, root, node) {
                            true => FringeEnd::Solved,
                            false => FringeEnd::GaveUp(bound),
                        }
                    }
                }
            }
            // A searched bound's room goes back, unless small enough to keep.
            if stack.capacity() <= BUCKET_KEPT {
                fringe.buckets[bound as usize] = stack;
            }
        }
        FringeEnd::Exhausted
    }

    /// Expands `node` at `bound`, or puts it back for a later bound.
    fn settle(
        &mut self,
        fringe: &mut Fringe,
        stack: &mut Vec<u64>,
        node: Node<N>,
        bound: u8,
    ) -> Settled<N> {
        let Node {
            robots,
            g,
            last,
            last_from,
        } = node;
        let remaining = bound - g;
        let h = self.bound(&robots);
        // Tight states are settled without the table, as in the IDA*, and expanded in full
        // from the next bound on.
        let tight = h == remaining;
        let key = if tight { 0 } else { Self::key(&robots) };
        if !tight && fringe.find(key).is_some_and(|entry| depth_of(entry) <= g) {
            return Settled::Open;
        }
        if self.beyond_reach(&robots, remaining) || tight && !self.finish_tight(robots, remaining) {
            return match fringe.queue(stack, bound, bound + 1, node.pack()) {
                true => Settled::Open,
                false => Settled::TableFull,
            };
        }
        if tight {
            return Settled::Solved(node);
        }
        let slot = match last {
            NO_MOVE => 0,
            _ => {
                let moved_to = robots[(last / 4) as usize];
                (0..N)
                    .position(|slot| (key >> (8 * (N - 1 - slot))) as Cell == moved_to)
                    .unwrap_or(0)
            }
        };
        match fringe.enter(key, g, last_from, slot) {
            None => return Settled::TableFull,
            Some(false) => return Settled::Open,
            Some(true) => {}
        }
        self.states += 1;
        let helper_test = self.helper_test(&robots, remaining - h);
        let anyone = |_: &Self, _: usize, _: Cell| false;
        let moves = self.each_move(
            &robots,
            N,
            last,
            last_from,
            anyone,
            |search, robot, dir, from, to| {
                let next = moved(robots, robot, to);
                let next_bound = search.bound(&next);
                if next_bound == UNREACHABLE {
                    return true;
                }
                let mut f = g + 1 + next_bound.max(1);
                // A helper move that this state's slack does not allow waits for one more
                // move of slack (where the IDA* could still refuse it: testing further costs
                // more than searching it).
                if robot != 0
                    && helper_test
                        .as_ref()
                        .is_some_and(|test| !test.allows(&search.tables.regions, robot, from, to))
                {
                    f = f.max(bound + 1);
                }
                if f > fringe.last_bound {
                    return true;
                }
                if f <= bound && next_bound + 1 < remaining {
                    fringe.prefetch(Self::key(&next));
                }
                let child = Node {
                    robots: next,
                    g: g + 1,
                    last: (robot * 4 + dir) as u8,
                    last_from: from,
                };
                fringe.queue(stack, bound, f, child.pack())
            },
        );
        match moves {
            Moves::Goal => Settled::Solved(node),
            Moves::Stopped => Settled::TableFull,
            Moves::Done => Settled::Open,
        }
    }

    /// Rebuilds the moves from `root` to `node` from the table (the moves after `node` are
    /// already in `path`, last first) and puts them in `path` in the root's robot order.
    /// False if a state on the way is missing, which a table that never evicts rules out.
    fn read_back(&mut self, fringe: &Fringe, root: [Cell; N], node: Node<N>) -> bool {
        // The moves as (cell the moving robot starts from, direction), last first.
        let mut cell_moves: Vec<(Cell, u8)> = Vec::new();
        // The moves after `node`, in its robot order.
        let mut robots = node.robots;
        let mut after = Vec::new();
        for &(robot, dir) in self.path.iter().rev() {
            after.push((robots[robot as usize], dir));
            robots[robot as usize] = self.slides(&robots, robot as usize)[dir as usize];
        }
        cell_moves.extend(after.into_iter().rev());
        let mut robots = node.robots;
        let mut g = node.g;
        if g > 0 {
            robots[(node.last / 4) as usize] = node.last_from;
            cell_moves.push((node.last_from, node.last % 4));
            g -= 1;
        }
        while g > 0 {
            let key = Self::key(&robots);
            let Some(entry) = fringe.find(key) else {
                return false;
            };
            if depth_of(entry) == 0 {
                break;
            }
            let moved_to = (key >> (8 * (N - 1 - ((entry >> 54) as usize & 7)))) as Cell;
            let from = (entry >> 46) as Cell;
            let Some(robot) = robots.iter().position(|&cell| cell == moved_to) else {
                return false;
            };
            robots[robot] = from;
            let Some(dir) = self
                .slides(&robots, robot)
                .iter()
                .position(|&end| end == moved_to)
            else {
                return false;
            };
            cell_moves.push((from, dir as u8));
            g = depth_of(entry).min(g) - 1;
        }
        if Self::key(&robots) != Self::key(&root) {
            return false;
        }
        // Replayed from the root, in its robot order.
        let mut robots = root;
        let mut moves = Vec::with_capacity(cell_moves.len());
        for &(from, dir) in cell_moves.iter().rev() {
            let Some(robot) = robots.iter().position(|&cell| cell == from) else {
                return false;
            };
            robots[robot] = self.slides(&robots, robot)[dir as usize];
            moves.push((robot as u8, dir));
        }
        moves.reverse();
        self.path = moves;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_keeps_the_shallowest_depth_and_its_move_through_growth() {
        let mut fringe = Fringe::new(64 << 20);
        fringe.reset(30);
        assert_eq!(fringe.enter(0x0102_0304, 5, 9, 2), Some(true));
        assert_eq!(fringe.enter(0x0102_0304, 5, 10, 1), Some(false));
        assert_eq!(fringe.enter(0x0102_0304, 6, 10, 1), Some(false));
        assert_eq!(fringe.enter(0x0102_0304, 4, 11, 3), Some(true));
        // Enough keys to double the table several times; key 0 is a real state too.
        for key in 0..100_000u64 {
            assert_eq!(fringe.enter(key << 8, 7, 1, 0), Some(true), "key {key}");
        }
        assert!(fringe.table.len() > FIRST_TABLE_SLOTS);
        let entry = fringe.find(0x0102_0304).expect("kept through growth");
        assert_eq!(depth_of(entry), 4);
        assert_eq!((entry >> 46) as Cell, 11);
        assert_eq!((entry >> 54) & 7, 3);
        assert_eq!(fringe.find(0), fringe.find(0).filter(|&e| depth_of(e) == 7));
        assert!(fringe.find(0).is_some());
        assert_eq!(fringe.find(0x0504_0302), None);
    }

    #[test]
    fn the_budget_stops_the_table_and_the_buckets() {
        let mut fringe = Fringe::new(FIRST_TABLE_SLOTS * 8 * 5);
        fringe.reset(30);
        // Room for one growth: the table fills to half of four times its first size.
        let refused = (0..).find(|&key| fringe.enter(key, 3, 0, 0).is_none());
        assert_eq!(refused, Some(2 * FIRST_TABLE_SLOTS as u64));
        assert_eq!(fringe.table.len(), 4 * FIRST_TABLE_SLOTS);
        let mut stack = Vec::new();
        let queued = (0..)
            .take_while(|&n| fringe.queue(&mut stack, 3, 5, n))
            .count();
        assert_eq!(queued, FIRST_TABLE_SLOTS);
        // The current bound's stack is not bounded by the buckets' budget.
        assert!(fringe.queue(&mut stack, 3, 3, 7));
        assert_eq!(stack, [7]);
    }

    #[test]
    fn nodes_pack_and_unpack() {
        for (robots, last) in [([255, 0, 17, 200, 3], NO_MOVE), ([1, 2, 3, 4, 5], 19)] {
            let node = Node::<5> {
                robots,
                g: 62,
                last,
                last_from: 254,
            };
            let back = Node::<5>::unpack(node.pack());
            assert_eq!(
                (back.robots, back.g, back.last, back.last_from),
                (robots, 62, last, 254)
            );
        }
    }
}
