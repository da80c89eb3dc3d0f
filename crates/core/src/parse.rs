//! Parses a note as Obsidian reads it: links in the body (wikilinks, embeds, markdown links and
//! embeds) and in the frontmatter properties, each with the exact byte span of the whole link
//! and of its target; headings, block ids, tags, aliases, and diagnostics.
//!
//! Parsing never fails: text that is not a link is simply not a link, and YAML that cannot be
//! read gives a diagnostic while the body links still count. What is not a link follows
//! Obsidian: code (fenced, indented, inline), `%%comments%%` and math hold no links. The
//! decisions, with an example each, are in `crates/core/tests/spec/links.md`.

use std::ops::Range;

use pulldown_cmark::{Event, HeadingLevel, LinkType, Options, Parser, Tag, TagEnd};
use serde::{Deserialize, Serialize};

use crate::frontmatter::{self, KeySegment, StringScalar};
use crate::line_index::LineIndex;
pub use crate::span::Span;

/// The most links kept for one note under [`ParseConfig::OBSIDIAN`]. Past it the rest are
/// dropped and [`ParsedNote::truncated`] says so; 50,000 is far above any real note (the
/// largest in the corpora we test on has under 3,000).
pub const MAX_LINKS_PER_NOTE: usize = 50_000;

/// How far a markdown link may run, in bytes, from its `[` to its `)`, before we stop looking
/// for its end. This keeps a stray `[` or `(` from turning the scan quadratic on long lines; a
/// real link is far shorter.
const MAX_MARKDOWN_LINK_BYTES: usize = 8_192;

/// What the parser is asked to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseConfig {
    /// Links kept per note; the rest are dropped with [`ParsedNote::truncated`] set.
    pub max_links: usize,
}

impl ParseConfig {
    /// Reads notes the way Obsidian does, with the limit above.
    pub const OBSIDIAN: ParseConfig = ParseConfig { max_links: MAX_LINKS_PER_NOTE };
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
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

impl LinkKind {
    pub fn is_markdown(self) -> bool {
        matches!(self, LinkKind::Markdown | LinkKind::MarkdownEmbed)
    }
}

/// Where a link was written.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "source", rename_all = "snake_case")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum LinkSource {
    /// In the Markdown body.
    Body,
    /// In a frontmatter property: `key` is the top-level key, `key_path` the way down to the
    /// string that holds the link, such as `["blockedBy", 0, "uid"]`.
    Property {
        key: String,
        key_path: Vec<KeySegment>,
        /// How the YAML string that holds the link is written, which decides how a rewritten
        /// target is escaped.
        #[serde(default, skip_serializing_if = "PropertyQuote::is_plain")]
        quote: PropertyQuote,
    },
    /// The `file` of a canvas's file card (`node` is the card's `id`): a vault path, found
    /// exactly as written.
    CanvasFile { node: String },
    /// In the Markdown of a canvas's text card (`node` is the card's `id`).
    CanvasText { node: String },
}

impl LinkSource {
    /// True for a link written in a canvas (a file card or a text card).
    pub fn is_canvas(&self) -> bool {
        matches!(self, LinkSource::CanvasFile { .. } | LinkSource::CanvasText { .. })
    }

    /// How answers name where a link was written: `body`, `property`, `canvas_file`,
    /// `canvas_text`, and for a property link its top-level key.
    pub fn describe(&self) -> (&'static str, Option<String>) {
        match self {
            LinkSource::Body => ("body", None),
            LinkSource::Property { key, .. } => ("property", Some(key.clone())),
            LinkSource::CanvasFile { .. } => ("canvas_file", None),
            LinkSource::CanvasText { .. } => ("canvas_text", None),
        }
    }
}

/// How a property string is written in the YAML.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum PropertyQuote {
    /// Plain: characters stand for themselves.
    #[default]
    Plain,
    /// `'…'`: a `'` is written `''`.
    Single,
    /// `"…"`: `"` and `\` are escaped with a backslash.
    Double,
    /// A literal (`|`) or folded (`>`) block scalar: characters stand for themselves.
    Block,
}

impl PropertyQuote {
    pub fn is_plain(&self) -> bool {
        *self == PropertyQuote::Plain
    }

    /// `text` written inside a string of this kind, or `None` when it cannot be (a line
    /// break or other control character in a quoted string).
    pub fn escape(self, text: &str) -> Option<String> {
        match self {
            PropertyQuote::Plain | PropertyQuote::Block => Some(text.to_owned()),
            PropertyQuote::Single => (!text.chars().any(char::is_control)).then(|| text.replace('\'', "''")),
            PropertyQuote::Double => (!text.chars().any(char::is_control)).then(|| text.replace('\\', "\\\\").replace('"', "\\\"")),
        }
    }
}

/// A form of link that Obsidian reads and that a parity check counts on its own, since each
/// needs a rule of its own to read: a relative wikilink, a link in JSON frontmatter, a link in a
/// block scalar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum LinkForm {
    /// A wikilink or embed written relative to the linking note: `[[../Other]]`.
    Relative,
    /// A link in a frontmatter block written as JSON.
    JsonFrontmatter,
    /// A link in a literal (`|`) or folded (`>`) block scalar.
    BlockScalar,
}

/// True when a link's path is written relative to the linking note: `./Sibling`, `../Other`.
pub fn is_relative(path: &str) -> bool {
    let path = path.trim();
    path == "." || path == ".." || path.starts_with("./") || path.starts_with("../")
}

/// The forms of `link`, one of `note`'s links.
pub fn link_forms(note: &ParsedNote, link: &Link) -> Vec<LinkForm> {
    let mut forms = Vec::new();
    if !link.kind.is_markdown() && is_relative(&link.path) {
        forms.push(LinkForm::Relative);
    }
    if let LinkSource::Property { quote, .. } = &link.source {
        if note.frontmatter_json {
            forms.push(LinkForm::JsonFrontmatter);
        }
        if *quote == PropertyQuote::Block {
            forms.push(LinkForm::BlockScalar);
        }
    }
    forms
}

/// The dotted key of a property link as Obsidian's `FrontmatterLinkCache.key` gives it:
/// `related.0` for the first item of `related`, `blockedBy.0.uid` deeper down.
pub fn dotted_key(path: &[KeySegment]) -> String {
    let mut out = String::new();
    for segment in path {
        if !out.is_empty() {
            out.push('.');
        }
        match segment {
            KeySegment::Key(key) => out.push_str(key),
            KeySegment::Index(index) => out.push_str(&index.to_string()),
        }
    }
    out
}

