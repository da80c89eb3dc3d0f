//! `find_existing_page`: whether the vault already has a page on a topic (`exists`,
//! `ambiguous` or `new`), with the candidates and their evidence, and the links already
//! written to it that find no note. `draft_wiki_page` starts from it.

use serde::{Deserialize, Serialize};

use crate::answer::{OpError, ResponseFormat, MAX_LIMIT};
use crate::index::NoteView;
use crate::resolve::{self, Resolution};
use crate::words::{shared_words, topic_words};
use crate::Vault;

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FindPageArguments {
    /// The topic a page would be about: a name, a path, or a Wikidata QID.
    pub topic: String,
    /// The most candidates returned; 10 when left out.
    pub limit: Option<usize>,
    #[serde(default)]
    pub response_format: ResponseFormat,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExistingPage {
    pub topic: String,
    /// `exists` (exactly one note is known by the topic), `ambiguous` (several, or only soft
    /// evidence) or `new`.
    pub verdict: &'static str,
    /// Why, in one sentence.
    pub reason: String,
    pub candidates: Vec<PageCandidate>,
    /// Links already written to the topic that find no note.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unresolved_links: Option<UnresolvedMentions>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PageCandidate {
    pub path: String,
    /// `identity` (the note is known by the topic) or `soft` (shared words only).
    pub strength: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Vec<PageEvidence>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PageEvidence {
    /// `path`, `file_name`, `alias`, `title_property`, `h1`, `wikidata` or `word_overlap`.
    pub kind: &'static str,
    /// The name, QID or title that matched, as written in the note.
    pub value: String,
    /// For `word_overlap`: the share of the topic's words found, in percent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score_percent: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnresolvedMentions {
    pub links: usize,
    /// The notes holding them (at most 20).
    pub sources: Vec<String>,
}

/// Unresolved-link sources listed by `find_existing_page`.
const MAX_MENTION_SOURCES: usize = 20;
/// Candidates `find_existing_page` returns when no `limit` is given.
const DEFAULT_CANDIDATES: usize = 10;

pub fn find_existing_page(vault: &Vault, arguments: &FindPageArguments) -> Result<ExistingPage, OpError> {
    find(vault, arguments, Compared::Concerned)
}

/// [`find_existing_page`] as it was before the index of names: the topic compared with every
/// note of the vault. The reference the indexed lookup is tested against (the two answer
/// alike), and the figure it is measured beside; nothing else calls it.
pub fn find_existing_page_comparing_every_note(vault: &Vault, arguments: &FindPageArguments) -> Result<ExistingPage, OpError> {
    find(vault, arguments, Compared::Every)
}

/// Which notes the topic is compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Compared {
    /// Only those the index of names gives ([`Vault::notes_concerning`]).
    Concerned,
    /// Every note.
    Every,
}

fn find(vault: &Vault, arguments: &FindPageArguments, compared: Compared) -> Result<ExistingPage, OpError> {
    use crate::lint::{identities, identity_key, note_stem, page_key, same_identity, same_page_name, Facet};
    use crate::pages::wikidata_qid;
    let topic = arguments.topic.trim();
    if topic.is_empty() {
        return Err(OpError::InvalidArguments { detail: "`topic` is empty; give the name of the page you mean to write".to_owned() });
    }
    let limit = arguments.limit.unwrap_or(DEFAULT_CANDIDATES);
    if limit == 0 || limit > MAX_LIMIT {
        return Err(OpError::InvalidArguments { detail: format!("`limit` must be from 1 to {MAX_LIMIT}, not {limit}") });
    }
    let qid = wikidata_qid(topic);
    let by_path = vault.find_note(topic).filter(|_| topic.contains('/') || topic.to_ascii_lowercase().ends_with(".md"));
    let name = note_stem(resolve::file_name(topic));
    let key = identity_key(name);
    let page = page_key(name);
    let words = topic_words(name);
    let mut identity: Vec<PageCandidate> = Vec::new();
    // Soft matches stay borrowed until the few that are returned are known: a common word can
    // match thousands of names.
    let mut soft: Vec<(u32, usize, &str, &str)> = Vec::new();
    // The notes compared, in path order: with the index, only those filed under the topic's
    // name, its Wikidata item or enough of its words, and the note its path names (a superset
    // of those that match, compared below alike).
    let concerned: Vec<NoteView<'_>> = match compared {
        Compared::Every => vault.notes().collect(),
        Compared::Concerned => {
            let mut notes = vault.notes_concerning(&page, qid.as_deref(), &words);
            if let Some(note) = by_path.and_then(|path| vault.note(path)) {
                if let Err(at) = notes.binary_search_by(|held| held.path.cmp(note.path)) {
                    notes.insert(at, note);
                }
            }
            notes
        }
    };
    for note in concerned {
        let mut evidence = Vec::new();
        if by_path == Some(note.path) {
            evidence.push(PageEvidence { kind: "path", value: note.path.to_owned(), score_percent: None });
        }
        let names = identities(&note);
        for (facet, written) in names.clone() {
            if same_page_name(&page, written) {
                let kind = match facet {
                    Facet::FileName => "file_name",
                    Facet::Alias => "alias",
                    Facet::TitleProperty => "title_property",
                    Facet::H1 => "h1",
                };
                evidence.push(PageEvidence { kind, value: written.to_owned(), score_percent: None });
            }
        }
        if let (Some(qid), Some(held)) = (&qid, note.facts.property_text("wikidata")) {
            if wikidata_qid(held).as_ref() == Some(qid) {
                evidence.push(PageEvidence { kind: "wikidata", value: held.to_owned(), score_percent: None });
            }
        }
        if !evidence.is_empty() {
            identity.push(PageCandidate { path: note.path.to_owned(), strength: "identity", evidence: Some(evidence) });
            continue;
        }
        if words.is_empty() {
            continue;
        }
        // Soft evidence: the share of the topic's words found in one of the note's names.
        let best = names.into_iter().map(|(_, written)| (shared_words(&words, written), written)).max_by_key(|(shared, _)| *shared);
        if let Some((shared, written)) = best.filter(|(shared, _)| *shared > 0 && shared * 2 >= words.len()) {
            let percent = u32::try_from(shared * 100 / words.len()).unwrap_or(100);
            soft.push((percent, shared, note.path, written));
        }
    }
    soft.sort_unstable_by(|left, right| right.0.cmp(&left.0).then(right.1.cmp(&left.1)).then(left.2.cmp(right.2)));
    // Links already written to the topic that find nothing.
    let mut mentions = 0;
    let mut sources: Vec<String> = Vec::new();
    for (source, index) in vault.links_watching(&resolve::watch_key(name)) {
        let Some(found) = vault.outgoing_links(source).and_then(|links| links.into_iter().nth(index)) else { continue };
        if *found.resolution == Resolution::Unresolved && same_identity(&key, note_stem(resolve::file_name(found.link.path.trim()))) {
            mentions += 1;
            if !sources.iter().any(|known| known == source) {
                sources.push(source.to_owned());
            }
        }
    }
    sources.sort();
    sources.truncate(MAX_MENTION_SOURCES);
    let unresolved_links = (mentions > 0).then_some(UnresolvedMentions { links: mentions, sources });
    let (verdict, reason) = match identity.as_slice() {
        [only] => ("exists", format!("`{}` is known by this topic; edit it rather than writing a new page", only.path)),
        [_, _, ..] => ("ambiguous", format!("{} notes are known by this topic; choose one, or merge them", identity.len())),
        [] if !soft.is_empty() || mentions > 0 => (
            "ambiguous",
            format!(
                "no note is known by this topic, but {}: check them before writing a new page",
                match (soft.len(), mentions) {
                    (0, links) => format!("{links} link(s) already point to it unresolved"),
                    (notes, 0) => format!("{notes} note(s) have names sharing its words"),
                    (notes, links) =>
                        format!("{notes} note(s) have names sharing its words and {links} link(s) already point to it unresolved"),
                }
            ),
        ),
        [] => ("new", "no note is known by this topic or shares its words; a new page is welcome".to_owned()),
    };
    let mut candidates = identity;
    candidates.truncate(limit);
    let room = limit - candidates.len();
    candidates.extend(soft.into_iter().take(room).map(|(percent, _, path, written)| PageCandidate {
        path: path.to_owned(),
        strength: "soft",
        evidence: Some(vec![PageEvidence { kind: "word_overlap", value: written.to_owned(), score_percent: Some(percent) }]),
    }));
    if arguments.response_format == ResponseFormat::Concise {
        candidates.iter_mut().for_each(|candidate| candidate.evidence = None);
    }
    Ok(ExistingPage { topic: topic.to_owned(), verdict, reason, candidates, unresolved_links })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::IndexConfig;

    fn find(vault: &Vault, topic: &str) -> Vec<(String, &'static str)> {
        let arguments = FindPageArguments { topic: topic.to_owned(), limit: None, response_format: ResponseFormat::Detailed };
        let page = find_existing_page(vault, &arguments).expect("a topic");
        page.candidates.into_iter().map(|candidate| (candidate.path, candidate.strength)).collect()
    }

    #[test]
    fn the_name_index_follows_edits_renames_and_removals() {
        let mut vault = Vault::new(IndexConfig::obsidian_defaults());
        vault.upsert("Spells/Prismatic Spray.md", "# Prismatic Spray\n");
        vault.upsert("Notes/Colours.md", "---\naliases: [Rainbow light]\n---\n");
        vault.upsert("Items/Spray Can.md", "text\n");
        assert_eq!(
            find(&vault, "prismatic-spray"),
            vec![("Spells/Prismatic Spray.md".to_owned(), "identity"), ("Items/Spray Can.md".to_owned(), "soft")]
        );
        assert_eq!(find(&vault, "Rainbow Light"), vec![("Notes/Colours.md".to_owned(), "identity")]);
        // An alias taken out and another written: the old name no longer finds the note.
        vault.upsert("Notes/Colours.md", "---\naliases: [Spectrum]\nwikidata: Q1075\n---\n");
        assert_eq!(find(&vault, "Rainbow Light"), vec![]);
        assert_eq!(find(&vault, "spectrum"), vec![("Notes/Colours.md".to_owned(), "identity")]);
        assert_eq!(find(&vault, "https://www.wikidata.org/wiki/Q1075"), vec![("Notes/Colours.md".to_owned(), "identity")]);
        // Word overlap finds both notes holding "spray"; a rename moves the file name's words.
        assert_eq!(
            find(&vault, "spray"),
            vec![("Items/Spray Can.md".to_owned(), "soft"), ("Spells/Prismatic Spray.md".to_owned(), "soft")]
        );
        assert!(vault.rename("Items/Spray Can.md", "Items/Aerosol.md"));
        assert_eq!(find(&vault, "spray"), vec![("Spells/Prismatic Spray.md".to_owned(), "soft")]);
        assert_eq!(find(&vault, "aerosol"), vec![("Items/Aerosol.md".to_owned(), "identity")]);
        assert!(vault.remove("Spells/Prismatic Spray.md"));
        assert_eq!(find(&vault, "spray"), vec![]);
        // A path finds its note even when no name matches the way it is written.
        assert_eq!(find(&vault, "Notes/Colours.md"), vec![("Notes/Colours.md".to_owned(), "identity")]);
    }
}
