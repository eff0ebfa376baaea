//! Choosing a pack's puzzles from the candidates, hardest first: the filters that pass
//! one over, each puzzle solved again and measured, and when to give up early.

use super::{Candidate, Chosen, Origin, PackArgs};
use crate::commands::show::SOLUTION_COUNT_CAP;
use crate::output::progress::Notes;
use anyhow::{bail, Context, Result};
use ricochet::metrics::{metrics_under, Counting};
use ricochet::Generator;
use rrm_model::numbers::thousands;
use rrm_model::{MinedPlacement, PlacementCells, Rules};
use std::collections::HashSet;

/// The candidates a pack passed over, by the filter that refused each.
#[derive(Default)]
pub(super) struct PassedOver {
    same_board: usize,
    /// A placement like one chosen (see [`similar`]).
    similar: usize,
    /// A placement that looks arranged (see [`looks_natural`]).
    unnatural: usize,
    few_robots: usize,
    not_unique: usize,
    /// Uniqueness not decided: counting the optimal solutions passed its bound.
    undecided: usize,
    /// Set when the pack stopped before the candidates ran out.
    pub(super) gave_up: Option<GaveUp>,
}

impl PassedOver {
    /// "3 not unique, 2 undecided (counting stopped at its bound), …", or "none refused".
    pub(super) fn text(&self) -> String {
        let parts: Vec<String> = [
            (self.same_board, "on a board already chosen"),
            (
                self.similar,
                "like one chosen (same target and placement, one tile apart)",
            ),
            (self.unnatural, "arranged-looking (--natural)"),
            (self.few_robots, "moving too few robots"),
            (self.not_unique, "not unique"),
            (
                self.undecided,
                "undecided: counting their solutions stopped at its bound",
            ),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, why)| format!("{n} {why}"))
        .collect();
        match parts.is_empty() {
            true => "none refused".into(),
            false => parts.join(", "),
        }
    }
}

/// Whether two placements make the same puzzle to a player: the same target and the same
/// cells on boards that differ in one tile at most (the far tiles rarely matter). A pack
/// holds one of each such family.
fn similar(one: &MinedPlacement, other: &MinedPlacement) -> bool {
    let tiles = |board: &str| -> Vec<String> {
        board
            .split_whitespace()
            .filter(|t| *t != "DD")
            .map(String::from)
            .collect()
    };
    let (a, b) = (tiles(&one.board), tiles(&other.board));
    let differing = a.iter().zip(&b).filter(|(x, y)| x != y).count() + a.len().abs_diff(b.len());
    one.token == other.token && one.placement == other.placement && differing <= 1
}

/// Whether a placement looks dealt rather than arranged: no two robots in the same 2×2
/// corner of the board, and the three helpers not one cluster of robots side by side
/// (each next to another, all connected). Cells are `y * 16 + x`.
fn looks_natural(placement: &PlacementCells) -> bool {
    let at = |cell: u8| (i32::from(cell % 16), i32::from(cell / 16));
    let corner = |cell: u8| {
        let (x, y) = at(cell);
        let side = |v: i32| match v {
            0 | 1 => Some(0),
            14 | 15 => Some(1),
            _ => None,
        };
        side(x).zip(side(y))
    };
    let corners: Vec<_> = placement.iter().filter_map(|&c| corner(c)).collect();
    let stacked = (1..corners.len()).any(|i| corners[..i].contains(&corners[i]));
    let next_to = |a: u8, b: u8| {
        let ((ax, ay), (bx, by)) = (at(a), at(b));
        (ax - bx).abs() + (ay - by).abs() == 1
    };
    let [_, h1, h2, h3] = *placement;
    // Three cells are one connected cluster when at least two of their pairs touch.
    let touching = [(h1, h2), (h1, h3), (h2, h3)]
        .iter()
        .filter(|&&(a, b)| next_to(a, b))
        .count();
    !stacked && touching < 2
}

/// Candidates looked at before the pack projects its cost and may give up.
const LOOK_BEFORE_PROJECTING: usize = 10;

/// Why a pack stopped before its candidates ran out.
#[derive(Clone, Copy)]
pub(super) enum GaveUp {
    /// Fewer candidates are left than still needed; or, where the rest would take over
    /// a minute, even at the rate of choosing seen so far, raised as if three more of
    /// those looked at had been chosen (the rule of three: a 95 % upper bound when none
    /// was), they give fewer than needed.
    CannotFill { looked: usize },
    /// Nine in ten of the candidates counted so far could not be decided unique: the
    /// rest would mostly be solved for nothing, and only a larger count bound helps.
    Undecided { looked: usize },
}

impl GaveUp {
    /// Whether to stop after `looked` candidates, `left` more taking `each` seconds.
    fn check(
        chosen: usize,
        passed_over: &PassedOver,
        (looked, left, each): (usize, usize, f64),
        count: usize,
    ) -> Option<GaveUp> {
        if looked < LOOK_BEFORE_PROJECTING {
            return None;
        }
        let needed = count.saturating_sub(chosen);
        let counted = chosen + passed_over.not_unique + passed_over.undecided;
        if counted >= LOOK_BEFORE_PROJECTING / 2 && passed_over.undecided * 10 >= counted * 9 {
            return Some(GaveUp::Undecided { looked });
        }
        let unlikely = each * left as f64 > 60.0
            && ((chosen + 3) as f64 / looked as f64 * left as f64) < needed as f64;
        (left < needed || unlikely).then_some(GaveUp::CannotFill { looked })
    }
}

