//! The limits on a name that every writer keeps: a path's segment as filesystems allow it, a
//! file's name with room for the engine's temporary names beside it, a link's target, and the
//! check of a new path against them and against the characters a link or a filesystem cannot
//! hold. Its own module, so that the planners and the batch that carries their plans out read
//! them without importing each other.

use std::collections::BTreeSet;

use crate::move_error::MoveError;

/// The most bytes of one segment of a path, as filesystems allow (ext4, APFS, NTFS in UTF-16).
pub const MAX_NAME_BYTES: usize = 255;
/// The most bytes of a file's name that a move or a new page may give: the engine's temporary
/// names beside the file (`batch::temporary_name`) add up to `batch::TEMPORARY_NAME_EXTRA_BYTES`
/// to it and must fit `MAX_NAME_BYTES` too, or the file's first rewrite would fail at write time.
pub const MAX_FILE_NAME_BYTES: usize = MAX_NAME_BYTES - TEMPORARY_NAME_EXTRA_BYTES;
/// The most bytes the engine's temporary names add to a file's name: `.` before it and
/// `.vaultlink-<tag>.aside` after it (`batch::temporary_name`, the longest kind, with a tag of ten
/// digits, the most a `u32` has); `batch::swap_name` adds less. A file's new name leaves room for
/// them ([`MAX_FILE_NAME_BYTES`]), so the temporary files of a later rewrite fit the
/// filesystem's limit on a name too.
pub const TEMPORARY_NAME_EXTRA_BYTES: usize = ".".len() + ".vaultlink-".len() + 10 + ".aside".len();
/// The most bytes of a link target `rewrite_link` writes (a path of many names).
pub const MAX_TARGET_BYTES: usize = 4096;

/// Characters a path segment cannot hold and still be linked to.
fn bad_characters(segment: &str) -> Vec<String> {
    let mut found: BTreeSet<String> = BTreeSet::new();
    for c in segment.chars() {
        match c {
            // Links cannot hold the first seven; Windows (and so Obsidian, everywhere) refuses
            // the rest in a file's name, and a vault is often synced to Windows.
            '[' | ']' | '#' | '^' | '|' | ':' | '\\' | '*' | '"' | '<' | '>' | '?' => {
                found.insert(format!("`{c}`"));
            }
            c if c.is_control() => {
                found.insert(format!("U+{:04X}", c as u32));
            }
            _ => {}
        }
    }
    if segment.contains("%%") {
        found.insert("`%%`".to_owned());
    }
    if segment.ends_with(' ') || segment.ends_with('.') {
        found.insert("a trailing space or dot".to_owned());
    }
    if segment.is_empty() || segment == "." || segment == ".." {
        found.insert("an empty or dot-only segment".to_owned());
    }
    if segment.len() > MAX_NAME_BYTES {
        found.insert(format!("more than {MAX_NAME_BYTES} bytes in one name, more than filesystems take"));
    }
    // Windows keeps these names for devices, with any extension (`CON.md`, `nul.txt`).
    let base = segment.split('.').next().unwrap_or(segment).trim_end().to_ascii_uppercase();
    // COM and LPT with any digit, 0 and the superscripts ¹ ² ³ included, as Windows refuses.
    let device_digit =
        |rest: &str| matches!(rest, "0" | "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9" | "\u{b9}" | "\u{b2}" | "\u{b3}");
    let reserved = matches!(base.as_str(), "CON" | "PRN" | "AUX" | "NUL" | "CONIN$" | "CONOUT$")
        || base.strip_prefix("COM").or_else(|| base.strip_prefix("LPT")).is_some_and(device_digit);
    if reserved {
        found.insert(format!("`{base}`, a name Windows keeps for a device"));
    }
    found.into_iter().collect()
}

/// Whether `path` can name a file or a folder of the vault: every segment, and the file's name
/// without its extension, free of the characters a link or a filesystem cannot hold. `Err` names
/// the path and what it holds.
pub(crate) fn check_name(path: &str) -> Result<(), MoveError> {
    // The last segment is checked with and without its extension: `Note .md` ends in a space.
    let stem = path.rsplit_once('.').map(|(stem, _)| stem).filter(|stem| !stem.is_empty() && !stem.ends_with('/'));
    for segment in path.split('/').chain(stem.and_then(|stem| stem.rsplit('/').next())) {
        let bad = bad_characters(segment);
        if !bad.is_empty() {
            return Err(MoveError::InvalidName { name: path.to_owned(), characters: bad.join(", ") });
        }
    }
    Ok(())
}

/// [`check_name`] for a file's new path, whose name also leaves room for the temporary names
/// beside it ([`MAX_FILE_NAME_BYTES`]).
pub(crate) fn check_file_name(path: &str) -> Result<(), MoveError> {
    check_name(path)?;
    let name = path.rsplit('/').next().unwrap_or(path);
    if name.len() > MAX_FILE_NAME_BYTES {
        return Err(MoveError::InvalidName {
            name: path.to_owned(),
            characters: format!(
                "{} bytes in the file's name, more than the {MAX_FILE_NAME_BYTES} that leave room for vaultlink's temporary names beside it",
                name.len()
            ),
        });
    }
    Ok(())
}
