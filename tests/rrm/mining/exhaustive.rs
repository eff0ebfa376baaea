//! Exhaustive campaigns end to end: a real worker mines a one-unit campaign and the
//! stored distribution equals a direct analysis; an accepted unit survives a SIGKILL of
//! its coordinator exactly once; results import from JSON files through the same checks
//! (forged results are in `exhaustive_forgeries`). The honest analysis of the unit is
//! computed once per test binary.

use super::*;
use crate::referee::check_solution;
use ricochet::{Puzzle, PuzzleRecord};
use rrm_coordinator::{UnitBoard, Worker};
use rrm_model::exhaustive_digest;
use rrm_model::{
    ExhaustiveRequest, ExhaustiveResult, LeaseRef, Submission, DEFAULT_MAX_HARDEST,
    DEFAULT_SAMPLE_SIZE, DEFAULT_TOP_FROM, DEFAULT_TOP_PER_DEPTH,
};
use rrm_proto::wire::exhaustive_message;
use std::sync::OnceLock;

/// The unit every test uses, as its canonical name and in another rotation.
pub(super) const BOARD: &str = "1A 3B 4A 2B";
pub(super) const ROTATED: &str = "2B 1A 3B 4A";
pub(super) const TOKEN: &str = "GQ";

/// The honest result of the unit, analysed once (20–40 s).
pub(super) fn honest() -> &'static ExhaustiveResult {
    static RESULT: OnceLock<ExhaustiveResult> = OnceLock::new();
    RESULT.get_or_init(|| {
        let unit = rrm_model::ExhaustiveUnit {
            board: BOARD.into(),
            token: TOKEN.into(),
            sample_size: DEFAULT_SAMPLE_SIZE,
            top_from: DEFAULT_TOP_FROM,
            top_per_depth: DEFAULT_TOP_PER_DEPTH,
            max_hardest: DEFAULT_MAX_HARDEST,
        };
        let analysed =
            rrm_worker::analyse_unit(
                "any",
                0,
                &unit,
                &mut |_| std::ops::ControlFlow::Continue(()),
            )
            .unwrap();
        let result = analysed.result;
        vouch(&result);
        result
    })
}

