//! The changes kept for `undo_change` on the vault folder, as core's `history` decides: each
//! applied batch's journal, sealed as a kept change for this vault, in
//! `<vault>/.vaultlink/changes/`; kept as part of the batch's commit (written and synced under
//! the lock, before the journal goes), so a batch is undone by recovery or made and kept; the
//! oldest removed past core's count and size once the batch is made; the one an undo consumed
//! set aside as the record that the undo was made (so a retried undo is answered
//! `already_applied`), and the set-aside ones forgotten past the same bounds.

use std::path::Path;

use vaultlink_core::history::{
    is_record_name, kept_of, next_record_name, set_aside_name, to_forget, undone_record, KeptChange, UnopenedChange, CHANGES_FOLDER,
};
use vaultlink_core::journal::{Journal, Purpose};

use crate::disk::Disk;
use crate::replace::{read_bounded, Unread};

/// Whether `.vaultlink` and its `changes` are the vault's own folders: nothing reached through a
/// symbolic link is trusted.
fn own_folders(root: &Path) -> bool {
    [root.join(crate::lease::JOURNAL_FOLDER), root.join(CHANGES_FOLDER)]
        .iter()
        .all(|step| std::fs::symlink_metadata(step).is_ok_and(|meta| meta.is_dir()))
}

/// The names (`.vaultlink/changes/<name>`) of the kept changes' files, whatever they hold, from
/// the folder's listing alone.
pub fn record_names(root: &Path) -> Vec<String> {
    names_in_changes(root, is_record_name)
}

/// The names (`.vaultlink/changes/<name>`) of the files in the kept changes' folder that `keep`
/// takes, sorted (oldest first, as the names begin with their time); none when the folder is not
/// vaultlink's own.
fn names_in_changes(root: &Path, keep: impl Fn(&str) -> bool) -> Vec<String> {
    if !own_folders(root) {
        return Vec::new();
    }
    let Ok(entries) = std::fs::read_dir(root.join(CHANGES_FOLDER)) else { return Vec::new() };
    let mut names: Vec<String> = entries
        .flatten()
        .map(|entry| format!("{CHANGES_FOLDER}/{}", entry.file_name().to_string_lossy()))
        .filter(|name| keep(name))
        .collect();
    names.sort();
    names
}

/// The kept changes that open under the vault's key (`seal_keys`) as kept changes; any other
/// file there (one past core's bound is not read) is left alone, and logged.
pub fn kept_changes(root: &Path) -> Vec<KeptChange> {
    opened_changes(root).0
}

/// The kept changes that open, and the files named as kept changes that do not, with why (no
/// undo uses them; an undo without an id never reaches past a newer one).
pub fn opened_changes(root: &Path) -> (Vec<KeptChange>, Vec<UnopenedChange>) {
    let names = record_names(root);
    if names.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let mut unopened = Vec::new();
    let mut kept = Vec::new();
    for name in names {
        let path = root.join(&name);
        if !std::fs::symlink_metadata(&path).is_ok_and(|meta| meta.is_file()) {
            unopened.push(UnopenedChange { name, why: "it is not a plain file".to_owned() });
            continue;
        }
        let bytes = match read_bounded(&path) {
            Ok(bytes) => bytes,
            Err(Unread::TooLarge(refusal)) => {
                tracing::warn!("{name} is not used for undo: {}", refusal.message());
                unopened.push(UnopenedChange { why: refusal.message(), name });
                continue;
            }
            Err(Unread::Failed(error)) => {
                unopened.push(UnopenedChange { name, why: vaultlink_core::own_files::cannot_be_read(&error.to_string()) });
                continue;
            }
        };
        match crate::seal_keys::open(root, Purpose::Kept, &bytes) {
            Ok(journal) => kept.push(KeptChange { name, journal }),
            Err(refusal) => {
                tracing::warn!("{name} is not used for undo: {}", refusal.message());
                unopened.push(UnopenedChange { why: refusal.message(), name });
            }
        }
    }
    (kept, unopened)
}

/// The files undoes set aside ([`set_aside`]) as the record that they were made, each opened as a
/// kept change under the vault's key; one that does not open is left out (it records nothing).
pub fn undone_changes(root: &Path) -> Vec<KeptChange> {
    let mut undone = Vec::new();
    for name in set_aside_names(root) {
        let path = root.join(&name);
        if !std::fs::symlink_metadata(&path).is_ok_and(|meta| meta.is_file()) {
            continue;
        }
        let Ok(bytes) = read_bounded(&path) else { continue };
        if let Ok(journal) = crate::seal_keys::open(root, Purpose::Kept, &bytes) {
            undone.push(KeptChange { name, journal });
        }
    }
    undone
}

/// The names of the files undoes set aside, oldest first.
fn set_aside_names(root: &Path) -> Vec<String> {
    names_in_changes(root, |name| undone_record(name).is_some())
}

