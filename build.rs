//! Sets the cfgs that let the integration tests report what they cannot run as ignored,
//! with the reason, instead of passing without checking anything:
//!
//! - `rrm_without_docker`, `rrm_without_chromium`, `rrm_without_strace`: the tool is not
//!   on `PATH`; `rrm_without_mount`: not root, so no tmpfs can be mounted;
//!   `rrm_without_shared`: `../shared` (the project's shared test data) is not beside the
//!   checkout. None of them is set under `CI`: there a missing tool fails its test.
//! - `rrm_fast_tests`, from `RRM_FAST_TESTS=1`: the fast loop, in which the heavy tests
//!   are ignored (the full suite, the default, runs them).

use std::path::Path;

fn main() {
    println!("cargo::rerun-if-env-changed=PATH");
    println!("cargo::rerun-if-env-changed=CI");
    println!("cargo::rerun-if-env-changed=RRM_FAST_TESTS");
    let in_ci = std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false");
    let on_path = |tool: &str| {
        std::env::var_os("PATH")
            .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(tool).is_file()))
    };
    let is_root = std::fs::read_to_string("/proc/self/status").is_ok_and(|status| {
        status
            .lines()
            .find_map(|line| line.strip_prefix("Uid:"))
            .and_then(|ids| ids.split_whitespace().nth(1))
            == Some("0")
    });
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/testdata");
    // Only a path that exists: a missing one would run this script at every build.
    if shared.is_dir() {
        println!("cargo::rerun-if-changed={}", shared.display());
    }
    let missing = [
        ("rrm_without_docker", !on_path("docker")),
        ("rrm_without_chromium", !on_path("chromium")),
        ("rrm_without_strace", !on_path("strace")),
        ("rrm_without_mount", !is_root),
        ("rrm_without_shared", !shared.is_dir()),
    ];
    for (cfg, missing) in missing {
        println!("cargo::rustc-check-cfg=cfg({cfg})");
        if missing && !in_ci {
            println!("cargo::rustc-cfg={cfg}");
        }
    }
    println!("cargo::rustc-check-cfg=cfg(rrm_fast_tests)");
    if std::env::var_os("RRM_FAST_TESTS").is_some_and(|v| v == "1") {
        println!("cargo::rustc-cfg=rrm_fast_tests");
    }
}
