//! The boards of exhaustive units, and a unit's geometry: a board and a target token, one
//! of the 16 coloured tokens or [`VORTEX`]. A board is named one of two ways:
//!
//! - **Fogleman's tiles** (`1A 3B 4A 2B`), the first edition's census. His tile data
//!   leaves the vortex out, and the two walls beside it. A coloured unit keeps his board
//!   exactly, as the census computed it; a vortex unit is played on the physical board, as
//!   DriftingDroids builds it from the same tile sides
//!   ([`crate::driftingdroids::FOGLEMAN_TILES`]): his walls plus the vortex's. A legal
//!   placement has no robot on a target, as his generator deals.
//! - **DriftingDroids' sides** (`DD 1C 2D 3C 4D`, sides A–D of each tile): the walls, the
//!   vortex walls and the tokens as DriftingDroids builds them (the D sides without their
//!   diagonal walls, which it omits). A legal placement is one DriftingDroids could deal
//!   for the goal: robots on any free cell, targets included, but its goal deck puts back a
//!   goal the game would finish in 0 or 1 move ([`Legality::past_one_move`]).
//!
//! Turning a whole board shifts its slots cyclically, so each board has one canonical name:
//! the rotation with tile 1 top-left.

use crate::board::{Board, Cell};
use crate::driftingdroids::{DdBoard, TileSide};
use crate::exhaustive::Legality;
use crate::fogleman::{Layout, LayoutError, TOKENS};
use crate::puzzle::Target;

/// The vortex's token in unit names (`1A3B4A2B-VX`): any robot finishes on it.
pub const VORTEX: &str = "VX";

/// The prefix of a board named by DriftingDroids' sides.
pub const DD_PREFIX: &str = "DD";

/// A unit's board, its target, and which placements are legal.
#[derive(Clone, Debug)]
pub struct UnitGeometry {
    pub board: Board,
    pub target: Target,
    pub legality: Legality,
}

/// Every token a unit may name, in token order: the 16 coloured ones, then the vortex.
pub fn unit_tokens() -> Vec<&'static str> {
    TOKENS.iter().copied().chain([VORTEX]).collect()
}

/// The geometry of the unit of `board` (either naming, any rotation) and `token`.
pub fn unit_geometry(board: &str, token: &str) -> Result<UnitGeometry, LayoutError> {
    EditionBoard::parse(board)?.geometry(token)
}

/// The canonical name of a board named either way in any rotation.
pub fn canonical_board(board: &str) -> Result<String, LayoutError> {
    Ok(EditionBoard::parse(board)?.canonical().name())
}

/// A board of exhaustive units under one of its two namings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EditionBoard {
    Fogleman(Layout),
    DriftingDroids(DdBoard),
}

impl EditionBoard {
    /// Parses `1A 3B 4A 2B` (Fogleman's tiles) or `DD 1C 2D 3C 4D` (DriftingDroids'
    /// sides), slot order top-left, top-right, bottom-right, bottom-left; spaces optional.
    pub fn parse(text: &str) -> Result<EditionBoard, LayoutError> {
        let trimmed = text.trim_start();
        let Some(sides) = trimmed
            .get(..DD_PREFIX.len())
            .filter(|prefix| prefix.eq_ignore_ascii_case(DD_PREFIX))
            .map(|_| &trimmed[DD_PREFIX.len()..])
        else {
            return Layout::parse(text).map(EditionBoard::Fogleman);
        };
        let compact: String = (sides.chars())
            .filter(|c| !c.is_whitespace() && *c != ':')
            .collect();
        if compact.len() != 8 || !compact.is_ascii() {
            return Err(LayoutError::Shape(text.to_string()));
        }
        let mut parsed = [TileSide::ALL[0]; 4];
        for (slot, side) in parsed.iter_mut().enumerate() {
            let name = &compact[2 * slot..2 * slot + 2];
            *side = TileSide::from_name(name).ok_or_else(|| LayoutError::Side(name.into()))?;
        }
        let mut numbers = parsed.map(TileSide::tile);
        numbers.sort_unstable();
        if numbers != [1, 2, 3, 4] {
            return Err(LayoutError::Numbers(text.to_string()));
        }
        Ok(EditionBoard::DriftingDroids(DdBoard::new(parsed)))
    }

