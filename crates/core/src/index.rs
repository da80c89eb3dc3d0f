//! The vault index: every file by path, each note's parsed links with their resolutions, and
//! the reverse index (backlinks), kept current one file at a time.
//!
//! The index holds no note text, only what was parsed from it and a lexical sketch of each body
//! (a few hundred bytes, for `near_duplicate`). `upsert`, `remove` and `rename`
//! update everything they affect, including links elsewhere whose resolution changes because a
//! file appeared or disappeared: each link is registered under the file names it was looked up
//! by, and a file that comes or goes re-resolves the links registered under its name. So an
//! incremental index always equals one built from scratch (a property test checks it).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::facts::note_facts;
pub use crate::facts::{
    FrontmatterProblem, NoteFacts, Property, ValueShape, MAX_FRONTMATTER_PROBLEMS, MAX_PROPERTIES_KEPT, MAX_VALUES_KEPT,
};
use crate::pages::PageNames;
use crate::parse::{parse_note, Link, ParseConfig};
use crate::resolve::{self, fold, heading_key, watch_key, FileLookup, Resolution};
use crate::sketch::Sketch;
pub use crate::yaml_text::MAX_VALUE_CHARS;

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
}

impl IndexConfig {
    /// Obsidian's own defaults: nothing excluded, attachments at the vault root, shortest links.
    pub fn obsidian_defaults() -> IndexConfig {
        IndexConfig {
            parse: ParseConfig::OBSIDIAN,
            excluded_folders: Vec::new(),
            attachment_folder: None,
            new_link_format: NewLinkFormat::Shortest,
        }
    }
}

/// The parts of a parsed note that queries need.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Note {
    links: Vec<Link>,
    /// `heading_key` of each heading, in order.
    heading_keys: Vec<String>,
    /// Block ids, folded.
    block_ids: HashSet<String>,
    aliases: Vec<String>,
    truncated: bool,
    facts: NoteFacts,
    sketch: Sketch,
}

/// A file parsed by [`Vault::prepare`], ready for [`Vault::insert_prepared`].
#[derive(Debug, Clone)]
pub struct Prepared {
    note: Option<Note>,
    parse: ParseConfig,
}

/// One link of one note: the note's path and the link's position in its list.
type LinkRef = (Arc<str>, u32);

/// The links of a vault, indexed.
#[derive(Debug, Clone)]
pub struct Vault {
    config: IndexConfig,
    /// Every file; `None` for an attachment.
    files: BTreeMap<Arc<str>, Option<Note>>,
    /// Folded file name to every path with that name.
    by_name: HashMap<String, BTreeSet<Arc<str>>>,
    /// Each note's link resolutions, in the order of its links.
    resolutions: HashMap<Arc<str>, Vec<Resolution>>,
    /// Target path to the links that resolve to it.
    backlinks: HashMap<Arc<str>, BTreeSet<LinkRef>>,
    /// [`watch_key`] of a name to the links whose resolution depends on the files of that name.
    watchers: HashMap<String, HashSet<LinkRef>>,
    /// Every note's names, for `find_existing_page`.
    pages: PageNames,
}

/// A link of one note, with what it resolves to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedLink<'a> {
    pub source: &'a str,
    pub link: &'a Link,
    pub resolution: &'a Resolution,
}

/// Whether a link's `#heading` or `#^block` exists in the note it resolves to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
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
    /// The body's lexical sketch, for `near_duplicate`.
    pub sketch: &'a Sketch,
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
        self.by_name.get(folded_name).map(|paths| paths.iter().map(|path| &**path).collect()).unwrap_or_default()
    }
}