/// Checks the honest result against what owes nothing to the exhaustive analysis (the
/// tests compare everything else with it): its totals against placements counted here
/// from the board's wall masks, its shallow sampled placements against the referee's
/// BFS, the others and a few hardest ones against the IDA* solver replayed by the
/// referee. The unit is seed 1's board and target, so the seed's published optimum
/// is one of its depths.
fn vouch(result: &ExhaustiveResult) {
    use crate::referee::bfs_moves;
    let game = ricochet::Game::generate(1).unwrap();
    assert_eq!((game.layout.name(), game.token), (BOARD.to_string(), TOKEN));
    let board = game.puzzle().to_record(None);
    assert_eq!(board.target_robot, 1, "green must reach GQ");
    // A placement's cells as a puzzle: the target robot green, the helpers the others.
    let record = |cells: &[u8; 4]| PuzzleRecord {
        robots: vec![cells[1], cells[0], cells[2], cells[3]]
            .into_iter()
            .map(i64::from)
            .collect(),
        ..board.clone()
    };
    let free = (0..board.walls.len())
        .filter(|&c| board.walls[c] & 15 != 15 && !board.blocked.contains(&(c as i64)))
        .count() as u64;
    let with_three_helpers = |cells: u64| cells * ((cells - 1) * (cells - 2) * (cells - 3) / 6);
    let all: u64 = result.histogram.iter().sum();
    assert_eq!(all + result.unsolvable, with_three_helpers(free));
    assert_eq!(result.unsolvable, 0, "GQ is reachable from everywhere");
    // Legal: none of the board's 16 target cells (all free) holds a robot.
    let legal: u64 = result.legal_histogram.iter().sum();
    assert_eq!(legal, with_three_helpers(free - 16));
    let published = crate::generator::seed_records()[0].moves;
    assert!(result.histogram[published] > 0, "seed 1's own depth");
    let mut by_bfs = 0;
    for (cells, depth) in &result.sample {
        let position = record(cells);
        let depth = usize::from(depth.expect("solvable"));
        if depth <= 4 {
            assert_eq!(bfs_moves(&position), Some(depth), "sample {cells:?}");
            by_bfs += 1;
        }
        let solved = with_thread_solver(depth as u8, |s| {
            s.solve(&Puzzle::from_record(&position).unwrap())
        })
        .unwrap();
        let moves: Vec<String> = solved.moves.iter().map(|m| m.notation()).collect();
        assert_eq!(moves.len(), depth, "IDA* on sample {cells:?}");
        check_solution(&position, &moves).unwrap();
    }
    assert!(by_bfs >= 2, "{by_bfs} samples checked by the referee's BFS");
    // The census's committed file of this unit: figures pinned on purpose (the
    // `exhaustive` tests recompute them with `rrm exhaust`), which catch what the
    // few placements above miss.
    let file: serde_json::Value = serde_json::from_str(include_str!(
        "../../../data/exhaustive/units/1A3B4A2B-GQ.json"
    ))
    .unwrap();
    assert_eq!(serde_json::json!(result.histogram), file["histogram"]);
    assert_eq!(
        serde_json::json!(result.legal_histogram),
        file["legal_histogram"]
    );
    assert_eq!(u64::from(result.max_moves), file["max_moves"]);
    let hardest: Vec<String> = result
        .hardest
        .iter()
        .map(|c| format!("{} {} {} {}", c[0], c[1], c[2], c[3]))
        .collect();
    let listed: Vec<&str> = file["hardest"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .take(hardest.len())
        .collect();
    assert_eq!(hardest, listed, "the first hardest placements");
    for cells in result.hardest.iter().take(3) {
        let position = record(cells);
        let solved = with_thread_solver(result.max_moves, |s| {
            s.solve(&Puzzle::from_record(&position).unwrap())
        })
        .unwrap();
        let moves: Vec<String> = solved.moves.iter().map(|m| m.notation()).collect();
        assert_eq!(
            moves.len(),
            usize::from(result.max_moves),
            "hardest {cells:?}"
        );
        check_solution(&position, &moves).unwrap();
    }
}

pub(super) fn request(name: &str) -> ExhaustiveRequest {
    ExhaustiveRequest {
        boards: vec![ROTATED.into()],
        targets: vec![TOKEN.to_ascii_lowercase()],
        ..ExhaustiveRequest::new(name.parse().unwrap())
    }
}

pub(super) fn digest(lease: &LeaseRef, result: &ExhaustiveResult) -> Vec<u8> {
    exhaustive_digest(&lease.campaign, lease.unit, (BOARD, TOKEN), result).to_vec()
}

/// A submission of `result` with a digest that matches it, so only its contents decide.
pub(super) fn submission(
    worker: &Worker,
    lease: LeaseRef,
    result: &ExhaustiveResult,
) -> Submission {
    Submission {
        worker: worker.id,
        identity: worker.identity.clone(),
        digest: digest(&lease, result),
        lease,
        move_counts: Vec::new(),
        robots_moved: Vec::new(),
        solutions: Vec::new(),
        exhaustive: Some(result.clone()),
        cpu_ms: 0,
        own_process: false,
    }
}

/// The campaign holds `result` as its one done unit, counted once, and its record table
/// lists the unit's hardest placements with solutions that replay.
pub(super) fn assert_stored_once(coordinator: &Coordinator, name: &str, result: &ExhaustiveResult) {
    let status = coordinator.status(name).unwrap();
    assert_eq!(status.units_done, 1);
    assert_eq!(status.hardest_moves, result.max_moves);
    let stats = coordinator.stats(name).unwrap();
    assert_eq!(stats.aggregates.histogram, result.histogram);
    let exact = stats.exhaustive.expect("exact statistics");
    for distribution in [
        &exact.overall,
        &exact.by_target[TOKEN],
        &exact.by_board[BOARD],
    ] {
        assert_eq!(distribution.units, 1);
        assert_eq!(distribution.histogram, result.histogram);
        assert_eq!(distribution.legal_histogram, result.legal_histogram);
        assert_eq!(distribution.unsolvable, result.unsolvable);
    }
    assert_eq!((exact.by_target.len(), exact.by_board.len()), (1, 1));
    let placements: u64 = result.histogram.iter().sum();
    assert_eq!(stats.aggregates.by_target[TOKEN].puzzles, placements);
    assert_eq!(
        stats.aggregates.by_arrangement[BOARD].max_moves,
        result.max_moves
    );
    let records = coordinator
        .find_placements(name, 0..=255, 1000, true)
        .unwrap();
    assert_eq!(records.len(), result.hardest.len());
    let board = UnitBoard::new(BOARD, TOKEN).unwrap();
    for record in records {
        assert_eq!(record.moves, result.max_moves);
        assert!(result.hardest.contains(&record.placement));
        let puzzle = board.puzzle(&record.placement).unwrap();
        check_solution(&puzzle.to_record(None), &record.solution).unwrap();
        assert_eq!(record.solution.len(), usize::from(result.max_moves));
    }
}

/// A sampled placement solvable in fewer moves than the maximum, and its depth.
pub(super) fn easier_sample(result: &ExhaustiveResult) -> (usize, [u8; 4], u8) {
    result
        .sample
        .iter()
        .enumerate()
        .find_map(|(i, (cells, depth))| {
            depth
                .filter(|&d| d < result.max_moves && !result.hardest.contains(cells))
                .map(|d| (i, *cells, d))
        })
        .expect("an easier sampled placement")
}

#[test]
#[cfg_attr(
    rrm_fast_tests,
    ignore = "heavy: first-edition units (the full suite runs it)"
)]
fn a_worker_mines_an_exhaustive_unit_and_reports_work() {
    let honest = honest();
    let server = Server::start(Config::default());
    server
        .coordinator
        .create_exhaustive_campaign(request("one"))
        .unwrap();
    let _worker = worker(&server.url, 2);
    wait_until(Duration::from_secs(300), "the unit is mined", || {
        status(&server.url, "one").is_some_and(|s| is_done(&s))
    });
    let stats = stats(&server.url, "one");
    assert_eq!(stats.histogram, honest.histogram);
    assert_eq!(stats.legal_histogram, honest.legal_histogram);
    assert_eq!(stats.unsolvable, honest.unsolvable);
    let out = rrm_ok(&[
        "stats",
        "--coordinator",
        &server.url,
        "--campaign",
        "one",
        "--json",
    ]);
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["max"], u64::from(honest.max_moves));
    assert_eq!(
        report["legal_histogram"],
        serde_json::json!(honest.legal_histogram)
    );
    let top = rrm_ok(&[
        "top",
        "--coordinator",
        &server.url,
        "--campaign",
        "one",
        "--json",
        "--limit",
        "2",
    ]);
    let rows: Vec<serde_json::Value> = top
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), honest.hardest.len().min(2));
    for row in rows {
        assert_eq!(row["moves"], u64::from(honest.max_moves));
        assert_eq!(row["board"], BOARD);
        let record: PuzzleRecord = serde_json::from_value(row["puzzle"].clone()).unwrap();
        let moves: Vec<String> = serde_json::from_value(row["solution"].clone()).unwrap();
        check_solution(&record, &moves).unwrap();
    }
}

