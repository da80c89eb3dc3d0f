//! Finds the links in a note's text: wikilinks, embeds, markdown links and markdown embeds,
//! each with the exact byte span of the whole link and of its target.
//!
//! Parsing never fails: text that is not a link is simply not a link. Code (fenced, indented
//! and inline) and the YAML frontmatter are not searched for body links; pulldown-cmark tells
//! where they are, so this module agrees with a real CommonMark reader about what is code.

use std::ops::Range;

use pulldown_cmark::{Event, Options, Parser, Tag};
use serde::{Deserialize, Serialize};

use crate::line_index::LineIndex;

/// The most links kept for one note. Past it the rest are dropped and
/// [`ParsedLinks::truncated`] says so; 50,000 is far above any real note.
pub const MAX_LINKS_PER_NOTE: usize = 50_000;

/// How far a markdown link's `[text]` may run, in bytes, before we stop looking for its `]`.
/// This keeps a stray `[` from turning the scan quadratic on long lines.
const MAX_LINK_TEXT_BYTES: usize = 4_096;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkKind {
    /// `[[target|display]]`
    Wikilink,
    /// `![[target|display]]`
    Embed,
    /// `[display](target)`
    Markdown,
    /// `![display](target)`
    MarkdownEmbed,
}

/// A half-open byte range into the text that was parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl From<Range<usize>> for Span {
    fn from(range: Range<usize>) -> Span {
        Span { start: range.start, end: range.end }
    }
}

/// One link as written in a note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    pub kind: LinkKind,
    /// The target part exactly as written: `Note#Heading` in `[[Note#Heading|shown]]`.
    pub target: String,
    /// The path part of the target, percent-decoded for markdown links; empty for a link to a
    /// heading or block of the same note (`[[#Heading]]`).
    pub path: String,
    /// What follows the first `#` of the target, with the `#`: `#Heading`, `#^block-id`.
    pub subpath: Option<String>,
    /// The text after the first `|` of a wikilink, or the bracketed text of a markdown link.
    pub display: Option<String>,
    /// The whole link, `[[` to `]]` or `[` to `)`.
    pub span: Span,
    /// The target part, as written (inside `<…>` for an angle-bracket destination).
    pub target_span: Span,
    /// 1-based line of the link's start.
    pub line: u32,
    /// 1-based column of the link's start, in characters.
    pub column: u32,
}

/// The links of one note.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedLinks {
    pub links: Vec<Link>,
    /// True when the note had more than [`MAX_LINKS_PER_NOTE`] links and the rest were dropped.
    pub truncated: bool,
}

/// Parses the body links of `text`, in the order they appear.
pub fn parse_links(text: &str) -> ParsedLinks {
    let skipped = skipped_ranges(text);
    let lines = LineIndex::new(text);
    let bytes = text.as_bytes();
    let mut parsed = ParsedLinks::default();
    let mut skip = skipped.iter().peekable();
    let mut at = 0;
    while at < bytes.len() {
        while skip.peek().is_some_and(|range| range.end <= at) {
            skip.next();
        }
        if let Some(range) = skip.peek() {
            if range.start <= at {
                at = range.end;
                continue;
            }
        }
        let found = match bytes[at] {
            b'!' if bytes.get(at + 1) == Some(&b'[') => scan_link(text, at + 1, true),
            b'[' => scan_link(text, at, false),
            _ => None,
        };
        match found {
            Some(mut link) => {
                let span_end = link.span.end;
                if parsed.links.len() == MAX_LINKS_PER_NOTE {
                    parsed.truncated = true;
                    break;
                }
                let position = lines.position(link.span.start);
                link.line = position.line;
                link.column = position.column;
                parsed.links.push(link);
                at = span_end;
            }
            None => at += 1,
        }
    }
    parsed
}

/// Byte ranges that hold no body links: code blocks, inline code and the frontmatter block.
fn skipped_ranges(text: &str) -> Vec<Range<usize>> {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS
        | Options::ENABLE_STRIKETHROUGH;
    let mut ranges = Vec::new();
    for (event, range) in Parser::new_ext(text, options).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(_)) | Event::Start(Tag::MetadataBlock(_)) | Event::Code(_) => {
                ranges.push(range)
            }
            _ => {}
        }
    }
    ranges.sort_by_key(|range| range.start);
    ranges
}

