//! The census pages of an exhaustive campaign: the map of its units' maxima (a heatmap
//! of boards × targets, all and legal placements, each done unit's cell leading to its
//! page) with the record positions drawn, under one tab per exhaustive campaign named by
//! its edition (first, second, every side); and a page per unit: its exact distribution,
//! who computed and who checked it, and its hardest placements drawn.

use super::exhaustive::{histogram_table, placement_card, RECORDS_SHOWN};
use super::{page, Coord, PageError};
use axum::extract::{Path, State};
use axum::response::Html;
use ricochet::edition::EditionBoard;
use ricochet::svg::escape;
use rrm_charts::{histogram_svg, unit_heatmap_svg, Counted};
use rrm_model::numbers::thousands;
use std::fmt::Write;

/// `/campaign/NAME/census`: the heatmap of unit maxima and the records, over all
/// placements and over legal ones.
pub(super) async fn census_page(
    State(coordinator): Coord,
    Path(name): Path<String>,
) -> Result<Html<String>, PageError> {
    let map = coordinator.unit_maxima(&name)?;
    let status = coordinator.status(&name)?;
    let most = |legal: bool| {
        map.maxima
            .values()
            .map(|m| if legal { m.legal } else { m.all })
            .max()
            .unwrap_or(0)
    };
    let (max_all, max_legal) = (most(false), most(true));
    let mut body = edition_tabs(&coordinator, &name);
    let _ = write!(
        body,
        r#"<p id="census" data-units-done="{done}" data-units-total="{total}" data-max="{max_all}" data-legal-max="{max_legal}">{done_text} of {total_text} units analysed. The hardest placement needs <b>{max_all}</b> moves; the hardest legal one (a placement its generator deals) <b>{max_legal}</b>. Each cell is a unit, coloured by its maximum: open it for its distribution, its provenance and its hardest placements.</p>"#,
        done = map.maxima.len(),
        done_text = thousands(map.maxima.len() as u64),
        total = status.units_total,
        total_text = thousands(status.units_total),
    );
    let base = format!("/campaign/{}", escape(&name));
    body.push_str(&unit_heatmap_svg(&map, |unit| {
        Some(format!("{base}/unit/{unit}"))
    }));
    for (legal, max, id) in [
        (false, max_all, "records"),
        (true, max_legal, "legal-records"),
    ] {
        let _ = write!(
            body,
            r#"<h2>{} at {max} moves</h2><div class="hardest" id="{id}">"#,
            if legal { "Legal records" } else { "Records" }
        );
        let units = map
            .maxima
            .values()
            .filter(|m| max > 0 && if legal { m.legal } else { m.all } == max);
        let mut shown = 0;
        for maxima in units {
            for mined in coordinator.hardest_placements(&name, maxima.unit, legal)? {
                if shown == RECORDS_SHOWN {
                    break;
                }
                placement_card(&mut body, &name, &mined);
                shown += 1;
            }
        }
        body.push_str("</div>");
    }
    Ok(Html(page(
        &format!("{name}: every unit's maximum"),
        &body,
        None,
    )))
}

/// Which edition an exhaustive campaign's boards are: the first (Fogleman's tiles, or
/// DriftingDroids' sides A and B), the second (sides C and D), or every side.
fn edition_of(boards: &[String]) -> &'static str {
    let (mut first, mut second) = (false, false);
    for board in boards {
        match EditionBoard::parse(board) {
            Ok(EditionBoard::Fogleman(_)) => first = true,
            Ok(EditionBoard::DriftingDroids(dd)) => {
                for side in dd.sides {
                    match side.name().ends_with(['C', 'D']) {
                        true => second = true,
                        false => first = true,
                    }
                }
            }
            Err(_) => {}
        }
    }
    match (first, second) {
        (true, false) => "First edition",
        (false, true) => "Second edition",
        (true, true) => "Every side",
        (false, false) => "No boards",
    }
}

/// One tab per exhaustive campaign, labelled with its edition, `current` marked.
fn edition_tabs(coordinator: &crate::Coordinator, current: &str) -> String {
    let mut tabs = String::from(r#"<nav class="tabs" id="editions">"#);
    for name in coordinator.campaign_names() {
        // Seed campaigns have no census.
        let Ok(boards) = coordinator.exhaustive_boards(&name) else {
            continue;
        };
        let edition = edition_of(&boards);
        let class = if name == current {
            "tab current"
        } else {
            "tab"
        };
        let name = escape(&name);
        let _ = write!(
            tabs,
            r#"<a class="{class}" data-edition="{edition}" href="/campaign/{name}/census">{edition}<br><small>{name}</small></a>"#
        );
    }
    tabs.push_str("</nav>");
    tabs
}

/// `/campaign/NAME/unit/N`: one done unit.
pub(super) async fn unit_page(
    State(coordinator): Coord,
    Path((name, unit)): Path<(String, u64)>,
) -> Result<Html<String>, PageError> {
    let done = coordinator.done_unit(&name, unit)?;
    let result = &done.record.result;
    let legal_max = result.legal_max_moves();
    let provenance = &done.provenance;
    let check = match (&provenance.verified_by, provenance.check_pending) {
        (Some(by), _) => format!("checked by <b>{}</b>, who agreed", escape(by)),
        (None, true) => "drawn for a second computation, not made yet".into(),
        (None, false) => "not drawn for a second computation".into(),
    };
    let at_max = result
        .histogram
        .get(usize::from(result.max_moves))
        .copied()
        .unwrap_or(0);
    let mut body = String::new();
    let _ = write!(
        body,
        r#"<p id="unit" data-unit="{unit}" data-max="{max}" data-legal-max="{legal_max}">Board <b>{board}</b>, target <b>{token}</b>: {placements} placements, hardest <b>{max}</b> moves ({at_max} placements), hardest legal {legal_max}; {unsolvable} unsolvable.</p><p id="provenance">Computed by <b>{producer}</b> in {cpu:.1} s of CPU (rrm {version}); {check}. <a href="/campaign/{n}/census">Back to the map</a>.</p>"#,
        board = escape(&done.board),
        token = escape(&done.token),
        placements = thousands(result.histogram.iter().sum::<u64>() + result.unsolvable),
        max = result.max_moves,
        at_max = thousands(at_max),
        unsolvable = thousands(result.unsolvable),
        producer = escape(provenance.producer.as_deref().unwrap_or("?")),
        cpu = provenance.cpu_ms as f64 / 1000.0,
        version = escape(&provenance.rrm_version),
        n = escape(&name),
    );
    body.push_str(&histogram_svg(
        &format!("{} {}", done.board, done.token),
        Counted::Placements,
        &[
            ("all placements", result.histogram.as_slice()),
            ("legal placements", result.legal_histogram.as_slice()),
        ],
    ));
    histogram_table(&mut body, &result.histogram, &result.legal_histogram);
    for (legal, heading, id) in [
        (false, "Hardest placements", "hardest"),
        (true, "Hardest legal placements", "legal-hardest"),
    ] {
        let _ = write!(body, r#"<h2>{heading}</h2><div class="hardest" id="{id}">"#);
        let hardest = coordinator.hardest_placements(&name, unit, legal)?;
        for mined in hardest.iter().take(RECORDS_SHOWN) {
            placement_card(&mut body, &name, mined);
        }
        body.push_str("</div>");
    }
    let title = format!("{} {} · unit {unit}", done.board, done.token);
    Ok(Html(page(&title, &body, None)))
}
