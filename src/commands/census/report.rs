//! `rrm census report`: the census's published results, regenerated from the unit files
//! alone: `census.json` (the edition's histograms, maxima and means over all and over
//! legal placements, every placement at each maximum with an optimal solution, the
//! maximum of each board and token, who computed and who checked the units),
//! `records.jsonl` (those placements as puzzle records) and `README.md` with its pictures (`figures/`): the distribution, the 96 × 16
//! heatmaps of unit maxima and each record position drawn with its solution. With a
//! mined seed campaign, the README also compares the seeds' move counts with the
//! distribution the census predicts for them ([`super::crosscheck`]).

use super::crosscheck::{self, CrossCheck};
use super::pictures;
use super::readme::readme;
use super::records::{earlier_solutions, records, Solutions};
use crate::output::unit_result::{self, UnitResultJson};
use anyhow::{bail, Context, Result};
use ricochet::edition::{unit_tokens, EditionBoard, VORTEX};
use ricochet::PuzzleRecord;
use rrm_model::numbers::thousands;
use rrm_model::{deepest, Distribution};
use rrm_model::{UnitMap, UnitMaxima};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Record positions drawn in the README, per maximum.
const DRAWN: usize = 4;
/// Record positions listed in the README, per maximum (`census.json` has them all).
pub(super) const LISTED: usize = 32;

/// The boards a census covers; the first edition's vortex units are a census of their own
/// directory, the other editions keep them beside the coloured ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Edition {
    /// The first edition under Fogleman's tile names (96 boards).
    First,
    /// The second edition as DriftingDroids plays it: its sides C and D (96 boards).
    Second,
    /// Every board DriftingDroids deals: sides A to D (1,536 boards).
    All,
}

impl Edition {
    /// Where its unit files and its report live.
    pub(super) fn directory(self) -> &'static str {
        match self {
            Edition::First => "data/exhaustive",
            Edition::Second => "data/exhaustive/second-edition",
            Edition::All => "data/exhaustive/all-sides",
        }
    }

    /// Its boards' canonical names, in campaign order.
    pub fn boards(self) -> Vec<String> {
        let boards = match self {
            Edition::First => EditionBoard::fogleman_canonical(),
            Edition::Second => EditionBoard::driftingdroids_canonical("CD"),
            Edition::All => EditionBoard::driftingdroids_canonical("ABCD"),
        };
        boards.iter().map(EditionBoard::name).collect()
    }

    pub fn title(self) -> &'static str {
        match self {
            Edition::First => "the first edition",
            Edition::Second => "the second edition as DriftingDroids plays it",
            Edition::All => "every board DriftingDroids deals",
        }
    }

    /// The `CENSUS_EDITION` of `data/exhaustive/census`.
    pub(super) fn script_name(self) -> &'static str {
        match self {
            Edition::First => "first",
            Edition::Second => "second",
            Edition::All => "all",
        }
    }
}

#[derive(clap::Args)]
pub struct ReportArgs {
    /// The census: `first` (Fogleman's boards), `second` (DriftingDroids' C and D sides)
    /// or `all` (every board DriftingDroids deals). It names the default directories.
    #[arg(long, value_enum, default_value_t = Edition::First)]
    edition: Edition,
    /// The unit files (`rrm census export`, or a coordinator's `--unit-files`) [default:
    /// the edition's, e.g. data/exhaustive/units].
    #[arg(long, value_name = "DIR")]
    units: Option<PathBuf>,
    /// Where census.json, README.md and figures/ go (a directory of coloured and vortex
    /// units: the vortex's report in its vortex/) [default: e.g. data/exhaustive].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// A local store holding a mined campaign (fogleman or driftingdroids games) to
    /// cross-check against.
    #[arg(long, value_name = "DIR", requires = "seeds_campaign")]
    seeds_data: Option<PathBuf>,
    /// The seed campaign in --seeds-data.
    #[arg(long, value_name = "NAME", requires = "seeds_data")]
    seeds_campaign: Option<String>,
}

