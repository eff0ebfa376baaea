//! The pure checks of an exhaustive unit's result, which need no store and no lock: its
//! integrity (kind, digest), its shape (histograms add up to the unit's placements, the
//! maximum is the last depth, the placement lists have the sizes the histogram implies and
//! hold valid, distinct placements, the sample is the deterministic one) and then its
//! claims: every hardest and every sampled placement is solved again with the IDA* solver.

use super::super::identity::secret_draw;
use super::super::{ExhaustiveUnit, PlacementList, Rejection, Submission};
use ricochet::edition::{unit_geometry, UnitGeometry};
use ricochet::exhaustive::{sample_placements, Finisher, Legality, Placement, LEGAL_PER_DEPTH};
use ricochet::solver::with_thread_solver;
use ricochet::{Board, LayoutError, Move, Puzzle, Target};
use rrm_model::exhaustive_digest;
use rrm_model::{ExhaustiveRecord, ExhaustiveResult, PlacementCells};
use std::collections::HashSet;

/// Helpers beside the target robot: four robots in all.
const HELPERS: usize = 3;

/// The board and target of one exhaustive unit: its placements' count and puzzles.
pub struct UnitBoard {
    board: Board,
    target: Target,
    finisher: Finisher,
    /// The target robot's slot in colour order (R, G, B, Y; any for the vortex).
    slot: usize,
    /// The token's cell, `y * 16 + x`.
    pub target_cell: u8,
    /// Which placements are legal.
    legality: Legality,
}

impl UnitBoard {
    pub fn new(board: &str, token: &str) -> Result<UnitBoard, LayoutError> {
        let UnitGeometry {
            board,
            target,
            legality,
        } = unit_geometry(board, token)?;
        Ok(UnitBoard {
            legality,
            target_cell: board.index_of(target.cell) as u8,
            finisher: Finisher::of(&target),
            slot: target.colour.map_or(0, |colour| colour.robot()),
            target,
            board,
        })
    }

    /// Every placement of the unit: the target robot on any free cell, three helpers on
    /// three others (four robots on a set of four cells, for the vortex).
    pub fn placements(&self) -> u64 {
        ricochet::exhaustive::placements(&self.board, HELPERS, self.finisher)
            .expect("three helpers make a unit")
    }

    /// The placement `cells` names, if it is one of this unit's.
    fn placement(&self, cells: &PlacementCells) -> Option<Placement> {
        let mut internal = [0; 4];
        for (to, &index) in internal.iter_mut().zip(cells) {
            let cell = self.board.cell_checked(i64::from(index)).ok()?;
            if self.board.is_blocked(cell) {
                return None;
            }
            *to = cell;
        }
        let helpers = &internal[1..];
        // A set of cells is named once: by its smallest cell first.
        let named_once = self.finisher == Finisher::TargetRobot || internal[0] < helpers[0];
        let valid = helpers.windows(2).all(|w| w[0] < w[1])
            && !helpers.contains(&internal[0])
            && named_once;
        valid.then(|| Placement {
            target_robot: internal[0],
            helpers: helpers.to_vec(),
        })
    }

    /// Whether a placement of the unit needing `moves` moves is legal (`false` for cells
    /// that are no placement of the unit).
    pub fn is_legal(&self, cells: &PlacementCells, moves: u8) -> bool {
        self.placement(cells)
            .is_some_and(|placement| (self.legality).allows(&placement, self.target, Some(moves)))
    }

    /// The puzzle of a placement: robots in colour order, the target robot in its slot.
    pub fn puzzle(&self, cells: &PlacementCells) -> Option<Puzzle> {
        let placement = self.placement(cells)?;
        Puzzle::new(self.board.clone(), placement.robots(self.slot), self.target).ok()
    }

    fn cells_of(&self, placement: &Placement) -> PlacementCells {
        let cells: Vec<u8> = placement
            .indices(&self.board)
            .iter()
            .map(|&i| i as u8)
            .collect();
        cells.try_into().expect("a unit has four robots")
    }
}

