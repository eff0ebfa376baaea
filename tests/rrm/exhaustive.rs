//! Exhaustive analysis of a unit against the referee's plain rounds over every placement,
//! and its sampled placements against the IDA* solver.

use crate::referee::{all_depths, RefPlacement};
use crate::solver::small_puzzle;
use proptest::prelude::*;
use ricochet::exhaustive::{analyse, sample_placements, Options, Placement};
use ricochet::solver::with_thread_solver;
use ricochet::{Game, Puzzle, PuzzleRecord};

fn from_ref(puzzle: &Puzzle, (target_robot, helpers): &RefPlacement) -> Placement {
    let board = puzzle.board();
    Placement {
        target_robot: board.cell_of(*target_robot as usize),
        helpers: helpers.iter().map(|&c| board.cell_of(c as usize)).collect(),
    }
}

fn to_ref(puzzle: &Puzzle, placement: &Placement) -> RefPlacement {
    let board = puzzle.board();
    (
        board.index_of(placement.target_robot) as i64,
        placement
            .helpers
            .iter()
            .map(|&c| board.index_of(c) as i64)
            .collect(),
    )
}

/// Runs the analysis on `record`'s board and target and compares every figure with the
/// referee's depths; false when the record is no unit (nothing compared).
fn compare(record: &PuzzleRecord, helpers: usize) -> bool {
    let Ok(puzzle) = Puzzle::from_record(record) else {
        return false; // the generator's robots may stand where none may
    };
    let board = puzzle.board();
    let forbidden_cells: Vec<i64> = (0..(record.width * record.height) as i64)
        .step_by(3)
        .collect();
    let expected = all_depths(record, helpers);
    let mut watched: Vec<&RefPlacement> = expected.keys().step_by(7).collect();
    watched.sort();
    let options = Options {
        forbidden: forbidden_cells
            .iter()
            .map(|&i| board.cell_of(i as usize))
            .collect(),
        sample_size: 50,
        watch: watched.iter().map(|p| from_ref(&puzzle, p)).collect(),
        top_from: 2,
        top_per_depth: 3,
        legal_per_depth: 4,
        legal_hardest: 5,
    };
    let target = board.cell_of(record.target_cell as usize);
    let Ok(analysis) = analyse(board, target, helpers, &options, |_| {
        std::ops::ControlFlow::Continue(())
    }) else {
        return false; // a target no robot may stand on
    };
    assert_eq!(analysis.placements, expected.len() as u64);
    let mut histogram = vec![0u64];
    let mut legal = vec![0u64];
    for ((t, set), depth) in &expected {
        let Some(depth) = *depth else { continue };
        if histogram.len() <= depth {
            histogram.resize(depth + 1, 0);
            legal.resize(depth + 1, 0);
        }
        histogram[depth] += 1;
        if !forbidden_cells.contains(t) && set.iter().all(|c| !forbidden_cells.contains(c)) {
            legal[depth] += 1;
        }
    }
    assert_eq!(analysis.histogram, histogram, "{record:?}");
    assert_eq!(analysis.legal_histogram, legal);
    let unsolvable = expected.values().filter(|d| d.is_none()).count() as u64;
    assert_eq!(analysis.unsolvable, unsolvable);
    let max = histogram.len() - 1;
    assert_eq!(usize::from(analysis.max_moves), max);
    let mut hardest: Vec<RefPlacement> = analysis
        .hardest
        .iter()
        .map(|p| to_ref(&puzzle, p))
        .collect();
    hardest.sort();
    let mut want: Vec<RefPlacement> = expected
        .iter()
        .filter(|(_, d)| max > 0 && **d == Some(max))
        .map(|(p, _)| p.clone())
        .collect();
    want.sort();
    assert_eq!(hardest, want);
    for (placement, depth) in watched.iter().zip(&analysis.watched) {
        assert_eq!(
            depth.map(usize::from),
            expected[*placement],
            "watched {placement:?}"
        );
    }
    let depths_listed: Vec<u8> = analysis.top.iter().map(|(d, _)| *d).collect();
    let depths_wanted: Vec<u8> = (2..=analysis.max_moves).collect();
    assert_eq!(depths_listed, depths_wanted, "top lists every depth from 2");
    for (depth, placements) in &analysis.top {
        let d = usize::from(*depth);
        assert_eq!(placements.len() as u64, histogram[d].min(3), "top at {d}");
        let mut distinct = placements.clone();
        distinct.dedup();
        assert_eq!(
            &distinct, placements,
            "top placements are distinct and ordered"
        );
        for placement in placements {
            assert_eq!(expected[&to_ref(&puzzle, placement)], Some(d), "top at {d}");
        }
    }
    let is_legal = |(t, set): &RefPlacement| {
        !forbidden_cells.contains(t) && set.iter().all(|c| !forbidden_cells.contains(c))
    };
    // Legal placements of a depth in the analysis' order: helper sets in colex order (the
    // largest helper first), then the target robot's cell; and the even spread of `k`.
    let legal_spread = |depth: usize, k: usize| -> Vec<RefPlacement> {
        let mut all: Vec<&RefPlacement> = expected
            .iter()
            .filter(|(p, d)| **d == Some(depth) && is_legal(p))
            .map(|(p, _)| p)
            .collect();
        all.sort_by_key(|(t, set)| (set.iter().rev().copied().collect::<Vec<_>>(), *t));
        let k = k.min(all.len());
        (0..k).map(|i| all[i * all.len() / k].clone()).collect()
    };
    assert_eq!(
        analysis.legal_samples.len(),
        max,
        "one legal sample per depth"
    );
    for (index, placements) in analysis.legal_samples.iter().enumerate() {
        let listed: Vec<RefPlacement> = placements.iter().map(|p| to_ref(&puzzle, p)).collect();
        assert_eq!(
            listed,
            legal_spread(index + 1, 4),
            "legal sample at {}",
            index + 1
        );
    }
    let legal_max = (1..legal.len()).rev().find(|&d| legal[d] > 0).unwrap_or(0);
    let legal_hardest: Vec<RefPlacement> = analysis
        .legal_hardest
        .iter()
        .map(|p| to_ref(&puzzle, p))
        .collect();
    assert_eq!(legal_hardest, legal_spread(legal_max, 5), "legal hardest");
    let sampled: Vec<Placement> = analysis.sample.iter().map(|(p, _)| p.clone()).collect();
    assert_eq!(sampled, sample_placements(board, helpers, 50).unwrap());
    for (placement, depth) in &analysis.sample {
        let key = to_ref(&puzzle, placement);
        assert_eq!(depth.map(usize::from), expected[&key], "sample {key:?}");
        // The IDA* solver agrees on the same position. Only solvable ones: on the others
        // iterative deepening would search to its limit.
        let Some(depth) = *depth else { continue };
        let position = PuzzleRecord {
            robots: std::iter::once(key.0)
                .chain(key.1.iter().copied())
                .collect(),
            target_robot: 0,
            moves: None,
            ..record.clone()
        };
        let position = Puzzle::from_record(&position).expect("a placement is a valid position");
        let solved = with_thread_solver(depth, |solver| solver.solve(&position));
        assert_eq!(
            solved.map(|s| s.moves.len()),
            Ok(usize::from(depth)),
            "IDA* on sample {key:?}"
        );
    }
    true
}

