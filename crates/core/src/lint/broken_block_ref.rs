//! `broken-block-ref`: links whose `#^block-id` names no block id of the note they resolve
//! to.

use super::{subpath_findings, Context, Example, Findings, Rule};
use crate::index::SubpathStatus;

pub const RULE: Rule = Rule {
    kind: crate::rule_names::BROKEN_BLOCK_REF.kind,
    code: crate::rule_names::BROKEN_BLOCK_REF.code,
    summary: "Links to a block id that the target note does not have.",
    examples: &[Example {
        name: "one block exists, one does not",
        vault: "//- A.md\n![[T#^quote]]\n[[T#^gone]]\n//- T.md\nSaid once. ^quote\n",
        expected: &["broken_block_ref A.md:2 -> T.md"],
    }],
    check,
};

fn check(context: &Context<'_>, findings: &mut Findings) {
    subpath_findings(context, findings, SubpathStatus::MissingBlock, RULE.kind, "block");
}
