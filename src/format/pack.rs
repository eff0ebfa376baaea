//! Puzzle packs: a curated list of solved puzzles written as a printable HTML page (which
//! carries its JSON, so the page reads back), as JSON for apps (`rrm-pack/1`, see
//! docs/editions.md, "Puzzle pack JSON"), as DriftingDroids game IDs or as K. Cox's text.
//! [`Pack`] is the one shape of a pack: what is written and what is read back.

use super::{driftingdroids_game, tiles_named, MetricsJson};
use anyhow::{Context, Result};
use ricochet::svg::{escape, Picture};
use ricochet::{Move, Puzzle, PuzzleRecord};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// How an HTML pack opens the copy of its JSON it carries.
pub const PACK_SCRIPT: &str = r#"<script type="application/json" id="rrm-pack">"#;
/// The `format` field of a JSON pack.
pub const PACK_FORMAT: &str = "rrm-pack/1";

/// How a pack is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum PackFormat {
    /// A printable page: the puzzles, then their solutions on new pages.
    Html,
    /// rrm's pack JSON, for apps.
    Json,
    /// One DriftingDroids game ID per line.
    DdId,
    /// K. Cox's text of each puzzle, a blank line between them.
    Kcox,
}

impl PackFormat {
    /// The format an output file's extension names, if any.
    pub fn of_extension(extension: &str) -> Option<Self> {
        match extension {
            "html" => Some(PackFormat::Html),
            "json" => Some(PackFormat::Json),
            _ => None,
        }
    }

    /// Whether the format carries the solutions and metrics (not just the puzzles).
    pub fn carries_solutions(self) -> bool {
        matches!(self, PackFormat::Html | PackFormat::Json)
    }
}

/// A pack: its campaign, how it was chosen, and its puzzles, easiest first.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Pack {
    /// [`PACK_FORMAT`].
    pub format: String,
    pub campaign: String,
    pub generator: String,
    pub rules: String,
    pub filters: Filters,
    pub puzzles: Vec<PackEntry>,
}

/// What the pack was chosen by (`rrm pack`'s options).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Filters {
    pub min_moves: u8,
    pub max_moves: u8,
    pub count: usize,
    pub unique: bool,
    pub min_robots: usize,
    pub distinct_boards: bool,
    /// Exhaustive campaigns' placements: only those that look dealt (`--natural`).
    #[serde(default)]
    pub natural: bool,
}

/// One puzzle of a pack, numbered from 1, with its optimal solution in move notation.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PackEntry {
    pub number: usize,
    pub token: String,
    pub puzzle: PuzzleRecord,
    pub moves: usize,
    pub solution: Vec<String>,
    pub metrics: MetricsJson,
    #[serde(flatten)]
    pub origin: EntryOrigin,
}

/// Where a pack's puzzle was mined: a seed and its tile arrangement, or a placement of an
/// exhaustive unit on its board.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(untagged)]
pub enum EntryOrigin {
    Seed {
        seed: u64,
        arrangement: String,
    },
    Placement {
        unit: u64,
        board: String,
        placement: [u8; 4],
    },
}

impl PackEntry {
    /// How the pack names it: its puzzle's name.
    fn label(&self) -> String {
        self.puzzle.name.clone().unwrap_or_default()
    }

    /// Its board's tiles in slot order (Fogleman's names), for its DriftingDroids game.
    fn tiles(&self) -> Option<[&str; 4]> {
        match &self.origin {
            EntryOrigin::Seed { arrangement, .. } => tiles_named(arrangement),
            EntryOrigin::Placement { board, .. } => tiles_named(board),
        }
    }

    fn puzzle(&self) -> Result<Puzzle> {
        Puzzle::from_record(&self.puzzle).with_context(|| self.label())
    }

    fn solution(&self) -> Result<Vec<Move>> {
        (self.solution.iter())
            .map(|m| {
                Move::from_notation(m).with_context(|| format!("{}: move {m:?}", self.label()))
            })
            .collect()
    }
}

/// `pack` written as `format`, and a note for stderr when the written puzzles are not
/// exactly the pack's (Fogleman's boards as DriftingDroids games gain the vortex's walls).
pub fn write(pack: &Pack, format: PackFormat) -> Result<(String, Option<String>)> {
    Ok(match format {
        PackFormat::Html => (html(pack)?, None),
        PackFormat::Json => (serde_json::to_string(pack)?, None),
        PackFormat::DdId => {
            let mut ids = String::new();
            let mut first_note = None;
            for entry in &pack.puzzles {
                let (game, note) = driftingdroids_game(&entry.puzzle()?, entry.tiles())
                    .with_context(|| entry.label())?;
                first_note = first_note.or(note);
                ids += &(game.id() + "\n");
            }
            (ids, first_note)
        }
        PackFormat::Kcox => {
            let texts = (pack.puzzles.iter())
                .map(|entry| ricochet::kcox::write(&entry.puzzle()?).with_context(|| entry.label()))
                .collect::<Result<Vec<_>>>()?;
            (texts.join("\n"), None)
        }
    })
}

