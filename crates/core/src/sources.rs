//! Read-only sources: the folders a `SCHEMA.md` declares under `source_folders` hold what a wiki
//! is drawn from (clippings, transcripts, papers), kept exactly as captured. The rule is
//! decided here, once, and every writing operation asks it before it returns a plan, so both
//! edges (the sidecar on the folder, the plugin in Obsidian) carry out only what it allows: no
//! tool creates, edits, renames, moves or deletes anything in a source folder. A move whose
//! links inside a source would need rewriting leaves them as they are and reports each one.
//!
//! ```text
//! ---
//! types:
//!   concept: {required: [type, summary, sources], folder: concepts}
//! properties:
//!   type: [concept]
//!   summary:
//!   sources:
//! source_folders: [raw, transcripts]
//! ---
//! ```
//!
//! The folders are relative to the `SCHEMA.md`'s own folder; `wiki/SCHEMA.md` above makes
//! `wiki/raw` and `wiki/transcripts` (and every folder below them) read-only.

use serde::{Deserialize, Serialize};

use crate::error::{ErrorCode, Failure};
use crate::plan::MovePlan;
use crate::resolve::{fold, folder};
use crate::Vault;

/// One source folder, from the vault's root, and the `SCHEMA.md` that declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFolder {
    pub folder: String,
    pub schema: String,
}

/// Every source folder the vault's `SCHEMA.md` files declare.
pub fn source_folders(vault: &Vault) -> Vec<SourceFolder> {
    let mut found = Vec::new();
    for (_, (schema_path, file)) in crate::lint::schema::schema_files(vault) {
        let Some(schema) = &file.schema else { continue };
        let base = folder(schema_path);
        for declared in &schema.source_folders {
            // A folder that would leave the schema's folder is not one of its sources.
            if declared.split('/').any(|segment| segment == ".." || segment == "." || segment.is_empty()) {
                continue;
            }
            let folder = if base.is_empty() { declared.clone() } else { format!("{base}/{declared}") };
            found.push(SourceFolder { folder, schema: schema_path.to_owned() });
        }
    }
    found
}

/// The source folder holding `path` (a file, or a folder itself), if any.
pub fn source_holding(folders: &[SourceFolder], path: &str) -> Option<SourceFolder> {
    let path = fold(path.trim().trim_matches('/'));
    folders
        .iter()
        .find(|source| {
            let folder = fold(&source.folder);
            path == folder || path.starts_with(&format!("{folder}/"))
        })
        .cloned()
}

/// Whether `path` lies in a source folder of the vault.
pub fn is_source(vault: &Vault, path: &str) -> bool {
    source_holding(&source_folders(vault), path).is_some()
}

/// What a tool would have done in a source folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Touched {
    pub path: String,
    /// `create`, `edit`, `move`, `move into` or `delete`.
    pub what: &'static str,
    pub source: SourceFolder,
}

/// Why a call is refused: it would write in a source folder. Nothing is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadOnlySource {
    pub tool: String,
    pub touched: Vec<Touched>,
}

impl Failure for ReadOnlySource {
    fn code(&self) -> ErrorCode {
        ErrorCode::ReadOnlySource
    }

    fn message(&self) -> String {
        let said: Vec<String> = self
            .touched
            .iter()
            .map(|touched| {
                format!(
                    "{} `{}` (in `{}`, a source folder of `{}`)",
                    touched.what, touched.path, touched.source.folder, touched.source.schema
                )
            })
            .collect();
        format!("{} would write in a read-only source folder, nothing was changed: {}", self.tool, said.join("; "))
    }

    fn hint(&self) -> &'static str {
        if self.tool == "undo_change" {
            return "The change was made before its folder was declared a source folder: sources stay as captured, so the undo \
is refused. To undo it anyway, take the folder out of `source_folders` in its SCHEMA.md, undo, and put it back.";
        }
        "Sources stay as captured: write the wiki's pages outside the source folders and link or cite the source from them \
(its SCHEMA.md's `source_folders` lists the folders)."
    }
}

/// The plan's writes in a source folder: a file moved out of or into one, a note edited or
/// created in one. Refused as a whole.
pub fn check_plan(vault: &Vault, tool: &str, plan: &MovePlan) -> Result<(), ReadOnlySource> {
    let folders = source_folders(vault);
    if folders.is_empty() {
        return Ok(());
    }
    let mut touched = Vec::new();
    for moved in &plan.moves {
        if let Some(source) = source_holding(&folders, &moved.from) {
            touched.push(Touched { path: moved.from.clone(), what: "move", source });
        } else if let Some(source) = source_holding(&folders, &moved.to) {
            touched.push(Touched { path: moved.to.clone(), what: "move into", source });
        }
    }
    for edit in &plan.edits {
        if let Some(source) = source_holding(&folders, &edit.path) {
            touched.push(Touched { path: edit.path.clone(), what: "edit", source });
        }
    }
    for create in &plan.creates {
        if let Some(source) = source_holding(&folders, &create.path) {
            touched.push(Touched { path: create.path.clone(), what: "create", source });
        }
    }
    if touched.is_empty() {
        Ok(())
    } else {
        Err(ReadOnlySource { tool: tool.to_owned(), touched })
    }
}

