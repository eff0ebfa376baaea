//! `rrm token`: makes bearer tokens and the hashed lines a coordinator's tokens file
//! holds (`NAME ROLE sha256:HEX`), so that the secret itself is never stored there.

use crate::output::outfile::OutFile;
use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use rrm_coordinator::auth::{fresh_token, Role};
use rrm_proto::access::token_hash;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct TokenArgs {
    #[command(subcommand)]
    command: TokenCommand,
}

#[derive(Subcommand)]
enum TokenCommand {
    /// Make a new random token; prints its tokens-file line (and the token itself unless
    /// --secret-out takes it).
    New(Entry),
    /// Read a token on stdin and print its tokens-file line.
    Hash(Entry),
}

#[derive(Args)]
struct Entry {
    /// The token's name: the identity its holder gets in leases and logs.
    name: String,
    /// What the token allows: worker (mine), admin (create campaigns and read) or read.
    #[arg(long)]
    role: Role,
    /// Write the new token to this file (readable by its owner only) instead of stdout.
    #[arg(long, value_name = "FILE")]
    secret_out: Option<PathBuf>,
}

/// A fresh token (see [`fresh_token`]).
fn new_token() -> Result<String> {
    fresh_token().context("the system gave no random bytes")
}

fn line(entry: &Entry, token: &str) -> Result<String> {
    let name_ok = !entry.name.is_empty()
        && entry.name.len() <= 64
        && entry
            .name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.@".contains(&b));
    anyhow::ensure!(
        name_ok,
        "a token name is 1 to 64 letters, digits and - _ . @, not {:?}",
        entry.name
    );
    Ok(format!(
        "{} {} {}",
        entry.name,
        entry.role,
        token_hash(token)
    ))
}

pub fn run(args: TokenArgs) -> Result<ExitCode> {
    let mut stdout = crate::output::stdout::lock();
    match args.command {
        TokenCommand::New(entry) => {
            let token = new_token()?;
            let line = line(&entry, &token)?;
            match &entry.secret_out {
                Some(path) => {
                    OutFile::create(path)?.write_private(format!("{token}\n").as_bytes())?;
                }
                None => writeln!(stdout, "{token}")?,
            }
            writeln!(stdout, "{line}")?;
        }
        TokenCommand::Hash(entry) => {
            anyhow::ensure!(
                entry.secret_out.is_none(),
                "--secret-out is only for `token new`"
            );
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .context("cannot read the token on stdin")?;
            let token = text.trim();
            anyhow::ensure!(!token.is_empty(), "no token on stdin");
            rrm_proto::access::ClientAccess {
                token: Some(token.to_string()),
                ..Default::default()
            }
            .bearer()?;
            writeln!(stdout, "{}", line(&entry, token)?)?;
        }
    }
    stdout.flush()?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_fresh_and_hash_to_lines_the_coordinator_reads() {
        let (a, b) = (new_token().unwrap(), new_token().unwrap());
        assert_ne!(a, b);
        assert_eq!(a.len(), 4 + 64);
        let entry = Entry {
            name: "pool-1".into(),
            role: Role::Worker,
            secret_out: None,
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tokens");
        std::fs::write(&path, line(&entry, &a).unwrap()).unwrap();
        let keyring = rrm_coordinator::auth::Keyring::load(&[path], &[]).unwrap();
        assert_eq!(keyring.caller(&a).unwrap().name, "pool-1");
        assert!(keyring.caller(&b).is_none());
        let bad = Entry {
            name: "two words".into(),
            ..entry
        };
        assert!(line(&bad, &a).is_err());
    }
}
