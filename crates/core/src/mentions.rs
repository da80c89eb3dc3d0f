//! `link_mentions`: the plain-text mentions of notes' names in a note, a folder or the whole
//! vault, and a plan that makes each a link keeping its visible text.
//!
//! A note is known here by its file name, its aliases and its `title` property (not its first
//! H1, which often repeats a sentence rather than naming the note). A mention is found as
//! `find_evidence` finds one (`inflect`): whole words, compared folded, the name's last word bare
//! or with an English ending. The names are indexed once per call by their first word, so each
//! word of prose looks up only the names that may start there; at each place the longest name
//! wins ("Opportunity attack" over "Attack"), and the text it covers is not read again.
//!
//! Never linked: a note's own names in it; a name two notes share (listed as ambiguous, with its
//! notes); a name shorter than [`MIN_NAME_CHARS`] or without a letter; a mention in frontmatter,
//! a heading, code (spans and blocks), a table, HTML (blocks, inline tags and what they enclose,
//! `<!-- -->`), math, a `%%comment%%`, a link or a bracket span (`[...]` on one line: wikilinks,
//! tasks, footnotes, callout types), a tag or a web address; a note in a read-only source folder.
//! A table is left because a wikilink's `|` would split its cell.
//!
//! The link is written as a new link of `commit_wiki_page` is (`link_form`): a wikilink with the
//! mention as its display text, or bare when the mention is exactly the path written; under
//! "Use [[Wikilinks]]" turned off, a markdown link. The plan is proven by reading each edited
//! note again: as many links as before plus the new ones, every old link as it was, every new
//! one finding its intended note and showing the mention.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Range;
use std::sync::OnceLock;

use pulldown_cmark::{Event, Parser, Tag, TagEnd};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::answer::OpError;
use crate::canvas::parse_file;
use crate::frontmatter::find_block;
use crate::index::Vault;
use crate::inflect::{inflected_as, stems, Inflection};
use crate::line_index::LineCounter;
use crate::pages::{names_of, Facet};
use crate::parse::{markdown_options, Link};
use crate::plan::{apply_edits, assemble, ChangeReason, LinkChange, MovePlan, TextEdit};
use crate::resolve::{self, fold};
use crate::span::Span;

/// The fewest characters a name must have to be looked for: shorter names (`AI`, `Go`, `Q3`)
/// are more often words of their own than mentions of a note.
pub const MIN_NAME_CHARS: usize = 3;

/// The most ambiguous names (and notes left unproven) listed in one answer; the count says how
/// many names there are.
pub const MAX_AMBIGUOUS_LISTED: usize = 50;

crate::approval::writing_arguments! {
    #[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct MentionsArguments {
        /// A note or a folder; the whole vault when left out.
        #[serde(default)]
        pub path: Option<String>,
        /// Only mentions of these notes.
        #[serde(default)]
        pub targets: Option<Vec<String>>,
        /// Mention ids (`id` of a preview's mention) left as they are.
        #[serde(default)]
        pub exclude: Vec<String>,
        /// Only the first mention of each note in each note read.
        #[serde(default)]
        pub first_only: bool,
    } paged
}

/// One mention the plan links.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mention {
    /// Names this mention in `exclude`: the note and the byte offset of the mention in it.
    pub id: String,
    pub note: String,
    pub line: u32,
    /// The mention as written.
    pub text: String,
    /// The note it names.
    pub target: String,
    /// The link it becomes.
    pub link: String,
}

/// A name two or more notes share: its mentions are not linked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AmbiguousName {
    pub name: String,
    pub notes: Vec<String>,
    /// How many mentions of it were left.
    pub mentions: usize,
}

/// The mentions planned and proven, and the names left.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MentionPlan {
    pub plan: MovePlan,
    pub mentions: Vec<Mention>,
    pub ambiguous: Vec<AmbiguousName>,
    /// Notes whose mentions would not read back as planned, left as they are.
    pub unprovable: Vec<String>,
}

