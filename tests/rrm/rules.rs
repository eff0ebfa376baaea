//! Campaigns under each rule set: mined by `rrm mine` (a coordinator and a worker over
//! gRPC), their statistics against solving every seed directly under the same rules, the
//! rules in the stats header, the JSON and the campaign list, and results under other
//! rules refused for comparison.

use ricochet::rules::{obeys, solve, Rules};
use ricochet::Generator;
use std::path::Path;

const SEEDS: std::ops::Range<u64> = 1..121;

/// The histogram of `SEEDS` solved here, one by one, each solution replayed and checked
/// against the rules.
fn direct_histogram(rules: Rules) -> Vec<u64> {
    let mut histogram = Vec::new();
    for seed in SEEDS {
        let puzzle = Generator::Fogleman.generate(seed).unwrap().puzzle;
        let solution = solve(&puzzle, rules, 40).unwrap();
        assert!(puzzle.is_solution(&solution.moves), "seed {seed}");
        assert!(
            obeys(&puzzle, &solution.moves, rules),
            "seed {seed} {rules}"
        );
        let moves = solution.moves.len();
        histogram.resize(histogram.len().max(moves + 1), 0);
        histogram[moves] += 1;
    }
    histogram
}

fn mine(data: &Path, name: &str, rules: &str) {
    let seeds = format!("{}..{}", SEEDS.start, SEEDS.end);
    crate::rrm_ok(&[
        "mine",
        "--seeds",
        &seeds,
        "--unit-size",
        "40",
        "--campaign",
        name,
        "--rules",
        rules,
        "--data",
        data.to_str().unwrap(),
    ]);
}

fn stats_json(data: &Path, name: &str) -> serde_json::Value {
    let json = crate::rrm_ok(&[
        "stats",
        "--campaign",
        name,
        "--json",
        "--data",
        data.to_str().unwrap(),
    ]);
    serde_json::from_str(json.trim()).unwrap()
}

