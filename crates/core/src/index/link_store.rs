//! The links of one file as the index keeps them: fixed-size records of integers and one string
//! for all their text, rather than a [`Link`] each with its own strings.
//!
//! A `Link` is about 200 bytes before its text, and three or four allocations with it; at
//! 100,000 notes the links were half of the index's memory, and allocating and freeing them
//! much of a warm start's time. Here a link is a 48-byte record of offsets, spans and tags; its
//! path and subpath are found inside its target when they are part of it (as they are for a
//! wikilink), so most links add only their target and display text to the note's one string.
//! The rare property or canvas source is kept whole beside the records. A caller that needs a
//! link gets a `Link` built from the record ([`Links::get`]): queries are paged and planners
//! read few notes, while the index's own passes (resolving, filing) read the record's strings
//! in place.
//!
//! The numbers that are small in every real note are kept in 16 bits: a piece's length, where
//! the target starts within the link and how long it is, the column and the place among the
//! links outside the body; the record was 64 bytes with them in 32, a quarter of the links'
//! memory. A note whose numbers do not fit (a text over 4 GiB, a link on a line past its
//! 65,535th byte, a target of 64 KiB) keeps its links whole, so no input is refused or cut.

use crate::parse::{Destination, Link, LinkKind, LinkSource};
use crate::span::Span;

/// A piece of the note's string: `start` and `len` in bytes; `start == NONE` for an absent
/// subpath or display.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Piece {
    start: u32,
    len: u32,
}

const NONE: u32 = u32::MAX;

/// One link, as offsets into its file's string and integers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Record {
    /// Where the target, path, subpath and display start in the string, `NONE` for an absent
    /// subpath or display.
    starts: [u32; 4],
    /// Their lengths in bytes, in the same order.
    lens: [u16; 4],
    span: [u32; 2],
    /// The target's span as its start after the link's and its length.
    target_span: [u16; 2],
    line: u32,
    column: u16,
    /// The link's place in `sources`, or `BODY` for a link in the body.
    source: u16,
    kind: LinkKind,
    destination: Option<Destination>,
}

/// [`Record::source`] of a link in the body.
const BODY: u16 = u16::MAX;

impl Record {
    fn piece(&self, at: usize) -> Piece {
        Piece { start: self.starts[at], len: u32::from(self.lens[at]) }
    }
}

const TARGET: usize = 0;
const PATH: usize = 1;
const SUBPATH: usize = 2;
const DISPLAY: usize = 3;

/// The links of one note or canvas, in file order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Links {
    records: Box<[Record]>,
    text: Box<str>,
    /// What few files have, apart, so that a note in the body alone carries one pointer for it.
    rare: Option<Box<Rare>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Rare {
    /// The sources of the links not in the body, in their order.
    sources: Box<[LinkSource]>,
    /// The links whole, for a file whose numbers do not fit the records (then `records` is
    /// empty).
    wide: Box<[Link]>,
}

/// One link's parts, borrowed: what [`LinksBuilder::push`] takes, from a parsed [`Link`] or
/// straight from the persistent index's bytes.
pub(crate) struct LinkParts<'a> {
    pub kind: LinkKind,
    pub source: LinkSource,
    pub target: &'a str,
    pub path: &'a str,
    pub subpath: Option<&'a str>,
    pub display: Option<&'a str>,
    pub span: Span,
    pub target_span: Span,
    pub line: u32,
    pub column: u32,
    pub destination: Option<Destination>,
}

impl<'a> LinkParts<'a> {
    fn of(link: &'a Link) -> LinkParts<'a> {
        LinkParts {
            kind: link.kind,
            source: link.source.clone(),
            target: &link.target,
            path: &link.path,
            subpath: link.subpath.as_deref(),
            display: link.display.as_deref(),
            span: link.span,
            target_span: link.target_span,
            line: link.line,
            column: link.column,
            destination: link.destination,
        }
    }
}

/// Builds a [`Links`] one link at a time, with no allocation per link.
pub(crate) struct LinksBuilder {
    records: Vec<Record>,
    text: String,
    sources: Vec<LinkSource>,
}

impl LinksBuilder {
    /// A builder for `links` links whose text is about `text_bytes` long.
    pub(crate) fn with_capacity(links: usize, text_bytes: usize) -> LinksBuilder {
        LinksBuilder { records: Vec::with_capacity(links), text: String::with_capacity(text_bytes), sources: Vec::new() }
    }

