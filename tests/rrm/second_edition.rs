//! Units on the second edition's boards (DriftingDroids' sides C and D) placement by
//! placement: the exhaustive analysis, the solver (its answers replayed by the referee) and
//! the referee's plain breadth-first search over every placement agree on the count of
//! each drawn placement, and the legal flag is DriftingDroids' own deal rule
//! (`DdGame::within_one_move`), not the analysis' depth-based form of it.

use crate::referee::{check_solution, placement_depths, Depths, RefPlacement};
use ricochet::driftingdroids::DdGame;
use ricochet::edition::{EditionBoard, UnitGeometry};
use ricochet::exhaustive::{analyse, Analysis, Finisher, Options, Placement};
use ricochet::solver::with_thread_solver;
use ricochet::{Puzzle, PuzzleRecord};
use std::collections::BTreeMap;
use std::path::Path;

/// At least this many placements are drawn from a unit.
const DRAWN: usize = 1_000;

/// The analysed unit and the referee's depth of every placement.
struct Checked {
    geometry: UnitGeometry,
    dd: EditionBoard,
    record: PuzzleRecord,
    slot: usize,
    helpers: usize,
}

impl Checked {
    fn new(board: &str, token: &str, helpers: usize) -> Checked {
        let dd = EditionBoard::parse(board).unwrap();
        let geometry = dd.geometry(token).unwrap();
        let slot = geometry.target.colour.map_or(0, |colour| colour.robot());
        // Any robots: the referee reads only the walls, the target and the target robot.
        let robots = (0..=helpers as u8).map(|i| geometry.board.cell_of(i as usize));
        let puzzle = Puzzle::new(geometry.board.clone(), robots.collect(), geometry.target);
        let mut record = puzzle.unwrap().to_record(None);
        // The referee's robot 0 must reach the target (any robot: -1).
        record.target_robot = if geometry.target.colour.is_some() {
            0
        } else {
            -1
        };
        Checked {
            geometry,
            dd,
            record,
            slot,
            helpers,
        }
    }

    fn placement(&self, (target, helpers): &RefPlacement) -> Placement {
        let board = &self.geometry.board;
        Placement {
            target_robot: board.cell_of(*target as usize),
            helpers: helpers.iter().map(|&c| board.cell_of(c as usize)).collect(),
        }
    }

    /// The placement as DriftingDroids deals it: robots in colour order, the target robot
    /// in its colour's slot; whether it would deal this goal.
    fn dealt(&self, placement: &Placement) -> bool {
        let EditionBoard::DriftingDroids(board) = &self.dd else {
            panic!("a DriftingDroids board")
        };
        let index = |cell| self.geometry.board.index_of(cell) as ricochet::Cell;
        let goal = (board.goals.iter().copied())
            .find(|goal| goal.cell == index(self.geometry.target.cell))
            .unwrap();
        let game = DdGame {
            board: board.clone(),
            robots: placement.robots(self.slot).into_iter().map(index).collect(),
            goal,
        };
        !game.within_one_move()
    }

    /// The placements drawn: every one of the deepest depth, and an even spread of every
    /// other depth, `DRAWN` or more in all.
    fn draw(&self, depths: &Depths) -> Vec<(RefPlacement, usize)> {
        let finisher = Finisher::of(&self.geometry.target);
        let mut by_depth: BTreeMap<usize, Vec<RefPlacement>> = BTreeMap::new();
        for (placement, depth) in depths.iter() {
            let named_once =
                finisher == Finisher::TargetRobot || placement.1.iter().all(|&h| placement.0 < h);
            if let (Some(depth), true) = (depth, named_once) {
                by_depth.entry(depth).or_default().push(placement);
            }
        }
        let deepest = *by_depth.keys().last().unwrap();
        let drawn_with = |per_depth: usize| -> usize {
            (by_depth.iter())
                .map(|(&d, all)| {
                    if d == deepest {
                        all.len()
                    } else {
                        per_depth.min(all.len())
                    }
                })
                .sum()
        };
        let mut per_depth = DRAWN.div_ceil(by_depth.len());
        while drawn_with(per_depth) < DRAWN {
            per_depth += 1;
        }
        let mut drawn = Vec::new();
        for (&depth, all) in &mut by_depth {
            all.sort();
            let wanted = if depth == deepest {
                all.len()
            } else {
                per_depth.min(all.len())
            };
            drawn.extend((0..wanted).map(|i| (all[i * all.len() / wanted].clone(), depth)));
        }
        drawn
    }

