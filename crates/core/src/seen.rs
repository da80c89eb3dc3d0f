//! A note as the persistent index last saw it: what the edges compare the vault against to tell
//! a note moved outside vaultlink (the same size and content at another path) from one edited.

use std::collections::{BTreeSet, HashMap};

/// A note of the vault as it was last indexed: its path relative to the vault, its size in
/// bytes and `xxh3_128` of its bytes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SeenNote {
    pub path: String,
    pub size: u64,
    pub hash: u128,
}

/// What an edge saw change since it last saw the vault: the notes no longer at their path (or
/// holding other bytes there), and the notes at a path it had not seen.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Observed {
    pub vanished: Vec<SeenNote>,
    pub appeared: Vec<SeenNote>,
}

impl Observed {
    /// What changed from `before` to `now`, two whole lists of the vault's notes: a note whose
    /// path is gone, or holds other bytes now, vanished (the second only counts as a move's
    /// source when its old bytes appeared elsewhere, see `moves_detected::detect`); a note at a path `before`
    /// did not hold appeared.
    pub fn between(before: &[SeenNote], now: &[SeenNote]) -> Observed {
        let now_by_path: HashMap<&str, &SeenNote> = now.iter().map(|note| (note.path.as_str(), note)).collect();
        let before_paths: BTreeSet<&str> = before.iter().map(|note| note.path.as_str()).collect();
        let vanished = before
            .iter()
            .filter(|note| now_by_path.get(note.path.as_str()).is_none_or(|seen| seen.hash != note.hash || seen.size != note.size))
            .cloned()
            .collect();
        let appeared = now.iter().filter(|note| !before_paths.contains(note.path.as_str())).cloned().collect();
        Observed { vanished, appeared }
    }
}