/// `census.json`.
#[derive(Serialize)]
pub struct Census {
    /// Which boards: `first`, `second` or `all`.
    #[serde(serialize_with = "edition_name")]
    pub edition: Edition,
    /// The census's targets: the 16 coloured tokens, or the vortex alone (a census of its
    /// own: its robots are interchangeable and its board has the vortex's walls).
    pub targets: Vec<String>,
    pub units_total: usize,
    pub units_done: usize,
    /// Every placement of every done unit, counted once.
    pub placements: u64,
    pub all: Extreme,
    pub legal: Extreme,
    pub boards: Vec<Maxima>,
    pub tokens: Vec<Maxima>,
    pub provenance: Checks,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cross_check: Option<CrossCheck>,
}

/// The distribution over all (or legal) placements and the placements at its maximum.
#[derive(Serialize)]
pub struct Extreme {
    pub histogram: Vec<u64>,
    pub max_moves: u8,
    pub mean_moves: f64,
    /// Every placement at `max_moves`, when `complete` (a unit file lists at most its
    /// campaign's `max_hardest` of them).
    pub records: Vec<Record>,
    pub complete: bool,
}

#[derive(Serialize, Clone)]
pub struct Record {
    pub board: String,
    pub token: String,
    /// Target robot, then helpers, `y * 16 + x` (for the vortex: the four cells
    /// ascending).
    pub placement: String,
    pub moves: u8,
    /// An optimal solution, in move notation.
    pub solution: String,
    /// The position's DriftingDroids game ID, when DriftingDroids plays this board (the
    /// first edition's coloured units are Fogleman's boards, without the vortex's walls).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dd_id: Option<String>,
    /// The position as a puzzle record: `records.jsonl` holds each once, a line each, which
    /// `rrm solve --puzzles` reads.
    #[serde(skip)]
    pub puzzle: PuzzleRecord,
}

/// The maxima of one board (16 units) or token (96 units).
#[derive(Serialize)]
pub struct Maxima {
    pub name: String,
    pub units: usize,
    pub max_moves: u8,
    pub legal_max_moves: u8,
}

/// Who computed the units and how many a second identity checked.
#[derive(Serialize, Default)]
pub struct Checks {
    pub computed_by: BTreeMap<String, usize>,
    /// Units a second identity computed again, with the same result.
    pub verified: usize,
    /// Units drawn for a second computation not made yet.
    pub check_pending: usize,
    /// Units whose maximum is 22 or more, and how many of them are verified.
    pub record_candidates: usize,
    pub record_candidates_verified: usize,
    /// CPU time of the units' computations (the producers' own figures).
    pub cpu_hours: f64,
    /// The units not done yet at the mean CPU of those done (their producers' figures),
    /// in hours; 0 when the census is complete.
    pub cpu_hours_left: f64,
}

/// One done unit, read from its file.
pub(super) struct Unit {
    pub(super) board: String,
    pub(super) token: String,
    pub(super) file: UnitResultJson,
}

impl Unit {
    fn legal_max(&self) -> u8 {
        deepest(&self.file.legal_histogram)
    }
}

pub fn run(args: ReportArgs) -> Result<std::process::ExitCode> {
    let edition = args.edition;
    let units_dir =
        (args.units.clone()).unwrap_or_else(|| Path::new(edition.directory()).join("units"));
    let out = (args.out.clone()).unwrap_or_else(|| PathBuf::from(edition.directory()));
    let units = read_units(&units_dir)?;
    if units.is_empty() {
        bail!("no unit files in {}", units_dir.display());
    }
    let boards = edition.boards();
    if let Some(stray) = units.iter().find(|u| !boards.contains(&u.board)) {
        bail!(
            "{}: board {:?} is not one of {}'s boards (see --edition)",
            units_dir.display(),
            stray.board,
            edition.title()
        );
    }
    let (vortex, coloured): (Vec<Unit>, Vec<Unit>) =
        units.into_iter().partition(|u| u.token == VORTEX);
    let vortex_out = if coloured.is_empty() {
        out.clone()
    } else {
        out.join("vortex")
    };
    for (units, out) in [(coloured, out), (vortex, vortex_out)] {
        if !units.is_empty() {
            report(&args, edition, &units, &out)?;
        }
    }
    Ok(std::process::ExitCode::SUCCESS)
}

