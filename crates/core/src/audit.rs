//! The rename audit: for a rename Obsidian made (recorded by the plugin), the links that still
//! name the file's old path and no longer point to the file (they point nowhere, or to another
//! file), and the `rewrite_link` calls that would repoint them, one per way the old target is
//! written (the bare old name, and the old path). Names and targets are compared as everywhere
//! in core (`link_rewrite::targets_match`, `resolve::fold`).

use serde::Serialize;

use crate::index::is_note_path;
use crate::link_rewrite::{notes_to_read_for_rewrite, targets_match};
use crate::resolve::{file_name, fold};
use crate::span::Span;
use crate::Vault;

/// A link that still names a renamed file's old path and no longer points to the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct StaleLink {
    pub note: String,
    pub line: u32,
    /// The link's bytes in the note's text, to show it as written.
    pub span: Span,
    /// The link's target, for when the text cannot be read.
    pub target: String,
    /// `body` or `property`.
    #[cfg_attr(feature = "typescript", ts(type = "LinkSource[\"source\"]"))]
    pub source: &'static str,
    /// The property's top-level key, for a property link.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub key: Option<String>,
    /// The file the link points to now; absent when it points nowhere.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub resolved_path: Option<String>,
}

/// One `rewrite_link` call that repoints a rename's stale links written one way.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RewriteFix {
    pub from_target: String,
    pub to_target: String,
}

/// What the audit found for one rename.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RenameAudit {
    /// Why the rename was not checked (its file is gone, or a file is at the old path again).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub skipped: Option<String>,
    /// Sorted by note, then line.
    pub stale: Vec<StaleLink>,
    /// The calls that repoint every stale link; empty when there is none.
    pub fixes: Vec<RewriteFix>,
}

/// Audits the rename of the file now at `to` from `from` against the index as it is now.
pub fn audit_rename(vault: &Vault, from: &str, to: &str) -> RenameAudit {
    let skipped = |reason: String| RenameAudit { skipped: Some(reason), stale: Vec::new(), fixes: Vec::new() };
    if !vault.contains(to) {
        return skipped(format!("{to} is no longer in the vault"));
    }
    // Links that name a file now at the old path point to that file, as they should.
    if vault.contains(from) {
        return skipped(format!("a file is at {from} again, so links to it are left alone"));
    }
    let mut stale = Vec::new();
    let mut fixes = Vec::new();
    for (target, bare) in written_targets(from) {
        let mut found = Vec::new();
        for note in notes_to_read_for_rewrite(vault, &target) {
            for link in vault.outgoing_links(&note).unwrap_or_default() {
                if !targets_match(&link.link, &target) || link.resolution.path() == Some(to) {
                    continue;
                }
                let (source, key) = link.link.source.describe();
                found.push(StaleLink {
                    note: note.clone(),
                    line: link.link.line,
                    span: link.link.span,
                    target: link.link.target.clone(),
                    source,
                    key,
                    resolved_path: link.resolution.path().map(str::to_owned),
                });
            }
        }
        if !found.is_empty() {
            stale.extend(found);
            fixes.push(RewriteFix { from_target: target, to_target: new_target(vault, to, bare) });
        }
    }
    stale.sort_by(|a, b| (&a.note, a.line).cmp(&(&b.note, b.line)));
    RenameAudit { skipped: None, stale, fixes }
}

/// A file's name as a link writes it: a note's without `.md`, any other file's in full.
fn link_name(path: &str) -> &str {
    without_markdown_extension(file_name(path))
}

fn without_markdown_extension(path: &str) -> &str {
    if is_note_path(path) {
        &path[..path.len() - 3]
    } else {
        path
    }
}

/// How links name the file that was at `path`: its name, and (for a file in a folder) its path.
fn written_targets(path: &str) -> Vec<(String, bool)> {
    let bare = link_name(path).to_owned();
    let qualified = without_markdown_extension(path).to_owned();
    if qualified == bare {
        vec![(bare, true)]
    } else {
        vec![(bare, true), (qualified, false)]
    }
}

/// The target a stale link should get for the file now at `path`: its bare name when the link
/// was bare and no other file has that name, else its path (without `.md` for a note).
fn new_target(vault: &Vault, path: &str, bare: bool) -> String {
    let name = link_name(path);
    if bare {
        let key = fold(name);
        let mut namesakes = vault.paths().filter(|other| fold(link_name(other)) == key);
        if namesakes.next() == Some(path) && namesakes.next().is_none() {
            return name.to_owned();
        }
    }
    without_markdown_extension(path).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::IndexConfig;

    fn vault(files: &[&str]) -> Vault {
        let mut vault = Vault::new(IndexConfig::obsidian_defaults());
        for path in files {
            vault.upsert(path, "");
        }
        vault
    }

    #[test]
    fn links_left_on_the_old_name_are_found_with_the_fix_for_each_way_they_are_written() {
        let mut vault = vault(&["Archive/New.md"]);
        vault.upsert("A.md", "[[Old]] and [[Projects/Old#Top|it]]\n---\n");
        vault.upsert("B.md", "---\nup: \"[[old]]\"\n---\n");
        let audit = audit_rename(&vault, "Projects/Old.md", "Archive/New.md");
        assert_eq!(audit.skipped, None);
        let found: Vec<(&str, u32, &str)> = audit.stale.iter().map(|link| (link.note.as_str(), link.line, link.source)).collect();
        assert_eq!(found, [("A.md", 1, "body"), ("A.md", 1, "body"), ("B.md", 2, "property")]);
        assert_eq!(audit.stale[2].key.as_deref(), Some("up"));
        assert_eq!(
            audit.fixes,
            [
                RewriteFix { from_target: "Old".to_owned(), to_target: "New".to_owned() },
                RewriteFix { from_target: "Projects/Old".to_owned(), to_target: "Archive/New".to_owned() },
            ]
        );
    }

    #[test]
    fn a_bare_fix_takes_the_path_when_another_file_shares_the_name_and_gone_renames_are_skipped() {
        let mut vault = vault(&["Archive/New.md", "Elsewhere/new.md"]);
        vault.upsert("A.md", "[[Old]]");
        assert_eq!(audit_rename(&vault, "Old.md", "Archive/New.md").fixes[0].to_target, "Archive/New");
        assert!(audit_rename(&vault, "Old.md", "Gone.md").skipped.is_some_and(|why| why.contains("no longer")));
        vault.upsert("Old.md", "");
        assert!(audit_rename(&vault, "Old.md", "Archive/New.md").skipped.is_some_and(|why| why.contains("again")));
    }
}

#[cfg(test)]
mod canvas_tests {
    use super::*;
    use crate::index::IndexConfig;

    /// A canvas's text card still naming the old name is a stale link as a note's is, and the
    /// fix (`rewrite_link`) repoints canvases too.
    #[test]
    fn a_canvas_text_card_left_on_the_old_name_is_found() {
        let mut vault = Vault::new(IndexConfig::obsidian_defaults());
        vault.upsert("Archive/New.md", "");
        vault.upsert(
            "Board.canvas",
            "{\"nodes\":[{\"id\":\"t\",\"type\":\"text\",\"text\":\"[[Old]]\",\"x\":0,\"y\":0,\"width\":1,\"height\":1}]}",
        );
        let audit = audit_rename(&vault, "Old.md", "Archive/New.md");
        let found: Vec<(&str, &str)> = audit.stale.iter().map(|link| (link.note.as_str(), link.source)).collect();
        assert_eq!(found, [("Board.canvas", "canvas_text")]);
        assert_eq!(audit.fixes.len(), 1);
    }
}
