//! The changes kept for `undo_change`, and the undo planned from one.
//!
//! Once an edge has applied a batch whose `change_id` is set, it keeps the batch's journal (the
//! pre-image of every note it rewrote, the text hash it wrote, its moves, the files it created
//! and the folders it made), with that id and sealed like the journal, as one file in
//! [`CHANGES_FOLDER`], beside the journal, named [`next_record_name`]. It keeps it as part of
//! the commit: written and synced under the lock, before the journal is removed, so a batch
//! interrupted at any step is undone by recovery (which removes its kept change too,
//! [`kept_of`]) or made and kept, never made and lost to undo. At most [`KEPT_CHANGES`] are
//! kept, and at most [`KEPT_BYTES`] in all; the oldest go first ([`to_forget`]). A kept change
//! is untrusted input like the journal: an edge hands core only the ones `journal::open`
//! accepts (sealed with this user's key for this vault as a kept change, not a journal, no
//! larger than `journal::MAX_FILE_BYTES`, every path safe). A journal whose change is kept with
//! a later one after it is refused ([`check_not_kept`]).
//!
//! The undo of a kept change is a batch like any other, proven from the vault as it is now:
//! every note the change wrote must still have the text it wrote (by hash), every file it moved
//! must still be where it went and its old place free, every file it created must still hold
//! what it wrote. Otherwise it is refused, naming the notes edited or moved since. Applied, it
//! writes back each pre-image, moves each file back, removes what the change created and the
//! folders it made once empty, and the kept change is removed: undoing again undoes the change
//! before it. An undo is not itself kept.
//!
//! The vault goes on after a change: a note made since may link a file where the change moved
//! it, or a page the change created. The moves back are planned as moves (`rename`), so such a
//! link is rewritten to follow its file back, and proven like any move's; a created page that
//! other notes link since is removed only with `force`, and the preview lists those links, as
//! `delete_note`'s does.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::approval::PlanHistory;
use crate::batch::{temporary_name, Batch, BatchCreate, BatchMove, BatchRemove, BatchWrite};
use crate::edge::{Change, Edge};
use crate::error::{CallError, ErrorCode, Failure};
use crate::journal::{Journal, Refusal, WriteKind};
use crate::plan::content_hash;
use crate::resolve::fold;
use crate::Vault;

/// The most changes kept.
pub const KEPT_CHANGES: usize = 20;
/// The most bytes the kept changes take in all (the newest is kept whatever its size).
pub const KEPT_BYTES: u64 = 16 * 1024 * 1024;

pub use crate::batch::change_id;
pub use crate::edge::{KeptChange, UnopenedChange};
use crate::kept_names::record_parts;
pub use crate::kept_names::{is_record_name, CHANGES_FOLDER};

/// The file a change is kept in: `.vaultlink/changes/<applied ms, 16 digits>-<id>.json`, so the
/// names sort oldest first.
pub fn record_name(applied_unix_ms: u64, change_id: &str) -> String {
    format!("{CHANGES_FOLDER}/{applied_unix_ms:016}-{change_id}.json")
}

/// Where an undo sets aside the kept change it consumes, as part of its commit (before its
/// journal goes): not a kept change's name, so no undo picks it, and recovery, undoing the undo,
/// puts it back from there. Removed once the undo is made.
pub fn set_aside_name(record: &str) -> String {
    format!("{record}.undone")
}

/// The kept change's name a file set aside by an undo was kept under ([`set_aside_name`]), when
/// `name` is one. Such a file stays once its undo is made, as the record that it was made (a
/// retried undo is answered `already_applied` by it), and goes as the kept changes do
/// ([`to_forget`], over the set-aside files alone).
pub fn undone_record(name: &str) -> Option<&str> {
    name.strip_suffix(".undone").filter(|record| is_record_name(record))
}

/// The change id in a kept change's file name.
pub fn record_change_id(name: &str) -> Option<&str> {
    record_parts(name).map(|(_, id)| id)
}

/// When the change kept under `name` was kept, from its name.
pub fn applied_unix_ms(name: &str) -> Option<u64> {
    record_parts(name).map(|(time, _)| time)
}

/// The name to keep a change under when the kept changes are `existing` (names): after the
/// newest of them even when the clock went back, so the newest change is always the last name.
pub fn next_record_name(now_unix_ms: u64, change_id: &str, existing: &[String]) -> String {
    let newest = existing.iter().filter_map(|name| record_parts(name)).map(|(time, _)| time).max();
    record_name(newest.map_or(now_unix_ms, |newest| now_unix_ms.max(newest.saturating_add(1))), change_id)
}

/// Whether a journal found in a vault may be an interrupted change, given the names of the
/// changes kept beside it. An edge keeps a change before it removes the journal (the commit), so
/// a journal whose change is the newest kept one is that change interrupted at its last step,
/// which recovery undoes (removing the kept change too); but a journal whose change is kept and
/// followed by a later one was committed long ago, and is a copy put back: it is refused.
pub fn check_not_kept(journal: &Journal, record_names: &[String]) -> Result<(), Refusal> {
    if journal.change_id.is_empty() {
        return Ok(());
    }
    let parsed: Vec<(u64, &str, &String)> =
        record_names.iter().filter_map(|name| record_parts(name).map(|(time, id)| (time, id, name))).collect();
    let Some(newest) = parsed.iter().max_by(|a, b| a.2.cmp(b.2)) else { return Ok(()) };
    let kept = parsed.iter().any(|(_, id, _)| *id == journal.change_id);
    if kept && newest.1 != journal.change_id {
        return Err(Refusal::AlreadyKept { change_id: journal.change_id.clone() });
    }
    Ok(())
}

/// The kept change that is `journal`'s own batch (the same start, machine, tool, steps and
/// change id; the pid of an abandoned journal differs, and so do the pid and holder of one
/// recovery took over): kept under the lock before the journal was removed, so recovery, undoing
/// the batch, removes it too.
pub fn kept_of<'a>(journal: &Journal, kept: &'a [KeptChange]) -> Option<&'a KeptChange> {
    if journal.change_id.is_empty() {
        return None;
    }
    kept.iter().find(|kept| Journal { pid: journal.pid, holder: journal.holder.clone(), ..kept.journal.clone() } == *journal)
}

