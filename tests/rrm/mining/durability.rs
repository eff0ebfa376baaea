//! Stores under damage and full disks: exports that round-trip exactly and refuse to
//! import when damaged; damaged or rolled-back copies that refuse to open (never
//! serving fewer results than were acknowledged); a coordinator whose disk runs low
//! stops leasing with RESOURCE_EXHAUSTED, keeps answering reads and resumes by itself;
//! on a real small filesystem filled up, SIGTERM still ends it, nothing acknowledged
//! is lost, and writes resume by themselves once it has room.

use super::*;
use rrm_store::Space;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Mines `seeds` into a fresh store with `rrm mine`.
fn mined(seeds: &str) -> tempfile::TempDir {
    let data = tempfile::tempdir().unwrap();
    rrm_ok(&[
        "mine",
        "--seeds",
        seeds,
        "--data",
        data.path().to_str().unwrap(),
        "--unit-size",
        "20",
    ]);
    data
}

fn stats_json(data: &Path) -> String {
    rrm_ok(&["stats", "--data", data.to_str().unwrap(), "--json"])
}

#[test]
fn exports_round_trip_exactly_and_damaged_ones_are_refused() {
    let data = mined("1..301");
    let dir = data.path().to_str().unwrap();
    let verified = rrm_ok(&["store", "verify", "--data", dir]);
    assert!(
        verified.contains("300 seeds counted") && verified.contains("sound"),
        "{verified}"
    );
    let files = tempfile::tempdir().unwrap();
    let export = files.path().join("store.jsonl");
    rrm_ok(&[
        "store",
        "export",
        "--data",
        dir,
        "-o",
        export.to_str().unwrap(),
    ]);
    let copy = tempfile::tempdir().unwrap();
    let copy_dir = copy.path().to_str().unwrap();
    rrm_ok(&[
        "store",
        "import",
        "--data",
        copy_dir,
        export.to_str().unwrap(),
    ]);
    assert_eq!(stats_json(copy.path()), stats_json(data.path()));
    assert!(rrm_ok(&["store", "verify", "--data", copy_dir]).contains("sound"));
    // Exported again, the copy gives the same file, byte for byte.
    let again = files.path().join("again.jsonl");
    rrm_ok(&[
        "store",
        "export",
        "--data",
        copy_dir,
        "-o",
        again.to_str().unwrap(),
    ]);
    assert_eq!(
        std::fs::read(&export).unwrap(),
        std::fs::read(&again).unwrap()
    );
    // One changed character, or a cut, and nothing is imported.
    let text = std::fs::read_to_string(&export).unwrap();
    let at = text.find("\"value\":\"").unwrap() + 9;
    let flipped = if &text[at..at + 1] == "0" { "1" } else { "0" };
    let damaged = [
        format!("{}{flipped}{}", &text[..at], &text[at + 1..]),
        text[..text.len() / 2].to_string(),
    ];
    for (i, damaged) in damaged.iter().enumerate() {
        let path = files.path().join(format!("damaged-{i}.jsonl"));
        std::fs::write(&path, damaged).unwrap();
        let target = tempfile::tempdir().unwrap();
        let target_dir = target.path().to_str().unwrap();
        let output = crate::rrm(&[
            "store",
            "import",
            "--data",
            target_dir,
            path.to_str().unwrap(),
        ]);
        assert!(!output.status.success(), "damaged export {i} imported");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("damaged") || stderr.contains("cut short"),
            "{stderr}"
        );
        let listed = rrm_ok(&["campaign", "list", "--data", target_dir]);
        assert!(
            listed.contains("no campaigns yet"),
            "a refused import left {listed}"
        );
    }
    // Import only into an empty store.
    let output = crate::rrm(&["store", "import", "--data", dir, export.to_str().unwrap()]);
    assert!(!output.status.success());
}

/// The seeds a store reports mined, or its refusal.
fn seeds_reported(data: &Path) -> Result<u64, String> {
    let output = crate::rrm(&["stats", "--data", data.to_str().unwrap(), "--json"]);
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned());
    }
    let stats: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    Ok(stats["puzzles"]
        .as_u64()
        .expect("puzzles in the statistics"))
}

