//! The rules a vault path must pass before anything reads or writes through it: a path a tool
//! is given, and every path a journal names. A path that passes cannot leave the vault by its
//! spelling; whether a symbolic link on the way leads out is for the edge that has the disk to
//! find out.

/// Why a path is not a path inside the vault, as the end of a sentence ("… is not a path inside
/// the vault: {problem}").
pub fn vault_path_problem(path: &str) -> Option<&'static str> {
    if path.contains('\0') {
        return Some("it holds a NUL byte");
    }
    if path.starts_with('/') || path.starts_with('\\') {
        return Some("it is absolute");
    }
    if path.as_bytes().get(1) == Some(&b':') {
        // `C:\x` and `C:` are a drive's; `a:b.md` is read by Windows as `b.md` on drive A:, and
        // no Windows file name holds a `:` anyway.
        let drive = path.as_bytes()[0].is_ascii_alphabetic() && matches!(path.as_bytes().get(2), None | Some(b'/' | b'\\'));
        return Some(if drive {
            "it is absolute (a Windows drive)"
        } else {
            "it holds `:`, which no Windows file name may hold (after one character it names a drive there)"
        });
    }
    if path.starts_with('~') {
        return Some("it starts from a home folder");
    }
    for segment in path.split(['/', '\\']) {
        if segment == ".." {
            return Some("a `..` segment leads up out of it");
        }
        // Vault paths are never percent-encoded, so `%2e%2e` can only be an attempt to climb
        // out through a client that decodes it.
        let decoded = segment.to_ascii_lowercase().replace("%2e", ".");
        if segment.contains('%') && (decoded == "." || decoded == "..") {
            return Some("a segment percent-decodes to `.` or `..`");
        }
    }
    None
}

/// Why a vault path is in a place Obsidian does not index, as the end of a sentence: under
/// `.vaultlink/` (vaultlink's journal and kept changes), `.trash/`, the config folder
/// (`.obsidian/` or whatever the vault calls it: it starts with a dot), or any other hidden file
/// or folder. Nothing a tool names may be there: Obsidian would not see a note moved there (every
/// link to it would break), and the engine's own files must never be read, moved or written
/// over by a tool. Both edges hold every path parameter to it (`parameters::check`), and core's
/// moves every destination. A `.` segment (the vault's root) is not hidden.
pub fn hidden_path_problem(path: &str) -> Option<String> {
    let hidden = path.split(['/', '\\']).find(|segment| segment.starts_with('.') && *segment != "." && *segment != "..")?;
    Some(match hidden {
        crate::own_files::FOLDER => format!("`{}` holds vaultlink's own journal and kept changes, which no tool may touch", crate::own_files::FOLDER),
        ".trash" => "`.trash` is the vault's trash, which Obsidian does not index: every link to the note would break (to delete a note, use delete_note)".to_owned(),
        ".obsidian" => "`.obsidian` is the vault's config folder, which Obsidian does not index".to_owned(),
        _ => format!(
            "`{hidden}` is a hidden folder or file (the config folder is one), which Obsidian does not index: every link to it would break"
        ),
    })
}

/// The stricter rule for a path the engine itself wrote (a journal's): relative, `/`-separated,
/// no empty, `.` or `..` segment, and no segment that starts with a dot (Obsidian indexes no
/// hidden file or folder, so no note the engine changes is in one). Temporary names are checked
/// apart, by [`is_temporary_beside`].
pub fn engine_path_problem(path: &str) -> Option<&'static str> {
    if let Some(problem) = vault_path_problem(path) {
        return Some(problem);
    }
    if path.is_empty() {
        return Some("it is empty");
    }
    if path.contains('\\') {
        return Some("it holds a backslash, which no path the engine writes has");
    }
    if path.split('/').any(|segment| segment.is_empty() || segment == ".") {
        return Some("it has an empty or `.` segment");
    }
    if path.split('/').any(|segment| segment.starts_with('.')) {
        return Some("it is in, or is, a hidden file or folder, which Obsidian does not index");
    }
    None
}