/// Full-size boards: 16-cell rows, the centre block, walls on word boundaries; one
/// helper keeps the referee fast.
#[test]
fn fogleman_boards_with_one_helper_match_the_referee() {
    for seed in [1, 2, 1605212351] {
        let record = Game::generate(seed).unwrap().puzzle().to_record(None);
        assert!(compare(&record, 1), "seed {seed} is a unit");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn every_placement_gets_the_referees_move_count(record in small_puzzle()) {
        let helpers = record.robots.len().clamp(2, 4) - 1;
        compare(&record, helpers);
    }
}

/// An 8×8 board with a few inner walls (on both sides of each), three robots, robot 0
/// to reach the target.
fn walled_puzzle(target_robot: i64) -> PuzzleRecord {
    let (width, height) = (8usize, 8usize);
    let mut walls = vec![0u32; width * height];
    for y in 0..height {
        for x in 0..width {
            let cell = &mut walls[y * width + x];
            *cell |= u32::from(y == 0) | u32::from(x == width - 1) << 1;
            *cell |= u32::from(y == height - 1) << 2 | u32::from(x == 0) << 3;
        }
    }
    // East walls of (x, y), mirrored as west walls of (x + 1, y); south walls likewise.
    for (x, y) in [(2, 1), (5, 3), (1, 5), (3, 6)] {
        walls[y * width + x] |= 2;
        walls[y * width + x + 1] |= 8;
    }
    for (x, y) in [(4, 1), (2, 3), (6, 5), (0, 2)] {
        walls[y * width + x] |= 4;
        walls[(y + 1) * width + x] |= 1;
    }
    PuzzleRecord {
        name: Some("walled".into()),
        source: None,
        width,
        height,
        walls,
        blocked: vec![27, 28],
        robots: vec![0, 63, 12],
        target_cell: 45,
        target_robot,
        moves: None,
    }
}

fn json_file(name: &str, record: &PuzzleRecord) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("rrm-exhaust-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string(record).unwrap()).unwrap();
    path
}

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

#[test]
fn exhaust_refuses_what_is_no_unit() {
    let wild = json_file("wild.json", &walled_puzzle(-1));
    for args in [
        vec!["exhaust", "--puzzle", wild.to_str().unwrap()],
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