/// The kept changes to remove, given every kept change's name and size: all but the newest
/// [`KEPT_CHANGES`], and the oldest while they take more than [`KEPT_BYTES`].
pub fn to_forget(records: &[(String, u64)]) -> Vec<String> {
    let mut newest_first: Vec<&(String, u64)> = records.iter().collect();
    newest_first.sort_by(|a, b| b.0.cmp(&a.0));
    let mut bytes = 0;
    let mut forget = Vec::new();
    for (at, (name, size)) in newest_first.into_iter().enumerate() {
        bytes += size;
        if at > 0 && (at >= KEPT_CHANGES || bytes > KEPT_BYTES) {
            forget.push(name.clone());
        }
    }
    forget
}

crate::approval::writing_arguments! {
    #[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct UndoArguments {
        /// The change to undo (its `change_id`); the last one kept when left out.
        #[serde(default)]
        pub change_id: Option<String>,
        /// Remove a page the change created even though notes link it since.
        #[serde(default)]
        pub force: bool,
    } paged
}

/// A file moved back by an undo.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MovedBack {
    pub from: String,
    pub to: String,
}

/// What `undo_change` answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UndoAnswer {
    pub dry_run: bool,
    pub applied: bool,
    pub plan_hash: String,
    /// The change undone, and the tool that made it.
    pub change_id: String,
    pub tool: String,
    /// Notes given back their text from before the change.
    pub restored: Vec<String>,
    pub moved_back: Vec<MovedBack>,
    /// Files the change created, removed.
    pub removed: Vec<String>,
    /// Notes the change did not write whose links to a file it moved are rewritten to follow the
    /// file back (links made since the change).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub relinked: Vec<String>,
    /// The links from other notes to a page the undo removes, which it leaves dangling: the undo
    /// is refused while there are any, unless `force`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub backlinks: Vec<crate::delete::Referrer>,
    /// Links inside read-only sources to a file the undo moves back, left as they are (a
    /// source stays as captured), each with how it would have been written.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub links_left_in_sources: Vec<crate::sources::LinkLeft>,
    /// How many changes are kept in all (this one included, until it is undone).
    pub kept_changes: usize,
    /// How many entries each list holds in all: the lists above are one page of them (restored,
    /// then moved back, removed, relinked, backlinks, in that order).
    pub counts: UndoCounts,
    /// The preview's next page; a receipt lists its first page, its counts all of it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// The sizes of an undo's lists, on every page of its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct UndoCounts {
    pub restored: usize,
    pub moved_back: usize,
    pub removed: usize,
    pub relinked: usize,
    pub backlinks: usize,
}

/// One entry of an undo's lists, as its pages hold them.
#[derive(Serialize)]
#[serde(untagged)]
enum UndoItem {
    Restored(String),
    MovedBack(MovedBack),
    Removed(String),
    Relinked(String),
    Backlink(crate::delete::Referrer),
}

impl UndoAnswer {
    /// The answer with its lists cut to one page (`answer::page`, the cursor bound to the plan)
    /// and counted.
    fn paged(mut self, limit: Option<usize>, cursor: Option<&str>) -> Result<UndoAnswer, crate::answer::OpError> {
        self.counts = UndoCounts {
            restored: self.restored.len(),
            moved_back: self.moved_back.len(),
            removed: self.removed.len(),
            relinked: self.relinked.len(),
            backlinks: self.backlinks.len(),
        };
        let items: Vec<UndoItem> = std::mem::take(&mut self.restored)
            .into_iter()
            .map(UndoItem::Restored)
            .chain(std::mem::take(&mut self.moved_back).into_iter().map(UndoItem::MovedBack))
            .chain(std::mem::take(&mut self.removed).into_iter().map(UndoItem::Removed))
            .chain(std::mem::take(&mut self.relinked).into_iter().map(UndoItem::Relinked))
            .chain(std::mem::take(&mut self.backlinks).into_iter().map(UndoItem::Backlink))
            .collect();
        let (page, _, next_cursor) = crate::answer::page(items, limit, cursor, &format!("undo_change\0{}", self.plan_hash))?;
        for item in page {
            match item {
                UndoItem::Restored(path) => self.restored.push(path),
                UndoItem::MovedBack(moved) => self.moved_back.push(moved),
                UndoItem::Removed(path) => self.removed.push(path),
                UndoItem::Relinked(path) => self.relinked.push(path),
                UndoItem::Backlink(link) => self.backlinks.push(link),
            }
        }
        self.next_cursor = next_cursor;
        Ok(self)
    }
}

/// Why there is nothing to undo, or the undo cannot be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UndoError {
    /// No change is kept, or none has the id asked.
    Nothing { change_id: Option<String> },
    /// Notes the change touched were edited, moved or removed since.
    Edited { change_id: String, notes: Vec<String> },
    /// Notes link a page the change created, which the undo would remove.
    Linked { change_id: String, referrers: Vec<String> },
    /// Asked without an id, and the newest kept change cannot be used for undo.
    Unopened { name: String, why: String },
}

impl Failure for UndoError {
    fn code(&self) -> ErrorCode {
        match self {
            UndoError::Nothing { .. } => ErrorCode::NothingToUndo,
            UndoError::Edited { .. } | UndoError::Linked { .. } | UndoError::Unopened { .. } => ErrorCode::UndoRefused,
        }
    }

    fn message(&self) -> String {
        match self {
            UndoError::Nothing { change_id: None } => "no change is kept to undo in this vault".to_owned(),
            UndoError::Nothing { change_id: Some(id) } => format!("no kept change has the id `{id}`"),
            UndoError::Edited { change_id, notes } => {
                format!("the change `{change_id}` cannot be undone: {} changed since it was applied; nothing was changed", listed(notes))
            }
            UndoError::Linked { change_id, referrers } => format!(
                "undoing the change `{change_id}` would remove a page that notes link since, leaving these links dangling: {}; nothing was changed",
                listed(referrers)
            ),
            UndoError::Unopened { name, why } => format!(
                "the newest kept change, `{name}`, cannot be undone ({why}), and an undo without an id never reaches past it to an older change; nothing was changed"
            ),
        }
    }

    fn hint(&self) -> &'static str {
        match self {
            UndoError::Nothing { .. } => {
                "Every applied change (moves, rewrites, property edits, new pages, deletes) is kept, the last 20; list_changes shows the kept ones and their ids."
            }
            UndoError::Edited { .. } => {
                "Undo the later changes first (undo_change without an id undoes the last one), or fix the notes by hand."
            }
            UndoError::Linked { .. } => {
                "Repoint those links first (rewrite_link), or call again with `force: true` to remove the page and leave them dangling."
            }
            UndoError::Unopened { .. } => {
                "Call list_changes and name the change to undo by its `change_id`; remove that file if it is not one this vaultlink kept."
            }
        }
    }
}

