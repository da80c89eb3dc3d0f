//! The vault's lock, and waiting for it: one writer per vault, among every process that shares
//! the folder (a second server, a command, the plugin).
//!
//! The lock is the journal file itself (`journal`), taken in one step: a sealed journal is
//! written whole to a name of the attempt's own, kernel-locked, and renamed to `journal.json` with
//! a rename that never replaces, so two writers starting at once cannot both hold it, and no one
//! sees a journal half written. A writing call holds a [`VaultLock`] (a journal of no steps) from
//! before it reads the folder to plan until its change is made, and [`begin_holding`] puts the
//! batch's journal in its place; a reading call [`wait_for_changes`] while another process's
//! change is in flight, and answers `change_in_progress` after [`WAIT_FOR_CHANGE`]. Whether a
//! journal found is in flight, interrupted or untrusted is core's `lease::judge` (`journal::judge`).

use std::path::Path;

use vaultlink_core::error::ErrorCode;
use vaultlink_core::journal::{self as format, Journal, Purpose};
use vaultlink_core::lease::Verdict;
use vaultlink_core::step::StepError;

use crate::disk::Disk;
use crate::error::ToolError;
use crate::journal::{find, find_held, finish, journal_path, judge, machine, recover_if_interrupted, same_batch, Found, JOURNAL_FILE};
use crate::lease::{held_here, next_attempt, now_unix_ms, put_locked, Held, JOURNAL_FOLDER};
use crate::seal_keys::seal_for;

fn interrupted(root: &Path, found: &Found) -> ToolError {
    let refusal = match judge(root, found, "") {
        None => StepError::JustApplied,
        Some(verdict) => verdict.refusal(&root.display().to_string(), &journal_path(root).display().to_string()),
    };
    refusal.error().into()
}

/// Writes the journal, sealed, before a batch's first change. Fails, changing nothing, when
/// another journal is there.
pub fn begin(disk: &dyn Disk, root: &Path, journal: &Journal) -> Result<Held, ToolError> {
    let (bytes, file) = take(disk, root, journal)?;
    copy_for_tests(&bytes);
    hold(disk, root, journal, file)
}

/// Holds the lease of the journal `journal` just put in place, `file`.
fn hold(disk: &dyn Disk, root: &Path, journal: &Journal, file: std::fs::File) -> Result<Held, ToolError> {
    Held::hold(&journal_path(root), &journal.holder, file).map_err(|error| {
        let _ = finish(disk, root, journal);
        StepError::JournalUnwritable { journal: journal_path(root).display().to_string(), why: error.to_string() }.error().into()
    })
}

/// Takes the lock with `journal` in it (see [`begin`]); answers what was written.
fn take(disk: &dyn Disk, root: &Path, journal: &Journal) -> Result<(String, std::fs::File), ToolError> {
    let path = journal_path(root);
    let folder = root.join(JOURNAL_FOLDER);
    if std::fs::symlink_metadata(&path).is_ok() {
        return Err(interrupted(root, &find(root)));
    }
    if std::fs::symlink_metadata(&folder).is_ok_and(|meta| meta.file_type().is_symlink() || !meta.is_dir()) {
        return Err(ToolError::new(
            ErrorCode::InvalidPath,
            format!("`{JOURNAL_FOLDER}` in {} is not a folder (a symbolic link, or a file), so no journal can be kept there; nothing was changed", root.display()),
            format!("Remove {} (vaultlink makes the folder itself), then try again.", folder.display()),
            false,
        ));
    }
    let mut sealed = None::<String>;
    let write_failed = |error: std::io::Error| -> ToolError {
        StepError::JournalUnwritable { journal: path.display().to_string(), why: error.to_string() }.error().into()
    };
    // The lock is the journal file itself, taken in one step: the sealed journal is written whole
    // to a name of this attempt's own, then renamed to `journal.json` with a rename that never
    // replaces, so two batches starting at once cannot both hold it, and no one ever sees a
    // journal half written. Every error path takes back only what this attempt made: its own
    // file, and the folder if it made it and it is empty.
    let mut attempt = 0;
    let own = loop {
        let made_folder = match disk.create_dir(root, &folder) {
            Ok(()) => true,
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => false,
            Err(error) => return Err(write_failed(error)),
        };
        // Sealed once the folder is there: the vault's first seal makes its key in it.
        let bytes = match &mut sealed {
            Some(bytes) => bytes,
            None => match seal_for(root, Purpose::Journal, journal) {
                Ok(bytes) => sealed.insert(bytes),
                Err(error) => {
                    if made_folder {
                        let _ = disk.remove_dir(root, &folder);
                    }
                    return Err(error);
                }
            },
        };
        let own = folder.join(format!("{JOURNAL_FILE}.{}-{}.lock", std::process::id(), next_attempt()));
        match disk.write_new(root, &own, bytes.as_bytes()) {
            Ok(()) => break (own, made_folder),
            // The folder was removed by a batch finishing a moment ago: made again.
            Err(error) if error.kind() == std::io::ErrorKind::NotFound && attempt < 10 => attempt += 1,
            Err(error) => {
                // write_new made this file of our own before it failed part way (a full disk).
                if own.exists() {
                    let _ = disk.remove_file(root, &own);
                }
                if made_folder {
                    let _ = disk.remove_dir(root, &folder);
                }
                return Err(write_failed(error));
            }
        }
    };
    let (own, made_folder) = own;
    let take_back = |disk: &dyn Disk| {
        let _ = disk.remove_file(root, &own);
        if made_folder {
            let _ = disk.remove_dir(root, &folder);
        }
    };
    // Locked before it is the journal, so that it is never the journal unlocked.
    let file = match crate::lease::open_locked(&own) {
        Ok(file) => file,
        Err(error) => {
            take_back(disk);
            return Err(write_failed(error));
        }
    };
    match disk.rename_new(root, &own, &path) {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
            take_back(disk);
            return Err(interrupted(root, &find(root)));
        }
        Err(error) => {
            take_back(disk);
            return Err(write_failed(error));
        }
    }
    // The lock is ours from here: on a failure, the journal is ours to remove. The journal's
    // entry is made durable in its folder, and the folder's own entry in the vault's root when
    // this call made it (the first batch in a vault), before any change it guards.
    if let Err(error) = disk.sync_dir(root, &folder).and_then(|()| if made_folder { disk.sync_dir(root, root) } else { Ok(()) }) {
        let _ = disk.remove_file(root, &path);
        if made_folder {
            let _ = disk.remove_dir(root, &folder);
        }
        return Err(write_failed(error));
    }
    Ok((sealed.unwrap_or_default(), file))
}

