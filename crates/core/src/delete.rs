//! Plans a safe delete: what links to the note, whether deleting it is allowed, and the
//! answer an agent reads to know where it stands. Core decides; the edges read the note,
//! move it to the trash and report where it went.
//!
//! Deleting never edits another note: links to a deleted note dangle, so a delete with
//! backlinks is refused unless forced, and a forced one lists the links it leaves dangling.

use crate::error::{ErrorCode, Failure};
use serde::{Deserialize, Serialize};

use crate::index::Vault;
use crate::parse::LinkKind;
use crate::plan::content_hash;

/// A link that points to the note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Referrer {
    /// The note that holds the link.
    pub note: String,
    pub line: u32,
    /// The link as written.
    pub link: String,
    pub kind: LinkKind,
    /// `body`, `property`, `canvas_file` (a canvas's file card) or `canvas_text` (a link in a
    /// canvas's text card).
    pub source: String,
    /// The property's key, for a property link.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub key: Option<String>,
}

/// A delete, planned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeletePlan {
    pub path: String,
    /// SHA-256 of the note's text when the plan was made.
    pub content_hash: String,
    pub backlinks: Vec<Referrer>,
    /// SHA-256 over the path, the text's hash and the backlinks.
    pub plan_hash: String,
}

/// Why a delete cannot be planned at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeleteError {
    NotFound { path: String },
    NotANote { path: String },
}

impl Failure for DeleteError {
    fn code(&self) -> ErrorCode {
        match self {
            DeleteError::NotFound { .. } => ErrorCode::NoteNotFound,
            DeleteError::NotANote { .. } => ErrorCode::InvalidPath,
        }
    }

    fn message(&self) -> String {
        match self {
            DeleteError::NotFound { path } => format!("there is no note at `{path}` in this vault"),
            DeleteError::NotANote { path } => format!("`{path}` is not a note; delete_note deletes one note, never a folder or attachment"),
        }
    }

    fn hint(&self) -> &'static str {
        match self {
            DeleteError::NotFound { .. } => "Give the note's path relative to the vault root; call list_notes to see the paths.",
            DeleteError::NotANote { .. } => "Give the path of one Markdown note.",
        }
    }
}

/// The note a person means by `path`, with the links to it, given its current `text`.
pub fn plan_delete(vault: &Vault, path: &str, text: &str) -> Result<DeletePlan, DeleteError> {
    let Some(found) = vault.find_file(path) else {
        // A folder is no note: delete_note deletes one note at a time.
        let folder = format!("{}/", crate::resolve::fold(path.trim().trim_matches('/')));
        if !path.trim().trim_matches('/').is_empty() && vault.paths().any(|file| crate::resolve::fold(file).starts_with(&folder)) {
            return Err(DeleteError::NotANote { path: path.trim().trim_matches('/').to_owned() });
        }
        return Err(DeleteError::NotFound { path: path.to_owned() });
    };
    if !vault.is_note(found) {
        return Err(DeleteError::NotANote { path: found.to_owned() });
    }
    let backlinks = referrers(vault, found);
    let content_hash = content_hash(text);
    let mut hash = crate::plan::PlanHash::new();
    hash.record(&[b"delete", found.as_bytes(), content_hash.as_bytes()]);
    for referrer in &backlinks {
        hash.record(&[referrer.note.as_bytes(), referrer.line.to_string().as_bytes(), referrer.link.as_bytes()]);
    }
    let plan_hash = hash.finish();
    Ok(DeletePlan { path: found.to_owned(), content_hash, backlinks, plan_hash })
}

/// A link as its author wrote it, rebuilt from what the parser read.
fn written(link: &crate::parse::Link) -> String {
    if let crate::parse::LinkSource::CanvasFile { .. } = link.source {
        // A canvas's file card: the vault path it shows, and its heading or block.
        return format!("{}{}", link.target, link.subpath.as_deref().unwrap_or(""));
    }
    let display = link.display.as_deref().map(|display| format!("|{display}")).unwrap_or_default();
    match link.kind {
        LinkKind::Wikilink => format!("[[{}{display}]]", link.target),
        LinkKind::Embed => format!("![[{}{display}]]", link.target),
        LinkKind::Markdown => format!("[{}]({})", link.display.as_deref().unwrap_or(""), link.target),
        LinkKind::MarkdownEmbed => format!("![{}]({})", link.display.as_deref().unwrap_or(""), link.target),
    }
}

