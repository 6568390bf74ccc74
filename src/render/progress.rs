//! The live view on stderr: one [`Observer`] for every kind of experiment.
//!
//! - prefill: a byte bar;
//! - jobs: one bar over the planned time, labelled with the job and its pass;
//! - scan: a line per finished zone, so the curve grows sideways;
//! - scale: a line per finished point;
//! - `time`: a spinner with the elapsed time and the device's current rate;
//! - application suites: a bar per phase;
//! - notices: `iolab: WARNING: …` / `iolab: note: …` lines, always shown.
//!
//! Bars draw only on a terminal (indicatif hides them otherwise); the zone
//! and point lines are the result as it grows and are printed unless the
//! view is quiet.

use super::clean;
use crate::base::progress::{Event, Level, Observer, Pass};
use crate::base::units::{BwUnit, bw, fmt_duration};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::cell::Cell;

pub struct Terminal {
    prefill: ProgressBar,
    bar: ProgressBar,
    spinner: ProgressBar,
    phase: ProgressBar,
    /// Planned milliseconds completed before the current step.
    done_ms: Cell<u64>,
    /// Planned milliseconds of the current step.
    step_ms: Cell<u64>,
    /// The live curve's full scale (bytes/s): set by the first zone.
    zone_full: Cell<f64>,
    /// No lines but notices.
    quiet: bool,
    /// Bandwidth unit of the zone and point lines.
    unit: BwUnit,
}

fn bar(template: &str, len: Option<u64>) -> ProgressBar {
    let b = ProgressBar::with_draw_target(len, ProgressDrawTarget::stderr());
    b.set_style(
        ProgressStyle::with_template(template)
            .expect("valid template")
            .progress_chars("=> "),
    );
    b
}

impl Terminal {
    /// `quiet`: no bars and no zone or point lines, only notices; `unit`:
    /// the bandwidth unit of the lines.
    pub fn new(quiet: bool, unit: BwUnit) -> Terminal {
        let prefill = bar("{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} ETA {eta}", Some(0));
        prefill.set_message("prefilling test file");
        let hidden = |b: ProgressBar| {
            if quiet {
                b.set_draw_target(ProgressDrawTarget::hidden());
            }
            b
        };
        Terminal {
            prefill: hidden(prefill),
            bar: hidden(bar("[{elapsed_precise}] [{bar:30}] {percent}% ETA {eta} {msg}", Some(0))),
            spinner: hidden(bar("{spinner} {msg}", None)),
            phase: hidden(bar("{msg} [{bar:30}] {pos}/{len}", Some(0))),
            done_ms: Cell::new(0),
            step_ms: Cell::new(0),
            zone_full: Cell::new(0.0),
            quiet,
            unit,
        }
    }

    fn advance(&self, next_ms: u64) {
        self.done_ms.set(self.done_ms.get() + self.step_ms.get());
        self.step_ms.set(next_ms);
        self.bar.set_position(self.done_ms.get());
    }

    /// Clear every bar (before the result is printed).
    pub fn finish(&self) {
        for b in [&self.prefill, &self.bar, &self.spinner, &self.phase] {
            b.finish_and_clear();
        }
    }

    /// A line that must not be torn by a bar being drawn.
    fn line(&self, text: &str) {
        self.bar.suspend(|| eprintln!("{text}"));
    }
}

/// The live line of a finished scale point (its label cleaned, as every
/// name on these lines: see [`clean::terminal`]).
fn point_line(label: &str, bw_bytes: f64, iops: f64, unit: BwUnit) -> String {
    let label = clean::terminal(label);
    format!("{label:<40} {:>10} {} {:>10.0} IOPS", bw(bw_bytes, unit, 1), unit.label(), iops)
}

/// The spinner's text while a timed command runs: elapsed time and the device's current rate.
fn command_message(label: &str, elapsed: std::time::Duration, device: Option<(&str, f64)>, unit: BwUnit) -> String {
    let dev = device
        .map(|(d, b)| format!(" · {} {} {}", clean::terminal(d), bw(b, unit, 1), unit.label()))
        .unwrap_or_default();
    format!("{} · {:.1} s{dev}", clean::terminal(label), elapsed.as_secs_f64())
}

/// A notice's line (which may name a host or a job): its own line breaks kept.
fn notice_line(level: Level, text: &str) -> String {
    let text = clean::terminal_lines(text);
    match level {
        Level::Warning => format!("iolab: WARNING: {text}"),
        Level::Note => format!("iolab: note: {text}"),
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        self.finish();
    }
}

