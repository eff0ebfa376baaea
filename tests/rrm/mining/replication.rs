//! Adaptive replication against quiet forgers (one seed per unit raised by one, with a
//! matching digest): a new token's units are solved again in full until it has earned
//! trust, and once a forger is found, its colluder's agreeing check is not taken on its
//! word. Each ends with both forgers distrusted and an honest worker finishing the
//! campaign with a direct solve's totals.

use super::attacks::{distrusted, forged, honest_worker_finishes, one_seed_off, secured};
use super::security::{code, leased_and_solved, mining, register, with_token};
use super::*;

fn replicating(trust_after: u32, verify_share: f64) -> Config {
    Config {
        trust_after,
        verify_share,
        ..Config::default()
    }
}

/// With no unit checked by another token, a quiet forgery used to be caught only by
/// the few seeds spot-checked (75 % survived). A new token's first unit is now solved
/// in full.
#[test]
fn a_new_token_forging_at_once_is_refused_and_distrusted() {
    let seeds = 1..401;
    let (server, tokens) = secured(replicating(4, 0.0), spec("fresh", seeds.clone(), 20));
    let mallory = with_token("tok-mallory");
    block_on(async {
        let worker = register(&server.url, &mallory, "quiet").await.unwrap();
        let (unit, solved) = leased_and_solved(&server.url, &mallory, &worker).await;
        let quiet = forged(&unit, &solved, &worker, one_seed_off(&solved));
        let refused = mining(&server.url, &mallory).submit(quiet).await;
        assert_eq!(code(refused), Code::InvalidArgument);
    });
    assert_eq!(distrusted(&server), ["mallory"]);
    honest_worker_finishes(&server, &tokens, "fresh", seeds);
}

/// Two colluding tokens, patient: honest until trusted, then forging. When the first is
/// found out, its units go back to be checked; its colluder checking one used to agree
/// and clear it (445 of 521). Now the coordinator picks the checker among the tokens
/// registered (here the colluder is the only other one), and solves a unit in full
/// before an agreement with a distrusted producer counts: the colluder is found out too.
#[test]
fn a_colluder_cannot_clear_a_distrusted_forgers_units() {
    let seeds = 1..401;
    // No scheduled checks (a run far longer than the campaign) and no spot checks: the
    // forgeries are found only once mallory gives itself away.
    let config = Config {
        spot_checks: 0,
        ..replicating(1, 1e-6)
    };
    let (server, tokens) = secured(config, spec("collude", seeds.clone(), 20));
    let (mallory, mallory_2) = (with_token("tok-mallory"), with_token("tok-mallory-2"));
    let url = &server.url;
    block_on(async {
        let m1 = register(url, &mallory, "m1").await.unwrap();
        let m2 = register(url, &mallory_2, "m2").await.unwrap();
        // Each earns trust with one honest unit, solved in full by the coordinator.
        for (access, worker) in [(&mallory, &m1), (&mallory_2, &m2)] {
            let (unit, solved) = leased_and_solved(url, access, worker).await;
            let counts = solved.move_counts.clone();
            mining(url, access)
                .submit(forged(&unit, &solved, worker, counts))
                .await
                .unwrap();
        }
        // Then mallory forges two units, both taken on its word.
        for _ in 0..2 {
            let (unit, solved) = leased_and_solved(url, &mallory, &m1).await;
            let quiet = forged(&unit, &solved, &m1, one_seed_off(&solved));
            mining(url, &mallory).submit(quiet).await.unwrap();
        }
        // A third result claims every seed solved in no move: impossible, so mallory is
        // found out, and its two forgeries go back to be checked.
        let (unit, solved) = leased_and_solved(url, &mallory, &m1).await;
        let zeros = vec![0; solved.move_counts.len()];
        let refused = mining(url, &mallory)
            .submit(forged(&unit, &solved, &m1, zeros))
            .await;
        assert_eq!(code(refused), Code::InvalidArgument);
        assert_eq!(distrusted(&server), ["mallory"]);
        // mallory-2 first gets the unit mallory gave back (waiting units come first)...
        let (unit, solved) = leased_and_solved(url, &mallory_2, &m2).await;
        let counts = solved.move_counts.clone();
        (mining(url, &mallory_2)
            .submit(forged(&unit, &solved, &m2, counts))
            .await)
            .unwrap();
        // ... then, picked for the checks, agrees with a forgery.
        let (unit, solved) = leased_and_solved(url, &mallory_2, &m2).await;
        let agreeing = forged(&unit, &solved, &m2, one_seed_off(&solved));
        let refused = mining(url, &mallory_2).submit(agreeing).await;
        assert_eq!(code(refused), Code::InvalidArgument);
    });
    assert_eq!(distrusted(&server), ["mallory", "mallory-2"]);
    honest_worker_finishes(&server, &tokens, "collude", seeds);
}
