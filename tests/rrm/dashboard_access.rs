//! The dashboard behind read tokens: a bearer header or the login cookie lets a reader
//! in, pages send others to the login form and `/api/` (and `/metrics`) answers 401;
//! assets stay open. Over TLS the same, with cookies marked `Secure`.

use rrm_coordinator::auth::Keyring;
use rrm_coordinator::tls::ServerTls;
use rrm_coordinator::{Config, Coordinator, Security};
use rrm_proto::access::token_hash;
use rrm_store::Store;
use rustls::pki_types::pem::PemObject;
use std::io::{Read, Write};
use std::net::SocketAddr;
use std::sync::Arc;

/// One HTTP/1.0 exchange: (status, headers lower-cased, body).
fn exchange(stream: &mut impl ReadWrite, request: &str) -> (u16, String, String) {
    stream.write_all(request.as_bytes()).unwrap();
    let mut reply = Vec::new();
    // A TLS peer may close without close_notify once it has answered.
    let _ = stream.read_to_end(&mut reply);
    let reply = String::from_utf8_lossy(&reply).to_string();
    let (head, body) = reply.split_once("\r\n\r\n").expect("headers end");
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, head.to_ascii_lowercase(), body.to_string())
}

trait ReadWrite: Read + Write {}
impl<T: Read + Write> ReadWrite for T {}