/// What `link_mentions` answers, the same on every path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MentionsAnswer {
    /// True when nothing was written: the answer previews the plan.
    pub dry_run: bool,
    /// True when the plan was applied.
    pub applied: bool,
    /// Pass this as `approved_plan_hash` (with the same arguments) to apply exactly this plan.
    pub plan_hash: String,
    /// How many notes get links.
    pub notes_edited: usize,
    /// How many mentions become links, on every page.
    pub mentions_linked: usize,
    /// The mentions on this page; left out with `concise` once applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mentions: Option<Vec<Mention>>,
    /// Names shared by several notes, never linked (the first [`MAX_AMBIGUOUS_LISTED`], on the
    /// first page).
    pub ambiguous: Vec<AmbiguousName>,
    pub ambiguous_count: usize,
    /// Notes whose mentions could not be written so that they read back as planned (the first
    /// [`MAX_AMBIGUOUS_LISTED`], on the first page).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unprovable: Vec<String>,
    /// The fewest characters a name needs to be looked for.
    pub min_name_chars: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Once applied: the id `undo_change` takes to undo it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change_id: Option<String>,
}

impl MentionsAnswer {
    /// One page of the mentions (`answer::page`, the cursor bound to the plan); the ambiguous
    /// names are on the first page.
    pub fn paged(plan: &MentionPlan, detailed: bool, limit: Option<usize>, cursor: Option<&str>) -> Result<MentionsAnswer, OpError> {
        let scope = format!("link_mentions\0{}", plan.plan.plan_hash);
        let (page, _, next_cursor) = crate::answer::page(plan.mentions.iter().collect(), limit, cursor, &scope)?;
        let first = cursor.is_none();
        Ok(MentionsAnswer {
            dry_run: true,
            applied: false,
            plan_hash: plan.plan.plan_hash.clone(),
            notes_edited: plan.plan.edits.len(),
            mentions_linked: plan.mentions.len(),
            mentions: detailed.then(|| page.into_iter().cloned().collect()),
            ambiguous: if first { plan.ambiguous.iter().take(MAX_AMBIGUOUS_LISTED).cloned().collect() } else { Vec::new() },
            ambiguous_count: plan.ambiguous.len(),
            unprovable: if first { plan.unprovable.iter().take(MAX_AMBIGUOUS_LISTED).cloned().collect() } else { Vec::new() },
            min_name_chars: MIN_NAME_CHARS,
            next_cursor,
            change_id: None,
        })
    }
}

/// The notes in scope, leaving those in read-only source folders: every note, the notes under
/// a folder, or one note. `None` when the scope names neither a note nor a folder of notes.
pub fn in_scope<'v>(vault: &'v Vault, scope: Option<&str>) -> Option<Vec<&'v str>> {
    let scope = scope.map(|scope| scope.trim().trim_matches('/')).filter(|scope| !scope.is_empty());
    let notes: Vec<&str> = match scope {
        None => vault.note_paths().collect(),
        Some(scope) => match vault.find_note(scope) {
            Some(note) => vec![note],
            None => {
                let prefix = format!("{}/", fold(scope));
                let notes: Vec<&str> = vault.note_paths().filter(|path| fold(path).starts_with(&prefix)).collect();
                if notes.is_empty() {
                    return None;
                }
                notes
            }
        },
    };
    let sources = crate::sources::source_folders(vault);
    Some(notes.into_iter().filter(|note| crate::sources::source_holding(&sources, note).is_none()).collect())
}

/// A name as it is looked for, with the notes it names.
struct Entry<'v> {
    /// The folded name (or, for a plural name, its singular), words separated by one space.
    stem: String,
    /// How the stem's last word is inflected, read once.
    inflection: Inflection,
    /// The name as the first note of it has it, for the answer.
    name: String,
    notes: Vec<&'v str>,
}

/// The vault's names, indexed once per call by the first word of each stem.
struct Names<'v> {
    entries: Vec<Entry<'v>>,
    /// Looked up for every word of prose read, so hashed as the index's own maps are.
    by_first: FxHashMap<String, Bucket>,
}

/// The names whose stems start with one word. A word that starts many names (`the`, `how`)
/// is read often in prose, so its names are filed again by the two bytes after the word, which
/// every mention of the name repeats: only the names those bytes allow are tried.
#[derive(Default)]
struct Bucket {
    /// Entries whose kept bytes end before two bytes after the word, in order.
    short: Vec<usize>,
    /// The other entries by those two bytes, sorted by them, then in order.
    next: Vec<([u8; 2], usize)>,
}

