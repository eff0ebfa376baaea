//! The read-only web dashboard: campaigns with live progress, rate and ETA; a page per
//! campaign with the histogram and the hardest puzzles (for an exhaustive campaign the
//! exact distributions and the record table, in `exhaustive`, and the census map of its
//! units with a page per unit, in `census`); a page per puzzle with its
//! board and a step-by-step playback of the solution, in `puzzle`. The same data as the query service,
//! read from the same [`Coordinator`]; pages are rendered on the server (every number
//! is in the HTML, marked with `data-*` attributes) and refreshed by a little script.
//! `/metrics` serves the coordinator's Prometheus metrics (`crate::metrics`).

mod api;
mod census;
mod exhaustive;
mod login;
mod puzzle;

use crate::core::{Coordinator, CoordinatorError};
use crate::Security;
use api::CampaignJson;
use axum::extract::{Path, State};
use axum::http::{header, StatusCode, Uri};
use axum::response::{Html, IntoResponse, Json, Response};
use axum::routing::get;
use axum::Router;
use puzzle::{playback, ricocheckers_svg, RICOCHECKERS_LEGEND};
use ricochet::ricocheckers::puzzles::FORCED_WIN_BOUND;
use ricochet::svg::{escape, Picture};
use ricochet::{Dealt, SeedError};
use rrm_charts::{histogram_svg, rarity, Counted};
use rrm_model::numbers::{percent, si, thousands};
use rrm_model::CampaignStatus;
use std::fmt::Write;
use std::future::Future;
use std::sync::Arc;
use tokio::net::TcpListener;

/// Puzzles listed on a campaign page.
const HARDEST_SHOWN: usize = 12;

/// The page frame, with `{title}`, `{body}` and `{script}` markers.
const PAGE: &str = include_str!("../assets/page.html");

/// Static files: (name, content type, contents).
const ASSETS: [(&str, &str, &str); 3] = [
    (
        "dashboard.css",
        "text/css; charset=utf-8",
        include_str!("../assets/dashboard.css"),
    ),
    (
        "campaigns.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/campaigns.js"),
    ),
    (
        "puzzle.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/puzzle.js"),
    ),
];

/// Serves the dashboard on `listener`, open to all over plain HTTP, until `shutdown`
/// completes.
pub async fn serve(
    listener: TcpListener,
    coordinator: Arc<Coordinator>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    serve_with(listener, coordinator, &Security::default(), shutdown).await
}

/// Serves the dashboard on `listener` with `security`'s TLS and read tokens until
/// `shutdown` completes.
pub async fn serve_with(
    listener: TcpListener,
    coordinator: Arc<Coordinator>,
    security: &Security,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let door = login::Door {
        keyring: security.keyring.clone(),
        secure: security.tls.is_some(),
    };
    let app = router(coordinator, door);
    match &security.tls {
        None => {
            axum::serve(listener, app)
                .with_graceful_shutdown(shutdown)
                .await
        }
        Some(tls) => {
            axum::serve(tls.listen(listener)?, app)
                .with_graceful_shutdown(shutdown)
                .await
        }
    }
}

/// The dashboard's routes over `coordinator`, behind `door`.
fn router(coordinator: Arc<Coordinator>, door: login::Door) -> Router {
    let open = Router::new()
        .route("/login", get(login::login_form).post(login::login))
        .with_state(door.clone())
        .route("/assets/{file}", get(asset));
    let guarded = Router::new()
        .route("/", get(index))
        .route("/api/campaigns", get(api::campaigns))
        .route("/api/campaign/{name}/stats", get(api::stats))
        .route("/api/campaign/{name}/records", get(api::records))
        .route("/campaign/{name}", get(campaign_page))
        .route("/campaign/{name}/puzzle/{seed}", get(puzzle::puzzle_page))
        .route(
            "/campaign/{name}/placement/{unit}/{cells}",
            get(exhaustive::placement_page),
        )
        .route("/campaign/{name}/census", get(census::census_page))
        .route("/campaign/{name}/unit/{unit}", get(census::unit_page))
        .route("/metrics", get(crate::metrics::scrape))
        .fallback(not_found)
        .with_state(coordinator)
        .layer(axum::middleware::from_fn_with_state(
            door,
            login::require_reader,
        ));
    open.merge(guarded)
}

