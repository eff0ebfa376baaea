//! Adaptive replication of exhaustive units: a new identity's analyses are checked by
//! another identity until it is established, and an agreeing check is not taken on its
//! word when the checker may be the producer's colluder.

use super::exhaustive::{assert_stored_once, honest, request, submission};
use super::*;
use rrm_coordinator::{CoordinatorError, Rejection};
use rrm_model::{ExhaustiveResult, Outcome, DEFAULT_TOP_FROM};

/// Adaptive replication for exhaustive units: a new identity's analysis is always checked
/// by another identity (verify share 0, no record candidate: before, it was taken on its
/// word); once that check agreed, the identity has shown `trust_after` (1 here)
/// confirmed units, and its next analysis is taken on the secret draw alone.
#[test]
#[cfg_attr(
    rrm_fast_tests,
    ignore = "heavy: first-edition units (the full suite runs it)"
)]
fn a_new_identitys_exhaustive_units_are_checked_by_another_until_it_is_established() {
    use rrm_model::{UnitState, Verification};
    let honest = honest();
    let data = tempfile::tempdir().unwrap();
    let config = Config {
        verify_share: 0.0,
        verify_from_moves: u8::MAX,
        trust_after: 1,
        // The agreement is taken on the checker's word (no own analysis drawn).
        own_analysis_share: 0.0,
        ..Config::default()
    };
    let coordinator = Coordinator::open(Store::open(data.path()).unwrap(), config).unwrap();
    let verification = |name: &str| -> Verification {
        let id = coordinator.status(name).unwrap().campaign.id;
        match &coordinator.store().units(id).unwrap()[0].1.state {
            UnitState::Done { verification, .. } => verification.clone(),
            other => panic!("{other:?}"),
        }
    };
    let alice = in_process_worker(&coordinator, "alice");
    let bob = in_process_worker(&coordinator, "bob");
    coordinator
        .create_exhaustive_campaign(request("first"))
        .unwrap();
    let lease = coordinator.lease(&alice).unwrap().unwrap().lease;
    let accepted = coordinator
        .submit(submission(&alice, lease, honest))
        .unwrap();
    assert!(matches!(accepted, Outcome::Accepted), "{accepted:?}");
    assert_eq!(verification("first"), Verification::Pending);
    let check = coordinator.lease(&bob).unwrap().expect("the check").lease;
    let verified = coordinator.submit(submission(&bob, check, honest)).unwrap();
    assert!(matches!(verified, Outcome::Verified), "{verified:?}");
    assert_eq!(
        verification("first"),
        Verification::Agreed {
            by: bob.identity.clone()
        }
    );
    coordinator
        .create_exhaustive_campaign(request("second"))
        .unwrap();
    let lease = coordinator.lease(&alice).unwrap().unwrap().lease;
    assert_eq!(lease.campaign, "second");
    coordinator
        .submit(submission(&alice, lease, honest))
        .unwrap();
    assert_eq!(verification("second"), Verification::NotChosen);
}

/// The honest result with one placement of a middle depth claimed a move deeper, in the
/// histograms only: the lists, samples and totals a result is checked against are
/// unchanged, so only another analysis can tell.
fn one_deeper(honest: &ExhaustiveResult) -> ExhaustiveResult {
    let mut forged = honest.clone();
    let depth = (1..usize::from(DEFAULT_TOP_FROM) - 1)
        .find(|&d| {
            [d, d + 1]
                .iter()
                .all(|&at| honest.histogram[at] > 64 && honest.legal_histogram[at] > 64)
        })
        .expect("two full middle depths");
    for histogram in [&mut forged.histogram, &mut forged.legal_histogram] {
        histogram[depth] -= 1;
        histogram[depth + 1] += 1;
    }
    forged
}

/// Two colluding identities on an exhaustive campaign: alice, new, sends a forged
/// analysis ([`one_deeper`]), and bob, the only other identity and so the checker the
/// coordinator picks, agrees with it. That agreement used to confirm the forgery. The
/// coordinator now analyses a secret share of the agreeing checks itself (here all of
/// them): the forgery leaves the store, both are distrusted (2 of 2 colluders), and an
/// honest identity's analysis takes the unit's place.
#[test]
#[cfg_attr(
    rrm_fast_tests,
    ignore = "heavy: first-edition units (the full suite runs it)"
)]
fn a_colluding_checker_cannot_confirm_a_forged_analysis() {
    let honest = honest();
    let forged = one_deeper(honest);
    let data = tempfile::tempdir().unwrap();
    let config = Config {
        verify_share: 0.0,
        verify_from_moves: u8::MAX,
        trust_after: 1,
        own_analysis_share: 1.0,
        ..Config::default()
    };
    let coordinator = Coordinator::open(Store::open(data.path()).unwrap(), config).unwrap();
    let alice = in_process_worker(&coordinator, "alice");
    let bob = in_process_worker(&coordinator, "bob");
    coordinator
        .create_exhaustive_campaign(request("collude"))
        .unwrap();
    let lease = coordinator.lease(&alice).unwrap().unwrap().lease;
    let taken = coordinator.submit(submission(&alice, lease, &forged));
    assert!(matches!(taken, Ok(Outcome::Accepted)), "{taken:?}");
    let check = coordinator.lease(&bob).unwrap().expect("the check").lease;
    let agreed = coordinator.submit(submission(&bob, check, &forged));
    assert!(
        matches!(
            agreed,
            Err(CoordinatorError::Invalid(Rejection::OwnAnalysisDiffers))
        ),
        "{agreed:?}"
    );
    let mut distrusted: Vec<String> = (coordinator.distrusted().into_iter())
        .map(|d| d.identity)
        .collect();
    distrusted.sort();
    assert_eq!(distrusted, [alice.identity.clone(), bob.identity.clone()]);
    let carol = in_process_worker(&coordinator, "carol");
    let lease = coordinator.lease(&carol).unwrap().expect("the unit again");
    let taken = coordinator.submit(submission(&carol, lease.lease, honest));
    assert!(matches!(taken, Ok(Outcome::Accepted)), "{taken:?}");
    assert_stored_once(&coordinator, "collude", honest);
}
