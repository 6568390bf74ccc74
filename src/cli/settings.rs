//! The configuration file on the command line: where it is, and how its
//! defaults meet the flags. A flag given on the command line wins over the
//! file, and the file wins over the built-in defaults (clap's
//! `value_source` tells which values the user typed). Reading and checking
//! the file is the library's ([`crate::config`]).

use super::args::*;
use super::docs::command;
use crate::base::error::Result;
use crate::base::units;
use crate::config::{self, Config};
use crate::plan::SuiteChoice;
use clap::ArgMatches;
use clap::parser::ValueSource;

/// The configuration file to read: `--config PATH` (which must exist), else
/// the default one if it exists (under sudo, the invoking user's); none to
/// print completions or manuals, describe a target or a document, or test iolab itself.
pub(super) fn load(cli: &Cli) -> Result<Option<Config>> {
    if matches!(
        cli.cmd,
        Cmd::Completions(_) | Cmd::Man(_) | Cmd::Info(_) | Cmd::Selftest(_) | Cmd::Schema(_)
    ) {
        return Ok(None);
    }
    let sudo_home = || crate::store::default_location().owner.map(|u| u.home);
    Config::in_effect(cli.files.config.config.as_deref(), sudo_home)
}

/// Fill in the file's defaults where the command line gave no value.
/// `m` are the whole command line's matches.
pub(super) fn apply(cli: &mut Cli, m: &ArgMatches, cfg: &Config) {
    let d = &cfg.defaults;
    let env_db = std::env::var_os("IOLAB_DB").is_some_and(|v| !v.is_empty());
    // --db, then $IOLAB_DB, then the file's.
    if cli.files.db.is_none() && !env_db {
        cli.files.db.clone_from(&d.db);
    }
    let Some((_, sub)) = m.subcommand() else {
        return;
    };
    let typed = |id: &str| sub.value_source(id) == Some(ValueSource::CommandLine);
    // The file's value where the command line gave none.
    fn fill<T: Clone>(slot: &mut T, typed: bool, file: Option<T>) {
        if let Some(v) = file.filter(|_| !typed) {
            *slot = v;
        }
    }
    let target = |t: &mut TargetArgs| {
        fill(&mut t.size, typed("size"), d.size.map(Some));
        fill(&mut t.engine, typed("engine"), d.engine.map(EngineArg::Own));
    };
    let common = |c: &mut CommonArgs| {
        fill(&mut c.runs, typed("runs"), d.runs);
        fill(&mut c.duration, typed("duration"), d.duration.map(Some));
        fill(&mut c.warmup, typed("warmup"), d.warmup);
        fill(&mut c.interval, typed("interval"), d.interval);
        fill(&mut c.latency, typed("latency"), d.latency);
        target(&mut c.target);
    };
    match &mut cli.cmd {
        Cmd::Run(a) => common(&mut a.common),
        Cmd::Job(a) => common(&mut a.common),
        Cmd::Scale(a) => common(&mut a.common),
        Cmd::Layouts(a) => common(&mut a.common),
        Cmd::Scan(a) => target(&mut a.target_args),
        _ => {}
    }
}

/// `--suite NAME` names a built-in suite or one of the file's; otherwise
/// clap's error for an invalid value, with both lists.
pub(super) fn check_suite(cli: &Cli, cfg: Option<&Config>) -> std::result::Result<(), clap::Error> {
    let Cmd::Run(a) = &cli.cmd else { return Ok(()) };
    let SuiteChoice::User(name) = &a.suite else { return Ok(()) };
    if cfg.is_some_and(|c| c.suite(name).is_some()) {
        return Ok(());
    }
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let mut cmd = command();
    cmd.build();
    let run = cmd.find_subcommand_mut("run").expect("the run command");
    let usage = run.render_usage();
    let mut e = clap::Error::new(ErrorKind::InvalidValue).with_cmd(run);
    e.insert(ContextKind::InvalidArg, ContextValue::String("--suite <SUITE>".into()));
    e.insert(ContextKind::InvalidValue, ContextValue::String(name.clone()));
    e.insert(ContextKind::ValidValue, ContextValue::Strings(config::suite_names(cfg)));
    e.insert(
        ContextKind::Suggested,
        ContextValue::StyledStrs(vec![config::user_suites_note(cfg).into()]),
    );
    e.insert(ContextKind::Usage, ContextValue::StyledStr(usage));
    Err(e)
}

/// `iolab run DIR --suite real --rw read`: clap finds `--rw` unexpected
/// and suggests passing it as a value (`-- --rw`). An option of `iolab
/// job`'s given to `run` gets clap's error with the tip that says so.
pub(super) fn job_option_in_a_suite(e: &clap::Error) -> Option<clap::Error> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::UnknownArgument {
        return None;
    }
    let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg) else {
        return None;
    };
    let long = arg.strip_prefix("--")?.split('=').next()?;
    let mut cmd = command();
    cmd.build();
    let has = |sub: &str| {
        cmd.find_subcommand(sub)
            .is_some_and(|c| c.get_arguments().any(|a| a.get_long() == Some(long)))
    };
    let in_run = matches!(e.get(ContextKind::Usage), Some(ContextValue::StyledStr(u)) if u.to_string().contains("iolab run "));
    if !in_run || !has("job") || has("run") {
        return None;
    }
    let run = cmd.find_subcommand_mut("run").expect("the run command");
    let usage = run.render_usage();
    let mut out = clap::Error::new(ErrorKind::UnknownArgument).with_cmd(run);
    out.insert(ContextKind::InvalidArg, ContextValue::String(arg.clone()));
    let tip = format!(
        "--{long} belongs to `iolab job` (one test you describe), not to a suite: run `iolab job TARGET --{long} ...`, or define a suite of your own in the configuration file ([suites.NAME])"
    );
    out.insert(ContextKind::Suggested, ContextValue::StyledStrs(vec![tip.into()]));
    out.insert(ContextKind::Usage, ContextValue::StyledStr(usage));
    Some(out)
}

