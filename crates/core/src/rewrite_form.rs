//! How a rewritten link is written, a setting of the index's configuration that the link
//! writer (`link_form`) reads; its own module, so that the index and the link writer do not
//! import each other.

use serde::{Deserialize, Serialize};

/// How a rewritten link is written: as Obsidian would write it (the default), or in the form
/// it was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RewriteForm {
    /// Obsidian's `fileToLinktext` under the vault's "New link format".
    #[default]
    Obsidian,
    /// The link's own form: a bare name stays bare, a path stays a path, a relative link stays
    /// relative, a `.md` stays written.
    Keep,
}

impl RewriteForm {
    /// The form an edge's option names (`obsidian`, `keep`), or `None` for any other text.
    pub fn named(name: &str) -> Option<RewriteForm> {
        match name.trim() {
            "obsidian" => Some(RewriteForm::Obsidian),
            "keep" => Some(RewriteForm::Keep),
            _ => None,
        }
    }
}
