//! What the index keeps of a file, as flat bytes and back, for the persistent index an edge
//! writes between starts: bytes in, bytes out, no IO.
//!
//! The layout is a compact run of fields in a fixed order (LEB128 integers, strings as a length
//! and UTF-8 bytes), read back in one pass with every length checked against what is left, every
//! tag against its closed list and every span against the file's size. Bytes it cannot read
//! whole give `None`, and the edge parses the file again: a kept note is never guessed at.
//! A note whose facts hold a `SCHEMA.md` schema is not kept (it is rare, and parsed again).
//! A note's near-duplicate sketch is kept when the index has one (`index::sketches`); a note
//! kept without one is sketched when `near_duplicate` next asks, as in an index just built.

use std::num::NonZeroU64;

use super::keys::Keys;
use super::link_store::{LinkParts, LinksBuilder};
use super::{Links, Note, Prepared, Target, Vault};
use crate::facts::{FrontmatterProblem, NoteFacts, Property, ValueShape};
use crate::frontmatter::KeySegment;
use crate::parse::{Destination, LinkKind, LinkSource, ParseConfig, PropertyQuote};
use crate::sketch::{Sketch, SKETCH_SIZE};
use crate::span::Span;

/// The most items any list of a kept note may claim (links are bounded by `max_links`).
const MAX_ITEMS: u64 = 1 << 24;

/// What the index keeps of a prepared file, as bytes; `None` when it is not kept (a schema).
pub fn encode(prepared: &Prepared) -> Option<Vec<u8>> {
    encode_parts(prepared.note.as_ref(), &prepared.canvas, prepared.sketch.as_ref())
}

/// What the index keeps of the file at `path`, as [`encode`] gives it; `None` when the index has
/// no such file or keeps what is not encoded.
pub fn of_file(vault: &Vault, path: &str) -> Option<Vec<u8>> {
    let id = *vault.ids.get(path)?;
    let slot = vault.slots.get(id as usize)?.as_ref()?;
    encode_parts(slot.note.as_ref(), &slot.canvas, vault.kept_sketch_of(id))
}

/// Written in place of a sketch's count of hashes when the note has no sketch: more hashes than
/// a sketch holds, so no count of a kept sketch reads as it.
const NO_SKETCH: u64 = SKETCH_SIZE as u64 + 1;

fn encode_parts(note: Option<&Note>, canvas: &Links, sketch: Option<&Sketch>) -> Option<Vec<u8>> {
    let mut out = Writer(Vec::new());
    match note {
        None => out.uint(0),
        Some(note) => {
            if note.facts.schema.is_some() {
                return None;
            }
            out.uint(1);
            out.links(&note.links);
            out.uint(note.heading_keys.len() as u64);
            for key in note.heading_keys.iter() {
                out.str(key);
            }
            // Kept sorted, as the index holds them.
            out.uint(note.block_ids.len() as u64);
            for id in note.block_ids.iter() {
                out.str(id);
            }
            out.strings(&note.aliases);
            out.uint(u64::from(note.truncated));
            out.facts(&note.facts);
            match sketch {
                None => out.uint(NO_SKETCH),
                Some(sketch) => {
                    out.uint(sketch.hashes().len() as u64);
                    for hash in sketch.hashes() {
                        out.uint(u64::from(*hash));
                    }
                    out.uint(u64::from(sketch.words()));
                    out.uint(sketch.body_hash().map_or(0, NonZeroU64::get));
                }
            }
        }
    }
    out.links(canvas);
    Some(out.0)
}

