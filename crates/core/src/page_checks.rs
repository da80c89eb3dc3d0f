//! What `commit_wiki_page` checks about a new page against the vault it joins, beyond its own
//! rules: whether it duplicates a note the vault already knows by one of its names (refused,
//! `duplicate_page`, unless `allow_duplicate`), and whether its file name would change where links
//! that find a note today lead (refused always: a second page may be meant, a broken link never);
//! and what is worth fixing without blocking the write, reported in every answer as `problems`.

use serde::Serialize;

use crate::error::{ErrorCode, Failure};
use crate::existing::{find_existing_page, FindPageArguments};
use crate::resolve::{self, Resolution};
use crate::Vault;

/// One existing note the new page duplicates, and the name they share.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duplicate {
    /// The existing note.
    pub existing: String,
    /// Which of the new page's names matched: `file_name`, `alias`, `title_property`, `h1` or
    /// `wikidata`.
    pub facet: &'static str,
    /// That name, as the new page writes it.
    pub name: String,
    /// How the existing note is known by it (its evidence kind), as `find_existing_page` says.
    pub found_by: &'static str,
}

/// A link that finds a note today and would find another, or several, once the page is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangedLink {
    pub source: String,
    pub line: u32,
    pub target: String,
    /// The note it finds today.
    pub now: String,
    /// What it would find: the new page, or several notes.
    pub then: Vec<String>,
}

/// Why the page is refused as a duplicate, or because of links it would change. Nothing is
/// written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicatePage {
    pub path: String,
    pub duplicates: Vec<Duplicate>,
    pub changed_links: Vec<ChangedLink>,
}

/// Changed links a refusal lists; it counts the rest.
const MAX_LISTED_LINKS: usize = 20;

impl Failure for DuplicatePage {
    fn code(&self) -> ErrorCode {
        ErrorCode::DuplicatePage
    }

    fn message(&self) -> String {
        let mut said = Vec::new();
        for duplicate in &self.duplicates {
            said.push(format!(
                "its {} \"{}\" is how `{}` is known already ({})",
                facet_words(duplicate.facet),
                duplicate.name,
                duplicate.existing,
                facet_words(duplicate.found_by)
            ));
        }
        if !self.changed_links.is_empty() {
            let listed: Vec<String> = self
                .changed_links
                .iter()
                .take(MAX_LISTED_LINKS)
                .map(|link| {
                    let then = match link.then.as_slice() {
                        [only] => format!("`{only}`"),
                        several => format!("any of {}", several.iter().map(|path| format!("`{path}`")).collect::<Vec<_>>().join(", ")),
                    };
                    format!("`{}` line {} `{}` finds `{}` today and would find {then}", link.source, link.line, link.target, link.now)
                })
                .collect();
            let more = self.changed_links.len().saturating_sub(MAX_LISTED_LINKS);
            said.push(format!(
                "its file name would change where {} link(s) lead: {}{}",
                self.changed_links.len(),
                listed.join(", "),
                if more > 0 { format!(", and {more} more") } else { String::new() }
            ));
        }
        format!("the page `{}` is refused, nothing was changed: {}", self.path, said.join("; "))
    }

    fn hint(&self) -> &'static str {
        if self.duplicates.is_empty() {
            "Choose a file name no note of the vault has (the links named would otherwise lead elsewhere), then commit again."
        } else {
            "Edit the existing note instead (update_properties, or a patch); give `allow_duplicate: true` only when a second page \
on the topic is meant. A file name that changes where links lead is refused either way: choose another."
        }
    }
}

fn facet_words(kind: &str) -> &str {
    match kind {
        "file_name" => "file name",
        "title_property" => "`title` property",
        "h1" => "first H1",
        "wikidata" => "Wikidata item",
        "path" => "path",
        other => other,
    }
}

