//! A headless browser for the HTML report's acceptance tests: Debian's `chromium`, driven
//! over the DevTools protocol on a pipe (`--remote-debugging-pipe`: the browser reads
//! NUL-terminated JSON commands on fd 3 and writes replies and events on fd 4), so no
//! websocket and no extra crate.
//!
//! Every call ([`Browser::load`], [`Browser::screenshot`]) starts its own browser with a
//! fresh profile in a temporary directory, in a process group of its own, and never lets
//! the page reach the network:
//!
//! * The page's session enables `Runtime`, `Log`, `Network` and `Page`, and `Fetch` with
//!   the pattern `*`: every request pauses in the harness, which lets the file itself
//!   through and fails all others (`BlockedByClient`) after noting their URL. So a stray
//!   `http://` reference is reported at once instead of hanging the load event, and
//!   nothing leaves the machine. Requests are noted from `Network.requestWillBeSent`,
//!   `Network.webSocketCreated` and `Fetch.requestPaused`; `data:` URLs (inline content)
//!   and the file itself are not requests.
//! * Console messages at level error or warning come from `Runtime.consoleAPICalled`
//!   (`console.error`, `console.warn`, `console.assert`), `Runtime.exceptionThrown`
//!   (uncaught exceptions and unhandled rejections) and `Log.entryAdded` (the browser's
//!   own: failed loads, CSP, deprecations).
//! * JavaScript off: `--blink-settings=scriptEnabled=false` on the command line (applies to
//!   every frame from the first document on). The DOM is then read with
//!   `DOM.getOuterHTML`, which needs no script (chromium's own `--dump-dom` prints nothing
//!   at all with scripts disabled: it evaluates script in the page).
//! * After `Page.loadEventFired` the harness waits until the page has been quiet (no
//!   protocol event) for [`QUIET`], at most [`SETTLE_MAX`], so requests and messages of
//!   the load's last moments are in. Anything a page does later (timers) is not seen.
//!
//! Bounded time: each call has a deadline ([`TIMEOUT`], or [`Browser::timeout`]); on
//! timeout it panics, and whether it returns or unwinds, the session's `Drop` kills the
//! whole process group (SIGKILL), reaps the browser and removes the profile directory.
//!
//! A missing browser is a skip for want of a tool ([`Browser::find`] records it, see
//! [`super::skip`]): a failure under `CI=true`.

use std::cell::Cell;
use std::fs::{self, File};
use std::io::{BufRead, BufReader, PipeWriter, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process_group};
use serde_json::{Value, json};

use super::emu::{current_test_name, output_with_timeout};
use super::skip;

/// How long one call (start, load, read back, screenshot) may take.
pub const TIMEOUT: Duration = Duration::from_secs(60);
/// After the load event: the page counts as settled once no event came for this long…
pub const QUIET: Duration = Duration::from_millis(200);
/// …or this long after the load event at most.
pub const SETTLE_MAX: Duration = Duration::from_secs(2);

/// How long a browser may take to exit after `Browser.close` before it is killed.
const CLOSE: Duration = Duration::from_secs(3);

/// The names looked up on `PATH`, in order.
const NAMES: [&str; 4] = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"];

/// The switches of every session. `--no-sandbox`: the sandbox refuses to run as root
/// (and needs user namespaces otherwise); the pages are our own.
const SWITCHES: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--remote-debugging-pipe",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-gpu",
    "--disable-extensions",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-sync",
    "--disable-breakpad",
    "--disable-dev-shm-usage",
    "--mute-audio",
    "--hide-scrollbars",
    "--password-store=basic",
    "--use-mock-keychain",
];

/// A chromium found on `PATH`.
#[derive(Debug, Clone)]
pub struct Browser {
    path: PathBuf,
    timeout: Duration,
}

/// What a page showed after loading.
#[derive(Debug, Clone)]
pub struct Page {
    /// The serialized DOM after the load (`document.documentElement.outerHTML` with the
    /// doctype, as `--dump-dom` prints it).
    pub dom: String,
    /// Every console message at level error or warning, in arrival order.
    pub console: Vec<ConsoleMessage>,
    /// Every URL the page tried to fetch (other than the file itself and `data:` URLs),
    /// in order, each once. None of them was allowed to leave the machine.
    pub requests: Vec<String>,
    /// How long the call took, browser start and exit included.
    pub elapsed: Duration,
}

