//! Carries out core's decision to delete a note on the vault folder: one rename into the
//! vault's `.trash`, as Obsidian's "move to Obsidian trash" does, which either happens or not.

use std::fs;
use std::path::Path;

use vaultlink_core::step::StepError;

use crate::disk::{refuse_links_on_the_way, Disk};
use crate::error::ToolError;

/// Moves the note at `path` into the vault's `.trash` folder, as Obsidian's "move to Obsidian
/// trash" does, if it still holds `before`: one rename, which either happens or not, into a free
/// name of the trash. A `.trash` folder made for it stays. Returns where the note went.
pub fn trash_on(disk: &dyn Disk, root: &Path, path: &str, before: &str) -> Result<String, ToolError> {
    let trash = root.join(vaultlink_core::edge::TRASH_FOLDER);
    // Core's list: the note and the trash, neither reached through a link.
    for guarded in vaultlink_core::edge::trash_paths_to_guard(path) {
        refuse_links_on_the_way(root, &guarded)?;
    }
    // A link put in the place of a folder on the way since the look above is met by the step
    // itself, which changes nothing through it.
    let refused = |path: &str, error: &std::io::Error| {
        crate::disk::link_on_the_way(error)
            .map(|link| ToolError::from(StepError::ThroughLink { path: path.to_owned(), link: link.to_owned() }.error()))
    };
    if !fs::symlink_metadata(&trash).is_ok_and(|meta| meta.is_dir()) {
        disk.create_dir(root, &trash).map_err(|error| {
            refused(".trash", &error)
                .unwrap_or_else(|| StepError::Failed { what: format!("creating .trash failed: {error}") }.error().into())
        })?;
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    let (stem, extension) = name.rsplit_once('.').unwrap_or((name, ""));
    let mut target = trash.join(name);
    let mut number = 2;
    while target.exists() {
        target = trash.join(format!("{stem} {number}.{extension}"));
        number += 1;
    }
    // The text may have changed since it was read; never trash what was not seen.
    if fs::read(root.join(path)).ok().as_deref() != Some(before.as_bytes()) {
        return Err(StepError::ChangedBeforeTrash { path: path.to_owned() }.error().into());
    }
    // Never over a file that appeared in the trash since the look (a second delete of the same
    // name at once): the next number is tried instead.
    loop {
        match disk.rename_new(root, &root.join(path), &target) {
            Ok(()) => break,
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists && number < 10_000 => {
                target = trash.join(format!("{stem} {number}.{extension}"));
                number += 1;
            }
            Err(error) => {
                return Err(refused(path, &error)
                    .unwrap_or_else(|| StepError::TrashFailed { path: path.to_owned(), why: error.to_string() }.error().into()))
            }
        }
    }
    Ok(format!(".trash/{}", target.file_name().map(|name| name.to_string_lossy()).unwrap_or_default()))
}
