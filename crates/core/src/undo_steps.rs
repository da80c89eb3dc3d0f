//! The undo of a journal, as steps: decided once, here, for both edges.
//!
//! A batch that fails, or that a crash interrupts, is undone from its journal (`journal`) and
//! from the state the vault is in, whatever step it stopped at. What to undo, in which order,
//! and what each step must find on the disk before it acts is the same on every edge, so it is
//! computed here from the journal alone, as a list of [`UndoStep`]s. An edge carries the steps
//! out in order, each one checking its precondition on the disk right before it acts (the disk
//! may have changed since the journal was written: someone saved a note, removed a file), and
//! reports what each did as an [`Undone`]; the report of a recovery is built from those alone.
//!
//! The order: the batch's temporary files go first; what the batch removed comes back; the
//! moves are undone last first; files the batch created go while they hold what it wrote; each
//! rewritten note gets its text from before back while it holds what the batch wrote; the
//! folders the batch made go, deepest first, while empty; a change kept as part of the batch's
//! commit is forgotten and a kept change an undo set aside is put back; the journal goes last, so
//! an undo stopped anywhere runs again whole.

use serde::{Deserialize, Serialize};

use crate::journal::{Journal, JournalWrite, WriteKind};
use crate::plan::content_hash;

/// The folder, inside the vault, where an undo keeps the text from before a batch of a note
/// someone edited since (`<folder>/<the note's path>`).
pub const RECOVERED_FOLDER: &str = concat!(crate::own_files::own_folder!(), "/recovered");

/// One step of an undo, with what the edge checks on the disk right before it. Paths are
/// relative to the vault, with `/`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum UndoStep {
    /// The batch's temporary file: removed if it is there. It is looked for beneath the vault
    /// only (never through a symbolic link put on its way since), and one that cannot be looked
    /// for stops the undo, with the journal kept for when it can.
    RemoveTemporary { path: String },
    /// A file the batch removed. If the batch stopped with it moved `aside` to be checked, it
    /// goes back to `path` first (kept under `saved` when a file was saved at `path` since and it
    /// differs from `before`). Then, if nothing is at `path`, `before` is put there through
    /// `temporary`, never over a file saved there meanwhile: [`Undone::Restored`]; a file found
    /// there at the last moment is someone's, and keeps its text, with `before` saved at `saved`:
    /// [`Undone::Kept`].
    PutBack { path: String, aside: String, temporary: String, before: String, saved: String },
    /// A file the batch moved from `from` to `to`, moved back. First, each of `second_names`
    /// that is the same file as `from` (a rename made as a hard link and an unlink, stopped
    /// between the two) is removed. Then, if the case-only intermediate `via` is there, it is
    /// moved back to `from`; otherwise, if `to` is there, `from` is not, `to` holds content of
    /// hash `hash` (any file, without one) and `cycle` holds, `to` is moved back to `from` (a
    /// case-only move through `via` again). Never over a file at `from`: [`Undone::MovedBack`].
    MoveBack { from: String, to: String, via: Option<String>, second_names: Vec<String>, hash: Option<String>, cycle: Option<Condition> },
    /// A file the batch created: removed if it holds content of hash `after_hash`
    /// ([`Undone::Removed`]); one edited since is someone's, and stays.
    RemoveCreated { path: String, after_hash: String },
    /// A note the batch rewrote. If the batch stopped with the note moved `aside` (inside a
    /// checked replace), it comes back first: a text of hash `after_hash` at `path` goes to
    /// `temporary` and is removed once the note is back; what is aside goes back never over a
    /// file (kept under `saved` when it differs from `before`). Then the note, read: `before`,
    /// nothing to do; a text of hash `after_hash`, replaced by `before` through `temporary` only
    /// if it still holds that text ([`Undone::Restored`], or [`Undone::Kept`] when a save came
    /// first); anything else, or no file, is someone's edit: it stays, and `before` is saved at
    /// `saved` ([`Undone::Kept`]). Which texts are the batch's own is decided here, not by the
    /// edge: `restorable` holds their hashes, `after_hash` first and, for a note whose text before
    /// was not empty, the empty text's: the plugin writes notes in place, and a holder stopped
    /// between truncating the file and writing it (suspended, killed, a disk full) leaves it
    /// empty. An empty note holds no one's words, so giving it its text back loses nothing. The
    /// edge restores a note only while it holds a text of one of these hashes.
    Restore {
        path: String,
        aside: Option<String>,
        temporary: String,
        before: String,
        after_hash: String,
        saved: String,
        restorable: Vec<String>,
    },
    /// A folder the batch made: removed if it is a folder (not a link put in its place) and
    /// empty.
    RemoveFolder { path: String },
    /// The change the batch kept as part of its commit (`history`), when it stopped before the
    /// journal went: undone, it is no longer kept, so its kept file (and one stopped before it
    /// was put in place) is removed.
    ForgetKept { change_id: String },
    /// For an undo: the kept change it set aside as part of its commit (`aside`) goes back to
    /// `name` if it is there, since undone, the change is made again.
    PutBackSetAside { name: String, aside: String },
    /// The journal itself, once every step before it is done: the batch is undone.
    RemoveJournal,
}