/// Why a page or an API answer is not available.
#[derive(Debug, thiserror::Error)]
enum DashboardError {
    #[error(transparent)]
    Coordinator(#[from] CoordinatorError),
    #[error(transparent)]
    Seed(#[from] SeedError),
    #[error("no such page: {0}")]
    NoRoute(String),
    #[error("bad placement {0:?}: four cells T-H-H-H")]
    BadPlacement(String),
}

impl DashboardError {
    /// Unknown names (and pages of the other kind of campaign) are 404, store faults 500.
    fn status(&self) -> StatusCode {
        match self {
            DashboardError::Coordinator(
                CoordinatorError::UnknownCampaign(_)
                | CoordinatorError::SeedOutside { .. }
                | CoordinatorError::NotMined { .. }
                | CoordinatorError::WrongKind { .. }
                | CoordinatorError::NotListed { .. }
                | CoordinatorError::UnitNotDone { .. },
            )
            | DashboardError::Seed(_)
            | DashboardError::NoRoute(_)
            | DashboardError::BadPlacement(_) => StatusCode::NOT_FOUND,
            DashboardError::Coordinator(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

/// Errors of pages: an HTML page.
struct PageError(DashboardError);

impl<E: Into<DashboardError>> From<E> for PageError {
    fn from(error: E) -> Self {
        PageError(error.into())
    }
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let body = format!("<p class=\"error\">{}</p>", escape(&self.0.to_string()));
        (self.0.status(), Html(page("Not available", &body, None))).into_response()
    }
}

/// Errors of `/api/`: a JSON object `{"error": ...}`.
struct ApiError(DashboardError);

impl<E: Into<DashboardError>> From<E> for ApiError {
    fn from(error: E) -> Self {
        ApiError(error.into())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = Json(api::ErrorJson {
            error: self.0.to_string(),
        });
        (self.0.status(), body).into_response()
    }
}

/// Unknown paths: JSON under `/api/`, a page elsewhere.
async fn not_found(uri: Uri) -> Response {
    let error = DashboardError::NoRoute(uri.path().to_string());
    if uri.path().starts_with("/api/") {
        ApiError(error).into_response()
    } else {
        PageError(error).into_response()
    }
}

async fn asset(Path(file): Path<String>) -> Response {
    match ASSETS.iter().find(|(name, _, _)| *name == file) {
        Some((_, content_type, contents)) => {
            ([(header::CONTENT_TYPE, *content_type)], *contents).into_response()
        }
        None => PageError(DashboardError::NoRoute(format!("/assets/{file}"))).into_response(),
    }
}

type Coord = State<Arc<Coordinator>>;

/// What shows in place of a number that does not apply, such as a finished campaign's
/// rate.
const NOT_APPLICABLE: &str = "–";

/// Whether every seed (an exhaustive campaign: every unit) is done.
fn finished(c: &CampaignJson<'_>) -> bool {
    c.seeds_done == c.seeds_total
}

/// Seeds a second, grouped: `1,234 seeds/s`.
fn seed_rate(c: &CampaignJson<'_>) -> String {
    format!("{} seeds/s", thousands(c.seeds_per_second.round() as u64))
}

/// The index's progress cells of a campaign (done, in progress, rate), in seeds or, for
/// an exhaustive campaign, units and placements (`campaigns.js` writes the same). A
/// finished campaign has no rate: the last one measured would read as a stall.
fn progress_texts(c: &CampaignJson<'_>) -> [String; 3] {
    let rate = |text: String| match finished(c) {
        true => NOT_APPLICABLE.to_string(),
        false => text,
    };
    match &c.exhaustive {
        Some(e) => [
            format!(
                "{} / {} units",
                thousands(c.units_done),
                thousands(c.units_total)
            ),
            format!("{} placements", thousands(e.placements_in_progress)),
            rate(format!("{} placements/s", si(e.placements_per_second))),
        ],
        None => [
            format!(
                "{} / {} seeds",
                thousands(c.seeds_done),
                thousands(c.seeds_total)
            ),
            format!("{} seeds", thousands(c.seeds_in_progress)),
            rate(seed_rate(c)),
        ],
    }
}

fn statuses(coordinator: &Coordinator) -> Result<Vec<CampaignStatus>, CoordinatorError> {
    coordinator
        .campaign_names()
        .iter()
        .map(|name| coordinator.status(name))
        .collect()
}

/// A page in the frame; `script` names an asset to run after the body.
fn page(title: &str, body: &str, script: Option<&str>) -> String {
    let title = escape(title);
    let script = script.map_or_else(String::new, |name| {
        format!(r#"<script src="/assets/{name}"></script>"#)
    });
    // Split at the body marker rather than replace in the filled page, so that nothing in
    // the body is ever taken for a marker.
    let (head, tail) = PAGE
        .split_once("{body}")
        .expect("the page frame has a body");
    let mut page = head.replace("{title}", &title);
    page.push_str(body);
    page.push_str(&tail.replace("{script}", &script));
    page
}

fn duration_text(seconds: Option<f64>) -> String {
    match seconds {
        Some(s) if s <= 0.0 => "finished".into(),
        Some(s) if s < 120.0 => format!("{s:.0} s"),
        Some(s) if s < 7200.0 => format!("{:.0} min", s / 60.0),
        Some(s) => format!("{:.1} h", s / 3600.0),
        None => NOT_APPLICABLE.into(),
    }
}

/// A seed campaign's pace in words: its rate and ETA, or that it is finished.
fn pace(c: &CampaignJson<'_>) -> String {
    match finished(c) {
        true => "Every seed is mined.".into(),
        false => format!(
            "Rate {}, ETA {}.",
            seed_rate(c),
            duration_text(c.eta_seconds)
        ),
    }
}

async fn index(State(coordinator): Coord) -> Result<Html<String>, PageError> {
    let mut body = String::from(
        r#"<p id="scroll-hint" class="hint" hidden>◀ The table is wider than the window: scroll it sideways. ▶</p><div class="wide"><table id="campaigns"><thead><tr><th>campaign</th><th>progress</th><th>done</th><th>in progress</th><th>units</th><th>leased</th><th>quarantined</th><th>to check</th><th>mismatches</th><th>rate</th><th>ETA</th><th>hardest</th></tr></thead><tbody>"#,
    );
    for status in statuses(&coordinator)? {
        let c = CampaignJson::new(&status);
        let name = escape(&status.campaign.spec.name);
        let [done_text, in_progress_text, rate_text] = progress_texts(&c);
        let _ = write!(
            body,
            r#"<tr data-campaign="{name}"><td><a href="/campaign/{name}">{name}</a></td><td><progress max="{total}" value="{done}"></progress></td><td class="num seeds-done" data-seeds-done="{done}">{done_text}</td><td class="num in-progress" data-seeds-in-progress="{in_progress}">{in_progress_text}</td><td class="num units" data-units-done="{units_done}">{grouped_done} / {grouped_total}</td><td class="num leased">{leased}</td><td class="num quarantined" data-quarantined="{quarantined}">{quarantined_text}</td><td class="num to-check" data-to-check="{to_check}">{to_check_text}</td><td class="num mismatches" data-mismatches="{mismatches}">{mismatches_text}</td><td class="num rate">{rate_text}</td><td class="num eta">{eta}</td><td class="num hardest-moves" data-hardest="{hardest}">{hardest}</td></tr>"#,
            total = c.seeds_total,
            done = c.seeds_done,
            in_progress = c.seeds_in_progress,
            units_done = c.units_done,
            grouped_done = thousands(c.units_done),
            grouped_total = thousands(c.units_total),
            leased = thousands(c.units_leased),
            quarantined = c.units_quarantined,
            quarantined_text = thousands(c.units_quarantined),
            to_check = c.units_to_check,
            to_check_text = thousands(c.units_to_check),
            mismatches = c.mismatches,
            mismatches_text = thousands(c.mismatches as u64),
            eta = duration_text(c.eta_seconds),
            hardest = c.hardest_moves,
        );
    }
    body.push_str("</tbody></table></div>");
    Ok(Html(page("Campaigns", &body, Some("campaigns.js"))))
}

async fn campaign_page(
    State(coordinator): Coord,
    Path(name): Path<String>,
) -> Result<Html<String>, PageError> {
    let status = coordinator.status(&name)?;
    let stats = coordinator.stats(&name)?;
    if let Some(exact) = &stats.exhaustive {
        return exhaustive::campaign_page(&coordinator, &status, exact);
    }
    let a = stats.aggregates;
    let dealer = coordinator.dealer(&name)?;
    let c = CampaignJson::new(&status);
    let mut body = String::new();
    let games = status.campaign.spec.generator == ricochet::Generator::Ricocheckers.name();
    let seeds = format!(
        "{}..{}",
        thousands(status.campaign.spec.seed_start),
        thousands(status.campaign.spec.seed_end)
    );
    if games {
        forced_win_summary(&mut body, &seeds, &a, &c);
    } else {
        let _ = write!(
            body,
            r#"<p id="summary" data-puzzles="{puzzles}" data-mean="{mean:.4}" data-median="{median}" data-max="{max}">{puzzles_grouped} puzzles mined of seeds {seeds} ({units_done} of {units_total} units), mean <b>{mean:.3}</b> moves, median {median}, 99th percentile {p99}, hardest <b>{max}</b>. {pace}</p>"#,
            puzzles = a.puzzles(),
            puzzles_grouped = thousands(a.puzzles()),
            mean = a.mean(),
            median = a.percentile(0.5),
            p99 = a.percentile(0.99),
            max = a.max_moves(),
            units_done = thousands(status.units_done),
            units_total = thousands(status.units_total),
            pace = pace(&c),
        );
    }
    let (title, chart, length, counted) = match games {
        true => (
            "Forced wins by length",
            Counted::ForcedWins,
            "forced win in",
            "positions",
        ),
        false => ("Optimal move counts", Counted::Puzzles, "moves", "puzzles"),
    };
    body.push_str(&histogram_svg(
        &format!("{title}: {name}"),
        chart,
        &[(name.as_str(), a.histogram.as_slice())],
    ));
    let _ = write!(
        body,
        r#"<h2>Histogram</h2><div class="wide"><table id="histogram"><tr><th>{length}</th><th>{counted}</th><th>share</th><th>rarity</th></tr>"#
    );
    let total = a.puzzles().max(1);
    for (moves, &count) in a.histogram.iter().enumerate().filter(|(_, &c)| c > 0) {
        // Having no forced win is not a length of win, and the common case: no rarity.
        let (label, rarity_text) = match (games, moves) {
            (true, 0) => (
                format!("none within {FORCED_WIN_BOUND}"),
                NOT_APPLICABLE.to_string(),
            ),
            _ => (moves.to_string(), rarity(count, total)),
        };
        let _ = write!(
            body,
            r#"<tr data-moves="{moves}" data-count="{count}"><td>{label}</td><td class="num">{}</td><td class="num">{}</td><td class="num">{rarity_text}</td></tr>"#,
            thousands(count),
            percent(count, total),
        );
    }
    body.push_str(match games {
        true => "</table></div><h2>Longest forced wins</h2>",
        false => "</table></div><h2>Hardest puzzles</h2>",
    });
    if games {
        body.push_str(RICOCHECKERS_LEGEND);
    }
    body.push_str("<div class=\"hardest\" id=\"hardest\">");
    for mined in coordinator.hardest(&name, HARDEST_SHOWN, 0)? {
        let board = match dealer.deal(mined.seed)? {
            Dealt::Puzzle(generated) => {
                ricochet::svg::board(&generated.puzzle, &Picture::default())
            }
            Dealt::Ricocheckers(position) => ricocheckers_svg(&position, ""),
        };
        let _ = write!(
            body,
            r#"<a class="card" href="/campaign/{n}/puzzle/{seed}" data-seed="{seed}" data-moves="{moves}"><span class="title"><b>seed {seed}</b> · {length}{re}</span>{board}</a>"#,
            n = escape(&name),
            seed = mined.seed,
            moves = mined.moves,
            length = match games {
                true => format!("win in {}", mined.moves),
                false => format!("{} moves", mined.moves),
            },
            re = if mined.re_solved { " · re-solved" } else { "" },
        );
    }
    body.push_str("</div>");
    Ok(Html(page(&format!("Campaign {name}"), &body, None)))
}

/// A Ricocheckers campaign's summary in its own words: positions of `seeds`, how many
/// have a forced win within the bound and how many have none (which the chart leaves
/// out), the longest win, and the pace.
fn forced_win_summary(
    body: &mut String,
    seeds: &str,
    a: &rrm_model::Aggregates,
    c: &CampaignJson<'_>,
) {
    let positions = a.puzzles();
    let without = a.histogram.first().copied().unwrap_or(0);
    let wins = positions - without;
    let win_moves: u64 = (a.histogram.iter().enumerate().skip(1))
        .map(|(moves, &count)| moves as u64 * count)
        .sum();
    let _ = write!(
        body,
        r#"<p id="summary" data-puzzles="{positions}" data-no-win="{without}" data-max="{max}">{grouped} positions analysed of seeds {seeds}: {wins} with a forced win within {FORCED_WIN_BOUND} moves ({share}), {mean}; {without_text} with no forced win within {FORCED_WIN_BOUND} moves ({without_share}); the longest takes <b>{max}</b> moves. {pace}</p>"#,
        grouped = thousands(positions),
        wins = thousands(wins),
        share = percent(wins, positions),
        mean = match wins {
            0 => "none yet".to_string(),
            _ => format!("{:.2} moves on average", win_moves as f64 / wins as f64),
        },
        without_text = thousands(without),
        without_share = percent(without, positions),
        max = a.max_moves(),
        pace = pace(c),
    );
}
