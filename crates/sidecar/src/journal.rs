//! The journal of a change being applied to the vault folder, and recovery from it.
//!
//! Before the first change of a batch (a move, a rewrite), `apply` writes
//! `<vault>/.vaultlink/journal.json`: the pre-image of every note it will rewrite, the hash of
//! what it will write, every file move, and every folder it will create. The file is created
//! exclusively and synced, so it also keeps a second writer out. It is removed once the batch is
//! done; that removal is the moment the batch counts as applied.
//!
//! A journal left behind means a batch was interrupted (the process was killed, the machine
//! lost power, or undoing a failed step failed too). [`recover`] undoes it from the state it
//! finds, whatever step the interruption came at: temporary files removed, moved files moved
//! back, each rewritten note given its pre-image back if it still holds what the batch wrote.
//! A note edited by someone since keeps that edit, and its pre-image is saved under
//! `.vaultlink/recovered/` instead of being lost. Recovery can itself be interrupted and run
//! again. It runs by itself before the sidecar next reads the folder (once the journal's lease
//! has run out: core's `lease::judge`, never a pid), and on demand with `vaultlink recover <vault>`.
//!
//! A journal found in a vault is untrusted input: it may have come with the vault from
//! anywhere. Its format and seal are core's (`vaultlink_core::journal`): recovery acts only on a
//! journal sealed as a journal (never a kept change: the seal covers its purpose) with a key file
//! of this copy of the vault (`seal_keys`: a vault copied, synced or cloned from elsewhere carries
//! no usable key, and a journal copied from another vault names a key this one does not hold), no larger than core's bound (looked at
//! before it is read, and read no further), whose change is not one kept with a later change
//! after it, naming only paths the engine writes, none of them reached through a symbolic link. Any other journal is refused with the
//! reason and left where it is, for the user; reading the vault goes on, and writing waits.
//!
//! The journal file is also the vault's lock: taking it, and waiting for it, is `lock`; the
//! lease that proves its holder alive is `lease`; the safe replacement of notes that the batch
//! and its undo make is `replace`.

use std::path::{Path, PathBuf};
use vaultlink_core::error::ErrorCode;

use serde::Serialize;
use vaultlink_core::journal::{self as format, Purpose, Refusal};
pub use vaultlink_core::journal::{Journal, ABANDONED};
use vaultlink_core::lease::{Observed, Opened, Verdict};
use vaultlink_core::plan::content_hash;
use vaultlink_core::step::StepError;
use vaultlink_core::undo_steps::{self, Condition, UndoStep, Undone};

use crate::disk::{exists_exactly, symbolic_link_on_the_way, Disk, RealDisk};
use crate::error::ToolError;
use crate::lease::{held_here, next_attempt, put_locked, Held, JOURNAL_FOLDER};
use crate::replace::{
    create_file, full, make_parents, put_back, read_bounded, replace_note, restorable_hash, write_atomically, Expected, NewFile, Replaced,
    Unread,
};
use crate::seal_keys::seal_for;

pub(crate) const JOURNAL_FILE: &str = "journal.json";
/// What recovery did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Recovery {
    /// The process that wrote the journal, and when, from the journal.
    pub pid: u32,
    pub tool: String,
    /// Notes given their pre-image back.
    pub restored: Vec<String>,
    /// Files moved back to where they were.
    pub moved_back: Vec<String>,
    /// Notes edited after the interruption: they keep that edit; the pre-image is saved at
    /// the second path.
    pub kept: Vec<(String, String)>,
    /// Files the batch created, removed again.
    pub removed: Vec<String>,
}

pub(crate) fn journal_path(root: &Path) -> PathBuf {
    root.join(JOURNAL_FOLDER).join(JOURNAL_FILE)
}

/// The name of this machine, as the journal records it.
pub fn machine() -> String {
    gethostname::gethostname().to_string_lossy().into_owned()
}

/// What the vault's journal file holds, as far as this process may act on it.
#[derive(Debug)]
pub enum Found {
    /// No journal: no batch is being applied, none was interrupted.
    Nothing,
    /// A journal this user wrote on this machine, naming only paths inside the vault.
    Ours(Journal),
    /// A journal that is not acted on, and why, as a sentence naming the file; `whole` when its
    /// bytes were a whole JSON value (one that is not may be being written this moment).
    Refused { reason: String, whole: bool },
}

/// Reads the vault's journal and decides whether it may be acted on: sealed with this user's
/// key on this machine ([`crate::state`]), of this version, every path by the engine's rules
/// and none reached through a symbolic link. Reading it changes nothing.
pub fn find(root: &Path) -> Found {
    find_checking(root, true)
}

/// [`find`], for the holder of a batch's journal, which compares what is found with its own
/// batch and acts on nothing else: the paths it names are not looked at, so a folder swapped
/// for a link during the batch does not keep the batch from removing, or marking, its own
/// journal.
pub(crate) fn find_held(root: &Path) -> Found {
    find_checking(root, false)
}

