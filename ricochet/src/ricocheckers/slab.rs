//! One slab of the retrograde plan (`docs/ricocheckers-retrograde.md`), scanned forward:
//! every position whose first player's piece set is the slab's, every move from it, each
//! successor ranked (its slab and its index there), and the wins in one ply found. The
//! bench times it to replace the plan's estimate with a measured cost per slab.
//!
//! Piece sets are ranked in colex order over the open cells (`rank = C(a,1) + C(b,2) +
//! C(c,3)`, `a < b < c`); the second player's set is ranked over the open cells the first
//! player's pieces leave free.

use super::{Field, Outcome, Position, PIECES};
use crate::board::Cell;

/// C(n, k) for the small n and k of piece sets.
fn binomial(n: u64, k: u64) -> u64 {
    if k > n {
        return 0;
    }
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

/// The colex rank of an ascending set of indices.
fn colex(set: &[u64; PIECES]) -> u64 {
    (set.iter().enumerate())
        .map(|(i, &x)| binomial(x, i as u64 + 1))
        .sum()
}

/// The ascending set of colex rank `rank` among `PIECES`-sets.
fn uncolex(mut rank: u64) -> [u64; PIECES] {
    let mut set = [0; PIECES];
    for k in (1..=PIECES as u64).rev() {
        let mut x = k - 1;
        while binomial(x + 1, k) <= rank {
            x += 1;
        }
        rank -= binomial(x, k);
        set[k as usize - 1] = x;
    }
    set
}

/// What scanning one slab found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SlabScan {
    /// Positions of the slab (both sides to move), terminal ones included.
    pub positions: u64,
    /// Positions already won for a side: no moves are generated there.
    pub terminal: u64,
    /// Legal moves generated, each successor ranked.
    pub moves: u64,
    /// Positions whose side to move wins in one ply.
    pub wins_in_one: u64,
    /// First-player moves: they lead to another slab.
    pub cross_slab: u64,
    /// Of those, the ones whose slab belongs to the same worker's contiguous range.
    pub same_worker: u64,
    /// A checksum of the successors' ranks, so that the ranking cannot be optimised away
    /// and two scans can be compared.
    pub checksum: u64,
}

/// The slab space of a board: its open cells and their indices.
pub struct Slabs {
    open: Vec<Cell>,
    index: Vec<u64>,
}

impl Slabs {
    pub fn new(field: &Field) -> Slabs {
        let open = field.open_cells();
        let mut index = vec![u64::MAX; usize::from(Cell::MAX) + 1];
        for (i, &cell) in open.iter().enumerate() {
            index[usize::from(cell)] = i as u64;
        }
        Slabs { open, index }
    }

    /// How many slabs: first-player piece sets.
    pub fn count(&self) -> u64 {
        binomial(self.open.len() as u64, PIECES as u64)
    }

    /// Positions in one slab: second-player sets among the cells left, times two sides.
    pub fn positions_per_slab(&self) -> u64 {
        2 * binomial((self.open.len() - PIECES) as u64, PIECES as u64)
    }

    fn sorted_indices(&self, cells: &[Cell]) -> [u64; PIECES] {
        let mut set = [0; PIECES];
        for (slot, &cell) in set.iter_mut().zip(cells) {
            *slot = self.index[usize::from(cell)];
        }
        set.sort_unstable();
        set
    }

    /// The slab of a position and its index within the slab.
    pub fn rank(&self, position: &Position) -> (u64, u64) {
        let first = self.sorted_indices(&position.pieces[..PIECES]);
        let mut second = self.sorted_indices(&position.pieces[PIECES..]);
        // Indices among the cells the first player leaves free.
        for x in &mut second {
            *x -= first.iter().filter(|&&f| f < *x).count() as u64;
        }
        (
            colex(&first),
            colex(&second) * 2 + u64::from(position.to_move),
        )
    }

    /// Scans slab `slab` with `workers` owning equal contiguous ranges of slabs.
    pub fn scan(&self, field: &Field, slab: u64, workers: u64) -> SlabScan {
        let first = uncolex(slab).map(|i| self.open[i as usize]);
        let free: Vec<Cell> = (self.open.iter().copied())
            .filter(|c| !first.contains(c))
            .collect();
        let per_worker = self.count().div_ceil(workers);
        let worker = slab / per_worker;
        let mut scan = SlabScan::default();
        for rank in 0..binomial(free.len() as u64, PIECES as u64) {
            let second = uncolex(rank).map(|i| free[i as usize]);
            for to_move in 0..2 {
                let mut pieces = [0; 2 * PIECES];
                pieces[..PIECES].copy_from_slice(&first);
                pieces[PIECES..].copy_from_slice(&second);
                let position = Position {
                    pieces,
                    to_move,
                    plies: 0,
                };
                scan.positions += 1;
                if field.has_filled(&position, 0) || field.has_filled(&position, 1) {
                    scan.terminal += 1;
                    continue;
                }
                let mut wins = false;
                for &step in field.steps(&position).iter() {
                    let next = field.play(&position, step);
                    scan.moves += 1;
                    let (next_slab, index) = self.rank(&next);
                    scan.checksum = scan
                        .checksum
                        .wrapping_mul(31)
                        .wrapping_add(next_slab ^ index);
                    wins |= field.outcome(&next) == Some(Outcome::Win(to_move));
                    if to_move == 0 {
                        scan.cross_slab += 1;
                        scan.same_worker += u64::from(next_slab / per_worker == worker);
                    }
                }
                scan.wins_in_one += u64::from(wins);
            }
        }
        scan
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_are_a_bijection_and_a_scan_counts_its_slab() {
        for rank in 0..binomial(20, 3) {
            let set = uncolex(rank);
            assert!(set[0] < set[1] && set[1] < set[2]);
            assert_eq!(colex(&set), rank);
        }
        let field = Field::standard();
        let slabs = Slabs::new(&field);
        assert_eq!(slabs.count(), 280_840);
        assert_eq!(slabs.positions_per_slab(), 520_260);
        // The start position ranks into the slab of player 1's start cells.
        let start = field.start();
        let (slab, index) = slabs.rank(&start);
        assert!(slab < slabs.count() && index < slabs.positions_per_slab());
        let mut reordered = start;
        reordered.pieces.swap(0, 2);
        reordered.pieces.swap(3, 4);
        assert_eq!(slabs.rank(&reordered), (slab, index));
        let scan = slabs.scan(&field, slab, 1);
        assert_eq!(scan.positions, slabs.positions_per_slab());
        assert_eq!(scan.same_worker, scan.cross_slab);
        assert!(scan.moves > 5 * scan.positions, "{scan:?}");
        // Player 1 on two of its goal cells, the third a slide away: wins in one ply exist.
        let mut near = start;
        let goals = field.goals(0);
        near.pieces[..3].copy_from_slice(&goals);
        // The third piece where a slide south from its goal ends: it can slide back.
        near.pieces[2] = field.slide(&near.pieces, 2, crate::board::Direction::South);
        let (slab, _) = slabs.rank(&near);
        let scan = slabs.scan(&field, slab, 14);
        assert!(
            scan.wins_in_one > 0 && scan.same_worker < scan.cross_slab,
            "{scan:?}"
        );
    }
}
