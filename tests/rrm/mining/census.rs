//! The census's durable record: unit files exported from a campaign carry their result and
//! provenance, import into a fresh store through the checks with the provenance restored,
//! and export again to the same bytes; `rrm census report` turns them into census.json,
//! records that replay, and pictures.

use super::exhaustive::{create_campaign, exhaust_json, honest, BOARD, TOKEN};
use crate::referee::check_solution;
use crate::rrm_ok;
use ricochet::PuzzleRecord;
use rrm_model::DEFAULT_MAX_HARDEST;
use serde_json::{json, Value};
use std::path::Path;

/// A store in `dir` with the one-unit exhaustive campaign `census`.
fn campaign(dir: &Path) {
    create_campaign("census", &["--data", dir.to_str().unwrap()]);
}

fn import(dir: &Path, file: &Path) -> String {
    rrm_ok(&[
        "campaign",
        "import",
        "census",
        file.to_str().unwrap(),
        "--data",
        dir.to_str().unwrap(),
    ])
}

/// Exports campaign `census` of the store in `dir` into `out`; the one unit file's text.
fn export(dir: &Path, out: &Path) -> String {
    let said = rrm_ok(&[
        "census",
        "export",
        "census",
        "--out",
        out.to_str().unwrap(),
        "--data",
        dir.to_str().unwrap(),
    ]);
    assert!(said.contains("1 of 1 unit files written"), "{said}");
    let file = out.join(format!("{}-{TOKEN}.json", BOARD.replace(' ', "")));
    std::fs::read_to_string(file).unwrap()
}