#[test]
#[cfg_attr(
    rrm_fast_tests,
    ignore = "heavy: first-edition units (the full suite runs it)"
)]
fn an_accepted_exhaustive_unit_survives_sigkill_exactly_once() {
    let honest = honest();
    let data = tempfile::tempdir().unwrap();
    let (mut process, address) = coordinator_process(data.path(), "127.0.0.1:0");
    let url = format!("http://{address}");
    create_campaign("kill", &["--coordinator", &url]);
    block_on(async {
        let (mut client, worker) = raw_worker(&url, "raw").await;
        let unit = leased_unit(&mut client, &worker).await;
        let lease = unit.lease.clone().unwrap();
        assert_eq!(unit.exhaustive.unwrap().board, BOARD);
        let request = pb::SubmitRequest {
            worker_id: worker.id,
            session: worker.session.clone(),
            digest: digest(&lease.clone().try_into().unwrap(), honest),
            lease: Some(lease),
            exhaustive: Some(exhaustive_message(honest)),
            ..Default::default()
        };
        let reply = client.submit(request).await.unwrap().into_inner();
        assert_eq!(reply.outcome(), pb::SubmitOutcome::Accepted);
    });
    // Acknowledged means flushed: SIGKILL now loses nothing and doubles nothing.
    process.0.kill().unwrap();
    process.0.wait().unwrap();
    let (_process, address) = coordinator_process(data.path(), "127.0.0.1:0");
    let url = format!("http://{address}");
    let stats = stats(&url, "kill");
    assert_eq!(stats.histogram, honest.histogram);
    assert_eq!(stats.legal_histogram, honest.legal_histogram);
    let status = status(&url, "kill").unwrap();
    assert_eq!((status.units_done, status.units_total), (1, 1));
}

