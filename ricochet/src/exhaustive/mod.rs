//! Exhaustive analysis of one unit: for a board, a target cell and a robot that must reach
//! it, the optimal move count of *every* placement of that robot and its interchangeable
//! helpers (the other robots, whose colours do not matter to a coloured target). A wild
//! target (the vortex) may be reached by any robot: all robots are then interchangeable,
//! and a placement is a set of cells ([`Finisher::AnyRobot`]).
//!
//! A layered BFS runs backwards from the goal. Layer 1 holds the placements whose target
//! robot reaches the target in one slide; layer `d + 1` the unreached placements with a
//! move into layer `d` (a "pull" step, so each helper set writes only its own bits and
//! the step runs in parallel on the caller's rayon pool). Placements are kept as one
//! 256-bit block per helper set (colex rank of the set), one bit per cell of the internal
//! 16×16 grid for the target robot. Target-robot moves are computed for the whole block at
//! once with shifts (`block.rs`); a helper's move reads the frontier block it lands in
//! (target robot off its path) and one block of `beyond`, an index of the frontier filled
//! while the layer is computed, for the target robot standing on its path. A block is
//! skipped once all its placements are reached (a bitmap of open blocks), and a landing
//! block whose frontier is empty is never read (a bitmap of non-empty frontier blocks
//! stays in cache). Sets that differ only in their smallest helper have consecutive
//! ranks, so the other helpers' slides among themselves are planned once per such group,
//! and each of those slides is then taken across the group's blocks as one stream of
//! consecutive frontier and `beyond` blocks.
//! Where the CPU has AVX-512 (with its funnel shifts and population counts), a layer's
//! block work runs compiled for it; either way the bits are the same.

pub(crate) mod block;
mod cells;
mod restricted;
mod sweep;

pub use restricted::{analyse_restricted, STATE_LIMIT};
pub use sweep::has_wide_kernel;

#[cfg(test)]
mod tests;

use crate::board::{Board, Cell};
use crate::puzzle::Target;
use block::mask_of;
use cells::{Cells, Set};
use std::ops::ControlFlow;
use sweep::Sweep;

/// The most helpers a unit may have (four robots in all).
pub const MAX_HELPERS: usize = 3;

/// Legal placements a unit result keeps of each depth ([`Analysis::legal_samples`]): 64
/// per depth is a whole pack's worth from every unit (98,304 per depth over the first
/// edition's 1,536 units) for 256 bytes per depth.
pub const LEGAL_PER_DEPTH: usize = 64;

/// Which robots finish a unit by stopping on its target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finisher {
    /// The target robot only (a coloured target).
    TargetRobot,
    /// Any robot (a wild target, the vortex). The robots are interchangeable, so the
    /// search still runs over (robot, helper set) pairs but counts and reports each set of
    /// cells once: as the placement whose "target robot" is its smallest cell.
    AnyRobot,
}

impl Finisher {
    pub fn of(target: &Target) -> Finisher {
        match target.colour {
            Some(_) => Finisher::TargetRobot,
            None => Finisher::AnyRobot,
        }
    }
}

/// One placement: the target robot's cell and the helpers' cells (ascending).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Placement {
    pub target_robot: Cell,
    pub helpers: Vec<Cell>,
}

impl Placement {
    /// The caller's `y * width + x` indices of the target robot, then of the helpers.
    pub fn indices(&self, board: &Board) -> Vec<usize> {
        std::iter::once(self.target_robot)
            .chain(self.helpers.iter().copied())
            .map(|cell| board.index_of(cell))
            .collect()
    }

    /// The same cells as a set: the smallest first, the others ascending (how a unit
    /// whose robots all finish names its placements).
    pub fn as_set(&self) -> Placement {
        let mut cells = self.helpers.clone();
        cells.push(self.target_robot);
        cells.sort_unstable();
        Placement {
            target_robot: cells.remove(0),
            helpers: cells,
        }
    }

    /// Robot cells in colour order: the target robot in slot `target_slot`, the helpers
    /// (ascending) in the other slots.
    pub fn robots(&self, target_slot: usize) -> Vec<Cell> {
        let mut robots = self.helpers.clone();
        robots.insert(target_slot.min(robots.len()), self.target_robot);
        robots
    }
}

