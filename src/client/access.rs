//! The options of every command that talks to a coordinator: a CA for `https://` URLs,
//! a client certificate for mutual TLS and the bearer token, read into one
//! [`ClientAccess`].

use anyhow::{Context, Result};
use clap::Args;
use rrm_proto::access::ClientAccess;
use std::path::{Path, PathBuf};

#[derive(Args, Clone, Default)]
pub struct ClientArgs {
    /// PEM certificate of the CA that signed the coordinator's certificate (https:// URLs;
    /// default: the system's roots).
    #[arg(long, env = "RRM_CA", value_name = "FILE")]
    ca: Option<PathBuf>,
    /// PEM certificate of this client, for a coordinator requiring mutual TLS.
    #[arg(
        long,
        env = "RRM_CLIENT_CERT",
        value_name = "FILE",
        requires = "tls_key"
    )]
    tls_cert: Option<PathBuf>,
    /// PEM private key of --tls-cert.
    #[arg(
        long,
        env = "RRM_CLIENT_KEY",
        value_name = "FILE",
        requires = "tls_cert"
    )]
    tls_key: Option<PathBuf>,
    /// File holding the bearer token (one line, as `rrm token new` writes it); the
    /// RRM_TOKEN environment variable may hold the token itself instead.
    #[arg(long, env = "RRM_TOKEN_FILE", value_name = "FILE")]
    token_file: Option<PathBuf>,
}

fn read(path: &Path, what: &str) -> Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("cannot read the {what} {}", path.display()))
}

impl ClientArgs {
    /// Reads the files named: a missing file is an error now, not at the first call.
    pub fn access(&self) -> Result<ClientAccess> {
        let token = match &self.token_file {
            Some(path) => {
                let text = String::from_utf8(read(path, "token file")?)
                    .with_context(|| format!("the token file {} is not text", path.display()))?;
                let token = text.trim().to_string();
                anyhow::ensure!(
                    !token.is_empty(),
                    "the token file {} is empty",
                    path.display()
                );
                Some(token)
            }
            None => std::env::var("RRM_TOKEN")
                .ok()
                .filter(|t| !t.trim().is_empty()),
        };
        let identity_pem = match (&self.tls_cert, &self.tls_key) {
            (Some(cert), Some(key)) => Some((read(cert, "certificate")?, read(key, "key")?)),
            _ => None,
        };
        let access = ClientAccess {
            ca_pem: self
                .ca
                .as_deref()
                .map(|ca| read(ca, "CA certificate"))
                .transpose()?,
            identity_pem,
            token: token.map(|t| t.trim().to_string()),
        };
        // Refuses an unusable token now, with its reason.
        access.bearer()?;
        Ok(access)
    }
}