/// `rrm store verify` on `data`: whether it found the store sound, and what it said.
fn verified(data: &Path) -> (bool, String) {
    let output = crate::rrm(&["store", "verify", "--data", data.to_str().unwrap()]);
    let said = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.success(), said)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Copies of a store cut short or with bytes overwritten, and an older copy under a
/// newer mark: each refuses to open with a message saying what is wrong, or opens with
/// every acknowledged seed. None opens silently short.
#[test]
fn damaged_and_rolled_back_stores_never_open_short() {
    let data = mined("1..2001");
    let full = seeds_reported(data.path()).unwrap();
    assert_eq!(full, 2000);
    let db = data.path().join("db");
    let size = std::fs::metadata(&db).unwrap().len();
    let scratch = tempfile::tempdir().unwrap();
    let mut refused = 0;
    for (i, cut) in [0.2, 0.5, 0.8, 0.95, 0.99].into_iter().enumerate() {
        for overwrite in [false, true] {
            let copy = scratch.path().join(format!("copy-{i}-{overwrite}"));
            copy_dir(data.path(), &copy);
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(copy.join("db"))
                .unwrap();
            let at = (size as f64 * cut) as u64;
            if overwrite {
                use std::os::unix::fs::FileExt;
                file.write_all_at(&[0x5a; 4096], at).unwrap();
            } else {
                file.set_len(at).unwrap();
            }
            drop(file);
            match seeds_reported(&copy) {
                Ok(seeds) => {
                    assert_eq!(seeds, full, "copy {i} {overwrite} opened short");
                    // What opens whole is sound, or verify says what is not.
                    let (sound, said) = verified(&copy);
                    assert!(
                        sound || said.contains("PROBLEM") || said.contains("corrupt"),
                        "{said}"
                    );
                    refused += usize::from(!sound);
                }
                Err(message) => {
                    assert!(
                        message.contains("corrupt") || message.contains("missing acknowledged"),
                        "unclear refusal: {message}"
                    );
                    refused += 1;
                }
            }
        }
    }
    assert!(refused > 0, "no damage was noticed at all");
    // A rolled-back store: an older copy with the newer store's mark.
    let old = scratch.path().join("old");
    copy_dir(data.path(), &old);
    rrm_ok(&[
        "mine",
        "--seeds",
        "2001..2201",
        "--data",
        data.path().to_str().unwrap(),
        "--unit-size",
        "20",
    ]);
    std::fs::copy(
        data.path().join(rrm_store::MARK_FILE),
        old.join(rrm_store::MARK_FILE),
    )
    .unwrap();
    let message = seeds_reported(&old).unwrap_err();
    assert!(
        message.contains("missing acknowledged results"),
        "{message}"
    );
    assert!(message.contains("missing)"), "{message}");
}

/// Below the reserve nothing is leased, reads still answer, and leasing resumes by
/// itself once space returns (a stand-in for the volume's free space).
#[test]
fn a_low_disk_stops_leasing_and_resumes_by_itself() {
    let config = Config {
        min_free_disk: rrm_coordinator::DiskReserve::Bytes(100 << 20),
        ..Config::default()
    };
    let server = Server::with_campaign(config, spec("low", 1..41, 20));
    let free = Arc::new(AtomicU64::new(10 << 20));
    let probe = free.clone();
    server.coordinator.set_space_probe(Box::new(move || {
        Ok(Space {
            available: probe.load(Ordering::SeqCst),
            total: 1 << 30,
        })
    }));
    block_on(async {
        let (mut client, worker) = raw_worker(&server.url, "low").await;
        let refused = client.lease(worker.lease()).await.unwrap_err();
        assert_eq!(refused.code(), Code::ResourceExhausted);
        let message = refused.message();
        assert!(message.contains("disk is nearly full"), "{message}");
    });
    assert!(status(&server.url, "low").is_some(), "reads still answer");
    free.store(1 << 29, Ordering::SeqCst);
    std::thread::sleep(Duration::from_millis(600));
    block_on(async {
        let (mut client, worker) = raw_worker(&server.url, "low").await;
        leased_unit(&mut client, &worker).await;
    });
}

