//! The .deb as a user meets it: `scripts/package-deb` packages the binary
//! these tests run (the debug build, stripped: a release build takes
//! minutes), `dpkg -i` installs it into /usr, and then: `man -w iolab-scan`
//! finds its page, bash with Debian's bash-completion loads the installed
//! completion on demand and completes `iolab sc<TAB>`, zsh's compinit and
//! fish find theirs in the vendor directories, `iolab --version` runs; `dpkg
//! -r` leaves none of its files behind, and `dpkg --purge` forgets it.
//!
//! Needs root, dpkg and cargo-deb (skips without, except under `CI=true`). It refuses
//! to run where a package or a file of its own already holds
//! /usr/bin/iolab, and a guard purges what it installed, whatever happens.

use crate::cli::shell::listed_commands;
use crate::common::binary_for_scripts;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn run(cmd: &mut Command, what: &str) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    check(&out, what)
}

fn check(out: &Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// dpkg's status of `iolab`: `None` when dpkg has never heard of it, else
/// its status field (`install ok installed`, `deinstall ok config-files`, ...).
fn dpkg_status() -> Option<String> {
    let out = Command::new("dpkg-query")
        .args(["-W", "-f", "${Status}", "iolab"])
        .output()
        .unwrap();
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .filter(|s| !s.ends_with("not-installed"))
}

/// Purges the package when dropped: nothing of the test stays in /usr.
struct Installed;

impl Drop for Installed {
    fn drop(&mut self) {
        if dpkg_status().is_some() {
            let out = Command::new("dpkg").args(["--purge", "iolab"]).output();
            if !matches!(&out, Ok(o) if o.status.success()) {
                eprintln!("warning: dpkg --purge iolab failed: {out:?}; remove it by hand");
            }
        }
    }
}

#[test]
fn the_deb_installs_works_and_leaves_nothing_behind() {
    need_root!();
    need_tool!("dpkg");
    need_tool!("man");
    need_tool!("zsh");
    need_tool!("fish");
    if !Path::new("/usr/share/bash-completion/bash_completion").exists() {
        crate::common::skip::record(crate::common::skip::Kind::Tool, "bash-completion (the package) is not installed");
        return;
    }
    // scripts/test installs cargo-deb (`scripts/package-deb --tool-only`); a
    // test does not spend minutes compiling it.
    let cargo_deb = Command::new("cargo").args(["deb", "--version"]).output();
    if !cargo_deb.is_ok_and(|o| o.status.success()) {
        crate::common::skip::record(
            crate::common::skip::Kind::Tool,
            "cargo-deb is not installed (scripts/package-deb --tool-only)",
        );
        return;
    }
    // Nothing of someone else's may be replaced or removed.
    assert_eq!(
        dpkg_status(),
        None,
        "a package iolab is known to dpkg here: this test would replace it; remove it first"
    );
    assert!(
        !Path::new("/usr/bin/iolab").exists(),
        "/usr/bin/iolab exists and belongs to no package: this test would overwrite it"
    );
    let t0 = Instant::now();

    // The binary under test, packaged as the release is (stripped, fast compression).
    let out_dir = tempfile::tempdir().unwrap();
    assert_eq!(Path::new(binary_for_scripts()), Path::new(ROOT).join("target/debug/iolab"));
    let deb = run(
        Command::new(Path::new(ROOT).join("scripts/package-deb"))
            .args(["--profile", "dev", "--no-build", "--fast", "--output"])
            .arg(out_dir.path()),
        "scripts/package-deb",
    );
    let deb = PathBuf::from(deb.trim());
    assert!(deb.is_file() && deb.starts_with(out_dir.path()), "no .deb at {}", deb.display());
    let built = t0.elapsed();

    let _guard = Installed;
    run(Command::new("dpkg").arg("-i").arg(&deb), "dpkg -i");
    assert_eq!(dpkg_status().as_deref(), Some("install ok installed"));
    let files: Vec<PathBuf> = run(Command::new("dpkg").args(["-L", "iolab"]), "dpkg -L iolab")
        .lines()
        .map(PathBuf::from)
        .collect();
    let expect = [
        "/usr/bin/iolab",
        "/usr/share/man/man1/iolab.1.gz",
        "/usr/share/man/man1/iolab-scan.1.gz",
        "/usr/share/bash-completion/completions/iolab",
        "/usr/share/zsh/vendor-completions/_iolab",
        "/usr/share/fish/vendor_completions.d/iolab.fish",
        "/usr/share/doc/iolab/README.md",
        "/usr/share/doc/iolab/CHANGELOG.md",
        "/usr/share/doc/iolab/copyright",
    ];
    for f in expect {
        assert!(files.contains(&PathBuf::from(f)), "{f} is not in the package: {files:?}");
    }
    // A man page for every command.
    for c in listed_commands() {
        let page = PathBuf::from(format!("/usr/share/man/man1/iolab-{c}.1.gz"));
        assert!(files.contains(&page), "no man page for {c}");
    }
    let copyright = std::fs::read_to_string("/usr/share/doc/iolab/copyright").unwrap();
    assert!(
        copyright.starts_with("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"),
        "{copyright}"
    );

    // man finds the page by its name, as `man iolab-scan` would.
    let page = run(Command::new("man").args(["-w", "iolab-scan"]), "man -w iolab-scan");
    assert_eq!(page.trim(), "/usr/share/man/man1/iolab-scan.1.gz");

    // bash: bash-completion loads the installed file on demand (as at a
    // first TAB), then its function completes `iolab sc`.
    let home = tempfile::tempdir().unwrap();
    let script = r#"
        source /usr/share/bash-completion/bash_completion
        _completion_loader iolab
        spec=$(complete -p iolab) || exit 3
        fn=$(sed -n 's/.*-F \([^ ]*\) .*/\1/p' <<<"$spec")
        [ -n "$fn" ] || exit 4
        COMP_WORDS=(iolab sc); COMP_CWORD=1; COMP_LINE='iolab sc'; COMP_POINT=${#COMP_LINE}
        "$fn" iolab sc iolab
        printf '%s\n' "${COMPREPLY[@]}"
    "#;
    let got = run(
        Command::new("bash")
            .args(["--norc", "--noprofile", "-c", script])
            .env("HOME", home.path()),
        "bash completion",
    );
    let got: BTreeSet<&str> = got.split_whitespace().collect();
    let want: Vec<String> = listed_commands().into_iter().filter(|c| c.starts_with("sc")).collect();
    assert!(want.contains(&"scan".to_string()), "{want:?}");
    assert_eq!(
        got,
        want.iter().map(String::as_str).collect::<BTreeSet<_>>(),
        "bash completes `iolab sc`"
    );

    // zsh: compinit, with zsh's default fpath, finds _iolab.
    let zsh = run(
        Command::new("zsh")
            .args(["-fc", "autoload -U compinit; compinit -u -D; print -r -- $_comps[iolab]"])
            .env("HOME", home.path())
            .env("ZDOTDIR", home.path()),
        "zsh compinit",
    );
    assert_eq!(zsh.trim(), "_iolab");

    // fish: its vendor directory is in the default completion path (the
    // user's own directories here are an empty temporary one).
    let fish = run(
        Command::new("fish")
            .args(["-c", "complete -C 'iolab sc'"])
            .env("HOME", home.path())
            .env("XDG_CONFIG_HOME", home.path().join("config"))
            .env("XDG_DATA_HOME", home.path().join("data")),
        "fish complete",
    );
    let fish: BTreeSet<&str> = fish.lines().filter_map(|l| l.split('\t').next()).collect();
    assert_eq!(
        fish,
        want.iter().map(String::as_str).collect::<BTreeSet<_>>(),
        "fish completes `iolab sc`"
    );

    // The installed binary runs.
    let version = run(Command::new("/usr/bin/iolab").arg("--version"), "/usr/bin/iolab --version");
    assert!(
        version.starts_with(&format!("iolab {}\ncommit: ", env!("CARGO_PKG_VERSION"))),
        "{version}"
    );

    // Removed: none of its files stays; purged: dpkg forgets it.
    run(Command::new("dpkg").args(["-r", "iolab"]), "dpkg -r iolab");
    let left: Vec<&PathBuf> = files.iter().filter(|f| f.exists() && !f.is_dir()).collect();
    assert!(left.is_empty(), "left behind by dpkg -r: {left:?}");
    // Its one directory of its own (the others, /usr/bin and the like, are shared).
    assert!(
        !Path::new("/usr/share/doc/iolab").exists(),
        "/usr/share/doc/iolab stays after dpkg -r"
    );
    run(Command::new("dpkg").args(["--purge", "iolab"]), "dpkg --purge iolab");
    assert_eq!(dpkg_status(), None, "dpkg still knows iolab after --purge");
    assert!(!Path::new("/usr/bin/iolab").exists());
    eprintln!(
        "package::deb: built in {:.1} s, installed, checked and removed in {:.1} s",
        built.as_secs_f64(),
        (t0.elapsed() - built).as_secs_f64()
    );
}

/// Issue 39: a bare `cargo deb` (without `scripts/package-deb`, which makes
/// the man pages, completions and copyright first) fails on the first of
/// those assets, and its error names the script that makes them: the
/// assets' folder is called after it. Run, with `--no-build`, in a copy of
/// the crate whose target folder holds the binary and nothing else, as a
/// fresh clone's does after `cargo build --release`.
#[test]
fn issue_39_a_bare_cargo_deb_names_the_script_that_makes_its_assets() {
    if !Command::new("cargo")
        .args(["deb", "--version"])
        .output()
        .is_ok_and(|o| o.status.success())
    {
        crate::common::skip::record(
            crate::common::skip::Kind::Tool,
            "cargo-deb is not installed (scripts/package-deb --tool-only)",
        );
        return;
    }
    let copy = tempfile::tempdir().unwrap();
    let root = Path::new(ROOT);
    for f in [
        "Cargo.toml",
        "Cargo.lock",
        "build.rs",
        "README.md",
        "CHANGELOG.md",
        "LICENSE-MIT",
        "LICENSE-APACHE",
    ] {
        std::fs::copy(root.join(f), copy.path().join(f)).unwrap_or_else(|e| panic!("copying {f}: {e}"));
    }
    std::os::unix::fs::symlink(root.join("src"), copy.path().join("src")).unwrap();
    let release = copy.path().join("target/release");
    std::fs::create_dir_all(&release).unwrap();
    std::os::unix::fs::symlink(binary_for_scripts(), release.join("iolab")).unwrap();

    let out = Command::new("cargo")
        .args(["deb", "--no-build", "--manifest-path"])
        .arg(copy.path().join("Cargo.toml"))
        .env_remove("CARGO_TARGET_DIR")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "cargo deb packaged without the generated assets:\n{err}");
    let missing = copy.path().join("target/assets-made-by-scripts-package-deb/man/*.1.gz");
    assert!(
        err.contains(&missing.display().to_string()),
        "cargo-deb's error does not name {}:\n{err}",
        missing.display()
    );
}
