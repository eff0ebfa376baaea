//! The `rrm` binary end to end: output formats, batches and clear failures on bad input.

use crate::referee::check_solution;
use crate::rrm;
use ricochet::PuzzleRecord;
use serde_json::Value;
use std::io::Write;
use std::process::Output;

fn assert_success(output: &Output) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
}

fn stdout_json_lines(output: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

fn temp_file(name: &str, content: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("rrm-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::File::create(&path)
        .unwrap()
        .write_all(content.as_bytes())
        .unwrap();
    path
}

const HARD: &str = include_str!("../data/hard-positions.jsonl");

/// A valid record to corrupt: kc_14, the cheapest hard position, as JSON.
fn valid_record() -> Value {
    let line = HARD.lines().find(|l| l.contains("kc_14")).unwrap();
    serde_json::from_str(line).unwrap()
}

#[test]
fn solve_seed_json_has_the_documented_fields_and_a_valid_solution() {
    let output = rrm(&["solve", "--seed", "172", "--json"]);
    assert_success(&output);
    let report = &stdout_json_lines(&output)[0];
    assert_eq!(report["seed"], 172);
    assert_eq!(report["quads"], serde_json::json!(["3B", "1A", "2A", "4B"]));
    assert_eq!(report["robots"], serde_json::json!([244, 179, 12, 227]));
    assert_eq!(report["target"]["token"], "BT");
    assert_eq!(report["target"]["cell"], 54);
    assert_eq!(report["moves"], 15);
    assert_eq!(report["rules"], "standard");
    assert!(report["states"].as_u64().unwrap() > 0);
    assert!(report["cpu_seconds"].as_f64().unwrap() > 0.0);
    let game = ricochet::Game::generate(172).unwrap();
    let moves: Vec<String> = serde_json::from_value(report["solution"].clone()).unwrap();
    assert_eq!(
        check_solution(&game.puzzle().to_record(None), &moves),
        Ok(())
    );
}

#[test]
fn solve_seed_text_shows_the_board_and_solution() {
    let output = rrm(&["solve", "--seed", "2"]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success());
    assert!(text.contains("###"), "centre block drawn:\n{text}");
    assert!(text.contains("2 moves (optimal)"), "{text}");
}

#[test]
fn seed_batch_prints_one_line_per_seed_in_order() {
    let output = rrm(&["solve", "--seeds", "1..41", "--json", "--threads", "2"]);
    assert!(output.status.success());
    let lines = stdout_json_lines(&output);
    let expected = crate::generator::seed_records();
    assert_eq!(lines.len(), 40);
    for (line, record) in lines.iter().zip(expected) {
        assert_eq!(line["seed"], record.seed);
        assert_eq!(line["moves"], record.moves);
    }
}

#[test]
fn puzzle_file_and_batch_file_are_solved() {
    let record = valid_record();
    let path = temp_file("kc14.json", &record.to_string());
    let output = rrm(&["solve", "--puzzle", path.to_str().unwrap(), "--json"]);
    assert_success(&output);
    let report = &stdout_json_lines(&output)[0];
    assert_eq!(report["moves"], 14);
    assert_eq!(report["name"], "kc_14-polymorphicprism-83");
    let moves: Vec<String> = serde_json::from_value(report["solution"].clone()).unwrap();
    let parsed: PuzzleRecord = serde_json::from_value(record).unwrap();
    assert_eq!(check_solution(&parsed, &moves), Ok(()));

    let seeds = crate::generator::seed_records();
    let batch: String = seeds[..30]
        .iter()
        .map(|s| {
            let mut r = ricochet::Game::generate(s.seed)
                .unwrap()
                .puzzle()
                .to_record(Some(s.seed.to_string()));
            r.moves = Some(s.moves as u32);
            serde_json::to_string(&r).unwrap() + "\n"
        })
        .collect();
    let path = temp_file("batch.jsonl", &batch);
    let output = rrm(&["solve", "--puzzles", path.to_str().unwrap(), "--json"]);
    assert!(output.status.success());
    let lines = stdout_json_lines(&output);
    assert_eq!(lines.len(), 30);
    assert!(lines.iter().zip(&seeds).all(|(l, s)| l["moves"] == s.moves
        && l["name"].as_str().and_then(|n| n.parse::<u64>().ok()) == Some(s.seed)));
}

/// Runs `rrm solve --puzzle` on `content`: must exit 2 with one stderr line containing `needle`.
fn assert_refused(content: &str, needle: &str) {
    let path = temp_file(&format!("bad-{}.json", needle.replace(' ', "-")), content);
    let output = rrm(&["solve", "--puzzle", path.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{needle}: {stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
    assert!(stderr.contains(needle), "expected {needle:?} in {stderr:?}");
    assert!(output.stdout.is_empty());
}

#[test]
fn bad_puzzles_are_refused_with_one_clear_line() {
    assert_refused("{\"width\": 16,", "not a valid puzzle record");
    let mut record = valid_record();
    record["robots"][1] = record["robots"][0].clone();
    assert_refused(&record.to_string(), "both stand on cell");
    let mut record = valid_record();
    record["blocked"] = serde_json::json!([119, 120, 135, 136]);
    record["robots"][0] = serde_json::json!(119);
    assert_refused(&record.to_string(), "blocked or walled on all sides");
    let mut record = valid_record();
    record["robots"][2] = serde_json::json!(256);
    assert_refused(&record.to_string(), "outside the 16x16 board");
    let mut record = valid_record();
    record["walls"][17] = serde_json::json!(record["walls"][17].as_u64().unwrap() ^ 2);
    assert_refused(&record.to_string(), "inconsistent walls");
    let mut record = valid_record();
    record["target_robot"] = serde_json::json!(7);
    assert_refused(&record.to_string(), "target robot 7 does not exist");
    let mut record = valid_record();
    record["walls"].as_array_mut().unwrap().pop();
    assert_refused(&record.to_string(), "needs 256 wall masks");
}

#[test]
fn bad_seeds_and_missing_files_are_refused() {
    for args in [
        &["solve", "--seed", "0"][..],
        &["solve", "--seeds", "0..10"],
        &["solve", "--seeds", "5..5"],
        &["solve", "--puzzle", "/nonexistent/p.json"],
    ] {
        let output = rrm(args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.starts_with("rrm: error:"), "{stderr}");
    }
}

#[test]
fn a_closed_stdout_ends_a_batch_quietly() {
    // A billion seeds: days of solving, so an exit within the limit below is a batch
    // that stopped early, not one that ran to its end.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_rrm"))
        .args(["solve", "--seeds", "1..1000000001"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = crate::read_all(child.stderr.take().unwrap());
    let stdout = child.stdout.take().unwrap();
    // The first line, read on a thread so that a batch printing nothing fails in time.
    let (line_tx, line_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut first = String::new();
        let read = std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut first);
        let _ = line_tx.send(read.map(|_| first));
        // The reader (and the pipe) goes here, like `| head -1`.
    });
    let first = line_rx.recv_timeout(std::time::Duration::from_secs(60));
    let Ok(Ok(first)) = first else {
        let _ = child.kill();
        let _ = child.wait();
        panic!("no first line within 60 s: {first:?}");
    };
    assert!(first.starts_with("seed 1: "), "{first}");
    let closed = std::time::Instant::now();
    let limit = std::time::Duration::from_secs(30);
    let Some(status) = crate::exit_within(&mut child, limit) else {
        let _ = child.kill();
        let _ = child.wait();
        panic!("the batch still ran {limit:?} after its stdout closed");
    };
    eprintln!("exited {:?} after its stdout closed", closed.elapsed());
    let stderr = stderr.join().unwrap().unwrap();
    let stderr = String::from_utf8_lossy(&stderr);
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(stderr.is_empty(), "nothing on stderr: {stderr}");
}

#[test]
fn seed_ranges_reach_the_last_seed() {
    let seeds = |output: &Output| -> Vec<u64> {
        stdout_json_lines(output)
            .iter()
            .map(|line| line["seed"].as_u64().unwrap())
            .collect()
    };
    let near_the_end = rrm(&[
        "solve",
        "--seeds",
        "18446744073709550000..18446744073709550002",
        "--json",
    ]);
    assert_success(&near_the_end);
    assert_eq!(
        seeds(&near_the_end),
        [18446744073709550000, 18446744073709550001]
    );
    let last = rrm(&[
        "solve",
        "--seeds",
        "18446744073709551614..=18446744073709551615",
        "--json",
    ]);
    assert_success(&last);
    assert_eq!(seeds(&last), [u64::MAX - 1, u64::MAX]);
    // The batch solves the last seed as `--seed` does.
    let single = rrm(&["solve", "--seed", "18446744073709551615", "--json"]);
    assert_eq!(
        stdout_json_lines(&single)[0]["solution"],
        stdout_json_lines(&last)[1]["solution"]
    );
    // Campaign ranges exclude their end, so they cannot hold the last seed.
    let data = tempfile::tempdir().unwrap();
    let refused = rrm(&[
        "campaign",
        "create",
        "last",
        "--seeds",
        "5..=18446744073709551615",
        "--data",
        data.path().to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("campaigns cannot include seed 18446744073709551615"),
        "{stderr}"
    );
}

#[test]
fn zero_counts_are_refused() {
    for args in [
        &["solve", "--seeds", "1..3", "--threads", "0"][..],
        &["top", "--limit", "0"],
        &[
            "pack",
            "--min-moves",
            "3",
            "--max-moves",
            "5",
            "--count",
            "0",
            "--out",
            "p.json",
        ],
    ] {
        let output = rrm(args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("must be at least 1"), "{args:?}: {stderr}");
    }
}

#[test]
fn one_move_is_one_move() {
    let seed = crate::generator::seed_records()
        .into_iter()
        .find(|record| record.moves == 1)
        .expect("a one-move seed among the fixtures")
        .seed
        .to_string();
    let text = crate::rrm_ok(&["solve", "--seed", &seed]);
    assert!(text.contains("\n1 move (optimal): "), "{text}");
    let batch = crate::rrm_ok(&["solve", "--seeds", &format!("{seed}..={seed}")]);
    assert!(
        batch.starts_with(&format!("seed {seed}: 1 move ")),
        "{batch}"
    );
}

#[test]
fn logs_are_plain_text_off_a_terminal() {
    let output = crate::output_within(
        std::process::Command::new(env!("CARGO_BIN_EXE_rrm"))
            .args(["solve", "--seeds", "1..3"])
            .env("RUST_LOG", "info"),
        crate::COMMAND_LIMIT,
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("batch solved"), "{stderr}");
    assert!(!stderr.contains('\x1b'), "no colour codes: {stderr:?}");
}

/// `rrm --help` lists what users run; the developer tools are `rrm-dev`'s alone.
#[test]
fn the_developer_tools_run_from_their_own_binary() {
    const DEV_TOOLS: [&str; 5] = [
        "bench",
        "peer-bench",
        "load-test",
        "check-bench",
        "ricocheckers-bench",
    ];
    let commands = |help: &str| -> Vec<String> {
        (help.split("Commands:\n").nth(1).unwrap().lines())
            .take_while(|line| !line.is_empty())
            .filter_map(|line| line.split_whitespace().next().map(String::from))
            .collect()
    };
    let user = commands(&crate::rrm_ok(&["--help"]));
    let dev = commands(&crate::rrm_dev_ok(&["--help"]));
    assert!(user.contains(&"mine".to_string()), "{user:?}");
    for tool in DEV_TOOLS {
        assert!(!user.iter().any(|c| c == tool), "rrm --help lists {tool}");
        assert!(dev.iter().any(|c| c == tool), "rrm-dev --help lacks {tool}");
        let gone = rrm(&[tool, "--help"]);
        assert!(!gone.status.success(), "rrm {tool} still runs");
    }
    let engine = rrm(&["ricocheckers", "bench", "--help"]);
    assert!(
        !engine.status.success(),
        "rrm ricocheckers bench still runs"
    );
}

/// `campaign create --if-missing` (set-up that runs more than once, such as the sweep
/// overlay's Job): a campaign that exists with the same settings is left as it is, with
/// status 0; one with other settings is an error that names it; without the flag an
/// existing campaign is an error.
#[test]
fn campaign_create_if_missing_leaves_the_same_campaign_and_refuses_another() {
    let data = tempfile::tempdir().unwrap();
    let store = data.path().join("store");
    let store = store.to_str().unwrap();
    let exhaustive = [
        "campaign",
        "create",
        "dd",
        "--exhaustive",
        "driftingdroids",
        "--sides",
        "CD",
        "--targets",
        "RC,VX",
        "--if-missing",
        "--data",
        store,
    ];
    assert!(crate::rrm_ok(&exhaustive).starts_with("created exhaustive campaign dd: 192 units"));
    let said = crate::rrm_ok(&exhaustive);
    assert_eq!(said.trim(), "campaign dd exists (192 units): left as it is");
    let mut other = exhaustive.to_vec();
    other[8] = "RC";
    let refused = rrm(&other);
    assert!(!refused.status.success());
    let error = String::from_utf8_lossy(&refused.stderr);
    assert!(
        error.contains("campaign dd exists with other settings (192 units)"),
        "{error}"
    );
    let seeds = [
        "campaign",
        "create",
        "s",
        "--seeds",
        "1..1001",
        "--if-missing",
        "--data",
        store,
    ];
    crate::rrm_ok(&seeds);
    assert!(crate::rrm_ok(&seeds).contains("left as it is"));
    let mut other = seeds.to_vec();
    other[4] = "1..2001";
    assert!(!rrm(&other).status.success());
    let without: Vec<&str> = seeds
        .iter()
        .copied()
        .filter(|a| *a != "--if-missing")
        .collect();
    assert!(!rrm(&without).status.success());
}
