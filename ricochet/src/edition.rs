//! The first edition's exhaustive units: a board by Fogleman's tile names and a target
//! token, one of his 16 coloured tokens or [`VORTEX`].
//!
//! Fogleman's tile data leaves the vortex out, and the two walls beside it. A vortex
//! unit is therefore played on the physical board, as DriftingDroids builds it from the
//! same tile sides ([`crate::driftingdroids::FOGLEMAN_TILES`]): his walls plus the
//! vortex's. A coloured unit keeps his board exactly, as the census computed it.

use crate::board::{Board, Cell};
use crate::driftingdroids::{DdBoard, TileSide};
use crate::fogleman::{Layout, LayoutError};
use crate::puzzle::Target;

/// The vortex's token in unit names (`1A3B4A2B-VX`): any robot finishes on it.
pub const VORTEX: &str = "VX";

/// A unit's board, target, and the cells no robot stands on in a legal placement (the
/// board's targets).
#[derive(Clone, Debug)]
pub struct UnitGeometry {
    pub board: Board,
    pub target: Target,
    pub forbidden: Vec<Cell>,
}

/// Every token a unit may name, in token order: the 16 coloured ones, then the vortex.
pub fn unit_tokens() -> Vec<&'static str> {
    let layout = &Layout::canonical()[0];
    (layout.targets.iter().map(|&(token, _)| token))
        .chain([VORTEX])
        .collect()
}

/// The geometry of the unit of `board` (Fogleman's tile names, any rotation) and `token`.
pub fn unit_geometry(board: &str, token: &str) -> Result<UnitGeometry, LayoutError> {
    let layout = Layout::parse(board)?;
    if !token.eq_ignore_ascii_case(VORTEX) {
        return Ok(UnitGeometry {
            target: layout.target(token)?,
            forbidden: layout.target_cells(),
            board: layout.board(),
        });
    }
    let sides = layout.tiles.map(|tile| {
        TileSide::from_fogleman_name(tile).expect("every Fogleman tile is a DriftingDroids side")
    });
    let physical = DdBoard::new(sides);
    let vortex = (physical.goals.iter())
        .find(|goal| goal.colour.is_none())
        .expect("Fogleman's tile 2 carries the vortex");
    Ok(UnitGeometry {
        board: physical.board(),
        target: Target {
            cell: vortex.cell,
            colour: None,
            shape: None,
        },
        forbidden: physical.goals.iter().map(|goal| goal.cell).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Direction;

    #[test]
    fn a_vortex_unit_is_fogleman_s_board_plus_the_vortex_s_two_walls() {
        for layout in Layout::canonical() {
            let vortex = unit_geometry(&layout.name(), "vx").unwrap();
            let coloured = unit_geometry(&layout.name(), "RT").unwrap();
            assert_eq!(vortex.target.colour, None);
            assert_eq!(vortex.forbidden.len(), 17);
            for cell in &coloured.forbidden {
                assert!(vortex.forbidden.contains(cell), "{}", layout.name());
            }
            let (ours, his) = (vortex.board.wall_masks(), coloured.board.wall_masks());
            let differing: Vec<usize> = (0..ours.len()).filter(|&i| ours[i] != his[i]).collect();
            // The vortex cell and its two walled neighbours, walls added only.
            assert!((2..=3).contains(&differing.len()), "{differing:?}");
            assert!(differing.contains(&(vortex.target.cell as usize)));
            for i in differing {
                assert_eq!(ours[i] & his[i], his[i], "walls only added");
            }
            let closed = |board: &Board| {
                (Direction::ALL.iter())
                    .filter(|&&dir| board.step_open(vortex.target.cell, dir).is_none())
                    .count()
            };
            assert_eq!(closed(&vortex.board), closed(&coloured.board) + 2);
        }
        assert!(unit_geometry("1A 2A 3A 4A", "VY").is_err());
    }
}