/// How a markdown link's destination is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Destination {
    /// `<a b.md>` rather than `a%20b.md`.
    pub angle: bool,
    /// The destination holds `%XX` escapes.
    pub encoded: bool,
}

/// One link as written in a note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Link {
    pub kind: LinkKind,
    #[serde(flatten)]
    pub source: LinkSource,
    /// The target part as written (for a property link, after YAML unescaping):
    /// `Note#Heading` in `[[Note#Heading|shown]]`.
    pub target: String,
    /// The path part of the target, for markdown links with CommonMark's backslash escapes and
    /// character references read, then percent-decoded (`T(1).md` for `T\(1\).md`); empty for
    /// a link to a heading or block of the same note (`[[#Heading]]`).
    pub path: String,
    /// What follows the first `#` of the target, with the `#`: `#Heading`, `#^block-id`.
    pub subpath: Option<String>,
    /// Everything after the first `|` of a wikilink, verbatim, or a markdown link's text.
    pub display: Option<String>,
    /// The whole link, `[[` to `]]` or `[` to `)`, in the file's bytes.
    pub span: Span,
    /// The target part in the file's bytes (inside `<…>` for an angle-bracket destination).
    pub target_span: Span,
    /// 1-based line of the link's start.
    pub line: u32,
    /// 1-based column of the link's start, in characters.
    pub column: u32,
    /// For markdown links: how the destination is written.
    pub destination: Option<Destination>,
}

impl Link {
    /// The link's destination as Obsidian's `LinkCache.link` gives it, without the subpath:
    /// for a markdown link with CommonMark's escapes read and percent-decoded and without a final `.md` (`My Note` for
    /// `[t](My%20Note.md#Some%20Heading)`, `pics/a b.png` for `![](pics/a%20b.png)`); for a
    /// wikilink the path as written (`Note.md` stays `Note.md`).
    pub fn link_text(&self) -> String {
        let path = self.path.trim();
        if self.kind.is_markdown() {
            let lower = path.to_ascii_lowercase();
            if lower.ends_with(".md") && path.len() > 3 {
                return path[..path.len() - 3].to_owned();
            }
        }
        path.to_owned()
    }

    /// The text Obsidian shows for the link (`LinkCache.displayText`): the alias or a markdown
    /// link's text when there is one, else the target with each `#` shown as ` > `
    /// (`Note > Heading` for `[[Note#Heading]]`, `Heading` for `[[#Heading]]`).
    pub fn display_text(&self) -> String {
        if let Some(display) = self.display.as_deref().filter(|display| !display.is_empty() || self.kind.is_markdown()) {
            // A markdown link's text is CommonMark: its escapes and references are read.
            return if self.kind.is_markdown() { commonmark_unescape(display) } else { display.to_owned() };
        }
        let mut parts = vec![self.link_text()];
        if let Some(subpath) = &self.subpath {
            parts.extend(subpath.split('#').filter(|part| !part.trim().is_empty()).map(|part| part.trim().to_owned()));
        }
        parts.retain(|part| !part.is_empty());
        parts.join(" > ")
    }

    /// For a property link, its key as `FrontmatterLinkCache.key` writes it (`related.0`).
    pub fn frontmatter_key(&self) -> Option<String> {
        match &self.source {
            LinkSource::Property { key_path, .. } => Some(dotted_key(key_path)),
            _ => None,
        }
    }

    /// The link as written (`LinkCache.original`), rebuilt from its parts: `[[target|display]]`,
    /// `![[target]]`, `[text](destination)`, `![text](<destination>)`. For a link in a property
    /// it is the link inside the string, YAML escapes decoded; a markdown link's title is not kept.
    pub fn original(&self) -> String {
        let bang = if matches!(self.kind, LinkKind::Embed | LinkKind::MarkdownEmbed) { "!" } else { "" };
        let display = self.display.as_deref().unwrap_or("");
        if self.kind.is_markdown() {
            let angle = self.destination.is_some_and(|destination| destination.angle);
            let target = if angle { format!("<{}>", self.target) } else { self.target.clone() };
            format!("{bang}[{display}]({target})")
        } else {
            match &self.display {
                Some(display) => format!("{bang}[[{}|{display}]]", self.target),
                None => format!("{bang}[[{}]]", self.target),
            }
        }
    }
}

/// A heading of the body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Heading {
    pub level: u8,
    pub text: String,
    pub span: Span,
}

/// A `^block-id` marker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct BlockId {
    /// The id without the `^`.
    pub id: String,
    pub span: Span,
}

/// Something the parser noticed that a person may want to fix. Never an error: the note is
/// still parsed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Diagnostic {
    /// A stable code: `unquoted_property_link`, `malformed_frontmatter`,
    /// `frontmatter_not_a_mapping`, `property_scan_mismatch`, `links_truncated`,
    /// `frontmatter_too_large`, `frontmatter_too_deep`.
    pub code: String,
    pub message: String,
    pub span: Option<Span>,
}

/// Everything the parser reads from one note.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ParsedNote {
    /// Body and property links, property links first, each group in file order.
    pub links: Vec<Link>,
    pub headings: Vec<Heading>,
    pub block_ids: Vec<BlockId>,
    /// The frontmatter block, `---` lines included.
    pub frontmatter: Option<Span>,
    /// Top-level frontmatter keys, in order.
    pub frontmatter_keys: Vec<String>,
    /// The frontmatter is a JSON object rather than YAML lines.
    #[serde(default)]
    pub frontmatter_json: bool,
    pub aliases: Vec<String>,
    /// Tags from the `tags` property and from the body, without `#`, in order, each once.
    pub tags: Vec<String>,
    /// The file name without its extension: what Obsidian shows as the note's title.
    pub title: String,
    /// The text of the first level-1 heading.
    pub h1: Option<String>,
    pub diagnostics: Vec<Diagnostic>,
    /// True when the note had more than `max_links` links and the rest were dropped.
    pub truncated: bool,
}

/// Parses the note at `path` (used for its title) with text `text`.
pub fn parse_note(path: &str, text: &str, config: &ParseConfig) -> ParsedNote {
    parse_note_keeping_yaml(path, text, config).0
}

