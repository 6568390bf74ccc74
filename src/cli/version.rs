//! `iolab --version`: `-V` prints the version alone (`iolab 0.2.0`);
//! `--version` adds the commit the binary was built from (from git at build
//! time, or the packaged crate's `.cargo_vcs_info.json`: see `build.rs`),
//! the engines this build drives, and how it was built (target, static or
//! dynamic, profile).

use crate::io::engine::EngineKind;
use std::sync::OnceLock;

/// The commit, as `build.rs` found it: 12 hex digits, `-dirty` when the tree
/// had changes; `None` when the build knew none.
pub const COMMIT: Option<&str> = option_env!("IOLAB_COMMIT");

/// Where [`COMMIT`] came from: `git`, `crate` or `IOLAB_BUILD_COMMIT`.
pub const COMMIT_FROM: Option<&str> = option_env!("IOLAB_COMMIT_FROM");

/// Whether the C library is linked in (`-C target-feature=+crt-static`).
pub const STATIC: bool = cfg!(target_feature = "crt-static");

/// The text after `iolab ` for `--version`, built once.
pub fn long() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(long_text)
}

fn long_text() -> String {
    let commit = match (COMMIT, COMMIT_FROM) {
        (Some(c), Some("crate")) => format!("{c} (from the packaged crate)"),
        (Some(c), Some("IOLAB_BUILD_COMMIT")) => format!("{c} (given by IOLAB_BUILD_COMMIT)"),
        (Some(c), _) => c.to_string(),
        (None, _) => "unknown (built without git or a packaged crate's VCS information)".to_string(),
    };
    let engines: Vec<String> = EngineKind::ALL
        .iter()
        .enumerate()
        .map(|(i, k)| {
            if i == 0 {
                format!("{} (the default)", k.as_str())
            } else {
                k.as_str().to_string()
            }
        })
        .collect();
    let target = option_env!("IOLAB_TARGET").unwrap_or(std::env::consts::ARCH);
    let linked = if STATIC { "statically linked" } else { "dynamically linked" };
    let profile = if cfg!(debug_assertions) { "debug" } else { "release" };
    format!(
        "{}\ncommit:  {commit}\nengines: {}; fio with --engine fio, when fio is installed\nbuild:   {target}, {linked}, {profile}",
        env!("CARGO_PKG_VERSION"),
        engines.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_long_version_names_the_version_commit_engines_and_build() {
        let text = long();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], env!("CARGO_PKG_VERSION"));
        assert!(lines[1].starts_with("commit:  "), "{text}");
        for k in EngineKind::ALL {
            assert!(lines[2].contains(k.as_str()), "engine {} missing: {text}", k.as_str());
        }
        assert!(lines[3].starts_with("build:   "), "{text}");
        assert_eq!(lines.len(), 4, "{text}");
    }

    /// Built in a git checkout (as the tests are), the commit is the one git
    /// names for HEAD; built without one, none is claimed but the packaged
    /// crate's or the builder's.
    #[test]
    fn the_commit_is_the_checkouts() {
        let dir = env!("CARGO_MANIFEST_DIR");
        let head = std::process::Command::new("git")
            .args(["-C", dir, "rev-parse", "HEAD"])
            .output()
            .ok()
            .filter(|o| o.status.success() && std::path::Path::new(dir).join(".git").exists())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
        match head {
            Some(head) if COMMIT_FROM == Some("git") => {
                let commit = COMMIT.expect("a commit with its source");
                assert_eq!(commit.trim_end_matches("-dirty"), &head[..12], "{commit} against HEAD {head}");
            }
            Some(head) => panic!("built in a git checkout at {head}, yet the commit is {COMMIT:?} from {COMMIT_FROM:?}"),
            None => assert_ne!(COMMIT_FROM, Some("git"), "no git checkout, yet a commit from git: {COMMIT:?}"),
        }
    }
}
