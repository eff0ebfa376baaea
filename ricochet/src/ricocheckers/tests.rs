//! The rules engine against a plain reference written here from the board file (cells
//! `y * 11 + x`, wall bits read directly), on random playouts: the same legal moves, the
//! same positions after them, the same wins and ties.

use super::*;
use crate::mt::PyRandom;
use std::collections::HashMap;

/// The reference: the board file's raw fields, and the rules as the file's notes state
/// them, on `(x, y)` coordinates.
struct Reference {
    width: i64,
    height: i64,
    walls: Vec<u32>,
    starts: [Vec<i64>; 2],
}

impl Reference {
    fn new() -> Reference {
        let file: serde_json::Value = serde_json::from_str(STANDARD_BOARD).unwrap();
        let list = |name: &str| -> Vec<i64> {
            file[name]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_i64().unwrap())
                .collect()
        };
        Reference {
            width: file["width"].as_i64().unwrap(),
            height: file["height"].as_i64().unwrap(),
            walls: list("cells").iter().map(|&w| w as u32).collect(),
            starts: [list("player1_start_cells"), list("player2_start_cells")],
        }
    }

    /// Where the piece at `from` ends sliding in `(dx, dy)` with `pieces` on the board.
    fn slide(&self, pieces: &[i64], from: i64, (dx, dy, wall): (i64, i64, u32)) -> i64 {
        let mut at = from;
        loop {
            let (x, y) = (at % self.width, at / self.width);
            let (nx, ny) = (x + dx, y + dy);
            if self.walls[at as usize] & wall != 0
                || !(0..self.width).contains(&nx)
                || !(0..self.height).contains(&ny)
            {
                return at;
            }
            let next = ny * self.width + nx;
            if pieces.contains(&next) {
                return at;
            }
            at = next;
        }
    }

    /// Every legal move of `mover`: (piece slot, direction index N E S W, new pieces).
    fn moves(&self, pieces: &[i64], mover: usize) -> Vec<(usize, usize, Vec<i64>)> {
        let dirs = [(0, -1, 1), (1, 0, 2), (0, 1, 4), (-1, 0, 8)];
        let mut out = Vec::new();
        for slot in 0..3 {
            let index = mover * 3 + slot;
            for (d, &dir) in dirs.iter().enumerate() {
                let to = self.slide(pieces, pieces[index], dir);
                if to != pieces[index] {
                    let mut next = pieces.to_vec();
                    next[index] = to;
                    out.push((slot, d, next));
                }
            }
        }
        out
    }

    /// Whether `player`'s pieces cover the other player's start cells.
    fn filled(&self, pieces: &[i64], player: usize) -> bool {
        let own = &pieces[player * 3..player * 3 + 3];
        self.starts[1 - player].iter().all(|c| own.contains(c))
    }
}

#[test]
fn the_engine_matches_the_reference_on_random_playouts() {
    let field = Field::standard();
    let reference = Reference::new();
    let board = field.board();
    let to_index = |pieces: &[Cell]| -> Vec<i64> {
        pieces.iter().map(|&c| board.index_of(c) as i64).collect()
    };
    let mut rng = PyRandom::new(24);
    let (mut wins, mut ties, mut plies) = (0, 0, 0u64);
    for game in 0..400 {
        let mut position = field.start();
        let mut pieces = [reference.starts[0].clone(), reference.starts[1].clone()].concat();
        assert_eq!(
            to_index(&position.pieces)
                .iter()
                .copied()
                .collect::<std::collections::BTreeSet<_>>(),
            pieces.iter().copied().collect()
        );
        pieces = to_index(&position.pieces);
        loop {
            let mover = usize::from(position.to_move);
            let expected = reference.moves(&pieces, mover);
            let steps = field.steps(&position);
            let found: Vec<(usize, usize, Vec<i64>)> = steps
                .iter()
                .map(|&step| {
                    let next = field.play(&position, step);
                    let d = Direction::ALL.iter().position(|&d| d == step.dir).unwrap();
                    (usize::from(step.piece), d, to_index(&next.pieces))
                })
                .collect();
            assert_eq!(found, expected, "game {game} ply {}", position.plies);
            let pick = rng.randint(0, expected.len() as u32 - 1) as usize;
            position = field.play(&position, steps[pick]);
            pieces = expected[pick].2.clone();
            plies += 1;
            // The published order: past 200 plies the game is a tie, filled or not.
            let tie = position.plies > 200;
            let won = !tie && reference.filled(&pieces, mover);
            match field.outcome(&position) {
                Some(Outcome::Win(player)) => {
                    assert!(won && usize::from(player) == mover, "game {game}");
                    wins += 1;
                    break;
                }
                Some(Outcome::Tie) => {
                    assert!(tie, "game {game}");
                    assert!(field.steps(&position).is_empty());
                    ties += 1;
                    break;
                }
                None => assert!(!won && !tie, "game {game}"),
            }
        }
    }
    // Random play rarely fills three cells: most games run to the limit, some are won.
    assert_eq!(wins + ties, 400);
    assert!(plies > 400 * 20, "{plies} plies");
}

