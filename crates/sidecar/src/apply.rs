//! Carries out on the vault folder the steps core decided for an approved change, all or
//! nothing; nothing here decides what to change.
//!
//! The journal (`journal`) records every pre-image, move and new folder before anything
//! changes. Each write goes to a temporary file in the same folder,
//! is synced, and is renamed over the original. Any failure undoes the batch from the journal;
//! a process killed part way leaves the journal, from which the next start undoes it.

use std::fs;
use std::path::Path;

use serde_json::Value;
use vaultlink_core::batch::Batch;
use vaultlink_core::error::ErrorCode;
use vaultlink_core::ops::{Change, Outcome};
use vaultlink_core::step::StepError;

use crate::disk::{exists_exactly, Disk};
use crate::error::ToolError;
use crate::journal::{self, Journal};
use crate::standalone::FolderIndex;

fn concurrent(path: &str) -> ToolError {
    StepError::Changed { path: path.to_owned() }.error().into()
}

fn write_failed(what: String) -> ToolError {
    StepError::Failed { what }.error().into()
}

/// The disk of a batch, counting the changes it made since the count was last set to 0: a note
/// or page whose steps made none left nothing for the undo to look for.
struct Counted<'a> {
    disk: &'a dyn Disk,
    made: std::cell::Cell<usize>,
}

impl Counted<'_> {
    fn made(&self, result: std::io::Result<()>) -> std::io::Result<()> {
        if result.is_ok() {
            self.made.set(self.made.get() + 1);
        }
        result
    }
}

impl Disk for Counted<'_> {
    fn write_new(&self, root: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
        self.made(self.disk.write_new(root, path, bytes))
    }
    fn rename(&self, root: &Path, from: &Path, to: &Path) -> std::io::Result<()> {
        self.made(self.disk.rename(root, from, to))
    }
    fn rename_new(&self, root: &Path, from: &Path, to: &Path) -> std::io::Result<()> {
        self.made(self.disk.rename_new(root, from, to))
    }
    fn remove_file(&self, root: &Path, path: &Path) -> std::io::Result<()> {
        self.made(self.disk.remove_file(root, path))
    }
    fn create_dir(&self, root: &Path, path: &Path) -> std::io::Result<()> {
        self.made(self.disk.create_dir(root, path))
    }
    fn remove_dir(&self, root: &Path, path: &Path) -> std::io::Result<()> {
        self.made(self.disk.remove_dir(root, path))
    }
    fn copy_attributes(&self, root: &Path, from: &Path, to: &Path) -> std::io::Result<()> {
        self.made(self.disk.copy_attributes(root, from, to))
    }
    fn sync_dir(&self, root: &Path, path: &Path) -> std::io::Result<()> {
        self.disk.sync_dir(root, path)
    }
}

/// A disk that makes a change only while the batch's lease holds (`crate::lease::Held::check`):
/// otherwise the change fails, and why is kept in `lost`.
struct Leased<'a> {
    disk: &'a dyn Disk,
    lease: &'a crate::lease::Held,
    lost: std::cell::Cell<Option<crate::lease::Lost>>,
}

impl Leased<'_> {
    fn check(&self) -> std::io::Result<()> {
        match self.lost.get().map_or_else(|| self.lease.check(), Err) {
            Ok(()) => Ok(()),
            Err(lost) => {
                self.lost.set(Some(lost));
                Err(std::io::Error::other("the change's lease on the vault was lost"))
            }
        }
    }
}

impl Disk for Leased<'_> {
    fn write_new(&self, root: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
        self.check()?;
        self.disk.write_new(root, path, bytes)
    }
    fn rename(&self, root: &Path, from: &Path, to: &Path) -> std::io::Result<()> {
        self.check()?;
        self.disk.rename(root, from, to)
    }
    fn rename_new(&self, root: &Path, from: &Path, to: &Path) -> std::io::Result<()> {
        self.check()?;
        self.disk.rename_new(root, from, to)
    }
    fn remove_file(&self, root: &Path, path: &Path) -> std::io::Result<()> {
        self.check()?;
        self.disk.remove_file(root, path)
    }
    fn create_dir(&self, root: &Path, path: &Path) -> std::io::Result<()> {
        self.check()?;
        self.disk.create_dir(root, path)
    }
    fn remove_dir(&self, root: &Path, path: &Path) -> std::io::Result<()> {
        self.check()?;
        self.disk.remove_dir(root, path)
    }
    fn copy_attributes(&self, root: &Path, from: &Path, to: &Path) -> std::io::Result<()> {
        self.disk.copy_attributes(root, from, to)
    }
    fn sync_dir(&self, root: &Path, path: &Path) -> std::io::Result<()> {
        self.disk.sync_dir(root, path)
    }
}

/// The words of a step that failed; a refusal because a folder on the way to `path` is a
/// symbolic link now is kept in `link`, for the answer (`StepError::ThroughLink`).
fn step_failed(what: String, path: &str, error: &std::io::Error, link: &mut Option<StepError>) -> String {
    if let Some(found) = crate::disk::link_on_the_way(error) {
        link.get_or_insert_with(|| StepError::ThroughLink { path: path.to_owned(), link: found.to_owned() });
    }
    format!("{what} failed: {error}")
}

/// A step refused because something is at `path` (`EEXIST`): no step replaces anything, so the
/// name is taken, which is not a matter of permissions or space.
fn taken(what: String, path: &str) -> ToolError {
    StepError::Taken { what, path: path.to_owned() }.error().into()
}

/// Keeps in `taken_name` the step that found its name taken (`EEXIST`), for the answer.
fn note_taken(taken_name: &mut Option<(String, String)>, what: &str, path: &str, error: &std::io::Error) {
    if error.kind() == std::io::ErrorKind::AlreadyExists {
        taken_name.get_or_insert_with(|| (format!("{what} failed"), path.to_owned()));
    }
}

/// An undo whose file to remove (one the change created) was saved over since: it is kept, and
/// the undo is refused as core words it.
fn undo_refused(batch: &Batch, path: &str) -> ToolError {
    StepError::UndoEdited { forget: batch.forget.clone(), path: path.to_owned() }.error().into()
}

/// What a note saved over after the batch wrote it becomes, before the rest of the batch is
/// undone: the save with the batch's rewrite put back, written in its place only while it still
/// holds the save (`crate::replace::replace_note`), when core finds the rewrite intact in it
/// (`step::saved_over`); else the save as it is, its rewritten links named. A file the batch
/// created keeps the save.
fn settle_saved_over(disk: &dyn Disk, root: &Path, batch: &Batch, path: &str) -> StepError {
    use vaultlink_core::step::{links_left, saved_over, SavedOver};
    let Some(write) = batch.writes.iter().find(|write| write.path == path) else {
        return StepError::CreatedSavedOver { path: path.to_owned() };
    };
    // Where the batch's moves took it; the undo moves it back.
    let now = batch.moves.iter().fold(path, |now, file_move| if file_move.from == now { file_move.to.as_str() } else { now });
    let read = || fs::read(root.join(now)).ok().and_then(|bytes| String::from_utf8(bytes).ok()).unwrap_or_default();
    let saved = read();
    let left = |now: &str| StepError::SavedOverLeft {
        path: path.to_owned(),
        links: links_left(path, &write.before, &write.text, now, &write.edits),
    };
    match saved_over(path, &write.before, &write.text, &saved, &write.edits) {
        SavedOver::PutBack { text } => {
            match crate::replace::replace_note(
                disk,
                root,
                now,
                &write.temporary,
                crate::replace::Expected::Bytes(saved.as_bytes()),
                text.as_bytes(),
            ) {
                Ok(crate::replace::Replaced::Yes) => StepError::SavedOverPutBack { path: path.to_owned() },
                // Saved again meanwhile, or the write failed: the note is as the other program
                // left it.
                _ => left(&read()),
            }
        }
        SavedOver::Leave { links } => StepError::SavedOverLeft { path: path.to_owned(), links },
    }
}

/// A change that was carried out whole, after which the folder could not be read again. It is
/// not `write_failed`, whose wording says everything was undone: here nothing was, and the agent
/// must not apply the change a second time.
fn unread_after(what: &str) -> ToolError {
    ToolError::new(
        ErrorCode::VaultUnreadable,
        what,
        "The change is made. Call a reading tool (it reads the folder again) to see the vault as it is now; do not apply the change again.",
        false,
    )
}

/// Carries out what a call on the folder answered: nothing for a read or a preview; for an
/// approved change, the steps core decided ([`apply_batch_on`], or the one move to the trash of a
/// delete), then the index is refreshed. Returns the answer, as it holds now.
/// `held`: the vault's lock, when the call took it before it planned (the batch's journal then
/// takes its place).
pub fn carry_out(
    disk: &dyn Disk,
    folder: &mut FolderIndex,
    mut outcome: Outcome,
    held: Option<&crate::lock::VaultLock>,
) -> Result<Value, ToolError> {
    match outcome.change.take() {
        None => {}
        Some(Change::Batch { batch, plan_hash }) => {
            apply_batch_holding(disk, folder.root(), &batch, held)?;
            folder.plans.record_applied(&plan_hash);
            // The change was kept for undo as part of its commit; forgetting the oldest past the
            // bounds, and the one an undo consumed, is tidying once the change is whole: a
            // failure there is logged, and the change stands.
            if !batch.change_id.is_empty() {
                if let Err(error) = crate::history::forget_oldest(disk, folder.root()) {
                    tracing::warn!("the oldest kept changes could not be forgotten: {error}");
                }
            }
            if let Some(name) = &batch.forget {
                if let Err(error) = crate::history::forget(disk, folder.root(), name) {
                    tracing::warn!("the undone change {name} could not be removed: {error}");
                }
            }
            folder.refresh().map_err(|error| {
                unread_after(&format!("the change was applied, but the vault folder could not be read again after it: {error:#}"))
            })?;
        }
        Some(Change::Trash { path, before, keep }) => {
            // Kept first, under the lock the call holds, so the delete is never made and lost to
            // undo; a move to the trash that fails takes the kept change back out.
            let root = folder.root();
            let journal = keep.journal(Vec::new(), std::process::id(), crate::lease::now_unix_ms(), &journal::machine());
            let name = crate::history::keep(disk, root, &journal)
                .map_err(|why| ToolError::from(StepError::TrashFailed { path: path.clone(), why }.error()))?;
            let place = match crate::trash::trash_on(disk, root, &path, &before) {
                Ok(place) => place,
                Err(error) => {
                    if let Err(forgetting) = crate::history::forget(disk, root, &name) {
                        tracing::warn!("the kept change {name} of a delete that failed could not be removed: {forgetting}");
                    }
                    return Err(error);
                }
            };
            if let Err(error) = crate::history::forget_oldest(disk, root) {
                tracing::warn!("the oldest kept changes could not be forgotten: {error}");
            }
            outcome.trashed_to(place);
            folder.refresh().map_err(|error| {
                unread_after(&format!("the note was moved to the trash, but the vault folder could not be read again after it: {error:#}"))
            })?;
        }
    }
    serde_json::to_value(outcome.answer).map_err(|error| ToolError::internal(&error.to_string()))
}

/// Checks the folder against `batch` (each move's source there and its destination free, each
/// create's place free, each removed file there, no symbolic link on the way, no file where a
/// folder must go); answers the folders the batch must make.
fn check_folder(root: &Path, batch: &Batch) -> Result<Vec<String>, ToolError> {
    // Core's list of what the batch touches: nothing of it may be reached through a link.
    for path in batch.paths_to_guard() {
        crate::disk::refuse_links_on_the_way(root, &path)?;
    }
    // The third names of a cycle's moves: put there by an earlier move of the batch.
    let mut arriving: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for file_move in &batch.moves {
        let (from, to) = (root.join(&file_move.from), root.join(&file_move.to));
        if arriving.contains(file_move.from.as_str()) {
            continue;
        }
        arriving.insert(&file_move.to);
        // On a case-insensitive filesystem `to` "exists" as `from` in a case-only move; only a
        // file spelt exactly `to`, or any other file there, is in the way.
        // A destination an earlier move of the batch leaves is taken now, and free in its turn.
        let taken = !file_move.vacated && (exists_exactly(&to) || (to.exists() && file_move.via.is_none()));
        if !exists_exactly(&from) || taken {
            return Err(concurrent(&file_move.from));
        }
    }
    for create in &batch.creates {
        if root.join(&create.path).exists() {
            return Err(concurrent(&create.path));
        }
    }
    for remove in &batch.removes {
        if !exists_exactly(&root.join(&remove.path)) {
            return Err(concurrent(&remove.path));
        }
    }
    for write in &batch.writes {
        refuse_hard_link(root, &write.path)?;
    }
    let mut made_folders = Vec::new();
    for folder in &batch.folders {
        let full = root.join(folder);
        if full.exists() && !full.is_dir() {
            return Err(taken(format!("creating {folder} failed"), folder));
        }
        if !full.exists() {
            made_folders.push(folder.clone());
        }
    }
    Ok(made_folders)
}

/// A note the batch rewrites must be its file's only name: its new text goes to a new file
/// renamed into place, which would leave the file's other names (hard links) with the old text.
/// Refused before any change (`unwritable_note`). Windows has hard links too, but the standard
/// library cannot count them there; this check is Unix only.
fn refuse_hard_link(root: &Path, path: &str) -> Result<(), ToolError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let Some(meta) = fs::symlink_metadata(root.join(path)).ok().filter(|meta| meta.is_file() && meta.nlink() > 1) {
            return Err(StepError::HardLinked { path: path.to_owned(), links: meta.nlink() }.error().into());
        }
    }
    #[cfg(not(unix))]
    let _ = (root, path);
    Ok(())
}

/// Carries out core's `batch` under `root` on `disk`, all or nothing. The batch was made from
/// the notes' texts as the call read them a moment ago, and each note is read once more just
/// before it is replaced. What else the
/// folder holds is checked before the first change (each move's source is there and its
/// destination free, no symbolic link on the way); the journal is written before the first
/// change; any failed step undoes the batch from the journal, the way recovery after a crash
/// does, so one path is tested by both.
#[cfg(test)]
pub fn apply_batch_on(disk: &dyn Disk, root: &Path, batch: &Batch) -> Result<Journal, ToolError> {
    apply_batch_holding(disk, root, batch, None)
}

