//! `iolab layouts` (issue 26, first slice): `--dry-run` prints the plan and
//! the exact commands and touches nothing; without it the command refuses,
//! since the runner is not built yet. The dry run does not open the devices,
//! so it works on paths that do not exist; on real loop devices their bytes
//! stay as they were.

use crate::common::emu::{LoopDev, MIB};
use assert_cmd::Command;
use std::io::Read;
use std::path::Path;

fn iolab() -> Command {
    Command::from_std(crate::common::iolab())
}

fn dry_run(devs: &[&str], extra: &[&str]) -> String {
    let out = iolab().arg("layouts").args(devs).arg("--dry-run").args(extra).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr: {stderr}");
    assert!(stderr.is_empty(), "nothing on stderr: {stderr}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn a_dry_run_prints_the_plan_and_its_commands_for_paths_that_need_not_exist() {
    let devs = ["/nonexistent/iolab-loopX", "/nonexistent/iolab-loopY"];
    let out = dry_run(&devs, &["--try", "ext4,btrfs-raid1,md-raid1+ext4", "--mount-options", "noatime"]);
    assert!(
        out.starts_with("dry run of iolab layouts: nothing is built, written or destroyed\n"),
        "{out}"
    );
    assert!(out.contains("1. ext4/mount-options=noatime") && out.contains("(baseline)"), "{out}");
    assert!(out.contains("tags layout=btrfs-raid1 mount-options=noatime"), "{out}");
    assert!(
        out.contains("-f -q -d raid1 -m raid1 /nonexistent/iolab-loopX /nonexistent/iolab-loopY") && out.contains("mkfs.btrfs -L iolab-"),
        "{out}"
    );
    assert!(out.contains("wipefs -a /nonexistent/iolab-loopY"), "{out}");
    assert!(out.contains("estimate: about "), "{out}");
    // md is named: built, or refused with why, never dropped.
    assert!(out.contains("md-raid1+ext4"), "{out}");
    for d in devs {
        assert!(!Path::new(d).exists());
    }
}

#[test]
fn a_dry_run_leaves_real_devices_as_they_were() {
    need_root!();
    let (a, b) = (LoopDev::new(16 * MIB), LoopDev::new(16 * MIB));
    let bytes = |p: &Path| {
        let mut v = Vec::new();
        std::fs::File::open(p).unwrap().read_to_end(&mut v).unwrap();
        v
    };
    let before = (bytes(a.path()), bytes(b.path()));
    let devs = [a.path().to_str().unwrap(), b.path().to_str().unwrap()];
    let out = dry_run(&devs, &["--zfs", "recordsize=8K,128K"]);
    assert!(
        out.contains(&format!("-F -q -E lazy_itable_init=0,lazy_journal_init=0 {}", devs[0])) && out.contains("mkfs.ext4 -L iolab-"),
        "{out}"
    );
    assert_eq!((bytes(a.path()), bytes(b.path())), before, "the dry run wrote on a device");
}

#[test]
fn without_consent_or_with_devices_that_do_not_exist_layouts_refuses_in_one_line() {
    for (args, says) in [
        (&["layouts", "/nonexistent/iolab-a"][..], "give --allow-destroy"),
        (
            &[
                "layouts",
                "/nonexistent/iolab-a",
                "/nonexistent/iolab-b",
                "--allow-destroy",
                "--force",
            ][..],
            "layouts builds nothing",
        ),
    ] {
        let out = iolab().args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        assert!(stderr.contains(says), "{stderr}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn an_unknown_configuration_is_a_usage_error_listing_the_valid_ones() {
    let out = iolab()
        .args(["layouts", "/nonexistent/iolab-a", "--dry-run", "--try", "zfs,raid7"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--try raid7: no such configuration; these are: ext4, xfs, btrfs, zfs"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn the_options_of_iolab_job_measure_that_job_on_each_configuration() {
    let devs = ["/nonexistent/iolab-a", "/nonexistent/iolab-b"];
    let job = ["--try", "ext4,btrfs-raid1", "--rw", "randwrite", "--bs", "8K", "--qd", "4"];
    let out = dry_run(&devs, &job);
    assert!(out.contains("\non each configuration: 1 test: randwrite 8K Q4T1\n"), "{out}");
    // One test of --duration per run, times --runs, plus the rest after a write.
    let out = dry_run(&devs, &[&job[..], &["--runs", "2", "--duration", "3s", "--warmup", "0"]].concat());
    assert!(out.contains("each configuration 41s = 1 tests × 11s + 30s to build"), "{out}");
    // Several sizes: one job each; the job's defaults are `iolab job`'s.
    let out = dry_run(&devs, &["--try", "ext4", "--rw", "read", "--bs", "8K,128K", "--threads", "2"]);
    assert!(
        out.contains("on each configuration: 2 tests: read 8K Q1T2, read 128K Q1T2\n"),
        "{out}"
    );
    let out = dry_run(&devs, &["--try", "ext4", "--qd", "8"]);
    assert!(out.contains("on each configuration: 1 test: randread 4K Q8T1\n"), "{out}");
    // Without them: the suite, by default the sustained writes and the default battery.
    let out = dry_run(&devs, &["--try", "ext4", "--suite", "dd", "--bs", "128K"]);
    assert!(
        out.contains("on each configuration: suite dd, 2 tests: DD write 128K, DD read 128K\n"),
        "{out}"
    );
    let out = dry_run(&devs, &["--try", "ext4"]);
    assert!(
        out.contains("on each configuration: suite sustained+default, 14 tests: SUSTAINED 8K buffered"),
        "{out}"
    );
}

#[test]
fn a_suite_and_the_job_options_together_are_a_usage_error_in_one_line() {
    for extra in [
        &["--rw", "randwrite"][..],
        &["--qd", "4"],
        &["--bytes", "1MiB"],
        &["--threads", "2", "--bs", "8K"],
    ] {
        let out = iolab()
            .args(["layouts", "/nonexistent/iolab-a", "--dry-run", "--suite", "dd"])
            .args(extra)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        assert!(
            stderr.contains("--suite and the job options (--rw, --qd, --threads, --bytes, --sync)") && stderr.contains("give one"),
            "{stderr}"
        );
        assert!(out.stdout.is_empty());
    }
}