/// A console message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsoleMessage {
    pub level: Level,
    /// Where it came from: `console-api`, `exception`, or the `Log` domain's source
    /// (`network`, `security`, `javascript`, …).
    pub source: String,
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Error,
    Warning,
}

impl Page {
    /// The messages at level error.
    pub fn errors(&self) -> Vec<&ConsoleMessage> {
        self.console.iter().filter(|m| m.level == Level::Error).collect()
    }
}

thread_local! {
    /// The process group of this thread's last browser session (for the harness's own
    /// check that nothing survives a session).
    static LAST_GROUP: Cell<Option<u32>> = const { Cell::new(None) };
}

/// The process group of the last browser session started on this thread.
pub fn last_process_group() -> Option<u32> {
    LAST_GROUP.with(|g| g.get())
}

impl Browser {
    /// The first of chromium, chromium-browser, google-chrome on `PATH`. None when there
    /// is none, after counting the test as skipped for want of a tool ([`super::skip`]):
    /// under `CI=true` this panics instead (scripts/test installs chromium).
    pub fn find() -> Option<Browser> {
        let found = std::env::var_os("PATH").and_then(|paths| {
            NAMES.iter().find_map(|name| {
                std::env::split_paths(&paths)
                    .map(|dir| dir.join(name))
                    .find(|p| fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
            })
        });
        if found.is_none() {
            skip::record(skip::Kind::Tool, &format!("no browser on PATH ({})", NAMES.join(", ")));
        }
        found.map(|path| Browser { path, timeout: TIMEOUT })
    }

    /// The same browser with another deadline per call.
    pub fn timeout(mut self, timeout: Duration) -> Browser {
        self.timeout = timeout;
        self
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What `--version` prints, e.g. `Chromium 156.0.8078.79 built on Debian GNU/Linux 12 (bookworm)`.
    pub fn version(&self) -> String {
        let out = output_with_timeout(Command::new(&self.path).arg("--version"), self.timeout);
        assert!(out.status.success(), "{} --version failed ({})", self.path.display(), out.status);
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// Opens `html` headless (scripts on or off) and returns the DOM after the load, the
    /// console's errors and warnings, and the requests the page attempted. Panics when the
    /// browser fails or the call exceeds its deadline.
    pub fn load(&self, html: &Path, js: bool) -> Page {
        let started = Instant::now();
        let url = file_url(html);
        let mut s = Session::start(self, &url, js);
        s.prepare();
        s.navigate();
        let root = s.call("DOM.getDocument", json!({ "depth": 0 }));
        let node = root["root"]["nodeId"].clone();
        let html = s.call("DOM.getOuterHTML", json!({ "nodeId": node }));
        let dom = html["outerHTML"].as_str().unwrap_or_default().to_string();
        let (console, requests) = (std::mem::take(&mut s.console), std::mem::take(&mut s.requests));
        drop(s);
        let elapsed = started.elapsed();
        eprintln!(
            "[{}] browser: loaded {} (js {}) in {:.2} s: {} console errors/warnings, {} requests",
            current_test_name(),
            html_name(&url),
            if js { "on" } else { "off" },
            elapsed.as_secs_f64(),
            console.len(),
            requests.len()
        );
        Page {
            dom,
            console,
            requests,
            elapsed,
        }
    }

    /// Writes a PNG of `html` (scripts on, network blocked as for [`Browser::load`]) as
    /// seen in a `width`×`height` viewport at a device scale factor of 1.
    pub fn screenshot(&self, html: &Path, png: &Path, width: u32, height: u32) {
        let started = Instant::now();
        let url = file_url(html);
        let mut s = Session::start(self, &url, true);
        s.prepare();
        s.call(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": false }),
        );
        s.navigate();
        let shot = s.call("Page.captureScreenshot", json!({ "format": "png" }));
        let data = shot["data"]
            .as_str()
            .unwrap_or_else(|| panic!("Page.captureScreenshot returned no data: {shot}"));
        let bytes = base64_decode(data).unwrap_or_else(|| panic!("Page.captureScreenshot returned bad base64"));
        drop(s);
        fs::write(png, &bytes).unwrap_or_else(|e| panic!("cannot write {}: {e}", png.display()));
        eprintln!(
            "[{}] browser: screenshot of {} ({width}x{height}, {} bytes) in {:.2} s",
            current_test_name(),
            html_name(&url),
            bytes.len(),
            started.elapsed().as_secs_f64()
        );
    }
}

/// The last part of a URL, for notes.
fn html_name(url: &str) -> &str {
    url.rsplit('/').next().unwrap_or(url)
}

/// `file://` and the absolute path, percent-encoded but for unreserved characters and `/`.
fn file_url(html: &Path) -> String {
    let abs = fs::canonicalize(html).unwrap_or_else(|e| panic!("cannot open {}: {e}", html.display()));
    let mut url = String::from("file://");
    for &b in abs.as_os_str().as_encoded_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            url.push(b as char);
        } else {
            url.push_str(&format!("%{b:02X}"));
        }
    }
    url
}

/// One browser, attached to one page target.
struct Session {
    what: String,
    url: String,
    child: Child,
    group: Pid,
    to_browser: PipeWriter,
    from_browser: Receiver<Value>,
    deadline: Instant,
    next_id: u64,
    session_id: Option<String>,
    load_fired: bool,
    console: Vec<ConsoleMessage>,
    requests: Vec<String>,
    /// The browser's stderr, shown when something fails.
    log: PathBuf,
    /// The profile and the log; removed after the browser is dead (fields drop after `drop`).
    _dir: tempfile::TempDir,
}

impl Session {
    fn start(browser: &Browser, url: &str, js: bool) -> Session {
        let dir = tempfile::Builder::new()
            .prefix("iolab-browser-")
            .tempdir()
            .expect("temporary directory");
        let profile = dir.path().join("profile");
        let log = dir.path().join("stderr.log");
        let out = File::create(&log).expect("browser log file");
        let err = out.try_clone().expect("browser log file");
        // Both pipes are close-on-exec: a browser started by a test running in parallel
        // must not inherit them (it would keep our end of the reply pipe open).
        let (cmd_r, cmd_w) = std::io::pipe().expect("pipe");
        let (out_r, out_w) = std::io::pipe().expect("pipe");
        let (fd3, fd4) = (cmd_r.as_raw_fd(), out_w.as_raw_fd());
        let mut cmd = Command::new(&browser.path);
        cmd.args(SWITCHES)
            .arg(format!("--user-data-dir={}", profile.display()))
            .args((!js).then_some("--blink-settings=scriptEnabled=false"))
            .arg("about:blank")
            // The crash handlers' database (~/.config/chromium/Crash Reports) and any
            // cache go to the temporary directory too, which also names them: they run
            // in sessions of their own, outside the group (see `Drop`).
            .env("XDG_CONFIG_HOME", dir.path().join("config"))
            .env("XDG_CACHE_HOME", dir.path().join("cache"))
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .process_group(0);
        // SAFETY: between fork and exec this only calls fcntl and dup2 (async-signal-safe).
        // The pipe ends are first moved above fd 10, so putting one on 3 cannot clobber the
        // other; dup2's copies on 3 and 4 are not close-on-exec.
        unsafe {
            cmd.pre_exec(move || {
                let a = libc::fcntl(fd3, libc::F_DUPFD_CLOEXEC, 10);
                let b = libc::fcntl(fd4, libc::F_DUPFD_CLOEXEC, 10);
                if a < 0 || b < 0 || libc::dup2(a, 3) < 0 || libc::dup2(b, 4) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", browser.path.display()));
        drop((cmd, cmd_r, out_w));
        let group = Pid::from_child(&child);
        LAST_GROUP.with(|g| g.set(Some(child.id())));
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            let mut r = BufReader::new(out_r);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match r.read_until(0, &mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {}
                }
                if buf.last() == Some(&0) {
                    buf.pop();
                }
                match serde_json::from_slice::<Value>(&buf) {
                    Ok(v) => {
                        if tx.send(v).is_err() {
                            return;
                        }
                    }
                    Err(e) => eprintln!("browser: unreadable protocol message ({e}): {}", String::from_utf8_lossy(&buf)),
                }
            }
        });
        let mut s = Session {
            what: format!("{} {url}", browser.path.display()),
            url: url.to_string(),
            child,
            group,
            to_browser: cmd_w,
            from_browser: rx,
            deadline: Instant::now() + browser.timeout,
            next_id: 0,
            session_id: None,
            load_fired: false,
            console: Vec::new(),
            requests: Vec::new(),
            log,
            _dir: dir,
        };
        let target = s.call("Target.createTarget", json!({ "url": "about:blank" }));
        let attached = s.call("Target.attachToTarget", json!({ "targetId": target["targetId"], "flatten": true }));
        let id = attached["sessionId"].as_str().map(str::to_string);
        assert!(id.is_some(), "Target.attachToTarget gave no session: {attached}");
        s.session_id = id;
        s
    }

