//! Which iolab process owns something it left on the system (a directory,
//! a dataset, a journal of what a layout run built), and whether that
//! process still runs: what lets the next run clear what a SIGKILL left,
//! and never what a live run still uses.
//!
//! An owner is `PID@START@BOOT`: the pid, the process's start time in
//! clock ticks since boot (`/proc/PID/stat`'s 22nd field) and the kernel's
//! boot id, so a pid reused later, or after a reboot, is not taken for the
//! owner. Whatever cannot be read counts as alive: nothing is ever removed
//! on a doubt.

/// A process's start time in clock ticks since boot, `None` when /proc
/// cannot say (the process is gone).
pub fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces and
    // parentheses itself: count fields after the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

fn boot_id() -> Option<String> {
    Some(std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?.trim().to_string())
}

/// The owner value of a running process, `None` when it is gone.
pub fn of(pid: u32) -> Option<String> {
    Some(format!("{pid}@{}@{}", start_time(pid)?, boot_id()?))
}

/// This process's owner value (`PID@?@?` where /proc cannot say, which
/// later counts as alive).
pub fn of_self() -> String {
    of(std::process::id()).unwrap_or_else(|| format!("{}@?@?", std::process::id()))
}

/// Whether the process an owner value names still runs. `now(pid)`: that
/// pid's owner value if it runs ([`of`] live). A value that cannot be read
/// counts as alive.
pub fn alive(owner: &str, now: &dyn Fn(u32) -> Option<String>) -> bool {
    let mut parts = owner.splitn(3, '@');
    let (Some(pid), Some(start), Some(boot)) = (parts.next(), parts.next(), parts.next()) else {
        return true;
    };
    let Ok(pid) = pid.parse::<u32>() else { return true };
    if start == "?" || boot == "?" || start.parse::<u64>().is_err() {
        return true;
    }
    match now(pid) {
        None => false,
        Some(value) => value == owner,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// pid 7 runs, started at tick 100 of boot b1; nothing else runs.
    fn now(pid: u32) -> Option<String> {
        (pid == 7).then(|| "7@100@b1".to_string())
    }

    #[test]
    fn an_owner_is_alive_only_while_its_process_runs() {
        assert!(alive("7@100@b1", &now));
        assert!(!alive("7@99@b1", &now), "the pid was reused");
        assert!(!alive("7@100@b0", &now), "another boot");
        assert!(!alive("8@100@b1", &now), "gone");
        for doubt in ["", "garbage", "x@1@b1", "8@?@?", "8@100", "8@x@b1"] {
            assert!(alive(doubt, &now), "{doubt:?}: a doubt keeps what it owns");
        }
        let me = of_self();
        assert!(alive(&me, &of), "{me}");
        assert_eq!(start_time(std::process::id()).is_some(), me.split('@').nth(1) != Some("?"));
    }
}
