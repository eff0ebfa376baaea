//! Attacks on the coordinator's trust, one test each, all with worker tokens (the
//! identity a coordinator on a shared network knows workers by): a forger, a predictor
//! of the verified units, a self-verifier with two registrations, an impersonator and a
//! quarantiner. In each the forged statistics never appear: the attacker ends
//! distrusted, an honest worker finishes the campaign, and its histogram equals a
//! direct solve of every seed. Also: a padded solution that would rank among the
//! hardest, and quarantined units released by `campaign retry`.

use super::security::{
    code, leased_and_solved, mining, register, register_threads, with_token, Tokens,
};
use super::*;
use rrm_model::{Resolution, Verification};

const TOKENS: [(&str, &str, &str); 4] = [
    ("mallory", "worker", "tok-mallory"),
    ("mallory-2", "worker", "tok-mallory-2"),
    ("honest", "worker", "tok-honest"),
    ("ops", "admin", "tok-admin"),
];

/// A coordinator with [`TOKENS`] holding `campaign`.
pub(super) fn secured(config: Config, campaign: CampaignSpec) -> (Server, Tokens) {
    let tokens = Tokens::new(&TOKENS);
    let server = Server::with_campaign_secured(config, tokens.security(), campaign);
    (server, tokens)
}

/// `solved` as `worker` submits it for `unit`, with `counts` in place of its move counts
/// and a digest that matches them: only the contents can give a forgery away.
pub(super) fn forged(
    unit: &pb::WorkUnit,
    solved: &rrm_worker::UnitResult,
    worker: &Registered,
    counts: Vec<u8>,
) -> pb::SubmitRequest {
    let seeds = unit.seed_start..unit.seed_end;
    submission(unit.lease.clone().unwrap(), seeds, solved, worker, counts)
}

/// The honest counts with one seed's count raised by one: a seed far from the unit's
/// hardest, so that no kept solution gives it away (only solving it again does).
pub(super) fn one_seed_off(solved: &rrm_worker::UnitResult) -> Vec<u8> {
    let mut counts = solved.move_counts.clone();
    let mut sorted = counts.clone();
    sorted.sort_unstable();
    let easy = counts
        .iter()
        .position(|&c| c + 1 < sorted[sorted.len() - 6])
        .expect("a unit with an easy seed");
    counts[easy] += 1;
    counts
}

/// Runs an honest worker (token `tok-honest`) until every campaign is done, second
/// opinions included, then checks that `campaign` holds exactly the direct solve of
/// `seeds`, with nothing quarantined or waiting.
pub(super) fn honest_worker_finishes(
    server: &Server,
    tokens: &Tokens,
    campaign: &str,
    seeds: Range<u64>,
) {
    honest_worker_runs(server, tokens, 2);
    let status = server.coordinator.status(campaign).unwrap();
    assert_eq!(status.units_done, status.units_total);
    assert!(status.quarantined.is_empty(), "{:?}", status.quarantined);
    assert!(
        status.mismatches.iter().all(|m| !m.resolution.is_pending()),
        "{:?}",
        status.mismatches
    );
    let aggregates = server.coordinator.aggregates(campaign).unwrap();
    assert_eq!(aggregates.histogram, direct_histogram(seeds));
    let id = status.campaign.id;
    for (unit, record) in server.coordinator.store().units(id).unwrap() {
        let UnitState::Done {
            producer,
            verification,
            ..
        } = &record.state
        else {
            panic!("unit {unit} is not done: {record:?}");
        };
        assert!(
            !producer.starts_with("mallory")
                || matches!(verification, Verification::Agreed { by } if by == "honest")
                || *verification == Verification::Confirmed,
            "unit {unit} rests on mallory's word alone: {record:?}"
        );
    }
}

/// Leases a unit for `worker` and heartbeats it once: its holder has seen it.
async fn leased_unit_with(
    url: &str,
    access: &rrm_proto::access::ClientAccess,
    worker: &Registered,
) {
    let reply = mining(url, access).lease(worker.lease()).await.unwrap();
    let unit = reply.into_inner().unit.expect("a unit to lease");
    mining(url, access)
        .heartbeat(pb::HeartbeatRequest {
            worker_id: worker.id,
            session: worker.session.clone(),
            leases: vec![unit.lease.unwrap()],
            seeds_solved: Vec::new(),
        })
        .await
        .unwrap();
}

