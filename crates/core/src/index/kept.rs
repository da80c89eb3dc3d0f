//! What the index keeps of a file, as flat bytes and back, for the persistent index an edge
//! writes between starts: bytes in, bytes out, no IO.
//!
//! The layout is a compact run of fields in a fixed order (LEB128 integers, strings as a length
//! and UTF-8 bytes), read back in one pass with every length checked against what is left, every
//! tag against its closed list and every span against the file's size. Bytes it cannot read
//! whole give `None`, and the edge parses the file again: a kept note is never guessed at.
//! A note whose facts hold a `SCHEMA.md` schema is not kept (it is rare, and parsed again).

use std::num::NonZeroU64;

use super::{Note, Prepared, Vault};
use crate::facts::{FrontmatterProblem, NoteFacts, Property, ValueShape};
use crate::frontmatter::KeySegment;
use crate::parse::{Destination, Link, LinkKind, LinkSource, ParseConfig, PropertyQuote};
use crate::sketch::Sketch;
use crate::span::Span;

/// The most items any list of a kept note may claim (links are bounded by `max_links`).
const MAX_ITEMS: u64 = 1 << 24;

/// What the index keeps of a prepared file, as bytes; `None` when it is not kept (a schema).
pub fn encode(prepared: &Prepared) -> Option<Vec<u8>> {
    encode_parts(prepared.note.as_ref(), &prepared.canvas)
}

/// What the index keeps of the file at `path`, as [`encode`] gives it; `None` when the index has
/// no such file or keeps what is not encoded.
pub fn of_file(vault: &Vault, path: &str) -> Option<Vec<u8>> {
    let id = *vault.ids.get(path)?;
    let slot = vault.slots.get(id as usize)?.as_ref()?;
    encode_parts(slot.note.as_ref(), &slot.canvas)
}

fn encode_parts(note: Option<&Note>, canvas: &[Link]) -> Option<Vec<u8>> {
    let mut out = Writer(Vec::new());
    match note {
        None => out.uint(0),
        Some(note) => {
            if note.facts.schema.is_some() {
                return None;
            }
            out.uint(1);
            out.links(&note.links);
            out.strings(&note.heading_keys);
            let mut block_ids: Vec<&String> = note.block_ids.iter().collect();
            block_ids.sort();
            out.uint(block_ids.len() as u64);
            for id in block_ids {
                out.str(id);
            }
            out.strings(&note.aliases);
            out.uint(u64::from(note.truncated));
            out.facts(&note.facts);
            out.uint(note.sketch.hashes().len() as u64);
            for hash in note.sketch.hashes() {
                out.uint(u64::from(*hash));
            }
            out.uint(u64::from(note.sketch.words()));
            out.uint(note.sketch.body_hash().map_or(0, NonZeroU64::get));
        }
    }
    out.links(canvas);
    Some(out.0)
}

/// A prepared file back from [`encode`]'s bytes, for a file of `size` bytes read with `parse`;
/// `None` when the bytes are not exactly such an encoding.
pub fn decode(bytes: &[u8], size: u64, parse: &ParseConfig) -> Option<Prepared> {
    let mut input = Reader { bytes, size };
    let note = match input.uint()? {
        0 => None,
        1 => {
            let links = input.links(parse)?;
            let heading_keys = input.strings()?;
            let block_ids = input.strings()?.into_iter().collect();
            let aliases = input.strings()?;
            let truncated = input.flag()?;
            let facts = input.facts()?;
            let count = input.count()?;
            let hashes = (0..count).map(|_| input.uint().and_then(|hash| u32::try_from(hash).ok())).collect::<Option<Vec<u32>>>()?;
            let words = u32::try_from(input.uint()?).ok()?;
            let body_hash = NonZeroU64::new(input.uint()?);
            let sketch = Sketch::from_parts(hashes, words, body_hash)?;
            Some(Note { links, heading_keys, block_ids, aliases, truncated, facts, sketch })
        }
        _ => return None,
    };
    let canvas = input.links(parse)?;
    input.bytes.is_empty().then_some(Prepared { note, canvas, parse: *parse })
}

struct Writer(Vec<u8>);

impl Writer {
    fn uint(&mut self, mut value: u64) {
        loop {
            let byte = (value & 0x7f) as u8;
            value >>= 7;
            if value == 0 {
                self.0.push(byte);
                return;
            }
            self.0.push(byte | 0x80);
        }
    }

    fn str(&mut self, text: &str) {
        self.uint(text.len() as u64);
        self.0.extend_from_slice(text.as_bytes());
    }

    fn option(&mut self, text: Option<&str>) {
        match text {
            None => self.uint(0),
            Some(text) => {
                self.uint(1);
                self.str(text);
            }
        }
    }