impl Bucket {
    fn file(&mut self, word: usize, entry: usize, kept: &[u8]) {
        match kept.get(word..word + 2) {
            Some(&[first, second]) => self.next.push(([first, second], entry)),
            _ => self.short.push(entry),
        }
    }

    /// The entries that may be written at the start of `rest`, whose first word is `word`
    /// bytes long, in order.
    fn candidates(&self, rest: &[u8], word: usize) -> impl Iterator<Item = usize> + '_ {
        let next: &[([u8; 2], usize)] = match rest.get(word..word + 2) {
            Some(&[first, second]) => {
                let key = [first, second];
                let from = self.next.partition_point(|(bytes, _)| *bytes < key);
                let to = from + self.next[from..].partition_point(|(bytes, _)| *bytes == key);
                &self.next[from..to]
            }
            _ => &[],
        };
        // Both lists hold entries in order: merged, they are tried in the order they were filed.
        let mut short = self.short.iter().copied().peekable();
        let mut next = next.iter().map(|(_, entry)| *entry).peekable();
        std::iter::from_fn(move || match (short.peek(), next.peek()) {
            (Some(&one), Some(&other)) if other < one => next.next(),
            (Some(_), _) => short.next(),
            (None, _) => next.next(),
        })
    }
}

/// The folded form a name is looked for in, or `None` when it is not looked for: shorter than
/// [`MIN_NAME_CHARS`], without a letter, not starting with a letter or digit, or holding a
/// character a link's text cannot.
fn name_key(name: &str) -> Option<String> {
    let key = fold(name).split_whitespace().collect::<Vec<_>>().join(" ");
    let long_enough = key.chars().count() >= MIN_NAME_CHARS;
    let starts = key.chars().next().is_some_and(char::is_alphanumeric);
    let linkable = !key.contains(['[', ']', '|', '#', '^', '\n']);
    (long_enough && starts && linkable && key.chars().any(char::is_alphabetic)).then_some(key)
}

fn first_word(stem: &str) -> &str {
    let end = stem.find(|c: char| !c.is_alphanumeric()).unwrap_or(stem.len());
    &stem[..end]
}

