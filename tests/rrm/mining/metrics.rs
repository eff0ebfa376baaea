//! The coordinator's Prometheus metrics on the dashboard's `/metrics`: scraped over HTTP
//! from a real `rrm coordinator` process while a worker mines a small campaign, read with
//! a strict parser of the OpenMetrics text format and checked against the campaign; two
//! coordinators in one process, whose metrics must stay apart; and the stage counters as
//! `rrm-dev load-test` reports them, with its clients in its process and in their own.

use super::*;
use crate::dashboard::{get, serve};
use crate::mining::exhaustive_queries::{forged_request, forged_unit, other_boards};
use rrm_coordinator::Provenance;
use rrm_model::Outcome;
use std::collections::{BTreeMap, HashSet};

#[test]
fn a_mined_campaign_is_counted_in_the_metrics() {
    let data = tempfile::tempdir().unwrap();
    let (_coordinator, address, dashboard) = coordinator_with_dashboard(data.path(), "127.0.0.1:0");
    let dashboard: std::net::SocketAddr = dashboard.parse().unwrap();
    let url = format!("http://{address}");
    rrm_ok(&[
        "campaign",
        "create",
        "metered",
        "--seeds",
        "1..2001",
        "--unit-size",
        "250",
        "--coordinator",
        &url,
    ]);
    let campaign = [("campaign", "metered")];
    // A silent worker takes the first unit and lets its lease (3 s) run out.
    block_on(async {
        let (mut client, worker) = raw_worker(&url, "silent").await;
        leased_unit(&mut client, &worker).await;
    });
    let before = scrape(dashboard);
    assert_eq!(before.value("rrm_workers_holding_leases", &[]), 1.0);
    assert_eq!(before.value("rrm_workers_registered_total", &[]), 1.0);
    assert_eq!(before.value("rrm_units_leased_total", &campaign), 1.0);
    assert_eq!(before.value("rrm_units_completed_total", &campaign), 0.0);
    assert_eq!(before.value("rrm_seeds_per_second", &campaign), 0.0);

    let _worker = worker(&url, 2);
    wait_until(Duration::from_secs(120), "the campaign is mined", || {
        status(&url, "metered").is_some_and(|s| is_done(&s))
    });
    block_on(async {
        let mut client = query(&url).await;
        for _ in 0..2 {
            let refused = client
                .get_campaign_status(pb::CampaignRequest {
                    campaign: "no-such-campaign".into(),
                })
                .await
                .unwrap_err();
            assert_eq!(refused.code(), Code::NotFound);
        }
    });
    // The campaign reads as done once its last result is recorded, which is before that
    // result's flush ends and its Submit call returns: wait for the calls to be counted.
    let submits_ok = |scrape: &Exposition| {
        scrape.value(
            "rrm_rpc_duration_seconds_count",
            &[("method", "/rrm.v1.Mining/Submit"), ("code", "OK")],
        )
    };
    let mut after = scrape(dashboard);
    wait_until(
        Duration::from_secs(30),
        "every Submit call is counted",
        || {
            after = scrape(dashboard);
            submits_ok(&after) >= 8.0
                && after.value("rrm_stage_passes_total", &[("stage", "submit_call")]) >= 8.0
        },
    );
    assert_eq!(after.value("rrm_units_completed_total", &campaign), 8.0);
    assert_eq!(after.value("rrm_seeds_completed_total", &campaign), 2000.0);
    assert!(after.value("rrm_seeds_per_second", &campaign) > 0.0);
    // The first unit twice: the silent worker's lease ran out.
    assert!(after.value("rrm_units_leased_total", &campaign) >= 9.0);
    assert!(after.value("rrm_units_expired_total", &campaign) >= 1.0);
    assert_eq!(after.value("rrm_units_quarantined_total", &campaign), 0.0);
    assert_eq!(after.value("rrm_units_mismatched_total", &campaign), 0.0);
    assert_eq!(after.value("rrm_workers_registered_total", &[]), 2.0);
    assert_eq!(after.value("rrm_workers_holding_leases", &[]), 0.0);
    let calls = |method: &str, code: &str| {
        after.value(
            "rrm_rpc_duration_seconds_count",
            &[("method", method), ("code", code)],
        )
    };
    assert!(calls("/rrm.v1.Mining/Lease", "OK") >= 9.0);
    assert_eq!(calls("/rrm.v1.Query/GetCampaignStatus", "NOT_FOUND"), 2.0);
    assert!(after.value("rrm_store_flush_duration_seconds_count", &[]) >= 1.0);
    assert!(after.value("rrm_store_size_bytes", &[]) > 0.0);
    // Where the calls spent their time: every accepted result waited for a flush, and
    // each stage passed through took some time.
    let passes = |stage: &str| after.value("rrm_stage_passes_total", &[("stage", stage)]);
    let seconds = |stage: &str| after.value("rrm_stage_seconds_total", &[("stage", stage)]);
    assert!(passes("submit_call") >= 8.0);
    assert!(passes("lease_call") >= 9.0);
    assert!(passes("flush_queue") >= passes("submit_call"));
    assert!((1.0..=passes("flush_queue")).contains(&passes("flush")));
    assert!(passes("checking") >= passes("submit_call"));
    assert!(passes("store_write") >= 8.0 + 9.0);
    assert!(passes("lock_wait") >= passes("lock_held") && passes("lock_held") > 0.0);
    for stage in [
        "submit_call",
        "checking",
        "flush",
        "store_write",
        "lock_held",
    ] {
        assert!(seconds(stage) > 0.0, "no time in {stage}");
    }
    assert!(seconds("submit_call") > seconds("checking"));
    // A newcomer's first units are solved in full, within their checking.
    assert!(passes("solving_in_full") >= 1.0);
    assert!((f64::MIN_POSITIVE..seconds("checking")).contains(&seconds("solving_in_full")));
}

