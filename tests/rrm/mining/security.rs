//! Tokens and roles end to end: who may mine, create and read; a worker's identity comes
//! from its token; a token rotated while workers run; forged submissions from an
//! authenticated worker still caught; an open coordinator refused beyond loopback;
//! campaigns beyond the size limits refused. TLS is in `tls`.

use super::*;
use rrm_coordinator::auth::Keyring;
use rrm_coordinator::Security;
use rrm_proto::access::{token_hash, AuthChannel, ClientAccess};
use rrm_proto::v1::SubmitRequest;
use std::path::{Path, PathBuf};
use tonic::Status;

/// Writes a tokens file of (name, role, token).
pub(super) fn write_tokens(path: &Path, entries: &[(&str, &str, &str)]) {
    let text: String = entries
        .iter()
        .map(|(name, role, token)| format!("{name} {role} {}\n", token_hash(token)))
        .collect();
    // Through a rename, as operators (and Kubernetes) replace such files.
    let temp = path.with_extension("new");
    std::fs::write(&temp, text).unwrap();
    std::fs::rename(temp, path).unwrap();
}

pub(super) fn with_token(token: &str) -> ClientAccess {
    ClientAccess {
        token: Some(token.into()),
        ..ClientAccess::default()
    }
}

pub(super) fn channel(url: &str, access: &ClientAccess) -> AuthChannel {
    access.channel(url, Duration::from_secs(30)).unwrap()
}

pub(super) fn mining(
    url: &str,
    access: &ClientAccess,
) -> pb::mining_client::MiningClient<AuthChannel> {
    pb::mining_client::MiningClient::new(channel(url, access))
}

pub(super) async fn register(
    url: &str,
    access: &ClientAccess,
    name: &str,
) -> Result<Registered, Status> {
    register_threads(url, access, name, 1).await
}

/// [`register`] declaring `threads` solver threads (leases held at once scale with them).
pub(super) async fn register_threads(
    url: &str,
    access: &ClientAccess,
    name: &str,
    threads: u32,
) -> Result<Registered, Status> {
    mining(url, access)
        .register(pb::RegisterRequest {
            name: name.into(),
            threads,
            version: env!("CARGO_PKG_VERSION").into(),
        })
        .await
        .map(|reply| {
            let reply = reply.into_inner();
            Registered {
                id: reply.worker_id,
                session: reply.session,
            }
        })
}

pub(super) async fn create(
    url: &str,
    access: &ClientAccess,
    spec: CampaignSpec,
) -> Result<(), Status> {
    pb::campaigns_client::CampaignsClient::new(channel(url, access))
        .create_campaign(rrm_proto::wire::create_request(spec))
        .await
        .map(drop)
}

async fn list(url: &str, access: &ClientAccess) -> Result<usize, Status> {
    pb::query_client::QueryClient::new(channel(url, access))
        .list_campaigns(pb::ListCampaignsRequest {})
        .await
        .map(|reply| reply.into_inner().campaigns.len())
}

/// Leases a unit for `worker` and solves it honestly.
pub(super) async fn leased_and_solved(
    url: &str,
    access: &ClientAccess,
    worker: &Registered,
) -> (pb::WorkUnit, rrm_worker::UnitResult) {
    let unit = mining(url, access)
        .lease(worker.lease())
        .await
        .unwrap()
        .into_inner()
        .unit
        .expect("a unit");
    let solved = solve_honestly(unit.seed_start..unit.seed_end, 5);
    (unit, solved)
}

pub(super) fn code<T: std::fmt::Debug>(result: Result<T, Status>) -> Code {
    result.expect_err("refused").code()
}

/// A tokens file with a token of each role, two worker tokens among them.
pub(super) struct Tokens {
    pub(super) dir: tempfile::TempDir,
    pub(super) path: PathBuf,
}

impl Tokens {
    pub(super) fn new(entries: &[(&str, &str, &str)]) -> Tokens {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tokens");
        write_tokens(&path, entries);
        Tokens { dir, path }
    }

