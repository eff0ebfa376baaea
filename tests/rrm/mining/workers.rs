//! Workers mining campaigns end to end: totals, killed workers and coordinators, resumption,
//! records and second opinions.

use super::*;

#[test]
fn three_workers_mine_what_solving_every_seed_gives() {
    let server = Server::with_campaign(Config::default(), spec("three", 1..20_000, 500));
    let _workers: Vec<Process> = (0..3).map(|_| worker(&server.url, 1)).collect();
    let expected = direct_histogram(1..20_000);
    wait_until(Duration::from_secs(600), "the campaign is mined", || {
        status(&server.url, "three").is_some_and(|s| is_done(&s))
    });
    let stored = stats(&server.url, "three");
    assert_eq!(stored.histogram, expected);
    assert_eq!(stored.puzzles, 19_999);
    let by_target: u64 = stored.by_target.iter().map(|g| g.puzzles).sum();
    assert_eq!(by_target, 19_999);
    let status = status(&server.url, "three").unwrap();
    assert_eq!(status.seeds_done, 19_999);
    assert!(status.mismatches.is_empty(), "{:?}", status.mismatches);

    // The report commands read the same through the query service.
    let report = |args: &[&str]| {
        let tail = [
            "--coordinator",
            &server.url,
            "--campaign",
            "three",
            "--json",
        ];
        rrm_ok(&[args, &tail].concat())
    };
    let remote: serde_json::Value = serde_json::from_str(&report(&["stats"])).unwrap();
    assert_eq!(remote["puzzles"], 19_999);
    assert_eq!(remote["max"].as_u64(), Some(expected.len() as u64 - 1));
    let top = report(&["top", "--limit", "2"]);
    let hardest: serde_json::Value = serde_json::from_str(top.lines().next().unwrap()).unwrap();
    assert_eq!(hardest["moves"].as_u64(), Some(expected.len() as u64 - 1));
}

#[test]
fn a_killed_workers_unit_is_reissued_and_totals_stay_exact() {
    let config = Config {
        lease_duration: Duration::from_secs(2),
        ..Config::default()
    };
    let server = Server::with_campaign(config, spec("crash", 1..3_001, 300));
    let mut doomed = worker(&server.url, 1);
    wait_until(
        Duration::from_secs(60),
        "the first worker holds a lease",
        || server.coordinator.status("crash").unwrap().units_leased > 0,
    );
    doomed.0.kill().unwrap(); // SIGKILL: no goodbye, the lease just stops being renewed
    let _survivor = worker(&server.url, 2);
    let expected = direct_histogram(1..3_001);
    wait_until(Duration::from_secs(300), "the campaign is mined", || {
        status(&server.url, "crash").is_some_and(|s| is_done(&s))
    });
    assert_eq!(stats(&server.url, "crash").histogram, expected);
    let reissued = server
        .coordinator
        .store()
        .units(1)
        .unwrap()
        .into_iter()
        .filter(|(_, record)| {
            record.leases_issued >= 2 && matches!(record.state, UnitState::Done { .. })
        })
        .count();
    assert!(reissued >= 1, "no unit was leased twice");
}

#[test]
fn a_killed_coordinator_resumes_exactly_after_restart() {
    let data = tempfile::tempdir().unwrap();
    let (mut coordinator, address) = coordinator_process(data.path(), "127.0.0.1:0");
    let url = format!("http://{address}");
    rrm_ok(&[
        "campaign",
        "create",
        "restart",
        "--seeds",
        "1..8001",
        "--unit-size",
        "100",
        "--coordinator",
        &url,
    ]);
    let _worker = worker(&url, 2);
    wait_until(Duration::from_secs(120), "some units are done", || {
        status(&url, "restart").is_some_and(|s| s.units_done >= 3)
    });
    coordinator.0.kill().unwrap();
    let at_kill = status(&url, "restart");
    assert!(at_kill.is_none(), "the coordinator is gone");
    coordinator.0.wait().unwrap();
    let (_restarted, again) = coordinator_process(data.path(), &address);
    assert_eq!(again, address);
    let resumed = status(&url, "restart").unwrap();
    assert!(
        !is_done(&resumed),
        "killed mid-campaign ({} of {} units)",
        resumed.units_done,
        resumed.units_total
    );
    let expected = direct_histogram(1..8_001);
    wait_until(Duration::from_secs(300), "the campaign is mined", || {
        status(&url, "restart").is_some_and(|s| is_done(&s))
    });
    let stored = stats(&url, "restart");
    assert_eq!(stored.histogram, expected);
    assert_eq!(status(&url, "restart").unwrap().seeds_done, 8_000);
}

