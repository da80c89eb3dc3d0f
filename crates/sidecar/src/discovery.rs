//! Where a vault's bridge lives: the per-user runtime directory, the vault's key, and the
//! discovery file the plugin writes there. The plugin computes the same paths
//! (`plugin/bridge/paths.ts`); ARCHITECTURE.md states the rule both follow.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::Deserialize;
use sha2::{Digest, Sha256};

/// The bridge protocol version this sidecar speaks.
pub const PROTOCOL: u32 = 1;

/// What the plugin writes into `<runtime>/<key>.json`.
#[derive(Debug, Clone, Deserialize)]
pub struct Discovery {
    pub socket: PathBuf,
    pub token: String,
    pub pid: u32,
    pub vault_path: PathBuf,
    pub protocol: u32,
    #[serde(default)]
    pub plugin_version: Option<String>,
}

/// The per-user runtime directory that holds sockets and discovery files.
pub fn runtime_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("VAULTLINK_RUNTIME_DIR").filter(|dir| !dir.is_empty()) {
        return PathBuf::from(dir);
    }
    if cfg!(windows) {
        let base = std::env::var_os("LOCALAPPDATA").map(PathBuf::from).unwrap_or_else(std::env::temp_dir);
        return base.join("vaultlink");
    }
    if let Some(dir) = std::env::var_os("XDG_RUNTIME_DIR").filter(|dir| !dir.is_empty()) {
        return PathBuf::from(dir).join("vaultlink");
    }
    std::env::temp_dir().join(format!("vaultlink-{}", user_id()))
}

#[cfg(unix)]
fn user_id() -> u32 {
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
fn user_id() -> u32 {
    0
}

/// The vault's key: the first 16 hex digits of the SHA-256 of its canonical path.
pub fn vault_key(canonical_vault: &Path) -> String {
    let digest = Sha256::digest(canonical_vault.to_string_lossy().as_bytes());
    digest.iter().take(8).map(|byte| format!("{byte:02x}")).collect()
}

pub fn discovery_path(canonical_vault: &Path) -> PathBuf {
    runtime_dir().join(format!("{}.json", vault_key(canonical_vault)))
}

/// Reads the vault's discovery file. `Ok(None)` when there is none, which means no plugin is
/// serving this vault. A file that others could read or write, or that names another vault,
/// is an error: its token cannot be trusted.
pub fn read(canonical_vault: &Path) -> Result<Option<Discovery>> {
    let path = discovery_path(canonical_vault);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(error).with_context(|| format!("reading {}", path.display())),
    };
    check_private(&path)?;
    let discovery: Discovery = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a vaultlink discovery file", path.display()))?;
    if discovery.vault_path != canonical_vault {
        bail!(
            "{} names the vault {}, not {}; remove it and reload the plugin",
            path.display(),
            discovery.vault_path.display(),
            canonical_vault.display()
        );
    }
    if discovery.protocol != PROTOCOL {
        bail!(
            "the plugin speaks bridge protocol {}, this sidecar speaks {PROTOCOL}; update the one that is older",
            discovery.protocol
        );
    }
    Ok(Some(discovery))
}

#[cfg(unix)]
fn check_private(path: &Path) -> Result<()> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(path).with_context(|| format!("reading {}", path.display()))?;
    if meta.file_type().is_symlink() || meta.mode() & 0o077 != 0 || meta.uid() != user_id() {
        bail!(
            "{} must be a file of yours with mode 0600 (it is {:o}); refusing to use its token. Reload the plugin to rewrite it",
            path.display(),
            meta.mode() & 0o777
        );
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_private(_path: &Path) -> Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_is_the_sha256_prefix_of_the_path() {
        // `printf /vault | sha256sum` starts 27d33c883a0ee639; the plugin's test checks the
        // same pair, so both sides find the same files.
        assert_eq!(vault_key(Path::new("/vault")), "27d33c883a0ee639");
    }
}
