//! An approved plan turned into the steps both edges carry out as they are: the text each note
//! must still have and the new text it gets (computed here, once), the file moves (a case-only
//! one through a temporary name), the folders the moves need, the folders they leave empty, and
//! the journal entry that goes to disk before the first change (its format is `journal`'s).
//!
//! The edges only execute and undo: the sidecar through its `Disk`, the plugin through
//! Obsidian's Vault API. What they observe while executing (a folder already there, a note
//! edited since) they report; what to change, and in what order, is decided here.

use crate::error::{ErrorCode, Failure};
use std::collections::BTreeMap;

use crate::journal::{Journal, JournalMove, JournalWrite, WriteKind, VERSION};
use crate::plan::{apply_edits, content_hash, MovePlan};

/// One note the batch rewrites.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct BatchWrite {
    pub path: String,
    /// The note's text when the plan was made: the batch is refused if the note no longer
    /// holds it, and it is the journal's pre-image.
    pub before: String,
    /// The SHA-256 of `before`, as the plan's `content_hash`.
    pub before_hash: String,
    /// The note's new text.
    pub text: String,
    /// The SHA-256 of `text`.
    pub after_hash: String,
    /// The temporary file beside the note that an edge writing through files puts the new text
    /// in before renaming it over the note (an edge writing in place leaves it unused).
    pub temporary: String,
    /// The edits over `before` that make `text` (sorted, disjoint), when the write is a plan's;
    /// none when it writes a whole text back (an undo's pre-image). An edge hands them to
    /// `step::saved_over` when another program saves the note before the commit.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub edits: Vec<crate::plan::TextEdit>,
}

/// One file the batch creates: nothing may be at `path` when the batch starts, and the file is
/// put there only if the place is still free (an edge writing through files writes `temporary`
/// and renames it without replacing).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct BatchCreate {
    pub path: String,
    pub text: String,
    /// The SHA-256 of `text`.
    pub after_hash: String,
    pub temporary: String,
}

/// One file the batch removes (an undo's removal of a file a change created): it must still hold
/// `before`, which the journal keeps so that recovery can put it back.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct BatchRemove {
    pub path: String,
    pub before: String,
    pub before_hash: String,
}

/// One file the batch moves.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct BatchMove {
    pub from: String,
    pub to: String,
    /// For a move that changes only the case of a name: the temporary name it passes through,
    /// so that a case-insensitive filesystem cannot take it for nothing to do.
    pub via: Option<String>,
    /// The destination is where an earlier move of this batch takes a file from: taken when
    /// the batch starts, free by the time this move runs.
    #[serde(default)]
    pub vacated: bool,
    /// For a move of a cycle of names: the content hash of the file it moves (the journal's,
    /// for recovery).
    #[serde(default)]
    pub hash: Option<String>,
}

/// What an edge carries out, in this order: check every write's `before` and that every
/// create's place is free, write the journal, write the notes, make the folders, create the new
/// files, move the files, remove the journal, remove the emptied folders.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Batch {
    /// The tool that made the batch, as the journal names it.
    pub tool: String,
    pub writes: Vec<BatchWrite>,
    pub moves: Vec<BatchMove>,
    /// New files (a wiki page), written after the notes, before the moves.
    #[serde(default)]
    pub creates: Vec<BatchCreate>,
    /// Files removed last, after the moves (an undo of a create).
    #[serde(default)]
    pub removes: Vec<BatchRemove>,
    /// The id the applied change is kept under for `undo_change` (`history`): once the batch is
    /// done, the edge keeps its journal, with this id, in `history::CHANGES_FOLDER`.
    /// Empty for a batch that is not kept (an undo).
    #[serde(default)]
    pub change_id: String,
    /// The kept change this batch undoes: once it is done, the edge removes that record.
    #[serde(default)]
    pub forget: Option<String>,
    /// The folders the moves and creates need, top first. An edge makes each that is not there yet, and
    /// only those go into the journal as made by the batch.
    pub folders: Vec<String>,
    /// Folders a folder move may leave empty, deepest first: each is removed if it is empty
    /// once the batch is done; one that is not empty stays.
    pub emptied_folders: Vec<String>,
}

