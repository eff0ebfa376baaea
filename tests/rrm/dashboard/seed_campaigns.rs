//! A mined seed campaign on the dashboard: in headless Chromium, the numbers on the index,
//! the campaign page and the solution playback checked against the store, with
//! screenshots kept in the target directory; and a finished campaign's pages as the
//! server writes them, every count grouped.

use super::*;
use ricochet::Generator;
use rrm_coordinator::Config;
use rrm_store::Store;

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
