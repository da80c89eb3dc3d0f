//! Safe changes to the vault's files, each made so that a save another program makes meanwhile
//! (an editor, a sync service) is never lost: a note replaced only if it holds what was expected
//! ([`replace_note`]), a file removed only if it holds what was expected ([`remove_if_holds`]), a
//! new file put only where nothing is ([`create_file`]), a file rewritten whole or not at all
//! ([`write_atomically`]); and a file the vault carries (a journal, a kept change) read no
//! further than core's bound ([`read_bounded`]). The batch executor (`apply`), recovery
//! (`journal`) and the kept changes (`history`) change the folder through these.

use std::path::{Path, PathBuf};

use vaultlink_core::journal::{self as format, Refusal};
use vaultlink_core::plan::content_hash;
use vaultlink_core::undo_steps;

use crate::disk::Disk;

/// The full path of the vault path `path` (`/`-separated) under `root`.
pub(crate) fn full(root: &Path, path: &str) -> PathBuf {
    path.split('/').fold(root.to_owned(), |full, segment| full.join(segment))
}

/// Why a journal or a kept change file was not read.
pub enum Unread {
    /// Larger than core's bound (`journal::MAX_FILE_BYTES`): refused from its size alone.
    TooLarge(Refusal),
    Failed(std::io::Error),
}

/// Reads a journal or a kept change file, no more than core's bound: its size is looked at
/// first, and the read stops past the bound (a file that grew meanwhile), so a huge file planted
/// in the vault costs nothing.
pub fn read_bounded(path: &Path) -> Result<Vec<u8>, Unread> {
    use std::io::Read as _;
    let too_large = |bytes: u64| Unread::TooLarge(Refusal::TooLarge { bytes });
    let file = std::fs::File::open(path).map_err(Unread::Failed)?;
    let size = file.metadata().map_err(Unread::Failed)?.len();
    if size > format::MAX_FILE_BYTES {
        return Err(too_large(size));
    }
    let mut bytes = Vec::with_capacity(size as usize);
    file.take(format::MAX_FILE_BYTES + 1).read_to_end(&mut bytes).map_err(Unread::Failed)?;
    if bytes.len() as u64 > format::MAX_FILE_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

/// Creates the missing folders above `path`, up to the vault's root.
pub(crate) fn make_parents(disk: &dyn Disk, root: &Path, path: &Path) -> std::io::Result<()> {
    let Some(parent) = path.parent() else {
        return Ok(());
    };
    if parent.is_dir() || parent == root {
        return Ok(());
    }
    make_parents(disk, root, parent)?;
    disk.create_dir(root, parent)
}

/// Writes `bytes` to `temporary` beside `path`, synced, and renames it over `path`; the
/// temporary file is removed if any step fails.
pub fn write_atomically(disk: &dyn Disk, root: &Path, path: &Path, temporary: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if temporary.exists() {
        disk.remove_file(root, temporary)?;
    }
    let result = (|| {
        disk.write_new(root, temporary, bytes)?;
        if path.exists() {
            disk.copy_attributes(root, path, temporary)?;
        }
        disk.rename(root, temporary, path)
    })();
    if result.is_err() && temporary.exists() {
        let _ = disk.remove_file(root, temporary);
    }
    result
}

/// The hash of `bytes` when it is one of a restore step's `restorable` hashes (core's decision of
/// which texts are the batch's own), `None` otherwise.
pub(crate) fn restorable_hash(bytes: &[u8], restorable: &[String]) -> Option<String> {
    std::str::from_utf8(bytes).ok().map(content_hash).filter(|hash| restorable.contains(hash))
}

/// What a note must hold for [`replace_note`] to replace it: the exact text, or a text of this
/// content hash (recovery, which knows what a batch wrote only by its hash).
#[derive(Debug, Clone, Copy)]
pub enum Expected<'a> {
    Bytes(&'a [u8]),
    Hash(&'a str),
}

impl Expected<'_> {
    fn held_by(self, bytes: &[u8]) -> bool {
        match self {
            Expected::Bytes(expected) => bytes == expected,
            Expected::Hash(hash) => std::str::from_utf8(bytes).is_ok_and(|text| content_hash(text) == hash),
        }
    }
}

/// Whether [`replace_note`] put the new text in place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replaced {
    Yes,
    /// The note did not hold what was expected, or another program saved it while it was being
    /// replaced: nothing of the batch is in it, and the other program's bytes are.
    ChangedMeanwhile,
}

