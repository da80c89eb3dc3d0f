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
//! again. It runs by itself before the sidecar next reads the folder (when the process that
//! wrote the journal is gone), and on demand with `vaultlink recover <vault>`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use vaultlink_core::rename::content_hash;

use crate::disk::{exists_exactly, Disk, RealDisk};
use crate::tools::ToolError;

/// The folder, inside the vault, that holds the journal. Its name starts with a dot, so
/// Obsidian and the sidecar's own walk leave it out of the vault's files.
pub const JOURNAL_FOLDER: &str = ".vaultlink";
const JOURNAL_FILE: &str = "journal.json";
/// Where recovery saves the pre-image of a note that was edited after the interruption.
const RECOVERED_FOLDER: &str = "recovered";
pub const JOURNAL_VERSION: u32 = 1;

/// The `pid` of a journal whose batch failed and could not be wholly undone: no process is
/// applying it any more, so recovery may run at once.
pub const ABANDONED: u32 = 0;

/// What a batch is about to change, written before its first change.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Journal {
    pub version: u32,
    /// The process applying the batch; recovery leaves a live one alone.
    pub pid: u32,
    /// The tool that made the batch (`move_note`, `rewrite_link`).
    pub tool: String,
    pub started_unix_ms: u64,
    pub writes: Vec<JournalWrite>,
    pub moves: Vec<JournalMove>,
    /// Folders the batch creates, top first.
    pub made_folders: Vec<String>,
}

/// A note the batch rewrites. Paths are relative to the vault, with `/`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct JournalWrite {
    pub path: String,
    /// The temporary file the new text is written to before it is renamed over the note;
    /// empty when the note is written in place (the plugin's `vault.process`).
    #[serde(default)]
    pub temporary: String,
    /// The note's text before the batch.
    pub before: String,
    /// The SHA-256 of the text the batch writes.
    pub after_hash: String,
}

/// A file the batch moves. `via` is the intermediate name of a move that changes only the
/// case of a name, made in two renames so a case-insensitive filesystem cannot skip it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct JournalMove {
    pub from: String,
    pub to: String,
    pub via: Option<String>,
}

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
}

fn journal_path(root: &Path) -> PathBuf {
    root.join(JOURNAL_FOLDER).join(JOURNAL_FILE)
}

fn full(root: &Path, path: &str) -> PathBuf {
    path.split('/').fold(root.to_owned(), |full, segment| full.join(segment))
}

pub fn now_unix_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |since| since.as_millis() as u64)
}

fn interrupted(root: &Path, journal: Option<&Journal>) -> ToolError {
    let owner =
        journal.map_or_else(|| "an unreadable journal".to_owned(), |journal| format!("{} by process {}", journal.tool, journal.pid));
    let alive = journal.is_some_and(|journal| process_alive(journal.pid));
    if alive {
        ToolError::new(
            "change_in_progress",
            format!("another change to this vault is being applied ({owner}); nothing was changed"),
            "Wait for it to finish, then preview the change again.",
            true,
        )
    } else {
        ToolError::new(
            "interrupted_change",
            format!("an earlier change to this vault was interrupted ({owner}) and is not undone yet; nothing was changed"),
            format!("Run `vaultlink recover {}` (the sidecar also does it by itself before it next reads the vault), then preview the change again.", root.display()),
            true,
        )
    }
}

/// Writes the journal before a batch's first change. Fails, changing nothing, when another
/// journal is there.
pub fn begin(disk: &dyn Disk, root: &Path, journal: &Journal) -> Result<(), ToolError> {
    let path = journal_path(root);
    if path.exists() {
        return Err(interrupted(root, read(root).ok().flatten().as_ref()));
    }
    let folder = root.join(JOURNAL_FOLDER);
    let made_folder = !folder.exists();
    let bytes =
        serde_json::to_vec(journal).map_err(|error| ToolError::new("internal", error.to_string(), "Report this as a bug.", false))?;
    let result = (|| {
        if made_folder {
            disk.create_dir(&folder)?;
        }
        disk.write_new(&path, &bytes)?;
        disk.sync_dir(&folder)
    })();
    if let Err(error) = result {
        // Nothing of the vault has changed yet: take the journal back and refuse.
        let _ = disk.remove_file(&path);
        if made_folder {
            let _ = disk.remove_dir(&folder);
        }
        return Err(ToolError::new(
            "write_failed",
            format!("writing the journal {} failed ({error}); nothing was changed", path.display()),
            "Check the vault folder's permissions and free space, then try again.",
            true,
        ));
    }
    Ok(())
}

/// Removes the journal once every change is made: from here on the batch is applied, and what
/// follows (the emptied `.vaultlink` folder, a sync of the root) is tidying that may fail.
pub fn finish(disk: &dyn Disk, root: &Path) -> std::io::Result<()> {
    match disk.remove_file(&journal_path(root)) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => return Err(error),
        _ => {}
    }
    // Removed only when empty: `recovered/` may hold saved pre-images.
    let _ = disk.remove_dir(&root.join(JOURNAL_FOLDER));
    if let Err(error) = disk.sync_dir(root) {
        tracing::warn!("syncing {} after a change failed: {error}", root.display());
    }
    Ok(())
}