/// `items` joined for a message, the first `MAX_LISTED` of them and how many more.
fn listed(items: &[String]) -> String {
    let shown = items.iter().take(crate::answer::MAX_LISTED).cloned().collect::<Vec<_>>().join(", ");
    match items.len().saturating_sub(crate::answer::MAX_LISTED) {
        0 => shown,
        more => format!("{shown} and {more} more"),
    }
}

/// The kept change `arguments` name, or the last one: never an older one past a newer kept
/// change that cannot be opened (`unopened`).
fn chosen<'a>(changes: &'a [KeptChange], unopened: &[UnopenedChange], arguments: &UndoArguments) -> Result<&'a KeptChange, UndoError> {
    let asked = arguments.change_id.as_deref().map(str::trim).filter(|id| !id.is_empty());
    let found = match asked {
        Some(id) => changes.iter().filter(|kept| kept.journal.change_id == id).max_by(|a, b| a.name.cmp(&b.name)),
        None => {
            let newest = changes.iter().max_by(|a, b| a.name.cmp(&b.name));
            let newest_unopened = unopened.iter().max_by(|a, b| a.name.cmp(&b.name));
            if let Some(blocking) = newest_unopened.filter(|blocking| newest.is_none_or(|kept| blocking.name > kept.name)) {
                return Err(UndoError::Unopened { name: blocking.name.clone(), why: blocking.why.clone() });
            }
            newest
        }
    };
    found.ok_or_else(|| UndoError::Nothing { change_id: asked.map(str::to_owned) })
}

/// Where each path of the change is now: moved files at their destination.
fn now_at(journal: &Journal, path: &str) -> String {
    // In the batch's order: a cycle's move goes on from its third name.
    let mut at = path.to_owned();
    for step in &journal.moves {
        if step.from == at {
            at.clone_from(&step.to);
        }
    }
    at
}

/// What a file of a cycle holds once the change is done, when it moves back from `at`: the
/// change's own text for a note it wrote, else what the journal's move recorded.
fn moved_back_hash(journal: &Journal, at: &str) -> String {
    // The undo writes a note's text from before the change back before it moves it.
    if let Some(write) = journal.writes.iter().find(|write| write.kind == WriteKind::Replace && now_at(journal, &write.path) == at) {
        return content_hash(&write.before);
    }
    journal.moves.iter().find(|step| step.to == at).and_then(|step| step.hash.clone()).unwrap_or_default()
}

/// Each file the undo moves, from where the change left it to where it was: the change's moves
/// taken back newest first, a cycle's steps composed into one move per file.
fn moves_back(journal: &Journal) -> Vec<(String, String)> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for step in journal.moves.iter().rev() {
        match pairs.iter_mut().find(|(_, at)| *at == step.to) {
            Some(pair) => pair.1.clone_from(&step.from),
            None => pairs.push((step.to.clone(), step.from.clone())),
        }
    }
    pairs.retain(|(from, to)| from != to);
    pairs
}

/// The notes an undo reads: those the chosen change wrote or created, where they are now, and
/// those whose links its moves back may change.
pub fn notes_needed(vault: &Vault, arguments: &UndoArguments, changes: &[KeptChange]) -> Vec<String> {
    let Ok(kept) = chosen(changes, &[], arguments) else { return Vec::new() };
    let mut needed: Vec<String> = kept
        .journal
        .writes
        .iter()
        .filter_map(|write| vault.find_text_file(&now_at(&kept.journal, &write.path)).map(str::to_owned))
        .collect();
    needed.extend(crate::rename::notes_to_read_for_moves_as_given(vault, &moves_back(&kept.journal)));
    needed.sort();
    needed.dedup();
    needed
}

