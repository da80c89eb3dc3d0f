//! A note as the persistent index last saw it: what the edges compare the vault against to tell
//! a note moved outside vaultlink (the same size and content at another path) from one edited.

/// A note of the vault as it was last indexed: its path relative to the vault, its size in
/// bytes and `xxh3_128` of its bytes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SeenNote {
    pub path: String,
    pub size: u64,
    pub hash: u128,
}
