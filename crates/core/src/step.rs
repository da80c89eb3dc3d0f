//! What carrying out a change can end with, worded once for both edges: the sidecar (on the
//! folder) and the plugin (through the Vault API, by way of wasm) observe these while they carry
//! out core's steps, and report them with the same code, sentence and hint.

use serde::Deserialize;

use crate::error::{CallError, ErrorCode};

/// A change that could not be carried out, as the edge observed it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StepError {
    /// A note no longer holds the text the plan was proven on (found before the first change or
    /// while writing); everything the batch did is undone, and the edit is kept.
    Changed { path: String },
    /// A step failed (`what` says which, and why); every change made so far was undone.
    Failed { what: String },
    /// A step failed because something is at `path` now (`EEXIST`: another program made a file
    /// or folder there after the plan was checked, and no step replaces anything); every change
    /// made so far was undone, and what is there was kept.
    Taken { what: String, path: String },
    /// A step failed, and undoing it failed in part too: `left` names what is left.
    UndoIncomplete { what: String, left: String },
    /// A delete's note changed between the read and the move to the trash.
    ChangedBeforeTrash { path: String },
    /// Moving a note to the trash failed; nothing was deleted.
    TrashFailed { path: String, why: String },
    /// A path the change touches is reached through a symbolic link or junction (`link`), which
    /// may lead out of the vault; found before the first step, so nothing was changed.
    ThroughLink { path: String, link: String },
    /// A journal of a live process is there: another change is being applied.
    InProgress { tool: String, pid: u32 },
    /// A journal too young to be read whole is there: another change is starting.
    Starting,
    /// The journal of a process that is gone is there: an earlier change was interrupted.
    /// `vault` is the vault folder as the user would type it.
    Interrupted { tool: String, pid: u32, vault: String },
    /// A journal vaultlink may not act on is there (`reason`); `journal` names the file.
    Untrusted { reason: String, journal: String },
    /// The journal went away while it was being looked at: a change was just applied.
    JustApplied,
    /// The journal could not be written (`why`); `journal` names the file.
    JournalUnwritable { journal: String, why: String },
    /// The batch's journal would be `bytes` bytes, more than `journal::MAX_FILE_BYTES`, so it
    /// could not be read back to undo the batch: refused before its first change.
    JournalTooLarge { bytes: u64 },
    /// Another process's change (`tool` by process `pid`, when its journal could be read) was
    /// still being made after `waited_s` seconds of waiting, so the vault was not read: a call
    /// never answers from a change half made.
    Busy { tool: Option<String>, pid: Option<u32>, waited_s: u64 },
    /// A note the change must read or rewrite is not UTF-8 text: read, its other bytes would
    /// become U+FFFD, and written back, they would be lost.
    NotUtf8 { path: String },
    /// A note the change must rewrite is one file under `links` names (a hard link): the new
    /// text goes to a new file, which would leave the other names with the old text.
    HardLinked { path: String, links: u64 },
}

const RECOVER_HINT: &str = "Run `vaultlink recover <vault folder>` to undo the rest from the journal the change left in .vaultlink (or put the files named here right by hand), then preview the change again.";
const WAIT_HINT: &str = "Wait for it to finish, then preview the change again.";
const PERMISSIONS_HINT: &str = "Check the vault folder's permissions and free space, then try again.";