    /// Checks the drawn placements and the histograms; returns how many were drawn.
    fn check(&self) -> usize {
        let depths = placement_depths(&self.record, self.helpers);
        let drawn = self.draw(&depths);
        assert!(drawn.len() >= DRAWN, "{} drawn", drawn.len());
        let options = Options {
            legality: self.geometry.legality.clone(),
            watch: drawn.iter().map(|(p, _)| self.placement(p)).collect(),
            ..Options::default()
        };
        let go_on = |_: &_| std::ops::ControlFlow::Continue(());
        let board = &self.geometry.board;
        let analysis = analyse(board, self.geometry.target, self.helpers, &options, go_on);
        let analysis: Analysis = analysis.unwrap();
        // The histograms over every placement, legal ones by DriftingDroids' deal rule.
        let finisher = Finisher::of(&self.geometry.target);
        let mut all = vec![0u64; analysis.histogram.len()];
        let mut legal = all.clone();
        for (placement, depth) in depths.iter() {
            let named_once =
                finisher == Finisher::TargetRobot || placement.1.iter().all(|&h| placement.0 < h);
            let Some(depth) = depth.filter(|_| named_once) else {
                continue;
            };
            all[depth] += 1;
            legal[depth] += u64::from(self.dealt(&self.placement(&placement)));
        }
        assert_eq!(analysis.histogram, all);
        assert_eq!(analysis.legal_histogram, legal);
        for ((placement, depth), watched) in drawn.iter().zip(&analysis.watched) {
            assert_eq!(*watched, Some(*depth as u8), "analysis on {placement:?}");
            let cells = self.placement(placement);
            let position =
                Puzzle::new(board.clone(), cells.robots(self.slot), self.geometry.target).unwrap();
            let solved = with_thread_solver(*depth as u8, |s| s.solve(&position)).unwrap();
            let moves: Vec<String> = solved.moves.iter().map(|m| m.notation()).collect();
            assert_eq!(moves.len(), *depth, "solver on {placement:?}");
            check_solution(&position.to_record(None), &moves).unwrap();
            let legal =
                (self.geometry.legality).allows(&cells, self.geometry.target, Some(*depth as u8));
            assert_eq!(legal, self.dealt(&cells), "legal flag of {placement:?}");
        }
        drawn.len()
    }
}

/// A coloured unit with two helpers (7.9 million placements, every one in the referee's
/// table), on a board of C and D sides only.
#[test]
fn a_second_edition_unit_agrees_with_the_solver_and_the_referee() {
    let checked = Checked::new("DD 1C 2D 3C 4D", "GT", 2);
    assert!(checked.check() >= DRAWN);
}

/// The vortex on the same kind of board: any robot finishes, every set of cells once.
#[test]
fn a_second_edition_vortex_unit_agrees_with_the_solver_and_the_referee() {
    let checked = Checked::new("DD 1D 4C 3D 2C", "VX", 2);
    assert!(checked.check() >= DRAWN);
}

