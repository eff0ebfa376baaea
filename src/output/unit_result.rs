//! The exhaustive unit result file format: what `rrm exhaust --json` prints, what
//! `rrm census export` writes from a campaign (with its provenance) and what
//! `rrm campaign import` reads. One JSON object per unit (a file may hold several, one
//! after another); cells are `y * 16 + x` on the board as named, and a placement is one
//! string `"T H1 H2 H3"` (target robot, then helpers ascending; files of earlier versions
//! wrote `{"target_robot": T, "helpers": [H1, H2, H3]}`, which is still read).

use anyhow::{Context, Result};
use ricochet::exhaustive::{Analysis, Placement};
use ricochet::Board;
use rrm_coordinator::{DoneUnit, UnitBoard};
use rrm_model::ExhaustiveUnit;
use rrm_model::PlacementCells;
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::path::Path;

/// One unit's result. Fields beyond the analysis (timings, the analysed position) are
/// informative; import ignores them.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct UnitResultJson {
    /// Fogleman tiles in slot order; absent for a board read from a puzzle file. Import
    /// takes only the canonical rotation (tile 1 top-left), as campaigns do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<String>,
    /// The target token, e.g. `RT`; absent for a board read from a puzzle file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    pub target_cell: u32,
    pub placements: u64,
    /// `histogram[d]`: placements needing `d` moves.
    pub histogram: Vec<u64>,
    /// The same over Fogleman-legal placements (no robot on one of the board's 16 targets).
    pub legal_histogram: Vec<u64>,
    pub unsolvable: u64,
    pub max_moves: u8,
    /// Every placement at `max_moves` (a campaign keeps the first `max_hardest`).
    pub hardest: Vec<PlacementJson>,
    pub top: Vec<DepthJson>,
    pub sample: Vec<SampleJson>,
    pub sample_size: u32,
    pub top_from: u8,
    pub top_per_depth: u32,
    /// One entry per depth from 1 to `max_moves`: up to 64 of its legal placements,
    /// spread evenly (absent from files of earlier versions).
    #[serde(default)]
    pub legal_samples: Vec<DepthJson>,
    /// Legal placements at the deepest depth a legal placement needs (a campaign keeps
    /// the first `max_hardest`).
    #[serde(default)]
    pub legal_hardest: Vec<PlacementJson>,
    /// The coordinator's optimal solution of each hardest placement, in move notation
    /// separated by spaces (files written by `rrm census export`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hardest_solutions: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub legal_hardest_solutions: Vec<String>,
    /// Who computed the unit and who checked it (files written by `rrm census export`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<ProvenanceJson>,
    /// The rule set, when not today's (`rrm exhaust --rules`). Campaigns and the census
    /// hold today's rule only, so import and census reports refuse any other.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<String>,
    /// How the unit was computed (informative).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<RunJson>,
}

/// A placement: the target robot's cell, then the helpers' cells ascending.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlacementJson {
    pub target_robot: u32,
    /// The helpers' cells, ascending.
    pub helpers: Vec<u32>,
}

/// How a placement is written (a string) or was written by earlier versions (an object).
#[derive(Deserialize)]
#[serde(untagged)]
enum PlacementForm {
    Text(String),
    Object {
        target_robot: u32,
        helpers: Vec<u32>,
    },
}

impl Serialize for PlacementJson {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut text = self.target_robot.to_string();
        for helper in &self.helpers {
            text.push(' ');
            text.push_str(&helper.to_string());
        }
        serializer.serialize_str(&text)
    }
}

impl<'de> Deserialize<'de> for PlacementJson {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match PlacementForm::deserialize(deserializer)? {
            PlacementForm::Object {
                target_robot,
                helpers,
            } => Ok(PlacementJson {
                target_robot,
                helpers,
            }),
            PlacementForm::Text(text) => {
                let cells: Vec<u32> = text
                    .split(' ')
                    .map(str::parse)
                    .collect::<Result<_, _>>()
                    .map_err(|_| {
                        serde::de::Error::custom(format!(
                            "placement {text:?} is not cells separated by spaces"
                        ))
                    })?;
                let (&target_robot, helpers) = cells
                    .split_first()
                    .ok_or_else(|| serde::de::Error::custom("an empty placement"))?;
                Ok(PlacementJson {
                    target_robot,
                    helpers: helpers.to_vec(),
                })
            }
        }
    }
}