/// Which placements of a unit are *legal*: those its generator could deal for its target.
/// The default calls every placement legal.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Legality {
    /// Cells no robot stands on (Fogleman's generator keeps robots off every target).
    pub off_cells: Vec<Cell>,
    /// DriftingDroids' goal deck puts a goal back while the game would finish it in 0 or 1
    /// move: no robot that may finish stands on the target, and at least 2 moves are needed.
    pub past_one_move: bool,
}

impl Legality {
    /// The fewest moves a legal placement needs.
    pub fn min_moves(&self) -> u8 {
        if self.past_one_move {
            2
        } else {
            1
        }
    }

    /// Cells the target robot (any robot when any robot finishes) may not stand on.
    fn off_finisher(&self, target: Cell) -> Vec<Cell> {
        let mut cells = self.off_cells.clone();
        if self.past_one_move {
            cells.push(target);
        }
        cells
    }

    /// Whether `placement` of a unit on `target` is legal; `moves` is its optimum (`None`:
    /// unsolvable, which no deck puts back).
    pub fn allows(&self, placement: &Placement, target: Target, moves: Option<u8>) -> bool {
        let off_finisher = self.off_finisher(target.cell);
        let helpers_off = match Finisher::of(&target) {
            Finisher::TargetRobot => &self.off_cells,
            Finisher::AnyRobot => &off_finisher,
        };
        !off_finisher.contains(&placement.target_robot)
            && !placement.helpers.iter().any(|c| helpers_off.contains(c))
            && moves.is_none_or(|moves| moves >= self.min_moves())
    }
}

/// What to collect besides the histograms.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Which placements are legal.
    pub legality: Legality,
    /// How many placements to sample, spread evenly over the helper sets
    /// ([`sample_placements`]); their move counts come back in [`Analysis::sample`].
    pub sample_size: usize,
    /// Placements whose move counts come back in [`Analysis::watched`].
    pub watch: Vec<Placement>,
    /// Depths from this one on keep up to `top_per_depth` placements in [`Analysis::top`].
    pub top_from: u8,
    pub top_per_depth: usize,
    /// Every depth keeps up to this many legal placements in [`Analysis::legal_samples`].
    pub legal_per_depth: usize,
    /// The deepest legal depth keeps up to this many placements in
    /// [`Analysis::legal_hardest`].
    pub legal_hardest: usize,
    /// Computes with the portable kernel even where the CPU has AVX-512, so that a test
    /// can check that both kernels give the same analysis.
    pub portable_kernel: bool,
}

/// What the analysis of one unit finds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// Every placement counted once.
    pub placements: u64,
    /// `histogram[d]`: placements needing `d` moves (`histogram[0]` is always 0: the
    /// target robot must make the last move).
    pub histogram: Vec<u64>,
    /// The same over legal placements ([`Legality`]).
    pub legal_histogram: Vec<u64>,
    /// Placements from which the target cannot be reached at all.
    pub unsolvable: u64,
    /// The most moves any solvable placement needs (0 if none is solvable).
    pub max_moves: u8,
    /// Every placement needing `max_moves`, in (helper set rank, cell) order.
    pub hardest: Vec<Placement>,
    /// For each depth from `top_from` on (ascending), up to `top_per_depth` of its
    /// placements, spread evenly over that depth's placements in (rank, cell) order.
    pub top: Vec<(u8, Vec<Placement>)>,
    /// The sampled placements with their move counts (`None`: unsolvable).
    pub sample: Vec<(Placement, Option<u8>)>,
    /// For each depth from 1 to `max_moves`, up to `legal_per_depth` of its legal
    /// placements, spread evenly over them in (rank, cell) order (empty where none is
    /// legal): a deterministic sample of every depth, for packs.
    pub legal_samples: Vec<Vec<Placement>>,
    /// Up to `legal_hardest` legal placements at the deepest depth any legal placement
    /// needs (every one of them when there are no more), spread as above.
    pub legal_hardest: Vec<Placement>,
    /// The watched placements' move counts, in the order given.
    pub watched: Vec<Option<u8>>,
}

/// One finished layer, for progress reports.
#[derive(Clone, Copy, Debug)]
pub struct Layer {
    pub depth: u8,
    /// Placements needing exactly `depth` moves.
    pub found: u64,
    /// Placements solved so far (depth at most `depth`).
    pub solved: u64,
    /// All placements of the unit.
    pub placements: u64,
}

