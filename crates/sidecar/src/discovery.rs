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

/// The vault's key: the first 16 hex digits of the SHA-256 of its canonical path.
pub fn vault_key(canonical_vault: &Path) -> String {
    let digest = Sha256::digest(canonical_vault.to_string_lossy().as_bytes());
    digest.iter().take(8).map(|byte| format!("{byte:02x}")).collect()
}

/// Reads the vault's discovery file. `Ok(None)` when there is none, which means no plugin is
/// serving this vault. A file that others could read or write, or that names another vault,
/// is an error: its token cannot be trusted.
pub fn read(canonical_vault: &Path) -> Result<Option<Discovery>> {
    read_in(&runtime_dir(), canonical_vault)
}

/// [`read`] in a given runtime directory. The directory, the discovery file and the socket it
/// names must all be the user's own and closed to others (a directory of 0700, files of
/// 0600), or the token is refused: someone else could have read it, or planted it.
pub fn read_in(runtime: &Path, canonical_vault: &Path) -> Result<Option<Discovery>> {
    let path = runtime.join(format!("{}.json", vault_key(canonical_vault)));
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(error).with_context(|| format!("reading {}", path.display())),
    };
    check_private_dir(runtime)?;
    check_private(&path)?;
    let discovery: Discovery =
        serde_json::from_str(&text).with_context(|| format!("{} is not a vaultlink discovery file", path.display()))?;
    if discovery.vault_path != canonical_vault {
        bail!(
            "{} names the vault {}, not {}; remove it and reload the plugin",
            path.display(),
            discovery.vault_path.display(),
            canonical_vault.display()
        );
    }
    // A named pipe on Windows lives in no directory.
    if cfg!(unix) && discovery.socket.parent() != Some(runtime) {
        bail!(
            "{} names the socket {}, outside the runtime directory {}; refusing it. Reload the plugin to rewrite the file",
            path.display(),
            discovery.socket.display(),
            runtime.display()
        );
    }
    check_socket(&discovery.socket)?;
    if discovery.protocol != PROTOCOL {
        bail!("the plugin speaks bridge protocol {}, this sidecar speaks {PROTOCOL}; update the one that is older", discovery.protocol);
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

/// The runtime directory must be the user's, a real directory, open to no one else.
#[cfg(unix)]
fn check_private_dir(dir: &Path) -> Result<()> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(dir).with_context(|| format!("reading {}", dir.display()))?;
    if !meta.is_dir() || meta.mode() & 0o077 != 0 || meta.uid() != user_id() {
        bail!(
            "the runtime directory {} must be a directory of yours with mode 0700 (it is {:o}); refusing the token in it. Run `chmod 700 {}`, or remove it and reload the plugin",
            dir.display(),
            meta.mode() & 0o777,
            dir.display()
        );
    }
    Ok(())
}

