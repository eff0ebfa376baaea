//! Integration tests of rrm: one test binary, one module per topic.
//!
//! `referee` holds the independent move checker and the plain reference BFS that every
//! solver answer is held against; it shares no code with the solver.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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

/// Runs the `rrm` binary with `args`.
pub fn rrm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rrm"))
        .args(args)
        .output()
        .expect("rrm runs")
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
