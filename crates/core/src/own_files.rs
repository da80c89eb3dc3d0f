//! vaultlink's own files in a vault: the folder they are kept in (`.vaultlink`: the journal, the
//! kept changes, the sealing keys, the presence lease, what an undo recovered), named here once
//! for core and both edges (the plugin takes it from `plugin/wire.ts`), and how a file an edge
//! could not read is worded, once for both edges.

/// The name of vaultlink's folder in a vault, as a literal, so the paths of the files in it can
/// be written as constants (`concat!(own_folder!(), "/journal.json")`).
macro_rules! own_folder {
    () => {
        ".vaultlink"
    };
}
pub(crate) use own_folder;

/// vaultlink's folder in a vault, from the vault's root.
pub const FOLDER: &str = own_folder!();

/// Why an edge passes over a file of vaultlink's own that it could not read (a journal, a kept
/// change, the presence lease), given the system's reason: the end of a sentence that names the
/// file.
pub fn cannot_be_read(reason: &str) -> String {
    let (before, after) = CANNOT_BE_READ;
    format!("{before}{reason}{after}")
}

/// The words of [`cannot_be_read`] before and after the reason, from which `plugin/wire.ts`
/// writes the plugin's copy of it.
pub const CANNOT_BE_READ: (&str, &str) = ("it cannot be read (", ")");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_own_file_is_in_the_folder() {
        for path in [
            crate::journal::JOURNAL_FILE,
            crate::history::CHANGES_FOLDER,
            crate::undo_steps::RECOVERED_FOLDER,
            crate::seal_key::KEYS_FOLDER,
            crate::presence::PRESENCE_FILE,
        ] {
            assert!(path.starts_with(&format!("{FOLDER}/")), "{path}");
        }
        assert!(crate::paths::hidden_path_problem(FOLDER).is_some_and(|problem| problem.contains(FOLDER)));
    }
}
