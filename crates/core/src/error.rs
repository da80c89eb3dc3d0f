//! Every error code a call can end with, one closed list for the whole engine: core's errors,
//! the sidecar's and the plugin's name their code from here (the plugin through the generated
//! `plugin/error-codes.ts`), and the README's table and the MCP catalogue describe these and no
//! others.

use serde::{Deserialize, Serialize};

macro_rules! codes {
    ($($variant:ident = $code:literal: $meaning:literal,)*) => {
        /// A stable, machine-readable reason a call failed; agents act on it.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum ErrorCode {
            $(#[doc = $meaning] $variant,)*
        }

        impl ErrorCode {
            /// Every code, in the order of the README's table.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)*];

            pub const fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $code,)*
                }
            }

            /// When a call ends with this code, as the README's table says it.
            pub const fn meaning(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $meaning,)*
                }
            }
        }
    };
}

codes! {
    InvalidArguments = "invalid_arguments": "The arguments do not fit the tool's input schema or a rule between parameters; the message names the parameter.",
    InvalidPath = "invalid_path": "A path leaves the vault (absolute, `~`, `..`, `%2e%2e`, a NUL byte, a symbolic link out), or names a folder or attachment where a note is needed, or moves a folder into itself.",
    InvalidName = "invalid_name": "A new name holds a character Obsidian or Windows refuses in names ([ ] # ^ | : \\ * \" < > ? %% or a control character), ends with a space or a dot, is a name Windows keeps for a device (CON, NUL, COM1…), or is too long (a name over 255 bytes; a file's name over 227, which leaves room for the engine's temporary names beside it).",
    NoteNotFound = "note_not_found": "No note (or file) has the given path.",
    DestinationExists = "destination_exists": "A move's destination is taken.",
    UnrepresentableLink = "unrepresentable_link": "Some link could not be written so that it keeps its target; nothing changed.",
    BreaksLinks = "breaks_links": "A rewrite would leave links that find a note today finding none (`to_target` finds no note from where they are); the message says how many and names one; nothing changed. Call again with `allow_unresolved: true` to repoint them anyway.",
    PlanHashMismatch = "plan_hash_mismatch": "The vault changed since the preview whose `plan_hash` was approved; nothing changed. Preview again.",
    AlreadyApplied = "already_applied": "The approved plan was applied already (the call is a retry, such as after a dropped connection): the change is made, and the message gives its `change_id`; nothing was written again.",
    ConcurrentModification = "concurrent_modification": "A note changed while a plan was applied; nothing changed. Preview again.",
    WriteFailed = "write_failed": "Writing to the vault failed (permissions, disk full); every change made was undone (or, if undoing failed too, the message says what is left and `vaultlink recover` finishes it).",
    InterruptedChange = "interrupted_change": "An earlier change was interrupted and is not undone yet; nothing changed. Run `vaultlink recover <vault>`.",
    ChangeInProgress = "change_in_progress": "Another process is applying a change to the vault; nothing changed. Try again when it is done.",
    RecoveryFailed = "recovery_failed": "Undoing an interrupted change failed (the message says which step); its journal is kept for another try.",
    PageRefused = "page_refused": "A new wiki page breaks a rule (a link that finds no note, a required property missing, a path taken, unlinkable or outside the wiki, a patched note changed since it was read, a SCHEMA.md convention marked `block`), or a property edit breaks a rule of the SCHEMA.md governing the note (a value outside its vocabulary, a type its folder does not allow); the message names every one; nothing changed.",
    DuplicatePage = "duplicate_page": "A new wiki page is known by a name (file name, alias, `title`, H1 or Wikidata item) of a note the vault already has, or its file name would change where links that find a note today lead; the message names the notes and links; nothing changed. `allow_duplicate: true` writes a second page on a topic deliberately (never one that changes links).",
    ReadOnlySource = "read_only_source": "A call would create, edit, move, rename or delete a file in a folder a SCHEMA.md declares under `source_folders` (a wiki's sources stay as captured); the message names each file; nothing changed.",
    NothingToUndo = "nothing_to_undo": "`undo_change` found no kept change (or none with the id given); nothing changed.",
    UndoRefused = "undo_refused": "A kept change cannot be undone: a note it touched was edited, moved or removed since, or (without `force`) notes link a page it would remove; the message names them; nothing changed.",
    HasBacklinks = "has_backlinks": "A confirmed `delete_note` of a note other notes link, without `force`; the message names the links; nothing changed. Repoint them, or confirm with `force: true` to leave them dangling.",
    UnwritableNote = "unwritable_note": "A note the change must read or rewrite cannot be rewritten without harm: its bytes are not UTF-8 text, or it is a hard link (one file under several names, which a rewrite would split), or its name leaves no room for the temporary name beside it (over 227 bytes), or its frontmatter is written so that the asked property cannot be edited alone (an anchor another entry uses); the message names it and what to do; nothing changed.",
    TooLarge = "too_large": "A note or a request is over a size limit; the message gives the limit.",
    VaultUnreadable = "vault_unreadable": "The vault folder could not be read (retryable), or, after a change was made whole, could not be read again (then the change is made: read, do not apply it again).",
    PluginUnavailable = "plugin_unavailable": "The Obsidian plugin is needed but not serving the vault (still indexing, off while Obsidian has the vault open, or out of reach from where the sidecar runs while the plugin's presence lease says Obsidian has the vault open: the hint says what to do), or went away during the call (retryable; nothing was written by the sidecar).",
    UnknownTool = "unknown_tool": "No tool has that name (only from the command line: over MCP it is a protocol error).",
    Cancelled = "cancelled": "The client cancelled the call (`notifications/cancelled`) and its work stopped; nothing was written.",
    Internal = "internal": "A bug in vaultlink; report it.",
    ConventionBlocked = "convention_blocked": "A move or a link rewrite would add a finding of a lint rule that the SCHEMA.md governing a note it writes marks `severity: block` under `conventions`; the message names the rule and the note; nothing changed.",
}

