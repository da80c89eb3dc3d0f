//! The user's own vaultlink folder on this machine, outside every vault: where the bridge's
//! discovery files are (`discovery`). The plugin finds the same folder (`plugin/state.ts`);
//! docs/bridge.md states the rule.
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
        let local = std::env::var("LOCALAPPDATA").ok();
        let profile = std::env::var("USERPROFILE").ok();
        return windows_state_dir(local.as_deref(), profile.as_deref()).map(PathBuf::from);
    }
    let home = std::env::var_os("HOME").filter(|home| !home.is_empty()).map(PathBuf::from)?;
    if cfg!(target_os = "macos") {
        return Some(home.join("Library").join("Application Support").join("vaultlink"));
    }
    Some(home.join(".local").join("state").join("vaultlink"))
}

/// The user's vaultlink folder on Windows, from `%LOCALAPPDATA%` (`%USERPROFILE%\AppData\Local`
/// without it): `<local>\vaultlink`, where `<local>` is the real folder even when the variable
/// names an MSIX package's private copy of it (see [`unpackaged_local_app_data`]). Pure, so the
/// Windows rule is tested everywhere (`tests/vectors/state_dirs.json`, which the plugin's test
/// reads too).
pub fn windows_state_dir(local_app_data: Option<&str>, user_profile: Option<&str>) -> Option<String> {
    let local = match local_app_data.filter(|local| !local.is_empty()) {
        Some(local) => unpackaged_local_app_data(local).to_owned(),
        None => format!("{}\\AppData\\Local", user_profile.filter(|home| !home.is_empty())?.trim_end_matches(['\\', '/'])),
    };
    Some(format!("{}\\vaultlink", local.trim_end_matches(['\\', '/'])))
}

/// The real `%LOCALAPPDATA%` that `local` stands for. A program started by an MSIX-packaged app
/// (Claude Desktop for Windows) may be handed the package's private copy,
/// `<real>\Packages\<package family>\LocalCache\Local`, where what it writes may land and where
/// Obsidian, which is not packaged, never writes; the folder both sides meet in is `<real>`.
/// Anything else is the real folder already. Windows compares these names without case.
pub fn unpackaged_local_app_data(local: &str) -> &str {
    let trimmed = local.trim_end_matches(['\\', '/']);
    let parts: Vec<&str> = trimmed.rsplitn(5, ['\\', '/']).collect();
    match parts.as_slice() {
        [last, cache, family, packages, base]
            if last.eq_ignore_ascii_case("Local")
                && cache.eq_ignore_ascii_case("LocalCache")
                && !family.is_empty()
                && packages.eq_ignore_ascii_case("Packages")
                && !base.is_empty() =>
        {
            base
        }
        _ => local,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 41: the sidecar started by MSIX Claude Desktop and the plugin in Obsidian find one
    /// folder, whichever copy of AppData the sidecar's environment names.
    #[test]
    #[allow(clippy::unwrap_used)]
    fn the_windows_folder_is_the_real_local_app_data_for_every_vector() {
        let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/vectors/state_dirs.json")).unwrap();
        let vectors: serde_json::Value = serde_json::from_str(&text).unwrap();
        let cases = vectors["cases"].as_array().unwrap();
        assert!(cases.len() >= 5);
        for case in cases {
            let local = case["LOCALAPPDATA"].as_str();
            let profile = case["USERPROFILE"].as_str();
            assert_eq!(windows_state_dir(local, profile).as_deref(), case["state"].as_str(), "{case}");
        }
    }

    #[test]
    fn without_a_profile_or_local_app_data_there_is_no_folder() {
        assert_eq!(windows_state_dir(None, None), None);
        assert_eq!(windows_state_dir(Some(""), Some("")), None);
    }
}
