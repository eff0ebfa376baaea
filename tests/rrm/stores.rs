//! Local stores from the command line: readers never create one, opening errors say what
//! is wrong in one line, `campaign create` starts one, and reruns of a finished `rrm mine`
//! always end cleanly.

use crate::{rrm, rrm_ok};
use serde_json::Value;
use std::io::BufRead;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

/// Insists that `output` is a refusal: exit 2 and one line on stderr, which it returns.
fn refusal(output: &Output, args: &[&str]) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    stderr
}

/// The read-only commands, on the store in `data` (a pack would go to `out`).
fn readers<'a>(data: &'a str, out: &'a str) -> Vec<Vec<&'a str>> {
    vec![
        vec!["campaign", "list", "--data", data],
        vec!["stats", "--data", data],
        vec!["top", "--data", data],
        vec![
            "pack",
            "--data",
            data,
            "--min-moves",
            "3",
            "--max-moves",
            "5",
            "--count",
            "2",
            "--out",
            out,
        ],
    ]
}

#[test]
fn readers_refuse_a_directory_without_a_store() {
    let scratch = tempfile::tempdir().unwrap();
    let missing = scratch.path().join("mistyped");
    let missing = missing.to_str().unwrap();
    let out = scratch.path().join("pack.json");
    let out = out.to_str().unwrap();
    for args in readers(missing, out) {
        let stderr = refusal(&rrm(&args), &args);
        assert!(stderr.contains("holds no store"), "{stderr}");
        assert!(!Path::new(missing).exists(), "{args:?} created a store");
    }
    assert_eq!(
        std::fs::read_dir(scratch.path()).unwrap().count(),
        0,
        "nothing left behind"
    );
    let file = scratch.path().join("file");
    std::fs::write(&file, "").unwrap();
    for args in readers(file.to_str().unwrap(), out) {
        let stderr = refusal(&rrm(&args), &args);
        assert!(stderr.contains("is not a directory"), "{stderr}");
    }
    // `pack` checks its output before it looks for the store.
    let args = [
        "pack",
        "--data",
        missing,
        "--min-moves",
        "3",
        "--max-moves",
        "5",
        "--count",
        "2",
        "--out",
        "/nonexistent-dir/p.json",
    ];
    let stderr = refusal(&rrm(&args), &args);
    assert!(
        stderr.contains("directory /nonexistent-dir does not exist"),
        "{stderr}"
    );
}

/// A coordinator process holding the store in `data`, killed when dropped.
struct Coordinator(Child);

impl Coordinator {
    fn start(data: &Path) -> Coordinator {
        let mut child = Command::new(env!("CARGO_BIN_EXE_rrm"))
            .args(["coordinator", "--listen", "127.0.0.1:0", "--no-dashboard"])
            .arg("--data")
            .arg(data)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // It announces its address once the store is open.
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert!(line.starts_with("listening on"), "{line}");
        Coordinator(child)
    }
}

