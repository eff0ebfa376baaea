//! `rrm mine`'s own worker: the one token its port admits, made in memory, and the
//! results of its holder, counted without solving its seeds a second time.

use super::security::{code, create, register, with_token};
use super::*;
use rrm_coordinator::auth::Keyring;
use rrm_coordinator::Security;
use rrm_proto::access::ClientAccess;

/// `rrm mine`'s keyring ([`Keyring::own_worker`]): one worker token, made in memory for
/// the worker of its own process, whose seeds the coordinator therefore does not solve a
/// second time. Every other caller on the port is refused, whatever it presents (nothing,
/// a guess, another process's own token, the token one character off), on `Mining` and
/// `Campaigns` alike; the holder's results are counted exactly, its kept puzzles shown
/// without being solved again below the record threshold, each one still optimal.
#[test]
fn the_own_worker_token_admits_no_other_process() {
    let (keyring, token) = Keyring::own_worker("embedded").unwrap();
    let config = Config {
        verify_share: 0.0,
        trust_after: 0,
        ..Config::default()
    };
    let seeds = 1..401;
    let security = Security { keyring, tls: None };
    let server = Server::with_campaign_secured(config, security, spec("own", seeds.clone(), 100));
    let url = server.url.clone();
    let (_, another_process) = Keyring::own_worker("embedded").unwrap();
    let intruders = [
        ClientAccess::default(),
        with_token("rrm_guessed"),
        with_token(&another_process),
        with_token(&token[..token.len() - 1]),
        with_token(&format!("{token}0")),
    ];
    let refused = block_on(async {
        let mut refused = 0;
        for access in &intruders {
            let registering = register(&url, access, "intruder").await;
            let creating = create(&url, access, spec("intruder", 1..11, 10)).await;
            refused += usize::from(code(registering) == Code::Unauthenticated);
            refused += usize::from(code(creating) == Code::Unauthenticated);
        }
        refused
    });
    assert_eq!(refused, 2 * intruders.len(), "every intruding call refused");

    let dir = tempfile::tempdir().unwrap();
    let token_file = dir.path().join("own.token");
    std::fs::write(&token_file, &token).unwrap();
    let mut own = rrm_process(&[
        "worker",
        "--coordinator",
        &url,
        "--threads",
        "2",
        "--token-file",
        token_file.to_str().unwrap(),
        "--exit-when-done",
    ]);
    assert!(own.exit_within(Duration::from_secs(240)).success());
    let status = server.coordinator.status("own").unwrap();
    assert_eq!(status.units_done, status.units_total);
    assert_eq!(stats(&url, "own").histogram, direct_histogram(seeds));
    let shown = server.coordinator.hardest("own", 100, 0).unwrap();
    assert_eq!(shown.len(), 4 * 5, "five kept puzzles a unit of 100 seeds");
    for mined in &shown {
        assert!(!mined.re_solved, "seed {} was solved twice", mined.seed);
        let puzzle = Generator::Fogleman.generate(mined.seed).unwrap().puzzle;
        let optimum = with_thread_solver(DEFAULT_MAX_MOVES, |solver| solver.solve(&puzzle))
            .unwrap()
            .moves
            .len();
        assert_eq!(usize::from(mined.moves), optimum, "seed {}", mined.seed);
        assert_eq!(mined.solution.len(), optimum);
        assert_eq!(
            check_solution(&puzzle.to_record(None), &mined.solution),
            Ok(())
        );
    }
}
