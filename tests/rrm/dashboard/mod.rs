//! The web dashboard end to end in headless Chromium: a small mined campaign, the numbers
//! on the pages checked against the store, the solution playback driven by its script,
//! and a screenshot kept in the target directory; an exhaustive campaign of forged units
//! with its page, record table, placement pages and JSON.
//!
//! `.ci/run` installs Debian's `chromium` when it is missing; elsewhere, without it on
//! `PATH`, the test is ignored with the reason (`build.rs`), never passed.
//!
//! This module holds the harness (headless Chromium, a raw HTTP client, an in-process
//! server, and the check that counts are grouped, with its own test); the tests live in
//! its children by topic.

mod exhaustive;
mod ricocheckers;
mod routes;
mod seed_campaigns;

use rrm_coordinator::Coordinator;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .map(|name| Command::new("which").arg(name).output())
        .filter_map(Result::ok)
        .find(|out| out.status.success())
        .map(|out| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

/// Runs headless Chromium on `url` with `action` (`--dump-dom` or `--screenshot=...`).
fn browse(browser: &Path, profile: &Path, url: &str, action: &str) -> String {
    browse_at(browser, profile, url, action, 1280)
}

/// [`browse`] in a window `width` pixels wide.
fn browse_at(browser: &Path, profile: &Path, url: &str, action: &str, width: u32) -> String {
    let mut command = Command::new(browser);
    command
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--virtual-time-budget=3000",
        ])
        .arg(format!("--window-size={width},1100"))
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(action)
        .arg(url);
    let output = crate::output_within(&mut command, crate::COMMAND_LIMIT);
    assert!(
        output.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The runs of four or more digits without thousands separators in what a reader of
/// `html` sees: its text nodes, SVG `<title>` tooltips included, not its tags, attributes
/// (URLs, `data-*` values) or scripts. Digits after a decimal point are a fraction, which
/// is never grouped. `identifiers` are names, written as they are typed elsewhere and so
/// never grouped: a campaign's name (`fogleman-1-5001`), a seed as `--seed` takes it
/// (`seed 4711`). They are taken out first. Each run is given with its surroundings.
fn ungrouped_numbers(html: &str, identifiers: &[String]) -> Vec<String> {
    let mut text = String::new();
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        text.push_str(&rest[..open]);
        // A tag separates what is on either side of it, as a table cell's edge does.
        text.push('\n');
        let tag = &rest[open + 1..];
        // A script's or style sheet's contents are not text either: skip to its end tag.
        let skipped = ["script", "style"]
            .iter()
            .find(|name| tag.starts_with(**name))
            .and_then(|name| tag.find(&format!("</{name}>")))
            .unwrap_or(0);
        rest = tag[skipped..]
            .find('>')
            .map_or("", |close| &tag[skipped + close + 1..]);
    }
    text.push_str(rest);
    // A character reference (`&amp;`, `&#8211;`) is one character, not digits.
    let mut pieces = text.split('&');
    let mut plain = pieces.next().unwrap_or_default().to_string();
    for piece in pieces {
        match piece.split_once(';') {
            Some((name, after)) if name.len() <= 8 => {
                plain.push(' ');
                plain.push_str(after);
            }
            _ => {
                plain.push('&');
                plain.push_str(piece);
            }
        }
    }
    for identifier in identifiers {
        plain = plain.replace(identifier.as_str(), " ");
    }
    let chars: Vec<char> = plain.chars().collect();
    let mut found = Vec::new();
    let mut at = 0;
    while at < chars.len() {
        if !chars[at].is_ascii_digit() {
            at += 1;
            continue;
        }
        let start = at;
        while at < chars.len() && chars[at].is_ascii_digit() {
            at += 1;
        }
        let fraction = start >= 2 && chars[start - 1] == '.' && chars[start - 2].is_ascii_digit();
        if at - start >= 4 && !fraction {
            let around = &chars[start.saturating_sub(40)..(at + 40).min(chars.len())];
            found.push(around.iter().collect::<String>().replace('\n', " "));
        }
    }
    found
}

/// Fails with the runs of digits `page` shows ungrouped, `identifiers` aside.
fn assert_grouped(what: &str, page: &str, identifiers: &[String]) {
    let found = ungrouped_numbers(page, identifiers);
    assert!(found.is_empty(), "{what}: ungrouped numbers in {found:#?}");
}

/// Whether every table of `page` sits in a container that scrolls sideways, so that a
/// narrow window scrolls the table rather than clipping it.
fn tables_scroll(page: &str) -> bool {
    page.matches("<table").count() == page.matches(r#"<div class="wide"><table"#).count()
}

/// GETs `path` over a raw HTTP/1.0 connection: (status code, content type, body).
pub(crate) fn get(address: std::net::SocketAddr, path: &str) -> (u16, String, String) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    write!(stream, "GET {path} HTTP/1.0\r\nHost: localhost\r\n\r\n").unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).unwrap();
    let (head, body) = reply.split_once("\r\n\r\n").expect("headers end");
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let content_type = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-type: ")
                .map(str::to_string)
        })
        .unwrap_or_default();
    (status, content_type, body.to_string())
}

/// A running dashboard: its runtime, address, stop switch and server task.
pub(crate) type Served = (
    tokio::runtime::Runtime,
    std::net::SocketAddr,
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<std::io::Result<()>>,
);

/// Serves the dashboard of `coordinator` on a free port of 127.0.0.1.
pub(crate) fn serve(coordinator: Arc<Coordinator>) -> Served {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let address = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = runtime.spawn(rrm_coordinator::dashboard::serve(
        listener,
        coordinator,
        async {
            let _ = stopped.await;
        },
    ));
    (runtime, address, stop, server)
}

/// The scan itself: counts in text and tooltips are caught; attributes, scripts,
/// fractions, character references and named identifiers are not.
#[test]
fn ungrouped_numbers_are_found_in_text_only() {
    let page = r#"<p data-count="656239500"><a href="/campaign/c/puzzle/4711">seed 4711</a>: 656239500 placements, 1,234 grouped, 0.000028 %, seeds 1..200001, 12.5 s, 1234.5 s&#8211;</p><svg><rect><title>c: 3 moves, 15131715 placements</title></rect></svg><script>let frames = [12345];</script>"#;
    let found = ungrouped_numbers(page, &["seed 4711".to_string()]);
    assert_eq!(found.len(), 4, "{found:#?}");
    let numbers = ["656239500", "200001", "1234", "15131715"];
    for (run, number) in found.iter().zip(numbers) {
        assert!(run.contains(number), "{run} for {number}");
    }
    let unnamed = ungrouped_numbers(page, &[]);
    assert!(
        unnamed.iter().any(|run| run.contains("4711")),
        "{unnamed:#?}"
    );
}
