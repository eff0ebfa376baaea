//! What users read: `rrm stats`, `top`, `show` and `pack` on a small mined store, checked
//! against solving directly and replayed by the referee.

use crate::mining::direct_histogram;
use crate::referee::check_solution;
use crate::{rrm, rrm_ok};
use ricochet::{Generator, Puzzle, PuzzleRecord};
use serde_json::Value;
use std::path::Path;

/// Mines `seeds` into a store at `data`, in units of 500.
pub(crate) fn mine(data: &Path, seeds: &str) {
    rrm_ok(&[
        "mine",
        "--seeds",
        seeds,
        "--unit-size",
        "500",
        "--data",
        data.to_str().unwrap(),
    ]);
}

/// Fails unless `value` is an object with each of `fields`.
fn has_fields(value: &Value, fields: &[&str]) {
    let object = value
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {value}"));
    for field in fields {
        assert!(object.contains_key(*field), "no {field:?} in {value}");
    }
}

#[test]
fn stats_top_show_and_packs() {
    let store = tempfile::tempdir().unwrap();
    let data = store.path().to_str().unwrap();
    mine(store.path(), "1..2001");

    let stats: Value = serde_json::from_str(&rrm_ok(&["stats", "--data", data, "--json"])).unwrap();
    assert_eq!(stats["puzzles"], 2000);
    let expected = direct_histogram(1..2001);
    for bin in stats["histogram"].as_array().unwrap() {
        let moves = bin["moves"].as_u64().unwrap() as usize;
        assert_eq!(
            bin["puzzles"].as_u64().unwrap(),
            expected[moves],
            "{moves} moves"
        );
    }
    // Every breakdown accounts for every puzzle.
    for breakdown in ["by_robots_moved", "by_colour", "by_shape", "by_target"] {
        let puzzles: u64 = stats[breakdown]
            .as_array()
            .unwrap()
            .iter()
            .map(|group| group["puzzles"].as_u64().unwrap())
            .sum();
        assert_eq!(puzzles, 2000, "{breakdown}");
    }
    let text = rrm_ok(&["stats", "--data", data]);
    assert!(
        text.contains("2000 puzzles") && text.contains("1 in "),
        "{text}"
    );

    // A second campaign side by side, and the histogram as a picture.
    mine(store.path(), "2001..3001");
    let svg = store.path().join("histogram.svg");
    let compared: Value = serde_json::from_str(&rrm_ok(&[
        "stats",
        "--data",
        data,
        "--campaign",
        "fogleman-1-2001",
        "--compare",
        "fogleman-2001-3001",
        "--json",
        "--svg",
        svg.to_str().unwrap(),
    ]))
    .unwrap();
    assert_eq!(compared["compare"]["puzzles"], 1000);
    // The documented fields, the compared campaign's rules and refusals among them.
    const CAMPAIGN_FIELDS: [&str; 15] = [
        "campaign",
        "rules",
        "refused",
        "puzzles",
        "mean",
        "median",
        "percentiles",
        "max",
        "histogram",
        "by_target",
        "by_colour",
        "by_shape",
        "by_arrangement",
        "by_robots_moved",
        "puzzles",
    ];
    has_fields(&compared, &CAMPAIGN_FIELDS);
    has_fields(&compared["compare"], &CAMPAIGN_FIELDS);
    assert_eq!(compared["compare"]["rules"], "standard");
    has_fields(
        &compared["histogram"][0],
        &["moves", "puzzles", "share", "rarity"],
    );
    has_fields(
        &compared["by_target"][0],
        &["group", "puzzles", "mean_moves", "max_moves"],
    );
    has_fields(
        &compared["by_robots_moved"][0],
        &["robots", "puzzles", "share"],
    );
    let picture = std::fs::read_to_string(&svg).unwrap();
    // One bar per non-empty bin (the JSON lists empty bins between the extremes too).
    let bins = |v: &Value| {
        (v["histogram"].as_array().unwrap().iter())
            .filter(|bin| bin["puzzles"].as_u64() > Some(0))
            .count()
    };
    assert_eq!(
        picture.matches(r#"class="bar""#).count(),
        bins(&compared) + bins(&compared["compare"])
    );

    // Records: hardest first, solutions that replay, metrics present.
    let top_as = |format: &'static str| {
        let args = [
            "top",
            "--data",
            data,
            "--campaign",
            "fogleman-1-2001",
            "--limit",
            "3",
        ];
        [&args[..], &[format]].concat()
    };
    let top = rrm_ok(&top_as("--json"));
    let rows: Vec<Value> = top
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 3);
    for row in &rows {
        has_fields(
            row,
            &[
                "campaign",
                "rules",
                "rank",
                "seed",
                "moves",
                "solution",
                "re_solved",
                "metrics",
            ],
        );
    }
    // `--format` names the same outputs as the old flags.
    assert_eq!(rrm_ok(&top_as("--format=json")), top);
    assert_eq!(
        rrm_ok(&top_as("--format=dd-id")),
        rrm_ok(&top_as("--dd-ids"))
    );
    assert_eq!(rrm_ok(&top_as("--format=kcox")), rrm_ok(&top_as("--kcox")));
    // The same list as DriftingDroids game IDs: each the seed's robots and target on
    // its tiles in DriftingDroids' names.
    let ids = rrm(&top_as("--dd-ids"));
    assert!(ids.status.success());
    assert!(String::from_utf8_lossy(&ids.stderr).contains("beside the vortex"));
    let ids = String::from_utf8(ids.stdout).unwrap();
    assert_eq!(ids.lines().count(), 3, "{ids}");
    for (id, row) in ids.lines().zip(&rows) {
        let game = ricochet::driftingdroids::DdGame::parse(id).unwrap();
        let seed = ricochet::Game::generate(row["seed"].as_u64().unwrap()).unwrap();
        let puzzle = seed.puzzle();
        assert_eq!(game.robots, puzzle.robots(), "{id}");
        assert_eq!(game.goal.cell, puzzle.target().cell, "{id}");
        assert_eq!(game.goal.colour, puzzle.target().colour, "{id}");
        let names: Vec<&str> = game
            .board
            .sides
            .iter()
            .map(|side| side.fogleman_name().unwrap())
            .collect();
        assert_eq!(names, seed.layout.tiles, "{id}");
    }
    assert_eq!(
        rows[0]["moves"].as_u64(),
        expected.len().checked_sub(1).map(|m| m as u64)
    );
    for pair in rows.windows(2) {
        assert!(pair[0]["moves"].as_u64() >= pair[1]["moves"].as_u64());
    }
    for row in &rows {
        let puzzle = Generator::Fogleman
            .generate(row["seed"].as_u64().unwrap())
            .unwrap()
            .puzzle;
        let moves: Vec<String> = serde_json::from_value(row["solution"].clone()).unwrap();
        assert_eq!(check_solution(&puzzle.to_record(None), &moves), Ok(()));
        // Every metric is there: a missing one fails rather than passes.
        let metrics = row["metrics"].as_object().expect("metrics");
        for key in [
            "optimal_solutions",
            "optimal_solutions_capped",
            "robots_moved",
            "ricochets",
            "solo_moves",
            "solo_gap",
        ] {
            assert!(metrics.contains_key(key), "{key} missing: {row}");
        }
        // A count of at least one, or null where counting ran out of its state budget
        // (as it does on these hardest puzzles); never 0, never some other value.
        let solutions = &metrics["optimal_solutions"];
        assert!(
            solutions.is_null() || solutions.as_u64().is_some_and(|n| n >= 1),
            "{row}"
        );
        assert!(metrics["optimal_solutions_capped"].is_boolean(), "{row}");
        let mut robots: Vec<char> = moves.iter().filter_map(|m| m.chars().next()).collect();
        robots.sort_unstable();
        robots.dedup();
        assert_eq!(
            metrics["robots_moved"].as_u64(),
            Some(robots.len() as u64),
            "{row}"
        );
        let ricochets = metrics["ricochets"].as_u64().expect("a ricochet count");
        assert!(ricochets <= moves.len() as u64, "{row}");
    }

    // Packs: filters hold, solutions replay, the same flags give the same bytes.
    let pack = store.path().join("pack.json");
    let args = [
        "pack",
        "--data",
        data,
        "--campaign",
        "fogleman-1-2001",
        "--min-moves",
        "6",
        "--max-moves",
        "9",
        "--count",
        "5",
        "--unique",
        "--min-robots",
        "2",
        "--distinct-boards",
        "--out",
        pack.to_str().unwrap(),
    ];
    rrm_ok(&args);
    let first = std::fs::read(&pack).unwrap();
    rrm_ok(&args);
    assert_eq!(
        std::fs::read(&pack).unwrap(),
        first,
        "packs are reproducible"
    );
    let pack: Value = serde_json::from_slice(&first).unwrap();
    has_fields(
        &pack,
        &[
            "format",
            "campaign",
            "generator",
            "rules",
            "filters",
            "puzzles",
        ],
    );
    has_fields(
        &pack["filters"],
        &[
            "min_moves",
            "max_moves",
            "count",
            "unique",
            "min_robots",
            "distinct_boards",
        ],
    );
    let puzzles = pack["puzzles"].as_array().unwrap();
    assert_eq!(puzzles.len(), 5);
    for entry in puzzles {
        has_fields(
            entry,
            &[
                "number",
                "token",
                "puzzle",
                "moves",
                "solution",
                "metrics",
                "seed",
                "arrangement",
            ],
        );
    }
    let mut boards = std::collections::HashSet::new();
    for entry in puzzles {
        let moves = entry["moves"].as_u64().unwrap();
        assert!((6..=9).contains(&moves));
        assert_eq!(entry["metrics"]["optimal_solutions"], 1);
        assert!(entry["metrics"]["robots_moved"].as_u64().unwrap() >= 2);
        assert!(boards.insert(entry["arrangement"].as_str().unwrap().to_string()));
        let record: PuzzleRecord = serde_json::from_value(entry["puzzle"].clone()).unwrap();
        Puzzle::from_record(&record).expect("apps can load the puzzle");
        let solution: Vec<String> = serde_json::from_value(entry["solution"].clone()).unwrap();
        assert_eq!(check_solution(&record, &solution), Ok(()));
        assert_eq!(record.moves, Some(moves as u32));
    }
    let html = store.path().join("pack.html");
    rrm_ok(&[
        "pack",
        "--data",
        data,
        "--campaign",
        "fogleman-1-2001",
        "--min-moves",
        "10",
        "--max-moves",
        "12",
        "--count",
        "4",
        "--out",
        html.to_str().unwrap(),
    ]);
    let page = std::fs::read_to_string(&html).unwrap();
    assert_eq!(page.matches("<svg").count(), 8, "puzzles, then solutions");
    assert!(page.contains("Solutions") && page.contains("page-break-before"));

    // Bad input: clear errors, exit 2.
    for bad in [
        vec!["stats", "--data", data, "--campaign", "nope"],
        vec!["stats", "--data", data],
        vec![
            "pack",
            "--data",
            data,
            "--campaign",
            "fogleman-1-2001",
            "--min-moves",
            "9",
            "--max-moves",
            "3",
            "--count",
            "2",
            "--out",
            "x.json",
        ],
        vec![
            "pack",
            "--data",
            data,
            "--campaign",
            "fogleman-1-2001",
            "--min-moves",
            "3",
            "--max-moves",
            "9",
            "--count",
            "2",
            "--out",
            "x.txt",
        ],
    ] {
        let output = rrm(&bad);
        assert_eq!(output.status.code(), Some(2), "{bad:?}");
        assert_eq!(
            String::from_utf8_lossy(&output.stderr).lines().count(),
            1,
            "{bad:?}"
        );
    }
}

#[test]
fn show_draws_the_board_and_its_solution() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("seed1.svg");
    let text = rrm_ok(&[
        "show",
        "--seed",
        "1",
        "--solution",
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert!(text.contains("9 moves:"), "{text}");
    assert!(text.contains("optimal solutions"), "{text}");
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert_eq!(picture.matches(r#"class="robot""#).count(), 4);
    assert_eq!(picture.matches(r#"class="step""#).count(), 9);
    assert_eq!(
        picture.matches(r#"class="token""#).count(),
        16,
        "the target and the 15 other tokens"
    );
    let plain = rrm_ok(&["show", "--seed", "1"]);
    assert!(
        plain.contains("(g)"),
        "ASCII board with the green target: {plain}"
    );
    assert_eq!(rrm(&["show", "--seed", "0"]).status.code(), Some(2));
}
