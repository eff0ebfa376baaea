//! Progress bars for long commands: on stderr, drawn only when it is a terminal
//! (indicatif hides them otherwise), so pipes and files get clean output.

use indicatif::{ProgressBar, ProgressStyle};
use std::time::Duration;

/// A bar counting `len` items named `what` (e.g. "puzzles"), with elapsed time and ETA;
/// it ticks on its own so that a slow item still shows the command is alive.
pub fn bar(len: u64, what: &str) -> ProgressBar {
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{{spinner}} [{{elapsed_precise}}] {{bar:40}} {{pos}}/{{len}} {what}, {{per_sec}}, ETA {{eta}} {{msg}}"
        ))
        .expect("valid progress template"),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}
