//! `rrm pack`: a curated puzzle pack from the mined results (seeds, or the placements an
//! exhaustive campaign lists by depth), as a printable HTML page or a JSON file for apps.
//! Same store and flags, same pack: candidates are taken hardest first, then by seed or
//! unit, and every step after that is deterministic.

use crate::client::backend::{Backend, BackendArgs};
use crate::commands::show::SOLUTION_COUNT_CAP;
use crate::commands::top::placement_puzzle;
use crate::format::pack::{EntryOrigin, Filters, Pack, PackEntry, PackFormat, PACK_FORMAT};
use crate::format::MetricsJson;
use crate::output::outfile::OutFile;
use crate::output::progress::Notes;
use anyhow::{bail, Context, Result};
use clap::builder::RangedU64ValueParser;
use clap::Args;
use ricochet::metrics::{metrics_under, Counting, Metrics};
use ricochet::{Generator, Move, Puzzle};
use rrm_coordinator::UnitBoard;
use rrm_model::numbers::thousands;
use rrm_model::{CampaignSpec, MinedPlacement, PlacementCells, Rules};
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
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

/// The candidates a pack passed over, by the filter that refused each.
#[derive(Default)]
struct PassedOver {
    same_board: usize,
    /// A placement like one chosen (see [`similar`]).
    similar: usize,
    /// A placement that looks arranged (see [`looks_natural`]).
    unnatural: usize,
    few_robots: usize,
    not_unique: usize,
    /// Uniqueness not decided: counting the optimal solutions passed its bound.
    undecided: usize,
    /// Set when the pack stopped before the candidates ran out.
    gave_up: Option<GaveUp>,
}

impl PassedOver {
    /// "3 not unique, 2 undecided (counting stopped at its bound), …", or "none refused".
    fn text(&self) -> String {
        let parts: Vec<String> = [
            (self.same_board, "on a board already chosen"),
            (
                self.similar,
                "like one chosen (same target and placement, one tile apart)",
            ),
            (self.unnatural, "arranged-looking (--natural)"),
            (self.few_robots, "moving too few robots"),
            (self.not_unique, "not unique"),
            (
                self.undecided,
                "undecided: counting their solutions stopped at its bound",
            ),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, why)| format!("{n} {why}"))
        .collect();
        match parts.is_empty() {
            true => "none refused".into(),
            false => parts.join(", "),
        }
    }
}

/// Whether two placements make the same puzzle to a player: the same target and the same
/// cells on boards that differ in one tile at most (the far tiles rarely matter). A pack
/// holds one of each such family.
fn similar(one: &MinedPlacement, other: &MinedPlacement) -> bool {
    let tiles = |board: &str| -> Vec<String> {
        board
            .split_whitespace()
            .filter(|t| *t != "DD")
            .map(String::from)
            .collect()
    };
    let (a, b) = (tiles(&one.board), tiles(&other.board));
    let differing = a.iter().zip(&b).filter(|(x, y)| x != y).count() + a.len().abs_diff(b.len());
    one.token == other.token && one.placement == other.placement && differing <= 1
}

/// Whether a placement looks dealt rather than arranged: no two robots in the same 2×2
/// corner of the board, and the three helpers not one cluster of robots side by side
/// (each next to another, all connected). Cells are `y * 16 + x`.
fn looks_natural(placement: &PlacementCells) -> bool {
    let at = |cell: u8| (i32::from(cell % 16), i32::from(cell / 16));
    let corner = |cell: u8| {
        let (x, y) = at(cell);
        let side = |v: i32| match v {
            0 | 1 => Some(0),
            14 | 15 => Some(1),
            _ => None,
        };
        side(x).zip(side(y))
    };
    let corners: Vec<_> = placement.iter().filter_map(|&c| corner(c)).collect();
    let stacked = (1..corners.len()).any(|i| corners[..i].contains(&corners[i]));
    let next_to = |a: u8, b: u8| {
        let ((ax, ay), (bx, by)) = (at(a), at(b));
        (ax - bx).abs() + (ay - by).abs() == 1
    };
    let [_, h1, h2, h3] = *placement;
    // Three cells are one connected cluster when at least two of their pairs touch.
    let touching = [(h1, h2), (h1, h3), (h2, h3)]
        .iter()
        .filter(|&&(a, b)| next_to(a, b))
        .count();
    !stacked && touching < 2
}

