//! The configuration file: a user suite runs with the file's jobs, the
//! command line wins over the file's defaults, a broken file is one error
//! naming the file and line (exit status 2), and `iolab suites` lists the
//! user suites with their source. `XDG_CONFIG_HOME` points into a temporary
//! directory, so the user's own configuration is never read.

use assert_cmd::Command;
use std::path::Path;

const NIGHTLY: &str = r#"
[defaults]
size = "4GiB"
runs = 5
duration = "10s"
warmup = "1m30s"

[suites.our-nightly]
description = "what the lab runs every night"
jobs = [
  { rw = "read", bs = "1M", qd = 8 },
  { rw = "randread", bs = "4k", qd = 32, threads = 4 },
  { rw = "randwrite", bs = "4k", qd = 1, name = "RND4K Q1T1 write" },
]
"#;

/// The binary with an in-memory store and a configuration home of its own.
fn iolab(home: &Path) -> Command {
    let mut c = Command::from_std(crate::common::iolab());
    c.env("XDG_CONFIG_HOME", home);
    c
}

fn config(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("lab.toml");
    std::fs::write(&file, text).unwrap();
    (dir, file)
}

#[test]
fn user_suite_runs_its_jobs_and_flags_win_over_the_file() {
    let (dir, file) = config(NIGHTLY);
    let target = tempfile::Builder::new().prefix("iolab-config-").tempdir_in("/dev/shm").unwrap();
    let out = iolab(dir.path())
        .arg("--config")
        .arg(&file)
        .arg("run")
        .arg(target.path())
        .args(["--suite", "our-nightly", "--duration", "200ms", "--runs", "1", "--warmup", "0s"])
        .args(["--interval", "0s", "--size", "16MiB", "--json", "-"])
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    let v = crate::common::json_out(&out);
    assert_eq!(v["settings"]["suite"], "our-nightly");
    assert_eq!(v["settings"]["runs"], 1, "--runs wins over runs = 5");
    assert_eq!(v["settings"]["warmup_s"], 0.0, "--warmup wins over warmup = 1m30s");
    assert_eq!(v["target"]["span_bytes"], 16 << 20, "--size wins over size = 4GiB");
    let jobs: Vec<(String, String, u64, u64, u64)> = v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            assert_eq!(j["runs"].as_array().unwrap().len(), 1);
            (
                j["name"].as_str().unwrap().to_string(),
                j["rw"].as_str().unwrap().to_string(),
                j["bs"].as_u64().unwrap(),
                j["qd"].as_u64().unwrap(),
                j["threads"].as_u64().unwrap(),
            )
        })
        .collect();
    let want = [
        ("read 1M Q8T1", "read", 1 << 20, 8, 1),
        ("randread 4K Q32T4", "randread", 4096, 32, 4),
        ("RND4K Q1T1 write", "randwrite", 4096, 1, 1),
    ];
    let want: Vec<(String, String, u64, u64, u64)> = want.iter().map(|w| (w.0.to_string(), w.1.to_string(), w.2, w.3, w.4)).collect();
    assert_eq!(jobs, want);
    assert!(std::fs::read_dir(target.path()).unwrap().next().is_none(), "test file left behind");
}

