//! The committed unit files (seed 1's, dd25's and thirty first-edition units with the
//! records) are what the code computes today.

use super::*;

/// A placement as a result file writes it (`"47 0 22 108"`, or an object in older
/// files) as its cells.
fn placement_cells(value: &serde_json::Value) -> Vec<u64> {
    match value {
        serde_json::Value::String(text) => text
            .split_whitespace()
            .map(|c| c.parse().unwrap())
            .collect(),
        object => std::iter::once(&object["target_robot"])
            .chain(object["helpers"].as_array().unwrap())
            .map(|c| c.as_u64().unwrap())
            .collect(),
    }
}

/// Every list of a result file with its placements as cells, for comparing files that
/// write placements differently; `null` for a field the file lacks.
fn unit_figures(unit: &serde_json::Value) -> Vec<(&'static str, serde_json::Value)> {
    use serde_json::{json, Value};
    let list = |v: &Value| -> Value {
        v.as_array().map_or(Value::Null, |l| {
            json!(l.iter().map(placement_cells).collect::<Vec<_>>())
        })
    };
    let by_depth = |v: &Value| -> Value {
        v.as_array().map_or(Value::Null, |l| {
            json!(l
                .iter()
                .map(|d| json!([d["depth"], list(&d["placements"])]))
                .collect::<Vec<_>>())
        })
    };
    let sample = unit["sample"].as_array().map_or(Value::Null, |l| {
        json!(l
            .iter()
            .map(|s| json!([placement_cells(&s["placement"]), s["moves"]]))
            .collect::<Vec<_>>())
    });
    vec![
        ("target_cell", unit["target_cell"].clone()),
        ("placements", unit["placements"].clone()),
        ("histogram", unit["histogram"].clone()),
        ("legal_histogram", unit["legal_histogram"].clone()),
        ("unsolvable", unit["unsolvable"].clone()),
        ("max_moves", unit["max_moves"].clone()),
        ("hardest", list(&unit["hardest"])),
        ("legal_hardest", list(&unit["legal_hardest"])),
        ("top", by_depth(&unit["top"])),
        ("legal_samples", by_depth(&unit["legal_samples"])),
        ("sample", sample),
    ]
}

/// Placements of a target robot and three helpers on `record`'s board, counted from
/// its wall masks alone: free cells (not blocked, not walled in on all sides) less
/// `forbidden` ones, times the helper sets among the rest.
fn placements_of_three_helpers(record: &PuzzleRecord, forbidden: &[i64]) -> u64 {
    let closed = |c: usize| record.walls[c] & 15 == 15;
    let free = (0..record.width * record.height)
        .filter(|&c| !closed(c) && !record.blocked.contains(&(c as i64)))
        .filter(|&c| !forbidden.contains(&(c as i64)))
        .count() as u64;
    free * ((free - 1) * (free - 2) * (free - 3) / 6)
}

/// `rrm exhaust --json` of `args`, with the file's own list options.
fn exhaust_like(file: &serde_json::Value, args: &[&str]) -> serde_json::Value {
    let option = |name: &str| file[name].to_string();
    let (sample, top_from, top_per_depth) = (
        option("sample_size"),
        option("top_from"),
        option("top_per_depth"),
    );
    let mut all = vec!["exhaust", "--json", "--threads", "2", "--show", "0"];
    all.extend(args);
    all.extend(["--sample", &sample, "--top-from", &top_from]);
    all.extend(["--top-per-depth", &top_per_depth]);
    serde_json::from_str(crate::rrm_ok(&all).trim()).unwrap()
}

fn committed(path: &str) -> serde_json::Value {
    let path = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// Seed 1's unit as committed (the census's unit file and docs/census.md's figures of it)
/// is what `rrm exhaust --seed 1` computes now; its totals agree with counts made here
/// from the board, and the seed's own position with its published optimum.
#[test]
fn seed_1s_committed_unit_is_what_the_code_computes() {
    let file = committed("data/exhaustive/units/1A3B4A2B-GQ.json");
    let computed = exhaust_like(&file, &["--seed", "1"]);
    for ((name, want), (_, got)) in unit_figures(&file).into_iter().zip(unit_figures(&computed)) {
        assert!(!want.is_null(), "the file has {name}");
        assert_eq!(got, want, "{name}");
    }
    // Totals from the board alone: every placement, and the legal ones (no robot on one
    // of the spec's 16 target cells of this board; none is unsolvable).
    let game = Game::generate(1).unwrap();
    let record = game.puzzle().to_record(None);
    let placements = placements_of_three_helpers(&record, &[]);
    assert_eq!(file["placements"], placements);
    let sum = |v: &serde_json::Value| -> u64 {
        v.as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_u64().unwrap())
            .sum()
    };
    assert_eq!(file["unsolvable"], 0);
    assert_eq!(sum(&file["histogram"]), placements);
    let board = game.layout.board();
    let targets: Vec<i64> = game
        .layout
        .target_cells()
        .iter()
        .map(|&c| board.index_of(c) as i64)
        .collect();
    assert_eq!(
        sum(&file["legal_histogram"]),
        placements_of_three_helpers(&record, &targets)
    );
    // The seed's own position: Fogleman's published optimum, and docs/census.md's figures.
    let published = crate::generator::seed_records()[0].moves;
    let position = &computed["position"];
    assert_eq!(position["moves"], published as u64);
    let max = computed["max_moves"].as_u64().unwrap();
    let harder = position["harder"].as_u64().unwrap();
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/census.md"))
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for figure in [
        format!("all {} placements", grouped(placements)),
        format!("maximum ({max} moves for this unit)"),
        format!(
            "({published} moves: {:.1} % of placements need more)",
            harder as f64 * 100.0 / placements as f64
        ),
    ] {
        assert!(readme.contains(&figure), "docs/census.md: {figure}");
    }
}

