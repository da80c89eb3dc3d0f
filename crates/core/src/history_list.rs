//! `list_changes`: the changes kept for `undo_change` (`history`), newest first and paged, each
//! with what it touched and whether it can still be undone, so that an agent in a new session
//! chooses what to undo instead of undoing "the last" blind. It reads; it never changes the vault.
//!
//! Whether a change can be undone is the undo's own decision: each listed change is planned as
//! `undo_change` with its id would plan it (a dry run), from the vault as it is now, and the
//! refusal that plan meets is the reason given. Only the listed page is planned, so the notes an
//! edge reads first ([`notes_needed`]) are those of the page's changes.

use serde::{Deserialize, Serialize};

use crate::answer::{cursor_for, parse_cursor, OpError, ResponseFormat};
use crate::approval::PlanHistory;
use crate::edge::{Edge, KeptChange, UnopenedChange};
use crate::history::UndoArguments;
use crate::journal::WriteKind;
use crate::Vault;

/// The changes on a page when `limit` is left out.
pub const DEFAULT_CHANGES: usize = 10;
/// The most paths listed for one change; `paths_total` counts them all.
pub const PATHS_LISTED: usize = 10;

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListChangesArguments {
    #[serde(default)]
    pub limit: Option<usize>,
    #[serde(default)]
    pub cursor: Option<String>,
    #[serde(default)]
    pub response_format: ResponseFormat,
}

/// What a change touched: counts, and its paths (at most [`PATHS_LISTED`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Touched {
    /// Notes whose text it rewrote.
    pub rewritten: usize,
    /// Files it created.
    pub created: usize,
    /// Files it removed (a delete's note).
    pub removed: usize,
    /// Files it moved.
    pub moved: usize,
    /// The paths it wrote, created, removed or moved (where they were before it), at most
    /// [`PATHS_LISTED`].
    pub paths: Vec<String>,
    pub paths_total: usize,
}

/// One kept change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChangeEntry {
    /// What `undo_change` takes as `change_id`.
    pub change_id: String,
    /// The tool that made it.
    pub tool: String,
    /// When it was kept (applied), in milliseconds since the Unix epoch, and as UTC; left out
    /// for a file whose name gives no time before the year 10000.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub applied_unix_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub applied_at: Option<String>,
    /// Its main arguments, as far as the kept change shows them: the note a delete or a property
    /// edit named, the page a commit created, the files a move moved (at most [`PATHS_LISTED`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<serde_json::Value>,
    pub touched: Touched,
    /// True when `undo_change` with this id would undo it now.
    pub undoable: bool,
    /// Why it cannot be undone now, as `undo_change` would say it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why_not: Option<String>,
    /// True when undoing it removes a page that notes link since, which needs `force`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub needs_force: bool,
    /// True for the newest: the one `undo_change` without an id takes (and no other; when it
    /// cannot be undone, an undo without an id is refused).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub latest: bool,
}

/// What `list_changes` answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChangesList {
    /// How many changes are kept in all.
    pub total: usize,
    pub changes: Vec<ChangeEntry>,
    /// Present when more changes are kept: pass it as `cursor` for the next page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// A file of the kept changes' folder, as listed: a kept change, or one that cannot be opened.
#[derive(Clone, Copy)]
enum Listed<'a> {
    Kept(&'a KeptChange),
    Unopened(&'a UnopenedChange),
}

impl Listed<'_> {
    fn name(&self) -> &str {
        match self {
            Listed::Kept(kept) => &kept.name,
            Listed::Unopened(unopened) => &unopened.name,
        }
    }
}

/// Every file of the kept changes, newest first (their names sort oldest first).
fn newest_first<'a>(changes: &'a [KeptChange], unopened: &'a [UnopenedChange]) -> Vec<Listed<'a>> {
    let mut sorted: Vec<Listed<'a>> = changes.iter().map(Listed::Kept).chain(unopened.iter().map(Listed::Unopened)).collect();
    sorted.sort_by(|a, b| b.name().cmp(a.name()));
    sorted
}

