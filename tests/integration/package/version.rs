//! `iolab -V` is the version alone; `iolab --version` adds the commit it
//! was built from, its engines and its build (`src/cli/version.rs`,
//! `build.rs`).

use crate::common::iolab;

fn stdout_of(arg: &str) -> String {
    let out = iolab().arg(arg).output().unwrap();
    assert!(out.status.success(), "iolab {arg}: {}", String::from_utf8_lossy(&out.stderr));
    assert!(
        out.stderr.is_empty(),
        "iolab {arg} wrote to stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn short_version_is_one_line() {
    assert_eq!(stdout_of("-V"), format!("iolab {}\n", env!("CARGO_PKG_VERSION")));
}

#[test]
fn long_version_names_the_commit_engines_and_build() {
    let text = stdout_of("--version");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert_eq!(lines[0], format!("iolab {}", env!("CARGO_PKG_VERSION")));
    // The tests build iolab in its git checkout: the commit is HEAD's.
    let head = std::process::Command::new("git")
        .args(["-C", env!("CARGO_MANIFEST_DIR"), "rev-parse", "HEAD"])
        .output()
        .unwrap();
    assert!(head.status.success(), "git rev-parse HEAD failed in the checkout");
    let head = String::from_utf8_lossy(&head.stdout).trim().to_string();
    let commit = lines[1]
        .strip_prefix("commit:  ")
        .unwrap_or_else(|| panic!("no commit line: {text}"));
    assert_eq!(commit.trim_end_matches("-dirty"), &head[..12], "{text}");
    let engines = lines[2]
        .strip_prefix("engines: ")
        .unwrap_or_else(|| panic!("no engines line: {text}"));
    for e in ["io_uring", "psync", "fio"] {
        assert!(engines.contains(e), "{e} missing: {text}");
    }
    let build = lines[3]
        .strip_prefix("build:   ")
        .unwrap_or_else(|| panic!("no build line: {text}"));
    assert!(build.starts_with("x86_64-") || build.starts_with(std::env::consts::ARCH), "{text}");
    assert!(build.contains("linked"), "{text}");
}