/// [`parse_note`], also answering the frontmatter block as the YAML library read it when the
/// parse had it read (a block that may hold a link, read without error), so that the index
/// reads what it keeps of the properties from the same reading rather than a second one.
pub(crate) fn parse_note_keeping_yaml(path: &str, text: &str, config: &ParseConfig) -> (ParsedNote, Option<serde_yaml::Value>) {
    let mut note = ParsedNote { title: title(path).to_owned(), ..ParsedNote::default() };
    let mut yaml = None;
    let body_start = match frontmatter::find_block(text) {
        Some(block) => {
            note.frontmatter = Some(block.span);
            yaml = read_frontmatter(text, block, &mut note);
            block.span.end
        }
        None => usize::from(text.starts_with('\u{feff}')) * '\u{feff}'.len_utf8(),
    };
    read_body(text, body_start, &mut note);
    if note.links.len() > config.max_links {
        note.links.truncate(config.max_links);
        note.truncated = true;
        note.diagnostics.push(Diagnostic {
            code: "links_truncated".to_owned(),
            message: format!("the note has more than {} links; the rest are not indexed", config.max_links),
            span: None,
        });
    }
    dedupe_in_order(&mut note.tags);
    set_positions(text, &mut note.links);
    (note, yaml)
}

/// Sets each link's line and column (1-based, columns in characters) from the note's line
/// index.
///
/// Links come in file order. A link on the same line as the one before it takes its column
/// from that one's, counting only the characters between them: asking the line index for
/// each would count from the line's start every time, quadratic on a long line of links.
fn set_positions(text: &str, links: &mut [Link]) {
    if links.is_empty() {
        return;
    }
    let lines = LineIndex::new(text);
    let mut previous: Option<(usize, u32, u32)> = None;
    for link in links {
        let start = link.span.start;
        let (line, column) = match previous {
            Some((offset, line, column)) if offset <= start && !text.as_bytes()[offset..start].contains(&b'\n') => {
                let between = u32::try_from(text[offset..start].chars().count()).unwrap_or(u32::MAX);
                (line, column.saturating_add(between))
            }
            _ => {
                let position = lines.position(start);
                (position.line, position.column)
            }
        };
        link.line = line;
        link.column = column;
        previous = Some((start, line, column));
    }
}

/// The file name of `path` without its extension.
fn title(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name.rfind('.') {
        Some(dot) if dot > 0 => &name[..dot],
        _ => name,
    }
}

// ---------------------------------------------------------------------------------------------
// Frontmatter

/// The largest frontmatter whose properties are read. Real frontmatter is a few hundred bytes
/// (the largest in the corpora we test on is under 10 KiB); past this, the YAML library's cost
/// grows with no use, so the block is skipped with the diagnostic `frontmatter_too_large` and
/// the body is read as usual.
pub const MAX_FRONTMATTER_BYTES: usize = 256 * 1024;

/// Reads the frontmatter block into `note`; answers the block as the YAML library read it, when
/// it was read (see [`parse_note_keeping_yaml`]).
fn read_frontmatter(text: &str, block: frontmatter::Block, note: &mut ParsedNote) -> Option<serde_yaml::Value> {
    if block.content.range().len() > MAX_FRONTMATTER_BYTES {
        note.diagnostics.push(Diagnostic {
            code: "frontmatter_too_large".to_owned(),
            message: format!(
                "the frontmatter is {} bytes, over the {MAX_FRONTMATTER_BYTES}-byte limit, so its properties and their links are not read",
                block.content.range().len()
            ),
            span: Some(block.span),
        });
        return None;
    }
    if frontmatter::nests_too_deep(&text[block.content.range()]) {
        note.diagnostics.push(Diagnostic {
            code: "frontmatter_too_deep".to_owned(),
            message: format!(
                "the frontmatter nests deeper than {} levels, so its properties and their links are not read",
                frontmatter::MAX_NESTING
            ),
            span: Some(block.span),
        });
        return None;
    }
    let scan = frontmatter::scan(text, block);
    let content = &text[block.content.range()];
    if scan.not_a_mapping {
        if !content.trim().is_empty() {
            note.diagnostics.push(Diagnostic {
                code: "frontmatter_not_a_mapping".to_owned(),
                message: "the frontmatter is not a list of `key: value` properties, so Obsidian reads no properties from it".to_owned(),
                span: Some(block.span),
            });
        }
        return None;
    }
    for unquoted in &scan.unquoted_links {
        note.diagnostics.push(Diagnostic {
            code: "unquoted_property_link".to_owned(),
            message: format!(
                "`{}` in property `{}` is not quoted, so YAML reads it as a nested list and Obsidian sees no link; write it as \"{}\"",
                &text[unquoted.span.range()],
                key_path_text(&unquoted.path),
                &text[unquoted.span.range()]
            ),
            span: Some(unquoted.span),
        });
    }
    // The YAML library only runs where a link could be, which keeps it off most notes: it is
    // far slower than the scan. A block it cannot read has no properties in Obsidian, so
    // nothing of it is kept (a malformed block without a link goes unnoticed).
    let yaml = match has_link_opening(content).then(|| frontmatter::read_yaml(content)) {
        Some(Ok(yaml)) => Some(yaml),
        Some(Err(error)) => {
            note.diagnostics.push(Diagnostic {
                code: "malformed_frontmatter".to_owned(),
                message: format!(
                    "the frontmatter is not valid YAML ({error}), so Obsidian reads no properties from it and its property links are not read"
                ),
                span: Some(block.span),
            });
            return None;
        }
        None => None,
    };
    note.frontmatter_keys = scan.keys;
    note.frontmatter_json = scan.json;
    for string in &scan.strings {
        read_aliases_and_tags(string, note);
    }
    let yaml = yaml?;
    for string in scan.strings.iter().filter(|string| has_link_opening(&string.value)) {
        // A span-aware scan is only trusted where the YAML library reads the same value.
        if yaml_string_at(&yaml, &string.path) != Some(string.value.as_str()) {
            note.diagnostics.push(Diagnostic {
                code: "property_scan_mismatch".to_owned(),
                message: format!(
                    "the property `{}` was read differently by the YAML library; its links are left out rather than risk a wrong span",
                    key_path_text(&string.path)
                ),
                span: Some(string.span),
            });
            continue;
        }
        property_links(text, string, &mut note.links);
    }
    Some(yaml)
}

/// The frontmatter block at the start of `text` and its property links, as [`parse_note`] reads
/// them (without their lines and columns): the part of a parse that a move's proof runs again
/// when it rewrote a property link (`rename`). `None` when `text` has no frontmatter block.
pub(crate) fn frontmatter_links(text: &str) -> Option<(Span, Vec<Link>)> {
    let block = frontmatter::find_block(text)?;
    let mut note = ParsedNote::default();
    read_frontmatter(text, block, &mut note);
    Some((block.span, note.links))
}