/// The pack a text holds, if it holds one: a JSON pack, or the copy an HTML pack
/// carries. `None`: not a pack; an error: a pack that does not read.
pub fn read_pack(text: &str) -> Option<Result<Pack>> {
    let json = match text.find(PACK_SCRIPT) {
        Some(at) => {
            let rest = &text[at + PACK_SCRIPT.len()..];
            &rest[..rest.find("</script>")?]
        }
        None if text.trim_start().starts_with('{') => text,
        None => return None,
    };
    #[derive(Deserialize)]
    struct Head {
        format: String,
    }
    let head: Head = serde_json::from_str(json).ok()?;
    (head.format == PACK_FORMAT)
        .then(|| serde_json::from_str(json).context("a pack that does not read as rrm-pack/1"))
}

/// A printable pack page's head and style, the `<body>` opened: a 2-column grid of
/// `.card`s, `.moves` in monospace, `.solutions` on a new page.
pub fn page_head(title: &str) -> String {
    format!(
        r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{}</title>
<style>
body {{ font-family: Georgia, serif; margin: 1.5cm; color: #1d1d1d; }}
h1 {{ font-size: 1.6em; margin: 0 0 .2em; }} .sub {{ color: #555; margin-bottom: 1em; }}
.grid {{ display: grid; grid-template-columns: repeat(2, 1fr); gap: 1em 1.5em; }}
.card {{ break-inside: avoid; page-break-inside: avoid; }}
.card h2 {{ font-size: 1.05em; margin: .3em 0; }} .card svg {{ width: 100%; height: auto; }}
.moves {{ font-family: monospace; font-size: .95em; }}
.solutions {{ page-break-before: always; break-before: page; }}
@media print {{ body {{ margin: 0; }} }}
</style></head><body>"#,
        escape(title)
    )
}

/// "N puzzle(s)".
fn puzzles(n: usize) -> String {
    crate::output::report::count(n as u64, "puzzle")
}

/// The printable page, carrying its JSON pack so that `rrm solve --puzzles` reads it back.
fn html(pack: &Pack) -> Result<String> {
    let title = format!("Ricochet Robots: {}", puzzles(pack.puzzles.len()));
    let mut page = String::new();
    let _ = write!(
        page,
        r#"{head}
<h1>{title}</h1><div class="sub">{count} from campaign {campaign}, easiest first. Move the robot of the target's colour onto it; robots slide until they hit a wall or another robot. Solutions at the end.</div>
<div class="grid">"#,
        head = page_head(&title),
        title = escape(&title),
        count = puzzles(pack.puzzles.len()),
        campaign = escape(&pack.campaign)
    );
    let drawn = (pack.puzzles.iter())
        .map(|entry| Ok((entry, entry.puzzle()?, entry.solution()?)))
        .collect::<Result<Vec<_>>>()?;
    for (entry, puzzle, _) in &drawn {
        let board = ricochet::svg::board(puzzle, &Picture::default());
        let _ = write!(
            page,
            r#"<div class="card" id="puzzle-{number}"><h2>Puzzle {number} · {moves} moves · {label}</h2>{board}</div>"#,
            number = entry.number,
            moves = entry.moves,
            label = escape(&entry.label())
        );
    }
    page.push_str(r#"</div><div class="solutions"><h1>Solutions</h1><div class="grid">"#);
    for (entry, puzzle, solution) in &drawn {
        let picture = Picture {
            solution: Some(solution),
            ..Picture::default()
        };
        let board = ricochet::svg::board(puzzle, &picture);
        let _ = write!(
            page,
            r#"<div class="card"><h2>Puzzle {number}</h2>{board}<div class="moves">{moves}</div></div>"#,
            number = entry.number,
            moves = escape(&entry.solution.join(" "))
        );
    }
    page.push_str("</div></div>");
    // `<` escaped, so no text in the JSON can close the script.
    let json = serde_json::to_string(pack)?.replace('<', "\\u003c");
    let _ = write!(page, "{PACK_SCRIPT}{json}</script>");
    page.push_str("</body></html>\n");
    Ok(page)
}
