//! DriftingDroids' boards against Fogleman's (the same physical tiles under other names),
//! game IDs read and written back, and bad IDs refused by their bad part.

use super::*;
use crate::fogleman::Layout;
use crate::mt::PyRandom;

/// Every board of one side of each tile (sides A and B), in every order: 384.
fn original_edition_boards() -> Vec<[TileSide; 4]> {
    let mut boards = Vec::new();
    for order in permutations([0u8, 1, 2, 3]) {
        for flips in 0..16u8 {
            boards.push([0, 1, 2, 3].map(|slot| TileSide(order[slot] + 4 * (flips >> slot & 1))));
        }
    }
    boards
}

fn permutations(items: [u8; 4]) -> Vec<[u8; 4]> {
    let mut all = Vec::new();
    for a in 0..4 {
        for b in (0..4).filter(|&b| b != a) {
            for c in (0..4).filter(|&c| c != a && c != b) {
                let d = 6 - a - b - c;
                all.push([items[a], items[b], items[c], items[d]]);
            }
        }
    }
    all
}

/// The board's walls and its 16 coloured targets (token name → cell).
fn geometry_of_layout(layout: &Layout) -> (Vec<u8>, Vec<(String, Cell)>) {
    let mut targets: Vec<(String, Cell)> = (layout.targets.iter())
        .map(|&(token, cell)| (token.to_string(), cell))
        .collect();
    targets.sort();
    (layout.board().wall_masks(), targets)
}

/// A DriftingDroids board's walls and coloured targets, as Fogleman's program draws it:
/// without the vortex's walls.
fn geometry_of_dd(board: &DdBoard) -> (Vec<u8>, Vec<(String, Cell)>) {
    let mut walls = board.board().wall_masks();
    for vortex in board.goals.iter().filter(|goal| goal.colour.is_none()) {
        for dir in Direction::ALL {
            let Some(neighbour) = dir.step(vortex.cell) else {
                continue;
            };
            walls[vortex.cell as usize] &= !dir.wall_bit();
            walls[neighbour as usize] &= !dir.opposite().wall_bit();
        }
    }
    let mut targets: Vec<(String, Cell)> = (board.goals.iter())
        .filter_map(|goal| {
            let token = format!("{}{}", goal.colour?.letter(), goal.shape?.letter());
            Some((token, goal.cell))
        })
        .collect();
    targets.sort();
    (walls, targets)
}

#[test]
fn fogleman_boards_are_the_same_boards_under_mapped_names() {
    for sides in original_edition_boards() {
        let dd = DdBoard::new(sides);
        // DriftingDroids → Fogleman.
        let names: Vec<&str> = sides.iter().map(|s| s.fogleman_name().unwrap()).collect();
        let layout = Layout::parse(&names.join(" ")).unwrap();
        assert_eq!(
            geometry_of_layout(&layout),
            geometry_of_dd(&dd),
            "{names:?}"
        );
        // Fogleman → DriftingDroids, by the other table lookup.
        let back = layout
            .tiles
            .map(|name| TileSide::from_fogleman_name(name).unwrap());
        assert_eq!(back, sides);
    }
}

#[test]
fn the_mapping_is_the_only_one_that_fits() {
    // In a board of mapped names, no other side in place of one tile gives the same board.
    let names = ["1A", "2B", "3A", "4B"];
    let layout = Layout::parse(&names.join(" ")).unwrap();
    let mapped = names.map(|name| TileSide::from_fogleman_name(name).unwrap());
    for slot in 0..4 {
        let fitting: Vec<TileSide> = (TileSide::ALL.into_iter())
            .filter(|&side| {
                let mut sides = mapped;
                sides[slot] = side;
                geometry_of_dd(&DdBoard::new(sides)) == geometry_of_layout(&layout)
            })
            .collect();
        assert_eq!(fitting, [mapped[slot]], "slot {slot}");
    }
    for side in TileSide::ALL {
        assert_eq!(side.fogleman_name().is_some(), side.number() < 8, "{side}");
        assert_eq!(TileSide::from_name(side.name()), Some(side));
        assert_eq!(side.tile(), side.name()[..1].parse::<u8>().unwrap());
    }
}

