//! The links of a `.canvas` file (JSON Canvas 1.0, as Obsidian writes it), each with its exact
//! byte span in the file, so that a move rewrites a card's link in the JSON where it is written
//! and leaves every other byte as it was.
//!
//! A canvas is a JSON object whose `nodes` are cards. A file card (`"type": "file"`) shows the
//! file at the vault path of its `file` key (and the heading or block of its optional `subpath`,
//! `#Heading`): that path is one link, found by its exact path as Obsidian does. A text card
//! (`"type": "text"`) holds Markdown in its `text` key, whose `[[wikilinks]]`, `![[embeds]]` and
//! `[markdown](links)` are read as a note's are and resolve as a note's do, from the canvas's
//! folder. Link cards (a URL), groups and edges hold no vault link.
//!
//! A string of the JSON may be written with escapes (`\n`, `\"`, `\/`, `\u00e9`, surrogate
//! pairs): a text card's links are found in its decoded text and every span is mapped back to
//! the raw bytes, so an edit replaces exactly the raw bytes of a link's target; a new target is
//! written with [`json_string_content`], valid inside a JSON string.
//!
//! Parsing never fails: a file that is not valid JSON, not an object, nested deeper than
//! [`MAX_CANVAS_DEPTH`], or whose cards are not where the format puts them gives what could be
//! read and a diagnostic. The scan reads each byte once (no backtracking), so its time is linear
//! in the file's size.

use crate::line_index::LineCounter;
use crate::parse::{parse_note, Diagnostic, Link, LinkKind, LinkSource, ParseConfig, ParsedNote};
use crate::span::Span;

/// How deep arrays and objects may nest before the scan stops. A canvas nests four levels
/// (the file, `nodes`, a card, a value); the limit keeps a hostile file from exhausting the
/// stack of the recursive scan.
pub const MAX_CANVAS_DEPTH: usize = 64;

