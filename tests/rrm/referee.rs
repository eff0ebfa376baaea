//! An independent referee: replays moves and solves small puzzles by plain BFS, straight
//! from a puzzle record's wall masks, sharing nothing with the solver but the record type.

use ricochet::PuzzleRecord;
use std::collections::{HashMap, HashSet, VecDeque};

/// Side of a cell the robot cannot leave through: N=1, E=2, S=4, W=8.
const SIDES: [(char, u32, i64, i64); 4] = [
    ('N', 1, 0, -1),
    ('E', 2, 1, 0),
    ('S', 4, 0, 1),
    ('W', 8, -1, 0),
];

/// Slides robot `robot` in direction `dir` (index into SIDES); returns its new cell.
fn slide(record: &PuzzleRecord, robots: &[i64], robot: usize, dir: usize) -> i64 {
    let (_, bit, dx, dy) = SIDES[dir];
    let (w, h) = (record.width as i64, record.height as i64);
    let mut cell = robots[robot];
    loop {
        let (x, y) = (cell % w + dx, cell / w + dy);
        if record.walls[cell as usize] & bit != 0 || x < 0 || y < 0 || x >= w || y >= h {
            return cell;
        }
        let next = y * w + x;
        if robots.contains(&next) || record.blocked.contains(&next) {
            return cell;
        }
        cell = next;
    }
}

fn finishes(record: &PuzzleRecord, robots: &[i64], robot: usize) -> bool {
    robots[robot] == record.target_cell
        && (record.target_robot == -1 || record.target_robot == robot as i64)
}

/// Replays `moves` (notation such as `BE`) and checks that each changes a robot's cell
/// and that the puzzle is first solved by the last move. Returns what went wrong.
pub fn check_solution(record: &PuzzleRecord, moves: &[String]) -> Result<(), String> {
    let mut robots = record.robots.clone();
    for (step, notation) in moves.iter().enumerate() {
        let mut chars = notation.chars();
        let robot = "RGBYS"
            .find(chars.next().ok_or("empty move")?)
            .ok_or(format!("bad robot in {notation}"))?;
        let letter = chars.next();
        let dir = SIDES
            .iter()
            .position(|s| Some(s.0) == letter)
            .ok_or(format!("bad direction in {notation}"))?;
        if robot >= robots.len() {
            return Err(format!(
                "move {step} names robot {robot}, which does not exist"
            ));
        }
        let to = slide(record, &robots, robot, dir);
        if to == robots[robot] {
            return Err(format!("move {step} ({notation}) does not move the robot"));
        }
        robots[robot] = to;
        let solved = finishes(record, &robots, robot);
        if solved != (step + 1 == moves.len()) {
            return Err(format!(
                "move {step} ({notation}): solved={solved}, at {} of {} moves",
                step + 1,
                moves.len()
            ));
        }
    }
    if moves.is_empty() {
        return Err("no moves".into());
    }
    Ok(())
}

/// Optimal move count by breadth-first search over full robot tuples, or None if the
/// target can never be reached.
pub fn bfs_moves(record: &PuzzleRecord) -> Option<usize> {
    let start = record.robots.clone();
    let mut seen = HashSet::from([start.clone()]);
    let mut queue = VecDeque::from([(start, 0usize)]);
    while let Some((robots, depth)) = queue.pop_front() {
        for robot in 0..robots.len() {
            for dir in 0..4 {
                let to = slide(record, &robots, robot, dir);
                if to == robots[robot] {
                    continue;
                }
                let mut next = robots.clone();
                next[robot] = to;
                if finishes(record, &next, robot) {
                    return Some(depth + 1);
                }
                if seen.insert(next.clone()) {
                    queue.push_back((next, depth + 1));
                }
            }
        }
    }
    None
}

/// Counts every move sequence of exactly `moves` moves that first solves the puzzle on
/// its last move, by trying them all: for small counts only (16^moves sequences).
pub fn count_solutions(record: &PuzzleRecord, moves: usize) -> u64 {
    fn walk(record: &PuzzleRecord, robots: &mut Vec<i64>, left: usize) -> u64 {
        let mut total = 0;
        for robot in 0..robots.len() {
            for dir in 0..4 {
                let from = robots[robot];
                let to = slide(record, robots, robot, dir);
                if to == from {
                    continue;
                }
                robots[robot] = to;
                if finishes(record, robots, robot) {
                    total += u64::from(left == 1);
                } else if left > 1 {
                    total += walk(record, robots, left - 1);
                }
                robots[robot] = from;
            }
        }
        total
    }
    walk(record, &mut record.robots.clone(), moves)
}

