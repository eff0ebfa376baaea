//! Fogleman's seed → game generator (`../shared/spec/fogleman-generator.md`), exactly.
//!
//! Four of the eight quadrant tiles are drawn, shuffled, rotated into place, four robots
//! are placed by rejection and a target token is chosen, all from Python 2's `random`.

use crate::board::{Board, Cell, Direction, GRID, WALL_E, WALL_N, WALL_S, WALL_W};
use crate::mt::PyRandom;
use crate::puzzle::{Colour, Puzzle, Shape, Target};
use std::collections::HashMap;
use std::sync::OnceLock;

/// The eight quadrant tiles, drawn as the top-left quadrant, rows of 8 cells.
const TILES: [(&str, &str); 8] = [
    ("1A", "NW,N,N,N,NE,NW,N,N,W,S,X,X,X,X,SEYH,W,WE,NWGT,X,X,X,X,N,X,W,X,X,X,X,X,X,X,W,X,X,X,X,X,S,X,SW,X,X,X,X,X,NEBQ,W,NW,X,E,SWRC,X,X,X,S,W,X,X,N,X,X,E,NW"),
    ("1B", "NW,NE,NW,N,NS,N,N,N,W,S,X,E,NWRC,X,X,X,W,NEGT,W,X,X,X,X,X,W,X,X,X,X,X,SEYH,W,W,X,X,X,X,X,N,X,SW,X,X,X,X,X,X,X,NW,X,E,SWBQ,X,X,X,S,W,X,X,N,X,X,E,NW"),
    ("2A", "NW,N,N,NE,NW,N,N,N,W,X,X,X,X,E,SWBC,X,W,S,X,X,X,X,N,X,W,NEYT,W,X,X,S,X,X,W,X,X,X,E,NWGQ,X,X,W,X,SERH,W,X,X,X,X,SW,X,N,X,X,X,X,S,NW,X,X,X,X,X,E,NW"),
    ("2B", "NW,N,N,N,NE,NW,N,N,W,X,SERH,W,X,X,X,X,W,X,N,X,X,X,X,X,WE,SWGQ,X,X,X,X,S,X,SW,N,X,X,X,E,NWYT,X,NW,X,X,X,X,S,X,X,W,X,X,X,X,NEBC,W,S,W,X,X,X,X,X,E,NW"),
    ("3A", "NW,N,N,NE,NW,N,N,N,W,X,X,X,X,SEGH,W,X,WE,SWRQ,X,X,X,N,X,X,SW,N,X,X,X,X,S,X,NW,X,X,X,X,E,NWYC,X,W,X,S,X,X,X,X,X,W,X,NEBT,W,X,X,X,S,W,X,X,X,X,X,E,NW"),
    ("3B", "NW,N,NS,N,NE,NW,N,N,W,E,NWYC,X,X,X,X,X,W,X,X,X,X,X,X,X,W,X,X,X,X,E,SWBT,X,SW,X,X,X,S,X,N,X,NW,X,X,X,NERQ,W,X,X,W,SEGH,W,X,X,X,X,S,W,N,X,X,X,X,E,NW"),
    ("4A", "NW,N,N,NE,NW,N,N,N,W,X,X,X,X,X,X,X,W,X,X,X,X,SEBH,W,X,W,X,S,X,X,N,X,X,SW,X,NEGC,W,X,X,X,X,NW,S,X,X,X,X,E,SWRT,WE,NWYQ,X,X,X,X,X,NS,W,X,X,X,X,X,E,NW"),
    ("4B", "NW,N,N,NE,NW,N,N,N,WE,SWRT,X,X,X,X,S,X,W,N,X,X,X,X,NEGC,W,W,X,X,X,X,X,X,X,W,X,SEBH,W,X,X,X,S,SW,X,N,X,X,X,E,NWYQ,NW,X,X,X,X,X,X,S,W,X,X,X,X,X,E,NW"),
];

/// The 16 tokens, colour-major, as `choice` sees them.
pub(crate) const TOKENS: [&str; 16] = [
    "RC", "RT", "RQ", "RH", "GC", "GT", "GQ", "GH", "BC", "BT", "BQ", "BH", "YC", "YT", "YQ", "YH",
];

/// The centre 2×2 block, where no robot is placed.
pub const CENTRE: [Cell; 4] = [119, 120, 135, 136];

/// A generated game: tile placement, robots, target token and every token's cell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    pub seed: u64,
    /// The board: tiles, walls and every token's cell.
    pub layout: Layout,
    /// Robot cells R, G, B, Y.
    pub robots: [Cell; 4],
    /// The chosen token, e.g. `BT`.
    pub token: &'static str,
}

/// Why a seed was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SeedError {
    #[error("seed 0 is not supported: Fogleman's generator does not re-seed on 0, so its game cannot be reproduced")]
    Zero,
    #[error("the {0} generator deals Ricocheckers positions, not Ricochet Robots puzzles")]
    NotAPuzzle(&'static str),
}