/// A batch's writes in a source folder (an undo's: a note given back its text, a removed file
/// written back, a created file removed, a file moved back out of or into one). Refused as a
/// whole.
pub fn check_batch(vault: &Vault, tool: &str, batch: &crate::batch::Batch) -> Result<(), ReadOnlySource> {
    let folders = source_folders(vault);
    if folders.is_empty() {
        return Ok(());
    }
    let mut touched = Vec::new();
    let mut touch = |path: &str, what: &'static str| {
        if let Some(source) = source_holding(&folders, path) {
            touched.push(Touched { path: path.to_owned(), what, source });
            true
        } else {
            false
        }
    };
    for write in &batch.writes {
        touch(&write.path, "edit");
    }
    for create in &batch.creates {
        touch(&create.path, "create");
    }
    for remove in &batch.removes {
        touch(&remove.path, "delete");
    }
    for moved in &batch.moves {
        if !touch(&moved.from, "move") {
            touch(&moved.to, "move into");
        }
    }
    if touched.is_empty() {
        Ok(())
    } else {
        Err(ReadOnlySource { tool: tool.to_owned(), touched })
    }
}

/// A delete of `path` when it lies in a source folder: refused.
pub fn check_delete(vault: &Vault, path: &str) -> Result<(), ReadOnlySource> {
    match source_holding(&source_folders(vault), path) {
        Some(source) => {
            Err(ReadOnlySource { tool: "delete_note".to_owned(), touched: vec![Touched { path: path.to_owned(), what: "delete", source }] })
        }
        None => Ok(()),
    }
}

/// A link inside a source that a move or a rewrite leaves as it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct LinkLeft {
    /// The source note holding the link.
    pub note: String,
    pub line: u32,
    /// The link as it is written, and stays.
    pub link: String,
    /// How it would have been written, had the note not been a source.
    pub would_be: String,
}

