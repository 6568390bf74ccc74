//! A panic is a bug in iolab. The user sees one line saying so (what and
//! where, and whom to tell), not a backtrace wall (unless `RUST_BACKTRACE`
//! asks for it), and iolab exits with [`EXIT_STATUS`] (70, `EX_SOFTWARE`
//! of sysexits.h), whichever thread panicked: the status tells a script
//! that iolab broke, not the device or the arguments.
//!
//! The panic still unwinds, so what iolab created is removed on the way
//! out (named verify files, scratch trees, fio job files) exactly as after
//! an error.
//!
//! Test knob: `IOLAB_TEST_PANIC=main` (or `1`) panics on the main thread
//! before anything else, `IOLAB_TEST_PANIC=thread` in a thread while the
//! main one goes on; iolab's own tests use it to check this module. Only
//! with the cargo feature `test-hooks` (see `base::testknob`).

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// The exit status after a panic: EX_SOFTWARE, "internal software error".
pub const EXIT_STATUS: u8 = 70;

static PANICKED: AtomicBool = AtomicBool::new(false);

/// Replace the default hook: one line on stderr (the first panic only: the
/// others are its consequences), the backtrace only with `RUST_BACKTRACE`.
pub fn install() {
    std::panic::set_hook(Box::new(|info| {
        let first = !PANICKED.swap(true, Ordering::SeqCst);
        let backtrace = std::env::var_os("RUST_BACKTRACE").is_some_and(|v| !v.is_empty() && v != "0");
        if !first && !backtrace {
            return;
        }
        let payload = info.payload();
        let msg = payload
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
            .unwrap_or("a panic without a message");
        let at = info
            .location()
            .map_or_else(|| "an unknown place".to_string(), |l| format!("{}:{}", l.file(), l.line()));
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{}", line(msg, &at));
        if backtrace {
            let _ = writeln!(err, "{}", std::backtrace::Backtrace::force_capture());
        }
    }));
}

/// Whether any thread has panicked.
pub fn panicked() -> bool {
    PANICKED.load(Ordering::SeqCst)
}

/// The one line: the message on one line, where, and whom to tell.
pub fn line(msg: &str, at: &str) -> String {
    let msg: String = msg.split_whitespace().collect::<Vec<_>>().join(" ");
    format!("iolab: internal error: {msg} at {at}; please report it to the iolab developers with the command line")
}

/// `IOLAB_TEST_PANIC`: a deliberate panic, for the tests of this module.
#[cfg(feature = "test-hooks")]
pub fn test_knob() {
    match std::env::var("IOLAB_TEST_PANIC").as_deref() {
        Ok("1" | "main") => panic!("IOLAB_TEST_PANIC is set: a deliberate panic to test the panic hook"),
        Ok("thread") => {
            let t = std::thread::spawn(|| panic!("IOLAB_TEST_PANIC=thread: a deliberate panic in a thread"));
            let _ = t.join();
        }
        _ => {}
    }
}

/// Without `test-hooks`: nothing.
#[cfg(not(feature = "test-hooks"))]
#[inline(always)]
pub fn test_knob() {}

#[cfg(test)]
mod tests {
    #[test]
    fn issue_16_the_line_is_one_line() {
        let l = super::line("index out of bounds:\n the len is 3\tbut the index is 7", "src/x.rs:12");
        assert_eq!(
            l,
            "iolab: internal error: index out of bounds: the len is 3 but the index is 7 at src/x.rs:12; please report it to the iolab developers with the command line"
        );
    }
}
