//! `broken-heading`: links whose `#Heading` names no heading of the note they resolve to
//! (compared as Obsidian compares headings: case, punctuation and spacing aside).

use super::{subpath_findings, Context, Example, Findings, Rule};
use crate::index::SubpathStatus;

pub const RULE: Rule = Rule {
    kind: crate::rule_names::BROKEN_HEADING.kind,
    code: crate::rule_names::BROKEN_HEADING.code,
    summary: "Links to a heading that the target note does not have.",
    examples: &[
        Example {
            name: "a heading that is gone",
            vault: "//- A.md\nsee [[T#Setup]]\nand [[T#intro: part 1]]\n//- T.md\n# Intro, part 1\n",
            expected: &["broken_heading A.md:1 -> T.md"],
        },
        Example {
            name: "a heading of the note itself",
            vault: "//- A.md\n[[#Nope]]\n# Yes\n",
            expected: &["broken_heading A.md:1 -> A.md"],
        },
    ],
    check,
};

fn check(context: &Context<'_>, findings: &mut Findings) {
    subpath_findings(context, findings, SubpathStatus::MissingHeading, RULE.kind, "heading");
}
