//! Exhaustive analysis under rules that restrict moves (no rebounds, the ricochet rules).
//! A position's future then depends on each robot's last line and on whether the finisher
//! has turned, so the bitset sweep, whose state is the cells alone, does not apply. This
//! engine is for small units: it enumerates every state reachable from the placements
//! (played by [`crate::rules`]' own mover), then runs a BFS backwards over the explicit
//! move graph from the finishing moves, which gives every placement its exact optimum or
//! proves it unsolvable. It reports the same [`Analysis`] as [`super::analyse`], lists in
//! the same (helper set rank, cell) order, so under today's rule the two agree exactly.

use super::{
    analysed_cells, even_picks, sample_placements, Analysis, Finisher, Layer, Options, Placement,
    UnitError,
};
use crate::board::{Board, Direction};
use crate::puzzle::{Move, Puzzle, Target};
use crate::rules::{KeyHasher, Mover, Play, Rules, State};
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::ops::ControlFlow;

/// The most states (robot cells, last lines, turns) the engine enumerates, about 2.5 GB
/// with the move graph; a larger unit is refused with [`UnitError::TooManyStates`].
pub const STATE_LIMIT: usize = 20_000_000;

/// A placement's start: its state index, or none when the placement is not a position
/// (a robot cannot be placed there).
struct Start {
    placement: Placement,
    state: u32,
}

/// Every state reachable from the starts and, for each, the states with a move into it.
struct Graph {
    /// `finishing[s]`: some move from state `s` finishes.
    finishing: Vec<bool>,
    /// Reverse edges in compressed rows: the predecessors of `s` are
    /// `from[first[s]..first[s + 1]]`.
    first: Vec<u32>,
    from: Vec<u32>,
}

/// Analyses every placement of a unit (as [`super::analyse`]) under `rules`' move rules
/// (their minimum is the caller's: it refuses placements, it does not change counts).
pub fn analyse_restricted(
    board: &Board,
    target: Target,
    helpers: usize,
    rules: Rules,
    options: &Options,
    mut on_layer: impl FnMut(&Layer) -> ControlFlow<()>,
) -> Result<Analysis, UnitError> {
    let cells = analysed_cells(board, target, helpers)?;
    let finisher = Finisher::of(&target);
    // Every placement is a state of its own: a unit with more is refused at once.
    if cells.placements(helpers, finisher) > STATE_LIMIT as u64 {
        return Err(UnitError::TooManyStates(STATE_LIMIT));
    }
    let slot = target.colour.map_or(0, |colour| colour.robot());
    // Placements in (helper set rank, cell) order, each set once when any robot finishes.
    let mut placements = Vec::new();
    for set in cells.sets(helpers) {
        let group = &set[..helpers];
        for &cell in &cells.free {
            let reported = match finisher {
                Finisher::TargetRobot => !group.contains(&cell),
                Finisher::AnyRobot => cell < group[0],
            };
            if reported {
                placements.push(Placement {
                    target_robot: cell,
                    helpers: group.to_vec(),
                });
            }
        }
    }
    let (graph, starts) = explore(board, target, slot, rules, &placements)?;
    let depth = backwards(&graph, &starts, placements.len() as u64, &mut on_layer)?;
    collect(board, target, helpers, options, &starts, &depth)
}

/// Enumerates the states reachable from every placement, breadth first, with their moves.
fn explore(
    board: &Board,
    target: Target,
    slot: usize,
    rules: Rules,
    placements: &[Placement],
) -> Result<(Graph, Vec<Start>), UnitError> {
    let mut index: HashMap<u64, u32, BuildHasherDefault<KeyHasher>> = HashMap::default();
    // Each state with the mover of the start it was reached from (the ricochet duties
    // come from the start; they are part of the key).
    let mut states: Vec<(State, u32)> = Vec::new();
    let mut puzzles: Vec<Puzzle> = Vec::new();
    let mut mover_of_duties: [Option<u32>; 4] = [None; 4];
    let mut edges: Vec<(u32, u32)> = Vec::new();
    let mut finishing = Vec::new();
    let mut starts = Vec::with_capacity(placements.len());
    let mut intern = |state: State, key: u64, mover: u32, states: &mut Vec<(State, u32)>| {
        let next = states.len() as u32;
        let id = *index.entry(key).or_insert(next);
        if id == next {
            states.push((state, mover));
        }
        id
    };
    for placement in placements {
        let robots = placement.robots(slot);
        let puzzle = Puzzle::new(board.clone(), robots.clone(), target)
            .map_err(|_| UnitError::Placement(placement.clone()))?;
        let mover = Mover::new(&puzzle, rules);
        let duties = mover.duties();
        let mover_id = match mover_of_duties[usize::from(duties)] {
            Some(id) => id,
            None => {
                puzzles.push(puzzle.clone());
                let id = puzzles.len() as u32 - 1;
                mover_of_duties[usize::from(duties)] = Some(id);
                id
            }
        };
        let state = State::start(&robots);
        let key = mover.key(&state) | u64::from(duties) << 60;
        let id = intern(state, key, mover_id, &mut states);
        starts.push(Start {
            placement: placement.clone(),
            state: id,
        });
    }
    let movers: Vec<Mover<'_>> = puzzles.iter().map(|p| Mover::new(p, rules)).collect();
    let robots = placements.first().map_or(0, |p| p.helpers.len() + 1);
    let mut next = 0;
    while next < states.len() {
        if states.len() > STATE_LIMIT {
            return Err(UnitError::TooManyStates(STATE_LIMIT));
        }
        let (state, mover_id) = states[next];
        let mover = &movers[mover_id as usize];
        let duties = u64::from(mover.duties()) << 60;
        let mut finishes = false;
        for robot in 0..robots {
            for dir in Direction::ALL {
                let step = Move {
                    robot: robot as u8,
                    dir,
                };
                let mut after = state;
                match mover.play(&state, step, &mut after) {
                    Play::NoMove => {}
                    Play::Finishes => finishes = true,
                    Play::Continues => {
                        let to = intern(after, mover.key(&after) | duties, mover_id, &mut states);
                        edges.push((next as u32, to));
                    }
                }
            }
        }
        finishing.push(finishes);
        next += 1;
    }
    edges.sort_unstable_by_key(|&(_, to)| to);
    edges.dedup();
    let mut first = vec![0u32; states.len() + 1];
    for &(_, to) in &edges {
        first[to as usize + 1] += 1;
    }
    for s in 0..states.len() {
        first[s + 1] += first[s];
    }
    let from = edges.into_iter().map(|(from, _)| from).collect();
    Ok((
        Graph {
            finishing,
            first,
            from,
        },
        starts,
    ))
}