/// Scans a link whose `[` is at `open`; `embed` says a `!` stands before it.
fn scan_link(text: &str, open: usize, embed: bool) -> Option<Link> {
    let start = if embed { open - 1 } else { open };
    if text[open..].starts_with("[[") {
        scan_wikilink(text, start, open + 2, embed)
    } else {
        scan_markdown_link(text, start, open + 1, embed)
    }
}

fn scan_wikilink(text: &str, start: usize, inner_start: usize, embed: bool) -> Option<Link> {
    let rest = &text[inner_start..];
    let line_end = rest.find('\n').unwrap_or(rest.len());
    let close = rest[..line_end].find("]]")?;
    let inner = &rest[..close];
    // `[[a [[b]]` links to `b`: the later opening wins, as in Obsidian.
    if inner.contains("[[") || inner.trim().is_empty() {
        return None;
    }
    let (target_len, display) = match inner.find('|') {
        // In a table row the separator must be escaped as `\|`; the backslash is not part of
        // the target.
        Some(bar) if inner[..bar].ends_with('\\') => (bar - 1, Some(&inner[bar + 1..])),
        Some(bar) => (bar, Some(&inner[bar + 1..])),
        None => (inner.len(), None),
    };
    let target = &inner[..target_len];
    let (path, subpath) = split_subpath(target);
    Some(Link {
        kind: if embed { LinkKind::Embed } else { LinkKind::Wikilink },
        target: target.to_owned(),
        path: path.trim().to_owned(),
        subpath: subpath.map(str::to_owned),
        display: display.map(str::to_owned),
        span: Span { start, end: inner_start + close + 2 },
        target_span: Span { start: inner_start, end: inner_start + target_len },
        line: 0,
        column: 0,
    })
}

fn scan_markdown_link(text: &str, start: usize, text_start: usize, embed: bool) -> Option<Link> {
    let bytes = text.as_bytes();
    let limit = (text_start + MAX_LINK_TEXT_BYTES).min(bytes.len());
    let mut depth = 0usize;
    let mut at = text_start;
    let text_end = loop {
        if at >= limit {
            return None;
        }
        match bytes[at] {
            b'\\' => at += 1,
            b'[' => depth += 1,
            b']' if depth == 0 => break at,
            b']' => depth -= 1,
            b'\n' if bytes.get(at + 1) == Some(&b'\n') => return None,
            _ => {}
        }
        at += 1;
    };
    if bytes.get(text_end + 1) != Some(&b'(') {
        return None;
    }
    let mut at = text_end + 2;
    while bytes.get(at) == Some(&b' ') {
        at += 1;
    }
    let (target_span, after_target) = if bytes.get(at) == Some(&b'<') {
        let close = text[at + 1..].find(['>', '\n'])? + at + 1;
        if bytes[close] != b'>' {
            return None;
        }
        (at + 1..close, close + 1)
    } else {
        let mut end = at;
        let mut parens = 0usize;
        while let Some(&byte) = bytes.get(end) {
            match byte {
                b'\\' => end += 1,
                b'(' => parens += 1,
                b')' if parens == 0 => break,
                b')' => parens -= 1,
                byte if byte.is_ascii_whitespace() => break,
                _ => {}
            }
            end += 1;
        }
        (at..end.min(bytes.len()), end.min(bytes.len()))
    };
    let close = scan_title_and_close(text, after_target)?;
    let target = &text[target_span.clone()];
    if target.is_empty() || has_scheme(target) {
        return None;
    }
    let (path, subpath) = split_subpath(target);
    Some(Link {
        kind: if embed { LinkKind::MarkdownEmbed } else { LinkKind::Markdown },
        target: target.to_owned(),
        path: percent_decode(path),
        subpath: subpath.map(percent_decode),
        display: Some(text[text_start..text_end].to_owned()),
        span: Span { start, end: close + 1 },
        target_span: target_span.into(),
        line: 0,
        column: 0,
    })
}

