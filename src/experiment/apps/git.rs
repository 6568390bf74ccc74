//! The `git` workload: seed 004's `git pull` without a network.
//!
//! Seed 004 timed a `git pull` of the FreeBSD ports tree because benchmark
//! programs showed no difference between two disks where that pull took
//! 62.5 s on one and 151.8 s on the other. A pull is mostly two things: git
//! reading and writing its object store, and git moving a working tree of
//! many small files across a long stretch of history. This workload
//! generates a repository with a long history on the target, then times,
//! with a cold cache, a local clone and checkouts between two distant
//! revisions.
//!
//! The repository is deterministic: for a given seed, commit count and
//! file count, the same commits with the same ids on every machine (git
//! runs with a fixed environment and configuration, and every commit
//! carries a fixed author, committer and date; only the bytes of the packs
//! may vary with git's zlib), so runs on two targets move the same data.
//!
//! The history: commit 1 imports half the files; each later commit
//! deletes 0.5% of the tree, modifies 1% and adds files so that the tree
//! grows evenly to `files` at the last commit. Over 300 commits nearly
//! every file changes, so moving the working tree from the commit 10% into
//! the history to the newest one rewrites most of it, as a pull after
//! months does. Files sit in directories of about 32 files, two levels
//! deep, with sizes of a few KiB (see [`plan`]); their content is text
//! lines of random characters (compressible by about a quarter, as source
//! is more) that differ in every version, so no two blobs are equal.
//!
//! Everything lives under one fresh directory `DIR/iolab-git-<pid>-<nanos>`
//! (the repository `origin`, its `clone`, and a `home` for git), removed
//! when [`run`] returns, also after an error or a stop request; a git
//! process still running then is killed first.

use super::files::{Scratch, syncfs};
use super::{Meter, PhaseSamples};
use crate::base::error::{Result, failed, usage};
use crate::io::rng::{Rng, splitmix64};
use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};

/// What the workload does.
#[derive(Clone, Debug)]
pub struct GitOpts {
    /// Commits in the generated history (at least 2).
    pub commits: u32,
    /// Files in the working tree at the newest commit.
    pub files: u32,
    /// Seeds the history, the sizes and the content.
    pub seed: u64,
    /// Empty the caches before the clone and the checkouts.
    pub cold: bool,
}

/// What the generated history holds, known before anything is written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    pub commits: u32,
    /// The commit (counted from 1) that `checkout-old` moves to: 10% into the history.
    pub old_commit: u32,
    /// Files and bytes of the working tree at the newest commit.
    pub head_files: u64,
    pub head_bytes: u64,
    /// Files and bytes of the working tree at the old commit.
    pub old_files: u64,
    pub old_bytes: u64,
    /// Files that differ between the old and the newest commit: added,
    /// deleted or modified on the way.
    pub changed_files: u64,
    /// Bytes of file content a checkout writes moving from the newest to the
    /// old commit (the old versions of the files that differ), and back.
    pub to_old_bytes: u64,
    pub to_new_bytes: u64,
    /// File versions (blobs) in the whole history, and their bytes before compression.
    pub blobs: u64,
    pub blob_bytes: u64,
}

/// Files per directory, and directories per top directory.
const PER_DIR: u32 = 32;
/// Per-mille of the tree each commit after the first deletes and modifies.
const DELETE_PERMILLE: u64 = 5;
const MODIFY_PERMILLE: u64 = 10;
/// The date of commit 1 (2020-09-13), one hour per commit after it.
const BASE_TIME: u64 = 1_600_000_000;
const IDENT: &str = "iolab <iolab@example.invalid>";

/// File sizes as in [`super::files`]' mix: (cumulative per-mille, smallest
/// size, octaves), log-uniform by octave, in integers.
///
/// - 95%: 256 B–16 KiB: the sources, makefiles and descriptions a tree
///   like the ports tree is made of;
/// - 5%: 16–128 KiB: the large sources and patches.
///
/// The mean is about 6.5 KiB: 3000 files are about 19 MiB of working tree.
const MIX: [(u64, u64, u32); 2] = [(950, 256, 6), (1000, 16 << 10, 3)];

