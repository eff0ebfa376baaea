//! rrm benchmark driver for Kevin Cox's `ricochetrobots` crate
//! (crates.io `ricochetrobots` 0.0.0, Apache-2.0; gitlab.com/kevincox/ricochetrobots).
//!
//! Builds the crate's `Game` (a `Board` with walls set cell by cell, five robot
//! positions, a `Target`) from each puzzle and calls `ricochetrobots::solve`,
//! the crate's A* search (robot-free distance table plus a one-move "can it turn
//! there" penalty, visited-state trie, non-target robots sorted as
//! interchangeable), then prints the solution in the neutral move format.
//!
//! Usage: rrm-peer-kcox PUZZLES.jsonl
//! Output per puzzle: `name\tmoves\t0N 2E ...` (robot indices as in the input),
//! `name\tunsupported\treason`, or `name\tnone\treason`.
//!
//! Peer conventions handled here:
//! - the crate always has exactly 5 robots. For puzzles with fewer robots the
//!   extra ones are parked on cells that no robot can reach (the centre block),
//!   walled in on all four sides, which is what the crate itself does when it
//!   imports a 4-robot DriftingDroids game ID (it parks robot 5 at (7,7)).
//!   Parked robots can neither move nor block anything.
//! - `Position` is (x = column, y = row), packed as x<<4|y; input cells are
//!   row*16+col.
//! - input robot i is the crate's `ROBOTS[i]` (BLACK, RED, GREEN, YELLOW, BLUE).
//! - a null or negative `target_robot` becomes a wildcard target (any robot).
//! - `mirrors` (diagonal walls: cell, `\` or `/`, the colour letter R G B Y S of the
//!   robot that passes) become the crate's `Mirror`s: `\` leans left, and the colour
//!   letter's robot index i is the crate's `ROBOTS[i]`, as for the robots.

use std::io::{BufRead, Write};

use ricochetrobots::{Board, Direction, Game, Mirror, Position, Target, ROBOTS};

const N: usize = 16;
const DIRS: [(u64, Direction, char); 4] = [
    (1, Direction::N, 'N'),
    (2, Direction::E, 'E'),
    (4, Direction::S, 'S'),
    (8, Direction::W, 'W'),
];

fn pos_of(cell: usize) -> Position {
    Position::new((cell % N) as u8, (cell / N) as u8)
}

fn dir_char(d: Direction) -> char {
    match d {
        Direction::N => 'N',
        Direction::E => 'E',
        Direction::S => 'S',
        Direction::W => 'W',
    }
}

/// Cells no robot can reach: their component under open edges (walls only)
/// contains no robot and not the target cell. In cell order.
fn unreachable_cells(board: &Board, robots: &[usize], target_cell: usize) -> Vec<usize> {
    const NONE: usize = usize::MAX;
    let mut comp = vec![NONE; N * N];
    let mut live = Vec::new(); // per component: holds a robot or the target
    for start in 0..N * N {
        if comp[start] != NONE {
            continue;
        }
        let id = live.len();
        let mut has = false;
        let mut stack = vec![start];
        comp[start] = id;
        while let Some(c) = stack.pop() {
            has |= c == target_cell || robots.contains(&c);
            let p = pos_of(c);
            for (dir, next) in [
                (Direction::N, c.wrapping_sub(N)),
                (Direction::E, c + 1),
                (Direction::S, c + N),
                (Direction::W, c.wrapping_sub(1)),
            ] {
                // The border is always walled, so an open edge stays on the board.
                if !board.wall(p, dir) && comp[next] == NONE {
                    comp[next] = id;
                    stack.push(next);
                }
            }
        }
        live.push(has);
    }
    (0..N * N).filter(|&c| !live[comp[c]]).collect()
}

