//! `links-truncated`: a note or canvas with more links than the index reads
//! (`parse::MAX_LINKS_PER_NOTE`). The links past the limit are in no backlink, unresolved link
//! or other finding, so a review that does not name the file would call it fine.

use super::{Context, Example, Findings, Proposal, Rule};

pub const RULE: Rule = Rule {
    kind: crate::rule_names::LINKS_TRUNCATED.kind,
    code: crate::rule_names::LINKS_TRUNCATED.code,
    summary: "Notes and canvases with more links than the index reads; the links past the limit are in no other finding.",
    examples: &[Example {
        // The examples' vaults are read keeping two links per note (`//! max_links 2`), as the
        // index keeps 50,000.
        name: "a note past the limit",
        vault: "//! max_links 2\n//- A.md\n[[B]] [[C]] [[Missing]]\n//- B.md\n[[A]] [[C]]\n//- C.md\n",
        expected: &["links_truncated A.md"],
    }],
    check,
};

fn check(context: &Context<'_>, findings: &mut Findings) {
    let limit = context.vault.config().parse.max_links;
    for path in context.vault.truncated_files() {
        if !context.is_subject(path) {
            continue;
        }
        findings.proposals.push(Proposal::new(
            RULE.kind,
            path,
            format!(
                "`{path}` holds more than {limit} links; the index reads only the first {limit}, so the links past them are not checked"
            ),
            "Split it into smaller notes so that every link is read; a move still rewrites every link it holds.".to_owned(),
        ));
    }
}