#[test]
fn every_side_has_four_coloured_targets_and_tile_4_the_vortex() {
    for side in TileSide::ALL {
        let board = DdBoard::new([side; 4]);
        let in_first: Vec<Goal> = (board.goals.iter().copied())
            .filter(|goal| in_slot(goal.cell as usize, 0))
            .collect();
        let vortices = in_first.iter().filter(|goal| goal.colour.is_none()).count();
        assert_eq!(vortices, usize::from(side.tile() == 4), "{side}");
        let mut colours: Vec<Colour> = in_first.iter().filter_map(|goal| goal.colour).collect();
        colours.sort();
        assert_eq!(colours, Colour::ALL[..4], "{side}");
    }
}

#[test]
fn game_ids_round_trip_over_random_games() {
    let mut rng = PyRandom::new(7);
    for _ in 0..500 {
        let sides = [0, 1, 2, 3].map(|_| TileSide(rng.randint(0, 15) as u8));
        let board = DdBoard::new(sides);
        let count = rng.randint(1, 5) as usize;
        let mut robots = Vec::new();
        while robots.len() < count {
            let cell = rng.randint(0, 255) as Cell;
            if board.walls()[cell as usize] != 15 && !robots.contains(&cell) {
                robots.push(cell);
            }
        }
        let usable: Vec<Goal> = (board.goals.iter().copied())
            .filter(|goal| goal.colour.is_none_or(|c| c.robot() < count))
            .collect();
        let goal = usable[rng.randint(0, usable.len() as u32 - 1) as usize];
        let game = DdGame {
            board,
            robots,
            goal,
        };
        let id = game.id();
        assert_eq!(DdGame::parse(&id), Ok(game.clone()), "{id}");
        assert_eq!(DdGame::parse(&id.to_lowercase()), Ok(game.clone()));
        let puzzle = game.puzzle().unwrap();
        assert_eq!(DdGame::from_puzzle(&puzzle), Some(game), "{id}");
    }
}

#[test]
fn bad_ids_name_their_bad_part() {
    let cases = [
        ("7650+42+E2302B12", "a game ID is"),
        ("765+42+E2302B12+C9", "tile sides \"765\""),
        ("76G0+42+E2302B12+C9", "tile sides"),
        ("7650+62+E2302B12+C9", "robots \"62\""),
        ("7650+44+E2302B12+C9", "robots \"44\""),
        (
            "7650+42+E2302B1+C9",
            "robot cells \"E2302B1\": 4 robots need 8",
        ),
        ("7650+42+E2E22B12+C9", "robot 1 on cell 0xE2: another robot"),
        (
            "7650+42+77302B12+C9",
            "robot 0 on cell 0x77: the centre block",
        ),
        ("7650+42+E2302B12+C", "target \"C\""),
        (
            "7650+42+E2302B12+00",
            "target cell 0x00 holds no target of board 4B 3B 2B 1A",
        ),
        (
            "7650+41+E2302B12+C9",
            "is the blue target, not the green robot's",
        ),
    ];
    for (id, expected) in cases {
        let error = DdGame::parse(id).unwrap_err().to_string();
        assert!(error.contains(expected), "{id}: {error}");
        assert!(!error.contains('\n'));
    }
    let long = format!("{}+42+E2302B12+C9", "7".repeat(10_000));
    assert!(DdGame::parse(&long).unwrap_err().to_string().len() < 200);
}

/// Whether board cell `cell` lies in quadrant `slot`.
fn in_slot(cell: usize, slot: usize) -> bool {
    let (x, y) = (cell % GRID, cell / GRID);
    let half = GRID / 2;
    match slot {
        0 => x < half && y < half,
        1 => x >= half && y < half,
        2 => x >= half && y >= half,
        _ => x < half && y >= half,
    }
}