/// The note for sizes typed in decimal units, once for the command line.
pub(super) fn decimal_size_note(m: &ArgMatches) -> Option<String> {
    let (_, sub) = m.subcommand()?;
    ["size", "bs", "window", "bytes"]
        .into_iter()
        .filter(|id| sub.ids().any(|i| i.as_str() == *id) && sub.value_source(id) == Some(ValueSource::CommandLine))
        .filter_map(|id| sub.try_get_raw(id).ok().flatten())
        .flatten()
        .find_map(|v| v.to_str().and_then(units::decimal_size_note))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{Interval, Runs, Timing};
    use clap::FromArgMatches;
    use std::path::Path;
    use std::time::Duration;

    fn parsed(args: &[&str], cfg: &Config) -> Cli {
        let m = command().try_get_matches_from(args).unwrap();
        let mut cli = Cli::from_arg_matches(&m).unwrap();
        apply(&mut cli, &m, cfg);
        cli
    }

    fn cfg() -> Config {
        Config::parse(
            "[defaults]\nsize = \"4GiB\"\nruns = 5\nduration = \"10s\"\nengine = \"psync\"\n[suites.our-nightly]\njobs = [{ rw = \"read\", bs = \"1M\" }]\n",
            Path::new("/c.toml"),
        )
        .unwrap()
    }

    fn common(cli: &Cli) -> &CommonArgs {
        match &cli.cmd {
            Cmd::Run(a) => &a.common,
            Cmd::Job(a) => &a.common,
            _ => panic!("not run or job"),
        }
    }

    #[test]
    fn flags_win_over_the_file_which_wins_over_the_built_in_defaults() {
        let cli = parsed(&["iolab", "run", ".", "--runs", "2", "--size", "16MiB"], &cfg());
        let c = common(&cli);
        assert_eq!(c.runs, Runs::Fixed(2), "flag");
        assert_eq!(c.target.size, Some(16 << 20), "flag");
        assert_eq!(c.duration, Some(Duration::from_secs(10)), "file");
        assert_eq!(c.target.engine, EngineArg::Own(crate::io::engine::EngineKind::Psync), "file");
        assert_eq!(c.warmup, Duration::from_secs(1), "built-in");
        assert_eq!(c.interval, Interval::Auto, "built-in");
        assert_eq!(c.latency, Timing::Exact, "built-in");
        // A flag equal to the built-in default still wins.
        let cli = parsed(&["iolab", "job", ".", "--runs", "3", "--duration", "5s"], &cfg());
        assert_eq!(
            (common(&cli).runs, common(&cli).duration),
            (Runs::Fixed(3), Some(Duration::from_secs(5)))
        );
        let cli = parsed(&["iolab", "job", "."], &Config::default());
        assert_eq!((common(&cli).runs, common(&cli).target.size), (Runs::default(), None));
        assert_eq!(common(&cli).duration(), crate::plan::AUTO_WINDOW, "auto's windows");
        let cli = parsed(&["iolab", "job", ".", "--runs", "4"], &Config::default());
        assert_eq!(common(&cli).duration(), crate::plan::FIXED_RUN, "a fixed count's runs");
    }

    #[test]
    fn user_suites_pass_and_unknown_ones_list_both_kinds() {
        let c = cfg();
        let cli = parsed(&["iolab", "run", ".", "--suite", "our-nightly"], &c);
        assert!(check_suite(&cli, Some(&c)).is_ok());
        let cli = parsed(&["iolab", "run", ".", "--suite", "nightly"], &c);
        let e = check_suite(&cli, Some(&c)).unwrap_err().render().to_string();
        for n in ["'nightly'", "possible values:", "default", "git", "our-nightly", "/c.toml"] {
            assert!(e.contains(n), "{n} in {e}");
        }
        assert_eq!(check_suite(&cli, None).unwrap_err().kind(), clap::error::ErrorKind::InvalidValue);
    }

    #[test]
    fn decimal_sizes_typed_by_the_user_get_one_note() {
        let m = |args: &[&str]| command().try_get_matches_from(args).unwrap();
        assert!(decimal_size_note(&m(&["iolab", "job", ".", "--size", "1GB", "--bytes", "1MB"])).is_some());
        assert!(decimal_size_note(&m(&["iolab", "run", ".", "--suite", "dd", "--bs", "4k,512kB"])).is_some());
        assert!(decimal_size_note(&m(&["iolab", "job", ".", "--size", "1GiB"])).is_none());
        assert!(decimal_size_note(&m(&["iolab", "scan", ".", "--window", "64MB"])).is_some());
        assert!(decimal_size_note(&m(&["iolab", "list"])).is_none());
    }
}
