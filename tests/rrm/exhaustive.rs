//! Exhaustive analysis of a unit against the referee's plain rounds over every placement,
//! and its sampled placements against the IDA* solver.

use crate::referee::{all_depths, placement_depths, RefPlacement};
use crate::solver::{puzzle_on, small_puzzle};
use proptest::prelude::*;
use ricochet::exhaustive::{analyse, sample_placements, Finisher, Legality, Options, Placement};
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
    let forbidden_cells: Vec<i64> = (0..(record.width * record.height) as i64)
        .step_by(3)
        .collect();
    compare_with(record, helpers, &forbidden_cells)
}

/// [`compare`] with the cells no robot may stand on in a legal placement.
fn compare_with(record: &PuzzleRecord, helpers: usize, forbidden_cells: &[i64]) -> bool {
    let Ok(puzzle) = Puzzle::from_record(record) else {
        return false; // the generator's robots may stand where none may
    };
    let board = puzzle.board();
    let expected = placement_depths(record, helpers);
    // A wild target (any robot finishes) counts each set of cells once: as the placement
    // whose target robot has the smallest cell.
    let wild = record.target_robot == -1;
    let counted = |(t, set): &RefPlacement| !wild || set.iter().all(|h| t < h);
    // Some hundreds of watched placements, whatever the unit's size.
    let step = (expected.count() / 300).max(7);
    let mut watched: Vec<RefPlacement> = expected.iter().step_by(step).map(|(p, _)| p).collect();
    watched.sort();
    assert!(!watched.is_empty(), "some placements are watched");
    let options = Options {
        legality: Legality {
            off_cells: (forbidden_cells.iter())
                .map(|&i| board.cell_of(i as usize))
                .collect(),
            past_one_move: false,
        },
        sample_size: 50,
        watch: watched.iter().map(|p| from_ref(&puzzle, p)).collect(),
        top_from: 2,
        top_per_depth: 3,
        legal_per_depth: 4,
        legal_hardest: 5,
        ..Options::default()
    };
    let target = puzzle.target();
    let Ok(analysis) = analyse(board, target, helpers, &options, |_| {
        std::ops::ControlFlow::Continue(())
    }) else {
        return false; // a target no robot may stand on
    };
    let placements = expected.iter().filter(|(p, _)| counted(p)).count();
    assert_eq!(analysis.placements, placements as u64);
    let mut histogram = vec![0u64];
    let mut legal = vec![0u64];
    for ((t, set), depth) in expected.iter().filter(|(p, _)| counted(p)) {
        let Some(depth) = depth else { continue };
        if histogram.len() <= depth {
            histogram.resize(depth + 1, 0);
            legal.resize(depth + 1, 0);
        }
        histogram[depth] += 1;
        if !forbidden_cells.contains(&t) && set.iter().all(|c| !forbidden_cells.contains(c)) {
            legal[depth] += 1;
        }
    }
    assert_eq!(analysis.histogram, histogram, "{record:?}");
    assert_eq!(analysis.legal_histogram, legal);
    let unsolvable = (expected.iter())
        .filter(|(p, d)| counted(p) && d.is_none())
        .count() as u64;
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
        .filter(|(p, d)| counted(p) && max > 0 && *d == Some(max))
        .map(|(p, _)| p)
        .collect();
    want.sort();
    assert_eq!(hardest, want);
    // Zipped lists stop at the shorter one: the lengths must agree first.
    assert_eq!(
        analysis.watched.len(),
        watched.len(),
        "one count per watched"
    );
    for (placement, depth) in watched.iter().zip(&analysis.watched) {
        assert_eq!(
            depth.map(usize::from),
            expected.depth(placement),
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
            assert_eq!(
                expected.depth(&to_ref(&puzzle, placement)),
                Some(d),
                "top at {d}"
            );
        }
    }
    let is_legal = |(t, set): &RefPlacement| {
        !forbidden_cells.contains(t) && set.iter().all(|c| !forbidden_cells.contains(c))
    };
    // Legal placements of a depth in the analysis' order: helper sets in colex order (the
    // largest helper first), then the target robot's cell; and the even spread of `k`.
    let mut legal_at: Vec<Vec<RefPlacement>> = vec![Vec::new(); max + 1];
    for (placement, depth) in expected.iter() {
        match depth {
            Some(depth) if is_legal(&placement) && counted(&placement) => {
                legal_at[depth].push(placement)
            }
            _ => {}
        }
    }
    for list in &mut legal_at {
        list.sort_by_key(|(t, set)| (set.iter().rev().copied().collect::<Vec<_>>(), *t));
    }
    let legal_spread = |depth: usize, k: usize| -> Vec<RefPlacement> {
        let all = &legal_at[depth];
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
    let finisher = Finisher::of(&target);
    assert_eq!(finisher == Finisher::AnyRobot, wild);
    assert_eq!(
        sampled,
        sample_placements(board, helpers, finisher, 50).unwrap()
    );
    assert!(!sampled.is_empty(), "some placements are sampled");
    for (placement, depth) in &analysis.sample {
        let key = to_ref(&puzzle, placement);
        assert_eq!(
            depth.map(usize::from),
            expected.depth(&key),
            "sample {key:?}"
        );
        // The IDA* solver agrees on the same position. Only solvable ones: on the others
        // iterative deepening would search to its limit.
        let Some(depth) = *depth else { continue };
        let position = PuzzleRecord {
            robots: std::iter::once(key.0)
                .chain(key.1.iter().copied())
                .collect(),
            target_robot: record.target_robot.min(0),
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

/// Whether a robot or the target of `record` stands on a cell no robot may stand on
/// (blocked, or closed on every side by walls, the edge or blocked cells): then the
/// record is no unit and `compare` has nothing to compare.
fn no_unit(record: &PuzzleRecord) -> bool {
    let (w, h) = (record.width as i64, record.height as i64);
    let unusable = |c: i64| {
        let closed = [(1, 0, -1), (2, 1, 0), (4, 0, 1), (8, -1, 0)]
            .iter()
            .all(|&(bit, dx, dy)| {
                let (x, y) = (c % w + dx, c / w + dy);
                record.walls[c as usize] & bit != 0
                    || x < 0
                    || y < 0
                    || x >= w
                    || y >= h
                    || record.blocked.contains(&(y * w + x))
            });
        closed || record.blocked.contains(&c)
    };
    record
        .robots
        .iter()
        .chain([&record.target_cell])
        .any(|&c| unusable(c))
}

/// Legal placements as the worker and `rrm exhaust` count them (no robot on one of the
/// board's 16 targets): the analysis' legal histogram with the target cells that the
/// generator's specification lists for seed 1605212351's board, against the referee's
/// depths counted here over the placements that avoid those cells.
#[test]
fn the_legal_histogram_leaves_out_placements_on_fogleman_targets() {
    // From ../shared/spec/fogleman-generator.md ("Target cells on that board"), pinned.
    const SPEC_TARGETS: [i64; 16] = [
        17, 25, 38, 46, 66, 74, 87, 108, 148, 156, 166, 201, 209, 222, 227, 235,
    ];
    let game = Game::generate(1_605_212_351).unwrap();
    let record = game.puzzle().to_record(None);
    let board = game.layout.board();
    let mut production: Vec<i64> = game
        .layout
        .target_cells()
        .iter()
        .map(|&c| board.index_of(c) as i64)
        .collect();
    production.sort_unstable();
    assert_eq!(production, SPEC_TARGETS, "the cells production forbids");
    assert!(compare_with(&record, 1, &SPEC_TARGETS));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::proptest_cases(40)))]

    #[test]
    fn every_placement_gets_the_referees_move_count(record in small_puzzle()) {
        let helpers = record.robots.len().clamp(2, 4) - 1;
        // Nothing compared is a pass only for a record that is no unit.
        prop_assert!(compare(&record, helpers) || no_unit(&record), "{record:?}");
    }
}

proptest! {
    // Each case is a unit of about two million placements (two seconds or so, release).
    #![proptest_config(ProptestConfig::with_cases(crate::proptest_cases(2)))]

    /// The production unit's three helpers, on random 8×8 boards.
    #[test]
    fn three_helpers_on_8x8_boards_get_the_referees_move_counts(
        record in puzzle_on(8, 8, 4).prop_filter("a unit", |r| !no_unit(r))
    ) {
        prop_assert!(compare(&record, 3), "{record:?}");
    }
}

/// Three helpers on the production shape: a 16×16 Fogleman board (seed 1's) with only
/// its top two and bottom two rows open (64 free cells, so that the referee can hold
/// every placement), so that slides run along full 16-cell rows and over both edges.
#[test]
fn three_helpers_on_a_16x16_board_get_the_referees_move_counts() {
    let mut record = Game::generate(1).unwrap().puzzle().to_record(None);
    record.blocked = (32..224).collect();
    record.robots = vec![3, 17, 240, 255];
    record.target_cell = 227; // GQ, seed 1's target
    record.target_robot = 0;
    assert!(compare(&record, 3));
}

/// An 8×8 board with inner walls and two blocked cells, three helpers.
#[test]
fn three_helpers_on_the_walled_8x8_board_get_the_referees_move_counts() {
    assert!(compare(&walled_puzzle(0), 3));
}

/// The vortex's rule on the same board: any of the four robots finishes, and the
/// analysis counts each set of four cells once.
#[test]
fn any_of_four_robots_on_the_walled_8x8_board_get_the_referees_move_counts() {
    assert!(compare(&walled_puzzle(-1), 3));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::proptest_cases(40)))]

    /// Wild targets on random small boards: helpers that finish, block or stop each other.
    #[test]
    fn wild_targets_get_the_referees_move_counts_once_per_set(record in small_puzzle()) {
        let record = PuzzleRecord { target_robot: -1, ..record };
        let helpers = record.robots.len().clamp(2, 4) - 1;
        prop_assert!(compare(&record, helpers) || no_unit(&record), "{record:?}");
    }
}

/// The reference itself: its flat breadth-first search agrees with the referee's plain
/// rounds over every state on small random units.
#[test]
fn the_two_references_agree() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut compared = 0;
    while compared < 60 {
        let record = small_puzzle().new_tree(&mut runner).unwrap().current();
        if no_unit(&record) {
            continue;
        }
        let helpers = record.robots.len().clamp(2, 4) - 1;
        let rounds = all_depths(&record, helpers);
        let search = placement_depths(&record, helpers);
        assert_eq!(search.count(), rounds.len(), "{record:?}");
        for (placement, depth) in search.iter() {
            assert_eq!(rounds[&placement], depth, "{placement:?} of {record:?}");
        }
        compared += 1;
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
        mirrors: Vec::new(),
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
    let records: Vec<PuzzleRecord> = include_str!("../data/hard-positions.jsonl")
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
