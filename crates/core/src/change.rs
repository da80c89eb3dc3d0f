//! The writing operations (`move_note`, `rewrite_link`, `delete_note`), from a call's arguments
//! to what the edge carries out: the plan, proven from the notes' texts as the edge supplied
//! them; the approval decision; and, when the call is approved, the steps ([`crate::batch`], or
//! the one move to the trash of a delete). `ops::run` reaches them; nothing here writes.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::answer::ResponseFormat;
use crate::approval::PlanHistory;
use crate::delete::DeleteAnswer;
use crate::delete::{capture, decide, plan_delete, DeleteRequest};
use crate::edge::{Change, Edge};
use crate::error::CallError;
use crate::link_rewrite::{notes_to_read_for_rewrite, plan_rewrite_link};
use crate::move_answer::MoveAnswer;
use crate::plan::MovePlan;
use crate::rename::{moved_folder, notes_to_read, plan_move};
use crate::Vault;

crate::approval::writing_arguments! {
    #[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct MoveArguments {
        pub from: String,
        pub to: String,
    } paged
}

crate::approval::writing_arguments! {
    #[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct RewriteArguments {
        pub from_target: String,
        pub to_target: String,
        /// Repoint links that find a note today even where `to_target` finds none.
        #[serde(default)]
        pub allow_unresolved: bool,
    } paged
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeleteArguments {
    pub path: String,
    #[serde(default)]
    pub confirm: bool,
    #[serde(default)]
    pub force: bool,
    #[serde(default)]
    pub expected_hash: Option<String>,
    /// Milliseconds since the Unix epoch, as the caller read the note's modification time.
    #[serde(default)]
    pub expected_mtime: Option<u64>,
    #[serde(default)]
    pub approved_plan_hash: Option<String>,
    #[serde(default)]
    pub response_format: ResponseFormat,
}

/// The notes a move reads: those whose links it may have to rewrite.
pub fn move_notes_needed(vault: &Vault, arguments: &MoveArguments) -> Vec<String> {
    notes_to_read(vault, &arguments.from, &arguments.to).unwrap_or_default()
}

pub fn move_note(
    vault: &Vault,
    arguments: &MoveArguments,
    edge: &mut dyn Edge,
    plans: &mut PlanHistory,
) -> Result<(MoveAnswer, Option<Change>), CallError> {
    let needed = notes_to_read(vault, &arguments.from, &arguments.to).map_err(|error| CallError::of(&error))?;
    let texts = crate::edge::read_each(edge, needed)?;
    let mut plan = plan_move(vault, &arguments.from, &arguments.to, &texts).map_err(|error| CallError::of(&error))?;
    let left = guard_sources(vault, "move_note", &mut plan)?;
    crate::conventions::check_plan(vault, "move_note", &plan, &texts).map_err(|error| CallError::of(&error))?;
    // Moving a whole folder removes it once empty; moving files out of one leaves it.
    let folder = moved_folder(&arguments.from, &plan);
    let approval = arguments.approval();
    let page = crate::tail::Page { format: arguments.response_format, limit: arguments.limit, cursor: arguments.cursor.as_deref() };
    with_left(crate::tail::finish("move_note", &plan, &texts, &folder.into_iter().collect::<Vec<_>>(), &approval, page, edge, plans), left)
}

/// The plan without its edits inside read-only sources (each link left, returned), refused
/// when it would still write in one (a source moved, a file moved into one).
fn guard_sources(vault: &Vault, tool: &str, plan: &mut MovePlan) -> Result<Vec<crate::sources::LinkLeft>, CallError> {
    let left = crate::sources::leave_sources(vault, plan);
    crate::sources::check_plan(vault, tool, plan).map_err(|error| CallError::of(&error))?;
    Ok(left)
}

fn with_left(
    answered: Result<(MoveAnswer, Option<Change>), CallError>,
    left: Vec<crate::sources::LinkLeft>,
) -> Result<(MoveAnswer, Option<Change>), CallError> {
    answered.map(|(mut answer, change)| {
        answer.links_left_in_sources = left;
        (answer, change)
    })
}

/// The notes a rewrite reads: those holding a link to the target.
pub fn rewrite_notes_needed(vault: &Vault, arguments: &RewriteArguments) -> Vec<String> {
    notes_to_read_for_rewrite(vault, &arguments.from_target)
}