/// Marks the journal of a batch that failed and could not be undone as abandoned, so the next
/// read of the vault (by this process too) recovers it. Best effort: if even this fails, the
/// journal still names this process, and `vaultlink recover` after it ends recovers it.
pub fn abandon(disk: &dyn Disk, root: &Path) {
    let Ok(Some(mut journal)) = read(root) else { return };
    journal.pid = ABANDONED;
    let Ok(bytes) = serde_json::to_vec(&journal) else { return };
    let temporary = root.join(JOURNAL_FOLDER).join(format!("{JOURNAL_FILE}.tmp"));
    if let Err(error) = write_atomically(disk, &journal_path(root), &temporary, &bytes) {
        tracing::warn!("marking the journal of a failed change as abandoned failed: {error}");
    }
}

/// The journal in the vault, if any. An unreadable one is an error.
pub fn read(root: &Path) -> Result<Option<Journal>, String> {
    let path = journal_path(root);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(format!("{} cannot be read: {error}", path.display())),
    };
    let journal: Journal =
        serde_json::from_slice(&bytes).map_err(|error| format!("{} is not a vaultlink journal: {error}", path.display()))?;
    if journal.version != JOURNAL_VERSION {
        return Err(format!(
            "{} is a version {} journal; this vaultlink reads version {JOURNAL_VERSION}: recover with the vaultlink that wrote it",
            path.display(),
            journal.version
        ));
    }
    Ok(Some(journal))
}

/// Whether a process with this id is running. When it cannot be told, it counts as running:
/// recovery then waits for a person rather than undo a live batch.
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

/// Recovers an interrupted batch if the vault has a journal whose process is gone. Called
/// before the sidecar reads the folder; logs what it did.
pub fn recover_if_interrupted(root: &Path) -> Result<Option<Recovery>, ToolError> {
    if !journal_path(root).exists() {
        return Ok(None);
    }
    match read(root) {
        Ok(Some(journal)) if process_alive(journal.pid) => return Ok(None),
        // Cut short, or being written by another process right now: left alone while young.
        Err(_) if journal_age(root).is_some_and(|age| age < YOUNG_JOURNAL) => return Ok(None),
        _ => {}
    }
    let recovery = recover(&RealDisk, root)?;
    if let Some(recovery) = &recovery {
        tracing::warn!("{}", describe(root, recovery));
    }
    Ok(recovery)
}

/// How long an unreadable journal is taken for one another process is still writing.
const YOUNG_JOURNAL: std::time::Duration = std::time::Duration::from_secs(60);

fn journal_age(root: &Path) -> Option<std::time::Duration> {
    std::fs::metadata(journal_path(root)).and_then(|meta| meta.modified()).ok().and_then(|modified| modified.elapsed().ok())
}

/// One paragraph saying what recovery did, for the log and `vaultlink recover`.
pub fn describe(root: &Path, recovery: &Recovery) -> String {
    let mut text = format!(
        "undid an interrupted {} (process {}) in {}: {} notes restored, {} files moved back",
        recovery.tool,
        recovery.pid,
        root.display(),
        recovery.restored.len(),
        recovery.moved_back.len()
    );
    for (path, saved) in &recovery.kept {
        text.push_str(&format!("; {path} was edited since and keeps that edit (its text from before the change is in {saved})"));
    }
    text
}

/// Undoes the batch the journal describes and removes the journal. `Ok(None)` when there is
/// no journal. A journal that cannot be parsed was being written when the process stopped,
/// before any change to the vault, and is removed.
pub fn recover(disk: &dyn Disk, root: &Path) -> Result<Option<Recovery>, ToolError> {
    let failed = |what: String, error: std::io::Error| recovery_failed(root, what, error);
    let path = journal_path(root);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(failed(format!("reading {}", path.display()), error)),
    };
    if serde_json::from_slice::<serde_json::Value>(&bytes).is_err() {
        // Cut short: the journal is synced before the first change, so none was made.
        tracing::warn!(
            "{} is incomplete: it was being written when its process stopped, before any change, and is removed",
            path.display()
        );
        finish(disk, root).map_err(|error| failed(format!("removing {}", path.display()), error))?;
        return Ok(Some(Recovery::default()));
    }
    let journal = match read(root) {
        Ok(Some(journal)) => journal,
        Ok(None) => return Ok(None),
        Err(reason) => {
            return Err(ToolError::new(
                "recovery_failed",
                format!("{reason}; nothing was changed"),
                "Recover with the vaultlink version that wrote the journal.",
                false,
            ))
        }
    };
    undo(disk, root, &journal).map(Some)
}

fn recovery_failed(root: &Path, what: String, error: std::io::Error) -> ToolError {
    ToolError::new(
        "recovery_failed",
        format!("{what} failed ({error}); the journal is kept, so recovery can run again"),
        format!("Fix what the error names (permissions, free space), then run `vaultlink recover {}`.", root.display()),
        true,
    )
}

