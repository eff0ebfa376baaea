//! The web dashboard end to end in headless Chromium: a small mined campaign, the numbers
//! on the pages checked against the store, the solution playback driven by its script,
//! and a screenshot kept in the target directory; an exhaustive campaign of forged units
//! with its page, record table, placement pages and JSON.
//!
//! `.ci/run` installs Debian's `chromium` when it is missing; elsewhere, without it on
//! `PATH`, the test is ignored with the reason (`build.rs`), never passed.

use ricochet::Generator;
use rrm_coordinator::{Config, Coordinator};
use rrm_store::Store;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

/// The Ricocheckers position a seed deals.
fn dealer_position(dealer: &ricochet::Dealer, seed: u64) -> ricochet::ricocheckers::Position {
    match dealer.deal(seed).unwrap() {
        ricochet::Dealt::Ricocheckers(position) => position,
        ricochet::Dealt::Puzzle(_) => panic!("seed {seed} dealt a Ricochet puzzle"),
    }
}

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

#[test]
#[cfg_attr(
    rrm_without_chromium,
    ignore = "chromium is not on PATH (.ci/run installs it)"
)]
#[cfg_attr(
    all(rrm_fast_tests, not(rrm_without_chromium)),
    ignore = "heavy: drives headless Chromium (the full suite runs it)"
)]
fn dashboard_shows_what_the_store_holds() {
    let browser = chromium().expect("chromium is needed");
    let data = tempfile::tempdir().unwrap();
    crate::rrm_ok(&[
        "mine",
        "--seeds",
        "1..3001",
        "--unit-size",
        "500",
        "--data",
        data.path().to_str().unwrap(),
    ]);
    let coordinator =
        Arc::new(Coordinator::open(Store::open(data.path()).unwrap(), Config::default()).unwrap());
    let (address_tx, address_rx) = std::sync::mpsc::channel();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = coordinator.clone();
    let server = std::thread::spawn(move || {
        tokio::runtime::Runtime::new()
            .unwrap()
            .block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                address_tx.send(listener.local_addr().unwrap()).unwrap();
                rrm_coordinator::dashboard::serve(listener, served, async {
                    let _ = stopped.await;
                })
                .await
                .unwrap();
            })
    });
    let base = format!("http://{}", address_rx.recv().unwrap());
    let profile = tempfile::tempdir().unwrap();
    let name = "fogleman-1-3001";
    let status = coordinator.status(name).unwrap();
    let aggregates = coordinator.aggregates(name).unwrap();

    let index = browse(&browser, profile.path(), &format!("{base}/"), "--dump-dom");
    assert!(
        index.contains(&format!(r#"data-campaign="{name}""#)),
        "{index}"
    );
    assert!(index.contains(&format!(r#"data-seeds-done="{}""#, status.seeds_done)));
    assert!(
        index.contains(r#"data-seeds-in-progress="0""#),
        "nothing is leased"
    );
    assert_eq!(status.seeds_done, 3000);
    assert!(index.contains(&format!(r#"data-hardest="{}""#, aggregates.max_moves())));
    assert!(index.contains(&format!(r#"data-to-check="{}""#, status.units_to_check)));
    // After `campaigns.js` has refreshed the row: a finished campaign has no rate and is
    // finished, and every count is grouped.
    assert!(index.contains(r#"<td class="num rate">–</td>"#), "{index}");
    assert!(
        index.contains(r#"<td class="num eta">finished</td>"#),
        "{index}"
    );
    assert_grouped("index", &index, &[name.to_string()]);
    // At 800 and 1,200 px the campaigns table's last column lies in the window or in a
    // container that scrolls sideways, never clipped; a screenshot of each is kept.
    for width in [800, 1200] {
        let dom = browse_at(
            &browser,
            profile.path(),
            &format!("{base}/"),
            "--dump-dom",
            width,
        );
        let reach = dom
            .split(r#"data-reach=""#)
            .nth(1)
            .map(|rest| rest.split('"').next().unwrap());
        assert!(
            matches!(reach, Some("in-view" | "scrolls")),
            "{width} px: {reach:?}"
        );
        // A table that scrolls says so in words; one in view does not.
        let hint = dom
            .split(r#"id="scroll-hint""#)
            .nth(1)
            .and_then(|rest| rest.split('>').next())
            .expect("the scroll hint is on the page");
        assert_eq!(
            hint.contains("hidden"),
            reach == Some("in-view"),
            "{width} px: reach {reach:?}, hint {hint:?}"
        );
        let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("dashboard-{width}.png"));
        let _ = std::fs::remove_file(&shot);
        let action = format!("--screenshot={}", shot.display());
        browse_at(
            &browser,
            profile.path(),
            &format!("{base}/"),
            &action,
            width,
        );
        assert!(std::fs::metadata(&shot).expect("screenshot written").len() > 10_000);
    }

    let page = browse(
        &browser,
        profile.path(),
        &format!("{base}/campaign/{name}"),
        "--dump-dom",
    );
    assert!(page.contains(&format!(r#"data-puzzles="{}""#, aggregates.puzzles())));
    for (moves, &count) in aggregates
        .histogram
        .iter()
        .enumerate()
        .filter(|(_, &c)| c > 0)
    {
        let row = format!(r#"<tr data-moves="{moves}" data-count="{count}">"#);
        assert!(page.contains(&row), "histogram row {row} missing");
    }
    let hardest = coordinator.hardest(name, 12, 0).unwrap();
    assert!(!hardest.is_empty());
    for mined in &hardest {
        assert!(page.contains(&format!(
            r#"data-seed="{}" data-moves="{}""#,
            mined.seed, mined.moves
        )));
    }
    let mut identifiers = vec![name.to_string()];
    identifiers.extend(hardest.iter().map(|mined| format!("seed {}", mined.seed)));
    assert_grouped("campaign page", &page, &identifiers);

    // Playback: jump to the last step; the finishing robot must stand on the target.
    let top = &hardest[0];
    let url = format!(
        "{base}/campaign/{name}/puzzle/{}#step={}",
        top.seed, top.moves
    );
    let puzzle_page = browse(&browser, profile.path(), &url, "--dump-dom");
    let puzzle = Generator::Fogleman.generate(top.seed).unwrap().puzzle;
    let last = ricochet::Move::from_notation(top.solution.last().unwrap()).unwrap();
    let (x, y) = ricochet::svg::centre(puzzle.target().cell);
    let moved = format!(
        r#"id="robot-{}" data-cell="{}" transform="translate({x} {y})""#,
        last.robot,
        puzzle
            .board()
            .index_of(puzzle.robots()[last.robot as usize])
    );
    assert!(
        puzzle_page.contains(&moved),
        "robot {} not on the target after playback",
        last.robot
    );
    assert_eq!(
        puzzle_page.matches("data-step=").count(),
        usize::from(top.moves)
    );

    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("dashboard-campaign.png");
    let _ = std::fs::remove_file(&shot);
    browse(
        &browser,
        profile.path(),
        &format!("{base}/campaign/{name}"),
        &format!("--screenshot={}", shot.display()),
    );
    let bytes = std::fs::metadata(&shot).expect("screenshot written").len();
    assert!(bytes > 20_000, "screenshot of {bytes} bytes looks empty");
    eprintln!("dashboard screenshot: {}", shot.display());

    let _ = stop.send(());
    server.join().unwrap();
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

#[test]
fn unknown_api_paths_answer_json_and_pages_html() {
    let data = tempfile::tempdir().unwrap();
    let coordinator =
        Arc::new(Coordinator::open(Store::open(data.path()).unwrap(), Config::default()).unwrap());
    let (runtime, address, stop, server) = serve(coordinator);
    for path in ["/api/nothing-here", "/api/campaign/none/stats"] {
        let (status, content_type, body) = get(address, path);
        assert_eq!(status, 404, "{path}");
        assert!(
            content_type.starts_with("application/json"),
            "{path}: {content_type}"
        );
        let error: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert!(error["error"].is_string(), "{path}: {body}");
    }
    let (status, content_type, body) = get(address, "/campaign/none");
    assert_eq!((status, content_type.starts_with("text/html")), (404, true));
    assert!(body.contains("unknown campaign"), "{body}");
    let (status, content_type, body) = get(address, "/assets/dashboard.css");
    assert_eq!(
        (status, content_type.as_str()),
        (200, "text/css; charset=utf-8")
    );
    assert!(body.contains(".hardest"));
    let _ = stop.send(());
    runtime.block_on(server).unwrap().unwrap();
}

/// A finished seed campaign as the server writes it (the Chromium test above sees the
/// index after `campaigns.js` has rewritten it): every count grouped, no rate, and
/// "finished" rather than a rate of 0 and an ETA of "done".
#[test]
fn a_finished_seed_campaign_reads_grouped_and_finished() {
    let data = tempfile::tempdir().unwrap();
    crate::reports::mine(data.path(), "1..5001");
    let coordinator =
        Arc::new(Coordinator::open(Store::open(data.path()).unwrap(), Config::default()).unwrap());
    let name = "fogleman-1-5001";
    let hardest = coordinator.hardest(name, 12, 0).unwrap();
    let (runtime, address, stop, server) = serve(coordinator);
    let (status, _, index) = get(address, "/");
    assert_eq!(status, 200, "{index}");
    assert!(index.contains(r#"<td class="num rate">–</td>"#), "{index}");
    assert!(
        index.contains(r#"<td class="num eta">finished</td>"#),
        "{index}"
    );
    assert_grouped("index", &index, &[name.to_string()]);
    let (status, _, page) = get(address, &format!("/campaign/{name}"));
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("Every seed is mined."), "{page}");
    assert!(page.contains("puzzles mined of seeds 1..5,001"), "{page}");
    assert!(tables_scroll(&page), "{page}");
    let mut identifiers = vec![name.to_string()];
    identifiers.extend(hardest.iter().map(|mined| format!("seed {}", mined.seed)));
    assert_grouped("campaign page", &page, &identifiers);
    let _ = stop.send(());
    runtime.block_on(server).unwrap().unwrap();
}

#[test]
fn exhaustive_campaigns_get_their_page_records_and_api() {
    use crate::mining::exhaustive_queries::{forged_request, forged_unit, other_boards};
    let data = tempfile::tempdir().unwrap();
    let coordinator =
        Arc::new(Coordinator::open(Store::open(data.path()).unwrap(), Config::default()).unwrap());
    let boards = other_boards();
    coordinator
        .create_exhaustive_campaign(forged_request("ex", &boards))
        .unwrap();
    // A second-edition census beside it: one tab per edition on the census pages.
    let second = ricochet::edition::canonical_board("DD 1C 2D 3C 4D").unwrap();
    coordinator
        .create_exhaustive_campaign(forged_request("ex-second", &[second]))
        .unwrap();
    // The first edition's census, none of its 1,536 units done: counts past a thousand.
    let full_census = rrm_model::ExhaustiveRequest::new("ex-census".parse().unwrap());
    coordinator.create_exhaustive_campaign(full_census).unwrap();
    let result = forged_unit(&boards[0], 5, 2);
    coordinator
        .import_exhaustive(
            "ex",
            &boards[0],
            "GQ",
            result.clone(),
            Default::default(),
            rrm_coordinator::ReSolving::WORKER,
        )
        .unwrap();
    let (runtime, address, stop, server) = serve(coordinator);
    let (status, _, body) = get(address, "/api/campaign/ex/stats");
    assert_eq!(status, 200, "{body}");
    let stats: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(stats["units"], 1);
    assert_eq!(
        stats["legal"]["histogram"],
        serde_json::json!(result.legal_histogram)
    );
    assert_eq!(stats["by_board"][0]["group"], boards[0].as_str());
    assert_eq!(stats["by_board"][0]["all"]["max"], 5);
    let (status, _, body) = get(address, "/api/campaign/ex/records");
    assert_eq!(status, 200, "{body}");
    let records: serde_json::Value = serde_json::from_str(&body).unwrap();
    let records = records["records"].as_array().unwrap();
    assert_eq!(records.len(), 2);
    let (status, _, page) = get(address, "/campaign/ex");
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains(r#"data-units-done="1" data-units-total="2""#),
        "{page}"
    );
    for (moves, count) in result.histogram.iter().enumerate().filter(|(_, &c)| c > 0) {
        assert!(page.contains(&format!(r#"<tr data-moves="{moves}" data-count="{count}""#)));
    }
    assert!(page.contains(&format!(
        r#"data-group="{}" data-units="1" data-max="5""#,
        boards[0]
    )));
    assert!(tables_scroll(&page), "{page}");
    assert_grouped("exhaustive campaign page", &page, &[]);
    // Each record links to its page, whose playback ends with the target robot home.
    let cells: Vec<String> = records[0]["placement"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.to_string())
        .collect();
    let path = format!(
        "/campaign/ex/placement/{}/{}",
        records[0]["unit"],
        cells.join("-")
    );
    assert!(page.contains(&format!(r#"href="{path}""#)), "{path}");
    let (status, _, placement) = get(address, &path);
    assert_eq!(status, 200, "{placement}");
    assert_eq!(placement.matches("data-step=").count(), 5);
    // The index counts an exhaustive campaign in units and placements, not seeds.
    let (_, _, index) = get(address, "/");
    assert!(index.contains(">1 / 2 units<"), "{index}");
    assert!(
        index.contains(" placements/s<") && !index.contains("seeds/s"),
        "{index}"
    );
    assert_grouped("index", &index, &[]);
    // The census map: the done unit's cell, in both panels, leads to the unit's page, and
    // the records are drawn, each leading to its placement's page.
    let (status, _, census) = get(address, "/campaign/ex/census");
    assert_eq!(status, 200, "{census}");
    assert!(
        census.contains(r#"data-units-done="1" data-units-total="2" data-max="5""#),
        "{census}"
    );
    assert!(
        census.contains("<h1>ex: every unit's maximum</h1>"),
        "{census}"
    );
    assert_grouped("census page", &census, &[]);
    let (status, _, full) = get(address, "/campaign/ex-census/census");
    assert_eq!(status, 200, "{full}");
    assert!(full.contains(">0 of 1,536 units analysed."), "{full}");
    assert_grouped("census page of 1,536 units", &full, &[]);
    let (status, _, full) = get(address, "/campaign/ex-census");
    assert_eq!(status, 200, "{full}");
    assert!(
        full.contains("</progress> 0 of 1,536 units analysed"),
        "{full}"
    );
    assert_grouped("exhaustive campaign page of 1,536 units", &full, &[]);
    assert!(
        census.contains(
            r#"<a class="tab current" data-edition="First edition" href="/campaign/ex/census">"#
        ) && census.contains(
            r#"<a class="tab" data-edition="Second edition" href="/campaign/ex-second/census">"#
        ),
        "{census}"
    );
    let (status, _, second) = get(address, "/campaign/ex-second/census");
    assert_eq!(status, 200, "{second}");
    assert!(
        second.contains(r#"<a class="tab current" data-edition="Second edition""#)
            && second.contains(r#"data-units-done="0" data-units-total="1""#),
        "{second}"
    );
    let unit_path = format!("/campaign/ex/unit/{}", records[0]["unit"]);
    assert_eq!(
        census
            .matches(&format!(r#"<a href="{unit_path}">"#))
            .count(),
        2
    );
    assert_eq!(
        census.matches(" data-token=").count(),
        2 * 2,
        "two panels of 2 boards × 1 token"
    );
    assert!(census.contains(&format!(r#"href="{path}""#)), "{census}");
    let (status, _, unit) = get(address, &unit_path);
    assert_eq!(status, 200, "{unit}");
    assert!(unit.contains(r#"data-max="5""#), "{unit}");
    assert!(unit.contains("Computed by <b>(imported)</b>"), "{unit}");
    assert!(tables_scroll(&unit), "{unit}");
    assert_grouped("unit page", &unit, &[]);
    for (moves, count) in result.histogram.iter().enumerate().filter(|(_, &c)| c > 0) {
        assert!(unit.contains(&format!(r#"<tr data-moves="{moves}" data-count="{count}""#)));
    }
    assert_eq!(unit.matches(&format!(r#"href="{path}""#)).count(), 1);
    for (bad, expected) in [
        ("/campaign/ex/placement/0/1-2-3", 404),
        ("/campaign/ex/placement/0/1-2-3-4", 404),
        ("/campaign/ex/puzzle/1", 404),
        ("/campaign/ex/unit/999", 404),
        ("/campaign/ex/unit/x", 400),
    ] {
        assert_eq!(get(address, bad).0, expected, "{bad}");
    }
    if let Some(browser) = chromium() {
        let profile = tempfile::tempdir().unwrap();
        let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("dashboard-exhaustive.png");
        let _ = std::fs::remove_file(&shot);
        let base = format!("http://{address}");
        let dom = browse(
            &browser,
            profile.path(),
            &format!("{base}/campaign/ex"),
            "--dump-dom",
        );
        assert!(dom.contains(r#"id="records""#));
        browse(
            &browser,
            profile.path(),
            &format!("{base}/campaign/ex"),
            &format!("--screenshot={}", shot.display()),
        );
        assert!(std::fs::metadata(&shot).expect("screenshot written").len() > 20_000);
    }
    let _ = stop.send(());
    runtime.block_on(server).unwrap().unwrap();
}

#[test]
fn ricocheckers_campaigns_show_positions_and_forced_wins() {
    let data = tempfile::tempdir().unwrap();
    let store = data.path().join("store");
    crate::rrm_ok(&[
        "mine",
        "--generator",
        "ricocheckers",
        "--seeds",
        "1..301",
        "--record-threshold",
        "5",
        "--data",
        store.to_str().unwrap(),
    ]);
    let coordinator =
        Arc::new(Coordinator::open(Store::open(&store).unwrap(), Config::default()).unwrap());
    let name = "ricocheckers-1-301";
    let hardest = coordinator.hardest(name, 1, 0).unwrap()[0].clone();
    assert!(hardest.moves > 0);
    let without_win = coordinator.aggregates(name).unwrap().histogram[0];
    assert!(without_win > 0);
    let dealer = ricochet::Dealer::standard(Generator::Ricocheckers);
    let no_win = (1..301)
        .find(|&seed| {
            let dealt = dealer.deal(seed).unwrap();
            dealer.answer(&dealt, 7).unwrap().moves == 0
        })
        .unwrap();
    let (runtime, address, stop, server) = serve(coordinator);
    let (status, _, page) = get(address, &format!("/campaign/{name}"));
    assert_eq!(status, 200);
    assert!(page.contains("<circle"), "the hardest positions are drawn");
    // Ricocheckers words, not Ricochet's: positions without a forced win are not 0 moves.
    assert!(page.contains("with a forced win within 7 moves"), "{page}");
    assert!(page.contains("<td>none within 7</td>"), "{page}");
    // Having no forced win is not rare: that row has no rarity.
    let none_row = page
        .split(r#"<tr data-moves="0""#)
        .nth(1)
        .and_then(|rest| rest.split("</tr>").next())
        .expect("a row of positions without a forced win");
    assert!(
        none_row.ends_with(r#"<td class="num">–</td>"#),
        "{none_row}"
    );
    // The chart in Ricocheckers words, with no bar at 0 moves: those positions are
    // counted in the summary instead.
    assert!(
        page.contains(&format!("Forced wins by length: {name}")),
        "{page}"
    );
    assert!(page.contains(">moves to a forced win<"), "{page}");
    assert!(!page.contains(r#"class="bar" data-moves="0""#), "{page}");
    assert!(
        !page.contains("Optimal move counts") && !page.contains(">optimal moves<"),
        "{page}"
    );
    assert!(
        page.contains(&format!("{without_win} with no forced win within 7 moves")),
        "{page}"
    );
    assert!(page.contains("Every seed is mined."), "{page}");
    assert!(tables_scroll(&page), "{page}");
    let (_, _, index) = get(address, "/");
    assert!(index.contains(r#"<td class="num rate">–</td>"#), "{index}");
    assert!(
        index.contains(r#"<td class="num eta">finished</td>"#),
        "{index}"
    );
    assert!(
        page.contains(&format!("win in {}", hardest.moves)),
        "{page}"
    );
    assert!(page.contains(r#"class="legend""#), "{page}");
    assert!(!page.contains("puzzles mined"), "{page}");
    let (status, _, page) = get(
        address,
        &format!("/campaign/{name}/puzzle/{}", hardest.seed),
    );
    assert_eq!(status, 200);
    let verdict = format!("forces a win in <b>{}</b> moves", hardest.moves);
    assert!(page.contains(&verdict), "{page}");
    // The main line names each move's player, the side to move first.
    let to_move = usize::from(dealer_position(&dealer, hardest.seed).to_move);
    let line: Vec<String> = (hardest.solution.iter().enumerate())
        .map(|(ply, step)| format!("{}:{step}", (to_move + ply) % 2 + 1))
        .collect();
    assert!(page.contains(&line.join(" ")), "{page}");
    assert!(page.contains(r#"class="legend""#), "{page}");
    // Playback: buttons, each ply as a step, and the pieces' places after each ply, which
    // end where the main line, replayed by the rules, leaves them.
    assert!(page.contains(r#"<button id="play">"#), "{page}");
    assert!(page.contains(r#"src="/assets/puzzle.js""#), "{page}");
    for (ply, label) in line.iter().enumerate() {
        let step = format!(r#"<span data-step="{}">{label}</span>"#, ply + 1);
        assert!(page.contains(&step), "{step} in {page}");
    }
    let frames: Vec<Vec<(f64, f64)>> = serde_json::from_str(
        page.split(r#"<script type="application/json" id="frames">"#)
            .nth(1)
            .and_then(|rest| rest.split("</script>").next())
            .unwrap(),
    )
    .unwrap();
    assert_eq!(frames.len(), hardest.solution.len() + 1);
    let field = ricochet::ricocheckers::puzzles::standard_field();
    let mut at = dealer_position(&dealer, hardest.seed);
    for step in &hardest.solution {
        at = field.play(&at, ricochet::ricocheckers::Step::parse(step).unwrap());
    }
    let end: Vec<(f64, f64)> = (at.pieces.iter())
        .map(|&cell| {
            let (x, y) = ricochet::ricocheckers::render::centre(field, cell);
            (x as f64, y as f64)
        })
        .collect();
    assert_eq!(frames.last().unwrap(), &end);
    for piece in 0..6 {
        assert!(page.contains(&format!(r#"id="robot-{piece}""#)), "{page}");
    }
    let (status, _, page) = get(address, &format!("/campaign/{name}/puzzle/{no_win}"));
    assert_eq!(status, 200);
    assert!(page.contains("has no forced win within 7 moves"), "{page}");
    let _ = stop.send(());
    runtime.block_on(server).unwrap().unwrap();
}