fn find_checking(root: &Path, check_paths: bool) -> Found {
    let path = journal_path(root);
    let shown = format!("{JOURNAL_FOLDER}/{JOURNAL_FILE}");
    let refused =
        |reason: String| Found::Refused { reason: format!("{shown} in {} was left alone: {reason}", root.display()), whole: true };
    match std::fs::symlink_metadata(root.join(JOURNAL_FOLDER)) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Found::Nothing,
        Ok(meta) if meta.file_type().is_symlink() || !meta.is_dir() => {
            return refused(format!(
                "`{JOURNAL_FOLDER}` is not a folder of the vault (a symbolic link, or a file), so nothing in it is trusted"
            ))
        }
        _ => {}
    }
    let meta = match std::fs::symlink_metadata(&path) {
        Ok(meta) => meta,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Found::Nothing,
        Err(error) => return refused(vaultlink_core::own_files::cannot_be_read(&error.to_string())),
    };
    if !meta.is_file() {
        return refused("it is not a plain file".to_owned());
    }
    if meta.len() > format::MAX_FILE_BYTES {
        return refused(Refusal::TooLarge { bytes: meta.len() }.message());
    }
    let bytes = match read_bounded(&path) {
        Ok(bytes) => bytes,
        Err(Unread::TooLarge(refusal)) => return refused(refusal.message()),
        Err(Unread::Failed(error)) if error.kind() == std::io::ErrorKind::NotFound => return Found::Nothing,
        Err(Unread::Failed(error)) => return refused(vaultlink_core::own_files::cannot_be_read(&error.to_string())),
    };
    let opened = crate::seal_keys::open(root, Purpose::Journal, &bytes)
        .and_then(|journal| vaultlink_core::history::check_not_kept(&journal, &crate::history::record_names(root)).map(|()| journal));
    let journal = match opened {
        Ok(journal) => journal,
        Err(refusal) => {
            let owner = format::describe_unverified(&bytes).map_or_else(String::new, |(tool, pid, machine)| {
                let host = if machine.is_empty() { String::new() } else { format!(" on {machine}") };
                format!(" (it says: {tool} by process {pid}{host})")
            });
            // Perhaps being written by another process this moment: created, not yet filled (no
            // whole JSON value yet); core's judgement weighs its lease.
            let whole = refusal != Refusal::NotSealed || serde_json::from_slice::<serde_json::Value>(&bytes).is_ok();
            return Found::Refused { reason: format!("{shown} in {} was left alone: {}{owner}", root.display(), refusal.message()), whole };
        }
    };
    let named = journal
        .writes
        .iter()
        .flat_map(|write| [write.path.as_str(), write.temporary.as_str()])
        .chain(journal.moves.iter().flat_map(|file_move| {
            [Some(file_move.from.as_str()), Some(file_move.to.as_str()), file_move.via.as_deref()].into_iter().flatten()
        }))
        .chain(journal.made_folders.iter().map(String::as_str))
        .map(str::to_owned)
        // Where recovery saves the text of a note edited since.
        .chain(journal.writes.iter().map(|write| saved_path(&write.path)));
    for named in named.filter(|named| check_paths && !named.is_empty()) {
        let named = named.as_str();
        if let Some(link) = symbolic_link_on_the_way(root, named) {
            return refused(format!("it names {named:?}, reached through the symbolic link `{link}`, which may lead out of the vault"));
        }
    }
    Found::Ours(journal)
}

impl Found {
    /// This, if it is the journal of `ours`'s batch; `Nothing` otherwise.
    fn filter_batch(self, ours: &Journal) -> Found {
        match self {
            Found::Ours(found) if same_batch(&found, ours) => Found::Ours(found),
            _ => Found::Nothing,
        }
    }
}

/// What the journal found means, as core judges it (`lease::judge`) from what this process
/// observes of the file: its age by this machine's clock, whether it and its folder are plain,
/// whether another process holds its kernel lock. `None` when there is no journal. A journal whose
/// holder is this process's is `Ours` only for that holder; every other is judged as anyone's.
pub fn judge(root: &Path, found: &Found, holder: &str) -> Option<Verdict> {
    let opened = match found {
        Found::Nothing => return None,
        Found::Ours(journal) => Opened::of(journal),
        Found::Refused { reason, whole } => Opened::Refused { reason: reason.clone(), whole: *whole },
    };
    let path = journal_path(root);
    let folder_plain = std::fs::symlink_metadata(root.join(JOURNAL_FOLDER)).is_ok_and(|meta| meta.is_dir());
    let meta = std::fs::symlink_metadata(&path);
    let plain_file = folder_plain && meta.as_ref().map_or(true, std::fs::Metadata::is_file);
    let age_ms = meta.as_ref().map_or(0, crate::lease::age_ms);
    let locked_elsewhere = plain_file && crate::lease::locked_elsewhere(&path);
    let mut verdict = vaultlink_core::lease::judge(&Observed { opened, age_ms, plain_file, holder: holder.to_owned(), locked_elsewhere });
    // This process's own holders (a lock while it plans, a batch on another thread) are live.
    if let (Verdict::Interrupted { tool, pid, .. }, Found::Ours(journal)) = (&verdict, found) {
        if held_here(&journal.holder) {
            verdict = Verdict::InProgress { tool: tool.clone(), pid: *pid, machine: journal.machine.clone(), age_ms };
        }
    }
    Some(verdict)
}

/// What to do about a journal that is not acted on.
fn untrusted_hint(root: &Path) -> String {
    vaultlink_core::step::untrusted_hint(&journal_path(root).display().to_string())
}

/// Removes what a process killed while it took the lock left: its own file of the attempt
/// (`journal.json.<pid>-<n>.lock`), written whole but never renamed to the journal. Only files
/// older than a lease (`lease::EXPIRE_MS`) are removed, since an attempt lasts no longer than its
/// one write; the folder only if that empties it.
fn remove_stale_locks(disk: &dyn Disk, root: &Path) {
    let folder = root.join(JOURNAL_FOLDER);
    if !std::fs::symlink_metadata(&folder).is_ok_and(|meta| meta.is_dir()) {
        return;
    }
    let Ok(entries) = std::fs::read_dir(&folder) else { return };
    let mut removed = false;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let attempt = name.strip_prefix(&format!("{JOURNAL_FILE}.")).and_then(|rest| rest.strip_suffix(".lock")).is_some();
        let old = std::fs::symlink_metadata(entry.path())
            .is_ok_and(|meta| meta.is_file() && crate::lease::age_ms(&meta) > vaultlink_core::lease::EXPIRE_MS as i64);
        if attempt && old {
            removed |= disk.remove_file(root, &entry.path()).is_ok();
        }
    }
    if removed {
        let _ = disk.remove_dir(root, &folder);
    }
}

/// For tests: `journal` sealed with the vault's key and left in `root` as a batch that stopped
/// leaves it (`.vaultlink` made when it is not there); answers the text written.
#[cfg(test)]
pub(crate) fn plant(root: &Path, journal: &Journal) -> String {
    let text = seal_for(root, Purpose::Journal, journal).expect("the journal sealed");
    std::fs::create_dir_all(root.join(JOURNAL_FOLDER)).expect("the journal's folder");
    std::fs::write(journal_path(root), &text).expect("the journal written");
    text
}