impl Game {
    /// Generates the game of `seed` exactly as Fogleman's Python 2 program does.
    pub fn generate(seed: u64) -> Result<Game, SeedError> {
        if seed == 0 {
            return Err(SeedError::Zero);
        }
        let mut rng = PyRandom::new(seed);
        let mut quads = [0usize; 4];
        for (pair, quad) in quads.iter_mut().enumerate() {
            *quad = rng.choice(&[2 * pair, 2 * pair + 1]);
        }
        rng.shuffle(&mut quads);

        let layout = arrangement(quads).0.clone();

        let mut robots = [0 as Cell; 4];
        for robot in 0..4 {
            robots[robot] = loop {
                let cell = rng.randint(0, 255) as Cell;
                let taken = CENTRE.contains(&cell)
                    || layout.targets.iter().any(|&(_, c)| c == cell)
                    || robots[..robot].contains(&cell);
                if !taken {
                    break cell;
                }
            };
        }
        let token = rng.choice(&TOKENS);
        Ok(Game {
            seed,
            layout,
            robots,
            token,
        })
    }

    /// Cell of the chosen token.
    pub fn token_cell(&self) -> Cell {
        self.layout
            .token_cell(self.token)
            .expect("every token is on the board")
    }

    /// The game as a puzzle for the solver: R, G, B, Y robots, coloured target.
    pub fn puzzle(&self) -> Puzzle {
        let target = self
            .layout
            .target(self.token)
            .expect("every token is on the board");
        let board = self.layout.board();
        Puzzle::new(board, self.robots.to_vec(), target)
            .expect("generated robots avoid the centre and each other")
    }
}

/// Builds the board of Fogleman wall masks, with the centre block blocked.
fn board_of(walls: &[u8; GRID * GRID]) -> Board {
    let walls: Vec<u32> = walls.iter().map(|&w| w as u32).collect();
    let centre: Vec<i64> = CENTRE.iter().map(|&c| c as i64).collect();
    Board::new(GRID, GRID, &walls, &centre).expect("the tile data is consistent")
}

/// The arrangement of tiles `indices` (into [`TILES`], in slot order) and its board, built
/// once for all 384: mining deals the same ones over and over.
fn arrangement(indices: [usize; 4]) -> &'static (Layout, Board) {
    &arrangements()[&indices]
}

/// All 384 arrangements and their boards, by tile indices.
fn arrangements() -> &'static HashMap<[usize; 4], (Layout, Board)> {
    static ALL: OnceLock<HashMap<[usize; 4], (Layout, Board)>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut all = HashMap::new();
        for sides in 0..16usize {
            for order in permutations() {
                let indices = order.map(|number| 2 * number + (sides >> number & 1));
                let layout = Layout::from_tile_indices(indices);
                let board = board_of(&layout.walls);
                all.insert(indices, (layout, board));
            }
        }
        all
    })
}

/// The 24 orders of tile numbers 0..4.
fn permutations() -> Vec<[usize; 4]> {
    let mut orders = Vec::with_capacity(24);
    for a in 0..4 {
        for b in (0..4).filter(|&b| b != a) {
            for c in (0..4).filter(|&c| c != a && c != b) {
                orders.push([a, b, c, 6 - a - b - c]);
            }
        }
    }
    orders
}

/// A board arrangement: one tile of each number (1–4, side A or B) in each slot.
/// Fogleman's tiles give 384 of them; rotating a whole board turns one into another, so
/// 96 are distinct up to rotation ([`Layout::canonical`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Tile names in slot order: top-left, top-right, bottom-right, bottom-left.
    pub tiles: [&'static str; 4],
    walls: [u8; GRID * GRID],
    /// Every token on the board with its cell, in token order (`RC`, `RT`, … `YH`).
    pub targets: Vec<(&'static str, Cell)>,
    /// The tiles as indices into [`TILES`], for the board built once.
    indices: [usize; 4],
}

/// Why a board arrangement was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    #[error(
        "a board is four tiles such as \"1A 3B 4A 2B\" (Fogleman's names) or \
         \"DD 1C 2D 3C 4D\" (DriftingDroids' sides), not {0:?}"
    )]
    Shape(String),
    #[error("unknown tile {0:?} (tiles are 1A, 1B, 2A, … 4B)")]
    Tile(String),
    #[error("unknown DriftingDroids side {0:?} (a side is a tile 1–4 and a letter A–D)")]
    Side(String),
    #[error("board {0:?} does not use each tile number 1–4 exactly once")]
    Numbers(String),
    #[error("unknown target token {0:?} (tokens are a colour R, G, B, Y and a shape C, T, Q, H; VX is the vortex)")]
    Token(String),
}