#[test]
fn load_test_says_where_the_time_went_with_clients_in_either_process() {
    let out = crate::rrm_dev_ok(&[
        "load-test",
        "--seconds",
        "1",
        "--workers",
        "4",
        "--scrapes",
        "0",
        "--clients",
        "both",
    ]);
    let loads: Vec<&str> = out.split("plaintext, ").skip(1).collect();
    assert_eq!(loads.len(), 2, "{out}");
    assert!(loads[0].starts_with("clients in the coordinator's process"));
    assert!(loads[1].starts_with("clients in a process of their own"));
    assert!(loads[1].contains("coordinator's process CPU") && loads[1].contains("clients'"));
    let number_after = |text: &str, label: &str| -> f64 {
        let rest = &text[text
            .find(label)
            .unwrap_or_else(|| panic!("{label}: {text}"))
            + label.len()..];
        rest.trim_start()
            .split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no number after {label}: {text}"))
    };
    for load in loads {
        let round_trips = number_after(load, "units of 1 seeds:");
        assert!(round_trips > 0.0, "{load}");
        assert!(number_after(load, "group flushes:") >= 1.0, "{load}");
        // The top-level rows share out the mean round trip.
        let share = |row: &str| {
            let line = load
                .lines()
                .find(|l| l.trim_start().starts_with(row))
                .unwrap();
            number_after(line.split(" ms ").nth(1).unwrap(), "")
        };
        let total = share("Lease call") + share("Submit call") + share("outside the handlers");
        assert!((99.0..=101.0).contains(&total), "{total} % in {load}");
        assert!(share("Submit call") > 0.0);
    }
}