impl Vault {
    pub fn new(config: IndexConfig) -> Vault {
        Vault {
            config,
            files: BTreeMap::new(),
            by_name: HashMap::new(),
            resolutions: HashMap::new(),
            backlinks: HashMap::new(),
            watchers: HashMap::new(),
            pages: PageNames::default(),
        }
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
            let parsed = parse_note(path, text, parse);
            let facts = note_facts(path, text, &parsed);
            let body_start = crate::frontmatter::find_block(text).map_or(0, |block| block.span.end);
            Note {
                sketch: Sketch::of_body(&text[body_start..]),
                facts,
                heading_keys: parsed.headings.iter().map(|heading| heading_key(&heading.text)).collect(),
                block_ids: parsed.block_ids.iter().map(|block| fold(&block.id)).collect(),
                aliases: parsed.aliases,
                truncated: parsed.truncated,
                links: parsed.links,
            }
        });
        Prepared { note, parse: *parse }
    }

    /// Adds a file prepared by [`Vault::prepare`], or replaces it. It must have been prepared
    /// with this index's parse settings (checked in debug builds).
    pub fn insert_prepared(&mut self, path: &str, prepared: Prepared) {
        debug_assert_eq!(prepared.parse, self.config.parse, "prepared with other parse settings");
        self.insert(path, prepared.note);
    }

    /// Adds many prepared files at once, as a first index or a refresh that found many changes
    /// does; the index is the same as after inserting them one by one, in any order. New files
    /// all enter before any of their links is resolved, so each link resolves once, against the
    /// whole vault, and the links elsewhere that a new file's name concerns are re-resolved
    /// once per name rather than once per file.
    pub fn insert_prepared_many(&mut self, files: Vec<(String, Prepared)>) {
        let mut new = Vec::new();
        for (path, prepared) in files {
            debug_assert_eq!(prepared.parse, self.config.parse, "prepared with other parse settings");
            if self.files.contains_key(path.as_str()) {
                self.insert(&path, prepared.note);
            } else {
                new.push((Arc::<str>::from(path), prepared.note));
            }
        }
        let mut names = BTreeSet::new();
        for (path, note) in &mut new {
            let note = note.take();
            self.file_names(path, note.as_ref());
            self.files.insert(path.clone(), note);
            self.by_name.entry(fold(resolve::file_name(path))).or_default().insert(path.clone());
            names.insert(watch_key(path));
        }
        // Links already indexed whose resolution the new files may change. The new notes'
        // own links are not filed yet, so this touches only the others.
        for name in &names {
            self.reresolve_watchers(name);
        }
        for (path, _) in &new {
            self.index_links(path);
        }
    }

    /// Puts `note` (or an attachment) at `path`, replacing whatever was there.
    fn insert(&mut self, path: &str, note: Option<Note>) {
        let (path, is_new) = match self.files.get_key_value(path) {
            Some((existing, _)) => (existing.clone(), false),
            None => (Arc::<str>::from(path), true),
        };
        self.unindex_links(&path);
        self.file_names(&path, note.as_ref());
        if let Some(Some(old)) = self.files.insert(path.clone(), note) {
            self.unfile_names(&path, &old);
        }
        if is_new {
            let name = fold(resolve::file_name(&path));
            self.by_name.entry(name).or_default().insert(path.clone());
            self.reresolve_watchers(&watch_key(&path));
        }
        self.index_links(&path);
    }

    /// Removes a file. Returns false when there was none at `path`.
    pub fn remove(&mut self, path: &str) -> bool {
        self.take(path).is_some()
    }

    /// Takes the file at `path` out of the index, returning its note (`Some(None)` for an
    /// attachment).
    fn take(&mut self, path: &str) -> Option<Option<Note>> {
        let (path, _) = self.files.get_key_value(path)?;
        let path = path.clone();
        self.unindex_links(&path);
        let note = self.files.remove(&path)?;
        if let Some(old) = &note {
            self.unfile_names(&path, old);
        }
        let name = fold(resolve::file_name(&path));
        if let Some(paths) = self.by_name.get_mut(&name) {
            paths.remove(&path);
            if paths.is_empty() {
                self.by_name.remove(&name);
            }
        }
        self.reresolve_watchers(&watch_key(&path));
        Some(note)
    }

    /// Moves a file, keeping its parsed links. Returns false when there was none at `from`.
    /// Whatever was at `to` is replaced.
    pub fn rename(&mut self, from: &str, to: &str) -> bool {
        if from == to {
            return self.contains(from);
        }
        let Some(note) = self.take(from) else { return false };
        self.take(to);
        self.insert(to, note);
        true
    }

    /// Files a note's names for `find_existing_page` (nothing for an attachment).
    fn file_names(&mut self, path: &Arc<str>, note: Option<&Note>) {
        if let Some(note) = note {
            self.pages.add(path, note_title(path), &note.aliases, &note.facts);
        }
    }

    /// Takes out what [`Vault::file_names`] filed for `note`.
    fn unfile_names(&mut self, path: &str, note: &Note) {
        self.pages.remove(path, note_title(path), &note.aliases, &note.facts);
    }

    /// Every note's names, indexed.
    pub fn page_names(&self) -> &PageNames {
        &self.pages
    }

    /// The note at `path` with what the index keeps of it; `None` when it is not a note.
    pub fn note(&self, path: &str) -> Option<NoteView<'_>> {
        let (path, note) = self.files.get_key_value(path)?;
        let note = note.as_ref()?;
        Some(NoteView { path, aliases: &note.aliases, facts: &note.facts, sketch: &note.sketch })
    }

    fn index_links(&mut self, source: &Arc<str>) {
        let Some(Some(note)) = self.files.get(source) else { return };
        let mut resolutions = Vec::with_capacity(note.links.len());
        let mut watched = Vec::new();
        for (index, link) in note.links.iter().enumerate() {
            let resolution = resolve::resolve(self, source, link);
            let link_ref: LinkRef = (source.clone(), index as u32);
            if !link.path.trim().is_empty() {
                watched.push((watch_key(&link.path), link_ref.clone()));
            }
            let target = resolution.path().and_then(|target| self.files.get_key_value(target)).map(|(path, _)| path.clone());
            if let Some(target) = target {
                self.backlinks.entry(target).or_default().insert(link_ref);
            }
            resolutions.push(resolution);
        }
        for (name, link_ref) in watched {
            self.watchers.entry(name).or_default().insert(link_ref);
        }
        self.resolutions.insert(source.clone(), resolutions);
    }

    fn unindex_links(&mut self, source: &Arc<str>) {
        let Some(resolutions) = self.resolutions.remove(source) else { return };
        let Some(Some(note)) = self.files.get(source) else { return };
        for (index, (link, resolution)) in note.links.iter().zip(&resolutions).enumerate() {
            let link_ref: LinkRef = (source.clone(), index as u32);
            if let Some(target) = resolution.path() {
                if let Some(referrers) = self.backlinks.get_mut(target) {
                    referrers.remove(&link_ref);
                    if referrers.is_empty() {
                        self.backlinks.remove(target);
                    }
                }
            }
            if !link.path.trim().is_empty() {
                let key = watch_key(&link.path);
                if let Some(watching) = self.watchers.get_mut(&key) {
                    watching.remove(&link_ref);
                    if watching.is_empty() {
                        self.watchers.remove(&key);
                    }
                }
            }
        }
    }

    /// Resolves again every link filed under the watch key `key`.
    fn reresolve_watchers(&mut self, key: &str) {
        let Some(watching) = self.watchers.get(key) else { return };
        let mut watching: Vec<LinkRef> = watching.iter().cloned().collect();
        watching.sort();
        for (source, index) in watching {
            let Some(Some(note)) = self.files.get(&source) else { continue };
            let Some(link) = note.links.get(index as usize) else { continue };
            let new = resolve::resolve(self, &source, link);
            let Some(old) = self.resolutions.get(&source).and_then(|all| all.get(index as usize)) else { continue };
            if *old == new {
                continue;
            }
            let link_ref: LinkRef = (source.clone(), index);
            if let Some(target) = old.path() {
                if let Some(referrers) = self.backlinks.get_mut(target) {
                    referrers.remove(&link_ref);
                    if referrers.is_empty() {
                        self.backlinks.remove(target);
                    }
                }
            }
            if let Some(target) = new.path().and_then(|target| self.files.get_key_value(target)).map(|(path, _)| path.clone()) {
                self.backlinks.entry(target).or_default().insert(link_ref);
            }
            if let Some(slot) = self.resolutions.get_mut(&source).and_then(|all| all.get_mut(index as usize)) {
                *slot = new;
            }
        }
    }

    /// The links filed under a [`watch_key`]: those whose resolution depends on the files of
    /// that name, as `(source, position)`.
    pub fn links_watching(&self, key: &str) -> Vec<(&str, usize)> {
        self.watchers.get(key).map(|links| links.iter().map(|(source, index)| (&**source, *index as usize)).collect()).unwrap_or_default()
    }

    pub fn contains(&self, path: &str) -> bool {
        self.files.contains_key(path)
    }

    pub fn is_note(&self, path: &str) -> bool {
        matches!(self.files.get(path), Some(Some(_)))
    }

    /// Every path, notes and attachments, in order.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(|path| &**path)
    }

    /// Every note path, in order.
    pub fn note_paths(&self) -> impl Iterator<Item = &str> {
        self.files.iter().filter(|(_, note)| note.is_some()).map(|(path, _)| &**path)
    }

    pub fn note_count(&self) -> usize {
        self.files.values().filter(|note| note.is_some()).count()
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
            if let Some((found, _)) = self.files.get_key_value(wanted.as_str()) {
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

    /// Like [`Vault::find_file`], for notes only.
    pub fn find_note(&self, path: &str) -> Option<&str> {
        self.find_file(path).filter(|found| self.is_note(found))
    }

    /// The links of the note at `path` with their resolutions, in the order written.
    /// `None` when there is no note at `path`.
    pub fn outgoing_links(&self, path: &str) -> Option<Vec<ResolvedLink<'_>>> {
        let (source, Some(note)) = self.files.get_key_value(path)? else { return None };
        let resolutions = self.resolutions.get(source)?;
        Some(note.links.iter().zip(resolutions).map(|(link, resolution)| ResolvedLink { source, link, resolution }).collect())
    }

    /// True when the note at `path` had more links than the parser keeps.
    pub fn is_truncated(&self, path: &str) -> bool {
        matches!(self.files.get(path), Some(Some(note)) if note.truncated)
    }

    /// The identity and properties kept of the note at `path`.
    pub fn facts(&self, path: &str) -> Option<&NoteFacts> {
        match self.files.get(path) {
            Some(Some(note)) => Some(&note.facts),
            _ => None,
        }
    }

    /// Every note with what the index keeps of it, in path order.
    pub fn notes(&self) -> impl Iterator<Item = NoteView<'_>> {
        self.files.iter().filter_map(|(path, note)| {
            let note = note.as_ref()?;
            Some(NoteView { path, aliases: &note.aliases, facts: &note.facts, sketch: &note.sketch })
        })
    }

    /// Every path holding a file with the folded file name `folded_name`.
    pub fn paths_named(&self, folded_name: &str) -> Vec<&str> {
        self.files_named(folded_name)
    }

    /// The aliases of the note at `path`.
    pub fn aliases(&self, path: &str) -> &[String] {
        match self.files.get(path) {
            Some(Some(note)) => &note.aliases,
            _ => &[],
        }
    }

    /// Every link that resolves to `path`, by source path, then position in the source.
    pub fn backlinks(&self, path: &str) -> Vec<ResolvedLink<'_>> {
        let Some(referrers) = self.backlinks.get(path) else { return Vec::new() };
        referrers.iter().filter_map(|(source, index)| self.link(source, *index)).collect()
    }

    /// How many links resolve to `path`, counting only links from other files.
    pub fn inbound_count(&self, path: &str) -> usize {
        self.backlinks.get(path).map_or(0, |referrers| referrers.iter().filter(|(source, _)| &**source != path).count())
    }

    fn link(&self, source: &str, index: u32) -> Option<ResolvedLink<'_>> {
        let (source, Some(note)) = self.files.get_key_value(source)? else { return None };
        let link = note.links.get(index as usize)?;
        let resolution = self.resolutions.get(source)?.get(index as usize)?;
        Some(ResolvedLink { source, link, resolution })
    }

    /// Every link of every note, resolved, by source path, then position.
    pub fn all_links(&self) -> impl Iterator<Item = ResolvedLink<'_>> {
        self.files.iter().filter_map(|(source, note)| Some((source, note.as_ref()?))).flat_map(move |(source, note)| {
            let resolutions = self.resolutions.get(source).map(Vec::as_slice).unwrap_or_default();
            note.links.iter().zip(resolutions).map(move |(link, resolution)| ResolvedLink { source, link, resolution })
        })
    }

    /// Whether the `#heading` or `#^block` of a resolved link exists in its target.
    pub fn subpath_status(&self, link: &Link, resolution: &Resolution) -> SubpathStatus {
        let (Some(subpath), Some(target)) = (link.subpath.as_deref(), resolution.path()) else {
            return SubpathStatus::NotApplicable;
        };
        let Some(Some(note)) = self.files.get(target) else { return SubpathStatus::NotApplicable };
        let subpath = subpath.trim_start_matches('#');
        if let Some(block) = subpath.strip_prefix('^') {
            return if note.block_ids.contains(&fold(block.trim())) { SubpathStatus::Found } else { SubpathStatus::MissingBlock };
        }
        // `#H1#H2`: each heading must exist, each after the one before.
        let mut from = 0;
        for part in subpath.split('#').map(heading_key).filter(|key| !key.is_empty()) {
            match note.heading_keys[from..].iter().position(|key| *key == part) {
                Some(found) => from += found + 1,
                None => return SubpathStatus::MissingHeading,
            }
        }
        SubpathStatus::Found
    }

    pub fn summary(&self) -> Summary {
        let mut summary = Summary::default();
        for note in self.files.values() {
            match note {
                Some(_) => summary.notes += 1,
                None => summary.attachments += 1,
            }
        }
        for link in self.all_links() {
            summary.links += 1;
            match link.resolution {
                Resolution::Resolved { .. } => summary.resolved_links += 1,
                Resolution::Ambiguous { .. } => summary.ambiguous_links += 1,
                Resolution::Unresolved => summary.unresolved_links += 1,
            }
        }
        summary
    }

    /// A canonical dump of everything the index answers, for comparing two indexes.
    pub fn snapshot(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for (path, note) in &self.files {
            lines.push(format!("file {path} note={}", note.is_some()));
        }
        for link in self.all_links() {
            lines.push(format!("link {} {:?} -> {:?}", link.source, link.link.target, link.resolution));
        }
        let mut targets: Vec<&Arc<str>> = self.backlinks.keys().collect();
        targets.sort();
        for target in targets {
            for link in self.backlinks(target) {
                lines.push(format!("backlink {target} <- {} {:?}", link.source, link.link.target));
            }
        }
        lines
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
            vault.outgoing_links("A.md").unwrap().iter().map(|link| vault.subpath_status(link.link, link.resolution)).collect();
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
    fn summary_counts_each_resolution() {
        let vault = vault(&[("a/T.md", ""), ("b/T.md", ""), ("n.md", "[[T]] [[missing]] [[a/T]] ![[pic.png]]"), ("pic.png", "")]);
        let summary = vault.summary();
        assert_eq!(summary, Summary { notes: 3, attachments: 1, links: 4, resolved_links: 2, unresolved_links: 1, ambiguous_links: 1 });
    }
}
