//! `rrm exhaust` from the command line: its histogram and records against the referee,
//! a wild unit counted by sets of cells, rules, refusals and Ctrl-C.

use super::*;

/// `rrm exhaust --puzzle`: the histogram, the puzzle's own rank and the hardest
/// placements agree with the referee, and the printed records solve to their count.
#[test]
fn exhaust_command_matches_the_referee_and_prints_solvable_records() {
    let record = walled_puzzle(0);
    let path = json_file("walled.json", &record);
    let path = path.to_str().unwrap();
    let expected = all_depths(&record, 2);
    let output = crate::rrm_ok(&["exhaust", "--puzzle", path, "--json", "--threads", "2"]);
    let unit: serde_json::Value = serde_json::from_str(output.trim()).unwrap();
    let mut histogram = vec![0u64];
    for depth in expected.values().flatten() {
        if histogram.len() <= *depth {
            histogram.resize(depth + 1, 0);
        }
        histogram[*depth] += 1;
    }
    let as_u64s = |v: &serde_json::Value| -> Vec<u64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_u64().unwrap())
            .collect()
    };
    assert_eq!(as_u64s(&unit["histogram"]), histogram);
    assert_eq!(unit["placements"], expected.len() as u64);
    let own: RefPlacement = (record.robots[0], {
        let mut helpers = record.robots[1..].to_vec();
        helpers.sort();
        helpers
    });
    let own_depth = expected[&own].expect("the puzzle is solvable");
    assert_eq!(unit["position"]["moves"], own_depth as u64);
    let harder = expected
        .values()
        .filter(|d| d.is_none_or(|d| d > own_depth))
        .count();
    assert_eq!(unit["position"]["harder"], harder as u64);
    let max = histogram.len() - 1;
    assert_eq!(unit["max_moves"], max as u64);
    assert_eq!(
        unit["hardest"].as_array().unwrap().len() as u64,
        histogram[max]
    );

    // Text: the hardest placements as records that `rrm solve --puzzle` solves in `max`.
    let text = crate::rrm_ok(&["exhaust", "--puzzle", path, "--show", "2"]);
    let records: Vec<PuzzleRecord> = text
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), histogram[max].min(2) as usize, "{text}");
    for (i, hard) in records.iter().enumerate() {
        assert_eq!(hard.moves, Some(max as u32));
        let file = json_file(&format!("hard-{i}.json"), hard);
        let solved = crate::rrm_ok(&["solve", "--puzzle", file.to_str().unwrap(), "--json"]);
        let solved: serde_json::Value = serde_json::from_str(solved.trim()).unwrap();
        let moves: Vec<String> = solved["solution"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap().to_string())
            .collect();
        assert_eq!(moves.len(), max, "{solved}");
        crate::referee::check_solution(hard, &moves).unwrap();
    }
}

/// A wild target through `rrm exhaust --puzzle`: every set of three cells once, with the
/// referee's depths, and the file's own position ranked whatever its robots' order.
#[test]
fn exhaust_command_counts_a_wild_unit_by_sets_of_cells() {
    let record = walled_puzzle(-1);
    let path = json_file("wild.json", &record);
    let output = crate::rrm_ok(&["exhaust", "--puzzle", path.to_str().unwrap(), "--json"]);
    let unit: serde_json::Value = serde_json::from_str(output.trim()).unwrap();
    let expected = all_depths(&record, 2);
    let mut histogram = vec![0u64];
    let sets = expected
        .iter()
        .filter(|((t, set), _)| set.iter().all(|h| t < h));
    for (_, depth) in sets.clone() {
        let Some(depth) = *depth else { continue };
        histogram.resize(histogram.len().max(depth + 1), 0);
        histogram[depth] += 1;
    }
    assert_eq!(unit["placements"], sets.count() as u64);
    assert_eq!(
        unit["placements"].as_u64().unwrap() * 3,
        expected.len() as u64
    );
    let listed: Vec<u64> = (unit["histogram"].as_array().unwrap().iter())
        .map(|n| n.as_u64().unwrap())
        .collect();
    assert_eq!(listed, histogram);
    let mut helpers = record.robots[1..].to_vec();
    helpers.sort();
    let own = expected[&(record.robots[0], helpers)];
    assert_eq!(unit["position"]["moves"].as_u64(), own.map(|d| d as u64));
    let text = crate::rrm_ok(&["exhaust", "--puzzle", path.to_str().unwrap()]);
    assert!(text.contains("any of 3 interchangeable robots"), "{text}");
}

