//! `find_existing_page`: whether the vault already has a page on a topic (`exists`,
//! `ambiguous` or `new`), with the candidates and their evidence, and the links already
//! written to it that find no note. `draft_wiki_page` starts from it.

use serde::{Deserialize, Serialize};

use crate::answer::{OpError, ResponseFormat, MAX_LIMIT};
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

/// The Wikidata item a text names: `Q42`, or a Wikidata address ending in it.
fn wikidata_qid(text: &str) -> Option<String> {
    let text = text.trim().trim_end_matches('/');
    let last = text.rsplit(['/', ':']).next().unwrap_or(text);
    let digits = last.strip_prefix(['Q', 'q'])?;
    let is_qid = !digits.is_empty() && digits.len() <= 12 && digits.bytes().all(|byte| byte.is_ascii_digit());
    let looks_right = last.len() == text.len() || text.contains("wikidata");
    (is_qid && looks_right).then(|| format!("Q{digits}"))
}

pub fn find_existing_page(vault: &Vault, arguments: &FindPageArguments) -> Result<ExistingPage, OpError> {
    use crate::lint::{identities, identity_key, note_stem, page_key, same_identity, same_page_name, Facet};
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
    for note in vault.notes() {
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
