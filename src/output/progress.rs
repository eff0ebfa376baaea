//! Progress bars for long commands: on stderr, drawn only when it is a terminal
//! (indicatif hides them otherwise), so pipes and files get clean output. They fit 80
//! columns: counts with thousands separators, a rate with a unit prefix and no stray
//! decimals, and an ETA from the average rate since the start (steady work such as an
//! exhaustive unit made indicatif's recent-rate estimate swing, 30 s for a 10 s run).

use indicatif::{ProgressBar, ProgressState, ProgressStyle};
use rrm_model::numbers::si;
use std::fmt::Write;
use std::time::Duration;

/// A bar counting `len` items named `what` (e.g. "puzzles"), with elapsed time, rate
/// and ETA; it ticks on its own so that a slow item still shows the command is alive.
pub fn bar(len: u64, what: &str) -> ProgressBar {
    with_template(len, &format!("{LINE} {what} {{rate}} ETA {{eta_avg}}"))
}

/// [`bar`] under a line of its own for a message (`set_message`), such as the unit
/// and layer being worked on.
pub fn bar_with_message(len: u64, what: &str) -> ProgressBar {
    with_template(
        len,
        &format!("{{msg}}\n{LINE} {what} {{rate}} ETA {{eta_avg}}"),
    )
}

/// A line for work of unknown length (`set_message` says how far it has got), with its
/// elapsed time.
pub fn spinner() -> ProgressBar {
    let style = ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
        .expect("valid progress template");
    ProgressBar::new_spinner().with_style(style)
}

/// Plain lines beside a bar (`rrm pack: …`): above it on a terminal; and where stderr is
/// not a terminal, which hides the bar, a line now and then, so that long work in a log
/// or a pipe still says how far it has got.
pub struct Notes<'b> {
    bar: &'b ProgressBar,
    prefix: &'static str,
    terminal: bool,
    every: Duration,
    last: Option<std::time::Instant>,
}

impl<'b> Notes<'b> {
    /// Notes beside `bar`, each line opened by `prefix`; off a terminal one at most
    /// `every` from [`Notes::now_and_then`].
    pub fn new(bar: &'b ProgressBar, prefix: &'static str, every: Duration) -> Notes<'b> {
        use std::io::IsTerminal as _;
        Notes {
            bar,
            prefix,
            terminal: std::io::stderr().is_terminal(),
            every,
            last: None,
        }
    }

    /// A line in any case.
    pub fn line(&mut self, text: String) {
        self.last = Some(std::time::Instant::now());
        self.bar.suspend(|| eprintln!("{}: {text}", self.prefix));
    }

    /// A line off a terminal: the first call's, then one at most every `every` (on a
    /// terminal the bar says it).
    pub fn now_and_then(&mut self, text: impl FnOnce() -> String) {
        if !self.terminal && self.last.is_none_or(|last| last.elapsed() >= self.every) {
            self.line(text());
        }
    }
}

/// The bar's line before its item name: 51 columns with 11-digit counts.
pub const LINE: &str = "{spinner} {elapsed_precise} {bar:16} {human_pos}/{human_len}";

fn with_template(len: u64, template: &str) -> ProgressBar {
    let style = ProgressStyle::with_template(template)
        .expect("valid progress template")
        .with_key("rate", |state: &ProgressState, out: &mut dyn Write| {
            let _ = write!(out, "{}/s", per_second(state));
        })
        .with_key("eta_avg", |state: &ProgressState, out: &mut dyn Write| {
            let _ = write!(out, "{}", eta(state));
        });
    let bar = ProgressBar::new(len).with_style(style);
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// The average rate since the start, with a unit prefix: `950`, `19.1k`, `4.2M`.
fn per_second(state: &ProgressState) -> String {
    let seconds = state.elapsed().as_secs_f64();
    if seconds <= 0.0 {
        return "-".into();
    }
    si(state.pos() as f64 / seconds)
}

/// What is left at the average rate since the start, as `1h02m`, `3m05s` or `42s`.
fn eta(state: &ProgressState) -> String {
    let (done, total) = (state.pos(), state.len().unwrap_or(0));
    let seconds = state.elapsed().as_secs_f64();
    if done == 0 || total <= done || seconds <= 0.0 {
        return "-".into();
    }
    short_duration(((total - done) as f64 * seconds / done as f64).round() as u64)
}

/// `seconds` as `1h02m`, `3m05s` or `42s`.
pub fn short_duration(seconds: u64) -> String {
    match seconds {
        s if s >= 3600 => format!("{}h{:02}m", s / 3600, s % 3600 / 60),
        s if s >= 60 => format!("{}m{:02}s", s / 60, s % 60),
        s => format!("{s}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A terminal of `width` columns that keeps what is written to it, for the test
    /// holding a clone to read.
    #[derive(Clone, Debug, Default)]
    struct Screen {
        width: u16,
        text: std::sync::Arc<std::sync::Mutex<String>>,
    }

    impl indicatif::TermLike for Screen {
        fn width(&self) -> u16 {
            self.width
        }
        fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn write_line(&self, line: &str) -> std::io::Result<()> {
            self.write_str(&format!("{line}\n"))
        }
        fn write_str(&self, text: &str) -> std::io::Result<()> {
            self.text.lock().unwrap().push_str(text);
            Ok(())
        }
        fn clear_line(&self) -> std::io::Result<()> {
            Ok(())
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_widest_bar_fits_80_and_200_columns_and_says_its_counts_plainly() {
        for width in [80, 200] {
            let screen = Screen {
                width,
                ..Screen::default()
            };
            // The longest counts rrm shows: an exhaustive unit of 656,239,500 placements.
            let bar = bar_with_message(656_239_500, "placements");
            bar.set_draw_target(indicatif::ProgressDrawTarget::term_like(Box::new(
                screen.clone(),
            )));
            bar.set_message("1A 3B 4A 2B GQ: layer 17 done");
            bar.set_position(88_088_546);
            std::thread::sleep(Duration::from_millis(300));
            bar.tick();
            let text = screen.text.lock().unwrap().clone();
            let line = text
                .lines()
                .rev()
                .find(|line| line.contains("placements"))
                .expect("a bar was drawn");
            let columns = line.chars().count();
            assert!(
                columns <= width as usize,
                "{columns} of {width} columns: {line}"
            );
            assert!(line.contains("88,088,546/656,239,500 placements"), "{line}");
            assert!(
                !line.contains('.') || line.contains("M/s") || line.contains("k/s"),
                "{line}"
            );
        }
    }
}
