//! Reading what the user names: seed ranges, counts, puzzle files and placements.

use anyhow::{bail, Context, Result};
use ricochet::driftingdroids::{read_dump, DdGame};
use ricochet::edition::EditionBoard;
use ricochet::{Game, Puzzle, PuzzleRecord};
use rrm_coordinator::UnitBoard;
use std::ops::{Range, RangeInclusive};
use std::path::Path;

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

/// Reads one puzzle from a JSON file.
pub fn read_puzzle(path: &Path) -> Result<Job> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    record_job(&text).with_context(|| format!("{}", path.display()))
}

/// How a puzzle is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum PuzzleFormat {
    /// A DriftingDroids game ID when the text is one or a file holds one, a dump, K.
    /// Cox's text, else JSON.
    Auto,
    /// rrm's JSON puzzle format (README).
    Json,
    /// A DriftingDroids game ID such as `7650+42+E2302B12+C9`.
    DdId,
    /// A DriftingDroids game dump, `!DriftingDroids_game!…`.
    DdDump,
    /// K. Cox's text format (`board 16 16` …), mirrors included.
    Kcox,
}

/// The puzzle `arg` names: a file (in `format`, or whichever it holds), or a DriftingDroids
/// game ID given in place of a file.
pub fn read_puzzle_arg(arg: &str, format: PuzzleFormat) -> Result<Job> {
    let path = Path::new(arg);
    let is_file = path.is_file();
    if !is_file && (format == PuzzleFormat::DdId || looks_like_game_id(arg)) {
        return game_id_job(arg);
    }
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let format = match format {
        PuzzleFormat::Auto if text.trim_start().starts_with("!DriftingDroids_game!") => {
            PuzzleFormat::DdDump
        }
        PuzzleFormat::Auto if looks_like_game_id(text.trim()) => PuzzleFormat::DdId,
        PuzzleFormat::Auto if ricochet::kcox::looks_like(&text) => PuzzleFormat::Kcox,
        PuzzleFormat::Auto => PuzzleFormat::Json,
        format => format,
    };
    match format {
        PuzzleFormat::DdId => game_id_job(text.trim()),
        PuzzleFormat::DdDump => read_dump(&text)
            .map(|puzzle| Job {
                puzzle,
                source: Source::File {
                    name: Some("DriftingDroids game dump".into()),
                    expected_moves: None,
                },
            })
            .map_err(Into::into),
        PuzzleFormat::Kcox => ricochet::kcox::parse(&text)
            .map(|puzzle| Job {
                puzzle,
                source: Source::File {
                    name: Some("K. Cox puzzle".into()),
                    expected_moves: None,
                },
            })
            .map_err(Into::into),
        _ => record_job(&text),
    }
    .with_context(|| format!("{}", path.display()))
}

/// Whether `text` is shaped like a game ID (hex digits and `+`, not JSON).
fn looks_like_game_id(text: &str) -> bool {
    text.contains('+') && text.chars().all(|c| c.is_ascii_hexdigit() || c == '+')
}

fn game_id_job(id: &str) -> Result<Job> {
    let game = DdGame::parse(id)?;
    Ok(Job {
        puzzle: game.puzzle()?,
        source: Source::File {
            name: Some(format!("DriftingDroids game {}", game.id())),
            expected_moves: None,
        },
    })
}

/// Reads a JSON Lines file of puzzles (blank lines skipped); any bad line fails the whole file.
pub fn read_puzzles(path: &Path) -> Result<Vec<Job>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    parse_puzzles(&text).with_context(|| format!("{}", path.display()))
}

/// Parses JSON Lines puzzle records; errors name the line.
pub fn parse_puzzles(text: &str) -> Result<Vec<Job>> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(number, line)| record_job(line).with_context(|| format!("line {}", number + 1)))
        .collect()
}

fn record_job(text: &str) -> Result<Job> {
    let record: PuzzleRecord = serde_json::from_str(text).context("not a valid puzzle record")?;
    let puzzle = Puzzle::from_record(&record)?;
    Ok(Job {
        puzzle,
        source: Source::File {
            name: record.name,
            expected_moves: record.moves,
        },
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
