//! What a page keeps of the sources it was drawn from: each cited source's content hash as the
//! commit that ingested it read it, in the page's own `source_hashes` property beside `sources`.
//! The hashes live in the vault, in the page, because the vault is all the two edges share: a
//! page copied, synced or opened by the other edge still says what it was written from, and
//! `lint_wiki`'s `stale` compares it with the source as it is now.
//!
//! ```text
//! ---
//! type: concept
//! sources:
//!   - "[[Clip]]"
//! source_hashes:
//!   - "5b2f…e1 raw/Clip.md"
//! ---
//! ```
//!
//! Each entry is the source's content hash (SHA-256 of its text, as `read_note` gives it), a
//! space, and the source's path in the vault. `commit_wiki_page` writes the property whenever the
//! page cites a note in `sources` (and replaces what the caller gave), so a page is made current
//! again by committing it anew (`page.mode: overwrite`).

use std::collections::BTreeMap;

use crate::facts::NoteFacts;
use crate::index::Vault;

/// The property in which a page cites the notes it is drawn from, as property links.
pub const SOURCES_PROPERTY: &str = "sources";

/// The property holding the kept hashes.
pub const SOURCE_HASHES_PROPERTY: &str = "source_hashes";

/// One kept hash: the source's path as the commit read it, and its content hash then.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kept {
    pub path: String,
    pub hash: String,
}

/// The entry written for a source: its hash, a space, its path.
pub fn entry(path: &str, hash: &str) -> String {
    format!("{hash} {path}")
}

/// The entry read back, when it is one: a hash of hex digits, then a path. Anything else (a
/// hand-written note, a value cut at the index's limit) is not a kept hash and is passed over.
pub fn read_entry(entry: &str) -> Option<Kept> {
    let (hash, path) = entry.trim().split_once(char::is_whitespace)?;
    let path = path.trim();
    let is_hash = hash.len() == 64 && hash.bytes().all(|byte| byte.is_ascii_hexdigit());
    (is_hash && !path.is_empty()).then(|| Kept { path: path.to_owned(), hash: hash.to_ascii_lowercase() })
}

/// The hashes a note keeps.
pub fn kept(facts: &NoteFacts) -> Vec<Kept> {
    facts
        .property(SOURCE_HASHES_PROPERTY)
        .map(|property| property.values.iter().filter_map(|value| read_entry(value)).collect())
        .unwrap_or_default()
}

/// The sources whose texts `stale` compares: every note of the vault a page keeps a hash of, as
/// the index spells its path. An edge reads them and hands core their texts.
pub fn notes_needed(vault: &Vault) -> Vec<String> {
    let mut found: Vec<String> =
        vault.notes().flat_map(|note| kept(note.facts)).filter_map(|kept| vault.find_note(&kept.path).map(str::to_owned)).collect();
    found.sort();
    found.dedup();
    found
}

/// The current content hash of each source in `notes_needed` that `read` can read, by path.
pub fn current_hashes(vault: &Vault, read: &mut dyn FnMut(&str) -> Option<String>) -> BTreeMap<String, String> {
    notes_needed(vault).into_iter().filter_map(|path| read(&path).map(|text| (path, crate::plan::content_hash(&text)))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_is_read_back_and_anything_else_passed_over() {
        let hash = "a".repeat(64);
        assert_eq!(read_entry(&entry("raw/My clip.md", &hash)), Some(Kept { path: "raw/My clip.md".to_owned(), hash: hash.clone() }));
        assert_eq!(read_entry(&format!("{} raw/Clip.md", "A".repeat(64))).map(|kept| kept.hash), Some(hash));
        for other in [
            "",
            "raw/Clip.md",
            "abc raw/Clip.md",
            &"b".repeat(64),
            &format!("{} ", "c".repeat(64)),
            &format!("{}x raw/C.md", "d".repeat(63)),
        ] {
            assert_eq!(read_entry(other), None, "{other:?}");
        }
    }
}
