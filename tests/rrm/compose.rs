//! The container image and `deploy/compose.yaml` run for real: the image built from the
//! Dockerfile, Compose bringing up the coordinator (TLS, tokens, its health check) and its
//! two workers, a campaign mined across a `down` and an `up` that must keep the store's
//! named volume, and then its statistics held against `rrm mine` of the same seeds here
//! and each worker's units counted in the coordinator's store.
//!
//! Nothing comes from a registry. The image is built with `BINARY=prebuilt` (this build's
//! `rrm`, from a build context made here) on `RUNTIME_BASE`, an image imported from the
//! host's own copies of the libraries `rrm` links (as ldd lists them) and of the CA
//! certificates: a stand-in for distroless "cc", Debian 12 both. BuildKit (which skips the Rust stage) comes from
//! `docker buildx` or, with Debian 12's docker.io, from a client older than 23.
//!
//! The Compose files are a copy of `deploy/compose.yaml` without the coordinator's
//! published ports, and an override written here: every container on the host's network,
//! listening on 127.0.0.1 ports picked free here (so no bridge, no private address), the
//! secrets from a temporary directory, a short lease, a fast health check. Each run has
//! a project name of its own; `down -v` and the removal of both images run however the
//! test ends. Compose is `docker compose` or Debian 12's docker-compose 1.29.
//!
//! Its steps (the image build's log, each worker's units) are written to stderr past the
//! test harness's capture, so that CI's log shows them even when the test passes.
//!
//! `.ci/run` installs Debian's docker.io and docker-compose when missing and starts the
//! daemon; elsewhere, without `docker` on `PATH`, the test is ignored with the reason
//! (`build.rs`), never passed.

use rrm_model::UnitState;
use rrm_store::Store;
use serde_json::Value;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const CAMPAIGN: &str = "compose";
/// 40 units: enough that the `down` comes well before the end, small enough for CI.
const SEEDS: &str = "1..20001";
const UNIT_SIZE: &str = "500";
const WORKERS: [&str; 2] = ["worker-1", "worker-2"];

/// The Docker tools found on this machine.
struct Docker {
    client: PathBuf,
    /// `buildx build --load`; otherwise `build` with `DOCKER_BUILDKIT=1`.
    buildx: bool,
    /// `docker compose` (v2) or `docker-compose` (v1): program and leading arguments.
    compose: Vec<OsString>,
}

/// Every executable `name` on PATH, in PATH's order.
fn on_path(name: &str) -> Vec<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|dir| dir.join(name))
        .filter(|path| path.is_file())
        .collect()
}

fn succeeds(command: &mut Command) -> bool {
    crate::output_within(command, Duration::from_secs(60))
        .status
        .success()
}

impl Docker {
    /// The tools, or why the test cannot run here.
    fn find() -> Result<Docker, String> {
        let clients = on_path("docker");
        let Some(first) = clients.first() else {
            return Err("no docker client".into());
        };
        if !succeeds(Command::new(first).arg("info")) {
            return Err("no Docker daemon answers".into());
        }
        // A client with buildx, or one older than 23, whose `build` has BuildKit built
        // in (Debian 12's 20.10); newer clients without buildx only have the legacy
        // builder, which would pull the Rust image for the stage it cannot skip.
        let (client, buildx) = clients
            .iter()
            .find_map(|client| {
                if succeeds(Command::new(client).args(["buildx", "version"])) {
                    return Some((client.clone(), true));
                }
                let version = crate::output_within(
                    Command::new(client).args(["version", "--format", "{{.Client.Version}}"]),
                    Duration::from_secs(60),
                );
                let major = String::from_utf8_lossy(&version.stdout)
                    .split('.')
                    .next()
                    .and_then(|major| major.trim().parse::<u32>().ok());
                (major? < 23).then(|| (client.clone(), false))
            })
            .ok_or("no docker client builds with BuildKit (buildx, or a client before 23)")?;
        let compose = if succeeds(Command::new(&client).args(["compose", "version"])) {
            vec![client.clone().into(), "compose".into()]
        } else if let Some(v1) = on_path("docker-compose").first() {
            vec![v1.into()]
        } else {
            return Err("no Docker Compose (docker compose or docker-compose)".into());
        };
        Ok(Docker {
            client,
            buildx,
            compose,
        })
    }
}

