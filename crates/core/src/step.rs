//! What carrying out a change can end with, worded once for both edges: the sidecar (on the
//! folder) and the plugin (through the Vault API, by way of wasm) observe these while they carry
//! out core's steps, and report them with the same code, sentence and hint.

use serde::{Deserialize, Serialize};

use crate::error::{CallError, ErrorCode};
use crate::rename::TextEdit;

/// A note the undo of a failed change left as it found it, and where its text from before is.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct KeptNote {
    pub path: String,
    pub saved: String,
}

/// A change that could not be carried out, as the edge observed it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StepError {
    /// A note no longer holds the text the plan was proven on (found before the first change or
    /// while writing); everything the batch did is undone, and the edit is kept.
    Changed { path: String },
    /// A note the batch rewrote was saved by another program before the commit (an editor
    /// reloading it from disk, an appender), and the batch undone around it; the save is kept,
    /// with the batch's rewrite in it taken back ([`saved_over`]'s `PutBack`).
    SavedOverPutBack { path: String },
    /// As `SavedOverPutBack`, but the save touched what the batch rewrote, so the save is kept as
    /// it is, and `links` in it still read as the batch wrote them, though the undo took their
    /// files back ([`saved_over`]'s `Leave`).
    SavedOverLeft { path: String, links: Vec<String> },
    /// A file the batch created was saved over before the commit: the batch was undone around
    /// it, and the file keeps the save.
    CreatedSavedOver { path: String },
    /// A step failed (`what` says which, and why); every change made so far was undone.
    Failed { what: String },
    /// A step failed because something is at `path` now (`EEXIST`: another program made a file
    /// or folder there after the plan was checked, and no step replaces anything); every change
    /// made so far was undone, and what is there was kept.
    Taken { what: String, path: String },
    /// A step failed; the undo put everything back but the notes in `kept`, each `{path, saved}`:
    /// the note held text that was neither its text from before nor the change's (a write torn
    /// part way by a full disk, or a save made meanwhile), so it keeps that text, and its text from
    /// before the change was saved at `saved` (under `.vaultlink/recovered/`).
    FailedKept { what: String, kept: Vec<KeptNote> },
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
    /// An undo of a kept change (`forget`, the kept change's file) found a page it removes saved
    /// over since the plan (`path`): the undo was undone, and is refused as an undo of an edited
    /// change is, on both edges alike.
    UndoEdited { forget: Option<String>, path: String },
    /// The change stopped before a step because its lease on the vault lapsed (`lease`): its
    /// process could not renew it in time (it was suspended, or starved), so another process may
    /// have taken it for interrupted. `taken`: another process did, and undid the change;
    /// otherwise this one undid it.
    LeaseLost { taken: bool },
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
            StepError::SavedOverPutBack { path } => CallError::new(
                ConcurrentModification,
                format!("`{path}` was saved by another program while the change was being written; the change was undone, and the save kept in `{path}` with the links the change had rewritten in it put back as they were"),
                "Preview the change again (dry run) and approve the new plan.",
                true,
            ),
            StepError::SavedOverLeft { path, links } if links.is_empty() => CallError::new(
                ConcurrentModification,
                format!("`{path}` was saved by another program over the change's rewrite while it was being written; the change was undone, and `{path}` keeps the save, which no longer holds the links the change rewrote"),
                "Read the note to check it, then preview the change again (dry run) and approve the new plan.",
                true,
            ),
            StepError::SavedOverLeft { path, links } => CallError::new(
                ConcurrentModification,
                format!(
                    "`{path}` was saved by another program over the change's rewrite while it was being written; the change was undone, but `{path}` keeps the save, in which {} still read as the change wrote them, for files the undo put back where they were",
                    links.join(", ")
                ),
                "Put those links back by hand (or with rewrite_link), or preview the change again and apply it: its files then have the names the links use.",
                false,
            ),
            StepError::CreatedSavedOver { path } => CallError::new(
                ConcurrentModification,
                format!("`{path}`, which the change created, was saved by another program while the change was being written; the change was undone but for `{path}`, which keeps the save"),
                "Read the file, and remove it if it is not wanted; then preview the change again.",
                true,
            ),
            StepError::Failed { what } => CallError::new(WriteFailed, format!("{what}; every change made so far was undone"), PERMISSIONS_HINT, true),
            StepError::FailedKept { what, kept } => CallError::new(
                WriteFailed,
                format!(
                    "{what}; every other change made so far was undone, but {}",
                    kept.iter()
                        .map(|note| format!(
                            "`{}` holds text that is neither its text from before nor the change's (a write torn part way, or a save made meanwhile), so it was left as it is, and its text from before the change is in `{}`",
                            note.path, note.saved
                        ))
                        .collect::<Vec<_>>()
                        .join("; ")
                ),
                "Read each note named here and compare it with the text kept for it; put back the one you want (the kept text is the note as it was before the change), then check the folder's free space and preview the change again.",
                false,
            ),
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
            StepError::LeaseLost { taken } => CallError::new(
                WriteFailed,
                if *taken {
                    "the change stopped: its process could not renew its lease on the vault in time (it was suspended or starved), and another process took it for interrupted and undid it; what this process made after that was undone too".to_owned()
                } else {
                    "the change stopped: its process could not renew its lease on the vault in time (it was suspended or starved), so another process could have taken it for interrupted; every change made so far was undone".to_owned()
                },
                "Preview the change again (dry run) and approve the new plan.",
                true,
            ),
            StepError::UndoEdited { forget, path } => {
                // The kept change's name is `<folder>/<ms>-<change_id>.json`.
                let change_id = forget
                    .as_deref()
                    .and_then(|name| name.rsplit('/').next())
                    .and_then(|name| name.strip_suffix(".json"))
                    .and_then(|name| name.split_once('-'))
                    .map(|(_, id)| id.to_owned())
                    .unwrap_or_default();
                CallError::of(&crate::history::UndoError::Edited { change_id, notes: vec![path.clone()] })
            }
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

