//! `rrm pack`: a curated puzzle pack from the mined results (seeds, or the placements an
//! exhaustive campaign lists by depth), as a printable HTML page or a JSON file for apps.
//! Same store and flags, same pack: candidates are taken hardest first, then by seed or
//! unit, and every step after that is deterministic.

mod choose;

use crate::client::backend::{Backend, BackendArgs};
use crate::commands::top::placement_puzzle;
use crate::format::pack::{EntryOrigin, Filters, Pack, PackEntry, PackFormat, PACK_FORMAT};
use crate::format::MetricsJson;
use crate::output::outfile::OutFile;
use anyhow::{bail, Context, Result};
use choose::{choose, GaveUp};
use clap::builder::RangedU64ValueParser;
use clap::Args;
use ricochet::metrics::Metrics;
use ricochet::{Generator, Move, Puzzle};
use rrm_coordinator::UnitBoard;
use rrm_model::numbers::thousands;
use rrm_model::{CampaignSpec, MinedPlacement};
use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::io::Write as _;
use std::ops::RangeInclusive;
use std::path::PathBuf;
use std::process::ExitCode;

/// Candidates read from the store at most.
pub(crate) const CANDIDATES: usize = 100_000;

#[derive(Args)]
pub struct PackArgs {
    /// Exactly this many optimal moves (instead of --min-moves and --max-moves).
    #[arg(long, conflicts_with_all = ["min_moves", "max_moves"], required_unless_present_all = ["min_moves", "max_moves"])]
    moves: Option<u8>,
    /// Fewest optimal moves of a puzzle in the pack.
    #[arg(long, requires = "max_moves")]
    min_moves: Option<u8>,
    /// Most optimal moves of a puzzle in the pack.
    #[arg(long, requires = "min_moves")]
    max_moves: Option<u8>,
    /// Puzzles in the pack.
    #[arg(long, value_parser = crate::input::at_least_one)]
    count: usize,
    /// Only puzzles with exactly one optimal solution.
    #[arg(long)]
    unique: bool,
    /// States --unique may visit counting one candidate's optimal solutions (about a
    /// second per million); a candidate past it is passed over as undecided.
    #[arg(long, default_value_t = ricochet::metrics::COUNT_STATES, value_parser = RangedU64ValueParser::<usize>::new().range(1..))]
    count_states: usize,
    /// Only puzzles whose solution moves at least this many robots.
    #[arg(long, default_value_t = 1, value_parser = RangedU64ValueParser::<usize>::new().range(1..=5))]
    min_robots: usize,
    /// At most one puzzle per board (arrangement of tiles as generated; for exhaustive
    /// campaigns the board up to rotation).
    #[arg(long, visible_alias = "one-per-board")]
    distinct_boards: bool,
    /// Exhaustive campaigns: only placements that look dealt, not arranged: no two robots
    /// in the same 2×2 corner of the board, and the three helpers not one cluster of
    /// side-by-side robots (`--natural=false` keeps every placement).
    #[arg(long, default_value_t = true, num_args = 0..=1, default_missing_value = "true", action = clap::ArgAction::Set)]
    natural: bool,
    /// Exhaustive campaigns: also placements with a robot on one of the board's targets,
    /// which Fogleman's generator never deals (by default only legal placements).
    #[arg(long)]
    all_placements: bool,
    /// The campaign (default: the only one).
    #[arg(long)]
    campaign: Option<String>,
    /// Output file: `.html` (printable page) or `.json` (for apps), unless --format says.
    #[arg(long)]
    out: PathBuf,
    /// The pack's format: `html`, `json`, `dd-id` (one DriftingDroids game ID per line)
    /// or `kcox` (K. Cox's text of each puzzle, a blank line between them).
    #[arg(long, value_enum)]
    format: Option<PackFormat>,
    #[command(flatten)]
    backend: BackendArgs,
}

/// Where a candidate comes from: a mined seed, or a placement of an exhaustive campaign.
enum Origin {
    Seed(u64),
    Placement(MinedPlacement),
}

/// A puzzle the store offers, with the move count it claims.
struct Candidate {
    origin: Origin,
    moves: u8,
}

