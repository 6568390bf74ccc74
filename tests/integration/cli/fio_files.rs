//! The fio job files iolab writes (issue 36): a target path that fio would
//! read otherwise is escaped or refused, and a directory is left as found.

use std::path::Path;
use std::process::Command;

fn shm_dir() -> tempfile::TempDir {
    tempfile::Builder::new().prefix("iolab-fio-files-").tempdir_in("/dev/shm").unwrap()
}

fn names(p: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(p)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A megabyte that is neither zeros nor what fio writes.
fn pattern() -> Vec<u8> {
    (0..1u32 << 20).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8).collect()
}

/// `iolab job --engine fio --rw write DIR/img:1` writes `img:1` (fio split
/// the name on `:` and wrote `img`, and a file `1` in its working directory).
#[test]
fn fio_writes_the_file_named_with_a_colon_not_its_prefix() {
    need_tool!("fio");
    let d = shm_dir();
    let (img, img1) = (d.path().join("img"), d.path().join("img:1"));
    let before = pattern();
    std::fs::write(&img, &before).unwrap();
    std::fs::write(&img1, &before).unwrap();
    let out = crate::common::iolab()
        .args(["job", "--engine", "fio", "--rw", "write", "--allow-destroy"])
        .arg(&img1)
        .args(["--duration", "300ms", "--runs", "1", "--warmup", "0s"])
        .current_dir(d.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(std::fs::read(&img).unwrap() == before, "fio wrote img, not img:1");
    assert!(std::fs::read(&img1).unwrap() != before, "img:1 was not written");
    assert_eq!(names(d.path()), ["img", "img:1"]);
}

/// A path fio cannot be given (a line break would start a new option) is a
/// one-line usage error, before fio runs.
#[test]
fn a_path_with_a_line_break_is_refused_for_fio() {
    let d = shm_dir();
    let bad = d.path().join("x\nrw=write");
    std::fs::write(&bad, pattern()).unwrap();
    for args in [&["--engine", "fio"][..], &["--emit", "fio"][..]] {
        let out = crate::common::iolab()
            .args(["job", "--rw", "read"])
            .args(args)
            .arg(&bad)
            .args(["--duration", "300ms", "--runs", "1", "--warmup", "0s"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: one line: {stderr}");
        assert!(stderr.contains("control character"), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    assert_eq!(names(d.path()), ["x\nrw=write"]);
}

/// `--emit fio` on a directory, run by fio, leaves the directory as it was:
/// the test file fio laid out there is removed when the last section ends.
#[test]
fn an_emitted_job_file_run_by_fio_leaves_its_directory_empty() {
    need_tool!("fio");
    let d = shm_dir();
    let target = d.path().join("t");
    std::fs::create_dir(&target).unwrap();
    let out = crate::common::iolab()
        .args(["run", "--emit", "fio", "--suite", "default", "--size", "4MiB"])
        .arg(&target)
        .args(["--duration", "200ms", "--runs", "2", "--warmup", "0s", "--interval", "0s"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let job = d.path().join("j.fio");
    // tmpfs takes no O_DIRECT: run it buffered, as the job file allows.
    let text = String::from_utf8(out.stdout).unwrap().replace("direct=1", "direct=0");
    std::fs::write(&job, text).unwrap();
    let fio = Command::new("fio").arg("--output-format=json").arg(&job).output().unwrap();
    assert!(fio.status.success(), "{}", String::from_utf8_lossy(&fio.stderr));
    assert!(names(&target).is_empty(), "left behind: {:?}", names(&target));
}