/// What a cursor is bound to: the kept changes as they are now, so a change kept or forgotten
/// between pages refuses the cursor rather than skipping one.
fn scope(sorted: &[Listed<'_>]) -> String {
    let names: Vec<&str> = sorted.iter().map(Listed::name).collect();
    format!("list_changes\0{}", names.join("\0"))
}

/// The page's range of `sorted`, or why the arguments do not fit.
fn page(sorted: &[Listed<'_>], arguments: &ListChangesArguments) -> Result<std::ops::Range<usize>, OpError> {
    let start = parse_cursor(arguments.cursor.as_deref(), &scope(sorted), sorted.len())?;
    let limit = arguments.limit.unwrap_or(DEFAULT_CHANGES).max(1);
    Ok(start..sorted.len().min(start.saturating_add(limit)))
}

/// The notes the page's undo plans read: those `undo_change` with each change's id reads. The
/// edge has not said yet which files cannot be opened, so this reads for every kept change up to
/// the page's end, a few more than the page may need.
pub fn notes_needed(vault: &Vault, arguments: &ListChangesArguments, changes: &[KeptChange]) -> Vec<String> {
    let sorted = newest_first(changes, &[]);
    let start = parse_cursor(arguments.cursor.as_deref(), &scope(&sorted), sorted.len()).unwrap_or(0);
    let end = start.saturating_add(arguments.limit.unwrap_or(DEFAULT_CHANGES).max(1));
    let mut needed: Vec<String> = sorted
        .iter()
        .take(end)
        .filter_map(|listed| match listed {
            Listed::Kept(kept) => Some(*kept),
            Listed::Unopened(_) => None,
        })
        .flat_map(|kept| crate::history::notes_needed(vault, &undo_of(kept), std::slice::from_ref(kept)))
        .collect();
    needed.sort();
    needed.dedup();
    needed
}

fn undo_of(kept: &KeptChange) -> UndoArguments {
    UndoArguments {
        change_id: Some(kept.journal.change_id.clone()),
        dry_run: Some(true),
        approved_plan_hash: None,
        force: false,
        response_format: ResponseFormat::Concise,
        limit: None,
        cursor: None,
    }
}

/// `list_changes`.
pub fn list_changes(vault: &Vault, arguments: &ListChangesArguments, edge: &mut dyn Edge) -> Result<ChangesList, OpError> {
    let changes = edge.changes();
    let unopened = edge.unopened_changes();
    let sorted = newest_first(&changes, &unopened);
    let range = page(&sorted, arguments)?;
    let next_cursor = (range.end < sorted.len()).then(|| cursor_for(&scope(&sorted), sorted.len(), range.end));
    let mut listed = Vec::new();
    for (at, item) in sorted[range.clone()].iter().enumerate() {
        let latest = range.start + at == 0;
        let mut entry = match item {
            Listed::Kept(kept) => entry(vault, kept, latest, edge),
            Listed::Unopened(unopened) => unopened_entry(unopened, latest),
        };
        if arguments.response_format == ResponseFormat::Concise {
            entry.touched.paths.clear();
            entry.arguments = None;
        }
        listed.push(entry);
    }
    Ok(ChangesList { total: sorted.len(), changes: listed, next_cursor })
}

/// A file that cannot be opened, listed with why: no undo can use it, and it stands in the way of
/// an undo without an id when it is the newest.
fn unopened_entry(unopened: &UnopenedChange, latest: bool) -> ChangeEntry {
    let applied_unix_ms = crate::history::applied_unix_ms(&unopened.name).and_then(believable);
    ChangeEntry {
        change_id: crate::history::record_change_id(&unopened.name).unwrap_or_default().to_owned(),
        tool: "unknown".to_owned(),
        applied_unix_ms,
        applied_at: applied_unix_ms.map(utc),
        arguments: None,
        touched: Touched { rewritten: 0, created: 0, removed: 0, moved: 0, paths: Vec::new(), paths_total: 0 },
        undoable: false,
        why_not: Some(format!("`{}` cannot be used for undo: {}", unopened.name, unopened.why)),
        needs_force: false,
        latest,
    }
}

fn entry(vault: &Vault, kept: &KeptChange, latest: bool, edge: &mut dyn Edge) -> ChangeEntry {
    let journal = &kept.journal;
    let count = |kind: WriteKind| journal.writes.iter().filter(|write| write.kind == kind).count();
    let mut paths: Vec<String> = journal.writes.iter().map(|write| write.path.clone()).collect();
    paths.extend(journal.moves.iter().map(|step| step.from.clone()));
    paths.sort();
    paths.dedup();
    let paths_total = paths.len();
    paths.truncate(PATHS_LISTED);
    let touched = Touched {
        rewritten: count(WriteKind::Replace),
        created: count(WriteKind::Create),
        removed: count(WriteKind::Remove),
        moved: journal.moves.len(),
        paths,
        paths_total,
    };
    // The undo's own plan decides, from the vault as it is now, on this change alone.
    let mut view = OneChange { edge, kept };
    let planned = crate::history::undo_change(vault, &undo_of(kept), &mut view, &mut PlanHistory::default());
    let (undoable, why_not, needs_force) = match planned {
        Ok((answer, _)) => (true, None, !answer.backlinks.is_empty()),
        Err(error) => (false, Some(error.message), false),
    };
    let applied_unix_ms = believable(crate::history::applied_unix_ms(&kept.name).unwrap_or(journal.started_unix_ms));
    ChangeEntry {
        change_id: journal.change_id.clone(),
        tool: journal.tool.clone(),
        applied_unix_ms,
        applied_at: applied_unix_ms.map(utc),
        arguments: main_arguments(kept),
        touched,
        undoable,
        why_not,
        needs_force,
        latest,
    }
}

/// The edge as one undo plan sees it: the change listed, and no other (so that a change kept
/// twice under one id is planned as itself).
struct OneChange<'a> {
    edge: &'a mut dyn Edge,
    kept: &'a KeptChange,
}

impl Edge for OneChange<'_> {
    fn text(&mut self, path: &str) -> Result<String, crate::error::CallError> {
        self.edge.text(path)
    }

    fn modified_ms(&mut self, path: &str) -> Option<u64> {
        self.edge.modified_ms(path)
    }

    fn tag(&self) -> u32 {
        self.edge.tag()
    }

    fn changes(&mut self) -> Vec<KeptChange> {
        vec![self.kept.clone()]
    }
}

