//! What `commit_wiki_page` is asked: the new page and the additive patches to other notes, as
//! the request is read. The planner (`wiki`) and its checks against the vault (`page_checks`)
//! both take these, so they live below both.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The new page.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PageInput {
    /// The page's path in the vault; `.md` is added when left out.
    pub path: String,
    /// Its properties, by key: text, a number, a boolean, or a list of those.
    #[serde(default)]
    pub frontmatter: serde_json::Map<String, Value>,
    /// The Markdown after the frontmatter.
    #[serde(default)]
    pub body: String,
    /// `create` (the default): a new page. `overwrite`: the page at `path` replaced, deliberately,
    /// its backlinks kept; `prev_hash` must be the content hash it was read with.
    #[serde(default)]
    pub mode: PageMode,
    /// With `overwrite`: the page's content hash as read (read_note gives it).
    #[serde(default)]
    pub prev_hash: Option<String>,
}

/// Whether `commit_wiki_page` creates the page or replaces one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PageMode {
    #[default]
    Create,
    Overwrite,
}

/// What a patch adds to an existing note.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PatchKind {
    /// A bullet linking the new page, under `heading` ("See also" by default), made once.
    Link,
    /// `text`, at the end of the note or of the section under `heading`.
    Append,
}

/// One additive change to an existing note.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Patch {
    pub path: String,
    pub kind: PatchKind,
    /// The heading the addition goes under; made (as a level-2 heading at the end) when absent.
    #[serde(default)]
    pub heading: Option<String>,
    /// What an `append` adds.
    #[serde(default)]
    pub text: Option<String>,
}

crate::approval::writing_arguments! {
    #[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct CommitArguments {
        pub page: PageInput,
        #[serde(default)]
        pub patches: Vec<Patch>,
        /// The content hash each patched note had when the caller read it, by path.
        #[serde(default)]
        pub prev_hashes: BTreeMap<String, String>,
        /// Link targets that may stay unresolved (a page still to be written).
        #[serde(default)]
        pub allow_unresolved: Vec<String>,
        /// Write the page even though the vault already knows a note by one of its names (a second
        /// page on the topic, meant). Never lets a page change where existing links lead.
        #[serde(default)]
        pub allow_duplicate: bool,
    }
}
