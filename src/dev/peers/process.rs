//! One solver process, measured as the kernel counts it: pinned to one core before it
//! starts (`sched_setaffinity` in the child), reaped with `wait4`, whose resource usage
//! gives its CPU time (user + system, all its threads: a JVM's compiler and collector
//! threads count) and its peak resident memory. Its stdout goes to a file, so a chatty
//! solver never blocks on a full pipe while it is being timed.

use anyhow::{bail, Context, Result};
use std::fs::File;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What one process cost.
pub struct Usage {
    /// User + system CPU seconds.
    pub cpu_seconds: f64,
    /// Peak resident memory, MB.
    pub peak_mb: f64,
    /// Wall seconds (for the record; CPU is the figure compared).
    pub wall_seconds: f64,
}

/// Why a process gave no usable answer.
#[derive(Debug)]
pub enum ProcessError {
    TimedOut(Duration),
    Failed(i32),
    Signalled(i32),
}

impl std::fmt::Display for ProcessError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProcessError::TimedOut(limit) => write!(f, "killed after {} s", limit.as_secs()),
            ProcessError::Failed(code) => write!(f, "exited with status {code}"),
            ProcessError::Signalled(signal) => write!(f, "killed by signal {signal}"),
        }
    }
}

/// Runs `command` pinned to `cpu`, its stdout written to `stdout`, killed after `limit`.
/// `Ok(Err(..))` is a solver that failed; `Err` is this machine failing to run it.
pub fn run_pinned(
    mut command: Command,
    cpu: usize,
    stdout: &Path,
    limit: Duration,
) -> Result<Result<Usage, ProcessError>> {
    let out = File::create(stdout).with_context(|| format!("creating {}", stdout.display()))?;
    command
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(Stdio::inherit());
    // SAFETY: between fork and exec the closure only calls async-signal-safe libc
    // functions on its own stack data.
    unsafe {
        command.pre_exec(move || {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu, &mut set);
            if libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), &set) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let started = Instant::now();
    let child = command
        .spawn()
        .with_context(|| format!("starting {:?}", command.get_program()))?;
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let mut killed = false;
    loop {
        // SAFETY: pid is our child, not reaped yet; status and usage outlive the call.
        let reaped = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if reaped == pid {
            break;
        }
        if reaped < 0 {
            bail!(
                "waiting for process {pid}: {}",
                std::io::Error::last_os_error()
            );
        }
        if !killed && started.elapsed() > limit {
            // SAFETY: signalling our own unreaped child.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            killed = true;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let wall_seconds = started.elapsed().as_secs_f64();
    if killed {
        return Ok(Err(ProcessError::TimedOut(limit)));
    }
    if libc::WIFSIGNALED(status) {
        return Ok(Err(ProcessError::Signalled(libc::WTERMSIG(status))));
    }
    if libc::WEXITSTATUS(status) != 0 {
        return Ok(Err(ProcessError::Failed(libc::WEXITSTATUS(status))));
    }
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Ok(Ok(Usage {
        cpu_seconds: seconds(usage.ru_utime) + seconds(usage.ru_stime),
        // ru_maxrss is in kilobytes on Linux.
        peak_mb: usage.ru_maxrss as f64 / 1024.0,
        wall_seconds,
    }))
}