/// The vault's lock, held by a writing call from before it reads the folder to plan until its
/// change is made: the journal file, holding a journal of no steps (the tool, this process, when)
/// while the call plans. No other process (a second server, a command, the plugin) changes the
/// vault meanwhile, so the plan is made on a vault no one else is changing, and every reader
/// waits (see [`wait_for_changes`]). Once planned, [`begin_holding`] puts the batch's journal in
/// its place; a call that changes nothing gives the lock back with [`VaultLock::release`].
#[derive(Debug)]
pub struct VaultLock {
    journal: Journal,
    pub held: Held,
    /// Whether taking the lock made the vault's first sealing key (to seal the lock itself): a
    /// call that then leaves nothing sealed behind takes the key back with the lock, so that a
    /// refused or previewed call leaves the vault as it found it.
    made_key: bool,
}

impl VaultLock {
    /// Takes the lock, waiting up to `wait` for another process's change to end (with a progress
    /// step now and then); `change_in_progress` after that. A journal whose lease ran out is
    /// recovered first (as the next read would).
    pub fn take(
        disk: &dyn Disk,
        root: &Path,
        tool: &str,
        wait: std::time::Duration,
        progress: &crate::progress::Progress,
    ) -> Result<VaultLock, ToolError> {
        let started = std::time::Instant::now();
        let mut said = None::<std::time::Instant>;
        let mut recovered = false;
        loop {
            let journal = Journal {
                version: format::VERSION,
                pid: std::process::id(),
                holder: crate::lease::new_holder(),
                tool: tool.to_owned(),
                started_unix_ms: now_unix_ms(),
                machine: machine(),
                writes: Vec::new(),
                moves: Vec::new(),
                made_folders: Vec::new(),
                change_id: format!("lock-{}", next_attempt()),
                forget: None,
            };
            let keys_before = crate::seal_keys::any_keys(root);
            // The lock alone is no batch's journal: not copied for the tests.
            match take(disk, root, &journal) {
                Ok((_, file)) => {
                    let made_key = !keys_before && crate::seal_keys::any_keys(root);
                    return Ok(VaultLock { held: hold(disk, root, &journal, file)?, journal, made_key });
                }
                Err(error) if error.code == ErrorCode::InterruptedChange.as_str() && !recovered => {
                    recovered = true;
                    recover_if_interrupted(root)?;
                }
                Err(error) if error.code == ErrorCode::ChangeInProgress.as_str() && started.elapsed() < wait => {
                    if said.is_none_or(|at| at.elapsed() >= PROGRESS_EVERY) {
                        said = Some(std::time::Instant::now());
                        progress.step(format!(
                            "{}; waiting for it ({} of at most {} s)",
                            error.message.trim_end_matches("; nothing was changed"),
                            started.elapsed().as_secs(),
                            wait.as_secs()
                        ));
                    }
                    std::thread::sleep(POLL);
                }
                Err(error) => return Err(error),
            }
        }
    }

    /// Gives the lock back, if it is still the lock and not a batch's journal (a batch removes
    /// its own journal when it is made or undone).
    pub fn release(&self, disk: &dyn Disk, root: &Path) {
        if let Found::Ours(found) = find_held(root) {
            if same_batch(&found, &self.journal) {
                if let Err(error) = finish(disk, root, &self.journal) {
                    tracing::warn!("releasing the vault's lock failed: {error}");
                }
            }
        }
        if self.made_key {
            crate::seal_keys::take_back_unused(disk, root);
        }
    }
}