#[test]
fn broken_file_is_one_error_with_file_line_and_key() {
    let (dir, file) = config("[defaults]\nruns = 3\nsze = \"1G\"\n");
    let out = iolab(dir.path()).arg("--config").arg(&file).arg("suites").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    let want = format!("iolab: {}:3:1: unknown field `sze` in [defaults], expected one of", file.display());
    assert!(stderr.starts_with(&want), "{stderr}");
    assert!(out.stdout.is_empty());

    // An invalid job, in the default file ($XDG_CONFIG_HOME/iolab/config.toml).
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir(home.path().join("iolab")).unwrap();
    let default = home.path().join("iolab/config.toml");
    std::fs::write(&default, "[suites.x]\njobs = [\n  { rw = \"read\", bs = \"4k\", qd = 0 },\n]\n").unwrap();
    let out = iolab(home.path()).args(["run", ".", "--suite", "x"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let want = format!(
        "{}:3:3: in [suites.x]: job read 4K Q0T1: queue depth must be between 1 and 4096",
        default.display()
    );
    assert!(stderr.contains(&want), "{stderr}");

    // A missing --config is an error; a missing default file is not.
    let out = iolab(dir.path())
        .args(["--config", "/nonexistent/iolab.toml", "suites"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/iolab.toml"));
    let empty = tempfile::tempdir().unwrap();
    let out = iolab(empty.path()).arg("suites").output().unwrap();
    assert!(out.status.success());
}

#[test]
fn suites_lists_user_suites_with_their_source() {
    let (dir, file) = config(NIGHTLY);
    let out = iolab(dir.path()).arg("--config").arg(&file).arg("suites").output().unwrap();
    assert!(out.status.success());
    let s = String::from_utf8_lossy(&out.stdout);
    let line = s.lines().find(|l| l.starts_with("our-nightly ")).unwrap_or_else(|| panic!("{s}"));
    assert!(line.contains("what the lab runs every night"), "{line}");
    assert!(line.ends_with(&format!("({})", file.display())), "{line}");
    assert!(s.lines().any(|l| l.starts_with("default ") && l.ends_with("(built-in)")), "{s}");
    assert!(s.contains("RND4K Q1T1 write"), "{s}");

    // An unknown suite: clap's error, with the built-in and the user suites.
    let out = iolab(dir.path())
        .arg("--config")
        .arg(&file)
        .args(["run", ".", "--suite", "nightly"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    for n in ["'nightly'", "possible values:", "nvme", "our-nightly"] {
        assert!(stderr.contains(n), "{n} in {stderr}");
    }
}

#[test]
fn decimal_sizes_on_the_command_line_get_one_note() {
    let home = tempfile::tempdir().unwrap();
    let out = iolab(home.path())
        .args(["job", "/nonexistent/iolab-target", "--size", "1GB", "--bs", "512kB"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.matches("kb_base=1000").count(), 1, "{stderr}");
    let out = iolab(home.path())
        .args(["job", "/nonexistent/iolab-target", "--size", "1GiB"])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("kb_base"));
}

/// Issue 12: the file's price list fills in compare's prices: by label
/// here (serial and model are the other keys); a price given with
/// `--price` wins over the list.
#[test]
fn price_list_prices_the_comparison() {
    let (dir, file) = config("[prices]\n\"fast disk\" = { price = 100, capacity = \"1TB\" }\n\"slow disk\" = 25\n\"never\" = 1\n");
    let target = tempfile::Builder::new().prefix("iolab-prices-").tempdir_in("/dev/shm").unwrap();
    let db = dir.path().join("r.db");
    for label in ["fast disk", "slow disk"] {
        let out = iolab(dir.path())
            .args(["job"])
            .arg(target.path())
            .args([
                "--rw",
                "read",
                "--bs",
                "128k",
                "--duration",
                "200ms",
                "--runs",
                "2",
                "--warmup",
                "0s",
            ])
            .args(["--interval", "0s", "--size", "8MiB", "--label", label, "--db"])
            .arg(&db)
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let compare = |extra: &[&str]| {
        let out = iolab(dir.path())
            .args(["compare", "1", "2", "--format", "json", "--config"])
            .arg(&file)
            .arg("--db")
            .arg(&db)
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        (crate::common::json_out(&out), String::from_utf8_lossy(&out.stderr).to_string())
    };
    let (v, err) = compare(&[]);
    assert_eq!(v["runs"][0]["price"], 100.0);
    assert_eq!(v["runs"][0]["capacity_bytes"], 1_000_000_000_000u64);
    assert_eq!(v["runs"][0]["price_per_gb"], 0.1);
    assert_eq!(v["runs"][1]["price"], 25.0);
    assert!(
        err.contains("run 1: price 100 from \"fast disk\" in ") && err.contains("lab.toml"),
        "{err}"
    );
    let (v, _) = compare(&["--price", "2=30"]);
    assert_eq!(v["runs"][1]["price"], 30.0, "a stored price wins over the list");
}

/// Issue 36: a misspelled top-level table after a suite was reported "in
/// [suites.ny]", the table before it.
#[test]
fn a_misspelled_table_is_named_at_the_top_level() {
    let (dir, file) = config("[suites.ny]\njobs = [{ rw = \"read\", bs = \"4k\" }]\n\n[price]\nx = 1\n");
    let out = iolab(dir.path()).arg("--config").arg(&file).arg("suites").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    let want = format!("iolab: {}:4:2: unknown field `price` at the top level, expected", file.display());
    assert!(stderr.starts_with(&want), "{stderr}");
    assert!(stderr.contains("prices") && !stderr.contains("suites.ny"), "{stderr}");
}