/// The hidden name beside a note where [`replace_note`] moves the note while it checks it
/// (core's `undo_steps::aside_of`, which the undo's steps name too).
pub use vaultlink_core::undo_steps::aside_of;

/// Replaces the note at `path` by `bytes` only if it holds `expected`, without losing a save
/// another program makes meanwhile (an editor, a sync service), at any moment:
///
/// 1. the new text goes to `temporary`, synced, with the note's permissions;
/// 2. the note is renamed to `aside` (a rename that refuses to replace), so from here a save
///    by path makes a new file at `path` instead of writing into what is checked;
/// 3. what was moved aside is checked against `expected`; if it differs (a save came first), it
///    goes back to `path`, and is kept whatever happens;
/// 4. the new text is renamed to `path` without replacing: a file saved there since step 2
///    fails the rename and stays;
/// 5. what is aside is checked once more (a program that had the file open before step 2 may
///    have written into it) and removed only if it still holds `expected`; otherwise it goes
///    back to `path` and the new text is taken out.
///
/// Returns `ChangedMeanwhile` when another program's bytes won; an I/O error leaves at most the
/// note at `aside` and the new text at `temporary`, which [`undo`] (recovery) puts right.
pub fn replace_note(
    disk: &dyn Disk,
    root: &Path,
    path: &str,
    temporary: &str,
    expected: Expected<'_>,
    bytes: &[u8],
) -> std::io::Result<Replaced> {
    let (note, temporary_full) = (full(root, path), full(root, temporary));
    let aside = full(root, &aside_of(temporary).unwrap_or_else(|| format!("{temporary}.aside")));
    if temporary_full.exists() {
        disk.remove_file(root, &temporary_full)?;
    }
    let take_back_temporary = |disk: &dyn Disk| -> std::io::Result<()> {
        if temporary_full.exists() {
            disk.remove_file(root, &temporary_full)?;
        }
        Ok(())
    };
    let prepared = disk.write_new(root, &temporary_full, bytes).and_then(|()| disk.copy_attributes(root, &note, &temporary_full));
    if let Err(error) = prepared {
        let _ = take_back_temporary(disk);
        // The note gone before it was touched: someone moved or removed it.
        return if error.kind() == std::io::ErrorKind::NotFound { Ok(Replaced::ChangedMeanwhile) } else { Err(error) };
    }
    match disk.rename_new(root, &note, &aside) {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            take_back_temporary(disk)?;
            return Ok(Replaced::ChangedMeanwhile);
        }
        Err(error) => {
            let _ = take_back_temporary(disk);
            return Err(error);
        }
    }
    // From here the note is at `aside`: every way out puts it back or replaces it.
    if !std::fs::read(&aside).is_ok_and(|held| expected.held_by(&held)) {
        put_back(disk, root, path, &aside, expected)?;
        take_back_temporary(disk)?;
        return Ok(Replaced::ChangedMeanwhile);
    }
    match disk.rename_new(root, &temporary_full, &note) {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
            // Saved at `path` after the note was moved aside: that save is the newest text.
            take_back_temporary(disk)?;
            put_back(disk, root, path, &aside, expected)?;
            return Ok(Replaced::ChangedMeanwhile);
        }
        Err(error) => {
            // The note goes back where it was; if even that fails, recovery finds it aside.
            let _ = put_back(disk, root, path, &aside, expected);
            let _ = take_back_temporary(disk);
            return Err(error);
        }
    }
    if std::fs::read(&aside).is_ok_and(|held| expected.held_by(&held)) {
        disk.remove_file(root, &aside)?;
        return Ok(Replaced::Yes);
    }
    // Written into through a file opened before it was moved aside: that write is the newest.
    disk.rename_new(root, &note, &temporary_full)?;
    put_back(disk, root, path, &aside, expected)?;
    take_back_temporary(disk)?;
    Ok(Replaced::ChangedMeanwhile)
}

