//! What a move or a link rewrite answers (`move_note`, `bulk_move_notes`, `rewrite_link`), the
//! same on every path: the plan's moves and link changes, paged as every list is, with the counts
//! on every page. Its own module, so that the tail every writer goes through (`tail`) and the
//! tools that answer with it take it without importing the planner.

use serde::{Deserialize, Serialize};

use crate::plan::{FileMove, LinkChange, MovePlan, NewlyResolved};

/// What the `move_note` tool answers, the same on every path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct MoveAnswer {
    /// True when nothing was written: the answer previews the plan.
    pub dry_run: bool,
    /// True when the plan was applied.
    pub applied: bool,
    /// Pass this as `approved_plan_hash` to apply exactly this plan.
    pub plan_hash: String,
    /// The files that move, on this page.
    pub moves: Vec<FileMove>,
    /// How many files move, on every page.
    pub files_moved: usize,
    /// How many notes have links rewritten.
    pub notes_edited: usize,
    /// The rewritten links on this page; left out with `concise`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub changes: Option<Vec<LinkChange>>,
    /// How many links are rewritten, on every page.
    pub links_changed: usize,
    /// The first `MAX_LISTED` links that will resolve once the file is moved.
    pub newly_resolved: Vec<NewlyResolved>,
    /// A rewrite's links that find a note today and will find none (`allow_unresolved`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub links_broken: usize,
    /// How many links will newly resolve, when `newly_resolved` was cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub newly_resolved_count: Option<usize>,
    /// Present when `moves` or `changes` go on: pass it as `cursor` (with the same arguments)
    /// for the next page of the preview.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Once applied: the id `undo_change` takes to undo it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub change_id: Option<String>,
    /// Links inside read-only sources (`source_folders` of a SCHEMA.md) the plan leaves as they
    /// are, though the move changes what they find: each is a problem to fix outside the tool.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links_left_in_sources: Vec<crate::sources::LinkLeft>,
}

/// One item of a move's answer, as its pages list them: every move first, then every change.
#[derive(Serialize)]
#[serde(untagged)]
enum AnswerItem<'a> {
    Move(&'a FileMove),
    Change(&'a LinkChange),
}

impl MoveAnswer {
    /// One page of the answer: the moves, then (with `detailed`) the changes, paged as every
    /// list is (`answer::page`; the counts are on every page), the cursor bound to the plan.
    pub fn paged(
        plan: &MovePlan,
        dry_run: bool,
        applied: bool,
        detailed: bool,
        limit: Option<usize>,
        cursor: Option<&str>,
    ) -> Result<MoveAnswer, crate::answer::OpError> {
        let mut items: Vec<AnswerItem<'_>> = plan.moves.iter().map(AnswerItem::Move).collect();
        if detailed {
            items.extend(plan.changes.iter().map(AnswerItem::Change));
        }
        let scope = format!("move_note\0{}\0{detailed}", plan.plan_hash);
        let (page, _, next_cursor) = crate::answer::page(items, limit, cursor, &scope)?;
        let (mut moves, mut changes) = (Vec::new(), Vec::new());
        for item in page {
            match item {
                AnswerItem::Move(file_move) => moves.push(file_move.clone()),
                AnswerItem::Change(change) => changes.push(change.clone()),
            }
        }
        Ok(MoveAnswer {
            dry_run,
            applied,
            plan_hash: plan.plan_hash.clone(),
            moves,
            files_moved: plan.moves.len(),
            notes_edited: plan.edits.len(),
            changes: detailed.then_some(changes),
            links_changed: plan.changes.len(),
            newly_resolved: plan.newly_resolved.iter().take(crate::answer::MAX_LISTED).cloned().collect(),
            newly_resolved_count: (plan.newly_resolved.len() > crate::answer::MAX_LISTED).then_some(plan.newly_resolved.len()),
            links_broken: 0,
            next_cursor,
            change_id: None,
            links_left_in_sources: Vec::new(),
        })
    }
}

fn is_zero(count: &usize) -> bool {
    *count == 0
}