pub fn rewrite_link(
    vault: &Vault,
    arguments: &RewriteArguments,
    edge: &mut dyn Edge,
    plans: &mut PlanHistory,
) -> Result<(MoveAnswer, Option<Change>), CallError> {
    let texts = crate::edge::read_each(edge, notes_to_read_for_rewrite(vault, &arguments.from_target))?;
    let mut plan = plan_rewrite_link(vault, &arguments.from_target, &arguments.to_target, &texts).map_err(|error| CallError::of(&error))?;
    let left = guard_sources(vault, "rewrite_link", &mut plan)?;
    crate::conventions::check_plan(vault, "rewrite_link", &plan, &texts).map_err(|error| CallError::of(&error))?;
    // A note that cannot be rewritten is refused first: allowing broken links would not help.
    crate::batch::check_rewritable(&plan).map_err(|error| CallError::of(&error))?;
    let broken = crate::rewrite::links_broken(vault, &plan, &texts);
    if broken.count > 0 && !arguments.allow_unresolved {
        return Err(CallError::of(&crate::rewrite::BreaksLinks { to_target: arguments.to_target.trim().to_owned(), broken }));
    }
    let approval = arguments.approval();
    let page = crate::tail::Page { format: arguments.response_format, limit: arguments.limit, cursor: arguments.cursor.as_deref() };
    let (mut answer, change) = with_left(crate::tail::finish("rewrite_link", &plan, &texts, &[], &approval, page, edge, plans), left)?;
    answer.links_broken = broken.count;
    Ok((answer, change))
}

/// The note a delete reads: the one it deletes, when it is a note.
pub fn delete_notes_needed(vault: &Vault, arguments: &DeleteArguments) -> Vec<String> {
    vault.find_file(&arguments.path).filter(|found| vault.is_note(found)).map(|found| vec![found.to_owned()]).unwrap_or_default()
}

pub fn delete_note(vault: &Vault, arguments: &DeleteArguments, edge: &mut dyn Edge) -> Result<(DeleteAnswer, Option<Change>), CallError> {
    let found = delete_notes_needed(vault, arguments).pop();
    let text = match &found {
        Some(path) => edge.text(path)?,
        None => String::new(),
    };
    let plan = plan_delete(vault, found.as_deref().unwrap_or(&arguments.path), &text).map_err(|error| CallError::of(&error))?;
    crate::sources::check_delete(vault, &plan.path).map_err(|error| CallError::of(&error))?;
    let request = DeleteRequest {
        confirm: arguments.confirm,
        force: arguments.force,
        expected_hash: arguments.expected_hash.clone(),
        expected_mtime: arguments.expected_mtime,
        approved_plan_hash: arguments.approved_plan_hash.clone(),
    };
    let (mut answer, delete) = decide(&plan, &request, edge.modified_ms(&plan.path)).map_err(|refused| CallError::of(&refused))?;
    let change = delete.then(|| {
        answer.captured = Some(capture(&text));
        let keep = crate::batch::delete_batch(&plan.path, &text, &plan.plan_hash);
        answer.change_id = Some(keep.change_id.clone());
        Change::Trash { path: plan.path.clone(), before: text, keep }
    });
    if arguments.response_format == ResponseFormat::Concise {
        answer = answer.concise();
    }
    Ok((answer, change))
}

/// One move of `bulk_move_notes`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OneMove {
    pub from: String,
    pub to: String,
}

crate::approval::writing_arguments! {
    #[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct BulkMoveArguments {
        pub moves: Vec<OneMove>,
    } paged
}

/// The most moves one `bulk_move_notes` call takes (a folder counts once).
pub const MAX_BULK_MOVES: usize = 1000;

impl BulkMoveArguments {
    /// The asked pairs, each path held to the vault's rules.
    fn pairs(&self) -> Result<Vec<(String, String)>, CallError> {
        if self.moves.len() > MAX_BULK_MOVES {
            return Err(CallError::of(&crate::answer::OpError::InvalidArguments {
                detail: format!("`moves` holds {} moves, over the {MAX_BULK_MOVES} one call takes", self.moves.len()),
            }));
        }
        for (at, one) in self.moves.iter().enumerate() {
            for (name, path) in [("from", &one.from), ("to", &one.to)] {
                if let Some(problem) = crate::paths::vault_path_problem(path) {
                    return Err(crate::parameters::path_refused(&format!("moves[{at}].{name}"), path, problem));
                }
            }
        }
        Ok(self.moves.iter().map(|one| (one.from.clone(), one.to.clone())).collect())
    }
}