#[test]
#[cfg_attr(
    rrm_fast_tests,
    ignore = "heavy: first-edition units (the full suite runs it)"
)]
fn unit_files_round_trip_with_their_provenance() {
    let honest = honest();
    let work = tempfile::tempdir().unwrap();
    let (first, second) = (work.path().join("first"), work.path().join("second"));
    campaign(&first);
    let mut file = exhaust_json(honest);
    file["provenance"] = json!({
        "computed_by": "alice", "verified_by": "bob", "check_pending": false,
        "rrm_version": "0.0.9", "cpu_seconds": 12.5,
    });
    let given = work.path().join("given.json");
    std::fs::write(&given, file.to_string()).unwrap();
    assert!(import(&first, &given).contains("accepted"));

    let exported = export(&first, &work.path().join("units-1"));
    let unit: Value = serde_json::from_str(&exported).unwrap();
    assert_eq!(
        unit["provenance"],
        json!({"computed_by": "alice", "verified_by": "bob", "check_pending": false,
               "rrm_version": "0.0.9", "cpu_seconds": 12.5})
    );
    for field in ["histogram", "legal_histogram", "max_moves", "unsolvable"] {
        assert_eq!(unit[field], file[field], "{field}");
    }
    // Placements are written compactly, and the same ones come back.
    let text = |cells: &[u8; 4]| cells.map(|c| c.to_string()).join(" ");
    let listed = |key: &str| -> Vec<String> {
        unit[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        listed("hardest"),
        honest.hardest.iter().map(text).collect::<Vec<_>>()
    );
    assert_eq!(
        listed("legal_hardest"),
        honest.legal_hardest.iter().map(text).collect::<Vec<_>>()
    );
    let samples = unit["legal_samples"].as_array().unwrap();
    assert_eq!(samples.len(), usize::from(honest.max_moves));
    for (depth, (sample, wanted)) in samples.iter().zip(&honest.legal_samples).enumerate() {
        assert_eq!(sample["depth"], depth + 1);
        let got: Vec<&str> = sample["placements"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_str().unwrap())
            .collect();
        assert_eq!(
            got,
            wanted.iter().map(text).collect::<Vec<_>>(),
            "depth {}",
            depth + 1
        );
    }
    // The coordinator's solutions of the hardest placements replay.
    let solutions = unit["hardest_solutions"].as_array().unwrap();
    assert_eq!(solutions.len(), honest.hardest.len());

    // A fresh store resumes from the exported file: same bytes out again.
    campaign(&second);
    let copy = work.path().join("copy.json");
    std::fs::write(&copy, &exported).unwrap();
    assert!(import(&second, &copy).contains("accepted"));
    assert_eq!(export(&second, &work.path().join("units-2")), exported);

    // A file with no provenance is recorded as imported, unverified.
    let third = work.path().join("third");
    campaign(&third);
    let bare = work.path().join("bare.json");
    std::fs::write(&bare, exhaust_json(honest).to_string()).unwrap();
    import(&third, &bare);
    let unit: Value = serde_json::from_str(&export(&third, &work.path().join("units-3"))).unwrap();
    assert_eq!(unit["provenance"]["computed_by"], "(imported)");
    assert!(unit["provenance"]["verified_by"].is_null());
}

#[test]
#[cfg_attr(
    rrm_fast_tests,
    ignore = "heavy: first-edition units (the full suite runs it)"
)]
fn the_census_report_publishes_records_that_replay() {
    let honest = honest();
    let work = tempfile::tempdir().unwrap();
    let store = work.path().join("store");
    campaign(&store);
    let given = work.path().join("given.json");
    std::fs::write(&given, exhaust_json(honest).to_string()).unwrap();
    import(&store, &given);
    let units = work.path().join("units");
    export(&store, &units);
    let out = work.path().join("out");
    let said = rrm_ok(&[
        "census",
        "report",
        "--units",
        units.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(said.contains("1 of 1,536 units"), "{said}");
    let census: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("census.json")).unwrap()).unwrap();
    assert_eq!(census["units_done"], 1);
    assert_eq!(census["all"]["max_moves"], honest.max_moves);
    assert_eq!(census["all"]["histogram"], json!(honest.histogram));
    assert_eq!(census["legal"]["histogram"], json!(honest.legal_histogram));
    let legal_max = honest.legal_histogram.iter().rposition(|&c| c > 0).unwrap();
    assert_eq!(census["legal"]["max_moves"], legal_max);
    // Every placement at each maximum the unit lists (at most the campaign's bound, and
    // said whether that is all), each with a solution the independent checker replays in
    // exactly that many moves.
    let bound = DEFAULT_MAX_HARDEST as usize;
    let mut records = 0;
    for (key, at_max) in [
        (
            "all",
            honest.histogram[usize::from(honest.max_moves)] as usize,
        ),
        ("legal", honest.legal_histogram[legal_max] as usize),
    ] {
        let listed = census[key]["records"].as_array().unwrap().len();
        assert_eq!(listed, at_max.min(bound), "{key}");
        assert_eq!(census[key]["complete"], at_max <= bound, "{key}");
        records += listed;
    }
    // `records.jsonl` holds each position once, in the lists' order.
    let puzzles = std::fs::read_to_string(out.join("records.jsonl")).unwrap();
    let mut seen = std::collections::HashSet::new();
    let listed: Vec<&Value> = census["all"]["records"]
        .as_array()
        .unwrap()
        .iter()
        .chain(census["legal"]["records"].as_array().unwrap())
        .filter(|record| seen.insert((record["placement"].clone(), record["moves"].clone())))
        .collect();
    assert!(
        listed.len() < records,
        "the unit's legal records are records over all too"
    );
    assert_eq!(puzzles.lines().count(), listed.len());
    for (line, record) in puzzles.lines().zip(listed) {
        let puzzle: PuzzleRecord = serde_json::from_str(line).unwrap();
        let moves: Vec<String> = record["solution"]
            .as_str()
            .unwrap()
            .split(' ')
            .map(String::from)
            .collect();
        assert_eq!(moves.len() as u64, record["moves"].as_u64().unwrap());
        assert_eq!(check_solution(&puzzle, &moves), Ok(()), "{record}");
    }
    let heatmap = std::fs::read_to_string(out.join("figures/heatmap.svg")).unwrap();
    assert_eq!(
        heatmap.matches("<rect").count(),
        2 * 1536,
        "two panels of 96 × 16 units"
    );
    let readme = std::fs::read_to_string(out.join("README.md")).unwrap();
    assert!(readme.contains(&format!("the maximum is **{} moves**", honest.max_moves)));
}