/// Candidates looked at before the pack projects its cost and may give up.
const LOOK_BEFORE_PROJECTING: usize = 10;

/// Why a pack stopped before its candidates ran out.
#[derive(Clone, Copy)]
enum GaveUp {
    /// Fewer candidates are left than still needed; or, where the rest would take over
    /// a minute, even at the rate of choosing seen so far, raised as if three more of
    /// those looked at had been chosen (the rule of three: a 95 % upper bound when none
    /// was), they give fewer than needed.
    CannotFill { looked: usize },
    /// Nine in ten of the candidates counted so far could not be decided unique: the
    /// rest would mostly be solved for nothing, and only a larger count bound helps.
    Undecided { looked: usize },
}

impl GaveUp {
    /// Whether to stop after `looked` candidates, `left` more taking `each` seconds.
    fn check(
        chosen: usize,
        passed_over: &PassedOver,
        (looked, left, each): (usize, usize, f64),
        count: usize,
    ) -> Option<GaveUp> {
        if looked < LOOK_BEFORE_PROJECTING {
            return None;
        }
        let needed = count.saturating_sub(chosen);
        let counted = chosen + passed_over.not_unique + passed_over.undecided;
        if counted >= LOOK_BEFORE_PROJECTING / 2 && passed_over.undecided * 10 >= counted * 9 {
            return Some(GaveUp::Undecided { looked });
        }
        let unlikely = each * left as f64 > 60.0
            && ((chosen + 3) as f64 / looked as f64 * left as f64) < needed as f64;
        (left < needed || unlikely).then_some(GaveUp::CannotFill { looked })
    }
}