/// A directory `units` in `dir` holding the first `coloured` coloured and `vortex` vortex
/// unit files of the committed second-edition census, by name.
fn second_edition_units(dir: &Path, coloured: usize, vortex: usize) -> std::path::PathBuf {
    let units = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/exhaustive/second-edition/units"
    );
    let chosen = dir.join("units");
    std::fs::create_dir(&chosen).unwrap();
    let mut names: Vec<_> = (std::fs::read_dir(units).unwrap())
        .map(|entry| entry.unwrap().file_name())
        .collect();
    names.sort();
    let (vortex_names, coloured_names): (Vec<_>, Vec<_>) = names
        .iter()
        .partition(|n| n.to_string_lossy().ends_with("-VX.json"));
    let picked = (coloured_names.iter().take(coloured)).chain(vortex_names.iter().take(vortex));
    for name in picked {
        std::fs::copy(Path::new(units).join(name), chosen.join(name)).unwrap();
    }
    chosen
}

/// `rrm census report --edition second` of the unit files in `units`, into `out`.
fn second_edition_report(units: &Path, out: &Path) -> String {
    crate::rrm_ok(&[
        "census",
        "report",
        "--edition",
        "second",
        "--units",
        units.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ])
}

/// `rrm census report --edition second` on committed second-edition unit files (coloured
/// and vortex, reported apart): every record comes with a DriftingDroids game ID that
/// names the same position, whose solution replays in the record's count; `rrm census
/// compare` then sets the reports side by side.
#[test]
fn a_second_edition_report_gives_game_ids_that_replay() {
    let dir = tempfile::tempdir().unwrap();
    let chosen = second_edition_units(dir.path(), 3, 1);
    let out = dir.path().join("second-edition");
    second_edition_report(&chosen, &out);
    for (report, units) in [
        (out.join("census.json"), 3),
        (out.join("vortex/census.json"), 1),
    ] {
        let census: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
        assert_eq!(census["edition"], "second");
        assert_eq!(census["units_done"], units);
        // What is left is projected at the done units' mean CPU.
        let checks = &census["provenance"];
        let total = census["units_total"].as_f64().unwrap();
        let expected =
            checks["cpu_hours"].as_f64().unwrap() / units as f64 * (total - units as f64);
        let left = checks["cpu_hours_left"].as_f64().unwrap();
        assert!(
            expected > 0.0 && (left - expected).abs() < 1e-9 * expected,
            "{left} {expected}"
        );
        let readme = std::fs::read_to_string(report.with_file_name("README.md")).unwrap();
        let said = format!("about **{left:.1} CPU-hours**");
        assert!(readme.contains(&said), "{said} in {readme}");
        let records = census["all"]["records"].as_array().unwrap();
        assert!(!records.is_empty());
        for record in records
            .iter()
            .chain(census["legal"]["records"].as_array().unwrap())
        {
            let id = record["dd_id"].as_str().expect("a game ID");
            let puzzle = DdGame::parse(id).unwrap().puzzle().unwrap();
            let moves: Vec<String> = (record["solution"].as_str().unwrap().split(' '))
                .map(String::from)
                .collect();
            assert_eq!(moves.len() as u64, record["moves"].as_u64().unwrap());
            check_solution(&puzzle.to_record(None), &moves).unwrap();
        }
    }
    let said = crate::rrm_ok(&["census", "compare", "--dir", dir.path().to_str().unwrap()]);
    assert!(said.starts_with("2 reports compared"), "{said}");
    let page = std::fs::read_to_string(dir.path().join("EDITIONS.md")).unwrap();
    assert!(
        page.contains("| the second edition as DriftingDroids plays it | coloured | 3 of 1,536 |"),
        "{page}"
    );
    assert!(page.contains("| vortex | 1 of 96 |"), "{page}");
}