pub(super) fn distrusted(server: &Server) -> Vec<String> {
    let mut names: Vec<String> = server
        .coordinator
        .distrusted()
        .into_iter()
        .map(|d| d.identity)
        .collect();
    names.sort();
    names
}

#[test]
fn a_forger_is_refused_distrusted_and_never_counted() {
    let seeds = 1..1001;
    let (server, tokens) = secured(checking(0.0), spec("forged", seeds.clone(), 100));
    let mallory = with_token("tok-mallory");
    block_on(async {
        let worker = register(&server.url, &mallory, "forger").await.unwrap();
        // Every seed "solved" in one move, by one robot, with a matching digest.
        let (unit, solved) = leased_and_solved(&server.url, &mallory, &worker).await;
        let ones = forged(&unit, &solved, &worker, vec![1; solved.move_counts.len()]);
        let refused = mining(&server.url, &mallory).submit(ones).await;
        assert_eq!(code(refused), Code::InvalidArgument);
        assert_eq!(
            server.coordinator.aggregates("forged").unwrap().puzzles(),
            0
        );
        // Proven wrong once, it gets no more work.
        let again = mining(&server.url, &mallory).lease(worker.lease()).await;
        assert_eq!(code(again), Code::PermissionDenied);
    });
    assert_eq!(distrusted(&server), ["mallory"]);
    honest_worker_finishes(&server, &tokens, "forged", seeds);
}

/// The longest valid solution of `puzzle` that starts with some other first move and
/// then goes optimally: longer than the optimum, yet it replays.
fn padded_solution(puzzle: &ricochet::Puzzle) -> Vec<ricochet::Move> {
    let optimum = with_thread_solver(DEFAULT_MAX_MOVES, |s| s.solve(puzzle).unwrap().moves);
    let mut longest = optimum.clone();
    for robot in 0..puzzle.robots().len() as u8 {
        for dir in ricochet::board::Direction::ALL {
            let first = ricochet::Move { robot, dir };
            let mut robots = puzzle.robots().to_vec();
            let to = puzzle.slide(&robots, first);
            if to == robots[usize::from(robot)] {
                continue; // a move that moves nothing is no move
            }
            robots[usize::from(robot)] = to;
            let Ok(after) = ricochet::Puzzle::new(puzzle.board().clone(), robots, puzzle.target())
            else {
                continue;
            };
            let Ok(rest) = with_thread_solver(DEFAULT_MAX_MOVES, |s| s.solve(&after)) else {
                continue;
            };
            if 1 + rest.moves.len() > longest.len() {
                longest = std::iter::once(first).chain(rest.moves).collect();
            }
        }
    }
    assert!(longest.len() > optimum.len() && puzzle.is_solution(&longest));
    longest
}

/// A kept solution below the record threshold used to be replayed only: a valid but
/// padded one ranked first in `rrm top`. Whatever would enter the shown hardest list is
/// now solved again first.
#[test]
fn a_padded_solution_never_ranks_among_the_hardest() {
    let seeds = 1..201;
    let (server, tokens) = secured(checking(0.0), spec("padded", seeds.clone(), 100));
    let mallory = with_token("tok-mallory");
    let (seed, claimed) = block_on(async {
        let worker = register(&server.url, &mallory, "padder").await.unwrap();
        let (unit, mut solved) = leased_and_solved(&server.url, &mallory, &worker).await;
        let (seed, _) = solved.solutions[0].clone();
        let index = (seed - unit.seed_start) as usize;
        let puzzle = Generator::Fogleman.generate(seed).unwrap().puzzle;
        let padded = padded_solution(&puzzle);
        solved.move_counts[index] = padded.len() as u8;
        solved.robots_moved[index] = ricochet::puzzle::robots_moved(&padded) as u8;
        solved.solutions[0].1 = padded.iter().map(ricochet::Move::notation).collect();
        assert!(
            padded.len() < 20,
            "below the record threshold, so only the list re-solves it"
        );
        let counts = solved.move_counts.clone();
        let refused = mining(&server.url, &mallory)
            .submit(forged(&unit, &solved, &worker, counts))
            .await;
        assert_eq!(code(refused), Code::InvalidArgument);
        (seed, padded.len() as u8)
    });
    assert_eq!(distrusted(&server), ["mallory"]);
    honest_worker_finishes(&server, &tokens, "padded", seeds.clone());
    let shown = server.coordinator.hardest("padded", 10, 0).unwrap();
    let direct = direct_histogram(seeds);
    let hardest = direct.iter().rposition(|&n| n > 0).unwrap() as u8;
    assert_eq!(shown[0].moves, hardest);
    assert!(shown.iter().all(|p| p.re_solved), "{shown:?}");
    assert!(
        !shown.iter().any(|p| p.seed == seed && p.moves == claimed),
        "the padded {claimed} moves of seed {seed} are shown"
    );
}