/// A coordinator restarted while a worker's units are in flight: their results, submitted
/// to the restarted coordinator under the forgotten registration, are refused as
/// UNAUTHENTICATED. The worker (with a token: its identity outlives its registrations)
/// registers again and submits them under the new one: none is dropped (before, each
/// was logged as refused and mined again after its lease lapsed).
#[test]
fn results_in_flight_over_a_coordinator_restart_are_not_lost() {
    use super::security::{announced, channel, with_token, Tokens};
    let tokens = Tokens::new(&[("ops", "admin", "tok-admin"), ("w", "worker", "tok-w")]);
    let data = tempfile::tempdir().unwrap();
    let coordinator_at = |listen: &str| {
        rrm_process(&[
            "coordinator",
            "--listen",
            listen,
            "--data",
            data.path().to_str().unwrap(),
            "--lease-seconds",
            "3",
            "--no-dashboard",
            "--tokens-file",
            tokens.path.to_str().unwrap(),
        ])
    };
    let mut coordinator = coordinator_at("127.0.0.1:0");
    let address = announced(&mut coordinator, "listening on ");
    let url = format!("http://{address}");
    let admin = tokens.token_file("tok-admin");
    rrm_ok(&[
        "campaign",
        "create",
        "inflight",
        "--seeds",
        "1..6001",
        "--unit-size",
        "300",
        "--coordinator",
        &url,
        "--token-file",
        &admin,
    ]);
    let done = || {
        block_on(async {
            let mut query =
                pb::query_client::QueryClient::new(channel(&url, &with_token("tok-admin")));
            let request = pb::CampaignRequest {
                campaign: "inflight".into(),
            };
            query
                .get_campaign_status(request)
                .await
                .ok()
                .map(|s| s.into_inner())
        })
        .map(|status| (status.units_done, status.units_done == status.units_total))
    };
    let log = tempfile::NamedTempFile::new().unwrap();
    let mut worker = Process(
        Command::new(env!("CARGO_BIN_EXE_rrm"))
            .args(["worker", "--coordinator", &url, "--threads", "1"])
            .args(["--token-file", &tokens.token_file("tok-w")])
            .stdout(Stdio::null())
            .stderr(log.reopen().unwrap())
            .spawn()
            .unwrap(),
    );
    let mut restarts = 0;
    for _ in 0..3 {
        wait_until(Duration::from_secs(60), "a unit more is done", || {
            done().is_some_and(|(units, _)| units > restarts * 4 + 1)
        });
        // SAFETY: kill(2) on our own child's pid. An operator's restart: SIGTERM, so
        // that the leases granted are on disk (a SIGKILL may lose the last ones granted,
        // whose results are then refused as of a lease never issued).
        unsafe { libc::kill(coordinator.0.id() as i32, libc::SIGTERM) };
        coordinator.exit_within(Duration::from_secs(30));
        coordinator = coordinator_at(&address);
        restarts += 1;
    }
    wait_until(Duration::from_secs(300), "the campaign is mined", || {
        done().is_some_and(|(_, finished)| finished)
    });
    worker.0.kill().unwrap();
    let said = std::fs::read_to_string(log.path()).unwrap();
    let again = said.matches("registering again").count();
    let refused = said.matches("result refused").count();
    let resent = said.matches("outcome=Accepted").count();
    eprintln!(
        "{restarts} restarts: registered again {again} times, {refused} results refused, \
         {resent} accepted of 20 units"
    );
    assert!(again >= restarts as usize, "{said}");
    assert_eq!(refused, 0, "{said}");
}

#[test]
fn mining_finds_seed_1605212351_as_a_21_move_record() {
    let data = tempfile::tempdir().unwrap();
    let summary = rrm_ok(&[
        "mine",
        "--seeds",
        "1605212341..1605212361",
        "--unit-size",
        "10",
        "--data",
        data.path().to_str().unwrap(),
    ]);
    assert!(summary.contains("seed 1605212351: 21 moves"), "{summary}");
    let coordinator =
        Coordinator::open(Store::open(data.path()).unwrap(), Config::default()).unwrap();
    let records = coordinator
        .hardest("fogleman-1605212341-1605212361", 10, 20)
        .unwrap();
    let record = records
        .iter()
        .find(|p| p.seed == 1_605_212_351)
        .expect("listed as a record");
    assert_eq!(record.moves, 21);
    assert!(record.re_solved, "the coordinator solved it again");
    let puzzle = Generator::Fogleman.generate(1_605_212_351).unwrap().puzzle;
    assert_eq!(
        check_solution(&puzzle.to_record(None), &record.solution),
        Ok(())
    );
}

