//! The local re-read: the parts of a note that a plan's edits touch, read again from the new text
//! without parsing the note whole, when the edits provably change nothing else of its parse.
//! The move's proof (`rename::proven_locally`) uses it to prove a note with many links by
//! reading again only the links it rewrites.

use crate::parse::{Link, LinkSource};
use crate::plan::{apply_edits_of, TextEdit};

/// What [`reread_locally`] read again.
#[derive(Debug)]
pub(crate) struct Reread {
    /// Every property link of the new text, when an edit is in the frontmatter (else none).
    pub(crate) properties: Vec<Link>,
    /// Each rewritten body link (its position among the note's links) as the new text reads
    /// it, its spans counted from the link's start.
    pub(crate) body: Vec<(usize, Link)>,
}

/// The parts of a note that its edits touch, read again from the new text, when the edits
/// provably change nothing else of its parse (see [`proven_locally`]); `None` when that cannot
/// be shown. `links` gives the note's `count` links as its text reads; each edit comes with the
/// whole new text of the link it rewrites and that link's position, in the order of the text.
pub(crate) fn reread_locally<'l>(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse_note, ParseConfig, Span};
    use crate::plan::link_with_target;

    struct Random(u64);

    impl Random {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
            items[(self.next() % items.len() as u64) as usize]
        }
    }

    /// Names a link is written with, and names a rewrite writes: inert ones and every kind of
    /// character that is not.
    const NAMES: [&str; 22] = [
        "N",
        "Note",
        "a b",
        "Rinami",
        "moved/Rinami (renamed)",
        "../up/Other",
        "\u{dc}n\u{ef} c\u{f6}d\u{e9}",
        "x(y)",
        "pa(ren",
        "pa)ren",
        "a_b",
        "c*d",
        "e`f",
        "g$h",
        "i<j",
        "k%l",
        "m%%n",
        "o'p",
        "q:r",
        "s{t}",
        "u~v",
        "w&x",
    ];

    /// Lines around links, with `{}` for a link's target: every construct that reads the
    /// characters around or inside a link.
    const LINES: [&str; 66] = [
        "text [[{}]] more",
        "[[{}|alias]] and [[{}#Heading]]",
        "![[{}]]",
        "[[{}#^b1|shown]]",
        "[t]({}.md)",
        "![t]({}.md#H)",
        "[t](<{}.md>)",
        "[t]({}.md \"title\")",
        "[x]([[{}]])",
        "[see [[{}]]](url.md)",
        "[[{}]](url.md)",
        "[[{}]][ref]",
        "[ref]: /url",
        "[n]: <[[{}]]>",
        "`code [[{}]]` and [[{}]]",
        "$math [[{}]]$ [[{}]]",
        "$[[{}]]$",
        "<span title=\"[[{}]]\">[[{}]]</span>",
        "<a x=[[{}]]>",
        "<!-- [[{}]] -->",
        "<div>",
        "</div>",
        "| [[{}\\|alias]] | cell |",
        "| --- | --- |",
        "|---\t|---\t|",
        "%%[[{}]]%%",
        "%[[{}]]%",
        "%%",
        "**[[{}]]** _[[{}]]_ ~~[[{}]]~~",
        "[a](b.md) [[{}]]",
        "[[{}]] [a](b.md)",
        "[a](b c) [[{}]]",
        "[x](y [[{}]]",
        "    [[{}]]",
        "```",
        "> [[{}]]",
        "- [[{}]]",
        "# [[{}]]",
        "===",
        "",
        "",
        "  ",
        "\\[[{}]]",
        "[[[{}]]]",
        "[[a [[{}]]",
        "{ [[{}]] }",
        "*[[{}]]*",
        "&amp;[[{}]]&",
        "[x](`[[{}]]`)",
        "[a `]` b](c.md) [[{}]]",
        "[a [b](c.md) [[{}]]](d.md)",
        "<http://x.y/[[{}]]>",
        "[n]: [[{}]]",
        "[n]: x \"[[{}]]\"",
        "[n]: x ([[{}]])",
        "[t]({}.md)",
        "[t]({}.md)",
        "[t]({}.md) and [[{}]]",
        "[n]: [[{}]]\n| [[{}\\|alias]] | cell |\n| --- | --- |",
        "[n]: x ([[{}]])\n| [[{}\\|alias]] | cell |\n| --- | --- |",
        "| [[{}\\|alias]] | cell |\n| --- | --- |\n| [[{}\\|b]] | c |",
        "[n]: [[{}]] \"t`\n[[{}]]` x\"",
        "[n]: <{}.md> \"t`\n[[{}]]` x\"",
        "<a\nx=[[{}]] y=\"`\">\n[[{}]]`",
        "[x `[` y](c.md) [[{}]] `[[{}]]`",
        "<a x=[[{}]] y=\"`\">\n[[{}]]`",
    ];

    fn random_note(random: &mut Random) -> String {
        let mut text = String::new();
        let newline = if random.next().is_multiple_of(5) { "\r\n" } else { "\n" };
        if random.next().is_multiple_of(2) {
            let name = random.pick(&NAMES);
            let quoted = match random.next() % 4 {
                0 => format!("\"[[{name}]]\""),
                1 => format!("'[[{}]]'", name.replace('\'', "''")),
                2 => format!("[[{name}]]"),
                _ => format!("|{newline}  [[{name}]]"),
            };
            text.push_str(&format!(
                "---{newline}up: {quoted}{newline}tags: [a]{newline}other: \"[[{}]]\"{newline}---{newline}",
                random.pick(&NAMES)
            ));
        }
        for _ in 0..random.next() % 9 {
            let line = random.pick(&LINES);
            let mut filled = String::new();
            for (at, part) in line.split("{}").enumerate() {
                if at > 0 {
                    filled.push_str(random.pick(&NAMES));
                }
                filled.push_str(part);
            }
            text.push_str(&filled);
            text.push_str(newline);
        }
        text
    }

    /// Checks a [`Reread`] of `text` with `edits` against a parse of the whole new text.
    fn check_reread(text: &str, old: &[Link], edits: &[(TextEdit, String, usize)], reread: &Reread, case: &str) {
        let new_text = apply_edits_of(text, edits.iter().map(|(edit, _, _)| edit));
        let now = parse_note("n.md", &new_text, &ParseConfig::OBSIDIAN).links;
        // Where an offset of the old text is in the new one.
        let shift = |at: usize| {
            let moved: isize = edits
                .iter()
                .filter(|(edit, _, _)| edit.span.end <= at)
                .map(|(edit, _, _)| edit.replacement.len() as isize - edit.span.range().len() as isize)
                .sum();
            (at as isize + moved) as usize
        };
        let mut expected: Vec<Link> = Vec::new();
        for (index, link) in old.iter().enumerate() {
            if index < reread.properties.len() {
                expected.push(reread.properties[index].clone());
            } else if let Some((_, alone)) = reread.body.iter().find(|(edited, _)| *edited == index) {
                let start = shift(link.span.start);
                let at = |span: Span| Span { start: span.start + start, end: span.end + start };
                expected.push(Link { span: at(alone.span), target_span: at(alone.target_span), ..alone.clone() });
            } else {
                let at = |span: Span| Span { start: shift(span.start), end: shift(span.end) };
                expected.push(Link { span: at(link.span), target_span: at(link.target_span), ..link.clone() });
            }
        }
        let shape = |links: &[Link]| {
            links
                .iter()
                .map(|link| {
                    format!(
                        "{:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
                        link.kind,
                        link.source,
                        link.target,
                        link.path,
                        link.subpath,
                        link.display,
                        link.span,
                        link.target_span,
                        link.destination
                    )
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(shape(&expected), shape(&now), "{case}\n--- old text\n{text}\n--- new text\n{new_text}");
    }

    /// The same check on every note of the corpora and the generated vault (when present, as
    /// `$VAULTLINK_CORPORA` or `../shared/corpora` beside the checkout, and `$VAULTLINK_GENERATED`),
    /// with every link of each note renamed at once. Without them it says so and checks nothing more
    /// than the randomized test above.
    #[test]
    fn a_local_reread_of_every_real_note_is_what_a_whole_parse_reads() {
        let corpora = std::env::var_os("VAULTLINK_CORPORA")
            .map_or_else(|| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpora"), std::path::PathBuf::from);
        let mut folders: Vec<std::path::PathBuf> =
            std::fs::read_dir(&corpora).into_iter().flatten().flatten().map(|entry| entry.path()).collect();
        folders.extend(std::env::var_os("VAULTLINK_GENERATED").map(std::path::PathBuf::from));
        if !folders.iter().any(|folder| folder.is_dir()) {
            eprintln!("no corpora at {} (set VAULTLINK_CORPORA): the local re-read was checked on generated notes only", corpora.display());
        }
        for folder in folders.into_iter().filter(|folder| folder.is_dir()) {
            let (mut notes, mut edited, mut local) = (0, 0, 0);
            let mut stack = vec![folder.clone()];
            while let Some(dir) = stack.pop() {
                for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                    let path = entry.path();
                    if path.is_dir() {
                        stack.push(path);
                        continue;
                    }
                    if path.extension().is_none_or(|extension| extension != "md") {
                        continue;
                    }
                    let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap_or_default()).into_owned();
                    notes += 1;
                    let old = parse_note("n.md", &text, &ParseConfig::OBSIDIAN).links;
                    let mut edits: Vec<(TextEdit, String, usize)> = Vec::new();
                    for (index, link) in old.iter().enumerate() {
                        let written = &text[link.target_span.range()];
                        let subpath = written.find('#').map_or("", |hash| &written[hash..]);
                        if written.len() == subpath.len() {
                            continue;
                        }
                        let path = if link.kind.is_markdown() { "moved/Rinami%20%28renamed%29.md" } else { "moved/Rinami (renamed)" };
                        let replacement = format!("{path}{subpath}");
                        let after = link_with_target(&text, link, &replacement);
                        edits.push((TextEdit { span: link.target_span, replacement }, after, index));
                    }
                    if edits.is_empty() {
                        continue;
                    }
                    edited += 1;
                    let refs: Vec<(&TextEdit, &str, usize)> =
                        edits.iter().map(|(edit, after, index)| (edit, after.as_str(), *index)).collect();
                    if let Some(reread) = reread_locally(&text, |index| &old[index], old.len(), &refs) {
                        local += 1;
                        check_reread(&text, &old, &edits, &reread, &path.display().to_string());
                    }
                }
            }
            eprintln!("{}: {notes} notes, {edited} with links, {local} read again locally", folder.display());
        }
    }

    /// The claim [`proven_locally`] rests on: whenever [`reread_locally`] reads a note's edited
    /// links alone, a parse of the whole new text gives exactly the old links, shifted, with the
    /// edited ones (and the frontmatter's) as read again.
    #[test]
    fn a_local_reread_is_what_a_whole_parse_reads() {
        let config = ParseConfig::OBSIDIAN;
        let (mut local, mut tried) = (0, 0);
        for seed in 1..=20_000u64 {
            let mut random = Random(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
            let text = random_note(&mut random);
            let old = parse_note("n.md", &text, &config).links;
            if old.is_empty() {
                continue;
            }
            // Rewrite some links' paths, keeping what follows the `#` as written.
            let mut edits: Vec<(TextEdit, String, usize)> = Vec::new();
            for (index, link) in old.iter().enumerate() {
                if !random.next().is_multiple_of(2) {
                    continue;
                }
                let written = &text[link.target_span.range()];
                let subpath = written.find('#').map_or("", |hash| &written[hash..]);
                let mut path = random.pick(&NAMES).to_owned();
                if link.kind.is_markdown() && !random.next().is_multiple_of(4) {
                    path = path.replace(' ', "%20").replace('(', "%28").replace(')', "%29") + ".md";
                }
                let replacement = format!("{path}{subpath}");
                let after = link_with_target(&text, link, &replacement);
                edits.push((TextEdit { span: link.target_span, replacement }, after, index));
            }
            if edits.is_empty() {
                continue;
            }
            tried += 1;
            let refs: Vec<(&TextEdit, &str, usize)> = edits.iter().map(|(edit, after, index)| (edit, after.as_str(), *index)).collect();
            let Some(reread) = reread_locally(&text, |index| &old[index], old.len(), &refs) else { continue };
            local += 1;
            check_reread(&text, &old, &edits, &reread, &format!("seed {seed}"));
        }
        assert!(local > 2_000, "only {local} of {tried} edited notes were read again locally");
    }
}
