//! The plugin's presence lease as the sidecar finds it: the file's bytes and the facts only
//! this edge can observe (is it a plain file in a plain folder, how old is it by this machine's
//! clock), judged by core (`vaultlink_core::presence::judge`).

use std::path::Path;

use vaultlink_core::presence::{self, Here, Observed, Presence};

/// What the vault's presence file means now; `None` when there is none.
pub fn look(vault: &Path) -> Option<Presence> {
    let file = vault.join(presence::PRESENCE_FILE);
    let folder = vault.join(vaultlink_core::own_files::FOLDER);
    let metadata = match std::fs::symlink_metadata(&file) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return None,
        // A file that is there but cannot be looked at may be a live plugin's: doubt holds back.
        Err(error) => return Some(Presence::Unreadable { reason: format!("it cannot be looked at ({error})"), age_ms: 0 }),
    };
    let folder_plain = std::fs::symlink_metadata(&folder).is_ok_and(|folder| folder.is_dir());
    let plain_file = folder_plain && metadata.file_type().is_file();
    let bytes = if plain_file { read_limited(&file) } else { Ok(Vec::new()) };
    let bytes = match bytes {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return None,
        Err(error) => {
            return Some(Presence::Unreadable { reason: vaultlink_core::own_files::cannot_be_read(&error.to_string()), age_ms: 0 })
        }
    };
    let now = std::time::SystemTime::now();
    let age_ms = match metadata.modified() {
        Ok(modified) => match now.duration_since(modified) {
            Ok(age) => i64::try_from(age.as_millis()).unwrap_or(i64::MAX),
            Err(ahead) => -i64::try_from(ahead.duration().as_millis()).unwrap_or(i64::MAX),
        },
        // No modification time to tell its age by: taken for fresh, so doubt holds back.
        Err(_) => 0,
    };
    Some(presence::judge(&bytes, &Observed { plain_file, age_ms, machine: crate::journal::machine() }))
}

/// The file's first bytes, a little past the most a lease may hold (so core sees it is too big).
fn read_limited(file: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(file)?.take(presence::MAX_BYTES as u64 + 1).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// What this sidecar knows of itself, for saying why it cannot reach the plugin.
pub fn here() -> Here {
    Here {
        machine: crate::journal::machine(),
        platform: platform().to_owned(),
        protocol: crate::discovery::PROTOCOL,
        discovery_dir: crate::discovery::bridge_dir()
            .map(|dir| dir.to_string_lossy().into_owned())
            .unwrap_or_else(|| "no folder (no home folder is set)".to_owned()),
        wsl: in_wsl(),
    }
}

/// Whether this sidecar runs in WSL, as its kernel's release says (`…-microsoft-standard-WSL2`):
/// for the message that says why the plugin on Windows cannot be reached, nothing else.
fn in_wsl() -> bool {
    std::fs::read_to_string("/proc/sys/kernel/osrelease").is_ok_and(|release| is_wsl_release(&release))
}

fn is_wsl_release(release: &str) -> bool {
    let release = release.to_ascii_lowercase();
    release.contains("microsoft") || release.contains("wsl")
}

/// This system's name as Node's `process.platform` spells it, as the lease records the plugin's.
fn platform() -> &'static str {
    match std::env::consts::OS {
        "windows" => "win32",
        "macos" => "darwin",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn wsl_is_told_from_the_kernel_release() {
        assert!(super::is_wsl_release("5.15.167.4-microsoft-standard-WSL2\n"));
        assert!(super::is_wsl_release("4.4.0-19041-Microsoft"));
        assert!(!super::is_wsl_release("6.8.0-49-generic"));
    }
}
