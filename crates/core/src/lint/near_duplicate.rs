//! `near-duplicate`: notes whose bodies are lexically close (for example MinHash over word
//! shingles), as evidence for review. It needs note bodies, which the index does not keep (it
//! holds no note text, to stay small), so for now it is listed under `skipped` with that
//! reason instead of running.

use super::{Context, Example, Findings, Rule, Skipped};

pub const RULE: Rule = Rule {
    kind: "near_duplicate",
    code: "near-duplicate",
    summary: "Notes with lexically similar bodies (not available yet: needs note text).",
    examples: &[Example {
        name: "always skipped, with the reason",
        vault: "//- A.md\nsame words here\n//- B.md\nsame words here\n",
        expected: &["skipped near_duplicate"],
    }],
    check,
};

fn check(_context: &Context<'_>, findings: &mut Findings) {
    findings.skipped.push(Skipped {
        kind: RULE.kind,
        reason: "it compares note bodies, and the index keeps no note text (only links, headings, names and properties); \
it is not built yet"
            .to_owned(),
    });
}