/// `rrm exhaust --rules`: the rule set is printed and recorded; rules that restrict moves
/// change the counts (the position's own count is the rule search's, the hardest record
/// solves to its count under them), a minimum only refuses; a result under other rules is
/// never merged into the census.
#[test]
fn exhaust_honours_rules_and_names_them() {
    let record = walled_puzzle(0);
    let path = json_file("walled-rules.json", &record);
    let path = path.to_str().unwrap();
    let unit_under = |rules: &str| -> serde_json::Value {
        let output = crate::rrm_ok(&["exhaust", "--puzzle", path, "--json", "--rules", rules]);
        serde_json::from_str(output.trim()).unwrap()
    };
    let standard = unit_under("standard");
    assert!(standard.get("rules").is_none(), "{standard}");
    let histogram = |unit: &serde_json::Value| -> Vec<u64> {
        (unit["histogram"].as_array().unwrap().iter())
            .map(|n| n.as_u64().unwrap())
            .collect()
    };
    let no_rebounds = unit_under("no-rebounds");
    assert_eq!(no_rebounds["rules"], "no-rebounds");
    assert_eq!(no_rebounds["placements"], standard["placements"]);
    assert_ne!(histogram(&no_rebounds), histogram(&standard));
    let solved = crate::rrm_ok(&[
        "solve",
        "--puzzle",
        path,
        "--rules",
        "no-rebounds",
        "--json",
    ]);
    let solved: serde_json::Value = serde_json::from_str(solved.trim()).unwrap();
    assert_eq!(
        no_rebounds["position"]["moves"].as_u64(),
        Some(solved["solution"].as_array().unwrap().len() as u64)
    );

    let text = crate::rrm_ok(&["exhaust", "--puzzle", path, "--rules", "no-rebounds"]);
    assert!(text.contains("\nrules: no-rebounds\n"), "{text}");
    let hard: PuzzleRecord = serde_json::from_str(
        text.lines()
            .find(|l| l.starts_with('{'))
            .expect("a hardest record"),
    )
    .unwrap();
    assert!(hard
        .source
        .as_deref()
        .unwrap()
        .contains("under rules no-rebounds"));
    let file = json_file("hard-no-rebounds.json", &hard);
    let file = file.to_str().unwrap();
    let solved = crate::rrm_ok(&[
        "solve",
        "--puzzle",
        file,
        "--rules",
        "no-rebounds",
        "--json",
    ]);
    let solved: serde_json::Value = serde_json::from_str(solved.trim()).unwrap();
    assert_eq!(
        hard.moves,
        Some(solved["solution"].as_array().unwrap().len() as u32)
    );
    assert_eq!(no_rebounds["max_moves"].as_u64(), hard.moves.map(u64::from));

    let minimum = unit_under("min-moves=3");
    assert_eq!(histogram(&minimum), histogram(&standard));
    let short: u64 = histogram(&standard)[..3].iter().sum();
    assert!(short > 0);
    assert_eq!(minimum["refused"], short);
    let text = crate::rrm_ok(&["exhaust", "--puzzle", path, "--rules", "min-moves=3"]);
    assert!(
        text.contains(&format!("refused by the minimum (fewer moves): {short} ")),
        "{text}"
    );

    // A census report never takes a unit analysed under other rules.
    let units = std::env::temp_dir().join(format!("rrm-rules-units-{}", std::process::id()));
    std::fs::create_dir_all(&units).unwrap();
    let mut foreign = standard.clone();
    foreign["board"] = "1A 3B 4A 2B".into();
    foreign["token"] = "GQ".into();
    foreign["rules"] = "no-rebounds".into();
    std::fs::write(units.join("1A3B4A2B-GQ.json"), foreign.to_string()).unwrap();
    let out = units.join("report");
    let output = crate::rrm(&[
        "census",
        "report",
        "--units",
        units.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("never merged across rules"), "{stderr}");
}

#[test]
fn exhaust_refuses_what_is_no_unit() {
    for args in [
        vec!["exhaust", "--board", "1A 1B 2A 3A", "--target", "RT"],
        vec!["exhaust", "--board", "1A 3B 4A 2B", "--target", "XT"],
        vec!["exhaust", "--board", "1A 3B 4A 2B"],
    ] {
        let output = crate::rrm(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(!stderr.trim().is_empty());
    }
}

/// Ctrl-C during a unit stops it after the layer under way with a message naming the
/// unit and the layers done, and exit status 130, instead of dying silently.
#[test]
fn ctrl_c_stops_exhaust_with_a_message() {
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_rrm"))
        .args([
            "exhaust",
            "--board",
            "1A 3B 4A 2B",
            "--target",
            "RT",
            "--threads",
            "1",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = crate::read_all(child.stdout.take().unwrap());
    let stderr = crate::read_all(child.stderr.take().unwrap());
    // A whole unit takes ~20 s of CPU: 2 s in, it is in its first layers.
    std::thread::sleep(std::time::Duration::from_secs(2));
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let status = crate::exit_within(&mut child, std::time::Duration::from_secs(60))
        .expect("exhaust stops within a minute of Ctrl-C");
    let stderr = String::from_utf8(stderr.join().unwrap().unwrap()).unwrap();
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("interrupted in board 1A 3B 4A 2B, target RT after")
            && stderr.contains("; 0 of 1 unit done before it"),
        "{stderr}"
    );
    assert!(
        stdout.join().unwrap().unwrap().is_empty(),
        "no half result is printed"
    );
}
