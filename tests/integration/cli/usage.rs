//! Command-line behaviour: bad input fails fast with status 2 (iolab's own
//! errors in one line, the parser's with clap's whole message),
//! nothing is left behind (also after SIGINT/SIGTERM), outputs are valid.

use crate::common::emu::{LoopDev, MIB};
use assert_cmd::Command;
use std::path::Path;
use std::time::{Duration, Instant};

/// [`crate::common::iolab`] as an `assert_cmd` command.
fn iolab() -> Command {
    Command::from_std(crate::common::iolab())
}

/// Two short measured runs after a short warm-up: enough to exercise every path quickly.
const SHORT_RUNS: &[&str] = &["--duration", "300ms", "--runs", "2", "--warmup", "100ms", "--interval", "0s"];

fn shm_dir() -> tempfile::TempDir {
    tempfile::Builder::new().prefix("iolab-cli-").tempdir_in("/dev/shm").unwrap()
}

fn entries(p: &Path) -> Vec<String> {
    std::fs::read_dir(p)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

/// Runs `iolab` with arguments its parser refuses: exit status 2, nothing on
/// stdout, and clap's whole message on stderr: the error with every `needle`
/// (what is missing, the valid values, the suggestion, the usage line) and
/// where to read more.
fn bad_args(args: &[&str], needles: &[&str]) -> String {
    let out = iolab().args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "args {args:?}: stderr {stderr}");
    assert!(out.stdout.is_empty(), "nothing on stdout for an error");
    assert!(stderr.starts_with("error: "), "clap's error first: {stderr}");
    for n in needles {
        assert!(stderr.contains(n), "expected '{n}' in: {stderr}");
    }
    assert!(stderr.contains("For more information, try '--help'."), "{stderr}");
    stderr
}

/// Runs `iolab` with `args`, expects exit status 2 and a single-line error containing `needle`.
fn bad_input(args: &[&str], needle: &str) {
    let out = iolab().args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "args {args:?}: stderr {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line expected, got: {stderr}");
    assert!(stderr.contains(needle), "expected '{needle}' in: {stderr}");
    assert!(out.stdout.is_empty(), "nothing on stdout for an error");
}

#[test]
fn missing_target_is_a_one_line_error() {
    bad_input(&["job", "/nonexistent/iolab-target", "--duration", "1s"], "does not exist");
    bad_input(&["run", "/nonexistent/iolab-target"], "does not exist");
}

#[test]
fn zero_block_size_and_queue_depth_are_refused() {
    let d = shm_dir();
    let p = d.path().to_str().unwrap();
    bad_args(&["job", p, "--bs", "0"], &["block size must be greater than 0"]);
    bad_args(&["job", p, "--qd", "0"], &["--qd", "queue depth must be between 1 and 4096"]);
    bad_args(&["job", p, "--bs", "1000"], &["multiple of 512"]);
    bad_args(&["job", p, "--threads", "0"], &["--threads", "threads must be between 1 and 256"]);
    bad_args(&["job", p, "--duration", "0s"], &["duration must be greater than 0"]);
    assert!(entries(d.path()).is_empty());
}

#[test]
fn unknown_suite_is_refused_with_the_valid_ones() {
    bad_args(
        &["run", ".", "--suite", "fastest"],
        &["'fastest'", "possible values:", "default", "nvme", "sustained", "git"],
    );
}

/// Issue 12: clap's message reached the user cut after its first line.
#[test]
fn issue_12_argument_errors_keep_their_content() {
    bad_args(
        &["job"],
        &[
            "the following required arguments were not provided",
            "<TARGET>",
            "Usage: iolab job <TARGET>",
        ],
    );
    bad_args(
        &["lsit"],
        &[
            "unrecognized subcommand 'lsit'",
            "similar subcommands exist",
            "'list'",
            "Usage: iolab",
        ],
    );
    bad_args(&["job", ".", "--rw", "sideways"], &["possible values:", "randread", "randrw"]);
    bad_args(
        &["run", ".", "--durration", "1s"],
        &["unexpected argument '--durration'", "--duration"],
    );
}

