//! What an edge that learns of the vault's changes one event at a time (the plugin, from
//! Obsidian's create, modify, delete and rename events) keeps to answer `Edge::observed`: each
//! note's size and content hash as it is now, and for each path changed since the edge first saw
//! the whole vault, what that first view held there. A move made outside Obsidian reaches the
//! plugin as a delete and a create, so the two views compared ([`Observed::between`]) give the
//! same vanished and appeared notes the sidecar finds on the folder.
//!
//! Memory is a size and a hash per note, and one entry per path changed since the first view:
//! past [`MAX_CHANGED`] changed paths the earliest view is given up and the answer says nothing
//! was observed, never a partial comparison taken for a whole one.

use std::collections::HashMap;

use crate::moves_detected::{Observed, MAX_OBSERVED};
use crate::seen::SeenNote;

/// The most paths changed since the first view that are remembered (twice what `detect`
/// compares, a vanished and an appeared side).
pub const MAX_CHANGED: usize = 2 * MAX_OBSERVED;

/// A note's size and `xxh3_128` of its bytes: what tells the same note at another path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seen {
    pub size: u64,
    pub hash: u128,
}

impl Seen {
    /// The size and hash of `bytes`, as the persistent index keeps them (`SeenNote`).
    pub fn of(bytes: &[u8]) -> Seen {
        Seen { size: bytes.len() as u64, hash: xxhash_rust::xxh3::xxh3_128(bytes) }
    }
}

/// The notes as the edge sees them now, and the first view of each path changed since it began
/// watching.
#[derive(Debug, Default)]
pub struct SeenSince {
    now: HashMap<String, Seen>,
    /// For each path changed since `begin`: what the first view held there (`None`: nothing).
    first: HashMap<String, Option<Seen>>,
    /// True once `begin` was called and until too many paths changed to remember.
    watching: bool,
}

impl SeenSince {
    /// The note at `path` holds `bytes` now (added or changed). Other files than notes are not
    /// kept: only a note's move breaks the links `heal_moves` rewrites.
    pub fn upsert(&mut self, path: &str, bytes: &[u8]) {
        if !crate::index::is_note_path(path) {
            return;
        }
        let seen = Seen::of(bytes);
        let before = self.now.insert(path.to_owned(), seen);
        if before != Some(seen) {
            self.changed(path, before);
        }
    }

    /// The note at `path` is gone.
    pub fn remove(&mut self, path: &str) {
        if let Some(before) = self.now.remove(path) {
            self.changed(path, Some(before));
        }
    }

    /// The note at `from` was moved to `to` through Obsidian, which updated its links itself:
    /// not a move made outside it, so the first view is moved with it and it is no evidence.
    pub fn rename(&mut self, from: &str, to: &str) {
        let Some(seen) = self.now.remove(from) else { return };
        if !crate::index::is_note_path(to) {
            self.changed(from, Some(seen));
            return;
        }
        let first_at_from = self.first.remove(from).unwrap_or(Some(seen));
        if self.watching {
            self.first.insert(from.to_owned(), None);
            self.first.insert(to.to_owned(), first_at_from);
            self.bound();
        }
        self.now.insert(to.to_owned(), seen);
    }

    /// The moves `heal_moves` healed (each note's `from` and `to`): their links were rewritten as
    /// if the moves had been made through vaultlink, so, like a rename made through Obsidian,
    /// they are no evidence any more. Both paths count as unchanged since the first view, whatever
    /// the heal then wrote into the moved note itself.
    pub fn accept(&mut self, moves: &[(String, String)]) {
        for (from, to) in moves {
            self.first.remove(from);
            self.first.remove(to);
        }
    }

    /// The edge saw the whole vault (its first index is done): changes from now on are compared
    /// with this view.
    pub fn begin(&mut self) {
        self.first.clear();
        self.watching = true;
    }

    /// What changed since `begin`, or `None` before it (or once too much changed to remember).
    pub fn observed(&self) -> Option<Observed> {
        if !self.watching {
            return None;
        }
        let note = |path: &str, seen: &Seen| SeenNote { path: path.to_owned(), size: seen.size, hash: seen.hash };
        let mut vanished = Vec::new();
        let mut appeared = Vec::new();
        for (path, first) in &self.first {
            let now = self.now.get(path);
            match (first, now) {
                (Some(first), now) if now != Some(first) => vanished.push(note(path, first)),
                (None, Some(now)) => appeared.push(note(path, now)),
                _ => {}
            }
        }
        vanished.sort_by(|a, b| a.path.cmp(&b.path));
        appeared.sort_by(|a, b| a.path.cmp(&b.path));
        Some(Observed { vanished, appeared })
    }

    fn changed(&mut self, path: &str, before: Option<Seen>) {
        if self.watching && !self.first.contains_key(path) {
            self.first.insert(path.to_owned(), before);
            self.bound();
        }
    }

    fn bound(&mut self) {
        if self.first.len() > MAX_CHANGED {
            self.first = HashMap::new();
            self.watching = false;
        }
    }
}