/// The notes a bulk move reads.
pub fn bulk_notes_needed(vault: &Vault, arguments: &BulkMoveArguments) -> Vec<String> {
    arguments.pairs().ok().and_then(|pairs| crate::rename::notes_to_read_for_bulk(vault, &pairs).ok()).unwrap_or_default()
}

pub fn bulk_move_notes(
    vault: &Vault,
    arguments: &BulkMoveArguments,
    edge: &mut dyn Edge,
    plans: &mut PlanHistory,
) -> Result<(MoveAnswer, Option<Change>), CallError> {
    let pairs = arguments.pairs()?;
    let needed = crate::rename::notes_to_read_for_bulk(vault, &pairs).map_err(|error| CallError::of(&error))?;
    let texts = crate::edge::read_each(edge, needed)?;
    let mut plan = crate::rename::plan_bulk_move(vault, &pairs, &texts).map_err(|error| CallError::of(&error))?;
    let left = guard_sources(vault, "bulk_move_notes", &mut plan)?;
    crate::conventions::check_plan(vault, "bulk_move_notes", &plan, &texts).map_err(|error| CallError::of(&error))?;
    let folders: Vec<String> = pairs.iter().filter_map(|(from, _)| moved_folder(from, &plan)).collect();
    let approval = arguments.approval();
    let page = crate::tail::Page { format: arguments.response_format, limit: arguments.limit, cursor: arguments.cursor.as_deref() };
    with_left(crate::tail::finish("bulk_move_notes", &plan, &texts, &folders, &approval, page, edge, plans), left)
}

/// The note `update_properties` reads: the one it edits.
pub fn properties_notes_needed(vault: &Vault, arguments: &crate::properties::PropertiesArguments) -> Vec<String> {
    vault.find_note(&arguments.path).map(|path| vec![path.to_owned()]).unwrap_or_default()
}

pub fn update_properties(
    vault: &Vault,
    arguments: &crate::properties::PropertiesArguments,
    edge: &mut dyn Edge,
    plans: &mut PlanHistory,
) -> Result<(crate::properties::PropertiesAnswer, Option<Change>), CallError> {
    let path = vault
        .find_note(&arguments.path)
        .ok_or_else(|| CallError::of(&crate::answer::OpError::NoteNotFound { path: arguments.path.clone() }))?
        .to_owned();
    let text = edge.text(&path)?;
    let (plan, mut answer) = crate::properties::plan(&path, &text, arguments).map_err(|error| CallError::of(&error))?;
    crate::sources::check_plan(vault, "update_properties", &plan).map_err(|error| CallError::of(&error))?;
    let approval = arguments.approval();
    crate::batch::check_rewritable(&plan).map_err(|error| CallError::of(&error))?;
    if let Some(file) = plan.edits.first() {
        // Checked as commit_wiki_page checks a page: the schema's rules, and the links set.
        let after_text = crate::plan::apply_edits(&text, &file.edits);
        if let Some((schema, problems)) = crate::property_rules::broken_rules(vault, &path, &after_text) {
            return Err(CallError::of(&crate::properties::PropertiesError::OffSchema { path, schema, problems }));
        }
        answer.unresolved_links = crate::property_rules::unresolved_links(vault, &path, &after_text, &answer.set);
    }
    let apply = crate::tail::decide(&plan.plan_hash, &approval, None, plans)?;
    let texts = BTreeMap::from([(path, text)]);
    // Nothing is written for a preview, or for a change that changes nothing.
    let Some(batch) = crate::tail::carry_out("update_properties", &plan, &texts, &[], apply && !plan.edits.is_empty(), edge, plans)? else {
        answer.dry_run = !apply;
        return Ok((answer, None));
    };
    answer.change_id = Some(batch.change_id.clone());
    answer.dry_run = false;
    answer.applied = true;
    Ok((answer, Some(Change::Batch { batch, plan_hash: plan.plan_hash })))
}