/// What the caller asked for.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(default)]
pub struct DeleteRequest {
    pub confirm: bool,
    pub force: bool,
    pub expected_hash: Option<String>,
    /// Milliseconds since the Unix epoch, as the note's modification time was read.
    pub expected_mtime: Option<u64>,
    pub approved_plan_hash: Option<String>,
}

/// The note's text, split so it can be recreated; `text` is byte for byte what was deleted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Captured {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub frontmatter: Option<String>,
    pub body: String,
    pub text: String,
}

/// What `delete_note` answers, the same on every path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct DeleteAnswer {
    /// Always true: a confirmed delete that is blocked is refused as an error, with its code.
    pub ok: bool,
    pub path: String,
    /// True when nothing was deleted because none was asked for.
    pub dry_run: bool,
    /// True when confirming would delete the note.
    pub would_change: bool,
    /// True only when repeating the call with `confirm: true` would delete without another
    /// opt-in.
    pub can_confirm: bool,
    /// True when the preview (backlinks and plan hash) is complete.
    pub preview_ready: bool,
    /// One per condition that blocks a delete: `has_backlinks`, `concurrent_modification`,
    /// `plan_hash_mismatch`.
    pub blocked_reasons: Vec<String>,
    pub backlinks: Vec<Referrer>,
    /// True when the delete went ahead despite backlinks; they now dangle.
    pub forced: bool,
    pub plan_hash: String,
    /// After a delete: the id it is kept under for `undo_change`, which puts the note back.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub change_id: Option<String>,
    /// After a delete: the note's content, to recreate it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub captured: Option<Captured>,
    /// After a delete: where the note went.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub trashed_to: Option<String>,
}

impl DeleteAnswer {
    /// The `concise` form: the captured text stays (it recreates the note); its split into
    /// frontmatter and body goes.
    pub fn concise(mut self) -> DeleteAnswer {
        if let Some(captured) = &mut self.captured {
            captured.frontmatter = None;
            captured.body = String::new();
        }
        self
    }
}

/// Why a confirmed delete is refused: each condition that blocks it (`has_backlinks`,
/// `concurrent_modification`, `plan_hash_mismatch`), with the plan it was checked against. The
/// code is the first that holds of the note changed since it was read, a stale approval, and
/// links to the note; the message names every one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeleteRefused {
    pub path: String,
    pub reasons: Vec<String>,
    pub backlinks: Vec<Referrer>,
}

/// The most links a refusal's message names; the preview lists them all.
const LINKS_NAMED: usize = 10;

impl DeleteRefused {
    fn first(&self) -> &str {
        ["concurrent_modification", "plan_hash_mismatch", "has_backlinks"]
            .into_iter()
            .find(|reason| self.reasons.iter().any(|given| given == reason))
            .unwrap_or("has_backlinks")
    }
}

impl Failure for DeleteRefused {
    fn code(&self) -> ErrorCode {
        match self.first() {
            "concurrent_modification" => ErrorCode::ConcurrentModification,
            "plan_hash_mismatch" => ErrorCode::PlanHashMismatch,
            _ => ErrorCode::HasBacklinks,
        }
    }

    fn message(&self) -> String {
        let mut why = Vec::new();
        let order = ["concurrent_modification", "plan_hash_mismatch", "has_backlinks"];
        for reason in order.into_iter().filter(|reason| self.reasons.iter().any(|given| given == reason)) {
            why.push(match reason {
                "concurrent_modification" => {
                    "it changed since it was read (`expected_hash` or `expected_mtime` no longer holds)".to_owned()
                }
                "plan_hash_mismatch" => {
                    "the approved `plan_hash` is not the plan now (the note or the links to it changed since the preview)".to_owned()
                }
                _ => {
                    let named: Vec<String> = self
                        .backlinks
                        .iter()
                        .take(LINKS_NAMED)
                        .map(|link| format!("`{}` line {} ({})", link.note, link.line, link.link))
                        .collect();
                    let more = self.backlinks.len().saturating_sub(LINKS_NAMED);
                    let more = if more > 0 { format!(" and {more} more") } else { String::new() };
                    let count = match self.backlinks.len() {
                        1 => "1 link points".to_owned(),
                        count => format!("{count} links point"),
                    };
                    format!("{count} to it, which it would leave dangling: {}{more}", named.join(", "))
                }
            });
        }
        format!("`{}` was not deleted: {}; nothing changed", self.path, why.join("; "))
    }

