//! How a client reaches a coordinator: the URL and its scheme, TLS (a CA to trust and an
//! optional client certificate for mutual TLS) and the bearer token every call carries.
//!
//! Shared by the worker, the `rrm` commands that talk to a coordinator and the tests, so
//! that all of them accept the same URLs and send tokens the same way. The coordinator's
//! side (checking tokens) lives in the coordinator crate; [`token_hash`] is the one
//! definition of how a token is stored there.

use sha2::{Digest, Sha256};
use std::time::Duration;
use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::interceptor::InterceptedService;
use tonic::service::Interceptor;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint, Identity};
use tonic::{Request, Status};

/// What a client shows the coordinator. `Default` is a plaintext client without a token,
/// as the embedded miner and loopback coordinators need.
#[derive(Clone, Default)]
pub struct ClientAccess {
    /// PEM of the CA that signed the coordinator's certificate; `None` trusts the
    /// system's roots for `https://` URLs.
    pub ca_pem: Option<Vec<u8>>,
    /// PEM certificate and key of this client, for a coordinator requiring mutual TLS.
    pub identity_pem: Option<(Vec<u8>, Vec<u8>)>,
    /// The bearer token sent with every call.
    pub token: Option<String>,
}

/// Shows which settings are given, never the token or the key.
impl std::fmt::Debug for ClientAccess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientAccess")
            .field("ca", &self.ca_pem.is_some())
            .field("client_certificate", &self.identity_pem.is_some())
            .field("token", &self.token.as_ref().map(|_| "<hidden>"))
            .finish()
    }
}

/// Why no client could be made for an address.
#[derive(Debug, thiserror::Error)]
pub enum AccessError {
    #[error("invalid coordinator URL {url:?}: {reason}")]
    Url { url: String, reason: String },
    #[error("a token must be printable ASCII without spaces (as `rrm token new` makes them)")]
    Token,
    #[error("TLS settings for {url} are unusable: {reason}")]
    Tls { url: String, reason: String },
}