#[test]
fn size_larger_than_free_space_is_refused_and_leaves_nothing() {
    let d = shm_dir();
    bad_input(&["run", d.path().to_str().unwrap(), "--size", "100TiB"], "not enough free space");
    assert!(entries(d.path()).is_empty());
}

#[test]
fn unwritable_directory_is_refused() {
    let d = shm_dir();
    let ro = d.path().join("ro");
    std::fs::create_dir(&ro).unwrap();
    let is_root = rustix::process::geteuid().is_root();
    // Root ignores permission bits, so make the directory a read-only mount there.
    let mounted = is_root
        && std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", "ro,size=16m", "tmpfs"])
            .arg(&ro)
            .status()
            .unwrap()
            .success();
    if !mounted {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    }
    let out = iolab()
        .args(["run", ro.to_str().unwrap(), "--size", "4MiB", "--runs", "1"])
        .output()
        .unwrap();
    if mounted {
        std::process::Command::new("umount").arg(&ro).status().unwrap();
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("cannot create a test file"), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
}

#[test]
fn writing_a_block_device_needs_consent() {
    // /dev/zero is not a block device; use any block device the machine has (it is never
    // opened: the refusal comes first), or a loop device of our own.
    let found = ["/dev/loop0", "/dev/vda", "/dev/sda", "/dev/nvme0n1", "/dev/zram0"]
        .into_iter()
        .find(|p| {
            use std::os::unix::fs::FileTypeExt;
            std::fs::metadata(p).is_ok_and(|m| m.file_type().is_block_device())
        })
        .map(std::path::PathBuf::from);
    let mut ours = None;
    let dev = match found {
        Some(p) => p,
        None => {
            if !crate::common::skip::is_root() {
                skip!(Privilege, "no block device node here, and making a loop device needs root");
            }
            ours.insert(LoopDev::new(16 * MIB)).path().to_path_buf()
        }
    };
    let dev = dev.to_str().unwrap();
    bad_input(&["job", dev, "--rw", "randwrite"], "--allow-destroy");
    bad_input(&["run", dev], "--allow-destroy");
}

#[test]
fn writing_an_existing_file_needs_consent() {
    let d = shm_dir();
    let f = d.path().join("precious.dat");
    std::fs::write(&f, vec![7u8; 1 << 20]).unwrap();
    bad_input(&["job", f.to_str().unwrap(), "--rw", "write"], "--allow-destroy");
    assert_eq!(std::fs::read(&f).unwrap(), vec![7u8; 1 << 20], "file untouched");
}

#[test]
fn job_on_tmpfs_prints_table_and_json_and_leaves_nothing() {
    let d = shm_dir();
    let json = d.path().join("out.json");
    let target = d.path().join("t");
    std::fs::create_dir(&target).unwrap();
    let out = iolab()
        .args([
            "job",
            target.to_str().unwrap(),
            "--rw",
            "randrw",
            "--bs",
            "4k",
            "--qd",
            "4",
            "--size",
            "16MiB",
        ])
        .args(SHORT_RUNS)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("randrw 4K Q4T1"), "{table}");
    assert!(table.contains("Read MB/s"));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let j = &v["jobs"][0];
    assert_eq!(j["rw"], "randrw");
    assert_eq!(j["runs"].as_array().unwrap().len(), 2);
    for dir in ["read", "write"] {
        assert!(j[dir]["ios"].as_u64().unwrap() > 0, "{dir}");
        assert!(j[dir]["bw_bytes"].as_f64().unwrap() > 0.0);
        assert!(j[dir]["lat_ns"]["p99"].as_u64().unwrap() >= j[dir]["lat_ns"]["p50"].as_u64().unwrap());
    }
    let reads = j["read"]["ios"].as_f64().unwrap();
    let writes = j["write"]["ios"].as_f64().unwrap();
    assert!((0.6..0.8).contains(&(reads / (reads + writes))), "70/30 mix");
    assert!(j["warnings"].as_array().unwrap().iter().any(|w| w["code"] == "no_block_device"));
    assert!(entries(&target).is_empty(), "test file left behind");
}

