//! Ricocheckers forced-win puzzles mined as a campaign: a real coordinator and a worker
//! process mine what proving every seed here gives, `rrm top` and `rrm pack` show the
//! wins with lines that replay to a win; forged claims are refused; other rules are
//! refused at creation.

use super::*;
use ricochet::ricocheckers::puzzles::standard_field;
use ricochet::ricocheckers::{Outcome, Step};
use ricochet::{Dealer, Dealt, SeedAnswer};
use rrm_coordinator::{CoordinatorError, Rejection};
use rrm_model::{Submission, Work};

const DEALER: Dealer = Dealer::standard(Generator::Ricocheckers);

fn ricocheckers_spec(name: &str, seeds: Range<u64>, unit_size: u64, records: u8) -> CampaignSpec {
    CampaignSpec {
        generator: "ricocheckers".into(),
        record_threshold: records,
        ..spec(name, seeds, unit_size)
    }
}

/// Every seed's shortest forced win, proven here.
fn direct(seeds: Range<u64>) -> Vec<SeedAnswer> {
    seeds
        .map(|seed| DEALER.answer(&DEALER.deal(seed).unwrap(), 30).unwrap())
        .collect()
}

/// Replays `line` on seed `seed`'s position with the engine: each step legal, the side to
/// move winning on the last one. Returns the winner's moves.
fn replayed_win(seed: u64, line: &[String]) -> u8 {
    let field = standard_field();
    let Dealt::Ricocheckers(start) = DEALER.deal(seed).unwrap() else {
        panic!("a position")
    };
    let mut at = start;
    for text in line {
        assert_eq!(
            field.outcome(&at),
            None,
            "seed {seed}: the game ended early"
        );
        let step = Step::parse(text).unwrap();
        assert!(field.steps(&at).contains(&step), "seed {seed}: {text}");
        at = field.play(&at, step);
    }
    assert_eq!(field.outcome(&at), Some(Outcome::Win(start.to_move)));
    line.len().div_ceil(2) as u8
}

