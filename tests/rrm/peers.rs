//! `rrm-dev peer-bench` against drivers written here: a peer that lies about its answers
//! fails the command, one that declines a puzzle is counted as such, and one that crashes
//! is reported; rrm's own answers pass the same checks, on mirror games too; the median
//! puzzle's time is read from what each solver reports.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// A driver script named `name` in `dir` that prints `body`'s output for the file in $1.
fn driver(dir: &Path, name: &str, body: &str) {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Prints `name<TAB>` and `rest` for every puzzle of the file in $1.
fn each_puzzle(rest: &str) -> String {
    format!(
        "sed -n 's/.*\"name\":\"\\([^\"]*\\)\".*/\\1/p' \"$1\" | \
         while read -r n; do printf '%s\\t{rest}\\n' \"$n\"; done"
    )
}

#[test]
fn lying_declining_and_crashing_peers_are_told_apart() {
    let dir = tempfile::tempdir().unwrap();
    let peers = dir.path().join("peers");
    std::fs::create_dir(&peers).unwrap();
    // One quick hard position, to keep the test short.
    let hard = std::fs::read_to_string("tests/data/hard-positions.jsonl").unwrap();
    let position = hard.lines().find(|l| l.contains("\"kc_14")).unwrap();
    let positions = dir.path().join("one.jsonl");
    std::fs::write(&positions, format!("{position}\n")).unwrap();
    let bench = |extra: &[&str]| {
        let mut args = vec![
            "peer-bench",
            "--peers",
            peers.to_str().unwrap(),
            "--positions",
            positions.to_str().unwrap(),
            "--runs",
            "1",
            "--random4",
            "3",
            "--random5",
            "2",
            "--mirrors",
            "2",
            "--cpu",
            "0",
        ];
        args.extend_from_slice(extra);
        crate::rrm_dev(&args)
    };

    // A peer that declines everything: counted, not wrong.
    driver(
        &peers,
        "fogleman",
        &each_puzzle("unsupported\\tnot in this test"),
    );
    let declined = bench(&[]);
    let stdout = String::from_utf8_lossy(&declined.stdout);
    assert!(declined.status.success(), "{stdout}");
    assert!(
        stdout.contains("(1 unsupp.)") && stdout.contains("(3 unsupp.)"),
        "{stdout}"
    );
    // rrm answered all 10 puzzles optimally (checked by replay against the counts), the
    // mirror games too; a peer that knows no mirrors is not given them.
    let rrm_rows = stdout.lines().skip(4);
    let rrm_rows = rrm_rows.filter(|l| l.split_whitespace().any(|w| w == "rrm"));
    assert_eq!(rrm_rows.count(), 5, "{stdout}");
    assert!(stdout.contains("1/1") && stdout.contains("3/3") && stdout.contains("2/2"));
    assert!(stdout.contains("2 mirror games, 5 robots"), "{stdout}");
    // rrm reports each puzzle's CPU: every row of its has the median puzzle's.
    for row in stdout.lines().skip(4).filter(|l| l.contains(" rrm ")) {
        let tokens: Vec<&str> = row.split_whitespace().collect();
        let per_puzzle: f64 = tokens[tokens.len() - 2].parse().expect(row);
        assert!(per_puzzle > 0.0 && per_puzzle < 60_000.0, "{row}");
    }
    assert_eq!(stdout.matches("knows no mirrors").count(), 2, "{stdout}");

    // A liar (a 1-move "solution" to everything) and a crash.
    driver(&peers, "kcox", &each_puzzle("1\\t0N\\t0.004"));
    driver(&peers, "driftingdroids", "exit 3");
    let json = dir.path().join("runs.jsonl");
    let lied = bench(&["--json", json.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&lied.stdout);
    assert!(
        !lied.status.success(),
        "a lying peer must fail the bench: {stdout}"
    );
    assert!(
        stdout.contains(
            "WRONG: kcox on kc_14-polymorphicprism-83: 1 moves (optimal 14), replays: false"
        ),
        "{stdout}"
    );
    // Six plain puzzles and four mirror games: K. Cox's driver takes mirrors.
    assert_eq!(stdout.matches("WRONG: kcox").count(), 10, "{stdout}");
    assert!(stdout.contains("exited with status 3"), "{stdout}");
    // The seconds a driver reports per puzzle: the median puzzle's, in ms; none from one
    // that reports none.
    let kcox_rows = stdout.lines().filter(|l| l.contains(" kcox "));
    assert_eq!(
        kcox_rows.filter(|l| l.contains(" 4.000 ")).count(),
        5,
        "{stdout}"
    );
    // A peer's median puzzle over rrm's only where it answered right: the liar has none.
    assert!(!stdout.contains("median puzzle ÷ rrm's"), "{stdout}");
    // The same in the JSON lines: rrm's and K. Cox's medians, none from the decliner.
    let runs = std::fs::read_to_string(&json).unwrap();
    let runs: Vec<serde_json::Value> = runs
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let median_of = |solver: &str| {
        (runs.iter().filter(|run| run["solver"] == solver))
            .map(|run| run["median_puzzle_seconds"].as_f64())
            .collect::<Vec<_>>()
    };
    assert_eq!(median_of("kcox"), vec![Some(0.004); 5]);
    assert_eq!(median_of("fogleman"), vec![None; 3], "{runs:?}");
    assert!(median_of("rrm").iter().all(|m| m.is_some_and(|m| m > 0.0)));
    assert_eq!(median_of("rrm").len(), 5);
    assert!(!stdout.contains("WRONG: rrm"), "{stdout}");
}