/// What an edge does about a note that the batch rewrote from `before` to `written`, and that
/// another program saved as `saved` before the commit, once the batch is undone around it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SavedOver {
    /// The save left the batch's rewrite intact: `text` is the save with that rewrite taken
    /// back, which the edge writes in place of the save (only while the note still holds the
    /// save); then the call ends with [`StepError::SavedOverPutBack`].
    PutBack { text: String },
    /// The save touched the rewrite: the edge leaves the note as saved, and the call ends with
    /// [`StepError::SavedOverLeft`] naming `links`, the rewritten links the save still holds.
    Leave { links: Vec<String> },
}

/// Decides [`SavedOver`]. The batch's rewrite is its `edits` of the note (each a span of
/// `written` and the text of `before` it replaced; with none, the one span where `before` and
/// `written` differ), the save's the one span where `written` and `saved` differ. When no edit
/// meets or touches the save's span, each lies intact in the save, before it (at the same offset) or after
/// it (shifted by what the save added), and only there: each is put back at its place.
/// Otherwise the save is left, and `path` (for the parse) names the note whose rewritten links
/// it still holds.
pub fn saved_over(path: &str, before: &str, written: &str, saved: &str, edits: &[TextEdit]) -> SavedOver {
    let rewrites = rewritten_spans(before, written, edits);
    let save = differing_span(written, saved);
    let (save_start, save_end) = (save.0, written.len() - save.1);
    let mut text = String::with_capacity(saved.len() + before.len().saturating_sub(written.len()));
    let mut at = 0;
    for (span, old) in &rewrites {
        // A save that touches an edit (typed right after a rewritten target) may have changed
        // that link: only a save apart from it leaves it intact.
        let mapped = if span.end < save_start {
            span.start
        } else if span.start > save_end {
            span.start + saved.len() - written.len()
        } else {
            return SavedOver::Leave { links: links_left(path, before, written, saved, edits) };
        };
        text.push_str(&saved[at..mapped]);
        text.push_str(old);
        at = mapped + span.len();
    }
    text.push_str(&saved[at..]);
    SavedOver::PutBack { text }
}