/// For tests: makes the lease of the journal in `root` older than core's expiry, as time does
/// once its holder is gone (`lease::EXPIRE_MS` later).
#[cfg(test)]
pub(crate) fn expire_lease(root: &Path) {
    let long_ago = std::time::SystemTime::now() - std::time::Duration::from_millis(vaultlink_core::lease::EXPIRE_MS + 1_000);
    let Ok(entries) = std::fs::read_dir(root.join(JOURNAL_FOLDER)) else { return };
    // The journal, and any attempt at the lock a killed process left beside it.
    for entry in entries.flatten().filter(|entry| entry.file_name().to_string_lossy().starts_with(JOURNAL_FILE)) {
        if let Ok(file) = std::fs::File::options().write(true).open(entry.path()) {
            file.set_modified(long_ago).expect("the journal's time set");
        }
    }
}

/// Removes the journal of `journal`'s batch once every change is made (or undone): from here on
/// the batch is applied, and what follows (the emptied `.vaultlink` folder, a sync of the root)
/// is tidying that may fail. The lock is released only by its holder: a journal file that is
/// not this batch's (another batch's, begun since) is left where it is.
pub fn finish(disk: &dyn Disk, root: &Path, journal: &Journal) -> std::io::Result<()> {
    // Every folder whose entries the batch (or its undo) changed is synced before the journal
    // goes, so that a power loss leaves the journal (and recovery) or the whole batch, never a
    // journal gone while a rename of the batch was not yet on the disk. A folder that cannot be
    // synced (a filesystem that refuses it) is logged, as the root's sync after is.
    for folder in touched_folders(journal) {
        if let Err(error) = disk.sync_dir(root, &full(root, &folder)) {
            tracing::warn!("syncing {} before the journal's removal failed: {error}", full(root, &folder).display());
        }
    }
    match find_held(root) {
        Found::Ours(found) if same_batch(&found, journal) => match disk.remove_file(root, &journal_path(root)) {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => return Err(error),
            _ => {}
        },
        Found::Nothing => {}
        _ => tracing::warn!("the journal in {} is another batch's now, and is left to it", root.display()),
    }
    // Removed only when empty: `recovered/` may hold saved pre-images. Kept, it is synced so the
    // journal's removal is durable; removed, the root's sync makes that so.
    if disk.remove_dir(root, &root.join(JOURNAL_FOLDER)).is_err() && root.join(JOURNAL_FOLDER).is_dir() {
        if let Err(error) = disk.sync_dir(root, &root.join(JOURNAL_FOLDER)) {
            tracing::warn!("syncing {} after a change failed: {error}", root.join(JOURNAL_FOLDER).display());
        }
    }
    if let Err(error) = disk.sync_dir(root, root) {
        tracing::warn!("syncing {} after a change failed: {error}", root.display());
    }
    Ok(())
}

/// The folders whose entries a batch changes, deepest first: each rewritten, created or removed
/// file's folder (its temporary and aside names are beside it), each move's source, destination
/// and third name's folder, and the folder holding each folder the batch makes. `""` is the
/// vault's root.
fn touched_folders(journal: &Journal) -> Vec<String> {
    let parent = |path: &str| path.rsplit_once('/').map_or(String::new(), |(folder, _)| folder.to_owned());
    let mut folders: Vec<String> = journal
        .writes
        .iter()
        .map(|write| write.path.as_str())
        .chain(journal.moves.iter().flat_map(|file_move| {
            [Some(file_move.from.as_str()), Some(file_move.to.as_str()), file_move.via.as_deref()].into_iter().flatten()
        }))
        .chain(journal.made_folders.iter().map(String::as_str))
        .map(parent)
        .collect::<std::collections::BTreeSet<String>>()
        .into_iter()
        .collect();
    folders.sort_by_key(|folder| std::cmp::Reverse(if folder.is_empty() { 0 } else { folder.split('/').count() }));
    folders
}

/// Whether two journals are of one batch: core's `lease::same_batch`, which the plugin uses too.
pub(crate) fn same_batch(found: &Journal, ours: &Journal) -> bool {
    vaultlink_core::lease::same_batch(found, ours)
}

/// Marks the journal of a batch that failed and could not be undone as abandoned, so the next
/// read of the vault (by this process too) recovers it. Best effort: if even this fails, the
/// journal still names this process, and `vaultlink recover` after it ends recovers it.
pub fn abandon(disk: &dyn Disk, root: &Path, ours: &Journal) {
    // Only the holder's own journal is marked.
    let Found::Ours(mut journal) = find_held(root).filter_batch(ours) else {
        return;
    };
    journal.pid = ABANDONED;
    let Ok(sealed) = seal_for(root, Purpose::Journal, &journal) else {
        return;
    };
    let temporary = root.join(JOURNAL_FOLDER).join(format!("{JOURNAL_FILE}.tmp"));
    if let Err(error) = write_atomically(disk, root, &journal_path(root), &temporary, sealed.as_bytes()) {
        tracing::warn!("marking the journal of a failed change as abandoned failed: {error}");
    }
}

/// Whether a process with this id is running. When it cannot be told, it counts as running. Used
/// for this machine's own temporary files only: a journal's liveness is its lease (`judge`).
pub fn process_alive(pid: u32) -> bool {
    if pid == ABANDONED {
        return false;
    }
    if pid == std::process::id() {
        return true;
    }
    if cfg!(target_os = "linux") {
        return Path::new("/proc").join(pid.to_string()).exists();
    }
    if cfg!(unix) {
        return std::process::Command::new("kill")
            .args(["-0", &pid.to_string()])
            .stderr(std::process::Stdio::null())
            .status()
            .map_or(true, |status| status.success());
    }
    if cfg!(windows) {
        return std::process::Command::new("tasklist")
            .args(["/FI", &format!("PID eq {pid}"), "/NH", "/FO", "CSV"])
            .output()
            .map_or(true, |output| String::from_utf8_lossy(&output.stdout).contains(&format!("\"{pid}\"")));
    }
    true
}

