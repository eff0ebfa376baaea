//! Query replies: a campaign's statistics (exact ones for exhaustive campaigns) and its
//! mined puzzles.

use super::{moves_u8, WireError};
use crate::v1 as pb;
use rrm_model::{Aggregates, CampaignStats, Distribution, ExactStats, Group, MinedPuzzle};
use std::collections::BTreeMap;

impl From<CampaignStats> for pb::Stats {
    fn from(stats: CampaignStats) -> pb::Stats {
        let groups = |groups: BTreeMap<String, Group>| {
            groups
                .into_iter()
                .map(|(group, g)| pb::GroupStats {
                    group,
                    puzzles: g.puzzles,
                    total_moves: g.total_moves,
                    max_moves: g.max_moves.into(),
                    histogram: g.histogram,
                })
                .collect()
        };
        let distributions = |groups: BTreeMap<String, Distribution>| {
            groups
                .into_iter()
                .map(|(group, d)| distribution_message(group, d))
                .collect()
        };
        let aggregates = stats.aggregates;
        let mut message = pb::Stats {
            campaign: stats.campaign,
            puzzles: aggregates.puzzles(),
            histogram: aggregates.histogram,
            by_target: groups(aggregates.by_target),
            by_arrangement: groups(aggregates.by_arrangement),
            by_robots_moved: aggregates.by_robots_moved,
            ..pb::Stats::default()
        };
        if let Some(exact) = stats.exhaustive {
            let overall = exact.overall;
            message.exhaustive = true;
            message.units = overall.units;
            message.legal_histogram = overall.legal_histogram;
            message.unsolvable = overall.unsolvable;
            message.exact_by_target = distributions(exact.by_target);
            message.exact_by_board = distributions(exact.by_board);
        }
        message
    }
}

fn distribution_message(group: String, d: Distribution) -> pb::Distribution {
    pb::Distribution {
        group,
        units: d.units,
        histogram: d.histogram,
        legal_histogram: d.legal_histogram,
        unsolvable: d.unsolvable,
    }
}

fn distribution(d: pb::Distribution) -> (String, Distribution) {
    let distribution = Distribution {
        units: d.units,
        histogram: d.histogram,
        legal_histogram: d.legal_histogram,
        unsolvable: d.unsolvable,
    };
    (d.group, distribution)
}

/// Statistics from the wire; `through_commit` is the coordinator's own and reads 0. The
/// overall exact histogram is the aggregates' one.
impl TryFrom<pb::Stats> for CampaignStats {
    type Error = WireError;

    fn try_from(stats: pb::Stats) -> Result<CampaignStats, WireError> {
        let groups = |groups: Vec<pb::GroupStats>| {
            groups
                .into_iter()
                .map(|g| {
                    let group = Group {
                        puzzles: g.puzzles,
                        total_moves: g.total_moves,
                        max_moves: moves_u8(g.max_moves, "group maximum moves")?,
                        histogram: g.histogram,
                    };
                    Ok((g.group, group))
                })
                .collect::<Result<BTreeMap<_, _>, WireError>>()
        };
        let exhaustive = stats.exhaustive.then(|| ExactStats {
            overall: Distribution {
                units: stats.units,
                histogram: stats.histogram.clone(),
                legal_histogram: stats.legal_histogram,
                unsolvable: stats.unsolvable,
            },
            by_target: stats
                .exact_by_target
                .into_iter()
                .map(distribution)
                .collect(),
            by_board: stats.exact_by_board.into_iter().map(distribution).collect(),
        });
        Ok(CampaignStats {
            campaign: stats.campaign,
            aggregates: Aggregates {
                through_commit: 0,
                histogram: stats.histogram,
                by_target: groups(stats.by_target)?,
                by_arrangement: groups(stats.by_arrangement)?,
                by_robots_moved: stats.by_robots_moved,
            },
            exhaustive,
        })
    }
}

impl From<MinedPuzzle> for pb::MinedPuzzle {
    fn from(puzzle: MinedPuzzle) -> pb::MinedPuzzle {
        pb::MinedPuzzle {
            campaign: puzzle.campaign,
            seed: puzzle.seed,
            moves: puzzle.moves.into(),
            solution: puzzle.solution,
            re_solved: puzzle.re_solved,
        }
    }
}

impl TryFrom<pb::MinedPuzzle> for MinedPuzzle {
    type Error = WireError;

    fn try_from(puzzle: pb::MinedPuzzle) -> Result<MinedPuzzle, WireError> {
        Ok(MinedPuzzle {
            campaign: puzzle.campaign,
            seed: puzzle.seed,
            moves: moves_u8(puzzle.moves, "moves")?,
            solution: puzzle.solution,
            re_solved: puzzle.re_solved,
        })
    }
}