/// The arguments the kept change shows.
fn main_arguments(kept: &KeptChange) -> Option<serde_json::Value> {
    let journal = &kept.journal;
    let of_kind = |kind: WriteKind| journal.writes.iter().filter(move |write| write.kind == kind).map(|write| write.path.clone());
    match journal.tool.as_str() {
        "delete_note" => of_kind(WriteKind::Remove).next().map(|path| serde_json::json!({ "path": path })),
        "update_properties" => of_kind(WriteKind::Replace).next().map(|path| serde_json::json!({ "path": path })),
        "commit_wiki_page" => of_kind(WriteKind::Create).next().map(|page| serde_json::json!({ "page": page })),
        "move_note" | "bulk_move_notes" if !journal.moves.is_empty() => {
            let moves: Vec<serde_json::Value> =
                journal.moves.iter().take(PATHS_LISTED).map(|step| serde_json::json!({ "from": step.from, "to": step.to })).collect();
            Some(serde_json::json!({ "moves": moves, "moves_total": journal.moves.len() }))
        }
        _ => None,
    }
}

/// A time a name gives, when it is before the year 10000 (a file's name is untrusted: a larger
/// one is no time a change was kept, nor a number JavaScript holds exactly).
fn believable(ms: u64) -> Option<u64> {
    (ms < 253_402_300_800_000).then_some(ms)
}

/// `ms` since the Unix epoch as UTC, `2026-12-04T20:15:00Z`.
fn utc(ms: u64) -> String {
    let seconds = ms / 1000;
    let (days, day_seconds) = (seconds / 86_400, seconds % 86_400);
    // Howard Hinnant's days-to-civil, for days since 1970-01-01.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 { month_index + 3 } else { month_index - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", day_seconds / 3600, day_seconds % 3600 / 60, day_seconds % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_written_as_utc() {
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(1_796_415_315_000), "2026-12-04T20:15:15Z");
        assert_eq!(utc(951_782_400_000), "2000-02-29T00:00:00Z");
    }
}
