//! The names of the kept changes in the vault (`.vaultlink/changes`), which the batch, the journal
//! and the history all read; its own module, so that none of them imports the history for them.

/// The folder of the kept changes, inside the vault.
pub const CHANGES_FOLDER: &str = concat!(crate::own_files::own_folder!(), "/changes");
/// Whether `name` is a kept change's file name as `history::record_name` makes it (a bare name or a
/// path in [`CHANGES_FOLDER`]).
pub fn is_record_name(name: &str) -> bool {
    record_parts(name).is_some()
}

/// A kept change's file name's time and change id.
pub(crate) fn record_parts(name: &str) -> Option<(u64, &str)> {
    let name = name.strip_prefix(CHANGES_FOLDER).and_then(|rest| rest.strip_prefix('/')).unwrap_or(name);
    let stem = name.strip_suffix(".json")?;
    let (time, id) = stem.split_once('-')?;
    let valid = time.len() == 16
        && time.bytes().all(|byte| byte.is_ascii_digit())
        && !id.is_empty()
        && id.bytes().all(|byte| byte.is_ascii_hexdigit());
    valid.then(|| (time.parse().ok(), id)).and_then(|(time, id)| Some((time?, id)))
}
