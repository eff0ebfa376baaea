//! Other editions and tools: DriftingDroids game IDs read into the published positions
//! and solved from the command line, under its rules too; bad IDs refused by their part.

use crate::referee::check_solution;
use crate::{rrm, rrm_ok};
use ricochet::driftingdroids::DdGame;
use ricochet::PuzzleRecord;

/// A position of `tests/data/hard-positions.jsonl` by name.
fn hard_position(name: &str) -> PuzzleRecord {
    include_str!("../data/hard-positions.jsonl")
        .lines()
        .map(|line| serde_json::from_str::<PuzzleRecord>(line).unwrap())
        .find(|record| record.name.as_deref() == Some(name))
        .unwrap()
}

/// The IDs DriftingDroids' author published with the positions' photographs.
const DD24: &str = "0765+42+2E21BD0F+93";
const DD25: &str = "7650+42+E2302B12+C9";

#[test]
fn game_ids_are_the_published_positions() {
    for (id, name) in [(DD24, "dd24"), (DD25, "dd25")] {
        let record = hard_position(name);
        let from_id = DdGame::parse(id).unwrap().puzzle().unwrap().to_record(None);
        // The walls, robots and target of the published neutral layout, cell for cell.
        assert_eq!(from_id.walls, record.walls, "{id}");
        assert_eq!(from_id.robots, record.robots, "{id}");
        assert_eq!(from_id.target_cell, record.target_cell, "{id}");
        assert_eq!(from_id.target_robot, record.target_robot, "{id}");
        // And back: the neutral record is recognised as that DriftingDroids game.
        let puzzle = ricochet::Puzzle::from_record(&record).unwrap();
        assert_eq!(DdGame::from_puzzle(&puzzle).unwrap().id(), id);
    }
}