/// A report written again over an earlier one takes the earlier report's solutions, each
/// replayed first: a valid one is kept as it was (here another order of the same moves,
/// which the report's own solver would not give), a damaged one is solved again.
#[test]
fn a_report_written_again_keeps_the_earlier_solutions_that_replay() {
    let dir = tempfile::tempdir().unwrap();
    let chosen = second_edition_units(dir.path(), 2, 0);
    let out = dir.path().join("second-edition");
    let report = || second_edition_report(&chosen, &out);
    let read = || -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(out.join("census.json")).unwrap()).unwrap()
    };
    report();
    let mut census = read();
    let puzzle_of = |record: &serde_json::Value| {
        let id = record["dd_id"].as_str().expect("a game ID");
        DdGame::parse(id).unwrap().puzzle().unwrap().to_record(None)
    };
    let moves_of = |record: &serde_json::Value| -> Vec<String> {
        (record["solution"].as_str().unwrap().split(' '))
            .map(String::from)
            .collect()
    };
    // A record whose solution has two moves of different robots in a row that may be
    // played the other way round: that order is the earlier report's.
    let records = census["all"]["records"].as_array().unwrap().clone();
    assert!(records.len() >= 2, "{} records", records.len());
    let (chosen_record, reordered) = (records.iter().enumerate())
        .find_map(|(index, record)| {
            let moves = moves_of(record);
            (0..moves.len() - 1).find_map(|i| {
                let mut other = moves.clone();
                other.swap(i, i + 1);
                let apart = moves[i][..1] != moves[i + 1][..1];
                (apart && check_solution(&puzzle_of(record), &other).is_ok())
                    .then(|| (index, other.join(" ")))
            })
        })
        .expect("a solution with two commuting moves");
    let damaged = (chosen_record + 1) % records.len();
    for list in ["all", "legal"] {
        for record in census[list]["records"].as_array_mut().unwrap() {
            let same = |index: usize| {
                record["placement"] == records[index]["placement"]
                    && record["token"] == records[index]["token"]
            };
            if same(chosen_record) {
                record["solution"] = reordered.clone().into();
            } else if same(damaged) {
                record["solution"] = "RN RS".into();
            }
        }
    }
    std::fs::write(out.join("census.json"), census.to_string()).unwrap();
    report();
    let again = read();
    let records_again = again["all"]["records"].as_array().unwrap();
    assert_eq!(records_again[chosen_record]["solution"], reordered.as_str());
    let solved = &records_again[damaged];
    let moves = moves_of(solved);
    assert_eq!(moves.len() as u64, solved["moves"].as_u64().unwrap());
    check_solution(&puzzle_of(solved), &moves).unwrap();
}

