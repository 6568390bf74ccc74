//! The one well-formedness check of render's tests, for a chart (one XML
//! element) and for a report page (`<!DOCTYPE html>` and one `<html>`
//! element, written so that an XML parser reads it too).
//!
//! It accepts only what the writers are meant to produce, which is
//! stricter than XML: tags that nest and match, names of ASCII letters,
//! digits and `-_:`, attributes `name="value"` (double quotes) once each,
//! `<` never in text or values, every `&` one of the five named
//! references or a decimal one of a character XML allows, no character
//! XML 1.0 forbids, one root with nothing but white space around it. A
//! page's `<style>` holds text only; outside `<svg>`, HTML's void
//! elements are self-closed and no other element is.

/// One piece of markup.
#[derive(Debug, PartialEq)]
pub(crate) enum Tok<'a> {
    /// Name, attributes, whether self-closed (`<path …/>`).
    Open(&'a str, Vec<(&'a str, &'a str)>, bool),
    Close(&'a str),
    Text(&'a str),
}

/// HTML's void elements: written self-closed, never closed.
const VOID: [&str; 4] = ["meta", "br", "hr", "img"];

/// Checks that `s` is one well-formed XML element (a chart).
pub(crate) fn well_formed(s: &str) -> Result<(), String> {
    nest(&tokens(s)?, false)
}

/// Checks a report page: `<!DOCTYPE html>` on the first line, then one
/// well-formed `<html>` element with HTML's void elements self-closed.
pub(crate) fn well_formed_page(s: &str) -> Result<(), String> {
    let toks = page_tokens(s)?;
    if let Some(Tok::Open(name, _, _)) = toks.iter().find(|t| matches!(t, Tok::Open(..)))
        && *name != "html"
    {
        return Err(format!("the root is <{name}>, not <html>"));
    }
    nest(&toks, true)
}

/// The tokens of a page after its `<!DOCTYPE html>` line, checked as [`tokens`] checks them.
pub(crate) fn page_tokens(s: &str) -> Result<Vec<Tok<'_>>, String> {
    let rest = s
        .strip_prefix("<!DOCTYPE html>\n")
        .ok_or("the page does not start with <!DOCTYPE html>")?;
    tokens(rest)
}

/// `s` as tokens, each checked on the way: text and attribute values
/// (see [`check_text`]), names, attributes, and `<style>` as text only.
/// Whether tags nest is [`nest`]'s part.
pub(crate) fn tokens(s: &str) -> Result<Vec<Tok<'_>>, String> {
    let mut out = Vec::new();
    let mut rest = s;
    while !rest.is_empty() {
        let Some(lt) = rest.find('<') else {
            check_text(rest)?;
            out.push(Tok::Text(rest));
            break;
        };
        if lt > 0 {
            check_text(&rest[..lt])?;
            out.push(Tok::Text(&rest[..lt]));
        }
        let (tok, after) = tag(&rest[lt + 1..])?;
        rest = after;
        if let Tok::Open("style", _, false) = tok {
            // Raw text to its closing tag: no markup inside.
            let close = rest.find("</style>").ok_or("unclosed <style>")?;
            if rest[..close].contains('<') {
                return Err("< inside <style>".into());
            }
            check_text(&rest[..close])?;
            out.push(tok);
            out.push(Tok::Text(&rest[..close]));
            rest = &rest[close..];
            continue;
        }
        out.push(tok);
    }
    Ok(out)
}

/// The tag that `src` starts with (after its `<`), and what follows it.
fn tag(src: &str) -> Result<(Tok<'_>, &str), String> {
    // The tag runs to the first '>' outside double quotes.
    let mut quoted = false;
    let end = src
        .char_indices()
        .find(|&(_, c)| {
            if c == '"' {
                quoted = !quoted;
            }
            c == '>' && !quoted
        })
        .ok_or("unterminated tag")?
        .0;
    let (tag, rest) = (&src[..end], &src[end + 1..]);
    if let Some(name) = tag.strip_prefix('/') {
        if !is_name(name) {
            return Err(format!("bad closing tag </{name}>"));
        }
        return Ok((Tok::Close(name), rest));
    }
    let (body, empty) = match tag.strip_suffix('/') {
        Some(b) => (b, true),
        None => (tag, false),
    };
    let name_end = body.find(char::is_whitespace).unwrap_or(body.len());
    let name = &body[..name_end];
    if !is_name(name) {
        return Err(format!("bad element name {name:?}"));
    }
    Ok((Tok::Open(name, attributes(name, &body[name_end..])?, empty), rest))
}

/// The attributes `a` of element `name`: `name="value"` each, apart, once.
fn attributes<'a>(name: &str, a: &'a str) -> Result<Vec<(&'a str, &'a str)>, String> {
    let mut attrs = Vec::new();
    let mut a = a.trim_start();
    while !a.is_empty() {
        let eq = a.find('=').ok_or_else(|| format!("attribute without value in <{name}>"))?;
        let an = a[..eq].trim();
        if !is_name(an) || attrs.iter().any(|(n, _)| *n == an) {
            return Err(format!("bad or repeated attribute {an:?} in <{name}>"));
        }
        let after = a[eq + 1..].strip_prefix('"').ok_or("unquoted attribute")?;
        let close = after.find('"').ok_or("unterminated attribute")?;
        check_text(&after[..close])?;
        attrs.push((an, &after[..close]));
        let tail = &after[close + 1..];
        if !tail.is_empty() && !tail.starts_with(char::is_whitespace) {
            return Err(format!("no space between attributes in <{name}>"));
        }
        a = tail.trim_start();
    }
    Ok(attrs)
}