    pub(super) fn security(&self) -> Security {
        Security {
            keyring: Keyring::load(std::slice::from_ref(&self.path), &[]).unwrap(),
            tls: None,
        }
    }

    /// Writes `token` to a file of its own, for `--token-file`.
    pub(super) fn token_file(&self, token: &str) -> String {
        let path = self.dir.path().join(format!("{token}.token"));
        std::fs::write(&path, format!("{token}\n")).unwrap();
        path.to_str().unwrap().to_string()
    }
}

pub(super) const ROLES: [(&str, &str, &str); 4] = [
    ("pool-a", "worker", "tok-a"),
    ("pool-b", "worker", "tok-b"),
    ("ops", "admin", "tok-admin"),
    ("grafana", "read", "tok-read"),
];

#[test]
fn tokens_decide_who_may_mine_create_and_read() {
    let tokens = Tokens::new(&ROLES);
    let server = Server::start_with(Config::default(), tokens.security());
    let url = server.url.clone();
    block_on(async {
        let nobody = ClientAccess::default();
        let (a, b) = (with_token("tok-a"), with_token("tok-b"));
        let (admin, reader) = (with_token("tok-admin"), with_token("tok-read"));
        // Mining: worker tokens only.
        assert_eq!(
            code(register(&url, &nobody, "x").await),
            Code::Unauthenticated
        );
        assert_eq!(
            code(register(&url, &with_token("forged"), "x").await),
            Code::Unauthenticated
        );
        assert_eq!(
            code(register(&url, &admin, "x").await),
            Code::PermissionDenied
        );
        // Campaigns: admin only; the refused attempts leave nothing behind.
        for refused in [&nobody, &a, &reader] {
            let result = create(&url, refused, spec("held", 1..101, 10)).await;
            assert!(matches!(
                result.unwrap_err().code(),
                Code::Unauthenticated | Code::PermissionDenied
            ));
        }
        assert_eq!(list(&url, &reader).await.unwrap(), 0);
        create(&url, &admin, spec("held", 1..101, 10))
            .await
            .unwrap();
        // Query: a read token is configured, so reads need read or admin.
        assert_eq!(code(list(&url, &nobody).await), Code::Unauthenticated);
        assert_eq!(code(list(&url, &a).await), Code::PermissionDenied);
        assert_eq!(list(&url, &reader).await.unwrap(), 1);
        assert_eq!(list(&url, &admin).await.unwrap(), 1);

        // The identity is the token's name, whatever the worker calls itself.
        let id_a = register(&url, &a, "mallory").await.unwrap();
        let session = rrm_coordinator::Session {
            worker: id_a.id,
            secret: id_a.session.clone().try_into().unwrap(),
        };
        let identity = server.coordinator.authenticate(&session, None).unwrap();
        assert_eq!(identity.identity, "pool-a");
        // Another token cannot act under pool-a's registration, even with its session.
        let stolen = mining(&url, &b).lease(id_a.lease()).await;
        assert_eq!(code(stolen), Code::PermissionDenied);

        // Forged results from an authenticated worker are still caught, and charged: the
        // refused lease ends, the unit comes back.
        let before = server.coordinator.aggregates("held").unwrap();
        // pool-a's submission of `counts` for `unit`, as solved.
        let of = |unit: &pb::WorkUnit, solved: &rrm_worker::UnitResult, counts: Vec<u8>| {
            let seeds = unit.seed_start..unit.seed_end;
            submission(unit.lease.clone().unwrap(), seeds, solved, &id_a, counts)
        };
        let mut client = mining(&url, &a);
        let (unit, solved) = leased_and_solved(&url, &a, &id_a).await;
        let forged_digest = SubmitRequest {
            digest: vec![0; 32],
            ..of(&unit, &solved, solved.move_counts.clone())
        };
        assert_eq!(
            code(client.submit(forged_digest).await),
            Code::InvalidArgument
        );
        let (unit, solved) = leased_and_solved(&url, &a, &id_a).await;
        let mut record = solved.move_counts.clone();
        record[0] = 25; // a "record" without its solution
        let forged_record = of(&unit, &solved, record);
        assert_eq!(
            code(client.submit(forged_record).await),
            Code::InvalidArgument
        );
        // That proved pool-a wrong: it leases nothing until an admin clears it.
        assert_eq!(
            code(mining(&url, &a).lease(id_a.lease()).await),
            Code::PermissionDenied
        );
        let trust = |access: &ClientAccess| {
            let mut client = pb::campaigns_client::CampaignsClient::new(channel(&url, access));
            async move {
                let request = pb::TrustWorkerRequest {
                    identity: "pool-a".into(),
                };
                client.trust_worker(request).await
            }
        };
        assert_eq!(code(trust(&reader).await), Code::PermissionDenied);
        assert!(trust(&admin).await.unwrap().into_inner().cleared);
        // pool-b cannot hand in pool-a's unit either.
        let (unit, solved) = leased_and_solved(&url, &a, &id_a).await;
        let honest = of(&unit, &solved, solved.move_counts.clone());
        assert_eq!(
            code(mining(&url, &b).submit(honest.clone()).await),
            Code::PermissionDenied
        );
        assert_eq!(server.coordinator.aggregates("held").unwrap(), before);
        let accepted = client.submit(honest).await.unwrap().into_inner();
        assert_eq!(accepted.outcome(), pb::SubmitOutcome::Accepted);
        let done = server.coordinator.aggregates("held").unwrap();
        assert_eq!(
            done.histogram,
            direct_histogram(unit.seed_start..unit.seed_end)
        );
    });

    // The command line names the refusal and fails.
    let output = crate::rrm(&[
        "campaign",
        "create",
        "other",
        "--coordinator",
        &url,
        "--seeds",
        "1..11",
        "--token-file",
        &tokens.token_file("tok-read"),
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("grafana") && stderr.contains("may not"),
        "{stderr}"
    );
    assert_eq!(server.coordinator.campaign_names(), ["held"]);
}

#[test]
fn a_token_rotated_while_workers_run_loses_and_doubles_nothing() {
    let tokens = Tokens::new(&[("ops", "admin", "tok-admin"), ("old", "worker", "tok-old")]);
    let data = tempfile::tempdir().unwrap();
    let mut coordinator = rrm_process(&[
        "coordinator",
        "--listen",
        "127.0.0.1:0",
        "--data",
        data.path().to_str().unwrap(),
        "--lease-seconds",
        "2",
        "--no-dashboard",
        "--tokens-file",
        tokens.path.to_str().unwrap(),
    ]);
    let url = format!("http://{}", announced(&mut coordinator, "listening on "));
    let admin = tokens.token_file("tok-admin");
    rrm_ok(&[
        "campaign",
        "create",
        "rotate",
        "--coordinator",
        &url,
        "--seeds",
        "1..6001",
        "--unit-size",
        "25",
        "--token-file",
        &admin,
    ]);
    let progress = || {
        let status = block_on(async {
            pb::query_client::QueryClient::new(channel(&url, &with_token("tok-admin")))
                .get_campaign_status(pb::CampaignRequest {
                    campaign: "rotate".into(),
                })
                .await
                .unwrap()
                .into_inner()
        });
        (
            status.units_done,
            status.units_total,
            status.units_quarantined,
        )
    };
    let worker_with = |token: &str| {
        rrm_process(&[
            "worker",
            "--coordinator",
            &url,
            "--threads",
            "1",
            "--token-file",
            &tokens.token_file(token),
        ])
    };
    let mut old = worker_with("tok-old");
    wait_until(
        Duration::from_secs(60),
        "the old token's worker mines",
        || progress().0 >= 3,
    );

    // Both tokens valid at once: the new one works as soon as the file is re-read.
    write_tokens(
        &tokens.path,
        &[
            ("ops", "admin", "tok-admin"),
            ("old", "worker", "tok-old"),
            ("new", "worker", "tok-new"),
        ],
    );
    wait_until(Duration::from_secs(15), "the new token is accepted", || {
        block_on(register(&url, &with_token("tok-new"), "probe")).is_ok()
    });
    let _new = worker_with("tok-new");
    let both = progress().0;
    wait_until(Duration::from_secs(60), "both workers mine", || {
        progress().0 >= both + 4
    });
    assert!(
        old.0.try_wait().unwrap().is_none(),
        "the old worker stopped early"
    );

    // The old token is withdrawn: its worker is refused and stops; nothing it held is lost.
    write_tokens(
        &tokens.path,
        &[("ops", "admin", "tok-admin"), ("new", "worker", "tok-new")],
    );
    wait_until(Duration::from_secs(30), "the old worker is refused", || {
        old.0.try_wait().unwrap().is_some()
    });
    assert!(
        !old.0.wait().unwrap().success(),
        "a refused worker must fail"
    );
    assert_eq!(
        code(block_on(register(&url, &with_token("tok-old"), "x"))),
        Code::Unauthenticated
    );
    wait_until(Duration::from_secs(120), "the campaign is done", || {
        let (done, total, _) = progress();
        done == total
    });
    assert_eq!(progress().2, 0, "no unit was quarantined");
    let histogram = block_on(async {
        pb::query_client::QueryClient::new(channel(&url, &with_token("tok-admin")))
            .get_stats(pb::CampaignRequest {
                campaign: "rotate".into(),
            })
            .await
            .unwrap()
            .into_inner()
            .histogram
    });
    assert_eq!(histogram, direct_histogram(1..6001));
}

/// Reads the process's stdout up to the line starting with `prefix`; returns the rest of
/// that line. Later lines are drained so the process never meets a closed pipe.
pub(super) fn announced(process: &mut Process, prefix: &str) -> String {
    let mut lines = BufReader::new(process.0.stdout.take().unwrap());
    let mut line = String::new();
    loop {
        line.clear();
        assert!(
            lines.read_line(&mut line).unwrap() > 0,
            "no line {prefix:?}"
        );
        if let Some(rest) = line.trim().strip_prefix(prefix) {
            let rest = rest.to_string();
            std::thread::spawn(move || std::io::copy(&mut lines, &mut std::io::sink()));
            return rest;
        }
    }
}

#[test]
fn an_open_coordinator_is_refused_beyond_loopback() {
    let data = tempfile::tempdir().unwrap();
    // Refused before anything listens: nothing outside 127.0.0.0/8 is ever bound.
    let output = crate::rrm(&[
        "coordinator",
        "--listen",
        "0.0.0.0:0",
        "--data",
        data.path().to_str().unwrap(),
        "--no-dashboard",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--tokens-file") && stderr.contains("--insecure"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_dir(data.path()).unwrap().count(),
        0,
        "a store was opened"
    );
}

#[test]
fn campaigns_beyond_the_size_limits_are_refused() {
    let config = Config {
        max_campaign_units: 10,
        max_campaign_seeds: 1_000,
        ..Config::default()
    };
    let server = Server::start(config);
    for (seeds, unit, needle) in [
        (
            "1..5001",
            "100",
            "50 units, more than this coordinator's limit of 10",
        ),
        (
            "1..2001",
            "1000",
            "2000 seeds, more than this coordinator's limit of 1000",
        ),
    ] {
        let output = crate::rrm(&[
            "campaign",
            "create",
            "big",
            "--coordinator",
            &server.url,
            "--seeds",
            seeds,
            "--unit-size",
            unit,
        ]);
        assert_eq!(output.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(needle), "{stderr}");
    }
    assert!(server.coordinator.campaign_names().is_empty());
    rrm_ok(&[
        "campaign",
        "create",
        "fits",
        "--coordinator",
        &server.url,
        "--seeds",
        "1..1001",
        "--unit-size",
        "100",
    ]);
}