/// After a destination: optional spaces, an optional quoted title, spaces, then `)`.
/// Returns the offset of the `)`.
fn scan_title_and_close(text: &str, mut at: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    while bytes.get(at).is_some_and(|byte| *byte == b' ' || *byte == b'\t') {
        at += 1;
    }
    if let Some(&quote @ (b'"' | b'\'')) = bytes.get(at) {
        let close = text[at + 1..].find(quote as char)? + at + 1;
        at = close + 1;
        while bytes.get(at).is_some_and(|byte| *byte == b' ' || *byte == b'\t') {
            at += 1;
        }
    }
    (bytes.get(at) == Some(&b')')).then_some(at)
}

/// Splits `Note#Heading` into `("Note", Some("#Heading"))`.
fn split_subpath(target: &str) -> (&str, Option<&str>) {
    match target.find('#') {
        Some(hash) => (&target[..hash], Some(&target[hash..])),
        None => (target, None),
    }
}

/// True for `https:`, `mailto:`, `obsidian:` and any other `scheme:` prefix.
fn has_scheme(target: &str) -> bool {
    let Some(colon) = target.find(':') else { return false };
    let scheme = &target[..colon];
    // A single letter is a Windows drive (`C:`), which Obsidian treats as a file path.
    scheme.len() > 1
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// Decodes `%XX` escapes. A sequence that does not decode to UTF-8 is kept as written.
pub fn percent_decode(text: &str) -> String {
    if !text.contains('%') {
        return text.to_owned();
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'%' {
            let hex = bytes.get(at + 1..at + 3).and_then(|pair| std::str::from_utf8(pair).ok());
            if let Some(value) = hex.and_then(|pair| u8::from_str_radix(pair, 16).ok()) {
                out.push(value);
                at += 3;
                continue;
            }
        }
        out.push(bytes[at]);
        at += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks the links of `text`, each written `kind target path subpath display`.
    fn check(text: &str, expected: &[&str]) {
        let parsed = parse_links(text);
        let actual: Vec<String> = parsed
            .links
            .iter()
            .map(|link| {
                assert_eq!(&text[link.target_span.start..link.target_span.end], link.target);
                format!(
                    "{:?} {:?} path={:?} sub={:?} display={:?}",
                    link.kind, link.target, link.path, link.subpath, link.display
                )
            })
            .collect();
        assert_eq!(actual, expected, "links of {text:?}");
    }

    #[test]
    fn wikilinks_and_embeds() {
        check(
            "See [[Alpha]], [[Beta|the b]] and ![[img.png|100]].",
            &[
                r#"Wikilink "Alpha" path="Alpha" sub=None display=None"#,
                r#"Wikilink "Beta" path="Beta" sub=None display=Some("the b")"#,
                r#"Embed "img.png" path="img.png" sub=None display=Some("100")"#,
            ],
        );
    }

    #[test]
    fn headings_blocks_and_self_links() {
        check(
            "[[T#H1#H2]] [[T#^abc]] [[#Local]]",
            &[
                r##"Wikilink "T#H1#H2" path="T" sub=Some("#H1#H2") display=None"##,
                r##"Wikilink "T#^abc" path="T" sub=Some("#^abc") display=None"##,
                r##"Wikilink "#Local" path="" sub=Some("#Local") display=None"##,
            ],
        );
    }

    #[test]
    fn markdown_links_decode_and_skip_urls() {
        check(
            "[a](Folder/My%20Note.md#Top) ![i](<x y.png>) [w](https://example.com) [t](b.md \"title\")",
            &[
                r##"Markdown "Folder/My%20Note.md#Top" path="Folder/My Note.md" sub=Some("#Top") display=Some("a")"##,
                r#"MarkdownEmbed "x y.png" path="x y.png" sub=None display=Some("i")"#,
                r#"Markdown "b.md" path="b.md" sub=None display=Some("t")"#,
            ],
        );
    }

    #[test]
    fn code_and_frontmatter_hold_no_body_links() {
        check(
            "---\nup: \"[[Meta]]\"\n---\n`[[a]]`\n\n```\n[[b]]\n```\n\n    [[c]]\n\n[[d]]\n",
            &[r#"Wikilink "d" path="d" sub=None display=None"#],
        );
    }

    #[test]
    fn positions_are_lines_and_character_columns() {
        let parsed = parse_links("é\n  [[X]]");
        assert_eq!((parsed.links[0].line, parsed.links[0].column), (2, 3));
    }

    #[test]
    fn unclosed_and_empty_links_are_not_links() {
        check("[[a\n]] [[ ]] [x](", &[]);
    }
}