/// Puts what is at `aside` back at the note's `path`, never over a file there: when one was
/// saved there meanwhile, that one is the newest and stays, and what was aside is removed if
/// it holds the expected text, or else kept under `.vaultlink/recovered/`.
pub(crate) fn put_back(disk: &dyn Disk, root: &Path, path: &str, aside: &Path, expected: Expected<'_>) -> std::io::Result<()> {
    match disk.rename_new(root, aside, &full(root, path)) {
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
            if std::fs::read(aside).is_ok_and(|held| expected.held_by(&held)) {
                return disk.remove_file(root, aside);
            }
            let saved = full(root, &undo_steps::saved_path(path));
            make_parents(disk, root, &saved)?;
            let mut target = saved.clone();
            let mut number = 2;
            // Never over an earlier saved text.
            loop {
                match disk.rename_new(root, aside, &target) {
                    Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists && number < 10_000 => {
                        target = saved.with_file_name(format!(
                            "{} {number}",
                            saved.file_name().map(|name| name.to_string_lossy()).unwrap_or_default()
                        ));
                        number += 1;
                    }
                    other => return other,
                }
            }
        }
        other => other,
    }
}

/// The hidden name beside `path` where [`remove_if_holds`] moves a file while it checks it (core's
/// `undo_steps::removal_aside`, which the undo's steps name too).
pub use vaultlink_core::undo_steps::removal_aside;

/// Removes the file at `path` only if it holds `expected`, without losing a save another program
/// makes meanwhile: the file is moved aside with a rename that never replaces, what was moved
/// aside is checked, and it is removed only if it holds `expected`; otherwise it goes back (or,
/// when a file was saved at `path` since, under `.vaultlink/recovered/`). A save by path after
/// the move makes a new file at `path`, which is left. `Ok(false)` when the file was not there
/// or held something else (it is kept).
pub fn remove_if_holds(disk: &dyn Disk, root: &Path, path: &str, expected: &[u8]) -> std::io::Result<bool> {
    let aside = full(root, &removal_aside(path));
    match disk.rename_new(root, &full(root, path), &aside) {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(error) => return Err(error),
    }
    if std::fs::read(&aside).is_ok_and(|held| held == expected) {
        disk.remove_file(root, &aside)?;
        return Ok(true);
    }
    // Saved before it was moved aside: the save goes back where it was.
    put_back(disk, root, path, &aside, Expected::Bytes(expected))?;
    Ok(false)
}

/// Who may read a file `create_file` makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NewFile {
    /// As a new file of its folder (its read and write bits): a note.
    LikeItsFolder,
    /// This user alone, as the temporary file is: a file holding notes' texts (a kept change).
    Private,
}

/// Writes `bytes` to `temporary`, synced, and renames it to `path` only if nothing is there
/// (a file that appeared since the check fails the step and is kept); the temporary file is
/// removed if any step fails.
pub fn create_file(disk: &dyn Disk, root: &Path, path: &Path, temporary: &Path, bytes: &[u8], access: NewFile) -> std::io::Result<()> {
    if temporary.exists() {
        disk.remove_file(root, temporary)?;
    }
    let result = disk.write_new(root, temporary, bytes).and_then(|()| {
        // The temporary file is private; a note gets the permissions of its folder's new files.
        #[cfg(unix)]
        if let Some(folder) = path.parent().filter(|_| access == NewFile::LikeItsFolder) {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(folder)?.permissions().mode() & 0o666;
            crate::disk::set_mode(root, temporary, mode)?;
        }
        disk.rename_new(root, temporary, path)
    });
    if result.is_err() && temporary.exists() {
        let _ = disk.remove_file(root, temporary);
    }
    result
}
