//! The changes kept for `undo_change` on the vault folder, as core's `history` decides: each
//! applied batch's journal, sealed like the journal, in `<vault>/.vaultlink/changes/`; the
//! oldest removed past core's count and size; the one an undo consumed removed.

use std::path::Path;

use vaultlink_core::history::{is_record_name, record_name, to_forget, KeptChange, CHANGES_FOLDER};
use vaultlink_core::journal::{self as format, Journal};

use crate::disk::Disk;

/// The kept changes that open under this user's key; any other file there is left alone, and
/// logged.
pub fn kept_changes(root: &Path) -> Vec<KeptChange> {
    let folder = root.join(CHANGES_FOLDER);
    // Nothing reached through a symbolic link is trusted: `.vaultlink` and its `changes` must
    // be the vault's own folders.
    for step in [root.join(crate::journal::JOURNAL_FOLDER), folder.clone()] {
        match std::fs::symlink_metadata(&step) {
            Ok(meta) if meta.is_dir() => {}
            _ => return Vec::new(),
        }
    }
    let Ok(entries) = std::fs::read_dir(&folder) else { return Vec::new() };
    let key = match crate::state::journal_key() {
        Ok(key) => key,
        Err(error) => {
            tracing::warn!("the kept changes cannot be checked: {error}");
            return Vec::new();
        }
    };
    let mut kept = Vec::new();
    for entry in entries.flatten() {
        let name = format!("{CHANGES_FOLDER}/{}", entry.file_name().to_string_lossy());
        if !is_record_name(&name) || !entry.file_type().is_ok_and(|kind| kind.is_file()) {
            continue;
        }
        let Ok(bytes) = std::fs::read(entry.path()) else { continue };
        match format::open(&key, &bytes) {
            Ok(journal) => kept.push(KeptChange { name, journal }),
            Err(refusal) => tracing::warn!("{name} is not used for undo: {}", refusal.message()),
        }
    }
    kept.sort_by(|a, b| a.name.cmp(&b.name));
    kept
}

/// Keeps the applied batch's journal for `undo_change`, then forgets the oldest past the bounds.
pub fn keep(disk: &dyn Disk, root: &Path, journal: &Journal) -> std::io::Result<()> {
    let key = crate::state::journal_key().map_err(std::io::Error::other)?;
    for folder in [root.join(crate::journal::JOURNAL_FOLDER), root.join(CHANGES_FOLDER)] {
        if !folder.is_dir() {
            disk.create_dir(root, &folder)?;
        }
    }
    let name = record_name(crate::journal::now_unix_ms(), &journal.change_id);
    let path = root.join(&name);
    let temporary = root.join(format!("{name}.tmp"));
    // Private, as the journal is: it holds the notes' texts from before the change.
    crate::journal::create_file(disk, root, &path, &temporary, format::seal(&key, journal).as_bytes(), crate::journal::NewFile::Private)?;
    let mut records = Vec::new();
    for entry in std::fs::read_dir(root.join(CHANGES_FOLDER))?.flatten() {
        let name = format!("{CHANGES_FOLDER}/{}", entry.file_name().to_string_lossy());
        if is_record_name(&name) {
            records.push((name, entry.metadata().map(|meta| meta.len()).unwrap_or(0)));
        }
    }
    for old in to_forget(&records) {
        disk.remove_file(root, &root.join(old))?;
    }
    Ok(())
}

/// Removes the kept change an undo consumed, and the folders left empty.
pub fn forget(disk: &dyn Disk, root: &Path, name: &str) -> std::io::Result<()> {
    if !is_record_name(name) {
        return Ok(());
    }
    let path = root.join(name);
    if path.is_file() {
        disk.remove_file(root, &path)?;
    }
    let _ = disk.remove_dir(root, &root.join(CHANGES_FOLDER));
    let _ = disk.remove_dir(root, &root.join(crate::journal::JOURNAL_FOLDER));
    Ok(())
}
