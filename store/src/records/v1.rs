//! Records of earlier versions, still read: an exhaustive result of kind byte 3 (no
//! legal lists, no provenance).

use rrm_model::{ExhaustiveRecord, ExhaustiveResult, PlacementCells};
use serde::Deserialize;

#[derive(Deserialize)]
pub(crate) struct ExhaustiveRecordV1 {
    result: ExhaustiveResultV1,
    hardest_solutions: Vec<Vec<String>>,
}

#[derive(Deserialize)]
struct ExhaustiveResultV1 {
    histogram: Vec<u64>,
    legal_histogram: Vec<u64>,
    unsolvable: u64,
    max_moves: u8,
    hardest: Vec<PlacementCells>,
    top: Vec<(u8, Vec<PlacementCells>)>,
    sample: Vec<(PlacementCells, Option<u8>)>,
}

impl From<ExhaustiveRecordV1> for ExhaustiveRecord {
    fn from(old: ExhaustiveRecordV1) -> ExhaustiveRecord {
        let r = old.result;
        ExhaustiveRecord {
            result: ExhaustiveResult {
                histogram: r.histogram,
                legal_histogram: r.legal_histogram,
                unsolvable: r.unsolvable,
                max_moves: r.max_moves,
                hardest: r.hardest,
                top: r.top,
                sample: r.sample,
                legal_samples: Vec::new(),
                legal_hardest: Vec::new(),
            },
            hardest_solutions: old.hardest_solutions,
            legal_hardest_solutions: Vec::new(),
            cpu_ms: 0,
            rrm_version: String::new(),
        }
    }
}