/// The links the batch rewrote (those of `written` that meet one of its edits) that `now`, the
/// note as another program saved it, still holds as written.
pub fn links_left(path: &str, before: &str, written: &str, now: &str, edits: &[TextEdit]) -> Vec<String> {
    let rewrites = rewritten_spans(before, written, edits);
    let mut links: Vec<String> = crate::canvas::parse_file(path, written, &crate::parse::ParseConfig::OBSIDIAN)
        .links
        .iter()
        .filter(|link| rewrites.iter().any(|(span, _)| link.span.start < span.end && span.start < link.span.end))
        .map(|link| written[link.span.range()].to_owned())
        .filter(|link| now.contains(link.as_str()))
        .collect();
    links.dedup();
    links
}

/// Each span of `written` the batch wrote, with the text of `before` it replaced, in order: from
/// `edits` when they are the ones that made `written` from `before`, else the one span where the
/// two differ.
fn rewritten_spans<'t>(before: &'t str, written: &str, edits: &[TextEdit]) -> Vec<(std::ops::Range<usize>, &'t str)> {
    let mut spans = Vec::with_capacity(edits.len());
    let (mut shift, mut previous_end) = (0isize, 0);
    for edit in edits {
        let (start, end) = (edit.span.start, edit.span.end);
        let fits_before = previous_end <= start && start <= end && before.get(start..end).is_some();
        let at = start.checked_add_signed(shift);
        let fits_written = at.is_some_and(|at| written.get(at..at + edit.replacement.len()) == Some(edit.replacement.as_str()));
        let (true, true, Some(at)) = (fits_before, fits_written, at) else { return whole_span(before, written) };
        spans.push((at..at + edit.replacement.len(), &before[start..end]));
        shift += edit.replacement.len() as isize - (end - start) as isize;
        previous_end = end;
    }
    if spans.is_empty() || before.len().checked_add_signed(shift) != Some(written.len()) {
        return whole_span(before, written);
    }
    spans
}

/// The one span where `before` and `written` differ, as [`rewritten_spans`] gives it.
fn whole_span<'t>(before: &'t str, written: &str) -> Vec<(std::ops::Range<usize>, &'t str)> {
    let (prefix, suffix) = differing_span(before, written);
    vec![(prefix..written.len() - suffix, &before[prefix..before.len() - suffix])]
}

/// The bytes at the start and at the end that `a` and `b` share, at character boundaries, the
/// two not overlapping in either text.
fn differing_span(a: &str, b: &str) -> (usize, usize) {
    let mut prefix = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !a.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let room = a.len().min(b.len()) - prefix;
    let mut suffix = a.bytes().rev().zip(b.bytes().rev()).take(room).take_while(|(x, y)| x == y).count();
    while !a.is_char_boundary(a.len() - suffix) || !b.is_char_boundary(b.len() - suffix) {
        suffix -= 1;
    }
    (prefix, suffix)
}