fn draw_size(rng: &mut Rng) -> u32 {
    let r = rng.below(1000);
    let &(_, lo, octaves) = MIX.iter().find(|c| r < c.0).expect("classes cover 0..1000");
    let base = lo << rng.below(octaves as u64);
    (base + rng.below(base)) as u32
}

/// One file change in a commit; a write carries the file's new size.
enum Op {
    Delete(u32),
    Write { id: u32, size: u32 },
}

/// The generated history: per commit, its changes.
struct History {
    ops: Vec<Vec<Op>>,
    dirs: u32,
    seed: u64,
    plan: Plan,
}

/// A file of the tree: its id (which names it), size, and the commit that
/// last wrote it (which, with the id, determines its content).
#[derive(Clone, Copy)]
struct Entry {
    id: u32,
    size: u32,
    rev: u32,
}

impl History {
    fn new(opts: &GitOpts) -> History {
        let commits = opts.commits.max(1);
        let files = opts.files.max(1) as u64;
        let mut rng = Rng::new(opts.seed ^ 0x6769_745f_6869_7374);
        let mut live: Vec<Entry> = Vec::new();
        let mut next_id = 0u32;
        let n0 = (files / 2).max(1);
        let old_commit = (commits / 10).max(1);
        let mut old: HashMap<u32, Entry> = HashMap::new();
        let mut ops = Vec::with_capacity(commits as usize);
        let (mut blobs, mut blob_bytes) = (0u64, 0u64);
        for c in 1..=commits {
            let mut changes = Vec::new();
            let target = if c == 1 {
                n0
            } else {
                n0 + (files - n0) * (c as u64 - 1) / (commits as u64 - 1)
            };
            if c > 1 {
                let len = live.len() as u64;
                for _ in 0..len * DELETE_PERMILLE / 1000 {
                    let e = live.swap_remove(rng.below(live.len() as u64) as usize);
                    changes.push(Op::Delete(e.id));
                }
                let mods = (len * MODIFY_PERMILLE / 1000).clamp(1, live.len() as u64);
                let mut picked = HashSet::new();
                while (picked.len() as u64) < mods {
                    let i = rng.below(live.len() as u64) as usize;
                    if picked.insert(i) {
                        let e = &mut live[i];
                        // Edits change a file's size a little, not wholesale.
                        e.size = (e.size - e.size / 8 + rng.below(e.size as u64 / 4 + 1) as u32).max(64);
                        e.rev = c;
                        changes.push(Op::Write { id: e.id, size: e.size });
                    }
                }
            }
            while (live.len() as u64) < target {
                let e = Entry {
                    id: next_id,
                    size: draw_size(&mut rng),
                    rev: c,
                };
                next_id += 1;
                live.push(e);
                changes.push(Op::Write { id: e.id, size: e.size });
            }
            for op in &changes {
                if let Op::Write { size, .. } = op {
                    blobs += 1;
                    blob_bytes += *size as u64;
                }
            }
            ops.push(changes);
            if c == old_commit {
                old = live.iter().map(|e| (e.id, *e)).collect();
            }
        }
        let mut plan = Plan {
            commits,
            old_commit,
            head_files: live.len() as u64,
            head_bytes: live.iter().map(|e| e.size as u64).sum(),
            old_files: old.len() as u64,
            old_bytes: old.values().map(|e| e.size as u64).sum(),
            blobs,
            blob_bytes,
            ..Plan::default()
        };
        for e in &live {
            match old.get(&e.id) {
                Some(o) => {
                    if o.rev != e.rev {
                        plan.changed_files += 1;
                        plan.to_old_bytes += o.size as u64;
                        plan.to_new_bytes += e.size as u64;
                    }
                }
                None => {
                    plan.changed_files += 1;
                    plan.to_new_bytes += e.size as u64;
                }
            }
        }
        let head: HashSet<u32> = live.iter().map(|e| e.id).collect();
        for o in old.values().filter(|o| !head.contains(&o.id)) {
            plan.changed_files += 1;
            plan.to_old_bytes += o.size as u64;
        }
        History {
            ops,
            dirs: (files as u32).div_ceil(PER_DIR).max(1),
            seed: opts.seed,
            plan,
        }
    }