/// Why a plan cannot become a batch: the text a note has now is not the one it was planned on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BatchError {
    Changed {
        path: String,
    },
    /// A note to rewrite whose file name leaves no room for the temporary names beside it: a
    /// name made outside vaultlink, longer than `names::MAX_FILE_NAME_BYTES`.
    NameTooLong {
        path: String,
        bytes: usize,
    },
}

impl Failure for BatchError {
    fn code(&self) -> ErrorCode {
        match self {
            BatchError::Changed { .. } => ErrorCode::ConcurrentModification,
            BatchError::NameTooLong { .. } => ErrorCode::UnwritableNote,
        }
    }

    fn message(&self) -> String {
        match self {
            BatchError::Changed { path } => format!("`{path}` changed after the plan was made; nothing was changed"),
            BatchError::NameTooLong { path, bytes } => format!(
                "`{path}` must be rewritten, and its file name is {bytes} bytes, more than the {} a note vaultlink rewrites may have: \
its new text is written beside it under a temporary name (`.<name>.vaultlink-<process>.tmp`, up to {} bytes longer), which would pass \
the {} bytes filesystems take in one name; nothing was changed",
                crate::names::MAX_FILE_NAME_BYTES,
                TEMPORARY_NAME_EXTRA_BYTES,
                crate::names::MAX_NAME_BYTES
            ),
        }
    }

    fn hint(&self) -> &'static str {
        match self {
            BatchError::Changed { .. } => "Preview the move again (dry run) and approve the new plan.",
            BatchError::NameTooLong { .. } => {
                "Rename the note to a name of at most 227 bytes (in Obsidian, or with move_note, which keeps its links), or edit its links by hand; then preview the change again."
            }
        }
    }

    fn retryable(&self) -> bool {
        matches!(self, BatchError::Changed { .. })
    }
}

/// Refuses a plan that rewrites a note whose file name leaves no room for the temporary names
/// beside it ([`TEMPORARY_NAME_EXTRA_BYTES`]): checked at the preview and again when the batch
/// is made, so the write never fails half way with "File name too long".
pub fn check_rewritable(plan: &MovePlan) -> Result<(), BatchError> {
    for file in &plan.edits {
        let name = file.path.rsplit('/').next().unwrap_or(&file.path);
        if name.len() > crate::names::MAX_FILE_NAME_BYTES {
            return Err(BatchError::NameTooLong { path: file.path.clone(), bytes: name.len() });
        }
    }
    Ok(())
}

/// The id an applied plan is kept under for `undo_change` (`history`): the first 16 hex digits
/// of its hash.
pub fn change_id(plan_hash: &str) -> String {
    plan_hash.chars().take(16).collect()
}

/// A delete as the history keeps it (`edge::Change::Trash`): one removal of the note, whose
/// journal holds the note's whole text, kept under the id of the delete's plan. An edge never
/// carries it out (the note goes to the trash instead); undone, it writes the text back.
pub fn delete_batch(path: &str, text: &str, plan_hash: &str) -> Batch {
    Batch {
        tool: "delete_note".to_owned(),
        writes: Vec::new(),
        moves: Vec::new(),
        creates: Vec::new(),
        removes: vec![BatchRemove { path: path.to_owned(), before: text.to_owned(), before_hash: content_hash(text) }],
        change_id: change_id(plan_hash),
        forget: None,
        folders: Vec::new(),
        emptied_folders: Vec::new(),
    }
}

pub use crate::names::TEMPORARY_NAME_EXTRA_BYTES;

/// A hidden name beside `path` for a temporary file: `<folder>/.<name>.vaultlink-<tag>.<kind>`.
/// `tag` is the edge's process id, so two processes never share a temporary name.
pub fn temporary_name(path: &str, tag: u32, kind: &str) -> String {
    let (folder, name) = match path.rsplit_once('/') {
        Some((folder, name)) => (format!("{folder}/"), name),
        None => (String::new(), path),
    };
    format!("{folder}.{name}.vaultlink-{tag}.{kind}")
}