#[test]
fn json_to_stdout_is_only_json() {
    let d = shm_dir();
    let out = iolab()
        .args(["job", d.path().to_str().unwrap(), "--rw", "read", "--bs", "128k", "--size", "8MiB"])
        .args(["--duration", "200ms", "--runs", "1", "--warmup", "0s", "--json", "-"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is one JSON document");
    assert_eq!(v["jobs"][0]["write"], serde_json::Value::Null, "a direction with no I/O is null");
    assert!(v["iolab_version"].is_string());
    assert_eq!(v["target"]["test_file"], true);
}

#[test]
fn suites_lists_every_suite() {
    let out = iolab().arg("suites").output().unwrap();
    let s = String::from_utf8_lossy(&out.stdout);
    for name in [
        "default",
        "peak",
        "real",
        "demo",
        "nvme",
        "mix",
        "random512k",
        "RND4K Q32T16",
        "SEQ128K Q32T1",
        "RND512K Q1T1",
        "sdcard",
        "SEQ512K Q1T1 write",
    ] {
        assert!(s.contains(name), "{name} missing from:\n{s}");
    }
}

/// Issue 28: `--full` is the sdcard suite's; fio cannot run that suite.
#[test]
fn full_is_the_sdcard_suites_and_fio_cannot_run_it() {
    let d = shm_dir();
    let p = d.path().to_str().unwrap();
    bad_input(&["run", p, "--suite", "default", "--full"], "--full applies to the sdcard suite");
    bad_input(&["run", p, "--suite", "sdcard", "--engine", "fio"], "fio cannot run it");
    assert!(entries(d.path()).is_empty());
}

/// Issue 36: `--bs 4kb` suggested `kB`, which then failed as "not a
/// multiple of 512 bytes, got 4000": both name `4k` or `4KiB`.
#[test]
fn a_decimal_block_size_suggests_the_binary_unit() {
    let d = shm_dir();
    let p = d.path().to_str().unwrap();
    let e = bad_args(&["job", p, "--bs", "4kb"], &["'4kb'", "write 4k or 4KiB (4096 bytes)"]);
    assert!(!e.contains("(use k, M"), "{e}");
    bad_args(&["job", p, "--bs", "4kB"], &["got 4000", "for 4096 bytes write 4k or 4KiB"]);
    assert!(entries(d.path()).is_empty());
}

/// Issue 36: `iolab run DIR --suite real --rw read` got clap's tip to pass
/// `--rw` as a value (`-- --rw`); it says that `--rw` is `iolab job`'s.
#[test]
fn a_job_option_given_to_a_suite_names_iolab_job() {
    let d = shm_dir();
    let p = d.path().to_str().unwrap();
    for opt in ["--rw", "--qd"] {
        let e = bad_args(
            &["run", p, "--suite", "real", opt, "read"],
            &[&format!("{opt} belongs to `iolab job`"), "not to a suite", "Usage: iolab run"],
        );
        assert!(!e.contains(&format!("-- {opt}")), "{e}");
    }
    // An option no command has keeps clap's own message.
    bad_args(&["run", p, "--suite", "real", "--nosuch"], &["unexpected argument '--nosuch'"]);
    assert!(entries(d.path()).is_empty());
}

/// Start a long run, signal it mid-run, and check it stops promptly, reports
/// the interruption with 128+signal, and leaves no test file.
fn interrupted_run_leaves_nothing(sig: i32) {
    let d = shm_dir();
    let child = crate::common::iolab()
        .args(["run", d.path().to_str().unwrap(), "--suite", "default", "--size", "32MiB"])
        .args(["--duration", "2s", "--runs", "3", "--warmup", "0s", "--interval", "0s"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(2500));
    // While running, the test file is invisible: it was created unlinked.
    assert!(entries(d.path()).is_empty(), "test file visible during the run");
    unsafe { libc::kill(child.id() as i32, sig) };
    let t = Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(t.elapsed() < Duration::from_secs(3), "took {:?} to stop", t.elapsed());
    assert_eq!(out.status.code(), Some(128 + sig), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("interrupted"));
    // The finished test (SEQ1M Q8T1 read, 2s) may or may not be complete; the table must still print.
    assert!(String::from_utf8_lossy(&out.stdout).contains("interrupted"));
    assert!(entries(d.path()).is_empty(), "left behind: {:?}", entries(d.path()));
}

#[test]
fn sigint_mid_run_leaves_nothing() {
    interrupted_run_leaves_nothing(libc::SIGINT);
}

#[test]
fn sigterm_mid_run_leaves_nothing() {
    interrupted_run_leaves_nothing(libc::SIGTERM);
}

/// The battery on a directory of a disk filesystem (the temp dir: ext4 on
/// this project's machines): table, valid JSON with the device cross-check,
/// nothing left behind.
#[test]
fn run_on_a_disk_filesystem_prints_table_and_json() {
    let d = tempfile::Builder::new().prefix("iolab-cli-").tempdir().unwrap();
    let json = d.path().join("r.json");
    let target = d.path().join("t");
    std::fs::create_dir(&target).unwrap();
    let out = iolab()
        .args(["run", target.to_str().unwrap(), "--suite", "demo", "--size", "16MiB"])
        .args(SHORT_RUNS)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("SEQ1M Q8T1 read") && table.contains("SEQ1M Q8T1 write"), "{table}");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["settings"]["suite"], "demo");
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2);
    assert!(jobs[0]["read"]["bw_bytes"].as_f64().unwrap() > 0.0);
    assert!(jobs[1]["write"]["bw_bytes"].as_f64().unwrap() > 0.0);
    assert_eq!(jobs[0]["write"], serde_json::Value::Null);
    if v["target"]["devices"].as_array().is_some_and(|d| !d.is_empty()) {
        // A block device serves it: the cross-check ran and saw the job's reads.
        let dev = &jobs[0]["device"];
        assert!(
            dev["read_bytes"].as_u64().unwrap() >= dev["job_read_bytes"].as_u64().unwrap() * 9 / 10,
            "{dev}"
        );
    }
    assert!(entries(&target).is_empty(), "test file left behind");
}