/// The existing notes `find_existing_page` would call the page's topic by one of the new page's
/// names (its file name, aliases, `title`, first H1, Wikidata item), in `vault` as it is
/// before the page. The page at `path` must be in `after` (the vault with the page).
pub fn duplicates(vault: &Vault, after: &Vault, path: &str) -> Vec<Duplicate> {
    let Some(page) = after.note(path) else { return Vec::new() };
    let mut asked: Vec<(&'static str, String)> =
        crate::lint::identities(&page).map(|(facet, name)| (facet_kind(facet), name.to_owned())).collect();
    if let Some(qid) = page.facts.property_text("wikidata").and_then(crate::pages::wikidata_qid) {
        asked.push(("wikidata", qid));
    }
    let mut found: Vec<Duplicate> = Vec::new();
    for (facet, name) in asked {
        // A name holding `/` would be read as a path; such a name is compared by its last part.
        let topic = name.replace('/', " ");
        let arguments = FindPageArguments { topic, limit: Some(crate::answer::MAX_LIMIT), response_format: Default::default() };
        let Ok(answer) = find_existing_page(vault, &arguments) else { continue };
        for candidate in answer.candidates.into_iter().filter(|candidate| candidate.strength == "identity") {
            if candidate.path == path || found.iter().any(|known| known.existing == candidate.path) {
                continue;
            }
            let found_by = candidate.evidence.as_ref().and_then(|evidence| evidence.first()).map_or("name", |evidence| evidence.kind);
            found.push(Duplicate { existing: candidate.path, facet, name: name.clone(), found_by });
        }
    }
    found
}

/// The notes whose names share words with the page's file name without being known by it: a
/// possible duplicate, reported but not refused.
pub fn possible_duplicates(vault: &Vault, path: &str) -> Vec<String> {
    let stem = crate::lint::note_stem(resolve::file_name(path)).to_owned();
    let arguments = FindPageArguments { topic: stem, limit: Some(crate::answer::MAX_LIMIT), response_format: Default::default() };
    let Ok(answer) = find_existing_page(vault, &arguments) else { return Vec::new() };
    answer.candidates.into_iter().filter(|candidate| candidate.strength == "soft").map(|candidate| candidate.path).collect()
}

fn facet_kind(facet: crate::pages::Facet) -> &'static str {
    match facet {
        crate::pages::Facet::FileName => "file_name",
        crate::pages::Facet::Alias => "alias",
        crate::pages::Facet::TitleProperty => "title_property",
        crate::pages::Facet::H1 => "h1",
    }
}

/// The links of other notes that find a note in `vault` and would find the page, or several
/// notes, in `after` (the same vault with only the page at `path` added).
pub fn changed_links(vault: &Vault, after: &Vault, path: &str) -> Vec<ChangedLink> {
    let mut changed = Vec::new();
    for (source, index) in after.links_watching(&resolve::watch_key(path)) {
        if source == path {
            continue;
        }
        let Some(before) = vault.outgoing_links(source).and_then(|links| links.into_iter().nth(index)) else { continue };
        let Some(then) = after.outgoing_links(source).and_then(|links| links.into_iter().nth(index)) else { continue };
        let Some(now) = before.resolution.path() else { continue };
        let leads = match then.resolution {
            Resolution::Resolved { path: found } if found == now => continue,
            Resolution::Ambiguous { path: chosen, .. } if chosen == now && matches!(before.resolution, Resolution::Ambiguous { .. }) => {
                continue
            }
            Resolution::Resolved { path: found } => vec![found.clone()],
            Resolution::Ambiguous { candidates, .. } => candidates.clone(),
            Resolution::Unresolved => Vec::new(),
        };
        changed.push(ChangedLink {
            source: source.to_owned(),
            line: before.link.line,
            target: before.link.target.clone(),
            now: now.to_owned(),
            then: leads,
        });
    }
    changed.sort_by(|left, right| left.source.cmp(&right.source).then(left.line.cmp(&right.line)));
    changed
}

/// Something worth fixing that does not block the write, and the note it concerns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PageProblem {
    /// `no_inbound_link`, `possible_duplicate`, `missing_link`, `patch_without_link` or
    /// `unresolved_in_page`.
    pub code: &'static str,
    pub path: String,
    /// What is wrong and what to do, in a sentence.
    pub detail: String,
}