/// Writes the report of one census (coloured or vortex units) in `out`.
fn report(args: &ReportArgs, edition: Edition, units: &[Unit], out: &Path) -> Result<()> {
    let histograms: Vec<_> = (units.iter())
        .map(|u| (u.board.as_str(), u.token.as_str(), &u.file.legal_histogram))
        .collect();
    // The games of the store asked for, else those an earlier report here kept.
    let mined = match (&args.seeds_data, &args.seeds_campaign) {
        (Some(data), Some(name)) => Some(crosscheck::mined_games(data, name, &histograms)?),
        _ => crosscheck::kept(out)?,
    };
    let cross_check = match &mined {
        Some(games) => {
            let check = crosscheck::compare(games, &histograms)?;
            if check.is_none() {
                eprintln!(
                    "rrm census report: no game of campaign {} falls on a board whose \
                     units in {} are all done: that report has no cross-check",
                    games.header.seed_campaign,
                    out.display()
                );
            }
            check
        }
        None => None,
    };
    let earlier = earlier_solutions(out);
    let census = census(edition, units, cross_check, earlier)?;
    std::fs::create_dir_all(out.join("figures"))?;
    let json = serde_json::to_string_pretty(&census)? + "\n";
    std::fs::write(out.join("census.json"), json)?;
    // Each position once: a legal record is most often a record over all placements too.
    let mut puzzles = String::new();
    let mut written = HashSet::new();
    for record in census.all.records.iter().chain(&census.legal.records) {
        if written.insert(record.key()) {
            puzzles += &(serde_json::to_string(&record.puzzle)? + "\n");
        }
    }
    std::fs::write(out.join("records.jsonl"), puzzles)?;
    let figures = pictures::write(
        &out.join("figures"),
        &census,
        &heatmap_cells(&edition.boards(), &census.targets, units),
    )?;
    std::fs::write(out.join("README.md"), readme(&census, &figures))?;
    if let Some(games) = &mined {
        crosscheck::keep(games, out)?;
    }
    use std::io::Write;
    writeln!(
        crate::output::stdout::lock(),
        "{} of {} units: maximum {} moves over all placements, {} over legal ones; wrote {}",
        thousands(census.units_done as u64),
        thousands(census.units_total as u64),
        census.all.max_moves,
        census.legal.max_moves,
        out.join("census.json").display()
    )?;
    Ok(())
}

fn read_units(dir: &Path) -> Result<Vec<Unit>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<std::io::Result<_>>()?;
    paths.retain(|path| unit_result::is_unit_file(path));
    paths.sort();
    paths
        .iter()
        .map(|path| {
            let text = unit_result::read_text(path)?;
            let file: UnitResultJson = serde_json::from_str(&text)
                .with_context(|| format!("{}: not a unit result", path.display()))?;
            let (board, token) = file.unit()?;
            let (board, token) = (board.to_string(), token.to_string());
            Ok(Unit { board, token, file })
        })
        .collect()
}

fn census(
    edition: Edition,
    units: &[Unit],
    cross_check: Option<CrossCheck>,
    mut known: Solutions,
) -> Result<Census> {
    let mut distribution = Distribution::default();
    let mut checks = Checks::default();
    for unit in units {
        let file = &unit.file;
        distribution.add_histograms(&file.histogram, &file.legal_histogram, file.unsolvable);
        let Some(provenance) = &unit.file.provenance else {
            continue;
        };
        *checks
            .computed_by
            .entry(provenance.computed_by.clone())
            .or_default() += 1;
        checks.verified += usize::from(provenance.verified_by.is_some());
        checks.check_pending += usize::from(provenance.check_pending);
        checks.cpu_hours += provenance.cpu_seconds / 3600.0;
        if unit.file.max_moves >= 22 {
            checks.record_candidates += 1;
            checks.record_candidates_verified += usize::from(provenance.verified_by.is_some());
        }
    }
    let timed: usize = checks.computed_by.values().sum();
    let (all, legal) = (distribution.all(), distribution.legal());
    let (max, legal_max) = (all.max_moves(), legal.max_moves());
    let (all_records, all_complete) = records(units, max, false, &known)?;
    // Legal records are most often records over all placements too: solved once.
    known.extend(all_records.iter().map(|r| (r.key(), r.solution.clone())));
    let (legal_records, legal_complete) = records(units, legal_max, true, &known)?;
    let targets: Vec<String> = if units.iter().all(|u| u.token == VORTEX) {
        vec![VORTEX.to_string()]
    } else {
        (unit_tokens().into_iter())
            .filter(|&t| t != VORTEX)
            .map(str::to_string)
            .collect()
    };
    let units_total = edition.boards().len() * targets.len();
    if timed > 0 {
        checks.cpu_hours_left =
            checks.cpu_hours / timed as f64 * units_total.saturating_sub(units.len()) as f64;
    }
    Ok(Census {
        edition,
        units_total,
        targets,
        units_done: units.len(),
        placements: units.iter().map(|u| u.file.placements).sum(),
        all: Extreme {
            mean_moves: all.mean(),
            histogram: all.histogram,
            max_moves: max,
            records: all_records,
            complete: all_complete,
        },
        legal: Extreme {
            mean_moves: legal.mean(),
            histogram: legal.histogram,
            max_moves: legal_max,
            records: legal_records,
            complete: legal_complete,
        },
        boards: maxima(units, |u| &u.board),
        tokens: maxima(units, |u| &u.token),
        provenance: checks,
        cross_check,
    })
}

