//! What an operation gets from the edge that runs it, and what it hands back for the edge to
//! carry out: the [`Edge`] (notes' texts as they are now, modification times, the tag of
//! temporary files) and the [`Change`] of an approved writing call.

use serde::Serialize;

use crate::error::CallError;

/// How an edge runs the independent parts of a pass: `run(count, part)` calls `part(0)` to
/// `part(count - 1)`, in any order and on any thread (`Edge::run_parts`).
pub type RunParts<'a> = dyn Fn(usize, &(dyn Fn(usize) + Sync)) + 'a;

/// Runs every part in turn: the parts of an edge without threads (the wasm module, tests).
pub fn one_after_another(count: usize, part: &(dyn Fn(usize) + Sync)) {
    (0..count).for_each(part);
}

/// The texts of `paths`, each read by [`Edge::text`] in turn, by path, or the first error.
pub fn read_each<E: Edge + ?Sized>(edge: &mut E, paths: Vec<String>) -> Result<std::collections::BTreeMap<String, String>, CallError> {
    paths.into_iter().map(|path| edge.text(&path).map(|text| (path, text))).collect()
}

/// What only the edge running a call can see, handed to the operation.
pub trait Edge {
    /// The text of the note at `path` (as the index spells it) as it is now, or why it cannot be
    /// read.
    fn text(&mut self, path: &str) -> Result<String, CallError>;

    /// The file's modification time, in milliseconds since the Unix epoch, when the edge knows it.
    fn modified_ms(&mut self, path: &str) -> Option<u64>;

    /// What names the edge's temporary files (its process id), so two processes never share one.
    fn tag(&self) -> u32;

    /// The changes kept in the vault for `undo_change`, each opened by `journal::open` (the ones
    /// it refuses are left out). Only `undo_change` (`history`) asks.
    fn changes(&mut self) -> Vec<KeptChange> {
        Vec::new()
    }

    /// The files named as kept changes that `journal::open` refused (or that could not be read),
    /// with why: no undo uses them, and `undo_change` without an id never reaches past a newer
    /// one to undo an older change.
    fn unopened_changes(&mut self) -> Vec<UnopenedChange> {
        Vec::new()
    }

    /// The kept changes an undo consumed, each opened by `journal::open` from the file it was set
    /// aside in (`history::set_aside_name`): the record that the undo was made, by which a
    /// retried undo is answered `already_applied` (`approval::applied_already`).
    fn undone_changes(&mut self) -> Vec<KeptChange> {
        Vec::new()
    }

    /// What the edge saw change since it last saw the vault (`moves_detected::Observed`), or
    /// `None` when it has no earlier view to compare with. Only `detected_moves`,
    /// `heal_moves` and `fix_broken_links` (its strongest evidence) ask.
    fn observed(&mut self) -> Option<crate::seen::Observed> {
        None
    }

    /// Runs `part(0)` to `part(count - 1)`, each once, in any order and on any thread: the
    /// independent parts of a pass core decides (`fix_broken_links`' look-alike search, one part
    /// per missing target; `link_mentions`' notes), whose results core merges the same way
    /// whatever the order. One after another unless the edge has threads to spare (the sidecar
    /// runs them on every core).
    fn run_parts(&self, count: usize, part: &(dyn Fn(usize) + Sync)) {
        one_after_another(count, part);
    }

    /// The texts of `paths` (as [`Edge::text`] reads each), by path, or the first error: an edge
    /// that can read many at once does (the sidecar, on every core).
    fn texts(&mut self, paths: Vec<String>) -> Result<std::collections::BTreeMap<String, String>, CallError> {
        read_each(self, paths)
    }

    /// Takes what a call read or worked out and no longer needs once its answer is made (a
    /// whole vault's texts, a plan of many thousand mentions), to free as the edge sees fit:
    /// freeing them is a pass of its own, which the sidecar makes beside the answer rather than
    /// before it. Freed here by default.
    fn discard(&self, done: Box<dyn std::any::Any + Send>) {
        drop(done);
    }
}

/// The steps of an approved change, for the edge to carry out as they are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum Change {
    /// A batch: carry out `batch`, then record `plan_hash` as applied
    /// (`PlanHistory::record_applied`), keep the change when `batch.change_id` is set and remove
    /// the kept change `batch.forget` names (`history`).
    Batch { batch: crate::batch::Batch, plan_hash: String },
    /// A delete: keep `keep`'s journal for `undo_change` as a batch's is kept (`history`), then
    /// move the file at `path` to the trash if it still holds `before` (a note; an attachment's
    /// `before` is empty and is not compared), then set the answer's `trashed_to`. When the move
    /// fails, the kept change is removed again. `keep` is never carried out: it is the change as
    /// the history holds it, a removal of the note whose journal keeps the note's whole text, so
    /// the undo writes it back whatever trash the edge used.
    Trash { path: String, before: String, keep: crate::batch::Batch },
}

/// The vault's trash folder as Obsidian's "Move to Obsidian trash" uses it, where the sidecar moves
/// a deleted note.
pub const TRASH_FOLDER: &str = ".trash";

impl Change {
    /// Every vault path carrying out this change touches or passes through, which no edge may
    /// reach through a symbolic link or junction (`Batch::paths_to_guard`); a delete's are its
    /// note and the trash folder.
    pub fn paths_to_guard(&self) -> Vec<String> {
        match self {
            Change::Batch { batch, .. } => batch.paths_to_guard(),
            Change::Trash { path, .. } => trash_paths_to_guard(path),
        }
    }
}

/// What a delete of `path` touches: the file and the trash folder.
pub fn trash_paths_to_guard(path: &str) -> Vec<String> {
    vec![path.to_owned(), TRASH_FOLDER.to_owned()]
}

/// One change kept for `undo_change`, as an edge hands it to core: its file's path in the vault
/// and the journal it holds, opened (`journal::open`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct KeptChange {
    pub name: String,
    pub journal: crate::journal::Journal,
}

/// A file named as a kept change that cannot be used for undo: its name, and why (the refusal of
/// `journal::open`, or the read that failed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct UnopenedChange {
    pub name: String,
    pub why: String,
}

/// An edge with the texts it read before the call, by path: what an edge that reads
/// asynchronously (the plugin) hands in after reading `ops::notes_needed`.
#[derive(Debug, Clone, Default)]
pub struct ReadBefore {
    pub texts: std::collections::BTreeMap<String, String>,
    pub modified_ms: std::collections::BTreeMap<String, u64>,
    pub tag: u32,
    pub changes: Vec<KeptChange>,
    pub unopened: Vec<UnopenedChange>,
    pub undone: Vec<KeptChange>,
    pub observed: Option<crate::seen::Observed>,
}

impl Edge for ReadBefore {
    fn text(&mut self, path: &str) -> Result<String, CallError> {
        self.texts.get(path).cloned().ok_or_else(|| CallError::not_supplied(path))
    }

    fn modified_ms(&mut self, path: &str) -> Option<u64> {
        self.modified_ms.get(path).copied()
    }

    fn tag(&self) -> u32 {
        self.tag
    }

    fn changes(&mut self) -> Vec<KeptChange> {
        self.changes.clone()
    }

    fn unopened_changes(&mut self) -> Vec<UnopenedChange> {
        self.unopened.clone()
    }

    fn undone_changes(&mut self) -> Vec<KeptChange> {
        self.undone.clone()
    }

    fn observed(&mut self) -> Option<crate::seen::Observed> {
        self.observed.clone()
    }
}