#[test]
fn two_coordinators_in_one_process_keep_their_metrics_apart() {
    let boards = other_boards();
    let open = |data: &tempfile::TempDir| {
        Arc::new(Coordinator::open(Store::open(data.path()).unwrap(), Config::default()).unwrap())
    };
    let (data_a, data_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (a, b) = (open(&data_a), open(&data_b));
    a.create_exhaustive_campaign(forged_request("ex", &boards))
        .unwrap();
    let imported = a.import_exhaustive(
        "ex",
        &boards[0],
        "GQ",
        forged_unit(&boards[0], 5, 2),
        Provenance::default(),
        rrm_coordinator::ReSolving::WORKER,
    );
    assert_eq!(imported.unwrap(), Outcome::Accepted);
    let differing = a.import_exhaustive(
        "ex",
        &boards[0],
        "GQ",
        forged_unit(&boards[0], 5, 3),
        Provenance::default(),
        rrm_coordinator::ReSolving::WORKER,
    );
    assert_eq!(differing.unwrap(), Outcome::Mismatch);
    b.create_campaign(spec("seeds", 1..101, 10)).unwrap();
    let (runtime_a, address_a, stop_a, server_a) = serve(a);
    let (runtime_b, address_b, stop_b, server_b) = serve(b);
    let (a, b) = (scrape(address_a), scrape(address_b));
    let ex = [("campaign", "ex")];
    assert_eq!(a.value("rrm_units_completed_total", &ex), 1.0);
    assert_eq!(a.value("rrm_seeds_completed_total", &ex), 1.0);
    assert_eq!(a.value("rrm_units_mismatched_total", &ex), 1.0);
    assert!(a
        .find("rrm_units_completed_total", &[("campaign", "seeds")])
        .is_none());
    let seeds = [("campaign", "seeds")];
    assert_eq!(b.value("rrm_units_completed_total", &seeds), 0.0);
    assert!(b.find("rrm_units_completed_total", &ex).is_none());
    for coordinator in [&a, &b] {
        assert!(coordinator.value("rrm_store_size_bytes", &[]) > 0.0);
    }
    let _ = (stop_a.send(()), stop_b.send(()));
    runtime_a.block_on(server_a).unwrap().unwrap();
    runtime_b.block_on(server_b).unwrap().unwrap();
}

/// GETs `/metrics` and parses it.
fn scrape(dashboard: std::net::SocketAddr) -> Exposition {
    let (status, content_type, body) = get(dashboard, "/metrics");
    assert_eq!(status, 200, "{body}");
    assert!(
        content_type.starts_with("application/openmetrics-text; version=1.0.0"),
        "{content_type}"
    );
    Exposition::parse(&body)
}

#[derive(Debug)]
struct Sample {
    name: String,
    labels: BTreeMap<String, String>,
    value: f64,
}

/// The samples of an exposition in the OpenMetrics text format, as far as the coordinator
/// writes it: families of counters, gauges and histograms with help, type and unit lines,
/// samples without timestamps or exemplars, `# EOF` last.
#[derive(Debug)]
struct Exposition {
    samples: Vec<Sample>,
}

impl Exposition {
    /// Parses `text`, refusing anything outside the format (with the line).
    fn parse(text: &str) -> Exposition {
        let body = text.strip_suffix("# EOF\n").expect("ends with # EOF");
        let mut samples = Vec::new();
        let mut seen = HashSet::new();
        // The current family: name, type, whether it has help.
        let mut family: Option<(String, String, bool)> = None;
        for line in body.lines() {
            if let Some(meta) = line.strip_prefix("# ") {
                let mut words = meta.splitn(3, ' ');
                let (kind, name, rest) = (words.next(), words.next(), words.next());
                let (Some(kind), Some(name), Some(rest)) = (kind, name, rest) else {
                    panic!("bad metadata line {line:?}");
                };
                assert!(is_name(name), "{line:?}");
                if family.as_ref().is_none_or(|(current, ..)| current != name) {
                    check_family(&family);
                    assert!(seen.insert(name.to_string()), "family {name} twice");
                    family = Some((name.to_string(), String::new(), false));
                }
                let (_, kind_of, help) = family.as_mut().unwrap();
                match kind {
                    "HELP" => {
                        assert!(!rest.contains('"') && !*help, "{line:?}");
                        *help = true;
                    }
                    "TYPE" => {
                        assert!(
                            ["counter", "gauge", "histogram"].contains(&rest),
                            "{line:?}"
                        );
                        assert!(kind_of.is_empty(), "{line:?}");
                        *kind_of = rest.to_string();
                    }
                    "UNIT" => assert!(name.ends_with(&format!("_{rest}")), "{line:?}"),
                    _ => panic!("bad metadata line {line:?}"),
                }
                continue;
            }
            let sample = sample(line);
            let (name, kind, _) = family.as_ref().expect("a sample before any family");
            let suffixes: &[&str] = match kind.as_str() {
                "counter" => &["_total", "_created"],
                "histogram" => &["_bucket", "_count", "_sum", "_created"],
                _ => &[""],
            };
            assert!(
                suffixes
                    .iter()
                    .any(|suffix| sample.name == format!("{name}{suffix}")),
                "{line:?} outside family {name}"
            );
            if kind != "gauge" {
                assert!(sample.value >= 0.0, "{line:?}");
            }
            samples.push(sample);
        }
        check_family(&family);
        let exposition = Exposition { samples };
        exposition.check_histograms();
        exposition
    }

    /// The one sample named `name` with (at least) `labels`, if any.
    fn find(&self, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
        let found: Vec<&Sample> = self
            .samples
            .iter()
            .filter(|s| {
                s.name == name
                    && labels
                        .iter()
                        .all(|(k, v)| s.labels.get(*k).map(String::as_str) == Some(*v))
            })
            .collect();
        match found.as_slice() {
            [] => None,
            [one] => Some(one.value),
            many => panic!("{} samples of {name} {labels:?}", many.len()),
        }
    }

    /// The value of the one sample named `name` with `labels`.
    fn value(&self, name: &str, labels: &[(&str, &str)]) -> f64 {
        self.find(name, labels)
            .unwrap_or_else(|| panic!("no sample {name} {labels:?} in {:#?}", self.samples))
    }

    /// Every histogram's buckets rise with `le`, never fall, and end at its count.
    fn check_histograms(&self) {
        // (histogram, labels but le) → (le, count) of each bucket.
        type Series = (String, Vec<(String, String)>);
        let mut buckets: BTreeMap<Series, Vec<(f64, f64)>> = BTreeMap::new();
        for sample in self.samples.iter().filter(|s| s.name.ends_with("_bucket")) {
            let mut labels = sample.labels.clone();
            let le = labels.remove("le").expect("a bucket has le");
            let le = if le == "+Inf" {
                f64::INFINITY
            } else {
                le.parse().unwrap()
            };
            let base = sample.name.strip_suffix("_bucket").unwrap().to_string();
            let key = (base, labels.into_iter().collect());
            buckets.entry(key).or_default().push((le, sample.value));
        }
        for ((base, labels), bounds) in buckets {
            assert!(
                bounds
                    .windows(2)
                    .all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1),
                "{base} {labels:?}: {bounds:?}"
            );
            let (last_le, last_count) = *bounds.last().unwrap();
            let labels: Vec<(&str, &str)> = labels
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            assert_eq!(last_le, f64::INFINITY, "{base} {labels:?}");
            assert_eq!(
                self.value(&format!("{base}_count"), &labels),
                last_count,
                "{base} {labels:?}"
            );
        }
    }
}