/// Mounts a small tmpfs at `dir`, if this process may (root in CI); `None` otherwise.
fn small_filesystem(dir: &Path, megabytes: u64) -> Option<Mounted> {
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", &format!("size={megabytes}m"), "tmpfs"])
        .arg(dir)
        .status()
        .is_ok_and(|status| status.success());
    mounted.then(|| Mounted(dir.to_path_buf()))
}

struct Mounted(std::path::PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// Fills the filesystem at `mount` with `filler` until `free_bytes` are left.
fn fill(mount: &Path, filler: &Path, free_bytes: u64) {
    let space = rrm_store::space_of(mount).unwrap();
    let current = std::fs::metadata(filler).map_or(0, |m| m.len());
    let size = (current + space.available).saturating_sub(free_bytes);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(filler)
        .unwrap();
    // Written, not sparse: tmpfs counts pages written.
    use std::io::Write;
    let mut file = std::io::BufWriter::new(file);
    let chunk = vec![1u8; 1 << 20];
    let mut written = 0;
    while written + (1 << 20) <= size {
        if file.write_all(&chunk).is_err() {
            break;
        }
        written += 1 << 20;
    }
    let _ = file.write_all(&chunk[..(size - written) as usize]);
    let _ = file.flush();
}

/// A coordinator process on the store in `data`, keeping `reserve` free; its URL.
fn coordinator_on(data: &Path, reserve: &str) -> (Process, String) {
    let mut process = rrm_process(&[
        "coordinator",
        "--listen",
        "127.0.0.1:0",
        "--data",
        data.to_str().unwrap(),
        "--no-dashboard",
        "--min-free-disk",
        reserve,
    ]);
    let url = security::announced(&mut process, "listening on ");
    (process, format!("http://{url}"))
}

/// Whether `rrm health` finds the coordinator at `url` serving.
fn serving(url: &str) -> bool {
    rrm_process(&["health", "--coordinator", url])
        .0
        .wait()
        .unwrap()
        .success()
}

/// A small tmpfs at a new directory (the tests that need one are ignored where this
/// process is not root).
fn mounted_tmpfs(megabytes: u64) -> (tempfile::TempDir, Mounted) {
    let mount = tempfile::tempdir().unwrap();
    let mounted = small_filesystem(mount.path(), megabytes).expect("mounting a tmpfs");
    (mount, mounted)
}

/// The case: a store on a 32 MiB filesystem without a reserve, filled to the
/// last byte while a worker mines. Its writes fail and health says NOT_SERVING while
/// the process runs on; once the filler is deleted, writes resume by themselves (health
/// SERVING, the same process) and the campaign finishes exactly. Before, leasing never
/// resumed (INTERNAL until a restart) and health stayed SERVING.
#[test]
#[cfg_attr(rrm_without_mount, ignore = "mounting a tmpfs needs root")]
fn writes_resume_by_themselves_once_a_full_filesystem_has_room() {
    let (mount, _mounted) = mounted_tmpfs(32);
    let data = mount.path().join("store");
    let filler = mount.path().join("filler");
    let (mut coordinator, url) = coordinator_on(&data, "0");
    rrm_ok(&[
        "campaign",
        "create",
        "refill",
        "--coordinator",
        &url,
        "--seeds",
        "1..4001",
        "--unit-size",
        "50",
    ]);
    let _worker = worker(&url, 1);
    wait_until(Duration::from_secs(60), "some units are mined", || {
        status(&url, "refill").is_some_and(|s| s.units_done >= 5)
    });
    fill(mount.path(), &filler, 0);
    wait_until(Duration::from_secs(60), "health says not serving", || {
        !serving(&url)
    });
    std::fs::remove_file(&filler).unwrap();
    wait_until(Duration::from_secs(60), "health says serving again", || {
        serving(&url)
    });
    assert!(coordinator.0.try_wait().unwrap().is_none(), "no restart");
    wait_until(Duration::from_secs(180), "the campaign is done", || {
        status(&url, "refill").is_some_and(|s| is_done(&s))
    });
    assert_eq!(stats(&url, "refill").histogram, direct_histogram(1..4001));
}

/// On a real 48 MiB filesystem: filled past the reserve, the coordinator refuses work
/// and its workers wait; filled to the last byte, a result's write fails on it (refused
/// with RESOURCE_EXHAUSTED, health NOT_SERVING) and SIGTERM still ends it within its
/// drain time; with space back, the store opens with every acknowledged result and
/// the campaign finishes exactly.
#[test]
#[cfg_attr(rrm_without_mount, ignore = "mounting a tmpfs needs root")]
#[cfg_attr(
    rrm_fast_tests,
    ignore = "heavy: fills a filesystem and waits out its drain (the full suite runs it)"
)]
fn a_full_filesystem_neither_hangs_nor_loses_acknowledged_results() {
    let (mount, _mounted) = mounted_tmpfs(48);
    let data = mount.path().join("store");
    let filler = mount.path().join("filler");
    let fill_to = |free_bytes: u64| fill(mount.path(), &filler, free_bytes);
    let start = |data: &Path| coordinator_on(data, "16MiB");
    let (mut coordinator, url) = start(&data);
    rrm_ok(&[
        "campaign",
        "create",
        "full",
        "--coordinator",
        &url,
        "--seeds",
        "1..3001",
        "--unit-size",
        "50",
    ]);
    // Past the reserve: no lease for anyone, reads still answer.
    fill_to(8 << 20);
    block_on(async {
        let (mut client, worker) = raw_worker(&url, "waiting").await;
        tokio::time::sleep(Duration::from_millis(600)).await;
        let refused = client.lease(worker.lease()).await.unwrap_err();
        assert_eq!(
            refused.code(),
            Code::ResourceExhausted,
            "{}",
            refused.message()
        );
    });
    assert!(status(&url, "full").is_some());
    // Space back: three units leased here before any is done (units to compute, not
    // checks), their results to be submitted once the disk is full again; a worker
    // mines part of the campaign. The clients' connections live on a runtime of their own.
    std::fs::remove_file(&filler).unwrap();
    std::thread::sleep(Duration::from_secs(1)); // past the coordinator's last reading
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let leased: Vec<_> = (0..3)
        .map(|i| {
            let (mut client, raw) = runtime.block_on(raw_worker(&url, &format!("raw-{i}")));
            let unit = runtime.block_on(leased_unit(&mut client, &raw));
            (client, raw, unit)
        })
        .collect();
    let _worker = worker(&url, 1);
    wait_until(Duration::from_secs(60), "some units are mined", || {
        status(&url, "full").is_some_and(|s| s.units_done >= 10)
    });
    // To the last byte while the worker mines; then SIGTERM must end the coordinator.
    let requests: Vec<_> = leased
        .into_iter()
        .map(|(client, raw, unit)| {
            let seeds = unit.seed_start..unit.seed_end;
            let solved = solve_honestly(seeds.clone(), 5);
            let counts = solved.move_counts.clone();
            (
                client,
                submission(unit.lease.unwrap(), seeds, &solved, &raw, counts),
            )
        })
        .collect();
    fill_to(0);
    let free = rrm_store::space_of(mount.path()).unwrap().available;
    assert!(free < 64 << 10, "the filesystem is full: {free} bytes free");
    // The results one by one: the last few KiB (a journal segment's room) may take them
    // all, so a refusal is not certain; one that comes must be for want of space (its
    // write or flush failed, or a write failing first stopped the store's writes: the
    // wording depends on which write met the full disk first, the reason does not).
    for (mut client, request) in requests {
        if let Err(refused) = runtime.block_on(client.submit(request)) {
            assert!(
                matches!(
                    refused.code(),
                    Code::ResourceExhausted | Code::Unavailable | Code::Internal
                ) && refused.message().to_lowercase().contains("no space left"),
                "{refused:?}"
            );
            break;
        }
    }
    // What proves that a write met the full disk, this one's or the worker's: health
    // says NOT_SERVING only while the store cannot write (see `resume`).
    wait_until(Duration::from_secs(30), "health says not serving", || {
        !serving(&url)
    });
    std::thread::sleep(Duration::from_secs(2));
    let stopped = Instant::now();
    unsafe { libc::kill(coordinator.0.id() as i32, libc::SIGTERM) };
    wait_until(
        Duration::from_secs(30),
        "the coordinator ends on SIGTERM",
        || coordinator.0.try_wait().unwrap().is_some(),
    );
    eprintln!(
        "stopped {:?} after SIGTERM on a full disk",
        stopped.elapsed()
    );
    drop(_worker);
    std::fs::remove_file(&filler).unwrap();
    // The store opens, which it does only with every acknowledged commit (the mark);
    // the campaign then finishes exactly.
    let (_coordinator, url) = start(&data);
    assert!(status(&url, "full").is_some(), "the store opens");
    let _worker = worker(&url, 2);
    wait_until(Duration::from_secs(120), "the campaign is done", || {
        status(&url, "full").is_some_and(|s| is_done(&s))
    });
    assert_eq!(stats(&url, "full").histogram, direct_histogram(1..3001));
}