/// The batch that carries out `plan`, from the texts its notes have now (`texts`, by path).
/// `moved_folders` are the folders its folder moves empty (`rename::moved_folder`); `tag` names
/// the temporary files (the edge's process id).
pub fn batch(
    plan: &MovePlan,
    texts: &BTreeMap<String, String>,
    tool: &str,
    moved_folders: &[String],
    tag: u32,
) -> Result<Batch, BatchError> {
    check_rewritable(plan)?;
    let mut writes = Vec::with_capacity(plan.edits.len());
    for file in &plan.edits {
        let changed = || BatchError::Changed { path: file.path.clone() };
        let before = texts.get(&file.path).ok_or_else(changed)?;
        if content_hash(before) != file.content_hash {
            return Err(changed());
        }
        let text = apply_edits(before, &file.edits);
        writes.push(BatchWrite {
            path: file.path.clone(),
            before: before.clone(),
            before_hash: file.content_hash.clone(),
            after_hash: content_hash(&text),
            text,
            temporary: temporary_name(&file.path, tag, "tmp"),
            edits: file.edits.clone(),
        });
    }
    // Every step below is linear in the moves and writes: a folder of 10,000 notes is one batch.
    let mut folders = FolderList::default();
    let mut creates = Vec::with_capacity(plan.creates.len());
    for create in &plan.creates {
        folders.add_parents(&create.path);
        creates.push(BatchCreate {
            path: create.path.clone(),
            after_hash: content_hash(&create.text),
            text: create.text.clone(),
            temporary: temporary_name(&create.path, tag, "tmp"),
        });
    }
    let mut moves = Vec::with_capacity(plan.moves.len());
    // The folded sources of the moves before this one: a destination among them is vacated.
    let mut left_before: std::collections::HashSet<String> = std::collections::HashSet::new();
    let sources: Vec<String> = plan.moves.iter().map(|file_move| crate::resolve::fold(&file_move.from)).collect();
    // The last move that leaves each folded name.
    let last_leaving: std::collections::HashMap<&str, usize> =
        sources.iter().enumerate().map(|(at, source)| (source.as_str(), at)).collect();
    let destinations: std::collections::HashSet<String> = plan.moves.iter().map(|file_move| crate::resolve::fold(&file_move.to)).collect();
    // A file of a cycle of names has a name another move takes. Every such file counts (a
    // chain's too, as `rename::notes_to_read_for_bulk` reads them): the hash costs nothing.
    let in_cycle = |from: &str| destinations.contains(&crate::resolve::fold(from));
    // The text the file holds when it moves: the batch's new text, or the one it was read with.
    let written: std::collections::HashMap<&str, &str> =
        writes.iter().map(|write| (write.path.as_str(), write.after_hash.as_str())).collect();
    let moved_hash = |from: &str| -> Option<String> {
        written.get(from).map(|hash| (*hash).to_owned()).or_else(|| texts.get(from).map(|text| content_hash(text)))
    };
    // The second halves of moves through a third name (a cycle's), each waiting for the move
    // that leaves its destination (by that move's folded source).
    let mut waiting: Vec<(String, BatchMove)> = Vec::new();
    for (at, file_move) in plan.moves.iter().enumerate() {
        folders.add_parents(&file_move.to);
        let (from, to) = (crate::resolve::fold(&file_move.from), crate::resolve::fold(&file_move.to));
        let case_only = file_move.from != file_move.to && from == to;
        let vacated = left_before.contains(&to);
        left_before.insert(from.clone());
        // A move of a cycle carries the hash of what it moves, for recovery.
        let hash = || in_cycle(&file_move.from).then(|| moved_hash(&file_move.from)).flatten();
        if !vacated && !case_only && last_leaving.get(to.as_str()).is_some_and(|&last| last > at) {
            // Its destination is left by a later move of the cycle: through a third name.
            let third = swap_name(&file_move.from, tag);
            moves.push(BatchMove { from: file_move.from.clone(), to: third.clone(), via: None, vacated: false, hash: hash() });
            waiting.push((to, BatchMove { from: third, to: file_move.to.clone(), via: None, vacated: true, hash: hash() }));
        } else {
            moves.push(BatchMove {
                from: file_move.from.clone(),
                to: file_move.to.clone(),
                via: case_only.then(|| temporary_name(&file_move.from, tag, "case")),
                vacated,
                hash: hash(),
            });
        }
        while let Some(ready) = waiting.iter().position(|(left, _)| *left == from) {
            moves.push(waiting.remove(ready).1);
        }
    }
    let mut folders = folders.list;
    folders.sort_by_key(|folder| folder.matches('/').count());
    let mut emptied_folders: Vec<String> = Vec::new();
    let mut emptied: std::collections::HashSet<String> = std::collections::HashSet::new();
    for moved in moved_folders {
        let inside = format!("{moved}/");
        // The folders under `moved` walked up from so far: their folders above are done.
        let mut walked: std::collections::HashSet<&str> = std::collections::HashSet::new();
        for file_move in &plan.moves {
            let mut folder = file_move.from.rsplit_once('/').map(|(folder, _)| folder);
            while let Some(current) = folder {
                if (current != moved && !current.starts_with(&inside)) || !walked.insert(current) {
                    break;
                }
                if emptied.insert(current.to_owned()) {
                    emptied_folders.push(current.to_owned());
                }
                folder = current.rsplit_once('/').map(|(parent, _)| parent);
            }
        }
        emptied_folders.sort_by_key(|folder| std::cmp::Reverse(folder.matches('/').count()));
    }
    Ok(Batch {
        tool: tool.to_owned(),
        writes,
        moves,
        creates,
        removes: Vec::new(),
        change_id: change_id(&plan.plan_hash),
        forget: None,
        folders,
        emptied_folders,
    })
}