/// Kind and digest: a submission failing these is refused without any change. Returns
/// the digest.
pub(in crate::core) fn check_exhaustive_integrity(
    submission: &Submission,
    work: &ExhaustiveUnit,
) -> Result<[u8; 32], Rejection> {
    let wrong_kind = Rejection::WrongKind {
        expected: "an exhaustive campaign",
        got: "seed",
    };
    let Some(result) = &submission.exhaustive else {
        return Err(wrong_kind);
    };
    if !submission.move_counts.is_empty() || !submission.robots_moved.is_empty() {
        return Err(wrong_kind);
    }
    let lease = &submission.lease;
    let digest = exhaustive_digest(
        &lease.campaign,
        lease.unit,
        (&work.board, &work.token),
        result,
    );
    if submission.digest != digest {
        return Err(Rejection::DigestMismatch);
    }
    Ok(digest)
}

/// Checks an exhaustive result's shape and re-solves its hardest, legal hardest and
/// sampled placements; returns what the store keeps (with the coordinator's solutions of
/// the hardest, and the CPU time its producer reported).
pub(in crate::core) fn check_exhaustive(
    work: &ExhaustiveUnit,
    unit: &UnitBoard,
    result: &ExhaustiveResult,
    cpu_ms: u64,
    resolving: ReSolving<'_>,
) -> Result<ExhaustiveRecord, Rejection> {
    check_histograms(unit, result)?;
    let max = result.max_moves;
    let at_max = if max == 0 {
        0
    } else {
        result.histogram[usize::from(max)]
    };
    check_list(
        unit,
        PlacementList::Hardest,
        &result.hardest,
        work.max_hardest as usize,
        at_max,
    )?;
    let first_top = work.top_from.max(1);
    let expected: Vec<u8> = if work.top_per_depth == 0 || first_top > max {
        Vec::new()
    } else {
        (first_top..=max).collect()
    };
    let got: Vec<u8> = result.top.iter().map(|(depth, _)| *depth).collect();
    if got != expected {
        return Err(Rejection::TopDepths { expected, got });
    }
    for (depth, placements) in &result.top {
        let list = PlacementList::Top { depth: *depth };
        let found = result.histogram[usize::from(*depth)];
        check_list(unit, list, placements, work.top_per_depth as usize, found)?;
    }
    check_sample(work, unit, result)?;
    check_legal_lists(work, unit, result)?;
    let [hardest, legal_hardest] = resolving.claimed;
    let hardest_solutions = re_solve_drawn(
        unit,
        &result.hardest,
        max,
        PlacementList::Hardest,
        max,
        (resolving.budget, hardest),
    )?;
    let legal_hardest_solutions = re_solve_drawn(
        unit,
        &result.legal_hardest,
        max,
        PlacementList::LegalHardest,
        result.legal_max_moves(),
        (resolving.budget, legal_hardest),
    )?;
    for (index, (cells, depth)) in result.sample.iter().enumerate() {
        re_solve(unit, cells, max, PlacementList::Sample, index, *depth)?;
    }
    Ok(ExhaustiveRecord {
        result: result.clone(),
        hardest_solutions,
        legal_hardest_solutions,
        cpu_ms,
        rrm_version: env!("CARGO_PKG_VERSION").to_string(),
    })
}

/// The legal lists: one sample per depth from 1 to the maximum, each of
/// `min(legal placements, LEGAL_PER_DEPTH)` legal placements, and the legal hardest:
/// `min(legal placements at the legal maximum, max_hardest)` of them.
fn check_legal_lists(
    work: &ExhaustiveUnit,
    unit: &UnitBoard,
    result: &ExhaustiveResult,
) -> Result<(), Rejection> {
    let depths = usize::from(result.max_moves);
    if result.legal_samples.len() != depths {
        return Err(Rejection::WrongCount {
            list: PlacementList::LegalSample { depth: 0 },
            expected: depths,
            got: result.legal_samples.len(),
        });
    }
    for (index, placements) in result.legal_samples.iter().enumerate() {
        let depth = index + 1;
        let list = PlacementList::LegalSample { depth: depth as u8 };
        let found = result.legal_histogram[depth];
        check_list(unit, list, placements, LEGAL_PER_DEPTH, found)?;
        check_legal(unit, list, placements, depth as u8)?;
    }
    let list = PlacementList::LegalHardest;
    let found = result.legal_histogram[usize::from(result.legal_max_moves())];
    check_list(
        unit,
        list,
        &result.legal_hardest,
        work.max_hardest as usize,
        found,
    )?;
    check_legal(unit, list, &result.legal_hardest, result.legal_max_moves())
}

