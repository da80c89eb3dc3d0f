//! `ambiguous-link`: links that several files match, one finding per target as written, with
//! the file chosen for each link and why. Obsidian's choice among matches is not documented;
//! vaultlink's is fixed (the linking note's folder, then the shortest path, then the first
//! path in order), so an ambiguous link may land elsewhere than its writer meant.

use std::collections::BTreeMap;

use serde_json::json;

use super::unresolved_link::plural;
use super::{distinct, link_target_for, Context, Example, Findings, Proposal, Rule};
use crate::resolve::{self, fold, Decision, Resolution};

pub const RULE: Rule = Rule {
    kind: crate::rule_names::AMBIGUOUS_LINK.kind,
    code: crate::rule_names::AMBIGUOUS_LINK.code,
    summary: "Links that several files match: which one was chosen, and why.",
    examples: &[
        Example {
            name: "two notes of one name",
            vault: "//- A.md\n[[T]]\n//- x/T.md\n//- y/deeper/T.md\n",
            expected: &["ambiguous_link T -> x/T.md, y/deeper/T.md (rewrite_link)"],
        },
        Example { name: "a path that picks one is not ambiguous", vault: "//- A.md\n[[x/T]]\n//- x/T.md\n//- y/T.md\n", expected: &[] },
        Example {
            name: "a folder path two files end with",
            vault: "//- x/A.md\n[[docs/Guide]]\n//- docs/Guide.md\n//- x/docs/Guide.md\n",
            expected: &["ambiguous_link docs/Guide -> docs/Guide.md, x/docs/Guide.md (rewrite_link)"],
        },
    ],
    check,
};

struct Group {
    written: String,
    candidates: Vec<String>,
    /// Each link: the note holding it, its line, the file chosen.
    links: Vec<(String, u32, String)>,
}

fn check(context: &Context<'_>, findings: &mut Findings) {
    let mut groups: BTreeMap<String, Group> = BTreeMap::new();
    for found in context.vault.all_links() {
        let Resolution::Ambiguous { path, candidates } = found.resolution else { continue };
        if !context.is_subject(found.source) {
            continue;
        }
        let written = found.link.path.trim();
        let group = groups.entry(fold(written)).or_insert_with(|| Group {
            written: written.to_owned(),
            candidates: candidates.clone(),
            links: Vec::new(),
        });
        group.links.push((found.source.to_owned(), found.link.line, path.clone()));
    }
    for group in groups.into_values() {
        let chosen = distinct(group.links.iter().map(|(_, _, chosen)| chosen.clone()));
        let reasons: Vec<String> = group
            .links
            .iter()
            .map(|(source, line, chosen)| format!("{source}:{line} gets `{chosen}` because {}", why(source, &group.candidates)))
            .collect();
        let links = group.links.len();
        let mut proposal = Proposal::new(
            RULE.kind,
            group.written.clone(),
            format!(
                "`{}` matches {} files ({}); {links} link{} to it: {}",
                group.written,
                group.candidates.len(),
                group.candidates.join(", "),
                plural(links),
                reasons.join("; ")
            ),
            "Write the path of the file meant (such as `folder/Note`), or rename one of the files so the name is unique (move_note)."
                .to_owned(),
        );
        if let [only] = chosen.as_slice() {
            let to_target = link_target_for(context.vault, only);
            proposal.suggested_action = format!(
                "Make the links name `{only}` (the file they reach now) explicitly with rewrite_link, or point them at another candidate."
            );
            proposal.tool = Some("rewrite_link");
            proposal.tool_args = Some(json!({"from_target": group.written, "to_target": to_target}));
        }
        proposal.evidence = Some(json!({
            "links": group.links.iter().map(|(source, line, chosen)| json!({"source": source, "line": line, "chosen": chosen})).collect::<Vec<_>>(),
        }));
        proposal.related = group.candidates;
        findings.proposals.push(proposal);
    }
}

/// Why the resolver chose among `candidates` for a link in `source`, in the words of the step
/// of its rule that decided ([`resolve::decided_by`]).
fn why(source: &str, candidates: &[String]) -> &'static str {
    match resolve::decided_by(source, candidates) {
        Decision::LinkingFolder => "it is under the linking note's folder",
        Decision::ShortestPath => "it has the shortest path",
        Decision::Lexicographic => "it comes first in path order among the shortest paths",
    }
}
