//! The command as users see it ([`command`]: the clap definitions of
//! [`super::args`] with the first screen's grouped commands, examples and
//! exit statuses), and what is generated from it: shell completion scripts
//! (`iolab completions`, clap_complete) and manual pages (`iolab man`,
//! clap_mangen).

use crate::base::error::{EXIT_STATUSES, Result, failed};
use crate::deliver::{Delivery, Step};
use clap::Command;
use clap::builder::{PossibleValue, PossibleValuesParser};
use clap_complete::Shell;
use clap_mangen::Man;
use std::path::Path;

/// The command line as users see it: the derived definition, with the
/// help of shared options said in each command's own terms, and the first
/// screen: the commands by what they do ([`grouped`]), the examples, and
/// (with `--help`) the exit statuses.
pub fn command() -> Command {
    grouped(definition())
}

/// The same before clap builds it (adds `help`), with the help in one block:
/// what completions and manual pages are made from.
fn definition() -> Command {
    use clap::CommandFactory;
    let mix = |text: &'static str| move |c: Command| c.mut_arg("mix_read", |a| a.help(text));
    super::args::Cli::command()
        .after_help(examples_help())
        .after_long_help(exit_status_help())
        .mut_subcommand(
            "run",
            mix("Percentage of reads in the mixed tests: the mix suite's, and a user suite's rw and randrw jobs"),
        )
        .mut_subcommand("job", mix("Percentage of reads with --rw randrw or rw"))
        .mut_subcommand("scale", mix("Percentage of reads with --rw randrw or rw"))
}

/// The first screen's commands by what they do. Every command clap knows
/// (its `help` too) is in exactly one group, and nothing else is: a test
/// checks, so a new command cannot be left off the first screen.
pub const GROUPS: &[(&str, &str)] = &[
    ("Measure", "run job scan scale layouts time verify flush capacity selftest"),
    ("Results", "list show compare report import label tag delete"),
    ("Describe", "info suites schema"),
    ("Setup", "completions man help"),
];

/// `cmd` with its commands listed by [`GROUPS`] on its help screen. clap
/// lists them in one block (its issue #1553), so the help template lists
/// them: clap's own list (each name and one-line about, wrapped as clap
/// wraps it), cut into one entry per command and put under its group.
fn grouped(mut cmd: Command) -> Command {
    cmd.build();
    let list = cmd.clone().help_template("{subcommands}").render_help();
    let (plain, styled) = (list.to_string(), list.ansi().to_string());
    // (name, lines): a command's line starts at column 2, its wrapped about further right.
    let mut entries: Vec<(&str, String)> = Vec::new();
    for (p, s) in plain.lines().zip(styled.lines()) {
        match p.strip_prefix("  ").filter(|r| !r.starts_with(' ')) {
            Some(r) => entries.push((r.split_whitespace().next().unwrap_or(""), format!("{s}\n"))),
            None => entries.last_mut().into_iter().for_each(|e| e.1 += &format!("{s}\n")),
        }
    }
    let h = clap::builder::Styles::default().get_header().to_owned();
    let mut groups = String::new();
    for (group, names) in GROUPS {
        groups += &format!("{h}{group}:{h:#}\n");
        for (_, lines) in names.split_whitespace().filter_map(|n| entries.iter().find(|e| e.0 == n)) {
            groups += lines;
        }
        groups += "\n";
    }
    cmd.help_template(format!(
        "{{before-help}}{{about-with-newline}}\n{{usage-heading}} {{usage}}\n\n{groups}{h}Options:{h:#}\n{{options}}{{after-help}}"
    ))
}

/// Where a new user starts: the first commands worth typing, each with
/// what it does (indented), as the first screen shows them.
pub const EXAMPLES: &str = "  iolab run .
      the CrystalDiskMark battery on the current directory (a 1 GiB test file, removed afterwards; 8 tests, each until its figure settles: 1 to 3 minutes)
  iolab run /mnt/usb --size 256MiB --runs 1
      a quick look: a smaller file, one run per test
  iolab job /dev/nvme0n1 --rw randread --qd 32 --latency off
      one fio-style job, read-only on a device, with the least CPU (no latency)
  iolab scan /dev/sdb
      a block device's transfer curve, access time and burst rate: read-only, safe while mounted
  iolab compare 1 2
      two stored runs side by side, with ratios and noise (`iolab list` shows the ids)";

