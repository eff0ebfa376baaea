//! Tokens files, roles and the own worker's in-memory token: parsing, reloading, who
//! passes which gate.

use super::*;

fn keyring(text: &str) -> (tempfile::TempDir, PathBuf, Keyring) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tokens");
    std::fs::write(&path, text).unwrap();
    let keyring = Keyring::load(std::slice::from_ref(&path), &[]).unwrap();
    (dir, path, keyring)
}

fn line(name: &str, role: &str, token: &str) -> String {
    format!("{name} {role} {}\n", token_hash(token))
}

#[test]
fn roles_decide_who_passes() {
    let text = line("w", "worker", "tw") + &line("a", "admin", "ta") + "# comment\n\n";
    let (_dir, _path, keys) = keyring(&text);
    let ok = |token: &str, roles| keys.check(Some(token), roles);
    assert_eq!(ok("tw", Roles::Worker).unwrap().unwrap().name, "w");
    assert!(matches!(ok("ta", Roles::Worker), Err(Refusal::Role(_))));
    assert!(matches!(ok("tw", Roles::Admin), Err(Refusal::Role(_))));
    assert!(matches!(ok("nope", Roles::Worker), Err(Refusal::Unknown)));
    assert!(matches!(
        keys.check(None, Roles::Worker),
        Err(Refusal::Missing)
    ));
    // No read token configured: reads are open, a valid token still names its caller.
    assert!(keys.check(None, Roles::Reader).unwrap().is_none());
    assert_eq!(ok("ta", Roles::Reader).unwrap().unwrap().role, Role::Admin);
}

#[test]
fn a_read_token_closes_reads_but_not_campaign_creation_to_readers() {
    let (_dir, _path, keys) = keyring(&(line("r", "read", "tr") + &line("a", "admin", "ta")));
    assert!(matches!(
        keys.check(None, Roles::Reader),
        Err(Refusal::Missing)
    ));
    assert!(keys.check(Some("tr"), Roles::Reader).unwrap().is_some());
    assert!(matches!(
        keys.check(Some("tr"), Roles::Admin),
        Err(Refusal::Role(_))
    ));
}

#[test]
fn read_files_hold_readers_only_and_names_are_unique_across_files() {
    let dir = tempfile::tempdir().unwrap();
    let (tokens, reads) = (dir.path().join("tokens"), dir.path().join("reads"));
    std::fs::write(&tokens, line("w", "worker", "tw")).unwrap();
    std::fs::write(&reads, line("boss", "admin", "ta")).unwrap();
    let error = Keyring::load(std::slice::from_ref(&tokens), std::slice::from_ref(&reads))
        .err()
        .unwrap();
    assert!(error.to_string().contains("read tokens only"), "{error}");
    std::fs::write(&reads, line("w", "read", "tr")).unwrap();
    let error = Keyring::load(std::slice::from_ref(&tokens), std::slice::from_ref(&reads))
        .err()
        .unwrap();
    assert!(error.to_string().contains("another tokens file"), "{error}");
    // An empty read tokens file already closes reads.
    std::fs::write(&reads, "").unwrap();
    let keys = Keyring::load(std::slice::from_ref(&tokens), std::slice::from_ref(&reads)).unwrap();
    assert!(matches!(
        keys.check(None, Roles::Reader),
        Err(Refusal::Missing)
    ));
    // A reload reusing another file's name keeps the old tokens.
    std::fs::write(&reads, line("w", "read", "tr")).unwrap();
    keys.reload_changed();
    assert!(keys.caller("tr").is_none());
}

#[test]
fn withdrawing_the_last_read_token_keeps_reads_closed() {
    let (_dir, path, keys) = keyring(&(line("r", "read", "tr") + &line("w", "worker", "tw")));
    assert!(keys.reads_need_token());
    std::fs::write(&path, line("w", "worker", "tw")).unwrap();
    keys.reload_changed();
    assert!(keys.caller("tr").is_none());
    assert!(matches!(
        keys.check(None, Roles::Reader),
        Err(Refusal::Missing)
    ));
}

#[test]
fn an_own_worker_keyring_holds_one_fresh_worker_token_that_stays() {
    let (own, token) = Keyring::own_worker("embedded").unwrap();
    let (_, other) = Keyring::own_worker("embedded").unwrap();
    assert_ne!(token, other, "fresh per keyring");
    assert!(token.starts_with("rrm_") && token.len() == 4 + 64);
    assert!(own.is_enforced() && !own.reads_need_token());
    own.reload_changed();
    let caller = own.check(Some(&token), Roles::Worker).unwrap().unwrap();
    assert_eq!(
        (caller.name.as_str(), caller.own_process),
        ("embedded", true)
    );
    for refused in [None, Some(other.as_str()), Some("rrm_")] {
        assert!(own.check(refused, Roles::Worker).is_err());
    }
    assert!(matches!(
        own.check(Some(&token), Roles::Admin),
        Err(Refusal::Role(_))
    ));
    let (_dir, _path, from_file) = keyring(&line("pool", "worker", "tok"));
    let caller = from_file
        .check(Some("tok"), Roles::Worker)
        .unwrap()
        .unwrap();
    assert!(!caller.own_process, "a file's token is another process's");
}

#[test]
fn no_tokens_means_open() {
    let keys = Keyring::load(&[], &[]).unwrap();
    assert!(!keys.is_enforced());
    assert!(keys.check(None, Roles::Admin).unwrap().is_none());
    assert!(keys
        .check(Some("whatever"), Roles::Worker)
        .unwrap()
        .is_none());
}

#[test]
fn malformed_files_name_the_line() {
    let good = line("w", "worker", "t");
    for (text, needle) in [
        ("w worker\n".to_string(), "expected"),
        (good.replace("worker", "boss"), "unknown role"),
        (good.replace("sha256:", "md5:"), "sha256:"),
        ("w worker sha256:abc\n".to_string(), "64 hex"),
        (good.clone() + &line("w", "read", "u"), "twice"),
        (good.clone() + &line("x", "read", "t"), "twice"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tokens");
        std::fs::write(&path, format!("# header\n{text}")).unwrap();
        let error = Keyring::load(&[path], &[]).err().expect(needle).to_string();
        let line_named = error.contains(":2:") || error.contains(":3:");
        assert!(error.contains(needle) && line_named, "{error}");
    }
}

#[test]
fn changed_files_are_reloaded_and_broken_edits_keep_the_old_tokens() {
    let (_dir, path, keys) = keyring(&line("old", "worker", "t1"));
    assert!(keys.caller("t1").is_some());
    std::fs::write(
        &path,
        line("old", "worker", "t1") + &line("new", "worker", "t2"),
    )
    .unwrap();
    keys.reload_changed();
    assert_eq!(keys.caller("t2").unwrap().name, "new");
    std::fs::write(&path, "garbage that is much longer than before\n").unwrap();
    keys.reload_changed();
    assert!(
        keys.caller("t2").is_some(),
        "a broken file dropped the tokens"
    );
    std::fs::write(&path, line("new", "worker", "t2")).unwrap();
    keys.reload_changed();
    assert!(keys.caller("t1").is_none() && keys.caller("t2").is_some());
}