impl<'v> Names<'v> {
    fn new(vault: &'v Vault) -> Names<'v> {
        // Names as written first: a plural's singular does not take the name of a note called
        // by it.
        let mut exact: BTreeMap<String, (String, Vec<&'v str>)> = BTreeMap::new();
        let mut derived: BTreeMap<String, (String, Vec<&'v str>)> = BTreeMap::new();
        for note in vault.notes() {
            for (facet, name) in names_of(note.title(), note.aliases, note.facts) {
                if facet == Facet::H1 {
                    continue;
                }
                let Some(key) = name_key(name) else { continue };
                for (index, stem) in stems(&key).into_iter().enumerate() {
                    let map = if index == 0 { &mut exact } else { &mut derived };
                    let (_, notes) = map.entry(stem).or_insert_with(|| (name.trim().to_owned(), Vec::new()));
                    if !notes.contains(&note.path) {
                        notes.push(note.path);
                    }
                }
            }
        }
        derived.retain(|stem, _| !exact.contains_key(stem));
        let mut names = Names { entries: Vec::new(), by_first: FxHashMap::default() };
        for (stem, (name, notes)) in exact.into_iter().chain(derived) {
            let inflection = Inflection::of(&stem);
            let word = first_word(&stem);
            let kept = &stem.as_bytes()[..inflection.kept_bytes(&stem)];
            names.by_first.entry(word.to_owned()).or_default().file(word.len(), names.entries.len(), kept);
            names.entries.push(Entry { inflection, stem, name, notes });
        }
        for bucket in names.by_first.values_mut() {
            bucket.next.sort();
        }
        names
    }

    /// The longest name written as whole words at byte `at` of `folded` (where a word starts):
    /// its entry and length.
    fn longest_at(&self, folded: &str, at: usize) -> Option<(usize, usize)> {
        let word = first_word(&folded[at..]);
        let mut best: Option<(usize, usize)> = None;
        let rest = &folded.as_bytes()[at..];
        let mut try_key = |key: &str| {
            for entry in self.by_first.get(key).into_iter().flat_map(|bucket| bucket.candidates(rest, key.len())) {
                let Entry { stem, inflection, .. } = &self.entries[entry];
                let Some(length) = inflected_as(folded, at, stem, *inflection) else { continue };
                let better = best.is_none_or(|(held, held_length)| (length, stem.len()) > (held_length, self.entries[held].stem.len()));
                if better {
                    best = Some((entry, length));
                }
            }
        };
        try_key(word);
        for ending in ["s", "es"] {
            if let Some(stem) = word.strip_suffix(ending) {
                try_key(stem);
            }
        }
        if let Some(stem) = word.strip_suffix("ies") {
            try_key(&format!("{stem}y"));
        }
        best
    }
}

/// The byte ranges of `text` that are prose a mention may be linked in: the text of paragraphs,
/// list items and quotes, outside every zone the module names. Read in a pass of its own, for a
/// note [`Reading::of`] does not read in the proof's pass.
fn prose_ranges(text: &str) -> Vec<Range<usize>> {
    let body_start = find_block(text).map_or(0, |block| block.span.end);
    // A table or a fence Obsidian reads with tabs is read so here too (same bytes, same offsets).
    let read = crate::parse::tabs_read_as_spaces(&text[body_start..]);
    let body: &str = &read;
    let mut prose = ProseReader::default();
    for (event, range) in Parser::new_ext(body, markdown_options()).into_offset_iter() {
        prose.read(text, &event, range.start + body_start..range.end + body_start);
    }
    let mut code = std::mem::take(&mut prose.code);
    code.sort_by_key(|range| range.start);
    let comments = crate::parse::comments(text, body_start, &code);
    prose.finish(text, body_start, comments)
}

/// What the prose's reading keeps of pulldown-cmark's events, read one at a time, whether in a
/// pass of its own ([`prose_ranges`]) or in the pass that reads the note's links ([`Reading::of`]).
#[derive(Default)]
struct ProseReader {
    prose: Vec<Range<usize>>,
    code: Vec<Range<usize>>,
    /// Depth inside blocks whose text is not prose.
    skipping: u32,
    /// Depth inside inline HTML elements.
    inline_html: u32,
}

impl ProseReader {
    /// One event of the body of `text`, with its range in `text`.
    fn read(&mut self, text: &str, event: &Event<'_>, range: Range<usize>) {
        match event {
            Event::Start(
                Tag::Heading { .. }
                | Tag::Table(_)
                | Tag::CodeBlock(_)
                | Tag::HtmlBlock
                | Tag::MetadataBlock(_)
                | Tag::Link { .. }
                | Tag::Image { .. },
            ) => {
                if matches!(event, Event::Start(Tag::CodeBlock(_))) {
                    self.code.push(range);
                }
                self.skipping += 1;
            }
            Event::End(
                TagEnd::Heading(_)
                | TagEnd::Table
                | TagEnd::CodeBlock
                | TagEnd::HtmlBlock
                | TagEnd::MetadataBlock(_)
                | TagEnd::Link
                | TagEnd::Image,
            ) => self.skipping = self.skipping.saturating_sub(1),
            Event::End(TagEnd::Paragraph | TagEnd::Item) => self.inline_html = 0,
            Event::Code(_) | Event::InlineMath(_) | Event::DisplayMath(_) => self.code.push(range),
            Event::InlineHtml(html) => {
                let tag = html.trim_start_matches('<');
                let name: String = tag.trim_start_matches('/').chars().take_while(char::is_ascii_alphanumeric).collect();
                let void = matches!(name.to_ascii_lowercase().as_str(), "br" | "hr" | "img" | "input" | "wbr" | "meta" | "link");
                if html.starts_with("</") {
                    self.inline_html = self.inline_html.saturating_sub(1);
                } else if !html.starts_with("<!") && !html.trim_end().ends_with("/>") && !void && !name.is_empty() {
                    self.inline_html += 1;
                }
            }
            // Only text that stands in the note as it reads: an escape or an entity would make
            // the mention's bytes differ from what the reader sees.
            Event::Text(shown) if self.skipping == 0 && self.inline_html == 0 && text[range.clone()] == **shown => self.prose.push(range),
            _ => {}
        }
    }

    /// The prose read, without `closed` (sorted by start: the `%%comments%%`, and may hold the
    /// code and math too, which no prose overlaps) and the bracket spans of the body of `text`
    /// from `body_start`.
    fn finish(self, text: &str, body_start: usize, mut closed: Vec<Range<usize>>) -> Vec<Range<usize>> {
        // pulldown-cmark ends a text event at some punctuation (`attack's` is two): adjacent
        // ranges are one run of prose.
        let mut joined: Vec<Range<usize>> = Vec::with_capacity(self.prose.len());
        for range in self.prose {
            match joined.last_mut() {
                Some(last) if last.end == range.start => last.end = range.end,
                _ => joined.push(range),
            }
        }
        // Bracket spans, one line each: wikilinks, tasks, footnotes, callout types. Tabs read
        // as spaces move no bracket, so the body is read as written.
        for (line_start, line) in line_starts(&text[body_start..]) {
            let mut from = 0;
            while let Some(open) = line[from..].find('[').map(|at| from + at) {
                let Some(close) = line[open..].find(']').map(|at| open + at) else { break };
                closed.push(body_start + line_start + open..body_start + line_start + close + 1);
                from = close + 1;
            }
        }
        closed.sort_by_key(|range| range.start);
        cut(joined, &closed)
    }
}

/// A note's prose and, when the pass that found it read them too, the links of its body: the
/// proof's reading of the note before its edits.
struct Reading {
    prose: Vec<Range<usize>>,
    /// Where the body starts and its links, when read in the same pass as the prose.
    body: Option<(usize, Vec<Link>)>,
}

impl Reading {
    /// One pulldown-cmark pass over the note's body reads both its prose and its links
    /// (`parse::body_links`), so the proof does not parse the note before its edits again. A
    /// note that starts with a byte-order mark and has no frontmatter is read as before, in a
    /// pass of its own: the prose is read there from the mark, the links after it.
    fn of(path: &str, text: &str) -> Reading {
        let marked = text.starts_with('\u{feff}') && find_block(text).is_none();
        if marked || !crate::index::is_note_path(path) {
            return Reading { prose: prose_ranges(text), body: None };
        }
        let body_start = crate::parse::body_start(text);
        let mut prose = ProseReader::default();
        let (links, skipped) = crate::parse::body_links(text, body_start, |event, range| prose.read(text, event, range));
        Reading { prose: prose.finish(text, body_start, skipped), body: Some((body_start, links)) }
    }
}

fn line_starts(body: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut at = 0;
    body.split_inclusive('\n').map(move |line| {
        let start = at;
        at += line.len();
        (start, line)
    })
}

/// `ranges` (in order) without the bytes of `closed` (sorted by start).
fn cut(ranges: Vec<Range<usize>>, closed: &[Range<usize>]) -> Vec<Range<usize>> {
    let mut out = Vec::with_capacity(ranges.len());
    for range in ranges {
        let mut start = range.start;
        for hole in closed.iter().filter(|hole| hole.start < range.end && hole.end > range.start) {
            if hole.start > start {
                out.push(start..hole.start);
            }
            start = start.max(hole.end);
        }
        if start < range.end {
            out.push(start..range.end);
        }
    }
    out
}

/// Where each byte of a folded segment stands in the segment.
enum Offsets {
    /// An ASCII segment folds byte for byte.
    Same,
    /// The offset in the segment of each folded byte, and one past the end.
    Mapped(Vec<usize>),
}

impl Offsets {
    fn of(&self, folded: usize) -> usize {
        match self {
            Offsets::Same => folded,
            Offsets::Mapped(offsets) => offsets[folded],
        }
    }
}

/// `segment` folded as names are, with where each folded byte stands in `segment`.
fn folded_with_offsets(segment: &str) -> (String, Offsets) {
    if segment.is_ascii() {
        return (segment.to_ascii_lowercase(), Offsets::Same);
    }
    let mut folded = String::with_capacity(segment.len());
    let mut offsets = Vec::with_capacity(segment.len() + 1);
    let mut buffer = [0u8; 4];
    for (at, c) in segment.char_indices() {
        let one = fold(c.encode_utf8(&mut buffer));
        offsets.extend(std::iter::repeat_n(at, one.len()));
        folded.push_str(&one);
    }
    offsets.push(segment.len());
    (folded, Offsets::Mapped(offsets))
}

/// Whether the mention at `start..end` of `text` stands in a tag (`#name`), a block id or a web
/// address, which are not prose.
fn in_token(text: &str, start: usize, end: usize) -> bool {
    let token_start = text[..start].rfind(char::is_whitespace).map_or(0, |at| at + 1);
    let token_end = text[end..].find(char::is_whitespace).map_or(text.len(), |at| end + at);
    let token = &text[token_start..token_end];
    let before = text[..start].chars().next_back();
    matches!(before, Some('#' | '^' | '/' | '.' | '@' | '_' | '\\')) || token.contains("://") || token.starts_with("www.")
}

/// What the scan found in one note before it is written.
struct Found<'v> {
    start: usize,
    end: usize,
    target: &'v str,
}

/// What a link from `source` to `target` is written with: the markdown destination or the
/// wikilink path; `None` when no form finds the target. The same for every mention of the
/// target in the note, so asked once per target.
fn link_form(vault: &Vault, source: &str, target: &str) -> Option<String> {
    let config = vault.config();
    if config.use_markdown_links {
        crate::link_form::new_markdown_destination(vault, config, source, target)
    } else {
        crate::link_form::new_wikilink_path(vault, config, source, target)
    }
}

/// The link a mention becomes, written with its target's [`link_form`].
fn written_link(vault: &Vault, form: &str, mention: &str) -> Option<String> {
    if vault.config().use_markdown_links {
        if mention.contains(['[', ']']) {
            return None;
        }
        return Some(format!("[{mention}]({form})"));
    }
    Some(if mention == form { format!("[[{form}]]") } else { format!("[[{form}|{mention}]]") })
}

/// Plans the links of the mentions in `scope`, from the notes' `texts`: `targets` (note paths
/// as the vault has them) narrows the names looked for, `exclude` leaves mentions by id, and
/// `first_only` links only the first mention of each note in each note read. Each note's part is
/// worked out alone ([`Pass::note`]), through `run_parts`, which may work them on every core
/// (`Edge::run_parts`); [`merge`] puts them together in the notes' order, so the plan is the same
/// whichever way they were worked.
pub fn plan(
    vault: &Vault,
    scope: Option<&str>,
    targets: Option<&HashSet<String>>,
    exclude: &HashSet<String>,
    first_only: bool,
    texts: &BTreeMap<String, String>,
    run_parts: &crate::edge::RunParts<'_>,
) -> MentionPlan {
    let pass = Pass { vault, names: Names::new(vault), targets, exclude, first_only };
    let notes: Vec<(&str, &str)> = in_scope(vault, scope)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|source| texts.get(source).map(|text| (source, text.as_str())))
        .collect();
    let parts: Vec<OnceLock<NotePart>> = notes.iter().map(|_| OnceLock::new()).collect();
    run_parts(notes.len(), &|index| {
        let (source, text) = notes[index];
        // Each index is worked once; an edge that ran one twice would find it set already.
        let _ = parts[index].set(pass.note(source, text));
    });
    let parts = notes.iter().zip(parts).map(|(&(source, text), part)| {
        // A part the edge left unworked is worked here, so the plan never depends on it.
        let part = part.into_inner().unwrap_or_else(|| pass.note(source, text));
        (source, text, part)
    });
    merge(&pass.names, parts)
}

/// What the pass decides for one note alone: the links it plans there, and the ambiguous names
/// it met.
#[derive(Debug)]
struct NotePart {
    edits: Vec<TextEdit>,
    changes: Vec<LinkChange>,
    planned: Vec<Mention>,
    /// False when the note's new links would not read back as planned.
    proven: bool,
    /// The ambiguous names met (by their entry), each with how many mentions of it were left.
    ambiguous: BTreeMap<usize, usize>,
}

/// What every note's part reads: the vault, its names indexed once, and the call's choices.
struct Pass<'v, 'a> {
    vault: &'v Vault,
    names: Names<'v>,
    targets: Option<&'a HashSet<String>>,
    exclude: &'a HashSet<String>,
    first_only: bool,
}

impl Pass<'_, '_> {
    /// The part of the note at `source`, whose text is `text`: its mentions found, written as
    /// links and proven, never reading another note's text.
    fn note(&self, source: &str, text: &str) -> NotePart {
        let Pass { vault, names, targets, exclude, first_only } = self;
        let mut found: Vec<Found> = Vec::new();
        let mut linked: HashSet<&str> = HashSet::new();
        let mut ambiguous: BTreeMap<usize, usize> = BTreeMap::new();
        let reading = Reading::of(source, text);
        for range in reading.prose.iter().cloned() {
            let segment = &text[range.clone()];
            let (folded, offsets) = folded_with_offsets(segment);
            let mut at = 0;
            let mut previous: Option<char> = None;
            while at < folded.len() {
                let Some(c) = folded[at..].chars().next() else { break };
                let starts_word = c.is_alphanumeric() && !previous.is_some_and(char::is_alphanumeric);
                previous = Some(c);
                if !starts_word {
                    at += c.len_utf8();
                    continue;
                }
                let Some((entry_index, length)) = names.longest_at(&folded, at) else {
                    at += c.len_utf8();
                    continue;
                };
                // The text the name covers is not read again, whatever becomes of it.
                let start = range.start + offsets.of(at);
                let end = range.start + offsets.of(at + length);
                at += length;
                previous = folded[..at].chars().next_back();
                let entry = &names.entries[entry_index];
                let others: Vec<&str> = entry.notes.iter().copied().filter(|note| *note != source).collect();
                if in_token(text, start, end) {
                    continue;
                }
                match others.as_slice() {
                    [] => {}
                    [target] => {
                        if targets.is_some_and(|targets| !targets.contains(*target)) {
                            continue;
                        }
                        if *first_only && !linked.insert(target) {
                            continue;
                        }
                        found.push(Found { start, end, target });
                    }
                    _ => {
                        let wanted = targets.is_none_or(|targets| others.iter().any(|note| targets.contains(*note)));
                        if wanted {
                            *ambiguous.entry(entry_index).or_default() += 1;
                        }
                    }
                }
            }
        }
        let mut lines = LineCounter::new(text);
        let mut edits: Vec<TextEdit> = Vec::new();
        let mut changes: Vec<LinkChange> = Vec::new();
        let mut planned: Vec<Mention> = Vec::new();
        let mut forms: HashMap<&str, Option<String>> = HashMap::new();
        for one in found {
            let id = format!("{source}@{}", one.start);
            if exclude.contains(&id) {
                continue;
            }
            let mention = &text[one.start..one.end];
            let form = forms.entry(one.target).or_insert_with(|| link_form(vault, source, one.target));
            let Some(link) = form.as_deref().and_then(|form| written_link(vault, form, mention)) else { continue };
            let line = lines.line(one.start);
            edits.push(TextEdit { span: Span { start: one.start, end: one.end }, replacement: link.clone() });
            changes.push(LinkChange {
                note: source.to_owned(),
                line,
                before: mention.to_owned(),
                after: link.clone(),
                reason: ChangeReason::Linked,
            });
            planned.push(Mention { id, note: source.to_owned(), line, text: mention.to_owned(), target: one.target.to_owned(), link });
        }
        // Each note is proven alone: one that would not read back as planned keeps its text,
        // named, and the other notes are still linked.
        let proven = edits.is_empty() || prove_note(vault, source, text, reading.body, &edits, &planned).is_ok();
        NotePart { edits, changes, planned, proven, ambiguous }
    }
}

/// The plan of every note's part, in the notes' order (`parts`: each note's path, its text and
/// its part).
fn merge<'t>(names: &Names<'_>, parts: impl Iterator<Item = (&'t str, &'t str, NotePart)>) -> MentionPlan {
    let mut mentions: Vec<Mention> = Vec::new();
    let mut ambiguous: BTreeMap<usize, usize> = BTreeMap::new();
    let mut files: Vec<(String, &str, Vec<TextEdit>, Vec<LinkChange>)> = Vec::new();
    let mut unprovable: Vec<String> = Vec::new();
    for (source, text, part) in parts {
        for (entry, count) in part.ambiguous {
            *ambiguous.entry(entry).or_default() += count;
        }
        if part.edits.is_empty() {
            continue;
        }
        if !part.proven {
            unprovable.push(source.to_owned());
            continue;
        }
        mentions.extend(part.planned);
        files.push((source.to_owned(), text, part.edits, part.changes));
    }
    let sizes = (files.len(), files.iter().map(|file| file.3.len()).sum());
    // Every note's edits were proven as they stand in the plan, and no note reads another's text.
    let plan = assemble(&[], sizes, files, Vec::new());
    let ambiguous = ambiguous
        .into_iter()
        .map(|(index, count)| {
            let entry = &names.entries[index];
            AmbiguousName { name: entry.name.clone(), notes: entry.notes.iter().map(|note| (*note).to_owned()).collect(), mentions: count }
        })
        .collect();
    MentionPlan { plan, mentions, ambiguous, unprovable }
}

