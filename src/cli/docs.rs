//! Documentation generated from the clap definitions in [`super::args`]:
//! shell completion scripts (`iolab completions`, clap_complete) and manual
//! pages (`iolab man`, clap_mangen), plus the exit statuses that `--help`
//! and the top manual page both state.

use super::args::command;
use crate::error::{Result, failed};
use clap::Command;
use clap::builder::{PossibleValue, PossibleValuesParser};
use clap_complete::Shell;
use clap_mangen::Man;
use std::io::Write;
use std::path::Path;

/// iolab's exit statuses (see [`crate::error::Error::exit_code`]): the one
/// table behind `--help`'s "Exit status" and the man page's EXIT STATUS.
pub const EXIT_STATUSES: &[(&str, &str)] = &[
    ("0", "Success."),
    ("1", "Failure: something failed while measuring or storing the result."),
    ("2", "Usage: bad arguments or input (a missing target), a refused write."),
    (
        "3",
        "The device failed a check: verify found data that did not read back as written, capacity found a fake size (the result is kept).",
    ),
    (
        "4",
        "The result was printed (and its JSON written where asked) but not saved in the results store (a full or read-only disk); the message names the store.",
    ),
    (
        "70",
        "Internal error: a bug in iolab (a panic), said in one line; please report it.",
    ),
    ("128+N", "Interrupted by signal N (130: SIGINT); what finished is kept."),
];

/// Where a new user starts: the first commands worth typing.
pub const EXAMPLES: &[(&str, &str)] = &[
    (
        "iolab run .",
        "the CrystalDiskMark battery on the current directory (a 1 GiB test file, removed afterwards; 8 tests, each until its figure settles: 1 to 3 minutes)",
    ),
    (
        "iolab run /mnt/usb --size 256MiB --runs 1",
        "a quick look: a smaller file, one run per test",
    ),
    (
        "iolab job /dev/nvme0n1 --rw randread --qd 32 --latency off",
        "one fio-style job, read-only on a device, with the least CPU (no latency)",
    ),
    (
        "iolab scan /dev/sdb",
        "a block device's transfer curve, access time and burst rate: read-only, safe while mounted",
    ),
    (
        "iolab compare 1 2",
        "two stored runs side by side, with ratios and noise (`iolab list` shows the ids)",
    ),
];

/// The top command's `after_help`: the examples.
pub fn examples_help() -> String {
    let h = clap::builder::Styles::default().get_header().to_owned();
    let mut s = format!("{h}Examples:{h:#}\n");
    for (cmd, what) in EXAMPLES {
        s.push_str(&format!("  {cmd}\n      {what}\n"));
    }
    s.pop();
    s
}

/// The top command's `after_long_help`: the examples, then the exit
/// statuses, under headings styled as clap styles "Options:".
pub fn exit_status_help() -> String {
    let h = clap::builder::Styles::default().get_header().to_owned();
    let mut s = examples_help() + "\n\n";
    s.push_str(&format!("{h}Exit status:{h:#}\n"));
    for (code, meaning) in EXIT_STATUSES {
        s.push_str(&format!("  {code:<7} {meaning}\n"));
    }
    s.pop();
    s
}

/// `iolab completions SHELL`: the completion script on stdout.
pub fn completions(shell: Shell) -> Result<()> {
    let mut cmd = command();
    if shell == Shell::Fish {
        cmd = fish_safe(cmd);
    }
    let name = cmd.get_name().to_string();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, name, &mut script);
    write_stdout(&script)
}

/// `cmd` with `"` in the help of possible values turned into `'`:
/// clap_complete (4.6.11) puts those helps in a double-quoted fish string
/// without escaping `"`, and fish then refuses the script ("complete: too
/// many arguments"), e.g. at the suite described as "Random 512KB". Only
/// for generating: the values keep their names, not their types.
fn fish_safe(cmd: Command) -> Command {
    let quoted = |a: &clap::Arg| {
        a.get_possible_values()
            .iter()
            .any(|v| v.get_help().is_some_and(|h| h.to_string().contains('"')))
    };
    let ids: Vec<clap::Id> = cmd.get_arguments().filter(|a| quoted(a)).map(|a| a.get_id().clone()).collect();
    let mut cmd = cmd;
    for id in ids {
        cmd = cmd.mut_arg(id, |a| {
            let values: Vec<PossibleValue> = a
                .get_possible_values()
                .into_iter()
                .map(|v| match v.get_help().map(|h| h.to_string().replace('"', "'")) {
                    Some(h) => v.help(h),
                    None => v,
                })
                .collect();
            a.value_parser(PossibleValuesParser::new(values))
        });
    }
    cmd.mut_subcommands(fish_safe)
}

