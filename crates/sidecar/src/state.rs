//! The user's own vaultlink folder on this machine, outside every vault, and the journal key in
//! it. The plugin finds the same folder (`plugin/state.ts`); ARCHITECTURE.md states the rule.
//!
//! The folder is found from the home folder alone, never from variables a desktop session sets
//! and an MCP client's filtered environment drops: `~/.local/state/vaultlink` on Linux and
//! other Unix systems, `~/Library/Application Support/vaultlink` on macOS, and
//! `%LOCALAPPDATA%\vaultlink` on Windows (which the official SDKs pass on).
//!
//! The journal key is 32 random bytes, as 64 hex digits in `journal.key` (mode 0600, in a folder
//! of mode 0700). It seals every journal this user writes on this machine, so a journal that
//! arrives with a vault from anywhere else is never acted on (`vaultlink_core::journal`).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use vaultlink_core::journal::KEY_BYTES;

const KEY_FILE: &str = "journal.key";

/// The id of the user this process runs as.
#[cfg(unix)]
pub(crate) fn user_id() -> u32 {
    use std::os::unix::fs::MetadataExt;
    // Without `unsafe` there is no getuid(); the owner of `/proc/self` is the process's user
    // on Linux, and elsewhere the owner of a file we have just created is.
    std::fs::metadata("/proc/self").map(|meta| meta.uid()).unwrap_or_else(|_| {
        let probe = std::env::temp_dir().join(format!("vaultlink-uid-{}", std::process::id()));
        let uid = std::fs::File::create(&probe).and_then(|file| file.metadata()).map(|meta| meta.uid());
        let _ = std::fs::remove_file(&probe);
        uid.unwrap_or(0)
    })
}

#[cfg(not(unix))]
pub(crate) fn user_id() -> u32 {
    0
}

/// The user's vaultlink folder, or `None` when the home folder cannot be told.
pub fn state_dir() -> Option<PathBuf> {
    if cfg!(windows) {
        let local = std::env::var_os("LOCALAPPDATA").filter(|dir| !dir.is_empty()).map(PathBuf::from).or_else(|| {
            std::env::var_os("USERPROFILE").filter(|dir| !dir.is_empty()).map(|home| PathBuf::from(home).join("AppData").join("Local"))
        })?;
        return Some(local.join("vaultlink"));
    }
    let home = std::env::var_os("HOME").filter(|home| !home.is_empty()).map(PathBuf::from)?;
    if cfg!(target_os = "macos") {
        return Some(home.join("Library").join("Application Support").join("vaultlink"));
    }
    Some(home.join(".local").join("state").join("vaultlink"))
}

/// This user's journal key on this machine, made on first use.
pub fn journal_key() -> Result<Vec<u8>, String> {
    let dir = state_dir().ok_or("the home folder is not known (HOME is not set), so the journal key cannot be found")?;
    journal_key_in(&dir)
}

/// [`journal_key`] in a given folder.
pub fn journal_key_in(dir: &Path) -> Result<Vec<u8>, String> {
    let path = dir.join(KEY_FILE);
    match read_key(&path) {
        Ok(Some(key)) => return Ok(key),
        Ok(None) => {}
        Err(error) => return Err(error),
    }
    make_private_dir(dir)?;
    let mut key = [0u8; KEY_BYTES];
    getrandom::fill(&mut key).map_err(|error| format!("making a journal key failed: {error}"))?;
    let text = vaultlink_core::hex::hex(&key);
    // Written whole under a name of its own, then linked into place, so that a second process
    // making a key at the same moment reads one whole key, the one that won.
    // Named by the key itself, so no two makers (processes or threads) share a temporary file.
    let temporary = dir.join(format!("{KEY_FILE}.{}.tmp", &text[..16]));
    let _ = std::fs::remove_file(&temporary);
    let written = (|| {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(&temporary)?;
        file.write_all(format!("{text}\n").as_bytes())?;
        file.sync_all()?;
        std::fs::hard_link(&temporary, &path)
    })();
    let _ = std::fs::remove_file(&temporary);
    match written {
        Ok(()) => Ok(key.to_vec()),
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
            read_key(&path)?.ok_or_else(|| format!("{} vanished while it was being read", path.display()))
        }
        Err(error) => Err(format!("writing the journal key {} failed: {error}", path.display())),
    }
}

fn read_key(path: &Path) -> Result<Option<Vec<u8>>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(format!("reading the journal key {} failed: {error}", path.display())),
    };
    check_private_file(path)?;
    let text = text.trim();
    let key = vaultlink_core::hex::parse_hex(text.as_bytes()).filter(|key| key.len() == KEY_BYTES);
    key.map(Some)
        .ok_or_else(|| format!("{} is not a vaultlink journal key (64 hex digits); remove it and it is made again", path.display()))
}

#[cfg(unix)]
fn make_private_dir(dir: &Path) -> Result<(), String> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
    if !dir.exists() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|error| format!("creating {} failed: {error}", dir.display()))?;
    }
    let meta = std::fs::symlink_metadata(dir).map_err(|error| format!("reading {} failed: {error}", dir.display()))?;
    if !meta.is_dir() || meta.uid() != user_id() {
        return Err(format!("{} must be a folder of yours; refusing to keep the journal key in it", dir.display()));
    }
    if meta.mode() & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|error| format!("making {} private failed: {error}", dir.display()))?;
    }
    Ok(())
}

#[cfg(not(unix))]
fn make_private_dir(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|error| format!("creating {} failed: {error}", dir.display()))
}

#[cfg(unix)]
fn check_private_file(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(path).map_err(|error| format!("reading {} failed: {error}", path.display()))?;
    if !meta.is_file() || meta.mode() & 0o077 != 0 || meta.uid() != user_id() {
        return Err(format!(
            "the journal key {} must be a file of yours with mode 0600 (it is {:o}); someone else may have read it. Remove it (a new one is made) after checking no change of yours was interrupted",
            path.display(),
            meta.mode() & 0o777
        ));
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_private_file(_path: &Path) -> Result<(), String> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_made_once_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state").join("vaultlink");
        let key = journal_key_in(&state).unwrap();
        assert_eq!(key.len(), KEY_BYTES);
        assert_eq!(journal_key_in(&state).unwrap(), key);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(state.join(KEY_FILE)).unwrap().permissions().mode() & 0o777, 0o600);
            assert_eq!(std::fs::metadata(&state).unwrap().permissions().mode() & 0o777, 0o700);
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_key_others_can_read_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        journal_key_in(dir.path()).unwrap();
        std::fs::set_permissions(dir.path().join(KEY_FILE), std::fs::Permissions::from_mode(0o644)).unwrap();
        let refusal = journal_key_in(dir.path()).unwrap_err();
        assert!(refusal.contains("mode 0600 (it is 644)"), "{refusal}");
    }

    #[test]
    fn a_damaged_key_is_refused_with_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        journal_key_in(dir.path()).unwrap();
        let path = dir.path().join(KEY_FILE);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        // Short, upper case, or 64 bytes of characters that are not digits (no panic on any).
        for damaged in ["short".to_owned(), "A".repeat(64), format!("{}a", "€".repeat(21))] {
            std::fs::write(&path, damaged).unwrap();
            assert!(journal_key_in(dir.path()).unwrap_err().contains("remove it and it is made again"));
        }
    }
}
