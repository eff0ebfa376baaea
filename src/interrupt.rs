//! Ctrl-C for synchronous commands (`rrm exhaust`): the first SIGINT only raises a flag
//! that the work checks between steps, so the command can stop cleanly and say where;
//! a second SIGINT ends the process as usual.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn raise_flag(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
    // Only async-signal-safe calls here: the next Ctrl-C gets the default action.
    unsafe { libc::signal(libc::SIGINT, libc::SIG_DFL) };
}

/// Catches the next SIGINT (once per process) instead of dying of it.
pub fn catch_ctrl_c() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| unsafe {
        libc::signal(
            libc::SIGINT,
            raise_flag as extern "C" fn(libc::c_int) as libc::sighandler_t,
        );
    });
}

/// Whether Ctrl-C was pressed since [`catch_ctrl_c`].
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}
