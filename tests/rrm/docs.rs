//! The documents name only paths that exist: every repository path that README.md,
//! ARCHITECTURE.md or a design note names (in a code span or a link) is checked, so a
//! file moved or deleted cannot leave the map behind it.

use std::path::Path;

/// The documents checked, from the repository's root.
const DOCUMENTS: [&str; 3] = ["README.md", "ARCHITECTURE.md", "docs/designs.md"];
/// Paths the documents tell the reader to create.
const MADE_BY_THE_READER: [&str; 1] = ["deploy/secrets/"];

/// The texts of `markdown`'s code spans and link targets.
fn named(markdown: &str) -> Vec<&str> {
    let spans = markdown.split('`').skip(1).step_by(2);
    let links = markdown
        .split("](")
        .skip(1)
        .filter_map(|rest| rest.split(')').next());
    spans.chain(links).collect()
}

/// Whether `text` reads as a repository path: two segments or more, no placeholder
/// (`DIR`, `NAME`), no URL, option, absolute or home path, command or code.
fn as_repository_path(text: &str) -> Option<&str> {
    let text = text.split('#').next()?;
    let code = |c: char| c.is_whitespace() || "<>{}*$=:,|\\\"'()[]@…".contains(c);
    if text.contains(code) || text.starts_with(['/', '-', '.', '~']) || text.starts_with("http") {
        return None;
    }
    let segments: Vec<&str> = text.split('/').filter(|s| !s.is_empty()).collect();
    let placeholder = |s: &&str| s.chars().all(|c| c.is_ascii_uppercase() || c == '_');
    (segments.len() >= 2 && !segments.iter().any(placeholder)).then_some(text)
}

#[test]
fn documents_name_only_paths_that_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    let mut missing = Vec::new();
    for document in DOCUMENTS {
        let text = std::fs::read_to_string(root.join(document)).unwrap();
        let here = root.join(document).parent().unwrap().to_path_buf();
        for path in named(&text).into_iter().filter_map(as_repository_path) {
            checked += 1;
            let exists = root.join(path).exists() || here.join(path).exists();
            if !exists && !MADE_BY_THE_READER.contains(&path) {
                missing.push(format!("{document}: {path}"));
            }
        }
    }
    // The documents name dozens of paths: finding few means the parsing broke.
    assert!(checked > 25, "only {checked} paths found");
    assert!(missing.is_empty(), "paths that do not exist: {missing:#?}");
}

#[test]
fn the_path_reader_tells_paths_from_code() {
    let text = "see `store/src/lib.rs`, [designs](docs/designs.md#top), `rrm mine --data DIR`, \
                `data/NAME/x`, `ricochet::Solver`, `./rrm-data`, `/metrics`, `a.rs`";
    let paths: Vec<&str> = named(text)
        .into_iter()
        .filter_map(as_repository_path)
        .collect();
    assert_eq!(paths, ["store/src/lib.rs", "docs/designs.md"]);
}
