//! The YAML frontmatter at the top of a note: where it is, its keys, aliases and tags, and
//! every string in it with the exact bytes each character came from.
//!
//! Obsidian's own cache knows which property holds a link but not where the link sits in the
//! file, which is why rewriting property links by value has destroyed data elsewhere. Here a
//! span-aware scan of the YAML text finds each string scalar (quoted, plain or block), decodes
//! its escapes, and keeps for every decoded byte the file offset it came from, so a link found
//! in the decoded string maps back to the raw bytes that spell it.
//!
//! The scan reads the block-structure subset of YAML that frontmatter uses (mappings,
//! sequences, flow collections, quoted, plain and block scalars). It is cross-checked against
//! `serde_yaml` by the parser before any string is trusted: a string whose decoded value does
//! not equal the value the YAML library read is dropped with a diagnostic.

use serde::{Deserialize, Serialize};

use crate::span::Span;

/// One step of a key path: a mapping key or a sequence index.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum KeySegment {
    Key(String),
    Index(usize),
}

/// Where the frontmatter block is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    /// From the opening `---` to the end of the closing `---` line, line break included.
    pub span: Span,
    /// The YAML text between the two `---` lines.
    pub content: Span,
}

/// A string scalar of the frontmatter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StringScalar {
    pub path: Vec<KeySegment>,
    /// The string's value, escapes decoded and lines folded as YAML does.
    pub value: String,
    /// For each byte of `value`, the raw bytes of the file it came from: one byte for a
    /// character copied as is, the whole escape for an escaped one (`\"`, `''`), and an empty
    /// span at a folded line break.
    pub sources: Vec<Span>,
    /// The raw scalar in the file, quotes included.
    pub span: Span,
    /// A literal (`|`) or folded (`>`) block scalar.
    pub block: bool,
}

/// A flow sequence that opens with `[[`: `key: [[X]]` is YAML for a nested list, not a link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnquotedLink {
    pub path: Vec<KeySegment>,
    /// From `[[` to the matching `]]`.
    pub span: Span,
}

/// What the scan found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scan {
    pub strings: Vec<StringScalar>,
    pub unquoted_links: Vec<UnquotedLink>,
    /// Top-level keys, in order.
    pub keys: Vec<String>,
    /// True when the top level is not a mapping (a scalar or a sequence).
    pub not_a_mapping: bool,
    /// True when the block is a JSON object (a flow mapping at the top).
    pub json: bool,
}

/// How deep a frontmatter block may nest (flow collections, or indentation in columns) and still
/// be read. Real properties nest a level or two; past this the YAML library's scanner takes time
/// that grows with the square of the depth, so such a block is not read
/// (`frontmatter_too_deep`), and every note indexes in time linear in its length.
pub const MAX_NESTING: usize = 64;

