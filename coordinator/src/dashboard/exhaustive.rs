//! The dashboard of an exhaustive campaign: progress in units, the exact distribution over
//! all and legal placements (chart and table), one table by target and one by board, and
//! the record table (each unit's hardest placements as board pictures), with a page per
//! listed placement; JSON at `/api/campaign/NAME/stats` and `/api/campaign/NAME/records`.

use super::{page, playback, Coord, DashboardError, PageError};
use crate::core::{Coordinator, UnitBoard};
use axum::extract::{Path, State};
use axum::response::Html;
use ricochet::svg::{escape, Picture};
use rrm_charts::{histogram_svg, rarity, Counted};
use rrm_model::numbers::{percent, thousands};
use rrm_model::{CampaignStatus, Distribution, ExactStats, MinedPlacement};
use std::fmt::Write;

/// Records listed on a campaign page and by the records API.
pub(super) const RECORDS_SHOWN: usize = 12;

/// The placement's cells in a URL: `57-17-40-200`.
fn cells_path(cells: &[u8; 4]) -> String {
    cells.map(|c| c.to_string()).join("-")
}

/// The table of a distribution: placements by move count, all and legal, with shares.
pub(super) fn histogram_table(body: &mut String, histogram: &[u64], legal_histogram: &[u64]) {
    let all: u64 = histogram.iter().sum();
    let legal: u64 = legal_histogram.iter().sum();
    body.push_str(r#"<h2>Histogram</h2><div class="wide"><table id="histogram"><tr><th>moves</th><th>placements</th><th>share</th><th>rarity</th><th>legal</th><th>share</th></tr>"#);
    for (moves, &count) in histogram.iter().enumerate().filter(|(_, &c)| c > 0) {
        let legal_count = legal_histogram.get(moves).copied().unwrap_or(0);
        let _ = write!(
            body,
            r#"<tr data-moves="{moves}" data-count="{count}" data-legal="{legal_count}"><td>{moves}</td><td class="num">{}</td><td class="num">{}</td><td class="num">{}</td><td class="num">{}</td><td class="num">{}</td></tr>"#,
            thousands(count),
            percent(count, all),
            rarity(count, all),
            thousands(legal_count),
            percent(legal_count, legal),
        );
    }
    body.push_str("</table></div>");
}

/// A table row of a group: units, and placements, mean, maximum and count at the maximum
/// over all and over legal placements.
fn group_row(body: &mut String, group: &str, d: &Distribution) {
    let _ = write!(
        body,
        r#"<tr data-group="{g}" data-units="{units}" data-max="{max}"><td>{g}</td><td class="num">{units_text}</td>"#,
        g = escape(group),
        units = d.units,
        units_text = thousands(d.units),
        max = d.all().max_moves(),
    );
    for a in [d.all(), d.legal()] {
        let max = a.max_moves();
        let _ = write!(
            body,
            r#"<td class="num">{}</td><td class="num">{:.3}</td><td class="num">{max}</td><td class="num">{}</td>"#,
            thousands(a.puzzles()),
            a.mean(),
            thousands(a.histogram.get(usize::from(max)).copied().unwrap_or(0))
        );
    }
    body.push_str("</tr>");
}

/// The page of an exhaustive campaign.
pub(super) fn campaign_page(
    coordinator: &Coordinator,
    status: &CampaignStatus,
    exact: &ExactStats,
) -> Result<Html<String>, PageError> {
    let name = &status.campaign.spec.name;
    let overall = &exact.overall;
    let (all, legal) = (overall.all(), overall.legal());
    let mut body = String::new();
    let _ = write!(
        body,
        r#"<p id="summary" data-units-done="{done}" data-units-total="{total}" data-placements="{placements}" data-legal="{legal_count}" data-max="{max}"><progress max="{total}" value="{done}"></progress> {done_text} of {total_text} units analysed (exhaustive: every placement of four robots per board and target). {placements_text} placements, mean <b>{mean:.3}</b> moves, hardest <b>{max}</b>; {legal_text} legal placements (as its generator deals them), mean {legal_mean:.3}, hardest {legal_max}; {unsolvable} unsolvable.</p>"#,
        done = status.units_done,
        done_text = thousands(status.units_done),
        total = status.units_total,
        total_text = thousands(status.units_total),
        placements = all.puzzles(),
        placements_text = thousands(all.puzzles()),
        mean = all.mean(),
        max = all.max_moves(),
        legal_count = legal.puzzles(),
        legal_text = thousands(legal.puzzles()),
        legal_mean = legal.mean(),
        legal_max = legal.max_moves(),
        unsolvable = thousands(overall.unsolvable),
    );
    body.push_str(&histogram_svg(
        &format!("Optimal move counts: {name}"),
        Counted::Placements,
        &[
            ("all placements", overall.histogram.as_slice()),
            ("legal placements", overall.legal_histogram.as_slice()),
        ],
    ));
    histogram_table(&mut body, &overall.histogram, &overall.legal_histogram);
    let heading = r#"<tr><th rowspan="2">{what}</th><th rowspan="2">units</th><th colspan="4">all placements</th><th colspan="4">legal placements</th></tr><tr><th>count</th><th>mean</th><th>max</th><th>at max</th><th>count</th><th>mean</th><th>max</th><th>at max</th></tr>"#;
    for (what, id, groups) in [
        ("target", "by-target", &exact.by_target),
        ("board", "by-board", &exact.by_board),
    ] {
        let _ = write!(
            body,
            r#"<h2>By {what}</h2><div class="wide"><table id="{id}">{}"#,
            heading.replace("{what}", what)
        );
        for (group, d) in groups {
            group_row(&mut body, group, d);
        }
        body.push_str("</table></div>");
    }
    let _ = write!(
        body,
        r#"<p><a href="/campaign/{}/census">Map of the units' maxima</a> (each unit's distribution, provenance and hardest placements).</p>"#,
        escape(name)
    );
    // Each target its own records: the hardest target's would fill one list.
    body.push_str(r#"<h2>Records</h2><div id="records">"#);
    // A row of cards per target: 16 targets of 12 boards each would be a long page.
    let per_target = RECORDS_SHOWN / exact.by_target.len().clamp(1, 2);
    let by_target = coordinator.records_by_target(name, per_target)?;
    for (token, records) in &by_target {
        if by_target.len() > 1 {
            let _ = write!(body, r#"<h3>Target {}</h3>"#, escape(token));
        }
        let _ = write!(
            body,
            r#"<div class="hardest" data-target="{}">"#,
            escape(token)
        );
        for mined in records {
            placement_card(&mut body, name, mined);
        }
        body.push_str("</div>");
    }
    body.push_str("</div>");
    Ok(Html(page(&format!("Campaign {name}"), &body, None)))
}

/// A card of a listed placement: its board drawn, linking to its page.
pub(super) fn placement_card(body: &mut String, name: &str, mined: &MinedPlacement) {
    let puzzle = UnitBoard::new(&mined.board, &mined.token)
        .ok()
        .and_then(|unit| unit.puzzle(&mined.placement));
    let Some(puzzle) = puzzle else { return };
    let board = ricochet::svg::board(&puzzle, &Picture::default());
    let _ = write!(
        body,
        r#"<a class="card" href="/campaign/{n}/placement/{unit}/{cells}" data-unit="{unit}" data-placement="{cells}" data-moves="{moves}"><span class="title"><b>{board_name} {token}</b> · {moves} moves</span>{board}</a>"#,
        n = escape(name),
        unit = mined.unit,
        cells = cells_path(&mined.placement),
        moves = mined.moves,
        board_name = escape(&mined.board),
        token = escape(&mined.token),
    );
}

/// A placement a unit lists, with the playback of its solution when it has one.
pub(super) async fn placement_page(
    State(coordinator): Coord,
    Path((name, unit, cells)): Path<(String, u64, String)>,
) -> Result<Html<String>, PageError> {
    let placement: [u8; 4] = cells
        .split('-')
        .map(str::parse)
        .collect::<Result<Vec<u8>, _>>()
        .ok()
        .and_then(|cells| cells.try_into().ok())
        .ok_or_else(|| DashboardError::BadPlacement(cells.clone()))?;
    let mined = coordinator.placement(&name, unit, placement)?;
    let puzzle = UnitBoard::new(&mined.board, &mined.token)
        .ok()
        .and_then(|unit| unit.puzzle(&mined.placement))
        .ok_or_else(|| DashboardError::BadPlacement(cells.clone()))?;
    let cells_text = mined.placement.map(|c| c.to_string()).join(",");
    let title = format!("{} {} · {cells_text}", mined.board, mined.token);
    let board = ricochet::svg::board(
        &puzzle,
        &Picture {
            title: Some(&title),
            ..Picture::default()
        },
    );
    let mut body = String::new();
    let _ = write!(
        body,
        r#"<p id="puzzle" data-unit="{unit}" data-placement="{path}" data-moves="{moves}">Board {board_name}, target <b>{token}</b>, unit {unit}: target robot on {target_robot}, helpers on {helpers}; exactly <b>{moves}</b> moves{proven}.</p><div class="card board">{board}</div>"#,
        path = cells_path(&mined.placement),
        moves = mined.moves,
        board_name = escape(&mined.board),
        token = escape(&mined.token),
        target_robot = mined.placement[0],
        helpers = mined.placement[1..]
            .iter()
            .map(u8::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        proven = if mined.solution.is_empty() {
            ""
        } else {
            ", the unit's maximum, re-solved by the coordinator"
        },
    );
    let command = format!(
        "rrm show --board \"{}\" --target {} --placement {cells_text} --solution",
        mined.board, mined.token
    );
    playback(&mut body, &puzzle, &mined.solution, &command);
    Ok(Html(page(&title, &body, Some("puzzle.js"))))
}
