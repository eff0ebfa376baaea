//! Integration tests of rrm: one test binary, one module per topic.
//!
//! `referee` holds the independent move checker and the plain reference BFS that every
//! solver answer is held against; it shares no code with the solver.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod cli;
mod dashboard;
mod dashboard_access;
mod exhaustive;
mod generator;
mod mining;
mod referee;
mod reports;
mod solver;
mod stores;

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

/// Runs `command` to its end like `Command::output`, but kills it and fails after `limit`.
pub fn output_within(command: &mut Command, limit: Duration) -> Output {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the command starts");
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        let mut pipe = pipe.expect("piped");
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            pipe.read_to_end(&mut bytes).map(|_| bytes)
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as _));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("the command can be waited for") {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            let stderr = stderr.join().unwrap().unwrap_or_default();
            panic!(
                "{command:?} still ran after {limit:?}: {}",
                String::from_utf8_lossy(&stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: stdout.join().unwrap().expect("stdout is read"),
        stderr: stderr.join().unwrap().expect("stderr is read"),
    }
}

/// Runs `rrm` with `args`, insists that it succeeds and returns its stdout.
pub fn rrm_ok(args: &[&str]) -> String {
    let output = rrm(args);
    assert!(
        output.status.success(),
        "rrm {args:?}: {}",
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