/// True for paths that Obsidian opens as canvases.
pub fn is_canvas_path(path: &str) -> bool {
    let suffix = ".canvas";
    path.len() > suffix.len()
        && path.is_char_boundary(path.len() - suffix.len())
        && path[path.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
}

/// The links of the file at `path`: a canvas's by [`parse_canvas`], a note's by
/// [`parse_note`]. What a rewritten file is read back with, whatever its kind.
pub fn parse_file(path: &str, text: &str, config: &ParseConfig) -> ParsedNote {
    if is_canvas_path(path) {
        parse_canvas(path, text, config)
    } else {
        parse_note(path, text, config)
    }
}

/// Reads the canvas at `path`: its links in file order, each with spans into `text`, and a
/// diagnostic for whatever could not be read. Only `links`, `title`, `diagnostics` and
/// `truncated` of the answer are filled.
pub fn parse_canvas(path: &str, text: &str, config: &ParseConfig) -> ParsedNote {
    let mut parsed = ParsedNote { title: canvas_title(path).to_owned(), ..ParsedNote::default() };
    let root = match Scanner::new(text).document() {
        Ok(root) => root,
        Err(error) => {
            parsed.diagnostics.push(Diagnostic {
                code: "malformed_canvas".to_owned(),
                message: format!(
                    "this canvas is not valid JSON ({} at byte {}); its links are not read until it is fixed",
                    error.message, error.at
                ),
                span: Some(Span { start: error.at, end: error.at }),
            });
            return parsed;
        }
    };
    let nodes = match root.get("nodes") {
        None => return parsed,
        Some(Value::Array(nodes)) => nodes,
        Some(_) => {
            parsed.diagnostics.push(not_canvas("`nodes` is not an array"));
            return parsed;
        }
    };
    let mut links = Vec::new();
    for node in nodes {
        let Value::Object(_) = node else { continue };
        let id = node.get("id").and_then(Value::string).map(|id| id.value.clone()).unwrap_or_default();
        match node.get("type").and_then(Value::string).map(|kind| kind.value.as_str()) {
            Some("file") => {
                let Some(file) = node.get("file").and_then(Value::string) else { continue };
                if file.value.trim().is_empty() {
                    continue;
                }
                let subpath =
                    node.get("subpath").and_then(Value::string).map(|subpath| subpath.value.clone()).filter(|s| s.starts_with('#'));
                links.push(Link {
                    kind: LinkKind::Embed,
                    source: LinkSource::CanvasFile { node: id },
                    target: file.value.clone(),
                    path: file.value.clone(),
                    subpath,
                    display: None,
                    span: file.content,
                    target_span: file.content,
                    line: 0,
                    column: 0,
                    destination: None,
                });
            }
            Some("text") => {
                let Some(card) = node.get("text").and_then(Value::string) else { continue };
                let raw = &text[card.content.range()];
                if !raw.contains("[[") && !raw.contains("](") && !raw.contains("\\u") {
                    // No link can be written without these (an escape may spell a bracket).
                    continue;
                }
                let (decoded, offsets) = decode(raw, card.content.start);
                for mut link in parse_note(path, &decoded, config).links {
                    link.span = Span { start: offsets[link.span.start], end: offsets[link.span.end] };
                    link.target_span = Span { start: offsets[link.target_span.start], end: offsets[link.target_span.end] };
                    link.source = LinkSource::CanvasText { node: id.clone() };
                    links.push(link);
                }
            }
            _ => {}
        }
    }
    links.sort_by_key(|link| link.span.start);
    if links.len() > config.max_links {
        links.truncate(config.max_links);
        parsed.truncated = true;
        parsed.diagnostics.push(Diagnostic {
            code: "links_truncated".to_owned(),
            message: format!("this canvas has more than {} links; the rest are not indexed", config.max_links),
            span: None,
        });
    }
    // Lines and columns of the raw file, counted on from one link to the next (the links are in
    // file order), so a canvas written on one long line costs no more than one pass.
    let mut lines = LineCounter::new(text);
    let (mut previous_line, mut column_at, mut column) = (0, 0, 1u32);
    for link in &mut links {
        link.line = lines.line(link.span.start);
        if link.line != previous_line {
            // A line break lies between the previous link and this one: looking back for it
            // reads no byte before the previous link.
            previous_line = link.line;
            column_at = text[..link.span.start].rfind('\n').map_or(0, |newline| newline + 1);
            column = 1;
        }
        column = column.saturating_add(u32::try_from(text[column_at..link.span.start].chars().count()).unwrap_or(u32::MAX));
        column_at = link.span.start;
        link.column = column;
    }
    parsed.links = links;
    parsed
}

/// The file name without `.canvas`.
fn canvas_title(path: &str) -> &str {
    let name = crate::resolve::file_name(path);
    name.get(..name.len().saturating_sub(".canvas".len())).filter(|_| is_canvas_path(name)).unwrap_or(name)
}

fn not_canvas(what: &str) -> Diagnostic {
    Diagnostic {
        code: "malformed_canvas".to_owned(),
        message: format!("this file is JSON but not a canvas as JSON Canvas 1.0 defines it ({what}); its links are not read"),
        span: None,
    }
}

/// `text` written as the content of a JSON string (without the quotes): `"` and `\` escaped,
/// and every control character, as `JSON.stringify` writes them.
pub fn json_string_content(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out
}

/// A JSON value, keeping of it only what the canvas's links need: strings with their raw span.
#[derive(Debug)]
enum Value {
    /// A number, `true`, `false` or `null`.
    Other,
    String(JsonString),
    Array(Vec<Value>),
    /// Keys decoded, in order; a key written twice is looked up as `JSON.parse` reads it (the
    /// last one wins).
    Object(Vec<(String, Value)>),
}

/// A string of the JSON: its decoded value and the raw bytes between its quotes.
#[derive(Debug)]
struct JsonString {
    value: String,
    content: Span,
}

impl Value {
    fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(entries) => entries.iter().rev().find(|(name, _)| name == key).map(|(_, value)| value),
            _ => None,
        }
    }

    fn string(&self) -> Option<&JsonString> {
        match self {
            Value::String(string) => Some(string),
            _ => None,
        }
    }
}

/// Why the text is not JSON, and where.
#[derive(Debug)]
struct ScanError {
    at: usize,
    message: &'static str,
}

/// A strict JSON scanner (RFC 8259) over the raw bytes, recursive with its depth bounded.
struct Scanner<'t> {
    text: &'t str,
    bytes: &'t [u8],
    at: usize,
}

