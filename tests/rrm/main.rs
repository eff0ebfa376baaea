//! Integration tests of rrm: one test binary, one module per topic.
//!
//! `referee` holds the independent move checker and the plain reference BFS that every
//! solver answer is held against; it shares no code with the solver.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

mod architecture;
mod cli;
mod compose;
mod crash_images;
mod dashboard;
mod dashboard_access;
mod docs;
mod editions;
mod exhaustive;
mod generator;
mod mining;
mod peers;
mod referee;
mod reports;
mod ricocheckers;
mod rules;
mod second_edition;
mod solver;
mod stores;
mod user_defects;

/// Proptest cases of a property whose full suite runs `full`: `PROPTEST_CASES` when set,
/// else `full`, or a twentieth of it in the fast loop (`RRM_FAST_TESTS=1`).
pub fn proptest_cases(full: u32) -> u32 {
    let default = if cfg!(rrm_fast_tests) {
        (full / 20).max(1)
    } else {
        full
    };
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|cases| cases.parse().ok())
        .unwrap_or(default)
}

/// How long any one command of these tests may run: a command that hangs fails its test
/// instead of stalling the whole run.
pub const COMMAND_LIMIT: Duration = Duration::from_secs(300);

/// Runs the `rrm` binary with `args`.
pub fn rrm(args: &[&str]) -> Output {
    output_within(
        Command::new(env!("CARGO_BIN_EXE_rrm")).args(args),
        COMMAND_LIMIT,
    )
}

/// Runs the developer tools' binary, `rrm-dev`, with `args`.
pub fn rrm_dev(args: &[&str]) -> Output {
    output_within(
        Command::new(env!("CARGO_BIN_EXE_rrm-dev")).args(args),
        COMMAND_LIMIT,
    )
}

/// Runs `command` to its end like `Command::output`, but kills it and fails after `limit`.
pub fn output_within(command: &mut Command, limit: Duration) -> Output {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the command starts");
    let stdout = read_all(child.stdout.take().expect("piped"));
    let stderr = read_all(child.stderr.take().expect("piped"));
    let Some(status) = exit_within(&mut child, limit) else {
        let _ = child.kill();
        let _ = child.wait();
        let stderr = stderr.join().unwrap().unwrap_or_default();
        panic!(
            "{command:?} still ran after {limit:?}: {}",
            String::from_utf8_lossy(&stderr)
        );
    };
    Output {
        status,
        stdout: stdout.join().unwrap().expect("stdout is read"),
        stderr: stderr.join().unwrap().expect("stderr is read"),
    }
}

/// Waits up to `limit` for `child` to exit; `None` if it still runs.
pub fn exit_within(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("the child can be waited for") {
            return Some(status);
        }
        if started.elapsed() > limit {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Reads `pipe` to its end on a thread of its own.
pub fn read_all(mut pipe: impl Read + Send + 'static) -> JoinHandle<std::io::Result<Vec<u8>>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        pipe.read_to_end(&mut bytes).map(|_| bytes)
    })
}

/// Runs `rrm` with `args`, insists that it succeeds and returns its stdout.
pub fn rrm_ok(args: &[&str]) -> String {
    succeeded(rrm(args), args)
}

/// `rrm-dev`'s stdout with `args`, which must succeed.
pub fn rrm_dev_ok(args: &[&str]) -> String {
    succeeded(rrm_dev(args), args)
}

/// The stdout of a command that must have succeeded.
fn succeeded(output: Output, args: &[&str]) -> String {
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

/// A CA, a server certificate for localhost and 127.0.0.1, and a client certificate, as
/// PEM files in `dir`: (ca, server cert, server key, client cert, client key).
pub fn certificates(dir: &Path) -> [PathBuf; 5] {
    use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair};
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = ca_params.self_signed(&ca_key).unwrap();
    let issuer = rcgen::Issuer::new(ca_params, ca_key);
    let signed = |names: Vec<String>| {
        let key = KeyPair::generate().unwrap();
        let cert = CertificateParams::new(names)
            .unwrap()
            .signed_by(&key, &issuer)
            .unwrap();
        (cert.pem(), key.serialize_pem())
    };
    let (server_cert, server_key) = signed(vec!["localhost".into(), "127.0.0.1".into()]);
    let (client_cert, client_key) = signed(vec!["worker.example".into()]);
    let files = [
        ("ca.pem", ca.pem()),
        ("server.pem", server_cert),
        ("server.key", server_key),
        ("client.pem", client_cert),
        ("client.key", client_key),
    ];
    files.map(|(name, pem)| {
        let path = dir.join(name);
        std::fs::write(&path, pem).unwrap();
        path
    })
}