/// Each state's optimum by a BFS backwards from the finishing states (`0`: unsolvable),
/// reporting each layer by the placements it settles.
fn backwards(
    graph: &Graph,
    starts: &[Start],
    placements: u64,
    on_layer: &mut impl FnMut(&Layer) -> ControlFlow<()>,
) -> Result<Vec<u8>, UnitError> {
    let mut is_start = vec![false; graph.finishing.len()];
    for start in starts {
        is_start[start.state as usize] = true;
    }
    let mut depth = vec![0u8; graph.finishing.len()];
    let mut frontier: Vec<u32> = (0..graph.finishing.len() as u32)
        .filter(|&s| graph.finishing[s as usize])
        .collect();
    for &s in &frontier {
        depth[s as usize] = 1;
    }
    let mut solved = 0;
    let mut layer = 1u8;
    while !frontier.is_empty() {
        let found = frontier.iter().filter(|&&s| is_start[s as usize]).count() as u64;
        solved += found;
        let report = Layer {
            depth: layer,
            found,
            solved,
            placements,
        };
        if on_layer(&report).is_break() {
            return Err(UnitError::Stopped(layer));
        }
        if layer == u8::MAX - 1 {
            return Err(UnitError::TooDeep);
        }
        layer += 1;
        let mut next = Vec::new();
        for &s in &frontier {
            let range = graph.first[s as usize] as usize..graph.first[s as usize + 1] as usize;
            for &from in &graph.from[range] {
                if depth[from as usize] == 0 {
                    depth[from as usize] = layer;
                    next.push(from);
                }
            }
        }
        frontier = next;
    }
    Ok(depth)
}

/// The analysis from each start's optimum, its lists spread as the sweep spreads them.
fn collect(
    board: &Board,
    target: Target,
    helpers: usize,
    options: &Options,
    starts: &[Start],
    depth: &[u8],
) -> Result<Analysis, UnitError> {
    let moves_of = |start: &Start| depth[start.state as usize];
    let max_moves = starts.iter().map(moves_of).max().unwrap_or(0);
    let mut by_depth: Vec<Vec<&Start>> = vec![Vec::new(); usize::from(max_moves) + 1];
    for start in starts {
        by_depth[usize::from(moves_of(start))].push(start);
    }
    let spread = |of: &[&Start], wanted: usize| -> Vec<Placement> {
        even_picks(of.len() as u64, wanted)
            .map(|pick| of[pick as usize].placement.clone())
            .collect()
    };
    let mut histogram = vec![0u64];
    let mut legal_histogram = vec![0u64];
    let mut top = Vec::new();
    let mut legal_samples = Vec::new();
    let mut legal_hardest = Vec::new();
    for (moves, at) in by_depth.iter().enumerate().skip(1) {
        let legal: Vec<&Start> = (at.iter().copied())
            .filter(|s| (options.legality).allows(&s.placement, target, Some(moves as u8)))
            .collect();
        histogram.push(at.len() as u64);
        legal_histogram.push(legal.len() as u64);
        if moves >= usize::from(options.top_from) && options.top_per_depth > 0 {
            top.push((moves as u8, spread(at, options.top_per_depth)));
        }
        legal_samples.push(spread(&legal, options.legal_per_depth));
        if !legal.is_empty() {
            legal_hardest = spread(&legal, options.legal_hardest);
        }
    }
    let hardest = if max_moves == 0 {
        Vec::new()
    } else {
        by_depth[usize::from(max_moves)]
            .iter()
            .map(|s| s.placement.clone())
            .collect()
    };
    let found: HashMap<&Placement, u8> =
        starts.iter().map(|s| (&s.placement, moves_of(s))).collect();
    let moves = |placement: &Placement| -> Result<Option<u8>, UnitError> {
        let moves = found
            .get(placement)
            .ok_or_else(|| UnitError::Placement(placement.clone()))?;
        Ok((*moves > 0).then_some(*moves))
    };
    let sample = sample_placements(board, helpers, Finisher::of(&target), options.sample_size)?
        .into_iter()
        .map(|p| moves(&p).map(|m| (p, m)))
        .collect::<Result<_, _>>()?;
    let watched = options.watch.iter().map(moves).collect::<Result<_, _>>()?;
    let solvable = histogram.iter().sum::<u64>();
    Ok(Analysis {
        placements: starts.len() as u64,
        unsolvable: starts.len() as u64 - solvable,
        histogram,
        legal_histogram,
        max_moves,
        hardest,
        top,
        sample,
        legal_samples,
        legal_hardest,
        watched,
    })
}

#[cfg(test)]
mod tests;