/// One Compose project of this test; dropping it takes down its containers, networks
/// and volume and removes its images, whether the test passed or not.
struct Project<'a> {
    docker: &'a Docker,
    name: String,
    files: [PathBuf; 2],
    image: String,
    base: String,
    started: Instant,
}

impl Project<'_> {
    /// Builds the image from the Dockerfile with `rrm` on a base made of this host's
    /// files, both in `work`; prints the build's log.
    fn build_image(&self, rrm: &Path, work: &Path) {
        use std::os::unix::fs::PermissionsExt;
        let base = work.join("base");
        runtime_of(rrm, &base);
        let base_tar = work.join("base.tar");
        let mut tar = Command::new("tar");
        succeeded(tar.arg("-C").arg(&base).arg("-cf").arg(&base_tar).arg("."));
        succeeded(self.docker().arg("import").arg(&base_tar).arg(&self.base));
        let context = work.join("context");
        std::fs::create_dir_all(context.join("prebuilt/data")).unwrap();
        std::fs::copy(rrm, context.join("prebuilt/rrm")).unwrap();
        let private = std::fs::Permissions::from_mode(0o700);
        std::fs::set_permissions(context.join("prebuilt/data"), private).unwrap();
        let mut build = self.docker();
        if self.docker.buildx {
            build.args(["buildx", "build", "--load"]);
        } else {
            build.arg("build").env("DOCKER_BUILDKIT", "1");
        }
        build
            .args(["--progress", "plain", "-f"])
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("Dockerfile"))
            .args(["--build-arg", &format!("RUNTIME_BASE={}", self.base)])
            .args(["--build-arg", "BINARY=prebuilt", "-t", &self.image])
            .arg(&context);
        let built = crate::output_within(&mut build, crate::COMMAND_LIMIT);
        let log = String::from_utf8_lossy(&built.stderr);
        shown(&log);
        assert!(built.status.success(), "the image build failed");
        assert!(!log.contains("[builder"), "the Rust stage was built");
        self.say(&format!("image {} built from the Dockerfile", self.image));
    }

    fn say(&self, line: &str) {
        shown(&format!(
            "[compose {:5.1} s] {line}",
            self.started.elapsed().as_secs_f64()
        ));
    }

    fn compose_command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.docker.compose[0]);
        command
            .args(&self.docker.compose[1..])
            .args(["-p", &self.name]);
        for file in &self.files {
            command.arg("-f").arg(file);
        }
        command.args(args).env("RRM_IMAGE", &self.image);
        command
    }

    /// Runs Compose with `args`, insists that it succeeds and returns its stdout.
    fn compose(&self, args: &[&str]) -> String {
        succeeded(&mut self.compose_command(args))
    }

    fn docker(&self) -> Command {
        Command::new(&self.docker.client)
    }

    /// The container of `service`.
    fn container(&self, service: &str) -> String {
        let id = self.compose(&["ps", "-q", service]);
        let id = id.trim();
        assert!(!id.is_empty(), "{service} has no container");
        id.to_string()
    }

    /// Waits for the coordinator's health check to pass; returns its container.
    fn healthy_coordinator(&self) -> String {
        let container = self.container("coordinator");
        let started = Instant::now();
        loop {
            let health = succeeded(self.docker().args([
                "inspect",
                "--format",
                "{{.State.Health.Status}}",
                &container,
            ]));
            if health.trim() == "healthy" {
                self.say(&format!(
                    "coordinator healthy ({:.1} s after up)",
                    started.elapsed().as_secs_f64()
                ));
                return container;
            }
            assert!(
                started.elapsed() < Duration::from_secs(120),
                "the coordinator is still {health} after two minutes"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

impl Drop for Project<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            if let Some(logs) = quietly(&mut self.compose_command(&["logs", "--no-color"])) {
                let logs = String::from_utf8_lossy(&logs.stdout);
                let tail: Vec<_> = logs.lines().rev().take(60).collect();
                eprintln!("compose logs (last lines):");
                tail.iter().rev().for_each(|line| eprintln!("{line}"));
            }
        }
        let down = &["down", "-v", "--remove-orphans", "-t", "10"];
        let removed =
            quietly(&mut self.compose_command(down)).is_some_and(|output| output.status.success());
        quietly(
            self.docker()
                .args(["image", "rm", "-f", &self.image, &self.base]),
        );
        eprintln!(
            "[compose] cleanup: project {} {}, images {} and {} removed",
            self.name,
            if removed { "down" } else { "NOT down" },
            self.image,
            self.base
        );
    }
}

