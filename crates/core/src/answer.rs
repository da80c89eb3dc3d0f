//! What every operation's answer shares: how much of each item it carries, the page limits, and
//! the typed error an operation fails with. `ops` and `evidence` both speak these, so neither
//! imports the other for them.

use crate::error::ErrorCode;
use serde::{Deserialize, Serialize};

/// The most items one call returns; `limit` is capped here.
pub const MAX_LIMIT: usize = 1_000;
/// Items returned when the caller gives no `limit`.
pub const DEFAULT_LIMIT: usize = 100;
/// When the caller gives no `limit`, a page also ends before its items' JSON passes this many
/// bytes (the first item is always kept), so that a default answer stays under 20 KB with its
/// envelope and an agent's context is not flooded. An explicit `limit` is obeyed as given.
pub const DEFAULT_PAGE_BYTES: usize = 16_000;
/// The most bytes of a note's body one `read_note` call returns when no `max_bytes` is given.
pub const DEFAULT_READ_BYTES: usize = 16_000;
/// The bounds of `read_note`'s `max_bytes`.
pub const MIN_READ_BYTES: usize = 1_000;
pub const MAX_READ_BYTES: usize = 1_000_000;
/// Referrers listed per missing target by `find_unresolved_links`; `referrer_count` counts all.
pub const MAX_REFERRERS_PER_TARGET: usize = 50;

/// How much of each item an answer carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResponseFormat {
    /// Only what is needed to act: fewer tokens for an agent.
    Concise,
    /// Everything, positions and spans included.
    #[default]
    Detailed,
}

/// Why an operation failed, with a stable code an agent can act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpError {
    /// No note at the given path.
    NoteNotFound { path: String },
    /// The arguments do not fit the operation.
    InvalidArguments { detail: String },
}

impl OpError {
    /// A stable, machine-readable code.
    pub fn code(&self) -> ErrorCode {
        match self {
            OpError::NoteNotFound { .. } => ErrorCode::NoteNotFound,
            OpError::InvalidArguments { .. } => ErrorCode::InvalidArguments,
        }
    }

    pub fn message(&self) -> String {
        match self {
            OpError::NoteNotFound { path } => format!("there is no note at `{path}` in this vault"),
            OpError::InvalidArguments { detail } => format!("the arguments do not fit: {detail}"),
        }
    }

    /// What to do next.
    pub fn hint(&self) -> &'static str {
        match self {
            OpError::NoteNotFound { .. } => {
                "Give the note's path relative to the vault root, such as `Folder/Note.md` (the `.md` may be left out; case does not matter). Call list_notes to see the paths."
            }
            OpError::InvalidArguments { .. } => {
                "Check the tool's input schema: every required parameter present, no unknown ones, and a cursor only as a previous answer gave it."
            }
        }
    }

    /// True when the same call may succeed later without any change.
    pub fn retryable(&self) -> bool {
        false
    }
}

impl std::fmt::Display for OpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for OpError {}