/// A note whose new links would not read back as planned: it is left as it is, named.
#[derive(Debug, Clone, PartialEq, Eq)]
struct NotProven;

/// The proof of one note: read again, it holds every link it held, each as it was, and one more
/// for each mention, at its place, finding the mention's note and showing the mention. `body`
/// is where the note's body starts and its links, when the pass that found the mentions read
/// them ([`Reading::of`]).
fn prove_note(
    vault: &Vault,
    path: &str,
    text: &str,
    body: Option<(usize, Vec<Link>)>,
    edits: &[TextEdit],
    planned: &[Mention],
) -> Result<(), NotProven> {
    let config = vault.config().parse;
    let refused = || NotProven;
    let new_text = apply_edits(text, edits);
    let (before, after) = match body {
        // Every edit is in the body, so the new text keeps the frontmatter block byte for byte,
        // and with it every property link: only the body's links are read again. The note's
        // links stay under the limit a parse keeps (the block has fewer links than bytes), so
        // none is dropped on either side.
        Some((start, before))
            if edits.first().is_some_and(|edit| edit.span.start >= start) && crate::parse::body_start(&new_text) == start =>
        {
            let (after, _) = crate::parse::body_links(&new_text, start, |_, _| {});
            if start + before.len().max(after.len()) < config.max_links {
                (before, after)
            } else {
                (parse_file(path, text, &config).links, parse_file(path, &new_text, &config).links)
            }
        }
        _ => (parse_file(path, text, &config).links, parse_file(path, &new_text, &config).links),
    };
    if after.len() != before.len() + edits.len() {
        return Err(refused());
    }
    // Where each new link starts in the new text, and what it must find and show.
    let mut shift: isize = 0;
    let mut new_links: HashMap<usize, (&str, &str)> = HashMap::new();
    for (edit, mention) in edits.iter().zip(planned) {
        let start = edit.span.start.checked_add_signed(shift).ok_or_else(refused)?;
        new_links.insert(start, (mention.target.as_str(), mention.text.as_str()));
        shift += edit.replacement.len() as isize - (edit.span.end - edit.span.start) as isize;
    }
    let mut old = before.iter();
    for link in &after {
        match new_links.get(&link.span.start) {
            Some((target, shown)) => {
                let finds = resolve::resolve(vault, path, link).path() == Some(*target);
                if !finds || link.subpath.is_some() || shown_text(link) != *shown {
                    return Err(refused());
                }
            }
            None => {
                let Some(was) = old.next() else { return Err(refused()) };
                let same = was.kind == link.kind
                    && was.path == link.path
                    && was.subpath == link.subpath
                    && was.display == link.display
                    && was.source == link.source;
                if !same {
                    return Err(refused());
                }
            }
        }
    }
    Ok(())
}

/// The text a link shows: its display text, or its path for a bare wikilink.
fn shown_text(link: &Link) -> &str {
    link.display.as_deref().unwrap_or(&link.path)
}

#[cfg(test)]
mod tests;