    /// The same board turned so that tile 1 is top-left.
    pub fn canonical(&self) -> EditionBoard {
        match self {
            EditionBoard::Fogleman(layout) => {
                let mut tiles = layout.tiles;
                while !tiles[0].starts_with('1') {
                    tiles.rotate_left(1);
                }
                EditionBoard::Fogleman(Layout::parse(&tiles.concat()).expect("turned tiles"))
            }
            EditionBoard::DriftingDroids(board) => {
                let mut sides = board.sides;
                while sides[0].tile() != 1 {
                    sides.rotate_left(1);
                }
                EditionBoard::DriftingDroids(DdBoard::new(sides))
            }
        }
    }

    /// Its name: `1A 3B 4A 2B` or `DD 1C 2D 3C 4D`.
    pub fn name(&self) -> String {
        match self {
            EditionBoard::Fogleman(layout) => layout.name(),
            EditionBoard::DriftingDroids(board) => {
                let sides = board.sides.map(TileSide::name);
                format!("{DD_PREFIX} {}", sides.join(" "))
            }
        }
    }

    /// The first edition's 96 boards under Fogleman's names, in canonical order.
    pub fn fogleman_canonical() -> Vec<EditionBoard> {
        (Layout::canonical().into_iter())
            .map(EditionBoard::Fogleman)
            .collect()
    }

    /// DriftingDroids' canonical boards whose sides all have a letter of `letters` (e.g.
    /// `CD`, the second edition; `ABCD`, every board it deals: 1,536), in order of their
    /// names.
    pub fn driftingdroids_canonical(letters: &str) -> Vec<EditionBoard> {
        let letters = letters.to_ascii_uppercase();
        let sides_of = |tile: u8| -> Vec<TileSide> {
            (TileSide::ALL.into_iter())
                .filter(|side| side.tile() == tile && letters.contains(&side.name()[1..]))
                .collect()
        };
        let mut boards = Vec::new();
        for order in [
            [2, 3, 4],
            [2, 4, 3],
            [3, 2, 4],
            [3, 4, 2],
            [4, 2, 3],
            [4, 3, 2],
        ] {
            for one in sides_of(1) {
                for a in sides_of(order[0]) {
                    for b in sides_of(order[1]) {
                        for c in sides_of(order[2]) {
                            boards.push(EditionBoard::DriftingDroids(DdBoard::new([one, a, b, c])));
                        }
                    }
                }
            }
        }
        boards.sort_by_key(EditionBoard::name);
        boards
    }

    /// The board, centre block included.
    pub fn board(&self) -> Board {
        match self {
            EditionBoard::Fogleman(layout) => layout.board(),
            EditionBoard::DriftingDroids(board) => board.board(),
        }
    }

