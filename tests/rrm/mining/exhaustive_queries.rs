//! Queries on exhaustive campaigns through the `rrm` commands: the exact distribution by
//! target and board (`stats`), the record table (`top`), one placement (`show`) and packs
//! by exact depth (`pack`). The honest unit's figures are the reference; units of other
//! boards are forged cheaply (real placements at a chosen depth, a made-up histogram the
//! checks cannot tell), which is what `forged_unit` is for.

use super::exhaustive::{honest, request, BOARD, TOKEN};
use super::*;
use crate::referee::check_solution;
use rrm_coordinator::{Provenance, UnitBoard};
use rrm_model::ExhaustiveResult;
use rrm_model::{ExhaustiveRequest, Outcome};
use serde_json::Value;

/// What a campaign of forged units keeps: no sample and no top lists, so that a result
/// needs only its hardest placements to be real.
pub(crate) fn forged_request(name: &str, boards: &[String]) -> ExhaustiveRequest {
    ExhaustiveRequest {
        boards: boards.to_vec(),
        targets: vec![TOKEN.into()],
        sample_size: 0,
        top_from: 30,
        max_hardest: 8,
        ..ExhaustiveRequest::new(name.parse().unwrap())
    }
}

/// A result for `board` and [`TOKEN`] in a [`forged_request`] campaign that passes the
/// coordinator's checks: `count` real placements needing exactly `depth` moves (found by
/// solving placements from a fixed pseudo-random sequence) as the hardest, and a made-up
/// histogram with the right total around them; no placement is legal, so that the legal
/// lists are empty.
pub(crate) fn forged_unit(board: &str, depth: u8, count: usize) -> ExhaustiveResult {
    let unit = UnitBoard::new(board, TOKEN).unwrap();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut hardest: Vec<[u8; 4]> = Vec::new();
    for _ in 0..20_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let mut cells = state.to_le_bytes()[..4].try_into().unwrap();
        let [_, helpers @ ..]: &mut [u8; 4] = &mut cells;
        helpers.sort_unstable();
        let Some(puzzle) = unit.puzzle(&cells) else {
            continue;
        };
        let moves =
            with_thread_solver(depth, |solver| solver.solve(&puzzle)).map(|s| s.moves.len());
        if moves.ok() == Some(usize::from(depth)) && !hardest.contains(&cells) {
            hardest.push(cells);
            if hardest.len() == count {
                break;
            }
        }
    }
    assert_eq!(hardest.len(), count, "{board}: placements at {depth} moves");
    let mut histogram = vec![1; usize::from(depth) + 1];
    histogram[0] = 0;
    histogram[usize::from(depth)] = count as u64;
    histogram[1] = unit.placements() - histogram.iter().sum::<u64>() + 1;
    ExhaustiveResult {
        legal_histogram: vec![0; histogram.len()],
        histogram,
        unsolvable: 0,
        max_moves: depth,
        hardest,
        top: Vec::new(),
        sample: Vec::new(),
        legal_samples: vec![Vec::new(); usize::from(depth)],
        legal_hardest: Vec::new(),
    }
}