/// The one body link of kind `kind` that `text` is, read as [`parse_note`]'s scan reads a link of
/// that kind where the scan finds it (without its line and column): a move's proof reads each
/// link it rewrote this way again when nothing around the link can read differently (`rename`).
/// `in_table` says the link sits in a table row, where `\|` ends the target. `None` when
/// `text` is not exactly one such link.
pub(crate) fn link_alone(text: &str, kind: LinkKind, in_table: bool) -> Option<Link> {
    let embed = matches!(kind, LinkKind::Embed | LinkKind::MarkdownEmbed);
    let bracket = usize::from(embed);
    if (embed && !text.starts_with('!')) || text.as_bytes().get(bracket) != Some(&b'[') {
        return None;
    }
    let link = if kind.is_markdown() {
        scan_markdown_link(text, 0, bracket + 1, embed)
    } else if text.as_bytes().get(bracket + 1) == Some(&b'[') {
        scan_wikilink(text, 0, bracket + 2, embed, in_table)
    } else {
        None
    }?;
    (link.span.end == text.len()).then_some(link)
}

/// True when `text` holds the opening of a wikilink or of a markdown link's destination.
fn has_link_opening(text: &str) -> bool {
    text.contains("[[") || text.contains("](")
}

/// Aliases and tags as Obsidian reads them: a list gives one alias or tag per item; a single
/// string is split, aliases at commas, tags at commas and spaces. `alias` and `tag` stopped
/// being default properties in Obsidian 1.9 and give nothing.
fn read_aliases_and_tags(string: &StringScalar, note: &mut ParsedNote) {
    let (key, is_list_item) = match string.path.as_slice() {
        [KeySegment::Key(key)] => (key.as_str(), false),
        [KeySegment::Key(key), KeySegment::Index(_)] => (key.as_str(), true),
        _ => return,
    };
    let value = string.value.as_str();
    match key {
        "aliases" if is_list_item => push_alias(&mut note.aliases, value),
        "aliases" => value.split(',').for_each(|alias| push_alias(&mut note.aliases, alias)),
        "tags" if is_list_item => push_tag(&mut note.tags, value.trim().trim_start_matches('#')),
        "tags" => {
            for tag in value.split(|c: char| c == ',' || c.is_whitespace()) {
                push_tag(&mut note.tags, tag.trim_start_matches('#'));
            }
        }
        _ => {}
    }
}

fn push_alias(aliases: &mut Vec<String>, alias: &str) {
    let alias = alias.trim();
    if !alias.is_empty() {
        aliases.push(alias.to_owned());
    }
}

fn push_tag(tags: &mut Vec<String>, tag: &str) {
    if !tag.is_empty() {
        tags.push(tag.to_owned());
    }
}

/// Keeps the first of equal items, in order. Sorting indexes rather than checking each item
/// against those before it keeps a note with many tags from costing quadratic time.
fn dedupe_in_order(items: &mut Vec<String>) {
    if items.len() < 2 {
        return;
    }
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&left, &right| items[left].cmp(&items[right]).then(left.cmp(&right)));
    let mut keep = vec![true; items.len()];
    for pair in order.windows(2) {
        if items[pair[0]] == items[pair[1]] {
            keep[pair[1]] = false;
        }
    }
    let mut index = 0;
    items.retain(|_| {
        index += 1;
        keep[index - 1]
    });
}

fn key_path_text(path: &[KeySegment]) -> String {
    let mut out = String::new();
    for segment in path {
        match segment {
            KeySegment::Key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            KeySegment::Index(index) => out.push_str(&format!("[{index}]")),
        }
    }
    out
}

fn yaml_string_at<'a>(yaml: &'a serde_yaml::Value, path: &[KeySegment]) -> Option<&'a str> {
    let mut value = yaml;
    for segment in path {
        value = match (segment, value) {
            // A hashed look-up for a string key; a number or boolean key (`1: "[[x]]"`) is
            // looked for by its text, which only such rare keys pay for.
            (KeySegment::Key(key), serde_yaml::Value::Mapping(map)) => match map.get(key.as_str()) {
                Some(value) => value,
                None => {
                    map.iter().find(|(candidate, _)| yaml_key_text(candidate).as_deref() == Some(key.as_str())).map(|(_, value)| value)?
                }
            },
            (KeySegment::Index(index), serde_yaml::Value::Sequence(items)) => items.get(*index)?,
            _ => return None,
        };
        if let serde_yaml::Value::Tagged(tagged) = value {
            value = &tagged.value;
        }
    }
    value.as_str()
}

fn yaml_key_text(key: &serde_yaml::Value) -> Option<String> {
    match key {
        serde_yaml::Value::String(text) => Some(text.clone()),
        serde_yaml::Value::Number(number) => Some(number.to_string()),
        serde_yaml::Value::Bool(flag) => Some(flag.to_string()),
        _ => None,
    }
}

/// The links inside one property string, mapped back to the file's bytes.
fn property_links(text: &str, string: &StringScalar, links: &mut Vec<Link>) {
    let value = string.value.as_str();
    let key = match string.path.first() {
        Some(KeySegment::Key(key)) => key.clone(),
        _ => String::new(),
    };
    // A plain scalar cannot start with a quote; a block scalar's span starts at its text.
    let quote = match text.as_bytes().get(string.span.start) {
        _ if string.block => PropertyQuote::Block,
        Some(b'\'') => PropertyQuote::Single,
        Some(b'"') => PropertyQuote::Double,
        _ => PropertyQuote::Plain,
    };
    let source = LinkSource::Property { key, key_path: string.path.clone(), quote };
    // The raw bytes of a decoded range: from the first byte's source to the last one's end.
    let raw = |range: Range<usize>| match range.len() {
        0 => {
            let at = string.sources.get(range.start).map_or(string.span.end, |source| source.start);
            Span { start: at, end: at }
        }
        _ => Span { start: string.sources[range.start].start, end: string.sources[range.end - 1].end },
    };
    // No CommonMark reader has looked at a property string, so it gets its own pass where a
    // markdown link could be.
    let structure = Structure {
        skipped: Vec::new(),
        tables: Vec::new(),
        markdown_link_starts: if value.contains("](") { inline_link_starts(value) } else { Vec::new() },
    };
    scan_links(value, 0, &structure, |mut link| {
        link.span = raw(link.span.range());
        link.target_span = raw(link.target_span.range());
        link.source = source.clone();
        links.push(link);
    });
}

