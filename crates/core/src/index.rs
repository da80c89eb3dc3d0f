//! The vault index: every file by path, each note's parsed links with their resolutions, and
//! the reverse index (backlinks), kept current one file at a time.
//!
//! The index holds no note text, only what was parsed from it, and the lexical sketch of a body
//! once `near_duplicate` asked for it (`sketches`). `upsert`, `remove` and `rename`
//! update everything they affect, including links elsewhere whose resolution changes because a
//! file appeared or disappeared: each link is registered under the file names it was looked up
//! by, and a file that comes or goes re-resolves the links registered under its name. So an
//! incremental index always equals one built from scratch (a property test checks it).

use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The index's maps hash short names and ids it made itself, with a fast hasher: SipHash's
/// resistance to chosen keys buys nothing for a local vault, and cost 2% of a whole build.
type FxMap<K, V> = HashMap<K, V, rustc_hash::FxBuildHasher>;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::canvas::{is_canvas_path, parse_canvas};
use crate::facts::note_facts_from;
pub use crate::facts::{
    FrontmatterProblem, NoteFacts, Property, ValueShape, MAX_FRONTMATTER_PROBLEMS, MAX_PROPERTIES_KEPT, MAX_VALUES_KEPT,
};
pub use crate::memory::IndexMemory;
use crate::memory::{btree_bytes, facts_bytes, hash_map_bytes, resolution_bytes, str_bytes, vec_bytes};
use crate::pages::PageNames;
use crate::parse::{parse_note_keeping_yaml, Link, ParseConfig};
use crate::resolve::{self, fold, heading_key, watch_key, FileLookup, Found, Resolution};
use crate::sketch::Sketch;
pub use crate::yaml_text::MAX_VALUE_CHARS;

pub mod kept;
mod keys;
mod link_store;
mod order;
pub mod sketches;
mod targets;

use keys::Keys;
use link_store::Links;
use targets::Stored;

/// How new links are written when vaultlink writes one (Obsidian's "New link format").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NewLinkFormat {
    /// The shortest path that still finds the file.
    Shortest,
    /// Relative to the linking note.
    Relative,
    /// From the vault root.
    Absolute,
}

/// What the index is asked to do; passed explicitly, never assumed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexConfig {
    pub parse: ParseConfig,
    /// Folders (vault paths, no trailing `/`) whose notes remain link targets but are never
    /// the subject of a report such as orphans.
    pub excluded_folders: Vec<String>,
    /// Where new attachments go, as Obsidian's "Default location for new attachments".
    pub attachment_folder: Option<String>,
    pub new_link_format: NewLinkFormat,
    /// Obsidian's "Use [[Wikilinks]]" turned off (`useMarkdownLinks`): a new link is written as a
    /// markdown link (`link_mentions`).
    pub use_markdown_links: bool,
    /// Whether a rewritten link is written as Obsidian would write it or keeps its form; an
    /// edge's option, not one of Obsidian's settings (`crate::link_form`).
    pub link_form: crate::rewrite_form::RewriteForm,
}

impl IndexConfig {
    /// Obsidian's own defaults: nothing excluded, attachments at the vault root, shortest links.
    pub fn obsidian_defaults() -> IndexConfig {
        IndexConfig {
            parse: ParseConfig::OBSIDIAN,
            excluded_folders: Vec::new(),
            attachment_folder: None,
            new_link_format: NewLinkFormat::Shortest,
            use_markdown_links: false,
            link_form: crate::rewrite_form::RewriteForm::Obsidian,
        }
    }
}

/// The parts of a parsed note that queries need.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Note {
    links: Links,
    /// `heading_key` of each heading, in order.
    heading_keys: Keys,
    /// Block ids, folded.
    block_ids: Keys,
    aliases: Vec<String>,
    truncated: bool,
    facts: NoteFacts,
}

/// A file parsed by [`Vault::prepare`], ready for [`Vault::insert_prepared`].
#[derive(Debug, Clone)]
pub struct Prepared {
    note: Option<Note>,
    /// A canvas's links (empty for any other file).
    canvas: Links,
    parse: ParseConfig,
    /// The body's sketch, when the persistent index kept one (`kept::decode`); [`Vault::prepare`]
    /// never sketches, since only `near_duplicate` reads a sketch.
    sketch: Option<Sketch>,
}

/// A file's place in the index's file table. Ids are reused after a file is removed; nothing
/// keeps one past its file's removal (a removed file's links are unfiled first, and the links
/// that resolved to it are resolved again).
type FileId = u32;

/// One link of one note: the note's id and the link's position in its list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct LinkRef {
    source: FileId,
    index: u32,
}

/// What a link resolves to, as the index keeps it: the target's id in the file table rather
/// than a copy of its path. An ambiguous resolution (rare) keeps its candidates whole.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Target {
    Unresolved,
    Resolved(FileId),
    /// The chosen file's id, and the resolution with every candidate.
    Ambiguous(FileId, Box<Resolution>),
}

/// The resolution every unresolved link answers with.
static UNRESOLVED: Resolution = Resolution::Unresolved;

/// One file of the index.
#[derive(Debug, Clone)]
struct Slot {
    path: Arc<str>,
    /// `Resolution::Resolved` to this file: what every link resolved to it answers with, so a
    /// link keeps only the file's id.
    resolved: Resolution,
    /// `None` for an attachment or a canvas.
    note: Option<Note>,
    /// A canvas's links (its file cards and the links of its text cards), in file order; empty
    /// for any other file. A canvas is a source of links but not a note: it has no title,
    /// headings or properties, and is no subject of a note's report.
    canvas: Links,
    /// What each of the note's (or canvas's) links resolves to, in the order of its links; empty until its
    /// links are filed.
    targets: Box<[Stored]>,
    /// The links that resolve to this file, in no order (queries sort them).
    backlinks: Vec<LinkRef>,
}

/// The links of a vault, indexed.
#[derive(Debug, Clone)]
pub struct Vault {
    config: IndexConfig,
    /// The file table, by [`FileId`]; `None` where a removed file's id waits for reuse.
    slots: Vec<Option<Slot>>,
    /// Ids of the table's empty places.
    free: Vec<FileId>,
    /// Every file's id, by path, in path order.
    ids: BTreeMap<Arc<str>, FileId>,
    /// Folded file name to every file with that name.
    by_name: FxMap<Box<str>, Vec<FileId>>,
    /// [`watch_key`] of a name to the links whose resolution depends on the files of that name,
    /// in no order.
    watchers: FxMap<Box<str>, Vec<LinkRef>>,
    /// Every note's names, for `find_existing_page`.
    pages: PageNames,
    /// The unresolved links, by missing target: the folded, trimmed path they name (as
    /// `find_unresolved_links` groups them) to how many links name it. Kept current wherever a
    /// link's target is filed, changed or unfiled, so the count of missing targets needs no
    /// walk over the links.
    missing: FxMap<Box<str>, u32>,
    /// How many links are unresolved (the sum of `missing`).
    unresolved_links: usize,
    /// The notes' sketches for `near_duplicate`, computed only when it asks (`sketches`): `None`
    /// for a note asked for and not sketched yet. A note's entry goes when its text changes or
    /// it is removed.
    sketches: FxMap<FileId, Option<Sketch>>,
    /// Whether every file id in use was given in path order, so that ids compare as their
    /// paths do (`order`).
    ids_in_path_order: bool,
    /// The resolution of each ambiguous link, with its candidates, by the link; its target in
    /// its note's `targets` is flagged ambiguous.
    ambiguous: FxMap<LinkRef, Box<Resolution>>,
}