    fn strings(&mut self, texts: &[String]) {
        self.uint(texts.len() as u64);
        for text in texts {
            self.str(text);
        }
    }

    fn span(&mut self, span: Span) {
        self.uint(span.start as u64);
        self.uint(span.end.saturating_sub(span.start) as u64);
    }

    fn links(&mut self, links: &[Link]) {
        self.uint(links.len() as u64);
        for link in links {
            self.uint(match link.kind {
                LinkKind::Wikilink => 0,
                LinkKind::Embed => 1,
                LinkKind::Markdown => 2,
                LinkKind::MarkdownEmbed => 3,
            });
            match &link.source {
                LinkSource::Body => self.uint(0),
                LinkSource::Property { key, key_path, quote } => {
                    self.uint(1);
                    self.str(key);
                    self.uint(key_path.len() as u64);
                    for segment in key_path {
                        match segment {
                            KeySegment::Key(key) => {
                                self.uint(0);
                                self.str(key);
                            }
                            KeySegment::Index(index) => {
                                self.uint(1);
                                self.uint(*index as u64);
                            }
                        }
                    }
                    self.uint(match quote {
                        PropertyQuote::Plain => 0,
                        PropertyQuote::Single => 1,
                        PropertyQuote::Double => 2,
                        PropertyQuote::Block => 3,
                    });
                }
                LinkSource::CanvasFile { node } => {
                    self.uint(2);
                    self.str(node);
                }
                LinkSource::CanvasText { node } => {
                    self.uint(3);
                    self.str(node);
                }
            }
            self.str(&link.target);
            self.str(&link.path);
            self.option(link.subpath.as_deref());
            self.option(link.display.as_deref());
            self.span(link.span);
            self.span(link.target_span);
            self.uint(u64::from(link.line));
            self.uint(u64::from(link.column));
            self.uint(match link.destination {
                None => 0,
                Some(Destination { angle, encoded }) => 1 | u64::from(angle) << 1 | u64::from(encoded) << 2,
            });
        }
    }