/// `commit_wiki_page`: the page and its patches, planned and proven in a copy of the index; an
/// approved plan is one batch (the patched notes' writes, then the page's create).
pub fn commit_wiki_page(
    vault: &Vault,
    arguments: &crate::wiki_request::CommitArguments,
    edge: &mut dyn Edge,
    plans: &mut PlanHistory,
) -> Result<(crate::wiki::CommitAnswer, Option<Change>), CallError> {
    if let Some(detail) = crate::wiki::arguments_problem(arguments) {
        return Err(CallError::of(&crate::answer::OpError::InvalidArguments { detail }));
    }
    let texts = crate::edge::read_each(edge, crate::wiki::notes_needed(vault, arguments))?;
    let (plan, mut answer) = crate::wiki::plan(vault, arguments, &texts).map_err(|error| CallError::of(&error))?;
    crate::sources::check_plan(vault, "commit_wiki_page", &plan).map_err(|error| CallError::of(&error))?;
    let approval = arguments.approval();
    crate::batch::check_rewritable(&plan).map_err(|error| CallError::of(&error))?;
    let apply = crate::tail::decide(&plan.plan_hash, &approval, None, plans)?;
    let Some(batch) = crate::tail::carry_out("commit_wiki_page", &plan, &texts, &[], apply, edge, plans)? else {
        return Ok((answer, None));
    };
    answer.change_id = Some(batch.change_id.clone());
    answer.dry_run = false;
    answer.applied = true;
    Ok((answer, Some(Change::Batch { batch, plan_hash: plan.plan_hash })))
}

crate::approval::writing_arguments! {
    #[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct FixLinksArguments {
        /// A note or a folder; the whole vault when left out.
        #[serde(default)]
        pub path: Option<String>,
        /// The floor of a repair's confidence, in percent (`repair::DEFAULT_FLOOR_PERCENT` when left out).
        #[serde(default)]
        pub min_confidence_percent: Option<u16>,
    } paged
}

/// The notes `fix_broken_links` reads: those in scope with a broken link, and the targets whose
/// headings it compares.
pub fn fix_links_notes_needed(vault: &Vault, arguments: &FixLinksArguments) -> Vec<String> {
    crate::repair::notes_needed(vault, arguments.path.as_deref())
}

/// `fix_broken_links`: the repairs core decides (`repair::plan`), the edits in read-only
/// sources left, then the approval and the batch as every writing tool's.
pub fn fix_broken_links(
    vault: &Vault,
    arguments: &FixLinksArguments,
    edge: &mut dyn Edge,
    plans: &mut PlanHistory,
) -> Result<(crate::repair::RepairAnswer, Option<Change>), CallError> {
    if let Some(scope) = arguments.path.as_deref().map(str::trim).filter(|scope| !scope.is_empty()) {
        let folder = format!("{}/", crate::resolve::fold(scope.trim_matches('/')));
        let known = vault.find_note(scope).is_some() || vault.note_paths().any(|path| crate::resolve::fold(path).starts_with(&folder));
        if !known {
            return Err(CallError::of(&crate::answer::OpError::NoteNotFound { path: scope.to_owned() }));
        }
    }
    let floor = arguments.min_confidence_percent.unwrap_or(crate::repair::DEFAULT_FLOOR_PERCENT) * 10;
    let texts = crate::edge::read_each(edge, fix_links_notes_needed(vault, arguments))?;
    // The moves the edge saw are the strongest evidence; an edge with no earlier view has none.
    let known = crate::repair::Known {
        moves: edge
            .observed()
            .map(|observed| crate::moves_detected::detect(vault, &observed).pairs.into_iter().collect())
            .unwrap_or_default(),
    };
    let parts = |count: usize, part: &(dyn Fn(usize) + Sync)| edge.run_parts(count, part);
    let mut repair =
        crate::repair::plan(vault, arguments.path.as_deref(), floor, &known, &texts, &parts).map_err(|error| CallError::of(&error))?;
    let left = guard_sources(vault, "fix_broken_links", &mut repair.plan)?;
    // The repairs of a source note are left with its edits.
    let kept: std::collections::HashSet<(&str, u32, &str)> =
        repair.plan.changes.iter().map(|change| (change.note.as_str(), change.line, change.before.as_str())).collect();
    let repairs: Vec<_> =
        repair.repairs.iter().filter(|one| kept.contains(&(one.note.as_str(), one.line, one.before.as_str()))).cloned().collect();
    repair.repairs = repairs;
    let approval = arguments.approval();
    if approval.asks_to_apply() && arguments.cursor.is_some() {
        return Err(CallError::of(&crate::answer::OpError::InvalidArguments {
            detail: "`cursor` pages a preview; leave it out to apply the plan".to_owned(),
        }));
    }
    let page = crate::tail::Page { format: arguments.response_format, limit: Some(1), cursor: None };
    let (moved, change) = crate::tail::finish("fix_broken_links", &repair.plan, &texts, &[], &approval, page, edge, plans)?;
    let detailed = arguments.response_format == ResponseFormat::Detailed || !moved.applied;
    let mut answer = crate::repair::RepairAnswer::paged(&repair, floor, detailed, arguments.limit, arguments.cursor.as_deref())
        .map_err(|error| CallError::of(&error))?;
    answer.dry_run = moved.dry_run;
    answer.applied = moved.applied;
    answer.change_id = moved.change_id;
    answer.links_left_in_sources = left;
    Ok((answer, change))
}