// ---------------------------------------------------------------------------------------------
// Body

/// What pulldown-cmark tells about the body: where code and math are (no links there), where
/// tables are (`\|` separates an alias there), where CommonMark sees inline links, and the
/// headings.
struct Structure {
    skipped: Vec<Range<usize>>,
    tables: Vec<Range<usize>>,
    markdown_link_starts: Vec<usize>,
}

fn read_body(text: &str, body_start: usize, note: &mut ParsedNote) {
    let structure = structure(text, body_start, note, |_, _| {});
    scan_links(text, body_start, &structure, |link| note.links.push(link));
    block_ids_and_tags(text, body_start, &structure.skipped, note);
}

/// Where a note's body starts, as [`parse_note`] reads it: after the frontmatter block, or after
/// a byte-order mark when there is no block.
pub(crate) fn body_start(text: &str) -> usize {
    match frontmatter::find_block(text) {
        Some(block) => block.span.end,
        None => usize::from(text.starts_with('\u{feff}')) * '\u{feff}'.len_utf8(),
    }
}

/// The links of the body of `text` (from `body_start`, as [`body_start`] finds it), in order, as
/// [`parse_note`] reads them but without their lines and columns and without the `max_links`
/// limit; and the ranges no link is read in (code, math and `%%comments%%`), sorted. Each event
/// of the one pulldown-cmark pass is handed to `observe` with its range in `text`, so a caller
/// that reads the body's structure too (`link_mentions`' prose) does it in the same pass.
pub(crate) fn body_links(text: &str, body_start: usize, observe: impl FnMut(&Event<'_>, Range<usize>)) -> (Vec<Link>, Vec<Range<usize>>) {
    let mut scratch = ParsedNote::default();
    let structure = structure(text, body_start, &mut scratch, observe);
    let mut links = Vec::new();
    scan_links(text, body_start, &structure, |link| links.push(link));
    (links, structure.skipped)
}

/// Finds the links of `text[from..]` outside the skipped ranges of `structure`, in order, and
/// hands each to `found`.
fn scan_links(text: &str, from: usize, structure: &Structure, mut found: impl FnMut(Link)) {
    let bytes = text.as_bytes();
    let mut skipped = Covered::new(&structure.skipped);
    let mut tables = structure.tables.iter().peekable();
    let mut inside_link_text: Option<LinkText> = None;
    // The first offset a `!` may be read from: not inside a skipped range or a link before.
    let mut floor = from;
    let mut at = from;
    while at < bytes.len() {
        if let Some(link_text) = inside_link_text.filter(|link_text| at >= link_text.end) {
            at = at.max(link_text.link_end);
            floor = at;
            inside_link_text = None;
            continue;
        }
        if let Some(end) = skipped.end_of_range_holding(at) {
            at = end;
            floor = at;
            continue;
        }
        // Only a `[` opens a link; the one `!` before it makes an embed. Inside a link's text
        // the search stops at the text's end, so nothing in its destination is read.
        let search_end = inside_link_text.map_or(bytes.len(), |link_text| link_text.end);
        let Some(bracket) = text[at..search_end].find('[') else {
            match inside_link_text {
                Some(_) => {
                    at = search_end;
                    continue;
                }
                None => break,
            }
        };
        let bracket = at + bracket;
        if let Some(end) = skipped.end_of_range_holding(bracket) {
            at = end;
            floor = at;
            continue;
        }
        at = bracket;
        let embed = bracket > floor && bytes[bracket - 1] == b'!' && !is_escaped(bytes, bracket - 1);
        let start = if embed { bracket - 1 } else { bracket };
        if is_escaped(bytes, bracket) {
            // `\[[x]]` and `\[x](y)`: an escaped bracket opens nothing.
            at += 1;
            continue;
        }
        let link = if bytes.get(bracket + 1) == Some(&b'[') {
            while tables.peek().is_some_and(|range| range.end <= bracket) {
                tables.next();
            }
            let in_table = tables.peek().is_some_and(|range| range.start <= bracket);
            scan_wikilink(text, start, bracket + 2, embed, in_table)
        } else if structure.markdown_link_starts.binary_search(&start).is_ok() {
            scan_markdown_link(text, start, bracket + 1, embed)
        } else {
            None
        };
        match link {
            Some(link) => {
                at = next_after(&link, &mut inside_link_text);
                floor = at;
                found(link);
            }
            None => at += 1,
        }
    }
}

/// Where CommonMark sees an inline link or image start in `text`.
fn inline_link_starts(text: &str) -> Vec<usize> {
    Parser::new_ext(text, markdown_options())
        .into_offset_iter()
        .filter_map(|(event, range)| match event {
            Event::Start(Tag::Link { link_type: LinkType::Inline, .. }) | Event::Start(Tag::Image { link_type: LinkType::Inline, .. }) => {
                Some(range.start)
            }
            _ => None,
        })
        .collect()
}

/// The Markdown Obsidian reads: CommonMark with tables, strikethrough and math.
pub(crate) fn markdown_options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_MATH
}

/// `body` with some tabs read as spaces (the same number of bytes, so every offset stays), where
/// pulldown-cmark reads a tab otherwise than Obsidian and CommonMark do. Borrowed when there is
/// none.
///
/// - The tabs of a table delimiter row: Obsidian shows a table whose delimiter row has tabs
///   around its dashes (`|---\t|---\t|`), which pulldown-cmark does not take for one.
/// - The tabs after a code fence (`` ```\t ``): CommonMark lets a closing fence be followed by
///   spaces or tabs (§4.5), but pulldown-cmark closes a fence only before spaces, so a tab
///   there left the block open to the note's end and every link after it unread.
pub(crate) fn tabs_read_as_spaces(body: &str) -> std::borrow::Cow<'_, str> {
    let is_delimiter_row = |line: &str| {
        line.contains('|') && line.contains('-') && line.bytes().all(|byte| matches!(byte, b'|' | b'-' | b':' | b' ' | b'\t' | b'\r'))
    };
    // Where the white space after a line's fence starts, when the line is a bare fence (inside
    // block quotes or indented, with nothing but spaces and tabs after it).
    let after_fence = |line: &str| {
        let content = line.trim_start_matches([' ', '\t', '>']);
        let fence = content.bytes().next().filter(|byte| matches!(byte, b'`' | b'~'))?;
        let run = content.bytes().take_while(|byte| *byte == fence).count();
        let rest = &content[run..];
        (run >= 3 && rest.bytes().all(|byte| matches!(byte, b' ' | b'\t' | b'\r'))).then(|| line.len() - rest.len())
    };
    let tab_to_read =
        |line: &str| line.contains('\t') && (is_delimiter_row(line) || after_fence(line).is_some_and(|at| line[at..].contains('\t')));
    if !body.contains('\t') || !body.split('\n').any(tab_to_read) {
        return std::borrow::Cow::Borrowed(body);
    }
    let mut out = String::with_capacity(body.len());
    for (index, line) in body.split('\n').enumerate() {
        if index > 0 {
            out.push('\n');
        }
        let spaces_from = if is_delimiter_row(line) { Some(0) } else { after_fence(line) };
        match spaces_from.filter(|_| line.contains('\t')) {
            Some(at) => {
                out.push_str(&line[..at]);
                out.extend(line[at..].chars().map(|c| if c == '\t' { ' ' } else { c }));
            }
            None => out.push_str(line),
        }
    }
    std::borrow::Cow::Owned(out)
}