/// Runs `command` for at most two minutes without ever panicking (for cleanup).
fn quietly(command: &mut Command) -> Option<Output> {
    let child = command
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let (done, output) = std::sync::mpsc::channel();
    std::thread::spawn(move || done.send(child.wait_with_output()));
    output.recv_timeout(Duration::from_secs(120)).ok()?.ok()
}

/// Runs `command`, insists that it succeeds and returns its stdout.
fn succeeded(command: &mut Command) -> String {
    let output = crate::output_within(command, crate::COMMAND_LIMIT);
    assert!(
        output.status.success(),
        "{command:?} failed: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

/// `N` distinct ports free on 127.0.0.1 for now.
fn free_ports<const N: usize>() -> [u16; N] {
    let listeners = [(); N].map(|()| std::net::TcpListener::bind("127.0.0.1:0").unwrap());
    listeners.map(|listener| listener.local_addr().unwrap().port())
}

/// A file tree as distroless "cc" has it for `binary`: the libraries it links, where ldd
/// finds them on this host, and the CA certificates (tonic's native roots, which the
/// workers load even with a CA of their own, fail without any).
fn runtime_of(binary: &Path, root: &Path) {
    let ldd = succeeded(Command::new("ldd").arg(binary));
    let libraries = ldd.split_whitespace().filter(|word| word.starts_with('/'));
    for file in libraries.chain(["/etc/ssl/certs/ca-certificates.crt"]) {
        let copy = root.join(file.trim_start_matches('/'));
        std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
        // Through symbolic links: the file itself under the name it is looked up by.
        std::fs::copy(file, &copy).unwrap();
    }
}

/// `deploy/compose.yaml` without the coordinator's `ports:` block: host networking
/// publishes nothing, and Compose 1.29 refuses ports beside it.
fn without_ports(compose: &str) -> String {
    let mut kept = Vec::new();
    let mut removed = 0;
    let mut skipping = None;
    for line in compose.lines() {
        let indent = line.len() - line.trim_start().len();
        if let Some(block) = skipping {
            if line.trim().is_empty() || indent > block {
                removed += 1;
                continue;
            }
            skipping = None;
        }
        if line.trim() == "ports:" {
            skipping = Some(indent);
            removed += 1;
            continue;
        }
        kept.push(line);
    }
    assert!(
        removed > 1,
        "deploy/compose.yaml publishes no ports any more"
    );
    kept.join("\n") + "\n"
}

/// The statistics `rrm stats --json` gives, less the campaign's name.
fn totals(stats: &str) -> Value {
    let mut totals: Value = serde_json::from_str(stats).expect("stats --json is JSON");
    totals.as_object_mut().unwrap().remove("campaign");
    totals
}

/// TLS files (the certificate names 127.0.0.1) and the tokens in `dir`: a tokens file,
/// `worker-1.token`, `worker-2.token` and `admin.token`. The containers run as user 65532,
/// so the files are made readable by all (in the test's private directory). Returns the
/// CA, the coordinator's certificate and its key.
fn make_secrets(dir: &Path) -> [PathBuf; 3] {
    use std::os::unix::fs::PermissionsExt;
    let [ca, cert, key, ..] = crate::certificates(dir);
    let mut tokens = String::new();
    for name in WORKERS.into_iter().chain(["admin"]) {
        let role = if name == "admin" { "admin" } else { "worker" };
        let secret = dir.join(format!("{name}.token"));
        tokens += &crate::rrm_ok(&[
            "token",
            "new",
            &format!("compose-{name}"),
            "--role",
            role,
            "--secret-out",
            secret.to_str().unwrap(),
        ]);
    }
    std::fs::write(dir.join("tokens"), tokens).unwrap();
    for file in std::fs::read_dir(dir).unwrap() {
        let readable = std::fs::Permissions::from_mode(0o644);
        std::fs::set_permissions(file.unwrap().path(), readable).unwrap();
    }
    [ca, cert, key]
}

/// The test's Compose override: host networking, 127.0.0.1 and the given ports
/// (gRPC, health, dashboard), the secrets in `secrets`.
fn override_yaml(
    [grpc, health, dashboard]: [u16; 3],
    secrets: &Path,
    tls: &[PathBuf; 3],
) -> String {
    let secret = |name: &str| secrets.join(name).display().to_string();
    let [ca, cert, key] = tls.each_ref().map(|path| path.display().to_string());
    let worker = format!(
        "    network_mode: host\n    environment:\n      RRM_COORDINATOR: https://127.0.0.1:{grpc}\n"
    );
    format!(
        "services:
  coordinator:
    network_mode: host
    command: [\"coordinator\", \"--health\", \"127.0.0.1:{health}\"]
    environment:
      RRM_LISTEN: 127.0.0.1:{grpc}
      RRM_DASHBOARD: 127.0.0.1:{dashboard}
      # Leases still out at `down` are granted anew after `up`: keep the wait short.
      RRM_LEASE_SECONDS: \"5\"
    healthcheck:
      test: [\"CMD\", \"/usr/local/bin/rrm\", \"health\", \"--coordinator\", \"http://127.0.0.1:{health}\"]
      interval: 1s
  worker-1:
{worker}  worker-2:
{worker}secrets:
  rrm_tokens: {{file: {tokens}}}
  rrm_worker_1_token: {{file: {worker_1}}}
  rrm_worker_2_token: {{file: {worker_2}}}
  rrm_tls_cert: {{file: {cert}}}
  rrm_tls_key: {{file: {key}}}
  rrm_ca: {{file: {ca}}}
",
        tokens = secret("tokens"),
        worker_1 = secret("worker-1.token"),
        worker_2 = secret("worker-2.token"),
    )
}

#[test]
#[cfg_attr(
    rrm_without_docker,
    ignore = "docker is not on PATH (.ci/run installs and starts Docker)"
)]
#[cfg_attr(
    all(rrm_fast_tests, not(rrm_without_docker)),
    ignore = "heavy: builds the image (the full suite runs it)"
)]
fn compose_mines_a_campaign_across_down_and_up() {
    let docker = Docker::find().unwrap_or_else(|why| panic!("Docker is needed: {why}"));
    let started = Instant::now();
    let work = tempfile::tempdir().unwrap();
    let work = work.path();
    let rrm = Path::new(env!("CARGO_BIN_EXE_rrm"));

    // The figure to match, from this machine alone.
    let local = work.join("local");
    crate::rrm_ok(&["mine", "--seeds", SEEDS, "--data", local.to_str().unwrap()]);
    let expected = totals(&crate::rrm_ok(&[
        "stats",
        "--json",
        "--data",
        local.to_str().unwrap(),
    ]));

    let secrets = work.join("secrets");
    std::fs::create_dir(&secrets).unwrap();
    let tls = make_secrets(&secrets);
    let ports = free_ports();
    let compose = work.join("compose.yaml");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let original = std::fs::read_to_string(repo.join("deploy/compose.yaml")).unwrap();
    std::fs::write(&compose, without_ports(&original)).unwrap();
    let override_file = work.join("compose.test.yaml");
    std::fs::write(&override_file, override_yaml(ports, &secrets, &tls)).unwrap();

    let since_epoch = std::time::UNIX_EPOCH.elapsed().unwrap().as_millis();
    let run = format!("rrm-test-{}-{since_epoch}", std::process::id());
    let project = Project {
        docker: &docker,
        name: run.clone(),
        files: [compose, override_file],
        image: format!("{run}:rrm"),
        base: format!("{run}:base"),
        started,
    };
    let builder = if docker.buildx {
        "buildx"
    } else {
        "BuildKit built in"
    };
    project.say(&format!(
        "docker {} ({builder}), compose {:?}, project {run}",
        docker.client.display(),
        docker.compose
    ));
    project.build_image(rrm, work);

    let url = format!("https://127.0.0.1:{}", ports[0]);
    let admin = secrets.join("admin.token");
    let client = |args: &[&str]| -> String {
        let (ca, admin) = (tls[0].to_str().unwrap(), admin.to_str().unwrap());
        let mut all = args.to_vec();
        all.extend(["--coordinator", &url, "--ca", ca, "--token-file", admin]);
        crate::rrm_ok(&all)
    };
    let status = || -> Value {
        let list = client(&["campaign", "list", "--json"]);
        serde_json::from_str(list.lines().next().expect("one campaign")).unwrap()
    };
    let count = |status: &Value, field: &str| status[field].as_u64().unwrap();

    // The coordinator first, the campaign, then the workers, as in docs/operations.md.
    project.compose(&["up", "-d", "--no-build", "coordinator"]);
    project.healthy_coordinator();
    client(&[
        "campaign",
        "create",
        CAMPAIGN,
        "--seeds",
        SEEDS,
        "--unit-size",
        UNIT_SIZE,
    ]);
    project.compose(&["up", "-d", "--no-build"]);
    project.say("workers up");
    let since = Instant::now();
    let (before, total) = loop {
        let now = status();
        let (done, total) = (count(&now, "units_done"), count(&now, "units_total"));
        if done >= 2 {
            project.say(&format!("{done} of {total} units done: down"));
            break (done, total);
        }
        assert!(
            since.elapsed() < crate::COMMAND_LIMIT,
            "no unit done: {now}"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    project.compose(&["down"]);
    let volume = format!("{}_rrm-data", project.name);
    succeeded(project.docker().args(["volume", "inspect", &volume]));
    project.say(&format!("down: containers gone, volume {volume} kept"));

    project.compose(&["up", "-d", "--no-build"]);
    let coordinator = project.healthy_coordinator();
    let kept = count(&status(), "units_done");
    project.say(&format!(
        "up again: the store has {kept} of {total} units done"
    ));
    assert!(
        (before..total).contains(&kept),
        "{kept} units done after down and up: the store was lost or the campaign ended before down"
    );
    let since = Instant::now();
    let finished = loop {
        let now = status();
        if count(&now, "units_done") == total
            && count(&now, "units_to_check") == 0
            && count(&now, "units_leased") == 0
        {
            break now;
        }
        assert!(
            since.elapsed() < crate::COMMAND_LIMIT,
            "the campaign is still unfinished: {now}"
        );
        std::thread::sleep(Duration::from_millis(250));
    };
    project.say(&format!("campaign finished: {finished}"));
    assert_eq!(count(&finished, "units_quarantined"), 0);
    assert_eq!(finished["mismatches"], serde_json::json!([]));
    assert_eq!(finished["distrusted"], serde_json::json!([]));

    let mined = totals(&client(&["stats", "--campaign", CAMPAIGN, "--json"]));
    project.say(&format!(
        "totals: {} puzzles, max {} moves, mean {}; rrm mine here: {} puzzles, max {}, mean {}",
        mined["puzzles"],
        mined["max"],
        mined["mean"],
        expected["puzzles"],
        expected["max"],
        expected["mean"]
    ));
    assert_eq!(
        mined, expected,
        "compose's statistics differ from rrm mine's"
    );

    // Each unit's producer, from a copy of the store of the stopped coordinator.
    project.compose(&["stop"]);
    let store_copy = work.join("store");
    succeeded(
        project
            .docker()
            .arg("cp")
            .arg(format!("{coordinator}:/data"))
            .arg(&store_copy),
    );
    let mut units = BTreeMap::<String, u64>::new();
    {
        let store = Store::open(&store_copy).unwrap();
        let campaign = store.campaign(CAMPAIGN).unwrap().expect("the campaign");
        for (_, record) in store.units(campaign.id).unwrap() {
            if let UnitState::Done { producer, .. } = record.state {
                *units.entry(producer).or_default() += 1;
            }
        }
    }
    project.say(&format!(
        "units per worker identity in the store: {units:?}"
    ));
    assert_eq!(units.values().sum::<u64>(), total);
    for worker in WORKERS {
        let done = units
            .get(&format!("compose-{worker}"))
            .copied()
            .unwrap_or(0);
        assert!(done > 0, "{worker} produced no unit: {units:?}");
    }
    let verified = crate::rrm_ok(&["store", "verify", "--data", store_copy.to_str().unwrap()]);
    project.say(&format!("rrm store verify: {}", verified.trim()));
    project.say(&format!(
        "passed in {:.1} s",
        started.elapsed().as_secs_f64()
    ));
}

/// Writes `text` to the process's stderr directly: `eprintln!` would be captured by the
/// test harness and shown only on failure.
fn shown(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}
