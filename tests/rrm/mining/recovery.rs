//! A coordinator coming back to a store: statistics from older rules are rebuilt, and an
//! unsolved seed is never reported as a puzzle.

use super::*;
use rrm_model::{Aggregates, UnitRecord, Verification};
use rrm_store::UnitResult;

/// Stores written before unsolved seeds were left out of the statistics saved them with
/// a 255-move bin; opening such a store rebuilds them from the commit log.
#[test]
fn saved_statistics_counting_unsolved_seeds_are_rebuilt() {
    let data = tempfile::tempdir().unwrap();
    let seeds = 1..11;
    {
        let store = Store::open(data.path()).unwrap();
        let campaign = store
            .create_campaign(spec("old", seeds.clone(), 10), 0)
            .unwrap();
        let mut counts: Vec<u8> = seeds
            .clone()
            .map(|seed| {
                let puzzle = Generator::Fogleman.generate(seed).unwrap().puzzle;
                with_thread_solver(DEFAULT_MAX_MOVES, |s| {
                    s.solve(&puzzle).unwrap().moves.len() as u8
                })
            })
            .collect();
        counts[3] = rrm_proto::UNSOLVED;
        let robots = vec![1; 10];
        let record = UnitRecord {
            state: UnitState::Done {
                digest: rrm_proto::unit_digest("old", seeds.clone(), &counts, &robots),
                producer: "old".into(),
                commit: 1,
                verification: Verification::NotChosen,
            },
            leases_issued: 1,
            failed_by: Vec::new(),
            last_error: None,
        };
        store
            .commit_result(&UnitResult {
                campaign: campaign.id,
                unit: 0,
                record: &record,
                move_counts: &counts,
                robots_moved: &robots,
                hardest: &[],
                commit: 1,
            })
            .unwrap();
        // What the old rule saved: every count, the unsolved one included.
        let mut old = Aggregates {
            through_commit: 1,
            ..Aggregates::default()
        };
        for &count in &counts {
            old.add(count, 1, "old rule", "old rule");
        }
        store.save_aggregates(campaign.id, &old).unwrap();
        store.flush_blocking().unwrap();
    }
    let coordinator =
        Coordinator::open(Store::open(data.path()).unwrap(), Config::default()).unwrap();
    let aggregates = coordinator.aggregates("old").unwrap();
    assert_eq!(aggregates.puzzles(), 9);
    assert!(
        aggregates.histogram.len() < 255,
        "{:?}",
        aggregates.histogram
    );
    assert!(
        !aggregates.by_target.contains_key("old rule"),
        "rebuilt from the generator's groups"
    );
    assert_eq!(
        coordinator.status("old").unwrap().hardest_moves,
        aggregates.max_moves()
    );
}