/// The third name a move of a cycle passes through: beside the file, visible (a vault path like
/// any other, so both edges move it as they move any file and recovery undoes it as any move),
/// `<folder>/<stem>.vaultlink-<tag>.swap.<extension>`.
pub fn swap_name(path: &str, tag: u32) -> String {
    let (folder, name) = match path.rsplit_once('/') {
        Some((folder, name)) => (format!("{folder}/"), name),
        None => (String::new(), path),
    };
    match name.rsplit_once('.') {
        Some((stem, extension)) if !stem.is_empty() => format!("{folder}{stem}.vaultlink-{tag}.swap.{extension}"),
        _ => format!("{folder}{name}.vaultlink-{tag}.swap"),
    }
}

/// The folders a batch needs, in the order first met, each once.
#[derive(Default)]
struct FolderList {
    list: Vec<String>,
    seen: std::collections::HashSet<String>,
}

impl FolderList {
    /// Adds the folders above `path` not listed yet, top first.
    fn add_parents(&mut self, path: &str) {
        for (at, _) in path.match_indices('/') {
            let folder = &path[..at];
            if !self.seen.contains(folder) {
                self.seen.insert(folder.to_owned());
                self.list.push(folder.to_owned());
            }
        }
    }
}

/// Adds the folders above `path` that `folders` does not hold yet, top first.
pub(crate) fn add_parent_folders(folders: &mut Vec<String>, path: &str) {
    let segments: Vec<&str> = path.split('/').collect();
    for depth in 1..segments.len() {
        let folder = segments[..depth].join("/");
        if !folders.contains(&folder) {
            folders.push(folder);
        }
    }
}