fn structure(text: &str, body_start: usize, note: &mut ParsedNote, mut observe: impl FnMut(&Event<'_>, Range<usize>)) -> Structure {
    let read = tabs_read_as_spaces(&text[body_start..]);
    let body: &str = &read;
    let mut skipped = Vec::new();
    let mut tables = Vec::new();
    let mut markdown_link_starts = Vec::new();
    let mut heading: Option<(u8, Range<usize>)> = None;
    let shift = |range: Range<usize>| range.start + body_start..range.end + body_start;
    for (event, range) in Parser::new_ext(body, markdown_options()).into_offset_iter() {
        let range = shift(range);
        observe(&event, range.clone());
        match event {
            Event::Start(Tag::CodeBlock(_)) | Event::Code(_) | Event::InlineMath(_) | Event::DisplayMath(_) => skipped.push(range),
            Event::Start(Tag::Table(_)) => tables.push(range),
            Event::Start(Tag::Link { link_type: LinkType::Inline, .. }) | Event::Start(Tag::Image { link_type: LinkType::Inline, .. }) => {
                markdown_link_starts.push(range.start)
            }
            Event::Start(Tag::Heading { level, .. }) => heading = Some((heading_level(level), range)),
            Event::End(TagEnd::Heading(_)) => {
                if let Some((level, range)) = heading.take() {
                    note.headings.push(Heading { level, text: heading_text(&text[range.clone()]), span: range.into() });
                }
            }
            _ => {}
        }
    }
    skipped.sort_by_key(|range| range.start);
    let comments = comments(text, body_start, &skipped);
    skipped.extend(comments);
    skipped.sort_by_key(|range| range.start);
    markdown_link_starts.sort_unstable();
    // A heading inside a `%%comment%%` is not a heading to Obsidian.
    let mut commented = Covered::new(&skipped);
    note.headings.retain(|heading| commented.end_of_range_holding(heading.span.start).is_none());
    note.h1 = note.headings.iter().find(|heading| heading.level == 1).map(|heading| heading.text.clone());
    Structure { skipped, tables, markdown_link_starts }
}

fn heading_level(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

/// The text of a heading as written: `## Title ##` gives `Title`; a setext heading gives its
/// text lines.
fn heading_text(raw: &str) -> String {
    let trimmed = raw.trim_start();
    if trimmed.starts_with('#') {
        let line = trimmed.lines().next().unwrap_or("");
        let content = line.trim_start_matches('#').trim();
        let without_closing = content.trim_end_matches('#');
        if without_closing.len() < content.len() && (without_closing.is_empty() || without_closing.ends_with([' ', '\t'])) {
            return without_closing.trim().to_owned();
        }
        return content.to_owned();
    }
    let mut lines: Vec<&str> = raw.lines().map(str::trim).filter(|line| !line.is_empty()).collect();
    lines.pop();
    lines.join(" ")
}

/// The `%%comment%%` ranges of the body, outside code. An unclosed `%%` comments out the
/// rest of the note, as in Obsidian's editor.
pub(crate) fn comments(text: &str, body_start: usize, code: &[Range<usize>]) -> Vec<Range<usize>> {
    let mut ranges = Vec::new();
    let mut code = Covered::new(code);
    let mut open: Option<usize> = None;
    let mut search = body_start;
    // Searching for one `%` and looking at the next byte is much faster than searching for
    // the two-byte string.
    while let Some(found) = text[search..].find('%') {
        let at = search + found;
        if text.as_bytes().get(at + 1) != Some(&b'%') {
            search = at + 1;
            continue;
        }
        search = at + 2;
        if code.end_of_range_holding(at).is_some() {
            continue;
        }
        match open.take() {
            None => open = Some(at),
            Some(start) => ranges.push(start..at + 2),
        }
    }
    if let Some(start) = open {
        ranges.push(start..text.len());
    }
    ranges
}

/// Block ids (`text ^id` at a line's end, or `^id` alone on a line) and body tags
/// (`#tag`), outside code and comments. Each is found by searching for its `^` or `#` in the
/// whole body rather than line by line, which is most of what keeps this pass fast.
fn block_ids_and_tags(text: &str, body_start: usize, skipped: &[Range<usize>], note: &mut ParsedNote) {
    let bytes = text.as_bytes();
    let starts_line = |at: usize| at == body_start || bytes[at - 1] == b'\n';
    let mut skipped_for_tags = Covered::new(skipped);
    let mut search = body_start;
    while let Some(found) = text[search..].find('#') {
        let at = search + found;
        search = at + 1;
        // A `#` starts a tag at a line's start or after a space, not inside a markdown link's
        // destination (`[jump](#Heading)`).
        let preceded_ok =
            starts_line(at) || matches!(bytes[at - 1], b' ' | b'\t' | b',') || (bytes[at - 1] == b'(' && (at < 2 || bytes[at - 2] != b']'));
        if !preceded_ok {
            continue;
        }
        let rest = &text[at + 1..];
        let tag = &rest[..rest.find(ends_tag).unwrap_or(rest.len())];
        if !tag.is_empty() && !tag.bytes().all(|byte| byte.is_ascii_digit()) && skipped_for_tags.end_of_range_holding(at).is_none() {
            push_tag(&mut note.tags, tag);
        }
    }
    let mut skipped_for_blocks = Covered::new(skipped);
    let mut search = body_start;
    while let Some(found) = text[search..].find('^') {
        let caret = search + found;
        search = caret + 1;
        if !(starts_line(caret) || matches!(bytes[caret - 1], b' ' | b'\t')) {
            continue;
        }
        let rest = &text[caret + 1..];
        let id = &rest[..rest.bytes().position(|byte| !(byte.is_ascii_alphanumeric() || byte == b'-')).unwrap_or(rest.len())];
        let after = &rest[id.len()..];
        let line_rest = &after[..after.find('\n').unwrap_or(after.len())];
        if !id.is_empty() && line_rest.trim().is_empty() && skipped_for_blocks.end_of_range_holding(caret).is_none() {
            note.block_ids.push(BlockId { id: id.to_owned(), span: Span { start: caret, end: caret + 1 + id.len() } });
        }
    }
}

/// The characters that end a body tag.
fn ends_tag(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            ',' | '.'
                | ';'
                | ':'
                | '!'
                | '?'
                | '"'
                | '\''
                | '('
                | ')'
                | '['
                | ']'
                | '{'
                | '}'
                | '#'
                | '`'
                | '|'
                | '*'
                | '<'
                | '>'
                | '='
                | '+'
                | '&'
                | '%'
                | '^'
                | '~'
                | '@'
                | '$'
        )
}

/// Answers "is this offset inside one of these ranges, and where does that range end?" for
/// offsets asked in increasing order, in time linear in the ranges and the questions together
/// (asking each range in turn would be quadratic on a note with many code spans). The ranges
/// are sorted by start and may overlap or nest.
struct Covered<'a> {
    ranges: &'a [Range<usize>],
    /// The ranges before this index start at or before the last offset asked.
    next: usize,
    /// The furthest end among those ranges.
    covered_end: usize,
    last_asked: usize,
}