impl StepError {
    pub fn error(&self) -> CallError {
        use ErrorCode::*;
        match self {
            StepError::Changed { path } => CallError::new(
                ConcurrentModification,
                format!("`{path}` changed after the plan was made; nothing was changed"),
                "Preview the move again (dry run) and approve the new plan.",
                true,
            ),
            StepError::Failed { what } => CallError::new(WriteFailed, format!("{what}; every change made so far was undone"), PERMISSIONS_HINT, true),
            StepError::Taken { what, path } => CallError::new(
                DestinationExists,
                format!("{what}: `{path}` is taken by a file or folder the plan did not expect (another program may have made it since the plan); it was kept, not replaced, and every change made so far was undone"),
                "Look at what is there now: choose another name (or folder) for the change, or move or delete what is there; then preview the change again.",
                false,
            ),
            StepError::UndoIncomplete { what, left } => CallError::new(
                WriteFailed,
                format!("{what}; undoing the changes made so far failed in part: {left}"),
                RECOVER_HINT,
                false,
            ),
            StepError::ChangedBeforeTrash { path } => CallError::new(
                ConcurrentModification,
                format!("`{path}` changed while it was being deleted; nothing was deleted"),
                "Preview the delete again, then confirm.",
                true,
            ),
            StepError::TrashFailed { path, why } => CallError::new(
                WriteFailed,
                format!("moving `{path}` to the trash failed ({why}); nothing was deleted"),
                "Check the vault folder's permissions, then try again.",
                true,
            ),
            StepError::ThroughLink { path, link } => CallError::new(
                InvalidPath,
                format!("`{path}` goes through `{link}`, a symbolic link or junction, which may lead out of the vault; nothing was changed"),
                "vaultlink never creates, writes, moves or deletes anything through a symbolic link. Choose a path in a real folder of the vault, or replace the link by the folder it points to, then call again.",
                false,
            ),
            StepError::InProgress { tool, pid } => CallError::new(
                ChangeInProgress,
                format!("another change to this vault is being applied ({tool} by process {pid}); nothing was changed"),
                WAIT_HINT,
                true,
            ),
            StepError::Starting => CallError::new(
                ChangeInProgress,
                "another change to this vault is starting (its journal is being written); nothing was changed",
                WAIT_HINT,
                true,
            ),
            StepError::Interrupted { tool, pid, vault } => CallError::new(
                InterruptedChange,
                format!("an earlier change to this vault was interrupted ({tool} by process {pid}) and is not undone yet; nothing was changed"),
                format!("Run `vaultlink recover {vault}` (the sidecar also does it by itself before it next reads the vault), then preview the change again."),
                true,
            ),
            StepError::Untrusted { reason, journal } => CallError::new(
                InterruptedChange,
                format!("{reason}; while it is there no change is made, and nothing was changed"),
                untrusted_hint(journal),
                false,
            ),
            StepError::JustApplied => {
                CallError::new(ChangeInProgress, "another change to this vault was just applied; nothing was changed", "Preview the change again.", true)
            }
            StepError::Busy { tool, pid, waited_s } => {
                let who = match (tool, pid) {
                    (Some(tool), Some(pid)) => format!("{tool} by process {pid}"),
                    _ => "its journal is still being written".to_owned(),
                };
                CallError::new(
                    ChangeInProgress,
                    format!("another change to this vault ({who}) was still being made after {waited_s} s of waiting; the vault was not read, so that no answer comes from a change half made"),
                    "Call again in a moment, once that change is made; if it never ends, the process making it is stuck: stop it, then call again (the next call undoes what it left half made).",
                    true,
                )
            }
            StepError::NotUtf8 { path } => CallError::new(
                UnwritableNote,
                format!("`{path}` is not UTF-8 text (some of its bytes are in another encoding), and the change must read or rewrite it: rewritten, those bytes would be lost; nothing was changed"),
                "Convert the note to UTF-8 (for example `iconv -f <its encoding> -t UTF-8`, or re-save it as UTF-8 in an editor), or change its links by hand; then preview the change again.",
                false,
            ),
            StepError::HardLinked { path, links } => CallError::new(
                UnwritableNote,
                format!("`{path}` is one file under {links} names (a hard link), and the change must rewrite it: the rewrite would split it, leaving the other names with the old text; nothing was changed"),
                "Replace the other names by copies of the file (or remove them), or change its links by hand; then preview the change again.",
                false,
            ),
            StepError::JournalUnwritable { journal, why } => {
                CallError::new(WriteFailed, format!("writing the journal {journal} failed ({why}); nothing was changed"), PERMISSIONS_HINT, true)
            }
            StepError::JournalTooLarge { bytes } => CallError::new(
                TooLarge,
                format!(
                    "the change's journal (the text from before the change of every note it rewrites) would be {bytes} bytes, over the {} bytes a journal may have; nothing was changed",
                    crate::journal::MAX_FILE_BYTES
                ),
                "Make the change in smaller steps (a bulk move in several calls, or a rewrite of fewer links).",
                false,
            ),
        }
    }
}

/// What to do about a journal that is not acted on; `journal` names the file.
pub fn untrusted_hint(journal: &str) -> String {
    format!(
        "vaultlink undoes only a journal it wrote itself, for this user on this machine. If a change was interrupted on another machine, run `vaultlink recover` there and let the vault sync; otherwise look at {journal} and delete it. Then try again."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_step_error_has_its_code_and_says_what_was_kept() {
        let changed = StepError::Changed { path: "B.md".to_owned() }.error();
        assert_eq!(
            (changed.code, changed.message.as_str()),
            (ErrorCode::ConcurrentModification, "`B.md` changed after the plan was made; nothing was changed")
        );
        let left =
            StepError::UndoIncomplete { what: "writing C.md failed: disk full".to_owned(), left: "C.md could not be restored".to_owned() }
                .error();
        assert!(!left.retryable && left.hint.contains("vaultlink recover"), "{left:?}");
        let interrupted = StepError::Interrupted { tool: "rewrite_link".to_owned(), pid: 7, vault: "/v".to_owned() }.error();
        assert!(interrupted.message.contains("rewrite_link by process 7") && interrupted.hint.contains("vaultlink recover /v"));
        let parsed: StepError =
            serde_json::from_value(serde_json::json!({"kind": "trash_failed", "path": "A.md", "why": "ENOSPC"})).unwrap();
        assert_eq!(parsed.error().message, "moving `A.md` to the trash failed (ENOSPC); nothing was deleted");
        // Issue 21: a note in another encoding was answered `concurrent_modification`, retryable,
        // so an agent tried again for ever; it is refused once, saying what to do.
        let parsed: StepError = serde_json::from_value(serde_json::json!({"kind": "not_utf8", "path": "Latin1.md"})).unwrap();
        let not_utf8 = parsed.error();
        assert_eq!(not_utf8.code, ErrorCode::UnwritableNote);
        assert!(
            !not_utf8.retryable
                && not_utf8.message.contains("`Latin1.md` is not UTF-8")
                && not_utf8.hint.contains("Convert the note to UTF-8")
        );
        // Issue 34: a name taken meanwhile (EEXIST) was told to check the folder's permissions.
        let parsed: StepError =
            serde_json::from_value(serde_json::json!({"kind": "taken", "what": "moving Old.md failed", "path": "New.md"})).unwrap();
        let taken = parsed.error();
        assert_eq!(taken.code, ErrorCode::DestinationExists);
        assert!(taken.message.starts_with("moving Old.md failed: `New.md` is taken") && taken.message.contains("undone"), "{taken:?}");
        assert!(!taken.hint.contains("permission") && taken.hint.contains("choose another name"), "{taken:?}");
        let linked = StepError::HardLinked { path: "A.md".to_owned(), links: 2 }.error();
        assert!(!linked.retryable && linked.message.contains("one file under 2 names"), "{linked:?}");
    }
}