impl Batch {
    /// Every vault path the batch writes, creates, moves, removes or makes, with the names it
    /// passes through (temporary names, a case-only move's `via`, the folders it makes or
    /// empties) and vaultlink's own files (the journal, the kept changes). No edge may carry out a
    /// step through a symbolic link or junction, which may lead out of the vault (SECURITY.md): each
    /// checks these paths, component by component, before the first step and again around the
    /// steps that touch them. Each path once, in the batch's order.
    pub fn paths_to_guard(&self) -> Vec<String> {
        let mut paths: Vec<String> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut add = |path: &str| {
            if !path.is_empty() && seen.insert(path.to_owned()) {
                paths.push(path.to_owned());
            }
        };
        for write in &self.writes {
            add(&write.path);
            add(&write.temporary);
        }
        for create in &self.creates {
            add(&create.path);
            add(&create.temporary);
        }
        for step in &self.moves {
            add(&step.from);
            add(&step.to);
            if let Some(via) = &step.via {
                add(via);
            }
        }
        for remove in &self.removes {
            add(&remove.path);
        }
        for folder in self.folders.iter().chain(&self.emptied_folders) {
            add(folder);
        }
        add(crate::journal::JOURNAL_FILE);
        if !self.change_id.is_empty() || self.forget.is_some() {
            add(crate::kept_names::CHANGES_FOLDER);
        }
        paths
    }

