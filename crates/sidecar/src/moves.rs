//! What the sidecar saw change on the vault folder since the persistent index last saw it
//! (`store::previous_notes`), with the changes earlier starts saw and the index kept pending
//! (`store::Pending`), for core's detected moves (`moves_detected`): the notes gone from their
//! path and those at a path the index did not know, each with its size and content hash.

use std::collections::{HashMap, HashSet};

use vaultlink_core::moves_detected::Observed;
use vaultlink_core::SeenNote;

use vaultlink_core::Vault;

use crate::store::Pending;

/// The notes that vanished and appeared between `previous` and the folder as the index holds it
/// now; `None` without an earlier view. Only the notes that can matter are read: each that
/// appeared, and one still at its old path when its old bytes appeared elsewhere (it may have
/// moved and another taken its place). A note that cannot be read is left out: it is no move's
/// evidence.
///
/// To those it adds the changes the persistent index kept pending (`store::Pending`): the notes
/// an earlier start saw vanish, while no note is at their path again, and those it saw appear,
/// while they are still there, read now.
pub fn observed(vault: &Vault, read: &dyn Fn(&str) -> Option<Vec<u8>>, previous: Option<(Vec<SeenNote>, Pending)>) -> Option<Observed> {
    let (previous, pending) = previous?;
    let mut observed = observed_since(vault, read, previous);
    let mut vanished_paths: HashSet<String> = observed.vanished.iter().map(|note| note.path.clone()).collect();
    for gone in pending.vanished {
        if gone.note.hash != 0 && !vault.contains(&gone.note.path) && vanished_paths.insert(gone.note.path.clone()) {
            observed.vanished.push(gone.note);
        }
    }
    let mut appeared_paths: HashSet<String> = observed.appeared.iter().map(|note| note.path.clone()).collect();
    for new in pending.appeared {
        if vault.is_note(&new.path) && appeared_paths.insert(new.path.clone()) {
            observed.appeared.extend(seen_now(read, &new.path));
        }
    }
    Some(observed)
}

fn observed_since(vault: &Vault, read: &dyn Fn(&str) -> Option<Vec<u8>>, previous: Vec<SeenNote>) -> Observed {
    // A note the persistent index kept without its hash (`0`: not known) is no evidence.
    let previous: Vec<SeenNote> = previous.into_iter().filter(|note| note.hash != 0).collect();
    let before: HashMap<&str, &SeenNote> = previous.iter().map(|note| (note.path.as_str(), note)).collect();
    let appeared: Vec<SeenNote> =
        vault.note_paths().filter(|path| !before.contains_key(path)).filter_map(|path| seen_now(read, path)).collect();
    let appeared_keys: HashSet<(u128, u64)> = appeared.iter().map(|note| (note.hash, note.size)).collect();
    let vanished = previous
        .iter()
        .filter(|note| {
            if !vault.contains(&note.path) {
                return true;
            }
            // Still at its path: vanished only when its old bytes appeared elsewhere and the
            // path holds other bytes now.
            appeared_keys.contains(&(note.hash, note.size))
                && seen_now(read, &note.path).is_none_or(|now| now.hash != note.hash || now.size != note.size)
        })
        .cloned()
        .collect();
    Observed { vanished, appeared }
}

/// The note at `path` as it is on the disk now, read by `read` (the folder index's read).
fn seen_now(read: &dyn Fn(&str) -> Option<Vec<u8>>, path: &str) -> Option<SeenNote> {
    let bytes = read(path)?;
    Some(SeenNote { path: path.to_owned(), size: bytes.len() as u64, hash: xxhash_rust::xxh3::xxh3_128(&bytes) })
}
