//! Whether a figure may carry a verdict: the one rule every verdict asks
//! (scale's, layouts', the SD classes', `compare`'s findings and its cache
//! fitness).
//!
//! A figure is untrustworthy as the device's speed when it carries a
//! warning whose code says so ([`Code::untrustworthy`]: a cache answered,
//! a memory device, no block device, the runs too noisy...) or whose
//! severity is [`Severity::Untrustworthy`]. No verdict rests on such a
//! figure as if it were the device's: it is withheld, or it carries the
//! caveat [`Distrust::sentence`] writes, naming whose figure and why.

use super::{Code, Diagnostic, Severity};

/// Whether a warning makes the figure it is about untrustworthy.
pub fn untrusting(w: &Diagnostic) -> bool {
    w.severity == Severity::Untrustworthy || w.code.untrustworthy().is_some()
}

/// The codes among `codes` (as documents carry them) that make a figure
/// untrustworthy, each once, in the order given.
pub fn untrusted_codes<S: AsRef<str>>(codes: &[S]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in codes {
        let c: &str = c.as_ref();
        if Code::parse(c).untrustworthy().is_some() && !out.iter().any(|o| o.as_str() == c) {
            out.push(c.to_string());
        }
    }
    out
}

/// The codes of the warnings among `ws` that make a figure untrustworthy,
/// each once, in the order given.
pub fn untrusted_warnings(ws: &[Diagnostic]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in ws.iter().filter(|w| untrusting(w)) {
        if !out.iter().any(|o| w.code == o.as_str()) {
            out.push(w.code.as_str().to_string());
        }
    }
    out
}

/// Whose figures under a verdict are untrustworthy, and the codes that
/// say so.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Distrust {
    /// (whose figure: a target, a run; its untrustworthy codes), each
    /// once; an entry with no codes is left out.
    pub figures: Vec<(String, Vec<String>)>,
}

impl Distrust {
    pub fn new() -> Distrust {
        Distrust::default()
    }

    /// Adds `codes` (already the untrustworthy ones) to `whose` figures.
    pub fn add(&mut self, whose: &str, codes: &[String]) {
        if codes.is_empty() {
            return;
        }
        match self.figures.iter_mut().find(|(w, _)| w == whose) {
            Some((_, have)) => {
                for c in codes {
                    if !have.contains(c) {
                        have.push(c.clone());
                    }
                }
            }
            None => self.figures.push((whose.to_string(), codes.to_vec())),
        }
    }

    /// The same without the codes a verdict weighs itself (scale judges
    /// the CPU: `cpu_bound` does not withhold its verdicts).
    pub fn without(&self, code: &Code) -> Distrust {
        let mut d = Distrust::new();
        for (whose, codes) in &self.figures {
            let kept: Vec<String> = codes.iter().filter(|c| *code != c.as_str()).cloned().collect();
            d.add(whose, &kept);
        }
        d
    }

    /// Nothing under the verdict is untrustworthy.
    pub fn is_empty(&self) -> bool {
        self.figures.is_empty()
    }

    /// "/dev/loop0 and /dev/loop1 carry memory_device (the device is
    /// memory-backed: memory speed)": whose figures carry which codes,
    /// those with the same codes together, each code's reason said once.
    /// Empty when nothing is untrustworthy.
    pub fn sentence(&self) -> String {
        let mut groups: Vec<(Vec<&str>, &Vec<String>)> = Vec::new();
        for (whose, codes) in &self.figures {
            match groups.iter_mut().find(|(_, c)| *c == codes) {
                Some((names, _)) => names.push(whose),
                None => groups.push((vec![whose.as_str()], codes)),
            }
        }
        let mut said: Vec<&str> = Vec::new();
        let parts: Vec<String> = groups
            .iter()
            .map(|(names, codes)| {
                let verb = if names.len() == 1 { "carries" } else { "carry" };
                let codes: Vec<String> = codes
                    .iter()
                    .map(|c| {
                        let why = Code::parse(c).untrustworthy().filter(|_| !said.contains(&c.as_str()));
                        said.push(c);
                        match why {
                            Some(why) => format!("{c} ({why})"),
                            None => c.clone(),
                        }
                    })
                    .collect();
                format!("{} {verb} {}", and_list(names), codes.join(", "))
            })
            .collect();
        parts.join("; ")
    }
}

/// "a", "a and b", "a, b and c".
fn and_list(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_codes_that_say_so_are_untrusted_each_once() {
        let codes = [
            "at_throttle",
            "memory_device",
            "write_cliff",
            "cache_answered",
            "memory_device",
            "from_the_future",
        ];
        assert_eq!(untrusted_codes(&codes), ["memory_device", "cache_answered"]);
        assert!(untrusted_codes::<&str>(&[]).is_empty());
    }

    #[test]
    fn a_warning_is_untrusting_by_its_code_or_its_severity() {
        let plain = Diagnostic::new(Code::AtThrottle, "at the throttle");
        assert!(!untrusting(&plain));
        assert!(untrusting(&Diagnostic::new(Code::MemoryDevice, "memory")));
        let raised = Diagnostic {
            severity: Severity::Untrustworthy,
            ..plain.clone()
        };
        assert!(untrusting(&raised));
        assert_eq!(
            untrusted_warnings(&[plain, raised, Diagnostic::new(Code::HighCv, "noisy")]),
            ["at_throttle", "high_cv"]
        );
    }

    #[test]
    fn the_sentence_groups_whose_figures_and_says_each_reason_once() {
        let mut d = Distrust::new();
        assert!(d.is_empty() && d.sentence().is_empty());
        d.add("/dev/loop0", &["memory_device".into()]);
        d.add("/dev/loop1", &["memory_device".into()]);
        d.add("/dev/loop1", &[]);
        assert_eq!(
            d.sentence(),
            "/dev/loop0 and /dev/loop1 carry memory_device (the device is memory-backed: memory speed)"
        );
        d.add("/mnt/c", &["memory_device".into(), "high_cv".into()]);
        assert_eq!(
            d.sentence(),
            "/dev/loop0 and /dev/loop1 carry memory_device (the device is memory-backed: memory speed); /mnt/c carries memory_device, high_cv (the runs varied by more than 10%)"
        );
    }

    #[test]
    fn a_code_the_verdict_weighs_itself_is_left_out() {
        let mut d = Distrust::new();
        d.add("a", &["cpu_bound".into()]);
        d.add("b", &["cpu_bound".into(), "cache_answered".into()]);
        let w = d.without(&Code::CpuBound);
        assert_eq!(w.figures, vec![("b".to_string(), vec!["cache_answered".to_string()])]);
        assert!(Distrust::new().without(&Code::CpuBound).is_empty());
    }
}
