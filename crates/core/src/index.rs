//! The vault index: every file by path, each note's links, and the queries over them.
//!
//! The index holds no note text, only what was parsed from it. Files are added, replaced,
//! removed and renamed one at a time, so the plugin can follow Obsidian's events and the
//! sidecar can follow the folder on disk.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::parse::{parse_links, Link};
use crate::resolve::{self, fold, FileLookup, Resolution};

/// One file of the vault.
#[derive(Debug, Clone, Default)]
struct FileEntry {
    /// The links of a Markdown note; empty for an attachment.
    links: Vec<Link>,
    /// True when the note had more links than the parser keeps.
    truncated: bool,
}

/// The links of a vault, indexed.
#[derive(Debug, Clone, Default)]
pub struct Vault {
    files: BTreeMap<String, FileEntry>,
    /// Folded file name to every path with that name.
    by_name: HashMap<String, BTreeSet<String>>,
}

/// A link of one note, with what it resolves to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedLink<'a> {
    pub source: &'a str,
    pub link: &'a Link,
    pub resolution: Resolution,
}

/// Counts over the whole vault.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
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
    path.len() > 3 && path[path.len() - 3..].eq_ignore_ascii_case(".md")
}

impl FileLookup for Vault {
    fn files_named(&self, folded_name: &str) -> Vec<&str> {
        self.by_name
            .get(folded_name)
            .map(|paths| paths.iter().map(String::as_str).collect())
            .unwrap_or_default()
    }
}

impl Vault {
    pub fn new() -> Vault {
        Vault::default()
    }

    /// Adds a file, or replaces it. The text of an attachment is ignored.
    pub fn upsert(&mut self, path: &str, text: &str) {
        let entry = if is_note_path(path) {
            let parsed = parse_links(text);
            FileEntry { links: parsed.links, truncated: parsed.truncated }
        } else {
            FileEntry::default()
        };
        if self.files.insert(path.to_owned(), entry).is_none() {
            self.by_name.entry(fold(resolve::file_name(path))).or_default().insert(path.to_owned());
        }
    }

    /// Removes a file. Returns false when there was none at `path`.
    pub fn remove(&mut self, path: &str) -> bool {
        if self.files.remove(path).is_none() {
            return false;
        }
        let name = fold(resolve::file_name(path));
        if let Some(paths) = self.by_name.get_mut(&name) {
            paths.remove(path);
            if paths.is_empty() {
                self.by_name.remove(&name);
            }
        }
        true
    }

    /// Moves a file, keeping its parsed links. Returns false when there was none at `from`.
    /// Whatever was at `to` is replaced.
    pub fn rename(&mut self, from: &str, to: &str) -> bool {
        let Some(entry) = self.files.get(from).cloned() else { return false };
        self.remove(from);
        self.remove(to);
        self.upsert(to, "");
        self.files.insert(to.to_owned(), entry);
        true
    }

    pub fn contains(&self, path: &str) -> bool {
        self.files.contains_key(path)
    }

    /// Every path, notes and attachments, in order.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }

    pub fn note_count(&self) -> usize {
        self.files.keys().filter(|path| is_note_path(path)).count()
    }

    /// Finds a note the way a person names it: its exact path, the path without `.md`, or
    /// the path in another case. `None` when nothing fits.
    pub fn find_note(&self, path: &str) -> Option<&str> {
        let path = path.trim().trim_start_matches("./").trim_start_matches('/');
        let with_extension = if is_note_path(path) { path.to_owned() } else { format!("{path}.md") };
        if let Some((found, _)) = self.files.get_key_value(&with_extension) {
            return Some(found);
        }
        let folded = fold(&with_extension);
        self.files_named(&fold(resolve::file_name(&with_extension)))
            .into_iter()
            .find(|candidate| fold(candidate) == folded)
    }

    /// The links of the note at `path` with their resolutions, in the order written.
    /// `None` when there is no note at `path`.
    pub fn outgoing_links(&self, path: &str) -> Option<Vec<ResolvedLink<'_>>> {
        let (source, entry) = self.files.get_key_value(path)?;
        Some(
            entry
                .links
                .iter()
                .map(|link| ResolvedLink { source, link, resolution: resolve::resolve(self, source, link) })
                .collect(),
        )
    }

    /// True when the note at `path` had more links than the parser keeps.
    pub fn is_truncated(&self, path: &str) -> bool {
        self.files.get(path).is_some_and(|entry| entry.truncated)
    }

    /// Every link in the vault that resolves to `path`, by source path, then position.
    pub fn backlinks(&self, path: &str) -> Vec<ResolvedLink<'_>> {
        self.all_links().filter(|link| link.resolution.path() == Some(path)).collect()
    }

    /// Every link of every note, resolved, by source path, then position.
    pub fn all_links(&self) -> impl Iterator<Item = ResolvedLink<'_>> {
        self.files.iter().flat_map(move |(source, entry)| {
            entry.links.iter().map(move |link| ResolvedLink {
                source,
                link,
                resolution: resolve::resolve(self, source, link),
            })
        })
    }

    pub fn summary(&self) -> Summary {
        let mut summary = Summary::default();
        for path in self.files.keys() {
            if is_note_path(path) {
                summary.notes += 1;
            } else {
                summary.attachments += 1;
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vault(files: &[(&str, &str)]) -> Vault {
        let mut vault = Vault::new();
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
    fn find_note_accepts_what_people_type() {
        let vault = vault(&[("Folder/My Note.md", "")]);
        assert_eq!(vault.find_note("Folder/My Note"), Some("Folder/My Note.md"));
        assert_eq!(vault.find_note("folder/my note.md"), Some("Folder/My Note.md"));
        assert_eq!(vault.find_note("My Note"), None);
    }

    #[test]
    fn summary_counts_each_resolution() {
        let vault = vault(&[
            ("a/T.md", ""),
            ("b/T.md", ""),
            ("n.md", "[[T]] [[missing]] [[a/T]] ![[pic.png]]"),
            ("pic.png", ""),
        ]);
        let summary = vault.summary();
        assert_eq!(
            summary,
            Summary {
                notes: 3,
                attachments: 1,
                links: 4,
                resolved_links: 2,
                unresolved_links: 1,
                ambiguous_links: 1
            }
        );
    }
}