/// Two canonical boards other than the honest unit's.
pub(crate) fn other_boards() -> Vec<String> {
    ricochet::Layout::canonical()
        .iter()
        .map(ricochet::Layout::name)
        .filter(|b| b != BOARD)
        .take(2)
        .collect()
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

/// A store holding the honest unit in campaign `honest`, and two forged units of two
/// other boards (3 and 2 placements at 6 moves) in campaign `forged`.
fn store() -> (tempfile::TempDir, Vec<String>) {
    let data = tempfile::tempdir().unwrap();
    let coordinator =
        Coordinator::open(Store::open(data.path()).unwrap(), Config::default()).unwrap();
    coordinator
        .create_exhaustive_campaign(request("honest"))
        .unwrap();
    let accepted = coordinator.import_exhaustive(
        "honest",
        BOARD,
        TOKEN,
        honest().clone(),
        Provenance::default(),
        rrm_coordinator::ReSolving::WORKER,
    );
    assert_eq!(accepted.unwrap(), Outcome::Accepted);
    let boards = other_boards();
    coordinator
        .create_exhaustive_campaign(forged_request("forged", &boards))
        .unwrap();
    for (board, count) in boards.iter().zip([3, 2]) {
        let result = forged_unit(board, 6, count);
        let accepted = coordinator.import_exhaustive(
            "forged",
            board,
            TOKEN,
            result,
            Provenance::default(),
            rrm_coordinator::ReSolving::WORKER,
        );
        assert_eq!(accepted.unwrap(), Outcome::Accepted);
    }
    coordinator.store().flush_blocking().unwrap();
    drop(coordinator);
    (data, boards)
}

/// A unit file that a coordinator wrote records its check draw, and an import keeps it,
/// even where every unit would be drawn (a verify share of 1): a unit not drawn stays
/// undrawn (drawn again at every import, a census resumed on a fresh machine would check
/// another share of its units each time), one drawn stays drawn, and a result no
/// coordinator produced (`rrm exhaust`'s) is drawn.
#[test]
fn an_imported_units_check_draw_is_kept() {
    let data = tempfile::tempdir().unwrap();
    let config = Config {
        verify_share: 1.0,
        ..Config::default()
    };
    let coordinator = Coordinator::open(Store::open(data.path()).unwrap(), config).unwrap();
    // A fourth unit left to do: a finished campaign tops its checks up to the share.
    let boards: Vec<String> = (ricochet::Layout::canonical().iter())
        .map(ricochet::Layout::name)
        .take(4)
        .collect();
    let request = forged_request("drawn", &boards);
    coordinator.create_exhaustive_campaign(request).unwrap();
    let from_a_coordinator = |check_pending| Provenance {
        producer: Some("alice".into()),
        verified_by: None,
        check_pending,
        cpu_ms: 1_000,
        rrm_version: "0.1.0".into(),
    };
    let files = [
        from_a_coordinator(false),
        from_a_coordinator(true),
        Provenance::default(),
    ];
    for (board, provenance) in boards.iter().zip(files) {
        let result = forged_unit(board, 6, 2);
        let imported = coordinator.import_exhaustive(
            "drawn",
            board,
            TOKEN,
            result,
            provenance,
            rrm_coordinator::ReSolving::WORKER,
        );
        assert_eq!(imported.unwrap(), Outcome::Accepted);
    }
    let done = coordinator.done_units("drawn").unwrap();
    let pending: Vec<bool> = (boards[..3].iter())
        .map(|board| {
            let unit = done.iter().find(|unit| unit.board == *board).unwrap();
            unit.provenance.check_pending
        })
        .collect();
    assert_eq!(
        pending,
        [false, true, true],
        "not drawn, drawn, no coordinator's"
    );
}

#[test]
#[cfg_attr(
    rrm_fast_tests,
    ignore = "heavy: first-edition units (the full suite runs it)"
)]
fn stats_top_show_and_pack_work_on_exhaustive_campaigns() {
    let honest = honest();
    let (data, boards) = store();
    let dir = data.path().to_str().unwrap();
    let on = |campaign: &str, args: &[&str]| {
        let mut all = args.to_vec();
        all.extend(["--campaign", campaign, "--data", dir]);
        rrm_ok(&all)
    };

    // The exact distribution, overall and by board and target, over all and legal ones.
    let svg = data.path().join("histogram.svg");
    let report = json(&on(
        "honest",
        &["stats", "--json", "--svg", svg.to_str().unwrap()],
    ));
    let exact = &report["exhaustive"];
    assert_eq!(
        (exact["units"].as_u64(), exact["units_total"].as_u64()),
        (Some(1), Some(1))
    );
    for group in [&exact["by_board"][0], &exact["by_target"][0], exact] {
        assert_eq!(
            group["all"]["histogram"],
            serde_json::json!(honest.histogram)
        );
        assert_eq!(
            group["legal"]["histogram"],
            serde_json::json!(honest.legal_histogram)
        );
        assert_eq!(group["all"]["max"], u64::from(honest.max_moves));
        assert_eq!(group["unsolvable"], honest.unsolvable);
    }
    assert_eq!(
        (
            exact["by_board"][0]["group"].as_str(),
            exact["by_target"][0]["group"].as_str()
        ),
        (Some(BOARD), Some(TOKEN))
    );
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(
        picture.contains("honest, all placements") && picture.contains("honest, legal placements")
    );
    let text = on("honest", &["stats"]);
    for expected in [
        "1 of 1 units done",
        "legal placements (no robot on a target), mean",
        "by target",
        "by board",
        BOARD,
    ] {
        assert!(text.contains(expected), "{expected:?} in\n{text}");
    }
    // Grouped by board: each forged board on its own, both under their one target.
    let report = json(&on("forged", &["stats", "--json"]));
    let by_board = report["exhaustive"]["by_board"].as_array().unwrap();
    assert_eq!(by_board.len(), 2);
    for (group, (board, count)) in by_board.iter().zip(boards.iter().zip([3, 2])) {
        assert_eq!(group["group"], board.as_str());
        assert_eq!(group["units"], 1);
        assert_eq!(
            group["all"]["histogram"],
            serde_json::json!(forged_unit(board, 6, count).histogram)
        );
    }
    assert_eq!(report["exhaustive"]["by_target"][0]["units"], 2);

    // The record table's first placement, shown and solved by `show`.
    let row = json(
        on("honest", &["top", "--json", "--limit", "1"])
            .lines()
            .next()
            .unwrap(),
    );
    let placement: Vec<String> = row["placement"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.to_string())
        .collect();
    let svg = data.path().join("record.svg");
    let shown = rrm_ok(&[
        "show",
        "--board",
        BOARD,
        "--target",
        "gq",
        "--placement",
        &placement.join(","),
        "--solution",
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert!(
        shown.contains(&format!("{} moves: ", honest.max_moves)),
        "{shown}"
    );
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<svg"));
    for bad in ["1,2,3", "1,2,3,300", "1,1,2,3", "119,1,2,3"] {
        let output = crate::rrm(&[
            "show",
            "--board",
            BOARD,
            "--target",
            TOKEN,
            "--placement",
            bad,
        ]);
        assert_eq!(output.status.code(), Some(2), "{bad}");
    }

    // Packs by exact depth from the top lists and legal samples, legal placements only,
    // every puzzle re-solved and replayed.
    let depth = 14u8;
    let pack_file = data.path().join("pack.json");
    on(
        "honest",
        &[
            "pack",
            "--moves",
            &depth.to_string(),
            "--count",
            "3",
            "--out",
            pack_file.to_str().unwrap(),
        ],
    );
    let pack = json(&std::fs::read_to_string(&pack_file).unwrap());
    assert_eq!(pack["generator"], "exhaustive-fogleman");
    let unit = UnitBoard::new(BOARD, TOKEN).unwrap();
    // Drawn from the legal samples, spread over the ranks, before the top list, whose
    // first placements in rank order have their helpers in the low cells.
    let top = &honest.top.iter().find(|(d, _)| *d == depth).unwrap().1;
    let mut samples = honest.legal_samples[usize::from(depth) - 1].clone();
    samples.retain(|cells| unit.is_legal(cells, depth));
    assert!(top.len() >= 3 && samples.len() >= 3);
    let puzzles = pack["puzzles"].as_array().unwrap();
    assert_eq!(puzzles.len(), 3);
    for puzzle in puzzles {
        assert_eq!(puzzle["moves"], u64::from(depth));
        assert_eq!(puzzle["board"], BOARD);
        let cells: [u8; 4] = serde_json::from_value(puzzle["placement"].clone()).unwrap();
        assert!(
            samples.contains(&cells),
            "{cells:?} is a legal sample, not the top list's {top:?}"
        );
        let record: ricochet::PuzzleRecord =
            serde_json::from_value(puzzle["puzzle"].clone()).unwrap();
        let moves: Vec<String> = serde_json::from_value(puzzle["solution"].clone()).unwrap();
        check_solution(&record, &moves).unwrap();
    }
    // One per board: the forged campaign's two boards at exactly 6 moves (its random
    // placements, legal or not).
    let pack_of = |extra: &[&str]| {
        let mut args = vec![
            "pack",
            "--moves",
            "6",
            "--all-placements",
            "--out",
            pack_file.to_str().unwrap(),
        ];
        args.extend(extra);
        on("forged", &args);
        json(&std::fs::read_to_string(&pack_file).unwrap())["puzzles"]
            .as_array()
            .unwrap()
            .clone()
    };
    let one_each = pack_of(&["--one-per-board", "--count", "2"]);
    let chosen_boards: Vec<&str> = one_each
        .iter()
        .map(|p| p["board"].as_str().unwrap())
        .collect();
    assert_eq!(chosen_boards.len(), 2);
    assert!(
        boards.iter().all(|b| chosen_boards.contains(&b.as_str())),
        "{chosen_boards:?}"
    );
    // The forger put one placement on both boards, one tile apart: the same puzzle to a
    // player, so the pack keeps one of the two.
    assert_eq!(pack_of(&["--count", "4"]).len(), 4);
    // Fewer puzzles than asked for: a clear refusal, and no pack.
    std::fs::remove_file(&pack_file).unwrap();
    for (moves, count, said) in [
        ("6", "5", "only 4 of the 5 candidates"),
        (
            "6",
            "5",
            "1 like one chosen (same target and placement, one tile apart)",
        ),
        ("7", "1", "only 0 of the 0 candidates"),
    ] {
        let short = crate::rrm(&[
            "pack",
            "--moves",
            moves,
            "--all-placements",
            "--count",
            count,
            "--out",
            pack_file.to_str().unwrap(),
            "--campaign",
            "forged",
            "--data",
            dir,
        ]);
        assert_eq!(
            short.status.code(),
            Some(2),
            "{moves} moves, {count} puzzles"
        );
        let stderr = String::from_utf8_lossy(&short.stderr);
        assert!(
            stderr.contains(said) && stderr.contains("no pack written"),
            "{stderr}"
        );
        assert!(!pack_file.exists());
    }
    let both = crate::rrm(&[
        "pack",
        "--moves",
        "6",
        "--min-moves",
        "5",
        "--max-moves",
        "6",
        "--count",
        "1",
        "--out",
        pack_file.to_str().unwrap(),
        "--data",
        dir,
    ]);
    assert_eq!(both.status.code(), Some(2));
}