/// The units the coordinator used to verify were a public hash of (campaign, unit); a
/// predictor submits true results there and forgeries elsewhere. Checks now come on a
/// secret schedule (at share 0.3, never more than 4 units in a row unchecked), a seed
/// unit's check is the coordinator's own full solve: the predictor is found within its
/// first units, and every result of its that was taken is replaced.
#[test]
fn a_predictor_of_verified_units_is_found_and_its_results_replaced() {
    let seeds = 1..2001;
    let config = Config {
        verify_share: 0.3,
        // Spot checks and the newcomer's full solves off: only the scheduled checks can
        // find one-seed forgeries.
        spot_checks: 0,
        trust_after: 0,
        ..Config::default()
    };
    let (server, tokens) = secured(config, spec("predicted", seeds.clone(), 25));
    let old_public_choice = |unit: u64| {
        let mixed = (1u64 << 48 ^ unit)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(29)
            .wrapping_mul(0xBF58_476D_1CE4_E5B9);
        ((mixed >> 11) as f64 / (1u64 << 53) as f64) < 0.3
    };
    let mallory = with_token("tok-mallory");
    let (mut taken, mut units) = (0, 0);
    block_on(async {
        let worker = register(&server.url, &mallory, "predictor").await.unwrap();
        loop {
            assert!(units < 80, "the predictor was never found out");
            units += 1;
            let (unit, solved) = leased_and_solved(&server.url, &mallory, &worker).await;
            let lease = unit.lease.clone().unwrap();
            let forging = !old_public_choice(lease.unit);
            let counts = match forging {
                true => one_seed_off(&solved),
                false => solved.move_counts.clone(),
            };
            let submitted = mining(&server.url, &mallory)
                .submit(forged(&unit, &solved, &worker, counts))
                .await;
            match submitted {
                Ok(reply) => {
                    assert_eq!(reply.into_inner().outcome(), pb::SubmitOutcome::Accepted);
                    taken += u32::from(forging);
                }
                Err(refused) => {
                    assert!(forging, "an honest unit refused: {refused:?}");
                    assert_eq!(refused.code(), Code::InvalidArgument);
                    break;
                }
            }
        }
    });
    eprintln!("the predictor was found at its unit {units}, {taken} forgeries taken before");
    honest_worker_finishes(&server, &tokens, "predicted", seeds);
    assert_eq!(distrusted(&server), ["mallory"]);
    let status = server.coordinator.status("predicted").unwrap();
    let replaced = status
        .mismatches
        .iter()
        .filter(|m| m.resolution == Resolution::VerifierWon && m.producer == "mallory")
        .count();
    assert_eq!(replaced, taken as usize, "{:?}", status.mismatches);
}

