//! Reading what the user names: seed ranges, counts, puzzle files and placements.

use anyhow::{bail, Context, Result};
use ricochet::edition::EditionBoard;
use ricochet::{Game, Puzzle};
use rrm_coordinator::UnitBoard;
use std::ops::{Range, RangeInclusive};

/// A puzzle to solve and where it came from.
pub struct Job {
    pub puzzle: Puzzle,
    pub source: Source,
}

pub enum Source {
    Seed(Box<Game>),
    File {
        name: Option<String>,
        expected_moves: Option<u32>,
    },
}

/// Parses `A..B` (B excluded) or `A..=B` into the inclusive range of seeds it names, so
/// that `A..=18446744073709551615` can name the last seed.
pub fn parse_seed_range(text: &str) -> Result<RangeInclusive<u64>> {
    let (start, end) = text
        .split_once("..")
        .with_context(|| format!("seed range {text:?} is not of the form A..B"))?;
    let (end, inclusive) = match end.strip_prefix('=') {
        Some(end) => (end, true),
        None => (end, false),
    };
    let start: u64 = start
        .trim()
        .parse()
        .with_context(|| format!("bad range start {start:?}"))?;
    let end: u64 = end
        .trim()
        .parse()
        .with_context(|| format!("bad range end {end:?}"))?;
    if start == 0 {
        bail!("seed 0 is not supported: Fogleman's generator does not re-seed on 0; start ranges at 1");
    }
    let last = if inclusive {
        Some(end)
    } else {
        end.checked_sub(1)
    };
    match last {
        Some(last) if last >= start => Ok(start..=last),
        _ => bail!("seed range {text:?} is empty"),
    }
}

/// Parses a campaign's seed range: campaigns store `[start, end)`, so the range cannot
/// include seed 18446744073709551615.
pub fn parse_campaign_range(text: &str) -> Result<Range<u64>> {
    let seeds = parse_seed_range(text)?;
    let end = seeds.end().checked_add(1).with_context(|| {
        format!(
            "seed range {text:?}: campaigns cannot include seed {} (their ranges exclude their end); end the range before it",
            u64::MAX
        )
    })?;
    Ok(*seeds.start()..end)
}

/// Parses a count that must be at least 1 (threads, puzzles), for clap.
pub fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(error) => Err(error.to_string()),
    }
}

/// A rayon pool of `threads` threads (default: one per core), with its size.
pub fn thread_pool(threads: Option<usize>) -> Result<(rayon::ThreadPool, usize)> {
    let threads =
        threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("cannot start worker threads")?;
    Ok((pool, threads))
}

pub fn seed_job(seed: u64) -> Result<Job> {
    let game = Game::generate(seed)?;
    Ok(Job {
        puzzle: game.puzzle(),
        source: Source::Seed(Box::new(game)),
    })
}

/// Parses a placement, `T,H,H,H`: the target robot's cell, then three helpers' cells (any
/// order), each `y*16+x`; for clap.
pub fn parse_placement(text: &str) -> Result<[u8; 4], String> {
    let cells: Vec<u8> = text
        .split(',')
        .map(|cell| cell.trim().parse::<u8>())
        .collect::<Result<_, _>>()
        .map_err(|e| format!("{text:?}: cells are 0 to 255 ({e})"))?;
    let mut placement: [u8; 4] = cells
        .try_into()
        .map_err(|_| format!("{text:?}: give four cells, the target robot's first"))?;
    placement[1..].sort_unstable();
    Ok(placement)
}

/// The cells of the centre block of a 16×16 board (y*16+x), where no robot stands.
const CENTRE_BLOCK: [u8; 4] = [119, 120, 135, 136];

/// What is wrong with a placement a board refused: cells given twice, or in the centre
/// block.
fn clashes(cells: [u8; 4]) -> String {
    let mut wrong: Vec<String> = Vec::new();
    for (index, cell) in cells.iter().enumerate() {
        if cells[..index].contains(cell) && !cells[..index - 1].contains(cell) {
            wrong.push(format!("cell {cell} is given twice"));
        }
    }
    wrong.extend(
        cells
            .iter()
            .filter(|cell| CENTRE_BLOCK.contains(cell))
            .map(|cell| format!("cell {cell} is in the centre block")),
    );
    if wrong.is_empty() {
        return "four different cells, off the centre block, are needed".into();
    }
    wrong.join("; ")
}

/// The puzzle of a placement on a named board (either naming, any rotation; cells on the
/// board as named), and the board's other tokens to draw faintly.
pub fn placement_job(
    board: &str,
    token: &str,
    cells: [u8; 4],
) -> Result<(Job, Vec<(String, ricochet::Cell)>)> {
    let token = token.to_ascii_uppercase();
    let named = EditionBoard::parse(board)?;
    let puzzle = UnitBoard::new(board, &token)?
        .puzzle(&cells)
        .with_context(|| format!("placement {cells:?} on {board}: {}", clashes(cells)))?;
    let others = named
        .tokens()
        .iter()
        .filter(|(t, _)| *t != token)
        .map(|&(t, cell)| (t.to_string(), cell))
        .collect();
    let name = format!(
        "{} {token}, placement {}",
        named.name(),
        cells.map(|c| c.to_string()).join(",")
    );
    let job = Job {
        puzzle,
        source: Source::File {
            name: Some(name),
            expected_moves: None,
        },
    };
    Ok((job, others))
}