/// The top command's `after_help`: the examples.
pub fn examples_help() -> String {
    let h = clap::builder::Styles::default().get_header().to_owned();
    format!("{h}Examples:{h:#}\n{EXAMPLES}")
}

/// The top command's `after_long_help`: the examples, then the exit
/// statuses, under headings styled as clap styles "Options:".
pub fn exit_status_help() -> String {
    let h = clap::builder::Styles::default().get_header().to_owned();
    let codes: String = EXIT_STATUSES
        .iter()
        .map(|(code, meaning)| format!("\n  {code:<7} {meaning}"))
        .collect();
    format!("{}\n\n{h}Exit status:{h:#}{codes}", examples_help())
}

/// `iolab completions SHELL`: the completion script on stdout.
pub fn completions(shell: Shell) -> Delivery {
    let mut cmd = definition();
    if shell == Shell::Fish {
        cmd = fish_safe(cmd);
    }
    let name = cmd.get_name().to_string();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, name, &mut script);
    Delivery::print(String::from_utf8_lossy(&script).into_owned())
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
pub fn man(dir: Option<&Path>) -> Result<Delivery> {
    let pages = man_pages().map_err(|e| failed(format!("rendering the manual pages: {e}")))?;
    let text = |page: &[u8]| String::from_utf8_lossy(page).into_owned();
    let Some(dir) = dir else {
        return Ok(Delivery::print(text(&pages[0].1)));
    };
    std::fs::create_dir_all(dir).map_err(|e| failed(format!("cannot create {}: {e}", dir.display())))?;
    let mut d = Delivery::default();
    for (name, page) in &pages {
        let path = dir.join(name);
        let text = text(page);
        d.steps.push(Step::Write {
            to: Some(path.clone()),
            text,
        });
        d.steps.push(Step::Say(path.display().to_string()));
    }
    Ok(d)
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
    // VERSION says the version alone: the commit and build of `--version`
    // would make the pages differ from one build to the next.
    let mut cmd = no_help_subcommand(definition()).long_version(None::<&'static str>);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::error::{failed, usage};

    #[test]
    fn exit_statuses_are_those_of_the_error_type() {
        let codes: Vec<&str> = EXIT_STATUSES.iter().map(|(c, _)| *c).collect();
        for code in [
            0,
            failed("").exit_code(),
            usage("").exit_code(),
            crate::base::error::Error::Check(String::new()).exit_code(),
            crate::base::error::Error::NotSaved(String::new()).exit_code(),
        ] {
            assert!(codes.contains(&code.to_string().as_str()), "exit status {code} is not documented");
        }
        assert!(codes.contains(&super::super::panic::EXIT_STATUS.to_string().as_str()));
        let sigint = crate::base::error::Error::Interrupted(libc::SIGINT).exit_code();
        assert_eq!(sigint, 128 + libc::SIGINT as u8);
        assert!(codes.contains(&"128+N"));
        assert!(exit_status_help().contains("128+N"));
    }

    /// Issue 37: a flush that lied is exit status 3, and the statuses of
    /// `--help` and the man page, docs/safety.md and the README say so.
    #[test]
    fn a_lying_flush_is_documented_as_exit_status_3() {
        let three = EXIT_STATUSES.iter().find(|(c, _)| *c == "3").expect("status 3").1;
        assert!(three.contains("flush"), "{three}");
        assert!(exit_status_help().contains("flush found acknowledged writes lost"));
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let safety = std::fs::read_to_string(root.join("docs/safety.md")).unwrap();
        let row = safety.lines().find(|l| l.starts_with("| 3 |")).expect("the row of status 3");
        assert!(row.contains("`flush`"), "{row}");
        let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
        assert!(readme.contains("3 the device failed a check (`verify`, `capacity`, `flush`)"));
    }

    /// Issue 24: the first screen lists every command clap knows exactly
    /// once, under its group, with its one-line about, and nothing else.
    #[test]
    fn the_first_screen_lists_every_command_once_by_what_it_does() {
        let cmd = command();
        let known: std::collections::BTreeSet<&str> = cmd.get_subcommands().map(|s| s.get_name()).collect();
        assert!(known.contains("help") && known.contains("run"), "{known:?}");
        let grouped: Vec<&str> = GROUPS.iter().flat_map(|(_, names)| names.split_whitespace()).collect();
        assert_eq!(grouped.len(), known.len(), "listed twice or missing: {grouped:?} vs {known:?}");
        assert_eq!(grouped.iter().copied().collect::<std::collections::BTreeSet<_>>(), known);
        for long in [false, true] {
            let help = if long {
                cmd.clone().render_long_help()
            } else {
                cmd.clone().render_help()
            }
            .to_string();
            let screen = help.split("\nOptions:\n").next().unwrap();
            let (mut headings, mut listed) = (Vec::new(), Vec::new());
            for line in screen.lines().skip_while(|l| !l.starts_with("Usage:")).skip(1) {
                match line.strip_prefix("  ") {
                    Some(r) if !r.starts_with(' ') => listed.push(r.split_whitespace().next().unwrap()),
                    Some(_) => {}
                    None if !line.is_empty() => headings.push(line.trim_end_matches(':')),
                    None => {}
                }
            }
            assert_eq!(listed, grouped, "{help}");
            assert_eq!(headings, GROUPS.iter().map(|g| g.0).collect::<Vec<_>>(), "{help}");
            for sub in cmd.get_subcommands() {
                let about = sub.get_about().unwrap().to_string();
                let first: String = about.split_whitespace().take(3).collect::<Vec<_>>().join(" ");
                assert!(screen.contains(&first), "{}'s about is not on the screen", sub.get_name());
            }
        }
    }

    /// Issue 36: `layouts` builds, measures and tears down (with --allow-destroy); its
    /// help, on the first screen, in `layouts --help` and on its man page, said that
    /// "this version prints the plan (--dry-run)".
    #[test]
    fn layouts_help_says_it_builds_and_measures_not_only_plans() {
        let cmd = command();
        let layouts = cmd.find_subcommand("layouts").expect("the layouts command");
        let about = layouts.get_about().unwrap().to_string();
        let long = layouts.clone().render_long_help().to_string();
        let page = man_pages()
            .unwrap()
            .into_iter()
            .find(|(n, _)| n == "iolab-layouts.1")
            .map(|(_, p)| String::from_utf8(p).unwrap())
            .expect("iolab-layouts.1");
        let top = cmd.clone().render_help().to_string();
        for (what, text) in [
            ("about", &about),
            ("layouts --help", &long),
            ("iolab --help", &top),
            ("man page", &page),
        ] {
            let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
            for stale in ["this version prints the plan", "comes next"] {
                assert!(!flat.contains(stale), "{what} still says {stale:?}: {flat}");
            }
        }
        assert!(
            about.contains("measures it, tears it down") && about.contains("--allow-destroy"),
            "{about}"
        );
        assert!(long.contains("--allow-destroy each configuration"), "{long}");
    }

    #[test]
    fn one_page_per_command_and_exit_status_on_top() {
        let pages = man_pages().unwrap();
        let names: Vec<&str> = pages.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names[0], "iolab.1");
        for sub in definition().get_subcommands() {
            let want = format!("iolab-{}.1", sub.get_name());
            assert!(names.contains(&want.as_str()), "no page {want} in {names:?}");
        }
        assert!(!names.contains(&"iolab-help.1"));
        let top = String::from_utf8(pages[0].1.clone()).unwrap();
        assert!(top.contains(".SH \"EXIT STATUS\""));
        assert!(!top.contains(".SH EXTRA"));
    }
}
