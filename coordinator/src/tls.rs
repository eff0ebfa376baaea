//! TLS for the coordinator's listeners: the certificate and key (PEM) checked once at
//! start, tonic's server settings for gRPC (with optional client certificates, mutual
//! TLS) and an accepting listener for the dashboard's HTTPS.

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::server::TlsStream;
use tokio_rustls::TlsAcceptor;

/// A TLS handshake taking longer than this is dropped, so slow or idle clients cannot
/// hold the dashboard's accept queue.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Handshaken connections waiting for the dashboard's server.
const ACCEPT_QUEUE: usize = 64;

/// Dashboard handshakes in progress at once; more connections wait to be accepted.
const HANDSHAKES: usize = 256;

/// Why the TLS settings are unusable.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} holds no PEM certificate")]
    NoCertificate { path: PathBuf },
    #[error("{path} holds no PEM private key")]
    NoKey { path: PathBuf },
    #[error("the certificate and key cannot serve TLS: {0}")]
    Unusable(#[from] rustls::Error),
}

/// The coordinator's certificate and key, and the CA its clients' certificates must be
/// signed by, if mutual TLS is wanted.
#[derive(Clone)]
pub struct ServerTls {
    cert_pem: Vec<u8>,
    key_pem: Vec<u8>,
    client_ca_pem: Option<Vec<u8>>,
    acceptor: TlsAcceptor,
    /// When the certificate (the chain's first) stops being valid, if it could be read.
    not_after: Option<SystemTime>,
}

/// What is wrong with the certificate's dates.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum CertificateWarning {
    #[error("the TLS certificate expired {} ago: clients will refuse it; renew it", humanize(*.0))]
    Expired(Duration),
    #[error("the TLS certificate expires in {}: renew it", humanize(*.0))]
    ExpiresSoon(Duration),
}

/// A certificate expiring within this long is warned about at start.
const EXPIRY_WARNING: Duration = Duration::from_secs(14 * 24 * 3600);

/// `span` in days, or hours under two days.
fn humanize(span: Duration) -> String {
    let hours = span.as_secs() / 3600;
    match hours {
        0..48 => format!("{hours} h"),
        _ => format!("{} days", hours / 24),
    }
}

/// When the DER certificate `cert` stops being valid.
fn not_after(cert: &CertificateDer<'_>) -> Option<SystemTime> {
    let (_, parsed) = x509_parser::parse_x509_certificate(cert).ok()?;
    let seconds = u64::try_from(parsed.validity().not_after.timestamp()).ok()?;
    Some(SystemTime::UNIX_EPOCH + Duration::from_secs(seconds))
}

fn read(path: &Path) -> Result<Vec<u8>, TlsError> {
    std::fs::read(path).map_err(|source| TlsError::Read {
        path: path.to_path_buf(),
        source,
    })
}