    /// The path of file `id`: spread over the directories by a hash, so
    /// files added later land among the old ones, as in a real tree.
    fn path(&self, id: u32) -> String {
        let d = (splitmix64(self.seed ^ splitmix64(id as u64 + 1)) % self.dirs as u64) as u32;
        format!("d{:02}/s{:02}/f{id:06}.c", d / PER_DIR, d % PER_DIR)
    }

    /// The content of file `id` as written by commit `rev`: a header line
    /// naming both (so no two blobs are equal), then 71-character lines of
    /// random characters from a 64-character alphabet.
    fn blob(&self, id: u32, rev: u32, size: u32, out: &mut Vec<u8>) {
        const ALPHABET: &[u8; 64] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_ ";
        out.clear();
        let size = size as usize;
        let _ = writeln!(out, "/* {} r{rev} */", self.path(id));
        let mut rng = Rng::new(self.seed ^ splitmix64(((id as u64) << 32) | rev as u64));
        let mut col = 0;
        while out.len() < size {
            let mut v = rng.next_u64();
            for _ in 0..8 {
                if col == 71 {
                    out.push(b'\n');
                    col = 0;
                } else {
                    out.push(ALPHABET[(v & 63) as usize]);
                    v >>= 6;
                    col += 1;
                }
            }
        }
        out.truncate(size);
        if let Some(last) = out.last_mut() {
            *last = b'\n';
        }
    }
}

/// The history the workload generates for `opts`, in figures: what each
/// phase will move. Cheap (no I/O, no content generated).
pub fn plan(opts: &GitOpts) -> Plan {
    History::new(opts).plan
}

