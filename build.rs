//! The commit iolab is built from, for `iolab --version`: set as
//! `IOLAB_COMMIT` (12 hex digits, `-dirty` when the tree had changes) and
//! `IOLAB_COMMIT_FROM` (`git` or `crate`), or left unset when unknown.
//!
//! - From a packaged crate (`cargo install iolab`, or `cargo package`'s
//!   check): the `.cargo_vcs_info.json` cargo wrote into it. It comes first,
//!   because an unpacked crate may sit inside someone else's git checkout.
//! - From a git checkout: `git rev-parse HEAD`, only when the checkout's top
//!   is this crate's directory, and `git status` for the changes. The build
//!   script runs again when HEAD, the branch it names, the packed refs or the
//!   index change, and when a file under src/ changes (it may make the tree
//!   dirty, or clean again).
//! - Neither (a tarball, no git): no commit; `--version` says so.
//!   `IOLAB_BUILD_COMMIT` in the build's environment names it then.
//!
//! Also `IOLAB_TARGET`, the target triple built for.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=IOLAB_BUILD_COMMIT");
    if let Ok(target) = std::env::var("TARGET") {
        println!("cargo:rustc-env=IOLAB_TARGET={target}");
    }
    let found = from_crate(&dir).or_else(|| from_git(&dir)).or_else(override_commit);
    if let Some((commit, from)) = found {
        println!("cargo:rustc-env=IOLAB_COMMIT={commit}");
        println!("cargo:rustc-env=IOLAB_COMMIT_FROM={from}");
    }
}

/// `IOLAB_BUILD_COMMIT`: for builders that know the commit and have no
/// `.git` (a distribution's source tarball).
fn override_commit() -> Option<(String, &'static str)> {
    let c = std::env::var("IOLAB_BUILD_COMMIT").ok()?;
    let c = c.trim();
    let ok = !c.is_empty() && c.len() <= 64 && c.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '-');
    ok.then(|| (c.to_string(), "IOLAB_BUILD_COMMIT"))
}

/// The packaged crate's `.cargo_vcs_info.json`:
/// `{"git": {"sha1": "<40 hex>", "dirty": true}, "path_in_vcs": ""}`.
fn from_crate(dir: &Path) -> Option<(String, &'static str)> {
    let path = dir.join(".cargo_vcs_info.json");
    let text = std::fs::read_to_string(&path).ok()?;
    println!("cargo:rerun-if-changed={}", path.display());
    // A small, fixed document: read its two fields without a JSON parser
    // (a build dependency would be compiled into every build).
    let after = |key: &str| {
        text.split_once(&format!("\"{key}\""))
            .map(|(_, rest)| rest.trim_start().trim_start_matches(':').trim_start())
    };
    let sha: String = after("sha1")?
        .trim_start_matches('"')
        .chars()
        .take_while(char::is_ascii_hexdigit)
        .collect();
    if sha.len() < 12 {
        return None;
    }
    let dirty = after("dirty").is_some_and(|v| v.starts_with("true"));
    Some((format!("{}{}", &sha[..12], if dirty { "-dirty" } else { "" }), "crate"))
}

/// `git` in `dir`, its output trimmed when it succeeds.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        // `git status` must not rewrite the index: that would change a file
        // this script watches, and run it again on every build.
        .env("GIT_OPTIONAL_LOCKS", "0")
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn from_git(dir: &Path) -> Option<(String, &'static str)> {
    let top = git(dir, &["rev-parse", "--show-toplevel"])?;
    let same = |a: &Path, b: &Path| a.canonicalize().ok().zip(b.canonicalize().ok()).is_some_and(|(a, b)| a == b);
    if !same(Path::new(&top), dir) {
        return None;
    }
    // What to watch: HEAD of this worktree, the branch it names and the
    // packed refs (in the common directory, shared by worktrees), the index.
    let abs = |p: String| {
        let p = PathBuf::from(p);
        if p.is_absolute() { p } else { dir.join(p) }
    };
    let git_dir = abs(git(dir, &["rev-parse", "--git-dir"])?);
    let common = git(dir, &["rev-parse", "--git-common-dir"])
        .map(abs)
        .unwrap_or_else(|| git_dir.clone());
    let mut watch = vec![git_dir.join("HEAD"), git_dir.join("index"), common.join("packed-refs")];
    if let Some(r) = git(dir, &["symbolic-ref", "-q", "HEAD"]) {
        watch.push(common.join(r));
    }
    // A path that does not exist would run this script on every build.
    for p in watch.iter().filter(|p| p.exists()) {
        println!("cargo:rerun-if-changed={}", p.display());
    }
    println!("cargo:rerun-if-changed=src");
    let sha = git(dir, &["rev-parse", "HEAD"])?;
    if sha.len() < 12 || !sha.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let dirty = git(dir, &["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    Some((format!("{}{}", &sha[..12], if dirty { "-dirty" } else { "" }), "git"))
}
