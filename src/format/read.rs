//! Reading puzzles in any format a player brings: rrm's JSON records and packs (HTML or
//! JSON), DriftingDroids' game IDs and dumps, K. Cox's text; a file's format detected by
//! its look unless named.

use super::pack::read_pack;
use super::PuzzleFormat;
use crate::input::{Job, Source};
use anyhow::{bail, Context, Result};
use ricochet::driftingdroids::{read_dump, DdGame};
use ricochet::{Puzzle, PuzzleRecord};
use std::path::Path;

/// Reads one puzzle from a JSON file.
pub fn read_puzzle(path: &Path) -> Result<Job> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    record_job(&text).with_context(|| format!("{}", path.display()))
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
        PuzzleFormat::Html if read_pack(text).is_none() => {
            anyhow::bail!("an HTML file without the JSON of an rrm pack")
        }
        PuzzleFormat::Json | PuzzleFormat::Auto | PuzzleFormat::Html => match read_pack(text) {
            Some(pack) => pack?
                .puzzles
                .iter()
                .enumerate()
                .map(|(index, entry)| {
                    job_of(entry.puzzle.clone())
                        .with_context(|| format!("puzzle {} of the pack", index + 1))
                })
                .collect(),
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

/// A line's puzzle: a puzzle record, or a row of `rrm top --format json` (its `puzzle`
/// record, with the row's move count when the record has none).
fn record_job(text: &str) -> Result<Job> {
    let line: serde_json::Value =
        serde_json::from_str(text).context("not a valid puzzle record")?;
    let (record, moves) = match line.get("puzzle") {
        Some(puzzle) => (puzzle.clone(), line.get("moves").and_then(|m| m.as_u64())),
        None => (line, None),
    };
    let mut record: PuzzleRecord =
        serde_json::from_value(record).context("not a valid puzzle record")?;
    if record.moves.is_none() {
        record.moves = moves.and_then(|m| u32::try_from(m).ok());
    }
    job_of(record)
}

/// The job of a puzzle record, named and with the move count it claims.
fn job_of(record: PuzzleRecord) -> Result<Job> {
    let puzzle = Puzzle::from_record(&record)?;
    Ok(Job {
        puzzle,
        source: Source::File {
            name: record.name,
            expected_moves: record.moves,
        },
    })
}
