//! `rrm ricocheckers`: the board drawn as the published README draws it, a human's moves
//! read and refused, games played to their end, tournaments that add up and repeat, and
//! bad input refused with one line.

use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `rrm` with `args`, `input` on stdin; gives (status success, stdout, stderr).
fn rrm_with_input(args: &[&str], input: &str) -> (bool, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rrm"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn show_draws_the_published_grid_and_an_svg() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("start.svg");
    let text = crate::rrm_ok(&["ricocheckers", "show", "--svg", svg.to_str().unwrap()]);
    let lines: Vec<&str> = text.lines().collect();
    // 11 rows of cells between 12 wall lines, 4 characters a cell plus the left edge.
    assert_eq!(lines[0], "+---+---+---+---+---+---+---+---+---+---+---+");
    assert_eq!(lines[22], lines[0]);
    assert!(
        lines[..23].iter().all(|l| l.chars().count() == 45),
        "{text}"
    );
    // The published start: pieces beside the walled centre block.
    assert!(lines[9].contains(" 1a  1b "), "{text}");
    assert!(lines[11].contains(" 1c|###| 2a"), "{text}");
    assert!(lines[13].contains(" 2b  2c "), "{text}");
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(picture.starts_with("<svg"));
    assert_eq!(picture.matches("<circle").count(), 6);

    // A position of one's own, with the goal cells of the side to move marked.
    let text = crate::rrm_ok(&["ricocheckers", "show", "--position", "0,1,2/10,120,110/2"]);
    assert!(text.contains("player 2 to move"), "{text}");
    let grid: String = text.lines().take(23).collect();
    assert_eq!(grid.matches(" * ").count(), 3, "{text}");
}

#[test]
fn bad_positions_players_and_boards_get_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("board.json");
    std::fs::write(&broken, "{\"width\": 11}").unwrap();
    for (args, says) in [
        (vec!["show", "--position", "0,1/2,3,4/1"], "a position is"),
        (vec!["show", "--position", "0,1,60/2,3,4/1"], "cell \"60\""),
        (
            vec!["show", "--position", "0,1,1/2,3,4/1"],
            "holds two pieces",
        ),
        (
            vec!["show", "--board", broken.to_str().unwrap()],
            "not a Ricocheckers board",
        ),
        (vec!["tournament", "random", "deep-blue"], "unknown player"),
        (
            vec!["tournament", "random", "alphabeta:0"],
            "unknown player",
        ),
    ] {
        let args: Vec<&str> = std::iter::once("ricocheckers").chain(args).collect();
        let output = crate::rrm(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

#[test]
fn a_human_types_moves_and_bad_ones_are_refused() {
    // 1a cannot move south (the centre block's wall is below it); `z N` is no piece.
    let (ok, stdout, stderr) = rrm_with_input(
        &[
            "ricocheckers",
            "play",
            "--first",
            "human",
            "--second",
            "random",
        ],
        "z N\na S\na W\n",
    );
    assert!(stdout.contains("a move is a piece"), "{stdout}");
    assert!(
        stdout.contains("aS: that piece cannot move that way"),
        "{stdout}"
    );
    assert!(stdout.contains("player 1 plays 1a (aW)"), "{stdout}");
    assert!(stdout.contains("player 2 plays 2"), "{stdout}");
    // The input ends before the game: an error, not a hang.
    assert!(!ok);
    assert!(stderr.contains("the input ended"), "{stderr}");

    // `q` ends the game at once, and says so.
    let (ok, stdout, stderr) = rrm_with_input(
        &["ricocheckers", "play", "--second", "random"],
        "a W\nquit\n",
    );
    assert!(ok, "{stderr}");
    assert!(stdout.contains("q quits"), "{stdout}");
    assert!(stdout.contains("player 1 quits after 2 plies"), "{stdout}");
}

#[test]
fn machines_play_a_game_to_its_end() {
    let (ok, stdout, _) = rrm_with_input(
        &[
            "ricocheckers",
            "play",
            "--first",
            "rrm:300",
            "--second",
            "random",
            "--seed",
            "3",
        ],
        "",
    );
    assert!(ok);
    let last = stdout.lines().last().unwrap();
    assert!(
        last.contains("wins after") || last.starts_with("a tie after 201 plies"),
        "{last}"
    );
}

#[test]
fn tournaments_add_up_and_repeat_whatever_the_threads() {
    let dir = tempfile::tempdir().unwrap();
    let run = |threads: &str, name: &str| -> serde_json::Value {
        let path = dir.path().join(name);
        let text = crate::rrm_ok(&[
            "ricocheckers",
            "tournament",
            "random",
            "alphabeta:2",
            "--games",
            "40",
            "--seed",
            "9",
            "--threads",
            threads,
            "--json",
            path.to_str().unwrap(),
        ]);
        assert!(text.contains("first mover (decisive)"), "{text}");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    let one = run("1", "one.json");
    let two = run("2", "two.json");
    let count = |v: &serde_json::Value, key: &str| v[key]["count"].as_u64().unwrap();
    for key in ["a_wins", "ties", "b_wins", "first_mover_wins"] {
        assert_eq!(count(&one, key), count(&two, key), "{key}");
    }
    assert_eq!(
        count(&one, "a_wins") + count(&one, "ties") + count(&one, "b_wins"),
        40
    );
    // Two-ply alpha-beta beats random play.
    assert!(count(&one, "b_wins") > count(&one, "a_wins") + 10, "{one}");
    let interval = &one["b_wins"];
    let share = interval["share"].as_f64().unwrap();
    assert!(
        interval["low95"].as_f64().unwrap() < share && share < interval["high95"].as_f64().unwrap()
    );
}

#[test]
fn mine_explains_what_a_ricocheckers_count_means() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("store");
    let data = data.to_str().unwrap();
    let args = [
        "--generator",
        "ricocheckers",
        "--unit-size",
        "100",
        "--data",
        data,
    ];
    let text = crate::rrm_ok(&[&["mine", "--seeds", "1..201"], &args[..]].concat());
    assert!(text.contains("0: none within 7"), "{text}");
    assert!(text.contains("200 of 200 seeds"), "{text}");
    let stats: serde_json::Value =
        serde_json::from_str(&crate::rrm_ok(&["stats", "--json", "--data", data])).unwrap();
    assert_eq!(stats["puzzles"], 200);
    let top = crate::rrm_ok(&["top", "--limit", "1", "--data", data]);
    assert!(top.contains("win in") && top.contains("to move"), "{top}");
    // Ricocheckers positions have no Ricochet formats.
    let kcox = crate::rrm(&["top", "--kcox", "--data", data]);
    assert_eq!(kcox.status.code(), Some(2));
}
