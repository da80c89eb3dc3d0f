//! Why a move, a rewrite or a bulk move was refused, and how each refusal is worded: its error
//! code, its message and the hint that says what to do. Its own module, so that the planners
//! (`rename`, `link_rewrite`), the name checks (`names`) and the tools that carry their plans out
//! take it without importing each other.

use crate::error::{ErrorCode, Failure};

/// Why a move was refused. Nothing is planned and nothing changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MoveError {
    NotFound {
        path: String,
    },
    InvalidName {
        name: String,
        characters: String,
    },
    DestinationExists {
        path: String,
    },
    IntoItself {
        from: String,
        to: String,
    },
    UnrepresentableLink {
        note: String,
        line: u32,
        link: String,
        reason: String,
    },
    /// The edge did not supply the text of a note the plan needs.
    MissingText {
        path: String,
    },
    /// A note's text no longer matches what the index parsed.
    StaleIndex {
        path: String,
    },
    /// The destination is no place for a file of the vault: empty, or in a folder Obsidian
    /// does not index (the trash, the config folder, vaultlink's own, any hidden folder).
    InvalidDestination {
        to: String,
        reason: String,
    },
    /// A folder of the destination is spelt like a folder of the vault but for case or Unicode
    /// normalization: on a case-sensitive disk it would be a second folder beside that one,
    /// on a case-insensitive one the same folder, so it is refused as a file of such a name is.
    FolderSpeltOtherwise {
        asked: String,
        existing: String,
    },
    /// `from` and `to` name the same file: there is nothing to move.
    SamePath {
        path: String,
    },
    /// The arguments of a rewrite cannot make one: an empty target, the same target twice, or
    /// a target too long to be a path.
    InvalidRewrite {
        detail: String,
    },
    /// The moves of a bulk move cannot be one batch: none, a file moved twice, two files to one
    /// place, or a cycle of names.
    InvalidBulk {
        detail: String,
    },
    /// The plan's new link text would pass [`MAX_PLAN_TEXT_BYTES`](crate::plan::MAX_PLAN_TEXT_BYTES): refused as it is made.
    PlanTooLarge {
        detail: String,
    },
}

impl Failure for MoveError {
    fn code(&self) -> ErrorCode {
        match self {
            MoveError::NotFound { .. } => ErrorCode::NoteNotFound,
            MoveError::InvalidName { .. } => ErrorCode::InvalidName,
            MoveError::DestinationExists { .. } | MoveError::FolderSpeltOtherwise { .. } => ErrorCode::DestinationExists,
            MoveError::IntoItself { .. } => ErrorCode::InvalidPath,
            MoveError::UnrepresentableLink { .. } => ErrorCode::UnrepresentableLink,
            MoveError::MissingText { .. } => ErrorCode::InvalidArguments,
            MoveError::StaleIndex { .. } => ErrorCode::ConcurrentModification,
            MoveError::InvalidDestination { .. } => ErrorCode::InvalidPath,
            MoveError::SamePath { .. } => ErrorCode::InvalidArguments,
            MoveError::InvalidRewrite { .. } => ErrorCode::InvalidArguments,
            MoveError::InvalidBulk { .. } => ErrorCode::InvalidArguments,
            MoveError::PlanTooLarge { .. } => ErrorCode::TooLarge,
        }
    }

    fn message(&self) -> String {
        match self {
            MoveError::NotFound { path } => format!("there is no file or folder at `{path}` in this vault"),
            MoveError::InvalidName { name, characters } => {
                format!("`{name}` cannot be a file's name in a vault: it holds {characters}")
            }
            MoveError::DestinationExists { path } => format!("`{path}` already exists"),
            MoveError::FolderSpeltOtherwise { asked, existing } => format!(
                "the folder `{asked}` is the vault's folder `{existing}` spelt otherwise (in case or Unicode normalization): on a case-sensitive disk it would be a second folder beside it; nothing was changed"
            ),
            MoveError::IntoItself { from, to } => format!("`{from}` cannot move into itself (`{to}`)"),
            MoveError::UnrepresentableLink { note, line, link, reason } => {
                format!("the link `{link}` in `{note}` (line {line}) cannot be rewritten: {reason}")
            }
            MoveError::MissingText { path } => format!("the plan needs the text of `{path}`"),
            MoveError::StaleIndex { path } => format!("`{path}` changed since it was indexed"),
            MoveError::InvalidDestination { to, reason } => {
                format!("the destination `to` {to:?} is not a place for a file of the vault: {reason}; nothing was changed")
            }
            MoveError::SamePath { path } => format!("`from` and `to` both name `{path}`: there is nothing to move"),
            MoveError::InvalidRewrite { detail } => format!("{detail}; nothing was planned"),
            MoveError::InvalidBulk { detail } => format!("{detail}; nothing was planned"),
            MoveError::PlanTooLarge { detail } => format!("{detail}; nothing was planned"),
        }
    }

    fn hint(&self) -> &'static str {
        match self {
            MoveError::NotFound { .. } => "Give the path relative to the vault root; call list_notes to see the paths.",
            MoveError::InvalidName { .. } => {
                "Choose a name without [ ] # ^ | : \\ * \" < > ? %% or control characters, not ending with a space or a dot, not a name Windows keeps for a device (CON, PRN, AUX, NUL, COM1-9, LPT1-9), and short enough (a file's name at most 227 bytes, a folder's 255)."
            }
            MoveError::DestinationExists { .. } => "Choose another destination, or move or delete the file that is there first.",
            MoveError::FolderSpeltOtherwise { .. } => {
                "Spell the folder as the vault does (list_notes shows its paths), or choose a folder of another name; to rename that folder, move it."
            }
            MoveError::IntoItself { .. } => "Choose a destination outside the folder being moved.",
            MoveError::UnrepresentableLink { .. } => {
                "Nothing was changed. Rename the note that link points to, or edit that link by hand, then try again."
            }
            MoveError::MissingText { .. } => "Read every note that notes_to_read names and pass its text.",
            MoveError::StaleIndex { .. } => "Nothing was changed. Let the index catch up with the edit, then plan again.",
            MoveError::InvalidDestination { .. } => {
                "Choose a destination in a visible folder of the vault. To delete a note, use delete_note: it moves the note to the trash after showing what links to it."
            }
            MoveError::SamePath { .. } => "Give a `to` that differs from `from` (a change of case alone is a rename).",
            MoveError::InvalidRewrite { .. } => {
                "Give `from_target` as the links write it (find_unresolved_links lists them) and a different, non-empty `to_target`."
            }
            MoveError::InvalidBulk { .. } => {
                "Move each file once, each to its own place; to swap two names, move one of them to a free name first, in a batch of its own."
            }
            MoveError::PlanTooLarge { .. } => {
                "Nothing was changed. Choose a shorter path or target (the links' new text is what grows), or make the change in several smaller ones (a folder's notes in parts, a rewrite note by note)."
            }
        }
    }

    /// True when the same call may succeed later without any change.
    fn retryable(&self) -> bool {
        matches!(self, MoveError::StaleIndex { .. })
    }
}

impl std::fmt::Display for MoveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for MoveError {}
