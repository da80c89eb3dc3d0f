//! The key a vault's journals and kept changes are sealed with (`journal`), as data: where its
//! files are, which of them may be used, and how the key is derived from one.
//!
//! Both edges must find the same key whatever sandbox each runs in (a Flatpak or Snap Obsidian,
//! Claude Desktop's MSIX package, a devcontainer, an agent with its own `HOME`), and the one thing
//! they always share is the vault folder. So the key's secret is kept in the vault, in a file of
//! [`KEYS_FOLDER`] (`<id>.key`: 32 random bytes as 64 hex digits, mode 0600), and the key a
//! seal is made with is derived from the secret **and the key file's own identity** (its inode on
//! Unix, its file index on Windows, [`derive`]). Both edges on one machine, in any namespace,
//! container or home, see the same file and so the same identity; a copy of the file (a git
//! clone, a sync service, a zip, a backup, another machine) is another file with another
//! identity, so a vault that arrives from anywhere never carries a usable key, whatever its bytes
//! say, and its journals are never acted on.
//!
//! Several key files may be there (one per copy of the vault a sync service joined): an edge
//! seals with the first usable one in the order of [`candidates`], makes a new one when none is,
//! and never removes or overwrites another. A journal names the id of the key that sealed it, and
//! is opened with that key file alone.

use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::hex::{hex, parse_hex};
/// The length in bytes of a journal key.
pub const KEY_BYTES: usize = 32;

/// The folder of the vault's key files, from the vault's root.
pub const KEYS_FOLDER: &str = concat!(crate::own_files::own_folder!(), "/keys");

/// The most key files an edge looks at: a folder of thousands planted in a vault costs a call
/// no more than these.
pub const MAX_KEY_FILES: usize = 16;

/// The most bytes a key file may have (64 hex digits and a line end need 65); a larger file is
/// not read.
pub const MAX_KEY_FILE_BYTES: u64 = 128;

/// The length of a key's id in hex digits (8 random bytes).
pub const ID_HEX: usize = 16;

/// Whether `id` is a key's id: [`ID_HEX`] lower-case hex digits, so it names one file of
/// [`KEYS_FOLDER`] and nothing else.
pub fn is_key_id(id: &str) -> bool {
    id.len() == ID_HEX && id.bytes().all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte))
}

/// The name of the key file of `id`, in [`KEYS_FOLDER`].
pub fn file_name(id: &str) -> String {
    format!("{id}.key")
}

/// The ids an edge looks at, from the names in [`KEYS_FOLDER`]: those of key files only, in
/// order, no more than [`MAX_KEY_FILES`]. Both edges take the first usable one, so on one machine
/// they seal with the same key.
pub fn candidates<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut ids: Vec<String> =
        names.into_iter().filter_map(|name| name.strip_suffix(".key")).filter(|id| is_key_id(id)).map(str::to_owned).collect();
    ids.sort();
    ids.dedup();
    ids.truncate(MAX_KEY_FILES);
    ids
}

/// The id of a key made now, from 8 random bytes and the ids [`candidates`] gave (all passed over
/// as unusable). When they are as many as are looked at, the new id is one below the highest of
/// them and not taken, so that the new key is among those looked at from now on, and a vault
/// holding [`MAX_KEY_FILES`] files that are not usable keys does not get a new key on every change
/// (unless they are the very lowest ids, which only someone who plants them chooses).
pub fn new_id(random: [u8; ID_HEX / 2], candidates: &[String]) -> String {
    let random = u64::from_be_bytes(random);
    let taken: Vec<u64> = candidates.iter().filter_map(|id| u64::from_str_radix(id, 16).ok()).collect();
    let id = match taken.iter().max() {
        Some(&highest) if candidates.len() >= MAX_KEY_FILES && highest > 0 => {
            let start = random % highest;
            // At most one step more than there are ids taken.
            (0..highest).map(|step| (start + step) % highest).find(|id| !taken.contains(id)).unwrap_or(random)
        }
        _ => random,
    };
    format!("{id:016x}")
}

/// The secret in a key file's bytes: 64 lower-case hex digits, with or without one line end.
pub fn parse_secret(bytes: &[u8]) -> Option<[u8; KEY_BYTES]> {
    let text = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    if text.len() != KEY_BYTES * 2 || !text.iter().all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(byte)) {
        return None;
    }
    parse_hex(text)?.try_into().ok()
}

/// A key file's text for `secret`.
pub fn secret_text(secret: &[u8; KEY_BYTES]) -> String {
    format!("{}\n", hex(secret))
}

/// The key seals are made with: the HMAC-SHA256, under the file's secret, of
/// `"vaultlink seal key\0"` and the file's identity (inode or file index) as a decimal number.
/// `tests/vectors/seals.json` holds cases both edges check.
pub fn derive(secret: &[u8], identity: u64) -> [u8; KEY_BYTES] {
    // HMAC takes a key of any length; `new_from_slice` cannot fail for it.
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(secret).unwrap_or_else(|_| unreachable!("HMAC accepts every key length"));
    mac.update(b"vaultlink seal key\0");
    mac.update(identity.to_string().as_bytes());
    mac.finalize().into_bytes().into()
}

/// What an edge saw of a key file, without following a link: whether it is a plain file, its
/// permission bits (`None` where there are none, on Windows), whether this user owns it, and its
/// size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyFile {
    pub plain_file: bool,
    pub mode: Option<u32>,
    pub ours: bool,
    pub bytes: u64,
}

