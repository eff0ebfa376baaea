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
    /// rrm's JSON puzzle format (docs/editions.md).
    Json,
    /// A DriftingDroids game ID such as `7650+42+E2302B12+C9`.
    DdId,
    /// A DriftingDroids game dump, `!DriftingDroids_game!…`.
    DdDump,
    /// K. Cox's text format (`board 16 16` …), mirrors included.
    Kcox,
}

/// The puzzle `arg` names: a file (in `format`, or whichever it holds), or a DriftingDroids
/// game ID or dump given in place of a file.
pub fn read_puzzle_arg(arg: &str, format: PuzzleFormat) -> Result<Job> {
    let path = Path::new(arg);
    let inline = !path.is_file()
        && (matches!(format, PuzzleFormat::DdId | PuzzleFormat::DdDump)
            || looks_like_game_id(arg)
            || looks_like_dump(arg));
    // An inline ID or dump's error names its bad part; a file's is prefixed with its path.
    if inline {
        return match format {
            PuzzleFormat::DdDump => dump_job(arg),
            PuzzleFormat::Auto if looks_like_dump(arg) => dump_job(arg),
            _ => game_id_job(arg.trim()),
        };
    }
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let format = match format {
        PuzzleFormat::Auto => detected(&text),
        format => format,
    };
    let mut jobs = parse_as(&text, format).with_context(|| format!("{}", path.display()))?;
    if jobs.len() != 1 {
        bail!(
            "{} holds {} puzzles: --puzzles reads a file of several",
            path.display(),
            jobs.len()
        );
    }
    Ok(jobs.remove(0))
}

/// The format of a text of puzzles, by its look.
fn detected(text: &str) -> PuzzleFormat {
    let lines = || text.lines().map(str::trim).filter(|line| !line.is_empty());
    if looks_like_dump(text) {
        PuzzleFormat::DdDump
    } else if lines().next().is_some() && lines().all(looks_like_game_id) {
        PuzzleFormat::DdId
    } else if ricochet::kcox::looks_like(text) {
        PuzzleFormat::Kcox
    } else {
        PuzzleFormat::Json
    }
}

/// The puzzles of `text` in `format`: for JSON, puzzle records one per line, or a pack
/// (`rrm pack`'s JSON, or the JSON an HTML pack carries); game IDs and dumps one per line;
/// K. Cox's texts one after another.
fn parse_as(text: &str, format: PuzzleFormat) -> Result<Vec<Job>> {
    let lines = || text.lines().map(str::trim).enumerate();
    let each_line = |read: &dyn Fn(&str) -> Result<Job>| -> Result<Vec<Job>> {
        (lines().filter(|(_, line)| !line.is_empty()))
            .map(|(number, line)| read(line).with_context(|| format!("line {}", number + 1)))
            .collect()
    };
    match format {
        PuzzleFormat::DdId => each_line(&game_id_job),
        PuzzleFormat::DdDump => each_line(&dump_job),
        PuzzleFormat::Kcox => ricochet::kcox::parse_all(text)
            .map(|puzzles| {
                (puzzles.into_iter())
                    .map(|p| named(p, "K. Cox puzzle"))
                    .collect()
            })
            .map_err(|(index, e)| anyhow::anyhow!("puzzle {index}: {e}")),
        PuzzleFormat::Json | PuzzleFormat::Auto => match pack_json(text) {
            Some(pack) => pack_jobs(&pack),
            None => parse_puzzles(text),
        },
    }
}

fn named(puzzle: Puzzle, name: &str) -> Job {
    Job {
        puzzle,
        source: Source::File {
            name: Some(name.into()),
            expected_moves: None,
        },
    }
}

fn dump_job(text: &str) -> Result<Job> {
    Ok(named(read_dump(text)?, "DriftingDroids game dump"))
}

/// The JSON of a pack: the text itself, or the copy an HTML pack carries.
fn pack_json(text: &str) -> Option<serde_json::Value> {
    let json = match text.find(PACK_SCRIPT) {
        Some(at) => {
            let rest = &text[at + PACK_SCRIPT.len()..];
            &rest[..rest.find("</script>")?]
        }
        None if text.trim_start().starts_with('{') => text,
        None => return None,
    };
    let pack: serde_json::Value = serde_json::from_str(json).ok()?;
    (pack["format"] == PACK_FORMAT).then_some(pack)
}

/// How an HTML pack opens the copy of its JSON it carries.
pub const PACK_SCRIPT: &str = r#"<script type="application/json" id="rrm-pack">"#;
/// The `format` field of a JSON pack.
pub const PACK_FORMAT: &str = "rrm-pack/1";

/// A pack's puzzles, each with its name and move count.
fn pack_jobs(pack: &serde_json::Value) -> Result<Vec<Job>> {
    let entries = pack["puzzles"]
        .as_array()
        .context("a pack without puzzles")?;
    (entries.iter().enumerate())
        .map(|(index, entry)| {
            record_job(&entry["puzzle"].to_string())
                .with_context(|| format!("puzzle {} of the pack", index + 1))
        })
        .collect()
}

/// Whether `text` is shaped like a game ID: four parts joined by `+` (which
/// [`DdGame::parse`] then checks part by part), not JSON or a path.
fn looks_like_game_id(text: &str) -> bool {
    text.split('+').count() == 4
        && !text.is_empty()
        && !text.contains(|c: char| c.is_whitespace() || "{}[]/\\\"".contains(c))
}

/// Whether `text` is a DriftingDroids game dump, as its "copy" puts it on the clipboard.
fn looks_like_dump(text: &str) -> bool {
    text.trim_start().starts_with("!DriftingDroids_game!")
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

/// Reads a file of puzzles in any format `rrm pack` writes or `--puzzle` reads ([`parse_as`],
/// detected by its look); any bad puzzle fails the whole file.
pub fn read_puzzles(path: &Path) -> Result<Vec<Job>> {
    read_puzzles_as(path, PuzzleFormat::Auto)
}

/// [`read_puzzles`] in `format` (`Auto`: detected).
pub fn read_puzzles_as(path: &Path, format: PuzzleFormat) -> Result<Vec<Job>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let format = match format {
        PuzzleFormat::Auto => detected(&text),
        format => format,
    };
    parse_as(&text, format).with_context(|| format!("{}", path.display()))
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