/// A prepared file back from [`encode`]'s bytes, for a file of `size` bytes read with `parse`;
/// `None` when the bytes are not exactly such an encoding.
pub fn decode(bytes: &[u8], size: u64, parse: &ParseConfig) -> Option<Prepared> {
    let mut input = Reader { bytes, size };
    let mut sketch = None;
    let note = match input.uint()? {
        0 => None,
        1 => {
            let links = input.links(parse)?;
            let heading_keys = Keys::new(input.strings()?);
            let block_ids = Keys::sorted(input.strings()?);
            let aliases = input.strings()?;
            let truncated = input.flag()?;
            let facts = input.facts()?;
            let count = input.uint()?;
            if count != NO_SKETCH {
                // More hashes than a sketch holds is no sketch: `from_parts` would refuse them.
                let count = usize::try_from(count).ok().filter(|count| *count <= SKETCH_SIZE)?;
                let hashes = (0..count).map(|_| input.uint().and_then(|hash| u32::try_from(hash).ok())).collect::<Option<Vec<u32>>>()?;
                let words = u32::try_from(input.uint()?).ok()?;
                let body_hash = NonZeroU64::new(input.uint()?);
                sketch = Some(Sketch::from_parts(hashes, words, body_hash)?);
            }
            Some(Note { links, heading_keys, block_ids, aliases, truncated, facts })
        }
        _ => return None,
    };
    let canvas = input.links(parse)?;
    input.bytes.is_empty().then_some(Prepared { note, canvas, parse: *parse, sketch })
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

    fn links(&mut self, links: &Links) {
        self.uint(links.len() as u64);
        for link in links.iter() {
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

impl<'a> Reader<'a> {
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

    /// A string borrowed from the bytes, for what is copied into the index's own layout.
    fn text(&mut self) -> Option<&'a str> {
        let len = usize::try_from(self.uint()?).ok()?;
        if len > self.bytes.len() {
            return None;
        }
        let (text, rest) = self.bytes.split_at(len);
        self.bytes = rest;
        std::str::from_utf8(text).ok()
    }

    fn optional_text(&mut self) -> Option<Option<&'a str>> {
        match self.uint()? {
            0 => Some(None),
            1 => self.text().map(Some),
            _ => None,
        }
    }

    /// The links, read straight into the index's layout: their strings are copied once, into
    /// the file's one string, with no allocation per link.
    fn links(&mut self, parse: &ParseConfig) -> Option<Links> {
        let count = self.count()?;
        if count > parse.max_links {
            return None;
        }
        let mut links = LinksBuilder::with_capacity(count, self.bytes.len().min(count.saturating_mul(64)));
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
            let target = self.text()?;
            let path = self.text()?;
            let subpath = self.optional_text()?;
            let display = self.optional_text()?;
            let span = self.span()?;
            let target_span = self.span()?;
            let line = self.u32()?;
            let column = self.u32()?;
            let destination = match self.uint()? {
                0 => None,
                bits if bits & 1 == 1 && bits < 8 => Some(Destination { angle: bits & 2 != 0, encoded: bits & 4 != 0 }),
                _ => return None,
            };
            // A link the layout cannot hold (a number past its record's width) sends the file to be parsed
            // again, where it is kept whole.
            links.push(LinkParts { kind, source, target, path, subpath, display, span, target_span, line, column, destination })?;
        }
        Some(links.finish())
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

/// Each file's place in the index's files in path order, by file id: what a kept link's target
/// is written as, so that a start which finds exactly the same paths reads it back without
/// resolving the link again.
#[derive(Debug)]
pub struct Ranks(Vec<u32>);

/// The ranks of the index's files ([`Ranks`]), made once for a whole save.
pub fn ranks(vault: &Vault) -> Ranks {
    let mut ranks = vec![u32::MAX; vault.slots.len()];
    for (rank, id) in vault.ids.values().enumerate() {
        ranks[*id as usize] = rank as u32;
    }
    Ranks(ranks)
}

/// What each link of the file at `path` resolves to, as flat bytes: the number of links, then per
/// link 0 for unresolved, 1 for a name several files share (then the chosen file's rank, the
/// number of candidates and each one's rank), or the target's rank plus two. Empty when the
/// file's resolutions are not kept: no such file, or a target that is not one of the files.
pub fn targets_of(vault: &Vault, ranks: &Ranks, path: &str) -> Vec<u8> {
    let Some(slot) = vault.ids.get(path).and_then(|id| vault.slots.get(*id as usize)?.as_ref()) else { return Vec::new() };
    if slot.targets.len() != super::links_in(slot).len() {
        return Vec::new();
    }
    let rank = |id: super::FileId| ranks.0.get(id as usize).filter(|rank| **rank != u32::MAX).map(|rank| u64::from(*rank));
    let rank_of = |path: &str| vault.ids.get(path).and_then(|id| rank(*id));
    let mut out = Writer(Vec::with_capacity(1 + slot.targets.len() * 3));
    out.uint(slot.targets.len() as u64);
    let source = vault.ids.get(path).copied().unwrap_or_default();
    for (index, target) in slot.targets.iter().enumerate() {
        let Some(id) = target.id() else {
            out.uint(0);
            continue;
        };
        if !target.is_ambiguous() {
            match rank(id) {
                Some(rank) => out.uint(rank + 2),
                None => return Vec::new(),
            }
            continue;
        }
        let link = super::LinkRef { source, index: index as u32 };
        let Some(crate::resolve::Resolution::Ambiguous { path, candidates }) = vault.ambiguous.get(&link).map(|held| &**held) else {
            return Vec::new();
        };
        match (rank(id), rank_of(path)) {
            (Some(chosen), Some(named)) if chosen == named => {
                out.uint(1);
                out.uint(chosen);
                out.uint(candidates.len() as u64);
            }
            _ => return Vec::new(),
        }
        for candidate in candidates {
            match rank_of(candidate) {
                Some(rank) => out.uint(rank),
                None => return Vec::new(),
            }
        }
    }
    out.0
}

/// [`targets_of`]'s bytes back, for a file of `links` links in the index `vault` whose files in
/// path order are `by_rank`; `None` when they are not exactly that (the links are resolved again).
fn decode_targets(vault: &Vault, bytes: &[u8], links: usize, by_rank: &[super::FileId]) -> Option<Vec<Target>> {
    let mut input = Reader { bytes, size: 0 };
    if input.uint()? != links as u64 {
        return None;
    }
    let file = |rank: u64| by_rank.get(usize::try_from(rank).ok()?).copied();
    let mut targets = Vec::with_capacity(links);
    for _ in 0..links {
        targets.push(match input.uint()? {
            0 => Target::Unresolved,
            1 => {
                let chosen = file(input.uint()?)?;
                // Each candidate takes a byte at least: no count past the bytes left is read.
                let count = input.count()?;
                let candidates =
                    (0..count).map(|_| Some(vault.slot(file(input.uint()?)?).path.to_string())).collect::<Option<Vec<String>>>()?;
                let path = vault.slot(chosen).path.to_string();
                Target::Ambiguous(chosen, Box::new(crate::resolve::Resolution::Ambiguous { path, candidates }))
            }
            rank => Target::Resolved(file(rank - 2)?),
        });
    }
    input.bytes.is_empty().then_some(targets)
}

impl Vault {
    /// Adds the files of a first index, each with what its links resolved to when it was kept
    /// ([`targets_of`]'s bytes, empty when not kept), and files those links as they are rather
    /// than resolving them again. A link's resolution depends only on the note's path, the link
    /// and the paths of the vault's files, so this is the index `insert_prepared_many` makes
    /// exactly when `files` holds every path the kept resolutions were made against, and no
    /// other: the edge gives bytes only then. Bytes that do not read back whole, a rank out of
    /// range, an index not empty or a path twice: those links are resolved as usual, never
    /// guessed at. Returns how many files' links were filed as kept.
    pub fn insert_kept_many(&mut self, files: Vec<(String, Prepared, Vec<u8>)>) -> usize {
        // Entered in path order, the index's ids compare as its paths do (`order`).
        let files = super::order::in_path_order(files, |(path, _, _)| path.as_str());
        let twice = files.windows(2).any(|pair| pair[0].0 == pair[1].0);
        if !self.ids.is_empty() || twice {
            self.insert_prepared_many(files.into_iter().map(|(path, prepared, _)| (path, prepared)).collect());
            return 0;
        }
        self.slots.reserve(files.len());
        let mut added = Vec::with_capacity(files.len());
        for (path, prepared, targets) in files {
            debug_assert_eq!(prepared.parse, self.config.parse, "prepared with other parse settings");
            let id = self.add_file(&path, prepared.note, prepared.canvas);
            if let Some(sketch) = prepared.sketch {
                self.keep_kept_sketch(&path, Some(sketch));
            }
            added.push((id, targets));
        }
        let by_rank: Vec<super::FileId> = self.ids.values().copied().collect();
        let mut filed = 0;
        for (id, targets) in added {
            let links = super::links_in(self.slot(id)).len();
            match (!targets.is_empty()).then(|| decode_targets(self, &targets, links, &by_rank)).flatten() {
                Some(targets) => {
                    self.file_links(id, targets);
                    filed += 1;
                }
                None => self.index_links(id),
            }
        }
        self.shrink_lists();
        filed
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
        assert_eq!(back.sketch, None, "an index just built has sketched nothing");
        // A note sketched since keeps its sketch; a canvas or attachment has none to keep.
        let sketched = Prepared { sketch: prepared.note.is_some().then(|| Sketch::of_note(text)), ..prepared };
        let back = decode(&encode(&sketched).expect("kept"), text.len() as u64, &parse).expect("read back");
        assert_eq!(back.sketch, sketched.sketch);
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
    /// The files of a small vault whose links resolve every way: to a note, an attachment, a
    /// path, nothing, and a name two notes share.
    const FILES: &[(&str, &str)] = &[
        ("a.md", "[[b]] [[missing]] ![[pic.png]] [[sub/c|c]] [[twin]] [md](b.md)"),
        ("b.md", "[[a]] [[#Heading]]\n# Heading"),
        ("sub/c.md", "[[../a]] [[b#nowhere]]"),
        ("one/twin.md", "x"),
        ("two/twin.md", "y"),
        ("pic.png", ""),
        ("board.canvas", r#"{"nodes":[{"id":"n1","type":"file","file":"a.md"}],"edges":[]}"#),
    ];

    fn cold() -> Vault {
        let mut vault = Vault::new(crate::index::IndexConfig::obsidian_defaults());
        for (path, text) in FILES {
            vault.upsert(path, text);
        }
        vault
    }

    fn warm(targets: impl Fn(&str, Vec<u8>) -> Vec<u8>) -> Vault {
        let before = cold();
        let ranks = ranks(&before);
        let parse = ParseConfig::OBSIDIAN;
        let files = FILES
            .iter()
            .rev()
            .map(|(path, text)| ((*path).to_owned(), Vault::prepare(&parse, path, text), targets(path, targets_of(&before, &ranks, path))))
            .collect();
        let mut vault = Vault::new(crate::index::IndexConfig::obsidian_defaults());
        let filed = vault.insert_kept_many(files);
        assert!(filed <= FILES.len());
        vault
    }

    #[test]
    fn kept_resolutions_give_the_index_resolving_gives() {
        assert_eq!(warm(|_, bytes| bytes).snapshot(), cold().snapshot());
        assert_eq!(warm(|_, bytes| bytes).summary(), cold().summary());
        assert_eq!(warm(|_, bytes| bytes).missing_target_keys(), cold().missing_target_keys());
        // A link with two candidates is kept with them: no note's links are resolved again.
        assert!(!targets_of(&cold(), &ranks(&cold()), "a.md").is_empty());
        assert!(!targets_of(&cold(), &ranks(&cold()), "b.md").is_empty());
        let files = FILES.iter().map(|(path, text)| {
            ((*path).to_owned(), Vault::prepare(&ParseConfig::OBSIDIAN, path, text), targets_of(&cold(), &ranks(&cold()), path))
        });
        assert_eq!(Vault::new(crate::index::IndexConfig::obsidian_defaults()).insert_kept_many(files.collect()), FILES.len());
    }

    #[test]
    fn damaged_resolutions_are_resolved_again_never_taken() {
        // A rank past the files, a count that is not the links', bytes cut or trailing: each
        // note falls back to resolving, and the index is the cold one.
        let damages: [fn(Vec<u8>) -> Vec<u8>; 4] = [
            |mut bytes| {
                if let Some(last) = bytes.last_mut() {
                    *last = 0x7f;
                }
                bytes
            },
            |mut bytes| {
                bytes[0] += 1;
                bytes
            },
            |mut bytes| {
                bytes.pop();
                bytes
            },
            |mut bytes| {
                bytes.push(0);
                bytes
            },
        ];
        for damage in damages {
            let vault = warm(|_, bytes| if bytes.is_empty() { bytes } else { damage(bytes) });
            assert_eq!(vault.snapshot(), cold().snapshot());
        }
    }
}