#[test]
fn keys_ignore_the_order_of_a_players_pieces_only() {
    let field = Field::standard();
    let start = field.start();
    let mut swapped = start;
    swapped.pieces.swap(0, 2);
    assert_eq!(start.key(), swapped.key());
    let mut crossed = start;
    crossed.pieces.swap(0, 3);
    assert_ne!(start.key(), crossed.key());
    let mut other_side = start;
    other_side.to_move = 1;
    assert_ne!(start.key(), other_side.key());
}

#[test]
fn bad_board_files_are_refused() {
    let mut file: serde_json::Value = serde_json::from_str(STANDARD_BOARD).unwrap();
    file["player2_start_cells"] = serde_json::json!([61, 70]);
    assert!(matches!(
        Field::from_json(&file.to_string()),
        Err(FieldError::StartCount { player: 2, got: 2 })
    ));
    file["player2_start_cells"] = serde_json::json!([61, 70, 60]);
    assert!(matches!(
        Field::from_json(&file.to_string()),
        Err(FieldError::StartCell(60))
    ));
    assert!(matches!(Field::from_json("{}"), Err(FieldError::Json(_))));
}

#[test]
fn alpha_beta_returns_minimax_values_at_equal_depth() {
    use super::players::Published;
    let field = Field::standard();
    let mut rng = PyRandom::new(7);
    let (mut minimax_leaves, mut pruned_leaves) = (0, 0);
    for (case, position) in field.random_positions(&mut rng, 12, 30).iter().enumerate() {
        let plies = 1 + (case % 4) as u8;
        let mut minimax = Published::new(plies, false);
        let mut alpha_beta = Published::new(plies, true);
        for &step in field.steps(position).iter() {
            let exact = minimax.value_of(&field, position, step);
            let pruned = alpha_beta.value_of(&field, position, step);
            assert!(
                (exact - pruned).abs() < 1e-12,
                "case {case} {step:?}: {exact} vs {pruned}"
            );
        }
        minimax_leaves += minimax.leaves;
        pruned_leaves += alpha_beta.leaves;
    }
    assert!(
        pruned_leaves * 2 < minimax_leaves,
        "{pruned_leaves} vs {minimax_leaves}"
    );
}

/// Whether the side to move wins within `plies` plies, by the reference's rules and a
/// plain AND/OR recursion (no ordering), remembering answers by the exact pieces.
fn reference_wins(
    reference: &Reference,
    pieces: &[i64],
    mover: usize,
    plies: u32,
    memo: &mut HashMap<(Vec<i64>, u32), bool>,
) -> bool {
    if let Some(&known) = memo.get(&(pieces.to_vec(), plies)) {
        return known;
    }
    let wins = reference.moves(pieces, mover).iter().any(|(_, _, next)| {
        reference.filled(next, mover)
            || (plies >= 3
                && reference
                    .moves(next, 1 - mover)
                    .iter()
                    .all(|(_, _, after)| {
                        !reference.filled(after, 1 - mover)
                            && reference_wins(reference, after, mover, plies - 2, memo)
                    }))
    });
    memo.insert((pieces.to_vec(), plies), wins);
    wins
}

/// Checks with the reference that `moves` is the shortest forced win at `position`
/// (0: none within `bound` moves).
fn confirm_shortest(
    reference: &Reference,
    field: &Field,
    position: &Position,
    moves: u8,
    bound: u8,
) {
    let board = field.board();
    let pieces: Vec<i64> = (position.pieces.iter())
        .map(|&c| board.index_of(c) as i64)
        .collect();
    let mover = usize::from(position.to_move);
    let mut memo = HashMap::new();
    let mut wins =
        |m: u8| m > 0 && reference_wins(reference, &pieces, mover, 2 * u32::from(m) - 1, &mut memo);
    if moves == 0 {
        assert!(!wins(bound), "a win in {bound} missed at {position:?}");
    } else {
        assert!(wins(moves), "no win in {moves} at {position:?}");
        assert!(!wins(moves - 1), "a win in {} at {position:?}", moves - 1);
    }
}