    /// The journal entry to write before the first change. `made_folders` are the batch's
    /// `folders` the edge found missing (and will make); `pid`, `started_unix_ms` and `machine`
    /// say who applies it.
    pub fn journal(&self, made_folders: Vec<String>, pid: u32, started_unix_ms: u64, machine: &str) -> Journal {
        Journal {
            version: VERSION,
            pid,
            holder: String::new(),
            tool: self.tool.clone(),
            started_unix_ms,
            machine: machine.to_owned(),
            writes: self
                .writes
                .iter()
                .map(|write| JournalWrite {
                    path: write.path.clone(),
                    temporary: write.temporary.clone(),
                    before: write.before.clone(),
                    after_hash: write.after_hash.clone(),
                    kind: WriteKind::Replace,
                })
                .chain(self.creates.iter().map(|create| JournalWrite {
                    path: create.path.clone(),
                    temporary: create.temporary.clone(),
                    before: String::new(),
                    after_hash: create.after_hash.clone(),
                    kind: WriteKind::Create,
                }))
                .chain(self.removes.iter().map(|remove| JournalWrite {
                    path: remove.path.clone(),
                    temporary: String::new(),
                    before: remove.before.clone(),
                    after_hash: String::new(),
                    kind: WriteKind::Remove,
                }))
                .collect(),
            moves: self
                .moves
                .iter()
                .map(|step| JournalMove { from: step.from.clone(), to: step.to.clone(), via: step.via.clone(), hash: step.hash.clone() })
                .collect(),
            made_folders,
            change_id: self.change_id.clone(),
            forget: self.forget.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rename::{moved_folder, notes_to_read, plan_move};

    use crate::testing::vault_with as vault;

    fn batch_for(files: &[(&str, &str)], from: &str, to: &str) -> Batch {
        let (vault, texts) = vault(files);
        let needed: BTreeMap<String, String> = notes_to_read(&vault, from, to)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|path| texts.get(&path).map(|text| (path, text.clone())))
            .collect();
        let plan = plan_move(&vault, from, to, &needed).unwrap_or_else(|error| panic!("{}", error.message()));
        batch(&plan, &texts, "move_note", &moved_folder(from, &plan).into_iter().collect::<Vec<_>>(), 7)
            .unwrap_or_else(|error| panic!("{}", error.message()))
    }

    #[test]
    fn a_move_batch_carries_the_new_texts_the_moves_and_the_folders_it_needs() {
        let batch = batch_for(&[("A.md", "[[Old]] and [[Old]]"), ("Old.md", "# Old")], "Old.md", "deep/er/New.md");
        assert_eq!(batch.writes.len(), 1);
        assert_eq!(batch.writes[0].text, "[[New]] and [[New]]");
        assert_eq!(batch.writes[0].after_hash, content_hash("[[New]] and [[New]]"));
        assert_eq!(batch.writes[0].temporary, ".A.md.vaultlink-7.tmp");
        assert_eq!(
            batch.moves,
            vec![BatchMove { from: "Old.md".to_owned(), to: "deep/er/New.md".to_owned(), via: None, vacated: false, hash: None }]
        );
        assert_eq!(batch.folders, vec!["deep".to_owned(), "deep/er".to_owned()]);
        assert!(batch.emptied_folders.is_empty());
        let journal = batch.journal(vec!["deep".to_owned()], 7, 1, "here");
        assert_eq!(journal.tool, "move_note");
        assert_eq!(journal.writes[0].before, "[[Old]] and [[Old]]");
        assert!(crate::journal::check_paths(&journal).is_ok(), "a batch's journal passes the journal's own path rules");
    }

    #[test]
    fn the_temporary_names_of_the_longest_file_name_fit_a_filesystems_name() {
        let name = "n".repeat(crate::names::MAX_FILE_NAME_BYTES - 3) + ".md";
        for kind in ["tmp", "aside", "case"] {
            let temporary = temporary_name(&format!("folder/{name}"), u32::MAX, kind);
            assert!(temporary.rsplit('/').next().unwrap().len() <= crate::names::MAX_NAME_BYTES, "{kind}");
        }
        assert_eq!(temporary_name(&name, u32::MAX, "aside").len(), crate::names::MAX_NAME_BYTES);
        assert!(swap_name(&name, u32::MAX).len() <= crate::names::MAX_NAME_BYTES);
    }

    #[test]
    fn a_case_only_rename_passes_through_a_temporary_name() {
        let batch = batch_for(&[("a.md", "# a"), ("B.md", "[[a]]")], "a.md", "A.md");
        assert_eq!(batch.moves[0].via.as_deref(), Some(".a.md.vaultlink-7.case"));
        assert!(crate::journal::check_paths(&batch.journal(vec![], 7, 1, "")).is_ok());
    }

    #[test]
    fn a_folder_move_empties_its_folders_deepest_first() {
        let batch = batch_for(&[("P/a.md", ""), ("P/q/b.md", ""), ("P/q/r/c.md", ""), ("Home.md", "[[P/a]]")], "p", "Archive");
        assert_eq!(batch.emptied_folders, vec!["P/q/r".to_owned(), "P/q".to_owned(), "P".to_owned()]);
        assert_eq!(batch.folders, vec!["Archive".to_owned(), "Archive/q".to_owned(), "Archive/q/r".to_owned()]);
    }

    #[test]
    fn the_paths_to_guard_are_every_path_a_batch_touches_and_its_own_files() {
        let batch = batch_for(&[("A.md", "[[Old]]"), ("Old.md", "# Old")], "Old.md", "deep/er/New.md");
        assert_eq!(
            batch.paths_to_guard(),
            [
                "A.md",
                ".A.md.vaultlink-7.tmp",
                "Old.md",
                "deep/er/New.md",
                "deep",
                "deep/er",
                crate::journal::JOURNAL_FILE,
                crate::kept_names::CHANGES_FOLDER
            ]
        );
        let case_only = batch_for(&[("a.md", "# a"), ("B.md", "[[a]]")], "a.md", "A.md");
        assert!(case_only.paths_to_guard().contains(&".a.md.vaultlink-7.case".to_owned()));
        let folder = batch_for(&[("P/a.md", ""), ("P/q/b.md", ""), ("Home.md", "[[P/a]]")], "P", "Archive");
        for path in ["P/q", "P", "Archive/q", "P/q/b.md", "Archive/q/b.md"] {
            assert!(folder.paths_to_guard().contains(&path.to_owned()), "{path}");
        }
    }

    #[test]
    fn a_note_that_changed_since_the_plan_refuses_the_batch() {
        let (vault, mut texts) = vault(&[("A.md", "[[Old]]"), ("Old.md", "")]);
        let plan = plan_move(&vault, "Old.md", "New.md", &texts).unwrap_or_else(|error| panic!("{}", error.message()));
        texts.insert("A.md".to_owned(), "[[Old]] edited".to_owned());
        assert_eq!(batch(&plan, &texts, "move_note", &[], 1), Err(BatchError::Changed { path: "A.md".to_owned() }));
        texts.remove("A.md");
        assert_eq!(batch(&plan, &texts, "move_note", &[], 1), Err(BatchError::Changed { path: "A.md".to_owned() }));
    }
}
