//! The vault's sealing keys on the disk: core's `seal_key` carried out on the vault folder. The
//! plugin does the same through Node's `fs` (`plugin/move/seal-keys.ts`).
//!
//! A key file is `<vault>/.vaultlink/keys/<id>.key`, read without following a link (no folder on
//! the way, nor the file), and used only when what was opened is a plain file of this user, of
//! mode 0600, no larger than core's bound, holding a key; the key a seal is made with is derived
//! from its secret and its identity (inode, or Windows file index), so a copy of the file is
//! never a usable key. Nothing here depends on the home folder: both edges, in any sandbox, find
//! the key in the vault they share.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use vaultlink_core::journal::{self as format, Binding, Journal, Purpose, Refusal, KEY_BYTES};
use vaultlink_core::seal_key::{self, KeyFile, Unusable, KEYS_FOLDER};

use crate::disk::{Disk, RealDisk};

/// A key to seal with: its id, which the sealed file names, and the derived key.
pub struct SealKey {
    pub id: String,
    pub key: [u8; KEY_BYTES],
}

fn keys_folder(root: &Path) -> PathBuf {
    KEYS_FOLDER.split('/').fold(root.to_owned(), |path, name| path.join(name))
}

/// The key of `id`, from its file in the vault, when that file may be used.
pub fn key_of(root: &Path, id: &str) -> Result<[u8; KEY_BYTES], Unusable> {
    if !seal_key::is_key_id(id) {
        return Err(Unusable::Missing);
    }
    let path = keys_folder(root).join(seal_key::file_name(id));
    let file = match crate::disk::open_beneath(root, &path) {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Err(Unusable::Missing),
        Err(error) if crate::disk::link_on_the_way(&error).is_some() || is_link_refused(&error) => return Err(Unusable::NotPlainFile),
        Err(error) => return Err(Unusable::Unreadable(error.to_string())),
    };
    let meta = file.metadata().map_err(|error| Unusable::Unreadable(error.to_string()))?;
    seal_key::check(&facts(&meta))?;
    let mut bytes = Vec::new();
    file.try_clone()
        .and_then(|file| file.take(seal_key::MAX_KEY_FILE_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|error| Unusable::Unreadable(error.to_string()))?;
    let secret = seal_key::parse_secret(&bytes).ok_or(Unusable::NotAKey)?;
    Ok(seal_key::derive(&secret, identity(&file, &meta).map_err(|error| Unusable::Unreadable(error.to_string()))?))
}

/// A final name that is a symbolic link, refused by `O_NOFOLLOW`.
fn is_link_refused(error: &std::io::Error) -> bool {
    #[cfg(unix)]
    {
        error.raw_os_error() == Some(libc::ELOOP)
    }
    #[cfg(not(unix))]
    {
        let _ = error;
        false
    }
}

#[cfg(unix)]
fn facts(meta: &std::fs::Metadata) -> KeyFile {
    use std::os::unix::fs::MetadataExt;
    KeyFile { plain_file: meta.is_file(), mode: Some(meta.mode()), ours: meta.uid() == crate::state::user_id(), bytes: meta.len() }
}

#[cfg(not(unix))]
fn facts(meta: &std::fs::Metadata) -> KeyFile {
    // Windows has no mode bits; a file in the user's vault is the user's.
    KeyFile { plain_file: meta.is_file(), mode: None, ours: true, bytes: meta.len() }
}

/// The file's identity: its inode, which Node's `fs.statSync(…, {bigint: true}).ino` gives too.
#[cfg(unix)]
fn identity(_file: &std::fs::File, meta: &std::fs::Metadata) -> std::io::Result<u64> {
    use std::os::unix::fs::MetadataExt;
    Ok(meta.ino())
}

/// The file's identity: its file index, which Node gives as `ino` on Windows.
#[cfg(windows)]
fn identity(file: &std::fs::File, _meta: &std::fs::Metadata) -> std::io::Result<u64> {
    Ok(winapi_util::file::information(file)?.file_index())
}

#[cfg(not(any(unix, windows)))]
fn identity(_file: &std::fs::File, _meta: &std::fs::Metadata) -> std::io::Result<u64> {
    Err(std::io::Error::other("this system gives no file identity"))
}

/// Whether the vault's keys folder is there (a key may have been made in it).
pub fn any_keys(root: &Path) -> bool {
    std::fs::symlink_metadata(keys_folder(root)).is_ok()
}

/// Takes back the keys folder a call made (with the `.gitignore` beside it and `.vaultlink`
/// itself) when nothing sealed is left in `.vaultlink` to need them: a call refused or previewed
/// after it took the vault's lock leaves the vault as it found it. Anything else there (a kept
/// change, a journal, a saved pre-image, the plugin's presence) keeps the key.
pub fn take_back_unused(disk: &dyn Disk, root: &Path) {
    let folder = keys_folder(root);
    let top = folder.parent().unwrap_or(root).to_owned();
    let Ok(entries) = std::fs::read_dir(&top) else { return };
    let names: Vec<String> = entries.flatten().map(|entry| entry.file_name().to_string_lossy().into_owned()).collect();
    if names.iter().any(|name| name != "keys" && name != ".gitignore") {
        return;
    }
    let Ok(keys) = std::fs::read_dir(&folder) else { return };
    for entry in keys.flatten() {
        if entry.file_type().is_ok_and(|kind| kind.is_file()) {
            let _ = disk.remove_file(root, &entry.path());
        }
    }
    if disk.remove_dir(root, &folder).is_err() {
        return;
    }
    let ignore = top.join(".gitignore");
    if std::fs::read(&ignore).is_ok_and(|bytes| bytes == b"*\n") {
        let _ = disk.remove_file(root, &ignore);
    }
    let _ = disk.remove_dir(root, &top);
    let _ = disk.sync_dir(root, root);
}

/// The key to seal with: the first usable key file of the vault (core's order), or one made now
/// when there is none. Another key file is never removed or overwritten: it may be a sync peer's.
pub fn sealing_key(root: &Path) -> Result<SealKey, String> {
    let folder = keys_folder(root);
    let names: Vec<String> = std::fs::read_dir(&folder)
        .map(|entries| entries.flatten().take(4096).map(|entry| entry.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    let mut passed_over = Vec::new();
    let candidates = seal_key::candidates(names.iter().map(String::as_str));
    for id in candidates.iter().cloned() {
        match key_of(root, &id) {
            Ok(key) => return Ok(SealKey { id, key }),
            Err(why) => passed_over.push(format!("{KEYS_FOLDER}/{} {}", seal_key::file_name(&id), why.message())),
        }
    }
    if !passed_over.is_empty() {
        tracing::info!("a new sealing key is made; not used: {}", passed_over.join("; "));
    }
    make(root, &candidates).map_err(|error| format!("making the vault's sealing key in {} failed: {error}", folder.display()))
}

/// Makes a new key file: written whole and synced under a temporary name (mode 0600, created
/// exclusively, no folder on the way a link), then renamed into place without replacing. It is
/// made once for the vault, before any change, on the real disk.
fn make(root: &Path, passed_over: &[String]) -> std::io::Result<SealKey> {
    let disk = RealDisk;
    let folder = keys_folder(root);
    let top = folder.parent().unwrap_or(root);
    // Each folder made is synced into its parent before anything is written in it, so that the
    // journal written next in `.vaultlink` is on the disk with its folder.
    for (made, parent) in [(top, root), (folder.as_path(), top)] {
        match disk.create_dir(root, made) {
            Ok(()) => disk.sync_dir(root, parent)?,
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(error) => return Err(error),
        }
    }
    // So that git never commits the folder (a key is of no use elsewhere, but journals and kept
    // changes hold notes' texts): one line, never replacing a file the user wrote.
    let _ = disk.write_new(root, &top.join(".gitignore"), b"*\n");
    let mut random = [0u8; KEY_BYTES + seal_key::ID_HEX / 2];
    getrandom::fill(&mut random).map_err(|error| std::io::Error::other(format!("no random bytes: {error}")))?;
    let (secret, id) = random.split_at(KEY_BYTES);
    let secret: [u8; KEY_BYTES] = secret.try_into().map_err(|_| std::io::Error::other("a key's bytes"))?;
    let id = seal_key::new_id(id.try_into().map_err(|_| std::io::Error::other("an id's bytes"))?, passed_over);
    let temporary = folder.join(format!(".{id}.key.tmp"));
    let path = folder.join(seal_key::file_name(&id));
    disk.write_new(root, &temporary, seal_key::secret_text(&secret).as_bytes())?;
    if let Err(error) = disk.rename_new(root, &temporary, &path) {
        let _ = disk.remove_file(root, &temporary);
        return Err(error);
    }
    disk.sync_dir(root, &folder)?;
    let key = key_of(root, &id).map_err(|why| std::io::Error::other(format!("the key file made {}", why.message())))?;
    Ok(SealKey { id, key })
}

/// `journal`'s file text, sealed for `purpose` with the vault's sealing key.
pub fn seal(root: &Path, purpose: Purpose, journal: &Journal) -> Result<Result<String, format::TooLarge>, String> {
    let key = sealing_key(root)?;
    Ok(format::seal(&key.key, Binding { purpose, key: &key.id }, journal))
}

/// Opens a journal or kept change file's bytes, read from the vault at `root`, as a file of
/// `purpose`: with the key file it names, when that file may be used.
pub fn open(root: &Path, purpose: Purpose, bytes: &[u8]) -> Result<Journal, Refusal> {
    let id = format::key_named(bytes)?;
    let key = key_of(root, &id).map_err(|why| Refusal::NoKey { id: id.clone(), why })?;
    format::open(&key, Binding { purpose, key: &id }, bytes)
}

/// The text of a journal or a kept change file: `journal` sealed for `purpose` with the sealing key of the vault at `root`
/// (`seal_keys`).
pub fn seal_for(root: &Path, purpose: Purpose, journal: &Journal) -> Result<String, crate::error::ToolError> {
    seal(root, purpose, journal)
        .map_err(|error| {
            crate::error::ToolError::new(
                vaultlink_core::error::ErrorCode::WriteFailed,
                format!("{error}; nothing was changed"),
                "Fix what the message names, then try again.",
                true,
            )
        })?
        .map_err(|too_large| vaultlink_core::step::StepError::from(too_large).error().into())
}

#[cfg(all(test, unix))]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::PermissionsExt;

    fn journal() -> Journal {
        Journal {
            version: format::VERSION,
            pid: 7,
            holder: String::new(),
            tool: "move_note".to_owned(),
            started_unix_ms: 1,
            machine: "here".to_owned(),
            writes: vec![],
            moves: vec![vaultlink_core::journal::JournalMove { from: "A.md".to_owned(), to: "B.md".to_owned(), via: None, hash: None }],
            made_folders: vec![],
            change_id: String::new(),
            forget: None,
        }
    }

    fn copy_tree(from: &Path, to: &Path) {
        fs::create_dir_all(to).unwrap();
        for entry in fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() {
                copy_tree(&entry.path(), &to.join(entry.file_name()));
            } else {
                fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
            }
        }
    }

    #[test]
    fn a_key_is_made_once_private_and_kept_out_of_git() {
        let dir = tempfile::tempdir().unwrap();
        let made = sealing_key(dir.path()).unwrap();
        let file = dir.path().join(KEYS_FOLDER).join(seal_key::file_name(&made.id));
        assert_eq!(fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(fs::read_to_string(dir.path().join(".vaultlink/.gitignore")).unwrap(), "*\n");
        let again = sealing_key(dir.path()).unwrap();
        assert_eq!((again.id, again.key), (made.id, made.key));
        let sealed = seal(dir.path(), Purpose::Journal, &journal()).unwrap().unwrap();
        assert_eq!(open(dir.path(), Purpose::Journal, sealed.as_bytes()), Ok(journal()));
    }

    /// A copy of the vault (a sync, a clone, a backup restored) holds the key file's bytes but not
    /// the file: its key is another, and nothing sealed before the copy is acted on there.
    #[test]
    fn a_copied_vault_carries_no_usable_key() {
        let dir = tempfile::tempdir().unwrap();
        let (vault, copy) = (dir.path().join("vault"), dir.path().join("copy"));
        fs::create_dir(&vault).unwrap();
        let sealed = seal(&vault, Purpose::Journal, &journal()).unwrap().unwrap();
        copy_tree(&vault, &copy);
        let refusal = open(&copy, Purpose::Journal, sealed.as_bytes()).unwrap_err();
        assert_eq!(refusal, Refusal::WrongSeal);
        assert!(refusal.message().contains("another copy of this vault") && refusal.message().contains("`vaultlink recover` there"));
        // The original still opens it; the copy seals under a key of its own, the copied file
        // being kept (it is a sync peer's, perhaps) but never used there.
        assert_eq!(open(&vault, Purpose::Journal, sealed.as_bytes()), Ok(journal()));
        let ours = seal(&copy, Purpose::Journal, &journal()).unwrap().unwrap();
        assert_eq!(open(&copy, Purpose::Journal, ours.as_bytes()), Ok(journal()));
        assert!(open(&vault, Purpose::Journal, ours.as_bytes()).is_err());
    }

    /// A journal copied into another vault names a key that vault does not hold.
    #[test]
    fn a_journal_of_another_vault_names_a_key_this_one_does_not_hold() {
        let (one, other) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let sealed = seal(one.path(), Purpose::Kept, &journal()).unwrap().unwrap();
        sealing_key(other.path()).unwrap();
        match open(other.path(), Purpose::Kept, sealed.as_bytes()) {
            Err(refusal @ Refusal::NoKey { why: Unusable::Missing, .. }) => {
                assert!(refusal.message().contains("is not in this vault"), "{}", refusal.message())
            }
            other => panic!("{other:?}"),
        }
    }

    /// A key file others may read, a link to one elsewhere, or a huge file is never used: a new
    /// key is made beside it (never over it), and what was sealed with it is refused.
    #[test]
    fn a_key_file_that_is_a_link_public_or_huge_is_not_used() {
        type Spoil = fn(&Path, &Path);
        let spoils: [(&str, Spoil, Unusable); 3] = [
            (
                "link",
                |file, outside| {
                    fs::rename(file, outside).unwrap();
                    std::os::unix::fs::symlink(outside, file).unwrap();
                },
                Unusable::NotPlainFile,
            ),
            ("public", |file, _| fs::set_permissions(file, fs::Permissions::from_mode(0o644)).unwrap(), Unusable::Mode(0o644)),
            (
                "huge",
                |file, _| fs::OpenOptions::new().append(true).open(file).unwrap().set_len(1 << 30).unwrap(),
                Unusable::TooLarge(1 << 30),
            ),
        ];
        for (name, spoil, why) in spoils {
            let dir = tempfile::tempdir().unwrap();
            let vault = dir.path().join("vault");
            fs::create_dir(&vault).unwrap();
            let first = sealing_key(&vault).unwrap();
            let sealed = seal(&vault, Purpose::Journal, &journal()).unwrap().unwrap();
            let file = vault.join(KEYS_FOLDER).join(seal_key::file_name(&first.id));
            spoil(&file, &dir.path().join("outside.key"));
            assert_eq!(open(&vault, Purpose::Journal, sealed.as_bytes()), Err(Refusal::NoKey { id: first.id.clone(), why }), "{name}");
            let second = sealing_key(&vault).unwrap();
            assert_ne!(second.id, first.id, "{name}");
            assert!(fs::symlink_metadata(&file).is_ok(), "{name}: the spoilt file is left alone");
        }
    }

    /// No more than core's bound of key files is looked at, whatever a vault holds.
    #[test]
    fn many_unusable_key_files_cost_no_more_than_the_bound() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join(KEYS_FOLDER);
        fs::create_dir_all(&folder).unwrap();
        for n in 1..=40u64 {
            let name = format!("{:016x}.key", n << 40);
            fs::write(folder.join(&name), "not a key").unwrap();
            fs::set_permissions(folder.join(&name), fs::Permissions::from_mode(0o600)).unwrap();
        }
        let made = sealing_key(dir.path()).unwrap();
        assert_eq!(fs::read_dir(&folder).unwrap().count(), 41);
        // Made to come first, it is the one used from now on: no key is made on every change.
        assert_eq!(sealing_key(dir.path()).unwrap().id, made.id);
        assert_eq!(fs::read_dir(&folder).unwrap().count(), 41);
    }
}