/// The key under which an unresolved link is counted in [`Vault`]'s `missing` (and grouped by
/// `find_unresolved_links`): its path, trimmed and folded.
pub fn missing_target_key(link: &Link) -> String {
    missing_key(&link.path)
}

/// [`missing_target_key`] of a link's path.
fn missing_key(path: &str) -> String {
    fold(path.trim())
}

/// A link of one note, with what it resolves to. The link is built from what the index keeps
/// of it (see `link_store`), so it is the caller's own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedLink<'a> {
    pub source: &'a str,
    pub link: Link,
    pub resolution: &'a Resolution,
}

/// A link of the index not built yet: [`LinkAt::build`] gives it with its resolution. One is
/// made only for a link the index holds, and it borrows the index, so it stays one.
#[derive(Debug, Clone, Copy)]
pub struct LinkAt<'a> {
    vault: &'a Vault,
    link: LinkRef,
}

impl<'a> LinkAt<'a> {
    /// The link, built, with what it resolves to.
    pub fn build(self) -> ResolvedLink<'a> {
        self.vault.link(self.link).expect("a link the index holds")
    }
}

/// Whether a link's `#heading` or `#^block` exists in the note it resolves to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum SubpathStatus {
    /// No subpath, or the link does not resolve.
    NotApplicable,
    Found,
    MissingHeading,
    MissingBlock,
}

/// One note as the index keeps it, for checks that go over every note.
#[derive(Debug, Clone, Copy)]
pub struct NoteView<'a> {
    pub path: &'a str,
    pub aliases: &'a [String],
    pub facts: &'a NoteFacts,
}

impl<'a> NoteView<'a> {
    /// The file name without `.md`: what Obsidian shows as the note's title.
    pub fn title(&self) -> &'a str {
        note_title(self.path)
    }
}

/// The file name of `path` without `.md`: what Obsidian shows as a note's title.
fn note_title(path: &str) -> &str {
    let name = resolve::file_name(path);
    name.get(..name.len().saturating_sub(3)).filter(|_| is_note_path(name)).unwrap_or(name)
}

/// Counts over the whole vault.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Summary {
    pub notes: usize,
    pub attachments: usize,
    pub links: usize,
    pub resolved_links: usize,
    pub unresolved_links: usize,
    pub ambiguous_links: usize,
}

/// True for paths that Obsidian reads as Markdown notes.
pub fn is_note_path(path: &str) -> bool {
    path.len() > 3 && path.is_char_boundary(path.len() - 3) && path[path.len() - 3..].eq_ignore_ascii_case(".md")
}

impl FileLookup for Vault {
    fn files_named(&self, folded_name: &str) -> Vec<&str> {
        let mut paths: Vec<&str> =
            self.by_name.get(folded_name).map(|ids| ids.iter().map(|id| &*self.slot(*id).path).collect()).unwrap_or_default();
        paths.sort_unstable();
        paths
    }
}

/// The links a file holds: a note's, or a canvas's; none for an attachment.
fn links_in(slot: &Slot) -> &Links {
    match &slot.note {
        Some(note) => &note.links,
        None => &slot.canvas,
    }
}

/// Takes `link` out of `links` (at most once), keeping the others in any order.
fn unfile_link(links: &mut Vec<LinkRef>, link: LinkRef) {
    if let Some(at) = links.iter().position(|held| *held == link) {
        links.swap_remove(at);
    }
}

impl Vault {
    pub fn new(config: IndexConfig) -> Vault {
        Vault {
            config,
            slots: Vec::new(),
            free: Vec::new(),
            ids: BTreeMap::new(),
            by_name: FxMap::default(),
            watchers: FxMap::default(),
            pages: PageNames::default(),
            missing: FxMap::default(),
            unresolved_links: 0,
            sketches: FxMap::default(),
            ids_in_path_order: true,
            ambiguous: FxMap::default(),
        }
    }

    /// Counts one more unresolved link naming `link`'s target.
    fn count_missing(&mut self, link_key: String) {
        self.unresolved_links += 1;
        match self.missing.get_mut(link_key.as_str()) {
            Some(count) => *count += 1,
            None => {
                self.missing.insert(link_key.into_boxed_str(), 1);
            }
        }
    }

    /// Counts one unresolved link fewer naming the target `link_key`.
    fn uncount_missing(&mut self, link_key: &str) {
        self.unresolved_links = self.unresolved_links.saturating_sub(1);
        if let Some(count) = self.missing.get_mut(link_key) {
            *count -= 1;
            if *count == 0 {
                self.missing.remove(link_key);
            }
        }
    }

    /// How many missing notes the vault's unresolved links name: `find_unresolved_links`'
    /// `total_targets`, kept current by every change to the index rather than counted.
    pub fn missing_targets(&self) -> usize {
        self.missing.len()
    }

    /// The keys of the missing targets ([`missing_target_key`]) in order: the groups of
    /// `find_unresolved_links`, without a walk over the links.
    pub fn missing_target_keys(&self) -> Vec<&str> {
        let mut keys: Vec<&str> = self.missing.keys().map(|key| &**key).collect();
        keys.sort_unstable();
        keys
    }

