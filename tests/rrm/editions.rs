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
