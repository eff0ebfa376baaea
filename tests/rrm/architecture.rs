//! The arrows between crates that ARCHITECTURE.md promises, checked on the sources: the
//! coordinator's core speaks the model, not protobuf; the game, the model and the charts
//! are plain libraries (no async, no I/O, no wire or storage format).

use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files
}

/// The files under `dir` whose code names `word` (comments aside), with the line.
fn naming(dir: &Path, word: &str) -> Vec<String> {
    let mut found = Vec::new();
    for file in rust_files(dir) {
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap();
            if code.contains(word) {
                found.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
            }
        }
    }
    found
}

/// The names in `[dependencies]` of a crate's Cargo.toml.
fn dependencies(krate: &str) -> Vec<String> {
    let manifest = std::fs::read_to_string(root().join(krate).join("Cargo.toml")).unwrap();
    let section = manifest
        .split("\n[dependencies]\n")
        .nth(1)
        .unwrap_or_else(|| panic!("{krate}: no [dependencies]"));
    let section = section.split("\n[").next().unwrap();
    (section.lines())
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| line.split(['=', '.']).next().unwrap().trim().to_string())
        .collect()
}

#[test]
fn the_coordinator_core_does_not_import_protobuf() {
    let core = root().join("coordinator/src/core");
    let files = rust_files(&core).len();
    assert!(files > 20, "only {files} files under {}", core.display());
    let found = naming(&core, "rrm_proto");
    assert!(found.is_empty(), "the core names rrm_proto: {found:#?}");
}

#[test]
fn the_plain_libraries_depend_on_no_wire_storage_or_runtime_crate() {
    const SERVICE_CRATES: [&str; 8] = [
        "tokio",
        "tonic",
        "prost",
        "sled",
        "rrm-proto",
        "rrm-store",
        "rrm-coordinator",
        "hyper",
    ];
    for krate in ["ricochet", "model", "charts"] {
        let deps = dependencies(krate);
        assert!(!deps.is_empty(), "{krate}: no dependencies read");
        let service: Vec<_> = deps
            .iter()
            .filter(|d| SERVICE_CRATES.contains(&d.as_str()))
            .collect();
        assert!(service.is_empty(), "{krate} depends on {service:?}");
        // No file or network I/O in their code either.
        for io in ["std::fs", "std::net", "File::open"] {
            let found = naming(&root().join(krate).join("src"), io);
            let found: Vec<_> = found.iter().filter(|l| !l.contains("/tests")).collect();
            assert!(found.is_empty(), "{krate} does I/O: {found:#?}");
        }
    }
}