/// `honest` as `rrm exhaust --json` prints it.
/// `rrm campaign create NAME --exhaustive fogleman` of the honest unit's board (given
/// rotated) and token, in the store `store` names (`--data DIR` or `--coordinator URL`).
pub(super) fn create_campaign(name: &str, store: &[&str]) {
    let create = [
        "campaign",
        "create",
        name,
        "--exhaustive",
        "fogleman",
        "--boards",
        ROTATED,
        "--targets",
        TOKEN,
    ];
    rrm_ok(&[&create[..], store].concat());
}

pub(super) fn exhaust_json(result: &ExhaustiveResult) -> serde_json::Value {
    let placement =
        |c: &[u8; 4]| serde_json::json!({"target_robot": c[0], "helpers": [c[1], c[2], c[3]]});
    let board = UnitBoard::new(BOARD, TOKEN).unwrap();
    serde_json::json!({
        "board": BOARD, "token": TOKEN, "target_cell": board.target_cell,
        "placements": board.placements(),
        "histogram": result.histogram, "legal_histogram": result.legal_histogram,
        "unsolvable": result.unsolvable, "max_moves": result.max_moves,
        "hardest": result.hardest.iter().map(placement).collect::<Vec<_>>(),
        "top": result.top.iter().map(|(d, list)| serde_json::json!({"depth": d, "placements": list.iter().map(placement).collect::<Vec<_>>()})).collect::<Vec<_>>(),
        "sample": result.sample.iter().map(|(c, d)| serde_json::json!({"placement": placement(c), "moves": d})).collect::<Vec<_>>(),
        "sample_size": DEFAULT_SAMPLE_SIZE, "top_from": DEFAULT_TOP_FROM, "top_per_depth": DEFAULT_TOP_PER_DEPTH,
        "legal_samples": result.legal_samples.iter().zip(1..).map(|(list, d)| serde_json::json!({"depth": d, "placements": list.iter().map(placement).collect::<Vec<_>>()})).collect::<Vec<_>>(),
        "legal_hardest": result.legal_hardest.iter().map(placement).collect::<Vec<_>>(),
        "cpu_seconds": 1.5,
    })
}

#[test]
#[cfg_attr(
    rrm_fast_tests,
    ignore = "heavy: first-edition units (the full suite runs it)"
)]
fn exhaust_json_files_import_through_the_checks() {
    let honest = honest();
    let data = tempfile::tempdir().unwrap();
    let dir = data.path().to_str().unwrap();
    create_campaign("imp", &["--data", dir]);
    let mut forged = honest.clone();
    forged.sample[easier_sample(honest).0].1 = Some(easier_sample(honest).2 + 1);
    let forged_file = data.path().join("forged.json");
    std::fs::write(&forged_file, exhaust_json(&forged).to_string()).unwrap();
    let refused = crate::rrm(&[
        "campaign",
        "import",
        "imp",
        forged_file.to_str().unwrap(),
        "--data",
        dir,
    ]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&refused.stdout).contains("refused"));
    let file = data.path().join("unit.json");
    std::fs::write(&file, exhaust_json(honest).to_string()).unwrap();
    let out = rrm_ok(&[
        "campaign",
        "import",
        "imp",
        file.to_str().unwrap(),
        "--data",
        dir,
    ]);
    assert!(out.starts_with("1 accepted, 0 already stored"), "{out}");
    let out = rrm_ok(&[
        "campaign",
        "import",
        "imp",
        file.to_str().unwrap(),
        "--data",
        dir,
    ]);
    assert!(out.starts_with("0 accepted, 1 already stored"), "{out}");
    // A rotated board's cells are rotated too: refused, not misread.
    let mut rotated = exhaust_json(honest);
    rotated["board"] = ROTATED.into();
    let rotated_file = data.path().join("rotated.json");
    std::fs::write(&rotated_file, rotated.to_string()).unwrap();
    let refused = crate::rrm(&[
        "campaign",
        "import",
        "imp",
        rotated_file.to_str().unwrap(),
        "--data",
        dir,
    ]);
    assert_eq!(refused.status.code(), Some(1));
    let report: serde_json::Value =
        serde_json::from_str(&rrm_ok(&["stats", "--data", dir, "--json"])).unwrap();
    let histogram: Vec<u64> = report["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["puzzles"].as_u64().unwrap())
        .collect();
    let nonzero: Vec<u64> = honest
        .histogram
        .iter()
        .copied()
        .filter(|&c| c > 0)
        .collect();
    assert_eq!(histogram, nonzero);
    assert_eq!(report["unsolvable"], honest.unsolvable);
}
