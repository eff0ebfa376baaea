//! A mined Ricocheckers campaign (generator `ricocheckers`) as `rrm top` and `rrm pack`
//! show it: the longest forced wins with their positions and main lines, and a "win in N"
//! pack (printable HTML or JSON). Every position in a pack is proven again here.

use crate::client::backend::Backend;
use anyhow::{bail, Context, Result};
use ricochet::ricocheckers::puzzles::{answer, standard_field};
use ricochet::ricocheckers::{render, Position};
use ricochet::svg::escape;
use ricochet::{Dealer, Dealt, Generator};
use rrm_model::MinedPuzzle;
use serde::Serialize;
use std::fmt::Write as _;
use std::io::Write;
use std::ops::RangeInclusive;

/// The position a Ricocheckers campaign deals for `seed`.
fn position(seed: u64) -> Result<Position> {
    match Dealer::standard(Generator::Ricocheckers).deal(seed)? {
        Dealt::Ricocheckers(position) => Ok(position),
        Dealt::Puzzle(_) => unreachable!("the ricocheckers generator deals positions"),
    }
}

/// `rrm top` of a Ricocheckers campaign: rank, seed, win length, side to move, the
/// position (`P1/P2/SIDE` cells) and the kept main line.
pub fn top(name: &str, mined: &[MinedPuzzle], json: bool, min_moves: u8) -> Result<()> {
    let field = standard_field();
    let mut out = crate::output::stdout::lock();
    if mined.is_empty() && !json {
        writeln!(
            out,
            "{name}: no kept forced wins of at least {min_moves} moves yet"
        )?;
    }
    for (rank, mined) in mined.iter().enumerate() {
        let position = position(mined.seed)?;
        let text = field.write_position(&position);
        if json {
            let row = TopRow {
                campaign: name,
                rank: rank + 1,
                seed: mined.seed,
                moves: mined.moves,
                to_move: position.to_move + 1,
                position: &text,
                line: &mined.solution,
                re_proven: mined.re_solved,
            };
            writeln!(out, "{}", serde_json::to_string(&row)?)?;
        } else {
            writeln!(
                out,
                "{:>3}. seed {:>10}  win in {}{}  player {} to move  {text}\n     {}",
                rank + 1,
                mined.seed,
                mined.moves,
                if mined.re_solved { " (re-proven)" } else { "" },
                position.to_move + 1,
                mined.solution.join(" ")
            )?;
        }
    }
    Ok(())
}

/// A position chosen for a pack, proven again.
struct Chosen {
    seed: u64,
    position: Position,
    moves: u8,
    line: Vec<String>,
}

/// The candidates taken in turn from each win length (lowest seeds first), so that a pack
/// spans its range of lengths rather than filling up with the longest.
fn spread(candidates: &[(u64, u8)]) -> Vec<(u64, u8)> {
    let mut by_moves: std::collections::BTreeMap<u8, Vec<u64>> = Default::default();
    for &(seed, moves) in candidates {
        by_moves.entry(moves).or_default().push(seed);
    }
    let mut queues: Vec<_> = by_moves
        .into_iter()
        .map(|(moves, mut seeds)| {
            seeds.sort_unstable();
            (moves, seeds.into_iter())
        })
        .collect();
    let mut spread = Vec::with_capacity(candidates.len());
    while spread.len() < candidates.len() {
        for (moves, seeds) in &mut queues {
            spread.extend(seeds.next().map(|seed| (seed, *moves)));
        }
    }
    spread
}

/// Chooses `count` positions among `candidates` (seed, claimed moves), spread over the
/// win lengths, proving each again and refusing the pack if a claim is wrong; easiest
/// first.
fn choose(candidates: &[(u64, u8)], count: usize, min_pieces: usize) -> Result<Vec<Chosen>> {
    let field = standard_field();
    let bar = crate::output::progress::bar(count as u64, "positions proven");
    let mut chosen = Vec::new();
    for (seed, moves) in spread(candidates) {
        if chosen.len() == count {
            break;
        }
        let position = position(seed)?;
        let proven = answer(field, &position, moves)
            .with_context(|| format!("seed {seed}: the proof did not settle"))?;
        if proven.moves != moves {
            bail!(
                "seed {seed}: the store says a win in {moves}, the prover finds {}",
                proven.moves
            );
        }
        if usize::from(proven.pieces) < min_pieces {
            continue;
        }
        chosen.push(Chosen {
            seed,
            position,
            moves,
            line: proven.line.iter().map(ToString::to_string).collect(),
        });
        bar.inc(1);
    }
    bar.finish_and_clear();
    chosen.sort_by_key(|c| (c.moves, c.seed));
    Ok(chosen)
}

