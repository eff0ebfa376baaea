//! What record hunters, pack builders and DriftingDroids players hit, one test per defect
//! found by using rrm as they do: each failed before its fix.

use crate::referee::check_solution;
use crate::{rrm, rrm_ok};
use ricochet::solver::{Solver, Unsolved};
use ricochet::{Game, Puzzle, PuzzleRecord};
use serde_json::Value;

/// `--max-moves` below a puzzle's lower bound indexed past the fringe search's buckets (a
/// panic, exit 101): it is "unsolved within N", exit 1, alone and in batches.
#[test]
fn a_move_limit_below_the_bound_is_unsolved_not_a_panic() {
    let puzzle = Game::generate(1).unwrap().puzzle();
    let optimum = Solver::new().solve(&puzzle).unwrap().moves.len() as u8;
    for limit in 0..optimum {
        let answer = Solver::with_limits(limit, 1 << 20).solve(&puzzle);
        assert_eq!(
            answer.err(),
            Some(Unsolved::TooLong(limit)),
            "limit {limit}"
        );
    }
    for limit in ["0", "1", "2"] {
        let output = rrm(&["solve", "--seed", "1", "--max-moves", limit]);
        let (stdout, stderr) = (
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr),
        );
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(
            stdout.contains(&format!("unsolved within {limit} move")),
            "{stdout}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
        // No state count it does not have.
        assert!(!stdout.contains("0 states"), "{stdout}");
    }
    let output = rrm(&["solve", "--seeds", "1..5", "--max-moves", "1"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout.matches("unsolved within 1 move:").count(),
        4,
        "{stdout}"
    );
}

/// A store in `store/` of a new directory, with seeds `seeds` mined in units of 500.
fn mined(seeds: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    crate::reports::mine(&dir.path().join("store"), seeds);
    dir
}

/// A bad game ID or a pasted dump is read as what it is, and its one error line names the
/// bad part, not a missing file.
#[test]
fn a_bad_game_id_or_dump_names_its_bad_part() {
    for (text, says) in [
        ("7650+42+E2302B12+ZZ", "target \"ZZ\""),
        ("7650+42+E2302B1+C9", "robot cells"),
        ("7G50+42+E2302B12+C9", "tile sides"),
        ("!DriftingDroids_game!1234!abc!", "CRC"),
    ] {
        let output = rrm(&["solve", "--puzzle", text]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{text}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(says), "{text}: {stderr}");
        assert!(!stderr.contains("cannot read"), "{text}: {stderr}");
    }
}

/// `rrm solve --puzzles FILE --format FORMAT --json`'s answers.
fn solved_as(file: &std::path::Path, format: &str) -> Vec<Value> {
    let report = rrm_ok(&[
        "solve",
        "--puzzles",
        file.to_str().unwrap(),
        "--format",
        format,
        "--json",
    ]);
    (report.lines())
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// Every format `rrm pack` writes is one `rrm solve --puzzles` reads back: the same
/// puzzles, in order, each solved to its count; `--puzzle` on a file of several says so.
#[test]
fn every_pack_format_reads_back() {
    let dir = mined("1..1501");
    let data = dir.path().join("store");
    let data = data.to_str().unwrap();
    let pack = |format: &str| -> std::path::PathBuf {
        let out = dir.path().join(format!("pack.{format}"));
        rrm_ok(&[
            "pack",
            "--data",
            data,
            "--min-moves",
            "8",
            "--max-moves",
            "11",
            "--count",
            "4",
            "--format",
            format,
            "--out",
            out.to_str().unwrap(),
        ]);
        out
    };
    let json: Value = serde_json::from_slice(&std::fs::read(pack("json")).unwrap()).unwrap();
    let records: Vec<PuzzleRecord> = (json["puzzles"].as_array().unwrap().iter())
        .map(|entry| serde_json::from_value(entry["puzzle"].clone()).unwrap())
        .collect();
    assert_eq!(records.len(), 4);
    for format in ["json", "html", "dd-id", "kcox"] {
        let file = pack(format);
        let report = rrm_ok(&["solve", "--puzzles", file.to_str().unwrap(), "--json"]);
        let answers: Vec<Value> = (report.lines())
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(answers.len(), records.len(), "{format}: {report}");
        for (answer, record) in answers.iter().zip(&records) {
            let solution: Vec<String> = serde_json::from_value(answer["solution"].clone()).unwrap();
            assert_eq!(Some(solution.len() as u32), record.moves, "{format}");
            // DriftingDroids' boards add the vortex's walls, so its IDs are checked on
            // their own boards; the others are the very puzzles of the JSON pack.
            if format != "dd-id" {
                assert_eq!(check_solution(record, &solution), Ok(()), "{format}");
            }
        }
        // The name `pack --format` writes is the name `solve --format` reads.
        let solutions = |answers: Vec<Value>| -> Vec<Value> {
            answers.iter().map(|a| a["solution"].clone()).collect()
        };
        assert_eq!(
            solutions(solved_as(&file, format)),
            solutions(answers.clone()),
            "{format}"
        );
        let output = rrm(&["solve", "--puzzle", file.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{format}");
        assert!(stderr.contains("holds 4 puzzles: --puzzles"), "{stderr}");
    }
    // The DriftingDroids IDs name the same positions on DriftingDroids' boards.
    let ids = std::fs::read_to_string(pack("dd-id")).unwrap();
    for (id, record) in ids.lines().zip(&records) {
        let game = ricochet::driftingdroids::DdGame::parse(id).unwrap();
        let puzzle: Puzzle = game.puzzle().unwrap();
        assert_eq!(puzzle.to_record(None).robots, record.robots, "{id}");
        assert_eq!(
            puzzle.to_record(None).target_cell,
            record.target_cell,
            "{id}"
        );
    }
}

/// A refused `rrm mine` says its reason once and leaves no store behind.
#[test]
fn a_refused_mine_says_why_once_and_leaves_no_store() {
    let dir = tempfile::tempdir().unwrap();
    for (args, says) in [
        (
            ["--seeds", "5..1", "--unit-size", "10"],
            "seed range \"5..1\" is empty",
        ),
        (
            ["--seeds", "1..100", "--unit-size", "0"],
            "unit size 0 must be",
        ),
        (
            ["--seeds", "1..100", "--generator", "nope"],
            "unknown generator \"nope\"",
        ),
    ] {
        let data = dir.path().join("store");
        let mut command = vec!["mine", "--data", data.to_str().unwrap()];
        command.extend(args);
        let output = rrm(&command);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.matches(says).count(), 1, "{stderr}");
        assert!(!data.exists(), "{args:?} left a store");
    }
}

/// A position the rules' minimum refuses is not reported as an optimal answer: it says
/// "refused" and exits 1, alone and in batches.
#[test]
fn a_position_the_rules_refuse_exits_1() {
    let output = rrm(&["solve", "--seed", "1", "--rules", "min-moves=10"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("refused: the rules (min-moves=10)"),
        "{stdout}"
    );
    assert!(!stdout.contains("(optimal"), "{stdout}");
    let output = rrm(&["solve", "--seeds", "1..3", "--rules", "min-moves=10"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert_eq!(
        stdout.matches("refused (min-moves=10)").count(),
        2,
        "{stdout}"
    );
}

/// `--format` says how a puzzle file is written: with a seed it is refused, not ignored.
#[test]
fn a_puzzle_format_with_a_seed_is_refused() {
    let output = rrm(&["solve", "--seed", "1", "--format", "kcox"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cannot be used with"), "{stderr}");
}

/// `top --dd-ids` notes the vortex's walls in a plain line, as `pack` does, not a log
/// line; `rrm --help` names every pack format; `rrm mine --help` says what `--campaign` is.
#[test]
fn warnings_are_plain_lines_and_help_names_every_pack_format() {
    let dir = mined("1..501");
    let data = dir.path().join("store");
    let data = data.to_str().unwrap();
    let output = rrm(&["top", "--data", data, "--dd-ids"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.starts_with("rrm top: "), "{stderr}");
    assert!(!stderr.contains("WARN"), "{stderr}");
    let help = rrm_ok(&["--help"]);
    let pack = help.lines().find(|line| line.contains("pack")).unwrap();
    assert!(
        pack.contains("DriftingDroids") && pack.contains("K. Cox"),
        "{pack}"
    );
    let mine = rrm_ok(&["mine", "--help"]);
    let (_, after) = mine.split_once("--campaign <CAMPAIGN>").unwrap();
    assert!(after.trim_start().starts_with("Campaign name"), "{mine}");
}

/// `rrm campaign import` of committed census files is a tenth of its old cost: of each
/// hardest list it solves 2 placements again and replays the file's own solutions of the
/// others, so a file whose claimed solution does not solve its placement is refused; it
/// reports one summary line, not a line per unit.
#[test]
fn census_import_replays_the_files_solutions_and_refuses_a_wrong_one() {
    let units = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/exhaustive/second-edition/units"
    );
    let solved = |unit: &Value| {
        (unit["hardest_solutions"].as_array()).map_or(0, |s| {
            s.iter().filter(|m| !m.as_str().unwrap().is_empty()).count()
        })
    };
    let (path, unit) = (std::fs::read_dir(units).unwrap())
        .map(|entry| entry.unwrap().path())
        .filter(|path| !path.to_string_lossy().ends_with("-VX.json"))
        .map(|path| {
            let unit: Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            (path, unit)
        })
        .find(|(_, unit)| solved(unit) >= 8)
        .expect("a committed unit with 8 solved hardest placements");
    let dir = tempfile::tempdir().unwrap();
    let import = |name: &str, files: &[&std::path::Path]| {
        let data = dir.path().join(name);
        let data = data.to_str().unwrap();
        rrm_ok(&[
            "campaign",
            "create",
            "second",
            "--exhaustive",
            "driftingdroids",
            "--sides",
            "CD",
            "--max-hardest",
            "512",
            "--data",
            data,
        ]);
        let files: Vec<&str> = files.iter().map(|f| f.to_str().unwrap()).collect();
        rrm(&[
            &["campaign", "import", "second"][..],
            &files,
            &["--data", data],
        ]
        .concat())
    };
    let output = import("honest", &[&path]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(
        stdout.starts_with("1 accepted, 0 already stored, 0 refused"),
        "{stdout}"
    );
    // Every claimed solution reversed: a replay finds it wrong wherever it is not drawn.
    let mut forged = unit.clone();
    for solution in forged["hardest_solutions"].as_array_mut().unwrap() {
        let moves: Vec<&str> = solution.as_str().unwrap().split(' ').rev().collect();
        *solution = Value::from(moves.join(" "));
    }
    let file = dir.path().join("forged.json");
    std::fs::write(&file, forged.to_string()).unwrap();
    let output = import("forged", &[&file]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("claimed solution does not solve it"),
        "{stdout}"
    );
    assert!(
        stdout.contains("0 accepted, 0 already stored, 1 refused"),
        "{stdout}"
    );
    // A unit the campaign lacks (its vortex target) and a file that is no unit are each
    // refused, and the honest file after them still goes in: the import did stop there.
    let vortex = std::fs::read_dir(units)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.to_string_lossy().ends_with("-VX.json"))
        .unwrap();
    let junk = dir.path().join("junk.json");
    std::fs::write(&junk, "{\"no\": 1}").unwrap();
    let output = import("mixed", &[&vortex, &junk, &path]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("1 accepted, 0 already stored, 2 refused"),
        "{stdout}"
    );
}

/// What `show` and `top` write under a format's name, `solve` reads under the same name:
/// the same puzzles, solved to the counts they were listed with. `top --format json`
/// rows carry their puzzle for that (they held only the seed).
#[test]
fn show_and_top_formats_read_back_under_their_names() {
    let dir = mined("1..1501");
    let data = dir.path().join("store");
    let data = data.to_str().unwrap();
    let rows: Vec<Value> = (rrm_ok(&["top", "--data", data, "--limit", "3", "--format", "json"])
        .lines())
    .map(|line| serde_json::from_str(line).unwrap())
    .collect();
    let counts: Vec<u64> = rows
        .iter()
        .map(|row| row["moves"].as_u64().unwrap())
        .collect();
    let solved_counts = |file: &std::path::Path, format: &str| -> Vec<u64> {
        (solved_as(file, format).iter())
            .map(|answer| answer["moves"].as_u64().unwrap())
            .collect()
    };
    for format in ["json", "dd-id", "kcox"] {
        let file = dir.path().join(format!("top.{format}"));
        std::fs::write(
            &file,
            rrm_ok(&["top", "--data", data, "--limit", "3", "--format", format]),
        )
        .unwrap();
        // DriftingDroids' boards add the vortex's walls, so its IDs may need other counts.
        if format != "dd-id" {
            assert_eq!(
                solved_counts(&file, format),
                counts,
                "top --format {format}"
            );
        } else {
            assert_eq!(solved_counts(&file, format).len(), counts.len());
        }
    }
    let seed = rows[0]["seed"].to_string();
    for format in ["json", "dd-id", "dd-dump", "kcox"] {
        let file = dir.path().join(format!("show.{format}"));
        let shown = rrm(&["show", "--seed", &seed, "--format", format]);
        assert!(shown.status.success(), "show --format {format}");
        std::fs::write(&file, &shown.stdout).unwrap();
        let solved = solved_counts(&file, format);
        if !format.starts_with("dd-") {
            assert_eq!(solved, vec![counts[0]], "show --format {format}");
        }
        // A note on DriftingDroids' walls is a plain line, not a timestamped log line.
        let stderr = String::from_utf8_lossy(&shown.stderr);
        assert!(
            stderr.lines().all(|line| line.starts_with("rrm show: ")),
            "{stderr}"
        );
    }
    let output = rrm(&["show", "--seed", &seed, "--format", "html"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("html is a pack's format"));
}

/// A pack whose filters leave too few candidates says why each one was passed over, and
/// the reasons account for every candidate (it used to say only "0/12 chosen" for as
/// long as it ran).
#[test]
fn a_pack_that_cannot_be_filled_says_why_each_candidate_was_passed_over() {
    let dir = mined("1..3001");
    let data = dir.path().join("store");
    let out = dir.path().join("unique.json");
    let pack = |count: &str, states: &str| {
        rrm(&[
            "pack",
            "--data",
            data.to_str().unwrap(),
            "--min-moves",
            "10",
            "--max-moves",
            "12",
            "--count",
            count,
            "--unique",
            "--count-states",
            states,
            "--min-robots",
            "3",
            "--out",
            out.to_str().unwrap(),
        ])
    };
    let number_before = |text: &str, word: &str| -> u64 {
        let at = text
            .find(word)
            .unwrap_or_else(|| panic!("{word:?} in {text}"));
        let word = text[..at].split_whitespace().last().unwrap();
        word.trim_matches(|c: char| !c.is_ascii_digit())
            .replace(',', "")
            .parse()
            .unwrap()
    };
    // Far more than the candidates can give: it gives up once that is plain, and
    // accounts for every candidate it looked at.
    let output = pack("500", "2000000");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(!out.exists(), "no pack written");
    assert!(
        stderr.contains(
            "--unique counts each candidate's optimal solutions over at most 2,000,000 states"
        ),
        "said up front: {stderr}"
    );
    let verdict = stderr.lines().last().unwrap();
    let looked = number_before(verdict, "of the");
    let offered = number_before(verdict, "candidates with");
    let chosen = number_before(verdict, "chosen (");
    let few = number_before(verdict, "moving too few robots");
    let not_unique = number_before(verdict, "not unique");
    assert!(verdict.contains("gave up after"), "{stderr}");
    assert!(looked < offered && few > 0 && not_unique > 0, "{stderr}");
    assert_eq!(chosen + few + not_unique, looked, "{stderr}");
    // A count bound too small to decide any candidate: each is undecided, and the pack
    // gives up after the first few instead of looking at all of them.
    let output = pack("5", "50");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("over at most 50 states"), "{stderr}");
    let verdict = stderr.lines().last().unwrap();
    let looked = number_before(verdict, "of the");
    let offered = number_before(verdict, "candidates with");
    let undecided = number_before(verdict, "undecided: counting");
    let few = match verdict.contains("moving too few robots") {
        true => number_before(verdict, "moving too few robots"),
        false => 0,
    };
    assert!(verdict.contains("raise --count-states"), "{stderr}");
    assert!(undecided >= 5 && looked < offered, "{stderr}");
    assert_eq!(undecided + few, looked, "{stderr}");
}

/// The mine summary fits 80 columns (its seed lines were 84 to 90) and writes counts
/// with thousands separators (it wrote "100000 puzzles").
#[test]
fn the_mine_summary_fits_80_columns_with_separated_counts() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("store");
    let summary = rrm_ok(&[
        "mine",
        "--seeds",
        "1..3001",
        "--unit-size",
        "1000",
        "--data",
        data.to_str().unwrap(),
    ]);
    assert!(
        summary.contains("3,000 of 3,000 seeds mined (3 of 3 units)"),
        "{summary}"
    );
    assert!(summary.contains(" over 3,000 puzzles"), "{summary}");
    let hardest = summary.split("hardest seeds:").nth(1).unwrap();
    assert!(
        hardest.lines().filter(|l| l.starts_with("  seed ")).count() >= 5,
        "{summary}"
    );
    for line in summary.lines() {
        assert!(
            line.chars().count() <= 80,
            "{} columns: {line}",
            line.chars().count()
        );
    }
}

/// A long search under other rules says how far it has got on stderr also when stderr
/// is not a terminal (a log, a pipe), where the spinner is hidden: depth, states, rate.
/// fog20 without rebounds needs 23 moves and several seconds (the first line comes after
/// one); its expected count, today's, is left out.
#[test]
fn a_long_rule_search_reports_progress_off_a_terminal() {
    let positions = include_str!("../data/hard-positions.jsonl");
    let line = (positions.lines())
        .find(|line| line.contains("\"fog20\""))
        .unwrap();
    let mut fog20: Value = serde_json::from_str(line).unwrap();
    fog20.as_object_mut().unwrap().remove("moves");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("fog20.json");
    std::fs::write(&file, fog20.to_string()).unwrap();
    let output = rrm(&[
        "solve",
        "--puzzle",
        file.to_str().unwrap(),
        "--rules",
        "no-rebounds",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let line = (stderr.lines())
        .find(|line| line.starts_with("rrm solve: searching "))
        .unwrap_or_else(|| panic!("no progress line: {stderr}"));
    assert!(
        line.contains(" moves under no-rebounds: ") && line.ends_with("/s"),
        "{line}"
    );
}