/// What to do about a journal that is not acted on; `journal` names the file.
pub fn untrusted_hint(journal: &str) -> String {
    format!(
        "vaultlink undoes only a journal sealed with this copy of the vault's own key, which a copy, a sync or a clone never carries. If a change was interrupted in another copy or on another machine, run `vaultlink recover` there and let the vault sync; otherwise look at {journal} and delete it. Then try again."
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
        // A write torn part way cannot be told from a save: the note keeps what is there, and
        // the answer says so rather than that everything was undone.
        let kept: StepError = serde_json::from_value(serde_json::json!({"kind": "failed_kept", "what": "writing C.md failed: ENOSPC",
            "kept": [{"path": "C.md", "saved": ".vaultlink/recovered/C.md"}]}))
        .unwrap();
        let kept = kept.error();
        assert_eq!(kept.code, ErrorCode::WriteFailed);
        assert!(!kept.retryable && !kept.message.contains("every change made so far was undone"), "{kept:?}");
        assert!(kept.message.contains("`C.md` holds text") && kept.message.contains("`.vaultlink/recovered/C.md`"), "{kept:?}");
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

    /// Reported in issue 34: a note the batch rewrote was saved by another program before the
    /// commit, and the answer said "nothing was changed" while the note kept the new link. The
    /// rewrite is put back in the save where the save left it intact, else the links it holds
    /// are named.
    #[test]
    fn a_save_over_a_rewrite_keeps_the_save_and_puts_the_rewrite_back_where_it_is_intact() {
        let check = |before: &str, written: &str, saved: &str, expected: SavedOver| {
            assert_eq!(saved_over("C.md", before, written, saved, &[]), expected, "{saved:?}");
        };
        let put_back = |text: &str| SavedOver::PutBack { text: text.to_owned() };
        let before = "# C\nSee [[A]] and [[A#Part|a part]].\n\nMore.\n";
        let written = "# C\nSee [[Sub/Renamed]] and [[Sub/Renamed#Part|a part]].\n\nMore.\n";
        // An appender, an editor reloading and typing above, one typing below: the rewrite is
        // intact, before or after the save.
        check(before, written, &format!("{written}appended\n"), put_back(&format!("{before}appended\n")));
        check(before, written, &format!("typed é\n{written}"), put_back(&format!("typed é\n{before}")));
        check(before, written, &written.replace("More.", "More and more."), put_back(&before.replace("More.", "More and more.")));
        check(before, written, written, put_back(before));
        // A save inside the rewrite: left, naming the rewritten links it still holds.
        let inside = written.replace(" and [[Sub", " and, typed, [[Sub");
        check(
            before,
            written,
            &inside,
            SavedOver::Leave { links: vec!["[[Sub/Renamed]]".to_owned(), "[[Sub/Renamed#Part|a part]]".to_owned()] },
        );
        let gone = "# C\nSee nothing.\n\nMore.\n";
        check(before, written, gone, SavedOver::Leave { links: Vec::new() });
        // With the batch's edits, each rewritten link is its own span: a save typed between
        // two of them leaves both intact. A save inside one leaves the note as saved.
        let edit = |start: usize, end: usize| TextEdit { span: crate::span::Span { start, end }, replacement: "Sub/Renamed".to_owned() };
        let edits = [edit(10, 11), edit(20, 21)];
        assert_eq!(crate::rename::apply_edits(before, &edits), written);
        let between = written.replace(" and [[Sub", " and, typed, [[Sub");
        let saved_over_edits = |saved: &str| saved_over("C.md", before, written, saved, &edits);
        assert_eq!(saved_over_edits(&between), put_back(&before.replace(" and [[A", " and, typed, [[A")));
        let inside = written.replace("[[Sub/Renamed#Part", "[[Sub/Renamed and more#Part");
        assert_eq!(saved_over_edits(&inside), SavedOver::Leave { links: vec!["[[Sub/Renamed]]".to_owned()] });
        // Edits that did not make the written text are not trusted: the one span is used.
        let wrong = [edit(0, 1)];
        assert_eq!(saved_over("C.md", before, written, &format!("{written}x"), &wrong), put_back(&format!("{before}x")));
        // Worded for the agent: what was kept, and that the vault is not as before.
        let left = StepError::SavedOverLeft { path: "C.md".to_owned(), links: vec!["[[Sub/Renamed]]".to_owned()] }.error();
        assert!(
            left.message.contains("[[Sub/Renamed]] still read as the change wrote them") && !left.message.contains("nothing was changed"),
            "{}",
            left.message
        );
        let parsed: StepError = serde_json::from_value(serde_json::json!({"kind": "saved_over_put_back", "path": "C.md"})).unwrap();
        assert!(parsed.error().message.contains("the save kept in `C.md` with the links the change had rewritten in it put back"));
    }
}