// The work of this module's scanners, counted in tests only: one step for each byte one of them
// reads, so a test can show that the work grows with a block's length and no faster. Nothing is
// counted, or costs anything, outside tests.
#[cfg(test)]
thread_local! {
    static STEPS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

// The bytes handed to the YAML library when a note is read, counted in tests only.
#[cfg(test)]
thread_local! {
    static YAML_BYTES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// A frontmatter block's YAML as the YAML library reads it: the one way a note's frontmatter
/// reaches it when a note is read (the parser's and the index's facts' readings), so tests can
/// count what it is given.
pub(crate) fn read_yaml(content: &str) -> Result<serde_yaml::Value, serde_yaml::Error> {
    #[cfg(test)]
    YAML_BYTES.with(|bytes| bytes.set(bytes.get() + content.len()));
    serde_yaml::from_str(content)
}

/// Counts `bytes` bytes read (in tests only).
#[inline(always)]
fn read_bytes(bytes: usize) {
    #[cfg(test)]
    STEPS.with(|steps| steps.set(steps.get() + bytes));
    #[cfg(not(test))]
    let _ = bytes;
}

/// Whether `content` nests deeper than [`MAX_NESTING`]: flow brackets outside quotes, or a line
/// indented past `4 × MAX_NESTING` columns. One pass over the bytes.
pub fn nests_too_deep(content: &str) -> bool {
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    let mut line_start = true;
    let mut indent = 0usize;
    for &byte in content.as_bytes() {
        read_bytes(1);
        if byte == b'\n' {
            line_start = true;
            indent = 0;
            // Quoted scalars may go on over lines; flow collections too.
            continue;
        }
        if line_start {
            if byte == b' ' {
                indent += 1;
                if indent > 4 * MAX_NESTING {
                    return true;
                }
                continue;
            }
            line_start = false;
        }
        match (quote, byte) {
            (Some(open), _) if byte == open => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(byte),
            (None, b'[' | b'{') => {
                depth += 1;
                if depth > MAX_NESTING {
                    return true;
                }
            }
            (None, b']' | b'}') => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// Finds the frontmatter block: `---` on the first line (after an optional byte-order mark),
/// up to the next line that is `---`. An unclosed block is not frontmatter, as in Obsidian.
pub fn find_block(text: &str) -> Option<Block> {
    let start = if text.starts_with('\u{feff}') { '\u{feff}'.len_utf8() } else { 0 };
    let first_end = line_end(text, start);
    if text[start..first_end].trim_end() != "---" {
        return None;
    }
    let content_start = next_line(text, first_end);
    let mut at = content_start;
    while at < text.len() {
        let end = line_end(text, at);
        if text[at..end].trim_end() == "---" {
            return Some(Block { span: Span { start, end: next_line(text, end) }, content: Span { start: content_start, end: at } });
        }
        at = next_line(text, end);
    }
    None
}

/// The end of the line starting at `at`, before its `\r\n` or `\n`.
fn line_end(text: &str, at: usize) -> usize {
    let end = text[at..].find('\n').map_or(text.len(), |newline| at + newline);
    if end > at && text.as_bytes()[end - 1] == b'\r' {
        end - 1
    } else {
        end
    }
}

/// The start of the line after the one that ends at `end`.
fn next_line(text: &str, end: usize) -> usize {
    match text.as_bytes().get(end) {
        Some(b'\r') if text.as_bytes().get(end + 1) == Some(&b'\n') => end + 2,
        Some(_) => end + 1,
        None => end,
    }
}

/// The most nesting the scan follows; deeper collections are skipped. Real frontmatter nests a
/// few levels; this keeps hostile input from exhausting the stack.
const MAX_DEPTH: usize = 64;

/// Scans the YAML text of `block`.
pub fn scan(text: &str, block: Block) -> Scan {
    let mut scanner = Scanner { text, end: block.content.end, lines: Vec::new(), scan: Scan::default(), depth: 0, top_keys: None };
    let mut at = block.content.start;
    while at < block.content.end {
        let end = line_end(text, at).min(block.content.end);
        read_bytes(end + 1 - at);
        scanner.lines.push(Line { start: at, end });
        at = next_line(text, end);
    }
    let mut path = Vec::new();
    let mut line = 0;
    if let Some(first) = scanner.next_content_line(0) {
        let indent = scanner.indent(first);
        let at = scanner.lines[first].start + indent;
        if scanner.is_key_at(at) {
            scanner.mapping(&mut line, indent, None, &mut path);
            scanner.scan.keys = scanner.top_keys.take().unwrap_or_default();
        } else if scanner.byte(at) == Some(b'{') {
            // JSON frontmatter (`{"key": "value"}`), which Obsidian reads as it reads YAML: a
            // flow mapping is YAML too.
            scanner.top_keys = Some(Vec::new());
            scanner.scan.json = true;
            scanner.flow(at, &mut path);
            scanner.scan.keys = scanner.top_keys.take().unwrap_or_default();
        } else {
            scanner.scan.not_a_mapping = true;
            scanner.block_value(&mut line, 0, &mut path, false);
        }
    }
    scanner.scan
}

/// What a block scalar's final line breaks become.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Chomping {
    Strip,
    Clip,
    Keep,
}

/// The header of a block scalar: `|`, `>-`, `|+2`, `>2-`.
#[derive(Debug, Clone, Copy)]
struct BlockHeader {
    folded: bool,
    chomping: Chomping,
    /// The indentation indicator: columns past the parent's indentation.
    indent: Option<usize>,
}

impl BlockHeader {
    /// Reads the header at the start of `rest` (the indicator and what follows on its line).
    fn read(rest: &str) -> BlockHeader {
        let mut header = BlockHeader { folded: rest.starts_with('>'), chomping: Chomping::Clip, indent: None };
        for byte in rest.bytes().skip(1).take(2) {
            match byte {
                b'-' => header.chomping = Chomping::Strip,
                b'+' => header.chomping = Chomping::Keep,
                b'1'..=b'9' => header.indent = Some(usize::from(byte - b'0')),
                _ => break,
            }
        }
        header
    }
}

#[derive(Debug, Clone, Copy)]
struct Line {
    start: usize,
    end: usize,
}

struct Scanner<'a> {
    text: &'a str,
    /// The end of the YAML text; nothing at or after it is read.
    end: usize,
    lines: Vec<Line>,
    scan: Scan,
    depth: usize,
    /// The keys of the outermost mapping, gathered by it alone.
    top_keys: Option<Vec<String>>,
}

impl Scanner<'_> {
    fn byte(&self, at: usize) -> Option<u8> {
        read_bytes(1);
        if at < self.end {
            self.text.as_bytes().get(at).copied()
        } else {
            None
        }
    }

    fn indent(&self, line: usize) -> usize {
        let Line { start, end } = self.lines[line];
        let indent = self.text[start..end].bytes().take_while(|byte| *byte == b' ').count();
        read_bytes(indent + 1);
        indent
    }

    fn is_blank_or_comment(&self, line: usize) -> bool {
        let Line { start, end } = self.lines[line];
        let trimmed = self.text[start..end].trim_start();
        read_bytes(end - start - trimmed.len() + 1);
        trimmed.is_empty() || trimmed.starts_with('#')
    }

    fn next_content_line(&self, from: usize) -> Option<usize> {
        (from..self.lines.len()).find(|&line| !self.is_blank_or_comment(line))
    }

    fn line_of(&self, at: usize) -> usize {
        self.lines.partition_point(|line| line.start <= at).saturating_sub(1)
    }

    /// True when a mapping key starts at `at`: a quoted or plain key followed by `:` and a
    /// space or the line's end.
    fn is_key_at(&self, at: usize) -> bool {
        self.key_end(at).is_some()
    }

    /// The key starting at `at`: its text and the offset just past its `:`.
    fn key_end(&self, at: usize) -> Option<(String, usize)> {
        let line_end = self.lines[self.line_of(at)].end;
        let colon_follows = |colon: usize| {
            self.byte(colon) == Some(b':') && matches!(self.byte(colon + 1), None | Some(b' ' | b'\t' | b'\r' | b'\n'))
                || (self.byte(colon) == Some(b':') && colon + 1 >= line_end)
        };
        match self.byte(at)? {
            quote @ (b'"' | b'\'') => {
                let (value, _, close) = self.quoted(at, quote)?;
                let mut colon = close;
                while self.byte(colon) == Some(b' ') {
                    colon += 1;
                }
                colon_follows(colon).then(|| (value, colon + 1))
            }
            b'-' if matches!(self.byte(at + 1), None | Some(b' ' | b'\t' | b'\r' | b'\n')) => None,
            b'[' | b'{' | b'#' | b'&' | b'*' | b'!' | b'|' | b'>' | b'%' | b'@' | b'`' => None,
            _ => {
                let line = &self.text[at..line_end];
                let mut search = 0;
                while let Some(found) = line[search..].find(':') {
                    read_bytes(found + 1);
                    let colon = at + search + found;
                    if colon_follows(colon) {
                        let key = self.text[at..colon].trim_end();
                        if key.contains(" #") {
                            return None;
                        }
                        return Some((key.to_owned(), colon + 1));
                    }
                    search += found + 1;
                }
                None
            }
        }
    }

    /// A block mapping whose keys sit at column `indent`. `first_key` is the offset of a key
    /// that does not start its line (`- key: value`).
    fn mapping(&mut self, line: &mut usize, indent: usize, first_key: Option<usize>, path: &mut Vec<KeySegment>) {
        let top = path.is_empty() && self.depth == 0;
        let mut keys = Vec::new();
        let mut first_key = first_key;
        loop {
            let key_at = match first_key.take() {
                Some(at) => at,
                None => {
                    let Some(next) = self.next_content_line(*line) else { break };
                    if self.indent(next) != indent {
                        break;
                    }
                    *line = next;
                    self.lines[next].start + indent
                }
            };
            let Some((key, after_colon)) = self.key_end(key_at) else { break };
            if top {
                keys.push(key.clone());
            }
            path.push(KeySegment::Key(key));
            self.value_at(line, after_colon, indent, path, true);
            path.pop();
        }
        if top {
            self.top_keys = Some(keys);
        }
    }

    /// A block sequence whose dashes sit at column `indent`.
    fn sequence(&mut self, line: &mut usize, indent: usize, path: &mut Vec<KeySegment>) {
        let mut index = 0;
        while let Some(next) = self.next_content_line(*line) {
            let dash = self.lines[next].start + indent;
            if self.indent(next) != indent
                || self.byte(dash) != Some(b'-')
                || !matches!(self.byte(dash + 1), None | Some(b' ' | b'\t' | b'\r' | b'\n'))
                || dash + 1 > self.lines[next].end
            {
                break;
            }
            *line = next;
            path.push(KeySegment::Index(index));
            let mut item = dash + 1;
            while self.byte(item) == Some(b' ') && item < self.lines[next].end {
                item += 1;
            }
            if item < self.lines[next].end && self.is_key_at(item) {
                let column = item - self.lines[next].start;
                self.nested(|this| this.mapping(line, column, Some(item), path));
            } else {
                self.value_at(line, item, indent, path, false);
            }
            path.pop();
            index += 1;
        }
    }

    fn nested(&mut self, scan: impl FnOnce(&mut Self)) {
        if self.depth < MAX_DEPTH {
            self.depth += 1;
            scan(self);
            self.depth -= 1;
        }
    }

    /// A value starting at `at` on `line`, inside a collection at column `parent_indent`.
    /// When it is empty the value is the block on the following lines. On return, `line` is
    /// the line after the value's last line.
    fn value_at(&mut self, line: &mut usize, at: usize, parent_indent: usize, path: &mut Vec<KeySegment>, in_mapping: bool) {
        let mut at = at;
        let end = self.lines[*line].end;
        while at < end && matches!(self.byte(at), Some(b' ' | b'\t')) {
            at += 1;
        }
        // Anchors and tags come before a value; skip them.
        while at < end && matches!(self.byte(at), Some(b'&' | b'!')) {
            while at < end && !matches!(self.byte(at), Some(b' ' | b'\t')) {
                at += 1;
            }
            while at < end && matches!(self.byte(at), Some(b' ' | b'\t')) {
                at += 1;
            }
        }
        if at >= end || self.byte(at) == Some(b'#') {
            *line += 1;
            self.block_value(line, parent_indent, path, in_mapping);
            return;
        }
        match self.byte(at) {
            Some(quote @ (b'"' | b'\'')) => {
                if let Some((value, sources, close)) = self.quoted(at, quote) {
                    self.push_quoted(path, value, sources, Span { start: at, end: close });
                    *line = self.line_of(close.saturating_sub(1)) + 1;
                } else {
                    *line = self.lines.len();
                }
            }
            Some(b'[' | b'{') => {
                let close = self.flow(at, path);
                *line = self.line_of(close.saturating_sub(1)) + 1;
            }
            Some(b'|' | b'>') => {
                let header = BlockHeader::read(&self.text[at..end]);
                *line += 1;
                self.block_scalar(line, parent_indent, header, path);
            }
            Some(b'*') => *line += 1,
            _ => self.plain(line, at, parent_indent, path),
        }
    }

    /// The block on the lines after a key or dash with nothing after it.
    fn block_value(&mut self, line: &mut usize, parent_indent: usize, path: &mut Vec<KeySegment>, in_mapping: bool) {
        let Some(next) = self.next_content_line(*line) else {
            *line = self.lines.len();
            return;
        };
        let indent = self.indent(next);
        let at = self.lines[next].start + indent;
        let is_dash = self.byte(at) == Some(b'-') && matches!(self.byte(at + 1), None | Some(b' ' | b'\t' | b'\r' | b'\n'));
        let top = path.is_empty();
        // `key:` may be followed by a sequence at its own column; anything else must be deeper.
        if !(top || indent > parent_indent || (in_mapping && is_dash && indent == parent_indent)) {
            return;
        }
        *line = next;
        if is_dash {
            self.nested(|this| this.sequence(line, indent, path));
        } else if self.is_key_at(at) {
            self.nested(|this| this.mapping(line, indent, None, path));
        } else {
            self.value_at(line, at, if top { 0 } else { parent_indent }, path, false);
        }
    }

    /// A plain scalar from `at`, continued on more-indented lines.
    fn plain(&mut self, line: &mut usize, at: usize, parent_indent: usize, path: &mut [KeySegment]) {
        let mut value = String::new();
        let mut sources = Vec::new();
        let first_line_end = self.lines[*line].end;
        let mut segment_end = plain_segment_end(&self.text[at..first_line_end]) + at;
        let start = at;
        let mut end = segment_end;
        push_raw(&mut value, &mut sources, self.text, at, segment_end);
        *line += 1;
        let mut blank_lines = 0;
        while *line < self.lines.len() {
            let Line { start: line_start, end: line_end } = self.lines[*line];
            let content = &self.text[line_start..line_end];
            if content.trim().is_empty() {
                blank_lines += 1;
                *line += 1;
                continue;
            }
            let indent = self.indent(*line);
            let from = line_start + content.len() - content.trim_start().len();
            if indent <= parent_indent || self.byte(from) == Some(b'#') {
                break;
            }
            let fold = Span { start: segment_end, end: segment_end };
            if blank_lines == 0 {
                value.push(' ');
                sources.push(fold);
            }
            for _ in 0..blank_lines {
                value.push('\n');
                sources.push(fold);
            }
            blank_lines = 0;
            segment_end = plain_segment_end(&self.text[from..line_end]) + from;
            push_raw(&mut value, &mut sources, self.text, from, segment_end);
            end = segment_end;
            *line += 1;
        }
        self.scan.strings.push(StringScalar { path: path.to_vec(), value, sources, span: Span { start, end }, block: false });
    }

    /// A literal (`|`) or folded (`>`) block scalar on the lines after its header, with the
    /// header's chomping (`-` strips the final line break, `+` keeps every trailing one, none
    /// keeps one) and indentation indicator (`|2`: the text sits that many columns past the
    /// parent's).
    fn block_scalar(&mut self, line: &mut usize, parent_indent: usize, header: BlockHeader, path: &mut [KeySegment]) {
        let folded = header.folded;
        let mut value = String::new();
        let mut sources = Vec::new();
        let mut indent = header.indent.map(|extra| parent_indent + extra);
        let mut start = None;
        let mut end = 0;
        let mut previous_was_text = false;
        let mut pending_breaks = 0;
        while *line < self.lines.len() {
            let Line { start: line_start, end: line_end } = self.lines[*line];
            let content = &self.text[line_start..line_end];
            if content.trim().is_empty() {
                pending_breaks += 1;
                *line += 1;
                continue;
            }
            let this_indent = self.indent(*line);
            if this_indent <= parent_indent || indent.is_some_and(|indent| this_indent < indent) {
                break;
            }
            let indent = *indent.get_or_insert(this_indent);
            let from = line_start + indent;
            start.get_or_insert(from);
            if previous_was_text {
                let more_indented = this_indent > indent;
                let fold = Span { start: end, end };
                if folded && pending_breaks == 0 && !more_indented {
                    value.push(' ');
                    sources.push(fold);
                } else {
                    let breaks = if folded && !more_indented { pending_breaks } else { pending_breaks + 1 };
                    for _ in 0..breaks {
                        value.push('\n');
                        sources.push(fold);
                    }
                }
            }
            pending_breaks = 0;
            push_raw(&mut value, &mut sources, self.text, from, line_end);
            end = line_end;
            previous_was_text = true;
            *line += 1;
        }
        let Some(start) = start else { return };
        let final_breaks = match header.chomping {
            Chomping::Strip => 0,
            Chomping::Clip => 1,
            // Blank lines after the text belong to it, up to the end of the block.
            Chomping::Keep => 1 + pending_breaks,
        };
        for _ in 0..final_breaks {
            value.push('\n');
            sources.push(Span { start: end, end });
        }
        self.scan.strings.push(StringScalar { path: path.to_vec(), value, sources, span: Span { start, end }, block: true });
    }

    /// A flow collection opening at `at`. Returns the offset just past its closing bracket
    /// (or the end of the text when it is not closed).
    fn flow(&mut self, at: usize, path: &mut Vec<KeySegment>) -> usize {
        let open = self.byte(at);
        if open == Some(b'[') && self.byte(at + 1) == Some(b'[') {
            // A link holds no `[`, so the search for its `]]` stops at the next `[` (or the line's
            // end): linear in the block, however deeply `[[[[…` nests.
            let line_end = self.lines[self.line_of(at)].end;
            let inner = &self.text.as_bytes()[at + 2..line_end];
            let stop = inner.iter().position(|byte| *byte == b'[').unwrap_or(inner.len());
            read_bytes(2 * stop + 1);
            if let Some(close) = inner[..stop].windows(2).position(|pair| pair == b"]]") {
                self.scan.unquoted_links.push(UnquotedLink { path: path.clone(), span: Span { start: at, end: at + 2 + close + 2 } });
            }
        }
        if self.depth >= MAX_DEPTH {
            return self.skip_flow(at);
        }
        self.depth += 1;
        let is_sequence = open == Some(b'[');
        let close_byte = if is_sequence { b']' } else { b'}' };
        let mut at = at + 1;
        let mut index = 0;
        let result = loop {
            at = self.skip_space(at);
            match self.byte(at) {
                None => break self.end,
                Some(byte) if byte == close_byte => break at + 1,
                Some(b',') => {
                    at += 1;
                    continue;
                }
                _ => {}
            }
            if is_sequence {
                path.push(KeySegment::Index(index));
                at = self.flow_node(at, path);
                path.pop();
                index += 1;
                // A `key: value` pair inside a sequence: skip its value.
                at = self.skip_space(at);
                if self.byte(at) == Some(b':') {
                    at = self.flow_node(self.skip_space(at + 1), &mut Vec::new());
                }
            } else {
                let (key, after) = self.flow_key(at);
                at = self.skip_space(after);
                if path.is_empty() && self.depth == 1 {
                    if let Some(keys) = self.top_keys.as_mut() {
                        keys.push(key.clone());
                    }
                }
                if self.byte(at) == Some(b':') {
                    path.push(KeySegment::Key(key));
                    let value_at = self.skip_space(at + 1);
                    at = if matches!(self.byte(value_at), Some(b',') | Some(b'}')) { value_at } else { self.flow_node(value_at, path) };
                    path.pop();
                }
            }
        };
        self.depth -= 1;
        result
    }

    fn skip_flow(&self, at: usize) -> usize {
        let mut depth = 0usize;
        let mut at = at;
        while let Some(byte) = self.byte(at) {
            match byte {
                b'[' | b'{' => depth += 1,
                b']' | b'}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return at + 1;
                    }
                }
                _ => {}
            }
            at += 1;
        }
        self.end
    }

    fn skip_space(&self, mut at: usize) -> usize {
        loop {
            match self.byte(at) {
                Some(b' ' | b'\t' | b'\r' | b'\n') => at += 1,
                Some(b'#') if at == 0 || matches!(self.text.as_bytes()[at - 1], b' ' | b'\t' | b'\n') => {
                    at = self.lines[self.line_of(at)].end;
                }
                _ => return at,
            }
        }
    }

    /// Keeps a quoted scalar found at `span`, quotes included.
    fn push_quoted(&mut self, path: &[KeySegment], value: String, sources: Vec<Span>, span: Span) {
        self.scan.strings.push(StringScalar { path: path.to_vec(), value, sources, span, block: false });
    }

    /// One node inside a flow collection. Returns the offset after it.
    fn flow_node(&mut self, at: usize, path: &mut Vec<KeySegment>) -> usize {
        match self.byte(at) {
            Some(quote @ (b'"' | b'\'')) => match self.quoted(at, quote) {
                Some((value, sources, close)) => {
                    self.push_quoted(path, value, sources, Span { start: at, end: close });
                    close
                }
                None => self.end,
            },
            Some(b'[' | b'{') => self.flow(at, path),
            _ => {
                let (value, sources, start, end) = self.flow_plain(at);
                if !value.is_empty() {
                    self.scan.strings.push(StringScalar { path: path.clone(), value, sources, span: Span { start, end }, block: false });
                }
                end.max(at + usize::from(end == at && self.byte(at).is_some()))
            }
        }
    }

    fn flow_key(&mut self, at: usize) -> (String, usize) {
        match self.byte(at) {
            Some(quote @ (b'"' | b'\'')) => match self.quoted(at, quote) {
                Some((value, _, close)) => (value, close),
                None => (String::new(), self.end),
            },
            Some(b'[' | b'{') => (String::new(), self.skip_flow(at)),
            _ => {
                let (value, _, _, end) = self.flow_plain(at);
                (value, end.max(at + 1))
            }
        }
    }

    /// A plain scalar inside a flow collection: up to `,`, `]`, `}`, `: ` or ` #`, folded
    /// across lines.
    fn flow_plain(&self, at: usize) -> (String, Vec<Span>, usize, usize) {
        let mut value = String::new();
        let mut sources = Vec::new();
        let mut at = at;
        let start = at;
        let mut end = at;
        let mut pending_space = None;
        while let Some(byte) = self.byte(at) {
            match byte {
                b',' | b']' | b'}' => break,
                b':' if matches!(self.byte(at + 1), None | Some(b' ' | b'\t' | b'\r' | b'\n' | b',' | b']' | b'}')) => break,
                b'#' if at > start && matches!(self.text.as_bytes()[at - 1], b' ' | b'\t') => break,
                b' ' | b'\t' | b'\r' | b'\n' => {
                    pending_space.get_or_insert(at);
                    at += 1;
                }
                _ => {
                    if let Some(space) = pending_space.take() {
                        if !value.is_empty() {
                            value.push(' ');
                            sources.push(Span { start: space, end: space });
                        }
                    }
                    let char_len = self.text[at..].chars().next().map_or(1, char::len_utf8);
                    push_raw(&mut value, &mut sources, self.text, at, at + char_len);
                    at += char_len;
                    end = at;
                }
            }
        }
        (value, sources, start, end)
    }

    /// A quoted scalar opening at `at`: its decoded value, the sources, and the offset past
    /// its closing quote. `None` when it is not closed.
    fn quoted(&self, at: usize, quote: u8) -> Option<(String, Vec<Span>, usize)> {
        let mut value = String::new();
        let mut sources = Vec::new();
        let mut at = at + 1;
        loop {
            let byte = self.byte(at)?;
            match byte {
                b'\'' if quote == b'\'' => {
                    if self.byte(at + 1) == Some(b'\'') {
                        value.push('\'');
                        sources.push(Span { start: at, end: at + 2 });
                        at += 2;
                        continue;
                    }
                    return Some((value, sources, at + 1));
                }
                b'"' if quote == b'"' => return Some((value, sources, at + 1)),
                b'\\' if quote == b'"' => {
                    let (decoded, length) = self.escape(at)?;
                    if let Some(decoded) = decoded {
                        let mut buffer = [0; 4];
                        for _ in decoded.encode_utf8(&mut buffer).bytes() {
                            sources.push(Span { start: at, end: at + length });
                        }
                        value.push(decoded);
                    }
                    at += length;
                }
                b'\r' | b'\n' => {
                    at = self.fold_line_break(at, &mut value, &mut sources);
                }
                _ => {
                    let char_len = self.text[at..].chars().next().map_or(1, char::len_utf8);
                    push_raw(&mut value, &mut sources, self.text, at, at + char_len);
                    at += char_len;
                }
            }
        }
    }

    /// Folds a line break inside a quoted scalar: trailing spaces before it and leading spaces
    /// after it go; one break becomes a space, each further blank line a `\n`.
    fn fold_line_break(&self, at: usize, value: &mut String, sources: &mut Vec<Span>) -> usize {
        while value.ends_with([' ', '\t']) {
            value.pop();
            sources.pop();
        }
        let mut at = at;
        let mut breaks = 0;
        loop {
            match self.byte(at) {
                Some(b'\n') => {
                    breaks += 1;
                    at += 1;
                }
                Some(b' ' | b'\t' | b'\r') => at += 1,
                _ => break,
            }
        }
        let fold = Span { start: at, end: at };
        if breaks <= 1 {
            value.push(' ');
            sources.push(fold);
        } else {
            for _ in 1..breaks {
                value.push('\n');
                sources.push(fold);
            }
        }
        at
    }

    /// A backslash escape in a double-quoted scalar: the character (none for an escaped line
    /// break) and how many bytes the escape takes.
    fn escape(&self, at: usize) -> Option<(Option<char>, usize)> {
        let code = self.byte(at + 1)?;
        let simple = match code {
            b'0' => '\0',
            b'a' => '\u{7}',
            b'b' => '\u{8}',
            b't' | b'\t' => '\t',
            b'n' => '\n',
            b'v' => '\u{b}',
            b'f' => '\u{c}',
            b'r' => '\r',
            b'e' => '\u{1b}',
            b' ' => ' ',
            b'"' => '"',
            b'/' => '/',
            b'\\' => '\\',
            b'N' => '\u{85}',
            b'_' => '\u{a0}',
            b'L' => '\u{2028}',
            b'P' => '\u{2029}',
            b'x' | b'u' | b'U' => {
                let digits = match code {
                    b'x' => 2,
                    b'u' => 4,
                    _ => 8,
                };
                let hex = self.text.get(at + 2..at + 2 + digits)?;
                let value = u32::from_str_radix(hex, 16).ok()?;
                return Some((Some(char::from_u32(value)?), 2 + digits));
            }
            b'\n' => {
                let mut end = at + 2;
                while matches!(self.byte(end), Some(b' ' | b'\t')) {
                    end += 1;
                }
                return Some((None, end - at));
            }
            b'\r' if self.byte(at + 2) == Some(b'\n') => {
                let mut end = at + 3;
                while matches!(self.byte(end), Some(b' ' | b'\t')) {
                    end += 1;
                }
                return Some((None, end - at));
            }
            _ => return None,
        };
        Some((Some(simple), 2))
    }
}