/// `undo_change`: the undo of a kept change, proven from the vault as it is now; approved, the
/// batch that carries it out.
pub fn undo_change(
    vault: &Vault,
    arguments: &UndoArguments,
    edge: &mut dyn Edge,
    plans: &mut PlanHistory,
) -> Result<(UndoAnswer, Option<Change>), CallError> {
    let changes = edge.changes();
    let kept = chosen(&changes, &edge.unopened_changes(), arguments).map_err(|error| CallError::of(&error))?;
    let journal = &kept.journal;
    let mut edited = Vec::new();
    let mut batch = Batch {
        tool: "undo_change".to_owned(),
        writes: Vec::new(),
        moves: Vec::new(),
        creates: Vec::new(),
        removes: Vec::new(),
        change_id: String::new(),
        forget: Some(kept.name.clone()),
        folders: Vec::new(),
        emptied_folders: Vec::new(),
    };
    let mut answer = UndoAnswer {
        dry_run: true,
        applied: false,
        plan_hash: String::new(),
        change_id: journal.change_id.clone(),
        tool: journal.tool.clone(),
        restored: Vec::new(),
        moved_back: Vec::new(),
        removed: Vec::new(),
        relinked: Vec::new(),
        backlinks: Vec::new(),
        links_left_in_sources: Vec::new(),
        kept_changes: changes.len(),
        counts: UndoCounts::default(),
        next_cursor: None,
    };
    let tag = edge.tag();
    for write in &journal.writes {
        let path = now_at(journal, &write.path);
        let current = match vault.find_text_file(&path).filter(|found| *found == path) {
            Some(found) => edge.text(found).ok(),
            None => None,
        };
        match (write.kind, current) {
            // A removed note (a delete) is written back from its text in the journal, whatever
            // trash it went to, if its place is free; a note with that very text there already
            // (put back by hand, or a delete that never reached the trash) needs nothing.
            (WriteKind::Remove, Some(text)) if content_hash(&text) == content_hash(&write.before) => {}
            (WriteKind::Remove, _) if vault.find_file(&path).is_some() => {
                edited.push(format!("`{path}` (a file is at its place again)"));
            }
            (WriteKind::Remove, _) => {
                crate::batch::add_parent_folders(&mut batch.folders, &path);
                batch.creates.push(BatchCreate {
                    after_hash: content_hash(&write.before),
                    text: write.before.clone(),
                    temporary: temporary_name(&path, tag, "tmp"),
                    path: path.clone(),
                });
                answer.restored.push(path);
            }
            (kind, Some(text)) if content_hash(&text) == write.after_hash => {
                if kind == WriteKind::Create {
                    batch.removes.push(BatchRemove { path: path.clone(), before_hash: content_hash(&text), before: text });
                    answer.removed.push(path);
                } else {
                    batch.writes.push(BatchWrite {
                        path: path.clone(),
                        before_hash: content_hash(&text),
                        before: text,
                        after_hash: content_hash(&write.before),
                        text: write.before.clone(),
                        temporary: temporary_name(&path, tag, "tmp"),
                        edits: Vec::new(),
                    });
                    answer.restored.push(write.path.clone());
                }
            }
            _ => edited.push(format!("`{path}`")),
        }
    }
    // The moves back, newest first: each file from where it went to where it was.
    let mut left_before: HashSet<String> = HashSet::new();
    // Where earlier moves back put a file: a cycle's third name, there once they have run.
    let mut arriving: HashSet<String> = HashSet::new();
    for step in journal.moves.iter().rev() {
        if !arriving.contains(&fold(&step.to)) && vault.find_file(&step.to) != Some(step.to.as_str()) {
            edited.push(format!("`{}` (moved or removed since)", step.to));
            continue;
        }
        let vacated = left_before.contains(&fold(&step.from));
        if !vacated && vault.find_file(&step.from).is_some_and(|there| fold(there) != fold(&step.to)) {
            edited.push(format!("`{}` (a file is at its old place again)", step.from));
            continue;
        }
        left_before.insert(fold(&step.to));
        arriving.insert(fold(&step.from));
        crate::batch::add_parent_folders(&mut batch.folders, &step.from);
        batch.moves.push(BatchMove {
            from: step.to.clone(),
            to: step.from.clone(),
            via: step.via.as_ref().map(|_| temporary_name(&step.to, tag, "case")),
            vacated,
            // Moved back, a file of a cycle holds what the change left in it.
            hash: step.hash.as_ref().map(|_| moved_back_hash(journal, &step.to)),
        });
        answer.moved_back.push(MovedBack { from: step.to.clone(), to: step.from.clone() });
    }
    if !edited.is_empty() {
        return Err(CallError::of(&UndoError::Edited { change_id: journal.change_id.clone(), notes: edited }));
    }
    batch.folders.sort_by_key(|folder| folder.matches('/').count());
    batch.emptied_folders = journal.made_folders.iter().rev().cloned().collect();

    // What the undo writes whole (pre-images) or removes; a link in any other note that a move
    // back would break is rewritten to follow its file, as a move rewrites it.
    let written: HashSet<String> =
        batch.writes.iter().map(|write| write.path.clone()).chain(batch.removes.iter().map(|remove| remove.path.clone())).collect();
    let pairs = moves_back(journal);
    if !pairs.is_empty() {
        let mut texts = std::collections::BTreeMap::new();
        for path in crate::rename::notes_to_read_for_moves_as_given(vault, &pairs) {
            let text = edge.text(&path)?;
            texts.insert(path, text);
        }
        let mut plan = crate::rename::plan_moves_as_given(vault, pairs, &texts).map_err(|error| CallError::of(&error))?;
        // A source's links are left as a move leaves them, and listed.
        answer.links_left_in_sources = crate::sources::leave_sources(vault, &mut plan);
        for file in plan.edits.into_iter().filter(|file| !written.contains(&file.path)) {
            let before = texts.remove(&file.path).expect("a planned note was read");
            let text = crate::plan::apply_edits(&before, &file.edits);
            batch.writes.push(BatchWrite {
                edits: file.edits,
                temporary: temporary_name(&file.path, tag, "tmp"),
                before_hash: file.content_hash,
                after_hash: content_hash(&text),
                before,
                text,
                path: file.path.clone(),
            });
            answer.relinked.push(file.path);
        }
    }
    // The links to a page the undo removes, from notes that keep them (a note the undo gives
    // its text back holds the links it had before the change).
    for remove in &batch.removes {
        answer.backlinks.extend(crate::delete::referrers(vault, &remove.path).into_iter().filter(|link| !written.contains(&link.note)));
    }

    // Nothing the undo writes lies in a read-only source folder: a change made before its folder
    // was declared one is refused rather than undone into the source.
    crate::sources::check_batch(vault, "undo_change", &batch).map_err(|error| CallError::of(&error))?;

    let mut hash = crate::plan::PlanHash::new();
    // The change by its id (the file name holds when each edge kept it, which differs).
    hash.record(&[b"undo_change", journal.change_id.as_bytes()]);
    for write in &batch.writes {
        hash.record(&[b"w", write.path.as_bytes(), write.before_hash.as_bytes(), write.after_hash.as_bytes()]);
    }
    for remove in &batch.removes {
        hash.record(&[b"r", remove.path.as_bytes(), remove.before_hash.as_bytes()]);
    }
    for create in &batch.creates {
        hash.record(&[b"c", create.path.as_bytes(), create.after_hash.as_bytes()]);
    }
    for step in &batch.moves {
        hash.record(&[b"m", step.from.as_bytes(), step.to.as_bytes()]);
    }
    for link in &answer.backlinks {
        hash.record(&[b"b", link.note.as_bytes(), link.line.to_string().as_bytes(), link.link.as_bytes()]);
    }
    for link in &answer.links_left_in_sources {
        hash.record(&[b"s", link.note.as_bytes(), link.line.to_string().as_bytes(), link.link.as_bytes()]);
    }
    answer.plan_hash = undo_plan_hash(&journal.change_id, &hash.finish());
    let approval = arguments.approval();
    let apply = crate::tail::decide(&answer.plan_hash, &approval, None, plans)?;
    if !apply {
        plans.record_preview(&answer.plan_hash);
        let answer = answer.paged(arguments.limit, arguments.cursor.as_deref()).map_err(|error| CallError::of(&error))?;
        return Ok((answer, None));
    }
    if arguments.cursor.is_some() {
        return Err(CallError::of(&crate::answer::OpError::InvalidArguments {
            detail: "`cursor` pages a preview; leave it out to apply the undo".to_owned(),
        }));
    }
    if !answer.backlinks.is_empty() && !arguments.force {
        let referrers = answer.backlinks.iter().map(|link| format!("`{}` line {} ({})", link.note, link.line, link.link)).collect();
        return Err(CallError::of(&UndoError::Linked { change_id: journal.change_id.clone(), referrers }));
    }
    answer.dry_run = false;
    answer.applied = true;
    let mut answer = answer.paged(arguments.limit, None).map_err(|error| CallError::of(&error))?;
    // The receipt's lists are the preview's first page; the rest cannot be asked for again.
    answer.next_cursor = None;
    let plan_hash = answer.plan_hash.clone();
    Ok((answer, Some(Change::Batch { batch, plan_hash })))
}