/// Recovers an interrupted batch if the vault has a journal of ours whose lease ran out (core's
/// `lease::judge`), or that its holder marked abandoned.
/// Called before the sidecar reads the folder; logs what it did. A journal that is not ours is
/// never acted on here: it is logged, and reading goes on (writing refuses while it is there).
pub fn recover_if_interrupted(root: &Path) -> Result<Option<Recovery>, ToolError> {
    remove_stale_locks(&RealDisk, root);
    let found = find(root);
    let verdict = judge(root, &found, "");
    let journal = match (found, verdict) {
        (Found::Ours(journal), Some(verdict)) if verdict.recoverable() => journal,
        (Found::Refused { reason, .. }, Some(Verdict::Untrusted { .. })) => {
            tracing::warn!("{reason}. {}", untrusted_hint(root));
            return Ok(None);
        }
        _ => return Ok(None),
    };
    let pid = journal.pid;
    let Some((journal, _held)) = claim(root, journal) else { return Ok(None) };
    let recovery = Recovery { pid, ..undo(&RealDisk, root, &journal)? };
    tracing::warn!("{}", describe(root, &recovery));
    Ok(Some(recovery))
}

/// Takes an interrupted journal over before undoing it: the journal is written again naming a
/// holder of this process, renamed over the one found, and held (its lease renewed, its kernel
/// lock taken) while the undo runs. A holder that was only suspended finds, when it wakes, that
/// the journal is no longer its own, and stops without a step; a second process looking for an
/// interrupted change finds one being recovered, and waits. `None` when the journal changed
/// meanwhile (another process took it over first).
fn claim(root: &Path, journal: Journal) -> Option<(Journal, Held)> {
    let claimed = Journal { holder: crate::lease::new_holder(), pid: std::process::id(), ..journal.clone() };
    let sealed = seal_for(root, Purpose::Journal, &claimed).ok()?;
    match find(root) {
        Found::Ours(now) if now == journal => {}
        _ => return None,
    }
    let temporary = root.join(JOURNAL_FOLDER).join(format!("{JOURNAL_FILE}.{}-{}.claim", std::process::id(), next_attempt()));
    let file = match put_locked(&RealDisk, root, &journal_path(root), &temporary, sealed.as_bytes()) {
        Ok(file) => file,
        Err(error) => {
            tracing::warn!("taking over the interrupted journal in {} failed: {error}", root.display());
            return None;
        }
    };
    let held = Held::hold(&journal_path(root), &claimed.holder, file).ok()?;
    match find(root) {
        Found::Ours(now) if now.holder == claimed.holder => Some((claimed, held)),
        _ => None,
    }
}

/// One paragraph saying what recovery did, for the log and `vaultlink recover`.
pub fn describe(root: &Path, recovery: &Recovery) -> String {
    let mut text = format!(
        "undid an interrupted {} (process {}) in {}: {} notes restored, {} files moved back, {} new files removed",
        recovery.tool,
        recovery.pid,
        root.display(),
        recovery.restored.len(),
        recovery.moved_back.len(),
        recovery.removed.len()
    );
    for (path, saved) in &recovery.kept {
        text.push_str(&format!("; {path} was edited since and keeps that edit (its text from before the change is in {saved})"));
    }
    text
}

/// Undoes the batch the journal describes and removes the journal. `Ok(None)` when there is
/// no journal; a journal that is not ours to act on is refused with the reason, and left.
pub fn recover(disk: &dyn Disk, root: &Path) -> Result<Option<Recovery>, ToolError> {
    remove_stale_locks(disk, root);
    match find(root) {
        Found::Nothing => Ok(None),
        Found::Ours(journal) => {
            let pid = journal.pid;
            // Taken over first, so that a holder only suspended never steps again.
            let Some((journal, _held)) = claim(root, journal) else {
                return Err(StepError::JustApplied.error().into());
            };
            undo(disk, root, &journal).map(|recovery| Some(Recovery { pid, ..recovery }))
        }
        Found::Refused { reason, .. } => {
            Err(ToolError::new(ErrorCode::RecoveryFailed, format!("{reason}; nothing was changed"), untrusted_hint(root), false))
        }
    }
}

fn recovery_failed(root: &Path, what: String, error: std::io::Error) -> ToolError {
    ToolError::new(
        ErrorCode::RecoveryFailed,
        format!("{what} failed ({error}); the journal is kept, so recovery can run again"),
        format!("Fix what the error names (permissions, free space), then run `vaultlink recover {}`.", root.display()),
        true,
    )
}

/// Undoes what `journal` describes, from the state the vault is in, and removes the journal
/// file. `journal` may be less than the file holds: a batch that stops itself knows which of
/// its notes it had not yet written. The steps, their order and what each checks first are
/// core's (`undo_steps`); this carries them out on the folder, and the report is made of what
/// they did.
pub fn undo(disk: &dyn Disk, root: &Path, journal: &Journal) -> Result<Recovery, ToolError> {
    let mut recovery = Recovery { pid: journal.pid, tool: journal.tool.clone(), ..Recovery::default() };
    for step in undo_steps::steps(journal) {
        if let Some(undone) = carry_out(disk, root, journal, &step)? {
            recovery.note(undone);
        }
    }
    Ok(recovery)
}

impl Recovery {
    /// Counts what a step of the undo did.
    fn note(&mut self, undone: Undone) {
        match undone {
            Undone::Restored { path } => self.restored.push(path),
            Undone::MovedBack { path } => self.moved_back.push(path),
            Undone::Removed { path } => self.removed.push(path),
            Undone::Kept { path, saved } => self.kept.push((path, saved)),
        }
    }
}

