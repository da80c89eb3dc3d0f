//! The pure link engine of vaultlink: parse, index and query the links of an Obsidian vault.
//!
//! Everything here takes text and paths as plain data and returns plain data. Nothing in this
//! crate reads a file, opens a socket, looks at a clock or knows about JavaScript, so every
//! function can be tested with inline strings and runs the same natively and in wasm.

pub mod answer;
pub mod approval;
pub mod audit;
pub mod batch;
pub mod canvas;
pub mod change;
pub mod config;
pub mod conventions;
pub mod delete;
pub mod draft;
pub mod edge;
pub mod error;
pub mod evidence;
pub mod existing;
pub mod facts;
pub mod frontmatter;
pub mod graph;
pub mod hex;
pub mod history;
pub mod history_list;
pub mod index;
pub mod inflect;
pub mod journal;
pub mod lease;
pub mod line_index;
pub mod link_form;
pub mod lint;
pub mod memory;
pub mod mentions;
pub mod moves_detected;
pub mod ops;
pub mod page_checks;
pub mod pages;
pub mod parameters;
pub mod parse;
pub mod paths;
pub mod presence;
pub mod properties;
pub mod property_rules;
pub mod rename;
pub mod repair;
pub mod resolve;
pub mod rewrite;
pub mod schema_file;
pub mod seal_key;
pub mod seen;
pub mod seen_since;
pub mod sketch;
pub mod source_hashes;
pub mod sources;
pub mod span;
pub mod step;
pub mod undo_steps;
pub mod wiki;
pub mod words;
pub mod yaml_text;

pub use index::Vault;
pub use line_index::LineIndex;
pub use parse::{parse_note, Link, LinkKind, LinkSource, ParseConfig, ParsedNote, Span};
pub use seen::SeenNote;

/// What the unit tests of several modules share.
#[cfg(test)]
pub(crate) mod testing {
    use std::collections::BTreeMap;

    use crate::index::{IndexConfig, Vault};

    /// A vault of `files` (path, text) as Obsidian's defaults index it, and the texts by path.
    pub fn vault_with(files: &[(&str, &str)]) -> (Vault, BTreeMap<String, String>) {
        let mut vault = Vault::new(IndexConfig::obsidian_defaults());
        let mut texts = BTreeMap::new();
        for (path, text) in files {
            vault.upsert(path, text);
            texts.insert((*path).to_owned(), (*text).to_owned());
        }
        (vault, texts)
    }
}
