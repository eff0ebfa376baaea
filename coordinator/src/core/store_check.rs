//! `rrm store verify`: a store checked against itself, without serving it. Every result
//! block against its unit's digest, every done unit against the commit log and back,
//! every kept solution replayed on its puzzle in its unit's count, and the saved statistics (with the
//! commits after them, as opening replays them) against a count of every result.

use super::recovery::add_unit;
use super::Result;
use ricochet::{Dealer, Generator};
use rrm_model::{Aggregates, UnitState};
use rrm_store::Store;
use std::collections::HashMap;

/// What verifying a store found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VerifyReport {
    pub campaigns: u64,
    pub units_done: u64,
    pub seeds_counted: u64,
    pub commits: u64,
    /// One line per problem; none for a sound store.
    pub problems: Vec<String>,
}

/// Checks every campaign of `store` (see the module doc); `on_unit` is called once per
/// unit record, for progress.
pub fn verify_store(store: &Store, on_unit: &mut dyn FnMut()) -> Result<VerifyReport> {
    let mut report = VerifyReport::default();
    let commits = store.commits_after(0)?;
    report.commits = commits.len() as u64;
    let mut logged: HashMap<(u32, u64), u64> = HashMap::new();
    for &(commit, campaign, unit) in &commits {
        if let Some(earlier) = logged.insert((campaign, unit), commit) {
            report.problems.push(format!(
                "campaign {campaign} unit {unit} is in the commit log twice ({earlier}, {commit})"
            ));
        }
    }
    for campaign in store.campaigns()? {
        report.campaigns += 1;
        let id = campaign.id;
        let name = &campaign.spec.name;
        // Seed campaigns have a generator; exhaustive ones their analyses by unit.
        let (dealer, analysed) = match store.exhaustive_spec(id)? {
            Some(_) => (None, store.exhaustive_results(id)?.into_iter().collect()),
            None => (
                Some(Dealer {
                    generator: campaign.spec.generator.parse::<Generator>()?,
                    rules: campaign.spec.rules,
                }),
                HashMap::new(),
            ),
        };
        let mut counted = Aggregates::default();
        let mut done = std::collections::HashSet::new();
        for (unit, record) in store.units(id)? {
            on_unit();
            let UnitState::Done { digest, commit, .. } = &record.state else {
                continue;
            };
            report.units_done += 1;
            done.insert(unit);
            let mut problem = |what: String| {
                report
                    .problems
                    .push(format!("campaign {name} unit {unit}: {what}"))
            };
            match logged.get(&(id, unit)) {
                Some(logged) if logged == commit => {}
                Some(logged) => problem(format!("done at commit {commit}, logged at {logged}")),
                None => problem(format!(
                    "done at commit {commit}, missing from the commit log"
                )),
            }
            match dealer {
                Some(dealer) => {
                    let Some((counts, robots)) = store.unit_results(id, unit)? else {
                        problem("done, but its result block is missing".into());
                        continue;
                    };
                    let seeds = campaign.spec.unit_seeds(unit);
                    let found = rrm_model::unit_digest(name, seeds.clone(), &counts, &robots);
                    if found != *digest {
                        problem("its result block does not match its digest".into());
                    }
                    for (seed, &moves) in seeds.clone().zip(&counts) {
                        if let Some(entry) = store.hard_entry(id, moves, seed)? {
                            if !solves(dealer, seed, moves, &entry.solution) {
                                problem(format!(
                                    "seed {seed}'s kept solution does not solve it in {moves} moves"
                                ));
                            }
                        }
                    }
                    report.seeds_counted += counts.len() as u64;
                    add_unit(&mut counted, dealer.generator, seeds, &counts, &robots);
                }
                None => {
                    if !analysed.contains_key(&unit) {
                        problem("done, but its analysis is missing".into());
                    }
                }
            }
        }
        for (&(campaign_id, unit), commit) in &logged {
            if campaign_id == id && !done.contains(&unit) {
                report.problems.push(format!(
                    "campaign {name}: commit {commit} names unit {unit}, which is not done"
                ));
            }
        }
        if let Some(dealer) = dealer {
            let mut saved = store.aggregates(id)?.unwrap_or_default();
            for &(commit, campaign_id, unit) in &commits {
                if campaign_id == id && commit > saved.through_commit {
                    if let Some((counts, robots)) = store.unit_results(id, unit)? {
                        let seeds = campaign.spec.unit_seeds(unit);
                        add_unit(&mut saved, dealer.generator, seeds, &counts, &robots);
                    }
                }
            }
            saved.through_commit = 0;
            if saved != counted {
                report.problems.push(format!(
                    "campaign {name}: the saved statistics count {} puzzles, the results {}",
                    saved.puzzles(),
                    counted.puzzles()
                ));
            }
        }
    }
    Ok(report)
}