fn solve_line(v: &serde_json::Value) -> String {
    let name = v.get("name").and_then(|n| n.as_str()).unwrap_or("?").to_string();
    let unsupported = |why: &str| format!("{name}\tunsupported\t{why}");

    let width = v.get("width").and_then(|x| x.as_u64());
    let height = v.get("height").and_then(|x| x.as_u64());
    if width != Some(16) || height != Some(16) {
        return unsupported("the crate's board is fixed at 16x16");
    }
    let walls: Vec<u64> = match v.get("walls").and_then(|w| w.as_array()) {
        Some(a) if a.len() == N * N => a.iter().map(|x| x.as_u64().unwrap_or(0)).collect(),
        _ => return unsupported("expected 256 wall cells"),
    };
    let robots: Vec<usize> = match v.get("robots").and_then(|r| r.as_array()) {
        Some(a) => {
            let mut out = Vec::with_capacity(a.len());
            for x in a {
                match x.as_u64() {
                    Some(c) if (c as usize) < N * N => out.push(c as usize),
                    _ => return unsupported("robot position out of range"),
                }
            }
            out
        }
        None => return unsupported("missing robots"),
    };
    if robots.is_empty() || robots.len() > ROBOTS.len() {
        return unsupported(&format!(
            "the crate takes at most {} robots (puzzle has {})",
            ROBOTS.len(),
            robots.len()
        ));
    }
    for i in 0..robots.len() {
        if robots[..i].contains(&robots[i]) {
            return unsupported("two robots share a cell");
        }
    }
    let target_cell = match v.get("target_cell").and_then(|x| x.as_u64()) {
        Some(c) if (c as usize) < N * N => c as usize,
        _ => return unsupported("target_cell missing or out of range"),
    };
    let target_robot: Option<usize> = match v.get("target_robot") {
        None | Some(serde_json::Value::Null) => None,
        Some(x) => match x.as_i64() {
            Some(r) if r < 0 => None,
            Some(r) if (r as usize) < robots.len() => Some(r as usize),
            _ => return unsupported("target_robot out of range"),
        },
    };

    // Walls: both sides of every wall, border closed (Board::empty has the border).
    let mut board = Board::empty();
    for cell in 0..N * N {
        for &(bit, dir, _) in &DIRS {
            if walls[cell] & bit != 0 {
                board.set_wall(pos_of(cell), dir);
            }
        }
    }

    if let Some(mirrors) = v.get("mirrors").and_then(|m| m.as_array()) {
        for mirror in mirrors {
            let cell = mirror.get("cell").and_then(|c| c.as_u64());
            let lean = mirror.get("lean").and_then(|l| l.as_str());
            let colour = mirror.get("colour").and_then(|c| c.as_str());
            let robot = match colour {
                Some("R") => 0,
                Some("G") => 1,
                Some("B") => 2,
                Some("Y") => 3,
                Some("S") => 4,
                _ => return unsupported("a mirror's colour is not one of R G B Y S"),
            };
            let (Some(cell), Some(lean)) = (cell.filter(|&c| (c as usize) < N * N), lean) else {
                return unsupported("a mirror without a cell or a lean");
            };
            let left = match lean {
                "\\" => true,
                "/" => false,
                _ => return unsupported("a mirror's lean is not \\ or /"),
            };
            board.set_mirror(pos_of(cell as usize), Some(Mirror::new(left, ROBOTS[robot])));
        }
    }

    if let Some(t) = target_robot {
        if robots[t] == target_cell {
            return format!("{name}\t0\t");
        }
    }

    // Five robots: park the missing ones where no robot can ever go. Cells
    // whose open-edge component holds no robot and not the target (e.g. the
    // 2x2 centre block, walled outside but open inside on some boards) are
    // unreachable, so walling such a cell in on all four sides changes
    // nothing for the puzzle; a robot parked there can neither move nor block.
    let mut positions = [Position::new(0, 0); 5];
    for (i, &c) in robots.iter().enumerate() {
        positions[i] = pos_of(c);
    }
    if robots.len() < ROBOTS.len() {
        let parking = unreachable_cells(&board, &robots, target_cell);
        let missing = ROBOTS.len() - robots.len();
        if parking.len() < missing {
            return unsupported(
                "fewer than 5 robots and no unreachable cell to park the crate's extra robots",
            );
        }
        for (k, &cell) in parking[..missing].iter().enumerate() {
            for &(_, dir, _) in &DIRS {
                board.set_wall(pos_of(cell), dir);
            }
            positions[robots.len() + k] = pos_of(cell);
        }
    }

    let target = Target {
        position: pos_of(target_cell),
        robot: target_robot.map(|t| ROBOTS[t]),
    };
    // Timed from the game's set-up, as rrm's time per puzzle is.
    let start = std::time::Instant::now();
    let game = Game::new(board, positions, target);
    let solution = ricochetrobots::solve(game);
    let took = start.elapsed();
    eprintln!(
        "kcox driver: {name}: {} moves, {} states, {took:?}",
        solution.len(),
        solution.visited_states,
    );
    if solution.len() == 0 {
        return format!("{name}\tnone\tno solution found");
    }
    let mut moves = Vec::with_capacity(solution.len());
    for step in &solution {
        let r = step.robot.as_u8() as usize;
        if r >= robots.len() {
            eprintln!("kcox driver: {name}: a parked robot moved (robot {r})");
        }
        moves.push(format!("{}{}", r, dir_char(step.direction)));
    }
    format!(
        "{name}\t{}\t{}\t{:.9}",
        moves.len(),
        moves.join(" "),
        took.as_secs_f64()
    )
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 2 {
        eprintln!("usage: {} PUZZLES.jsonl", args[0]);
        std::process::exit(2);
    }
    let file = std::fs::File::open(&args[1]).unwrap_or_else(|e| {
        eprintln!("{}: {e}", args[1]);
        std::process::exit(1);
    });
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut status = 0;
    for line in std::io::BufReader::new(file).lines() {
        let line = line.expect("read error");
        if line.trim().is_empty() {
            continue;
        }
        let text = match serde_json::from_str::<serde_json::Value>(&line) {
            Ok(v) => solve_line(&v),
            Err(e) => {
                eprintln!("kcox driver: JSON error: {e}");
                status = 1;
                "?\tunsupported\tcould not parse the input line".to_string()
            }
        };
        writeln!(out, "{text}").expect("write error");
        out.flush().expect("write error");
    }
    std::process::exit(status);
}