/// What must hold on the disk for a move of a cycle of names through a third name to count as
/// made (`T -> B` after `A -> T`: it happened only if `A` holds what the cycle moved into it, or
/// is empty when nothing did), so a vault whose texts happen to match is not taken for a swap
/// half made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "when", rename_all = "snake_case")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum Condition {
    /// Nothing is at `path`.
    Absent { path: String },
    /// A file is at `path` (by its exact name), holding content of hash `hash` (any, without).
    Holds { path: String, hash: Option<String> },
}

/// What a step did, which the report of an undo is made of. A step that found nothing to do
/// reports nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "done", rename_all = "snake_case")]
pub enum Undone {
    /// The note at `path` has its text from before the batch again.
    Restored { path: String },
    /// The file is back at `path` (the move's source).
    MovedBack { path: String },
    /// The file the batch created at `path` is gone again.
    Removed { path: String },
    /// The note at `path` was edited, or saved, by someone since the batch and keeps that edit;
    /// its text from before the batch is at `saved`.
    Kept { path: String, saved: String },
}

/// The steps that undo `journal`, in the order an edge carries them out.
pub fn steps(journal: &Journal) -> Vec<UndoStep> {
    let mut steps = Vec::new();
    for write in journal.writes.iter().filter(|write| !write.temporary.is_empty()) {
        steps.push(UndoStep::RemoveTemporary { path: write.temporary.clone() });
    }
    for write in journal.writes.iter().filter(|write| write.kind == WriteKind::Remove) {
        steps.push(UndoStep::PutBack {
            path: write.path.clone(),
            aside: removal_aside(&write.path),
            temporary: temporary_of(write),
            before: write.before.clone(),
            saved: saved_path(&write.path),
        });
    }
    for (at, file_move) in journal.moves.iter().enumerate().rev() {
        // A case-only move renames one file on a filesystem that ignores case: its two names
        // are never two links to tidy.
        let case_only = file_move.from.to_lowercase() == file_move.to.to_lowercase();
        let second_names = file_move.via.iter().chain((!case_only).then_some(&file_move.to)).cloned().collect();
        steps.push(UndoStep::MoveBack {
            from: file_move.from.clone(),
            to: file_move.to.clone(),
            via: file_move.via.clone(),
            second_names,
            hash: file_move.hash.clone(),
            cycle: cycle_condition(journal, at),
        });
    }
    for write in journal.writes.iter().filter(|write| write.kind == WriteKind::Create) {
        steps.push(UndoStep::RemoveCreated { path: write.path.clone(), after_hash: write.after_hash.clone() });
    }
    for write in journal.writes.iter().filter(|write| write.kind == WriteKind::Replace) {
        let mut restorable = vec![write.after_hash.clone()];
        let torn = content_hash("");
        if !write.before.is_empty() && write.after_hash != torn {
            restorable.push(torn);
        }
        steps.push(UndoStep::Restore {
            path: write.path.clone(),
            aside: aside_of(&write.temporary),
            temporary: temporary_of(write),
            before: write.before.clone(),
            after_hash: write.after_hash.clone(),
            saved: saved_path(&write.path),
            restorable,
        });
    }
    for folder in journal.made_folders.iter().rev() {
        steps.push(UndoStep::RemoveFolder { path: folder.clone() });
    }
    if !journal.change_id.is_empty() {
        steps.push(UndoStep::ForgetKept { change_id: journal.change_id.clone() });
    }
    if let Some(name) = journal.forget.as_deref().filter(|name| crate::history::is_record_name(name)) {
        steps.push(UndoStep::PutBackSetAside { name: name.to_owned(), aside: crate::history::set_aside_name(name) });
    }
    steps.push(UndoStep::RemoveJournal);
    steps
}