/// Worker ids are public; a session secret and the registering token are not.
#[test]
fn an_impersonator_cannot_act_for_another_worker() {
    let seeds = 1..51;
    let (server, tokens) = secured(Config::default(), spec("impersonated", seeds.clone(), 50));
    let honest = with_token("tok-honest");
    let mallory = with_token("tok-mallory");
    block_on(async {
        let victim = register(&server.url, &honest, "victim").await.unwrap();
        let (unit, solved) = leased_and_solved(&server.url, &honest, &victim).await;
        let ones = vec![1; solved.move_counts.len()];
        // The victim's id with a guessed session, then with its real (stolen) session
        // but mallory's token: both refused, whatever the call.
        let guessed = Registered {
            id: victim.id,
            session: vec![7; 16],
        };
        for (who, access, code_expected) in [
            (&guessed, &mallory, Code::Unauthenticated),
            (&guessed, &honest, Code::Unauthenticated),
            (&victim, &mallory, Code::PermissionDenied),
        ] {
            let submit = mining(&server.url, access)
                .submit(forged(&unit, &solved, who, ones.clone()))
                .await;
            assert_eq!(code(submit), code_expected);
            let heartbeat = mining(&server.url, access)
                .heartbeat(pb::HeartbeatRequest {
                    worker_id: who.id,
                    session: who.session.clone(),
                    leases: vec![unit.lease.clone().unwrap()],
                    seeds_solved: Vec::new(),
                })
                .await;
            assert_eq!(code(heartbeat), code_expected);
            assert_eq!(
                code(mining(&server.url, access).lease(who.lease()).await),
                code_expected
            );
        }
        assert_eq!(
            server
                .coordinator
                .aggregates("impersonated")
                .unwrap()
                .puzzles(),
            0
        );
        // Nothing was charged to the victim, whose honest result is taken.
        let reply = mining(&server.url, &honest)
            .submit(forged(&unit, &solved, &victim, solved.move_counts.clone()))
            .await
            .unwrap();
        assert_eq!(reply.into_inner().outcome(), pb::SubmitOutcome::Accepted);
    });
    assert!(distrusted(&server).is_empty());
    honest_worker_finishes(&server, &tokens, "impersonated", seeds);
}

/// A thousand bad submissions at once cannot quarantine the campaign: a failure counts
/// once per identity and unit, and a distrusted identity's refusals count not at all.
#[test]
fn a_burst_of_bad_submissions_quarantines_nothing() {
    let seeds = 1..401;
    let config = Config {
        max_failures: 2,
        verify_share: 0.0,
        ..Config::default()
    };
    let (server, tokens) = secured(config, spec("burst", seeds.clone(), 10));
    let mallory = with_token("tok-mallory");
    block_on(async {
        let worker = register_threads(&server.url, &mallory, "burst", 20)
            .await
            .unwrap();
        // Eighteen honest units first earn it the leases to hold twenty at once (two,
        // and one per result of the last lease life).
        for _ in 0..18 {
            let (unit, solved) = leased_and_solved(&server.url, &mallory, &worker).await;
            let honest = forged(&unit, &solved, &worker, solved.move_counts.clone());
            mining(&server.url, &mallory).submit(honest).await.unwrap();
        }
        let mut held = Vec::new();
        for _ in 0..20 {
            held.push(leased_and_solved(&server.url, &mallory, &worker).await);
        }
        let client = mining(&server.url, &mallory);
        let started = Instant::now();
        let mut calls = tokio::task::JoinSet::new();
        for round in 0..50u8 {
            for (unit, solved) in &held {
                let counts = vec![1 + round % 3; solved.move_counts.len()];
                let request = forged(unit, solved, &worker, counts);
                let mut client = client.clone();
                calls.spawn(async move { client.submit(request).await });
            }
        }
        let mut refused = 0;
        while let Some(result) = calls.join_next().await {
            assert!(result.unwrap().is_err(), "a forgery was accepted");
            refused += 1;
        }
        assert_eq!(refused, 1000);
        eprintln!("1000 bad submissions in {:?}", started.elapsed());
    });
    let status = server.coordinator.status("burst").unwrap();
    assert_eq!(status.units_quarantined, 0);
    assert_eq!(status.units_done, 18, "its eighteen honest units alone");
    let id = status.campaign.id;
    let charged: u32 = server
        .coordinator
        .store()
        .units(id)
        .unwrap()
        .iter()
        .map(|(_, record)| record.failures())
        .sum();
    assert_eq!(
        charged, 1,
        "one refusal proved mallory wrong; the rest count nothing"
    );
    assert_eq!(distrusted(&server), ["mallory"]);
    honest_worker_finishes(&server, &tokens, "burst", seeds);
}