#[test]
fn dealt_puzzles_answers_are_confirmed_by_an_independent_search() {
    use super::puzzles::{answer, deal};
    let field = Field::standard();
    let reference = Reference::new();
    let mut found = [0; 8];
    for seed in 1..1200 {
        let position = deal(&field, seed);
        let short = answer(&field, &position, 3).unwrap();
        confirm_shortest(&reference, &field, &position, short.moves, 3);
        found[usize::from(short.moves)] += 1;
    }
    // Longer wins, proven with the campaign's bound: the first 12 of these seeds.
    let mut long = 0;
    for seed in 1..3000 {
        let position = deal(&field, seed);
        let proven = answer(&field, &position, 7).unwrap();
        if proven.moves >= 4 {
            confirm_shortest(&reference, &field, &position, proven.moves, 7);
            found[usize::from(proven.moves)] += 1;
            long += 1;
            if long == 12 {
                break;
            }
        }
    }
    assert!(
        found[0] > 1000 && found[1..4].iter().sum::<i32>() >= 5,
        "{found:?}"
    );
    assert_eq!(long, 12, "{found:?}");
}

#[test]
fn forced_wins_are_confirmed_by_an_independent_search() {
    use super::proof::{forced_win, Proof};
    let field = Field::standard();
    let reference = Reference::new();
    let open = field.open_cells();
    let mut rng = PyRandom::new(99);
    let mut found = [0; 4];
    let mut tried = 0;
    while found[1..].iter().any(|&n| n < 3) && tried < 4000 {
        tried += 1;
        // Pieces placed uniformly on open cells, some of the mover's on its goal cells
        // (else short wins are rare), neither side already filled.
        let mut position = field.start();
        position.to_move = (tried % 2) as u8;
        let goals = field.goals(position.to_move);
        let mut cells: Vec<Cell> = goals[..tried % 3].to_vec();
        while cells.len() < 6 {
            let cell = open[rng.randint(0, open.len() as u32 - 1) as usize];
            if !cells.contains(&cell) {
                cells.push(cell);
            }
        }
        if position.to_move == 1 {
            cells.rotate_left(3);
        }
        position.pieces.copy_from_slice(&cells);
        if field.has_filled(&position, 0) || field.has_filled(&position, 1) {
            continue;
        }
        let Ok(Proof { win: Some(win), .. }) = forced_win(&field, &position, 3, 5_000_000) else {
            continue;
        };
        let moves = usize::from(win.moves);
        if found[moves] >= 3 {
            continue;
        }
        found[moves] += 1;
        confirm_shortest(&reference, &field, &position, win.moves, 3);
        // The main line is legal and ends with the winner's move filling its goals.
        assert_eq!(win.line.len(), 2 * moves - 1);
        let mut at = position;
        for step in &win.line {
            assert!(field.steps(&at).contains(step));
            at = field.play(&at, *step);
        }
        assert_eq!(field.outcome(&at), Some(Outcome::Win(position.to_move)));
    }
    assert!(
        found[1..].iter().all(|&n| n == 3),
        "{found:?} after {tried}"
    );
}

#[test]
fn openings_vary_the_games_of_deterministic_players() {
    use super::players::Kind;
    use super::tournament::tournament;
    let field = Field::standard();
    let pair = (Kind::AlphaBeta { plies: 3 }, Kind::Minimax { plies: 2 });
    let distinct = |games: &[tournament::Game]| {
        let lines: std::collections::HashSet<&Vec<Step>> = games.iter().map(|g| &g.moves).collect();
        lines.len()
    };
    // Without an opening, the same two games over and over.
    let plain = tournament(&field, pair, 8, 0, 3, || {});
    assert!(distinct(&plain) <= 2);
    let opened = tournament(&field, pair, 8, 4, 3, || {});
    assert_eq!(distinct(&opened), 8);
    for games in opened.chunks(2) {
        assert_eq!(games[0].moves[..4], games[1].moves[..4]);
        assert!(games[0].a_first && !games[1].a_first);
    }
}

#[test]
fn the_rrm_player_keeps_every_forced_win_within_three_moves() {
    use super::proof::forced_win;
    use super::puzzles::{answer, deal};
    use super::rrm_player::{RrmSearch, WIN};
    let field = Field::standard();
    let mut kept = [0; 4];
    for seed in 1..4000 {
        let position = deal(&field, seed);
        let moves = answer(&field, &position, 3).unwrap().moves;
        if moves == 0 {
            continue;
        }
        let choice = RrmSearch::new(&field, 10_000, 40).choose(&field, &position);
        assert!(
            choice.score > WIN - 100,
            "seed {seed}: the win in {moves} not seen"
        );
        let next = field.play(&position, choice.step);
        if moves == 1 {
            assert_eq!(field.outcome(&next), Some(Outcome::Win(position.to_move)));
        } else {
            // Whatever the opponent replies, a win in one move fewer remains.
            for &reply in field.steps(&next).iter() {
                let after = field.play(&next, reply);
                let proof = forced_win(&field, &after, moves - 1, 50_000_000).unwrap();
                assert!(proof.win.is_some(), "seed {seed}: the win in {moves} lost");
            }
        }
        kept[usize::from(moves)] += 1;
    }
    assert!(kept[1] >= 1 && kept[2] >= 1 && kept[3] >= 3, "{kept:?}");
}