/// dd25's unit as committed (`data/exhaustive/dd25-exact.json`, BENCHMARKS.md's unit) is
/// what `rrm exhaust --puzzle` computes now; its total agrees with a count made here
/// from the board, and its position with its published optimum (25 moves).
#[test]
fn dd25s_committed_unit_is_what_the_code_computes() {
    let file = committed("data/exhaustive/dd25-exact.json");
    let records: Vec<PuzzleRecord> = include_str!("../../data/hard-positions.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let dd25 = records
        .into_iter()
        .find(|r| r.name.as_deref() == Some("dd25"))
        .expect("dd25 is a hard position");
    let path = json_file("dd25.json", &dd25);
    let computed = exhaust_like(&file, &["--puzzle", path.to_str().unwrap()]);
    let mut absent = Vec::new();
    for ((name, want), (_, got)) in unit_figures(&file).into_iter().zip(unit_figures(&computed)) {
        if want.is_null() {
            absent.push(name);
            continue;
        }
        assert_eq!(got, want, "{name}");
    }
    // The file predates the legal lists (a puzzle file's unit has no legal cells anyway).
    assert_eq!(absent, ["legal_hardest", "legal_samples"]);
    let placements = placements_of_three_helpers(&dd25, &[]);
    assert_eq!(file["placements"], placements);
    let histogram: u64 = file["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(histogram + file["unsolvable"].as_u64().unwrap(), placements);
    assert_eq!(dd25.moves, Some(25));
    for position in [&file["position"], &computed["position"]] {
        assert_eq!(position["moves"], 25);
        assert_eq!(position["harder"], 0);
    }
    assert_eq!(file["max_moves"], 25);
    assert_eq!(
        file["hardest"].as_array().unwrap().len(),
        2,
        "docs/census.md: one of 2"
    );
}

/// `n` with thousands separated by commas, as docs/census.md writes counts.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// Thirty of the first edition's committed units, spread evenly over the census, and the
/// record's unit (`1B 2A 4B 3B BT`, 25 moves) are what `rrm exhaust --board --target`
/// computes now, list for list: the census stays valid through every change of the
/// exhaustive search.
#[test]
#[cfg_attr(
    rrm_fast_tests,
    ignore = "heavy: 31 units, about three minutes of CPU (the full suite runs it)"
)]
fn thirty_committed_first_edition_units_and_the_records_are_what_the_code_computes() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/data/exhaustive/units");
    let mut names: Vec<String> = (std::fs::read_dir(dir).unwrap())
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".json"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 1536, "the first edition's coloured units");
    let mut chosen: Vec<&str> = (0..30)
        .map(|i| names[i * names.len() / 30].as_str())
        .collect();
    chosen.push("1B2A4B3B-BT.json");
    for name in chosen {
        let file = committed(&format!("data/exhaustive/units/{name}"));
        let (board, token) = (
            file["board"].as_str().unwrap(),
            file["token"].as_str().unwrap(),
        );
        // The census was created with `--max-hardest 512`: the legal hardest are 512
        // spread over the legal maximum, and of the hardest the first 512 are kept.
        let args = [
            "--board",
            board,
            "--target",
            token,
            "--legal-hardest",
            "512",
        ];
        let mut computed = exhaust_like(&file, &args);
        let kept = file["hardest"].as_array().unwrap().len();
        let all = computed["hardest"].as_array_mut().unwrap();
        assert!(
            kept == all.len() || (kept == 512 && all.len() > 512),
            "{name}"
        );
        all.truncate(kept);
        for ((field, want), (_, got)) in
            unit_figures(&file).into_iter().zip(unit_figures(&computed))
        {
            assert!(!want.is_null(), "{name} has {field}");
            assert_eq!(got, want, "{name}: {field}");
        }
    }
}