/// Every placement of a legal list, at `moves` moves, is legal.
fn check_legal(
    unit: &UnitBoard,
    list: PlacementList,
    placements: &[PlacementCells],
    moves: u8,
) -> Result<(), Rejection> {
    match placements
        .iter()
        .position(|cells| !unit.is_legal(cells, moves))
    {
        Some(index) => Err(Rejection::IllegalPlacement { list, index }),
        None => Ok(()),
    }
}

/// The histograms: as long as each other, legal within all, no empty depth from 1 to the
/// maximum, nothing at 0 moves, the maximum the last depth, and the placements all told.
fn check_histograms(unit: &UnitBoard, result: &ExhaustiveResult) -> Result<(), Rejection> {
    let (all, legal) = (&result.histogram, &result.legal_histogram);
    if all.len() != legal.len() || all.is_empty() {
        return Err(Rejection::HistogramLengths {
            all: all.len(),
            legal: legal.len(),
        });
    }
    if let Some(depth) = all.iter().zip(legal).position(|(a, l)| l > a) {
        return Err(Rejection::LegalOverAll { depth });
    }
    if all[0] != 0 {
        return Err(Rejection::EmptyDepth { depth: 0 });
    }
    if all.len() - 1 != usize::from(result.max_moves) {
        return Err(Rejection::WrongMaximum {
            claimed: result.max_moves,
            last: all.len() - 1,
        });
    }
    if let Some(depth) = (1..all.len()).find(|&d| all[d] == 0) {
        return Err(Rejection::EmptyDepth { depth });
    }
    let told = all.iter().map(|&c| u128::from(c)).sum::<u128>() + u128::from(result.unsolvable);
    let expected = unit.placements();
    if told != u128::from(expected) {
        return Err(Rejection::PlacementTotal {
            expected,
            got: told,
        });
    }
    Ok(())
}

/// A placement list: at most `bound` long, exactly `min(found, bound)` long, every
/// placement valid and none twice.
fn check_list(
    unit: &UnitBoard,
    list: PlacementList,
    placements: &[PlacementCells],
    bound: usize,
    found: u64,
) -> Result<(), Rejection> {
    if placements.len() > bound {
        return Err(Rejection::TooMany {
            list,
            bound,
            got: placements.len(),
        });
    }
    let expected = found.min(bound as u64) as usize;
    if placements.len() != expected {
        return Err(Rejection::WrongCount {
            list,
            expected,
            got: placements.len(),
        });
    }
    let mut seen = HashSet::new();
    for (index, cells) in placements.iter().enumerate() {
        if unit.placement(cells).is_none() {
            return Err(Rejection::InvalidPlacement { list, index });
        }
        if !seen.insert(cells) {
            return Err(Rejection::DuplicatePlacement { list, index });
        }
    }
    Ok(())
}

/// The sample must be exactly the placements [`sample_placements`] gives, in order.
fn check_sample(
    work: &ExhaustiveUnit,
    unit: &UnitBoard,
    result: &ExhaustiveResult,
) -> Result<(), Rejection> {
    let list = PlacementList::Sample;
    let expected = sample_placements(
        &unit.board,
        HELPERS,
        unit.finisher,
        work.sample_size as usize,
    )
    .map_err(|_| Rejection::InvalidPlacement { list, index: 0 })?;
    if result.sample.len() > expected.len() {
        return Err(Rejection::TooMany {
            list,
            bound: expected.len(),
            got: result.sample.len(),
        });
    }
    if result.sample.len() != expected.len() {
        return Err(Rejection::WrongCount {
            list,
            expected: expected.len(),
            got: result.sample.len(),
        });
    }
    for (index, ((cells, _), placement)) in result.sample.iter().zip(&expected).enumerate() {
        if *cells != unit.cells_of(placement) {
            return Err(Rejection::WrongSample { index });
        }
    }
    Ok(())
}

/// Placements of a hardest list the coordinator solves again: all of a list this long
/// or shorter, else this many drawn in secret. A 14-move placement takes milliseconds and
/// a census unit may list hundreds at its maximum; a wrong one among those not drawn is
/// left to the unit's second computation by another identity.
pub const RESOLVE_BUDGET: usize = 32;