/// An undo's plan hash: the id of the change it undoes, then the rest of the hash of its plan.
/// The plan names its change as every other plan names the change it makes, so a retried undo,
/// once made, is known by the change set aside ([`undone_record`]) even after a restart.
fn undo_plan_hash(change_id: &str, digest: &str) -> String {
    let is_id = change_id.len() == 16 && change_id.bytes().all(|byte| byte.is_ascii_hexdigit());
    match digest.get(16..) {
        Some(rest) if is_id => format!("{change_id}{rest}"),
        _ => digest.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edge::ReadBefore;
    use crate::index::IndexConfig;
    use crate::ops::call;
    use serde_json::json;
    use std::collections::BTreeMap;

    /// Carries out `batch` on `files` as an edge would, in its order.
    fn carry_out(files: &mut BTreeMap<String, String>, batch: &Batch) {
        for write in &batch.writes {
            assert_eq!(files.get(&write.path), Some(&write.before), "{} holds what the batch expects", write.path);
            files.insert(write.path.clone(), write.text.clone());
        }
        for create in &batch.creates {
            assert!(files.insert(create.path.clone(), create.text.clone()).is_none());
        }
        for step in &batch.moves {
            let text = files.remove(&step.from).unwrap_or_else(|| panic!("{} is there", step.from));
            files.insert(step.to.clone(), text);
        }
        for remove in &batch.removes {
            assert_eq!(files.remove(&remove.path).as_ref(), Some(&remove.before));
        }
    }

    fn state(files: &BTreeMap<String, String>) -> (Vault, ReadBefore) {
        let mut vault = Vault::new(IndexConfig::obsidian_defaults());
        let mut edge = ReadBefore { tag: 3, ..ReadBefore::default() };
        for (path, text) in files {
            vault.upsert(path, text);
            edge.texts.insert(path.clone(), text.clone());
        }
        (vault, edge)
    }

    /// Applies one call as an edge would, keeping its change; returns the call's answer.
    fn apply(
        files: &mut BTreeMap<String, String>,
        kept: &mut Vec<KeptChange>,
        tool: &str,
        arguments: serde_json::Value,
    ) -> serde_json::Value {
        let (vault, mut edge) = state(files);
        edge.changes = kept.clone();
        let mut plans = PlanHistory::default();
        let outcome = call(&vault, tool, &arguments, &mut edge, &mut plans).unwrap_or_else(|error| panic!("{}", error.message));
        let batch = match outcome.change {
            Some(Change::Batch { batch, .. }) => {
                carry_out(files, &batch);
                batch
            }
            // A delete: the note goes (to a trash this test does not model); its change is kept.
            Some(Change::Trash { path, before, keep }) => {
                assert_eq!(files.remove(&path), Some(before));
                keep
            }
            None => panic!("{tool} applies a change"),
        };
        if let Some(forget) = &batch.forget {
            kept.retain(|change| &change.name != forget);
        }
        if !batch.change_id.is_empty() {
            let journal = batch.journal(Vec::new(), 1, 1, "here");
            kept.push(KeptChange { name: record_name(kept.len() as u64 + 1, &batch.change_id), journal });
        }
        serde_json::to_value(&outcome.answer).unwrap_or_default()
    }

    #[test]
    fn a_move_a_commit_and_a_property_edit_undo_one_after_the_other_back_to_the_start() {
        let start: BTreeMap<String, String> = [("A.md", "[[Old]] and [b](Old.md)\n"), ("Old.md", "---\nx: 1\n---\n# Old\n")]
            .into_iter()
            .map(|(path, text)| (path.to_owned(), text.to_owned()))
            .collect();
        let mut files = start.clone();
        let mut kept = Vec::new();
        apply(&mut files, &mut kept, "move_note", json!({"from": "Old", "to": "deep/New", "dry_run": false}));
        let after_move = files.clone();
        apply(
            &mut files,
            &mut kept,
            "commit_wiki_page",
            json!({"page": {"path": "Page", "body": "[[New]]\n"}, "patches": [{"path": "A", "kind": "link"}], "dry_run": false}),
        );
        let after_commit = files.clone();
        apply(&mut files, &mut kept, "update_properties", json!({"path": "deep/New", "set": {"x": 2}, "dry_run": false}));
        assert_eq!(kept.len(), 3);

        for (expected, tool) in [(&after_commit, "update_properties"), (&after_move, "commit_wiki_page"), (&start, "move_note")] {
            let answer = apply(&mut files, &mut kept, "undo_change", json!({"dry_run": false}));
            assert_eq!(answer["tool"], tool);
            assert_eq!(&files, expected, "undoing {tool}");
        }
        assert!(kept.is_empty());
        let (vault, mut edge) = state(&files);
        let nothing = call(&vault, "undo_change", &json!({}), &mut edge, &mut PlanHistory::default()).unwrap_err();
        assert_eq!(nothing.code, ErrorCode::NothingToUndo);
    }

    #[test]
    fn a_swap_undoes_back_to_the_start() {
        let start: BTreeMap<String, String> = [("A.md", "[[B]]\n"), ("B.md", "[[A]]\n"), ("C.md", "[[A]] [[B]]\n")]
            .into_iter()
            .map(|(path, text)| (path.to_owned(), text.to_owned()))
            .collect();
        let mut files = start.clone();
        let mut kept = Vec::new();
        apply(
            &mut files,
            &mut kept,
            "bulk_move_notes",
            json!({"moves": [{"from": "A", "to": "B"}, {"from": "B", "to": "A"}], "dry_run": false}),
        );
        assert_eq!(files.get("C.md").map(String::as_str), Some("[[B]] [[A]]\n"), "C's links follow the swap");
        assert_eq!(files.get("A.md").map(String::as_str), Some("[[B]]\n"), "B's text, now at A, links A's text, now at B");
        apply(&mut files, &mut kept, "undo_change", json!({"dry_run": false}));
        assert_eq!(files, start);
    }

    #[test]
    fn a_retried_undo_is_known_by_the_change_it_set_aside_also_without_the_plans_answered() {
        let mut files = files_of(&[("A.md", "# A\n"), ("Gone.md", "# Gone\n")]);
        let mut kept = Vec::new();
        let deleted = apply(&mut files, &mut kept, "delete_note", json!({"path": "Gone", "confirm": true}));
        let (vault, mut edge) = state(&files);
        edge.changes = kept.clone();
        let preview = call(&vault, "undo_change", &json!({}), &mut edge, &mut PlanHistory::default()).unwrap();
        let plan_hash = serde_json::to_value(&preview.answer).unwrap_or_default()["plan_hash"].as_str().unwrap_or_default().to_owned();
        assert!(plan_hash.starts_with(deleted["change_id"].as_str().unwrap_or("?")), "{plan_hash} names the change it undoes");
        let undo = json!({"approved_plan_hash": plan_hash});
        apply(&mut files, &mut kept, "undo_change", undo.clone());
        // As after a restart: no plans answered, the delete's change set aside by the undo.
        let (vault, mut edge) = state(&files);
        let set_aside =
            KeptChange { name: set_aside_name(&record_name(1, deleted["change_id"].as_str().unwrap_or("?"))), ..kept_delete(&deleted) };
        edge.undone = vec![set_aside];
        let retried = call(&vault, "undo_change", &undo, &mut edge, &mut PlanHistory::default()).unwrap_err();
        assert_eq!(retried.code, ErrorCode::AlreadyApplied);
        assert!(retried.message.contains(&format!("`{}`", deleted["change_id"].as_str().unwrap_or("?"))), "{}", retried.message);
        // Without the record, the same retry is the refusal it meets.
        edge.undone.clear();
        let refused = call(&vault, "undo_change", &undo, &mut edge, &mut PlanHistory::default()).unwrap_err();
        assert_eq!(refused.code, ErrorCode::NothingToUndo);
        assert_eq!(undone_record(&set_aside_name(&record_name(1, "ab12"))), Some(record_name(1, "ab12").as_str()));
        assert_eq!(undone_record(&record_name(1, "ab12")), None);
    }

    /// The kept change of a delete of `Gone.md` holding `# Gone\n`, as `apply` keeps it.
    fn kept_delete(deleted: &serde_json::Value) -> KeptChange {
        let id = deleted["change_id"].as_str().unwrap_or("?");
        let batch = crate::batch::delete_batch("Gone.md", "# Gone\n", &format!("{id}{}", "0".repeat(48)));
        KeptChange { name: record_name(1, id), journal: batch.journal(Vec::new(), 1, 1, "here") }
    }

    #[test]
    fn an_undo_is_refused_after_a_later_edit_and_names_the_note() {
        let mut files: BTreeMap<String, String> =
            [("A.md", "[[Old]]\n"), ("Old.md", "# Old\n")].into_iter().map(|(path, text)| (path.to_owned(), text.to_owned())).collect();
        let mut kept = Vec::new();
        let moved = apply(&mut files, &mut kept, "move_note", json!({"from": "Old", "to": "New", "dry_run": false}));
        files.insert("A.md".to_owned(), "[[New]] edited\n".to_owned());
        let (vault, mut edge) = state(&files);
        edge.changes = kept.clone();
        let id = moved["plan_hash"].as_str().map(change_id).unwrap_or_default();
        let refused = call(&vault, "undo_change", &json!({"change_id": id}), &mut edge, &mut PlanHistory::default()).unwrap_err();
        assert_eq!(refused.code, ErrorCode::UndoRefused);
        assert!(refused.message.contains("`A.md`"), "{}", refused.message);
    }

    fn files_of(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(path, text)| ((*path).to_owned(), (*text).to_owned())).collect()
    }

    /// Reported in issue 34: after `A.md -> Sub/Renamed.md`, a new note `D.md` said
    /// `[[Renamed]]`, and undoing the move left its link broken. The moves back are planned as
    /// moves: D's link follows A back.
    #[test]
    fn an_undo_rewrites_the_links_made_since_to_a_file_it_moves_back() {
        let start = files_of(&[("A.md", "# A\n"), ("B.md", "[[A]] and [a](A.md)\n")]);
        let mut files = start.clone();
        let mut kept = Vec::new();
        apply(&mut files, &mut kept, "move_note", json!({"from": "A.md", "to": "Sub/Renamed.md", "dry_run": false}));
        // Obsidian writes a bare markdown link to a unique name bare under "shortest", as a wikilink.
        assert_eq!(files["B.md"], "[[Renamed]] and [a](Renamed.md)\n");
        files.insert("D.md".to_owned(), "See [[Renamed]] and ![[Sub/Renamed#A]].\n".to_owned());
        let answer = apply(&mut files, &mut kept, "undo_change", json!({"dry_run": false}));
        assert_eq!(answer["relinked"], json!(["D.md"]), "{answer}");
        assert_eq!(answer["restored"], json!(["B.md"]), "{answer}");
        let mut expected = start.clone();
        expected.insert("D.md".to_owned(), "See [[A]] and ![[A#A]].\n".to_owned());
        assert_eq!(files, expected);
    }

    /// Issue 37: no tool writes in a read-only source folder, `undo_change` included. A change
    /// made in a folder before a SCHEMA.md declared it a source is refused, nothing changed (the
    /// hint says how to undo it anyway); a move undone leaves the links a source gained since.
    #[test]
    fn an_undo_writes_nothing_in_a_source_folder() {
        let schema = "---\ntypes:\n  concept: {required: [type]}\nsource_folders: [raw]\n---\n";
        let mut files = files_of(&[("raw/Clip.md", "---\nurl: x\n---\nclipped\n"), ("Topic.md", "# Topic\n")]);
        let mut kept = Vec::new();
        apply(&mut files, &mut kept, "update_properties", json!({"path": "raw/Clip.md", "set": {"seen": true}, "dry_run": false}));
        files.insert("SCHEMA.md".to_owned(), schema.to_owned());
        let before = files.clone();
        let (vault, mut edge) = state(&files);
        edge.changes = kept.clone();
        let refused = call(&vault, "undo_change", &json!({}), &mut edge, &mut PlanHistory::default()).unwrap_err();
        assert_eq!(refused.code, ErrorCode::ReadOnlySource, "{}", refused.message);
        assert!(refused.message.contains("edit `raw/Clip.md`"), "{}", refused.message);
        assert!(refused.hint.contains("take the folder out of `source_folders`"), "{}", refused.hint);
        assert_eq!(files, before);

        // A page moved, then a clip linking its new name captured: the undo moves the page back
        // and leaves the clip's link as captured, saying so.
        let mut files = files_of(&[("SCHEMA.md", schema), ("Topic.md", "# Topic\n"), ("Notes.md", "[[Topic]]\n")]);
        let mut kept = Vec::new();
        apply(&mut files, &mut kept, "move_note", json!({"from": "Topic.md", "to": "Subject.md", "dry_run": false}));
        files.insert("raw/Clip.md".to_owned(), "On [[Subject]].\n".to_owned());
        let answer = apply(&mut files, &mut kept, "undo_change", json!({"dry_run": false}));
        assert_eq!(
            answer["links_left_in_sources"],
            json!([{"note": "raw/Clip.md", "line": 1, "link": "[[Subject]]", "would_be": "[[Topic]]"}])
        );
        assert_eq!(files["raw/Clip.md"], "On [[Subject]].\n");
        assert_eq!(files["Notes.md"], "[[Topic]]\n");
        assert!(files.contains_key("Topic.md"));
    }

    /// Reported in issue 34: the undo of a created page removed it while notes made since
    /// linked it. It is refused unless `force`, and the preview lists the links, as
    /// `delete_note`'s does.
    #[test]
    fn the_undo_of_a_page_linked_since_lists_its_referrers_and_needs_force() {
        let mut files = files_of(&[("A.md", "# A\n")]);
        let mut kept = Vec::new();
        apply(
            &mut files,
            &mut kept,
            "commit_wiki_page",
            json!({"page": {"path": "Page", "body": "text\n"}, "patches": [{"path": "A", "kind": "link"}], "dry_run": false}),
        );
        files.insert("E.md".to_owned(), "About [[Page|the page]].\n".to_owned());
        let (vault, mut edge) = state(&files);
        edge.changes = kept.clone();
        let preview = call(&vault, "undo_change", &json!({}), &mut edge, &mut PlanHistory::default()).expect("a preview");
        let preview = serde_json::to_value(&preview.answer).unwrap();
        let referrers: Vec<&str> = preview["backlinks"].as_array().unwrap().iter().map(|link| link["note"].as_str().unwrap()).collect();
        assert_eq!(referrers, ["E.md"], "A's link is taken back with A's text: {preview}");
        let refused = call(&vault, "undo_change", &json!({"dry_run": false}), &mut edge, &mut PlanHistory::default()).unwrap_err();
        assert_eq!(refused.code, ErrorCode::UndoRefused);
        assert!(refused.message.contains("`E.md` line 1 ([[Page|the page]])"), "{}", refused.message);
        assert!(refused.hint.contains("force"), "{}", refused.hint);
        let answer = apply(&mut files, &mut kept, "undo_change", json!({"dry_run": false, "force": true}));
        assert_eq!(answer["removed"], json!(["Page.md"]), "{answer}");
        assert_eq!(files, files_of(&[("A.md", "# A\n"), ("E.md", "About [[Page|the page]].\n")]));
    }

    /// Issue 36: a delete was not kept, so `undo_change` right after it undid the change before
    /// it. It is kept: the undo writes the note back byte for byte, and only then does the next
    /// undo reach the change before.
    #[test]
    fn a_delete_is_kept_and_its_undo_writes_the_note_back_before_any_older_change() {
        let start = files_of(&[("A.md", "# A\n"), ("Gone.md", "---\nup: x\n---\r\nbody \u{feff}\n")]);
        let mut files = start.clone();
        let mut kept = Vec::new();
        apply(&mut files, &mut kept, "update_properties", json!({"path": "A", "set": {"x": 1}, "dry_run": false}));
        let after_edit = files.clone();
        let deleted = apply(&mut files, &mut kept, "delete_note", json!({"path": "Gone", "confirm": true}));
        assert!(!files.contains_key("Gone.md") && kept.len() == 2);
        let undone = apply(&mut files, &mut kept, "undo_change", json!({"dry_run": false}));
        assert_eq!((undone["tool"].as_str(), &undone["change_id"]), (Some("delete_note"), &deleted["change_id"]), "{undone}");
        assert_eq!(undone["restored"], json!(["Gone.md"]));
        assert_eq!(files, after_edit, "the note is back byte for byte, the edit before it stands");
        apply(&mut files, &mut kept, "undo_change", json!({"dry_run": false}));
        assert_eq!(files, start);
    }

    #[test]
    fn the_undo_of_a_delete_is_refused_naming_the_path_when_a_file_took_it() {
        let mut files = files_of(&[("Gone.md", "old\n")]);
        let mut kept = Vec::new();
        apply(&mut files, &mut kept, "delete_note", json!({"path": "Gone", "confirm": true}));
        files.insert("gone.md".to_owned(), "a new note\n".to_owned());
        let (vault, mut edge) = state(&files);
        edge.changes = kept.clone();
        let refused = call(&vault, "undo_change", &json!({"dry_run": false}), &mut edge, &mut PlanHistory::default()).unwrap_err();
        assert_eq!(refused.code, ErrorCode::UndoRefused);
        assert!(refused.message.contains("`Gone.md` (a file is at its place again)"), "{}", refused.message);
        // The same text put back by hand: nothing to write, and the kept change goes.
        let mut files = files_of(&[("Gone.md", "old\n")]);
        let answer = apply(&mut files, &mut kept, "undo_change", json!({"dry_run": false}));
        assert_eq!(answer["restored"], json!([]), "{answer}");
        assert!(kept.is_empty());
    }

    /// Issue 36: the kept changes, as an agent in a new session sees them before choosing what to
    /// undo: newest first, what each touched, and whether (and why not) it can be undone now.
    #[test]
    fn list_changes_says_what_each_kept_change_touched_and_whether_it_can_be_undone() {
        let mut files = files_of(&[("A.md", "[[Old]]\n"), ("Old.md", "# Old\n"), ("Gone.md", "bye\n")]);
        let mut kept = Vec::new();
        let moved = apply(&mut files, &mut kept, "move_note", json!({"from": "Old", "to": "New", "dry_run": false}));
        let deleted = apply(&mut files, &mut kept, "delete_note", json!({"path": "Gone", "confirm": true}));
        files.insert("A.md".to_owned(), "[[New]] edited\n".to_owned());
        let list = |files: &BTreeMap<String, String>, kept: &[KeptChange], arguments: serde_json::Value| {
            let (vault, mut edge) = state(files);
            edge.changes = kept.to_vec();
            let request = crate::ops::request("list_changes", &arguments).map_err(|error| error.code)?;
            // What an edge reading first reads is what the listing plans from.
            let needed = crate::ops::notes_needed(&vault, &request, kept);
            edge.texts.retain(|path, _| needed.contains(path));
            crate::ops::run(&vault, &request, &mut edge, &mut PlanHistory::default())
                .map(|outcome| serde_json::to_value(&outcome.answer).unwrap())
                .map_err(|error| error.code)
        };
        let answer = list(&files, &kept, json!({})).unwrap();
        assert_eq!(answer["total"], 2);
        let changes = answer["changes"].as_array().unwrap();
        assert_eq!(changes[0]["change_id"], deleted["change_id"]);
        assert_eq!(
            (changes[0]["tool"].as_str(), changes[0]["undoable"].as_bool(), changes[0]["latest"].as_bool()),
            (Some("delete_note"), Some(true), Some(true))
        );
        assert_eq!(changes[0]["arguments"], json!({"path": "Gone.md"}));
        assert_eq!(changes[0]["touched"]["removed"], 1);
        assert_eq!(changes[1]["change_id"], moved["change_id"]);
        assert_eq!(changes[1]["touched"]["paths"], json!(["A.md", "Old.md"]), "{answer}");
        assert_eq!(changes[1]["undoable"], false);
        assert!(changes[1]["why_not"].as_str().unwrap().contains("`A.md` changed since it was applied"), "{answer}");
        assert!(changes[1].get("latest").is_none());

        let first = list(&files, &kept, json!({"limit": 1})).unwrap();
        assert_eq!(first["changes"].as_array().map(Vec::len), Some(1));
        let cursor = first["next_cursor"].as_str().unwrap().to_owned();
        let second = list(&files, &kept, json!({"limit": 1, "cursor": cursor})).unwrap();
        assert_eq!(second["changes"][0]["change_id"], moved["change_id"]);
        assert!(second.get("next_cursor").is_none());
        // A change kept between pages: the cursor is refused, never a page that skips one.
        apply(&mut files, &mut kept, "update_properties", json!({"path": "A", "set": {"x": 1}, "dry_run": false}));
        assert_eq!(list(&files, &kept, json!({"limit": 1, "cursor": cursor})), Err(ErrorCode::InvalidArguments));
        assert_eq!(list(&files, &[], json!({})).unwrap(), json!({"total": 0, "changes": []}));
    }

    /// Issue 36: `undo_change` without an id never reaches past a newer kept change it cannot
    /// undo (here, a file no seal opens) to revert an older one; it names what stands in the way,
    /// and list_changes lists it so.
    #[test]
    fn an_undo_without_an_id_never_reaches_past_a_newer_change_it_cannot_open() {
        let mut files = files_of(&[("A.md", "# A\n")]);
        let mut kept = Vec::new();
        let edited = apply(&mut files, &mut kept, "update_properties", json!({"path": "A", "set": {"x": 1}, "dry_run": false}));
        let (vault, mut edge) = state(&files);
        edge.changes = kept.clone();
        let name = record_name(99, "abcdef");
        edge.unopened = vec![UnopenedChange { name: name.clone(), why: "it is not sealed with this user's key".to_owned() }];
        let refused = call(&vault, "undo_change", &json!({}), &mut edge, &mut PlanHistory::default()).unwrap_err();
        assert_eq!(refused.code, ErrorCode::UndoRefused);
        assert!(refused.message.contains(&format!("`{name}`")) && refused.message.contains("never reaches past it"), "{}", refused.message);
        assert!(refused.hint.contains("list_changes"), "{}", refused.hint);
        // Named by its id, the older change is undone.
        let by_id = call(&vault, "undo_change", &json!({"change_id": edited["change_id"]}), &mut edge, &mut PlanHistory::default());
        assert!(by_id.is_ok(), "{by_id:?}");
        let listed = call(&vault, "list_changes", &json!({}), &mut edge, &mut PlanHistory::default()).unwrap();
        let listed = serde_json::to_value(&listed.answer).unwrap();
        assert_eq!(listed["total"], 2);
        assert_eq!((listed["changes"][0]["change_id"].as_str(), listed["changes"][0]["undoable"].as_bool()), (Some("abcdef"), Some(false)));
        assert!(listed["changes"][0]["why_not"].as_str().unwrap().contains("not sealed"), "{listed}");
        assert_eq!(listed["changes"][0]["applied_at"], "1970-01-01T00:00:00Z");
    }

    #[test]
    fn the_oldest_changes_are_forgotten_past_the_count_or_the_size() {
        let records: Vec<(String, u64)> = (0..25).map(|at| (record_name(at, "ab"), 10)).collect();
        let forgotten = to_forget(&records);
        assert_eq!(forgotten.len(), 5);
        assert!(forgotten.contains(&record_name(0, "ab")) && !forgotten.contains(&record_name(24, "ab")));
        let big = vec![(record_name(1, "a1"), KEPT_BYTES), (record_name(2, "a2"), KEPT_BYTES + 5)];
        assert_eq!(to_forget(&big), vec![record_name(1, "a1")], "the newest stays whatever its size");
        assert!(is_record_name(&record_name(7, "0f")) && !is_record_name(".vaultlink/changes/x.json"));
    }

    #[test]
    fn a_change_is_kept_after_the_newest_even_when_the_clock_went_back() {
        let existing = vec![record_name(50, "aa"), record_name(40, "bb")];
        assert_eq!(next_record_name(10, "cc", &existing), record_name(51, "cc"));
        assert_eq!(next_record_name(90, "cc", &existing), record_name(90, "cc"));
        assert_eq!(next_record_name(10, "cc", &[]), record_name(10, "cc"));
    }

    /// Issue 34: a journal whose change was made and kept, put back after a later change, is
    /// refused; the journal of the newest kept change (interrupted as it was committed) is not.
    #[test]
    fn a_journal_of_a_change_kept_before_the_newest_is_refused() {
        let journal = Journal {
            version: crate::journal::VERSION,
            pid: 1,
            holder: String::new(),
            tool: "move_note".to_owned(),
            started_unix_ms: 1,
            machine: String::new(),
            writes: Vec::new(),
            moves: Vec::new(),
            made_folders: Vec::new(),
            change_id: "ab".to_owned(),
            forget: None,
        };
        let names = |ids: &[&str]| -> Vec<String> { ids.iter().enumerate().map(|(at, id)| record_name(at as u64, id)).collect() };
        assert_eq!(check_not_kept(&journal, &names(&["ab", "cd"])), Err(Refusal::AlreadyKept { change_id: "ab".to_owned() }));
        assert_eq!(check_not_kept(&journal, &names(&["cd", "ab"])), Ok(()));
        assert_eq!(check_not_kept(&journal, &names(&["cd"])), Ok(()));
        let lock = Journal { change_id: String::new(), ..journal.clone() };
        assert_eq!(check_not_kept(&lock, &names(&["cd"])), Ok(()));
        let kept = vec![KeptChange { name: record_name(0, "ab"), journal: Journal { pid: 9, ..journal.clone() } }];
        assert_eq!(kept_of(&journal, &kept).map(|kept| kept.name.as_str()), Some(kept[0].name.as_str()));
        assert!(kept_of(&Journal { started_unix_ms: 2, ..journal }, &kept).is_none());
    }
}
