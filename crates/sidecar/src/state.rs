//! The user's own vaultlink folder on this machine, outside every vault: where the bridge's
//! discovery files are (`discovery`). The plugin finds the same folder (`plugin/state.ts`);
//! ARCHITECTURE.md states the rule.
//!
//! The folder is found from the home folder alone, never from variables a desktop session sets
//! and an MCP client's filtered environment drops: `~/.local/state/vaultlink` on Linux and
//! other Unix systems, `~/Library/Application Support/vaultlink` on macOS, and
//! `%LOCALAPPDATA%\vaultlink` on Windows (which the official SDKs pass on).
//!
//! No trust hangs on it: the key journals and kept changes are sealed with is kept in the vault
//! (`seal_keys`), which both sides share whatever sandbox each runs in, and a sidecar that finds
//! no discovery file here still sees the plugin's presence in the vault (`presence`).

use std::path::PathBuf;

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