#[test]
fn solve_takes_game_ids_as_arguments_and_in_files() {
    for (id, name) in [(DD24, "dd24"), (DD25, "dd25")] {
        let record = hard_position(name);
        let report: serde_json::Value =
            serde_json::from_str(&rrm_ok(&["solve", "--puzzle", id, "--json"])).unwrap();
        assert_eq!(
            report["moves"].as_u64(),
            record.moves.map(u64::from),
            "{id}"
        );
        assert_eq!(report["rules"], "standard");
        assert_eq!(report["name"], format!("DriftingDroids game {id}"));
        let solution: Vec<String> = serde_json::from_value(report["solution"].clone()).unwrap();
        check_solution(&record, &solution).unwrap();
    }
    let dir = std::env::temp_dir().join(format!("rrm-editions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("dd.txt");
    std::fs::write(&file, format!("{}\n", DD24.to_lowercase())).unwrap();
    let text = rrm_ok(&["solve", "--puzzle", file.to_str().unwrap()]);
    assert!(text.contains("24 moves (optimal)"), "{text}");
    // Read as JSON, the same file is refused.
    let output = rrm(&[
        "solve",
        "--puzzle",
        file.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("not a valid puzzle record"));
}

#[test]
fn bad_game_ids_get_one_line_naming_the_bad_part() {
    for (id, part) in [
        ("7650+44+E2302B12+C9", "robots \"44\""),
        ("7650+42+E2302B12+00", "target cell 0x00 holds no target"),
        ("7650+42+E2E22B12+C9", "robot 1 on cell 0xE2"),
        ("7X50+42+E2302B12+C9", "tile sides \"7X50\""),
    ] {
        let output = rrm(&["solve", "--puzzle", id, "--format", "dd-id"]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{id}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(stderr.contains(part), "{id}: {stderr}");
        assert!(output.stdout.is_empty());
    }
}

/// Whether no robot in `moves` moves along the line of its own previous move: the
/// no-rebound rule, read from its description.
fn without_rebounds(moves: &[String]) -> bool {
    let mut last: std::collections::HashMap<char, char> = std::collections::HashMap::new();
    moves.iter().all(|step| {
        let (robot, dir) = (step.chars().next().unwrap(), step.chars().nth(1).unwrap());
        let axis = if "NS".contains(dir) { 'v' } else { 'h' };
        last.insert(robot, axis) != Some(axis)
    })
}

#[test]
#[cfg_attr(
    rrm_fast_tests,
    ignore = "heavy: a minute of CPU for the rule's search (the full suite runs it)"
)]
fn without_rebounds_the_published_24_move_position_needs_26() {
    let record = hard_position("dd24");
    let report: serde_json::Value = serde_json::from_str(&rrm_ok(&[
        "solve",
        "--puzzle",
        DD24,
        "--no-rebounds",
        "--json",
    ]))
    .unwrap();
    assert_eq!(report["rules"], "no-rebounds");
    assert_eq!(report["moves"], 26, "DriftingDroids' documented figure");
    let solution: Vec<String> = serde_json::from_value(report["solution"].clone()).unwrap();
    check_solution(&record, &solution).unwrap();
    assert!(without_rebounds(&solution), "{solution:?}");
    // The standard optimum has rebounds: the rule is what costs the two moves.
    let standard: serde_json::Value =
        serde_json::from_str(&rrm_ok(&["solve", "--puzzle", DD24, "--json"])).unwrap();
    let moves: Vec<String> = serde_json::from_value(standard["solution"].clone()).unwrap();
    assert!(!without_rebounds(&moves));
}

#[test]
fn show_writes_game_ids_dumps_and_json_that_solve_back() {
    let dir = std::env::temp_dir().join(format!("rrm-editions-show-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let id = rrm_ok(&["show", "--puzzle", DD25, "--format", "dd-id"]);
    assert_eq!(id.trim(), DD25);
    for format in ["dd-dump", "json"] {
        let written = rrm_ok(&["show", "--puzzle", DD25, "--format", format]);
        let file = dir.join(format);
        std::fs::write(&file, &written).unwrap();
        let report: serde_json::Value = serde_json::from_str(&rrm_ok(&[
            "solve",
            "--puzzle",
            file.to_str().unwrap(),
            "--json",
        ]))
        .unwrap();
        assert_eq!(report["moves"], 25, "{format}");
    }
    // A Fogleman seed gets the ID of its tile sides in DriftingDroids, with a warning that
    // DriftingDroids' board has the vortex walls; its optimum there is solved again.
    let output = rrm(&["show", "--seed", "1605212351", "--format", "dd-id"]);
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("beside the vortex"), "{stderr}");
    let id = String::from_utf8(output.stdout).unwrap();
    let game = DdGame::parse(id.trim()).unwrap();
    let sides: Vec<&str> = game.board.sides.iter().map(|side| side.name()).collect();
    let tiles: Vec<&str> = ricochet::Game::generate(1605212351)
        .unwrap()
        .layout
        .tiles
        .to_vec();
    let mapped: Vec<&str> = tiles
        .iter()
        .map(|tile| {
            let side = ricochet::driftingdroids::TileSide::from_fogleman_name(tile).unwrap();
            side.name()
        })
        .collect();
    assert_eq!(sides, mapped);
    let record = game.puzzle().unwrap().to_record(None);
    let report: serde_json::Value =
        serde_json::from_str(&rrm_ok(&["solve", "--puzzle", id.trim(), "--json"])).unwrap();
    let solution: Vec<String> = serde_json::from_value(report["solution"].clone()).unwrap();
    check_solution(&record, &solution).unwrap();
    assert_eq!(report["moves"].as_u64(), Some(solution.len() as u64));
}

/// Mines `generator`'s seeds 1..=`last` into a new store and checks its histogram against
/// solving each dealt game of `robots` robots here (every solution replayed); gives the
/// store and the dealt games.
fn mine_dealt_games(generator: &str, last: u64, robots: usize) -> (tempfile::TempDir, Vec<DdGame>) {
    let store = tempfile::tempdir().unwrap();
    let data = store.path().to_str().unwrap();
    let seeds = format!("1..{}", last + 1);
    rrm_ok(&[
        "mine",
        "--generator",
        generator,
        "--seeds",
        &seeds,
        "--unit-size",
        "250",
        "--data",
        data,
    ]);
    let games: Vec<DdGame> = (1..=last).map(|seed| DdGame::deal(seed, robots)).collect();
    let mut expected = std::collections::BTreeMap::new();
    for (seed, game) in (1..).zip(&games) {
        assert_eq!(game.robots.len(), robots);
        let puzzle = game.puzzle().unwrap();
        let solution = ricochet::Solver::new().solve(&puzzle).unwrap().moves;
        assert!(puzzle.is_solution(&solution), "seed {seed}");
        *expected.entry(solution.len() as u64).or_insert(0u64) += 1;
    }
    let stats: serde_json::Value =
        serde_json::from_str(&rrm_ok(&["stats", "--data", data, "--json"])).unwrap();
    let mined: std::collections::BTreeMap<u64, u64> = (stats["histogram"].as_array().unwrap())
        .iter()
        .map(|bin| {
            (
                bin["moves"].as_u64().unwrap(),
                bin["puzzles"].as_u64().unwrap(),
            )
        })
        // Empty bins between the extremes are listed as zeros; the direct count has none.
        .filter(|&(_, puzzles)| puzzles > 0)
        .collect();
    assert_eq!(mined, expected);
    (store, games)
}

#[test]
fn driftingdroids_style_games_are_mined_to_the_counts_of_solving_them_directly() {
    let (store, games) = mine_dealt_games("driftingdroids", 1000, 4);
    let data = store.path().to_str().unwrap();
    let stats: serde_json::Value =
        serde_json::from_str(&rrm_ok(&["stats", "--data", data, "--json"])).unwrap();
    let by_target = stats["by_colour"].to_string();
    assert!(games.iter().any(|game| game.goal.colour.is_none()));
    assert!(by_target.contains("\"*\""), "{by_target}");
    // The hardest, as game IDs: the dealt games themselves.
    let top = rrm_ok(&["top", "--data", data, "--limit", "5", "--json"]);
    let ids = rrm_ok(&["top", "--data", data, "--limit", "5", "--dd-ids"]);
    for (row, id) in top.lines().zip(ids.lines()) {
        let row: serde_json::Value = serde_json::from_str(row).unwrap();
        assert_eq!(id, games[row["seed"].as_u64().unwrap() as usize - 1].id());
    }
    assert_eq!(ids.lines().count(), 5);
}

#[test]
fn five_robot_driftingdroids_games_are_mined_with_silver_helping() {
    let (store, _) = mine_dealt_games("driftingdroids5", 300, 5);
    // Some solution moves the silver robot (S): it is a real fifth robot.
    let data = store.path().to_str().unwrap();
    let top = rrm_ok(&["top", "--data", data, "--limit", "20", "--json"]);
    assert!(top.contains("\"S"), "{top}");
}

/// Packs for the tools players use: DriftingDroids game IDs of the dealt games
/// themselves, and K. Cox texts that read back to the same positions.
#[test]
fn packs_are_written_as_game_ids_and_k_cox_texts() {
    let (store, games) = mine_dealt_games("driftingdroids5", 200, 5);
    let data = store.path().to_str().unwrap();
    let dir = store.path().join("packs");
    std::fs::create_dir_all(&dir).unwrap();
    let pack = |format: &str| {
        let out = dir.join(format);
        rrm_ok(&[
            "pack",
            "--min-moves",
            "4",
            "--max-moves",
            "40",
            "--count",
            "6",
            "--format",
            format,
            "--out",
            out.to_str().unwrap(),
            "--data",
            data,
        ]);
        std::fs::read_to_string(out).unwrap()
    };
    let ids = pack("dd-id");
    let dealt: Vec<String> = games.iter().map(DdGame::id).collect();
    assert_eq!(ids.lines().count(), 6);
    for id in ids.lines() {
        assert!(dealt.contains(&id.to_string()), "{id}");
    }
    let texts = pack("kcox");
    let puzzles: Vec<&str> = texts.split("\nboard").collect();
    assert_eq!(puzzles.len(), 6, "{texts}");
    // Pack order is the same in both: the k-th text is the k-th game.
    for (k, id) in ids.lines().enumerate() {
        let text = if k == 0 {
            puzzles[0].to_string()
        } else {
            format!("board{}", puzzles[k])
        };
        let read = ricochet::kcox::parse(&text).unwrap();
        let game = DdGame::parse(id).unwrap().puzzle().unwrap();
        assert_eq!(read.robots(), game.robots(), "{id}");
        assert_eq!(read.target().cell, game.target().cell, "{id}");
    } // `top --kcox`: the hardest as K. Cox texts, the same games as `top --dd-ids`.
    let texts = rrm_ok(&["top", "--data", data, "--limit", "3", "--kcox"]);
    let ids = rrm_ok(&["top", "--data", data, "--limit", "3", "--dd-ids"]);
    let texts: Vec<String> = texts.split("\n\n").map(str::to_string).collect();
    assert_eq!(texts.len(), 3);
    for (text, id) in texts.iter().zip(ids.lines()) {
        let read = ricochet::kcox::parse(text).unwrap();
        assert_eq!(read.robots(), DdGame::parse(id).unwrap().robots, "{id}");
    }
}

/// K. Cox's text and rrm's JSON carry mirrors: the same position solves to the same
/// count from both.
#[test]
fn solve_reads_k_cox_texts_and_json_with_mirrors() {
    let dir = tempfile::tempdir().unwrap();
    for seed in [5u64, 9, 14] {
        let text = rrm_ok(&["show", "--seed", &seed.to_string(), "--format", "kcox"]);
        assert!(text.starts_with("board 16 16\n"), "{text}");
        let file = dir.path().join(format!("{seed}.txt"));
        std::fs::write(&file, &text).unwrap();
        let solved = |path: &std::path::Path| -> serde_json::Value {
            serde_json::from_str(&rrm_ok(&[
                "solve",
                "--puzzle",
                path.to_str().unwrap(),
                "--json",
            ]))
            .unwrap()
        };
        let from_seed: serde_json::Value =
            serde_json::from_str(&rrm_ok(&["solve", "--seed", &seed.to_string(), "--json"]))
                .unwrap();
        assert_eq!(solved(&file)["moves"], from_seed["moves"], "seed {seed}");
        // Two mirrors next to the target robot's start, written into the text.
        let with_mirrors = text.replacen("mirrors 0\n", "mirrors 2\n0 0 \\ 4\n15 15 / 0\n", 1);
        std::fs::write(&file, &with_mirrors).unwrap();
        let kcox = solved(&file);
        let json = rrm_ok(&[
            "show",
            "--puzzle",
            file.to_str().unwrap(),
            "--format",
            "json",
        ]);
        assert!(
            json.contains(r#""mirrors":[{"cell":0,"lean":"\\","colour":"B"}"#),
            "{json}"
        );
        let json_file = dir.path().join(format!("{seed}.json"));
        std::fs::write(&json_file, json).unwrap();
        assert_eq!(solved(&json_file)["moves"], kcox["moves"], "seed {seed}");
        let moves: Vec<String> = serde_json::from_value(kcox["solution"].clone()).unwrap();
        let record: PuzzleRecord =
            serde_json::from_str(&std::fs::read_to_string(&json_file).unwrap()).unwrap();
        assert!(record.mirrors.len() == 2 && !moves.is_empty());
    }
}