fn maxima(units: &[Unit], key: impl Fn(&Unit) -> &String) -> Vec<Maxima> {
    let mut by: BTreeMap<&String, Maxima> = BTreeMap::new();
    for unit in units {
        let entry = by.entry(key(unit)).or_insert_with(|| Maxima {
            name: key(unit).clone(),
            units: 0,
            max_moves: 0,
            legal_max_moves: 0,
        });
        entry.units += 1;
        entry.max_moves = entry.max_moves.max(unit.file.max_moves);
        entry.legal_max_moves = entry.legal_max_moves.max(unit.legal_max());
    }
    by.into_values().collect()
}

/// Boards a heatmap draws one row each; beyond, a row is a set of tile sides (the
/// boards that arrange the same four sides), which keeps every board's census readable.
pub(super) const HEATMAP_BOARDS: usize = 96;

/// The heatmaps' map: every target of the census, one row per board (or, for more than
/// [`HEATMAP_BOARDS`] boards, per set of tile sides, `1A 2D 3C 4B`, each cell the maximum
/// over the set's done boards), and the done units' maxima (unit numbers board-major).
fn heatmap_cells(boards: &[String], targets: &[String], units: &[Unit]) -> UnitMap {
    let by_sides = boards.len() > HEATMAP_BOARDS;
    let row_of = |board: &str| -> String {
        if !by_sides {
            return board.to_string();
        }
        let mut tiles: Vec<&str> = board.split_whitespace().filter(|t| *t != "DD").collect();
        tiles.sort_unstable();
        tiles.join(" ")
    };
    let mut rows: Vec<String> = boards.iter().map(|b| row_of(b)).collect();
    if by_sides {
        rows.sort();
        rows.dedup();
    }
    let targets = targets.to_vec();
    let row_index: HashMap<&str, usize> = (rows.iter().enumerate())
        .map(|(i, r)| (r.as_str(), i))
        .collect();
    let mut maxima: BTreeMap<(String, String), UnitMaxima> = BTreeMap::new();
    for u in units {
        let row = row_of(&u.board);
        let (Some(&b), Some(t)) = (
            row_index.get(row.as_str()),
            targets.iter().position(|t| *t == u.token),
        ) else {
            continue;
        };
        let cell = maxima.entry((row, u.token.clone())).or_insert(UnitMaxima {
            unit: (b * targets.len() + t) as u64,
            all: 0,
            legal: 0,
        });
        cell.all = cell.all.max(u.file.max_moves);
        cell.legal = cell.legal.max(u.legal_max());
    }
    UnitMap {
        boards: rows,
        targets,
        maxima,
    }
}

/// The draw of the README: at most [`DRAWN`] records of each maximum.
pub fn drawn(records: &[Record]) -> &[Record] {
    &records[..records.len().min(DRAWN)]
}

fn edition_name<S: serde::Serializer>(edition: &Edition, to: S) -> Result<S::Ok, S::Error> {
    to.serialize_str(edition.script_name())
}
