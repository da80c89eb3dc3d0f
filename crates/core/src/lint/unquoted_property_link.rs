//! `unquoted-property-link`: `key: [[X]]` in frontmatter, which YAML reads as a list inside a
//! list, so Obsidian sees no link. Quoting it (`key: "[[X]]"`) makes it a link.

use super::{frontmatter_findings, Context, Example, Findings, Rule};

pub const RULE: Rule = Rule {
    kind: crate::rule_names::UNQUOTED_PROPERTY_LINK.kind,
    code: crate::rule_names::UNQUOTED_PROPERTY_LINK.code,
    summary: "Property links written without quotes, which YAML reads as nested lists.",
    examples: &[Example {
        name: "one quoted, one not",
        vault: "//- A.md\n---\nup: [[B]]\nnext: \"[[B]]\"\n---\n//- B.md\n",
        expected: &["unquoted_property_link A.md:2"],
    }],
    check,
};

fn check(context: &Context<'_>, findings: &mut Findings) {
    frontmatter_findings(
        context,
        findings,
        &["unquoted_property_link"],
        RULE.kind,
        "Put the link in double quotes, as `key: \"[[Note]]\"`, so that Obsidian reads it as a link.",
    );
}