    fn hint(&self) -> &'static str {
        match self.first() {
            "concurrent_modification" => "Read the note again, preview the delete (`confirm: false`), then confirm.",
            "plan_hash_mismatch" => "Preview the delete again (`confirm: false`) and approve the `plan_hash` it answers.",
            _ => "Repoint the links first (rewrite_link or move_note), or call again with `confirm: true` and `force: true` to delete the note and leave them dangling.",
        }
    }
}

/// What to do about a request: the answer, and whether to delete; a confirmed delete that
/// something blocks is refused. Confirming is `confirm: true`, or an approved plan hash with
/// `confirm` left out (the parameters' rules refuse `confirm: false` with a hash), as for
/// move_note's `approved_plan_hash` without `dry_run`; anything else is a preview, which lists
/// what would block the delete in `blocked_reasons`.
pub fn decide(plan: &DeletePlan, request: &DeleteRequest, current_mtime: Option<u64>) -> Result<(DeleteAnswer, bool), DeleteRefused> {
    let mut blocked = Vec::new();
    if !plan.backlinks.is_empty() && !request.force {
        blocked.push("has_backlinks".to_owned());
    }
    let hash_moved = request.expected_hash.as_ref().is_some_and(|hash| *hash != plan.content_hash);
    let mtime_moved = request.expected_mtime.is_some_and(|mtime| Some(mtime) != current_mtime);
    if hash_moved || mtime_moved {
        blocked.push("concurrent_modification".to_owned());
    }
    if request.approved_plan_hash.as_ref().is_some_and(|hash| *hash != plan.plan_hash) {
        blocked.push("plan_hash_mismatch".to_owned());
    }
    let allowed = blocked.is_empty();
    let confirm = request.confirm || request.approved_plan_hash.is_some();
    if confirm && !allowed {
        return Err(DeleteRefused { path: plan.path.clone(), reasons: blocked, backlinks: plan.backlinks.clone() });
    }
    let answer = DeleteAnswer {
        ok: true,
        path: plan.path.clone(),
        dry_run: !confirm,
        would_change: allowed,
        can_confirm: allowed,
        preview_ready: true,
        blocked_reasons: blocked,
        backlinks: plan.backlinks.clone(),
        forced: confirm && request.force && !plan.backlinks.is_empty(),
        plan_hash: plan.plan_hash.clone(),
        change_id: None,
        captured: None,
        trashed_to: None,
    };
    Ok((answer, confirm))
}

/// The links from other files to the note at `path` (as the index spells it), which its removal
/// leaves dangling.
pub(crate) fn referrers(vault: &Vault, path: &str) -> Vec<Referrer> {
    vault
        .backlinks(path)
        .iter()
        .filter(|link| link.source != path)
        .map(|link| {
            let (source, key) = link.link.source.describe();
            let source = source.to_owned();
            Referrer { note: link.source.to_owned(), line: link.link.line, link: written(&link.link), kind: link.link.kind, source, key }
        })
        .collect()
}