/// Why a unit cannot be analysed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnitError {
    #[error("a unit has 1 to {MAX_HELPERS} helpers, not {0}")]
    Helpers(usize),
    #[error("the target cell {0} is not a cell a robot may stand on")]
    Target(Cell),
    #[error("placement {0:?} is not one of this unit's placements")]
    Placement(Placement),
    #[error("some placement needs more than 254 moves")]
    TooDeep,
    #[error("exhaustive analysis does not know diagonal walls (mirrors)")]
    Mirrors,
    #[error(
        "the unit has more than {0} states under these rules (each robot's last line \
         counts); exhaustive analysis under rules that restrict moves is for small boards"
    )]
    TooManyStates(usize),
    #[error("the analysis was stopped after {0} layers")]
    Stopped(u8),
}

/// Checks the unit's shape and returns its free cells.
fn unit_cells(board: &Board, helpers: usize) -> Result<Cells, UnitError> {
    if !(1..=MAX_HELPERS).contains(&helpers) {
        return Err(UnitError::Helpers(helpers));
    }
    Ok(Cells::new(board))
}

/// Checks that the unit can be analysed (no mirrors, a free target) and returns its free
/// cells.
fn analysed_cells(board: &Board, target: Target, helpers: usize) -> Result<Cells, UnitError> {
    let cells = unit_cells(board, helpers)?;
    if board.has_mirrors() {
        return Err(UnitError::Mirrors);
    }
    if !cells.is_free(target.cell) {
        return Err(UnitError::Target(target.cell));
    }
    Ok(cells)
}

/// How many placements of a target robot and `helpers` helpers `board` has (sets of
/// `helpers + 1` cells when any robot finishes).
pub fn placements(board: &Board, helpers: usize, finisher: Finisher) -> Result<u64, UnitError> {
    Ok(unit_cells(board, helpers)?.placements(helpers, finisher))
}

/// The `size` placements an analysis samples: helper sets evenly spread over their ranks,
/// each with a target-robot cell chosen by rank among the cells the set leaves free.
/// Deterministic, so a checker can tell which placements a result must report. When any
/// robot finishes, each placement is given as its set: the smallest cell first.
pub fn sample_placements(
    board: &Board,
    helpers: usize,
    finisher: Finisher,
    size: usize,
) -> Result<Vec<Placement>, UnitError> {
    let cells = unit_cells(board, helpers)?;
    let sets = cells.sets_of(helpers);
    let size = size.min(sets);
    Ok((0..size)
        .filter_map(|i| {
            let rank = (i as u128 * sets as u128 / size as u128) as usize;
            let set = nth_set(&cells, helpers, rank);
            let open: Vec<Cell> = cells
                .free
                .iter()
                .copied()
                .filter(|c| !set[..helpers].contains(c))
                .collect();
            let &cell = open.get(rank % open.len().max(1))?;
            let placement = Placement {
                target_robot: cell,
                helpers: set[..helpers].to_vec(),
            };
            Some(match finisher {
                Finisher::TargetRobot => placement,
                Finisher::AnyRobot => placement.as_set(),
            })
        })
        .collect())
}

/// The helper set of colex rank `rank` (greedy from the largest element down).
fn nth_set(cells: &Cells, helpers: usize, mut rank: usize) -> Set {
    let mut set = [0 as Cell; MAX_HELPERS];
    let mut limit = cells.free.len();
    for k in (1..=helpers).rev() {
        // The largest index i < limit with C(i, k) ≤ rank.
        let i = (k - 1..limit)
            .rev()
            .find(|&i| cells.rank_term(i, k) <= rank)
            .expect("rank is below C(free, k)");
        rank -= cells.rank_term(i, k);
        set[k - 1] = cells.free[i];
        limit = i;
    }
    set
}

/// Analyses every placement of a target robot and `helpers` interchangeable helpers on
/// `board` for `target` (internal cell; a wild target lets any robot finish). Runs on the
/// current rayon pool and calls `on_layer` after each layer, which may stop the analysis
/// (a lost lease, Ctrl-C).
pub fn analyse(
    board: &Board,
    target: Target,
    helpers: usize,
    options: &Options,
    on_layer: impl FnMut(&Layer) -> ControlFlow<()>,
) -> Result<Analysis, UnitError> {
    let cells = analysed_cells(board, target, helpers)?;
    match helpers {
        1 => analyse_with::<1>(board, target, cells, options, on_layer),
        2 => analyse_with::<2>(board, target, cells, options, on_layer),
        3 => analyse_with::<3>(board, target, cells, options, on_layer),
        _ => Err(UnitError::Helpers(helpers)),
    }
}