/// The git executable on PATH.
fn find_git() -> Result<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join("git"))
        .find(|p| {
            use std::os::unix::fs::PermissionsExt;
            p.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
        .ok_or_else(|| usage("the git suite needs git: apt-get install git"))
}

/// Git's configuration for the workload, instead of the user's and the
/// system's: no automatic gc or maintenance in the middle of a timing, no
/// line-ending conversion, no fsmonitor, a fixed branch name and identity.
const GITCONFIG: &str = "\
[core]
\tautocrlf = false
\tfsmonitor = false
[gc]
\tauto = 0
[maintenance]
\tauto = false
[init]
\tdefaultBranch = main
[advice]
\tdetachedHead = false
[user]
\tname = iolab
\temail = iolab@example.invalid
";

/// Runs git with a clean, fixed environment.
struct Git {
    exe: PathBuf,
    env: Vec<(&'static str, OsString)>,
    /// git's stderr goes to this file (a pipe nobody reads could fill and
    /// block git); it is read when git fails.
    log: PathBuf,
}

impl Git {
    /// Git for repositories beside `home` (created), which holds git's configuration.
    fn new(exe: PathBuf, home: &Path) -> Result<Git> {
        std::fs::create_dir(home).map_err(|e| failed(format!("cannot create {}: {e}", home.display())))?;
        // Git must not find a repository around the work directory (iolab
        // run inside a project's checkout) and read its configuration.
        let work = home.parent().map(std::fs::canonicalize).transpose();
        let ceiling = work
            .map_err(|e| failed(format!("cannot resolve {}: {e}", home.display())))?
            .and_then(|w| w.parent().map(|p| p.as_os_str().to_owned()))
            .unwrap_or_default();
        let config = home.join(".gitconfig");
        std::fs::write(&config, GITCONFIG).map_err(|e| failed(format!("cannot write {}: {e}", config.display())))?;
        let date = OsString::from(format!("{BASE_TIME} +0000"));
        let env = vec![
            ("PATH", std::env::var_os("PATH").unwrap_or_default()),
            ("HOME", home.into()),
            ("XDG_CONFIG_HOME", home.into()),
            ("GIT_CEILING_DIRECTORIES", ceiling),
            ("GIT_CONFIG_NOSYSTEM", "1".into()),
            ("GIT_CONFIG_GLOBAL", config.into()),
            ("GIT_TERMINAL_PROMPT", "0".into()),
            ("GIT_AUTHOR_NAME", "iolab".into()),
            ("GIT_AUTHOR_EMAIL", "iolab@example.invalid".into()),
            ("GIT_AUTHOR_DATE", date.clone()),
            ("GIT_COMMITTER_NAME", "iolab".into()),
            ("GIT_COMMITTER_EMAIL", "iolab@example.invalid".into()),
            ("GIT_COMMITTER_DATE", date),
            ("LC_ALL", "C".into()),
            ("TZ", "UTC".into()),
        ];
        Ok(Git {
            exe,
            env,
            log: home.join("git-stderr.log"),
        })
    }

    /// Start `git ARGS` in `cwd`, in its own process group (so a Ctrl-C
    /// reaches iolab, which then kills git and everything git started).
    fn spawn(&self, cwd: &Path, args: &[&str], stdin: Stdio) -> Result<Running> {
        let log = File::create(&self.log).map_err(|e| failed(format!("cannot create {}: {e}", self.log.display())))?;
        let mut cmd = Command::new(&self.exe);
        cmd.args(args)
            .current_dir(cwd)
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(stdin)
            .stdout(Stdio::null())
            .stderr(log)
            .process_group(0);
        // git dies with iolab: a SIGKILLed run must not leave a git writing
        // into the tree that the next run removes (it would write it back).
        crate::io::sys::die_with_parent(&mut cmd);
        let child = cmd.spawn().map_err(|e| failed(format!("cannot run {}: {e}", self.exe.display())))?;
        Ok(Running {
            child,
            reaped: false,
            what: format!("git {}", args.join(" ")),
        })
    }

    /// Run `git ARGS` in `cwd` to completion.
    fn run(&self, cwd: &Path, args: &[&str], meter: &Meter) -> Result<()> {
        let mut r = self.spawn(cwd, args, Stdio::null())?;
        let status = r.wait(meter)?;
        self.check(&r, status)
    }

    fn check(&self, r: &Running, status: ExitStatus) -> Result<()> {
        if status.success() {
            return Ok(());
        }
        let log = std::fs::read(&self.log).unwrap_or_default();
        let tail = String::from_utf8_lossy(&log[log.len().saturating_sub(2000)..]);
        Err(failed(format!("{} failed ({status}): {}", r.what, tail.trim())))
    }
}

/// A running git; killed (with its process group) and reaped if dropped
/// before it finished, so nothing writes into the directory being removed.
struct Running {
    child: Child,
    reaped: bool,
    what: String,
}

impl Running {
    /// Wait for git to exit, and kill it when a stop is requested. Waits on
    /// a pidfd, so the exit is seen at once (a sleep-and-poll loop would add
    /// up to its period to every timing); polls with `try_wait` every 50 ms
    /// for the stop flag, or every millisecond without pidfds (Linux < 5.3).
    fn wait(&mut self, meter: &Meter) -> Result<ExitStatus> {
        use rustix::process::{Pid, PidfdFlags, pidfd_open};
        let pidfd = pidfd_open(Pid::from_child(&self.child), PidfdFlags::empty()).ok();
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => {
                    self.reaped = true;
                    // A signal may have reached git too: report the stop, not git's failure.
                    meter.stop.check()?;
                    return Ok(status);
                }
                Ok(None) => {}
                Err(e) => return Err(failed(format!("cannot wait for {}: {e}", self.what))),
            }
            meter.stop.check()?; // dropping self kills git
            match &pidfd {
                Some(fd) => {
                    use rustix::event::{PollFd, PollFlags, poll};
                    let wait = rustix::time::Timespec {
                        tv_sec: 0,
                        tv_nsec: 50_000_000,
                    };
                    let _ = poll(&mut [PollFd::new(fd, PollFlags::IN)], Some(&wait));
                }
                None => std::thread::sleep(std::time::Duration::from_millis(1)),
            }
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if !self.reaped {
            // The child is not reaped, so its pid (= its process group) is still ours.
            let _ = rustix::process::kill_process_group(rustix::process::Pid::from_child(&self.child), rustix::process::Signal::KILL);
            let _ = self.child.wait();
        }
    }
}

/// Why writing the fast-import stream stopped.
enum StreamError {
    Stop(crate::base::error::Error),
    Io(std::io::Error),
}

impl From<std::io::Error> for StreamError {
    fn from(e: std::io::Error) -> Self {
        StreamError::Io(e)
    }
}

/// Write the history as a `git fast-import` stream: one commit per entry
/// of `h.ops`, blobs inline, a tag `old` at the old commit, and `done`
/// (fast-import then rejects a stream cut short).
fn write_stream(w: &mut impl Write, h: &History, meter: &Meter) -> std::result::Result<(), StreamError> {
    let commits = h.ops.len() as u64;
    let every = (commits / 100).max(1);
    let mut buf = Vec::new();
    for (ci, ops) in h.ops.iter().enumerate() {
        let c = ci as u32 + 1;
        meter.stop.check().map_err(StreamError::Stop)?;
        if (c as u64 - 1).is_multiple_of(every) {
            meter.progress("generate", c as u64 - 1, commits);
        }
        let ts = BASE_TIME + (c as u64 - 1) * 3600;
        let msg = format!("commit {c}\n");
        write!(
            w,
            "commit refs/heads/main\nmark :{c}\nauthor {IDENT} {ts} +0000\ncommitter {IDENT} {ts} +0000\ndata {}\n{msg}",
            msg.len()
        )?;
        if c > 1 {
            writeln!(w, "from :{}", c - 1)?;
        }
        for op in ops {
            match *op {
                Op::Delete(id) => writeln!(w, "D {}", h.path(id))?,
                Op::Write { id, size } => {
                    h.blob(id, c, size, &mut buf);
                    write!(w, "M 100644 inline {}\ndata {}\n", h.path(id), buf.len())?;
                    w.write_all(&buf)?;
                    w.write_all(b"\n")?;
                }
            }
        }
        w.write_all(b"\n")?;
        if c == h.plan.old_commit {
            write!(w, "reset refs/tags/old\nfrom :{c}\n\n")?;
        }
    }
    w.write_all(b"done\n")?;
    w.flush()?;
    Ok(())
}

/// Generate the repository in `origin` (created) and check out its newest commit.
fn generate(git: &Git, origin: &Path, h: &History, meter: &Meter) -> Result<()> {
    let parent = origin.parent().expect("origin is inside the work directory");
    let name = origin.file_name().expect("origin has a name").to_string_lossy();
    git.run(parent, &["init", "-q", &name], meter)?;
    let mut r = git.spawn(origin, &["fast-import", "--quiet", "--done"], Stdio::piped())?;
    let stdin = r.child.stdin.take().expect("stdin is piped");
    let written = write_stream(&mut BufWriter::with_capacity(1 << 20, stdin), h, meter);
    match written {
        Err(StreamError::Stop(e)) => return Err(e), // dropping r kills fast-import
        Err(StreamError::Io(e)) => {
            // Usually a broken pipe: fast-import quit, and its stderr says why.
            let status = r.wait(meter)?;
            git.check(&r, status)?;
            return Err(failed(format!("cannot feed git fast-import: {e}")));
        }
        Ok(()) => {
            let status = r.wait(meter)?;
            git.check(&r, status)?;
        }
    }
    meter.progress("generate", h.ops.len() as u64, h.ops.len() as u64);
    // fast-import leaves the index and working tree empty: fill both from HEAD.
    git.run(origin, &["reset", "-q", "--hard"], meter)
}

/// Bytes of all files under `dir` (the object store a phase wrote).
fn tree_bytes(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(e.path()),
                Ok(t) if t.is_file() => total += e.metadata().map(|m| m.len()).unwrap_or(0),
                _ => {}
            }
        }
    }
    total
}

