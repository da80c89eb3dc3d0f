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

use crate::lint::{lint, LintOptions, Proposal};
use crate::schema_file::Schema;
use crate::Vault;

/// The findings of the schema's blocking conventions that `after` has and `before` had not, about
/// the notes in `touched`, each as a sentence.
pub fn added_violations(before: &Vault, after: &Vault, schema: &Schema, touched: &[&str]) -> Vec<String> {
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
    let had: Vec<Proposal> = lint(before, &options).proposals.into_iter().filter(|proposal| concerns(proposal)).collect();
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
