//! Refused calls, logged in summary: a peer without a valid token can send thousands
//! of calls a second, and one line each would fill the disk (measured before: 5,523
//! lines/s, about 71 GB a day). The first [`IN_FULL`] refusals of each
//! [`WINDOW`] are logged as they come; the rest are counted, and the first refusal after
//! the window says how many there were and from how many addresses.

use std::collections::HashSet;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long one summary covers.
const WINDOW: Duration = Duration::from_secs(10);
/// Refusals logged in full per window.
const IN_FULL: u32 = 5;
/// Addresses told apart per window (the count of addresses stops there).
const ADDRESSES_KEPT: usize = 4096;

/// One window of refusals.
#[derive(Default)]
struct Window {
    started: Option<Instant>,
    logged: u32,
    counted: u64,
    addresses: HashSet<IpAddr>,
}

/// Refusals of every gate of a server, logged in summary.
#[derive(Default)]
pub(crate) struct RefusalLog {
    window: Mutex<Window>,
}

impl RefusalLog {
    /// Logs, or counts, a refusal of a call to `service` from `peer`.
    pub(crate) fn refused(&self, service: &str, peer: Option<IpAddr>, why: &dyn std::fmt::Display) {
        let mut window = self.window.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        if window
            .started
            .is_none_or(|started| now.duration_since(started) >= WINDOW)
        {
            if window.counted > 0 {
                tracing::warn!(
                    "{} more calls refused in {:?} from {}{} addresses (not logged one by one)",
                    window.counted,
                    WINDOW,
                    window.addresses.len(),
                    if window.addresses.len() >= ADDRESSES_KEPT {
                        "+"
                    } else {
                        ""
                    },
                );
            }
            *window = Window {
                started: Some(now),
                ..Window::default()
            };
        }
        if window.logged < IN_FULL {
            window.logged += 1;
            let peer = peer.map_or_else(|| "unknown".to_string(), |peer| peer.to_string());
            tracing::warn!(service, %peer, "refused a call: {why}");
            return;
        }
        window.counted += 1;
        if let Some(peer) = peer {
            if window.addresses.len() < ADDRESSES_KEPT {
                window.addresses.insert(peer);
            }
        }
    }

    /// Refusals counted but not logged in the current window.
    #[cfg(test)]
    fn counted(&self) -> u64 {
        self.window.lock().unwrap().counted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_logs_a_few_lines_and_counts_the_rest() {
        let log = RefusalLog::default();
        let peer: IpAddr = "127.0.0.9".parse().unwrap();
        for _ in 0..1000 {
            log.refused("Mining", Some(peer), &"no token");
        }
        assert_eq!(log.counted(), 1000 - u64::from(IN_FULL));
        let window = log.window.lock().unwrap();
        assert_eq!(window.logged, IN_FULL);
        assert_eq!(window.addresses.len(), 1);
    }
}