/// Run the workload in a fresh directory under `dir`: phases `generate`,
/// `clone`, `checkout-old`, `checkout-new`, in that order. `meter.progress(phase,
/// done, total)` counts commits while generating, and is called at the
/// start and end of each other phase.
///
/// Every phase ends with `syncfs` inside its timing, so what git wrote is
/// on the device when the clock stops (git itself leaves the working tree
/// in the page cache; without it a machine with enough memory would time
/// its memory). Per phase, `files` and `bytes` are:
/// - `generate` (never cold): `git init`, `git fast-import` of the whole
///   history, `git reset --hard` to check out the newest commit. Files:
///   the working tree's; bytes: the working tree's plus the object store's.
/// - `clone`: `git clone --no-hardlinks` of it, which copies the objects
///   and checks out the newest commit. Files: the working tree's; bytes:
///   the working tree's plus the copied object store's.
/// - `checkout-old`: `git checkout` of the commit 10% into the history in
///   the clone; `checkout-new`: back to the newest. Files: those that
///   differ between the two commits (added, deleted or modified); bytes:
///   the content the checkout writes (the target versions of those files).
///
/// `opts.cold` empties the caches before every phase but `generate`.
pub fn run(dir: &Path, opts: &GitOpts, meter: &Meter) -> Result<Vec<PhaseSamples>> {
    let (origin, generated) = prepare(dir, opts, meter)?;
    let mut out = vec![generated];
    out.extend(measure(&origin, opts, meter)?);
    Ok(out)
}

