//! What the index's structures hold in memory, counted structure by structure, so that a
//! benchmark can say where the memory of an index goes.
//!
//! The counts are the bytes asked of the allocator (each value's own size inside its
//! container, and what it owns on the heap: a string's capacity, a vector's capacity), without
//! the allocator's own overhead per allocation; a hash table counts its buckets and control
//! bytes, a B-tree its entries with the room its nodes leave, estimated. A path shared by
//! several structures (`Arc<str>`) is counted once, with the file table.

use std::collections::{BTreeMap, HashMap};
use std::mem::size_of;

use crate::facts::NoteFacts;
use crate::frontmatter::KeySegment;
use crate::parse::{Link, LinkSource};
use crate::resolve::Resolution;

/// The memory of an index, by structure, in bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct IndexMemory {
    /// The file table (paths, ids, the path order) and what each note keeps for subpaths
    /// (heading keys, block ids).
    pub notes: usize,
    /// Every note's parsed links.
    pub links: usize,
    /// What each link resolves to.
    pub resolutions: usize,
    /// The backlinks of every file and the links filed under each name for re-resolution.
    pub reverse_index: usize,
    /// File names, aliases and the names `find_existing_page` looks notes up by.
    pub names: usize,
    /// The bodies' sketches for `near_duplicate`.
    pub sketches: usize,
    /// The properties, H1 and frontmatter problems kept for lint.
    pub facts: usize,
}

impl IndexMemory {
    pub fn total(&self) -> usize {
        self.notes + self.links + self.resolutions + self.reverse_index + self.names + self.sketches + self.facts
    }
}

pub(crate) fn vec_bytes<T>(items: &Vec<T>) -> usize {
    items.capacity() * size_of::<T>()
}

pub(crate) fn str_bytes(text: &str) -> usize {
    text.len()
}

fn string_bytes(text: &str) -> usize {
    text.len()
}

fn option_string_bytes(text: &Option<String>) -> usize {
    text.as_ref().map_or(0, String::capacity)
}

/// A hashbrown table: a bucket and a control byte for each place, and a group of control
/// bytes more.
pub(crate) fn hash_map_bytes<K, V, S>(map: &HashMap<K, V, S>) -> usize {
    let buckets = if map.capacity() == 0 { 0 } else { (map.capacity() * 8 / 7).next_power_of_two() };
    buckets * (size_of::<(K, V)>() + 1) + if buckets == 0 { 0 } else { 16 }
}

/// A B-tree's leaves hold up to 11 entries and are about three quarters full on average.
pub(crate) fn btree_bytes<K, V>(map: &BTreeMap<K, V>) -> usize {
    map.len() * (size_of::<K>() + size_of::<V>()) * 4 / 3
}

pub(crate) fn resolution_bytes(resolution: &Resolution) -> usize {
    match resolution {
        Resolution::Resolved { path } => path.capacity(),
        Resolution::Ambiguous { path, candidates } => {
            path.capacity() + vec_bytes(candidates) + candidates.iter().map(String::capacity).sum::<usize>()
        }
        Resolution::Unresolved => 0,
    }
}

/// What one link owns on the heap (its own size is counted in its note's vector).
pub(crate) fn link_bytes(link: &Link) -> usize {
    source_bytes(&link.source)
        + link.target.capacity()
        + link.path.capacity()
        + option_string_bytes(&link.subpath)
        + option_string_bytes(&link.display)
}

/// What a link's source owns on the heap.
pub(crate) fn source_bytes(source: &LinkSource) -> usize {
    match source {
        LinkSource::Body => 0,
        LinkSource::CanvasFile { node } | LinkSource::CanvasText { node } => node.capacity(),
        LinkSource::Property { key, key_path, .. } => {
            key.capacity()
                + vec_bytes(key_path)
                + key_path
                    .iter()
                    .map(|segment| match segment {
                        KeySegment::Key(key) => key.capacity(),
                        KeySegment::Index(_) => 0,
                    })
                    .sum::<usize>()
        }
    }
}

pub(crate) fn facts_bytes(facts: &NoteFacts) -> usize {
    let mut bytes = option_string_bytes(&facts.h1) + vec_bytes(&facts.properties) + vec_bytes(&facts.frontmatter_problems);
    for property in &facts.properties {
        bytes += property.key.capacity() + vec_bytes(&property.values) + property.values.iter().map(String::capacity).sum::<usize>();
    }
    for problem in &facts.frontmatter_problems {
        bytes += problem.code.capacity() + problem.message.capacity();
    }
    if let Some(schema) = &facts.schema {
        // A vault has one or a few `SCHEMA.md`; their rules are counted by their size alone.
        bytes += size_of_val(&**schema) + schema.problems.iter().map(|problem| string_bytes(problem)).sum::<usize>();
    }
    bytes
}