#[test]
fn a_forced_win_campaign_is_mined_end_to_end() {
    let seeds = 1..401;
    let server = Server::with_campaign(
        checking(0.0),
        ricocheckers_spec("wins", seeds.clone(), 100, 5),
    );
    let _worker = worker(&server.url, 2);
    let answers = direct(seeds.clone());
    let mut expected = vec![0; 8];
    for answer in &answers {
        expected[usize::from(answer.moves)] += 1;
    }
    while expected.last() == Some(&0) {
        expected.pop();
    }
    wait_until(Duration::from_secs(300), "the campaign is mined", || {
        status(&server.url, "wins").is_some_and(|s| is_done(&s))
    });
    let stored = stats(&server.url, "wins");
    assert_eq!(stored.histogram, expected);
    assert!(expected.len() >= 6, "wins of 5 moves or more: {expected:?}");
    // Grouped by the side to move.
    let sides: Vec<&str> = stored.by_target.iter().map(|g| g.group.as_str()).collect();
    assert_eq!(sides, ["P1", "P2"]);

    let report = |args: &[&str]| {
        let tail = ["--coordinator", &server.url, "--campaign", "wins"];
        rrm_ok(&[args, &tail].concat())
    };
    let top = report(&["top", "--limit", "4", "--json"]);
    let rows: Vec<serde_json::Value> = top
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 4);
    let longest = usize::from(expected.len() as u8 - 1);
    for row in &rows {
        let seed = row["seed"].as_u64().unwrap();
        let moves = row["moves"].as_u64().unwrap() as u8;
        assert_eq!(moves, answers[seed as usize - 1].moves);
        let line: Vec<String> = serde_json::from_value(row["line"].clone()).unwrap();
        assert_eq!(replayed_win(seed, &line), moves);
        // Record candidates (5 moves and more) were proven again by the coordinator.
        assert_eq!(row["re_proven"], moves >= 5, "{row}");
    }
    assert_eq!(rows[0]["moves"].as_u64(), Some(longest as u64));

    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("pack.html");
    let json = dir.path().join("pack.json");
    for out in [&html, &json] {
        let text = report(&[
            "pack",
            "--min-moves",
            "3",
            "--max-moves",
            "7",
            "--count",
            "3",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(text.contains("wrote 3 positions"), "{text}");
    }
    let page = std::fs::read_to_string(&html).unwrap();
    assert_eq!(page.matches("<svg").count(), 3);
    let pack: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    for puzzle in pack["puzzles"].as_array().unwrap() {
        let seed = puzzle["seed"].as_u64().unwrap();
        let line: Vec<String> = serde_json::from_value(puzzle["line"].clone()).unwrap();
        assert_eq!(
            puzzle["moves"].as_u64().unwrap() as u8,
            replayed_win(seed, &line)
        );
        assert!((3..=7).contains(&puzzle["moves"].as_u64().unwrap()));
    }
    // The pack spans the lengths it was asked for, easiest first.
    let lengths: Vec<u64> = (pack["puzzles"].as_array().unwrap().iter())
        .map(|p| p["moves"].as_u64().unwrap())
        .collect();
    let present = expected[3..].iter().filter(|&&n| n > 0).count();
    let mut distinct = lengths.clone();
    distinct.dedup();
    assert_eq!(
        distinct.len(),
        present.min(3),
        "{lengths:?} from {expected:?}"
    );
    assert!(lengths.windows(2).all(|w| w[0] <= w[1]), "{lengths:?}");
    // A pack asking for wins of 0 moves is refused: they are positions without one.
    let zero = crate::rrm(&[
        "pack",
        "--moves",
        "0",
        "--count",
        "1",
        "--out",
        html.to_str().unwrap(),
        "--coordinator",
        &server.url,
        "--campaign",
        "wins",
    ]);
    assert_eq!(zero.status.code(), Some(2));
}

#[test]
fn forged_forced_win_claims_are_refused() {
    let data = tempfile::tempdir().unwrap();
    let config = Config {
        top_count: 1,
        ..Config::default()
    };
    let coordinator = Coordinator::open(Store::open(data.path()).unwrap(), config).unwrap();
    // Other rules have no meaning for Ricocheckers.
    let ruled = CampaignSpec {
        rules: rrm_model::Rules::parse("ricochet").unwrap(),
        ..ricocheckers_spec("ruled", 1..101, 100, 8)
    };
    assert!(coordinator.create_campaign(ruled).is_err());
    coordinator
        .create_campaign(ricocheckers_spec("forged", 1..201, 200, 8))
        .unwrap();
    let honest = |worker: &rrm_coordinator::Worker| {
        let assignment = coordinator.lease(worker).unwrap().expect("the unit");
        let Work::Seeds { seeds, .. } = assignment.work else {
            panic!("a seed unit")
        };
        let cancel = std::sync::atomic::AtomicBool::new(false);
        let solved = rrm_worker::solve_unit(DEALER, seeds.clone(), 8, 1, &cancel, &|| {}).unwrap();
        (assignment.lease, seeds, solved)
    };
    let submission = |worker: &rrm_coordinator::Worker,
                      lease: rrm_model::LeaseRef,
                      seeds: Range<u64>,
                      counts: Vec<u8>,
                      robots: Vec<u8>,
                      solutions: Vec<(u64, Vec<String>)>| Submission {
        worker: worker.id,
        identity: worker.identity.clone(),
        lease,
        digest: rrm_model::unit_digest("forged", seeds, &counts, &robots).to_vec(),
        move_counts: counts,
        robots_moved: robots,
        solutions,
        exhaustive: None,
        cpu_ms: 0,
        own_process: false,
    };
    let mut refused = 0;
    // Each forger is a new identity: a refused one is distrusted.
    for (forger, forgery) in ["unsettled", "inflated", "beyond-bound", "pieces"]
        .into_iter()
        .enumerate()
    {
        let worker = in_process_worker(&coordinator, &format!("forger-{forger}"));
        let (lease, seeds, solved) = honest(&worker);
        let hardest = solved.solutions[0].0;
        let top = (hardest - seeds.start) as usize;
        // A win that is not the hardest: its line is not kept, only a search shows it.
        let hidden = (solved.move_counts.iter().enumerate())
            .filter(|&(i, &m)| i != top && m > 0 && m != rrm_model::UNSOLVED)
            .map(|(i, _)| i)
            .next()
            .expect("a second forced win in the unit");
        let (mut counts, mut robots) = (solved.move_counts.clone(), solved.robots_moved.clone());
        match forgery {
            "unsettled" => (counts[hidden], robots[hidden]) = (rrm_model::UNSOLVED, 0),
            // Past the bound it is impossible; below it, the kept line shows fewer moves.
            "inflated" => counts[top] += 1,
            "beyond-bound" => counts[top] = 9,
            _ => robots[top] = if robots[top] == 1 { 2 } else { 1 },
        }
        let outcome = coordinator.submit(submission(
            &worker,
            lease,
            seeds,
            counts,
            robots,
            solved.solutions.clone(),
        ));
        let Err(CoordinatorError::Invalid(rejection)) = outcome else {
            panic!("{forgery}: {outcome:?}")
        };
        let expected = match forgery {
            "unsettled" => matches!(rejection, Rejection::FalselyUnsolved { .. }),
            "inflated" if solved.move_counts[top] == 7 => {
                matches!(rejection, Rejection::Impossible { .. })
            }
            "inflated" => matches!(rejection, Rejection::WrongSolution { .. }),
            "beyond-bound" => matches!(rejection, Rejection::Impossible { .. }),
            _ => matches!(rejection, Rejection::WrongRobotsMoved { .. }),
        };
        assert!(expected, "{forgery}: {rejection:?}");
        refused += 1;
    }
    assert_eq!(refused, 4);
    // Nothing forged was counted; the honest result is accepted and counted in full.
    assert_eq!(coordinator.aggregates("forged").unwrap().puzzles(), 0);
    let worker = in_process_worker(&coordinator, "honest");
    let (lease, seeds, solved) = honest(&worker);
    let counts = solved.move_counts.clone();
    coordinator
        .submit(submission(
            &worker,
            lease,
            seeds.clone(),
            counts,
            solved.robots_moved.clone(),
            solved.solutions.clone(),
        ))
        .unwrap();
    let expected = direct(seeds);
    assert_eq!(
        coordinator.aggregates("forged").unwrap().puzzles(),
        expected.len() as u64
    );
    assert_eq!(
        solved.move_counts,
        expected.iter().map(|a| a.moves).collect::<Vec<_>>()
    );
}