/// For the journal's move `at`, the second half of a cycle's move through a third name, what
/// must hold for it to have happened; `None` for any other move.
fn cycle_condition(journal: &Journal, at: usize) -> Option<Condition> {
    let hop = &journal.moves[at];
    // The first half comes before it in the batch: a third name is made by the batch.
    let first = journal.moves[..at].iter().find(|step| step.to == hop.from && step.hash.is_some())?;
    Some(match journal.moves.iter().find(|step| step.to == first.from) {
        Some(refill) => Condition::Holds { path: first.from.clone(), hash: refill.hash.clone() },
        None => Condition::Absent { path: first.from.clone() },
    })
}

/// Where an undo saves the text from before the batch of a note edited since.
pub fn saved_path(path: &str) -> String {
    format!("{RECOVERED_FOLDER}/{path}")
}

/// The temporary file for restoring a note: the batch's own, or one beside the note.
pub fn temporary_of(write: &JournalWrite) -> String {
    if !write.temporary.is_empty() {
        return write.temporary.clone();
    }
    match write.path.rsplit_once('/') {
        Some((folder, name)) => format!("{folder}/.{name}.vaultlink-recover.tmp"),
        None => format!(".{}.vaultlink-recover.tmp", write.path),
    }
}

/// The hidden name beside a note where a checked replace moves the note while it checks it: the
/// temporary file's name with `aside` for `tmp` (`<folder>/.<name>.vaultlink-<pid>.aside`).
/// `None` for a write with no temporary file (the plugin's, written in place).
pub fn aside_of(temporary: &str) -> Option<String> {
    temporary.strip_suffix(".tmp").map(|stem| format!("{stem}.aside"))
}

/// The hidden name beside `path` where a file an undo removes is moved while it is checked
/// (`<folder>/.<name>.vaultlink-remove.aside`); an undo puts back what it finds there.
pub fn removal_aside(path: &str) -> String {
    match path.rsplit_once('/') {
        Some((folder, name)) => format!("{folder}/.{name}.vaultlink-remove.aside"),
        None => format!(".{path}.vaultlink-remove.aside"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cases both edges check (`tests/vectors/undo_steps.json`): the steps each journal
    /// yields, written out by hand from what an undo does.
    #[test]
    fn the_shared_vectors_hold() {
        let vectors: serde_json::Value = serde_json::from_str(include_str!("../../../tests/vectors/undo_steps.json")).unwrap_or_default();
        let cases = vectors["cases"].as_array().cloned().unwrap_or_default();
        assert!(cases.len() >= 4);
        for case in cases {
            let name = case["name"].as_str().unwrap_or_default();
            let journal: Result<Journal, _> = serde_json::from_value(case["journal"].clone());
            assert!(journal.is_ok(), "{name}: {journal:?}");
            let expected: Result<Vec<UndoStep>, _> = serde_json::from_value(case["steps"].clone());
            assert!(expected.is_ok(), "{name}: {expected:?}");
            let computed = journal.as_ref().map(steps).unwrap_or_default();
            assert_eq!(computed, expected.unwrap_or_default(), "{name}");
            // The steps are plain data: they read back as they were written.
            let text = serde_json::to_value(&computed).unwrap_or_default();
            assert_eq!(text, case["steps"], "{name}");
        }
    }

    #[test]
    fn an_empty_journal_only_removes_itself() {
        let journal = Journal {
            version: crate::journal::VERSION,
            pid: 1,
            holder: String::new(),
            tool: "move_note".to_owned(),
            started_unix_ms: 0,
            machine: String::new(),
            writes: Vec::new(),
            moves: Vec::new(),
            made_folders: Vec::new(),
            change_id: String::new(),
            forget: None,
        };
        assert_eq!(steps(&journal), vec![UndoStep::RemoveJournal]);
    }
}