/// A family is complete: it has help and a type.
fn check_family(family: &Option<(String, String, bool)>) {
    if let Some((name, kind, help)) = family {
        assert!(
            *help && !kind.is_empty(),
            "family {name} lacks help or type"
        );
    }
}

fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == ':')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
}

/// `name{label="value",...} value` or `name value`.
fn sample(line: &str) -> Sample {
    let (series, value) = line.rsplit_once(' ').unwrap_or_else(|| panic!("{line:?}"));
    let value = match value {
        "+Inf" => f64::INFINITY,
        "-Inf" => f64::NEG_INFINITY,
        "NaN" => f64::NAN,
        number => {
            assert!(
                number
                    .chars()
                    .all(|c| c.is_ascii_digit() || ".-+e".contains(c)),
                "{line:?}"
            );
            number.parse().unwrap_or_else(|_| panic!("{line:?}"))
        }
    };
    let (name, labels) = match series.split_once('{') {
        None => (series, BTreeMap::new()),
        Some((name, rest)) => {
            let inner = rest.strip_suffix('}').unwrap_or_else(|| panic!("{line:?}"));
            (name, labels(inner, line))
        }
    };
    assert!(is_name(name), "{line:?}");
    Sample {
        name: name.to_string(),
        labels,
        value,
    }
}

/// `label="value",...` with `\\`, `\"` and `\n` escaped in values.
fn labels(mut text: &str, line: &str) -> BTreeMap<String, String> {
    let mut labels = BTreeMap::new();
    while !text.is_empty() {
        let (name, rest) = text.split_once("=\"").unwrap_or_else(|| panic!("{line:?}"));
        assert!(is_name(name) && !name.contains(':'), "{line:?}");
        let mut value = String::new();
        let mut chars = rest.char_indices();
        let end = loop {
            match chars.next() {
                Some((i, '"')) => break i,
                Some((_, '\\')) => match chars.next() {
                    Some((_, '\\')) => value.push('\\'),
                    Some((_, '"')) => value.push('"'),
                    Some((_, 'n')) => value.push('\n'),
                    _ => panic!("bad escape in {line:?}"),
                },
                Some((_, c)) => value.push(c),
                None => panic!("unterminated value in {line:?}"),
            }
        };
        assert!(labels.insert(name.to_string(), value).is_none(), "{line:?}");
        text = &rest[end + 1..];
        if !text.is_empty() {
            text = text.strip_prefix(',').unwrap_or_else(|| panic!("{line:?}"));
        }
    }
    labels
}