    /// `piece` as a part of the string: inside `within` when it is part of it, else appended.
    fn piece(&mut self, piece: &str, within: Option<Piece>) -> Option<Piece> {
        let len = u32::try_from(piece.len()).ok()?;
        if let Some(within) = within {
            let start = within.start as usize;
            let held = &self.text[start..start + within.len as usize];
            if let Some(at) = held.find(piece) {
                return Some(Piece { start: within.start + u32::try_from(at).ok()?, len });
            }
        }
        let start = u32::try_from(self.text.len()).ok().filter(|start| *start != NONE)?;
        u32::try_from(self.text.len() + piece.len()).ok()?;
        self.text.push_str(piece);
        Some(Piece { start, len })
    }

    fn optional(&mut self, piece: Option<&str>, within: Option<Piece>) -> Option<Piece> {
        match piece {
            Some(piece) => self.piece(piece, within),
            None => Some(Piece { start: NONE, len: 0 }),
        }
    }

    /// Adds a link; `None` when one of its numbers does not fit in 32 bits.
    pub(crate) fn push(&mut self, link: LinkParts<'_>) -> Option<()> {
        let target = self.piece(link.target, None)?;
        let path = self.piece(link.path, Some(target))?;
        let subpath = self.optional(link.subpath, Some(target))?;
        let display = self.optional(link.display, None)?;
        let number = |value: usize| u32::try_from(value).ok();
        let short = |value: usize| u16::try_from(value).ok();
        let source = match link.source {
            LinkSource::Body => BODY,
            other => {
                self.sources.push(other);
                short(self.sources.len() - 1).filter(|at| *at != BODY)?
            }
        };
        let pieces = [target, path, subpath, display];
        let mut lens = [0; 4];
        for (len, piece) in lens.iter_mut().zip(&pieces) {
            *len = short(piece.len as usize)?;
        }
        self.records.push(Record {
            starts: pieces.map(|piece| piece.start),
            lens,
            span: [number(link.span.start)?, number(link.span.end)?],
            target_span: [
                short(link.target_span.start.checked_sub(link.span.start)?)?,
                short(link.target_span.end.checked_sub(link.target_span.start)?)?,
            ],
            line: link.line,
            column: u16::try_from(link.column).ok()?,
            source,
            kind: link.kind,
            destination: link.destination,
        });
        Some(())
    }

    pub(crate) fn finish(self) -> Links {
        let rare = (!self.sources.is_empty()).then(|| Box::new(Rare { sources: self.sources.into_boxed_slice(), wide: Box::default() }));
        Links { records: self.records.into_boxed_slice(), text: self.text.into_boxed_str(), rare }
    }
}

impl Links {
    pub(crate) fn from_links(links: Vec<Link>) -> Links {
        let text_bytes: usize = links.iter().map(|link| link.target.len() + link.display.as_ref().map_or(0, String::len)).sum();
        let mut builder = LinksBuilder::with_capacity(links.len(), text_bytes);
        if links.iter().try_for_each(|link| builder.push(LinkParts::of(link))).is_none() {
            return Links { rare: Some(Box::new(Rare { wide: links.into_boxed_slice(), ..Rare::default() })), ..Links::default() };
        }
        builder.finish()
    }

    pub(crate) fn len(&self) -> usize {
        self.records.len() + self.wide().len()
    }

    fn wide(&self) -> &[Link] {
        self.rare.as_ref().map_or(&[], |rare| &rare.wide)
    }

    fn sources(&self) -> &[LinkSource] {
        self.rare.as_ref().map_or(&[], |rare| &rare.sources)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn text(&self, piece: Piece) -> &str {
        let start = piece.start as usize;
        &self.text[start..start + piece.len as usize]
    }

    fn optional(&self, piece: Piece) -> Option<&str> {
        (piece.start != NONE).then(|| self.text(piece))
    }

    /// The link at `index`, built whole.
    pub(crate) fn get(&self, index: usize) -> Option<Link> {
        if !self.wide().is_empty() {
            return self.wide().get(index).cloned();
        }
        let record = self.records.get(index)?;
        let source = match record.source {
            BODY => LinkSource::Body,
            at => self.sources().get(at as usize)?.clone(),
        };
        let target_start = record.span[0] as usize + usize::from(record.target_span[0]);
        Some(Link {
            kind: record.kind,
            source,
            target: self.text(record.piece(TARGET)).to_owned(),
            path: self.text(record.piece(PATH)).to_owned(),
            subpath: self.optional(record.piece(SUBPATH)).map(str::to_owned),
            display: self.optional(record.piece(DISPLAY)).map(str::to_owned),
            span: Span { start: record.span[0] as usize, end: record.span[1] as usize },
            target_span: Span { start: target_start, end: target_start + usize::from(record.target_span[1]) },
            line: record.line,
            column: u32::from(record.column),
            destination: record.destination,
        })
    }

    /// Whether [`Links::get`] gives a link at `index`, without building it.
    pub(crate) fn holds(&self, index: usize) -> bool {
        if !self.wide().is_empty() {
            return index < self.wide().len();
        }
        self.records.get(index).is_some_and(|record| record.source == BODY || (record.source as usize) < self.sources().len())
    }

    /// Every link, built whole, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = Link> + '_ {
        (0..self.len()).filter_map(|index| self.get(index))
    }