impl<'t> Scanner<'t> {
    fn new(text: &'t str) -> Scanner<'t> {
        Scanner { text, bytes: text.as_bytes(), at: 0 }
    }

    fn error<T>(&self, message: &'static str) -> Result<T, ScanError> {
        Err(ScanError { at: self.at, message })
    }

    /// The whole text: one object, with only white space around it.
    fn document(&mut self) -> Result<Value, ScanError> {
        self.space();
        if self.bytes.get(self.at) != Some(&b'{') {
            return self.error("a canvas must be a JSON object");
        }
        let root = self.value(0)?;
        self.space();
        if self.at != self.bytes.len() {
            return self.error("text after the end of the JSON object");
        }
        Ok(root)
    }

    fn space(&mut self) {
        while matches!(self.bytes.get(self.at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, ScanError> {
        self.space();
        match self.bytes.get(self.at) {
            Some(b'{') => {
                if depth >= MAX_CANVAS_DEPTH {
                    return self.error("nested deeper than a canvas can be");
                }
                self.at += 1;
                let mut entries = Vec::new();
                self.space();
                if self.bytes.get(self.at) == Some(&b'}') {
                    self.at += 1;
                    return Ok(Value::Object(entries));
                }
                loop {
                    self.space();
                    if self.bytes.get(self.at) != Some(&b'"') {
                        return self.error("expected a key in quotes");
                    }
                    let key = self.string()?;
                    self.space();
                    if self.bytes.get(self.at) != Some(&b':') {
                        return self.error("expected `:` after a key");
                    }
                    self.at += 1;
                    let value = self.value(depth + 1)?;
                    entries.push((key.value, value));
                    self.space();
                    match self.bytes.get(self.at) {
                        Some(b',') => self.at += 1,
                        Some(b'}') => {
                            self.at += 1;
                            return Ok(Value::Object(entries));
                        }
                        _ => return self.error("expected `,` or `}`"),
                    }
                }
            }
            Some(b'[') => {
                if depth >= MAX_CANVAS_DEPTH {
                    return self.error("nested deeper than a canvas can be");
                }
                self.at += 1;
                let mut items = Vec::new();
                self.space();
                if self.bytes.get(self.at) == Some(&b']') {
                    self.at += 1;
                    return Ok(Value::Array(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    self.space();
                    match self.bytes.get(self.at) {
                        Some(b',') => self.at += 1,
                        Some(b']') => {
                            self.at += 1;
                            return Ok(Value::Array(items));
                        }
                        _ => return self.error("expected `,` or `]`"),
                    }
                }
            }
            Some(b'"') => Ok(Value::String(self.string()?)),
            Some(b't') => self.literal("true"),
            Some(b'f') => self.literal("false"),
            Some(b'n') => self.literal("null"),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => self.error("expected a JSON value"),
            None => self.error("the text ends inside the JSON"),
        }
    }

    fn literal(&mut self, word: &'static str) -> Result<Value, ScanError> {
        if self.bytes[self.at..].starts_with(word.as_bytes()) {
            self.at += word.len();
            Ok(Value::Other)
        } else {
            self.error("expected a JSON value")
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.at;
        while self.bytes.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
        self.at - start
    }

    fn number(&mut self) -> Result<Value, ScanError> {
        if self.bytes.get(self.at) == Some(&b'-') {
            self.at += 1;
        }
        match self.bytes.get(self.at) {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return self.error("a number needs digits"),
        }
        if self.bytes.get(self.at) == Some(&b'.') {
            self.at += 1;
            if self.digits() == 0 {
                return self.error("a number needs digits after `.`");
            }
        }
        if matches!(self.bytes.get(self.at), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.bytes.get(self.at), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if self.digits() == 0 {
                return self.error("a number needs digits in its exponent");
            }
        }
        Ok(Value::Other)
    }

    /// A string, from its opening quote: checked, then decoded.
    fn string(&mut self) -> Result<JsonString, ScanError> {
        self.at += 1;
        let start = self.at;
        let mut plain = true;
        loop {
            match self.bytes.get(self.at) {
                None => return self.error("a string is not closed"),
                Some(b'"') => break,
                Some(b'\\') => {
                    plain = false;
                    self.at += 1;
                    match self.bytes.get(self.at) {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => self.at += 1,
                        Some(b'u') => {
                            let hex = self.bytes.get(self.at + 1..self.at + 5);
                            if !hex.is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit)) {
                                return self.error("`\\u` needs four hex digits");
                            }
                            self.at += 5;
                        }
                        _ => return self.error("an unknown escape in a string"),
                    }
                }
                Some(byte) if *byte < 0x20 => return self.error("a control character must be escaped in a string"),
                Some(_) => self.at += 1,
            }
        }
        let content = Span { start, end: self.at };
        self.at += 1;
        let raw = &self.text[content.range()];
        let value = if plain { raw.to_owned() } else { decode(raw, start).0 };
        Ok(JsonString { value, content })
    }
}

/// Decodes the content of a JSON string already checked by the scanner, answering for each byte
/// of the decoded text (and its end) the raw byte offset it came from, counted from `base`. A
/// lone surrogate (which `JSON.parse` keeps, and Rust's strings cannot hold) becomes U+FFFD.
fn decode(raw: &str, base: usize) -> (String, Vec<usize>) {
    let bytes = raw.as_bytes();
    let mut out = String::with_capacity(raw.len());
    let mut offsets = Vec::with_capacity(raw.len() + 1);
    let mut at = 0;
    let push = |out: &mut String, offsets: &mut Vec<usize>, c: char, from: usize| {
        let before = out.len();
        out.push(c);
        offsets.extend(std::iter::repeat_n(base + from, out.len() - before));
    };
    while at < bytes.len() {
        if bytes[at] != b'\\' {
            let next = raw[at..].find('\\').map_or(raw.len(), |found| at + found);
            out.push_str(&raw[at..next]);
            offsets.extend((at..next).map(|offset| base + offset));
            at = next;
            continue;
        }
        let escape = bytes.get(at + 1).copied().unwrap_or(b'\\');
        let simple = match escape {
            b'"' => Some('"'),
            b'\\' => Some('\\'),
            b'/' => Some('/'),
            b'b' => Some('\u{8}'),
            b'f' => Some('\u{c}'),
            b'n' => Some('\n'),
            b'r' => Some('\r'),
            b't' => Some('\t'),
            _ => None,
        };
        if let Some(c) = simple {
            push(&mut out, &mut offsets, c, at);
            at += 2;
            continue;
        }
        let unit = |from: usize| -> Option<u32> {
            if bytes.get(from..from + 2) != Some(b"\\u") {
                return None;
            }
            raw.get(from + 2..from + 6).and_then(|hex| u32::from_str_radix(hex, 16).ok())
        };
        let Some(first) = unit(at) else {
            // Not reachable for a string the scanner checked; kept as written.
            push(&mut out, &mut offsets, '\\', at);
            at += 1;
            continue;
        };
        if (0xD800..0xDC00).contains(&first) {
            if let Some(second) = unit(at + 6).filter(|second| (0xDC00..0xE000).contains(second)) {
                let c = char::from_u32(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)).unwrap_or('\u{fffd}');
                push(&mut out, &mut offsets, c, at);
                at += 12;
                continue;
            }
        }
        push(&mut out, &mut offsets, char::from_u32(first).unwrap_or('\u{fffd}'), at);
        at += 6;
    }
    offsets.push(base + raw.len());
    (out, offsets)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{apply_edits, TextEdit};

    fn links(text: &str) -> Vec<Link> {
        let parsed = parse_canvas("c.canvas", text, &ParseConfig::OBSIDIAN);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        parsed.links
    }

    /// Each link as `(source card, decoded target, raw target bytes)`.
    fn check(text: &str, expected: &[(&str, &str, &str)]) {
        let found: Vec<(String, String, String)> = links(text)
            .iter()
            .map(|link| {
                let card = match &link.source {
                    LinkSource::CanvasFile { node } => format!("file {node}"),
                    LinkSource::CanvasText { node } => format!("text {node}"),
                    other => format!("{other:?}"),
                };
                (card, link.target.clone(), text[link.target_span.range()].to_owned())
            })
            .collect();
        let expected: Vec<(String, String, String)> =
            expected.iter().map(|(a, b, c)| ((*a).to_owned(), (*b).to_owned(), (*c).to_owned())).collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn file_cards_and_text_card_links() {
        check(
            r##"{"nodes":[
	{"id":"a","type":"file","file":"Notes/A.md","subpath":"#Intro","x":0,"y":0,"width":1,"height":1},
	{"id":"b","type":"text","text":"See [[B]] and ![[pic.png]] and [c](C.md)","x":0,"y":0,"width":1,"height":1},
	{"id":"c","type":"link","url":"https://example.com/[[not]]"},
	{"id":"d","type":"group","label":"[[not a link]]"}
],"edges":[{"id":"e","fromNode":"a","toNode":"b","label":"[[not]]"}]}"##,
            &[("file a", "Notes/A.md", "Notes/A.md"), ("text b", "B", "B"), ("text b", "pic.png", "pic.png"), ("text b", "C.md", "C.md")],
        );
    }

    #[test]
    fn a_file_card_keeps_its_subpath_and_lines_count_in_the_raw_file() {
        let text = "{\n\"nodes\":[\n{\"id\":\"a\",\"type\":\"file\",\"file\":\"A.md\",\"subpath\":\"#H\"},\n{\"id\":\"b\",\"type\":\"text\",\"text\":\"x\\n\\n[[B]]\"}]}";
        let found = links(text);
        assert_eq!(found[0].subpath.as_deref(), Some("#H"));
        assert_eq!((found[0].line, found[1].line), (3, 4));
        assert_eq!(&text[found[1].span.range()], "[[B]]");
        assert_eq!(found[1].column, 1 + text.lines().nth(3).unwrap().find("[[B]]").unwrap() as u32);
    }

    #[test]
    fn escapes_map_back_to_the_raw_bytes() {
        check(
            r#"{"nodes":[{"id":"t","type":"text","text":"\"q\" \u00e9 \ud83d\ude00 [[F\u00f6\/o]] \\ [m](a\/b.md)\t[[Z]]"},{"id":"f","type":"file","file":"x\/y\u00e9.md"}]}"#,
            &[
                ("text t", "Fö/o", r"F\u00f6\/o"),
                ("text t", "a/b.md", r"a\/b.md"),
                ("text t", "Z", "Z"),
                ("file f", "x/yé.md", r"x\/y\u00e9.md"),
            ],
        );
    }

    #[test]
    fn a_lone_surrogate_reads_as_a_replacement_character() {
        check(r#"{"nodes":[{"id":"t","type":"text","text":"\ud800 [[A]]"}]}"#, &[("text t", "A", "A")]);
    }

    #[test]
    fn an_edit_of_a_target_keeps_every_other_byte() {
        let text = "{\n\t\"nodes\":[\n\t\t{\"id\":\"t\",\"type\":\"text\",\"text\":\"a \\\"quote\\\" [[Old]] \\u00e9\",\"x\":1},\n\t\t{\"id\":\"f\",\"file\":\"Old.md\",\"type\":\"file\"}\n\t]\n}";
        let found = links(text);
        let edits: Vec<TextEdit> = found
            .iter()
            .map(|link| TextEdit {
                span: link.target_span,
                replacement: json_string_content(if link.path.ends_with(".md") { "New \"x\"\\.md" } else { "New" }),
            })
            .collect();
        let new_text = apply_edits(text, &edits);
        assert_eq!(
            new_text,
            "{\n\t\"nodes\":[\n\t\t{\"id\":\"t\",\"type\":\"text\",\"text\":\"a \\\"quote\\\" [[New]] \\u00e9\",\"x\":1},\n\t\t{\"id\":\"f\",\"file\":\"New \\\"x\\\"\\\\.md\",\"type\":\"file\"}\n\t]\n}"
        );
        let again = links(&new_text);
        assert_eq!(again.iter().map(|link| link.target.as_str()).collect::<Vec<_>>(), ["New", "New \"x\"\\.md"]);
        let value: serde_json::Value = serde_json::from_str(&new_text).expect("still JSON");
        assert_eq!(value["nodes"][1]["file"], "New \"x\"\\.md");
    }

    #[test]
    fn json_string_content_round_trips_through_a_json_reader() {
        for text in ["plain", "a\"b", "back\\slash", "line\nbreak\ttab\r", "\u{1}\u{1f}", "é😀", "</script>"] {
            let json = format!("\"{}\"", json_string_content(text));
            assert_eq!(serde_json::from_str::<String>(&json).expect("valid JSON"), text);
        }
    }

    #[test]
    fn the_last_of_a_key_written_twice_is_read_as_json_parse_reads_it() {
        check(r#"{"nodes":[{"id":"f","type":"file","file":"A.md","file":"B.md"}]}"#, &[("file f", "B.md", "B.md")]);
    }

    #[test]
    fn malformed_json_gives_a_diagnostic_and_no_links() {
        for text in [
            "",
            "[]",
            "{",
            r#"{"nodes":[{"id":"f","type":"file","file":"A.md"}"#,
            r#"{"nodes":[{"id":"f","type":"file","file":"A.md"}]} x"#,
            "{\"nodes\":[{\"type\":\"text\",\"text\":\"raw\nline\"}]}",
            r#"{"nodes":[{"type":"text","text":"\x"}]}"#,
            r#"{"nodes":[{"type":"text","text":"\u12"}]}"#,
            r#"{"a":01}"#,
            r#"{"a":1.}"#,
            r#"{"a":tru}"#,
            r#"{"nodes":{}}"#,
        ] {
            let parsed = parse_canvas("c.canvas", text, &ParseConfig::OBSIDIAN);
            assert!(parsed.links.is_empty(), "{text:?}");
            assert_eq!(parsed.diagnostics.len(), 1, "{text:?}");
            assert_eq!(parsed.diagnostics[0].code, "malformed_canvas", "{text:?}");
        }
    }

    #[test]
    fn cards_not_where_the_format_puts_them_are_skipped() {
        check(
            r#"{"nodes":[1,"x",null,{"type":"file"},{"type":"file","file":7},{"type":"file","file":""},{"type":"text","text":[]},{"id":"ok","type":"file","file":"A.md"}],"edges":"none"}"#,
            &[("file ok", "A.md", "A.md")],
        );
        check("{}", &[]);
    }

    #[test]
    fn deep_nesting_stops_with_a_diagnostic_not_a_crash() {
        for depth in [MAX_CANVAS_DEPTH + 1, 100_000] {
            let text = format!("{{\"a\":{}{}}}", "[".repeat(depth), "]".repeat(depth));
            let parsed = parse_canvas("c.canvas", &text, &ParseConfig::OBSIDIAN);
            assert_eq!(parsed.diagnostics[0].code, "malformed_canvas");
            assert!(parsed.diagnostics[0].message.contains("nested deeper"));
        }
        let text =
            format!("{{\"nodes\":[{{\"id\":\"f\",\"type\":\"file\",\"file\":\"A.md\",\"x\":{}{}}}]}}", "[".repeat(60), "]".repeat(60));
        assert_eq!(links(&text).len(), 1);
    }

    #[test]
    fn links_past_the_limit_are_dropped_with_a_diagnostic() {
        let cards: Vec<String> = (0..5).map(|n| format!("{{\"id\":\"{n}\",\"type\":\"file\",\"file\":\"N{n}.md\"}}")).collect();
        let text = format!("{{\"nodes\":[{}]}}", cards.join(","));
        let parsed = parse_canvas("c.canvas", &text, &ParseConfig { max_links: 3 });
        assert_eq!(parsed.links.len(), 3);
        assert!(parsed.truncated);
        assert_eq!(parsed.diagnostics[0].code, "links_truncated");
    }

    #[test]
    fn a_canvas_on_one_long_line_is_read_in_one_pass() {
        // Many links on one line: columns are counted on from link to link.
        let cards: Vec<String> = (0..20_000).map(|n| format!("{{\"id\":\"{n}\",\"type\":\"text\",\"text\":\"é [[N{n}]]\"}}")).collect();
        let text = format!("{{\"nodes\":[{}]}}", cards.join(","));
        let found = links(&text);
        assert_eq!(found.len(), 20_000);
        let last = found.last().unwrap();
        assert_eq!(last.column as usize, text[..last.span.start].chars().count() + 1);
    }

    #[test]
    fn paths_and_titles() {
        assert!(is_canvas_path("a/Board.canvas") && is_canvas_path("B.CANVAS") && !is_canvas_path(".canvas") && !is_canvas_path("a.md"));
        assert_eq!(parse_canvas("a/Board.canvas", "{}", &ParseConfig::OBSIDIAN).title, "Board");
        assert_eq!(parse_file("a/n.md", "[[x]]", &ParseConfig::OBSIDIAN).links.len(), 1);
    }
}