/// Fewest moves for a robot allowed on the target to reach it alone, the others fixed.
pub fn solo_moves(record: &PuzzleRecord) -> Option<usize> {
    (0..record.robots.len())
        .filter(|&r| record.target_robot == -1 || record.target_robot == r as i64)
        .filter_map(|robot| {
            let mut seen = HashSet::from([record.robots[robot]]);
            let mut queue = VecDeque::from([(record.robots.clone(), 0)]);
            while let Some((robots, depth)) = queue.pop_front() {
                for dir in 0..4 {
                    let mut next = robots.clone();
                    next[robot] = slide(record, &robots, robot, dir);
                    if next[robot] == robots[robot] {
                        continue;
                    }
                    if finishes(record, &next, robot) {
                        return Some(depth + 1);
                    }
                    if seen.insert(next[robot]) {
                        queue.push_back((next, depth + 1));
                    }
                }
            }
            None
        })
        .min()
}

/// A placement for [`all_depths`]: the target robot's cell, then the helpers' cells
/// (ascending), as record indices.
pub type RefPlacement = (i64, Vec<i64>);

/// The optimal move count of every placement of robot 0 (which must reach the target)
/// and `helpers` interchangeable robots, by plain rounds over every state: a placement
/// needs `d + 1` moves when one of its moves leads to a placement needing `d`. `None`:
/// unsolvable.
pub fn all_depths(record: &PuzzleRecord, helpers: usize) -> HashMap<RefPlacement, Option<usize>> {
    // Cells a robot may stand on: not blocked, and not shut in on all four sides.
    let free: Vec<i64> = (0..(record.width * record.height) as i64)
        .filter(|c| !record.blocked.contains(c))
        .filter(|&c| (0..4).any(|dir| slide(record, &[c], 0, dir) != c))
        .collect();
    let mut placements = Vec::new();
    let mut chosen: Vec<Vec<i64>> = vec![Vec::new()];
    for _ in 0..helpers {
        chosen = chosen
            .into_iter()
            .flat_map(|set| {
                let last = set.last().copied();
                free.iter()
                    .filter(move |&&c| last.is_none_or(|l| c > l))
                    .map(move |&c| {
                        let mut more = set.clone();
                        more.push(c);
                        more
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
    }
    for set in &chosen {
        for &t in free.iter().filter(|t| !set.contains(t)) {
            placements.push((t, set.clone()));
        }
    }
    let record = PuzzleRecord {
        target_robot: 0,
        ..record.clone()
    };
    let successors = |(t, set): &RefPlacement| {
        let robots: Vec<i64> = std::iter::once(*t).chain(set.iter().copied()).collect();
        let mut next = Vec::new();
        let mut solved = false;
        for robot in 0..robots.len() {
            for dir in 0..4 {
                let to = slide(&record, &robots, robot, dir);
                if to == robots[robot] {
                    continue;
                }
                let mut moved = robots.clone();
                moved[robot] = to;
                solved |= finishes(&record, &moved, robot);
                let mut helpers = moved[1..].to_vec();
                helpers.sort_unstable();
                next.push((moved[0], helpers));
            }
        }
        (solved, next)
    };
    let moves: Vec<(bool, Vec<RefPlacement>)> = placements.iter().map(successors).collect();
    let mut depth: HashMap<RefPlacement, Option<usize>> = placements
        .iter()
        .zip(&moves)
        .map(|(p, (solved, _))| (p.clone(), solved.then_some(1)))
        .collect();
    for d in 1.. {
        let newly: Vec<RefPlacement> = placements
            .iter()
            .zip(&moves)
            .filter(|(p, (_, next))| {
                depth[*p].is_none() && next.iter().any(|n| depth[n] == Some(d))
            })
            .map(|(p, _)| p.clone())
            .collect();
        if newly.is_empty() {
            break;
        }
        for p in newly {
            depth.insert(p, Some(d + 1));
        }
    }
    depth
}