impl ServerTls {
    /// Reads and checks the PEM files: the key must match the certificate.
    pub fn load(cert: &Path, key: &Path, client_ca: Option<&Path>) -> Result<ServerTls, TlsError> {
        let cert_pem = read(cert)?;
        let key_pem = read(key)?;
        let client_ca_pem = client_ca.map(read).transpose()?;
        let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&cert_pem)
            .filter_map(Result::ok)
            .collect();
        if chain.is_empty() {
            return Err(TlsError::NoCertificate {
                path: cert.to_path_buf(),
            });
        }
        let private_key = PrivateKeyDer::from_pem_slice(&key_pem).map_err(|_| TlsError::NoKey {
            path: key.to_path_buf(),
        })?;
        if let (Some(pem), Some(path)) = (&client_ca_pem, client_ca) {
            if CertificateDer::pem_slice_iter(pem)
                .filter_map(Result::ok)
                .next()
                .is_none()
            {
                return Err(TlsError::NoCertificate {
                    path: path.to_path_buf(),
                });
            }
        }
        let not_after = not_after(&chain[0]);
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()?
            .with_no_client_auth()
            .with_single_cert(chain, private_key)?;
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        Ok(ServerTls {
            cert_pem,
            key_pem,
            client_ca_pem,
            acceptor: TlsAcceptor::from(Arc::new(config)),
            not_after,
        })
    }

    /// What is wrong with the certificate's dates at `now`: expired, or expiring within
    /// 14 days. The coordinator still starts (a renewal may be on its way), saying so.
    pub fn validity_warning(&self, now: SystemTime) -> Option<CertificateWarning> {
        let not_after = self.not_after?;
        match not_after.duration_since(now) {
            Err(past) => Some(CertificateWarning::Expired(past.duration())),
            Ok(left) if left < EXPIRY_WARNING => Some(CertificateWarning::ExpiresSoon(left)),
            Ok(_) => None,
        }
    }

    /// Whether clients must show a certificate signed by the client CA.
    pub fn mutual(&self) -> bool {
        self.client_ca_pem.is_some()
    }

    /// tonic's settings for the gRPC listener.
    pub(crate) fn grpc(&self) -> tonic::transport::ServerTlsConfig {
        let identity = tonic::transport::Identity::from_pem(&self.cert_pem, &self.key_pem);
        let config = tonic::transport::ServerTlsConfig::new()
            .identity(identity)
            .timeout(HANDSHAKE_TIMEOUT);
        match &self.client_ca_pem {
            Some(ca) => config.client_ca_root(tonic::transport::Certificate::from_pem(ca)),
            None => config,
        }
    }

    /// A listener yielding connections whose handshake is done. The dashboard asks for
    /// no client certificate: browsers and scrapers log in with tokens instead.
    pub(crate) fn listen(&self, listener: TcpListener) -> std::io::Result<TlsListener> {
        let local = listener.local_addr()?;
        let (sender, receiver) = tokio::sync::mpsc::channel(ACCEPT_QUEUE);
        let acceptor = self.acceptor.clone();
        let handshakes = Arc::new(tokio::sync::Semaphore::new(HANDSHAKES));
        let accepting = tokio::spawn(async move {
            loop {
                let Ok(slot) = handshakes.clone().acquire_owned().await else {
                    return;
                };
                let Ok((stream, peer)) = listener.accept().await else {
                    // Out of descriptors, say: wait rather than spin.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                };
                let acceptor = acceptor.clone();
                let sender = sender.clone();
                tokio::spawn(async move {
                    let handshake =
                        tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await;
                    drop(slot);
                    match handshake {
                        Ok(Ok(stream)) => {
                            let _ = sender.send((stream, peer)).await;
                        }
                        Ok(Err(error)) => tracing::debug!(%peer, "TLS handshake failed: {error}"),
                        Err(_) => tracing::debug!(%peer, "TLS handshake timed out"),
                    }
                });
            }
        });
        Ok(TlsListener {
            local,
            receiver,
            accepting: accepting.abort_handle(),
        })
    }
}

/// The dashboard's TLS listener (see [`ServerTls::listen`]); stops accepting when dropped.
pub(crate) struct TlsListener {
    local: SocketAddr,
    receiver: tokio::sync::mpsc::Receiver<(TlsStream<TcpStream>, SocketAddr)>,
    accepting: tokio::task::AbortHandle,
}

impl Drop for TlsListener {
    fn drop(&mut self) {
        self.accepting.abort();
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.receiver.recv().await {
            Some(connection) => connection,
            // The accepting task only ends when aborted, which happens on drop.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> std::io::Result<SocketAddr> {
        Ok(self.local)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A self-signed certificate for localhost valid until `year`-01-01, loaded.
    fn valid_until(year: i32) -> ServerTls {
        let key = rcgen::KeyPair::generate().unwrap();
        let mut params = rcgen::CertificateParams::new(vec!["localhost".into()]).unwrap();
        params.not_before = rcgen::date_time_ymd(2020, 1, 1);
        params.not_after = rcgen::date_time_ymd(year, 1, 1);
        let cert = params.self_signed(&key).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let (cert_path, key_path) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
        std::fs::write(&cert_path, cert.pem()).unwrap();
        std::fs::write(&key_path, key.serialize_pem()).unwrap();
        ServerTls::load(&cert_path, &key_path, None).unwrap()
    }

    #[test]
    fn an_expired_or_expiring_certificate_is_warned_about() {
        let at =
            |year: u64| SystemTime::UNIX_EPOCH + Duration::from_secs((year - 1970) * 31_557_600);
        let tls = valid_until(2025);
        let expired = tls.validity_warning(at(2026)).unwrap();
        assert!(
            matches!(expired, CertificateWarning::Expired(_)),
            "{expired}"
        );
        assert!(expired.to_string().contains("expired 3"), "{expired}");
        assert_eq!(tls.validity_warning(at(2023)), None);
        let soon = tls.validity_warning(at(2025) - Duration::from_secs(5 * 86_400 + 3600));
        assert!(
            matches!(soon, Some(CertificateWarning::ExpiresSoon(_))),
            "{soon:?}"
        );
    }
}