    /// The domains whose events the harness reads, and the network block.
    fn prepare(&mut self) {
        for domain in ["Runtime", "Log", "Network", "Page"] {
            self.call(&format!("{domain}.enable"), json!({}));
        }
        self.call("Fetch.enable", json!({ "patterns": [{ "urlPattern": "*" }] }));
    }

    /// Navigates to the file, waits for the load event, then for the page to settle.
    fn navigate(&mut self) {
        self.load_fired = false;
        let nav = self.call("Page.navigate", json!({ "url": self.url }));
        if let Some(e) = nav.get("errorText") {
            panic!("{}: navigation failed: {e}", self.what);
        }
        while !self.load_fired {
            let msg = self.receive(self.deadline);
            self.dispatch(&msg);
        }
        let settled = Instant::now() + SETTLE_MAX;
        loop {
            let until = (Instant::now() + QUIET).min(settled).min(self.deadline);
            match self.from_browser.recv_timeout(until.saturating_duration_since(Instant::now())) {
                Ok(msg) => self.dispatch(&msg),
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => self.fail("the browser exited"),
            }
            if Instant::now() >= settled {
                break;
            }
        }
    }

    /// Sends a command (to the page's session once attached) and returns its result;
    /// events that arrive meanwhile are dispatched.
    fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.send(method, params);
        loop {
            let msg = self.receive(self.deadline);
            if msg.get("id").and_then(Value::as_u64) == Some(id) {
                if let Some(e) = msg.get("error") {
                    self.fail(&format!("{method} failed: {e}"));
                }
                return msg.get("result").cloned().unwrap_or(Value::Null);
            }
            self.dispatch(&msg);
        }
    }

