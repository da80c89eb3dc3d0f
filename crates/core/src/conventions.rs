//! A `SCHEMA.md`'s `conventions`: lint rules the wiki holds its pages to. A convention marked
//! `severity: block` refuses a write that adds a finding of its rule (one that was not there
//! before, about a note the write touches); `warn` leaves it to `lint_wiki`. Checked in the
//! vault as it will be, beside the schema's other rules, so the refusal names it with them.
//!
//! ```text
//! conventions:
//!   orphan: block
//!   unquoted_property_link: {severity: block}
//!   near_duplicate: warn
//! ```

use std::collections::BTreeMap;

use crate::error::{ErrorCode, Failure};
use crate::lint::{lint, LintOptions, Proposal};
use crate::plan::MovePlan;
use crate::schema_file::Schema;
use crate::Vault;

/// The findings of the schema's blocking conventions that `after` has and `before` had not, about
/// the notes in `touched`, each as a sentence.
pub fn added_violations(before: &Vault, after: &Vault, schema: &Schema, touched: &[&str]) -> Vec<String> {
    added_violations_moving(before, after, schema, touched, &BTreeMap::new())
}

/// [`added_violations`] for a write that also moves notes: a finding `before` had about a note
/// at its old path (`moved` maps old paths to new ones) is the same finding after the move.
pub fn added_violations_moving(
    before: &Vault,
    after: &Vault,
    schema: &Schema,
    touched: &[&str],
    moved: &BTreeMap<String, String>,
) -> Vec<String> {
    let rules: Vec<&'static crate::lint::Rule> = schema
        .conventions
        .iter()
        .filter(|convention| convention.block)
        .filter_map(|convention| crate::lint::rule(&convention.rule))
        .collect();
    if rules.is_empty() {
        return Vec::new();
    }
    let options = LintOptions { folder: None, excluded_folders: Vec::new(), rules };
    let concerns = |proposal: &Proposal| {
        touched.contains(&proposal.subject.as_str()) || proposal.related.iter().any(|related| touched.contains(&related.as_str()))
    };
    let moved_to = |path: &String| moved.get(path).cloned().unwrap_or_else(|| path.clone());
    let had: Vec<Proposal> = lint(before, &options)
        .proposals
        .into_iter()
        .map(|mut proposal| {
            proposal.subject = moved_to(&proposal.subject);
            proposal.related = proposal.related.iter().map(moved_to).collect();
            proposal
        })
        .filter(|proposal| concerns(proposal))
        .collect();
    let mut added = Vec::new();
    for proposal in lint(after, &options).proposals.into_iter().filter(|proposal| concerns(proposal)) {
        // The same finding before, with every note it names then, is not added by this write.
        let known = had.iter().any(|old| {
            old.kind == proposal.kind
                && old.subject == proposal.subject
                && proposal.related.iter().all(|related| old.related.contains(related))
        });
        if !known {
            added.push(format!(
                "the convention `{}` is `severity: block` in the SCHEMA.md, and the write adds its finding about `{}`: {}",
                proposal.kind,
                proposal.subject,
                proposal.detail.as_deref().unwrap_or(&proposal.suggested_action)
            ));
        }
    }
    added
}

/// Why a move or a rewrite is refused: it adds a finding of a convention its `SCHEMA.md` marks
/// `severity: block`. Nothing is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConventionBlocked {
    pub tool: String,
    /// Each `SCHEMA.md` whose conventions the write breaks, with its findings as sentences.
    pub broken: Vec<(String, Vec<String>)>,
}

impl Failure for ConventionBlocked {
    fn code(&self) -> ErrorCode {
        ErrorCode::ConventionBlocked
    }

    fn message(&self) -> String {
        let said: Vec<String> = self.broken.iter().map(|(schema, findings)| format!("`{schema}`: {}", findings.join("; "))).collect();
        format!("{} would break conventions marked `severity: block`, nothing was changed: {}", self.tool, said.join(" "))
    }

    fn hint(&self) -> &'static str {
        "Change the call so it adds no finding of the rule named (lint_wiki with `kinds` lists what the rule finds), or mark the \
convention `warn` in the SCHEMA.md."
    }
}

/// The vault as `plan` leaves it (its edits made, its notes moved, its files created), the notes
/// it writes there, and where each moved note goes.
pub fn after_plan(vault: &Vault, plan: &MovePlan, texts: &BTreeMap<String, String>) -> (Vault, Vec<String>, BTreeMap<String, String>) {
    let mut after = vault.clone();
    let moved: BTreeMap<String, String> = plan.moves.iter().map(|file| (file.from.clone(), file.to.clone())).collect();
    let mut touched = Vec::new();
    for file in &plan.edits {
        if let Some(text) = texts.get(&file.path) {
            after.upsert(&file.path, &crate::plan::apply_edits(text, &file.edits));
        }
        touched.push(moved.get(&file.path).cloned().unwrap_or_else(|| file.path.clone()));
    }
    for file in &plan.moves {
        after.rename(&file.from, &file.to);
        touched.push(file.to.clone());
    }
    for file in &plan.creates {
        after.upsert(&file.path, &file.text);
        touched.push(file.path.clone());
    }
    touched.sort();
    touched.dedup();
    (after, touched, moved)
}

