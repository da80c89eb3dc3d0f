//! The one approval tail every writing tool that applies a plan goes through: the preview answers
//! the plan's hash; the change is made only when the caller asks (`dry_run: false`, or the
//! approved hash without `dry_run`), an approved hash that is not the plan's refuses the call, and
//! an approved plan becomes one batch with its `change_id`. The tools differ in what they plan
//! and answer, not in how a plan is approved.

use std::collections::BTreeMap;

use crate::answer::ResponseFormat;
use crate::approval::{decide_plan, PlanApproval, PlanHistory};
use crate::batch::Batch;
use crate::edge::{Change, Edge};
use crate::error::CallError;
use crate::move_answer::MoveAnswer;
use crate::plan::MovePlan;

/// What page of a move's answer is asked for.
pub(crate) struct Page<'a> {
    pub(crate) format: ResponseFormat,
    pub(crate) limit: Option<usize>,
    pub(crate) cursor: Option<&'a str>,
}

/// The approval decision on a plan whose hash is `plan_hash`: `Ok(false)` answers the preview.
/// An approved hash that is not the plan's is refused ([`decide_plan`]), and so is a `cursor`
/// with an approval: it pages a preview, and a change is made once, not page by page.
pub(crate) fn decide(plan_hash: &str, approval: &PlanApproval, cursor: Option<&str>, plans: &PlanHistory) -> Result<bool, CallError> {
    let apply = decide_plan(plan_hash, approval, plans).map_err(|error| CallError::of(&error))?;
    if apply && cursor.is_some() {
        return Err(CallError::of(&crate::answer::OpError::InvalidArguments {
            detail: "`cursor` pages a preview; leave it out to apply the plan".to_owned(),
        }));
    }
    Ok(apply)
}

/// What follows the decision: a preview's hash is kept as issued (so a later approval of it is
/// told apart from a mistyped one) and nothing is carried out; an approved plan becomes its
/// batch, made from the same texts the plan was proven on (the edge checks each note again just
/// before it replaces it).
pub(crate) fn carry_out(
    tool: &str,
    plan: &MovePlan,
    texts: &BTreeMap<String, String>,
    folders: &[String],
    apply: bool,
    edge: &dyn Edge,
    plans: &mut PlanHistory,
) -> Result<Option<Batch>, CallError> {
    if !apply {
        plans.record_preview(&plan.plan_hash);
        return Ok(None);
    }
    crate::batch::batch(plan, texts, tool, folders, edge.tag()).map(Some).map_err(|error| CallError::of(&error))
}

/// The tail of the tools that answer a move's answer (`move_note`, `bulk_move_notes`,
/// `rewrite_link`, `fix_broken_links`, `heal_moves`): the decision, the page of the answer, and
/// for an approved plan its batch and `change_id`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn finish(
    tool: &str,
    plan: &MovePlan,
    texts: &BTreeMap<String, String>,
    folders: &[String],
    approval: &PlanApproval,
    page: Page<'_>,
    edge: &mut dyn Edge,
    plans: &mut PlanHistory,
) -> Result<(MoveAnswer, Option<Change>), CallError> {
    crate::batch::check_rewritable(plan).map_err(|error| CallError::of(&error))?;
    let apply = decide(&plan.plan_hash, approval, page.cursor, plans)?;
    // A preview's rewritten links are what is approved: `concise` leaves them out of a receipt only.
    let detailed = page.format == ResponseFormat::Detailed || !apply;
    let mut answer = MoveAnswer::paged(plan, !apply, apply, detailed, page.limit, page.cursor).map_err(|error| CallError::of(&error))?;
    let Some(batch) = carry_out(tool, plan, texts, folders, apply, edge, plans)? else { return Ok((answer, None)) };
    answer.change_id = Some(batch.change_id.clone());
    Ok((answer, Some(Change::Batch { batch, plan_hash: plan.plan_hash.clone() })))
}