impl Layout {
    fn from_tile_indices(indices: [usize; 4]) -> Layout {
        let mut walls = [0u8; GRID * GRID];
        let mut targets = Vec::with_capacity(16);
        for (slot, &tile) in indices.iter().enumerate() {
            place_tile(TILES[tile].1, slot, &mut walls, &mut targets);
        }
        targets.sort_by_key(|&(token, _)| TOKENS.iter().position(|&t| t == token));
        Layout {
            tiles: indices.map(|i| TILES[i].0),
            walls,
            targets,
            indices,
        }
    }

    /// Parses tile names in slot order, e.g. `1A 3B 4A 2B` (spaces optional).
    pub fn parse(text: &str) -> Result<Layout, LayoutError> {
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        if compact.len() != 8 || !compact.is_ascii() {
            return Err(LayoutError::Shape(text.to_string()));
        }
        let mut indices = [0usize; 4];
        for (slot, index) in indices.iter_mut().enumerate() {
            let name = compact[2 * slot..2 * slot + 2].to_ascii_uppercase();
            *index = TILES
                .iter()
                .position(|&(tile, _)| tile == name)
                .ok_or(LayoutError::Tile(name))?;
        }
        let mut numbers: Vec<usize> = indices.iter().map(|i| i / 2).collect();
        numbers.sort_unstable();
        if numbers != [0, 1, 2, 3] {
            return Err(LayoutError::Numbers(text.to_string()));
        }
        Ok(Layout::from_tile_indices(indices))
    }

    /// The 96 arrangements distinct up to rotation: those with tile 1 top-left, in the
    /// order of their names.
    pub fn canonical() -> Vec<Layout> {
        let mut layouts: Vec<Layout> = (arrangements().values())
            .map(|(layout, _)| layout)
            .filter(|layout| layout.tiles[0].starts_with('1'))
            .cloned()
            .collect();
        layouts.sort_by(|a, b| a.tiles.cmp(&b.tiles));
        layouts
    }

    /// The tile names joined by spaces, e.g. `1A 3B 4A 2B`.
    pub fn name(&self) -> String {
        self.tiles.join(" ")
    }

    /// Wall masks of the 16×16 board, index `y * 16 + x`.
    pub fn walls(&self) -> &[u8; GRID * GRID] {
        &self.walls
    }

    /// The board, centre block included.
    pub fn board(&self) -> Board {
        arrangement(self.indices).1.clone()
    }

    /// The cell of a target token such as `RT`.
    pub fn token_cell(&self, token: &str) -> Result<Cell, LayoutError> {
        let token = token.to_ascii_uppercase();
        self.targets
            .iter()
            .find(|&&(t, _)| t == token)
            .map(|&(_, cell)| cell)
            .ok_or(LayoutError::Token(token))
    }

    /// The target of a token such as `RT`: its cell, colour and shape.
    pub fn target(&self, token: &str) -> Result<Target, LayoutError> {
        let cell = self.token_cell(token)?;
        let mut letters = token.chars();
        Ok(Target {
            cell,
            colour: letters.next().and_then(Colour::from_letter),
            shape: letters.next().and_then(Shape::from_letter),
        })
    }

    /// Every token cell: no robot stands on one in a generated game.
    pub fn target_cells(&self) -> Vec<Cell> {
        self.targets.iter().map(|&(_, cell)| cell).collect()
    }
}

/// Rotates `tile` clockwise `slot` quarter turns into its quadrant.
fn place_tile(
    tile: &str,
    slot: usize,
    walls: &mut [u8; GRID * GRID],
    targets: &mut Vec<(&'static str, Cell)>,
) {
    for (i, spec) in tile.split(',').enumerate() {
        let (mut c, mut r) = (i % 8, i / 8);
        for _ in 0..slot {
            (c, r) = (7 - r, c);
        }
        let (x, y) = match slot {
            0 => (c, r),
            1 => (c + 8, r),
            2 => (c + 8, r + 8),
            _ => (c, r + 8),
        };
        let cell = y * GRID + x;
        let (wall_letters, token) = split_token(spec);
        let mut mask = 0u8;
        for letter in wall_letters.chars().filter(|&l| l != 'X') {
            let dir = Direction::from_letter(letter).expect("tile data uses N, E, S, W, X");
            mask |= rotate_wall(dir.wall_bit(), slot);
        }
        walls[cell] = mask;
        if let Some(token) = token {
            targets.push((token, cell as Cell));
        }
    }
}

/// Splits a tile cell such as `SEYH` into its walls and its token.
fn split_token(spec: &str) -> (&str, Option<&'static str>) {
    // Token letters (R G B Y, C T Q H) never occur among wall letters (N E S W X).
    match TOKENS.iter().find(|&&t| spec.ends_with(t)) {
        Some(&token) => (&spec[..spec.len() - 2], Some(token)),
        None => (spec, None),
    }
}

fn rotate_wall(bit: u8, turns: usize) -> u8 {
    let order = [WALL_N, WALL_E, WALL_S, WALL_W];
    let from = order
        .iter()
        .position(|&b| b == bit)
        .expect("a single wall bit");
    order[(from + turns) % 4]
}
