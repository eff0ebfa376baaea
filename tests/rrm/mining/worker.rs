//! The worker's own policies: the arguments it refuses.

use crate::rrm;

#[test]
fn zero_threads_are_refused() {
    for command in ["worker", "mine"] {
        let output = rrm(&[command, "--threads", "0"]);
        assert_eq!(output.status.code(), Some(2), "rrm {command} --threads 0");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("--threads"), "{stderr}");
    }
}