pub(super) fn choose(
    args: &PackArgs,
    generator: Option<Generator>,
    rules: Rules,
    candidates: Vec<Candidate>,
) -> Result<(Vec<Chosen>, PassedOver)> {
    let total = candidates.len();
    let counting = Counting {
        cap: if args.unique { 2 } else { SOLUTION_COUNT_CAP },
        states: args.count_states,
    };
    if args.unique {
        eprintln!(
            "rrm pack: --unique counts each candidate's optimal solutions over at most {} \
             states (--count-states); past that a candidate is passed over as undecided",
            thousands(counting.states as u64)
        );
    }
    let bar = crate::output::progress::bar_with_message(total as u64, "candidates");
    let mut notes = Notes::new(&bar, "rrm pack", std::time::Duration::from_secs(60));
    let started = std::time::Instant::now();
    let mut boards = HashSet::new();
    let mut chosen = Vec::new();
    let mut passed_over = PassedOver::default();
    for (rank, Candidate { origin, moves }) in candidates.into_iter().enumerate() {
        if chosen.len() == args.count {
            break;
        }
        let left = total - rank;
        let each = started.elapsed().as_secs_f64() / rank.max(1) as f64;
        // Said once, and only where the rest could take more than a minute.
        if rank == LOOK_BEFORE_PROJECTING && each * left as f64 > 60.0 {
            notes.line(format!(
                "{} of the first {rank} candidates chosen ({}); at {each:.1} s a candidate \
                 the other {} take up to {}",
                chosen.len(),
                passed_over.text(),
                thousands(left as u64),
                crate::output::progress::short_duration((each * left as f64).round() as u64)
            ));
        }
        if let Some(gave_up) =
            GaveUp::check(chosen.len(), &passed_over, (rank, left, each), args.count)
        {
            passed_over.gave_up = Some(gave_up);
            break;
        }
        bar.set_message(format!(
            "{}/{} chosen; passed over: {}",
            chosen.len(),
            args.count,
            passed_over.text()
        ));
        notes.now_and_then(|| {
            format!(
                "{} of {} candidates looked at, {}/{} chosen; passed over: {}",
                thousands(rank as u64),
                thousands(total as u64),
                chosen.len(),
                args.count,
                passed_over.text()
            )
        });
        bar.inc(1);
        if let Origin::Placement(mined) = &origin {
            if args.natural && !looks_natural(&mined.placement) {
                passed_over.unnatural += 1;
                continue;
            }
            if chosen.iter().any(|c: &Chosen| match &c.origin {
                Origin::Placement(other) => similar(mined, other),
                Origin::Seed(_) => false,
            }) {
                passed_over.similar += 1;
                continue;
            }
        }
        let (puzzle, token, board) = origin.draw(generator)?;
        if args.distinct_boards && boards.contains(&board) {
            passed_over.same_board += 1;
            continue;
        }
        // Every puzzle is solved again: the store's move count must be the optimum.
        let label = origin.label();
        let solution = ricochet::rules::solve_on_thread(&puzzle, rules, moves)
            .with_context(|| format!("{label} has no solution"))?
            .moves;
        if solution.len() != usize::from(moves) {
            bail!(
                "{label}: the store says {moves} moves, the solver finds {}",
                solution.len()
            );
        }
        if ricochet::puzzle::robots_moved(&solution) < args.min_robots {
            passed_over.few_robots += 1;
            continue;
        }
        let measured = metrics_under(&puzzle, &solution, counting, rules);
        match measured.optimal_solutions {
            _ if !args.unique => {}
            Some(1) => {}
            Some(_) => {
                passed_over.not_unique += 1;
                continue;
            }
            None => {
                passed_over.undecided += 1;
                continue;
            }
        }
        boards.insert(board.clone());
        chosen.push(Chosen {
            origin,
            puzzle,
            token,
            board,
            solution,
            metrics: measured,
            rank,
        });
    }
    bar.finish_and_clear();
    // Easiest first, like a puzzle book.
    chosen.sort_by_key(|c| (c.solution.len(), c.rank));
    Ok((chosen, passed_over))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placement(board: &str, token: &str, cells: PlacementCells) -> MinedPlacement {
        MinedPlacement {
            campaign: "census".into(),
            unit: 0,
            board: board.into(),
            token: token.into(),
            target_cell: 0,
            placement: cells,
            moves: 20,
            solution: Vec::new(),
        }
    }

    /// The similarity rule: same target and cells, boards at most one tile apart.
    #[test]
    fn placements_one_tile_apart_are_similar() {
        let cells = [57, 17, 40, 200];
        let base = placement("1A 3B 4A 2B", "RT", cells);
        assert!(similar(&base, &placement("1A 3B 4A 2A", "RT", cells)));
        assert!(!similar(&base, &placement("1B 3B 4A 2A", "RT", cells)));
        assert!(!similar(&base, &placement("1A 3B 4A 2A", "GT", cells)));
        assert!(!similar(
            &base,
            &placement("1A 3B 4A 2B", "RT", [57, 17, 40, 201])
        ));
        let dd = placement("DD 1C 2D 3C 4D", "RT", cells);
        assert!(similar(&dd, &placement("DD 1C 2D 3C 4C", "RT", cells)));
        assert!(!similar(&dd, &placement("DD 1D 2D 3C 4C", "RT", cells)));
    }

    /// The `--natural` rule: no two robots in one 2×2 corner, helpers not one cluster.
    #[test]
    fn arranged_looking_placements_are_told_apart() {
        // Helpers stacked in the top-left corner (the census pack's complaint).
        assert!(!looks_natural(&[57, 0, 1, 16]));
        // The target robot and one helper in the bottom-right corner.
        assert!(!looks_natural(&[255, 40, 100, 238]));
        // Three helpers side by side in an L.
        assert!(!looks_natural(&[50, 100, 101, 117]));
        // One pair side by side, one corner robot: natural.
        assert!(looks_natural(&[50, 100, 101, 200]));
        assert!(looks_natural(&[50, 0, 100, 200]));
    }
}