impl Observer for Terminal {
    fn event(&self, ev: Event<'_>) {
        match ev {
            Event::Prefill { done, total } => {
                self.prefill.set_length(total);
                self.prefill.set_position(done);
                if done >= total {
                    self.prefill.finish_and_clear();
                }
            }
            Event::Planned { total } => self.bar.set_length(total.as_millis() as u64),
            Event::PassStart { job, pass, planned } => {
                self.advance(planned.map(|d| d.as_millis() as u64).unwrap_or(1000));
                let what = match pass {
                    Pass::Warmup => "warm-up".to_string(),
                    Pass::Run { n, of } => format!("run {n}/{of}"),
                    Pass::Window { n, max } => format!("window {n} (until settled, ≤{max})"),
                };
                self.bar.set_message(format!("{} · {what}", clean::terminal(job)));
            }
            Event::Tick { elapsed } => {
                let e = (elapsed.as_millis() as u64).min(self.step_ms.get());
                self.bar.set_position(self.done_ms.get() + e);
            }
            Event::Interval { planned } => {
                self.advance(planned.as_millis() as u64);
                self.bar.set_message(format!("pause {}", fmt_duration(planned)));
            }
            Event::JobDone { .. } => {}
            Event::ZoneDone {
                index,
                of,
                offset,
                bw_bytes,
            } => {
                if self.zone_full.get() <= 0.0 {
                    // Scaled to the first (usually the fastest, outer) zone, so every line shares one scale.
                    self.zone_full.set(bw_bytes * 1.25);
                }
                if !self.quiet {
                    self.line(&super::chart::zone_line(
                        index,
                        of,
                        offset,
                        bw_bytes,
                        self.zone_full.get(),
                        self.unit,
                    ));
                }
            }
            Event::PointDone { label, bw_bytes, iops } => {
                if !self.quiet {
                    self.line(&point_line(label, bw_bytes, iops, self.unit));
                }
            }
            Event::Command { label, elapsed, device } => {
                self.spinner.set_message(command_message(label, elapsed, device, self.unit));
                self.spinner.tick();
            }
            Event::Phase { label, done, total } => {
                self.phase.set_length(total);
                self.phase.set_position(done);
                self.phase.set_message(clean::terminal(label).into_owned());
            }
            Event::Notice { level, text } => self.line(&notice_line(level, text)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn point_lines_align() {
        insta::assert_snapshot!(
            [
                point_line("randread 4K Q1T1 · t1", 179_321_456.7, 43779.4, BwUnit::Mb),
                point_line("all 2 targets together", 1_031_560_000.0, 251_846.0, BwUnit::Mb),
                point_line("write 1M Q4T1", 0.0, 0.0, BwUnit::Mib),
            ]
            .join("\n")
        );
    }

    #[test]
    fn command_messages_show_the_device_rate_when_known() {
        let e = Duration::from_millis(12_345);
        assert_eq!(
            command_message("run 2/5", e, Some(("vda", 123_456_789.0)), BwUnit::Mb),
            "run 2/5 · 12.3 s · vda 123.5 MB/s"
        );
        assert_eq!(
            command_message("run 2/5", e, Some(("vda", 123_456_789.0)), BwUnit::Mib),
            "run 2/5 · 12.3 s · vda 117.7 MiB/s"
        );
        assert_eq!(command_message("run 2/5", e, None, BwUnit::Mb), "run 2/5 · 12.3 s");
    }

    /// Issue 36: a name from a fio server or a document reaches stderr
    /// with no control character (here: a screen clear, a title set by
    /// OSC, a carriage return that would overwrite the line).
    #[test]
    fn progress_lines_print_no_control_character() {
        let evil = "nas\x1b[2J\x1b]0;pwned\x07\rok\u{9b}";
        let lines = [
            point_line(evil, 1.0, 1.0, BwUnit::Mb),
            command_message(evil, Duration::from_secs(1), Some((evil, 1.0)), BwUnit::Mb),
            notice_line(Level::Warning, &format!("{evil}\nsecond line {evil}")),
            notice_line(Level::Note, evil),
        ];
        for l in &lines {
            assert!(!l.chars().any(|c| c.is_control() && c != '\n'), "{l:?}");
            assert!(l.contains("nas\u{fffd}[2J"), "{l:?}");
        }
        assert_eq!(lines[2].lines().count(), 2, "a notice's own line break is kept");
    }
}
