//! TLS end to end, with certificates made here by rcgen: a round trip with and without
//! client certificates, and every connection the coordinator must refuse (plaintext to a
//! TLS port, no client certificate where one is asked, an unknown CA), each refusal named.

use super::security::{register, with_token, Tokens, ROLES};
use super::*;
use rrm_coordinator::tls::ServerTls;
use rrm_coordinator::Security;
use rrm_proto::access::ClientAccess;
use std::path::{Path, PathBuf};
use tonic::Status;

#[test]
fn tls_round_trip_with_client_certificates_and_plaintext_refused() {
    let tokens = Tokens::new(&ROLES);
    let [ca, cert, key, client_cert, client_key] = crate::certificates(tokens.dir.path());
    let security = Security {
        tls: Some(ServerTls::load(&cert, &key, Some(&ca)).unwrap()),
        ..tokens.security()
    };
    let server =
        Server::with_campaign_secured(Config::default(), security, spec("tls", 1..401, 50));
    let https = server.url.clone();
    assert!(https.starts_with("https://localhost:"), "{https}");
    let plain = https.replace("https://localhost", "http://127.0.0.1");
    let read = |path: &Path| std::fs::read(path).unwrap();
    let full = ClientAccess {
        ca_pem: Some(read(&ca)),
        identity_pem: Some((read(&client_cert), read(&client_key))),
        token: Some("tok-a".into()),
    };
    block_on(async {
        assert!(register(&https, &full, "tls").await.is_ok());
        // A plaintext client gets no answer from a TLS server: the TLS alert the server
        // answers its HTTP/2 preface with is read as a frame far too large, or the
        // server has hung up first (which is the client's error depends on timing).
        let (code, text) = refusal(register(&plain, &with_token("tok-a"), "plain").await);
        assert!(
            matches!(code, Code::Internal | Code::Unknown)
                && (text.contains("FRAME_SIZE_ERROR") || text.contains("BrokenPipe")),
            "plaintext: {code:?} {text}"
        );
        // Without a client certificate the handshake fails (mutual TLS): the client reads
        // the server's `certificate_required` alert, or finds the connection the server
        // closed after sending it (closed, or a broken pipe as it writes).
        let no_cert = ClientAccess {
            identity_pem: None,
            ..full.clone()
        };
        let (code, text) = refusal(register(&https, &no_cert, "no cert").await);
        assert!(
            matches!(code, Code::Cancelled | Code::Unknown)
                && ["CertificateRequired", "connection closed", "BrokenPipe"]
                    .iter()
                    .any(|why| text.contains(why)),
            "no client certificate: {code:?} {text}"
        );
        // A client not trusting the CA refuses the server's certificate.
        let no_ca = ClientAccess {
            ca_pem: None,
            ..full.clone()
        };
        let (code, text) = refusal(register(&https, &no_ca, "no ca").await);
        assert_eq!(code, Code::Unavailable, "{text}");
        assert!(
            text.contains("invalid peer certificate: UnknownIssuer"),
            "{text}"
        );
    });
    // The same two refusals at the TLS level, where they do not depend on timing.
    let port = https.rsplit(':').next().unwrap().parse::<u16>().unwrap();
    assert_tls_refusals(port, &ca, (&client_cert, &client_key));
    let path = |p: &PathBuf| p.to_str().unwrap().to_string();
    let tls_args = [
        "--ca".to_string(),
        path(&ca),
        "--tls-cert".into(),
        path(&client_cert),
        "--tls-key".into(),
        path(&client_key),
    ];
    let mut args = vec![
        "worker",
        "--coordinator",
        &https,
        "--threads",
        "2",
        "--exit-when-done",
    ];
    let token_file = tokens.token_file("tok-a");
    args.extend(["--token-file", &token_file]);
    args.extend(tls_args.iter().map(String::as_str));
    let output = crate::rrm(&args);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        server.coordinator.aggregates("tls").unwrap().histogram,
        direct_histogram(1..401)
    );
    let mut health = vec!["health", "--coordinator", &https];
    health.extend(tls_args.iter().map(String::as_str));
    assert_eq!(rrm_ok(&health).trim(), "serving");
}

/// On the TLS server at 127.0.0.1:`port` (client certificates of the CA in `ca`
/// required): a plaintext HTTP/2 preface is answered with a TLS alert record; a TLS
/// client trusting the CA but presenting no certificate receives the fatal
/// `certificate_required` alert; one presenting `client` completes the handshake.
fn assert_tls_refusals(port: u16, ca: &Path, client: (&Path, &Path)) {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
    use std::io::{Read, Write};
    let connect = || {
        let socket = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        socket
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        socket
    };
    let mut plain = connect();
    plain
        .write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        .unwrap();
    let mut reply = Vec::new();
    let _ = plain.read_to_end(&mut reply);
    // Content type 21 (alert), TLS major version 3.
    assert_eq!(
        reply.get(..2),
        Some(&[0x15, 0x03][..]),
        "plaintext got {reply:?}"
    );

    let mut roots = rustls::RootCertStore::empty();
    roots
        .add(CertificateDer::from_pem_file(ca).unwrap())
        .unwrap();
    let builder = || {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots.clone())
    };
    // `speak`: send the HTTP/2 preface once connected (not to a server refusing us,
    // whose reset for unread data could then come before its alert).
    let handshake = |config: rustls::ClientConfig, speak: bool| -> std::io::Result<Vec<u8>> {
        let name = ServerName::try_from("localhost").unwrap();
        let connection = rustls::ClientConnection::new(Arc::new(config), name).unwrap();
        let mut stream = rustls::StreamOwned::new(connection, connect());
        // The handshake, then the server's first word: the alert if it refuses us, or
        // its HTTP/2 settings otherwise.
        while stream.conn.is_handshaking() {
            stream.conn.complete_io(&mut stream.sock)?;
        }
        if speak {
            stream.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")?;
        }
        let mut first = vec![0u8; 9];
        stream.read_exact(&mut first)?;
        Ok(first)
    };
    let refused = handshake(builder().with_no_client_auth(), false).expect_err("refused");
    assert_eq!(refused.kind(), std::io::ErrorKind::InvalidData, "{refused}");
    assert!(
        refused
            .to_string()
            .contains("received fatal alert: CertificateRequired"),
        "{refused}"
    );
    let chain = vec![CertificateDer::from_pem_file(client.0).unwrap()];
    let key = PrivateKeyDer::from_pem_file(client.1).unwrap();
    let accepted = handshake(builder().with_client_auth_cert(chain, key).unwrap(), true);
    // An HTTP/2 frame header: the server's SETTINGS frame (type 4).
    assert_eq!(
        accepted.unwrap()[3],
        4,
        "the server speaks HTTP/2 to a full client"
    );
}

/// A refusal's code and its message followed by its chain of causes, each with its
/// `Debug` form (where the TLS alert or certificate error is named).
fn refusal<T: std::fmt::Debug>(result: Result<T, Status>) -> (Code, String) {
    let status = result.expect_err("refused");
    let mut text = status.message().to_string();
    let mut source = std::error::Error::source(&status);
    while let Some(cause) = source {
        text.push_str(&format!(" <- {cause} {cause:?}"));
        source = cause.source();
    }
    (status.code(), text)
}