    /// Sends a command without waiting for its reply; returns its id.
    fn send(&mut self, method: &str, params: Value) -> u64 {
        self.next_id += 1;
        let mut msg = json!({ "id": self.next_id, "method": method, "params": params });
        if let Some(s) = &self.session_id {
            msg["sessionId"] = json!(s);
        }
        let mut bytes = serde_json::to_vec(&msg).expect("JSON");
        bytes.push(0);
        if let Err(e) = self.to_browser.write_all(&bytes) {
            self.fail(&format!("cannot send {method}: {e}"));
        }
        self.next_id
    }

    fn receive(&mut self, deadline: Instant) -> Value {
        match self.from_browser.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(v) => v,
            Err(RecvTimeoutError::Timeout) => self.fail("timed out; killed"),
            Err(RecvTimeoutError::Disconnected) => self.fail("the browser exited"),
        }
    }

    /// Notes what an event of the page's session says.
    fn dispatch(&mut self, msg: &Value) {
        let Some(method) = msg.get("method").and_then(Value::as_str) else {
            return; // a reply to a command sent without waiting
        };
        if msg.get("sessionId").and_then(Value::as_str) != self.session_id.as_deref() {
            return;
        }
        let p = &msg["params"];
        match method {
            "Page.loadEventFired" => self.load_fired = true,
            "Fetch.requestPaused" => {
                let url = p["request"]["url"].as_str().unwrap_or_default().to_string();
                let id = p["requestId"].clone();
                if url == self.url {
                    self.send("Fetch.continueRequest", json!({ "requestId": id }));
                } else {
                    self.note_request(&url);
                    self.send("Fetch.failRequest", json!({ "requestId": id, "errorReason": "BlockedByClient" }));
                }
            }
            "Network.requestWillBeSent" => self.note_request(p["request"]["url"].as_str().unwrap_or_default()),
            "Network.webSocketCreated" => self.note_request(p["url"].as_str().unwrap_or_default()),
            "Runtime.consoleAPICalled" => {
                let level = match p["type"].as_str() {
                    Some("error" | "assert") => Level::Error,
                    Some("warning") => Level::Warning,
                    _ => return,
                };
                let text = p["args"]
                    .as_array()
                    .map(|args| args.iter().map(remote_text).collect::<Vec<_>>().join(" "));
                self.console.push(ConsoleMessage {
                    level,
                    source: "console-api".into(),
                    text: text.unwrap_or_default(),
                });
            }
            "Runtime.exceptionThrown" => {
                let d = &p["exceptionDetails"];
                let text = d["exception"]["description"].as_str().or(d["text"].as_str()).unwrap_or("exception");
                self.console.push(ConsoleMessage {
                    level: Level::Error,
                    source: "exception".into(),
                    text: text.to_string(),
                });
            }
            "Log.entryAdded" => {
                let e = &p["entry"];
                let level = match e["level"].as_str() {
                    Some("error") => Level::Error,
                    Some("warning") => Level::Warning,
                    _ => return,
                };
                let mut text = e["text"].as_str().unwrap_or_default().to_string();
                if let Some(u) = e["url"].as_str().filter(|u| !u.is_empty()) {
                    text = format!("{text} ({u})");
                }
                self.console.push(ConsoleMessage {
                    level,
                    source: e["source"].as_str().unwrap_or("log").to_string(),
                    text,
                });
            }
            _ => {}
        }
    }

    fn note_request(&mut self, url: &str) {
        if url != self.url && !url.starts_with("data:") && !url.is_empty() && !self.requests.iter().any(|r| r == url) {
            self.requests.push(url.to_string());
        }
    }

    /// Panics with the browser's last stderr lines (the group is killed by `Drop`).
    fn fail(&self, why: &str) -> ! {
        let log = fs::read_to_string(&self.log).unwrap_or_default();
        // Without a D-Bus (CI, containers) chromium complains on every start: not news.
        let lines: Vec<&str> = log.lines().filter(|l| !l.contains(":ERROR:dbus/")).collect();
        let tail = lines[lines.len().saturating_sub(30)..].join("\n");
        panic!("{}: {why}\nbrowser stderr (last lines):\n{tail}", self.what);
    }
}

