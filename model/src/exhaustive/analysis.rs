//! One exhaustive unit analysed: every placement of four robots for its board and target
//! by `ricochet::exhaustive::analyse`, as the domain's result with its digest. Workers
//! analyse their units with it, and the coordinator a share of the units it checks.

use super::{ExhaustiveResult, PlacementCells};
use crate::{exhaustive_digest, ExhaustiveUnit};
use ricochet::edition::{unit_geometry, UnitGeometry};
use ricochet::exhaustive::{analyse, Options, Placement, LEGAL_PER_DEPTH};
use ricochet::Board;
use std::ops::ControlFlow;

/// Helpers beside the target robot: four robots in all.
const HELPERS: usize = 3;

/// Why a unit cannot be analysed.
#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    #[error(transparent)]
    Layout(#[from] ricochet::LayoutError),
    #[error(transparent)]
    Unit(#[from] ricochet::exhaustive::UnitError),
}

/// Analyses exhaustive unit `unit` (number `unit_number` of `campaign`) on the current
/// rayon pool, calling `on_layer` with the placements solved after each layer; `Break`
/// stops the analysis there (`UnitError::Stopped`). At most `max_hardest` placements at
/// the maximum are kept: the first in (helper set, cell) order. Returns the result and
/// its [`exhaustive_digest`], bound to the unit.
pub fn analyse_unit(
    campaign: &str,
    unit_number: u64,
    unit: &ExhaustiveUnit,
    on_layer: &mut dyn FnMut(u64) -> ControlFlow<()>,
) -> Result<(ExhaustiveResult, [u8; 32]), AnalysisError> {
    let UnitGeometry {
        board,
        target,
        legality,
    } = unit_geometry(&unit.board, &unit.token)?;
    let options = Options {
        legality,
        sample_size: unit.sample_size as usize,
        watch: Vec::new(),
        top_from: unit.top_from,
        top_per_depth: unit.top_per_depth as usize,
        legal_per_depth: LEGAL_PER_DEPTH,
        legal_hardest: unit.max_hardest as usize,
        ..Options::default()
    };
    let analysis = analyse(&board, target, HELPERS, &options, |layer| {
        on_layer(layer.solved)
    })?;
    let cells = |placements: &[Placement]| -> Vec<PlacementCells> {
        placements
            .iter()
            .map(|p| placement_cells(&board, p))
            .collect()
    };
    let mut hardest = cells(&analysis.hardest);
    hardest.truncate(unit.max_hardest as usize);
    let result = ExhaustiveResult {
        hardest,
        top: analysis
            .top
            .iter()
            .map(|(depth, placements)| (*depth, cells(placements)))
            .collect(),
        sample: analysis
            .sample
            .iter()
            .map(|(placement, depth)| (placement_cells(&board, placement), *depth))
            .collect(),
        legal_samples: analysis
            .legal_samples
            .iter()
            .map(|list| cells(list))
            .collect(),
        legal_hardest: cells(&analysis.legal_hardest),
        histogram: analysis.histogram,
        legal_histogram: analysis.legal_histogram,
        unsolvable: analysis.unsolvable,
        max_moves: analysis.max_moves,
    };
    let digest = exhaustive_digest(campaign, unit_number, (&unit.board, &unit.token), &result);
    Ok((result, digest))
}

/// A placement as the domain has it: target robot, then helpers, as `y * 16 + x`.
fn placement_cells(board: &Board, placement: &Placement) -> PlacementCells {
    let cells: Vec<u8> = placement.indices(board).iter().map(|&i| i as u8).collect();
    cells.try_into().expect("a unit has four robots")
}