/// `rrm census report --edition all` with a mined `--generator driftingdroids` campaign:
/// the games compared are exactly those whose first goal was kept, with a coloured goal,
/// on a board whose 16 coloured units are given (counted here by dealing every seed
/// again), and they fit the units' pooled legal distributions (a wrong weighting, or the
/// games whose goal was put back, would not fit so many games). The report keeps the
/// games, and a report written again without the store compares with them.
#[test]
fn the_census_cross_checks_against_driftingdroids_games_whose_first_goal_was_kept() {
    const BOARDS: usize = 40;
    const SEEDS: u64 = 40_000;
    let units = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/exhaustive/all-sides/units"
    );
    let mut by_board: BTreeMap<String, Vec<std::ffi::OsString>> = BTreeMap::new();
    for entry in std::fs::read_dir(units).unwrap() {
        let name = entry.unwrap().file_name();
        let text = name.to_string_lossy().into_owned();
        let (board, token) = text.split_once('-').unwrap();
        if !token.starts_with("VX") {
            by_board.entry(board.to_string()).or_default().push(name);
        }
    }
    let whole: Vec<(String, Vec<_>)> = (by_board.into_iter())
        .filter(|(_, files)| files.len() == 16)
        .take(BOARDS)
        .collect();
    assert_eq!(
        whole.len(),
        BOARDS,
        "committed boards with 16 coloured units"
    );
    let dir = tempfile::tempdir().unwrap();
    let chosen = dir.path().join("units");
    std::fs::create_dir(&chosen).unwrap();
    let mut boards = std::collections::BTreeSet::new();
    for (board, files) in &whole {
        boards.insert(ricochet::edition::canonical_board(board).unwrap());
        for name in files {
            std::fs::copy(Path::new(units).join(name), chosen.join(name)).unwrap();
        }
    }
    let mined = dir.path().join("mined");
    let seeds = format!("1..{}", SEEDS + 1);
    crate::rrm_ok(&[
        "mine",
        "--generator",
        "driftingdroids",
        "--seeds",
        &seeds,
        "--data",
        mined.to_str().unwrap(),
    ]);
    let listed = crate::rrm_ok(&[
        "campaign",
        "list",
        "--data",
        mined.to_str().unwrap(),
        "--json",
    ]);
    let campaign: serde_json::Value = serde_json::from_str(listed.lines().next().unwrap()).unwrap();
    let name = campaign["name"].as_str().unwrap().to_string();
    let out = dir.path().join("all-sides");
    let report = |out: &Path, seeds: bool| {
        let mut args = vec!["census", "report", "--edition", "all", "--units"];
        args.extend([chosen.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        if seeds {
            args.extend(["--seeds-data", mined.to_str().unwrap()]);
            args.extend(["--seeds-campaign", &name]);
        }
        crate::rrm(&args)
    };
    let cross_check = |out: &Path| -> serde_json::Value {
        let text = std::fs::read_to_string(out.join("census.json")).unwrap();
        serde_json::from_str::<serde_json::Value>(&text).unwrap()["cross_check"].clone()
    };
    assert!(report(&out, true).status.success());
    let mut kept = 0u64;
    let mut put_back = 0u64;
    for seed in 1..=SEEDS {
        let (game, returned) = DdGame::deal_counting(seed, 4);
        let sides = game.board.sides.map(|side| side.name()).join(" ");
        let board = ricochet::edition::canonical_board(&format!("DD {sides}")).unwrap();
        if game.goal.colour.is_none() || !boards.contains(&board) {
            continue;
        }
        match returned {
            0 => kept += 1,
            _ => put_back += 1,
        }
    }
    let census: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("census.json")).unwrap()).unwrap();
    let check = &census["cross_check"];
    assert_eq!(check["generator"], "driftingdroids");
    assert_eq!(check["seeds_mined"], SEEDS);
    assert_eq!(check["seeds_compared"], kept, "{check}");
    assert!(
        kept > 500 && put_back > 0,
        "{kept} kept, {put_back} put back"
    );
    let observed: u64 = (check["bins"].as_array().unwrap())
        .iter()
        .map(|bin| bin["observed"].as_u64().unwrap())
        .sum();
    assert_eq!(observed, kept);
    let p = check["p_value"].as_f64().unwrap();
    assert!(p > 1e-3, "the games do not fit the census: {check}");
    let readme = std::fs::read_to_string(out.join("README.md")).unwrap();
    assert!(readme.contains("first goal of a shuffled deck"), "{readme}");

    // Written again without the store, the report compares its units with the games it
    // kept: the same cross-check, and with a board's units gone, the cross-check the
    // store gives for the units left.
    let first = cross_check(&out);
    assert!(report(&out, false).status.success());
    assert_eq!(cross_check(&out), first, "the cross-check is kept");
    let (dropped, files) = &whole[0];
    for file in files {
        std::fs::remove_file(chosen.join(file)).unwrap();
    }
    assert!(report(&out, false).status.success());
    let fewer = dir.path().join("fewer");
    assert!(report(&fewer, true).status.success());
    let (kept, fresh) = (cross_check(&out), cross_check(&fewer));
    assert_eq!(
        kept, fresh,
        "the kept games compare as the store's, {dropped} left out"
    );
    assert_eq!(kept["boards_compared"], BOARDS - 1);
    assert!(kept["seeds_compared"].as_u64() < first["seeds_compared"].as_u64());

    // A damaged file of kept games: one line, no report written over the earlier one.
    let before = std::fs::read(out.join("census.json")).unwrap();
    std::fs::write(out.join("mined-games.jsonl"), "{\"seed_campaign\": 3}\n").unwrap();
    let refused = report(&out, false);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("mined-games.jsonl line 1"), "{stderr}");
    assert_eq!(std::fs::read(out.join("census.json")).unwrap(), before);
}