/// Why [`ClientAccess::connect`] found no coordinator.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error(transparent)]
    Access(#[from] AccessError),
    #[error(transparent)]
    Transport(#[from] tonic::transport::Error),
}

/// A channel to the coordinator whose calls carry the bearer token.
pub type AuthChannel = InterceptedService<Channel, Bearer>;

impl ClientAccess {
    /// The endpoint for `url` (`http://` or `https://`) with this access's TLS settings;
    /// certificates given for a plaintext URL are an error rather than silently unused.
    pub fn endpoint(&self, url: &str) -> Result<Endpoint, AccessError> {
        let invalid = |reason: String| AccessError::Url {
            url: url.to_string(),
            reason,
        };
        let endpoint =
            Endpoint::from_shared(url.to_string()).map_err(|e| invalid(e.to_string()))?;
        let secure = match endpoint.uri().scheme_str() {
            Some("http") => false,
            Some("https") => true,
            Some(other) => {
                return Err(invalid(format!(
                    "unsupported scheme {other}://; use http:// or https://"
                )))
            }
            None => {
                return Err(invalid(
                    "no scheme; use http://HOST:PORT or https://HOST:PORT".into(),
                ))
            }
        };
        let tls_given = self.ca_pem.is_some() || self.identity_pem.is_some();
        if !secure {
            if tls_given {
                return Err(invalid(
                    "certificates were given for a plaintext http:// URL; use https://".into(),
                ));
            }
            return Ok(endpoint);
        }
        let mut tls = ClientTlsConfig::new().with_native_roots();
        if let Some(ca) = &self.ca_pem {
            tls = tls.ca_certificate(Certificate::from_pem(ca));
        }
        if let Some((cert, key)) = &self.identity_pem {
            tls = tls.identity(Identity::from_pem(cert, key));
        }
        endpoint.tls_config(tls).map_err(|e| AccessError::Tls {
            url: url.to_string(),
            reason: e.to_string(),
        })
    }

    /// A lazily connected channel to `url` (an unreachable coordinator is no error
    /// here), with `timeout` on every call.
    pub fn channel(&self, url: &str, timeout: Duration) -> Result<AuthChannel, AccessError> {
        let channel = self.configured(url, timeout)?.connect_lazy();
        Ok(InterceptedService::new(channel, self.bearer()?))
    }

    /// A channel to `url` connected now, with `timeout` on every call: for commands that
    /// should fail at once, naming the transport error, when the coordinator is away.
    pub async fn connect(&self, url: &str, timeout: Duration) -> Result<AuthChannel, ConnectError> {
        let endpoint = self.configured(url, timeout)?;
        let bearer = self.bearer()?;
        Ok(InterceptedService::new(endpoint.connect().await?, bearer))
    }

    /// The endpoint with the settings every client uses. HTTP/2 pings find a connection
    /// that stopped answering (a stalled proxy, a vanished peer) in seconds rather than
    /// at the timeout.
    fn configured(&self, url: &str, timeout: Duration) -> Result<Endpoint, AccessError> {
        Ok(self
            .endpoint(url)?
            .connect_timeout(Duration::from_secs(5))
            .http2_keep_alive_interval(Duration::from_secs(15))
            .keep_alive_timeout(Duration::from_secs(10))
            .keep_alive_while_idle(true)
            .timeout(timeout))
    }

    /// The interceptor adding this access's token to each call.
    pub fn bearer(&self) -> Result<Bearer, AccessError> {
        let header = match &self.token {
            None => None,
            Some(token) => Some(authorization(token).ok_or(AccessError::Token)?),
        };
        Ok(Bearer { header })
    }
}

/// The `authorization` value for `token`, if the token can be sent at all.
fn authorization(token: &str) -> Option<MetadataValue<Ascii>> {
    let printable = !token.is_empty() && token.bytes().all(|b| b.is_ascii_graphic());
    printable
        .then(|| format!("Bearer {token}").parse().ok())
        .flatten()
}

/// Adds `authorization: Bearer <token>` to every call (nothing without a token).
#[derive(Clone)]
pub struct Bearer {
    header: Option<MetadataValue<Ascii>>,
}

impl Interceptor for Bearer {
    fn call(&mut self, mut request: Request<()>) -> Result<Request<()>, Status> {
        if let Some(header) = &self.header {
            request
                .metadata_mut()
                .insert("authorization", header.clone());
        }
        Ok(request)
    }
}

/// The token a call's `authorization` header carries, if it is a bearer token.
pub fn bearer_token(value: &str) -> Option<&str> {
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// How the coordinator stores a token: `sha256:` and the hex SHA-256 of its text.
pub fn token_hash(token: &str) -> String {
    let digest = Sha256::digest(token.as_bytes());
    let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("sha256:{hex}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_need_http_or_https_and_certificates_need_https() {
        let plain = ClientAccess::default();
        assert!(plain.endpoint("http://127.0.0.1:1").is_ok());
        assert!(plain.endpoint("https://127.0.0.1:1").is_ok());
        for bad in ["127.0.0.1:1", "ftp://127.0.0.1:1", "http://", ""] {
            assert!(plain.endpoint(bad).is_err(), "{bad} was accepted");
        }
        let with_ca = ClientAccess {
            ca_pem: Some(b"not used".to_vec()),
            ..ClientAccess::default()
        };
        let error = with_ca.endpoint("http://127.0.0.1:1").unwrap_err();
        assert!(error.to_string().contains("https://"), "{error}");
    }

    #[test]
    fn tokens_travel_as_bearer_headers() {
        let access = ClientAccess {
            token: Some("rrm_abc".into()),
            ..ClientAccess::default()
        };
        let request = access.bearer().unwrap().call(Request::new(())).unwrap();
        let header = request
            .metadata()
            .get("authorization")
            .unwrap()
            .to_str()
            .unwrap();
        assert_eq!(bearer_token(header), Some("rrm_abc"));
        assert_eq!(bearer_token("Basic abc"), None);
        assert_eq!(bearer_token("Bearer "), None);
        for bad in ["", "two words", "tab\there", "é"] {
            let access = ClientAccess {
                token: Some(bad.into()),
                ..ClientAccess::default()
            };
            assert!(access.bearer().is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn hashes_are_hex_sha256() {
        // SHA-256 of "abc", the FIPS 180-2 example.
        assert_eq!(
            token_hash("abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