/// A generated repository in a scratch directory of its own, ready for the
/// measured phases ([`measure`]), which may run on it again once its
/// directory is reset to how [`prepare`] left it (a ZFS rollback).
pub struct Origin {
    history: History,
    // Field order is drop order: git's files, then the directory.
    git: Git,
    work: Scratch,
    /// The directory whose filesystem is synced.
    fs: PathBuf,
}

/// The `generate` phase of [`run`] in a new scratch directory under `dir`.
pub fn prepare(dir: &Path, opts: &GitOpts, meter: &Meter) -> Result<(Origin, PhaseSamples)> {
    if opts.commits < 2 {
        return Err(usage("the git suite needs at least 2 commits"));
    }
    if opts.files == 0 {
        return Err(usage("the git suite needs at least one file"));
    }
    let exe = find_git()?;
    let h = History::new(opts);
    let p = &h.plan;
    // Two object stores (at most the blobs, uncompressed) and two working
    // trees, each file rounded to 4 KiB, plus trees and commits.
    let inodes = 2 * (p.head_files + p.head_files / PER_DIR as u64) + 1000;
    let need = 2 * (p.blob_bytes + p.head_bytes + p.head_files * 4096) + (p.commits as u64) * 65536;
    crate::targets::space::check(dir, need, inodes, &format!("a repository of {} commits", p.commits), None)?;
    File::open(dir).map_err(|e| usage(format!("cannot open {}: {e}", dir.display())))?;
    let work = Scratch::create(dir, "iolab-git")?;
    let git = Git::new(exe, &work.root.join("home"))?;
    let origin = work.root.join("origin");
    let mut s = meter.phase("generate", false, || {
        generate(&git, &origin, &h, meter)?;
        syncfs(dir, &origin)?;
        Ok((p.head_files, p.head_bytes))
    })?;
    s.bytes += tree_bytes(&origin.join(".git/objects"));
    Ok((
        Origin {
            history: h,
            git,
            work,
            fs: dir.to_path_buf(),
        },
        s,
    ))
}