/// How much of a plain scalar's line belongs to it: up to a ` #` comment, trailing spaces
/// trimmed.
fn plain_segment_end(line: &str) -> usize {
    let bytes = line.as_bytes();
    let cut = (1..bytes.len()).find(|&at| bytes[at] == b'#' && matches!(bytes[at - 1], b' ' | b'\t')).unwrap_or(bytes.len());
    line[..cut].trim_end().len()
}

/// Appends `text[from..to]` to `value`, each byte from its own offset.
fn push_raw(value: &mut String, sources: &mut Vec<Span>, text: &str, from: usize, to: usize) {
    value.push_str(&text[from..to]);
    sources.extend((from..to).map(|at| Span { start: at, end: at + 1 }));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{IndexConfig, Vault};
    use crate::parse::{parse_note, ParseConfig};

    /// The steps the scanners take on `note`'s frontmatter as the parser reads it, with the
    /// parse's diagnostic codes.
    fn steps_to_parse(note: &str) -> (usize, Vec<String>) {
        STEPS.with(|steps| steps.set(0));
        let parsed = parse_note("Note.md", note, &ParseConfig::OBSIDIAN);
        (STEPS.with(std::cell::Cell::get), parsed.diagnostics.into_iter().map(|diagnostic| diagnostic.code).collect())
    }

    /// The bytes the YAML library is given while the index reads `note` (its parse and its facts).
    fn yaml_bytes_to_index(note: &str) -> usize {
        YAML_BYTES.with(|bytes| bytes.set(0));
        Vault::new(IndexConfig::obsidian_defaults()).upsert("Note.md", note);
        YAML_BYTES.with(std::cell::Cell::get)
    }

    /// Notes of `n` nested flow collections and more, in the shapes that nest: each the block's
    /// length and the frontmatter.
    fn shapes(n: usize) -> Vec<(&'static str, String)> {
        let deep = |open: &str, close: &str, depth: usize| format!("{}x{}", open.repeat(depth), close.repeat(depth));
        vec![
            // Past the bound: one collection nested `n` deep, of each kind.
            ("sequences nested n deep", deep("[", "]", n)),
            ("mappings nested n deep", deep("{a: ", "}", n)),
            ("link-like sequences nested n deep", deep("[[", "]]", n)),
            // Within the bound: `n` collections side by side, each nested as deep as is read.
            ("n sequences nested to the bound", format!("[{}]", vec![deep("[", "]", MAX_NESTING - 2); n].join(", "))),
            ("n link-like sequences nested to the bound", format!("[{}]", vec![deep("[[", "]]", MAX_NESTING / 2 - 1); n].join(", "))),
            (
                "n quoted links nested to the bound",
                format!("[{}]", vec![deep("[", "]", MAX_NESTING - 2).replace('x', "\"[[L]]\""); n].join(", ")),
            ),
        ]
    }

    /// The frontmatter scanners' work grows linearly with the block, however it nests: counted,
    /// not timed. For every shape, the steps per byte of frontmatter stay under a small bound
    /// and do not grow as the block grows sixteenfold.
    #[test]
    fn nested_flow_collections_are_scanned_in_linear_time() {
        for (at, _) in shapes(1).iter().enumerate() {
            let mut per_byte = Vec::new();
            // Up to 1,600 collections side by side, 213 KB at most: within the bytes a block may hold.
            for n in [100, 200, 400, 800, 1_600] {
                let (what, value) = shapes(n).swap_remove(at);
                let note = format!("---\nkey: {value}\n---\n[[Body]]\n");
                let (steps, _) = steps_to_parse(&note);
                per_byte.push((n, steps as f64 / note.len() as f64, what));
            }
            // The YAML library is given a block nested within the bound once, whole (its work per
            // byte bounded by the depth), and one nested past it not at all.
            let (what, value) = shapes(1_600).swap_remove(at);
            let note = format!("---\nkey: {value}\n---\n[[Body]]\n");
            let given = yaml_bytes_to_index(&note);
            let block = note.len() - "---\n---\n[[Body]]\n".len();
            assert!(given == 0 || given == block, "{what}: the YAML library was given {given} bytes of a {block}-byte block");
            assert_eq!(given == 0, what.ends_with("n deep"), "{what}: given {given} bytes");
            assert!(note.len() < crate::parse::MAX_FRONTMATTER_BYTES, "{what}: {} bytes", note.len());
            let (_, first, what) = per_byte[0];
            for (n, ratio, _) in &per_byte {
                assert!(*ratio <= 12.0, "{what}: {ratio:.2} steps a byte at n = {n}: {per_byte:?}");
                assert!(*ratio <= first * 1.05 + 0.05, "{what}: steps a byte grew from {first:.3} to {ratio:.3} at n = {n}: {per_byte:?}");
            }
        }
    }

    /// A block over the bytes a block may hold is not given to the YAML library either, by the
    /// parser or by the index's facts, however it nests.
    #[test]
    fn a_block_too_large_is_not_given_to_the_yaml_library() {
        let depth = crate::parse::MAX_FRONTMATTER_BYTES;
        for value in [format!("{}x{}", "[".repeat(depth), "]".repeat(depth)), format!("[{}]", vec!["\"[[L]]\""; depth / 6].join(", "))] {
            let note = format!("---\nkey: {value}\n---\n[[Body]]\n");
            assert_eq!(yaml_bytes_to_index(&note), 0, "{} bytes", note.len());
            let (_, codes) = steps_to_parse(&note);
            assert!(codes.iter().any(|code| code == "frontmatter_too_large"), "{codes:?}");
        }
    }

    /// A note nested past the bound gets its diagnostic both from the parser (what the edges'
    /// `parseNote` and the link index read) and from the index's facts, which lint reports; the
    /// body's links are read all the same. One nested within the bound gets neither.
    #[test]
    fn a_note_nested_too_deep_is_told_by_the_parser_and_by_lint() {
        for (what, value) in shapes(MAX_NESTING + 1).into_iter().take(3).chain([(
            "indented past the bound",
            (0..=MAX_NESTING * 3).map(|level| format!("\n{}k{level}:", " ".repeat(level * 2))).collect::<String>(),
        )]) {
            let note = format!("---\nkey: {value}\n---\n[[Body]]\n");
            let (_, codes) = steps_to_parse(&note);
            assert!(codes.iter().any(|code| code == "frontmatter_too_deep"), "{what}: {codes:?}");
            let mut vault = Vault::new(IndexConfig::obsidian_defaults());
            vault.upsert("Note.md", &note);
            let facts = vault.facts("Note.md").expect("a note");
            assert!(facts.frontmatter_problems.iter().any(|problem| problem.code == "frontmatter_too_deep"), "{what}: {facts:?}");
            let links: Vec<String> = vault.outgoing_links("Note.md").expect("a note").iter().map(|link| link.link.target.clone()).collect();
            assert_eq!(links, ["Body"], "{what}");
        }
        for (what, value) in shapes(3).into_iter().skip(3) {
            let note = format!("---\nkey: {value}\n---\n[[Body]]\n");
            let (_, codes) = steps_to_parse(&note);
            assert!(!codes.iter().any(|code| code == "frontmatter_too_deep"), "{what}: {codes:?}");
        }
    }
}