/// An element or attribute name: an ASCII letter, then letters, digits and `-_:`.
fn is_name(n: &str) -> bool {
    n.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) && n.chars().all(|c| c.is_ascii_alphanumeric() || "-_:".contains(c))
}

/// Text or an attribute value: no `<`, no character XML 1.0 forbids, and
/// every `&` a named reference of XML's five or a decimal one of a
/// character XML allows.
fn check_text(t: &str) -> Result<(), String> {
    if t.contains('<') {
        return Err(format!("raw < in {t:?}"));
    }
    if let Some(c) = t.chars().find(|&c| !xml_char(c)) {
        return Err(format!("character U+{:04X} in {t:?}", c as u32));
    }
    let mut rest = t;
    while let Some(i) = rest.find('&') {
        let r = &rest[i + 1..];
        let end = r.find(';').ok_or_else(|| format!("unterminated reference in {t:?}"))?;
        let name = &r[..end];
        let ok = matches!(name, "amp" | "lt" | "gt" | "quot" | "apos")
            || name
                .strip_prefix('#')
                .filter(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
                .and_then(|d| d.parse::<u32>().ok())
                .and_then(char::from_u32)
                .is_some_and(xml_char);
        if !ok {
            return Err(format!("bad reference &{name}; in {t:?}"));
        }
        rest = &r[end + 1..];
    }
    Ok(())
}

/// Whether XML 1.0 allows `c` in a document.
fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || (c >= ' ' && c != '\u{FFFE}' && c != '\u{FFFF}')
}

/// Checks that the tags of `toks` nest and match, under one root with
/// only white space outside it; with `html`, that outside `<svg>` the void
/// elements are self-closed and no other element is.
fn nest(toks: &[Tok], html: bool) -> Result<(), String> {
    let mut stack: Vec<&str> = Vec::new();
    let mut roots = 0;
    for t in toks {
        match t {
            Tok::Open(name, _, empty) => {
                if html && !stack.contains(&"svg") && VOID.contains(name) != *empty {
                    return Err(format!("<{name}> self-closed wrongly"));
                }
                if stack.is_empty() {
                    roots += 1;
                }
                if !empty {
                    stack.push(name);
                }
            }
            Tok::Close(name) => {
                let open = stack.pop().ok_or_else(|| format!("</{name}> without an open tag"))?;
                if open != *name {
                    return Err(format!("</{name}> closes <{open}>"));
                }
            }
            Tok::Text(t) => {
                if stack.is_empty() && !t.trim().is_empty() {
                    return Err(format!("text outside the root: {t:?}"));
                }
            }
        }
    }
    if !stack.is_empty() {
        return Err(format!("unclosed <{}>", stack.join("> <")));
    }
    if roots != 1 {
        return Err(format!("{roots} root elements"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checker_rejects_what_it_should() {
        for ok in [
            "<a><b x=\"1\"/></a>",
            "<a>x &amp; y &#39; &lt;&gt;&quot;&apos;</a>",
            "\n<a title=\"it's &#8230;\">é\t\r\n</a>\n",
            "<a><style>b { c: d }</style></a>",
        ] {
            assert!(well_formed(ok).is_ok(), "{ok}: {:?}", well_formed(ok));
        }
        for bad in [
            "<a><b></a>",
            "<a x=\"1\" x=\"2\"/>",
            "<a>x & y</a>",
            "<a>&nbsp;</a>",
            "<a>&#x41;</a>",
            "<a>&#0;</a>",
            "<a>&#;</a>",
            "<a x=\"<\"/>",
            "<a/><b/>",
            "x<a/>",
            "<a/>x",
            "",
            "<a x=1/>",
            "<a x='1'/>",
            "<a x=\"1\"y=\"2\"/>",
            "<a x/>",
            "<_a/>",
            "<a.b/>",
            "<a></a >",
            "<a>\u{1}</a>",
            "<a x=\"\u{FFFF}\"/>",
            "<a><style><b/></style></a>",
            "<a><style>&</style></a>",
            "<a",
            "<!-- no comments --><a/>",
        ] {
            assert!(well_formed(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_page_has_a_doctype_an_html_root_and_void_elements_self_closed() {
        let ok =
            "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"/></head><body><br/><svg><path d=\"M0 0\"/><g></g></svg></body></html>\n";
        assert!(well_formed_page(ok).is_ok(), "{:?}", well_formed_page(ok));
        for bad in [
            "<html></html>",
            "<!DOCTYPE html>\n<body></body>",
            "<!DOCTYPE html>\n<html><meta charset=\"utf-8\"></meta></html>",
            "<!DOCTYPE html>\n<html><div/></html>",
            "<!DOCTYPE html>\n<html></html><p></p>",
        ] {
            assert!(well_formed_page(bad).is_err(), "{bad}");
        }
        let toks = page_tokens(ok).unwrap();
        assert_eq!(toks[0], Tok::Open("html", vec![], false));
        assert_eq!(toks[2], Tok::Open("meta", vec![("charset", "utf-8")], true));
    }
}
