//! What the commands write besides puzzles (`crate::format`): reports, summaries, unit
//! result files, progress bars, and output files written whole or not at all.

pub mod outfile;
pub mod progress;
pub mod report;
pub mod stdout;
pub mod summary;
pub mod unit_result;
