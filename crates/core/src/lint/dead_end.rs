//! `dead-end`: notes that link to no other file, from their body or their properties: the
//! notes Obsidian's "Outgoing links" pane shows nothing for, where a reader cannot go on.
//!
//! What counts as an outgoing link:
//! - every wikilink, Markdown link and embed whose target names another file, in the body or in
//!   a property, whether or not that file exists: an unresolved link still says where the note
//!   leads (Obsidian lists it under `unresolvedLinks`), and `unresolved_link` reports it;
//! - not a link to the note itself (`[[#Heading]]`, `[[#^block]]`, or its own name), which
//!   leads nowhere else, as for `orphan`;
//! - not an external URL (`https:`, `mailto:`), which is not a link between notes.
//!
//! `SCHEMA.md` is never a dead end: it describes a folder, it need not lead anywhere. Because
//! on real vaults many notes are leaves on purpose (a daily note, a clipping, a glossary
//! entry), this rule runs only when named in `kinds` ([`super::ON_REQUEST_RULES`]).

use super::{Context, Example, Findings, Proposal, Rule};
use crate::index::ResolvedLink;

pub const RULE: Rule = Rule {
    kind: crate::rule_names::DEAD_END.kind,
    code: crate::rule_names::DEAD_END.code,
    summary: "Notes that link to no other note or file (off unless asked for: many notes are leaves on purpose).",
    examples: &[
        Example {
            name: "a property link and an unresolved link count, a self-link and a URL do not",
            vault: concat!(
                "//- Index.md\n[[A]] and [[Later page]]\n",
                "//- A.md\n---\nup: \"[[Index]]\"\n---\nNo link in the body.\n",
                "//- B.md\nSee [[#Details]] and [[B#Details]].\n# Details\n",
                "//- C.md\nSee <https://example.com> and [the site](https://example.com).\n",
                "//- D.md\n![[diagram.png]]\n",
                "//- SCHEMA.md\n",
            ),
            expected: &["dead_end B.md", "dead_end C.md"],
        },
        Example { name: "an empty note is a dead end", vault: "//- Hub.md\n[[Stub]]\n//- Stub.md\n", expected: &["dead_end Stub.md"] },
    ],
    check,
};

/// Whether `link`, from the note at `source`, leads to another file (or names one that does
/// not exist).
fn leads_elsewhere(source: &str, link: &ResolvedLink<'_>) -> bool {
    !link.link.path.is_empty() && link.resolution.path() != Some(source)
}

fn check(context: &Context<'_>, findings: &mut Findings) {
    for note in context.subjects() {
        if super::is_schema_file(note.path) {
            continue;
        }
        let links = context.vault.outgoing_links(note.path).unwrap_or_default();
        if links.iter().any(|link| leads_elsewhere(note.path, link)) {
            continue;
        }
        findings.proposals.push(Proposal::new(
            RULE.kind,
            note.path,
            format!("`{}` links to no other note or file, from its body or its properties", note.path),
            "Link it to the notes it builds on or belongs under (a parent topic, an index page), so a reader can go on from it; \
leave it if it is a leaf on purpose."
                .to_owned(),
        ));
    }
}