    /// The path part of the link at `index` (`Link::path`), read in place.
    pub(crate) fn path(&self, index: usize) -> Option<&str> {
        if !self.wide().is_empty() {
            return self.wide().get(index).map(|link| link.path.as_str());
        }
        self.records.get(index).map(|record| self.text(record.piece(PATH)))
    }

    /// The kind of the link at `index`, and whether it is a canvas's file card: what resolving
    /// it needs beside its path.
    pub(crate) fn kind(&self, index: usize) -> Option<(LinkKind, bool)> {
        if !self.wide().is_empty() {
            return self.wide().get(index).map(|link| (link.kind, matches!(link.source, LinkSource::CanvasFile { .. })));
        }
        let record = self.records.get(index)?;
        let canvas_file =
            record.source != BODY && matches!(self.sources().get(record.source as usize), Some(LinkSource::CanvasFile { .. }));
        Some((record.kind, canvas_file))
    }

    /// The paths of every link, in order, read in place.
    pub(crate) fn paths(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len()).filter_map(|index| self.path(index))
    }

    /// What the links own on the heap, as [`crate::memory`] counts it.
    pub(crate) fn heap_bytes(&self) -> usize {
        size_of_val(&*self.records)
            + self.text.len()
            + self.rare.as_ref().map_or(0, |_| size_of::<Rare>())
            + size_of_val(self.sources())
            + self.sources().iter().map(crate::memory::source_bytes).sum::<usize>()
            + size_of_val(self.wide())
            + self.wide().iter().map(crate::memory::link_bytes).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse_note, ParseConfig};

    #[test]
    fn every_link_reads_back_as_parsed() {
        let text =
            "---\nrelated: \"[[Other#Part|shown]]\"\n---\n[[A]] ![[B#^x|y]] [t](<c d.md#e>) ![](pic%20x.png) [[#Here]] [[A|]] [[a/B.md]]\n";
        let links = parse_note("n.md", text, &ParseConfig::OBSIDIAN).links;
        assert!(links.len() >= 7, "{links:?}");
        let kept = Links::from_links(links.clone());
        assert_eq!(kept.len(), links.len());
        assert_eq!(kept.iter().collect::<Vec<_>>(), links);
        for (index, link) in links.iter().enumerate() {
            assert_eq!(kept.path(index), Some(link.path.as_str()));
            assert_eq!(kept.kind(index), Some((link.kind, false)));
        }
        assert_eq!(kept.get(links.len()), None);
    }

    #[test]
    fn a_link_past_32_bits_is_kept_whole() {
        let mut link = parse_note("n.md", "[[A]]", &ParseConfig::OBSIDIAN).links.remove(0);
        link.span.end = usize::MAX;
        let kept = Links::from_links(vec![link.clone()]);
        assert_eq!(kept.get(0), Some(link));
        assert!(kept.records.is_empty() && kept.wide().len() == 1);
    }

    #[test]
    fn a_link_past_16_bits_is_kept_whole_and_others_in_48_bytes() {
        assert_eq!(size_of::<Record>(), 48);
        let long = format!("{} [[A]]\n[[{}]]\n", "x".repeat(70_000), "B".repeat(70_000));
        for text in [long.as_str(), &long[..70_010]] {
            let links = parse_note("n.md", text, &ParseConfig::OBSIDIAN).links;
            assert!(!links.is_empty());
            let kept = Links::from_links(links.clone());
            assert_eq!(kept.iter().collect::<Vec<_>>(), links);
            assert!(kept.records.is_empty() && kept.wide().len() == links.len());
        }
        // A link at a column that fits, in a long note, stays a record.
        let text = format!("{}\n[[A]] and [[B#c|d]]\n", "x".repeat(70_000));
        let links = parse_note("n.md", &text, &ParseConfig::OBSIDIAN).links;
        let kept = Links::from_links(links.clone());
        assert_eq!(kept.iter().collect::<Vec<_>>(), links);
        assert_eq!(kept.records.len(), 2);
    }
}