/// Why a key file is not used. It crosses to the plugin as `{kind, detail?}`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", content = "detail", rename_all = "snake_case")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum Unusable {
    /// Not there (a journal names a key the vault does not hold).
    Missing,
    /// A symbolic link, a folder, or anything but a plain file.
    NotPlainFile,
    /// Another user's file.
    NotOurs,
    /// Others may read or write it.
    Mode(u32),
    TooLarge(u64),
    /// Its text is not a key.
    NotAKey,
    /// It could not be read (the reason).
    Unreadable(String),
}

impl Unusable {
    /// The end of a sentence that starts with the key file's name.
    pub fn message(&self) -> String {
        match self {
            Unusable::Missing => "is not in this vault".to_owned(),
            Unusable::NotPlainFile => "is not a plain file (a symbolic link, or a folder)".to_owned(),
            Unusable::NotOurs => "belongs to another user".to_owned(),
            Unusable::Mode(mode) => format!("has mode {mode:o}, not 0600: others may read or change it"),
            Unusable::TooLarge(bytes) => format!("is {bytes} bytes, over the {MAX_KEY_FILE_BYTES} a key file may have"),
            Unusable::NotAKey => "does not hold a key (64 hex digits)".to_owned(),
            Unusable::Unreadable(reason) => format!("cannot be read ({reason})"),
        }
    }
}

/// Whether a key file may be used, from what the edge saw of it before reading it: a plain file
/// of this user, of mode 0600 where there are modes, no larger than [`MAX_KEY_FILE_BYTES`].
pub fn check(file: &KeyFile) -> Result<(), Unusable> {
    if !file.plain_file {
        return Err(Unusable::NotPlainFile);
    }
    if !file.ours {
        return Err(Unusable::NotOurs);
    }
    if let Some(mode) = file.mode {
        if mode & 0o077 != 0 {
            return Err(Unusable::Mode(mode & 0o777));
        }
    }
    if file.bytes > MAX_KEY_FILE_BYTES {
        return Err(Unusable::TooLarge(file.bytes));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_key_files_are_candidates_in_order_and_bounded() {
        let names = ["b000000000000000.key", "a000000000000000.key", "notes.md", "A000000000000000.key", "../x.key", ".a0.key"];
        assert_eq!(candidates(names), vec!["a000000000000000".to_owned(), "b000000000000000".to_owned()]);
        let many: Vec<String> = (0..100).map(|n| format!("{n:016x}.key")).collect();
        assert_eq!(candidates(many.iter().map(String::as_str)).len(), MAX_KEY_FILES);
    }

    #[test]
    fn a_new_key_is_among_those_looked_at_when_as_many_were_passed_over() {
        let names: Vec<String> = (1..=MAX_KEY_FILES as u64).map(|n| format!("{:016x}.key", n << 40)).collect();
        let passed_over = candidates(names.iter().map(String::as_str));
        for random in [[0xff; 8], [0; 8], [1, 2, 3, 4, 5, 6, 7, 8], [0, 0, 1, 0, 0, 0, 0, 0]] {
            let id = new_id(random, &passed_over);
            assert!(is_key_id(&id) && !passed_over.contains(&id), "{id}");
            let mut with_it = passed_over.clone();
            with_it.push(format!("{id}.key"));
            assert!(candidates(with_it.iter().map(String::as_str).chain(names.iter().map(String::as_str))).contains(&id), "{id}");
        }
        // Fewer than are looked at: any id is among them.
        assert_eq!(new_id([0xab; 8], &[]), "abababababababab");
    }

    #[test]
    fn a_secret_is_exactly_64_lower_case_hex_digits() {
        let secret = [7u8; KEY_BYTES];
        assert_eq!(parse_secret(secret_text(&secret).as_bytes()), Some(secret));
        assert_eq!(parse_secret(secret_text(&secret).trim_end().as_bytes()), Some(secret));
        for bad in ["short".to_owned(), "A".repeat(64), format!("{}a", "€".repeat(21)), format!("{}\n\n", "a".repeat(64))] {
            assert_eq!(parse_secret(bad.as_bytes()), None, "{bad:?}");
        }
    }

    #[test]
    fn the_key_depends_on_the_file_identity() {
        let secret = [7u8; KEY_BYTES];
        assert_ne!(derive(&secret, 1), derive(&secret, 2));
        assert_eq!(derive(&secret, 1), derive(&secret, 1));
    }

    #[test]
    fn a_key_file_others_can_reach_is_not_used() {
        let good = KeyFile { plain_file: true, mode: Some(0o100600), ours: true, bytes: 65 };
        assert_eq!(check(&good), Ok(()));
        assert_eq!(check(&KeyFile { mode: None, ..good }), Ok(()));
        assert_eq!(check(&KeyFile { plain_file: false, ..good }), Err(Unusable::NotPlainFile));
        assert_eq!(check(&KeyFile { ours: false, ..good }), Err(Unusable::NotOurs));
        assert_eq!(check(&KeyFile { mode: Some(0o100644), ..good }), Err(Unusable::Mode(0o644)));
        assert_eq!(check(&KeyFile { bytes: 1 << 30, ..good }), Err(Unusable::TooLarge(1 << 30)));
    }
}
