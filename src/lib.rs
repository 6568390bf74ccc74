//! iolab: a storage test lab in one binary.
//!
//! Each folder of `src/` is a stage, and a stage's code imports only the
//! stages below it. Bottom first: base, samples, io, plan, verify, judge,
//! device, targets, measure, summary, store, compare, import, selftest,
//! schema, config, render, experiment, deliver, cli (a unit test holds the
//! code to this order).
pub mod base;
pub mod cli;
pub mod compare;
pub mod config;
pub mod deliver;
pub mod device;
pub mod experiment;
pub mod import;
pub mod io;
pub mod judge;
pub mod measure;
pub mod plan;
pub mod render;
pub mod samples;
pub mod schema;
pub mod selftest;
pub mod store;
pub mod summary;
pub mod targets;
pub mod verify;

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    /// The stages, bottom first: the code of each (its tests aside) names
    /// `crate::STAGE` only for the stages before it.
    const STAGES: [&str; 20] = [
        "base",
        "samples",
        "io",
        "plan",
        "verify",
        "judge",
        "device",
        "targets",
        "measure",
        "summary",
        "store",
        "compare",
        "import",
        "selftest",
        "schema",
        "config",
        "render",
        "experiment",
        "deliver",
        "cli",
    ];

    /// Every `.rs` file under `dir` that is not a test by the unit-test
    /// convention (`tests.rs`, `NAME_tests.rs`, anything under `tests/`).
    fn code_files(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("src/ is readable") {
            let path = entry.expect("a directory entry").path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
            if path.is_dir() {
                if name != "tests" {
                    code_files(&path, out);
                }
            } else if name.ends_with(".rs") && name != "tests.rs" && !name.ends_with("_tests.rs") {
                out.push(path);
            }
        }
    }

    /// The code of a file without comments and without the items under
    /// `#[cfg(test)]` (its `tests` module, test-only helpers), each line
    /// with its index in `text`.
    fn code(text: &str) -> Vec<(usize, String)> {
        let lines: Vec<&str> = text.lines().collect();
        let mut out = Vec::new();
        let mut i = 0;
        while i < lines.len() {
            let line = lines[i].trim_start();
            if line.starts_with("#[cfg(test)]") {
                let mut j = i + 1;
                while j < lines.len() && lines[j].trim_start().starts_with("#[") {
                    j += 1;
                }
                if j < lines.len() && lines[j].trim_end().ends_with(';') {
                    i = j + 1;
                    continue;
                }
                let (mut depth, mut opened) = (0i64, false);
                while j < lines.len() {
                    depth += lines[j].matches('{').count() as i64 - lines[j].matches('}').count() as i64;
                    opened |= lines[j].contains('{');
                    j += 1;
                    if opened && depth <= 0 {
                        break;
                    }
                }
                i = j;
                continue;
            }
            if !line.starts_with("//") {
                out.push((i, line.split("//").next().unwrap_or_default().to_string()));
            }
            i += 1;
        }
        out
    }

    /// The layering: no import runs back up the stages, and every folder
    /// of `src/` is a stage.
    #[test]
    fn every_stage_imports_only_the_stages_below_it() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let rank = |name: &str| STAGES.iter().position(|s| *s == name);
        let mut wrong = Vec::new();
        for entry in std::fs::read_dir(&src).expect("src/ is readable") {
            let dir = entry.expect("a directory entry").path();
            if !dir.is_dir() {
                continue;
            }
            let stage = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
            let Some(at) = rank(&stage) else {
                wrong.push(format!("src/{stage}/ is in no stage: give it its place in STAGES"));
                continue;
            };
            let mut files = Vec::new();
            code_files(&dir, &mut files);
            for file in files {
                let text = std::fs::read_to_string(&file).expect("a source file is readable");
                for (_, line) in code(&text) {
                    let mut above: Vec<String> = line
                        .match_indices("crate::")
                        .map(|(k, _)| line[k + 7..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect())
                        .filter(|name: &String| rank(name).is_some_and(|other| other > at))
                        .collect();
                    above.dedup();
                    for name in above {
                        let file = file.strip_prefix(&src).unwrap_or(&file).display();
                        wrong.push(format!("{file}: `{}` imports {name}, a stage above {stage}", line.trim()));
                    }
                }
            }
        }
        assert!(wrong.is_empty(), "imports against the stages' order:\n{}", wrong.join("\n"));
    }

    /// Where `unsafe` may be: in io/ (the engines, the buffers and
    /// `io::sys`, the one home of system calls without a safe form), in the
    /// target's open and reopen, and for the signal handler's registration
    /// (base/ is below io/). Everywhere else a system call goes through
    /// `io::sys` or rustix.
    const UNSAFE_MAY_BE: [&str; 5] = ["io/", "targets/mod.rs", "targets/testfile.rs", "targets/zfs.rs", "base/signals.rs"];

    /// `unsafe` only where [`UNSAFE_MAY_BE`] says, and each block with a
    /// `// SAFETY:` note on it or in the few lines above it.
    #[test]
    fn unsafe_code_lives_in_io_and_the_targets_open_with_its_safety_notes() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        code_files(&src, &mut files);
        let mut wrong = Vec::new();
        for file in files {
            let name = file.strip_prefix(&src).unwrap_or(&file).display().to_string();
            let text = std::fs::read_to_string(&file).expect("a source file is readable");
            let raw: Vec<&str> = text.lines().collect();
            for (i, line) in code(&text) {
                if !line.contains("unsafe {") && !line.contains("unsafe fn") && !line.contains("unsafe impl") {
                    continue;
                }
                if !UNSAFE_MAY_BE.iter().any(|p| name.starts_with(p)) {
                    wrong.push(format!(
                        "{name}:{}: `unsafe` outside io/ and the target's open: `{}`",
                        i + 1,
                        line.trim()
                    ));
                } else if line.contains("unsafe {") && !raw[i.saturating_sub(8)..=i].iter().any(|l| l.contains("SAFETY")) {
                    wrong.push(format!(
                        "{name}:{}: an `unsafe` block without a `// SAFETY:` note: `{}`",
                        i + 1,
                        line.trim()
                    ));
                }
            }
        }
        assert!(wrong.is_empty(), "unsafe code out of place:\n{}", wrong.join("\n"));
    }

    /// The crate's documentation names the stages in their order.
    #[test]
    fn the_crate_documentation_names_the_stages_in_order() {
        let doc: Vec<&str> = include_str!("lib.rs")
            .lines()
            .filter_map(|l| l.strip_prefix("//!"))
            .flat_map(str::split_whitespace)
            .collect();
        assert!(
            doc.join(" ").contains(&format!("Bottom first: {} (", STAGES.join(", "))),
            "lib.rs's documentation lists the stages of STAGES, bottom first"
        );
    }
}
