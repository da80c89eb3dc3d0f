//! Which notes a call needs sketched for `near_duplicate`, decided once for both edges.
//!
//! Before a `lint_wiki` call that runs `near_duplicate`, an edge asks [`sketches_needed`] for the
//! notes the index holds no sketch of, reads their texts (the sidecar from the folder on every
//! core, a slice at a time; the plugin through the Vault API, a batch at a time), sketches each
//! (`Sketch::of_note`) and hands the sketches to the index (`Vault::keep_sketch`), which keeps
//! them for later calls. Any note still without a sketch when the call runs (its text changed
//! meanwhile, or the edge did not sketch first) is read through the call's edge and sketched for
//! that call alone ([`sketches_read`]), so the answer is the one a fully sketched index gives.

use std::collections::HashMap;

use crate::index::Vault;
use crate::ops::{LintArguments, Request};
use crate::sketch::Sketch;

/// Whether a `lint_wiki` call with `arguments` runs `near_duplicate`; false for arguments it
/// refuses.
pub fn wants_sketches(arguments: &LintArguments) -> bool {
    crate::ops::lint_rules(arguments).is_ok_and(|rules| rules.iter().any(|rule| rule.kind == crate::lint::near_duplicate::RULE.kind))
}

/// The notes whose texts the edge reads and sketches before `request` runs, in path order, each
/// marked in the index as asked for (`Vault::sketches_wanted`); none for any call but a
/// `lint_wiki` that runs `near_duplicate`, or when every note is sketched.
pub fn sketches_needed(vault: &mut Vault, request: &Request) -> Vec<String> {
    match request {
        Request::LintWiki(arguments) if wants_sketches(arguments) => vault.sketches_wanted(),
        _ => Vec::new(),
    }
}

/// The sketches, for this call alone, of the notes `near_duplicate` compares that the index holds
/// none of, from the texts `read` gives (a note it cannot read is left out, and the rule says
/// so); empty when the call does not run `near_duplicate`.
pub fn sketches_read(vault: &Vault, arguments: &LintArguments, read: &mut dyn FnMut(&str) -> Option<String>) -> HashMap<String, Sketch> {
    if !wants_sketches(arguments) {
        return HashMap::new();
    }
    let unsketched: Vec<&str> = vault
        .notes_with_sketches()
        .filter(|(note, sketch)| sketch.is_none() && !crate::facts::is_schema_file(note.path))
        .map(|(note, _)| note.path)
        .collect();
    unsketched.into_iter().filter_map(|path| Some((path.to_owned(), Sketch::of_note(&read(path)?)))).collect()
}