    fn facts(&mut self, facts: &NoteFacts) {
        self.option(facts.h1.as_deref());
        self.uint(facts.properties.len() as u64);
        for property in &facts.properties {
            self.str(&property.key);
            self.strings(&property.values);
            self.uint(match property.shape {
                ValueShape::Empty => 0,
                ValueShape::Scalar => 1,
                ValueShape::List => 2,
                ValueShape::Mapping => 3,
            });
            self.uint(u64::from(property.cut));
        }
        self.uint(u64::from(facts.properties_cut));
        self.uint(facts.frontmatter_problems.len() as u64);
        for problem in &facts.frontmatter_problems {
            self.str(&problem.code);
            self.str(&problem.message);
            self.uint(u64::from(problem.line));
        }
        self.uint(facts.text_fingerprint);
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    /// The file's size: no span reaches past it.
    size: u64,
}

impl Reader<'_> {
    fn uint(&mut self) -> Option<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let (&byte, rest) = self.bytes.split_first()?;
            self.bytes = rest;
            let bits = u64::from(byte & 0x7f);
            if shift == 63 && bits > 1 {
                return None;
            }
            value |= bits << shift;
            if byte & 0x80 == 0 {
                return Some(value);
            }
        }
        None
    }

    fn u32(&mut self) -> Option<u32> {
        u32::try_from(self.uint()?).ok()
    }

    fn flag(&mut self) -> Option<bool> {
        match self.uint()? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }

    /// A count of items, each at least one byte: never more than the bytes left.
    fn count(&mut self) -> Option<usize> {
        let count = self.uint()?;
        (count <= MAX_ITEMS && count <= self.bytes.len() as u64).then_some(count as usize)
    }

    fn str(&mut self) -> Option<String> {
        let len = usize::try_from(self.uint()?).ok()?;
        if len > self.bytes.len() {
            return None;
        }
        let (text, rest) = self.bytes.split_at(len);
        self.bytes = rest;
        String::from_utf8(text.to_vec()).ok()
    }

    fn option(&mut self) -> Option<Option<String>> {
        match self.uint()? {
            0 => Some(None),
            1 => self.str().map(Some),
            _ => None,
        }
    }

    fn strings(&mut self) -> Option<Vec<String>> {
        let count = self.count()?;
        (0..count).map(|_| self.str()).collect()
    }

    fn span(&mut self) -> Option<Span> {
        let start = self.uint()?;
        let end = start.checked_add(self.uint()?)?;
        (end <= self.size).then_some(Span { start: usize::try_from(start).ok()?, end: usize::try_from(end).ok()? })
    }

    fn links(&mut self, parse: &ParseConfig) -> Option<Vec<Link>> {
        let count = self.count()?;
        if count > parse.max_links {
            return None;
        }
        let mut links = Vec::with_capacity(count);
        for _ in 0..count {
            let kind = match self.uint()? {
                0 => LinkKind::Wikilink,
                1 => LinkKind::Embed,
                2 => LinkKind::Markdown,
                3 => LinkKind::MarkdownEmbed,
                _ => return None,
            };
            let source = match self.uint()? {
                0 => LinkSource::Body,
                1 => {
                    let key = self.str()?;
                    let segments = self.count()?;
                    let mut key_path = Vec::with_capacity(segments);
                    for _ in 0..segments {
                        key_path.push(match self.uint()? {
                            0 => KeySegment::Key(self.str()?),
                            1 => KeySegment::Index(usize::try_from(self.uint()?).ok()?),
                            _ => return None,
                        });
                    }
                    let quote = match self.uint()? {
                        0 => PropertyQuote::Plain,
                        1 => PropertyQuote::Single,
                        2 => PropertyQuote::Double,
                        3 => PropertyQuote::Block,
                        _ => return None,
                    };
                    LinkSource::Property { key, key_path, quote }
                }
                2 => LinkSource::CanvasFile { node: self.str()? },
                3 => LinkSource::CanvasText { node: self.str()? },
                _ => return None,
            };
            let target = self.str()?;
            let path = self.str()?;
            let subpath = self.option()?;
            let display = self.option()?;
            let span = self.span()?;
            let target_span = self.span()?;
            let line = self.u32()?;
            let column = self.u32()?;
            let destination = match self.uint()? {
                0 => None,
                bits if bits & 1 == 1 && bits < 8 => Some(Destination { angle: bits & 2 != 0, encoded: bits & 4 != 0 }),
                _ => return None,
            };
            links.push(Link { kind, source, target, path, subpath, display, span, target_span, line, column, destination });
        }
        Some(links)
    }

    fn facts(&mut self) -> Option<NoteFacts> {
        let h1 = self.option()?;
        let count = self.count()?;
        let mut properties = Vec::with_capacity(count);
        for _ in 0..count {
            let key = self.str()?;
            let values = self.strings()?;
            let shape = match self.uint()? {
                0 => ValueShape::Empty,
                1 => ValueShape::Scalar,
                2 => ValueShape::List,
                3 => ValueShape::Mapping,
                _ => return None,
            };
            let cut = self.flag()?;
            properties.push(Property { key, values, shape, cut });
        }
        let properties_cut = self.flag()?;
        let count = self.count()?;
        let mut frontmatter_problems = Vec::with_capacity(count);
        for _ in 0..count {
            let code = self.str()?;
            let message = self.str()?;
            let line = self.u32()?;
            frontmatter_problems.push(FrontmatterProblem { code, message, line });
        }
        let text_fingerprint = self.uint()?;
        Some(NoteFacts { h1, properties, properties_cut, frontmatter_problems, schema: None, text_fingerprint })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::Vault;

    const NOTE: &str = "---\naliases: [Other]\ntags: [a, b]\nup: \"[[Parent]]\"\nnested:\n  deep: 1\n---\n# Title\n\nSee [[Note#Heading|shown]], ![[pic.png]], [md](<a b.md#x>) and [enc](a%20b.md).\n\n## Heading\n\nText with words enough to sketch the body of this note for the test. ^block-1\n";

    fn round_trip(path: &str, text: &str) {
        let parse = ParseConfig::OBSIDIAN;
        let prepared = Vault::prepare(&parse, path, text);
        let bytes = encode(&prepared).expect("kept");
        let back = decode(&bytes, text.len() as u64, &parse).expect("read back");
        assert_eq!(back.note, prepared.note);
        assert_eq!(back.canvas, prepared.canvas);
    }

    #[test]
    fn a_note_and_a_canvas_read_back_as_prepared() {
        round_trip("folder/Note.md", NOTE);
        round_trip(
            "board.canvas",
            r#"{"nodes":[{"id":"n1","type":"file","file":"a.md"},{"id":"n2","type":"text","text":"see [[b]]"}],"edges":[]}"#,
        );
        round_trip("pic.png", "");
        round_trip("empty.md", "");
    }

    #[test]
    fn damaged_bytes_give_none_never_a_wrong_note() {
        let parse = ParseConfig::OBSIDIAN;
        let bytes = encode(&Vault::prepare(&parse, "Note.md", NOTE)).expect("kept");
        for at in 0..bytes.len() {
            // A cut always fails; a flip may give another valid encoding (the file's checksum
            // catches that), but never a panic.
            assert!(decode(&bytes[..at], NOTE.len() as u64, &parse).is_none(), "a cut at {at} was read");
            let mut flipped = bytes.clone();
            flipped[at] ^= 0xff;
            let _ = decode(&flipped, NOTE.len() as u64, &parse);
        }
        assert!(decode(&bytes, 3, &parse).is_none(), "spans past the file's size were read");
    }
}