    /// Every coloured token with its cell, in token order (`RC`, `RT`, … `YH`).
    pub fn tokens(&self) -> Vec<(&'static str, Cell)> {
        match self {
            EditionBoard::Fogleman(layout) => layout.targets.clone(),
            EditionBoard::DriftingDroids(board) => {
                let mut tokens: Vec<(&'static str, Cell)> = (board.goals.iter())
                    .filter_map(|goal| {
                        let name = format!("{}{}", goal.colour?.letter(), goal.shape?.letter());
                        let token = TOKENS.iter().find(|&&t| t == name)?;
                        Some((*token, goal.cell))
                    })
                    .collect();
                tokens.sort_by_key(|&(token, _)| TOKENS.iter().position(|&t| t == token));
                tokens
            }
        }
    }

    /// The geometry of its unit of `token` (a coloured token or [`VORTEX`]).
    pub fn geometry(&self, token: &str) -> Result<UnitGeometry, LayoutError> {
        let token = token.to_ascii_uppercase();
        let physical = match self {
            EditionBoard::Fogleman(layout) if token != VORTEX => {
                return Ok(UnitGeometry {
                    target: layout.target(&token)?,
                    legality: Legality {
                        off_cells: layout.target_cells(),
                        past_one_move: false,
                    },
                    board: layout.board(),
                });
            }
            EditionBoard::Fogleman(layout) => DdBoard::new(layout.tiles.map(|tile| {
                TileSide::from_fogleman_name(tile).expect("every Fogleman tile is a side")
            })),
            EditionBoard::DriftingDroids(board) => board.clone(),
        };
        let goal = if token == VORTEX {
            physical.goals.iter().find(|goal| goal.colour.is_none())
        } else {
            (physical.goals.iter()).find(|goal| {
                goal.colour.map(|c| c.letter()) == token.chars().next()
                    && goal.shape.map(|s| s.letter()) == token.chars().nth(1)
            })
        };
        let goal = goal.ok_or_else(|| LayoutError::Token(token.clone()))?;
        let legality = match self {
            EditionBoard::Fogleman(_) => Legality {
                off_cells: physical.goals.iter().map(|goal| goal.cell).collect(),
                past_one_move: false,
            },
            EditionBoard::DriftingDroids(_) => Legality {
                off_cells: Vec::new(),
                past_one_move: true,
            },
        };
        Ok(UnitGeometry {
            board: physical.board(),
            target: Target {
                cell: goal.cell,
                colour: goal.colour,
                shape: goal.shape,
            },
            legality,
        })
    }
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
            assert_eq!(vortex.legality.off_cells.len(), 17);
            for cell in &coloured.legality.off_cells {
                assert!(
                    vortex.legality.off_cells.contains(cell),
                    "{}",
                    layout.name()
                );
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

    #[test]
    fn driftingdroids_deals_1536_boards_96_of_each_edition_each_named_once() {
        for (letters, count) in [("CD", 96), ("AB", 96), ("ABCD", 1536), ("d", 6)] {
            let boards = EditionBoard::driftingdroids_canonical(letters);
            let names: std::collections::BTreeSet<String> =
                boards.iter().map(EditionBoard::name).collect();
            assert_eq!((boards.len(), names.len()), (count, count), "{letters}");
            for board in &boards {
                let name = board.name();
                assert!(name.starts_with("DD 1"), "{name}");
                assert_eq!(EditionBoard::parse(&name).unwrap(), *board);
                let EditionBoard::DriftingDroids(dd) = board else {
                    panic!("{name} is a DriftingDroids board")
                };
                for turn in 1..4 {
                    let mut sides = dd.sides;
                    sides.rotate_right(turn);
                    let turned = sides.map(TileSide::name).concat();
                    assert_eq!(canonical_board(&format!("dd{turned}")).unwrap(), name);
                }
            }
        }
        for bad in ["DD 1C 2D 3C", "DD 1C 2D 3C 1D", "DD 1E 2D 3C 4D", "DD"] {
            assert!(EditionBoard::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_first_edition_under_driftingdroids_names_is_fogleman_s_board_plus_the_vortex() {
        for layout in Layout::canonical() {
            let sides = layout
                .tiles
                .map(|tile| TileSide::from_fogleman_name(tile).unwrap());
            let dd_name = format!("DD {}", sides.map(TileSide::name).join(" "));
            let dd = EditionBoard::parse(&dd_name).unwrap();
            let fogleman = EditionBoard::Fogleman(layout.clone());
            assert_eq!(dd.tokens(), fogleman.tokens(), "{dd_name}");
            // The vortex unit: the same board and target under both names.
            let (ours, his) = (
                dd.geometry(VORTEX).unwrap(),
                fogleman.geometry("vx").unwrap(),
            );
            assert_eq!(ours.board, his.board, "{dd_name}");
            assert_eq!(ours.target, his.target, "{dd_name}");
            // A coloured unit: his walls plus the vortex's, the same target.
            for (token, _) in fogleman.tokens() {
                let (ours, his) = (
                    dd.geometry(token).unwrap(),
                    fogleman.geometry(token).unwrap(),
                );
                assert_eq!(ours.target, his.target);
                assert_eq!(ours.board, dd.geometry(VORTEX).unwrap().board);
                assert_eq!(his.legality.off_cells.len(), 16);
                assert_eq!(
                    ours.legality,
                    Legality {
                        off_cells: Vec::new(),
                        past_one_move: true
                    }
                );
            }
        }
    }
}
