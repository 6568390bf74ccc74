//! Strings iolab did not write (labels, job and host names from imported
//! documents and fio servers, paths), made safe where a human format
//! writes them: [`terminal`] for the terminal and stderr lines,
//! [`markdown`] and [`csv`] for those formats. The renderers call these
//! where they turn a cell or a sentence into output, so a view never
//! carries escaped text; HTML has its own escape (`html::esc`).

use std::borrow::Cow;

/// A character a terminal or a viewer may act on instead of showing it:
/// every C0 control (ESC, which starts ANSI and OSC sequences, CR, which
/// returns to the start of a line, BEL, …), DEL, the C1 controls (U+0080
/// to U+009F, CSI and OSC among them), and the bidirectional overrides
/// and isolates that reorder what a line shows.
fn unsafe_char(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `s` with each such character replaced: a line break or tab by a space
/// (the text stays on its line), any other by U+FFFD, so that it shows.
pub fn terminal(s: &str) -> Cow<'_, str> {
    if !s.chars().any(unsafe_char) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(
        s.chars()
            .map(|c| match c {
                '\n' | '\t' => ' ',
                c if unsafe_char(c) => char::REPLACEMENT_CHARACTER,
                c => c,
            })
            .collect(),
    )
}

/// [`terminal`], keeping the line breaks: for a message of several lines.
pub fn terminal_lines(s: &str) -> String {
    s.split('\n').map(terminal).collect::<Vec<_>>().join("\n")
}

/// Text for a Markdown table cell, heading or list item: [`terminal`],
/// then `\` and `|` escaped (the table stays whole) and `<`, `>` as
/// entities (no HTML tag or autolink reaches the page).
pub fn markdown(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in terminal(s).chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '|' => out.push_str("\\|"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

/// A CSV field's text: [`terminal`] (so a tab or CR cannot start a
/// formula either), and a leading `=`, `+`, `-` or `@`, which a
/// spreadsheet reads as a formula, behind a `'`, unless the field is a
/// number (a negative change stays a number).
pub fn csv(s: &str) -> Cow<'_, str> {
    let t = terminal(s);
    // Some readers trim blanks first: look past them.
    let formula = t.trim_start().starts_with(['=', '+', '-', '@']) && t.trim().parse::<f64>().is_err();
    if formula { Cow::Owned(format!("'{t}")) } else { t }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_replaced_and_plain_text_is_kept() {
        assert_eq!(terminal("randread 4K Q1T1 · µs"), "randread 4K Q1T1 · µs");
        assert_eq!(terminal("a\x1b[2Jb\x1b]0;owned\x07c"), "a\u{fffd}[2Jb\u{fffd}]0;owned\u{fffd}c");
        assert_eq!(
            terminal("fake\rline\nnext\tx\u{7f}\u{9b}y"),
            "fake\u{fffd}line next x\u{fffd}\u{fffd}y"
        );
        assert_eq!(terminal("abc\u{202e}fed"), "abc\u{fffd}fed");
        assert_eq!(terminal_lines("one\x1b\ntwo"), "one\u{fffd}\ntwo");
    }

    #[test]
    fn markdown_escapes_tables_and_tags() {
        assert_eq!(markdown("a|b\\c <img src=x onerror=y>"), "a\\|b\\\\c &lt;img src=x onerror=y&gt;");
        assert_eq!(markdown("x\ny"), "x y");
    }

    #[test]
    fn csv_neutralises_formulas_but_not_numbers() {
        for (raw, want) in [
            ("=HYPERLINK(\"x\")", "'=HYPERLINK(\"x\")"),
            ("+1+2", "'+1+2"),
            ("-cmd|x", "'-cmd|x"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\t=1", "' =1"),
            ("\r=1", "\u{fffd}=1"),
            ("-5.25", "-5.25"),
            ("+3", "+3"),
            ("1e-3", "1e-3"),
            ("seq write", "seq write"),
        ] {
            assert_eq!(csv(raw), want, "{raw:?}");
        }
    }
}