#[test]
fn dumps_round_trip_for_driftingdroids_boards_and_freestyle_ones() {
    let mut rng = PyRandom::new(11);
    for _ in 0..100 {
        let sides = [0, 1, 2, 3].map(|_| TileSide(rng.randint(0, 15) as u8));
        let board = DdBoard::new(sides);
        let robots = vec![17, 34, 200, 255];
        let goal = board.goals[rng.randint(0, board.goals.len() as u32 - 1) as usize];
        let game = DdGame {
            board,
            robots,
            goal,
        };
        let puzzle = game.puzzle().unwrap();
        let dump = write_dump(&puzzle);
        assert!(dump.starts_with("!DriftingDroids_game!"), "{dump}");
        assert_eq!(read_dump(&dump).unwrap(), puzzle);
        // Line breaks, as mail and forums add them, are ignored.
        let wrapped: String = (dump.chars().collect::<Vec<_>>().chunks(60))
            .map(|line| line.iter().collect::<String>() + "\n")
            .collect();
        assert_eq!(read_dump(&wrapped).unwrap(), puzzle);
    }
    let mut random = crate::random::RandomPuzzles::new(3, 5);
    for _ in 0..50 {
        // Fogleman's boards block the centre; a dump walls it all round, which is the same.
        let puzzle = random.next_puzzle();
        let back = read_dump(&write_dump(&puzzle)).unwrap();
        assert_eq!(back.to_record(None), puzzle.to_record(None));
        assert_eq!(back.target(), puzzle.target());
    }
}

#[test]
fn changed_or_broken_dumps_are_refused() {
    let puzzle = DdGame::parse("7650+42+E2302B12+C9")
        .unwrap()
        .puzzle()
        .unwrap();
    let dump = write_dump(&puzzle);
    let data_at = dump.rfind('!').unwrap() - 10;
    let mut changed = dump.clone().into_bytes();
    changed[data_at] = if changed[data_at] == b'A' { b'B' } else { b'A' };
    let changed = String::from_utf8(changed).unwrap();
    assert!(matches!(read_dump(&changed), Err(DumpError::Crc { .. })));
    assert!(matches!(
        read_dump("!Other_game!00!AA!"),
        Err(DumpError::Frame)
    ));
    assert!(matches!(
        read_dump("7650+42+E2302B12+C9"),
        Err(DumpError::Frame)
    ));
    let data = "AAAAAA==";
    let bad = format!(
        "!DriftingDroids_game!{:08X}!{data}!",
        crc32fast::hash(data.as_bytes())
    );
    assert!(matches!(
        read_dump(&bad),
        Err(DumpError::Inflate(0) | DumpError::Truncated)
    ));
}

/// The D sides' diagonal walls turned into their slots: the board of K. Cox's two mirror
/// games (3D, 1D, 4D, 2D clockwise from the top left) has his eight mirrors, cell, lean
/// and colour, as his game files list them.
#[test]
fn the_d_sides_diagonals_are_k_coxs_mirrors() {
    let sides = ["3D", "1D", "4D", "2D"].map(|name| TileSide::from_name(name).unwrap());
    let board = DdBoard::new(sides);
    let mut got: Vec<(i64, char, Colour)> = (board.diagonals().into_iter())
        .map(|(cell, mirror)| (cell, mirror.symbol(), mirror.colour))
        .collect();
    got.sort_by_key(|&(cell, _, _)| cell);
    let at = |x: i64, y: i64| y * 16 + x;
    let mut want = vec![
        (at(4, 1), '\\', Colour::Blue),
        (at(6, 3), '\\', Colour::Yellow),
        (at(14, 4), '\\', Colour::Green),
        (at(8, 5), '/', Colour::Yellow),
        (at(4, 8), '/', Colour::Red),
        (at(12, 9), '\\', Colour::Green),
        (at(1, 13), '\\', Colour::Blue),
        (at(13, 14), '\\', Colour::Red),
    ];
    want.sort_by_key(|&(cell, _, _)| cell);
    assert_eq!(got, want);
    // On the board, clear of every goal; a board of no D side has none.
    let mirrored = board.board_with_diagonals();
    assert!(board
        .goals
        .iter()
        .all(|goal| mirrored.mirror(goal.cell).is_none()));
    let plain = DdBoard::new(["1A", "2B", "3C", "4A"].map(|n| TileSide::from_name(n).unwrap()));
    assert!(plain.diagonals().is_empty());
}