/// Whether `temporary` is a temporary name the engine makes beside `path`:
/// `<folder>/.<name>.vaultlink-<digits>.<kind>` (or the recovery's own
/// `<folder>/.<name>.vaultlink-recover.tmp`), in the same folder as `path`.
pub fn is_temporary_beside(temporary: &str, path: &str, kind: &str) -> bool {
    let (folder, name) = match path.rsplit_once('/') {
        Some((folder, name)) => (format!("{folder}/"), name),
        None => (String::new(), path),
    };
    let Some(rest) = temporary.strip_prefix(&folder).and_then(|rest| rest.strip_prefix('.')).and_then(|rest| rest.strip_prefix(name))
    else {
        return false;
    };
    let Some(tag) = rest.strip_prefix(".vaultlink-").and_then(|rest| rest.strip_suffix(kind)).and_then(|rest| rest.strip_suffix('.'))
    else {
        return false;
    };
    (!tag.is_empty() && tag.bytes().all(|byte| byte.is_ascii_digit())) || (tag == "recover" && kind == "tmp")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_that_leave_the_vault_have_a_problem() {
        for path in ["../x.md", "a/../../x.md", "/etc/passwd", "~/x.md", "C:\\x.md", "\\\\server\\x", "%2e%2e/x.md", "a\0.md"] {
            assert!(vault_path_problem(path).is_some(), "{path}");
            assert!(engine_path_problem(path).is_some(), "{path}");
        }
        for fine in ["a/b..c/x.md", "100%.md", "...md", "Folder/Note.md"] {
            assert_eq!(vault_path_problem(fine), None, "{fine}");
        }
    }

    /// Issue 34: `a:b.md` was called absolute. A drive path is (`C:\\x`, `C:/x`, `C:`); a colon
    /// after one letter is refused for what it is: a character no Windows name holds, which
    /// would name a drive there.
    #[test]
    fn a_colon_after_the_first_character_is_named_for_what_it_is() {
        for path in ["a:b.md", "1:x.md", "Z:note"] {
            let problem = vault_path_problem(path).unwrap_or_default();
            assert!(!problem.contains("absolute") && problem.contains("`:`") && problem.contains("Windows"), "{path}: {problem}");
        }
        for path in ["C:\\x.md", "C:/x.md", "c:", "D:\\"] {
            assert!(vault_path_problem(path).unwrap_or_default().contains("absolute"), "{path}");
        }
    }

    #[test]
    fn hidden_places_are_named_with_what_they_are() {
        let problem = |path: &str| hidden_path_problem(path).unwrap_or_default();
        assert!(problem(".vaultlink/journal.json").contains("vaultlink's own journal"));
        assert!(problem("a/.trash/x.md").contains("delete_note"));
        assert!(problem(".obsidian/app.json").contains("config folder"));
        assert!(problem(".config/x.md").contains("`.config` is a hidden folder"));
        assert!(problem("Folder/.hidden.md").contains("`.hidden.md`"));
        for fine in ["Folder/Note.md", "./Note.md", "a/b..c/x.md"] {
            assert_eq!(hidden_path_problem(fine), None, "{fine}");
        }
    }

    #[test]
    fn engine_paths_are_visible_relative_and_plain() {
        for bad in ["", "a//b.md", "./a.md", ".vaultlink/journal.json", ".obsidian/app.json", "a/.trash/x.md", "a\\b.md", ".ssh/id_rsa"] {
            assert!(engine_path_problem(bad).is_some(), "{bad:?}");
        }
        assert_eq!(engine_path_problem("Folder/Note.md"), None);
    }

    #[test]
    fn temporary_names_are_the_engines_own_beside_the_note() {
        assert!(is_temporary_beside("a/.N.md.vaultlink-42.tmp", "a/N.md", "tmp"));
        assert!(is_temporary_beside(".N.md.vaultlink-42.case", "N.md", "case"));
        assert!(is_temporary_beside("a/.N.md.vaultlink-recover.tmp", "a/N.md", "tmp"));
        for bad in [
            "b/.N.md.vaultlink-42.tmp",
            "a/.N.md.vaultlink-.tmp",
            "a/.N.md.vaultlink-4x.tmp",
            "a/N.md",
            "../../.ssh/id_rsa",
            "a/.N.md.vaultlink-42.case",
        ] {
            assert!(!is_temporary_beside(bad, "a/N.md", "tmp"), "{bad}");
        }
    }
}