/// A socket file left in place by anyone else, or open to others, is not the plugin's. One
/// that is missing is left for the connection to report (the plugin is gone: a stale file).
#[cfg(unix)]
fn check_socket(socket: &Path) -> Result<()> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let Ok(meta) = std::fs::symlink_metadata(socket) else {
        return Ok(());
    };
    if !meta.file_type().is_socket() || meta.mode() & 0o077 != 0 || meta.uid() != user_id() {
        bail!(
            "{} must be a socket of yours with mode 0600 (it is {:o}, {}); refusing to connect. Reload the plugin to make it again",
            socket.display(),
            meta.mode() & 0o777,
            if meta.file_type().is_socket() { "a socket" } else { "not a socket" }
        );
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_private(_path: &Path) -> Result<()> {
    Ok(())
}

#[cfg(not(unix))]
fn check_private_dir(_dir: &Path) -> Result<()> {
    Ok(())
}

#[cfg(not(unix))]
fn check_socket(_socket: &Path) -> Result<()> {
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

    #[cfg(unix)]
    mod hostile {
        use super::super::*;
        use std::os::unix::fs::PermissionsExt;

        /// A runtime directory with a vault and its discovery file, written as the plugin
        /// writes them, and a socket file of mode 0600 listening at the named path.
        fn setup() -> (tempfile::TempDir, PathBuf, PathBuf, std::os::unix::net::UnixListener) {
            let runtime = tempfile::tempdir().unwrap();
            std::fs::set_permissions(runtime.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
            let vault = runtime.path().join("vault");
            std::fs::create_dir(&vault).unwrap();
            let key = vault_key(&vault);
            let socket = runtime.path().join(format!("{key}.sock"));
            let listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
            std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600)).unwrap();
            let file = runtime.path().join(format!("{key}.json"));
            write(&file, &socket, &vault);
            (runtime, vault, file, listener)
        }

        fn write(file: &Path, socket: &Path, vault: &Path) {
            let text = serde_json::json!({"socket": socket, "token": "a".repeat(64), "pid": 1, "vault_path": vault, "protocol": 1, "plugin_version": "0.1.0"});
            std::fs::write(file, text.to_string()).unwrap();
            std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o600)).unwrap();
        }

        fn refusal(runtime: &Path, vault: &Path) -> String {
            format!("{:#}", read_in(runtime, vault).expect_err("refused"))
        }

        #[test]
        fn a_private_discovery_file_is_read() {
            let (runtime, vault, _, _listener) = setup();
            let discovery = read_in(runtime.path(), &vault).unwrap().unwrap();
            assert_eq!(discovery.token, "a".repeat(64));
        }

        #[test]
        fn a_discovery_file_others_can_read_is_refused() {
            let (runtime, vault, file, _listener) = setup();
            for mode in [0o644, 0o640, 0o606, 0o660] {
                std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
                let refusal = refusal(runtime.path(), &vault);
                assert!(refusal.contains("must be a file of yours with mode 0600") && refusal.contains(&format!("{mode:o}")), "{refusal}");
            }
        }

        #[test]
        fn a_discovery_file_that_is_a_symbolic_link_is_refused() {
            let (runtime, vault, file, _listener) = setup();
            let elsewhere = runtime.path().join("elsewhere.json");
            std::fs::rename(&file, &elsewhere).unwrap();
            std::os::unix::fs::symlink(&elsewhere, &file).unwrap();
            assert!(refusal(runtime.path(), &vault).contains("must be a file of yours"));
        }

        #[test]
        fn a_runtime_directory_others_can_enter_is_refused() {
            let (runtime, vault, _, _listener) = setup();
            std::fs::set_permissions(runtime.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
            let refusal = refusal(runtime.path(), &vault);
            assert!(refusal.contains("mode 0700 (it is 755)") && refusal.contains("chmod 700"), "{refusal}");
        }

        #[test]
        fn a_socket_others_can_use_is_refused() {
            let (runtime, vault, _, _listener) = setup();
            let socket = runtime.path().join(format!("{}.sock", vault_key(&vault)));
            std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o666)).unwrap();
            let refusal = refusal(runtime.path(), &vault);
            assert!(refusal.contains("must be a socket of yours with mode 0600 (it is 666"), "{refusal}");
        }

        #[test]
        fn a_plain_file_where_the_socket_belongs_is_refused() {
            let (runtime, vault, _, listener) = setup();
            drop(listener);
            let socket = runtime.path().join(format!("{}.sock", vault_key(&vault)));
            std::fs::remove_file(&socket).unwrap();
            std::fs::write(&socket, "").unwrap();
            std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600)).unwrap();
            assert!(refusal(runtime.path(), &vault).contains("not a socket"));
        }

        /// A token replayed from another vault's discovery file: copied under this vault's key,
        /// it names the other vault, and is refused.
        #[test]
        fn another_vaults_discovery_file_is_refused() {
            let (runtime, vault, file, _listener) = setup();
            let other = runtime.path().join("other");
            std::fs::create_dir(&other).unwrap();
            let socket = runtime.path().join(format!("{}.sock", vault_key(&vault)));
            write(&file, &socket, &other);
            let refusal = refusal(runtime.path(), &vault);
            assert!(refusal.contains("names the vault") && refusal.contains("remove it and reload the plugin"), "{refusal}");
        }

        #[test]
        fn a_socket_outside_the_runtime_directory_is_refused() {
            let (runtime, vault, file, _listener) = setup();
            write(&file, Path::new("/tmp/somewhere-else.sock"), &vault);
            assert!(refusal(runtime.path(), &vault).contains("outside the runtime directory"));
        }

        /// A socket file left by a crash (nothing listens): the discovery file is still read,
        /// and the connection, not this check, finds nobody there, so the sidecar falls back.
        #[test]
        fn a_stale_socket_passes_the_checks_and_fails_to_connect() {
            let (runtime, vault, _, listener) = setup();
            drop(listener);
            let discovery = read_in(runtime.path(), &vault).unwrap().unwrap();
            let connected = std::os::unix::net::UnixStream::connect(&discovery.socket);
            assert_eq!(connected.unwrap_err().kind(), std::io::ErrorKind::ConnectionRefused);
        }
    }
}