/// The plan without its edits of notes in a source folder (those notes are left as captured),
/// and each link so left. The plan's hash is made again over what stays, so the preview's hash
/// says what is applied.
pub fn leave_sources(vault: &Vault, plan: &mut MovePlan) -> Vec<LinkLeft> {
    let folders = source_folders(vault);
    if folders.is_empty() {
        return Vec::new();
    }
    let in_source = |path: &str| source_holding(&folders, path).is_some();
    // A note moved out of (or into) a source is refused by `check_plan`; only notes that stay
    // in a source are left here.
    let moved: Vec<&str> = plan.moves.iter().map(|moved| moved.from.as_str()).collect();
    let left: Vec<LinkLeft> = plan
        .changes
        .iter()
        .filter(|change| in_source(&change.note) && !moved.contains(&change.note.as_str()))
        .map(|change| LinkLeft {
            note: change.note.clone(),
            line: change.line,
            link: change.before.clone(),
            would_be: change.after.clone(),
        })
        .collect();
    if left.is_empty() {
        return left;
    }
    plan.changes.retain(|change| !in_source(&change.note) || moved.contains(&change.note.as_str()));
    plan.edits.retain(|edit| !in_source(&edit.path) || moved.contains(&edit.path.as_str()));
    let mut hash = crate::plan::PlanHash::new();
    hash.record(&[plan.plan_hash.as_bytes(), b"sources left"]);
    for link in &left {
        hash.record(&[link.note.as_bytes(), link.line.to_string().as_bytes(), link.link.as_bytes()]);
    }
    plan.plan_hash = hash.finish();
    left
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::vault_with;

    const SCHEMA: &str = "---\ntypes:\n  concept: {required: [type]}\nsource_folders: [raw, /papers/, ../outside]\n---\n";

    #[test]
    fn the_folders_a_schema_declares_are_sources_below_it() {
        let (vault, _) = vault_with(&[("wiki/SCHEMA.md", SCHEMA), ("wiki/raw/Clip.md", "clip\n"), ("raw/Other.md", "x\n")]);
        let folders: Vec<String> = source_folders(&vault).into_iter().map(|source| source.folder).collect();
        assert_eq!(folders, ["wiki/raw", "wiki/papers"]);
        assert!(is_source(&vault, "wiki/raw/Clip.md") && is_source(&vault, "wiki/RAW/deeper/New.md") && is_source(&vault, "wiki/papers"));
        assert!(!is_source(&vault, "raw/Other.md") && !is_source(&vault, "wiki/rawer/X.md") && !is_source(&vault, "outside/X.md"));
        assert!(check_delete(&vault, "wiki/raw/Clip.md").unwrap_err().message().contains("delete `wiki/raw/Clip.md`"));
    }

    /// Issue 37: a clipped source was offered as a note to patch. No tool writes in a source
    /// folder; a move leaves the links inside one and says which.
    #[test]
    fn no_tool_writes_in_a_source_folder_and_a_move_leaves_its_links() {
        use crate::edge::ReadBefore;
        use crate::ops::{call, Response};
        use serde_json::json;
        let schema = "---\ntypes:\n  concept: {required: [type]}\nsource_folders: [raw]\n---\n";
        let clip = "---\nurl: https://example.org\n---\nA clip about [[Topic]] and about spaced repetition.\n";
        let (vault, texts) = vault_with(&[
            ("wiki/SCHEMA.md", schema),
            ("wiki/raw/Clip.md", clip),
            ("wiki/Topic.md", "---\ntype: concept\n---\n# Topic\n"),
            ("wiki/Notes.md", "---\ntype: concept\n---\nOn [[Topic]] and spaced repetition.\n"),
        ]);
        let mut edge = ReadBefore { tag: 1, texts: texts.clone(), ..ReadBefore::default() };
        let mut plans = crate::approval::PlanHistory::default();
        let mut refused = |tool: &str, arguments: serde_json::Value| {
            let error = call(&vault, tool, &arguments, &mut edge, &mut plans).expect_err(tool);
            assert_eq!(error.code, ErrorCode::ReadOnlySource, "{tool}: {error}");
            assert!(error.message.contains("wiki/raw"), "{tool}: {}", error.message);
        };
        refused("move_note", json!({"from": "wiki/raw/Clip.md", "to": "wiki/Clip.md"}));
        refused("move_note", json!({"from": "wiki/Notes.md", "to": "wiki/raw/Notes.md"}));
        refused("bulk_move_notes", json!({"moves": [{"from": "wiki/raw", "to": "wiki/clips"}]}));
        refused("delete_note", json!({"path": "wiki/raw/Clip.md", "confirm": true}));
        refused("update_properties", json!({"path": "wiki/raw/Clip.md", "set": {"type": "concept"}}));
        refused("commit_wiki_page", json!({"page": {"path": "wiki/raw/New", "frontmatter": {"type": "concept"}}}));
        refused(
            "commit_wiki_page",
            json!({"page": {"path": "wiki/New", "frontmatter": {"type": "concept"}}, "patches": [{"path": "wiki/raw/Clip.md", "kind": "link"}]}),
        );

        // A move of the page the clip links: the clip's link is left and reported; the other
        // note's link follows.
        let moved =
            call(&vault, "move_note", &json!({"from": "wiki/Topic.md", "to": "wiki/Subject.md", "dry_run": false}), &mut edge, &mut plans)
                .unwrap_or_else(|error| panic!("{error}"));
        let Response::Moved(answer) = &moved.answer else { panic!("a move's answer") };
        let left: Vec<(&str, &str, &str)> =
            answer.links_left_in_sources.iter().map(|link| (link.note.as_str(), link.link.as_str(), link.would_be.as_str())).collect();
        assert_eq!(left, [("wiki/raw/Clip.md", "[[Topic]]", "[[Subject]]")]);
        let Some(crate::edge::Change::Batch { batch, .. }) = &moved.change else { panic!("a batch") };
        let written: Vec<&str> = batch.writes.iter().map(|write| write.path.as_str()).collect();
        assert_eq!(written, ["wiki/Notes.md"]);

        // The draft never offers the clip as a patch, and puts the page outside the sources.
        let draft =
            call(&vault, "draft_wiki_page", &json!({"topic": "Spaced repetition", "source": "wiki/raw/Clip.md"}), &mut edge, &mut plans)
                .unwrap_or_else(|error| panic!("{error}"));
        let Response::Draft(drafted) = &draft.answer else { panic!("a draft's answer") };
        let proposed: Vec<&str> = drafted.link_from.iter().map(|note| note.path.as_str()).collect();
        assert_eq!(proposed, ["wiki/Notes.md"]);
        assert_eq!(drafted.skeleton.as_ref().map(|skeleton| skeleton.page.path.as_str()), Some("wiki/Spaced repetition.md"));
    }
}