#[test]
fn a_campaign_under_each_rule_set_is_mined_and_queried_under_its_rules() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("store");
    let mut histograms = Vec::new();
    for (name, rules) in [
        ("standard", "standard"),
        ("no-rebounds", "no-rebounds"),
        ("ricochet", "ricochet"),
        ("dd-ricochet", "dd-ricochet"),
        ("at-least-4", "min-moves=4"),
    ] {
        mine(&data, name, rules);
        let parsed = Rules::parse(rules).unwrap();
        let stats = stats_json(&data, name);
        assert_eq!(stats["rules"], parsed.to_string(), "{name}");
        let mut mined = Vec::new();
        for bin in stats["histogram"].as_array().unwrap() {
            let moves = bin["moves"].as_u64().unwrap() as usize;
            mined.resize(mined.len().max(moves + 1), 0);
            mined[moves] = bin["puzzles"].as_u64().unwrap();
        }
        let direct = direct_histogram(parsed);
        assert_eq!(mined, direct, "{name}");
        let refused: u64 = direct[..direct.len().min(usize::from(parsed.min_moves))]
            .iter()
            .sum();
        assert_eq!(stats["refused"], refused, "{name}");
        let text = crate::rrm_ok(&[
            "stats",
            "--campaign",
            name,
            "--data",
            data.to_str().unwrap(),
        ]);
        assert!(text.starts_with(&format!("rules: {parsed}\n")), "{text}");
        let top = |json: &str| {
            let mut args = vec!["top", "--campaign", name, "--data", data.to_str().unwrap()];
            args.extend(["--limit", "2", json].iter().filter(|a| !a.is_empty()));
            crate::rrm_ok(&args)
        };
        let rows = top("--json");
        assert_eq!(rows.lines().count(), 2, "{rows}");
        for row in rows.lines() {
            let row: serde_json::Value = serde_json::from_str(row).unwrap();
            assert_eq!(row["rules"], parsed.to_string(), "{name}");
        }
        let header = format!("{name}: rules {parsed}\n");
        assert_eq!(
            top("").starts_with(&header),
            parsed != Rules::STANDARD,
            "{name}"
        );
        histograms.push(direct);
    }
    // The rules change the answers on these seeds: each differs from the standard ones.
    for (rules, histogram) in histograms.iter().enumerate().skip(1).take(3) {
        assert_ne!(histogram, &histograms[0], "rule set {rules}");
    }
    assert!(crate::rrm_ok(&[
        "stats",
        "--campaign",
        "at-least-4",
        "--data",
        data.to_str().unwrap()
    ])
    .contains("refused (fewer than 4 moves)"));
    let list = crate::rrm_ok(&[
        "campaign",
        "list",
        "--json",
        "--data",
        data.to_str().unwrap(),
    ]);
    assert!(list.contains(r#""rules":"no-rebounds""#), "{list}");
    // Results under different rules are never compared (or merged).
    let compared = crate::rrm(&[
        "stats",
        "--campaign",
        "standard",
        "--compare",
        "ricochet",
        "--data",
        data.to_str().unwrap(),
    ]);
    assert_eq!(compared.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&compared.stderr);
    assert!(stderr.contains("never compared"), "{stderr}");
}

#[test]
fn bad_rules_get_one_clear_line() {
    for (rules, says) in [
        ("bounce", "unknown rule \"bounce\""),
        ("ricochet,dd-ricochet", "two ricochet rules"),
        ("min-moves=0", "min-moves \"0\""),
    ] {
        let output = crate::rrm(&["solve", "--seed", "1", "--rules", rules]);
        assert_eq!(output.status.code(), Some(2), "{rules}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(says), "{rules}: {stderr}");
    }
    let output = crate::rrm(&[
        "campaign",
        "create",
        "vx",
        "--exhaustive",
        "fogleman",
        "--rules",
        "ricochet",
        "--data",
        "/nonexistent-rrm-store",
    ]);
    assert_ne!(output.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("standard rules only"), "{stderr}");
}

/// The arguments of `rrm solve --puzzle PUZZLE --rules RULES`.
fn solve_args<'a>(puzzle: &'a Path, rules: &'a str) -> [&'a str; 5] {
    [
        "solve",
        "--puzzle",
        puzzle.to_str().unwrap(),
        "--rules",
        rules,
    ]
}

/// The moves a puzzle needs by `rrm solve --json` under `rules`.
fn solved_moves(puzzle: &Path, rules: &str) -> u64 {
    let json = crate::rrm_ok(&[&solve_args(puzzle, rules)[..], &["--json"]].concat());
    let report: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    report["moves"].as_u64().unwrap()
}

/// A puzzle file's count is today's optimum: under rules that restrict the moves it is a
/// floor the answer may exceed, and an answer below it is still a mismatch.
#[test]
fn a_files_count_is_a_floor_under_rules_that_restrict_the_moves() {
    let dir = tempfile::tempdir().unwrap();
    let puzzle = dir.path().join("seed-11.json");
    let json = crate::rrm_ok(&["show", "--seed", "11", "--format", "json"]);
    std::fs::write(&puzzle, &json).unwrap();
    let today = solved_moves(&puzzle, "standard");
    let without_rebounds = solved_moves(&puzzle, "no-rebounds");
    assert!(
        without_rebounds > today,
        "seed 11 needs more moves without rebounds"
    );

    let mut record: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    for (claimed, rules, passes, says) in [
        (today, "no-rebounds", true, "expected at least"),
        (today, "standard", true, "expected "),
        (
            without_rebounds + 1,
            "no-rebounds",
            false,
            "expected at least",
        ),
        (without_rebounds, "standard", false, "expected "),
    ] {
        record["moves"] = claimed.into();
        std::fs::write(&puzzle, record.to_string()).unwrap();
        let output = crate::rrm(&solve_args(&puzzle, rules));
        let stdout = String::from_utf8_lossy(&output.stdout);
        let verdict = if passes { "ok" } else { "MISMATCH" };
        let line = stdout
            .lines()
            .find(|line| line.starts_with(says))
            .unwrap_or_else(|| panic!("{rules}, {claimed}: {stdout}"));
        assert!(line.ends_with(verdict), "{rules}, {claimed}: {line}");
        assert_eq!(
            output.status.success(),
            passes,
            "{rules}, {claimed}: {stdout}"
        );
    }
}