/// A move's or a rewrite's plan refused when it adds a finding of a blocking convention of a
/// `SCHEMA.md` governing a note it writes, in the vault as the plan leaves it.
pub fn check_plan(vault: &Vault, tool: &str, plan: &MovePlan, texts: &BTreeMap<String, String>) -> Result<(), ConventionBlocked> {
    let blocking = |vault: &Vault| {
        crate::lint::schema::schema_files(vault)
            .values()
            .any(|(_, file)| file.schema.as_ref().is_some_and(|schema| schema.conventions.iter().any(|convention| convention.block)))
    };
    if !blocking(vault) {
        return Ok(());
    }
    let (after, touched, moved) = after_plan(vault, plan, texts);
    let mut governed: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for path in &touched {
        if let Some((schema, _)) = crate::lint::schema::governing_schema(&after, path) {
            governed.entry(schema.to_owned()).or_default().push(path);
        }
    }
    let mut broken = Vec::new();
    for (schema_path, notes) in governed {
        let Some((_, file)) = crate::lint::schema::governing_schema(&after, notes[0]) else { continue };
        let Some(schema) = &file.schema else { continue };
        let added = added_violations_moving(vault, &after, schema, &notes, &moved);
        if !added.is_empty() {
            broken.push((schema_path, added));
        }
    }
    if broken.is_empty() {
        Ok(())
    } else {
        Err(ConventionBlocked { tool: tool.to_owned(), broken })
    }
}

#[cfg(test)]
mod tests {
    use crate::approval::PlanHistory;
    use crate::edge::ReadBefore;
    use crate::error::{CallError, ErrorCode};
    use crate::ops::call;
    use serde_json::json;

    const SCHEMA: &str = "---\ntypes:\n  concept: {required: [type], folder: concepts}\n  person: {required: [type], folder: people}\n\
conventions:\n  schema: block\n  unresolved_link: {severity: block}\n---\n";

    /// Each call on a small wiki whose SCHEMA.md blocks `schema` and `unresolved_link`; `Old`
    /// broke the schema before (a concept among people).
    fn called(tool: &str, arguments: serde_json::Value) -> Result<(), CallError> {
        let (vault, texts) = crate::testing::vault_with(&[
            ("wiki/SCHEMA.md", SCHEMA),
            ("wiki/concepts/Graph.md", "---\ntype: concept\n---\n# Graph\nSee [[Tree]].\n"),
            ("wiki/concepts/Tree.md", "---\ntype: concept\n---\n# Tree\n"),
            ("wiki/people/Old.md", "---\ntype: concept\n---\n# Old\n"),
            ("wiki/people/Ada.md", "---\ntype: person\n---\n# Ada\n"),
        ]);
        let mut edge = ReadBefore { tag: 1, texts, ..ReadBefore::default() };
        call(&vault, tool, &arguments, &mut edge, &mut PlanHistory::default()).map(|_| ())
    }

    fn refused(tool: &str, arguments: serde_json::Value, rule: &str, code: ErrorCode) {
        let error = called(tool, arguments.clone()).expect_err(tool);
        assert_eq!(error.code, code, "{tool} {arguments}: {error}");
        assert!(error.message.contains(&format!("the convention `{rule}` is `severity: block`")), "{tool}: {}", error.message);
        assert!(error.message.contains("nothing was changed"), "{}", error.message);
    }

    /// Issue 37: `severity: block` held only for commit_wiki_page; every tool that writes a
    /// page under the schema refuses a write that adds the rule's finding.
    #[test]
    fn every_write_under_a_schema_refuses_what_adds_a_blocking_finding() {
        refused("move_note", json!({"from": "wiki/concepts/Tree.md", "to": "wiki/people/Tree.md"}), "schema", ErrorCode::ConventionBlocked);
        refused(
            "bulk_move_notes",
            json!({"moves": [{"from": "wiki/concepts/Tree.md", "to": "wiki/people/Tree.md"}]}),
            "schema",
            ErrorCode::ConventionBlocked,
        );
        refused(
            "rewrite_link",
            json!({"from_target": "Tree", "to_target": "Forest", "allow_unresolved": true}),
            "unresolved_link",
            ErrorCode::ConventionBlocked,
        );
        refused(
            "update_properties",
            json!({"path": "wiki/concepts/Tree.md", "set": {"related": "[[Nowhere]]"}}),
            "unresolved_link",
            ErrorCode::PageRefused,
        );
    }

    /// A finding the note had before the write, kept where it moves, is not the write's.
    #[test]
    fn a_finding_there_before_does_not_block() {
        called("move_note", json!({"from": "wiki/people/Old.md", "to": "wiki/people/Older.md"})).expect("Old broke the schema before");
        called("update_properties", json!({"path": "wiki/people/Old.md", "set": {"aliases": ["Elder"]}})).expect("the same finding");
        called("move_note", json!({"from": "wiki/concepts/Tree.md", "to": "wiki/concepts/Trees.md"})).expect("no finding added");
        called("rewrite_link", json!({"from_target": "Tree", "to_target": "Graph"})).expect("resolves");
    }
}