/// Keeps the applied batch's journal for `undo_change`, as part of its commit: called holding the
/// lock, before the journal is removed. The file is written whole, synced, and put in place
/// without replacing; its folder's entry is synced too, so it is on the disk before the journal
/// goes. Answers the kept change's name.
pub fn keep(disk: &dyn Disk, root: &Path, journal: &Journal) -> Result<String, String> {
    let failed = |error: std::io::Error| format!("keeping the change for undo_change failed: {error}");
    let sealed = crate::seal_keys::seal_for(root, Purpose::Kept, journal).map_err(|error| error.message)?;
    let changes = root.join(CHANGES_FOLDER);
    // Nothing is written through a symbolic link: it may lead out of the vault.
    if std::fs::symlink_metadata(&changes).is_ok_and(|meta| !meta.is_dir()) {
        return Err(format!(
            "keeping the change for undo_change failed: `{CHANGES_FOLDER}` is not a folder of the vault (a symbolic link, or a file)"
        ));
    }
    let made = !changes.is_dir();
    // A delete keeps its change with no journal before it, so `.vaultlink` may not be there yet.
    let journal_folder = root.join(crate::lease::JOURNAL_FOLDER);
    let made_journal_folder = made && !journal_folder.is_dir();
    if made_journal_folder {
        disk.create_dir(root, &journal_folder).map_err(failed)?;
    }
    if made {
        disk.create_dir(root, &changes).map_err(failed)?;
    }
    let name = next_record_name(crate::lease::now_unix_ms(), &journal.change_id, &record_names(root));
    let path = root.join(&name);
    let temporary = root.join(format!("{name}.tmp"));
    // Private, as the journal is: it holds the notes' texts from before the change.
    crate::replace::create_file(disk, root, &path, &temporary, sealed.as_bytes(), crate::replace::NewFile::Private).map_err(failed)?;
    disk.sync_dir(root, &changes).map_err(failed)?;
    if made {
        disk.sync_dir(root, &journal_folder).map_err(failed)?;
    }
    if made_journal_folder {
        disk.sync_dir(root, root).map_err(failed)?;
    }
    Ok(name)
}

/// Forgets the oldest kept changes past core's bounds, and the oldest records of undoes past the
/// same bounds: tidying once the batch is made.
pub fn forget_oldest(disk: &dyn Disk, root: &Path) -> std::io::Result<()> {
    for names in [record_names(root), set_aside_names(root)] {
        let mut records = Vec::new();
        for name in names {
            let size = std::fs::symlink_metadata(root.join(&name)).map(|meta| meta.len()).unwrap_or(0);
            records.push((name, size));
        }
        for old in to_forget(&records) {
            disk.remove_file(root, &root.join(old))?;
        }
    }
    Ok(())
}

/// Removes the kept change that is `journal`'s own batch, if one was kept (the batch stopped
/// between keeping and removing its journal): recovery undoes the batch, so it is no longer
/// kept.
pub fn forget_kept_of(disk: &dyn Disk, root: &Path, journal: &Journal) -> std::io::Result<()> {
    if journal.change_id.is_empty() || !own_folders(root) {
        return Ok(());
    }
    let kept = kept_changes(root);
    let changes = root.join(CHANGES_FOLDER);
    if let Some(own) = kept_of(journal, &kept) {
        disk.remove_file(root, &root.join(&own.name))?;
        disk.sync_dir(root, &changes)?;
    }
    // A kept change's file stopped before it was put in place (`<name>.tmp`), for this change.
    for entry in std::fs::read_dir(&changes)?.flatten() {
        let name = format!("{CHANGES_FOLDER}/{}", entry.file_name().to_string_lossy());
        let ours = name
            .strip_suffix(".tmp")
            .is_some_and(|record| is_record_name(record) && record.ends_with(&format!("-{}.json", journal.change_id)));
        if ours && entry.file_type().is_ok_and(|kind| kind.is_file()) {
            disk.remove_file(root, &entry.path())?;
        }
    }
    // Left only if it holds other kept changes; the journal's folder goes with the journal.
    let _ = disk.remove_dir(root, &changes);
    Ok(())
}

/// Sets aside the kept change an undo consumes, as part of the undo's commit: called holding the
/// lock, before the journal is removed, so no undo picks it once this one is made, and recovery,
/// undoing this undo, puts it back ([`put_back_set_aside`]). A rename that never replaces, and
/// the folder's entry synced.
pub fn set_aside(disk: &dyn Disk, root: &Path, name: &str) -> Result<(), String> {
    let path = root.join(name);
    if !is_record_name(name) || !std::fs::symlink_metadata(&path).is_ok_and(|meta| meta.is_file()) {
        return Ok(());
    }
    let failed = |error: std::io::Error| format!("setting aside the undone change {name} failed: {error}");
    disk.rename_new(root, &path, &root.join(set_aside_name(name))).map_err(failed)?;
    disk.sync_dir(root, &root.join(CHANGES_FOLDER)).map_err(failed)
}

/// Puts back the kept change an undo set aside ([`set_aside`]), when recovery undoes that undo:
/// the change is made again, so it is kept again.
pub fn put_back_set_aside(disk: &dyn Disk, root: &Path, journal: &Journal) -> std::io::Result<()> {
    let Some(name) = journal.forget.as_deref().filter(|name| is_record_name(name)) else { return Ok(()) };
    let aside = root.join(set_aside_name(name));
    if own_folders(root) && std::fs::symlink_metadata(&aside).is_ok_and(|meta| meta.is_file()) {
        disk.rename_new(root, &aside, &root.join(name))?;
        disk.sync_dir(root, &root.join(CHANGES_FOLDER))?;
    }
    Ok(())
}

/// Removes the kept change `name` (a delete's whose move to the trash failed), and the folders
/// left empty; the one an undo consumed stays set aside as the record of the undo, and the oldest
/// such records past core's bounds go.
pub fn forget(disk: &dyn Disk, root: &Path, name: &str) -> std::io::Result<()> {
    if !is_record_name(name) {
        return Ok(());
    }
    let path = root.join(name);
    if path.is_file() {
        disk.remove_file(root, &path)?;
    }
    forget_oldest(disk, root)?;
    let _ = disk.remove_dir(root, &root.join(CHANGES_FOLDER));
    let _ = disk.remove_dir(root, &root.join(crate::lease::JOURNAL_FOLDER));
    Ok(())
}