/// The measured phases of [`run`] after `generate`: `clone`,
/// `checkout-old`, `checkout-new`, in a `clone` directory that must not exist yet.
pub fn measure(o: &Origin, opts: &GitOpts, meter: &Meter) -> Result<Vec<PhaseSamples>> {
    let (git, p, fsfd) = (&o.git, &o.history.plan, o.fs.as_path());
    let clone = o.work.root.join("clone");
    let mut out = Vec::with_capacity(3);
    let mut s = meter.phase("clone", opts.cold, || {
        meter.progress("clone", 0, 1);
        git.run(&o.work.root, &["clone", "-q", "--no-hardlinks", "origin", "clone"], meter)?;
        syncfs(fsfd, &clone)?;
        meter.progress("clone", 1, 1);
        Ok((p.head_files, p.head_bytes))
    })?;
    s.bytes += tree_bytes(&clone.join(".git/objects"));
    out.push(s);

    for (name, rev, bytes) in [("checkout-old", "old", p.to_old_bytes), ("checkout-new", "main", p.to_new_bytes)] {
        out.push(meter.phase(name, opts.cold, || {
            meter.progress(name, 0, 1);
            git.run(&clone, &["checkout", "-q", rev], meter)?;
            syncfs(fsfd, &clone)?;
            meter.progress(name, 1, 1);
            Ok((p.changed_files, bytes))
        })?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::signals::Stop;
    use crate::experiment::apps::files::tests::{is_empty, scratch, with_progress};
    use std::cell::RefCell;

    fn have_git() -> bool {
        let ok = find_git().is_ok();
        if !ok {
            crate::base::testknob::skip_for_missing_tool("git");
        }
        ok
    }

    fn opts(commits: u32, files: u32) -> GitOpts {
        GitOpts {
            commits,
            files,
            seed: 11,
            cold: false,
        }
    }

    /// Files and bytes of a working tree, `.git` left out.
    fn worktree(dir: &Path) -> (u64, u64) {
        let (mut files, mut bytes) = (0, 0);
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let e = e.unwrap();
                let t = e.file_type().unwrap();
                if t.is_dir() && e.file_name() != ".git" {
                    stack.push(e.path());
                } else if t.is_file() {
                    files += 1;
                    bytes += e.metadata().unwrap().len();
                }
            }
        }
        (files, bytes)
    }

    /// The workload with its phase progress seen through a callback.
    fn run(dir: &Path, o: &GitOpts, meter: &Meter, progress: &dyn Fn(&str, u64, u64)) -> crate::base::error::Result<Vec<PhaseSamples>> {
        with_progress(meter, progress, |m| super::run(dir, o, m))
    }

    #[test]
    fn plan_of_the_defaults() {
        let p = plan(&opts(300, 3000));
        assert_eq!(p, plan(&opts(300, 3000)), "deterministic");
        assert_eq!((p.commits, p.old_commit, p.head_files), (300, 30, 3000));
        // 10% into the history the tree has grown a tenth of the way from 1500 to 3000.
        assert_eq!(p.old_files, 1500 + 1500 * 29 / 299);
        // Moving between the two rewrites most of the tree: a big pull.
        assert!(p.changed_files > p.head_files * 8 / 10, "{p:?}");
        let mean = p.head_bytes / p.head_files;
        assert!((4 << 10..9 << 10).contains(&mean), "mean file size {mean}");
        assert!(p.to_new_bytes <= p.head_bytes && p.to_old_bytes <= p.old_bytes);
        assert_ne!(
            p,
            plan(&GitOpts {
                seed: 12,
                ..opts(300, 3000)
            })
        );
    }

    /// Blobs differ in every version, have the planned size and end in a newline.
    #[test]
    fn blobs_are_distinct_text() {
        let h = History::new(&opts(10, 100));
        let mut a = Vec::new();
        let mut b = Vec::new();
        h.blob(5, 1, 3000, &mut a);
        h.blob(5, 2, 3000, &mut b);
        assert_eq!((a.len(), b.len()), (3000, 3000));
        assert_ne!(a, b);
        assert!(a.starts_with(format!("/* {} r1 */\n", h.path(5)).as_bytes()));
        assert!(a.iter().all(|&c| c == b'\n' || c.is_ascii_graphic() || c == b' '));
        assert_eq!(a.last(), Some(&b'\n'));
    }

    #[test]
    fn all_phases_in_order_then_nothing_left() {
        if !have_git() {
            return;
        }
        let tmp = scratch();
        let stop = Stop::default();
        let meter = Meter::for_dir(tmp.path(), &stop, &crate::base::progress::Silent);
        let o = opts(40, 300);
        let p = plan(&o);
        let trees = RefCell::new(Vec::new());
        let out = run(tmp.path(), &o, &meter, &|phase, done, _| {
            // Before each checkout: look at the clone's working tree.
            if phase.starts_with("checkout") && done == 0 {
                let work = std::fs::read_dir(tmp.path()).unwrap().next().unwrap().unwrap().path();
                trees.borrow_mut().push(worktree(&work.join("clone")));
            }
        })
        .expect("run");
        let names: Vec<_> = out.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["generate", "clone", "checkout-old", "checkout-new"]);
        let files: Vec<_> = out.iter().map(|s| s.files).collect();
        assert_eq!(files, [p.head_files, p.head_files, p.changed_files, p.changed_files]);
        // Object stores: at least a pack, compressed below the raw blobs but not to nothing.
        for s in &out[..2] {
            assert!(
                s.bytes > p.head_bytes + p.blob_bytes / 2 && s.bytes < p.head_bytes + 2 * p.blob_bytes,
                "{s:?} {p:?}"
            );
        }
        assert_eq!((out[2].bytes, out[3].bytes), (p.to_old_bytes, p.to_new_bytes));
        assert_eq!(trees.into_inner(), [(p.head_files, p.head_bytes), (p.old_files, p.old_bytes)]);
        assert!(is_empty(tmp.path()), "the work directory was left behind");
    }

    /// Same seed, same repository: the same commit ids (tags too).
    #[test]
    fn repository_is_deterministic() {
        if !have_git() {
            return;
        }
        let tmp = scratch();
        let stop = Stop::default();
        let meter = Meter::for_dir(tmp.path(), &stop, &crate::base::progress::Silent);
        let git = Git::new(find_git().unwrap(), &tmp.path().join("home")).unwrap();
        let ids = |name: &str, seed: u64| {
            let h = History::new(&GitOpts { seed, ..opts(15, 80) });
            let repo = tmp.path().join(name);
            generate(&git, &repo, &h, &meter).unwrap();
            let out = Command::new(&git.exe)
                .args(["rev-parse", "main", "old"])
                .current_dir(&repo)
                .env_clear()
                .envs(git.env.iter().map(|(k, v)| (k, v)))
                .output()
                .unwrap();
            assert!(out.status.success());
            String::from_utf8(out.stdout).unwrap()
        };
        let a = ids("a", 1);
        assert_eq!(a.lines().count(), 2);
        assert_eq!(a, ids("b", 1));
        assert_ne!(a, ids("c", 2));
    }

    /// A stop request in any phase, also while git runs, ends the run with
    /// `Interrupted` and removes everything.
    #[test]
    fn stop_mid_phase_cleans_up() {
        if !have_git() {
            return;
        }
        for phase in ["generate", "clone", "checkout-old", "checkout-new"] {
            let tmp = scratch();
            let stop = Stop::default();
            let meter = Meter::for_dir(tmp.path(), &stop, &crate::base::progress::Silent);
            let err = run(tmp.path(), &opts(30, 200), &meter, &|p, d, _| {
                if p == phase && d == 0 {
                    stop.request();
                }
            })
            .unwrap_err();
            assert!(
                matches!(err, crate::base::error::Error::Interrupted(libc::SIGINT)),
                "{phase}: {err}"
            );
            assert!(is_empty(tmp.path()), "{phase}: the work directory was left behind");
        }
    }

    #[test]
    fn refuses_too_short_a_history() {
        let tmp = scratch();
        let stop = Stop::default();
        let meter = Meter::for_dir(tmp.path(), &stop, &crate::base::progress::Silent);
        for o in [opts(1, 100), opts(10, 0)] {
            let e = run(tmp.path(), &o, &meter, &|_, _, _| {}).unwrap_err();
            assert!(matches!(e, crate::base::error::Error::Usage(_)), "{e}");
        }
        assert!(is_empty(tmp.path()));
    }
}