/// Puts the journal of `journal`'s batch in the place of the lock `held`, before the batch's
/// first change: written whole under a name of its own, synced, and renamed over the lock (the
/// lock is this call's, so nothing else can be there). Fails, changing nothing, when the lock is
/// no longer this call's.
pub fn begin_holding(disk: &dyn Disk, root: &Path, held: &VaultLock, journal: &Journal) -> Result<(), ToolError> {
    let path = journal_path(root);
    match find(root) {
        Found::Ours(found) if same_batch(&found, &held.journal) && found.holder == held.journal.holder => {}
        other => return Err(interrupted(root, &other)),
    }
    let bytes = seal_for(root, Purpose::Journal, journal)?;
    let own = root.join(JOURNAL_FOLDER).join(format!("{JOURNAL_FILE}.{}-{}.lock", std::process::id(), next_attempt()));
    let file = put_locked(disk, root, &path, &own, bytes.as_bytes())
        .and_then(|file| disk.sync_dir(root, &root.join(JOURNAL_FOLDER)).map(|()| file))
        .map_err(|error| -> ToolError {
            StepError::JournalUnwritable { journal: path.display().to_string(), why: error.to_string() }.error().into()
        })?;
    copy_for_tests(&bytes);
    held.held.lease.repoint(file);
    Ok(())
}

/// How often a call waiting for another process's change looks again, and says so.
const POLL: std::time::Duration = std::time::Duration::from_millis(25);
const PROGRESS_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// How long a call waits for another process's change to the vault before it answers
/// `change_in_progress`.
pub const WAIT_FOR_CHANGE: std::time::Duration = std::time::Duration::from_secs(5);

/// Another process's change being made in the vault now: its journal (or lock) is there, and
/// its lease is live (`judge`); `None` when nothing is in flight (a journal whose lease ran out, or one not
/// ours, is recovery's or the user's business, not a change in flight).
fn in_flight(root: &Path) -> Option<(Option<String>, Option<u32>)> {
    let found = find(root);
    if let Found::Ours(journal) = &found {
        if held_here(&journal.holder) {
            return None;
        }
    }
    match judge(root, &found, "")? {
        Verdict::InProgress { tool, pid, .. } => Some((Some(tool), Some(pid))),
        Verdict::Starting { tool, pid } => Some((tool, pid)),
        _ => None,
    }
}

/// What the journal's folder looks like: it changes whenever a journal (or the lock) is made,
/// replaced or removed in it.
pub fn lock_stamp(root: &Path) -> Option<(Option<std::time::SystemTime>, u64, u64)> {
    let meta = std::fs::symlink_metadata(root.join(JOURNAL_FOLDER)).ok()?;
    #[cfg(unix)]
    let (inode, changed) = {
        use std::os::unix::fs::MetadataExt;
        (meta.ino(), (meta.ctime() as u64).wrapping_mul(1_000_000_000).wrapping_add(meta.ctime_nsec() as u64))
    };
    #[cfg(not(unix))]
    let (inode, changed) = (0, meta.len());
    Some((meta.modified().ok(), inode, changed))
}

/// Waits, up to `wait`, while another process's change is being made in the vault (a second
/// server's, a command's, the plugin's: they share the journal file), reporting progress now and
/// then; `change_in_progress` when it is still being made after that. A reading call (or a
/// preview) calls this before it reads the folder, so it never reads a change half made.
pub fn wait_for_changes(root: &Path, wait: std::time::Duration, progress: &crate::progress::Progress) -> Result<(), ToolError> {
    let started = std::time::Instant::now();
    let mut said = None::<std::time::Instant>;
    while let Some((tool, pid)) = in_flight(root) {
        if started.elapsed() >= wait {
            return Err(StepError::Busy { tool, pid, waited_s: started.elapsed().as_secs() }.error().into());
        }
        if said.is_none_or(|at| at.elapsed() >= PROGRESS_EVERY) {
            said = Some(std::time::Instant::now());
            let who = match (&tool, pid) {
                (Some(tool), Some(pid)) => format!("{tool} by process {pid}"),
                _ => "a change starting".to_owned(),
            };
            progress.step(format!(
                "another change to the vault is being made ({who}); waiting for it before reading ({} of at most {} s)",
                started.elapsed().as_secs(),
                wait.as_secs()
            ));
        }
        std::thread::sleep(POLL);
    }
    Ok(())
}

/// In a debug build only: appends each journal begun to the file `VAULTLINK_DEBUG_JOURNAL_COPY`
/// names, one per line, so the end-to-end tests can hold the journals of both edges side by side
/// (a journal lives only while its batch runs). A release build has no such seam.
fn copy_for_tests(bytes: &str) {
    #[cfg(debug_assertions)]
    if let Some(copy) = std::env::var_os("VAULTLINK_DEBUG_JOURNAL_COPY") {
        use std::io::Write;
        let appended = std::fs::OpenOptions::new().create(true).append(true).open(copy).and_then(|mut file| writeln!(file, "{bytes}"));
        if let Err(error) = appended {
            tracing::warn!("copying the journal for the tests failed: {error}");
        }
    }
    #[cfg(not(debug_assertions))]
    let _ = bytes;
}
