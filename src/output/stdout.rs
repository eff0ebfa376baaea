//! The commands' standard output. A reader that goes away (`rrm solve ... | head`) has
//! all it wants: writes then fail with an error `main` recognises and ends on quietly, as
//! ripgrep does. Only stdout is marked, so a broken pipe elsewhere (a gRPC socket) is
//! still reported.

use std::io::{self, StdoutLock, Write};

/// The locked stdout, whose broken-pipe errors are marked as a closed stdout.
pub fn lock() -> Stdout {
    Stdout(io::stdout().lock())
}

pub struct Stdout(StdoutLock<'static>);

impl Write for Stdout {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.write(bytes).map_err(mark)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush().map_err(mark)
    }
}

/// The marker inside the `io::Error` of a write to a closed stdout.
#[derive(Debug)]
struct Closed;

impl std::fmt::Display for Closed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("stdout is closed")
    }
}

impl std::error::Error for Closed {}

fn mark(error: io::Error) -> io::Error {
    if error.kind() == io::ErrorKind::BrokenPipe {
        io::Error::new(io::ErrorKind::BrokenPipe, Closed)
    } else {
        error
    }
}

/// Whether `error` comes from writing to a closed stdout.
pub fn is_closed(error: &anyhow::Error) -> bool {
    error
        .root_cause()
        .downcast_ref::<io::Error>()
        .and_then(io::Error::get_ref)
        .is_some_and(|inner| inner.is::<Closed>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_closed_stdout_is_recognised() {
        let pipe = || io::Error::from(io::ErrorKind::BrokenPipe);
        assert!(is_closed(&anyhow::Error::from(mark(pipe()))));
        assert!(is_closed(
            &anyhow::Error::from(mark(pipe())).context("printing")
        ));
        // A broken socket is a real failure.
        assert!(!is_closed(&anyhow::Error::from(pipe())));
        assert!(!is_closed(&anyhow::Error::from(mark(
            io::ErrorKind::Other.into()
        ))));
    }
}