/// What every error of core's operations answers with: a stable code from the closed list, a
/// sentence, what to do next, and whether the same call may succeed later without any change.
/// The edges turn any of them into their own error in one place each (the sidecar's
/// `ToolError::of`, the wasm crate's `ErrorBody::of`).
pub trait Failure {
    fn code(&self) -> ErrorCode;
    fn message(&self) -> String;
    fn hint(&self) -> &'static str;
    fn retryable(&self) -> bool {
        false
    }
}

/// Any call's failure as plain data: the one error type every operation of `ops` ends with, and
/// what the edges turn into their own (an MCP tool error, a JavaScript object) in one place each.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct CallError {
    #[cfg_attr(feature = "typescript", ts(type = "ErrorCode"))]
    pub code: ErrorCode,
    pub message: String,
    pub hint: String,
    pub retryable: bool,
}

impl CallError {
    pub fn new(code: ErrorCode, message: impl Into<String>, hint: impl Into<String>, retryable: bool) -> CallError {
        CallError { code, message: message.into(), hint: hint.into(), retryable }
    }

    /// Any of core's typed errors, as a call's error.
    pub fn of(error: &impl Failure) -> CallError {
        CallError::new(error.code(), error.message(), error.hint(), error.retryable())
    }

    /// The edge had no text for a note an operation asked for: it was not read before the call
    /// (the vault changed between the edge's look and the call), so the call is worth repeating.
    pub fn not_supplied(path: &str) -> CallError {
        CallError::new(
            ErrorCode::ConcurrentModification,
            format!("`{path}` was not read for this call (the vault changed while it was being prepared); nothing was changed"),
            "Call again.",
            true,
        )
    }
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for CallError {}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for ErrorCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl AsRef<str> for ErrorCode {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

/// The TypeScript module the plugin takes the codes from (`plugin/error-codes.ts`), generated
/// from this list; a test keeps the file equal to it.
pub fn typescript_module() -> String {
    let mut out = String::from(
        "// Generated from crates/core/src/error.rs by its test `the_plugin_has_the_codes_of_core`\n// (VAULTLINK_UPDATE_SNAPSHOTS=1 cargo test -p vaultlink-core rewrites it). Do not edit.\n\n/** Every error code a call can end with, as core defines them. */\nexport const ErrorCode = {\n",
    );
    for code in ErrorCode::ALL {
        let name: String = code.as_str().split('_').map(|word| word[..1].to_uppercase() + &word[1..]).collect();
        out.push_str(&format!("\t{name}: \"{}\",\n", code.as_str()));
    }
    out.push_str("} as const;\n\nexport type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_snake_case_and_distinct() {
        let mut seen = std::collections::BTreeSet::new();
        for code in ErrorCode::ALL {
            assert!(code.as_str().bytes().all(|byte| byte.is_ascii_lowercase() || byte == b'_'), "{code}");
            assert!(seen.insert(code.as_str()), "{code} twice");
            assert_eq!(serde_json::to_value(code).ok(), Some(serde_json::Value::String(code.as_str().to_owned())));
        }
    }
}
