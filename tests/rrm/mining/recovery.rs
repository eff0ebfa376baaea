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
                let moves: Vec<String> = with_thread_solver(DEFAULT_MAX_MOVES, |s| {
                    s.solve(&puzzle)
                        .unwrap()
                        .moves
                        .iter()
                        .map(|m| m.notation())
                        .collect()
                });
                assert_eq!(check_solution(&puzzle.to_record(None), &moves), Ok(()));
                moves.len() as u8
            })
            .collect();
        counts[3] = rrm_model::UNSOLVED;
        let robots = vec![1; 10];
        let record = UnitRecord {
            state: UnitState::Done {
                digest: rrm_model::unit_digest("old", seeds.clone(), &counts, &robots),
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
    // What the rebuild must give, from Fogleman's published counts of the nine seeds
    // stored as solved (seed 4 was stored unsolved), not from this coordinator.
    let published: Vec<_> = crate::generator::seed_records()
        .into_iter()
        .filter(|r| seeds.contains(&r.seed) && r.seed != 4)
        .collect();
    assert_eq!(published.len(), 9);
    let mut histogram = vec![0u64; published.iter().map(|r| r.moves).max().unwrap() + 1];
    let mut by_target = std::collections::BTreeMap::<String, (u64, u8)>::new();
    for record in &published {
        histogram[record.moves] += 1;
        let group = by_target.entry(record.token.clone()).or_default();
        group.0 += 1;
        group.1 = group.1.max(record.moves as u8);
    }
    let trimmed = |h: &[u64]| h[..h.iter().rposition(|&n| n > 0).map_or(0, |i| i + 1)].to_vec();
    assert_eq!(trimmed(&aggregates.histogram), histogram);
    let rebuilt: std::collections::BTreeMap<String, (u64, u8)> = aggregates
        .by_target
        .iter()
        .map(|(token, group)| (token.clone(), (group.puzzles, group.max_moves)))
        .collect();
    assert_eq!(rebuilt, by_target);
    assert_eq!(
        trimmed(&aggregates.by_robots_moved),
        [0, 9],
        "one robot each, as stored"
    );
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
        usize::from(coordinator.status("old").unwrap().hardest_moves),
        histogram.len() - 1
    );
}
