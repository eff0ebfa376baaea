//! The documents name only paths that exist: every repository path that README.md,
//! ARCHITECTURE.md or a page of `docs/` names (in a code span or a link) is checked, so a
//! file moved or deleted cannot leave the map behind it.

use std::path::{Path, PathBuf};

/// Paths the documents tell the reader to create.
const MADE_BY_THE_READER: [&str; 1] = ["deploy/secrets/"];

/// The documents checked: README.md, ARCHITECTURE.md and every Markdown page of `docs/`,
/// read at test time so that a new page is checked without being listed.
fn documents(root: &Path) -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    let mut documents = vec![root.join("README.md"), root.join("ARCHITECTURE.md")];
    documents.extend(pages);
    documents
}

/// The texts of `markdown`'s code spans.
fn spans(markdown: &str) -> impl Iterator<Item = &str> {
    markdown.split('`').skip(1).step_by(2)
}

/// The targets of `markdown`'s links.
fn links(markdown: &str) -> impl Iterator<Item = &str> {
    markdown
        .split("](")
        .skip(1)
        .filter_map(|rest| rest.split(')').next())
}

/// Whether `text` reads as a repository path: two segments or more, no placeholder
/// (`DIR`, `NAME`), no URL, option, absolute or home path, command or code. A leading
/// `../` is kept: a page of `docs/` reaches the rest of the repository that way.
fn as_repository_path(text: &str) -> Option<&str> {
    let text = text.split('#').next()?;
    let code = |c: char| c.is_whitespace() || "<>{}*$=:,|\\\"'()[]@…".contains(c);
    let within = text.trim_start_matches("../");
    if text.contains(code) || within.starts_with(['/', '-', '.', '~']) || text.starts_with("http") {
        return None;
    }
    let segments: Vec<&str> = within.split('/').filter(|s| !s.is_empty()).collect();
    let placeholder = |s: &&str| s.chars().all(|c| c.is_ascii_uppercase() || c == '_');
    (segments.len() >= 2 && !segments.iter().any(placeholder)).then_some(text)
}

#[test]
fn documents_name_only_paths_that_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    let mut missing = Vec::new();
    for document in documents(root) {
        let text = std::fs::read_to_string(&document).unwrap();
        let here = document.parent().unwrap();
        let name = document.strip_prefix(root).unwrap().display().to_string();
        // A code span names a path from the root or from the document's directory; a
        // link is followed from the document's directory, as a reader's browser does.
        let named = spans(&text)
            .filter_map(as_repository_path)
            .map(|path| (path, root.join(path).exists() || here.join(path).exists()))
            .chain(
                links(&text)
                    .filter_map(as_repository_path)
                    .map(|path| (path, here.join(path).exists())),
            );
        for (path, exists) in named {
            checked += 1;
            if !exists && !MADE_BY_THE_READER.contains(&path) {
                missing.push(format!("{name}: {path}"));
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
                `data/NAME/x`, `ricochet::Solver`, `./rrm-data`, `/metrics`, `a.rs`, \
                [census](../data/exhaustive/README.md)";
    let paths: Vec<&str> = spans(text)
        .chain(links(text))
        .filter_map(as_repository_path)
        .collect();
    assert_eq!(
        paths,
        [
            "store/src/lib.rs",
            "docs/designs.md",
            "../data/exhaustive/README.md"
        ]
    );
}

/// The sweep overlay's campaign Job creates exactly the campaign of
/// `CENSUS_EDITION=all data/exhaustive/census`: its name, family, sides, targets and
/// hardest placements, read from the script, are the Job's arguments.
#[test]
fn the_sweep_overlay_creates_the_all_sides_census_campaign() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script = std::fs::read_to_string(root.join("data/exhaustive/census")).unwrap();
    let job =
        std::fs::read_to_string(root.join("deploy/k8s/overlays/sweep/campaign-job.yaml")).unwrap();
    let args: Vec<&str> = (job.lines())
        .skip_while(|line| line.trim() != "args:")
        .skip(1)
        .map_while(|line| line.trim().strip_prefix("- "))
        .map(|arg| arg.trim_matches('"'))
        .collect();
    let after = |flag: &str| {
        let at = args
            .iter()
            .position(|a| *a == flag)
            .unwrap_or_else(|| panic!("{flag} in {args:?}"));
        args[at + 1]
    };
    // The script's `all)` case and its shared settings.
    let all = script
        .split("    all) ")
        .nth(1)
        .unwrap()
        .split(";;")
        .next()
        .unwrap();
    let assigned = |text: &str, name: &str| -> String {
        let start = text
            .find(&format!("{name}="))
            .unwrap_or_else(|| panic!("{name}"))
            + name.len()
            + 1;
        text[start..].split_whitespace().next().unwrap().to_string()
    };
    assert_eq!(
        args[..3],
        [
            "campaign",
            "create",
            assigned(all, "default_campaign").as_str()
        ]
    );
    assert!(
        all.contains("family=(--exhaustive driftingdroids --sides ABCD)"),
        "{all}"
    );
    assert_eq!(after("--exhaustive"), "driftingdroids");
    assert_eq!(after("--sides"), "ABCD");
    assert_eq!(after("--targets"), assigned(&script, "all_tokens"));
    let hardest = script
        .split("--max-hardest ")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap();
    assert_eq!(after("--max-hardest"), hardest);
    assert!(args.contains(&"--if-missing"));
}