fn request(method: &str, path: &str, headers: &[&str], body: &str) -> String {
    let mut text = format!("{method} {path} HTTP/1.0\r\nHost: localhost\r\n");
    for header in headers {
        text.push_str(&format!("{header}\r\n"));
    }
    if !body.is_empty() {
        text.push_str(&format!(
            "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    text.push_str("\r\n");
    text + body
}

fn plain(
    address: SocketAddr,
    method: &str,
    path: &str,
    headers: &[&str],
    body: &str,
) -> (u16, String, String) {
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    exchange(&mut stream, &request(method, path, headers, body))
}

/// A coordinator holding one campaign, its dashboard served with `security`.
fn served(security: Security) -> (tokio::runtime::Runtime, SocketAddr, tempfile::TempDir) {
    let data = tempfile::tempdir().unwrap();
    let coordinator =
        Arc::new(Coordinator::open(Store::open(data.path()).unwrap(), Config::default()).unwrap());
    coordinator
        .create_campaign(rrm_model::CampaignSpec {
            name: "shown".parse().unwrap(),
            generator: "fogleman".into(),
            seed_start: 1,
            seed_end: 11,
            unit_size: 10,
            record_threshold: 20,
            rules: rrm_model::Rules::STANDARD,
        })
        .unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let address = listener.local_addr().unwrap();
    runtime.spawn(async move {
        rrm_coordinator::dashboard::serve_with(
            listener,
            coordinator,
            &security,
            std::future::pending(),
        )
        .await
    });
    (runtime, address, data)
}

fn keyring(dir: &std::path::Path) -> Keyring {
    let path = dir.join("tokens");
    let text = format!(
        "grafana read {}\npool worker {}\n",
        token_hash("tok-read"),
        token_hash("tok-worker")
    );
    std::fs::write(&path, text).unwrap();
    Keyring::load(&[path], &[]).unwrap()
}

#[test]
fn readers_get_in_by_header_or_login_cookie_and_others_do_not() {
    let dir = tempfile::tempdir().unwrap();
    let security = Security {
        keyring: keyring(dir.path()),
        tls: None,
    };
    let (_runtime, address, _data) = served(security);
    let get = |path: &str, headers: &[&str]| plain(address, "GET", path, headers, "");

    let (status, head, body) = get("/api/campaigns", &[]);
    assert_eq!(status, 401);
    assert!(
        head.contains("www-authenticate: bearer") && body.contains("\"error\""),
        "{head}{body}"
    );
    assert_eq!(get("/metrics", &[]).0, 401);
    assert_eq!(
        get("/api/campaigns", &["Authorization: Bearer tok-worker"]).0,
        401
    );
    let (status, head, _) = get("/campaign/shown", &[]);
    assert!(status == 303 || status == 307, "{status}");
    assert!(
        head.contains("location: /login?next=/campaign/shown"),
        "{head}"
    );
    assert_eq!(get("/assets/dashboard.css", &[]).0, 200);
    assert_eq!(get("/login", &[]).0, 200);

    let (status, _, body) = get("/api/campaigns", &["Authorization: Bearer tok-read"]);
    assert_eq!(status, 200);
    assert!(body.contains("\"shown\""), "{body}");
    assert_eq!(get("/metrics", &["Authorization: Bearer tok-read"]).0, 200);

    // A wrong token gets the form again; the right one a cookie and the page it wanted.
    let (status, head, _) = plain(
        address,
        "POST",
        "/login",
        &[],
        "token=tok-worker&next=%2Fcampaign%2Fshown",
    );
    assert_eq!(status, 401);
    assert!(!head.contains("set-cookie"), "{head}");
    let (status, head, _) = plain(
        address,
        "POST",
        "/login",
        &[],
        "token=tok-read&next=%2Fcampaign%2Fshown",
    );
    assert!(status == 303 || status == 307, "{status}");
    assert!(head.contains("location: /campaign/shown"), "{head}");
    let cookie = head
        .lines()
        .find_map(|line| line.strip_prefix("set-cookie: "))
        .expect("a cookie")
        .to_string();
    assert!(
        cookie.contains("httponly") && cookie.contains("samesite=strict"),
        "{cookie}"
    );
    assert!(
        !cookie.contains("secure"),
        "no TLS, no Secure flag: {cookie}"
    );
    let pair = cookie.split(';').next().unwrap();
    let (status, _, body) = get("/campaign/shown", &[&format!("Cookie: {pair}")]);
    assert_eq!(status, 200);
    assert!(body.contains("shown"));
    // Login never sends a browser elsewhere.
    let (_, head, _) = plain(
        address,
        "POST",
        "/login",
        &[],
        "token=tok-read&next=%2F%2Fevil.example",
    );
    assert!(
        head.contains("location: /\r\n") || head.ends_with("location: /"),
        "{head}"
    );
}

#[test]
fn the_dashboard_speaks_tls_with_the_coordinators_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let [ca, cert, key, _, _] = crate::certificates(dir.path());
    let tls = ServerTls::load(&cert, &key, None).unwrap();
    let (_runtime, address, _data) = served(Security {
        keyring: keyring(dir.path()),
        tls: Some(tls),
    });

    let mut roots = rustls::RootCertStore::empty();
    roots
        .add(rustls::pki_types::CertificateDer::from_pem_file(&ca).unwrap())
        .unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = Arc::new(
        rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth(),
    );
    let https = |path: &str, headers: &[&str], body: &str, method: &str| {
        let name = rustls::pki_types::ServerName::try_from("localhost").unwrap();
        let connection = rustls::ClientConnection::new(config.clone(), name).unwrap();
        let socket = std::net::TcpStream::connect(address).unwrap();
        let mut stream = rustls::StreamOwned::new(connection, socket);
        exchange(&mut stream, &request(method, path, headers, body))
    };
    assert_eq!(https("/api/campaigns", &[], "", "GET").0, 401);
    let (status, _, body) = https(
        "/api/campaigns",
        &["Authorization: Bearer tok-read"],
        "",
        "GET",
    );
    assert_eq!(status, 200);
    assert!(body.contains("\"shown\""));
    let (_, head, _) = https("/login", &[], "token=tok-read", "POST");
    assert!(
        head.contains("; secure"),
        "cookies over TLS are Secure: {head}"
    );
    // Plain HTTP to the TLS port gets no page.
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    stream
        .write_all(request("GET", "/api/campaigns", &[], "").as_bytes())
        .unwrap();
    let mut reply = Vec::new();
    let _ = stream.read_to_end(&mut reply);
    assert!(!String::from_utf8_lossy(&reply).contains("shown"));
}
