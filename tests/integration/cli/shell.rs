//! The command line in its ecosystem: the completion scripts of `iolab
//! completions` load in their shells (bash; zsh and fish when installed)
//! and the pages of `iolab man` render without a warning, one per command.
//! Tests that need zsh, fish or man skip without them, except under
//! `CI=true`, where they fail instead (scripts/test installs them).

use crate::common::iolab;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output};

fn ok(out: &Output, what: &str) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{what} failed ({}): {stderr}", out.status);
    String::from_utf8(out.stdout.clone()).unwrap_or_else(|e| panic!("{what}: output is not UTF-8: {e}"))
}

fn completion(shell: &str) -> String {
    ok(
        &iolab().args(["completions", shell]).output().unwrap(),
        &format!("iolab completions {shell}"),
    )
}

/// The commands `iolab --help` lists under its groups (Measure:, Results:,
/// ...: the lines between the usage and the options), without clap's `help`.
pub(crate) fn listed_commands() -> BTreeSet<String> {
    let help = ok(&iolab().arg("--help").output().unwrap(), "iolab --help");
    let list = help
        .split("\nOptions:\n")
        .next()
        .and_then(|h| h.split_once("Usage:"))
        .filter(|(_, l)| l.contains("\n  run "))
        .unwrap_or_else(|| panic!("no command list in: {help}"))
        .1;
    list.lines()
        // A command's line starts at column 2; its wrapped description further right.
        .filter(|l| l.starts_with("  ") && !l[2..].starts_with(' '))
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .filter(|c| c != "help")
        .collect()
}

#[test]
fn bash_loads_the_completion() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("iolab.bash");
    std::fs::write(&script, completion("bash")).unwrap();
    let out = Command::new("bash")
        .args(["--norc", "--noprofile", "-c"])
        .arg(format!("source '{}' && complete -p iolab", script.display()))
        .output()
        .unwrap();
    let printed = ok(&out, "bash");
    assert!(
        printed.starts_with("complete ") && printed.trim_end().ends_with(" iolab"),
        "bash has no completion for iolab: {printed}"
    );
}

#[test]
fn zsh_compinit_finds_the_completion() {
    need_tool!("zsh");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("_iolab"), completion("zsh")).unwrap();
    let script = format!(
        "fpath=('{}' $fpath); autoload -U compinit; compinit -u -D; print -r -- $_comps[iolab]",
        dir.path().display()
    );
    // ZDOTDIR and HOME in the temporary directory: no user's files read or written.
    let out = Command::new("zsh")
        .args(["-fc", &script])
        .env("ZDOTDIR", dir.path())
        .env("HOME", dir.path())
        .output()
        .unwrap();
    assert_eq!(ok(&out, "zsh").trim(), "_iolab");
}

#[test]
fn other_shells_get_a_script() {
    for (shell, needle) in [("fish", "complete -c iolab"), ("elvish", "iolab"), ("powershell", "iolab")] {
        let script = completion(shell);
        assert!(script.contains(needle), "{shell}: no '{needle}' in the script:\n{script}");
    }
}

#[test]
fn fish_loads_the_completion() {
    need_tool!("fish");
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("iolab.fish");
    std::fs::write(&script, completion("fish")).unwrap();
    // The suites' help has quotes and apostrophes: a script that escapes
    // them wrongly fails to load, or completes nothing here.
    let out = Command::new("fish")
        .args(["--no-config", "-c"])
        .arg(format!("source '{}'; and complete -C 'iolab run --suite r'", script.display()))
        .env("HOME", dir.path())
        .env("XDG_CONFIG_HOME", dir.path())
        .env("XDG_DATA_HOME", dir.path())
        .output()
        .unwrap();
    let printed = ok(&out, "fish");
    assert!(out.stderr.is_empty(), "fish: {}", String::from_utf8_lossy(&out.stderr));
    let values: Vec<&str> = printed.lines().filter_map(|l| l.split('\t').next()).collect();
    assert_eq!(values, ["random512k", "real"], "fish completes: {printed}");
}

#[test]
fn unknown_shell_is_a_usage_error() {
    let out = iolab().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}

#[test]
fn help_states_the_exit_statuses() {
    let help = ok(&iolab().arg("--help").output().unwrap(), "iolab --help");
    let section = help
        .split("Exit status:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no exit statuses in: {help}"));
    for code in ["0", "1", "2", "128+N"] {
        assert!(
            section.lines().any(|l| l.split_whitespace().next() == Some(code)),
            "exit status {code} missing: {section}"
        );
    }
}

/// `man -l PAGE` at 80 columns: exits 0, prints the page, and warns about nothing.
fn man_renders(page: &Path) -> String {
    let out = Command::new("man")
        .arg("-l")
        .arg(page)
        .env("MANWIDTH", "80")
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .output()
        .unwrap();
    let text = ok(&out, &format!("man -l {}", page.display()));
    assert!(
        out.stderr.is_empty(),
        "man warns about {}: {}",
        page.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!text.trim().is_empty(), "{} renders empty", page.display());
    text
}

#[test]
fn man_pages_cover_every_command_and_render_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let mandir = dir.path().join("man1");
    let out = iolab().args(["man", "--dir"]).arg(&mandir).output().unwrap();
    ok(&out, "iolab man --dir");
    assert!(out.stdout.is_empty(), "iolab man --dir prints the paths on stderr only");

    let written: BTreeSet<String> = String::from_utf8_lossy(&out.stderr).lines().map(str::to_string).collect();
    let files: BTreeSet<String> = std::fs::read_dir(&mandir)
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .collect();
    assert_eq!(written, files, "stderr lists exactly the files written");

    let pages: BTreeSet<String> = std::fs::read_dir(&mandir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let mut want: BTreeSet<String> = listed_commands().iter().map(|c| format!("iolab-{c}.1")).collect();
    assert!(want.contains("iolab-run.1") && want.contains("iolab-man.1"), "{want:?}");
    want.insert("iolab.1".into());
    assert_eq!(pages, want, "one page per command");

    let top = ok(&iolab().arg("man").output().unwrap(), "iolab man");
    assert_eq!(
        top,
        std::fs::read_to_string(mandir.join("iolab.1")).unwrap(),
        "iolab man prints iolab.1"
    );

    need_tool!("man");
    for page in &pages {
        let text = man_renders(&mandir.join(page));
        if page == "iolab.1" {
            for needle in ["EXIT STATUS", "128+N", "iolab-run(1)"] {
                assert!(text.contains(needle), "iolab.1 has no '{needle}':\n{text}");
            }
        }
    }
}
