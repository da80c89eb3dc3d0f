//! `unresolved-link`: links to notes that do not exist, one finding per missing target with
//! every note that links to it. When exactly one note is known by that name (an alias, its
//! `title`, its H1, or its file name under another folder), the fix is `rewrite_link` to it.

use std::collections::{BTreeMap, HashMap};

use serde_json::json;

use super::{distinct, identities, identity_key, link_target_for, Context, Example, Facet, Findings, Proposal, Rule};
use crate::resolve::{file_name, Resolution};

pub const RULE: Rule = Rule {
    kind: crate::rule_names::UNRESOLVED_LINK.kind,
    code: crate::rule_names::UNRESOLVED_LINK.code,
    summary: "Links to notes that do not exist, grouped per missing target with every referrer.",
    examples: &[
        Example {
            name: "two notes link a missing page",
            vault: "//- A.md\n[[Missing]] and [[missing|again]]\n//- B.md\n[[Missing#Part]]\n",
            expected: &["unresolved_link Missing -> A.md, B.md"],
        },
        Example {
            name: "the target is another note's alias",
            vault: "//- A.md\n[[JS]]\n//- JavaScript.md\n---\naliases: [JS]\n---\n",
            expected: &["unresolved_link JS -> A.md (rewrite_link)"],
        },
        Example {
            name: "a canvas's file card names a missing file and a text card a missing note",
            vault: "//- Board.canvas\n{\"nodes\":[{\"id\":\"f\",\"type\":\"file\",\"file\":\"Gone.md\"},{\"id\":\"t\",\"type\":\"text\",\"text\":\"See [[Missing]] and [[B]]\"}]}\n//- B.md\n",
            expected: &["unresolved_link Gone.md -> Board.canvas", "unresolved_link Missing -> Board.canvas"],
        },
        Example {
            name: "resolved links and same-note headings are fine",
            vault: "//- A.md\n[[B]] [[#Top]]\n# Top\n//- B.md\n",
            expected: &[],
        },
    ],
    check,
};

struct Group {
    written: String,
    referrers: Vec<(String, u32)>,
}

fn check(context: &Context<'_>, findings: &mut Findings) {
    // Grouped by the folded path, so `[[Foo]]` and `[[foo]]` are one missing note.
    let mut groups: BTreeMap<String, Group> = BTreeMap::new();
    for found in context.vault.all_links() {
        if *found.resolution != Resolution::Unresolved || !context.is_subject(found.source) {
            continue;
        }
        let written = found.link.path.trim();
        let group =
            groups.entry(crate::resolve::fold(written)).or_insert_with(|| Group { written: written.to_owned(), referrers: Vec::new() });
        group.referrers.push((found.source.to_owned(), found.link.line));
    }
    if groups.is_empty() {
        return;
    }
    let known = known_names(context);
    let mut weaker = Vec::new();
    for group in groups.into_values() {
        let name = identity_key(super::note_stem(file_name(&group.written)));
        let matches = known.get(&name).map(Vec::as_slice).unwrap_or_default();
        let mut paths: Vec<&str> = matches.iter().map(|(path, _)| path.as_str()).collect();
        paths.dedup();
        let related = distinct(group.referrers.iter().map(|(source, _)| source.clone()));
        let links = group.referrers.len();
        let mut proposal = Proposal::new(
            RULE.kind,
            group.written.clone(),
            format!(
                "{links} link{} in {} note{} {} to `{}`, and no file has that name or path",
                plural(links),
                related.len(),
                plural(related.len()),
                if links == 1 { "points" } else { "point" },
                group.written
            ),
            format!("Write the note `{}`, or remove or correct the links.", group.written),
        );
        let mut basis = "none";
        if let [only] = paths.as_slice() {
            let facets: Vec<&str> = matches.iter().map(|(_, facet)| facet.describe()).collect();
            let to_target = link_target_for(context.vault, only);
            let by_file_name_alone = matches.iter().all(|(_, facet)| *facet == Facet::FileName);
            if by_file_name_alone {
                // The link names a folder the note is not in: a shared file name is all that
                // ties them, and in a wiki of many topics it is often another topic's page.
                basis = "file_name_only";
                proposal.detail = Some(format!(
                    "{}; `{only}` has the same file name in another folder, and nothing else (alias, title, H1) ties it to these links",
                    proposal.detail.unwrap_or_default()
                ));
                proposal.suggested_action = format!(
                    "Check that `{only}` is the note these links mean (its file name is all they share); if it is, point them at it with rewrite_link, otherwise write the missing note."
                );
            } else {
                basis = "other_name";
                proposal.detail = Some(format!(
                    "{}; `{only}` has this name as its {}, but Obsidian finds notes by file name or path only",
                    proposal.detail.unwrap_or_default(),
                    facets.join(" and ")
                ));
                proposal.suggested_action = format!("Point these links at `{only}` with rewrite_link.");
            }
            proposal.tool = Some("rewrite_link");
            proposal.tool_args = Some(json!({"from_target": group.written, "to_target": to_target}));
        } else if paths.len() > 1 {
            proposal.detail =
                Some(format!("{}; several notes go by this name ({}): choose one", proposal.detail.unwrap_or_default(), paths.join(", ")));
            proposal.suggested_action =
                "Choose which of the notes known by this name the links mean, and point them at it with rewrite_link.".to_owned();
        }
        proposal.evidence = Some(json!({
            "referrers": group.referrers.iter().map(|(source, line)| json!({"source": source, "line": line})).collect::<Vec<_>>(),
            "known_as": matches.iter().map(|(path, facet)| json!({"path": path, "facet": facet})).collect::<Vec<_>>(),
            "basis": basis,
        }));
        proposal.related = related;
        if basis == "file_name_only" {
            weaker.push(proposal);
        } else {
            findings.proposals.push(proposal);
        }
    }
    // Proposals whose target shares only a file name rank below those with more evidence.
    findings.proposals.extend(weaker);
}

/// Every note's names other than the one Obsidian resolves by, by [`identity_key`]. File
/// names count too: `[[wrong/Name]]` misses a `Name.md` in another folder.
fn known_names(context: &Context<'_>) -> HashMap<String, Vec<(String, Facet)>> {
    let mut known: HashMap<String, Vec<(String, Facet)>> = HashMap::new();
    for note in context.vault.notes() {
        for (facet, name) in identities(&note) {
            let entry = known.entry(identity_key(name)).or_default();
            if !entry.iter().any(|(path, same)| path == note.path && *same == facet) {
                entry.push((note.path.to_owned(), facet));
            }
        }
    }
    known
}

pub(super) fn plural(count: usize) -> &'static str {
    if count == 1 {
        ""
    } else {
        "s"
    }
}