/// Carries out one of core's undo steps on the folder: checks its precondition on the disk
/// right before it acts, and says what it did.
fn carry_out(disk: &dyn Disk, root: &Path, journal: &Journal, step: &UndoStep) -> Result<Option<Undone>, ToolError> {
    let failed = |what: String, error: std::io::Error| recovery_failed(root, what, error);
    match step {
        UndoStep::RemoveTemporary { path } => {
            let temporary = full(root, path);
            // Looked for as the steps reach it: one behind a folder swapped for a symbolic link
            // since cannot be, so the undo stops there and the journal is kept, for when it is a
            // folder again.
            let there = crate::disk::exists_beneath(root, &temporary).map_err(|error| failed(format!("looking for {path}"), error))?;
            if there {
                disk.remove_file(root, &temporary).map_err(|error| failed(format!("removing {path}"), error))?;
            }
            Ok(None)
        }
        UndoStep::PutBack { path, aside, temporary, before, saved } => {
            let (note, aside) = (full(root, path), full(root, aside));
            // Stopped with the file moved aside to be checked: it goes back (kept under
            // `recovered/` if a file was saved at its place since and it differs from it).
            if exists_exactly(&aside) {
                put_back(disk, root, path, &aside, Expected::Bytes(before.as_bytes()))
                    .map_err(|error| failed(format!("putting back {path}"), error))?;
            }
            if note.exists() {
                return Ok(None);
            }
            make_parents(disk, root, &note).map_err(|error| failed(format!("recreating the folder of {path}"), error))?;
            // Put in place without replacing: a file saved there since the look is someone's.
            match create_file(disk, root, &note, &full(root, temporary), before.as_bytes(), NewFile::LikeItsFolder) {
                Ok(()) => Ok(Some(Undone::Restored { path: path.clone() })),
                Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => keep_edited(disk, root, path, before, saved)
                    .map(Some)
                    .map_err(|error| failed(format!("saving the text of {path}"), error)),
                Err(error) => Err(failed(format!("putting back {path}"), error)),
            }
        }
        UndoStep::MoveBack { from: from_path, to: to_path, via, second_names, hash, cycle } => {
            let (from, to) = (full(root, from_path), full(root, to_path));
            let via = via.as_deref().map(|via| full(root, via));
            let back = |source: &Path| -> Result<(), ToolError> {
                make_parents(disk, root, &from).map_err(|error| failed(format!("recreating the folder of {from_path}"), error))?;
                // Never over a file that appeared there since the look.
                disk.rename_new(root, source, &from).map_err(|error| failed(format!("moving {to_path} back"), error))
            };
            // A rename made as a hard link and an unlink (`disk::rename_if_free`, where the system
            // has no rename that refuses to replace) and stopped between the two leaves both
            // names on the one file: the new name goes, and the move is undone.
            for arrived in second_names.iter().map(|name| full(root, name)) {
                if exists_exactly(&arrived) && exists_exactly(&from) && crate::disk::one_file(&arrived, &from) {
                    disk.remove_file(root, &arrived).map_err(|error| failed(format!("removing the second name of {from_path}"), error))?;
                }
            }
            if let Some(via) = via.as_ref().filter(|via| exists_exactly(via)) {
                back(via)?;
                return Ok(Some(Undone::MovedBack { path: from_path.clone() }));
            }
            let made = exists_exactly(&to)
                && !exists_exactly(&from)
                && holds(&to, hash.as_deref())
                && cycle.as_ref().is_none_or(|cycle| met(root, cycle));
            if !made {
                return Ok(None);
            }
            match via.as_ref() {
                // A case-only move goes back in two renames too.
                Some(via) => {
                    disk.rename_new(root, &to, via).map_err(|error| failed(format!("moving {to_path} back"), error))?;
                    back(via)?;
                }
                None => back(&to)?,
            }
            Ok(Some(Undone::MovedBack { path: from_path.clone() }))
        }
        UndoStep::RemoveCreated { path, after_hash } => {
            // A file the batch created goes while it holds what the batch wrote; one edited since
            // is someone's, and stays.
            let created = full(root, path);
            if !holds(&created, Some(after_hash)) {
                return Ok(None);
            }
            disk.remove_file(root, &created).map_err(|error| failed(format!("removing {path}"), error))?;
            Ok(Some(Undone::Removed { path: path.clone() }))
        }
        UndoStep::Restore { path, aside, temporary, before, after_hash, saved, restorable } => {
            let note = full(root, path);
            // Stopped inside `replace_note`, with the note moved aside: it comes back first (and
            // the batch's text, if it was put in place already, goes).
            if let Some(aside) = aside.as_deref().map(|aside| full(root, aside)).filter(|aside| exists_exactly(aside)) {
                let put_right = (|| {
                    let before = Expected::Bytes(before.as_bytes());
                    if exists_exactly(&note) && holds(&note, Some(after_hash)) {
                        let temporary = full(root, temporary);
                        disk.rename_new(root, &note, &temporary)?;
                        put_back(disk, root, path, &aside, before)?;
                        disk.remove_file(root, &temporary)
                    } else {
                        put_back(disk, root, path, &aside, before)
                    }
                })();
                put_right.map_err(|error| failed(format!("putting back {path}"), error))?;
            }
            let keep = || {
                keep_edited(disk, root, path, before, saved).map(Some).map_err(|error| failed(format!("saving the text of {path}"), error))
            };
            let read = std::fs::read(&note);
            if read.as_ref().is_ok_and(|bytes| bytes == before.as_bytes()) {
                return Ok(None);
            }
            // The batch's own text, or its write torn by a stop (core's `restorable` says which):
            // restored only while the note still holds it.
            match read.ok().and_then(|bytes| restorable_hash(&bytes, restorable)) {
                Some(found) => {
                    let restored = replace_note(disk, root, path, temporary, Expected::Hash(&found), before.as_bytes())
                        .map_err(|error| failed(format!("restoring {path}"), error))?;
                    if restored == Replaced::Yes {
                        Ok(Some(Undone::Restored { path: path.clone() }))
                    } else {
                        keep()
                    }
                }
                None => keep(),
            }
        }
        UndoStep::RemoveFolder { path } => {
            let folder = full(root, path);
            // A folder of the vault, not a link put in its place since (which is not the batch's).
            let real = std::fs::symlink_metadata(&folder).is_ok_and(|meta| meta.is_dir());
            if real && std::fs::read_dir(&folder).is_ok_and(|mut entries| entries.next().is_none()) {
                disk.remove_dir(root, &folder).map_err(|error| failed(format!("removing the folder {}", folder.display()), error))?;
            }
            Ok(None)
        }
        // The batch kept as part of its commit and stopped before the journal went: undone, it is
        // no longer kept. Removed before the journal, so a recovery stopped here runs again whole.
        UndoStep::ForgetKept { .. } => crate::history::forget_kept_of(disk, root, journal)
            .map(|()| None)
            .map_err(|error| failed("removing the undone change's kept record".to_owned(), error)),
        // An undo stopped after it set aside the kept change it consumes: undone, the change is
        // made again, and kept again.
        UndoStep::PutBackSetAside { .. } => crate::history::put_back_set_aside(disk, root, journal)
            .map(|()| None)
            .map_err(|error| failed("putting back the kept change the undo had set aside".to_owned(), error)),
        UndoStep::RemoveJournal => {
            finish(disk, root, journal).map(|()| None).map_err(|error| failed(format!("removing {}", journal_path(root).display()), error))
        }
    }
}

