//! The local re-read: the parts of a note that a plan's edits touch, read again from the new text
//! without parsing the note whole, when the edits provably change nothing else of its parse.
//! The move's proof (`rename::proven_locally`) uses it to prove a note with many links by
//! reading again only the links it rewrites. Its claim is tested in `crates/core/tests/reread.rs`,
//! on randomized notes and on every note of the corpora.

use crate::parse::{Link, LinkSource};
use crate::plan::{apply_edits_of, TextEdit};

/// What [`reread_locally`] read again.
#[derive(Debug)]
pub struct Reread {
    /// Every property link of the new text, when an edit is in the frontmatter (else none).
    pub properties: Vec<Link>,
    /// Each rewritten body link (its position among the note's links) as the new text reads
    /// it, its spans counted from the link's start.
    pub body: Vec<(usize, Link)>,
}

/// The parts of a note that its edits touch, read again from the new text, when the edits
/// provably change nothing else of its parse (see [`proven_locally`]); `None` when that cannot
/// be shown. `links` gives the note's `count` links as its text reads; each edit comes with the
/// whole new text of the link it rewrites and that link's position, in the order of the text.
pub fn reread_locally<'l>(
    text: &str,
    links: impl Fn(usize) -> &'l Link,
    count: usize,
    edits: &[(&TextEdit, &str, usize)],
) -> Option<Reread> {
    let body_start = match crate::frontmatter::find_block(text) {
        Some(block) => block.span.end,
        None => usize::from(text.starts_with('\u{feff}')) * '\u{feff}'.len_utf8(),
    };
    let in_front = edits.partition_point(|(edit, _, _)| edit.span.start < body_start);
    let (front_edits, body_edits) = edits.split_at(in_front);
    let mut properties = Vec::new();
    if !front_edits.is_empty() {
        let front = apply_edits_of(&text[..body_start], front_edits.iter().map(|(edit, _, _)| *edit));
        let (block, links_now) = crate::parse::frontmatter_links(&front)?;
        let before = (0..count).take_while(|&index| !matches!(links(index).source, LinkSource::Body)).count();
        if block.end != front.len() || links_now.len() != before {
            return None;
        }
        properties = links_now;
    }
    let mut body = Vec::with_capacity(body_edits.len());
    if !body_edits.is_empty() {
        let body_text = &text[body_start..];
        if body_text.contains("]:") || !markdown_links_are_simple(body_text) {
            return None;
        }
        let mut before = ClearBefore { text, floor: body_start, checked_to: None };
        for (edit, after, index) in body_edits {
            let old = links(*index);
            if old.source != LinkSource::Body || !edit_is_local(text, old, &edit.replacement) || !before.clear_up_to(old.span.start) {
                return None;
            }
            // In a table row `[[a\|b]]` ends its target at the `\`, which only a table does.
            let in_table = text.as_bytes().get(old.target_span.end) == Some(&b'\\');
            body.push((*index, crate::parse::link_alone(after, old.kind, in_table)?));
        }
    }
    Some(Reread { properties, body })
}

/// Characters no Markdown construct reads outside a link destination or title, raw HTML, an
/// autolink or a link reference definition: letters and digits of any script, the space and
/// `-./(),%'`.
fn inert(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, ' ' | '-' | '.' | '/' | '(' | ')' | ',' | '%' | '\'')
}

/// Whether replacing the target of `link` (a body link of `text`) with `replacement` changes
/// only characters that no part of the parse reads: the heading or block part is kept as
/// written; the old and the new path are inert characters without `%%`; a markdown link's are
/// also without spaces and parentheses, in a destination not written in `<…>`.
fn edit_is_local(text: &str, link: &Link, replacement: &str) -> bool {
    let written = &text[link.target_span.range()];
    let (old_path, old_subpath) = written.split_at(written.find('#').unwrap_or(written.len()));
    let (new_path, new_subpath) = replacement.split_at(replacement.find('#').unwrap_or(replacement.len()));
    let markdown = link.kind.is_markdown();
    if old_subpath != new_subpath || old_path.is_empty() || new_path.is_empty() || (markdown && link.destination.is_none_or(|d| d.angle)) {
        return false;
    }
    [old_path, new_path]
        .iter()
        .all(|path| !path.contains("%%") && path.chars().all(|c| inert(c) && !(markdown && matches!(c, ' ' | '(' | ')'))))
}

/// True when every `](` of `body` closes a simple inline link on one line: `[text](destination)`,
/// its `[` not escaped, the text free of `[]\``$` braces, angle brackets and line breaks, the
/// destination (not empty) also of whitespace and control characters, `(`, `"` and `|`, the
/// whole under 4 KB. Then the `[` of each is where pulldown-cmark may start an inline link
/// (the nearest `[` before a `](`, with nothing between that could hide it), no destination or
/// title runs past its `)`, and vaultlink's scan of such a link reads nothing past it either.
fn markdown_links_are_simple(body: &str) -> bool {
    const MOST: usize = 4096;
    let bytes = body.as_bytes();
    let in_text = |byte: u8| !matches!(byte, b'[' | b']' | b'\\' | b'`' | b'$' | b'{' | b'}' | b'<' | b'>' | b'\n' | b'\r');
    let in_destination =
        |byte: u8| in_text(byte) && !(byte.is_ascii_whitespace() || byte.is_ascii_control() || matches!(byte, b'(' | b')' | b'"' | b'|'));
    // Each `(` found with the byte search, then the `]` before it: `(` is rare where wikilinks
    // make `]` common, and a body without `](` is passed over in one quick search.
    if !body.contains("](") {
        return true;
    }
    let mut from = 0;
    while let Some(found) = body[from..].find('(') {
        let paren = from + found;
        from = paren + 1;
        if paren == 0 || bytes[paren - 1] != b']' {
            continue;
        }
        let text_end = paren - 1;
        let destination = paren + 1;
        let Some(open) = bytes[..text_end].iter().rposition(|&byte| !in_text(byte)) else { return false };
        if bytes[open] != b'[' || (open > 0 && bytes[open - 1] == b'\\') {
            return false;
        }
        let Some(length) = bytes[destination..].iter().position(|&byte| !in_destination(byte)) else { return false };
        let close = destination + length;
        if length == 0 || bytes[close] != b')' || close - open >= MOST {
            return false;
        }
        from = close;
    }
    true
}

/// Checks that no `<` comes before each rewritten link in its paragraph (the text since the last
/// blank line, or the body's start), for links asked in increasing order, reading each byte once.
struct ClearBefore<'t> {
    text: &'t str,
    floor: usize,
    /// The start of the last link checked: its paragraph up to it holds no `<`.
    checked_to: Option<usize>,
}

impl ClearBefore<'_> {
    fn clear_up_to(&mut self, at: usize) -> bool {
        let stop = self.checked_to.unwrap_or(self.floor).max(self.floor);
        // Line by line, backwards: the link's own line up to it, then whole lines until a blank
        // one (the link's own line is none: it holds the link).
        let mut end = at;
        let mut first_line = true;
        while end > stop {
            let start = self.text[stop..end].rfind('\n').map_or(stop, |newline| stop + newline + 1);
            let line = &self.text[start..end];
            if !first_line && line.bytes().all(|byte| matches!(byte, b' ' | b'\t' | b'\r')) {
                break;
            }
            if line.contains('<') {
                return false;
            }
            first_line = false;
            end = start.saturating_sub(1).max(stop);
        }
        self.checked_to = Some(at);
        true
    }
}
