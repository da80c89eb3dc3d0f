//! `duplicate-identity`: two or more notes known by the same name, by file name, `title`
//! property, first H1 or alias, compared without regard to case, spacing or Unicode
//! normalisation. Links by that name are then ambiguous or land on one of them, and a reader
//! cannot tell which page is the page. One finding per set of notes, with every shared name.

use std::collections::{BTreeMap, HashMap};

use serde_json::json;

use super::{identities, identity_key, Context, Example, Facet, Findings, Proposal, Rule};

pub const RULE: Rule = Rule {
    kind: crate::rule_names::DUPLICATE_IDENTITY.kind,
    code: crate::rule_names::DUPLICATE_IDENTITY.code,
    summary: "Notes that share a file name, title, H1 or alias.",
    examples: &[
        Example {
            name: "a file name, an alias and an H1",
            vault: "//- a/Rust.md\n# Rust\n//- b/rust.md\n//- Ferris.md\n---\naliases: [RUST]\n---\n//- Other.md\n# Other\n",
            expected: &["duplicate_identity Ferris.md -> a/Rust.md, b/rust.md"],
        },
        Example {
            name: "one note's own names agree",
            vault: "//- Café.md\n---\ntitle: Cafe\u{301}\naliases: [café]\n---\n# CAFÉ\n",
            expected: &[],
        },
    ],
    check,
};

/// The most notes one finding lists (in its message, `related` and each shared name's notes);
/// `note_count` in its evidence counts them all. A name shared by hundreds of notes is one
/// finding of bounded size.
pub const MAX_NOTES_LISTED: usize = 20;

/// A note known by a name: its path, the facet, the name as written.
type Holder<'a> = (&'a str, Facet, &'a str);

fn check(context: &Context<'_>, findings: &mut Findings) {
    // Every name, to the notes known by it and how.
    let mut names: HashMap<String, Vec<Holder<'_>>> = HashMap::new();
    for note in context.vault.notes() {
        if super::is_schema_file(note.path) {
            continue;
        }
        for (facet, name) in identities(&note) {
            let holders = names.entry(identity_key(name)).or_default();
            if !holders.iter().any(|(path, _, _)| *path == note.path) {
                holders.push((note.path, facet, name));
            }
        }
    }
    // Sets of notes sharing names, each with the names they share.
    let mut sets: BTreeMap<Vec<&str>, Vec<(String, Vec<Holder<'_>>)>> = BTreeMap::new();
    for (key, holders) in names {
        if holders.len() < 2 || !holders.iter().any(|(path, _, _)| context.is_subject(path)) {
            continue;
        }
        let mut paths: Vec<&str> = holders.iter().map(|(path, _, _)| *path).collect();
        paths.sort_unstable();
        sets.entry(paths).or_default().push((key, holders));
    }
    for (paths, mut shared) in sets {
        shared.sort_by(|left, right| left.0.cmp(&right.0));
        let Some(subject) = paths.iter().copied().find(|path| context.is_subject(path)) else { continue };
        let how: Vec<String> = shared
            .iter()
            .map(|(_, holders)| {
                let mut each: Vec<String> = holders
                    .iter()
                    .take(MAX_NOTES_LISTED)
                    .map(|(path, facet, name)| format!("`{path}` by its {} `{name}`", facet.describe()))
                    .collect();
                if holders.len() > MAX_NOTES_LISTED {
                    each.push(format!("and {} more", holders.len() - MAX_NOTES_LISTED));
                }
                each.join(", ")
            })
            .collect();
        let mut proposal = Proposal::new(
            RULE.kind,
            subject,
            format!("{} notes go by the same name: {}", paths.len(), how.join("; ")),
            "If they are one topic, merge them into one note; otherwise rename one (move_note) or drop the shared alias or title, so that the name finds one page."
                .to_owned(),
        );
        proposal.related = paths.iter().filter(|path| **path != subject).take(MAX_NOTES_LISTED).map(|path| (*path).to_owned()).collect();
        // Evidence is always an object, as the tool's output schema says; the notes are listed
        // up to the bound, and counted in full.
        proposal.evidence = Some(json!({"note_count": paths.len(), "shared_names": shared
            .iter()
            .take(MAX_NOTES_LISTED)
            .map(|(key, holders)| json!({
                "name": key,
                "note_count": holders.len(),
                "notes": holders.iter().take(MAX_NOTES_LISTED).map(|(path, facet, name)| json!({"path": path, "facet": facet, "as_written": name})).collect::<Vec<_>>(),
            }))
            .collect::<Vec<_>>()}));
        findings.proposals.push(proposal);
    }
}