/// A note edited, or removed, by someone since the batch: theirs stays; the batch's pre-image
/// is kept beside it, at `saved` (under `.vaultlink/recovered/`).
fn keep_edited(disk: &dyn Disk, root: &Path, path: &str, before: &str, saved: &str) -> std::io::Result<Undone> {
    let saved_full = full(root, saved);
    if std::fs::read(&saved_full).ok().as_deref() != Some(before.as_bytes()) {
        make_parents(disk, root, &saved_full)?;
        if saved_full.exists() {
            let _ = disk.remove_file(root, &saved_full);
        }
        disk.write_new(root, &saved_full, before.as_bytes())?;
    }
    Ok(Undone::Kept { path: path.to_owned(), saved: saved.to_owned() })
}

/// Whether the file at `path` holds the text of content hash `hash` (any file, without one): a
/// move of a cycle of names is undone only if the file it moved is there.
fn holds(path: &Path, hash: Option<&str>) -> bool {
    hash.is_none_or(|hash| {
        std::fs::read(path).ok().and_then(|bytes| String::from_utf8(bytes).ok()).is_some_and(|text| content_hash(&text) == hash)
    })
}

/// Whether core's condition for a move of a cycle of names holds on the disk.
fn met(root: &Path, condition: &Condition) -> bool {
    match condition {
        Condition::Absent { path } => !full(root, path).exists(),
        Condition::Holds { path, hash } => {
            let source = full(root, path);
            exists_exactly(&source) && holds(&source, hash.as_deref())
        }
    }
}

/// Where recovery saves the text from before the batch of a note edited since.
fn saved_path(path: &str) -> String {
    undo_steps::saved_path(path)
}

#[cfg(test)]
mod tests {
    //! A journal is untrusted input: one that arrives with a vault (git, a sync service, a zip)
    //! must never make recovery touch anything outside the vault, or anything at all unless this
    //! user wrote it on this machine.

    use super::*;
    use crate::disk::testing::snapshot;
    use crate::lock::begin;
    use std::fs;
    use vaultlink_core::journal::{JournalMove, JournalWrite, VERSION as JOURNAL_VERSION};