impl Drop for Session {
    /// Closes the browser and kills what is left of its process group. `Browser.close`
    /// first (unless unwinding): the browser then reaps its own children, where a SIGKILL
    /// of the whole group leaves them to init as zombies until it reaps them. Its reply
    /// pipe closes when it exits; then SIGKILL to the group (renderer, GPU and utility
    /// processes share it), then the reap. The group's id is not reused before the reap,
    /// so the signal cannot reach a stranger. The profile directory goes after this.
    fn drop(&mut self) {
        if !thread::panicking() {
            self.session_id = None;
            self.next_id += 1;
            let close = json!({ "id": self.next_id, "method": "Browser.close", "params": {} });
            let mut bytes = serde_json::to_vec(&close).expect("JSON");
            bytes.push(0);
            if self.to_browser.write_all(&bytes).is_ok() {
                let until = Instant::now() + CLOSE;
                while let Err(RecvTimeoutError::Timeout) | Ok(_) =
                    self.from_browser.recv_timeout(until.saturating_duration_since(Instant::now()))
                {
                    if Instant::now() >= until {
                        eprintln!(
                            "[{}] browser: no exit within {CLOSE:?} of Browser.close; killing",
                            current_test_name()
                        );
                        break;
                    }
                }
            }
        }
        let _ = kill_process_group(self.group, Signal::KILL);
        let _ = self.child.wait();
        // chrome_crashpad_handler double-forks into a session of its own; it exits when
        // the browser is gone, but make sure: whatever still names the directory goes.
        for pid in naming(self._dir.path()) {
            let _ = rustix::process::kill_process(pid, Signal::KILL);
        }
    }
}

/// Live processes whose command line contains `dir`.
fn naming(dir: &Path) -> Vec<Pid> {
    let needle = dir.as_os_str().as_encoded_bytes();
    let Ok(entries) = fs::read_dir("/proc") else { return Vec::new() };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| c.windows(needle.len()).any(|w| w == needle)))
        .filter_map(Pid::from_raw)
        .collect()
}

/// The text of a console argument, as the console would show it.
fn remote_text(arg: &Value) -> String {
    match &arg["value"] {
        Value::String(s) => s.clone(),
        Value::Null => arg["description"].as_str().or(arg["type"].as_str()).unwrap_or_default().to_string(),
        v => v.to_string(),
    }
}

/// Standard base64 (with or without padding); None on a character outside the alphabet.
fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() / 4 * 3);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in s.bytes().filter(|&c| c != b'=' && !c.is_ascii_whitespace()) {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        acc = ((acc << 6) | u32::from(v)) & 0xff_ffff;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}