    /// The unresolved links counted under the missing target `key` ([`missing_target_key`]),
    /// by source path, then position, as [`Vault::all_links`] gives them: found among the links
    /// watching the key's file name, not by a walk over every link.
    pub fn unresolved_links_to(&self, key: &str) -> Vec<ResolvedLink<'_>> {
        let counted = self.missing.get(key).map_or(0, |count| *count as usize);
        if counted == 0 {
            return Vec::new();
        }
        let unresolved_under_key = |link_ref: &LinkRef| {
            let slot = self.slot(link_ref.source);
            slot.targets.get(link_ref.index as usize).is_some_and(|target| target.is_unresolved())
                && links_in(slot).path(link_ref.index as usize).is_some_and(|path| missing_key(path) == key)
        };
        let mut found: Vec<LinkRef> = self
            .watchers
            .get(watch_key(key).as_str())
            .into_iter()
            .flatten()
            .filter(|link_ref| unresolved_under_key(link_ref))
            .copied()
            .collect();
        if found.len() != counted {
            // Some link of this key is filed under another name than the key's own: the walk,
            // which is never wrong.
            return self
                .all_links()
                .filter(|link| *link.resolution == Resolution::Unresolved && missing_target_key(&link.link) == key)
                .collect();
        }
        found.sort_unstable_by(|a, b| self.link_order(a, b));
        found.into_iter().filter_map(|link_ref| self.link(link_ref)).collect()
    }

    /// How many links find no file: `summary().unresolved_links`, kept current.
    pub fn unresolved_link_count(&self) -> usize {
        self.unresolved_links
    }

    pub fn config(&self) -> &IndexConfig {
        &self.config
    }

    /// Changes what queries exclude and how links are written. The parse settings stay, since
    /// the notes were parsed with them.
    pub fn reconfigure(&mut self, config: IndexConfig) {
        self.config = IndexConfig { parse: self.config.parse, ..config };
    }

    /// Adds a file, or replaces it. The text of an attachment is ignored.
    pub fn upsert(&mut self, path: &str, text: &str) {
        let prepared = Vault::prepare(&self.config.parse, path, text);
        self.insert_prepared(path, prepared);
    }

    /// The costly, self-contained part of [`Vault::upsert`]: parsing the note and reading what
    /// the index keeps of it. It needs no index, so an edge that indexes many files may run it
    /// on several threads and hand the results to [`Vault::insert_prepared`] in any order; the
    /// index is the same as with `upsert`. `parse` must be this index's
    /// `config().parse`.
    pub fn prepare(parse: &ParseConfig, path: &str, text: &str) -> Prepared {
        let note = is_note_path(path).then(|| {
            let (mut parsed, yaml) = parse_note_keeping_yaml(path, text, parse);
            let facts = note_facts_from(path, text, &parsed, yaml.as_ref());
            parsed.aliases.shrink_to_fit();
            let block_ids = Keys::sorted(parsed.block_ids.iter().map(|block| fold(&block.id)).collect());
            Note {
                facts,
                heading_keys: Keys::new(parsed.headings.iter().map(|heading| heading_key(&heading.text))),
                block_ids,
                aliases: parsed.aliases,
                truncated: parsed.truncated,
                links: Links::from_links(parsed.links),
            }
        });
        let canvas = if is_canvas_path(path) { Links::from_links(parse_canvas(path, text, parse).links) } else { Links::default() };
        Prepared { note, canvas, parse: *parse, sketch: None }
    }

    /// Adds a file prepared by [`Vault::prepare`], or replaces it. It must have been prepared
    /// with this index's parse settings (checked in debug builds).
    pub fn insert_prepared(&mut self, path: &str, prepared: Prepared) {
        debug_assert_eq!(prepared.parse, self.config.parse, "prepared with other parse settings");
        self.insert(path, prepared.note, prepared.canvas);
        self.keep_kept_sketch(path, prepared.sketch);
    }

    /// Adds many prepared files at once, as a first index or a refresh that found many changes
    /// does; the index is the same as after inserting them one by one, in any order. New files
    /// all enter before any of their links is resolved, so each link resolves once, against the
    /// whole vault, and the links elsewhere that a new file's name concerns are re-resolved
    /// once per name rather than once per file.
    pub fn insert_prepared_many(&mut self, files: Vec<(String, Prepared)>) {
        let mut new = Vec::new();
        let mut kept_sketches = Vec::new();
        for (path, prepared) in files {
            debug_assert_eq!(prepared.parse, self.config.parse, "prepared with other parse settings");
            if self.ids.contains_key(path.as_str()) {
                self.insert(&path, prepared.note, prepared.canvas);
                self.keep_kept_sketch(&path, prepared.sketch);
            } else {
                if let Some(sketch) = prepared.sketch {
                    kept_sketches.push((path.clone(), sketch));
                }
                new.push((path, prepared.note, prepared.canvas));
            }
        }
        // Entered in path order, a first index's ids compare as its paths do (`order`).
        let new = order::in_path_order(new, |(path, _, _)| path.as_str());
        let mut names = BTreeSet::new();
        let mut added = Vec::with_capacity(new.len());
        // The file table grows once, rather than by doubling, which would leave the old tables
        // as free memory the process keeps.
        self.slots.reserve(new.len().saturating_sub(self.free.len()));
        for (path, note, canvas) in new {
            match self.id(&path) {
                // The same new path twice in one batch: the later file wins, as it would
                // one by one.
                Some(id) => {
                    if let Some(note) = &note {
                        self.pages.add(id, note_title(&path), &note.aliases, &note.facts);
                    }
                    self.slot_mut(id).canvas = canvas;
                    self.sketches.remove(&id);
                    if let Some(old) = std::mem::replace(&mut self.slot_mut(id).note, note) {
                        self.pages.remove(id, note_title(&path), &old.aliases, &old.facts);
                    }
                }
                None => {
                    names.insert(watch_key(&path));
                    added.push(self.add_file(&path, note, canvas));
                }
            }
        }
        // Links already indexed whose resolution the new files may change. The new notes'
        // own links are not filed yet, so this touches only the others.
        for name in &names {
            self.reresolve_watchers(name);
        }
        for id in added {
            self.index_links(id);
        }
        for (path, sketch) in kept_sketches {
            self.keep_kept_sketch(&path, Some(sketch));
        }
        self.shrink_lists();
    }

    /// Gives back the room the lists of file ids and links were left by growing one push at a
    /// time, after many files came in at once: a list grown so keeps up to twice what it holds,
    /// and at 100,000 notes the backlinks and the names' lists are a million entries.
    fn shrink_lists(&mut self) {
        for slot in self.slots.iter_mut().flatten() {
            slot.backlinks.shrink_to_fit();
        }
        self.watchers.values_mut().for_each(Vec::shrink_to_fit);
        self.by_name.values_mut().for_each(Vec::shrink_to_fit);
        self.pages.shrink_lists();
    }

    fn slot(&self, id: FileId) -> &Slot {
        self.slots[id as usize].as_ref().expect("a file id in use")
    }

    fn slot_mut(&mut self, id: FileId) -> &mut Slot {
        self.slots[id as usize].as_mut().expect("a file id in use")
    }

    fn id(&self, path: &str) -> Option<FileId> {
        self.ids.get(path).copied()
    }

    /// The slot of the file at `path`.
    fn file(&self, path: &str) -> Option<&Slot> {
        self.id(path).map(|id| self.slot(id))
    }

    /// The note at `path`, with its interned path; `None` for no file or an attachment.
    fn note_at(&self, path: &str) -> Option<(&Slot, &Note)> {
        let slot = self.file(path)?;
        Some((slot, slot.note.as_ref()?))
    }

    /// Puts a file that is not in the index into the file table and under its name, without
    /// resolving anything.
    fn add_file(&mut self, path: &str, note: Option<Note>, canvas: Links) -> FileId {
        let path = Arc::<str>::from(path);
        let slot = Slot {
            resolved: Resolution::Resolved { path: path.to_string() },
            path: path.clone(),
            note,
            canvas,
            targets: Box::default(),
            backlinks: Vec::new(),
        };
        self.ids_in_path_order &= self.keeps_ids_in_path_order(&path, !self.free.is_empty());
        let id = match self.free.pop() {
            Some(id) => {
                self.slots[id as usize] = Some(slot);
                id
            }
            None => {
                assert!(self.slots.len() < targets::MAX_FILES, "fewer than 2^31 files");
                self.slots.push(Some(slot));
                (self.slots.len() - 1) as FileId
            }
        };
        if let Some(Some(Slot { note: Some(note), .. })) = self.slots.get(id as usize) {
            self.pages.add(id, note_title(&path), &note.aliases, &note.facts);
        }
        self.by_name.entry(fold(resolve::file_name(&path)).into_boxed_str()).or_default().push(id);
        self.ids.insert(path, id);
        id
    }

    /// Puts `note` (or a canvas's links, or an attachment) at `path`, replacing whatever was
    /// there.
    fn insert(&mut self, path: &str, note: Option<Note>, canvas: Links) {
        match self.id(path) {
            Some(id) => {
                self.unindex_links(id);
                self.sketches.remove(&id);
                self.slot_mut(id).canvas = canvas;
                let path = self.slot(id).path.clone();
                if let Some(note) = &note {
                    self.pages.add(id, note_title(&path), &note.aliases, &note.facts);
                }
                if let Some(old) = std::mem::replace(&mut self.slot_mut(id).note, note) {
                    self.pages.remove(id, note_title(&path), &old.aliases, &old.facts);
                }
                self.index_links(id);
            }
            None => {
                let id = self.add_file(path, note, canvas);
                self.reresolve_watchers(&watch_key(path));
                self.index_links(id);
            }
        }
    }

    /// Removes a file. Returns false when there was none at `path`.
    pub fn remove(&mut self, path: &str) -> bool {
        self.take(path).is_some()
    }

    /// Takes the file at `path` out of the index, returning its note (`None` for an attachment
    /// or a canvas) and a canvas's links.
    fn take(&mut self, path: &str) -> Option<(Option<Note>, Links)> {
        let id = self.id(path)?;
        self.unindex_links(id);
        let path = self.slot(id).path.clone();
        let name = fold(resolve::file_name(&path));
        if let Some(ids) = self.by_name.get_mut(name.as_str()) {
            ids.retain(|held| *held != id);
            if ids.is_empty() {
                self.by_name.remove(name.as_str());
            }
        }
        self.ids.remove(&path);
        // The links that resolved to the file look again, now that it is gone; every one of
        // them is filed under the file's name, and any other would keep a stale id, so those
        // are resolved again too.
        self.reresolve_watchers(&watch_key(&path));
        let stale = std::mem::take(&mut self.slot_mut(id).backlinks);
        for link in stale {
            self.reresolve(link);
        }
        let slot = self.slots[id as usize].take().expect("a file id in use");
        self.sketches.remove(&id);
        self.free.push(id);
        if let Some(old) = &slot.note {
            self.pages.remove(id, note_title(&path), &old.aliases, &old.facts);
        }
        Some((slot.note, slot.canvas))
    }

    /// Moves a file, keeping its parsed links. Returns false when there was none at `from`.
    /// Whatever was at `to` is replaced.
    pub fn rename(&mut self, from: &str, to: &str) -> bool {
        if from == to {
            return self.contains(from);
        }
        // The text moves unchanged, and its sketch with it.
        let sketch = self.id(from).and_then(|id| self.sketches.remove(&id));
        let Some((note, canvas)) = self.take(from) else { return false };
        self.take(to);
        self.insert(to, note, canvas);
        if let (Some(sketch), Some(id)) = (sketch, self.id(to)) {
            self.sketches.insert(id, sketch);
        }
        true
    }

    /// The notes a topic can concern, in path order, from the index of every note's names
    /// (see [`PageNames::concerning`]): never fewer than those `find_existing_page` reports.
    pub fn notes_concerning(&self, key: &str, qid: Option<&str>, words: &[String]) -> Vec<NoteView<'_>> {
        let mut notes: Vec<NoteView<'_>> = self
            .pages
            .concerning(key, qid, words)
            .into_iter()
            .filter_map(|id| Vault::note_view(self.slots.get(id as usize)?.as_ref()?))
            .collect();
        notes.sort_unstable_by(|left, right| left.path.cmp(right.path));
        notes
    }

    fn note_view(slot: &Slot) -> Option<NoteView<'_>> {
        let note = slot.note.as_ref()?;
        Some(NoteView { path: &slot.path, aliases: &note.aliases, facts: &note.facts })
    }

    /// The note at `path` with what the index keeps of it; `None` when it is not a note.
    pub fn note(&self, path: &str) -> Option<NoteView<'_>> {
        let (slot, note) = self.note_at(path)?;
        Some(NoteView { path: &slot.path, aliases: &note.aliases, facts: &note.facts })
    }

    /// What the link at `index` of `links`, the links of the file at `source`, resolves to now,
    /// as the index keeps it.
    fn target_of(&self, source: &str, links: &Links, index: usize) -> Target {
        let (Some((kind, canvas_file)), Some(path)) = (links.kind(index), links.path(index)) else { return Target::Unresolved };
        match resolve::find_path(self, source, kind, canvas_file, path) {
            Found::Resolved(path) => self.id(path).map_or(Target::Unresolved, Target::Resolved),
            Found::Ambiguous(path, candidates) => match self.id(path) {
                Some(id) => Target::Ambiguous(
                    id,
                    Box::new(Resolution::Ambiguous {
                        path: path.to_owned(),
                        candidates: candidates.into_iter().map(str::to_owned).collect(),
                    }),
                ),
                None => Target::Unresolved,
            },
            Found::Unresolved => Target::Unresolved,
        }
    }

    /// The id of the file a target points to.
    fn target_id(&self, target: &Target) -> Option<FileId> {
        match target {
            Target::Unresolved => None,
            Target::Resolved(id) => Some(*id),
            Target::Ambiguous(id, _) => Some(*id),
        }
    }

    /// The public form of the target `target` kept for `link`.
    fn resolution_of(&self, link: LinkRef, target: Stored) -> &Resolution {
        match target.id() {
            None => &UNRESOLVED,
            Some(_) if target.is_ambiguous() => self.ambiguous.get(&link).map_or(&UNRESOLVED, |resolution| resolution),
            Some(id) => &self.slot(id).resolved,
        }
    }

    /// Keeps `target` as `link`'s: its resolution apart when it is ambiguous.
    fn store(&mut self, link: LinkRef, target: Target) -> Stored {
        match target {
            Target::Unresolved => Stored::UNRESOLVED,
            Target::Resolved(id) => Stored::resolved(id),
            Target::Ambiguous(id, resolution) => {
                self.ambiguous.insert(link, resolution);
                Stored::ambiguous(id)
            }
        }
    }

    /// Whether `link`'s kept target `kept` is `target`.
    fn kept_as(&self, link: LinkRef, kept: Stored, target: &Target) -> bool {
        match target {
            Target::Unresolved => kept.is_unresolved(),
            Target::Resolved(id) => kept == Stored::resolved(*id),
            Target::Ambiguous(id, resolution) => {
                kept == Stored::ambiguous(*id) && self.ambiguous.get(&link).is_some_and(|held| held == resolution)
            }
        }
    }

    fn index_links(&mut self, source: FileId) {
        let slot = self.slot(source);
        let links = links_in(slot);
        let targets = (0..links.len()).map(|index| self.target_of(&slot.path, links, index)).collect();
        self.file_links(source, targets);
    }

    /// Files the links of `source` as resolving to `targets` (one per link, in order): under
    /// their targets' backlinks, the names they watch and the missing targets they count.
    fn file_links(&mut self, source: FileId, targets: Vec<Target>) {
        let watched: Vec<(String, LinkRef)> = links_in(self.slot(source))
            .paths()
            .enumerate()
            .filter(|(_, path)| !path.trim().is_empty())
            .map(|(index, path)| (watch_key(path), LinkRef { source, index: index as u32 }))
            .collect();
        let backlinks: Vec<(FileId, LinkRef)> = targets
            .iter()
            .enumerate()
            .filter_map(|(index, target)| Some((self.target_id(target)?, LinkRef { source, index: index as u32 })))
            .collect();
        for (target, link_ref) in backlinks {
            self.slot_mut(target).backlinks.push(link_ref);
        }
        for (name, link_ref) in watched {
            self.watchers.entry(name.into_boxed_str()).or_default().push(link_ref);
        }
        let missing: Vec<String> = targets
            .iter()
            .zip(links_in(self.slot(source)).paths())
            .filter(|(target, _)| **target == Target::Unresolved)
            .map(|(_, path)| missing_key(path))
            .collect();
        for key in missing {
            self.count_missing(key);
        }
        let stored =
            targets.into_iter().enumerate().map(|(index, target)| self.store(LinkRef { source, index: index as u32 }, target)).collect();
        self.slot_mut(source).targets = stored;
    }

    fn unindex_links(&mut self, source: FileId) {
        let slot = self.slot_mut(source);
        let targets = std::mem::take(&mut slot.targets);
        let links = links_in(slot);
        if targets.len() != links.len() {
            return;
        }
        let keys: BTreeSet<String> = links.paths().filter(|path| !path.trim().is_empty()).map(watch_key).collect();
        let missing: Vec<String> =
            targets.iter().zip(links.paths()).filter(|(target, _)| target.is_unresolved()).map(|(_, path)| missing_key(path)).collect();
        for key in &missing {
            self.uncount_missing(key);
        }
        for (index, target) in targets.iter().enumerate() {
            if target.is_ambiguous() {
                self.ambiguous.remove(&LinkRef { source, index: index as u32 });
            }
        }
        let target_ids: BTreeSet<FileId> = targets.iter().filter_map(|target| target.id()).collect();
        for target in target_ids {
            self.slot_mut(target).backlinks.retain(|link| link.source != source);
        }
        for key in keys {
            if let Some(watching) = self.watchers.get_mut(key.as_str()) {
                watching.retain(|link| link.source != source);
                if watching.is_empty() {
                    self.watchers.remove(key.as_str());
                }
            }
        }
    }

    /// Resolves one filed link again, moving its backlink if its target changed.
    fn reresolve(&mut self, link_ref: LinkRef) {
        let Some(Some(slot)) = self.slots.get(link_ref.source as usize) else { return };
        let links = links_in(slot);
        let Some(path) = links.path(link_ref.index as usize) else { return };
        let Some(old) = slot.targets.get(link_ref.index as usize).copied() else { return };
        let new = self.target_of(&slot.path, links, link_ref.index as usize);
        if self.kept_as(link_ref, old, &new) {
            return;
        }
        let was_unresolved = old.is_unresolved();
        let old_target = old.id();
        if old.is_ambiguous() {
            self.ambiguous.remove(&link_ref);
        }
        let changed_key = (was_unresolved != (new == Target::Unresolved)).then(|| missing_key(path));
        if let Some(key) = changed_key {
            if was_unresolved {
                self.uncount_missing(&key);
            } else {
                self.count_missing(key);
            }
        }
        if let Some(target) = old_target {
            if let Some(Some(target)) = self.slots.get_mut(target as usize) {
                unfile_link(&mut target.backlinks, link_ref);
            }
        }
        if let Some(target) = self.target_id(&new) {
            self.slot_mut(target).backlinks.push(link_ref);
        }
        let new = self.store(link_ref, new);
        self.slot_mut(link_ref.source).targets[link_ref.index as usize] = new;
    }

    /// Resolves again every link filed under the watch key `key`.
    fn reresolve_watchers(&mut self, key: &str) {
        let Some(watching) = self.watchers.get(key) else { return };
        for link_ref in watching.clone() {
            self.reresolve(link_ref);
        }
    }

    /// The links filed under a [`watch_key`]: those whose resolution depends on the files of
    /// that name, as `(source, position)`.
    pub fn links_watching(&self, key: &str) -> Vec<(&str, usize)> {
        self.watchers
            .get(key)
            .map(|links| links.iter().map(|link| (&*self.slot(link.source).path, link.index as usize)).collect())
            .unwrap_or_default()
    }

    pub fn contains(&self, path: &str) -> bool {
        self.ids.contains_key(path)
    }

    pub fn is_note(&self, path: &str) -> bool {
        self.note_at(path).is_some()
    }

    /// Every file's slot, in path order.
    fn files(&self) -> impl Iterator<Item = &Slot> {
        self.ids.values().map(|id| self.slot(*id))
    }

    /// Every path, notes and attachments, in order.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.ids.keys().map(|path| &**path)
    }

    /// Every path under the folder `folder` as it is spelt exactly (the vault's root when
    /// empty), in order: a range of the ordered paths, not a walk over all of them.
    pub fn paths_under(&self, folder: &str) -> impl Iterator<Item = &str> {
        let prefix = if folder.is_empty() { String::new() } else { format!("{folder}/") };
        self.ids
            .range::<str, _>((std::ops::Bound::Included(prefix.as_str()), std::ops::Bound::Unbounded))
            .map(|(path, _)| &**path)
            .take_while(move |path| path.starts_with(&prefix))
    }

    /// Every note path, in order.
    pub fn note_paths(&self) -> impl Iterator<Item = &str> {
        self.files().filter(|slot| slot.note.is_some()).map(|slot| &*slot.path)
    }

    pub fn note_count(&self) -> usize {
        self.files().filter(|slot| slot.note.is_some()).count()
    }

    /// True when `path` lies in an excluded folder.
    pub fn is_excluded(&self, path: &str) -> bool {
        self.config.excluded_folders.iter().any(|folder| {
            let folder = folder.trim_matches('/');
            !folder.is_empty() && path.len() > folder.len() && path.starts_with(folder) && path.as_bytes()[folder.len()] == b'/'
        })
    }

    /// Finds a file the way a person names it: its exact path, the path with `.md` added, or
    /// the path in another case or Unicode normalisation. `None` when nothing fits.
    pub fn find_file(&self, path: &str) -> Option<&str> {
        let path = path.trim().trim_start_matches("./").trim_start_matches('/');
        let mut tries = vec![path.to_owned()];
        if !is_note_path(path) {
            tries.push(format!("{path}.md"));
        }
        for wanted in &tries {
            if let Some((found, _)) = self.ids.get_key_value(wanted.as_str()) {
                return Some(found);
            }
        }
        for wanted in &tries {
            let folded = fold(wanted);
            if let Some(found) = self.files_named(&fold(resolve::file_name(wanted))).into_iter().find(|candidate| fold(candidate) == folded)
            {
                return Some(found);
            }
        }
        None
    }

    /// Like [`Vault::find_file`], for the files whose text the engine reads and rewrites: notes
    /// and canvases.
    pub fn find_text_file(&self, path: &str) -> Option<&str> {
        self.find_file(path).filter(|found| self.is_note(found) || is_canvas_path(found))
    }

    /// Like [`Vault::find_file`], for notes only.
    pub fn find_note(&self, path: &str) -> Option<&str> {
        self.find_file(path).filter(|found| self.is_note(found))
    }

    /// The links of a note with their resolutions, in the order written.
    fn links_of<'a>(&'a self, slot: &'a Slot) -> impl Iterator<Item = ResolvedLink<'a>> + 'a {
        links_in(slot).iter().zip(slot.targets.iter()).enumerate().map(move |(index, (link, target))| {
            // Only an ambiguous link's resolution is found by the link's own id.
            let source = if target.is_ambiguous() { self.id(&slot.path).unwrap_or_default() } else { 0 };
            ResolvedLink { source: &slot.path, link, resolution: self.resolution_of(LinkRef { source, index: index as u32 }, *target) }
        })
    }

    /// The links of the note or canvas at `path` with their resolutions, in the order written.
    /// `None` when there is no note or canvas at `path`.
    pub fn outgoing_links(&self, path: &str) -> Option<Vec<ResolvedLink<'_>>> {
        let slot = self.file(path).filter(|slot| slot.note.is_some() || is_canvas_path(&slot.path))?;
        Some(self.links_of(slot).collect())
    }

    /// True when the note at `path` had more links than the parser keeps.
    pub fn is_truncated(&self, path: &str) -> bool {
        self.note_at(path).is_some_and(|(_, note)| note.truncated)
    }

    /// The notes and canvases whose links may run past the parser's limit
    /// (`ParseConfig::max_links`), in path order. The index keeps no link past it, so it cannot
    /// tell where those point: a move plans these files from their whole text, and lint and
    /// `find_unresolved_links` name them. A canvas keeps no flag of its own; it is counted when
    /// it holds the limit's number of links, as it does only when it had at least as many.
    pub fn truncated_files(&self) -> Vec<&str> {
        let limit = self.config.parse.max_links;
        let mut found: Vec<&str> = self
            .slots
            .iter()
            .flatten()
            .filter(|slot| match &slot.note {
                Some(note) => note.truncated,
                None => !slot.canvas.is_empty() && slot.canvas.len() >= limit,
            })
            .map(|slot| &*slot.path)
            .collect();
        found.sort_unstable();
        found
    }

    /// The identity and properties kept of the note at `path`.
    pub fn facts(&self, path: &str) -> Option<&NoteFacts> {
        self.note_at(path).map(|(_, note)| &note.facts)
    }

    /// Every note with what the index keeps of it, in path order.
    pub fn notes(&self) -> impl Iterator<Item = NoteView<'_>> {
        self.files().filter_map(|slot| {
            let note = slot.note.as_ref()?;
            Some(NoteView { path: &slot.path, aliases: &note.aliases, facts: &note.facts })
        })
    }

    /// Every path holding a file with the folded file name `folded_name`.
    pub fn paths_named(&self, folded_name: &str) -> Vec<&str> {
        self.files_named(folded_name)
    }

    /// The aliases of the note at `path`.
    pub fn aliases(&self, path: &str) -> &[String] {
        self.note_at(path).map_or(&[], |(_, note)| &note.aliases)
    }

    /// The links filed as resolving to `path`, by source path, then position in the source.
    fn referrers(&self, path: &str) -> Vec<LinkRef> {
        let Some(slot) = self.file(path) else { return Vec::new() };
        let mut referrers = slot.backlinks.clone();
        referrers.sort_unstable_by(|a, b| self.link_order(a, b));
        referrers
    }

    /// Every link that resolves to `path`, those at the places `range` of [`Vault::backlinks`]'
    /// order in that order and at those places, the others in no order: one page of a note's
    /// backlinks without sorting them all, which a note linked from tens of thousands of places
    /// paid on every page of its backlinks.
    /// The links are handed out as [`LinkAt`], built by the caller for the page alone: building
    /// every backlink of a note linked from tens of thousands of places was most of a CLI
    /// `backlinks` at 100,000 notes.
    pub fn backlinks_ordered_within(&self, path: &str, range: std::ops::Range<usize>) -> Vec<LinkAt<'_>> {
        let Some(slot) = self.file(path) else { return Vec::new() };
        let mut referrers = slot.backlinks.clone();
        let order = |a: &LinkRef, b: &LinkRef| self.link_order(a, b);
        let start = range.start.min(referrers.len());
        let end = range.end.clamp(start, referrers.len());
        if !self.in_link_order(&referrers) {
            if start > 0 && start < referrers.len() {
                referrers.select_nth_unstable_by(start, order);
            }
            let page = &mut referrers[start..];
            if end - start < page.len() && end > start {
                page.select_nth_unstable_by(end - start, order);
            }
            page[..end - start].sort_unstable_by(order);
        }
        // Every filed link is one the index holds; only the page's are looked at (each a slot of
        // its own, which on every page of tens of thousands of backlinks was most of the page's
        // cost), and a page that finds one it does not hold drops every such link.
        if referrers[start..end].iter().all(|link| self.holds(*link)) {
            return referrers.into_iter().map(|link| LinkAt { vault: self, link }).collect();
        }
        referrers.into_iter().filter(|link| self.holds(*link)).map(|link| LinkAt { vault: self, link }).collect()
    }

    /// Every link that resolves to `path`, by source path, then position in the source.
    pub fn backlinks(&self, path: &str) -> Vec<ResolvedLink<'_>> {
        self.referrers(path).into_iter().filter_map(|link| self.link(link)).collect()
    }

    /// How many links resolve to `path`: the length of [`Vault::backlinks`].
    pub fn backlink_count(&self, path: &str) -> usize {
        self.file(path).map_or(0, |slot| slot.backlinks.len())
    }

    /// How many links resolve to `path`, counting only links from other files.
    pub fn inbound_count(&self, path: &str) -> usize {
        let Some(id) = self.id(path) else { return 0 };
        self.slot(id).backlinks.iter().filter(|link| link.source != id).count()
    }

    /// Whether [`Vault::link`] gives `link`, without building it.
    fn holds(&self, link: LinkRef) -> bool {
        self.slots
            .get(link.source as usize)
            .and_then(Option::as_ref)
            .is_some_and(|slot| (link.index as usize) < slot.targets.len() && links_in(slot).holds(link.index as usize))
    }

    fn link(&self, link: LinkRef) -> Option<ResolvedLink<'_>> {
        let slot = self.slots.get(link.source as usize)?.as_ref()?;
        let found = links_in(slot).get(link.index as usize)?;
        let target = *slot.targets.get(link.index as usize)?;
        Some(ResolvedLink { source: &slot.path, link: found, resolution: self.resolution_of(link, target) })
    }

    /// Every link of every note, resolved, by source path, then position.
    pub fn all_links(&self) -> impl Iterator<Item = ResolvedLink<'_>> {
        self.files().flat_map(move |slot| self.links_of(slot))
    }

    /// Whether the `#heading` or `#^block` of a resolved link exists in its target.
    pub fn subpath_status(&self, link: &Link, resolution: &Resolution) -> SubpathStatus {
        let (Some(subpath), Some(target)) = (link.subpath.as_deref(), resolution.path()) else {
            return SubpathStatus::NotApplicable;
        };
        let Some((_, note)) = self.note_at(target) else { return SubpathStatus::NotApplicable };
        let subpath = subpath.trim_start_matches('#');
        if let Some(block) = subpath.strip_prefix('^') {
            return if note.block_ids.contains(&fold(block.trim())) { SubpathStatus::Found } else { SubpathStatus::MissingBlock };
        }
        // `#H1#H2`: each heading must exist, each after the one before.
        let mut from = 0;
        for part in subpath.split('#').map(heading_key).filter(|key| !key.is_empty()) {
            match note.heading_keys.iter().skip(from).position(|key| key == part) {
                Some(found) => from += found + 1,
                None => return SubpathStatus::MissingHeading,
            }
        }
        SubpathStatus::Found
    }

    pub fn summary(&self) -> Summary {
        let mut summary = Summary::default();
        for slot in self.files() {
            match slot.note {
                Some(_) => summary.notes += 1,
                None => summary.attachments += 1,
            }
        }
        // Counted from the targets alone: no link needs to be built.
        for slot in self.files() {
            for target in slot.targets.iter().take(links_in(slot).len()) {
                summary.links += 1;
                if target.is_unresolved() {
                    summary.unresolved_links += 1;
                } else if target.is_ambiguous() {
                    summary.ambiguous_links += 1;
                } else {
                    summary.resolved_links += 1;
                }
            }
        }
        summary
    }

    /// A canonical dump of everything the index answers, for comparing two indexes.
    pub fn snapshot(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for slot in self.files() {
            lines.push(format!("file {} note={}", slot.path, slot.note.is_some()));
        }
        for link in self.all_links() {
            lines.push(format!("link {} {:?} -> {:?}", link.source, link.link.target, link.resolution));
        }
        for target in self.paths() {
            for link in self.backlinks(target) {
                lines.push(format!("backlink {target} <- {} {:?}", link.source, link.link.target));
            }
        }
        lines
    }

    /// The memory the index holds, structure by structure (see [`IndexMemory`]).
    pub fn memory(&self) -> IndexMemory {
        let mut memory = IndexMemory::default();
        memory.notes += vec_bytes(&self.slots) + vec_bytes(&self.free) + btree_bytes(&self.ids);
        for slot in self.slots.iter().flatten() {
            memory.notes += str_bytes(&slot.path) + resolution_bytes(&slot.resolved);
            memory.resolutions += size_of_val(&*slot.targets);
            memory.reverse_index += vec_bytes(&slot.backlinks);
            memory.links += slot.canvas.heap_bytes();
            let Some(note) = &slot.note else { continue };
            memory.links += note.links.heap_bytes();
            memory.notes += note.heading_keys.heap_bytes() + note.block_ids.heap_bytes();
            memory.names += vec_bytes(&note.aliases) + note.aliases.iter().map(String::capacity).sum::<usize>();
            memory.facts += facts_bytes(&note.facts);
        }
        memory.reverse_index += hash_map_bytes(&self.watchers);
        for (key, links) in &self.watchers {
            memory.reverse_index += key.len() + vec_bytes(links);
        }
        memory.names += hash_map_bytes(&self.by_name);
        for (name, ids) in &self.by_name {
            memory.names += name.len() + vec_bytes(ids);
        }
        memory.names += self.pages.heap_bytes();
        memory.reverse_index += hash_map_bytes(&self.missing) + self.missing.keys().map(|key| key.len()).sum::<usize>();
        memory.resolutions += hash_map_bytes(&self.ambiguous);
        for resolution in self.ambiguous.values() {
            memory.resolutions += size_of::<Resolution>() + resolution_bytes(resolution);
        }
        memory.sketches += hash_map_bytes(&self.sketches) + self.sketches.values().flatten().map(Sketch::heap_bytes).sum::<usize>();
        memory
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vault(files: &[(&str, &str)]) -> Vault {
        let mut vault = Vault::new(IndexConfig::obsidian_defaults());
        for (path, text) in files {
            vault.upsert(path, text);
        }
        vault
    }

    fn backlink_sources(vault: &Vault, path: &str) -> Vec<String> {
        vault.backlinks(path).iter().map(|link| link.source.to_owned()).collect()
    }

    #[test]
    fn a_page_of_backlinks_is_the_sorted_list_s_page() {
        let mut files: Vec<(String, String)> =
            (0..40).map(|at| (format!("n{}.md", (at * 7) % 40), "[[hub]] x [[hub]]".to_owned())).collect();
        files.push(("hub.md".to_owned(), "[[hub]]".to_owned()));
        let borrowed: Vec<(&str, &str)> = files.iter().map(|(path, text)| (path.as_str(), text.as_str())).collect();
        let vault = vault(&borrowed);
        let all = vault.backlinks("hub.md");
        assert_eq!(all.len(), 81);
        for start in 0..=all.len() + 1 {
            for len in [0, 1, 2, 5, 80, 81, 100] {
                let within = vault.backlinks_ordered_within("hub.md", start..start + len);
                assert_eq!(within.len(), all.len());
                let page: Vec<_> = within.into_iter().skip(start).take(len).map(LinkAt::build).collect();
                let expected: Vec<_> = all.iter().skip(start).take(len).cloned().collect();
                assert_eq!(page, expected, "{start}..{}", start + len);
            }
        }
    }

    #[test]
    fn backlinks_follow_upsert_remove_and_rename() {
        let mut vault = vault(&[("A.md", "[[B]]"), ("B.md", ""), ("sub/C.md", "[x](../B.md)")]);
        assert_eq!(backlink_sources(&vault, "B.md"), ["A.md", "sub/C.md"]);

        vault.upsert("A.md", "no links now");
        assert_eq!(backlink_sources(&vault, "B.md"), ["sub/C.md"]);

        assert!(vault.rename("sub/C.md", "other/C.md"));
        assert_eq!(backlink_sources(&vault, "B.md"), ["other/C.md"]);
        assert!(vault.contains("other/C.md") && !vault.contains("sub/C.md"));

        // A relative link that climbs above the root after a move no longer resolves.
        assert!(vault.rename("other/C.md", "C.md"));
        assert!(backlink_sources(&vault, "B.md").is_empty());

        assert!(vault.remove("B.md"));
        assert!(!vault.remove("B.md"));
        assert_eq!(vault.summary().unresolved_links, 1);
    }

    #[test]
    fn a_new_file_resolves_or_makes_ambiguous_the_links_elsewhere() {
        let mut vault = vault(&[("A.md", "[[Foo]]")]);
        assert_eq!(vault.summary().unresolved_links, 1);
        vault.upsert("x/Foo.md", "");
        assert_eq!(backlink_sources(&vault, "x/Foo.md"), ["A.md"]);
        vault.upsert("Foo.md", "");
        assert_eq!(vault.summary().ambiguous_links, 1);
        assert_eq!(backlink_sources(&vault, "Foo.md"), ["A.md"], "the same folder as the linking note wins");
        assert!(backlink_sources(&vault, "x/Foo.md").is_empty());
        vault.remove("Foo.md");
        assert_eq!(backlink_sources(&vault, "x/Foo.md"), ["A.md"]);
    }

    #[test]
    fn find_note_accepts_what_people_type() {
        let vault = vault(&[("Folder/My Note.md", ""), ("Café.md", "")]);
        assert_eq!(vault.find_note("Folder/My Note"), Some("Folder/My Note.md"));
        assert_eq!(vault.find_note("folder/my note.md"), Some("Folder/My Note.md"));
        assert_eq!(vault.find_note("Cafe\u{301}"), Some("Café.md"));
        assert_eq!(vault.find_note("My Note"), None);
    }

    #[test]
    fn subpaths_resolve_to_headings_and_blocks() {
        let vault = vault(&[
            ("T.md", "# Intro: part 1\n## Wifi 2.4 vs 5.0\ntext ^Block-1\n"),
            ("A.md", "[[T#intro part 1]] [[T#Intro: part 1#Wifi 2.4 vs 5.0]] [[T#^block-1]] [[T#Nope]] [[T#^nope]] [[T]]"),
        ]);
        let statuses: Vec<SubpathStatus> =
            vault.outgoing_links("A.md").unwrap().iter().map(|link| vault.subpath_status(&link.link, link.resolution)).collect();
        assert_eq!(
            statuses,
            [
                SubpathStatus::Found,
                SubpathStatus::Found,
                SubpathStatus::Found,
                SubpathStatus::MissingHeading,
                SubpathStatus::MissingBlock,
                SubpathStatus::NotApplicable
            ]
        );
    }

    #[test]
    fn an_ambiguous_resolution_is_kept_apart_only_while_the_link_is_ambiguous() {
        let mut vault = vault(&[("a/T.md", ""), ("b/T.md", ""), ("n.md", "[[T]] [[T]] [[b/T]]")]);
        assert_eq!(vault.summary().ambiguous_links, 2);
        assert_eq!(vault.ambiguous.len(), 2);
        let resolutions: Vec<Resolution> = vault.outgoing_links("n.md").unwrap().iter().map(|link| link.resolution.clone()).collect();
        let candidates = vec!["a/T.md".to_owned(), "b/T.md".to_owned()];
        assert_eq!(resolutions[0], Resolution::Ambiguous { path: "a/T.md".to_owned(), candidates });
        assert_eq!(resolutions[1], resolutions[0]);
        assert_eq!(resolutions[2], Resolution::Resolved { path: "b/T.md".to_owned() });
        assert_eq!(backlink_sources(&vault, "a/T.md"), ["n.md", "n.md"]);
        // The other candidate goes: the links resolve plainly, and nothing is kept apart.
        vault.remove("b/T.md");
        assert_eq!(
            vault.summary(),
            Summary { notes: 2, attachments: 0, links: 3, resolved_links: 2, unresolved_links: 1, ambiguous_links: 0 }
        );
        assert!(vault.ambiguous.is_empty());
        vault.upsert("b/T.md", "");
        assert_eq!(vault.ambiguous.len(), 2);
        // The linking note goes: its links' resolutions go with it.
        vault.rename("n.md", "c/n.md");
        assert_eq!(vault.ambiguous.len(), 2);
        vault.remove("c/n.md");
        assert!(vault.ambiguous.is_empty());
    }

    #[test]
    fn a_first_index_keeps_no_room_past_its_lists() {
        let mut vault = Vault::new(IndexConfig::obsidian_defaults());
        let parse = vault.config().parse;
        let mut files: Vec<(String, Prepared)> =
            (0..5).map(|at| (format!("n{at}.md"), Vault::prepare(&parse, &format!("n{at}.md"), "[[hub]] [[hub]] [[gone]]"))).collect();
        files.push(("hub.md".to_owned(), Vault::prepare(&parse, "hub.md", "---\naliases: [Centre]\n---\n# Hub\n")));
        files.push(("x/hub.md".to_owned(), Vault::prepare(&parse, "x/hub.md", "")));
        vault.insert_prepared_many(files);
        assert_eq!(vault.backlink_count("hub.md"), 10);
        for slot in vault.slots.iter().flatten() {
            assert_eq!(slot.backlinks.capacity(), slot.backlinks.len(), "{}", slot.path);
        }
        assert!(vault.watchers.values().all(|links| links.capacity() == links.len()));
        assert!(vault.by_name.values().all(|ids| ids.capacity() == ids.len()));
        assert_eq!(vault.by_name.get("hub.md").map(Vec::len), Some(2));
    }

    #[test]
    fn summary_counts_each_resolution() {
        let vault = vault(&[("a/T.md", ""), ("b/T.md", ""), ("n.md", "[[T]] [[missing]] [[a/T]] ![[pic.png]]"), ("pic.png", "")]);
        let summary = vault.summary();
        assert_eq!(summary, Summary { notes: 3, attachments: 1, links: 4, resolved_links: 2, unresolved_links: 1, ambiguous_links: 1 });
    }
}