/// A soak bounded in time (`RRM_SOAK_SECONDS`, default 45): workers mine while the
/// coordinator is killed with SIGKILL every few seconds and restarted on the same port
/// and store; at the end the totals are exact and the store verifies sound.
#[test]
#[cfg_attr(
    rrm_fast_tests,
    ignore = "heavy: a timed soak (the full suite runs it)"
)]
fn a_soak_with_periodic_sigkill_ends_with_exact_totals() {
    let seconds: u64 = std::env::var("RRM_SOAK_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(45);
    let seeds = 1..60001;
    let data = tempfile::tempdir().unwrap();
    let (mut coordinator, address) = coordinator_process(data.path(), "127.0.0.1:0");
    let url = format!("http://{address}");
    rrm_ok(&[
        "campaign",
        "create",
        "soak",
        "--coordinator",
        &url,
        "--seeds",
        "1..60001",
        "--unit-size",
        "40",
    ]);
    let _workers = [worker(&url, 1), worker(&url, 1)];
    let started = Instant::now();
    let mut kills = 0;
    while started.elapsed() < Duration::from_secs(seconds)
        && !status(&url, "soak").is_some_and(|s| is_done(&s))
    {
        std::thread::sleep(Duration::from_millis(2500 + 700 * (kills % 3)));
        coordinator.0.kill().unwrap();
        coordinator.0.wait().unwrap();
        kills += 1;
        coordinator = coordinator_process(data.path(), &address).0;
    }
    let mut shown = Instant::now();
    wait_until(
        Duration::from_secs(180),
        "the soaked campaign is done",
        || {
            let now = status(&url, "soak");
            if shown.elapsed() > Duration::from_secs(10) {
                shown = Instant::now();
                eprintln!("soak: {now:?}");
            }
            now.is_some_and(|s| is_done(&s))
        },
    );
    eprintln!("{kills} SIGKILLs in {:?}", started.elapsed());
    assert!(kills >= 5, "only {kills} kills: the soak proved little");
    assert_eq!(stats(&url, "soak").histogram, direct_histogram(seeds));
    drop(coordinator);
    let (sound, said) = verified(data.path());
    assert!(sound, "{said}");
}

/// Deleting the mark used to turn the lost-results check off: with the mark gone and
/// the journal cut, a campaign reported fewer puzzles and `store verify` said "sound".
/// A store that has had a mark now refuses to open without it, naming the file.
#[test]
fn a_deleted_mark_is_refused_by_name() {
    let scratch = tempfile::tempdir().unwrap();
    let data = scratch.path().join("data");
    rrm_ok(&[
        "mine",
        "--seeds",
        "1..201",
        "--data",
        data.to_str().unwrap(),
        "--unit-size",
        "20",
    ]);
    let mark = data.join(rrm_store::MARK_FILE);
    std::fs::remove_file(&mark).unwrap();
    let message = seeds_reported(&data).unwrap_err();
    assert!(message.contains(&mark.display().to_string()), "{message}");
    assert!(message.contains("is missing"), "{message}");
    let (sound, said) = verified(&data);
    assert!(!sound, "{said}");
    assert!(said.contains(&mark.display().to_string()), "{said}");
}