/// Who computed a unit, who checked it and with what.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ProvenanceJson {
    /// The identity (token name) whose result is stored.
    pub computed_by: String,
    /// The identity whose own computation agreed; `(coordinator)` when the coordinator
    /// settled a disagreement itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verified_by: Option<String>,
    /// Drawn for a second computation that no other identity has made yet.
    #[serde(default)]
    pub check_pending: bool,
    pub rrm_version: String,
    /// The producer's CPU time for the unit.
    pub cpu_seconds: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DepthJson {
    pub depth: u8,
    pub placements: Vec<PlacementJson>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SampleJson {
    pub placement: PlacementJson,
    /// `null`: unsolvable.
    pub moves: Option<u8>,
}

/// Where and how fast a unit was computed.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunJson {
    pub rrm_version: String,
    pub threads: usize,
    pub cpu_seconds: f64,
    pub wall_seconds: f64,
    pub peak_memory_bytes: u64,
}

/// Options of an analysis as a result file records them.
pub struct Lists {
    pub sample_size: u32,
    pub top_from: u8,
    pub top_per_depth: u32,
}

impl PlacementJson {
    pub fn of_cells(cells: &PlacementCells) -> PlacementJson {
        PlacementJson {
            target_robot: cells[0].into(),
            helpers: cells[1..].iter().map(|&c| c.into()).collect(),
        }
    }

    pub fn new(board: &Board, placement: &Placement) -> PlacementJson {
        let indices = placement.indices(board);
        PlacementJson {
            target_robot: indices[0] as u32,
            helpers: indices[1..].iter().map(|&i| i as u32).collect(),
        }
    }
}

impl UnitResultJson {
    /// The result of `analysis` of a unit on `board` (cells become `y * 16 + x`).
    pub fn new(
        board: &Board,
        unit: (Option<String>, Option<String>),
        target: ricochet::Cell,
        analysis: &Analysis,
        lists: &Lists,
    ) -> UnitResultJson {
        let cells = |list: &[Placement]| -> Vec<PlacementJson> {
            list.iter().map(|p| PlacementJson::new(board, p)).collect()
        };
        UnitResultJson {
            board: unit.0,
            token: unit.1,
            target_cell: board.index_of(target) as u32,
            placements: analysis.placements,
            histogram: analysis.histogram.clone(),
            legal_histogram: analysis.legal_histogram.clone(),
            unsolvable: analysis.unsolvable,
            max_moves: analysis.max_moves,
            hardest: cells(&analysis.hardest),
            top: analysis
                .top
                .iter()
                .map(|(depth, list)| DepthJson {
                    depth: *depth,
                    placements: cells(list),
                })
                .collect(),
            sample: analysis
                .sample
                .iter()
                .map(|(placement, moves)| SampleJson {
                    placement: PlacementJson::new(board, placement),
                    moves: *moves,
                })
                .collect(),
            sample_size: lists.sample_size,
            top_from: lists.top_from,
            top_per_depth: lists.top_per_depth,
            legal_samples: analysis
                .legal_samples
                .iter()
                .zip(1..)
                .map(|(list, depth)| DepthJson {
                    depth,
                    placements: cells(list),
                })
                .collect(),
            legal_hardest: cells(&analysis.legal_hardest),
            hardest_solutions: Vec::new(),
            legal_hardest_solutions: Vec::new(),
            rules: None,
            provenance: None,
            run: None,
        }
    }

