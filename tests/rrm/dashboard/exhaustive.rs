//! An exhaustive campaign of forged units on the dashboard: its stats and records in
//! JSON, its page, record table and placement pages, the census map with a tab per
//! edition, the unit pages, and the paths that do not exist.

use super::*;
use rrm_coordinator::Config;
use rrm_store::Store;

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