/// [`apply_batch_on`], the vault's lock `held` by the call since before it planned (its journal
/// goes in the lock's place), or taken here when `None`.
pub fn apply_batch_holding(
    disk: &dyn Disk,
    root: &Path,
    batch: &Batch,
    held: Option<&crate::lock::VaultLock>,
) -> Result<Journal, ToolError> {
    let made_folders = check_folder(root, batch)?;
    let mut journal = batch.journal(made_folders, std::process::id(), crate::lease::now_unix_ms(), &journal::machine());
    journal.holder = held.map_or_else(crate::lease::new_holder, |held| held.held.holder.clone());
    let own;
    let lease = match held {
        Some(held) => {
            crate::lock::begin_holding(disk, root, held, &journal)?;
            &held.held
        }
        None => {
            own = crate::lock::begin(disk, root, &journal)?;
            &own
        }
    };
    // Every change from here goes through the lease: before each one, the journal must still be
    // this batch's and its lease never lapsed, or the batch stops.
    let (unleased, leased) = (disk, Leased { disk, lease, lost: std::cell::Cell::new(None) });
    let disk: &dyn Disk = &leased;
    // Checked again holding the lock: a batch of another process that held it a moment ago may
    // have made a folder, or moved a file, since the first look. Then nothing is changed.
    match check_folder(root, batch) {
        Ok(now) if now == journal.made_folders => {}
        checked => {
            let _ = journal::finish(disk, root, &journal);
            return Err(checked.err().unwrap_or_else(|| {
                let folder = journal.made_folders.iter().find(|folder| root.join(folder).exists()).cloned().unwrap_or_default();
                concurrent(&folder)
            }));
        }
    }
    // The notes written so far, and the one found edited under the batch, if any.
    let mut written = 0;
    let mut edited_meanwhile = None;
    let mut removed_meanwhile: Option<String> = None;
    // A note saved over after the batch wrote it, found by the last look before the commit.
    let mut saved_over: Option<String> = None;
    // A step refused because a folder on its way is a symbolic link now (swapped for one since
    // the checks), and from which note and page on the batch made nothing: the undo leaves those
    // out, since it cannot look behind the link for them and has nothing there to take back.
    let mut through_link: Option<StepError> = None;
    let (mut untouched_writes, mut untouched_creates) = (batch.writes.len(), batch.creates.len());
    let counted = Counted { disk, made: std::cell::Cell::new(0) };
    // The name a create or a move found taken (`EEXIST`), with the step that found it.
    let mut taken_name: Option<(String, String)> = None;
    let result = (|| {
        for (at, write) in batch.writes.iter().enumerate() {
            counted.made.set(0);
            // The note is moved aside and checked before the new text goes in with a rename that
            // never replaces: a save by anyone at any moment is kept, and the batch undone.
            let replaced = crate::replace::replace_note(
                &counted,
                root,
                &write.path,
                &write.temporary,
                crate::replace::Expected::Bytes(write.before.as_bytes()),
                write.text.as_bytes(),
            )
            .map_err(|error| {
                if crate::disk::link_on_the_way(&error).is_some() {
                    (untouched_writes, untouched_creates) = (at + usize::from(counted.made.get() > 0), 0);
                }
                step_failed(format!("writing {}", write.path), &write.path, &error, &mut through_link)
            })?;
            if replaced == crate::replace::Replaced::ChangedMeanwhile {
                edited_meanwhile = Some(write.path.clone());
                return Err(format!("`{}` changed while the batch was being written", write.path));
            }
            written += 1;
        }
        for folder in &journal.made_folders {
            disk.create_dir(root, &root.join(folder)).map_err(|error| {
                note_taken(&mut taken_name, &format!("creating {folder}"), folder, &error);
                step_failed(format!("creating {folder}"), folder, &error, &mut through_link)
            })?;
        }
        for (at, create) in batch.creates.iter().enumerate() {
            counted.made.set(0);
            crate::replace::create_file(
                &counted,
                root,
                &root.join(&create.path),
                &root.join(&create.temporary),
                create.text.as_bytes(),
                crate::replace::NewFile::LikeItsFolder,
            )
            .map_err(|error| {
                if crate::disk::link_on_the_way(&error).is_some() {
                    untouched_creates = at + usize::from(counted.made.get() > 0);
                }
                note_taken(&mut taken_name, &format!("creating {}", create.path), &create.path, &error);
                step_failed(format!("creating {}", create.path), &create.path, &error, &mut through_link)
            })?;
        }
        for file_move in &batch.moves {
            let (from, to) = (root.join(&file_move.from), root.join(&file_move.to));
            let moved = match &file_move.via {
                // Two renames: a case-insensitive filesystem may treat `a.md` -> `A.md` as
                // nothing to do, or refuse it.
                // Neither rename replaces anything: a file that appeared at the destination
                // since the check fails the step, and the batch is undone, the file kept.
                Some(via) => disk.rename_new(root, &from, &root.join(via)).and_then(|()| disk.rename_new(root, &root.join(via), &to)),
                None => disk.rename_new(root, &from, &to),
            };
            moved.map_err(|error| {
                note_taken(&mut taken_name, &format!("moving {}", file_move.from), &file_move.to, &error);
                step_failed(format!("moving {}", file_move.from), &file_move.to, &error, &mut through_link)
            })?;
        }
        for remove in &batch.removes {
            // Moved aside first (a rename that never replaces), then what was moved aside is
            // checked and removed only if it is what the change created: a save by path after
            // the move makes a new file, which stays; a save before it is put back.
            let kept = crate::replace::remove_if_holds(disk, root, &remove.path, remove.before.as_bytes())
                .map_err(|error| step_failed(format!("removing {}", remove.path), &remove.path, &error, &mut through_link))?;
            if !kept {
                removed_meanwhile = Some(remove.path.clone());
                return Err(format!("`{}` changed while the batch was being written", remove.path));
            }
        }
        // The last look before the commit: every note the batch wrote or created holds what it
        // wrote, where the moves took it, read as the steps reach it (no folder on the way a
        // link). One saved over since is someone's, and the batch is undone around it; one behind
        // a folder swapped for a link since its step is out of the vault's reach, and the batch
        // is undone.
        for (path, after_hash) in batch
            .writes
            .iter()
            .map(|write| (write.path.as_str(), write.after_hash.as_str()))
            .chain(batch.creates.iter().map(|create| (create.path.as_str(), create.after_hash.as_str())))
        {
            let now = batch.moves.iter().fold(path, |now, file_move| if file_move.from == now { file_move.to.as_str() } else { now });
            let read = crate::disk::read_beneath(root, &root.join(now));
            if let Err(error) = &read {
                if crate::disk::link_on_the_way(error).is_some() {
                    return Err(step_failed(format!("reading {now} again"), now, error, &mut through_link));
                }
            }
            let text = read.ok().and_then(|bytes| String::from_utf8(bytes).ok());
            if text.is_none_or(|text| vaultlink_core::plan::content_hash(&text) != after_hash) {
                saved_over = Some(path.to_owned());
                return Err(format!("`{path}` changed while the batch was being written"));
            }
        }
        // Kept for undo_change as part of the commit: on the disk before the journal goes, so a
        // stop at any step leaves the batch for recovery to undo (with what was kept) or made
        // and kept; and kept under the lock, so no undo can run between the commit and the keep.
        if !batch.change_id.is_empty() {
            crate::history::keep(disk, root, &journal)?;
        }
        // An undo sets aside the kept change it consumes, as part of its commit too: once the
        // undo is made no undo picks that change again, and recovery puts it back.
        if let Some(name) = &batch.forget {
            crate::history::set_aside(disk, root, name)?;
        }
        // The commit only while the journal is still this batch's and its lease held.
        leased.check().map_err(|error| format!("removing the journal failed: {error}"))?;
        journal::finish(disk, root, &journal).map_err(|error| format!("removing the journal failed: {error}"))
    })();
    if let Err(what) = result {
        let disk = unleased;
        match leased.lost.get() {
            // Another process took the journal over and undid the batch. A step this process was
            // suspended in the middle of may have been made after that undo: undone from the
            // batch's own journal in memory, from the state found (the journal file, now the other
            // process's, is left to it).
            Some(crate::lease::Lost::Taken) => {
                if let Err(undo) = journal::undo(disk, root, &journal) {
                    tracing::warn!("undoing what was made after another process recovered the change failed: {}", undo.message);
                }
                return Err(StepError::LeaseLost { taken: true }.error().into());
            }
            // The lease lapsed, the journal still this batch's: undone as a failed step is.
            Some(crate::lease::Lost::Lapsed) => {
                return Err(match journal::undo(disk, root, &journal) {
                    Ok(_) => StepError::LeaseLost { taken: false }.error().into(),
                    Err(undo) => {
                        journal::abandon(disk, root, &journal);
                        StepError::UndoIncomplete { what, left: undo.message }.error().into()
                    }
                })
            }
            None => {}
        }
        // A note saved over keeps the save; before the rest is undone (the journal still there),
        // the rewrite in it is put back where the save left it intact, as core decides.
        let settled = saved_over.as_deref().map(|saved| settle_saved_over(disk, root, batch, saved));
        let undone = match (&edited_meanwhile, &saved_over) {
            // Only what this batch wrote is undone: the edited note is the editor's.
            (Some(_), _) => journal::undo(disk, root, &Journal { writes: journal.writes[..written].to_vec(), ..journal.clone() }).map(Some),
            // A step refused for a link: the notes and pages the batch made nothing of are left
            // out; the rest is undone, and what the undo cannot look for behind the link keeps
            // the journal, for recovery once the folder is back.
            (None, None) if through_link.is_some() => {
                let untouched: std::collections::HashSet<&str> = batch.writes[untouched_writes..]
                    .iter()
                    .map(|write| write.path.as_str())
                    .chain(batch.creates[untouched_creates..].iter().map(|create| create.path.as_str()))
                    .collect();
                let writes = journal.writes.iter().filter(|write| !untouched.contains(write.path.as_str())).cloned().collect();
                journal::undo(disk, root, &Journal { writes, ..journal.clone() }).map(Some)
            }
            (None, Some(saved)) => {
                let writes = journal.writes.iter().filter(|write| write.path != *saved).cloned().collect();
                journal::undo(disk, root, &Journal { writes, ..journal.clone() }).map(Some)
            }
            // The whole batch, from the journal it wrote, as recovery after a crash undoes it.
            (None, None) => journal::undo(disk, root, &journal).map(Some),
        };
        return Err(match (undone, settled) {
            (Ok(_), Some(settled)) => settled.error().into(),
            (Ok(_), None) if edited_meanwhile.is_some() => concurrent(edited_meanwhile.as_deref().unwrap_or_default()),
            (Ok(_), None) if removed_meanwhile.is_some() => undo_refused(batch, removed_meanwhile.as_deref().unwrap_or_default()),
            (Ok(_), None) => match (through_link, taken_name) {
                (Some(refusal), _) => refusal.error().into(),
                (None, Some((step, path))) => taken(step, &path),
                (None, None) => write_failed(what),
            },
            (Err(undo), _) => {
                journal::abandon(disk, root, &journal);
                StepError::UndoIncomplete { what, left: undo.message }.error().into()
            }
        });
    }
    let disk = unleased;
    // Tidying: a folder that is not empty (something else was put in it) stays.
    for folder in &batch.emptied_folders {
        let _ = disk.remove_dir(root, &root.join(folder));
    }
    Ok(journal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::RealDisk;
    use crate::progress::Progress;
    use vaultlink_core::plan::{self, MovePlan};
    use vaultlink_core::rename;

    fn move_note(folder: &mut FolderIndex, arguments: &Value) -> Result<Value, ToolError> {
        crate::tools::run_on_folder_with(&RealDisk, folder, "move_note", arguments, &Progress::none())
    }

    fn delete_note(folder: &mut FolderIndex, arguments: &Value) -> Result<Value, ToolError> {
        delete_note_on(&RealDisk, folder, arguments)
    }

    fn delete_note_on(disk: &dyn Disk, folder: &mut FolderIndex, arguments: &Value) -> Result<Value, ToolError> {
        crate::tools::run_on_folder_with(disk, folder, "delete_note", arguments, &Progress::none())
    }

    /// Core's batch for `plan`, from the notes as they are on disk now, carried out on `disk`.
    fn apply_plan_on(disk: &dyn Disk, root: &Path, plan: &MovePlan, moved_folder: Option<&str>, tool: &str) -> Result<(), ToolError> {
        let mut texts = std::collections::BTreeMap::new();
        for file in &plan.edits {
            texts.insert(file.path.clone(), fs::read_to_string(root.join(&file.path)).unwrap_or_default());
        }
        let folders: Vec<String> = moved_folder.map(str::to_owned).into_iter().collect();
        let batch = vaultlink_core::batch::batch(plan, &texts, tool, &folders, std::process::id())
            .map_err(|error| ToolError::from(vaultlink_core::error::CallError::of(&error)))?;
        apply_batch_on(disk, root, &batch).map(|_| ())
    }
    use crate::disk::testing::{snapshot, Fault, FaultyDisk, Hooked};
    use serde_json::json;
    use std::path::PathBuf;

    fn vault(files: &[(&str, &str)]) -> (tempfile::TempDir, FolderIndex) {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let full = dir.path().join(path);
            fs::create_dir_all(full.parent().unwrap()).unwrap();
            fs::write(full, text).unwrap();
        }
        let mut index = FolderIndex::new(fs::canonicalize(dir.path()).unwrap());
        index.refresh().unwrap();
        (dir, index)
    }

    /// The folder is typed in another case than it has on disk: the move still removes the
    /// folder it emptied, spelt as the vault spells it, as the plugin does.
    #[test]
    fn a_folder_move_typed_in_another_case_removes_the_emptied_folder() {
        let (dir, mut index) =
            vault(&[("Projects/Alpha.md", "[[Beta]]\n"), ("Projects/deep/Beta.md", "# Beta\n"), ("Home.md", "[[Projects/Alpha]]\n")]);
        let applied = move_note(&mut index, &json!({"from": "projects", "to": "Archive", "dry_run": false})).unwrap();
        assert_eq!(applied["applied"], true);
        assert!(dir.path().join("Archive/Alpha.md").exists() && dir.path().join("Archive/deep/Beta.md").exists());
        assert!(!dir.path().join("Projects").exists(), "the emptied folder is gone");
        assert_eq!(
            fs::read_to_string(dir.path().join("Home.md")).unwrap(),
            "[[Alpha]]\n",
            "written as Obsidian writes it: Alpha is unique"
        );
    }

    /// A move on the folder writes its links as `.obsidian/app.json`'s "New link format" asks;
    /// `--link-form keep` keeps each link's form; an `app.json` that is not JSON gives Obsidian's
    /// defaults and the move is made all the same.
    #[test]
    fn a_move_on_the_folder_follows_the_vaults_new_link_format() {
        let files = [("n/A.md", "[[T]] and [t](T.md)\n"), ("T.md", "# T\n")];
        let moved = |app_json: Option<&str>, form: vaultlink_core::link_form::RewriteForm| {
            let mut with_settings = files.to_vec();
            with_settings.extend(app_json.map(|text| (".obsidian/app.json", text)));
            let (dir, mut index) = vault(&with_settings);
            index.use_link_form(form);
            move_note(&mut index, &json!({"from": "T.md", "to": "sub/U.md", "dry_run": false})).unwrap();
            fs::read_to_string(dir.path().join("n/A.md")).unwrap()
        };
        use vaultlink_core::link_form::RewriteForm::{Keep, Obsidian};
        assert_eq!(moved(Some(r#"{"newLinkFormat": "absolute"}"#), Obsidian), "[[sub/U]] and [t](sub/U.md)\n");
        assert_eq!(moved(Some(r#"{"newLinkFormat": "relative"}"#), Obsidian), "[[../sub/U]] and [t](../sub/U.md)\n");
        assert_eq!(moved(None, Obsidian), "[[U]] and [t](U.md)\n");
        assert_eq!(moved(Some("{ not json"), Obsidian), "[[U]] and [t](U.md)\n");
        assert_eq!(moved(Some(r#"{"newLinkFormat": "absolute"}"#), Keep), "[[U]] and [t](../sub/U.md)\n");
    }

    #[test]
    fn a_dry_run_changes_nothing_and_an_approved_plan_applies() {
        let (dir, mut index) = vault(&[("A.md", "see [[Old|it]]\n"), ("Old.md", "# Old\n")]);
        let before = snapshot(dir.path());
        let preview = move_note(&mut index, &json!({"from": "Old.md", "to": "sub/New.md"})).unwrap();
        assert_eq!(preview["dry_run"], true);
        assert_eq!(preview["links_changed"], 1);
        assert_eq!(snapshot(dir.path()), before);

        let wrong = move_note(&mut index, &json!({"from": "Old.md", "to": "sub/New.md", "approved_plan_hash": "0"})).unwrap_err();
        assert_eq!(wrong.code, "plan_hash_mismatch");
        assert_eq!(snapshot(dir.path()), before);

        let applied = move_note(&mut index, &json!({"from": "Old", "to": "sub/New", "approved_plan_hash": preview["plan_hash"]})).unwrap();
        assert_eq!(applied["applied"], true);
        assert_eq!(fs::read_to_string(dir.path().join("A.md")).unwrap(), "see [[New|it]]\n");
        assert_eq!(fs::read_to_string(dir.path().join("sub/New.md")).unwrap(), "# Old\n");
        assert!(!dir.path().join("Old.md").exists());
        assert_eq!(index.vault().backlinks("sub/New.md").len(), 1);
    }

    #[test]
    fn an_edit_after_the_plan_refuses_the_batch() {
        let (dir, index) = vault(&[("A.md", "[[Old]]\n"), ("B.md", "[[Old]]\n"), ("Old.md", "")]);
        let plan = plan_for(&index, "Old.md", "New.md");
        fs::write(dir.path().join("B.md"), "[[Old]] edited meanwhile\n").unwrap();
        let before = snapshot(dir.path());
        let refusal = apply_plan_on(&RealDisk, index.root(), &plan, None, "move_note").unwrap_err();
        assert_eq!(refusal.code, "concurrent_modification");
        assert_eq!(snapshot(dir.path()), before, "nothing was written");
    }

    /// Issue 21: a note in another encoding that links to a moved note was read with U+FFFD
    /// for its other bytes, and the batch took it for a note changed since the plan:
    /// `concurrent_modification`, retryable, on every try. It is refused once, at the preview,
    /// saying what to do, and never written; its links are still read for the reading tools.
    #[test]
    fn a_note_that_is_not_utf8_is_refused_once_and_never_rewritten() {
        let (dir, mut index) = vault(&[("Old.md", "# Old\n"), ("Home.md", "[[Latin]]\n")]);
        fs::write(dir.path().join("Latin.md"), b"caf\xe9 [[Old]]\n").unwrap();
        index.refresh().unwrap();
        assert_eq!(index.vault().backlinks("Old.md").len(), 1, "its links are read");
        let before = snapshot(dir.path());
        for arguments in [json!({"from": "Old.md", "to": "New.md"}), json!({"from": "Old.md", "to": "New.md", "dry_run": false})] {
            let refusal = move_note(&mut index, &arguments).unwrap_err();
            assert_eq!(refusal.code, "unwritable_note", "{refusal:?}");
            assert!(!refusal.retryable && refusal.message.contains("`Latin.md` is not UTF-8"), "{refusal:?}");
            assert!(refusal.hint.contains("Convert the note to UTF-8") && refusal.hint.contains("by hand"), "{refusal:?}");
        }
        // A move of the note itself reads it too (its own links may need rewriting): refused alike.
        let refusal = move_note(&mut index, &json!({"from": "Latin.md", "to": "Moved.md", "dry_run": false})).unwrap_err();
        assert_eq!(refusal.code, "unwritable_note", "{refusal:?}");
        assert_eq!(snapshot(dir.path()), before, "nothing was written");
        // Reading tools read it as before, with U+FFFD for the other bytes.
        let read =
            crate::tools::run_on_folder_with(&RealDisk, &mut index, "read_note", &json!({"path": "Latin.md"}), &Progress::none()).unwrap();
        assert!(read.to_string().contains("caf\u{fffd} [[Old]]"), "{read}");
    }

    /// A note the batch rewrites that is one file under two names (a hard link): rewritten by a
    /// new file renamed into place, the other name would keep the old text. Refused before any
    /// change.
    #[test]
    fn a_hard_linked_note_is_refused_before_any_change_rather_than_split() {
        let (dir, mut index) = vault(&[("A.md", "[[Old]]\n"), ("Old.md", "# Old\n")]);
        let elsewhere = tempfile::tempdir_in(dir.path().parent().unwrap()).unwrap();
        fs::hard_link(dir.path().join("A.md"), elsewhere.path().join("A.md")).unwrap();
        let before = snapshot(dir.path());
        let refusal = move_note(&mut index, &json!({"from": "Old.md", "to": "New.md", "dry_run": false})).unwrap_err();
        assert_eq!(refusal.code, "unwritable_note", "{refusal:?}");
        assert!(refusal.message.contains("`A.md` is one file under 2 names"), "{refusal:?}");
        assert_eq!(snapshot(dir.path()), before, "nothing was changed");
        assert_eq!(fs::read_to_string(elsewhere.path().join("A.md")).unwrap(), "[[Old]]\n");
    }

    /// A rewritten note is a new file renamed into place: it takes the note's mode, owner,
    /// group and extended attributes (the owner only where the system lets this user give it:
    /// root here; the group where the user is in it).
    #[cfg(target_os = "linux")]
    #[test]
    fn a_rewritten_note_keeps_its_mode_owner_group_and_extended_attributes() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let (dir, mut index) = vault(&[("A.md", "[[Old]]\n"), ("Old.md", "# Old\n")]);
        let note = dir.path().join("A.md");
        fs::set_permissions(&note, fs::Permissions::from_mode(0o640)).unwrap();
        // Another owner and group where this process may give them (as root), else its own.
        let (uid, gid) = match std::os::unix::fs::chown(&note, Some(4242), Some(4243)) {
            Ok(()) => (4242, 4243),
            Err(_) => (fs::metadata(&note).unwrap().uid(), fs::metadata(&note).unwrap().gid()),
        };
        xattr::set(&note, "user.vaultlink.test", b"kept").expect("this filesystem takes user extended attributes");
        move_note(&mut index, &json!({"from": "Old.md", "to": "New.md", "dry_run": false})).unwrap();
        assert_eq!(fs::read_to_string(&note).unwrap(), "[[New]]\n", "the note was rewritten");
        let meta = fs::metadata(&note).unwrap();
        assert_eq!((meta.mode() & 0o7777, meta.uid(), meta.gid()), (0o640, uid, gid));
        assert_eq!(xattr::get(&note, "user.vaultlink.test").unwrap().as_deref(), Some(&b"kept"[..]));
    }

    /// Issue 21: only the vault's root was synced, after the journal's removal, so a power loss
    /// could leave no journal while a rename of the batch was not yet on the disk. Every folder
    /// whose entries a batch changes is synced after its last change there and before the
    /// journal goes, on each batch shape.
    #[test]
    fn every_folder_a_batch_changes_is_synced_before_the_journal_goes() {
        for (files, from, to, moved_folder) in BATCHES {
            let (_dir, index) = vault(files);
            let plan = plan_for(&index, from, to);
            let disk = crate::disk::testing::Recording::default();
            apply_plan_on(&disk, index.root(), &plan, moved_folder, "move_note").unwrap();
            let operations = disk.operations.borrow();
            let journal = index.root().join(".vaultlink/journal.json");
            let removal = operations
                .iter()
                .position(|(operation, paths)| *operation == "remove_file" && paths[0] == journal)
                .expect("the journal goes");
            let changes = ["write_new", "rename", "rename_new", "remove_file", "create_dir", "remove_dir"];
            let mut checked = 0;
            for (at, (operation, paths)) in
                operations[..removal].iter().enumerate().filter(|(_, (operation, _))| changes.contains(operation))
            {
                for folder in paths.iter().filter_map(|path| path.parent()) {
                    // The journal's own folder is synced as the lock is taken.
                    if folder.starts_with(index.root().join(".vaultlink")) {
                        continue;
                    }
                    let synced =
                        operations[at + 1..removal].iter().any(|(operation, paths)| *operation == "sync_dir" && paths[0] == folder);
                    assert!(synced, "{from} -> {to}: {operation} {paths:?} (step {at}): {folder:?} is not synced before the journal goes");
                    checked += 1;
                }
            }
            assert!(checked >= 3, "{from} -> {to}: {checked} changes checked");
        }
    }

    /// The first batch in a vault makes `.vaultlink`: the folder's own entry in the vault's root
    /// is synced, after the journal is in it, before the batch's first change, so a power loss
    /// cannot keep a change and lose the journal that undoes it.
    #[test]
    fn the_first_batch_syncs_the_root_that_holds_the_new_journal_folder_before_any_change() {
        let (files, from, to, moved_folder) = BATCHES[0];
        let (_dir, index) = vault(files);
        let journal_folder = index.root().join(".vaultlink");
        assert!(!journal_folder.exists(), "no batch ran in this vault yet");
        let plan = plan_for(&index, from, to);
        let disk = crate::disk::testing::Recording::default();
        apply_plan_on(&disk, index.root(), &plan, moved_folder, "move_note").unwrap();
        let operations = disk.operations.borrow();
        let made = operations
            .iter()
            .position(|(operation, paths)| *operation == "create_dir" && paths[0] == journal_folder)
            .expect("the batch makes the journal's folder");
        let changes = ["write_new", "rename", "rename_new", "remove_file", "create_dir", "remove_dir"];
        let first_change = operations
            .iter()
            .position(|(operation, paths)| changes.contains(operation) && !paths[0].starts_with(&journal_folder))
            .expect("the batch changes the vault");
        assert!(
            operations[made..first_change].iter().any(|(operation, paths)| *operation == "sync_dir" && paths[0] == index.root()),
            "the root is not synced between making `.vaultlink` and the first change: {operations:?}"
        );
    }

    #[test]
    fn a_file_where_a_folder_must_go_refuses_the_batch_before_any_change() {
        let (dir, index) = vault(&[("A.md", "[[Old]] and [[Old]]\n"), ("C.md", "![[Old]]\n"), ("Old.md", "")]);
        let plan = plan_for(&index, "Old.md", "blocked/New.md");
        fs::write(dir.path().join("blocked"), "not a folder").unwrap();
        let before = snapshot(dir.path());
        let refusal = apply_plan_on(&RealDisk, index.root(), &plan, None, "move_note").unwrap_err();
        assert_eq!(refusal.code, "destination_exists");
        assert!(refusal.message.starts_with("creating blocked failed: `blocked` is taken"), "{}", refusal.message);
        assert!(!refusal.hint.contains("permission"), "{}", refusal.hint);
        assert_eq!(snapshot(dir.path()), before, "the vault is byte-identical to before");
    }

    #[test]
    fn a_folder_move_takes_its_files_and_leaves_no_empty_folder() {
        let (dir, mut index) = vault(&[("proj/One.md", "[two](Two.md)\n"), ("proj/Two.md", ""), ("Home.md", "[[proj/One]]\n")]);
        move_note(&mut index, &json!({"from": "proj", "to": "archive/proj", "dry_run": false})).unwrap();
        assert!(!dir.path().join("proj").exists());
        // `[[proj/One]]` still finds archive/proj/One.md by its path's end: left as written.
        assert_eq!(fs::read_to_string(dir.path().join("Home.md")).unwrap(), "[[proj/One]]\n");
        assert_eq!(index.vault().backlinks("archive/proj/One.md").len(), 1);
        assert_eq!(fs::read_to_string(dir.path().join("archive/proj/One.md")).unwrap(), "[two](Two.md)\n");
    }

    fn plan_for(index: &FolderIndex, from: &str, to: &str) -> MovePlan {
        let needed = rename::notes_to_read(index.vault(), from, to).unwrap();
        let texts = needed.iter().map(|path| (path.clone(), fs::read_to_string(index.root().join(path)).unwrap())).collect();
        rename::plan_move(index.vault(), from, to, &texts).unwrap()
    }

    /// What the vault must hold once `plan` is applied: edits, then moves, in memory.
    /// A snapshot without the changes kept for undo_change (a batch applied whole keeps one).
    fn without_changes(files: Vec<(String, Vec<u8>)>) -> Vec<(String, Vec<u8>)> {
        files.into_iter().filter(|(path, _)| !path.starts_with(".vaultlink/changes/")).collect()
    }

    fn expected_after(before: &[(String, Vec<u8>)], plan: &MovePlan) -> Vec<(String, Vec<u8>)> {
        let mut files: std::collections::BTreeMap<String, Vec<u8>> = before.iter().cloned().collect();
        for file in &plan.edits {
            let text = String::from_utf8(files[&file.path].clone()).unwrap();
            files.insert(file.path.clone(), plan::apply_edits(&text, &file.edits).into_bytes());
        }
        for file_move in &plan.moves {
            let bytes = files.remove(&file_move.from).unwrap();
            files.insert(file_move.to.clone(), bytes);
        }
        files.into_iter().collect()
    }

    /// A batch of each shape: notes rewritten and a file moved into folders that do not exist
    /// yet; a rename that changes only the case of a name; a whole folder moved.
    /// The vault's files, the move's `from` and `to`, and the folder a folder move empties.
    type Batch = (&'static [(&'static str, &'static str)], &'static str, &'static str, Option<&'static str>);
    const BATCHES: [Batch; 3] = [
        (&[("A.md", "[[Old]] and [[Old]]\n"), ("C.md", "![[Old]]\n"), ("Old.md", "# Old\n")], "Old.md", "deep/er/New.md", None),
        (&[("a.md", "# a\n"), ("B.md", "[[a]] and [b](a.md)\n")], "a.md", "A.md", None),
        (
            &[("proj/One.md", "[two](Two.md) [[Home]]\n"), ("proj/Two.md", "two\n"), ("Home.md", "[one](proj/One.md) [[proj/Two]]\n")],
            "proj",
            "archive/proj",
            Some("proj"),
        ),
    ];

    /// The fault matrix, standalone: every change step of each batch fails in turn, with an
    /// I/O error, a read-only file and a full disk (which takes half a write first). After
    /// each, either the batch applied whole or the vault is byte-identical to before, with no
    /// temporary file or journal left.
    #[test]
    fn a_fault_at_any_step_leaves_the_vault_as_it_was_or_the_batch_applied() {
        for (files, from, to, moved_folder) in BATCHES {
            for fault in Fault::ALL {
                let mut steps = 0;
                for fail_at in 0.. {
                    let (dir, index) = vault(files);
                    let plan = plan_for(&index, from, to);
                    let before = snapshot(dir.path());
                    let disk = FaultyDisk::new(fault, fail_at);
                    let outcome = apply_plan_on(&disk, index.root(), &plan, moved_folder, "move_note");
                    let now = snapshot(dir.path());
                    if !disk.failed.get() {
                        outcome.unwrap();
                        assert_eq!(without_changes(now), expected_after(&before, &plan), "{from} -> {to} without a fault");
                        steps = fail_at;
                        break;
                    }
                    match outcome {
                        // A fault in the clean-up after the batch counts (an empty folder left).
                        Ok(()) => {
                            assert_eq!(without_changes(now), expected_after(&before, &plan), "{from} -> {to}, {fault:?} at step {fail_at}")
                        }
                        Err(error) => {
                            assert_eq!(error.code, "write_failed", "{error:?}");
                            assert!(error.message.contains("undone") || error.message.contains("nothing was changed"), "{}", error.message);
                            assert_eq!(now, before, "{from} -> {to}, {fault:?} at step {fail_at}: the vault is as it was");
                        }
                    }
                }
                assert!(steps >= 6, "{from} -> {to} has {steps} steps");
            }
        }
    }

    /// The undo failing too (the disk keeps failing after the first fault): the answer says
    /// so, the journal stays, and recovery later restores the vault byte for byte.
    #[test]
    fn an_undo_that_fails_too_keeps_the_journal_and_recovery_restores_the_vault() {
        for (files, from, to, moved_folder) in BATCHES {
            // Steps 0-4 take the lock (making `.vaultlink`, as in a vault where no batch ran
            // yet); the undo can fail from the first change on.
            for fail_at in 5.. {
                let (dir, index) = vault(files);
                let plan = plan_for(&index, from, to);
                let before = snapshot(dir.path());
                let mut disk = FaultyDisk::new(Fault::Io, fail_at);
                disk.also_fail = vec![fail_at + 1];
                let outcome = apply_plan_on(&disk, index.root(), &plan, moved_folder, "move_note");
                if !disk.failed.get() {
                    outcome.unwrap();
                    break;
                }
                if let Err(error) = outcome {
                    if error.message.contains("failed in part") {
                        assert_eq!(error.code, "write_failed");
                        assert!(error.hint.contains("vaultlink recover"), "{}", error.hint);
                        let kept = match journal::find(index.root()) {
                            journal::Found::Ours(journal) => journal,
                            other => panic!("the journal is kept: {other:?}"),
                        };
                        assert_eq!(kept.pid, journal::ABANDONED, "marked abandoned, so this very process recovers it");
                        let recovery = journal::recover_if_interrupted(index.root()).unwrap().expect("a journal to recover");
                        assert!(recovery.kept.is_empty(), "{recovery:?}");
                    }
                    assert_eq!(snapshot(dir.path()), before, "{from} -> {to}, failing at steps {fail_at} and {}", fail_at + 1);
                }
            }
        }
    }

    /// A note edited by someone after the interruption keeps that edit; its text from before
    /// the batch is saved, not lost, and the rest of the vault is restored.
    #[test]
    fn recovery_keeps_an_edit_made_after_the_interruption_and_saves_the_pre_image() {
        let (dir, index) = vault(BATCHES[0].0);
        let plan = plan_for(&index, "Old.md", "deep/er/New.md");
        // Steps 0-4 take the lock (the journal, in the `.vaultlink` it makes), 5-9 rewrite
        // A.md; C.md's write (10) and everything after it fail, the undo included.
        let mut disk = FaultyDisk::new(Fault::Io, 10);
        disk.also_fail = (11..100).collect();
        let error = apply_plan_on(&disk, index.root(), &plan, None, "move_note").unwrap_err();
        assert!(error.message.contains("failed in part"), "{}", error.message);
        assert_eq!(fs::read_to_string(dir.path().join("A.md")).unwrap(), "[[New]] and [[New]]\n", "A.md was left rewritten");
        fs::write(dir.path().join("A.md"), "[[New]] and [[New]] and an edit\n").unwrap();
        let recovery = journal::recover(&RealDisk, index.root()).unwrap().unwrap();
        assert_eq!(recovery.kept, vec![("A.md".to_owned(), ".vaultlink/recovered/A.md".to_owned())]);
        assert_eq!(fs::read_to_string(dir.path().join("A.md")).unwrap(), "[[New]] and [[New]] and an edit\n");
        assert_eq!(fs::read_to_string(dir.path().join(".vaultlink/recovered/A.md")).unwrap(), "[[Old]] and [[Old]]\n");
        assert_eq!(fs::read_to_string(dir.path().join("C.md")).unwrap(), "![[Old]]\n");
        assert!(dir.path().join("Old.md").exists() && !dir.path().join("deep").exists());
        assert!(matches!(journal::find(index.root()), journal::Found::Nothing));
        assert!(journal::recover(&RealDisk, index.root()).unwrap().is_none(), "a second recovery has nothing to do");
    }

    /// A file that appears at the destination after the checks, just before the rename (another
    /// program saving there): the move does not replace it; the batch is undone and it is kept.
    #[test]
    fn a_file_that_appears_at_the_destination_after_the_check_is_never_replaced() {
        let (dir, index) = vault(&[("A.md", "[[Old]]\n"), ("Old.md", "# Old\n")]);
        let plan = plan_for(&index, "Old.md", "New.md");
        let destination = dir.path().join("New.md");
        let disk = Hooked(|operation: &str, path: &Path| {
            if operation == "rename_new" && path == destination {
                fs::write(path, "someone else's\n").unwrap();
            }
        });
        let refusal = apply_plan_on(&disk, index.root(), &plan, None, "move_note").unwrap_err();
        // Issue 34: the name taken meanwhile (EEXIST) was answered `write_failed`, told to check
        // the folder's permissions.
        assert_eq!(refusal.code, "destination_exists", "{refusal:?}");
        assert!(refusal.message.contains("`New.md` is taken") && refusal.message.contains("undone"), "{refusal:?}");
        assert!(!refusal.hint.contains("permission") && refusal.hint.contains("choose another name"), "{refusal:?}");
        assert_eq!(fs::read_to_string(dir.path().join("New.md")).unwrap(), "someone else's\n", "kept");
        assert_eq!(fs::read_to_string(dir.path().join("Old.md")).unwrap(), "# Old\n");
        assert_eq!(fs::read_to_string(dir.path().join("A.md")).unwrap(), "[[Old]]\n", "the batch was undone");
        assert!(!dir.path().join(".vaultlink/journal.json").exists());
    }

    /// How another program saves a note: into the file, as `fs::write` and Node's `writeFile`
    /// do (truncate, then write), or by writing a file beside it and renaming it over the note,
    /// as many editors and sync services do.
    #[derive(Debug, Clone, Copy)]
    enum Save {
        InPlace,
        Replacing,
    }

    fn save(note: &Path, bytes: &[u8], how: Save) {
        match how {
            Save::InPlace => fs::write(note, bytes).unwrap(),
            Save::Replacing => {
                let beside = note.with_file_name(".editor-save.tmp");
                fs::write(&beside, bytes).unwrap();
                fs::rename(&beside, note).unwrap();
            }
        }
    }

    /// The vault without `skip`, and without the engine's own folder, for comparing the rest.
    fn without(files: &[(String, Vec<u8>)], skip: &str) -> Vec<(String, Vec<u8>)> {
        files.iter().filter(|(path, _)| path != skip && !path.starts_with(".vaultlink")).cloned().collect()
    }

    /// Issue 21 (red team, High): a save between the batch's last check and its replace was
    /// lost while the batch reported `applied: true`. Another program saves a rewritten note
    /// before each step of the batch in turn (every change the batch makes, through the `Disk`
    /// trait), both ways a program saves: the save is never lost, and the batch is applied whole
    /// (the save came after it) or undone with `concurrent_modification`, the save kept.
    #[test]
    fn a_save_at_any_step_of_the_batch_is_never_lost() {
        // The batches of the fault matrix, and a note each rewrites without moving it.
        let saved_notes = ["C.md", "B.md", "Home.md"];
        for ((files, from, to, moved_folder), saved_note) in BATCHES.into_iter().zip(saved_notes) {
            for how in [Save::InPlace, Save::Replacing] {
                for save_at in 0.. {
                    let (dir, index) = vault(files);
                    let plan = plan_for(&index, from, to);
                    let before = snapshot(dir.path());
                    let after = expected_after(&before, &plan);
                    let note = dir.path().join(saved_note);
                    let bytes = format!("saved by another program before step {save_at}\n");
                    let step = std::cell::Cell::new(0);
                    let disk = Hooked(|_: &str, _: &Path| {
                        if step.get() == save_at {
                            save(&note, bytes.as_bytes(), how);
                        }
                        step.set(step.get() + 1);
                    });
                    let outcome = apply_plan_on(&disk, index.root(), &plan, moved_folder, "move_note");
                    if save_at >= step.get() {
                        // Past the batch's last step: done.
                        outcome.unwrap();
                        assert!(save_at >= 8, "{from} -> {to} has {} steps", step.get());
                        break;
                    }
                    let now = snapshot(dir.path());
                    let shown = format!("{from} -> {to}, saved {how:?} before step {save_at}: {outcome:?}");
                    let kept = usize::from(outcome.is_ok());
                    assert_eq!(fs::read_to_string(&note).unwrap(), bytes, "{shown}: the save is kept");
                    match outcome {
                        Ok(()) => assert_eq!(without(&now, saved_note), without(&after, saved_note), "{shown}"),
                        Err(refusal) => {
                            assert_eq!(refusal.code, "concurrent_modification", "{shown}");
                            assert_eq!(without(&now, saved_note), without(&before, saved_note), "{shown}");
                        }
                    }
                    let left: Vec<String> =
                        snapshot(dir.path()).into_iter().map(|(path, _)| path).filter(|path| path.starts_with(".vaultlink")).collect();
                    assert!(
                        left.len() == kept && left.iter().all(|path| path.starts_with(".vaultlink/changes/")),
                        "{shown}: no journal, lock or saved text left, and the change kept once made: {left:?}"
                    );
                }
            }
        }
    }

    /// The soak of the save test: another program saves a rewritten note in a loop, on a
    /// thread of its own, while the batch runs, starting at a different moment each run; after
    /// each run the note holds the program's last save, and the rest of the vault is as before
    /// or as after, whole. `VAULTLINK_SOAK_RUNS` sets the number of runs (default 40).
    #[test]
    fn a_program_saving_in_a_loop_while_batches_run_never_loses_a_save() {
        let runs: usize = std::env::var("VAULTLINK_SOAK_RUNS").ok().and_then(|runs| runs.parse().ok()).unwrap_or(40);
        let (files, from, to, moved_folder) = BATCHES[0];
        let (mut applied, mut refused, mut kept_earlier) = (0, 0, 0);
        for run in 0..runs {
            let (dir, index) = vault(files);
            let plan = plan_for(&index, from, to);
            let before = snapshot(dir.path());
            let after = expected_after(&before, &plan);
            let note = dir.path().join("C.md");
            let stop = std::sync::atomic::AtomicBool::new(false);
            let last_save = std::thread::scope(|scope| {
                let writer = scope.spawn(|| {
                    // A different start each run, from at once to about a batch's length later.
                    std::thread::sleep(std::time::Duration::from_micros((run as u64 * 7919) % 3000));
                    let mut last = None;
                    for number in 0.. {
                        if stop.load(std::sync::atomic::Ordering::SeqCst) && number > 0 {
                            break;
                        }
                        let bytes = format!("save {number} of run {run}\n");
                        save(&note, bytes.as_bytes(), if number % 2 == 0 { Save::InPlace } else { Save::Replacing });
                        last = Some(bytes);
                        std::thread::sleep(std::time::Duration::from_micros(150));
                    }
                    last
                });
                let outcome = apply_plan_on(&RealDisk, index.root(), &plan, moved_folder, "move_note");
                stop.store(true, std::sync::atomic::Ordering::SeqCst);
                let last_save = writer.join().unwrap();
                match outcome {
                    Ok(()) => {
                        applied += 1;
                        assert_eq!(without(&snapshot(dir.path()), "C.md"), without(&after, "C.md"), "run {run}");
                    }
                    Err(refusal) => {
                        refused += 1;
                        assert_eq!(refusal.code, "concurrent_modification", "run {run}: {refusal:?}");
                        assert_eq!(without(&snapshot(dir.path()), "C.md"), without(&before, "C.md"), "run {run}");
                    }
                }
                last_save
            });
            assert_eq!(fs::read_to_string(&note).ok(), last_save, "run {run}: the last save is what the note holds");
            // No journal or lock is left. An earlier save the program made over at once (it was
            // moved aside when the next one came) is kept too, under `recovered/`.
            for (path, bytes) in without_changes(snapshot(dir.path())).into_iter().filter(|(path, _)| path.starts_with(".vaultlink")) {
                assert!(path.starts_with(".vaultlink/recovered/C.md"), "run {run}: {path} left");
                assert!(String::from_utf8(bytes).unwrap().starts_with("save "), "run {run}: {path} holds one of the program's saves");
                kept_earlier += 1;
            }
        }
        eprintln!(
            "{runs} runs with a program saving meanwhile: {applied} applied, {refused} undone, {kept_earlier} earlier saves kept in recovered/, no save lost"
        );
    }

    /// An editor saving a note after the check, just before the batch replaces it: the save
    /// is kept, the notes written before it are restored, and the answer is
    /// `concurrent_modification`.
    #[test]
    fn a_note_saved_while_the_batch_is_written_keeps_the_save_and_the_batch_is_undone() {
        let (dir, index) = vault(BATCHES[0].0);
        let plan = plan_for(&index, "Old.md", "deep/er/New.md");
        let before = snapshot(dir.path());
        let saved = dir.path().join("C.md");
        let disk = Hooked(|operation: &str, path: &Path| {
            if operation == "write_new" && path.file_name().is_some_and(|name| name.to_string_lossy().starts_with(".A.md.")) {
                fs::write(&saved, "![[Old]] saved meanwhile\n").unwrap();
            }
        });
        let refusal = apply_plan_on(&disk, index.root(), &plan, None, "move_note").unwrap_err();
        assert_eq!(refusal.code, "concurrent_modification", "{refusal:?}");
        assert_eq!(refusal.message, "`C.md` changed after the plan was made; nothing was changed");
        let expected: Vec<(String, Vec<u8>)> = before
            .iter()
            .map(|(path, bytes)| (path.clone(), if path == "C.md" { b"![[Old]] saved meanwhile\n".to_vec() } else { bytes.clone() }))
            .collect();
        assert_eq!(snapshot(dir.path()), expected, "A.md restored, C.md keeps the save");
    }

    /// Reported in issue 34: another program saved a note the batch had already rewritten (an
    /// editor reloading it from disk, an appender) before the last look; the batch was undone
    /// around it, the note kept the new link while the moved note went back, and the answer said
    /// "nothing was changed". The save is kept with the rewrite put back where the save left it
    /// intact; else the answer names the note and the link left as the batch wrote it.
    #[test]
    fn a_save_after_a_notes_rewrite_keeps_the_save_and_its_link_or_names_the_link() {
        /// A case: its name, the save made over the rewritten text, and the note's text after it
        /// when the rewrite is put back.
        type Case = (&'static str, fn(&str) -> String, Option<&'static str>);
        let cases: [Case; 3] = [
            ("an appender", |now| format!("{now}appended meanwhile\n"), Some("See [[A]] and [b](A.md).\nappended meanwhile\n")),
            (
                "an editor typing between the rewritten links",
                |now| now.replace(" and [b]", " and, typed, [b]"),
                Some("See [[A]] and, typed, [b](A.md).\n"),
            ),
            ("a save over the rewrite", |_| "Typed over [[Renamed]] wholly.\n".to_owned(), None),
        ];
        for (case, save, put_back) in cases {
            let (dir, mut index) = vault(&[("A.md", "# A\n"), ("C.md", "See [[A]] and [b](A.md).\n")]);
            let plan = plan_for(&index, "A.md", "Sub/Renamed.md");
            let note = dir.path().join("C.md");
            let saved = std::cell::Cell::new(None);
            // Between the notes' writes and the last look: as the moved note goes to its place.
            let disk = Hooked(|operation: &str, path: &Path| {
                if operation == "rename_new" && path.ends_with("Sub/Renamed.md") && saved.get().is_none() {
                    let now = fs::read_to_string(&note).unwrap();
                    assert_eq!(now, "See [[Renamed]] and [b](Renamed.md).\n", "{case}: the batch wrote it");
                    let text = save(&now);
                    fs::write(&note, &text).unwrap();
                    saved.set(Some(text.len()));
                }
            });
            let refusal = apply_plan_on(&disk, index.root(), &plan, None, "move_note").unwrap_err();
            assert!(saved.get().is_some(), "{case}: the save was made");
            assert_eq!(refusal.code, "concurrent_modification", "{case}: {refusal:?}");
            assert!(!refusal.message.contains("nothing was changed"), "{case}: {refusal:?}");
            assert!(dir.path().join("A.md").exists() && !dir.path().join("Sub").exists(), "{case}: the move is undone");
            let now = fs::read_to_string(&note).unwrap();
            match put_back {
                Some(expected) => {
                    assert_eq!(now, expected, "{case}: the save is kept, its links put back");
                    assert!(
                        refusal.message.contains("the save kept in `C.md` with the links the change had rewritten in it put back"),
                        "{refusal:?}"
                    );
                }
                None => {
                    assert_eq!(now, "Typed over [[Renamed]] wholly.\n", "{case}: the save is kept as it is");
                    assert!(
                        refusal.message.contains("`C.md` keeps the save, in which [[Renamed]] still read as the change wrote them"),
                        "{refusal:?}"
                    );
                    assert!(!refusal.retryable && refusal.hint.contains("rewrite_link"), "{refusal:?}");
                }
            }
            assert!(!dir.path().join(".vaultlink/journal.json").exists(), "{case}: no journal left");
            index.refresh().unwrap();
        }
    }

    /// A second batch while a journal is there is refused before any change, whether the
    /// journal's process is alive (a batch in progress) or gone (an interrupted one).
    #[test]
    fn a_batch_is_refused_while_another_batch_has_a_journal() {
        let (dir, index) = vault(BATCHES[0].0);
        let plan = plan_for(&index, "Old.md", "New.md");
        // A lease renewed a moment ago is a change in progress; one run out, an interrupted one,
        // whatever process either names.
        for (expired, code) in [(false, "change_in_progress"), (true, "interrupted_change")] {
            let journal = Journal {
                version: vaultlink_core::journal::VERSION,
                pid: 1,
                holder: String::new(),
                tool: "move_note".to_owned(),
                started_unix_ms: 0,
                machine: journal::machine(),
                writes: vec![],
                moves: vec![],
                made_folders: vec![],
                change_id: String::new(),
                forget: None,
            };
            journal::plant(dir.path(), &journal);
            if expired {
                journal::expire_lease(dir.path());
            }
            let before = snapshot(dir.path());
            let refusal = apply_plan_on(&RealDisk, index.root(), &plan, None, "move_note").unwrap_err();
            assert_eq!(refusal.code, code, "{refusal:?}");
            assert_eq!(snapshot(dir.path()), before);
            fs::remove_dir_all(dir.path().join(".vaultlink")).unwrap();
        }
        // A journal cut short cannot be told from one made by anyone: while young it may be
        // another process's being written (a change in progress); either way it is never acted
        // on, and `vaultlink recover` refuses it and says what to do.
        fs::create_dir_all(dir.path().join(".vaultlink")).unwrap();
        fs::write(dir.path().join(".vaultlink/journal.json"), "{\"seal\":\"00").unwrap();
        assert!(journal::recover_if_interrupted(index.root()).unwrap().is_none());
        assert_eq!(apply_plan_on(&RealDisk, index.root(), &plan, None, "move_note").unwrap_err().code, "change_in_progress");
        assert!(dir.path().join(".vaultlink/journal.json").exists());
        let refusal = journal::recover(&RealDisk, index.root()).unwrap_err();
        assert_eq!(refusal.code, "recovery_failed");
        assert!(refusal.message.contains("not a sealed vaultlink journal") && refusal.hint.contains("delete it"), "{refusal:?}");
        assert_eq!(fs::read_to_string(dir.path().join(".vaultlink/journal.json")).unwrap(), "{\"seal\":\"00");
    }

    /// Set in the child process of the kill test: `<batch> <step> <vault>`.
    const KILL_CHILD: &str = "VAULTLINK_TEST_KILL_CHILD";

    /// The fault matrix's kill column: a real subprocess applies each batch and is killed
    /// (SIGKILL, from this process) before each change step in turn. The vault it leaves is
    /// then recovered from the journal, as the next start of the sidecar does, and must be
    /// byte-identical to before, or, when the kill came after the batch was done, applied whole.
    #[test]
    fn a_process_killed_at_any_step_leaves_a_vault_that_recovery_restores() {
        if let Ok(child) = std::env::var(KILL_CHILD) {
            // The child: apply the batch, stopping before step `hold_at` to be killed.
            let mut parts = child.splitn(3, ' ');
            let batch: usize = parts.next().unwrap().parse().unwrap();
            let hold_at: usize = parts.next().unwrap().parse().unwrap();
            let root = PathBuf::from(parts.next().unwrap());
            let (_, from, to, moved_folder) = BATCHES[batch];
            let mut index = FolderIndex::new(root.clone());
            index.refresh().unwrap();
            let plan = plan_for(&index, from, to);
            let disk = crate::disk::testing::HoldingDisk { hold_at, steps: std::cell::Cell::new(0) };
            apply_plan_on(&disk, &root, &plan, moved_folder, "move_note").unwrap();
            println!("\nDONE");
            return;
        }
        let test_name = "apply::tests::a_process_killed_at_any_step_leaves_a_vault_that_recovery_restores";
        for (batch, (files, from, to, _)) in BATCHES.into_iter().enumerate() {
            for hold_at in 0.. {
                let (dir, index) = vault(files);
                let plan = plan_for(&index, from, to);
                let before = snapshot(dir.path());
                let expected = expected_after(&before, &plan);
                if !run_child_killed_where_it_holds(test_name, KILL_CHILD, &format!("{batch} {hold_at} {}", index.root().display())) {
                    assert_eq!(without_changes(snapshot(dir.path())), expected, "{from} -> {to} applied in the child");
                    assert!(hold_at >= 6, "{from} -> {to}: only {hold_at} steps");
                    break;
                }
                let had_journal = matches!(journal::find(index.root()), journal::Found::Ours(_));
                // As the next start does once the lease has run out: the folder is recovered.
                journal::expire_lease(index.root());
                let mut next_start = FolderIndex::new(index.root().to_owned());
                next_start.refresh().unwrap();
                let now = snapshot(dir.path());
                if had_journal {
                    assert_eq!(now, before, "{from} -> {to} killed before step {hold_at}: recovered to the vault as it was");
                } else {
                    assert!(
                        now == before || without_changes(now.clone()) == expected,
                        "{from} -> {to} killed before step {hold_at}: {now:?}"
                    );
                }
                assert!(!dir.path().join(".vaultlink/journal.json").exists(), "no journal left");
            }
        }
    }

    /// A rename that changes only the case of a name is made in two renames, through a hidden
    /// name, so a filesystem that ignores case (which may take `a.md` -> `A.md` for nothing to
    /// do, as the disk here does) still ends with `A.md`.
    #[test]
    fn a_case_only_rename_is_made_on_a_filesystem_that_ignores_case() {
        let (dir, index) = vault(&[("a.md", "# a\n"), ("B.md", "[[a]]\n")]);
        let plan = plan_for(&index, "a.md", "A.md");
        let disk = crate::disk::testing::CaseInsensitiveDisk::default();
        apply_plan_on(&disk, index.root(), &plan, None, "move_note").unwrap();
        let names: Vec<String> =
            fs::read_dir(dir.path()).unwrap().map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned()).collect();
        assert!(names.contains(&"A.md".to_owned()) && !names.contains(&"a.md".to_owned()), "{names:?}");
        for (from, to) in disk.renames.borrow().iter() {
            assert_ne!(from.to_string_lossy().to_lowercase(), to.to_string_lossy().to_lowercase(), "a rename the filesystem would skip");
        }
        assert_eq!(fs::read_to_string(dir.path().join("A.md")).unwrap(), "# a\n");
    }

    /// Case-only renames through the tool, on this (case-sensitive) filesystem: the note
    /// takes the new spelling, links follow, and a second file spelt exactly so is refused.
    #[test]
    fn a_case_only_rename_through_move_note() {
        let (dir, mut index) = vault(&[("a.md", "# a\n"), ("B.md", "[[a]] [x](a.md)\n")]);
        let applied = move_note(&mut index, &json!({"from": "a.md", "to": "A.md", "dry_run": false})).unwrap();
        assert_eq!(applied["applied"], true);
        assert!(exists_exactly(&dir.path().join("A.md")) && !exists_exactly(&dir.path().join("a.md")));
        assert_eq!(index.vault().backlinks("A.md").len(), 2);
        let back = move_note(&mut index, &json!({"from": "A.md", "to": "a.md", "dry_run": false})).unwrap();
        assert_eq!(back["applied"], true);
        assert!(exists_exactly(&dir.path().join("a.md")));
    }

    /// A destination folder, or the trash, that is a symbolic link out of the vault is refused
    /// before anything changes: no note is carried out.
    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_on_the_way_out_is_refused() {
        let outside = tempfile::tempdir().unwrap();
        let (dir, mut index) = vault(&[("A.md", "[[Old]]\n"), ("Old.md", "# Old\n")]);
        std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
        let before = snapshot(dir.path());
        let refusal = move_note(&mut index, &json!({"from": "Old.md", "to": "out/New.md", "dry_run": false})).unwrap_err();
        assert_eq!(refusal.code, "invalid_path");
        assert!(refusal.message.contains("`out`, a symbolic link"), "{}", refusal.message);
        assert_eq!(snapshot(dir.path()), before);
        std::os::unix::fs::symlink(outside.path(), dir.path().join(".trash")).unwrap();
        let before = snapshot(dir.path());
        let refusal = delete_note(&mut index, &json!({"path": "Old.md", "confirm": true, "force": true})).unwrap_err();
        assert_eq!(refusal.code, "invalid_path", "{refusal:?}");
        assert_eq!(snapshot(dir.path()), before);
        assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0, "nothing reached the folder outside");
    }

    /// The fault matrix's delete row: the one rename into `.trash` failing leaves the note
    /// where it was.
    #[test]
    fn a_delete_that_fails_leaves_the_note() {
        for fault in Fault::ALL {
            for fail_at in 0..2 {
                let (dir, mut index) = vault(&[("Gone.md", "bye\n"), ("Other.md", "x\n")]);
                let before = snapshot(dir.path());
                let disk = FaultyDisk::new(fault, fail_at);
                let refusal = delete_note_on(&disk, &mut index, &json!({"path": "Gone.md", "confirm": true})).unwrap_err();
                assert_eq!(refusal.code, "write_failed", "{refusal:?}");
                assert_eq!(snapshot(dir.path()), before, "{fault:?} at step {fail_at}");
            }
        }
    }

    /// `update_properties` on a disk that fails at each step in turn: the note is as it was, or
    /// edited as asked, never half; an edit saved while it is written is kept and nothing else.
    #[test]
    fn a_property_edit_that_fails_at_any_step_leaves_the_note_as_it_was() {
        let text = "---\n# kept\ntitle: 'T'\nrole: lead\n---\nBody [[Other]]\n";
        let arguments = json!({"path": "Ada.md", "set": {"status": "done", "up": "[[Other]]"}, "remove": ["role"], "dry_run": false});
        let mut applied_at = None;
        for fault in Fault::ALL {
            for fail_at in 0..40 {
                let (dir, mut index) = vault(&[("Ada.md", text), ("Other.md", "x\n")]);
                let before = snapshot(dir.path());
                let disk = FaultyDisk::new(fault, fail_at);
                let outcome = crate::tools::run_on_folder_with(&disk, &mut index, "update_properties", &arguments, &Progress::none());
                let edited = "---\n# kept\ntitle: 'T'\nstatus: done\nup: \"[[Other]]\"\n---\nBody [[Other]]\n";
                match outcome {
                    // A fault in the tidying after the edit: the edit is whole.
                    Ok(_) => {
                        assert_eq!(fs::read_to_string(dir.path().join("Ada.md")).unwrap(), edited, "{fault:?} at step {fail_at}");
                        if !disk.failed.get() {
                            applied_at.get_or_insert(fail_at);
                            break;
                        }
                    }
                    Err(refusal) => {
                        assert_eq!(refusal.code, "write_failed", "{refusal:?}");
                        assert_eq!(snapshot(dir.path()), before, "{fault:?} at step {fail_at}");
                    }
                }
            }
        }
        assert!(applied_at.is_some_and(|steps| steps >= 4), "the edit takes several steps: {applied_at:?}");

        // Someone saves the note after it was read, as the journal is written: the save is kept,
        // nothing is written over it.
        let (dir, mut index) = vault(&[("Ada.md", text)]);
        let note = dir.path().join("Ada.md");
        let disk = Hooked(|operation: &str, path: &Path| {
            if operation == "write_new" && path.parent().is_some_and(|folder| folder.ends_with(".vaultlink")) {
                fs::write(&note, "---\nrole: other\n---\nsaved meanwhile\n").unwrap();
            }
        });
        let refusal = crate::tools::run_on_folder_with(&disk, &mut index, "update_properties", &arguments, &Progress::none()).unwrap_err();
        assert_eq!(refusal.code, "concurrent_modification", "{refusal:?}");
        assert_eq!(fs::read_to_string(&note).unwrap(), "---\nrole: other\n---\nsaved meanwhile\n");
    }

    /// The fault matrix of one call: every step of it fails in turn (each fault), and with an
    /// I/O error from the first change on the undo fails too (then recovery runs, as it does
    /// after a kill). Each time the vault is as it was, or `whole` holds (the change made whole);
    /// answers how many steps the call takes without a fault.
    fn fault_matrix(files: &[(&str, &str)], tool: &str, arguments: &Value, whole: impl Fn(&Path) -> bool) -> Option<usize> {
        // The changes kept for undo_change are the engine's: compared without them.
        let without_kept = |dir: &Path| -> Vec<(String, Vec<u8>)> {
            snapshot(dir).into_iter().filter(|(path, _)| !path.starts_with(".vaultlink")).collect()
        };
        let mut steps = None;
        for fault in Fault::ALL {
            for fail_at in 0..60 {
                // Steps 0-3 take the lock (the journal; 0-4 when it makes `.vaultlink`): from then on, the undo may fail too.
                for undo_fails in [false, true].into_iter().filter(|undo_fails| !undo_fails || (fail_at >= 4 && fault == Fault::Io)) {
                    let (dir, mut index) = vault(files);
                    let before = snapshot(dir.path());
                    let mut disk = FaultyDisk::new(fault, fail_at);
                    if undo_fails {
                        disk.also_fail = (fail_at + 1..fail_at + 100).collect();
                    }
                    let outcome = crate::tools::run_on_folder_with(&disk, &mut index, tool, arguments, &Progress::none());
                    if outcome.is_ok() {
                        // A fault after the change (keeping it for undo, tidying) leaves it whole.
                        assert!(whole(dir.path()), "{tool}: {fault:?} at step {fail_at}: {outcome:?}");
                        if !disk.failed.get() {
                            steps.get_or_insert(fail_at);
                        }
                        continue;
                    }
                    // What the failed batch could not undo, recovery (by the next process) undoes.
                    journal::recover(&RealDisk, index.root()).unwrap();
                    assert_eq!(without_kept(dir.path()), before, "{tool}: {fault:?} at step {fail_at}, undo failing: {undo_fails}");
                }
            }
        }
        steps
    }

    /// `commit_wiki_page` on a disk that fails at each step in turn, and again with the undo
    /// failing too (as a process killed part way leaves it, journal and all, for recovery):
    /// the vault is as it was, or holds the page and the patch whole; never a page without its
    /// patch or a patch without its page.
    #[test]
    fn a_page_commit_that_fails_or_stops_at_any_step_leaves_the_vault_as_it_was_or_committed() {
        let files: &[(&str, &str)] = &[("Graph.md", "# Graph\n"), ("Tree.md", "# Tree\n")];
        let arguments = json!({
            "page": {"path": "wiki/Forest", "frontmatter": {"related": "[[Tree]]"}, "body": "# Forest\n[[Graph]]\n"},
            "patches": [{"path": "Graph", "kind": "link"}],
            "dry_run": false
        });
        let committed = |dir: &Path| {
            fs::read_to_string(dir.join("wiki/Forest.md")).ok().as_deref() == Some("---\nrelated: \"[[Tree]]\"\n---\n# Forest\n[[Graph]]\n")
                && fs::read_to_string(dir.join("Graph.md")).unwrap() == "# Graph\n\n## See also\n\n- [[Forest]]\n"
        };
        let steps = fault_matrix(files, "commit_wiki_page", &arguments, committed);
        assert!(steps.is_some_and(|steps| steps >= 6), "the commit takes several steps: {steps:?}");

        // A file saved at the page's path after the check is never replaced.
        let (dir, mut index) = vault(files);
        let page = dir.path().join("wiki/Forest.md");
        let disk = Hooked(|operation: &str, path: &Path| {
            if operation == "rename_new" && path.ends_with("Forest.md") && !page.exists() {
                fs::write(&page, "someone else's page\n").unwrap();
            }
        });
        let refusal = crate::tools::run_on_folder_with(&disk, &mut index, "commit_wiki_page", &arguments, &Progress::none()).unwrap_err();
        assert_eq!(refusal.code, "destination_exists", "{refusal:?}");
        assert!(refusal.message.starts_with("creating wiki/Forest.md failed: `wiki/Forest.md` is taken"), "{refusal:?}");
        assert_eq!(fs::read_to_string(&page).unwrap(), "someone else's page\n");
        assert_eq!(fs::read_to_string(dir.path().join("Graph.md")).unwrap(), "# Graph\n", "the patch is undone");
    }

    /// `undo_change` on a disk that fails at each step in turn: the vault is as the change left
    /// it (and the change is still kept, so the undo can be tried again), or as it was before
    /// the change, never a mix. The change is a commit and a move, so the undo writes, moves
    /// back and removes.
    #[test]
    fn an_undo_that_fails_at_any_step_leaves_the_change_in_place_or_wholly_undone() {
        let files: &[(&str, &str)] = &[("Graph.md", "# Graph\n"), ("Old.md", "[[Graph]]\n")];
        let commit = json!({"page": {"path": "wiki/Forest", "body": "# Forest\n[[Graph]]\n"}, "patches": [{"path": "Graph", "kind": "link"}], "dry_run": false});
        let moved = json!({"from": "Old.md", "to": "deep/New.md", "dry_run": false});
        let mut steps = None;
        for fault in Fault::ALL {
            for fail_at in 0..60 {
                let (dir, mut index) = vault(files);
                let start = snapshot(dir.path());
                for (tool, arguments) in [("commit_wiki_page", &commit), ("move_note", &moved)] {
                    crate::tools::run_on_folder_with(&RealDisk, &mut index, tool, arguments, &Progress::none()).unwrap();
                }
                let changed = snapshot(dir.path());
                let disk = FaultyDisk::new(fault, fail_at);
                let undo = |disk: &dyn Disk, index: &mut FolderIndex| {
                    crate::tools::run_on_folder_with(disk, index, "undo_change", &json!({"dry_run": false}), &Progress::none())
                };
                let outcome = undo(&disk, &mut index);
                let now = snapshot(dir.path());
                let kept = crate::history::kept_changes(index.root()).len();
                match outcome {
                    Ok(answer) => {
                        assert_eq!(answer["tool"], "move_note");
                        let without_kept = |files: &[(String, Vec<u8>)]| -> Vec<(String, Vec<u8>)> {
                            files.iter().filter(|(path, _)| !path.starts_with(".vaultlink")).cloned().collect()
                        };
                        let after_commit: Vec<(String, Vec<u8>)> = {
                            let (other, mut second) = vault(files);
                            crate::tools::run_on_folder_with(&RealDisk, &mut second, "commit_wiki_page", &commit, &Progress::none())
                                .unwrap();
                            without_kept(&snapshot(other.path()))
                        };
                        assert_eq!(without_kept(&now), after_commit, "{fault:?} at step {fail_at}: the move is wholly undone");
                        if !disk.failed.get() {
                            steps.get_or_insert(fail_at);
                            assert_eq!(kept, 1, "the undone move is no longer kept");
                            // And the commit undoes too, back to the start.
                            undo(&RealDisk, &mut index).unwrap();
                            let back: Vec<(String, Vec<u8>)> =
                                snapshot(dir.path()).into_iter().filter(|(path, _)| !path.starts_with(".vaultlink")).collect();
                            assert_eq!(back, start);
                        }
                    }
                    Err(error) => {
                        assert_eq!(error.code, "write_failed", "{error:?}");
                        assert_eq!(now, changed, "{fault:?} at step {fail_at}: the change stays as it was");
                        assert_eq!(kept, 2, "both changes are still kept");
                    }
                }
            }
        }
        assert!(steps.is_some_and(|steps| steps >= 4), "the undo takes several steps: {steps:?}");
    }

    /// Issue 34: after `A.md -> Sub/Renamed.md`, a new note `D.md` said `[[Renamed]]`; undoing
    /// listed only the change's own files and left D's link broken. The moves back are planned
    /// as moves, so D's link follows A back; and the undo of a page that a note links since is
    /// refused, naming the link, unless `force`.
    #[test]
    fn an_undo_keeps_the_links_made_since_the_change() {
        let (dir, mut index) = vault(&[("A.md", "# A\n"), ("B.md", "[[A]]\n")]);
        let run = |index: &mut FolderIndex, tool: &str, arguments: Value| {
            crate::tools::run_on_folder_with(&RealDisk, index, tool, &arguments, &Progress::none())
        };
        run(&mut index, "move_note", json!({"from": "A.md", "to": "Sub/Renamed.md", "dry_run": false})).unwrap();
        fs::write(dir.path().join("D.md"), "See [[Renamed]].\n").unwrap();
        index.refresh().unwrap();
        let undone = run(&mut index, "undo_change", json!({"dry_run": false})).unwrap();
        assert_eq!(undone["relinked"], json!(["D.md"]), "{undone}");
        assert_eq!(fs::read_to_string(dir.path().join("D.md")).unwrap(), "See [[A]].\n");
        assert_eq!(fs::read_to_string(dir.path().join("B.md")).unwrap(), "[[A]]\n");
        assert!(dir.path().join("A.md").exists() && !dir.path().join("Sub").exists());

        let page = json!({"page": {"path": "Page", "body": "text\n"}, "dry_run": false});
        run(&mut index, "commit_wiki_page", page).unwrap();
        fs::write(dir.path().join("E.md"), "About [[Page]].\n").unwrap();
        index.refresh().unwrap();
        let refused = run(&mut index, "undo_change", json!({"dry_run": false})).unwrap_err();
        assert_eq!(refused.code, "undo_refused", "{refused:?}");
        assert!(refused.message.contains("`E.md` line 1 ([[Page]])"), "{refused:?}");
        assert!(dir.path().join("Page.md").exists(), "nothing was changed");
        let forced = run(&mut index, "undo_change", json!({"dry_run": false, "force": true})).unwrap();
        assert_eq!((forced["removed"].clone(), forced["backlinks"][0]["note"].clone()), (json!(["Page.md"]), json!("E.md")), "{forced}");
        assert!(!dir.path().join("Page.md").exists());
    }

    /// Issue 21: `undo_change` removed a file its change created by reading it, checking it and
    /// removing it, so a save between the check and the removal was lost. The file is now moved
    /// aside (a rename that never replaces), and what was moved aside is checked and removed only
    /// if it is what the change created.
    #[test]
    fn a_save_while_an_undo_removes_the_page_it_created_is_never_lost() {
        let files: &[(&str, &str)] = &[("Graph.md", "# Graph\n")];
        let commit = json!({"page": {"path": "wiki/Forest", "body": "# Forest\n[[Graph]]\n"}, "dry_run": false});
        let undo = |disk: &dyn Disk, index: &mut FolderIndex| {
            crate::tools::run_on_folder_with(disk, index, "undo_change", &json!({"dry_run": false}), &Progress::none())
        };
        let is_page = |path: &Path| path.file_name().is_some_and(|name| name.to_string_lossy().contains("Forest.md"));

        // Saved between the check and the removal: by path, so a new file, which stays.
        let (dir, mut index) = vault(files);
        crate::tools::run_on_folder_with(&RealDisk, &mut index, "commit_wiki_page", &commit, &Progress::none()).unwrap();
        let page = dir.path().join("wiki/Forest.md");
        let saved = std::cell::Cell::new(false);
        let disk = Hooked(|operation: &str, path: &Path| {
            if operation == "remove_file" && is_page(path) && !saved.get() {
                saved.set(true);
                fs::write(&page, "saved meanwhile\n").unwrap();
            }
        });
        let outcome = undo(&disk, &mut index);
        assert!(saved.get(), "the save was made");
        assert_eq!(fs::read_to_string(&page).ok().as_deref(), Some("saved meanwhile\n"), "the save is kept: {outcome:?}");
        assert!(outcome.is_ok(), "the page the change created is removed; the save came after: {outcome:?}");
        assert!(fs::read_dir(page.parent().unwrap())
            .unwrap()
            .flatten()
            .all(|entry| !entry.file_name().to_string_lossy().contains("aside")));

        // Saved just before it is moved aside: the check finds the save, which goes back in
        // place; the undo is refused and the change stays kept.
        let (dir, mut index) = vault(files);
        crate::tools::run_on_folder_with(&RealDisk, &mut index, "commit_wiki_page", &commit, &Progress::none()).unwrap();
        let page = dir.path().join("wiki/Forest.md");
        let disk = Hooked(|operation: &str, path: &Path| {
            if operation == "rename_new" && path.to_string_lossy().ends_with(".vaultlink-remove.aside") {
                fs::write(&page, "saved before\n").unwrap();
            }
        });
        let refusal = undo(&disk, &mut index).unwrap_err();
        assert_eq!(refusal.code, "undo_refused", "{refusal:?}");
        assert!(refusal.message.contains("wiki/Forest.md"), "{}", refusal.message);
        assert_eq!(fs::read_to_string(&page).unwrap(), "saved before\n");
        assert_eq!(crate::history::kept_changes(index.root()).len(), 1, "the change is still kept");
        assert!(!index.root().join(".vaultlink/journal.json").exists());

        // Stopped with the page moved aside (a kill): recovery puts it back.
        let (dir, mut index) = vault(files);
        crate::tools::run_on_folder_with(&RealDisk, &mut index, "commit_wiki_page", &commit, &Progress::none()).unwrap();
        let committed = snapshot(dir.path());
        let page = dir.path().join("wiki/Forest.md");
        let root = index.root().to_owned();
        let stop = Hooked(|operation: &str, path: &Path| {
            if operation == "remove_file" && path.to_string_lossy().ends_with(".vaultlink-remove.aside") {
                // As if killed here: the journal stays, and recovery finds the page aside.
                journal::recover(&RealDisk, &root).unwrap();
                panic!("stopped");
            }
        });
        let stopped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| undo(&stop, &mut index)));
        assert!(stopped.is_err(), "the undo was stopped with the page aside");
        assert_eq!(fs::read_to_string(&page).unwrap(), "# Forest\n[[Graph]]\n", "recovery put the page back");
        let now: Vec<(String, Vec<u8>)> = snapshot(dir.path()).into_iter().filter(|(path, _)| !path.starts_with(".vaultlink")).collect();
        let before: Vec<(String, Vec<u8>)> = committed.into_iter().filter(|(path, _)| !path.starts_with(".vaultlink")).collect();
        assert_eq!(now, before, "the vault is as the change left it");
    }

    /// A swap of two names (a bulk move's cycle, through a third name) on a disk that fails at
    /// each step in turn, and with the undo failing too (then recovery, as after a kill): the
    /// vault is as it was or swapped whole, never a third name or one file left behind.
    #[test]
    fn a_swap_that_fails_or_stops_at_any_step_leaves_the_vault_as_it_was_or_swapped() {
        let files: &[(&str, &str)] = &[("A.md", "[[B]]\n"), ("B.md", "[[A]]\n"), ("C.md", "[[A]] and [[B]]\n")];
        let arguments = json!({"moves": [{"from": "A", "to": "B"}, {"from": "B", "to": "A"}], "dry_run": false});
        let swapped = |dir: &Path| {
            ["A.md", "B.md", "C.md"].map(|name| fs::read_to_string(dir.join(name)).unwrap_or_default())
                == ["[[B]]\n", "[[A]]\n", "[[B]] and [[A]]\n"]
                && fs::read_dir(dir).unwrap().flatten().all(|entry| !entry.file_name().to_string_lossy().contains("swap"))
        };
        let steps = fault_matrix(files, "bulk_move_notes", &arguments, swapped);
        assert!(steps.is_some_and(|steps| steps >= 6), "the swap takes several steps: {steps:?}");
    }

    /// Issue 34 (high): the checks looked at paths, then each step was a rename by path, so a
    /// folder replaced by a symbolic link between the two carried a note out of the vault and the
    /// batch answered `applied`. The vault, a folder outside it that the link points to, and the
    /// place the real folder is moved to (outside the vault too, on the same filesystem).
    #[cfg(unix)]
    struct SwapScene {
        dir: tempfile::TempDir,
        index: FolderIndex,
        outside: tempfile::TempDir,
        /// Where the real folder goes while it is swapped (kept for the scene's life).
        _away: tempfile::TempDir,
        swap: crate::disk::testing::Swap,
    }

    #[cfg(unix)]
    impl SwapScene {
        /// `files` in a vault whose folder `folder` may be swapped for a link; the folder outside
        /// holds a file of its own, so that "untouched" means something.
        fn new(files: &[(&str, &str)], folder: &str) -> SwapScene {
            let (dir, index) = vault(files);
            let outside = tempfile::tempdir().unwrap();
            fs::write(outside.path().join("elsewhere.txt"), "not the vault's\n").unwrap();
            let away = tempfile::tempdir().unwrap();
            let swap = crate::disk::testing::Swap {
                folder: index.root().join(folder),
                away: away.path().join("moved away"),
                outside: outside.path().to_owned(),
            };
            SwapScene { dir, index, outside, _away: away, swap }
        }

        /// The outside folder holds only its own file, as it did; nothing of the vault's is
        /// anywhere outside it either (the folder moved away holds what the vault's held).
        fn assert_nothing_outside(&self, shown: &str, moved_away: &[(String, Vec<u8>)]) {
            assert_eq!(
                snapshot(self.outside.path()),
                vec![("elsewhere.txt".to_owned(), b"not the vault's\n".to_vec())],
                "{shown}: the folder outside is untouched"
            );
            if self.swap.away.exists() {
                assert_eq!(snapshot(&self.swap.away), moved_away, "{shown}: the folder moved away holds what it held");
            }
        }
    }

    /// The number of the step (counting every change through the `Disk` from 0) of `call` on a
    /// vault of `files` at which `pick(operation, paths)` first holds, the root given.
    #[cfg(unix)]
    fn step_where(
        files: &[(&str, &str)],
        prepare: &dyn Fn(&mut FolderIndex),
        call: &dyn Fn(&dyn Disk, &mut FolderIndex) -> Result<Value, ToolError>,
        pick: &dyn Fn(&Path, &str, &[PathBuf]) -> bool,
    ) -> usize {
        let (_dir, mut index) = vault(files);
        prepare(&mut index);
        let disk = crate::disk::testing::Recording::default();
        call(&disk, &mut index).unwrap();
        let operations = disk.operations.borrow();
        operations.iter().position(|(operation, paths)| pick(index.root(), operation, paths)).expect("the step is made")
    }

    /// A move into `Sub/`, with `Sub` swapped for a link to a folder outside the vault just
    /// before the move's step (after every check): the move is refused as going through a link,
    /// the batch undone, nothing reaches the folder outside, and once the folder is back the
    /// vault is as it was. The same swap just after the step (before the disk's check of it):
    /// the check finds the folder gone, the step is taken back, and the batch undone.
    #[cfg(unix)]
    #[test]
    fn a_folder_swapped_for_a_link_around_a_move_into_it_keeps_the_note_in_the_vault() {
        use crate::disk::testing::{SwapWhen, Swapping};
        let files: &[(&str, &str)] = &[("A.md", "[[payload]]\n"), ("payload.md", "# payload\n"), ("Sub/Keep.md", "# Keep\n")];
        let arguments = json!({"from": "payload.md", "to": "Sub/payload.md", "dry_run": false});
        let call = |disk: &dyn Disk, index: &mut FolderIndex| {
            crate::tools::run_on_folder_with(disk, index, "move_note", &arguments, &Progress::none())
        };
        let move_step = step_where(files, &|_| {}, &call, &|root, operation, paths| {
            operation == "rename_new" && paths[1] == root.join("Sub/payload.md")
        });
        for when in [SwapWhen::BeforeStep, SwapWhen::AfterStep] {
            let mut scene = SwapScene::new(files, "Sub");
            let before = snapshot(scene.dir.path());
            let moved_away = vec![("Keep.md".to_owned(), b"# Keep\n".to_vec())];
            let disk = Swapping::new(scene.swap.clone(), move_step, when);
            let refusal = call(&disk, &mut scene.index).unwrap_err();
            let shown = format!("swapped {when:?} the move (step {move_step})");
            assert!(scene.swap.made(), "{shown}: the folder was swapped");
            assert_eq!(refusal.code, "invalid_path", "{shown}: {refusal:?}");
            assert!(refusal.message.contains("`Sub`, a symbolic link"), "{shown}: {}", refusal.message);
            scene.check_after(&shown, &moved_away, &before);
        }
    }

    #[cfg(unix)]
    impl SwapScene {
        /// Nothing outside the vault was touched; with the folder put back (and an interrupted
        /// batch recovered, as the next process would), the vault is byte-identical to `before`.
        fn check_after(self, shown: &str, moved_away: &[(String, Vec<u8>)], before: &[(String, Vec<u8>)]) {
            self.assert_nothing_outside(shown, moved_away);
            self.swap.put_back();
            journal::recover(&RealDisk, self.index.root()).unwrap();
            assert_eq!(snapshot(self.dir.path()), before, "{shown}: the vault is as it was");
        }
    }

    /// A note rewritten in `Sub/`, `Sub` swapped for a link before the rewrite's first step (its
    /// new text written beside it) or just after it: the new text never lands outside the vault,
    /// the batch is undone, and the vault is as it was once the folder is back.
    #[cfg(unix)]
    #[test]
    fn a_folder_swapped_for_a_link_while_a_note_in_it_is_rewritten_keeps_the_text_in_the_vault() {
        use crate::disk::testing::{SwapWhen, Swapping};
        let files: &[(&str, &str)] = &[("Sub/A.md", "[[Old]]\n"), ("Old.md", "# Old\n")];
        let arguments = json!({"from": "Old.md", "to": "New.md", "dry_run": false});
        let call = |disk: &dyn Disk, index: &mut FolderIndex| {
            crate::tools::run_on_folder_with(disk, index, "move_note", &arguments, &Progress::none())
        };
        let first_write =
            step_where(files, &|_| {}, &call, &|root, operation, paths| operation == "write_new" && paths[0].starts_with(root.join("Sub")));
        for when in [SwapWhen::BeforeStep, SwapWhen::AfterStep] {
            let mut scene = SwapScene::new(files, "Sub");
            let before = snapshot(scene.dir.path());
            let disk = Swapping::new(scene.swap.clone(), first_write, when);
            let refusal = call(&disk, &mut scene.index).unwrap_err();
            let shown = format!("swapped {when:?} the rewrite's first step ({first_write})");
            assert!(scene.swap.made(), "{shown}");
            assert_eq!(refusal.code, "invalid_path", "{shown}: {refusal:?}");
            let moved_away = vec![("A.md".to_owned(), b"[[Old]]\n".to_vec())];
            scene.check_after(&shown, &moved_away, &before);
        }
    }

    /// A wiki page created in `wiki/`, `wiki` swapped for a link before the page's first step
    /// or just after it: the page is never written outside the vault, and the commit (its patch
    /// too) is undone.
    #[cfg(unix)]
    #[test]
    fn a_folder_swapped_for_a_link_while_a_page_is_created_in_it_keeps_the_page_in_the_vault() {
        use crate::disk::testing::{SwapWhen, Swapping};
        let files: &[(&str, &str)] = &[("Graph.md", "# Graph\n"), ("wiki/Tree.md", "# Tree\n")];
        let arguments = json!({
            "page": {"path": "wiki/Forest", "body": "# Forest\n[[Graph]]\n"},
            "patches": [{"path": "Graph", "kind": "link"}],
            "dry_run": false
        });
        let call = |disk: &dyn Disk, index: &mut FolderIndex| {
            crate::tools::run_on_folder_with(disk, index, "commit_wiki_page", &arguments, &Progress::none())
        };
        let page_steps: Vec<usize> = {
            let first = step_where(files, &|_| {}, &call, &|root, operation, paths| {
                operation == "write_new" && paths[0].starts_with(root.join("wiki"))
            });
            let last = step_where(files, &|_| {}, &call, &|root, operation, paths| {
                operation == "rename_new" && paths[1] == root.join("wiki/Forest.md")
            });
            vec![first, last]
        };
        for step in page_steps {
            for when in [SwapWhen::BeforeStep, SwapWhen::AfterStep] {
                let mut scene = SwapScene::new(files, "wiki");
                let before = snapshot(scene.dir.path());
                let disk = Swapping::new(scene.swap.clone(), step, when);
                let refusal = call(&disk, &mut scene.index).unwrap_err();
                let shown = format!("swapped {when:?} step {step} of the page");
                assert!(scene.swap.made(), "{shown}");
                let mut moved_away = vec![("Tree.md".to_owned(), b"# Tree\n".to_vec())];
                if refusal.code == "write_failed" {
                    // Swapped after the page's text was written beside it, in the vault: it left
                    // with the folder. The undo cannot look behind the link, so it stops, and
                    // the journal is kept for when the folder is back.
                    assert!(
                        refusal.message.contains("`wiki` is a symbolic link") && refusal.message.contains("failed in part"),
                        "{shown}: {refusal:?}"
                    );
                    let temporary = snapshot(&scene.swap.away).into_iter().find(|(path, _)| path.starts_with(".Forest.md."));
                    let temporary = temporary.unwrap_or_else(|| panic!("{shown}: {refusal:?} {:?}", snapshot(&scene.swap.away)));
                    assert_eq!(temporary.1, b"# Forest\n[[Graph]]\n", "{shown}");
                    moved_away.insert(0, temporary);
                } else {
                    assert_eq!(refusal.code, "invalid_path", "{shown}: {refusal:?}");
                }
                scene.check_after(&shown, &moved_away, &before);
            }
        }
    }

    /// The undo path: `undo_change` of a move into `Sub/`, and recovery of a batch interrupted
    /// after it, with `Sub` swapped for a link just before the step that moves the note back:
    /// the step is refused, nothing is taken from or put outside the vault, and the change (or
    /// its journal) stays, to be undone once the folder is back.
    #[cfg(unix)]
    #[test]
    fn a_folder_swapped_for_a_link_during_an_undo_or_a_recovery_moves_nothing_through_it() {
        use crate::disk::testing::{SwapWhen, Swapping};
        let files: &[(&str, &str)] = &[("A.md", "[[payload]]\n"), ("payload.md", "# payload\n"), ("Sub/Keep.md", "# Keep\n")];
        let moved = json!({"from": "payload.md", "to": "Sub/payload.md", "dry_run": false});
        let apply = |index: &mut FolderIndex| {
            crate::tools::run_on_folder_with(&RealDisk, index, "move_note", &moved, &Progress::none()).unwrap();
        };
        let undo = |disk: &dyn Disk, index: &mut FolderIndex| {
            crate::tools::run_on_folder_with(disk, index, "undo_change", &json!({"dry_run": false}), &Progress::none())
        };
        let back_step = step_where(files, &apply, &undo, &|root, operation, paths| {
            operation == "rename_new" && paths[0] == root.join("Sub/payload.md")
        });
        let mut scene = SwapScene::new(files, "Sub");
        let start = snapshot(scene.dir.path());
        apply(&mut scene.index);
        let changed = snapshot(scene.dir.path());
        let disk = Swapping::new(scene.swap.clone(), back_step, SwapWhen::BeforeStep);
        let refusal = undo(&disk, &mut scene.index).unwrap_err();
        assert!(scene.swap.made());
        assert_eq!(refusal.code, "invalid_path", "{refusal:?}");
        let moved_away = vec![("Keep.md".to_owned(), b"# Keep\n".to_vec()), ("payload.md".to_owned(), b"# payload\n".to_vec())];
        scene.assert_nothing_outside("undo_change", &moved_away);
        scene.swap.put_back();
        assert_eq!(snapshot(scene.dir.path()), changed, "the change stands, still kept for undo");
        undo(&RealDisk, &mut scene.index).unwrap();
        let now: Vec<(String, Vec<u8>)> =
            snapshot(scene.dir.path()).into_iter().filter(|(path, _)| !path.starts_with(".vaultlink")).collect();
        assert_eq!(now, start, "undone once the folder is back");

        // Recovery: the batch stopped with the note moved and its undo failing (the journal
        // left, as a kill leaves it); `Sub` swapped just before recovery moves the note back.
        let stopped = |index: &mut FolderIndex| {
            let mut disk = FaultyDisk::new(Fault::Io, 0);
            let move_step = step_where(
                files,
                &|_| {},
                &|disk, index| crate::tools::run_on_folder_with(disk, index, "move_note", &moved, &Progress::none()),
                &|root, operation, paths| operation == "rename_new" && paths[1] == root.join("Sub/payload.md"),
            );
            disk.fail_at = move_step + 1;
            disk.also_fail = (move_step + 2..move_step + 200).collect();
            let error = crate::tools::run_on_folder_with(&disk, index, "move_note", &moved, &Progress::none()).unwrap_err();
            assert!(error.message.contains("failed in part"), "{error:?}");
        };
        let recover = |disk: &dyn Disk, index: &mut FolderIndex| journal::recover(disk, index.root()).map(|_| Value::Null);
        let back_step = step_where(files, &stopped, &recover, &|root, operation, paths| {
            operation == "rename_new" && paths[0] == root.join("Sub/payload.md")
        });
        let mut scene = SwapScene::new(files, "Sub");
        let before = snapshot(scene.dir.path());
        stopped(&mut scene.index);
        let disk = Swapping::new(scene.swap.clone(), back_step, SwapWhen::BeforeStep);
        let refusal = journal::recover(&disk, scene.index.root()).unwrap_err();
        assert!(scene.swap.made());
        assert_eq!(refusal.code, "recovery_failed", "{refusal:?}");
        assert!(refusal.message.contains("`Sub` is a symbolic link"), "{}", refusal.message);
        assert!(
            matches!(journal::find(scene.index.root()), journal::Found::Refused { .. }),
            "the journal is kept, and refused while `Sub` is a link"
        );
        scene.check_after("recovery", &moved_away, &before);
    }

    /// The swap at every step of a batch that rewrites a note in `Sub/` and moves a note into it,
    /// before the step and just after it: nothing ever reaches the folder outside, and the batch
    /// answers `applied` only when it was whole in the vault at its last look (then, with the
    /// folder back, the vault is as after the change); otherwise it answers an error, and with
    /// the folder back (and a journal it had to leave recovered) the vault is as it was.
    #[cfg(unix)]
    #[test]
    fn a_folder_swapped_for_a_link_at_any_step_never_carries_a_write_out_of_the_vault() {
        use crate::disk::testing::{SwapWhen, Swapping};
        let files: &[(&str, &str)] =
            &[("Home.md", "[[payload]]\n"), ("Sub/A.md", "[[payload]] here\n"), ("payload.md", "# payload\n"), ("Sub/Keep.md", "# Keep\n")];
        let arguments = json!({"from": "payload.md", "to": "Sub/payload.md", "dry_run": false});
        let without_kept = |files: Vec<(String, Vec<u8>)>| -> Vec<(String, Vec<u8>)> {
            files.into_iter().filter(|(path, _)| !path.starts_with(".vaultlink")).collect()
        };
        let after = {
            let (dir, mut index) = vault(files);
            crate::tools::run_on_folder_with(&RealDisk, &mut index, "move_note", &arguments, &Progress::none()).unwrap();
            without_kept(snapshot(dir.path()))
        };
        let (mut applied, mut refused) = (0, 0);
        for when in [SwapWhen::BeforeStep, SwapWhen::AfterStep] {
            for swap_at in 0.. {
                let mut scene = SwapScene::new(files, "Sub");
                let before = snapshot(scene.dir.path());
                let disk = Swapping::new(scene.swap.clone(), swap_at, when);
                let outcome = crate::tools::run_on_folder_with(&disk, &mut scene.index, "move_note", &arguments, &Progress::none());
                if swap_at >= disk.steps.get() {
                    outcome.unwrap();
                    assert!(swap_at >= 10, "the batch has {swap_at} steps");
                    break;
                }
                if !scene.swap.made() {
                    // A step with no check after it (a removal, a sync): nothing was swapped.
                    assert_eq!(when, SwapWhen::AfterStep);
                    continue;
                }
                let shown = format!("swapped {when:?} step {swap_at}: {outcome:?}");
                assert_eq!(
                    snapshot(scene.outside.path()),
                    vec![("elsewhere.txt".to_owned(), b"not the vault's\n".to_vec())],
                    "{shown}: the folder outside is untouched"
                );
                scene.swap.put_back();
                match outcome {
                    Ok(answer) => {
                        assert_eq!(answer["applied"], true, "{shown}");
                        assert_eq!(without_kept(snapshot(scene.dir.path())), after, "{shown}");
                        applied += 1;
                    }
                    Err(error) => {
                        assert!(
                            error.code == "invalid_path"
                                || error.message.contains("is a symbolic link")
                                || error.message.contains("was moved or replaced"),
                            "{shown}"
                        );
                        journal::recover(&RealDisk, scene.index.root()).unwrap();
                        assert_eq!(snapshot(scene.dir.path()), before, "{shown}: the vault is as it was");
                        refused += 1;
                    }
                }
            }
        }
        assert!(refused >= 8 && applied >= 1, "{refused} refused, {applied} applied");
    }

    /// A delete whose `.trash` is swapped for a link to a folder outside the vault after the
    /// look and before the note's one rename into it: refused as going through a link, the note
    /// stays where it was, and nothing reaches the folder outside.
    #[cfg(unix)]
    #[test]
    fn a_trash_swapped_for_a_link_before_the_delete_keeps_the_note_in_the_vault() {
        use crate::disk::testing::{SwapWhen, Swapping};
        let files: &[(&str, &str)] = &[("Gone.md", "# Gone\n"), (".trash/Earlier.md", "# Earlier\n")];
        let arguments = json!({"path": "Gone.md", "confirm": true, "force": true});
        let trash_step = step_where(files, &|_| {}, &|disk, index| delete_note_on(disk, index, &arguments), &|root, operation, paths| {
            operation == "rename_new" && paths[1].starts_with(root.join(".trash"))
        });
        for when in [SwapWhen::BeforeStep, SwapWhen::AfterStep] {
            let mut scene = SwapScene::new(files, ".trash");
            let before = snapshot(scene.dir.path());
            let disk = Swapping::new(scene.swap.clone(), trash_step, when);
            let refusal = delete_note_on(&disk, &mut scene.index, &arguments).unwrap_err();
            let shown = format!("swapped {when:?} the move to the trash");
            assert!(scene.swap.made(), "{shown}");
            assert_eq!(refusal.code, "invalid_path", "{shown}: {refusal:?}");
            assert!(refusal.message.contains("`.trash`, a symbolic link"), "{shown}: {}", refusal.message);
            scene.check_after(&shown, &[("Earlier.md".to_owned(), b"# Earlier\n".to_vec())], &before);
        }
    }

    /// Runs the test `test_name` again as a child with `variable` set to `value`, and kills it
    /// once it says it holds at its step (`HOLD `): whether it held (`false`: it ran to `DONE`).
    fn run_child_killed_where_it_holds(test_name: &str, variable: &str, value: &str) -> bool {
        use std::io::BufRead;
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args([test_name, "--exact", "--nocapture", "--test-threads=1"])
            .env(variable, value)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut held = None;
        for line in std::io::BufReader::new(child.stdout.take().unwrap()).lines() {
            let line = line.unwrap();
            if line.contains("HOLD ") {
                held = Some(true);
                child.kill().unwrap();
                break;
            }
            if line.ends_with("DONE") {
                held = Some(false);
            }
        }
        // The test harness may print the test's name on the same line as `HOLD `, and a child
        // that ran to `DONE` is read to its end, so the harness can finish writing.
        assert!(held.is_some(), "the child ended without holding: {:?}", child.wait());
        let status = child.wait().unwrap();
        assert!(held == Some(true) || status.success(), "the child that ran to its end failed: {status}");
        held == Some(true)
    }

    /// The kept changes' files, by name, in `root`.
    fn records(root: &Path) -> Vec<String> {
        let folder = root.join(vaultlink_core::history::CHANGES_FOLDER);
        let mut names: Vec<String> = fs::read_dir(folder)
            .map(|entries| entries.flatten().map(|entry| entry.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        names.sort();
        names
    }

    /// Issue 34 (red team): a change kept for `undo_change` was sealed exactly as a journal is,
    /// so a kept change copied to `.vaultlink/journal.json` passed every check and the next read
    /// "recovered" it, reverting a change made long before. A kept change is never a journal.
    #[test]
    fn a_kept_change_copied_to_the_journal_is_never_acted_on() {
        let (dir, mut index) = vault(&[("A.md", "[[Old]]\n"), ("Old.md", "# Old\n")]);
        move_note(&mut index, &json!({"from": "Old", "to": "New", "dry_run": false})).unwrap();
        let kept = records(index.root());
        assert_eq!(kept.len(), 1, "the move is kept for undo_change");
        let record = dir.path().join(".vaultlink/changes").join(&kept[0]);
        fs::copy(&record, dir.path().join(".vaultlink/journal.json")).unwrap();
        let before = snapshot(dir.path());
        assert!(journal::recover_if_interrupted(index.root()).unwrap().is_none(), "the next read acts on nothing");
        let refusal = journal::recover(&RealDisk, index.root()).expect_err("`vaultlink recover` refuses it");
        assert_eq!(refusal.code, "recovery_failed");
        assert!(refusal.message.contains("kept for undo_change"), "{}", refusal.message);
        assert_eq!(snapshot(dir.path()), before, "the move stands, and the copied file is left for the user");
    }

    /// Issue 34: a journal that is a change's own, saved while the change was made (a sync
    /// service's copy of the vault taken at that moment) and put back after later changes, names
    /// a change that was made and kept: it is no interrupted change, and is never acted on.
    #[test]
    fn a_journal_put_back_after_its_change_was_kept_is_never_acted_on() {
        let (dir, mut index) = vault(&[("A.md", "[[Old]] [[Other]]\n"), ("Old.md", "# Old\n"), ("Other.md", "# Other\n")]);
        let journal_file = index.root().join(".vaultlink/journal.json");
        let saved = std::cell::RefCell::new(None);
        let copying = Hooked(|operation: &str, path: &Path| {
            if operation == "remove_file" && path == journal_file && saved.borrow().is_none() {
                *saved.borrow_mut() = fs::read(path).ok();
            }
        });
        crate::tools::run_on_folder_with(
            &copying,
            &mut index,
            "move_note",
            &json!({"from": "Old", "to": "New", "dry_run": false}),
            &Progress::none(),
        )
        .unwrap();
        move_note(&mut index, &json!({"from": "Other", "to": "Elsewhere", "dry_run": false})).unwrap();
        fs::write(&journal_file, saved.borrow().clone().expect("the journal was copied")).unwrap();
        let before = snapshot(dir.path());
        assert!(journal::recover_if_interrupted(index.root()).unwrap().is_none(), "the next read acts on nothing");
        let refusal = journal::recover(&RealDisk, index.root()).expect_err("`vaultlink recover` refuses it");
        assert!(refusal.message.contains("was made and kept"), "{}", refusal.message);
        assert_eq!(snapshot(dir.path()), before);
    }

    /// Issue 34: a journal, or a kept change, of 1 GiB (a sparse file) was read whole by every
    /// call, or by `undo_change`. Past core's bound it is refused from its size alone, named,
    /// and left where it is.
    #[test]
    fn a_journal_or_a_kept_change_past_the_bound_is_refused_by_its_size() {
        let (dir, mut index) = vault(&[("A.md", "[[Old]]\n"), ("Old.md", "# Old\n")]);
        move_note(&mut index, &json!({"from": "Old", "to": "New", "dry_run": false})).unwrap();
        let huge = dir
            .path()
            .join(".vaultlink/changes")
            .join(vaultlink_core::history::record_name(9_999_999_999_999, "ff").rsplit('/').next().unwrap());
        fs::File::create(&huge).unwrap().set_len(1 << 30).unwrap();
        let kept = crate::history::kept_changes(index.root());
        assert_eq!(kept.len(), 1, "the sparse record is not used for undo; the move's is");
        // Newer than the move, it stands in the way of an undo without an id (issue 36), named
        // with its size; the move is undone by its id.
        let refused = crate::tools::run_on_folder_with(&RealDisk, &mut index, "undo_change", &json!({}), &Progress::none()).unwrap_err();
        assert_eq!(refused.code, "undo_refused");
        assert!(refused.message.contains("1073741824 bytes"), "{}", refused.message);
        let by_id = json!({"change_id": kept[0].journal.change_id});
        let answer = crate::tools::run_on_folder_with(&RealDisk, &mut index, "undo_change", &by_id, &Progress::none()).unwrap();
        assert_eq!(answer["tool"], "move_note");
        fs::remove_file(&huge).unwrap();

        let journal_file = dir.path().join(".vaultlink/journal.json");
        fs::File::create(&journal_file).unwrap().set_len(1 << 30).unwrap();
        let before = snapshot_without_journal(dir.path());
        assert!(journal::recover_if_interrupted(index.root()).unwrap().is_none());
        let refusal = journal::recover(&RealDisk, index.root()).expect_err("refused");
        assert!(refusal.message.contains("1073741824 bytes"), "{}", refusal.message);
        assert!(refusal.message.contains("left alone"), "{}", refusal.message);
        let writing = move_note(&mut index, &json!({"from": "A", "to": "B", "dry_run": false})).unwrap_err();
        assert_eq!(writing.code, "interrupted_change", "{writing:?}");
        assert_eq!(snapshot_without_journal(dir.path()), before);
        assert_eq!(fs::metadata(&journal_file).unwrap().len(), 1 << 30, "the file is left for the user");
    }

    /// A snapshot that leaves out a (sparse, huge) journal.
    fn snapshot_without_journal(dir: &Path) -> Vec<(String, Vec<u8>)> {
        let journal = dir.join(".vaultlink/journal.json");
        let saved = dir.join("journal.json.away");
        fs::rename(&journal, &saved).unwrap();
        let files = snapshot(dir).into_iter().filter(|(path, _)| path != "journal.json.away").collect();
        fs::rename(&saved, &journal).unwrap();
        files
    }

    /// Set in the child process of the keep kill test: `<step> <vault>`.
    const KEEP_KILL_CHILD: &str = "VAULTLINK_TEST_KEEP_KILL_CHILD";

    /// Issue 34: the change was kept for `undo_change` after its journal was removed, so a process
    /// killed in between left a change made that could not be undone. Keeping is part of the
    /// commit: killed at any step, the change is undone by recovery (and not kept), or made and
    /// kept, and `undo_change` then undoes it.
    #[test]
    fn a_change_killed_at_any_step_is_undone_or_kept() {
        let files: &[(&str, &str)] = &[("A.md", "[[Old]]\n"), ("Old.md", "# Old\n")];
        let arguments = json!({"from": "Old", "to": "deep/New", "dry_run": false});
        if let Ok(child) = std::env::var(KEEP_KILL_CHILD) {
            let (hold_at, root) = child.split_once(' ').unwrap();
            let mut index = FolderIndex::new(PathBuf::from(root));
            index.refresh().unwrap();
            let disk = crate::disk::testing::HoldingDisk { hold_at: hold_at.parse().unwrap(), steps: std::cell::Cell::new(0) };
            crate::tools::run_on_folder_with(&disk, &mut index, "move_note", &arguments, &Progress::none()).unwrap();
            println!("\nDONE");
            return;
        }
        let test_name = "apply::tests::a_change_killed_at_any_step_is_undone_or_kept";
        let outside = |files: Vec<(String, Vec<u8>)>| -> Vec<(String, Vec<u8>)> {
            files.into_iter().filter(|(path, _)| !path.starts_with(".vaultlink")).collect()
        };
        let mut made = false;
        for hold_at in 0..80 {
            let (dir, index) = vault(files);
            let before = snapshot(dir.path());
            let held = run_child_killed_where_it_holds(test_name, KEEP_KILL_CHILD, &format!("{hold_at} {}", index.root().display()));
            // As the next start does, once the lease has run out.
            journal::expire_lease(index.root());
            let mut next = FolderIndex::new(index.root().to_owned());
            next.refresh().unwrap();
            assert!(!dir.path().join(".vaultlink/journal.json").exists(), "killed before step {hold_at}: no journal left");
            let now = snapshot(dir.path());
            if outside(now.clone()) == outside(before.clone()) {
                assert!(records(index.root()).is_empty(), "killed before step {hold_at}: undone, and not kept");
            } else {
                made = true;
                assert_eq!(records(index.root()).len(), 1, "killed before step {hold_at}: made, and kept");
                crate::tools::run_on_folder_with(&RealDisk, &mut next, "undo_change", &json!({"dry_run": false}), &Progress::none())
                    .unwrap_or_else(|error| panic!("killed before step {hold_at}: the kept change undoes: {error:?}"));
                assert_eq!(outside(snapshot(dir.path())), outside(before), "killed before step {hold_at}: undone");
            }
            if !held {
                assert!(made && hold_at >= 8, "the change took {hold_at} steps");
                return;
            }
        }
        panic!("the change took more than 80 steps");
    }

    /// Set in the child process of the undo kill test: `<step> <vault>`.
    const UNDO_KILL_CHILD: &str = "VAULTLINK_TEST_UNDO_KILL_CHILD";

    /// An undo forgot the change it consumed after its journal was removed, so a kill in between
    /// left the change undone but still kept: every later `undo_change` picked it and was
    /// refused. Forgetting is part of the undo's commit too: killed at any step, the change is
    /// still made and kept, or undone and forgotten.
    #[test]
    fn an_undo_killed_at_any_step_leaves_the_change_kept_or_undone_and_forgotten() {
        let files: &[(&str, &str)] = &[("A.md", "[[Old]]\n"), ("Old.md", "# Old\n")];
        let undo = json!({"dry_run": false});
        if let Ok(child) = std::env::var(UNDO_KILL_CHILD) {
            let (hold_at, root) = child.split_once(' ').unwrap();
            let mut index = FolderIndex::new(PathBuf::from(root));
            index.refresh().unwrap();
            let disk = crate::disk::testing::HoldingDisk { hold_at: hold_at.parse().unwrap(), steps: std::cell::Cell::new(0) };
            crate::tools::run_on_folder_with(&disk, &mut index, "undo_change", &undo, &Progress::none()).unwrap();
            println!("\nDONE");
            return;
        }
        let test_name = "apply::tests::an_undo_killed_at_any_step_leaves_the_change_kept_or_undone_and_forgotten";
        let outside = |files: Vec<(String, Vec<u8>)>| -> Vec<(String, Vec<u8>)> {
            files.into_iter().filter(|(path, _)| !path.starts_with(".vaultlink")).collect()
        };
        for hold_at in 0..80 {
            let (dir, mut index) = vault(files);
            let before = outside(snapshot(dir.path()));
            move_note(&mut index, &json!({"from": "Old", "to": "deep/New", "dry_run": false})).unwrap();
            let moved = outside(snapshot(dir.path()));
            let held = run_child_killed_where_it_holds(test_name, UNDO_KILL_CHILD, &format!("{hold_at} {}", index.root().display()));
            journal::expire_lease(index.root());
            let mut next = FolderIndex::new(index.root().to_owned());
            next.refresh().unwrap();
            let now = outside(snapshot(dir.path()));
            let kept = crate::history::kept_changes(index.root()).len();
            if now == moved {
                assert_eq!(kept, 1, "killed before step {hold_at}: the change stands, and is kept");
            } else {
                assert_eq!(now, before, "killed before step {hold_at}: undone whole");
                assert_eq!(kept, 0, "killed before step {hold_at}: undone, and forgotten");
                // Made, the undo leaves the change it consumed set aside, the record that it was
                // made (a retried undo is answered by it), and nothing else; the next change is
                // kept beside it.
                move_note(&mut next, &json!({"from": "A", "to": "B", "dry_run": false})).unwrap();
                let left = records(index.root());
                assert_eq!(left.len(), 2, "killed before step {hold_at}: {left:?}");
                assert_eq!(crate::history::undone_changes(index.root()).len(), 1, "killed before step {hold_at}: {left:?}");
            }
            if !held {
                assert!(hold_at >= 6, "the undo took {hold_at} steps");
                return;
            }
        }
        panic!("the undo took more than 80 steps");
    }

    /// A kept change is never written through a symbolic link: `.vaultlink/changes` leading out
    /// of the vault refuses the change, undone, and nothing is written outside.
    #[cfg(unix)]
    #[test]
    fn a_change_is_never_kept_through_a_symbolic_link() {
        let (dir, mut index) = vault(&[("A.md", "[[Old]]\n"), ("Old.md", "# Old\n")]);
        let outside = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join(".vaultlink")).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join(".vaultlink/changes")).unwrap();
        let before = snapshot(dir.path());
        let refusal = move_note(&mut index, &json!({"from": "Old", "to": "New", "dry_run": false})).unwrap_err();
        // Core names the kept changes' folder among the paths to guard: refused before any change.
        assert_eq!(refusal.code, "invalid_path", "{refusal:?}");
        assert!(refusal.message.contains("goes through `.vaultlink/changes`, a symbolic link"), "{}", refusal.message);
        assert_eq!(snapshot(dir.path()), before, "nothing was changed");
        assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0, "nothing was written outside");
    }
}