/// `iolab man [--dir DIR]`: every page into DIR (each path on stderr), or
/// the top page on stdout.
pub fn man(dir: Option<&Path>) -> Result<()> {
    let pages = man_pages().map_err(|e| failed(format!("rendering the manual pages: {e}")))?;
    let Some(dir) = dir else {
        return write_stdout(&pages[0].1);
    };
    std::fs::create_dir_all(dir).map_err(|e| failed(format!("cannot create {}: {e}", dir.display())))?;
    for (name, page) in &pages {
        let path = dir.join(name);
        crate::paths::write_output(&path, page).map_err(super::output_err)?;
        eprintln!("{}", path.display());
    }
    Ok(())
}

/// Every manual page as (file name, roff): `iolab.1` first, then
/// `iolab-COMMAND.1` for each command, nested ones too.
pub fn man_pages() -> std::io::Result<Vec<(String, Vec<u8>)>> {
    fn no_help_subcommand(cmd: Command) -> Command {
        cmd.disable_help_subcommand(true).mut_subcommands(no_help_subcommand)
    }
    fn sub_pages(cmd: &Command, pages: &mut Vec<(String, Vec<u8>)>) -> std::io::Result<()> {
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            let man = Man::new(sub.clone());
            let mut page = Vec::new();
            man.render(&mut page)?;
            pages.push((man.get_filename(), page));
            sub_pages(sub, pages)?;
        }
        Ok(())
    }
    let mut cmd = no_help_subcommand(command());
    cmd.build();
    let mut pages = vec![top_page(&cmd)?];
    sub_pages(&cmd, &mut pages)?;
    Ok(pages)
}

/// `iolab.1`: clap_mangen's sections, with EXIT STATUS in place of the
/// `--help` text it would print as EXTRA.
fn top_page(cmd: &Command) -> std::io::Result<(String, Vec<u8>)> {
    let man = Man::new(cmd.clone());
    let mut page = Vec::new();
    man.render_title(&mut page)?;
    man.render_name_section(&mut page)?;
    man.render_synopsis_section(&mut page)?;
    man.render_description_section(&mut page)?;
    man.render_options_section(&mut page)?;
    man.render_subcommands_section(&mut page)?;
    page.extend_from_slice(b".SH \"EXIT STATUS\"\n");
    for (code, meaning) in EXIT_STATUSES {
        page.extend_from_slice(format!(".TP\n\\fB{}\\fR\n{}\n", roff_text(code), roff_text(meaning)).as_bytes());
    }
    man.render_version_section(&mut page)?;
    Ok((man.get_filename(), page))
}

/// `s` as roff text: backslashes and dashes escaped (as clap_mangen does).
fn roff_text(s: &str) -> String {
    s.replace('\\', "\\e").replace('-', "\\-")
}

fn write_stdout(bytes: &[u8]) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|_| out.flush())
        .map_err(|e| failed(format!("writing output: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{failed, usage};

    #[test]
    fn exit_statuses_are_those_of_the_error_type() {
        let codes: Vec<&str> = EXIT_STATUSES.iter().map(|(c, _)| *c).collect();
        for code in [
            0,
            failed("").exit_code(),
            usage("").exit_code(),
            crate::error::Error::Check(String::new()).exit_code(),
            crate::error::Error::NotSaved(String::new()).exit_code(),
        ] {
            assert!(codes.contains(&code.to_string().as_str()), "exit status {code} is not documented");
        }
        assert!(codes.contains(&super::super::panic::EXIT_STATUS.to_string().as_str()));
        let sigint = crate::error::Error::Interrupted(libc::SIGINT).exit_code();
        assert_eq!(sigint, 128 + libc::SIGINT as u8);
        assert!(codes.contains(&"128+N"));
        assert!(exit_status_help().contains("128+N"));
    }

    #[test]
    fn one_page_per_command_and_exit_status_on_top() {
        let pages = man_pages().unwrap();
        let names: Vec<&str> = pages.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names[0], "iolab.1");
        for sub in command().get_subcommands() {
            let want = format!("iolab-{}.1", sub.get_name());
            assert!(names.contains(&want.as_str()), "no page {want} in {names:?}");
        }
        assert!(!names.contains(&"iolab-help.1"));
        let top = String::from_utf8(pages[0].1.clone()).unwrap();
        assert!(top.contains(".SH \"EXIT STATUS\""));
        assert!(!top.contains(".SH EXTRA"));
    }
}