/// Undoes what `journal` describes, from the state the vault is in, and removes the journal
/// file. `journal` may be less than the file holds: a batch that stops itself knows which of
/// its notes it had not yet written.
pub fn undo(disk: &dyn Disk, root: &Path, journal: &Journal) -> Result<Recovery, ToolError> {
    let failed = |what: String, error: std::io::Error| recovery_failed(root, what, error);
    let mut recovery = Recovery { pid: journal.pid, tool: journal.tool.clone(), ..Recovery::default() };
    for write in journal.writes.iter().filter(|write| !write.temporary.is_empty()) {
        let temporary = full(root, &write.temporary);
        if temporary.exists() {
            disk.remove_file(&temporary).map_err(|error| failed(format!("removing {}", write.temporary), error))?;
        }
    }
    for file_move in journal.moves.iter().rev() {
        let (from, to) = (full(root, &file_move.from), full(root, &file_move.to));
        let via = file_move.via.as_deref().map(|via| full(root, via));
        let back = |source: &Path| -> Result<(), ToolError> {
            make_parents(disk, root, &from).map_err(|error| failed(format!("recreating the folder of {}", file_move.from), error))?;
            disk.rename(source, &from).map_err(|error| failed(format!("moving {} back", file_move.to), error))
        };
        if let Some(via) = via.as_ref().filter(|via| exists_exactly(via)) {
            back(via)?;
            recovery.moved_back.push(file_move.from.clone());
        } else if exists_exactly(&to) && !exists_exactly(&from) {
            match via.as_ref() {
                // A case-only move goes back in two renames too.
                Some(via) => {
                    disk.rename(&to, via).map_err(|error| failed(format!("moving {} back", file_move.to), error))?;
                    back(via)?;
                }
                None => back(&to)?,
            }
            recovery.moved_back.push(file_move.from.clone());
        }
    }
    for write in &journal.writes {
        let path = full(root, &write.path);
        match std::fs::read(&path) {
            Ok(bytes) if bytes == write.before.as_bytes() => {}
            Ok(bytes) if std::str::from_utf8(&bytes).is_ok_and(|text| content_hash(text) == write.after_hash) => {
                write_atomically(disk, &path, &full(root, &temporary_of(write)), write.before.as_bytes())
                    .map_err(|error| failed(format!("restoring {}", write.path), error))?;
                recovery.restored.push(write.path.clone());
            }
            _ => {
                // Edited, or removed, by someone since: theirs stays; ours is kept beside it.
                let saved = format!("{JOURNAL_FOLDER}/{RECOVERED_FOLDER}/{}", write.path);
                let saved_full = full(root, &saved);
                if std::fs::read(&saved_full).ok().as_deref() != Some(write.before.as_bytes()) {
                    make_parents(disk, root, &saved_full).map_err(|error| failed(format!("saving the text of {}", write.path), error))?;
                    let _ = std::fs::remove_file(&saved_full);
                    disk.write_new(&saved_full, write.before.as_bytes())
                        .map_err(|error| failed(format!("saving the text of {}", write.path), error))?;
                }
                recovery.kept.push((write.path.clone(), saved));
            }
        }
    }
    for folder in journal.made_folders.iter().rev() {
        let folder = full(root, folder);
        if folder.is_dir() && std::fs::read_dir(&folder).is_ok_and(|mut entries| entries.next().is_none()) {
            disk.remove_dir(&folder).map_err(|error| failed(format!("removing the folder {}", folder.display()), error))?;
        }
    }
    finish(disk, root).map_err(|error| failed(format!("removing {}", journal_path(root).display()), error))?;
    Ok(recovery)
}

/// The temporary file for restoring a note: the batch's own, or one beside the note.
fn temporary_of(write: &JournalWrite) -> String {
    if !write.temporary.is_empty() {
        return write.temporary.clone();
    }
    match write.path.rsplit_once('/') {
        Some((folder, name)) => format!("{folder}/.{name}.vaultlink-recover.tmp"),
        None => format!(".{}.vaultlink-recover.tmp", write.path),
    }
}

/// Creates the missing folders above `path`, up to the vault's root.
fn make_parents(disk: &dyn Disk, root: &Path, path: &Path) -> std::io::Result<()> {
    let Some(parent) = path.parent() else { return Ok(()) };
    if parent.is_dir() || parent == root {
        return Ok(());
    }
    make_parents(disk, root, parent)?;
    disk.create_dir(parent)
}

/// Writes `bytes` to `temporary` beside `path`, synced, and renames it over `path`; the
/// temporary file is removed if any step fails.
pub fn write_atomically(disk: &dyn Disk, path: &Path, temporary: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if temporary.exists() {
        disk.remove_file(temporary)?;
    }
    let result = (|| {
        disk.write_new(temporary, bytes)?;
        if path.exists() {
            disk.copy_permissions(path, temporary)?;
        }
        disk.rename(temporary, path)
    })();
    if result.is_err() && temporary.exists() {
        let _ = disk.remove_file(temporary);
    }
    result
}
