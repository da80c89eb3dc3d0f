//! `orphan`: notes that no other note links to, from its body or its properties. A note's
//! links to itself do not count; `SCHEMA.md` is never an orphan, since nothing needs to link to
//! it.

use super::{Context, Example, Findings, Proposal, Rule};

pub const RULE: Rule = Rule {
    kind: crate::rule_names::ORPHAN.kind,
    code: crate::rule_names::ORPHAN.code,
    summary: "Notes that no other note links to.",
    examples: &[Example {
        name: "a property link counts, a self-link does not",
        vault: "//- Index.md\n---\nup: \"[[B]]\"\n---\n[[Index#Top]]\n# Top\n//- B.md\n[[C]]\n//- C.md\n//- SCHEMA.md\n",
        expected: &["orphan Index.md"],
    }],
    check,
};

fn check(context: &Context<'_>, findings: &mut Findings) {
    for note in context.subjects() {
        if context.vault.inbound_count(note.path) > 0 || super::is_schema_file(note.path) {
            continue;
        }
        findings.proposals.push(Proposal::new(
            RULE.kind,
            note.path,
            format!("no other note links to `{}`, from its body or its properties", note.path),
            "Link it from a related note or an index page, or merge it into another note if it repeats one.".to_owned(),
        ));
    }
}
