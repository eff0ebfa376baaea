//! Exhaustive results and the placements they list, both in a submission and as mined
//! placements in a query's reply.

use super::{moves_u8, WireError};
use crate::v1 as pb;
use rrm_model::{ExhaustiveResult, MinedPlacement, PlacementCells};

fn placement_cells(placement: pb::Placement) -> Result<PlacementCells, WireError> {
    let cells: Vec<u8> = std::iter::once(placement.target_robot)
        .chain(placement.helpers)
        .map(|cell| u8::try_from(cell).map_err(|_| WireError::BadPlacement))
        .collect::<Result<_, _>>()?;
    cells.try_into().map_err(|_| WireError::BadPlacement)
}

fn placement_message(cells: &PlacementCells) -> pb::Placement {
    pb::Placement {
        target_robot: cells[0].into(),
        helpers: cells[1..].iter().map(|&c| c.into()).collect(),
    }
}

/// An exhaustive result from the wire; sizes are the coordinator's to judge.
pub fn exhaustive_result(result: pb::ExhaustiveResult) -> Result<ExhaustiveResult, WireError> {
    let placements = |list: Vec<pb::Placement>| {
        list.into_iter()
            .map(placement_cells)
            .collect::<Result<Vec<_>, _>>()
    };
    Ok(ExhaustiveResult {
        histogram: result.histogram,
        legal_histogram: result.legal_histogram,
        unsolvable: result.unsolvable,
        max_moves: moves_u8(result.max_moves, "max_moves")?,
        hardest: placements(result.hardest)?,
        top: result
            .top
            .into_iter()
            .map(|d| Ok((moves_u8(d.depth, "depth")?, placements(d.placements)?)))
            .collect::<Result<_, WireError>>()?,
        sample: result
            .sample
            .into_iter()
            .map(|s| {
                let placement = s.placement.ok_or(WireError::Missing("sample placement"))?;
                let moves = s.moves.map(|m| moves_u8(m, "sample moves")).transpose()?;
                Ok((placement_cells(placement)?, moves))
            })
            .collect::<Result<_, WireError>>()?,
        legal_samples: result
            .legal_samples
            .into_iter()
            .enumerate()
            .map(|(index, d)| {
                if d.depth as usize != index + 1 {
                    return Err(WireError::LegalSampleDepths);
                }
                placements(d.placements)
            })
            .collect::<Result<_, WireError>>()?,
        legal_hardest: placements(result.legal_hardest)?,
    })
}

/// The message of an exhaustive result.
pub fn exhaustive_message(result: &ExhaustiveResult) -> pb::ExhaustiveResult {
    let placements = |list: &[PlacementCells]| list.iter().map(placement_message).collect();
    pb::ExhaustiveResult {
        histogram: result.histogram.clone(),
        legal_histogram: result.legal_histogram.clone(),
        unsolvable: result.unsolvable,
        max_moves: result.max_moves.into(),
        hardest: placements(&result.hardest),
        top: result
            .top
            .iter()
            .map(|(depth, list)| pb::DepthPlacements {
                depth: (*depth).into(),
                placements: placements(list),
            })
            .collect(),
        sample: result
            .sample
            .iter()
            .map(|(cells, moves)| pb::SampledPlacement {
                placement: Some(placement_message(cells)),
                moves: moves.map(u32::from),
            })
            .collect(),
        legal_samples: result
            .legal_samples
            .iter()
            .zip(1u32..)
            .map(|(list, depth)| pb::DepthPlacements {
                depth,
                placements: placements(list),
            })
            .collect(),
        legal_hardest: placements(&result.legal_hardest),
        cpu_ms: 0,
    }
}

impl From<MinedPlacement> for pb::MinedPlacement {
    fn from(mined: MinedPlacement) -> pb::MinedPlacement {
        pb::MinedPlacement {
            placement: Some(placement_message(&mined.placement)),
            campaign: mined.campaign,
            unit: mined.unit,
            board: mined.board,
            token: mined.token,
            target_cell: mined.target_cell.into(),
            moves: mined.moves.into(),
            solution: mined.solution,
        }
    }
}

impl TryFrom<pb::MinedPlacement> for MinedPlacement {
    type Error = WireError;

    fn try_from(mined: pb::MinedPlacement) -> Result<MinedPlacement, WireError> {
        let placement = mined.placement.ok_or(WireError::Missing("placement"))?;
        Ok(MinedPlacement {
            campaign: mined.campaign,
            unit: mined.unit,
            board: mined.board,
            token: mined.token,
            target_cell: u8::try_from(mined.target_cell).map_err(|_| WireError::BadPlacement)?,
            placement: placement_cells(placement)?,
            moves: moves_u8(mined.moves, "moves")?,
            solution: mined.solution,
        })
    }
}