    /// A home with a private key and a document beside a vault with one note.
    fn victim() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("home/.ssh")).unwrap();
        fs::write(dir.path().join("home/.ssh/id_ed25519"), "PRIVATE KEY").unwrap();
        fs::write(dir.path().join("home/notes.txt"), "mine").unwrap();
        fs::create_dir_all(dir.path().join("vault/.vaultlink")).unwrap();
        fs::write(dir.path().join("vault/A.md"), "[[B]]").unwrap();
        let root = fs::canonicalize(dir.path().join("vault")).unwrap();
        (dir, root)
    }

    /// What the red team planted: overwrite a file outside, move a private key into the vault,
    /// delete a file outside through a temporary name, make a folder outside.
    fn crafted() -> Journal {
        Journal {
            version: JOURNAL_VERSION,
            pid: ABANDONED,
            holder: String::new(),
            tool: "move_note".to_owned(),
            started_unix_ms: 0,
            machine: String::new(),
            writes: vec![JournalWrite {
                path: "../home/notes.txt".to_owned(),
                temporary: "../home/.notes.txt.vaultlink-1.tmp".to_owned(),
                before: "overwritten".to_owned(),
                after_hash: content_hash("mine"),
                kind: Default::default(),
            }],
            moves: vec![JournalMove { from: "../home/.ssh/id_ed25519".to_owned(), to: "stolen.md".to_owned(), via: None, hash: None }],
            made_folders: vec!["../home/planted".to_owned()],
            change_id: String::new(),
            forget: None,
        }
    }

    fn assert_left_alone(dir: &Path, root: &Path, journal_text: &[u8], expected: &str) {
        let before = snapshot(dir);
        assert!(recover_if_interrupted(root).unwrap().is_none(), "the next read acts on nothing");
        let refusal = recover(&RealDisk, root).expect_err("`vaultlink recover` refuses it");
        assert_eq!(refusal.code, "recovery_failed");
        assert!(refusal.message.contains(expected) && refusal.message.contains("left alone"), "{expected}: {}", refusal.message);
        assert!(refusal.hint.contains("delete it") && refusal.hint.contains("another machine"), "{}", refusal.hint);
        assert_eq!(snapshot(dir), before, "nothing inside or outside the vault changed");
        assert_eq!(fs::read(journal_path(root)).unwrap(), journal_text, "the journal is left for the user");
    }

    #[test]
    fn a_crafted_unsealed_journal_is_never_acted_on() {
        let (dir, root) = victim();
        // The documented format of the version before seals, as anyone could write it.
        let text = serde_json::to_vec(&Journal { version: 1, ..crafted() }).unwrap();
        fs::write(journal_path(&root), &text).unwrap();
        assert_left_alone(dir.path(), &root, &text, "not a sealed vaultlink journal");
    }

    #[test]
    fn a_journal_sealed_with_another_key_is_never_acted_on() {
        let (dir, root) = victim();
        let mut journal = crafted();
        journal.writes[0].path = "A.md".to_owned();
        journal.writes[0].temporary = String::new();
        journal.moves.clear();
        journal.made_folders.clear();
        // Written by vaultlink, but in another copy of the vault: the key file here derives
        // another key.
        let id = crate::seal_keys::sealing_key(&root).unwrap().id;
        let text =
            format::seal(&[9; format::KEY_BYTES], vaultlink_core::journal::Binding { purpose: Purpose::Journal, key: &id }, &journal)
                .unwrap();
        fs::write(journal_path(&root), &text).unwrap();
        assert_left_alone(dir.path(), &root, text.as_bytes(), "seal does not verify");
    }

    #[test]
    fn a_journal_sealed_with_our_key_but_naming_paths_outside_is_never_acted_on() {
        let (dir, root) = victim();
        let text = plant(&root, &crafted());
        assert_left_alone(dir.path(), &root, text.as_bytes(), "../home/notes.txt");
    }

    #[cfg(unix)]
    #[test]
    fn a_journal_reaching_out_through_a_symbolic_link_is_never_acted_on() {
        let (dir, root) = victim();
        std::os::unix::fs::symlink(dir.path().join("home"), root.join("linked")).unwrap();
        let mut journal = crafted();
        journal.writes[0].path = "linked/notes.txt".to_owned();
        journal.writes[0].temporary = String::new();
        journal.moves.clear();
        journal.made_folders.clear();
        let text = plant(&root, &journal);
        assert_left_alone(dir.path(), &root, text.as_bytes(), "symbolic link `linked`");
    }

    #[cfg(unix)]
    #[test]
    fn a_journal_folder_that_is_a_symbolic_link_is_never_acted_on() {
        let (dir, root) = victim();
        let mut journal = crafted();
        journal.writes.clear();
        journal.moves = vec![JournalMove { from: "A.md".to_owned(), to: "B.md".to_owned(), via: None, hash: None }];
        journal.made_folders.clear();
        // Sealed in the vault's own folder, which is then moved out and linked back.
        let text = plant(&root, &journal);
        fs::rename(root.join(JOURNAL_FOLDER), dir.path().join("home/elsewhere")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("home/elsewhere"), root.join(JOURNAL_FOLDER)).unwrap();
        assert_left_alone(dir.path(), &root, text.as_bytes(), "not a folder of the vault");
        // And no batch keeps its journal there.
        let refusal = begin(&RealDisk, &root, &journal).expect_err("refused");
        assert_eq!(refusal.code, "interrupted_change");
    }

    /// Two batches starting at once, .vaultlink not there yet: one takes the lock, the other
    /// gets change_in_progress (retryable) and removes nothing of the winner's.
    #[test]
    fn two_batches_starting_at_once_get_one_lock_and_one_change_in_progress() {
        for _ in 0..50 {
            let (_dir, root) = victim();
            fs::remove_dir(root.join(JOURNAL_FOLDER)).unwrap();
            let journal = Journal { writes: vec![], moves: vec![], made_folders: vec![], pid: std::process::id(), ..crafted() };
            let barrier = std::sync::Barrier::new(2);
            let results: Vec<Result<Held, ToolError>> = std::thread::scope(|scope| {
                let handles: Vec<_> = (0..2)
                    .map(|_| {
                        scope.spawn(|| {
                            barrier.wait();
                            begin(&RealDisk, &root, &journal)
                        })
                    })
                    .collect();
                handles.into_iter().map(|handle| handle.join().unwrap()).collect()
            });
            let won = results.iter().filter(|result| result.is_ok()).count();
            assert_eq!(won, 1, "{results:?}");
            let lost = results.iter().find_map(|result| result.as_ref().err()).unwrap();
            assert_eq!(lost.code, "change_in_progress", "{lost:?}");
            assert!(lost.retryable);
            assert!(matches!(find(&root), Found::Ours(_)), "the winner's journal is whole and in place");
        }
    }

    /// Issue 21 (red team, High): the loser of two batches creating `.vaultlink/` at once
    /// deleted the winner's journal on its error path, so a kill then left the winner's batch
    /// half applied with nothing to recover. Here the loser's write of its journal fails (EIO)
    /// just after the winner took the lock, at every step of the loser's taking it: the winner's
    /// journal is never touched, and the loser leaves nothing of its own. (A failure of the
    /// last step, the folder's sync, comes once the lock is the loser's own: the fault matrix
    /// covers it.)
    #[test]
    fn a_failing_batch_removes_nothing_it_did_not_create() {
        let steps = ["create_dir", "write_new", "rename_new"];
        for (at, failing) in steps.into_iter().enumerate() {
            let (_dir, root) = victim();
            fs::remove_dir(root.join(JOURNAL_FOLDER)).unwrap();
            let winner =
                Journal { writes: vec![], moves: vec![], made_folders: vec![], pid: std::process::id(), started_unix_ms: 1, ..crafted() };
            let loser = Journal { started_unix_ms: 2, ..winner.clone() };
            let disk = crate::disk::testing::Intercepted(|operation: &str, _: &Path| {
                if operation != failing {
                    return None;
                }
                // The winner takes the lock a moment before the loser's step fails.
                if !journal_path(&root).exists() {
                    begin(&RealDisk, &root, &winner).unwrap();
                }
                Some(std::io::Error::from_raw_os_error(5))
            });
            let refusal = begin(&disk, &root, &loser).expect_err("the loser fails");
            assert!(["write_failed", "change_in_progress"].contains(&refusal.code.as_str()), "{failing}: {refusal:?}");
            match find(&root) {
                Found::Ours(found) => assert!(same_batch(&found, &winner), "{failing}: the winner's journal is in place"),
                other => panic!("{failing} (step {at}): the winner's journal is gone: {other:?}"),
            }
            // The vault's sealing key (and the line that keeps git out) stay: they are the vault's.
            let names: Vec<String> = fs::read_dir(root.join(JOURNAL_FOLDER))
                .unwrap()
                .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|name| name != "keys" && name != ".gitignore")
                .collect();
            assert_eq!(names, vec![JOURNAL_FILE.to_owned()], "{failing}: the loser left nothing of its own");
            // And the winner's journal is released by the winner only: the loser finishing (as
            // a confused error path would) leaves it.
            finish(&RealDisk, &root, &loser).unwrap();
            assert!(journal_path(&root).exists(), "{failing}: only its holder releases the lock");
            finish(&RealDisk, &root, &winner).unwrap();
            assert!(!journal_path(&root).exists());
        }
    }

    /// Two whole batches on one vault at once, on threads, `.vaultlink` not there yet: each is
    /// applied whole or refused before any change, and the vault ends as one of them, or both
    /// one after the other, made it; no journal or lock left.
    #[test]
    fn two_batches_applied_at_once_never_mix() {
        use crate::standalone::FolderIndex;
        for _ in 0..30 {
            let dir = tempfile::tempdir().unwrap();
            for (name, text) in [("A.md", "[[X]] [[Y]]\n"), ("B.md", "[[X]]\n"), ("C.md", "[[Y]]\n"), ("X.md", "x\n"), ("Y.md", "y\n")] {
                fs::write(dir.path().join(name), text).unwrap();
            }
            let root = fs::canonicalize(dir.path()).unwrap();
            let mut index = FolderIndex::new(root.clone());
            index.refresh().unwrap();
            let plan = |from: &str, to: &str| {
                let needed = vaultlink_core::rename::notes_to_read(index.vault(), from, to).unwrap();
                let texts = needed.iter().map(|path| (path.clone(), fs::read_to_string(root.join(path)).unwrap())).collect();
                let plan = vaultlink_core::rename::plan_move(index.vault(), from, to, &texts).unwrap();
                vaultlink_core::batch::batch(&plan, &texts, "move_note", &[], std::process::id()).unwrap()
            };
            let batches = [plan("X.md", "sub/X2.md"), plan("Y.md", "sub/Y2.md")];
            let barrier = std::sync::Barrier::new(2);
            let outcomes: Vec<Result<Journal, ToolError>> = std::thread::scope(|scope| {
                let handles: Vec<_> = batches
                    .iter()
                    .map(|batch| {
                        let (barrier, root) = (&barrier, &root);
                        scope.spawn(move || {
                            barrier.wait();
                            crate::apply::apply_batch_on(&RealDisk, root, batch)
                        })
                    })
                    .collect();
                handles.into_iter().map(|handle| handle.join().unwrap()).collect()
            });
            let read = |name: &str| fs::read_to_string(root.join(name)).ok();
            for (outcome, (from, to)) in outcomes.iter().zip([("X", "X2"), ("Y", "Y2")]) {
                match outcome {
                    Ok(_) => {
                        assert!(read(&format!("{from}.md")).is_none() && read(&format!("sub/{to}.md")).is_some());
                        assert!(read("A.md").unwrap().contains(&format!("[[{to}]]")));
                    }
                    Err(error) => {
                        assert!(["change_in_progress", "concurrent_modification"].contains(&error.code.as_str()), "{error:?}");
                        assert!(read(&format!("{from}.md")).is_some() && read(&format!("sub/{to}.md")).is_none());
                        assert!(read("A.md").unwrap().contains(&format!("[[{from}]]")));
                    }
                }
            }
            assert!(outcomes.iter().any(Result::is_ok), "one of them at least: {outcomes:?}");
            let left: Vec<String> = fs::read_dir(root.join(JOURNAL_FOLDER))
                .unwrap()
                .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|name| name != "keys" && name != ".gitignore")
                .collect();
            assert_eq!(left, vec!["changes".to_owned()], "no journal or lock left; the changes made are kept");
        }
    }

    #[test]
    fn a_move_stopped_between_its_hard_link_and_its_unlink_is_undone() {
        let (_dir, root) = victim();
        fs::write(root.join("Old.md"), "moved").unwrap();
        // `disk::rename_if_free` stopped after its link: both names hold the one file.
        fs::hard_link(root.join("Old.md"), root.join("B.md")).unwrap();
        let journal = Journal {
            writes: vec![],
            moves: vec![JournalMove { from: "Old.md".to_owned(), to: "B.md".to_owned(), via: None, hash: None }],
            made_folders: vec![],
            ..crafted()
        };
        plant(&root, &journal);
        recover_if_interrupted(&root).unwrap().expect("recovered");
        assert_eq!(fs::read_to_string(root.join("Old.md")).unwrap(), "moved");
        assert!(!root.join("B.md").exists(), "the second name is gone");
        assert!(!journal_path(&root).exists());
    }

    #[test]
    fn our_own_journal_is_still_recovered() {
        let (dir, root) = victim();
        fs::write(root.join("B.md"), "moved").unwrap();
        let journal = Journal {
            writes: vec![],
            moves: vec![JournalMove { from: "Old.md".to_owned(), to: "B.md".to_owned(), via: None, hash: None }],
            made_folders: vec![],
            ..crafted()
        };
        plant(&root, &journal);
        let recovery = recover_if_interrupted(&root).unwrap().expect("recovered");
        assert_eq!(recovery.moved_back, vec!["Old.md".to_owned()]);
        assert_eq!(fs::read_to_string(root.join("Old.md")).unwrap(), "moved");
        assert!(!journal_path(&root).exists());
        assert!(dir.path().join("home/.ssh/id_ed25519").exists());
    }

    /// The plugin writes notes in place: a holder stopped between truncating a note and writing
    /// it leaves the note empty, its own torn write, which core's restore step lists as the
    /// batch's (`restorable`); recovery gives it its text back. A note holding a text recovery
    /// does not know is someone's save, kept, its text from before saved beside.
    #[test]
    fn recovery_restores_a_note_the_plugin_wrote_in_place_found_empty_and_keeps_a_save() {
        let (dir, root) = victim();
        fs::write(root.join("Torn.md"), "").unwrap();
        fs::write(root.join("Saved.md"), "a save\n").unwrap();
        // As the plugin's journal names them: core's temporary names, which it never writes.
        let in_place = |path: &str| JournalWrite {
            path: path.to_owned(),
            temporary: format!(".{path}.vaultlink-7.tmp"),
            before: "[[Old]]\n".to_owned(),
            after_hash: content_hash("[[New]]\n"),
            kind: Default::default(),
        };
        let journal =
            Journal { writes: vec![in_place("Torn.md"), in_place("Saved.md")], moves: Vec::new(), made_folders: Vec::new(), ..crafted() };
        fs::write(journal_path(&root), seal_for(&root, Purpose::Journal, &journal).unwrap()).unwrap();
        let recovery = recover(&RealDisk, &root).unwrap().expect("recovered");
        assert_eq!(recovery.restored, vec!["Torn.md".to_owned()]);
        assert_eq!(recovery.kept, vec![("Saved.md".to_owned(), ".vaultlink/recovered/Saved.md".to_owned())]);
        assert_eq!(fs::read_to_string(root.join("Torn.md")).unwrap(), "[[Old]]\n");
        assert_eq!(fs::read_to_string(root.join("Saved.md")).unwrap(), "a save\n");
        assert_eq!(fs::read_to_string(root.join(".vaultlink/recovered/Saved.md")).unwrap(), "[[Old]]\n");
        assert!(!journal_path(&root).exists());
        drop(dir);
    }
}
