//! Fogleman generator: every seed of the published fixture reproduced exactly.

use ricochet::{Game, SeedError};
use serde::Deserialize;

#[derive(Deserialize)]
pub struct SeedRecord {
    pub seed: u64,
    pub quads: Vec<String>,
    pub robots: Vec<u8>,
    pub token: String,
    pub token_cell: u8,
    pub moves: usize,
}

pub fn seed_records() -> Vec<SeedRecord> {
    include_str!("../data/fogleman-seeds-1-200.jsonl")
        .lines()
        .map(|line| serde_json::from_str(line).expect("fixture line"))
        .collect()
}

#[test]
fn seeds_1_to_200_reproduce_quads_robots_and_token() {
    let records = seed_records();
    assert_eq!(records.len(), 200);
    for record in records {
        let game = Game::generate(record.seed).unwrap();
        assert_eq!(
            game.layout.tiles.to_vec(),
            record.quads,
            "seed {}",
            record.seed
        );
        assert_eq!(game.robots.to_vec(), record.robots, "seed {}", record.seed);
        assert_eq!(game.token, record.token, "seed {}", record.seed);
        assert_eq!(game.token_cell(), record.token_cell, "seed {}", record.seed);
    }
}

#[test]
fn seed_1605212351_board_matches_the_spec() {
    // Wall masks of this seed's board, from the generator spec.
    const WALLS: &str = "9 1 1 3 9 1 1 1 1 1 3 9 1 1 1 3 10 12 0 0 0 0 4 0 2 12 0 0 0 0 4 2 8 1 0 0 0 0 3 8 0 1 0 0 0 0 3 10
        8 0 0 0 0 0 0 0 0 0 0 0 0 0 0 2 8 0 6 8 0 0 0 4 0 0 6 8 0 0 0 6 12 0 1 0 0 0 2 9 0 0 1 0 4 0 0 3
        9 0 0 0 0 0 0 4 4 0 0 2 9 0 0 2 8 0 0 0 0 0 2 9 3 8 0 0 0 0 0 2 8 0 0 0 0 0 2 12 6 8 0 0 4 0 0 2
        8 0 0 2 12 0 4 1 1 0 0 0 3 8 0 6 12 0 0 0 1 2 9 0 0 0 0 0 0 0 0 3 9 0 0 0 0 0 0 0 0 4 0 0 0 0 0 2
        8 4 0 0 0 0 0 0 2 9 0 0 0 0 0 2 8 3 8 0 0 0 0 0 0 0 0 0 0 2 12 2 8 0 0 6 8 0 0 0 0 0 0 6 8 0 1 2
        12 4 4 5 6 12 4 4 4 4 4 5 4 6 12 6";
    let expected: Vec<u8> = WALLS
        .split_whitespace()
        .map(|w| w.parse().unwrap())
        .collect();
    let game = Game::generate(1_605_212_351).unwrap();
    assert_eq!(game.layout.walls().to_vec(), expected);
    assert_eq!(game.layout.tiles, ["4B", "3B", "1B", "2B"]);
    let cells: Vec<(&str, u8)> = game.layout.targets.iter().map(|&(t, c)| (t, c)).collect();
    assert!(
        cells.contains(&("RT", 17)) && cells.contains(&("RC", 235)) && cells.contains(&("BT", 108))
    );
}

#[test]
fn seed_zero_is_refused_and_large_seeds_work() {
    assert_eq!(Game::generate(0), Err(SeedError::Zero));
    let big = Game::generate((1 << 32) + 5).unwrap();
    assert_ne!(big, Game::generate(5).unwrap());
}