impl Drop for Coordinator {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_store_in_use_is_named_as_such() {
    let data = tempfile::tempdir().unwrap();
    let _coordinator = Coordinator::start(data.path());
    let path = data.path().to_str().unwrap();
    let out = data.path().join("pack.json");
    let mut commands = readers(path, out.to_str().unwrap());
    commands.push(vec![
        "campaign", "create", "x", "--seeds", "1..9", "--data", path,
    ]);
    for args in commands {
        let stderr = refusal(&rrm(&args), &args);
        assert!(stderr.contains("in use by another process"), "{stderr}");
        assert!(!stderr.contains("lock"), "sled's own words: {stderr}");
    }
    // `mine` takes no --coordinator: its refusal offers another --data first.
    let args = ["mine", "--seeds", "1..9", "--data", path];
    let stderr = refusal(&rrm(&args), &args);
    assert!(
        stderr.contains("stop it or give another --data"),
        "{stderr}"
    );
}

/// Mistakes a new user makes: a refused `campaign create` leaves no store behind, and
/// a negative seed is a wrong value, not an unknown option.
#[test]
fn refused_commands_leave_nothing_behind_and_name_what_is_wrong() {
    let scratch = tempfile::tempdir().unwrap();
    let data = scratch.path().join("new");
    let path = data.to_str().unwrap();
    for args in [
        vec![
            "campaign", "create", "bad/name", "--seeds", "1..9", "--data", path,
        ],
        vec![
            "campaign",
            "create",
            "x",
            "--seeds",
            "1..9",
            "--unit-size",
            "0",
            "--data",
            path,
        ],
    ] {
        refusal(&rrm(&args), &args);
        assert!(!data.exists(), "{args:?} left {path} behind");
    }
    for (placement, said) in [
        ("1,1,2,3", "cell 1 is given twice"),
        ("1,2,3,119", "cell 119 is in the centre block"),
    ] {
        let args = [
            "show",
            "--board",
            "1A 3B 4A 2B",
            "--target",
            "RT",
            "--placement",
            placement,
        ];
        let stderr = refusal(&rrm(&args), &args);
        assert!(stderr.contains(said), "{stderr}");
    }
    let output = rrm(&["show", "--seed", "-1"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("invalid value '-1' for '--seed"),
        "{stderr}"
    );
}

#[test]
fn campaign_create_starts_a_store_and_says_its_units() {
    let scratch = tempfile::tempdir().unwrap();
    let data = scratch.path().join("new");
    let data = data.to_str().unwrap();
    let create = |name: &str, seeds: &str| {
        rrm_ok(&["campaign", "create", name, "--seeds", seeds, "--data", data])
    };
    let small = create("small", "1..5001");
    assert!(small.contains(" in 1 unit of 5000 seeds,"), "{small}");
    let big = create("big", "1..125001");
    assert!(
        big.contains(" in 3 units of 50000 seeds (the last of 25000),"),
        "{big}"
    );
    let one = create("one", "7..=7");
    assert!(one.contains(" in 1 unit of 1 seed,"), "{one}");

    // Nothing mined yet: said so, with no made-up figures.
    let text = rrm_ok(&["stats", "--data", data, "--campaign", "small"]);
    assert_eq!(text, "rules: standard\nsmall: no puzzles mined yet\n");
    let json: Value = serde_json::from_str(&rrm_ok(&[
        "stats",
        "--data",
        data,
        "--campaign",
        "small",
        "--json",
    ]))
    .unwrap();
    assert_eq!(json["puzzles"], 0);
    for field in ["mean", "median", "max"] {
        assert!(json[field].is_null(), "{field}: {json}");
    }
    assert!(json["percentiles"]["p99"].is_null(), "{json}");
}

/// A campaign begun with another unit size (an older default) goes on under
/// `rrm mine` without `--unit-size`; a `--unit-size` that differs is still refused.
#[test]
fn mine_goes_on_with_an_existing_campaigns_unit_size() {
    let scratch = tempfile::tempdir().unwrap();
    let data = scratch.path().join("data");
    let data = data.to_str().unwrap();
    rrm_ok(&[
        "campaign",
        "create",
        "fogleman-1-301",
        "--seeds",
        "1..301",
        "--unit-size",
        "100",
        "--data",
        data,
    ]);
    let summary = rrm_ok(&["mine", "--seeds", "1..301", "--data", data]);
    assert!(
        summary.contains("300 of 300 seeds mined (3 of 3 units)"),
        "{summary}"
    );
    let refused = Command::new(env!("CARGO_BIN_EXE_rrm"))
        .args([
            "mine",
            "--seeds",
            "1..301",
            "--unit-size",
            "50",
            "--data",
            data,
        ])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    let error = String::from_utf8_lossy(&refused.stderr);
    assert!(
        error.contains("exists in") && error.contains("units of 100"),
        "{error}"
    );
}

#[test]
fn rerunning_a_finished_mine_always_prints_its_summary() {
    let scratch = tempfile::tempdir().unwrap();
    let data = scratch.path().join("data");
    let args = [
        "mine",
        "--seeds",
        "1..201",
        "--data",
        data.to_str().unwrap(),
    ];
    rrm_ok(&args);
    // Each rerun starts and stops the embedded coordinator and worker at once; that used
    // to kill one run in four with SIGPIPE, silently.
    for run in 0..8 {
        let path = scratch.path().join(format!("summary-{run}.txt"));
        let status = Command::new(env!("CARGO_BIN_EXE_rrm"))
            .args(args)
            .stdout(std::fs::File::create(&path).unwrap())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert_eq!(status.code(), Some(0), "run {run}");
        let summary = std::fs::read_to_string(&path).unwrap();
        assert!(
            summary.contains("campaign fogleman-1-201: 200 of 200 seeds mined (1 of 1 unit)")
                && summary.contains("hardest seeds:"),
            "run {run}: {summary}"
        );
    }
    // Campaign names are never cut short in the statistics' table header.
    let stats = rrm_ok(&["stats", "--data", data.to_str().unwrap()]);
    let header = stats.lines().find(|l| l.starts_with("moves")).unwrap();
    assert!(header.contains("| fogleman-1-201 "), "{header}");
}