/// A puzzle chosen for the pack.
struct Chosen {
    origin: Origin,
    puzzle: Puzzle,
    token: String,
    /// The board arrangement (seeds) or the canonical board (placements).
    board: String,
    solution: Vec<Move>,
    metrics: Metrics,
    /// The candidate's place in the store's order (hardest first, then by seed or unit).
    rank: usize,
}

pub fn run(args: PackArgs) -> Result<ExitCode> {
    // Every argument is checked before the minutes of solving.
    let extension = args.out.extension().and_then(|e| e.to_str());
    let Some(format) = args
        .format
        .or_else(|| extension.and_then(PackFormat::of_extension))
    else {
        bail!(
            "--out must end in .html or .json, or --format name the format, not {}",
            args.out.display()
        );
    };
    let moves = match (args.moves, args.min_moves, args.max_moves) {
        (Some(moves), _, _) => moves..=moves,
        (None, Some(min), Some(max)) if min <= max => min..=max,
        (None, Some(min), Some(max)) => bail!("--min-moves {min} is above --max-moves {max}"),
        _ => unreachable!("clap requires --moves or both bounds"),
    };
    let out = OutFile::create(&args.out)?;
    let mut backend = Backend::open(&args.backend)?;
    let name = backend.campaign_name(args.campaign.as_deref())?;
    let spec = backend.status(&name)?.campaign.spec;
    let rules = spec.rules;
    if spec.generator == Generator::Ricocheckers.name() {
        if args.unique || args.distinct_boards || !format.carries_solutions() {
            bail!("a Ricocheckers pack is HTML or JSON, without --unique or --distinct-boards");
        }
        let html = format == PackFormat::Html;
        let (content, chosen) = crate::commands::ricocheckers::mined::pack(
            &mut backend,
            &name,
            moves,
            args.count,
            args.min_robots,
            html,
        )?;
        out.write(content.as_bytes())?;
        let positions = crate::output::report::count(chosen as u64, "position");
        writeln!(
            crate::output::stdout::lock(),
            "wrote {positions} to {}",
            args.out.display()
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    if rules.restricts_moves() && args.unique {
        bail!("--unique counts optimal solutions under the standard moves; {name} is mined under the rules {rules}");
    }
    // Positions the rules' minimum refuses are never in a pack.
    let moves = (*moves.start()).max(rules.min_moves)..=*moves.end();
    if moves.is_empty() {
        bail!(
            "{name}'s rules {rules} refuse every position of fewer than {} moves",
            rules.min_moves
        );
    }
    let (generator, candidates): (_, Vec<Candidate>) = if spec.is_exhaustive() {
        let placements = backend.find_placements(&name, moves.clone(), CANDIDATES, false)?;
        // One board per unit, not per candidate: a unit lists hundreds.
        let mut boards: HashMap<u64, UnitBoard> = HashMap::new();
        let mut candidates = Vec::with_capacity(placements.len());
        for mined in placements {
            let unit = match boards.entry(mined.unit) {
                Entry::Occupied(known) => known.into_mut(),
                Entry::Vacant(new) => new.insert(UnitBoard::new(&mined.board, &mined.token)?),
            };
            if args.all_placements || unit.is_legal(&mined.placement, mined.moves) {
                candidates.push(Candidate {
                    moves: mined.moves,
                    origin: Origin::Placement(mined),
                });
            }
        }
        (None, candidates)
    } else {
        let generator: Generator = spec.generator.parse()?;
        let seeds = backend.find_puzzles(&name, moves.clone(), CANDIDATES)?;
        let candidates = seeds
            .into_iter()
            .map(|(seed, moves)| Candidate {
                origin: Origin::Seed(seed),
                moves,
            })
            .collect();
        (Some(generator), candidates)
    };
    let offered = candidates.len();
    let (chosen, passed_over) = choose(&args, generator, rules, candidates)?;
    match passed_over.gave_up {
        Some(GaveUp::CannotFill { looked }) => bail!(
            "gave up after {looked} of the {offered} candidates with {}..={} moves: {} chosen ({}); at that rate the other {} cannot give the {} still needed; no pack written (ask for fewer, or widen the moves or the filters)",
            moves.start(),
            moves.end(),
            chosen.len(),
            passed_over.text(),
            offered - looked,
            args.count - chosen.len()
        ),
        Some(GaveUp::Undecided { looked }) => bail!(
            "gave up after {looked} of the {offered} candidates with {}..={} moves: {} chosen ({}); most cannot be decided unique within {} states; no pack written (raise --count-states, about a second per million states and candidate, or ask for fewer moves)",
            moves.start(),
            moves.end(),
            chosen.len(),
            passed_over.text(),
            thousands(args.count_states as u64)
        ),
        None => {}
    }
    if chosen.len() < args.count {
        bail!(
            "only {} of the {offered} candidates with {}..={} moves pass the filters ({}), not the {} asked for; no pack written (ask for fewer, or widen the moves or the filters)",
            chosen.len(),
            moves.start(),
            moves.end(),
            passed_over.text(),
            args.count
        );
    }
    let pack = pack_of(&name, &spec, &args, &moves, &chosen);
    let (content, note) = crate::format::pack::write(&pack, format)?;
    if let Some(note) = note {
        eprintln!("rrm pack: {note}");
    }
    out.write(content.as_bytes())?;
    writeln!(
        crate::output::stdout::lock(),
        "wrote {} to {}",
        crate::output::report::count(chosen.len() as u64, "puzzle"),
        args.out.display()
    )?;
    Ok(ExitCode::SUCCESS)
}

impl Origin {
    /// The puzzle, its token and its board.
    fn draw(&self, generator: Option<Generator>) -> Result<(Puzzle, String, String)> {
        match self {
            Origin::Seed(seed) => {
                let generator = generator.context("a seed without its generator")?;
                let generated = generator.generate(*seed)?;
                Ok((generated.puzzle, generated.token, generated.arrangement))
            }
            Origin::Placement(mined) => Ok((
                placement_puzzle(mined)?,
                mined.token.clone(),
                mined.board.clone(),
            )),
        }
    }

    /// How the pack names it: `seed 4242` or `1A 3B 4A 2B RT 57,17,40,200`.
    fn label(&self) -> String {
        match self {
            Origin::Seed(seed) => format!("seed {seed}"),
            Origin::Placement(mined) => format!(
                "{} {} {}",
                mined.board,
                mined.token,
                mined.placement.map(|c| c.to_string()).join(",")
            ),
        }
    }
}

/// The pack of the chosen puzzles (docs/editions.md, "Puzzle pack JSON").
fn pack_of(
    name: &str,
    spec: &CampaignSpec,
    args: &PackArgs,
    moves: &RangeInclusive<u8>,
    chosen: &[Chosen],
) -> Pack {
    let puzzles = (chosen.iter().enumerate())
        .map(|(index, c)| {
            let mut record = c.puzzle.to_record(Some(c.origin.label()));
            record.moves = Some(c.solution.len() as u32);
            let origin = match &c.origin {
                Origin::Seed(seed) => EntryOrigin::Seed {
                    seed: *seed,
                    arrangement: c.board.clone(),
                },
                Origin::Placement(mined) => EntryOrigin::Placement {
                    unit: mined.unit,
                    board: c.board.clone(),
                    placement: mined.placement,
                },
            };
            PackEntry {
                number: index + 1,
                token: c.token.clone(),
                puzzle: record,
                moves: c.solution.len(),
                solution: c.solution.iter().map(Move::notation).collect(),
                metrics: MetricsJson::new(&c.metrics, c.solution.len()),
                origin,
            }
        })
        .collect();
    Pack {
        format: PACK_FORMAT.to_string(),
        campaign: name.to_string(),
        generator: spec.generator.clone(),
        rules: spec.rules.to_string(),
        filters: Filters {
            min_moves: *moves.start(),
            max_moves: *moves.end(),
            count: args.count,
            unique: args.unique,
            min_robots: args.min_robots,
            distinct_boards: args.distinct_boards,
            natural: args.natural,
        },
        puzzles,
    }
}