fn choose(
    args: &PackArgs,
    generator: Option<Generator>,
    rules: Rules,
    candidates: Vec<Candidate>,
) -> Result<(Vec<Chosen>, PassedOver)> {
    let total = candidates.len();
    let counting = Counting {
        cap: if args.unique { 2 } else { SOLUTION_COUNT_CAP },
        states: args.count_states,
    };
    if args.unique {
        eprintln!(
            "rrm pack: --unique counts each candidate's optimal solutions over at most {} \
             states (--count-states); past that a candidate is passed over as undecided",
            thousands(counting.states as u64)
        );
    }
    let bar = crate::output::progress::bar_with_message(total as u64, "candidates");
    let mut notes = Notes::new(&bar, "rrm pack", std::time::Duration::from_secs(60));
    let started = std::time::Instant::now();
    let mut boards = HashSet::new();
    let mut chosen = Vec::new();
    let mut passed_over = PassedOver::default();
    for (rank, Candidate { origin, moves }) in candidates.into_iter().enumerate() {
        if chosen.len() == args.count {
            break;
        }
        let left = total - rank;
        let each = started.elapsed().as_secs_f64() / rank.max(1) as f64;
        // Said once, and only where the rest could take more than a minute.
        if rank == LOOK_BEFORE_PROJECTING && each * left as f64 > 60.0 {
            notes.line(format!(
                "{} of the first {rank} candidates chosen ({}); at {each:.1} s a candidate \
                 the other {} take up to {}",
                chosen.len(),
                passed_over.text(),
                thousands(left as u64),
                crate::output::progress::short_duration((each * left as f64).round() as u64)
            ));
        }
        if let Some(gave_up) =
            GaveUp::check(chosen.len(), &passed_over, (rank, left, each), args.count)
        {
            passed_over.gave_up = Some(gave_up);
            break;
        }
        bar.set_message(format!(
            "{}/{} chosen; passed over: {}",
            chosen.len(),
            args.count,
            passed_over.text()
        ));
        notes.now_and_then(|| {
            format!(
                "{} of {} candidates looked at, {}/{} chosen; passed over: {}",
                thousands(rank as u64),
                thousands(total as u64),
                chosen.len(),
                args.count,
                passed_over.text()
            )
        });
        bar.inc(1);
        if let Origin::Placement(mined) = &origin {
            if args.natural && !looks_natural(&mined.placement) {
                passed_over.unnatural += 1;
                continue;
            }
            if chosen.iter().any(|c: &Chosen| match &c.origin {
                Origin::Placement(other) => similar(mined, other),
                Origin::Seed(_) => false,
            }) {
                passed_over.similar += 1;
                continue;
            }
        }
        let (puzzle, token, board) = origin.draw(generator)?;
        if args.distinct_boards && boards.contains(&board) {
            passed_over.same_board += 1;
            continue;
        }
        // Every puzzle is solved again: the store's move count must be the optimum.
        let label = origin.label();
        let solution = ricochet::rules::solve_on_thread(&puzzle, rules, moves)
            .with_context(|| format!("{label} has no solution"))?
            .moves;
        if solution.len() != usize::from(moves) {
            bail!(
                "{label}: the store says {moves} moves, the solver finds {}",
                solution.len()
            );
        }
        if ricochet::puzzle::robots_moved(&solution) < args.min_robots {
            passed_over.few_robots += 1;
            continue;
        }
        let measured = metrics_under(&puzzle, &solution, counting, rules);
        match measured.optimal_solutions {
            _ if !args.unique => {}
            Some(1) => {}
            Some(_) => {
                passed_over.not_unique += 1;
                continue;
            }
            None => {
                passed_over.undecided += 1;
                continue;
            }
        }
        boards.insert(board.clone());
        chosen.push(Chosen {
            origin,
            puzzle,
            token,
            board,
            solution,
            metrics: measured,
            rank,
        });
    }
    bar.finish_and_clear();
    // Easiest first, like a puzzle book.
    chosen.sort_by_key(|c| (c.solution.len(), c.rank));
    Ok((chosen, passed_over))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn placement(board: &str, token: &str, cells: PlacementCells) -> MinedPlacement {
        MinedPlacement {
            campaign: "census".into(),
            unit: 0,
            board: board.into(),
            token: token.into(),
            target_cell: 0,
            placement: cells,
            moves: 20,
            solution: Vec::new(),
        }
    }

    /// The similarity rule: same target and cells, boards at most one tile apart.
    #[test]
    fn placements_one_tile_apart_are_similar() {
        let cells = [57, 17, 40, 200];
        let base = placement("1A 3B 4A 2B", "RT", cells);
        assert!(similar(&base, &placement("1A 3B 4A 2A", "RT", cells)));
        assert!(!similar(&base, &placement("1B 3B 4A 2A", "RT", cells)));
        assert!(!similar(&base, &placement("1A 3B 4A 2A", "GT", cells)));
        assert!(!similar(
            &base,
            &placement("1A 3B 4A 2B", "RT", [57, 17, 40, 201])
        ));
        let dd = placement("DD 1C 2D 3C 4D", "RT", cells);
        assert!(similar(&dd, &placement("DD 1C 2D 3C 4C", "RT", cells)));
        assert!(!similar(&dd, &placement("DD 1D 2D 3C 4C", "RT", cells)));
    }

    /// The `--natural` rule: no two robots in one 2×2 corner, helpers not one cluster.
    #[test]
    fn arranged_looking_placements_are_told_apart() {
        // Helpers stacked in the top-left corner (the census pack's complaint).
        assert!(!looks_natural(&[57, 0, 1, 16]));
        // The target robot and one helper in the bottom-right corner.
        assert!(!looks_natural(&[255, 40, 100, 238]));
        // Three helpers side by side in an L.
        assert!(!looks_natural(&[50, 100, 101, 117]));
        // One pair side by side, one corner robot: natural.
        assert!(looks_natural(&[50, 100, 101, 200]));
        assert!(looks_natural(&[50, 0, 100, 200]));
    }
}
