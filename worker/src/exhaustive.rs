//! One exhaustive unit on the rayon pool: every placement of four robots for one board and
//! target analysed by `ricochet::exhaustive::analyse`, the placements solved so far
//! reported after each layer (where the caller may stop the analysis), and the result as
//! its message with its digest.

use cpu_time::ProcessTime;
use ricochet::exhaustive::{analyse, Options, Placement, LEGAL_PER_DEPTH};
use ricochet::{Board, Layout};
use rrm_proto::v1 as pb;
use rrm_proto::ExhaustiveParts;
use std::ops::ControlFlow;

/// Helpers beside the target robot: four robots in all.
const HELPERS: usize = 3;

/// An analysed unit, ready to submit.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysed {
    pub result: pb::ExhaustiveResult,
    /// [`rrm_proto::exhaustive_digest`] of the result, bound to its unit.
    pub digest: [u8; 32],
}

/// Why a unit cannot be analysed here (the unit is abandoned).
#[derive(Debug, thiserror::Error)]
pub enum ExhaustiveError {
    #[error(transparent)]
    Layout(#[from] ricochet::LayoutError),
    #[error(transparent)]
    Unit(#[from] ricochet::exhaustive::UnitError),
    #[error("top_from {0} is over 255")]
    TopFrom(u32),
}

/// Analyses exhaustive unit `unit` (number `unit_number` of `campaign`) on the current
/// rayon pool, calling `on_layer` with the placements solved after each layer; `Break`
/// stops the analysis there (`UnitError::Stopped`). At most `max_hardest` placements at
/// the maximum are kept: the first in (helper set, cell) order. The result reports the
/// process's CPU time over the analysis (the caller runs one analysis at a time).
pub fn analyse_unit(
    campaign: &str,
    unit_number: u64,
    unit: &pb::ExhaustiveUnit,
    on_layer: &mut dyn FnMut(u64) -> ControlFlow<()>,
) -> Result<Analysed, ExhaustiveError> {
    let layout = Layout::parse(&unit.board)?;
    let target = layout.token_cell(&unit.token)?;
    let board = layout.board();
    let options = Options {
        forbidden: layout.target_cells(),
        sample_size: unit.sample_size as usize,
        watch: Vec::new(),
        top_from: u8::try_from(unit.top_from)
            .map_err(|_| ExhaustiveError::TopFrom(unit.top_from))?,
        top_per_depth: unit.top_per_depth as usize,
        legal_per_depth: LEGAL_PER_DEPTH,
        legal_hardest: unit.max_hardest as usize,
    };
    let started = ProcessTime::now();
    let analysis = analyse(&board, target, HELPERS, &options, |layer| {
        on_layer(layer.solved)
    })?;
    let cells = |placements: &[Placement]| -> Vec<[u8; 4]> {
        placements
            .iter()
            .map(|p| placement_cells(&board, p))
            .collect()
    };
    let mut hardest = cells(&analysis.hardest);
    hardest.truncate(unit.max_hardest as usize);
    let top: Vec<(u8, Vec<[u8; 4]>)> = analysis
        .top
        .iter()
        .map(|(depth, placements)| (*depth, cells(placements)))
        .collect();
    let sample: Vec<([u8; 4], Option<u8>)> = analysis
        .sample
        .iter()
        .map(|(placement, depth)| (placement_cells(&board, placement), *depth))
        .collect();
    let legal_samples: Vec<Vec<[u8; 4]>> = analysis
        .legal_samples
        .iter()
        .map(|list| cells(list))
        .collect();
    let legal_hardest = cells(&analysis.legal_hardest);
    let digest = rrm_proto::exhaustive_digest(
        campaign,
        unit_number,
        &unit.board,
        &unit.token,
        &ExhaustiveParts {
            histogram: &analysis.histogram,
            legal_histogram: &analysis.legal_histogram,
            unsolvable: analysis.unsolvable,
            max_moves: analysis.max_moves,
            hardest: &hardest,
            top: &top,
            sample: &sample,
            legal_samples: &legal_samples,
            legal_hardest: &legal_hardest,
        },
    );
    let message = |cells: &[u8; 4]| pb::Placement {
        target_robot: cells[0].into(),
        helpers: cells[1..].iter().map(|&c| c.into()).collect(),
    };
    Ok(Analysed {
        result: pb::ExhaustiveResult {
            histogram: analysis.histogram,
            legal_histogram: analysis.legal_histogram,
            unsolvable: analysis.unsolvable,
            max_moves: analysis.max_moves.into(),
            hardest: hardest.iter().map(message).collect(),
            top: top
                .iter()
                .map(|(depth, list)| pb::DepthPlacements {
                    depth: (*depth).into(),
                    placements: list.iter().map(message).collect(),
                })
                .collect(),
            sample: sample
                .iter()
                .map(|(cells, depth)| pb::SampledPlacement {
                    placement: Some(message(cells)),
                    moves: depth.map(u32::from),
                })
                .collect(),
            legal_samples: legal_samples
                .iter()
                .zip(1u32..)
                .map(|(list, depth)| pb::DepthPlacements {
                    depth,
                    placements: list.iter().map(message).collect(),
                })
                .collect(),
            legal_hardest: legal_hardest.iter().map(message).collect(),
            cpu_ms: started.elapsed().as_millis() as u64,
        },
        digest,
    })
}

/// A placement as the wire has it: target robot, then helpers, as `y * 16 + x`.
fn placement_cells(board: &Board, placement: &Placement) -> [u8; 4] {
    let cells: Vec<u8> = placement.indices(board).iter().map(|&i| i as u8).collect();
    cells.try_into().expect("a unit has four robots")
}