/// Placements of each hardest list an import solves again unless asked to recheck: the
/// file's own solutions of the others are replayed instead (a replay proves a solution of
/// that length, not that none is shorter).
pub const IMPORT_RESOLVE_BUDGET: usize = 2;

/// How the hardest lists are checked: how many placements of each are solved again
/// (drawn in secret), and the solutions a unit file claims for them, by list (hardest,
/// legal hardest), which are replayed and kept for the placements not drawn.
#[derive(Clone, Copy, Debug)]
pub struct ReSolving<'a> {
    pub budget: usize,
    pub claimed: [&'a [Vec<String>]; 2],
}

impl ReSolving<'_> {
    /// A worker's result: [`RESOLVE_BUDGET`] of each list, nothing claimed.
    pub const WORKER: ReSolving<'static> = ReSolving {
        budget: RESOLVE_BUDGET,
        claimed: [&[], &[]],
    };
}

/// Solves again the placements of a list of claimed depth `depth` (all, or `budget` drawn
/// in secret) and replays the `claimed` solutions; returns a solution per placement: the
/// claimed one where a file gives one, else the coordinator's, empty for the ones neither
/// drawn nor claimed.
fn re_solve_drawn(
    unit: &UnitBoard,
    placements: &[PlacementCells],
    max: u8,
    list: PlacementList,
    depth: u8,
    (budget, claimed): (usize, &[Vec<String>]),
) -> Result<Vec<Vec<String>>, Rejection> {
    let all = placements.len() <= budget;
    let mut drawn = vec![all; placements.len()];
    let mut left = if all { 0 } else { budget };
    while left > 0 {
        let index = (secret_draw() * placements.len() as f64) as usize;
        if let Some(slot) = drawn.get_mut(index).filter(|slot| !**slot) {
            *slot = true;
            left -= 1;
        }
    }
    let mut solutions = Vec::with_capacity(placements.len());
    for (index, cells) in placements.iter().enumerate() {
        let solved = match drawn[index] {
            true => Some(re_solve(unit, cells, max, list, index, Some(depth))?),
            false => None,
        };
        // A file's claims are kept as they are, so that its unit exports to the same
        // bytes: replayed where given, empty where its coordinator solved none.
        solutions.push(match (claimed.get(index), solved) {
            (Some(claim), _) if !claim.is_empty() => {
                replay(unit, cells, list, index, depth, claim)?
            }
            (Some(_), _) | (None, None) => Vec::new(),
            (None, Some(solution)) => solution,
        });
    }
    Ok(solutions)
}

/// A claimed solution of a placement, kept when it solves it in exactly `depth` moves.
fn replay(
    unit: &UnitBoard,
    cells: &PlacementCells,
    list: PlacementList,
    index: usize,
    depth: u8,
    solution: &[String],
) -> Result<Vec<String>, Rejection> {
    let puzzle = unit
        .puzzle(cells)
        .ok_or(Rejection::InvalidPlacement { list, index })?;
    let moves: Option<Vec<Move>> = solution.iter().map(|m| Move::from_notation(m)).collect();
    match moves {
        Some(moves) if moves.len() == usize::from(depth) && puzzle.is_solution(&moves) => {
            Ok(solution.to_vec())
        }
        _ => Err(Rejection::WrongPlacementSolution { list, index, depth }),
    }
}

/// Solves a placement again: a claimed depth must be its exact optimum, a claimed
/// unsolvable placement must have no solution within the unit's maximum `max`. Returns
/// the solution found (empty for an unsolvable one).
fn re_solve(
    unit: &UnitBoard,
    cells: &PlacementCells,
    max: u8,
    list: PlacementList,
    index: usize,
    claimed: Option<u8>,
) -> Result<Vec<String>, Rejection> {
    let puzzle = unit
        .puzzle(cells)
        .ok_or(Rejection::InvalidPlacement { list, index })?;
    let limit = claimed.unwrap_or(max);
    let found = with_thread_solver(limit, |solver| solver.solve(&puzzle)).ok();
    match (claimed, found) {
        (Some(depth), Some(solution)) if solution.moves.len() == usize::from(depth) => {
            Ok(solution.moves.iter().map(|m| m.notation()).collect())
        }
        (None, None) => Ok(Vec::new()),
        (claimed, found) => Err(Rejection::WrongDepth {
            list,
            index,
            claimed,
            found: found.map(|s| s.moves.len()),
        }),
    }
}