/// Whether `solution` solves seed `seed` in exactly `moves` moves, under the campaign's
/// rules (for a Ricocheckers seed: wins in `moves`).
fn solves(dealer: Dealer, seed: u64, moves: u8, solution: &[String]) -> bool {
    (dealer.deal(seed).ok())
        .and_then(|dealt| dealer.replay(&dealt, solution).ok())
        .is_some_and(|shown| shown.moves == moves)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ricochet::solver::with_thread_solver;
    use ricochet::Move;
    use rrm_model::{CampaignSpec, HardEntry, UnitRecord, Verification};
    use rrm_store::UnitResult;

    /// A store holding seeds 1..11 of Fogleman's generator as one unit, solved here,
    /// whose hardest seed keeps `kept(its optimal solution)`.
    fn store_keeping(dir: &std::path::Path, kept: impl Fn(&[Move]) -> Vec<Move>) -> Store {
        let store = Store::open(dir).unwrap();
        let spec = CampaignSpec {
            name: "kept".parse().unwrap(),
            generator: "fogleman".into(),
            seed_start: 1,
            seed_end: 11,
            unit_size: 10,
            record_threshold: 30,
            rules: rrm_model::Rules::STANDARD,
        };
        let id = store.create_campaign(spec, 0).unwrap().id;
        let generator: Generator = "fogleman".parse().unwrap();
        let solutions: Vec<Vec<Move>> = (1..11)
            .map(|seed| {
                let puzzle = generator.generate(seed).unwrap().puzzle;
                with_thread_solver(30, |solver| solver.solve(&puzzle))
                    .unwrap()
                    .moves
            })
            .collect();
        let counts: Vec<u8> = solutions.iter().map(|s| s.len() as u8).collect();
        let robots: Vec<u8> = solutions
            .iter()
            .map(|s| ricochet::puzzle::robots_moved(s) as u8)
            .collect();
        let hardest = (0..10).max_by_key(|&i| counts[i]).unwrap();
        let entry = HardEntry {
            seed: hardest as u64 + 1,
            moves: counts[hardest],
            solution: kept(&solutions[hardest])
                .iter()
                .map(Move::notation)
                .collect(),
            re_solved: false,
        };
        let record = UnitRecord {
            state: UnitState::Done {
                digest: rrm_model::unit_digest("kept", 1..11, &counts, &robots),
                producer: "alice".into(),
                commit: 1,
                verification: Verification::NotChosen,
            },
            leases_issued: 1,
            failed_by: Vec::new(),
            last_error: None,
        };
        store
            .commit_result(&UnitResult {
                campaign: id,
                unit: 0,
                record: &record,
                move_counts: &counts,
                robots_moved: &robots,
                hardest: &[entry],
                commit: 1,
            })
            .unwrap();
        store
    }

    fn problems(kept: impl Fn(&[Move]) -> Vec<Move>) -> Vec<String> {
        let dir = tempfile::tempdir().unwrap();
        let store = store_keeping(dir.path(), kept);
        verify_store(&store, &mut || {}).unwrap().problems
    }

    #[test]
    fn every_kept_solution_is_replayed() {
        assert_eq!(problems(<[Move]>::to_vec), Vec::<String>::new());
        // One move too many (the last again), and the right length in the wrong order.
        let padded = |moves: &[Move]| [moves, &moves[moves.len() - 1..]].concat();
        let reversed = |moves: &[Move]| moves.iter().rev().copied().collect();
        for found in [problems(padded), problems(reversed)] {
            assert_eq!(found.len(), 1, "{found:?}");
            assert!(
                found[0].contains("kept solution does not solve it"),
                "{found:?}"
            );
        }
    }
}