    /// The file of a campaign's done unit (`work` is what the campaign asks of it).
    pub fn of_done(done: &DoneUnit, work: &ExhaustiveUnit) -> Result<UnitResultJson> {
        let unit = UnitBoard::new(&done.board, &done.token)?;
        let result = &done.record.result;
        let cells = |list: &[PlacementCells]| -> Vec<PlacementJson> {
            list.iter().map(PlacementJson::of_cells).collect()
        };
        let depths = |lists: &mut dyn Iterator<Item = (u8, &Vec<PlacementCells>)>| {
            lists
                .map(|(depth, list)| DepthJson {
                    depth,
                    placements: cells(list),
                })
                .collect()
        };
        let notation = |solutions: &[Vec<String>]| -> Vec<String> {
            solutions.iter().map(|moves| moves.join(" ")).collect()
        };
        let provenance = &done.provenance;
        Ok(UnitResultJson {
            board: Some(done.board.clone()),
            token: Some(done.token.clone()),
            target_cell: unit.target_cell.into(),
            placements: unit.placements(),
            histogram: result.histogram.clone(),
            legal_histogram: result.legal_histogram.clone(),
            unsolvable: result.unsolvable,
            max_moves: result.max_moves,
            hardest: cells(&result.hardest),
            top: depths(&mut result.top.iter().map(|(d, list)| (*d, list))),
            sample: result
                .sample
                .iter()
                .map(|(placement, moves)| SampleJson {
                    placement: PlacementJson::of_cells(placement),
                    moves: *moves,
                })
                .collect(),
            sample_size: work.sample_size,
            top_from: work.top_from,
            top_per_depth: work.top_per_depth,
            legal_samples: depths(&mut result.legal_samples.iter().zip(1..).map(|(l, d)| (d, l))),
            legal_hardest: cells(&result.legal_hardest),
            hardest_solutions: notation(&done.record.hardest_solutions),
            legal_hardest_solutions: notation(&done.record.legal_hardest_solutions),
            rules: None,
            provenance: Some(ProvenanceJson {
                computed_by: provenance.producer.clone().unwrap_or_default(),
                verified_by: provenance.verified_by.clone(),
                check_pending: provenance.check_pending,
                rrm_version: provenance.rrm_version.clone(),
                cpu_seconds: provenance.cpu_ms as f64 / 1000.0,
            }),
            run: None,
        })
    }

    /// The file name of a unit: board tiles and token, e.g. `1A2B3A4B-RT.json`, or
    /// `….json.gz` gzipped.
    pub fn file_name(board: &str, token: &str, gzip: bool) -> String {
        let gz = if gzip { ".gz" } else { "" };
        format!("{}-{token}.json{gz}", board.replace(' ', ""))
    }

    /// The Fogleman unit (board, token) the result is for.
    pub fn unit(&self) -> Result<(&str, &str)> {
        if let Some(rules) = &self.rules {
            anyhow::bail!(
                "analysed under rules {rules}; campaigns and the census hold today's rule \
                 (standard) only, and a result is never merged across rules"
            );
        }
        self.board
            .as_deref()
            .zip(self.token.as_deref())
            .context("not a Fogleman unit: the result names no board and token")
    }
}

/// Whether `path` names a unit file: `.json`, or `.json.gz` gzipped.
pub fn is_unit_file(path: &Path) -> bool {
    let name = path
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or("");
    name.ends_with(".json") || name.ends_with(".json.gz")
}

/// The text of a unit file, gunzipped if its name ends in `.gz`.
pub fn read_text(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    if path.extension().is_none_or(|extension| extension != "gz") {
        return String::from_utf8(bytes).with_context(|| format!("{}: not UTF-8", path.display()));
    }
    let mut text = String::new();
    flate2::read::GzDecoder::new(&bytes[..])
        .read_to_string(&mut text)
        .with_context(|| format!("{}: not gzipped UTF-8 text", path.display()))?;
    Ok(text)
}

/// Writes a unit file whole (a temporary file renamed over the old one), gzipped if its
/// name ends in `.gz`.
pub fn write_text(path: &Path, text: &str) -> Result<()> {
    let bytes = match path.extension().is_some_and(|extension| extension == "gz") {
        true => {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            gz.write_all(text.as_bytes())?;
            gz.finish()?
        }
        false => text.as_bytes().to_vec(),
    };
    let partial = path.with_extension("partial");
    std::fs::write(&partial, bytes)
        .with_context(|| format!("cannot write {}", partial.display()))?;
    std::fs::rename(&partial, path).with_context(|| format!("cannot write {}", path.display()))
}