/// The note's text, split for [`DeleteAnswer::captured`].
pub fn capture(text: &str) -> Captured {
    match crate::frontmatter::find_block(text) {
        Some(block) => Captured {
            frontmatter: Some(text[block.content.range()].to_owned()),
            body: text[block.span.end..].to_owned(),
            text: text.to_owned(),
        },
        None => Captured { frontmatter: None, body: text.to_owned(), text: text.to_owned() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::IndexConfig;

    fn vault() -> Vault {
        let mut vault = Vault::new(IndexConfig::obsidian_defaults());
        vault.upsert("Target.md", "---\nup: x\n---\n[[#Self]] body");
        vault.upsert("A.md", "see [[Target|it]]");
        vault.upsert("B.md", "---\nrelated: \"[[Target]]\"\n---\n");
        vault.upsert("Lonely.md", "");
        vault
    }

    #[test]
    fn a_dry_run_lists_body_and_property_referrers() {
        let plan = plan_delete(&vault(), "target", "text").unwrap();
        let referrers: Vec<(&str, &str, Option<&str>)> =
            plan.backlinks.iter().map(|link| (link.note.as_str(), link.link.as_str(), link.key.as_deref())).collect();
        assert_eq!(referrers, [("A.md", "[[Target|it]]", None), ("B.md", "[[Target]]", Some("related"))]);
        let (answer, delete) = decide(&plan, &DeleteRequest::default(), None).unwrap();
        assert!(!delete && answer.ok && answer.dry_run && !answer.can_confirm);
        assert_eq!(answer.blocked_reasons, ["has_backlinks"]);
    }

    /// Issue 36: a blocked delete answered a success with `ok: false`; it is an error with its
    /// code, as every other writing tool's refusal is.
    #[test]
    fn confirming_with_backlinks_is_refused_as_has_backlinks_unless_forced() {
        let plan = plan_delete(&vault(), "Target.md", "text").unwrap();
        let refused = decide(&plan, &DeleteRequest { confirm: true, ..DeleteRequest::default() }, None).unwrap_err();
        assert_eq!(refused.code(), "has_backlinks");
        assert!(
            refused.message().contains("2 links point to it") && refused.message().contains("`A.md` line 1 ([[Target|it]])"),
            "{}",
            refused.message()
        );
        assert!(refused.hint().contains("force"));
        let (answer, delete) = decide(&plan, &DeleteRequest { confirm: true, force: true, ..DeleteRequest::default() }, None).unwrap();
        assert!(delete && answer.ok && answer.forced);
    }

    #[test]
    fn stale_guards_are_refused_with_their_codes() {
        let plan = plan_delete(&vault(), "Lonely.md", "").unwrap();
        let code =
            |request: DeleteRequest, mtime: Option<u64>| decide(&plan, &request, mtime).map(|_| ()).map_err(|refused| refused.code());
        let request = DeleteRequest { confirm: true, expected_mtime: Some(5), ..DeleteRequest::default() };
        assert_eq!(code(request, Some(6)), Err(ErrorCode::ConcurrentModification));
        let request = DeleteRequest { confirm: true, expected_hash: Some("x".into()), ..DeleteRequest::default() };
        assert_eq!(code(request, None), Err(ErrorCode::ConcurrentModification));
        let request = DeleteRequest { confirm: true, approved_plan_hash: Some("x".into()), ..DeleteRequest::default() };
        assert_eq!(code(request, None), Err(ErrorCode::PlanHashMismatch));
        let (answer, delete) = decide(&plan, &DeleteRequest { confirm: true, ..DeleteRequest::default() }, None).unwrap();
        assert!(delete && answer.ok && !answer.forced);
        // A preview with stale guards says what would block, and deletes nothing.
        let request = DeleteRequest { expected_hash: Some("x".into()), ..DeleteRequest::default() };
        let (answer, delete) = decide(&plan, &request, None).unwrap();
        assert!(!delete && answer.dry_run && answer.blocked_reasons == ["concurrent_modification"]);
    }

    #[test]
    fn folders_and_missing_notes_are_refused() {
        let mut vault = vault();
        vault.upsert("img.png", "");
        assert_eq!(plan_delete(&vault, "img.png", "").unwrap_err().code(), "invalid_path");
        assert_eq!(plan_delete(&vault, "Nope", "").unwrap_err().code(), "note_not_found");
    }

    #[test]
    fn deleting_a_folder_is_invalid_path_not_note_not_found() {
        let mut vault = vault();
        vault.upsert("Projects/Alpha.md", "");
        for folder in ["Projects", "projects/", "Projects/"] {
            let error = plan_delete(&vault, folder, "").unwrap_err();
            assert_eq!(error.code(), "invalid_path", "{folder}");
            assert!(error.message().contains("is not a note"), "{}", error.message());
        }
    }

    #[test]
    fn delete_with_an_approved_plan_hash_and_confirm_left_out_deletes_as_the_hash_approves() {
        let plan = plan_delete(&vault(), "Lonely.md", "").unwrap();
        let approved = DeleteRequest { approved_plan_hash: Some(plan.plan_hash.clone()), ..DeleteRequest::default() };
        let (answer, delete) = decide(&plan, &approved, None).unwrap();
        assert!(delete && answer.ok && !answer.dry_run, "the hash applies, as for move_note: {answer:?}");
        // A stale hash is a refusal, never a dry run that looks like success.
        let stale = DeleteRequest { approved_plan_hash: Some("0".repeat(64)), ..DeleteRequest::default() };
        assert_eq!(decide(&plan, &stale, None).unwrap_err().code(), ErrorCode::PlanHashMismatch);
    }

    #[test]
    fn the_capture_recreates_the_note() {
        for text in ["---\nup: x\n---\nbody\n", "\u{feff}no frontmatter\r\n", ""] {
            assert_eq!(capture(text).text, text);
        }
        assert_eq!(capture("---\nup: x\n---\nbody").frontmatter.as_deref(), Some("up: x\n"));
    }
}