/// ramfs refuses O_DIRECT (and O_TMPFILE): iolab must fall back to buffered
/// I/O loudly, label the result, and still leave nothing behind.
#[test]
fn filesystem_without_o_direct_falls_back_loudly() {
    need_root!();
    let d = shm_dir();
    let mnt = d.path().join("ramfs");
    std::fs::create_dir(&mnt).unwrap();
    assert!(
        std::process::Command::new("mount")
            .args(["-t", "ramfs", "ramfs"])
            .arg(&mnt)
            .status()
            .unwrap()
            .success()
    );
    struct Umount<'a>(&'a Path);
    impl Drop for Umount<'_> {
        fn drop(&mut self) {
            // Only reached when the test failed before unmounting.
            let _ = std::process::Command::new("umount").arg("-l").arg(self.0).status();
        }
    }
    let guard = Umount(&mnt);
    let out = iolab()
        .args(["job", mnt.to_str().unwrap(), "--rw", "randrw", "--size", "8MiB"])
        .args(["--duration", "200ms", "--runs", "1", "--warmup", "0s", "--json", "-"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("WARNING") && stderr.contains("BUFFERED"),
        "the fallback must be loud: {stderr}"
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["target"]["direct"], false);
    assert_eq!(v["jobs"][0]["direct"], false);
    assert!(
        v["jobs"][0]["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["code"] == "buffered_fallback")
    );
    assert!(entries(&mnt).is_empty(), "left behind: {:?}", entries(&mnt));
    // Once iolab has exited the filesystem must be free (io_uring's registered
    // file used to keep it busy for a moment after exit).
    let um = std::process::Command::new("umount").arg(&mnt).output().unwrap();
    assert!(
        um.status.success(),
        "umount right after iolab: {}",
        String::from_utf8_lossy(&um.stderr)
    );
    std::mem::forget(guard);
}

/// The JSON document reads back into the library's Report type and writes
/// out identically: what the store, `show` and `compare` rely on.
#[test]
fn json_document_round_trips_through_report() {
    let d = shm_dir();
    let out = iolab()
        .args(["job", d.path().to_str().unwrap(), "--rw", "randrw", "--size", "8MiB"])
        .args(SHORT_RUNS)
        .args(["--json", "-"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let original: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let report: iolab::summary::Report = serde_json::from_value(original.clone()).expect("document parses as Report");
    assert_eq!(serde_json::to_value(&report).unwrap(), original);
}

/// Issue 12: the first screen says where to start and what a bare `run` costs.
#[test]
fn issue_12_the_first_screen_has_examples() {
    let bare = iolab().output().unwrap();
    assert_eq!(bare.status.code(), Some(2), "no command is a usage error");
    let help = iolab().arg("--help").output().unwrap();
    assert!(help.status.success());
    for out in [&bare.stderr, &help.stdout] {
        let text = String::from_utf8_lossy(out);
        for want in [
            "Examples:",
            "iolab run .",
            "1 GiB test file",
            "until its figure settles",
            "iolab scan /dev/sdb",
            "iolab compare 1 2",
        ] {
            assert!(text.contains(want), "'{want}' missing from: {text}");
        }
    }
    assert!(String::from_utf8_lossy(&help.stdout).contains("Exit status:"));
}

/// Issue 12: `--warmup` is a duration everywhere; `time` counts its warm-up
/// runs with `--warmup-runs` (the old spelling still works there).
#[test]
fn issue_12_time_counts_warmup_runs_by_their_own_name() {
    let d = shm_dir();
    for flag in ["--warmup-runs", "--warmup"] {
        let out = iolab()
            .args(["time", "--runs", "1", flag, "1", "--cwd"])
            .arg(d.path())
            .args(["--json", "-", "--", "true"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{flag}: {}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["time"]["warmup_runs"], 1, "{flag}");
    }
    let help = iolab().args(["time", "--help"]).output().unwrap();
    assert!(String::from_utf8_lossy(&help.stdout).contains("--warmup-runs <N>"));
}

/// Issue 12: options show only on the commands that use them: the store
/// and the configuration file not on `info`, `completions` or `man`, the
/// store not on `suites`; both still work before the command. (`schema`
/// reads neither.)
#[test]
fn issue_12_store_and_config_options_do_not_leak() {
    let help = |args: &[&str]| {
        let out = iolab().args(args).arg("--help").output().unwrap();
        assert!(out.status.success(), "{args:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    for cmd in ["info", "schema", "completions", "man"] {
        let h = help(&[cmd]);
        assert!(!h.contains("--db") && !h.contains("--config"), "{cmd}: {h}");
    }
    let h = help(&["suites"]);
    assert!(!h.contains("--db") && h.contains("--config"), "suites: {h}");
    for cmd in [
        "run", "job", "scan", "scale", "time", "list", "show", "compare", "import", "delete", "label", "tag",
    ] {
        let h = help(&[cmd]);
        assert!(h.contains("--db") && h.contains("--config"), "{cmd}: {h}");
    }
    for cmd in ["job", "scale"] {
        assert!(!help(&[cmd]).contains("mix suite"), "{cmd} mentions run's mix suite");
    }
    let d = shm_dir();
    let db = d.path().join("r.db");
    for args in [
        vec!["--db", db.to_str().unwrap(), "list"],
        vec!["list", "--db", db.to_str().unwrap()],
    ] {
        let out = iolab().args(&args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8_lossy(&out.stdout), "no stored runs\n", "{args:?}");
    }
    // Given after the command it wins over the one before it.
    let out = iolab()
        .args(["--db", "/nonexistent-dir/x.db", "list", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}
