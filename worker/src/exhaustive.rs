//! One exhaustive unit on the rayon pool ([`rrm_model::analyse_unit`]), with the CPU time
//! its analysis took, which the worker reports with the result.

use cpu_time::ProcessTime;
use rrm_model::{AnalysisError, ExhaustiveResult, ExhaustiveUnit};
use std::ops::ControlFlow;

/// An analysed unit, ready to submit.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysed {
    pub result: ExhaustiveResult,
    /// [`rrm_model::exhaustive_digest`] of the result, bound to its unit.
    pub digest: [u8; 32],
    /// The process's CPU time over the analysis.
    pub cpu_ms: u64,
}

/// Analyses exhaustive unit `unit` (number `unit_number` of `campaign`) on the current
/// rayon pool, as [`rrm_model::analyse_unit`] does, and measures the process's CPU time
/// over it (the caller runs one analysis at a time).
pub fn analyse_unit(
    campaign: &str,
    unit_number: u64,
    unit: &ExhaustiveUnit,
    on_layer: &mut dyn FnMut(u64) -> ControlFlow<()>,
) -> Result<Analysed, AnalysisError> {
    let started = ProcessTime::now();
    let (result, digest) = rrm_model::analyse_unit(campaign, unit_number, unit, on_layer)?;
    Ok(Analysed {
        result,
        digest,
        cpu_ms: started.elapsed().as_millis() as u64,
    })
}