/// [`analyse`] with `H` helpers.
fn analyse_with<const H: usize>(
    board: &Board,
    target: Target,
    cells: Cells,
    options: &Options,
    mut on_layer: impl FnMut(&Layer) -> ControlFlow<()>,
) -> Result<Analysis, UnitError> {
    let helpers = H;
    let finisher = Finisher::of(&target);
    let sampled = sample_placements(board, helpers, finisher, options.sample_size)?;
    let legality = &options.legality;
    let off_target_robot = mask_of(&legality.off_finisher(target.cell));
    let off_helpers = match finisher {
        Finisher::TargetRobot => mask_of(&legality.off_cells),
        Finisher::AnyRobot => off_target_robot,
    };
    let mut sweep = Sweep::<H>::new(
        board,
        cells,
        finisher,
        [off_target_robot, off_helpers],
        !options.portable_kernel,
    );
    let probes: Vec<(usize, Cell)> = sampled
        .iter()
        .chain(&options.watch)
        .map(|p| sweep.locate(p))
        .collect::<Result<_, _>>()?;
    let mut probe_depths: Vec<Option<u8>> = vec![None; probes.len()];
    let placements = sweep.cells.placements(helpers, finisher);
    let mut histogram = vec![0u64];
    let mut legal_histogram = vec![0u64];
    let mut top = Vec::new();
    let mut legal_samples = Vec::new();
    let mut legal_hardest = Vec::new();
    let (mut found, mut legal) = sweep.first_layer(target.cell);
    while found > 0 {
        let depth = histogram.len() as u8;
        if depth < legality.min_moves() {
            legal = 0;
        }
        histogram.push(found);
        legal_histogram.push(legal);
        for (known, &(rank, cell)) in probe_depths.iter_mut().zip(&probes) {
            if known.is_none() && sweep.frontier_has(rank, cell) {
                *known = Some(depth);
            }
        }
        if depth >= options.top_from && options.top_per_depth > 0 {
            top.push((depth, sweep.spread(found, options.top_per_depth, false)));
        }
        // One pass over the layer picks both lists.
        let sample_picks: Vec<u64> = even_picks(legal, options.legal_per_depth).collect();
        let hardest_picks: Vec<u64> = even_picks(legal, options.legal_hardest).collect();
        let mut picks = [sample_picks.as_slice(), &hardest_picks].concat();
        picks.sort_unstable();
        picks.dedup();
        let picked = sweep.pick(&picks, true);
        let placements_at = |wanted: &[u64]| -> Vec<Placement> {
            let at = |pick| picked[picks.binary_search(pick).expect("a pick of the union")].clone();
            wanted.iter().map(at).collect()
        };
        legal_samples.push(placements_at(&sample_picks));
        if legal > 0 {
            legal_hardest = placements_at(&hardest_picks);
        }
        let layer = Layer {
            depth,
            found,
            solved: histogram.iter().sum(),
            placements,
        };
        if on_layer(&layer).is_break() {
            return Err(UnitError::Stopped(depth));
        }
        if depth == u8::MAX - 1 {
            return Err(UnitError::TooDeep);
        }
        (found, legal) = sweep.step();
    }
    let max_moves = (histogram.len() - 1) as u8;
    let hardest = if max_moves == 0 {
        Vec::new()
    } else {
        sweep.spread(histogram[max_moves as usize], usize::MAX, false)
    };
    let solvable: u64 = histogram.iter().sum();
    let sample_depths = probe_depths.split_off(sampled.len());
    Ok(Analysis {
        placements,
        histogram,
        legal_histogram,
        unsolvable: placements - solvable,
        max_moves,
        hardest,
        top,
        sample: sampled.into_iter().zip(probe_depths).collect(),
        watched: sample_depths,
        legal_samples,
        legal_hardest,
    })
}

/// The picks of an even spread of `wanted` over `found` items, in order.
fn even_picks(found: u64, wanted: usize) -> impl Iterator<Item = u64> {
    let wanted = (wanted as u64).min(found);
    (0..wanted).map(move |i| (i as u128 * found as u128 / wanted as u128) as u64)
}