/// The notes `link_mentions` reads: every note in scope outside the read-only sources.
pub fn mentions_notes_needed(vault: &Vault, arguments: &crate::mentions::MentionsArguments) -> Vec<String> {
    crate::mentions::in_scope(vault, arguments.path.as_deref()).unwrap_or_default().into_iter().map(str::to_owned).collect()
}

/// `link_mentions`: the mentions core links (`mentions::plan`), then the approval and the
/// batch as every writing tool's. `targets` and `exclude` are part of the plan, so its hash
/// covers the chosen set.
pub fn link_mentions(
    vault: &Vault,
    arguments: &crate::mentions::MentionsArguments,
    edge: &mut dyn Edge,
    plans: &mut PlanHistory,
) -> Result<(crate::mentions::MentionsAnswer, Option<Change>), CallError> {
    let scope = arguments.path.as_deref().map(str::trim).filter(|scope| !scope.is_empty());
    if let Some(scope) = scope {
        if crate::mentions::in_scope(vault, Some(scope)).is_none() {
            return Err(CallError::of(&crate::answer::OpError::NoteNotFound { path: scope.to_owned() }));
        }
    }
    let targets = match &arguments.targets {
        None => None,
        Some(named) => {
            let mut found = std::collections::HashSet::new();
            for target in named {
                let note =
                    vault.find_note(target).ok_or_else(|| CallError::of(&crate::answer::OpError::NoteNotFound { path: target.clone() }))?;
                found.insert(note.to_owned());
            }
            Some(found)
        }
    };
    let approval = arguments.approval();
    if approval.asks_to_apply() && arguments.cursor.is_some() {
        return Err(CallError::of(&crate::answer::OpError::InvalidArguments {
            detail: "`cursor` pages a preview; leave it out to apply the plan".to_owned(),
        }));
    }
    let texts = edge.texts(mentions_notes_needed(vault, arguments))?;
    let exclude: std::collections::HashSet<String> = arguments.exclude.iter().cloned().collect();
    let run_parts = |count: usize, part: &(dyn Fn(usize) + Sync)| edge.run_parts(count, part);
    let mut planned = crate::mentions::plan(vault, scope, targets.as_ref(), &exclude, arguments.first_only, &texts, &run_parts);
    // Nothing in a source is in scope; asked again, so a plan never writes in one.
    guard_sources(vault, "link_mentions", &mut planned.plan)?;
    let page = crate::tail::Page { format: arguments.response_format, limit: Some(1), cursor: None };
    let (moved, change) = crate::tail::finish("link_mentions", &planned.plan, &texts, &[], &approval, page, edge, plans)?;
    let detailed = arguments.response_format == ResponseFormat::Detailed || !moved.applied;
    let mut answer = crate::mentions::MentionsAnswer::paged(&planned, detailed, arguments.limit, arguments.cursor.as_deref())
        .map_err(|error| CallError::of(&error))?;
    answer.dry_run = moved.dry_run;
    answer.applied = moved.applied;
    answer.change_id = moved.change_id;
    // The texts and the plan were read whole for a page of the answer; the edge frees them.
    edge.discard(Box::new((texts, planned)));
    Ok((answer, change))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edge::ReadBefore;
    use crate::index::IndexConfig;
    use crate::ops::{call, Response};
    use serde_json::json;

    fn vault(files: &[(&str, &str)]) -> (Vault, ReadBefore) {
        let mut vault = Vault::new(IndexConfig::obsidian_defaults());
        let mut edge = ReadBefore { tag: 9, ..ReadBefore::default() };
        for (path, text) in files {
            vault.upsert(path, text);
            edge.texts.insert((*path).to_owned(), (*text).to_owned());
        }
        (vault, edge)
    }

    #[test]
    fn a_move_previews_then_answers_the_batch_its_approval_carries_out() {
        let (vault, mut edge) = vault(&[("A.md", "[[Old]]"), ("Old.md", "# Old")]);
        let mut plans = PlanHistory::default();
        let preview = call(&vault, "move_note", &json!({"from": "Old", "to": "New"}), &mut edge, &mut plans).unwrap();
        assert!(preview.change.is_none());
        let Response::Moved(answer) = &preview.answer else { panic!("a move's answer") };
        assert!(answer.dry_run && !answer.applied);
        assert_eq!(plans.issued, vec![answer.plan_hash.clone()]);

        let approved = json!({"from": "Old", "to": "New", "approved_plan_hash": answer.plan_hash});
        let applied = call(&vault, "move_note", &approved, &mut edge, &mut plans).unwrap();
        let Some(Change::Batch { batch, plan_hash }) = &applied.change else { panic!("a batch") };
        assert_eq!(plan_hash, &answer.plan_hash);
        assert_eq!((batch.tool.as_str(), batch.writes[0].text.as_str()), ("move_note", "[[New]]"));
        assert_eq!(batch.writes[0].temporary, ".A.md.vaultlink-9.tmp");

        plans.record_applied(plan_hash);
        let again =
            call(&vault, "move_note", &json!({"from": "Old", "to": "Elsewhere", "approved_plan_hash": plan_hash}), &mut edge, &mut plans);
        assert_eq!(again.unwrap_err().code, crate::error::ErrorCode::AlreadyApplied);
    }

    #[test]
    fn a_retried_approval_whose_change_is_kept_answers_already_applied_with_its_id() {
        let (before, mut edge) = vault(&[("A.md", "[[Old]]"), ("Old.md", "# Old")]);
        let mut plans = PlanHistory::default();
        let preview = call(&before, "move_note", &json!({"from": "Old", "to": "New"}), &mut edge, &mut plans).unwrap();
        let Response::Moved(answer) = &preview.answer else { panic!("a move's answer") };
        let approved = json!({"from": "Old", "to": "New", "approved_plan_hash": answer.plan_hash});
        let applied = call(&before, "move_note", &approved, &mut edge, &mut plans).unwrap();
        let Some(Change::Batch { batch, .. }) = applied.change else { panic!("a batch") };
        // As after a restart: no plan history, the move done (`Old.md` gone), the change kept.
        let (moved, mut edge) = vault(&[("A.md", "[[New]]"), ("New.md", "# Old")]);
        edge.changes = vec![crate::edge::KeptChange { name: "1-move.json".to_owned(), journal: batch.journal(Vec::new(), 1, 0, "here") }];
        let retried = call(&moved, "move_note", &approved, &mut edge, &mut PlanHistory::default()).unwrap_err();
        assert_eq!(retried.code, crate::error::ErrorCode::AlreadyApplied);
        assert!(retried.message.contains(&format!("`{}`", batch.change_id)), "{}", retried.message);
        // Without the kept change, the same retry is the refusal it meets.
        edge.changes.clear();
        let refused = call(&moved, "move_note", &approved, &mut edge, &mut PlanHistory::default()).unwrap_err();
        assert_eq!(refused.code, crate::error::ErrorCode::NoteNotFound);
    }

    #[test]
    fn a_rewrite_names_itself_in_its_batch_and_a_text_not_read_is_refused() {
        let (vault, mut edge) = vault(&[("A.md", "[[Old]]"), ("B.md", "[[Old#x]]")]);
        let mut plans = PlanHistory::default();
        let arguments = json!({"from_target": "Old", "to_target": "New", "dry_run": false});
        let applied = call(&vault, "rewrite_link", &arguments, &mut edge, &mut plans).unwrap();
        let Some(Change::Batch { batch, .. }) = applied.change else { panic!("a batch") };
        assert_eq!(batch.tool, "rewrite_link");
        assert_eq!(batch.writes.iter().map(|write| write.text.as_str()).collect::<Vec<_>>(), ["[[New]]", "[[New#x]]"]);

        edge.texts.remove("B.md");
        let refused = call(&vault, "rewrite_link", &arguments, &mut edge, &mut plans).unwrap_err();
        assert_eq!(refused.code, crate::error::ErrorCode::ConcurrentModification);
        assert!(refused.message.contains("`B.md`"), "{}", refused.message);
    }

    /// Issue 34: a patch's `heading` holding a line break wrote a line of its own after it (a
    /// new H1, say) into the patched note. Every character Markdown or YAML reads as a line
    /// break is refused as an invalid argument, naming the patch and the character.
    #[test]
    fn a_patch_heading_holding_a_line_break_is_refused() {
        let (vault, mut edge) = vault(&[("A.md", "# A\n")]);
        let mut plans = PlanHistory::default();
        for (line_break, named) in
            [("\n", "U+000A"), ("\r", "U+000D"), ("\r\n", "U+000D"), ("\u{85}", "U+0085"), ("\u{2028}", "U+2028"), ("\u{2029}", "U+2029")]
        {
            for kind in ["link", "append"] {
                let patch = json!({"path": "A.md", "kind": kind, "heading": format!("See also{line_break}# Injected"), "text": "x"});
                let mut patch = patch.as_object().cloned().unwrap_or_default();
                if kind == "link" {
                    patch.remove("text");
                }
                let arguments =
                    json!({"page": {"path": "New", "body": "x\n"}, "patches": [{"path": "A.md", "kind": "append", "text": "y"}, patch]});
                let refused = call(&vault, "commit_wiki_page", &arguments, &mut edge, &mut plans).unwrap_err();
                assert_eq!(refused.code, crate::error::ErrorCode::InvalidArguments, "{kind} {line_break:?}: {}", refused.message);
                assert!(
                    refused.message.contains("`patches[1].heading`") && refused.message.contains(named),
                    "{kind} {line_break:?}: {}",
                    refused.message
                );
            }
        }
        let fine = json!({"page": {"path": "New", "body": "x\n"}, "patches": [{"path": "A.md", "kind": "link", "heading": "Related"}]});
        assert!(call(&vault, "commit_wiki_page", &fine, &mut edge, &mut plans).is_ok());
    }

    /// Issue 34: a note whose name is over the 227 bytes that leave room for the temporary
    /// names beside it (made outside vaultlink) was planned, and its rewrite failed at write time
    /// with "File name too long", told to check permissions. Refused at the preview, as an
    /// unwritable note, saying the limit, why, and to rename it shorter.
    #[test]
    fn a_note_whose_name_leaves_no_room_for_temporary_names_is_refused_at_the_preview() {
        let long = format!("Folder/{}.md", "n".repeat(crate::names::MAX_FILE_NAME_BYTES));
        let (vault, mut edge) = vault(&[(long.as_str(), "[[Old]]\n"), ("Old.md", "# Old\n")]);
        let mut plans = PlanHistory::default();
        for (tool, arguments) in [
            ("move_note", json!({"from": "Old", "to": "New"})),
            ("rewrite_link", json!({"from_target": "Old", "to_target": "Other"})),
            ("update_properties", json!({"path": long, "set": {"status": "done"}})),
            ("commit_wiki_page", json!({"page": {"path": "Page", "body": "x\n"}, "patches": [{"path": long, "kind": "link"}]})),
        ] {
            for approve in [false, true] {
                let mut arguments = arguments.clone();
                arguments["dry_run"] = json!(!approve);
                let refused = call(&vault, tool, &arguments, &mut edge, &mut plans).unwrap_err();
                assert_eq!(refused.code, crate::error::ErrorCode::UnwritableNote, "{tool}: {}", refused.message);
                assert!(
                    refused.message.contains("230 bytes") && refused.message.contains("227") && refused.message.contains("temporary"),
                    "{tool}: {}",
                    refused.message
                );
                assert!(refused.hint.contains("Rename the note"), "{tool}: {}", refused.hint);
            }
        }
    }

    #[test]
    fn a_confirmed_delete_answers_the_trash_step_with_the_text_it_saw() {
        let (vault, mut edge) = vault(&[("A.md", "---\nup: x\n---\nbody"), ("B.md", "[[A]]")]);
        let mut plans = PlanHistory::default();
        let preview = call(&vault, "delete_note", &json!({"path": "a"}), &mut edge, &mut plans).unwrap();
        assert!(preview.change.is_none());
        let blocked = call(&vault, "delete_note", &json!({"path": "a", "confirm": true}), &mut edge, &mut plans).unwrap_err();
        assert_eq!(blocked.code, crate::error::ErrorCode::HasBacklinks, "a note with backlinks needs force");
        let mut forced = call(
            &vault,
            "delete_note",
            &json!({"path": "a", "confirm": true, "force": true, "response_format": "concise"}),
            &mut edge,
            &mut plans,
        )
        .unwrap();
        let Some(Change::Trash { path, before, keep }) = forced.change.clone() else { panic!("a delete's change") };
        assert_eq!((path.as_str(), before.as_str()), ("A.md", "---\nup: x\n---\nbody"));
        // Kept for undo_change: a removal of the note whose journal holds its whole text.
        assert_eq!((keep.removes.len(), keep.removes[0].before.as_str(), keep.tool.as_str()), (1, before.as_str(), "delete_note"));
        forced.trashed_to(".trash/A.md".to_owned());
        let Response::Deleted(answer) = forced.answer else { panic!("a delete's answer") };
        assert_eq!(answer.trashed_to.as_deref(), Some(".trash/A.md"));
        assert_eq!(answer.captured.map(|captured| captured.text), Some("---\nup: x\n---\nbody".to_owned()));
        assert!(answer.forced);
        assert_eq!(answer.change_id, Some(keep.change_id));
    }

    #[test]
    fn a_bulk_move_orders_a_chain_swaps_through_a_third_name_and_refuses_a_file_moved_twice() {
        let (vault, mut edge) = vault(&[("A.md", "[[B]] [[C]]"), ("B.md", "# B"), ("C.md", "[[A]]"), ("P/x.md", "[[A]]")]);
        let mut plans = PlanHistory::default();
        // B leaves for D, then A takes B's place; the folder moves too.
        let chain = json!({"moves": [{"from": "A", "to": "B"}, {"from": "B", "to": "D"}, {"from": "P", "to": "Q"}], "dry_run": false});
        let outcome = call(&vault, "bulk_move_notes", &chain, &mut edge, &mut plans).unwrap();
        let Some(Change::Batch { batch, .. }) = outcome.change else { panic!("a batch") };
        let order: Vec<(&str, &str, bool)> = batch.moves.iter().map(|step| (step.from.as_str(), step.to.as_str(), step.vacated)).collect();
        assert_eq!(order, [("B.md", "D.md", false), ("P/x.md", "Q/x.md", false), ("A.md", "B.md", true)]);
        assert_eq!(batch.emptied_folders, ["P".to_owned()]);
        let texts: BTreeMap<&str, &str> = batch.writes.iter().map(|write| (write.path.as_str(), write.text.as_str())).collect();
        assert_eq!(texts.get("A.md"), Some(&"[[D]] [[C]]"), "A's link to B follows B to D");
        assert_eq!(texts.get("C.md"), Some(&"[[B]]"), "C's link to A follows A to B");

        // A and B swap names, and C, A and B turn round in a cycle of three: each first move goes
        // through a third name beside it, and reaches its destination once that is left.
        let swap = json!({"moves": [{"from": "A", "to": "B"}, {"from": "B", "to": "A"}], "dry_run": false});
        let outcome = call(&vault, "bulk_move_notes", &swap, &mut edge, &mut plans).unwrap();
        let Some(Change::Batch { batch, .. }) = outcome.change else { panic!("a batch") };
        let order: Vec<(&str, &str, bool)> = batch.moves.iter().map(|step| (step.from.as_str(), step.to.as_str(), step.vacated)).collect();
        assert_eq!(order, [("A.md", "A.vaultlink-9.swap.md", false), ("B.md", "A.md", true), ("A.vaultlink-9.swap.md", "B.md", true)]);
        let texts: BTreeMap<&str, &str> = batch.writes.iter().map(|write| (write.path.as_str(), write.text.as_str())).collect();
        assert_eq!(texts.get("A.md"), Some(&"[[A]] [[C]]"), "A's link to B follows B to A's old name");
        assert_eq!(texts.get("C.md"), Some(&"[[B]]"), "C's link to A follows A to B");
        assert!(crate::journal::check_paths(&batch.journal(vec![], 9, 1, "")).is_ok());
        let three = json!({"moves": [{"from": "A", "to": "B"}, {"from": "B", "to": "C"}, {"from": "C", "to": "A"}], "dry_run": false});
        let Some(Change::Batch { batch, .. }) = call(&vault, "bulk_move_notes", &three, &mut edge, &mut plans).unwrap().change else {
            panic!("a batch")
        };
        let order: Vec<(&str, &str)> = batch.moves.iter().map(|step| (step.from.as_str(), step.to.as_str())).collect();
        assert_eq!(order, [("A.md", "A.vaultlink-9.swap.md"), ("C.md", "A.md"), ("B.md", "C.md"), ("A.vaultlink-9.swap.md", "B.md")]);

        for (moves, said) in [
            (json!([{"from": "A", "to": "X"}, {"from": "A", "to": "Y"}]), "moved twice"),
            (json!([{"from": "A", "to": "X"}, {"from": "C", "to": "X"}]), "two files"),
            (json!([]), "empty"),
            (json!([{"from": "A", "to": "../X"}]), "not a path inside the vault"),
        ] {
            let refused = call(&vault, "bulk_move_notes", &json!({"moves": moves}), &mut edge, &mut plans).unwrap_err();
            assert!(refused.message.contains(said), "{said}: {}", refused.message);
        }
    }
}