/// `rrm campaign retry` releases a quarantined unit, which is then mined.
#[test]
fn campaign_retry_releases_quarantined_units() {
    let seeds = 1..41;
    let config = Config {
        max_failures: 1,
        lease_duration: Duration::from_secs(1),
        ..Config::default()
    };
    let (server, tokens) = secured(config, spec("retried", seeds.clone(), 20));
    let admin = tokens.token_file("tok-admin");
    block_on(async {
        // A worker that leases both units, heartbeats once and vanishes: its expired
        // leases quarantine them (expiry is noticed when someone next asks for work).
        let silent = register(&server.url, &with_token("tok-mallory"), "silent")
            .await
            .unwrap();
        for _ in 0..2 {
            leased_unit_with(&server.url, &with_token("tok-mallory"), &silent).await;
        }
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let asker = register(&server.url, &with_token("tok-mallory-2"), "asker")
            .await
            .unwrap();
        let nothing = mining(&server.url, &with_token("tok-mallory-2"))
            .lease(asker.lease())
            .await
            .unwrap()
            .into_inner();
        assert!(nothing.unit.is_none());
    });
    let status = server.coordinator.status("retried").unwrap();
    assert_eq!(status.units_quarantined, 2);
    let retry = |args: &[&str]| {
        let mut all = vec!["campaign", "retry", "retried", "--coordinator", &server.url];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--token-file", &admin]);
        rrm_ok(&all)
    };
    let unit = status.quarantined[0].unit;
    let out = retry(&["--unit", &unit.to_string()]);
    assert!(out.contains("released 1 quarantined unit"), "{out}");
    assert_eq!(
        server
            .coordinator
            .status("retried")
            .unwrap()
            .units_quarantined,
        1
    );
    let out = retry(&["--quarantined"]);
    assert!(out.contains("released 1 quarantined unit"), "{out}");
    assert_eq!(
        server
            .coordinator
            .status("retried")
            .unwrap()
            .units_quarantined,
        0
    );
    honest_worker_finishes(&server, &tokens, "retried", seeds);
}

#[test]
fn client_strings_come_back_cut_short() {
    let server = Server::with_campaign(checking(0.0), spec("echo", 1..11, 10));
    block_on(async {
        let mut client = pb::mining_client::MiningClient::connect(server.url.clone())
            .await
            .unwrap();
        // A 100 kB version and a 100 kB campaign name: refused, and not sent back whole.
        let huge = "v".repeat(100_000);
        let refused = client
            .register(pb::RegisterRequest {
                name: "echo".into(),
                threads: 1,
                version: huge.clone(),
            })
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Code::FailedPrecondition);
        assert!(
            refused.message().len() <= 512,
            "{}",
            refused.message().len()
        );
        assert!(
            refused.message().contains(" bytes in all)"),
            "{}",
            refused.message()
        );
        let unknown = query(&server.url)
            .await
            .get_campaign_status(pb::CampaignRequest { campaign: huge })
            .await
            .unwrap_err();
        assert!(
            unknown.message().len() <= 512,
            "{}",
            unknown.message().len()
        );
    });
}

/// Runs an honest worker process (token `tok-honest`, `threads` threads) until nothing
/// is left for it; returns the time it took.
pub(super) fn honest_worker_runs(server: &Server, tokens: &Tokens, threads: u32) -> Duration {
    let started = Instant::now();
    let mut honest = rrm_process(&[
        "worker",
        "--coordinator",
        &server.url,
        "--threads",
        &threads.to_string(),
        "--token-file",
        &tokens.token_file("tok-honest"),
        "--exit-when-done",
    ]);
    wait_until(
        Duration::from_secs(240),
        "the honest worker is done",
        || honest.0.try_wait().unwrap().is_some(),
    );
    assert!(
        honest.0.wait().unwrap().success(),
        "the honest worker failed"
    );
    started.elapsed()
}