/// The problems of a commit that passes every rule, found in `after` (the vault with the page
/// and the patches): no other note links the page; a note shares words with its name, or is
/// known by one of its names and `allow_duplicate` let the page through (`duplicates`); a note
/// whose hash the commit gives in `prev_hashes` (as a draft's skeleton does for each note it
/// proposes to patch) is neither patched nor linking the page; an `append` patch whose text
/// does not link the page; a link of the page left unresolved by `allow_unresolved`.
pub fn problems(
    vault: &Vault,
    after: &Vault,
    page: &str,
    arguments: &crate::wiki_request::CommitArguments,
    duplicates: &[Duplicate],
) -> Vec<PageProblem> {
    let mut found: Vec<PageProblem> = Vec::new();
    let links_page = |note: &str| after.outgoing_links(note).unwrap_or_default().iter().any(|link| link.resolution.path() == Some(page));
    if !after.backlinks(page).iter().any(|link| link.source != page) {
        found.push(PageProblem {
            code: "no_inbound_link",
            path: page.to_owned(),
            detail: "no other note links the page: add a `link` patch from a note that mentions its topic".to_owned(),
        });
    }
    for duplicate in duplicates {
        found.push(PageProblem {
            code: "possible_duplicate",
            path: duplicate.existing.clone(),
            detail: format!(
                "is known by the page's {} \"{}\" already (the page is written beside it because `allow_duplicate` is given); merge them if they are one topic",
                facet_words(duplicate.facet),
                duplicate.name
            ),
        });
    }
    for similar in possible_duplicates(vault, page) {
        if duplicates.iter().any(|duplicate| duplicate.existing == similar) {
            continue;
        }
        found.push(PageProblem {
            code: "possible_duplicate",
            path: similar,
            detail: "has a name sharing the page's words: check it is not the same topic".to_owned(),
        });
    }
    let patched: Vec<Option<&str>> = arguments.patches.iter().map(|patch| vault.find_note(&patch.path)).collect();
    for asked in arguments.prev_hashes.keys() {
        let Some(note) = vault.find_note(asked) else { continue };
        if !patched.contains(&Some(note)) && !links_page(note) {
            found.push(PageProblem {
                code: "missing_link",
                path: note.to_owned(),
                detail: "was read for this commit (its hash is in `prev_hashes`, as a draft proposes it) but is neither patched nor \
linking the page: add a `link` patch, or leave it out of `prev_hashes`"
                    .to_owned(),
            });
        }
    }
    for (patch, note) in arguments.patches.iter().zip(&patched) {
        let (Some(note), Some(text), crate::wiki_request::PatchKind::Append) = (note, patch.text.as_deref(), patch.kind) else { continue };
        let parsed = crate::parse::parse_note(note, text, &after.config().parse);
        let links = parsed.links.iter().any(|link| resolve::resolve(after, note, link).path() == Some(page));
        if !links && !found.iter().any(|known| known.code == "patch_without_link" && known.path == *note) {
            found.push(PageProblem {
                code: "patch_without_link",
                path: (*note).to_owned(),
                detail: "an `append` patch adds text that does not link the page: link it in the text, or add a `link` patch".to_owned(),
            });
        }
    }
    for link in after.outgoing_links(page).unwrap_or_default() {
        if matches!(link.resolution, Resolution::Unresolved) && !link.link.path.trim().is_empty() {
            found.push(PageProblem {
                code: "unresolved_in_page",
                path: page.to_owned(),
                detail: format!(
                    "line {}: the link `{}` finds no note yet (let through by `allow_unresolved`): write that page next",
                    link.link.line, link.link.target
                ),
            });
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::vault_with;

    fn with(vault: &Vault, path: &str, text: &str) -> Vault {
        let mut after = vault.clone();
        after.upsert(path, text);
        after
    }

    #[test]
    fn a_page_known_by_an_existing_notes_name_is_a_duplicate() {
        let (vault, _) = vault_with(&[
            ("Forgetting curve.md", "# Forgetting curve\n"),
            ("People/Ebbinghaus.md", "---\nwikidata: Q57142\n---\n"),
            ("Memory span.md", "text\n"),
        ]);
        let path = "Learning/Ebbinghaus curve.md";
        let text = "---\naliases: [Forgetting Curve]\nwikidata: https://www.wikidata.org/wiki/Q57142\n---\n# Ebbinghaus curve\n";
        let found = duplicates(&vault, &with(&vault, path, text), path);
        let named: Vec<(&str, &str)> = found.iter().map(|duplicate| (duplicate.existing.as_str(), duplicate.facet)).collect();
        assert_eq!(named, [("Forgetting curve.md", "alias"), ("People/Ebbinghaus.md", "wikidata")]);
        // Shared words alone make no duplicate.
        let other = "Learning/Memory palace.md";
        assert!(duplicates(&vault, &with(&vault, other, "# Memory palace\n"), other).is_empty());
        assert_eq!(possible_duplicates(&vault, other), ["Memory span.md"]);
    }

    #[test]
    fn a_page_whose_name_other_links_find_changes_them() {
        let (vault, _) = vault_with(&[
            ("Darkvision.md", "# Darkvision\n"),
            ("Races/Elf.md", "Elves have [[Darkvision]] and see [[Spells/rules/Darkvision]].\n"),
            ("Races/Dwarf.md", "[[Darkvision.md]]\n"),
        ]);
        let path = "Spells/rules/Darkvision.md";
        let after = with(&vault, path, "# Darkvision (rule)\n");
        let changed = changed_links(&vault, &after, path);
        let said: Vec<(&str, &str)> = changed.iter().map(|link| (link.source.as_str(), link.target.as_str())).collect();
        assert_eq!(said, [("Races/Dwarf.md", "Darkvision.md"), ("Races/Elf.md", "Darkvision")], "{changed:?}");
        assert!(changed.iter().all(|link| link.now == "Darkvision.md" && link.then.len() == 2), "{changed:?}");
        // A name no link finds changes none.
        let elsewhere = "Spells/rules/Low-light vision.md";
        assert!(changed_links(&vault, &with(&vault, elsewhere, "x\n"), elsewhere).is_empty());
    }
}
