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

/// The optimal move count of every placement of robot 0 (which must reach the target;
/// any robot may when the record's target is wild, `target_robot` -1) and `helpers`
/// interchangeable robots, by plain rounds over every state: a placement
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
    // Robot 0 is the target robot, unless any robot finishes (a wild target).
    let record = PuzzleRecord {
        target_robot: record.target_robot.min(0),
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

/// Every placement's optimal move count, as [`all_depths`] gives them but in flat arrays,
/// so that units of three helpers on 8×8 boards (about two million placements) fit: see
/// [`placement_depths`].
pub struct Depths {
    /// `free_index[cell]`: the cell's position among the free cells, which number keys.
    free_index: Vec<usize>,
    free: usize,
    helpers: usize,
    /// Every placement: the target robot's cell, then the helpers' (ascending).
    placements: Vec<[u16; 4]>,
    /// `slot[key]`: the placement's index in `placements`, `u32::MAX` for no placement.
    slot: Vec<u32>,
    /// Moves of each placement; 0 when it cannot be solved.
    depth: Vec<u8>,
}

impl Depths {
    /// A placement's key in `slot`, from its cells (`y * width + x`).
    fn key(&self, cells: &[u16]) -> usize {
        cells.iter().rev().fold(0, |key, &c| {
            let index = self.free_index[usize::from(c)];
            assert!(index < self.free, "cell {c} is not free");
            key * self.free + index
        })
    }

    /// How many placements the unit has.
    pub fn count(&self) -> usize {
        self.placements.len()
    }

    /// The move count of `placement`, `None` when it cannot be solved; panics when it is
    /// no placement of the unit.
    pub fn depth(&self, (target, helpers): &RefPlacement) -> Option<usize> {
        let cells: Vec<u16> = std::iter::once(*target)
            .chain(helpers.iter().copied())
            .map(|c| c as u16)
            .collect();
        let slot = self.slot[self.key(&cells)];
        assert_ne!(slot, u32::MAX, "{target} {helpers:?} is no placement");
        Some(usize::from(self.depth[slot as usize])).filter(|&d| d > 0)
    }

    /// Every placement with its move count, in (target cell, helpers) order of
    /// enumeration (not sorted).
    pub fn iter(&self) -> impl Iterator<Item = (RefPlacement, Option<usize>)> + '_ {
        self.placements.iter().zip(&self.depth).map(|(p, &d)| {
            let placement = (
                i64::from(p[0]),
                p[1..=self.helpers].iter().map(|&c| i64::from(c)).collect(),
            );
            (placement, Some(usize::from(d)).filter(|&d| d > 0))
        })
    }
}

/// The optimal move count of every placement of robot 0 (which must reach the target;
/// any robot may when the record's target is wild) and `helpers` interchangeable robots,
/// by a plain breadth-first search backwards from the goal: placements one finishing
/// slide from the target are at depth 1, and a
/// placement not yet reached with a move into depth `d` is at `d + 1`. The moves come
/// from [`slide`] on the record's wall masks; placements are numbered by their cells.
pub fn placement_depths(record: &PuzzleRecord, helpers: usize) -> Depths {
    assert!((1..=3).contains(&helpers), "1 to 3 helpers");
    let cells = record.width * record.height;
    // Cells a robot may stand on: not blocked, and not shut in on all four sides.
    let free: Vec<u16> = (0..cells as i64)
        .filter(|c| !record.blocked.contains(c))
        .filter(|&c| (0..4).any(|dir| slide(record, &[c], 0, dir) != c))
        .map(|c| c as u16)
        .collect();
    let keys = free.len().pow(helpers as u32 + 1);
    assert!(
        keys < 1 << 28,
        "too many free cells for a reference in memory"
    );
    let mut free_index = vec![usize::MAX; cells];
    for (i, &c) in free.iter().enumerate() {
        free_index[usize::from(c)] = i;
    }
    let mut depths = Depths {
        free_index,
        free: free.len(),
        helpers,
        placements: Vec::new(),
        slot: vec![u32::MAX; keys],
        depth: Vec::new(),
    };
    // Helper sets as ascending index tuples into `free`, then every free target cell.
    let mut set = (0..helpers).collect::<Vec<usize>>();
    'sets: loop {
        if set.last().is_some_and(|&l| l < free.len()) {
            for &t in &free {
                let mut p = [0u16; 4];
                p[0] = t;
                for (i, &h) in set.iter().enumerate() {
                    p[i + 1] = free[h];
                }
                if p[1..=helpers].contains(&t) {
                    continue;
                }
                let key = depths.key(&p[..=helpers]);
                depths.slot[key] = depths.placements.len() as u32;
                depths.placements.push(p);
            }
        }
        // The next ascending tuple: bump the last index that can still grow.
        for i in (0..helpers).rev() {
            if set[i] + (helpers - i) < free.len() {
                set[i] += 1;
                for j in i + 1..helpers {
                    set[j] = set[j - 1] + 1;
                }
                continue 'sets;
            }
        }
        break;
    }
    let count = depths.placements.len();
    // Each placement's moves (robot × direction): the slot it leads to, GOAL when the
    // target robot lands on the target, NONE when the robot cannot move.
    const GOAL: u32 = u32::MAX - 1;
    const NONE: u32 = u32::MAX;
    let wild = record.target_robot == -1;
    let moves = |p: &[u16; 4]| -> [u32; 16] {
        let mut out = [NONE; 16];
        let mut robots = [0i64; 4];
        for (robot, &cell) in robots.iter_mut().zip(&p[..=helpers]) {
            *robot = i64::from(cell);
        }
        let robots = &robots[..=helpers];
        for robot in 0..robots.len() {
            for dir in 0..4 {
                let to = slide(record, robots, robot, dir);
                if to == robots[robot] {
                    continue;
                }
                out[robot * 4 + dir] = if (robot == 0 || wild) && to == record.target_cell {
                    GOAL
                } else {
                    let mut next = *p;
                    next[robot] = to as u16;
                    next[1..=helpers].sort_unstable();
                    depths.slot[depths.key(&next[..=helpers])]
                };
            }
        }
        out
    };
    let successors: Vec<[u32; 16]> = {
        use rayon::prelude::*;
        depths.placements.par_iter().map(moves).collect()
    };
    // Predecessor lists in one flat array: counted first, then filled.
    let mut start = vec![0u32; count + 1];
    let mut queue = VecDeque::new();
    let mut depth = vec![0u8; count];
    for (p, next) in successors.iter().enumerate() {
        for &to in next {
            if to < GOAL {
                start[to as usize + 1] += 1;
            }
        }
        if next.contains(&GOAL) {
            depth[p] = 1;
            queue.push_back(p as u32);
        }
    }
    for i in 0..count {
        start[i + 1] += start[i];
    }
    let mut filled = start.clone();
    let mut from = vec![0u32; start[count] as usize];
    for (p, next) in successors.iter().enumerate() {
        for &to in next.iter().filter(|&&to| to < GOAL) {
            from[filled[to as usize] as usize] = p as u32;
            filled[to as usize] += 1;
        }
    }
    drop(successors);
    while let Some(q) = queue.pop_front() {
        let d = depth[q as usize];
        assert!(d < u8::MAX, "deeper than 254 moves");
        for &p in &from[start[q as usize] as usize..start[q as usize + 1] as usize] {
            if depth[p as usize] == 0 {
                depth[p as usize] = d + 1;
                queue.push_back(p);
            }
        }
    }
    depths.depth = depth;
    depths
}