/// The status of campaign `name` in the store at `data` (no coordinator running).
fn stored_status(data: &std::path::Path, name: &str) -> rrm_model::CampaignStatus {
    let coordinator = Coordinator::open(Store::open(data).unwrap(), Config::default()).unwrap();
    coordinator.status(name).unwrap()
}

/// Runs `rrm mine` with `args` to the end, resuming what the store at `data` holds, and
/// checks campaign `name`'s totals against solving `seeds` directly.
fn mines_to_direct_totals(args: &[&str], data: &std::path::Path, name: &str, seeds: Range<u64>) {
    rrm_ok(args);
    let coordinator = Coordinator::open(Store::open(data).unwrap(), Config::default()).unwrap();
    let aggregates = coordinator.aggregates(name).unwrap();
    assert_eq!(aggregates.histogram, direct_histogram(seeds));
}

/// Starts `rrm mine` with `args`, its stderr kept for [`exit_and_stderr`].
fn mine_with_stderr(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_rrm"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits (at most 120 s) for a `rrm mine` that was signalled: its exit code and stderr.
fn exit_and_stderr(child: &mut Child) -> (Option<i32>, String) {
    let code = crate::exit_within(child, Duration::from_secs(120))
        .unwrap()
        .code();
    let mut stderr = String::new();
    let mut pipe = child.stderr.take().unwrap();
    std::io::Read::read_to_string(&mut pipe, &mut stderr).unwrap();
    (code, stderr)
}

#[test]
fn interrupted_mining_resumes_to_exact_totals() {
    let data = tempfile::tempdir().unwrap();
    let dir = data.path().to_str().unwrap();
    let args = [
        "mine",
        "--seeds",
        "1..6001",
        "--unit-size",
        "100",
        "--threads",
        "1",
        "--data",
        dir,
    ];
    // Ctrl-C after a while; again (each run resuming) until a unit is stored, so that
    // a slow machine cannot make the run stop before its first unit.
    let mut wait = Duration::from_millis(1500);
    let stored = loop {
        let mut first = rrm_process(&args);
        std::thread::sleep(wait);
        let interrupted = Command::new("kill")
            .args(["-INT", &first.0.id().to_string()])
            .status()
            .unwrap();
        assert!(interrupted.success());
        let code = first.exit_within(Duration::from_secs(60)).code();
        assert_eq!(code, Some(130), "Ctrl-C exits 130 after saving");
        let status = stored_status(data.path(), "fogleman-1-6001");
        if status.units_done > 0 || wait > Duration::from_secs(20) {
            break status;
        }
        wait *= 2;
    };
    // Stopped part-way: some units stored, not all, and only whole ones.
    assert!(stored.units_done > 0, "nothing stored before Ctrl-C");
    assert!(
        stored.units_done < stored.units_total,
        "{} of {} units: the run was not interrupted",
        stored.units_done,
        stored.units_total
    );
    assert_eq!(stored.seeds_done, stored.units_done * 100);
    mines_to_direct_totals(&args, data.path(), "fogleman-1-6001", 1..6_001);
}

/// Ctrl-C at four random moments: once, the units in flight are finished and stored ("every
/// seed solved is stored", only whole units); twice, mining stops at once and says how
/// many solved seeds will be mined again (at most the two units in flight). Each run
/// resumes the last; the totals end equal to a direct solve.
#[test]
fn ctrl_c_in_mine_stores_the_units_in_flight_or_says_what_is_lost() {
    let data = tempfile::tempdir().unwrap();
    let dir = data.path().to_str().unwrap();
    let args = [
        "mine",
        "--seeds",
        "1..8001",
        "--unit-size",
        "500",
        "--threads",
        "1",
        "--data",
        dir,
    ];
    let mut drained = 0;
    // Random moments, from a seed printed for a rerun (`RRM_SIGINT_SEED`).
    let seed: u64 = std::env::var("RRM_SIGINT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| std::process::id().into());
    eprintln!("SIGINT moments from RRM_SIGINT_SEED={seed}");
    let mut random = ricochet::mt::PyRandom::new(seed);
    let waits: Vec<u64> = (0..4)
        .map(|_| u64::from(random.randint(200, 1500)))
        .collect();
    for (round, wait) in waits.into_iter().enumerate() {
        let mut child = mine_with_stderr(&args);
        std::thread::sleep(Duration::from_millis(wait));
        let twice = round % 2 == 1;
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        if twice {
            std::thread::sleep(Duration::from_millis(150));
            unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        }
        let (code, stderr) = exit_and_stderr(&mut child);
        let status = stored_status(data.path(), "fogleman-1-8001");
        if code == Some(0) {
            break; // done before the signal
        }
        assert_eq!(code, Some(130), "{stderr}");
        assert_eq!(
            status.seeds_done,
            status.units_done * 500,
            "whole units only"
        );
        if twice && stderr.contains("stopped; ") {
            let lost: u64 = (stderr.split("stopped; ").nth(1).unwrap())
                .split(' ')
                .next()
                .unwrap()
                .replace(',', "")
                .parse()
                .unwrap();
            assert!(lost <= 2 * 500, "{lost} seeds lost: {stderr}");
            assert!(stderr.contains("will be mined again"), "{stderr}");
        } else {
            assert!(stderr.contains("every seed solved is stored"), "{stderr}");
            drained += 1;
        }
    }
    assert!(drained > 0, "no run drained");
    mines_to_direct_totals(&args, data.path(), "fogleman-1-8001", 1..8_001);
}

/// `rrm mine`'s own campaigns have units of 10,000 seeds, so the first Ctrl-C waits for
/// at most 20,000 seeds (a few seconds on two cores; 50,000-seed units made it up to a
/// unit's time, 13 s for two here). It says what it waits for, stores whole units, and the
/// run resumes to the direct solve's totals.
#[test]
fn ctrl_c_in_mine_waits_for_at_most_two_small_units() {
    let data = tempfile::tempdir().unwrap();
    let dir = data.path().to_str().unwrap();
    let args = [
        "mine",
        "--seeds",
        "1..40001",
        "--threads",
        "2",
        "--data",
        dir,
    ];
    let mut child = mine_with_stderr(&args);
    std::thread::sleep(Duration::from_millis(2500));
    let signalled = Instant::now();
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let (code, stderr) = exit_and_stderr(&mut child);
    let drained = signalled.elapsed();
    let status = stored_status(data.path(), "fogleman-1-40001");
    assert_eq!(status.campaign.spec.unit_size, 10_000);
    if code == Some(0) {
        eprintln!("done before the signal: nothing to drain");
        return;
    }
    assert_eq!(code, Some(130), "{stderr}");
    let left: u64 = (stderr.split("in flight (").nth(1).expect(&stderr))
        .split(' ')
        .next()
        .unwrap()
        .replace(',', "")
        .parse()
        .unwrap();
    eprintln!("Ctrl-C waited {drained:.1?} for {left} seeds");
    assert!(left <= 20_000, "{stderr}");
    assert!(stderr.contains("every seed solved is stored"), "{stderr}");
    assert_eq!(status.seeds_done, status.units_done * 10_000);
    mines_to_direct_totals(&args, data.path(), "fogleman-1-40001", 1..40_001);
}

/// At verify share 1 every unit is checked: those its producer's schedule picks are
/// solved in full by the coordinator, and the rest, drawn when the campaign's last unit
/// is done (the share is a floor), by the other worker. Checks are not counted again.
#[test]
fn a_share_of_units_is_checked_by_a_second_worker() {
    let server = Server::with_campaign(checking(1.0), spec("checked", 1..2_001, 250));
    let _workers: Vec<Process> = (0..2).map(|_| worker(&server.url, 1)).collect();
    wait_until(
        Duration::from_secs(300),
        "every unit is mined and checked",
        || status(&server.url, "checked").is_some_and(|s| is_done(&s) && s.units_to_check == 0),
    );
    let status = status(&server.url, "checked").unwrap();
    assert!(status.mismatches.is_empty());
    let id = server.coordinator.status("checked").unwrap().campaign.id;
    let records = server.coordinator.store().units(id).unwrap();
    let checked = (records.iter())
        .filter(|(_, record)| {
            matches!(&record.state, UnitState::Done { verification, .. }
                if !matches!(verification, rrm_model::Verification::NotChosen))
        })
        .count();
    assert_eq!(checked, 8, "every unit checked");
    assert_eq!(
        stats(&server.url, "checked").puzzles,
        2_000,
        "checks are not counted again"
    );
}