impl<'a> Covered<'a> {
    fn new(ranges: &'a [Range<usize>]) -> Covered<'a> {
        Covered { ranges, next: 0, covered_end: 0, last_asked: 0 }
    }

    /// The end of the ranges covering `at`, or `None` when no range holds it.
    fn end_of_range_holding(&mut self, at: usize) -> Option<usize> {
        debug_assert!(at >= self.last_asked, "offsets must be asked in increasing order");
        self.last_asked = at;
        while let Some(range) = self.ranges.get(self.next).filter(|range| range.start <= at) {
            self.covered_end = self.covered_end.max(range.end);
            self.next += 1;
        }
        (at < self.covered_end).then_some(self.covered_end)
    }
}

// ---------------------------------------------------------------------------------------------
// Link syntax, shared by the body and property strings

/// The text of a markdown link that the scan is inside: an image may sit there, as in
/// `[![cover](cover.png)](Book.md)`, and both links count.
#[derive(Debug, Clone, Copy)]
struct LinkText {
    /// Where the text ends, at its `]`.
    end: usize,
    /// Where the whole link ends, past its `)`: the scan goes on from there.
    link_end: usize,
}

/// Where to scan on after `link`. After a markdown link that is not itself inside one, that
/// is the start of its text; the scan jumps past the destination at the text's end.
fn next_after(link: &Link, inside_link_text: &mut Option<LinkText>) -> usize {
    match (&link.display, inside_link_text.is_none() && link.kind.is_markdown()) {
        (Some(display), true) => {
            let text_start = link.span.start + if link.kind == LinkKind::MarkdownEmbed { 2 } else { 1 };
            *inside_link_text = Some(LinkText { end: text_start + display.len(), link_end: link.span.end });
            text_start
        }
        _ => link.span.end,
    }
}

/// True when the byte at `at` is escaped by an odd number of backslashes before it.
fn is_escaped(bytes: &[u8], at: usize) -> bool {
    bytes[..at].iter().rev().take_while(|&&byte| byte == b'\\').count() % 2 == 1
}

fn scan_wikilink(text: &str, start: usize, inner_start: usize, embed: bool, in_table: bool) -> Option<Link> {
    // The link ends at the first `]]` on its line. A `[[` before it opens a later link, which
    // wins as in Obsidian (`[[a [[b]]` links to `b`), so the scan stops there too: no byte is
    // looked at from more than one opening, which keeps a line of `[[[[…` linear.
    let bytes = text.as_bytes();
    let mut at = inner_start;
    let close = loop {
        let found = at + bytes[at..].iter().position(|byte| matches!(byte, b']' | b'[' | b'\n' | b'\r'))?;
        match (bytes[found], bytes.get(found + 1)) {
            (b']', Some(b']')) => break found - inner_start,
            (b'[', Some(b'[')) | (b'\n' | b'\r', _) => return None,
            _ => at = found + 1,
        }
    };
    let inner = &text[inner_start..inner_start + close];
    if inner.trim().is_empty() {
        return None;
    }
    let (target_len, display) = match inner.find('|') {
        // In a table row the separator must be escaped as `\|`; the backslash belongs to the
        // table syntax, not to the target.
        Some(bar) if in_table && inner[..bar].ends_with('\\') => (bar - 1, Some(&inner[bar + 1..])),
        Some(bar) => (bar, Some(&inner[bar + 1..])),
        None => (inner.len(), None),
    };
    let target = &inner[..target_len];
    let (path, subpath) = split_subpath(target);
    Some(Link {
        kind: if embed { LinkKind::Embed } else { LinkKind::Wikilink },
        source: LinkSource::Body,
        target: target.to_owned(),
        path: path.trim().to_owned(),
        subpath: subpath.map(str::to_owned),
        display: display.map(str::to_owned),
        span: Span { start, end: inner_start + close + 2 },
        target_span: Span { start: inner_start, end: inner_start + target_len },
        line: 0,
        column: 0,
        destination: None,
    })
}

fn scan_markdown_link(text: &str, start: usize, text_start: usize, embed: bool) -> Option<Link> {
    let mut limit = (start + MAX_MARKDOWN_LINK_BYTES).min(text.len());
    while !text.is_char_boundary(limit) {
        limit -= 1;
    }
    let text = &text[..limit];
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut at = text_start;
    let text_end = loop {
        if at >= bytes.len() {
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
    while matches!(bytes.get(at), Some(b' ' | b'\t')) {
        at += 1;
    }
    let angle = bytes.get(at) == Some(&b'<');
    let (target_range, after_target) = if angle {
        // Up to the first `>` that is not escaped; an unescaped `<` or a line break first
        // means it is no angle-bracket destination.
        let mut close = at + 1;
        loop {
            match bytes.get(close)? {
                b'\\' => close += 2,
                b'>' => break,
                b'<' | b'\n' => return None,
                _ => close += 1,
            }
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
        let end = end.min(bytes.len());
        (at..end, end)
    };
    let close = scan_title_and_close(text, after_target)?;
    let target = &text[target_range.clone()];
    if target.is_empty() || has_scheme(target) {
        return None;
    }
    let (path, subpath) = split_subpath(target);
    Some(Link {
        kind: if embed { LinkKind::MarkdownEmbed } else { LinkKind::Markdown },
        source: LinkSource::Body,
        target: target.to_owned(),
        path: percent_decode(&commonmark_unescape(path)),
        subpath: subpath.map(|subpath| percent_decode(&commonmark_unescape(subpath))),
        display: Some(text[text_start..text_end].to_owned()),
        span: Span { start, end: close + 1 },
        target_span: target_range.into(),
        line: 0,
        column: 0,
        destination: Some(Destination { angle, encoded: has_percent_escape(target) }),
    })
}

/// After a destination: optional spaces, an optional quoted or parenthesised title, spaces,
/// then `)`. Returns the offset of the `)`.
fn scan_title_and_close(text: &str, mut at: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let skip_space = |at: &mut usize| {
        while matches!(bytes.get(*at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            *at += 1;
        }
    };
    skip_space(&mut at);
    if let Some(&open @ (b'"' | b'\'' | b'(')) = bytes.get(at) {
        let close_byte = if open == b'(' { ')' } else { open as char };
        let close = text[at + 1..].find(close_byte)? + at + 1;
        at = close + 1;
        skip_space(&mut at);
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
pub fn has_scheme(target: &str) -> bool {
    let Some(colon) = target.find(':') else { return false };
    let scheme = &target[..colon];
    // A single letter is a Windows drive (`C:`), which Obsidian treats as a file path.
    scheme.len() > 1
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

fn has_percent_escape(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.windows(3).any(|window| window[0] == b'%' && window[1].is_ascii_hexdigit() && window[2].is_ascii_hexdigit())
}

/// Applies CommonMark's backslash escapes (§2.4: a `\` before ASCII punctuation stands for that
/// character) and entity and numeric character references (§2.5: `&amp;`, `&#40;`, `&#x28;`),
/// as CommonMark reads a link's destination and text (§6.3): `T\(1\).md` is `T(1).md`. A
/// backslash before anything else, and an `&` that starts no reference, stay as written. Named
/// references are decoded by pulldown-cmark, whose table is HTML5's, so there is one table.
pub fn commonmark_unescape(text: &str) -> String {
    if !text.contains(['\\', '&']) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(['\\', '&']) {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        if let Some(escaped) = rest.strip_prefix('\\') {
            match escaped.chars().next() {
                Some(next) if next.is_ascii_punctuation() => {
                    out.push(next);
                    rest = &escaped[1..];
                }
                _ => {
                    out.push('\\');
                    rest = escaped;
                }
            }
            continue;
        }
        match character_reference(rest) {
            Some((decoded, length)) => {
                out.push_str(&decoded);
                rest = &rest[length..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The character reference `text` starts with (`&name;`, `&#digits;`, `&#xhex;`, CommonMark
/// §2.5), decoded, and its length in bytes; `None` when it starts with none.
fn character_reference(text: &str) -> Option<(String, usize)> {
    // The longest reference is a 31-letter name or `#x` and six digits: look no further.
    let end = text.as_bytes().iter().skip(1).take(33).position(|byte| *byte == b';')? + 1;
    let body = &text[1..end];
    let numeric = |digits: &str, radix: u32, most: usize| {
        if digits.is_empty() || digits.len() > most {
            return None;
        }
        let value = u32::from_str_radix(digits, radix).ok()?;
        // CommonMark reads 0 and what is no Unicode scalar value as U+FFFD.
        Some(char::from_u32(value).filter(|c| *c != '\0').unwrap_or('\u{fffd}').to_string())
    };
    let decoded = if let Some(hex) = body.strip_prefix("#x").or_else(|| body.strip_prefix("#X")) {
        numeric(hex, 16, 6).filter(|_| hex.bytes().all(|byte| byte.is_ascii_hexdigit()))?
    } else if let Some(digits) = body.strip_prefix('#') {
        numeric(digits, 10, 7).filter(|_| digits.bytes().all(|byte| byte.is_ascii_digit()))?
    } else {
        if body.is_empty() || body.len() > 31 || !body.bytes().all(|byte| byte.is_ascii_alphanumeric()) {
            return None;
        }
        // A paragraph of the reference alone is its decoded text when the name is known, and
        // the reference as written when it is not.
        let reference = &text[..=end];
        let decoded: String = Parser::new(reference)
            .filter_map(|event| match event {
                Event::Text(text) => Some(text.into_string()),
                _ => None,
            })
            .collect();
        if decoded == reference || decoded.is_empty() {
            return None;
        }
        decoded
    };
    Some((decoded, end + 1))
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

    #[test]
    fn a_target_is_escaped_as_its_property_string_needs() {
        assert_eq!(PropertyQuote::Single.escape("It's").as_deref(), Some("It''s"));
        assert_eq!(PropertyQuote::Double.escape(r#"a "b" \c"#).as_deref(), Some(r#"a \"b\" \\c"#));
        assert_eq!(PropertyQuote::Plain.escape("It's \"x\"").as_deref(), Some("It's \"x\""));
        assert_eq!(PropertyQuote::Single.escape("a\nb"), None, "a line break would fold");
        assert_eq!(dotted_key(&[KeySegment::Key("related".into()), KeySegment::Index(0)]), "related.0");
    }

    #[test]
    fn forms_name_what_needs_a_rule_of_its_own() {
        let forms = |text: &str| {
            let note = parse_note("a/n.md", text, &ParseConfig::OBSIDIAN);
            note.links.iter().map(|link| link_forms(&note, link)).collect::<Vec<_>>()
        };
        assert_eq!(forms("[[../X]] [[./Y]] [[Z]] [x](../z.md)"), [vec![LinkForm::Relative], vec![LinkForm::Relative], vec![], vec![]]);
        assert_eq!(forms("---\n{\"up\": \"[[X]]\"}\n---\n"), [vec![LinkForm::JsonFrontmatter]]);
        assert_eq!(forms("---\nup: |-\n  [[../X]]\nside: '[[Y]]'\n---\n"), [vec![LinkForm::Relative, LinkForm::BlockScalar], vec![]]);
        assert_eq!(dotted_key(&[KeySegment::Key("a".into()), KeySegment::Index(1), KeySegment::Key("uid".into())]), "a.1.uid");
    }
}