/// `rrm pack` of a Ricocheckers campaign: the pack's text, HTML or JSON.
pub fn pack(
    backend: &mut Backend,
    name: &str,
    moves: RangeInclusive<u8>,
    count: usize,
    min_pieces: usize,
    html: bool,
) -> Result<(String, usize)> {
    if *moves.start() == 0 {
        bail!("a Ricocheckers pack holds forced wins: --min-moves must be at least 1");
    }
    let candidates =
        backend.find_puzzles(name, moves.clone(), crate::commands::pack::CANDIDATES)?;
    let chosen = choose(&candidates, count, min_pieces)?;
    if chosen.len() < count {
        bail!(
            "only {} of the {} positions with a win in {}..={} pass the filters, not the {count} asked for; no pack written",
            chosen.len(),
            candidates.len(),
            moves.start(),
            moves.end()
        );
    }
    let content = if html {
        html_pack(name, &chosen)
    } else {
        json_pack(name, &moves, &chosen)?
    };
    Ok((content, chosen.len()))
}

/// One forced win of `rrm top --format json` on a Ricocheckers campaign.
#[derive(Serialize)]
struct TopRow<'a> {
    campaign: &'a str,
    rank: usize,
    seed: u64,
    moves: u8,
    to_move: u8,
    position: &'a str,
    line: &'a [String],
    re_proven: bool,
}

/// A Ricocheckers pack as JSON (`rrm-ricocheckers-pack/1`).
#[derive(Serialize)]
struct PackJson<'a> {
    format: &'static str,
    campaign: &'a str,
    generator: &'static str,
    filters: PackFilters,
    puzzles: Vec<PackPosition<'a>>,
}

#[derive(Serialize)]
struct PackFilters {
    min_moves: u8,
    max_moves: u8,
}

#[derive(Serialize)]
struct PackPosition<'a> {
    number: usize,
    seed: u64,
    position: String,
    to_move: u8,
    moves: u8,
    line: &'a [String],
}

fn json_pack(name: &str, moves: &RangeInclusive<u8>, chosen: &[Chosen]) -> Result<String> {
    let field = standard_field();
    let pack = PackJson {
        format: "rrm-ricocheckers-pack/1",
        campaign: name,
        generator: Generator::Ricocheckers.name(),
        filters: PackFilters {
            min_moves: *moves.start(),
            max_moves: *moves.end(),
        },
        puzzles: (chosen.iter().enumerate())
            .map(|(index, c)| PackPosition {
                number: index + 1,
                seed: c.seed,
                position: field.write_position(&c.position),
                to_move: c.position.to_move + 1,
                moves: c.moves,
                line: &c.line,
            })
            .collect(),
    };
    Ok(serde_json::to_string(&pack)?)
}

/// A printable page: the positions, two to a row, then the main lines.
fn html_pack(name: &str, chosen: &[Chosen]) -> String {
    let field = standard_field();
    let mut page = String::new();
    let _ = write!(
        page,
        r#"{head}
<h1>Ricocheckers: win in N</h1><div class="sub">{count} positions from campaign {campaign}, easiest first. The side to move forces a win in the moves given, whatever the opponent plays: fill the opponent's three start cells (marked) with your own pieces. Pieces slide like Ricochet robots. Every win is proven by exhaustive search; main lines at the end.</div>
<div class="grid">"#,
        head = crate::format::pack::page_head("Ricocheckers: win in N"),
        count = chosen.len(),
        campaign = escape(name)
    );
    for (index, c) in chosen.iter().enumerate() {
        let title = format!(
            "{}: player {} wins in {}",
            index + 1,
            c.position.to_move + 1,
            c.moves
        );
        let _ = write!(
            page,
            r#"<div class="card" id="puzzle-{number}"><h2>{title} · seed {seed}</h2>{board}</div>"#,
            number = index + 1,
            title = escape(&title),
            seed = c.seed,
            board = render::svg(field, &c.position, "")
        );
    }
    page.push_str(r#"</div><div class="solutions"><h1>Main lines</h1><ol>"#);
    for c in chosen {
        let _ = write!(
            page,
            r#"<li><span class="moves">{}</span> (position {})</li>"#,
            escape(&c.line.join(" ")),
            escape(&field.write_position(&c.position))
        );
    }
    page.push_str("</ol></div></body></html>\n");
    page
}
