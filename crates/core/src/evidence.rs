//! `find_evidence`: which notes mention a concept, ranked, each with a short prose excerpt.
//!
//! A note matches in one of three strengths, strongest first:
//! - `title`: the note is known by the concept's name (file name, alias, `title`, first H1);
//! - `frontmatter`: a property links to such a note, links to the name unresolved, or holds
//!   the name in its value;
//! - `body`: the body's prose says the name, or a body link reaches such a note.
//!
//! Matches are ranked by strength, then by how many of the title's words the note's own names
//! share, then by path, so the same vault gives the same answer. Names are compared as
//! everywhere in vaultlink: without regard to case, spacing or Unicode normalisation, on word
//! boundaries.
//!
//! The index keeps no note text, so the caller hands each note's text through `read`; an edge
//! that cannot read a note returns `None`, and the note is listed under `unread` (matched from
//! the index alone) rather than silently dropped. A note whose text cannot contain the name and
//! that no link ties to it is never parsed.

use std::collections::HashSet;

use pulldown_cmark::{Event, Parser, Tag, TagEnd};
use serde::{Deserialize, Serialize};

use crate::answer::{page_with_default, OpError, ResponseFormat, MAX_LIMIT};
use crate::frontmatter::find_block;
use crate::inflect::find_inflected;
use crate::line_index::LineCounter;
use crate::lint::{identities, identity_key, note_stem, page_key, same_identity};
use crate::parse::{markdown_options, LinkKind, LinkSource};
use crate::resolve::{file_name, fold, Resolution};
use crate::words::{shared_words, topic_words};
use crate::Vault;

/// Matches returned when the caller gives no `limit`.
pub const DEFAULT_EVIDENCE_LIMIT: usize = 50;
/// The longest excerpt, in characters, the ellipses included.
pub const MAX_EXCERPT_CHARS: usize = 200;
/// The longest title accepted, in characters.
pub const MAX_TITLE_CHARS: usize = 200;
/// The most near titles a growth hint names, and the most unread notes listed.
const MAX_LISTED: usize = 10;

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvidenceArguments {
    /// The concept's name, as a page about it would be titled.
    pub title: String,
    /// The most matches returned; 50 when left out (and then a page also ends near
    /// `ops::DEFAULT_PAGE_BYTES`).
    pub limit: Option<usize>,
    /// Where to continue: the `next_cursor` of the previous page.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Only the matching notes, without excerpts or lines.
    #[serde(default)]
    pub nodes_only: bool,
    #[serde(default)]
    pub response_format: ResponseFormat,
}

/// How strongly a note is tied to the concept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Strength {
    Title,
    Frontmatter,
    Body,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EvidenceMatch {
    pub path: String,
    #[serde(rename = "match")]
    pub strength: Strength,
    /// Mentions in the body's prose and links to the concept, body and properties.
    pub mentions: u32,
    /// The share of the title's words found in one of the note's own names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub word_overlap_percent: Option<u32>,
    /// 1-based line where the excerpt starts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// At most [`MAX_EXCERPT_CHARS`] characters of prose: around the first mention, or the
    /// note's opening prose for a title match.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub excerpt: Option<String>,
}

/// What to do when nothing matched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GrowthHint {
    pub message: String,
    /// Notes whose names are near the title: sharing its words, or spelt almost alike.
    pub near_titles: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Evidence {
    pub title: String,
    /// Every note that matched, on this page or not.
    pub total: usize,
    /// True when more notes matched than this page holds (`next_cursor` then says where to go on).
    pub limited: bool,
    pub matches: Vec<EvidenceMatch>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub growth_hint: Option<GrowthHint>,
    /// Notes whose text could not be read, so only their links and properties were checked.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unread: Vec<String>,
}

/// Finds the notes that mention `arguments.title`; `read` gives a note's text by path.
pub fn find_evidence(
    vault: &Vault,
    arguments: &EvidenceArguments,
    read: &mut dyn FnMut(&str) -> Option<String>,
) -> Result<Evidence, OpError> {
    let title = arguments.title.trim();
    let title = title.strip_prefix("[[").and_then(|rest| rest.strip_suffix("]]")).unwrap_or(title).trim();
    if title.is_empty() {
        return Err(OpError::InvalidArguments { detail: "`title` is empty; give the name of the concept".to_owned() });
    }
    if title.chars().count() > MAX_TITLE_CHARS {
        return Err(OpError::InvalidArguments {
            detail: format!("`title` is longer than {MAX_TITLE_CHARS} characters; give the concept's name, not a passage"),
        });
    }
    let limit = arguments.limit.unwrap_or(DEFAULT_EVIDENCE_LIMIT);
    if limit == 0 || limit > MAX_LIMIT {
        return Err(OpError::InvalidArguments { detail: format!("`limit` must be from 1 to {MAX_LIMIT}, not {limit}") });
    }
    let key = identity_key(title);
    let words = topic_words(title);
    let named: HashSet<&str> =
        vault.notes().filter(|note| identities(note).any(|(_, name)| same_identity(&key, name))).map(|note| note.path).collect();
    // The cheap filter looks for the first word without an ending it may lose (`y`, `s`), so
    // that every inflection passes it.
    let first_word = key.split(' ').next().unwrap_or(&key);
    let first_word = if first_word.len() > 3 { first_word.trim_end_matches(['y', 's']) } else { first_word }.to_owned();
    let mut found: Vec<(EvidenceMatch, usize)> = Vec::new();
    let mut unread = Vec::new();
    for note in vault.notes() {
        if vault.is_excluded(note.path) {
            continue;
        }
        let mut strength = named.contains(note.path).then_some(Strength::Title);
        let mut link_mentions = 0u32;
        let mut said_in_links = 0u32;
        // The first body line with a link to the concept, for the excerpt.
        let mut link_line = None;
        for link in vault.outgoing_links(note.path).unwrap_or_default() {
            let to_concept = match link.resolution {
                Resolution::Unresolved => same_identity(&key, note_stem(file_name(link.link.path.trim()))),
                resolution => resolution.path().is_some_and(|target| named.contains(target) && target != note.path),
            };
            if !to_concept {
                continue;
            }
            link_mentions += 1;
            match link.link.source {
                LinkSource::Property { .. } => strength = strongest(strength, Strength::Frontmatter),
                LinkSource::Body | LinkSource::CanvasText { .. } | LinkSource::CanvasFile { .. } => {
                    // A link whose written text says the name is counted with the prose.
                    if says_name(&link.link, &key) {
                        said_in_links += 1;
                    }
                    strength = strongest(strength, Strength::Body);
                    link_line = link_line.or(Some(link.link.line));
                }
            }
        }
        let in_properties =
            note.facts.properties.iter().flat_map(|property| &property.values).any(|value| find_phrase(&fold(value), &key).is_some());
        if in_properties {
            strength = strongest(strength, Strength::Frontmatter);
        }
        let mut scan = Scan::default();
        let mut mentions = link_mentions;
        match read(note.path) {
            Some(text) => {
                let may_say_it = strength.is_some() || may_contain(&text, &first_word);
                if may_say_it {
                    scan = scan_prose(&text, &key, link_line);
                    mentions = link_mentions - said_in_links.min(scan.mentions) + scan.mentions;
                    if scan.mentions > 0 {
                        strength = strongest(strength, Strength::Body);
                    }
                }
            }
            None => unread.push(note.path.to_owned()),
        }
        let Some(strength) = strength else { continue };
        let overlap = best_overlap(&words, identities(&note));
        let excerpt = match strength {
            Strength::Title => scan.opening.or(scan.mention),
            _ => scan.mention.or(scan.at_link).or(scan.opening),
        };
        let (line, excerpt) = match excerpt {
            Some((line, excerpt)) => (Some(line), Some(excerpt)),
            None => (None, None),
        };
        found.push((
            EvidenceMatch { path: note.path.to_owned(), strength, mentions, word_overlap_percent: Some(overlap), line, excerpt },
            overlap as usize,
        ));
    }
    found.sort_by(|(left, left_overlap), (right, right_overlap)| {
        left.strength.cmp(&right.strength).then(right_overlap.cmp(left_overlap)).then(left.path.cmp(&right.path))
    });
    let mut ranked: Vec<EvidenceMatch> = found.into_iter().map(|(found, _)| found).collect();
    for found in &mut ranked {
        if arguments.nodes_only {
            found.line = None;
            found.excerpt = None;
        }
        if arguments.response_format == ResponseFormat::Concise {
            found.word_overlap_percent = None;
        }
    }
    let (matches, total, next_cursor) = page_with_default(
        ranked,
        arguments.limit,
        arguments.cursor.as_deref(),
        DEFAULT_EVIDENCE_LIMIT,
        &format!("find_evidence\0{title}\0{}", arguments.nodes_only),
    )?;
    let growth_hint = (total == 0).then(|| growth_hint(vault, title, &key, &words));
    unread.truncate(MAX_LISTED);
    Ok(Evidence { title: title.to_owned(), total, limited: next_cursor.is_some(), matches, next_cursor, growth_hint, unread })
}

/// True when the written text of `link` holds `key` where the prose reader sees it: a
/// wikilink's whole text, a Markdown link's display text.
fn says_name(link: &crate::Link, key: &str) -> bool {
    let holds = |text: &str| find_phrase(&fold(text), key).is_some();
    let display = link.display.as_deref().is_some_and(holds);
    match link.kind {
        LinkKind::Wikilink | LinkKind::Embed => display || holds(&link.target),
        LinkKind::Markdown | LinkKind::MarkdownEmbed => display,
    }
}

/// The stronger of `held` and `found`.
fn strongest(held: Option<Strength>, found: Strength) -> Option<Strength> {
    Some(held.map_or(found, |held| held.min(found)))
}

/// The share of `words` found in the best of `names`, in percent.
fn best_overlap<'a>(words: &[String], names: impl Iterator<Item = (crate::lint::Facet, &'a str)>) -> u32 {
    if words.is_empty() {
        return 0;
    }
    let shared = names.map(|(_, name)| shared_words(words, name)).max().unwrap_or(0);
    u32::try_from(shared * 100 / words.len()).unwrap_or(100)
}

/// False only when `text` cannot hold `word` (compared without case): a cheap filter before
/// the Markdown parse.
fn may_contain(text: &str, word: &str) -> bool {
    if !word.is_ascii() || !text.is_ascii() {
        return true;
    }
    let word = word.as_bytes();
    text.as_bytes().windows(word.len()).any(|window| window.eq_ignore_ascii_case(word))
}

/// The byte offset in `folded` of the first occurrence of `key` standing as whole words, in
/// one of its English inflections (see [`find_inflected`]).
fn find_phrase(folded: &str, key: &str) -> Option<usize> {
    find_inflected(folded, key).map(|(at, _)| at)
}

/// What the prose of one note holds for the concept.
#[derive(Debug, Default)]
struct Scan {
    mentions: u32,
    /// The first paragraph that says the name: its line and excerpt.
    mention: Option<(u32, String)>,
    /// The paragraph holding the first body link to the concept.
    at_link: Option<(u32, String)>,
    /// The first paragraph of prose.
    opening: Option<(u32, String)>,
}

/// Reads the prose of `text` (paragraphs and list items; headings, tables, code and HTML are
/// skipped), counting the paragraphs' mentions of `key`.
fn scan_prose(text: &str, key: &str, link_line: Option<u32>) -> Scan {
    let body_start = find_block(text).map_or(0, |block| block.span.end);
    let mut reader =
        ProseReader { key, link_line, lines: LineCounter::new(text), paragraph: String::new(), span: None, scan: Scan::default() };
    // Depth inside blocks whose text is not prose.
    let mut skipping = 0u32;
    for (event, range) in Parser::new_ext(&text[body_start..], markdown_options()).into_offset_iter() {
        let range = body_start + range.start..body_start + range.end;
        match event {
            Event::Start(Tag::Heading { .. } | Tag::Table(_) | Tag::CodeBlock(_) | Tag::HtmlBlock | Tag::MetadataBlock(_)) => {
                reader.flush();
                skipping += 1;
            }
            Event::End(TagEnd::Heading(_) | TagEnd::Table | TagEnd::CodeBlock | TagEnd::HtmlBlock | TagEnd::MetadataBlock(_)) => {
                skipping = skipping.saturating_sub(1);
            }
            Event::Start(Tag::Paragraph | Tag::Item | Tag::BlockQuote(_) | Tag::List(_))
            | Event::End(TagEnd::Paragraph | TagEnd::Item | TagEnd::BlockQuote(_) | TagEnd::List(_)) => reader.flush(),
            Event::Text(text) if skipping == 0 => {
                let span = reader.span.get_or_insert(range.clone());
                span.end = range.end;
                push_collapsed(&mut reader.paragraph, &text);
            }
            Event::SoftBreak | Event::HardBreak if skipping == 0 => reader.paragraph.push(' '),
            _ => {}
        }
    }
    reader.flush();
    reader.scan
}

/// The paragraph being read and what was found so far.
struct ProseReader<'a> {
    key: &'a str,
    link_line: Option<u32>,
    lines: LineCounter<'a>,
    paragraph: String,
    /// Where the paragraph's text starts and ends in the note.
    span: Option<std::ops::Range<usize>>,
    scan: Scan,
}

impl ProseReader<'_> {
    /// Ends the paragraph: counts its mentions and keeps the excerpts still wanted.
    fn flush(&mut self) {
        let Some(span) = self.span.take() else { return };
        let prose = self.paragraph.trim();
        if !prose.is_empty() {
            let line = self.lines.line(span.start);
            let last_line = self.lines.line(span.end);
            let folded = fold(prose);
            let mut from = 0;
            let mut first = None;
            while let Some((at, length)) = find_inflected(&folded[from..], self.key) {
                first = first.or(Some(from + at));
                self.scan.mentions += 1;
                from += at + length;
            }
            if let (None, Some(at)) = (&self.scan.mention, first) {
                let char_at = folded[..at].chars().count();
                self.scan.mention = Some((line, excerpt(prose, char_at, self.key.chars().count())));
            }
            if self.scan.opening.is_none() {
                self.scan.opening = Some((line, excerpt(prose, 0, 0)));
            }
            if self.scan.at_link.is_none() && self.link_line.is_some_and(|wanted| (line..=last_line).contains(&wanted)) {
                self.scan.at_link = Some((line, excerpt(prose, 0, 0)));
            }
        }
        self.paragraph.clear();
    }
}

/// Appends `text` with every run of white space as one space.
fn push_collapsed(paragraph: &mut String, text: &str) {
    for (index, part) in text.split_whitespace().enumerate() {
        if index > 0 || (text.starts_with(char::is_whitespace) && !paragraph.is_empty()) {
            paragraph.push(' ');
        }
        paragraph.push_str(part);
    }
    if text.ends_with(char::is_whitespace) && !text.trim().is_empty() {
        paragraph.push(' ');
    }
}

/// At most [`MAX_EXCERPT_CHARS`] characters of `prose` around the `length` characters at
/// character `at`, cut at word boundaries where possible, with `…` where text was left out.
fn excerpt(prose: &str, at: usize, length: usize) -> String {
    let chars: Vec<char> = prose.chars().collect();
    if chars.len() <= MAX_EXCERPT_CHARS {
        return prose.to_owned();
    }
    let room = MAX_EXCERPT_CHARS - 2;
    let lead = room.saturating_sub(length) / 3;
    let mut start = at.saturating_sub(lead).min(chars.len() - room);
    // Start at a word when one begins near.
    if start > 0 {
        if let Some(space) = chars[start..(start + 20).min(chars.len())].iter().position(|c| c.is_whitespace()) {
            if start + space < at {
                start += space + 1;
            }
        }
    }
    let end = (start + room).min(chars.len());
    let mut text = String::new();
    if start > 0 {
        text.push('…');
    }
    text.extend(&chars[start..end]);
    if end < chars.len() {
        text.push('…');
    }
    text
}

/// The hint when no note matched: notes with near titles, if any.
fn growth_hint(vault: &Vault, title: &str, key: &str, words: &[String]) -> GrowthHint {
    let mut near: Vec<(u32, &str)> = Vec::new();
    for note in vault.notes().filter(|note| !vault.is_excluded(note.path)) {
        let overlap = best_overlap(words, identities(&note));
        let spelling = identities(&note).map(|(_, name)| spelling_closeness(&page_key(key), &page_key(name))).max().unwrap_or(0);
        let score = if overlap * 2 >= 100 && !words.is_empty() { overlap } else { 0 }.max(spelling);
        if score > 0 {
            near.push((score, note.path));
        }
    }
    near.sort_by(|left, right| right.0.cmp(&left.0).then(left.1.cmp(right.1)));
    let near_titles: Vec<String> = near.into_iter().take(MAX_LISTED).map(|(_, path)| path.to_owned()).collect();
    let message = if near_titles.is_empty() {
        format!("No note mentions `{title}` and no note's name is near it: the concept is new to this vault.")
    } else {
        format!(
            "No note mentions `{title}`. Notes with near names: {}. Check whether one of them is this concept under another \
name (find_existing_page) before writing a new page, or search again with that name.",
            near_titles.iter().map(|path| format!("`{path}`")).collect::<Vec<_>>().join(", ")
        )
    };
    GrowthHint { message, near_titles }
}

/// How alike two names are spelt, from 0 to 100: 100 minus the edit distance (a swap of two
/// neighbouring letters counts as one edit, as a typist makes it) in percent of the longer
/// name, and 0 below 75 (a typo or two, not another word); a name of up to 5 characters is near
/// at one edit. Names over 64 characters are not compared.
fn spelling_closeness(left: &str, right: &str) -> u32 {
    let left: Vec<char> = left.chars().collect();
    let right: Vec<char> = right.chars().collect();
    let longest = left.len().max(right.len());
    if longest == 0 || longest > 64 || left == right {
        return 0;
    }
    // Optimal string alignment distance, three rows.
    let mut before: Vec<usize> = vec![0; right.len() + 1];
    let mut previous: Vec<usize> = (0..=right.len()).collect();
    let mut current = vec![0; right.len() + 1];
    for i in 0..left.len() {
        current[0] = i + 1;
        for j in 0..right.len() {
            let substitution = previous[j] + usize::from(left[i] != right[j]);
            let mut best = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
            if i > 0 && j > 0 && left[i] == right[j - 1] && left[i - 1] == right[j] {
                best = best.min(before[j - 1] + 1);
            }
            current[j + 1] = best;
        }
        std::mem::swap(&mut before, &mut previous);
        std::mem::swap(&mut previous, &mut current);
    }
    let distance = previous[right.len()];
    let closeness = 100 - (distance * 100 / longest) as u32;
    if closeness >= 75 || (distance == 1 && longest <= 5) {
        closeness
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Failure;
    use crate::lint::tests::fixture;

    const WIKI: &str = "//- concepts/Spaced repetition.md
---
aliases: [SRS]
---
# Spaced repetition
| a table that says spaced repetition | x |
|---|---|

Spaced repetition spaces reviews out over growing intervals.
//- People/Piotr.md
---
known_for: \"[[Spaced repetition]]\"
---
He wrote SuperMemo.
//- Notes/Learning.md
## Spaced repetition in headings does not count
```
spaced repetition in code does not count
```
We use [the method](concepts/Spaced%20repetition.md) daily, also as [[Spaced repetition|SR]].

Later, SPACED   REPETITION again, and spaced repetitions (another word).
//- Notes/Cooking.md
Nothing about it here.
//- Notes/Repetition drills.md
Drills with spaced repetition.
";

    fn texts(fixture_text: &str) -> Vec<(String, String)> {
        let mut files: Vec<(String, String)> = Vec::new();
        for line in fixture_text.lines() {
            match line.strip_prefix("//- ") {
                Some(path) => files.push((path.to_owned(), String::new())),
                None => {
                    if let Some((_, text)) = files.last_mut() {
                        text.push_str(line);
                        text.push('\n');
                    }
                }
            }
        }
        files
    }

    fn find(fixture_text: &str, arguments: EvidenceArguments) -> Evidence {
        let vault = fixture(fixture_text);
        let files = texts(fixture_text);
        let mut read = |path: &str| files.iter().find(|(file, _)| file == path).map(|(_, text)| text.clone());
        find_evidence(&vault, &arguments, &mut read).expect("valid arguments")
    }

    fn arguments(title: &str) -> EvidenceArguments {
        EvidenceArguments {
            title: title.to_owned(),
            limit: None,
            cursor: None,
            nodes_only: false,
            response_format: ResponseFormat::Detailed,
        }
    }

    #[test]
    fn matches_rank_title_then_frontmatter_then_body_then_overlap_then_path() {
        let evidence = find(WIKI, arguments("spaced REPETITION"));
        let ranked: Vec<(&str, Strength, u32)> =
            evidence.matches.iter().map(|found| (found.path.as_str(), found.strength, found.mentions)).collect();
        assert_eq!(
            ranked,
            [
                ("concepts/Spaced repetition.md", Strength::Title, 1),
                ("People/Piotr.md", Strength::Frontmatter, 1),
                // Shares one of the title's two words in its own name, so it ranks first among bodies.
                ("Notes/Repetition drills.md", Strength::Body, 1),
                // A Markdown link, a wikilink, a prose mention and its plural (`repetitions`);
                // headings, code and tables do not count, and the wikilink is counted once.
                ("Notes/Learning.md", Strength::Body, 4),
            ]
        );
        assert_eq!((evidence.total, evidence.limited, evidence.growth_hint.is_none()), (4, false, true));
        assert_eq!(evidence.matches[2].word_overlap_percent, Some(50));
    }

    #[test]
    fn excerpts_are_prose_around_the_mention() {
        let evidence = find(WIKI, arguments("Spaced repetition"));
        let excerpt = |path: &str| {
            let found = evidence.matches.iter().find(|found| found.path == path).expect(path);
            (found.line, found.excerpt.clone().unwrap_or_default())
        };
        assert_eq!(
            excerpt("concepts/Spaced repetition.md"),
            (Some(8), "Spaced repetition spaces reviews out over growing intervals.".to_owned())
        );
        assert_eq!(excerpt("Notes/Learning.md"), (Some(5), "We use the method daily, also as [[Spaced repetition|SR]].".to_owned()));
        assert_eq!(excerpt("People/Piotr.md"), (Some(4), "He wrote SuperMemo.".to_owned()));

        let long = format!("//- Long.md\n{} spaced repetition {}\n", "word ".repeat(300), "more ".repeat(300));
        let evidence = find(&long, arguments("spaced repetition"));
        let excerpt = evidence.matches[0].excerpt.clone().unwrap_or_default();
        assert!(excerpt.chars().count() <= MAX_EXCERPT_CHARS, "{}", excerpt.chars().count());
        assert!(excerpt.starts_with('…') && excerpt.ends_with('…') && excerpt.contains("spaced repetition"), "{excerpt}");
    }

    #[test]
    fn limit_nodes_only_and_concise() {
        let evidence = find(WIKI, EvidenceArguments { limit: Some(2), nodes_only: true, ..arguments("spaced repetition") });
        assert_eq!((evidence.total, evidence.limited, evidence.matches.len()), (4, true, 2));
        assert!(evidence.matches.iter().all(|found| found.excerpt.is_none() && found.line.is_none()));
        let concise = find(WIKI, EvidenceArguments { response_format: ResponseFormat::Concise, ..arguments("spaced repetition") });
        assert!(concise.matches.iter().all(|found| found.word_overlap_percent.is_none() && found.excerpt.is_some()));
        let vault = fixture(WIKI);
        let mut read = |_: &str| None;
        for bad in [arguments("  "), EvidenceArguments { limit: Some(0), ..arguments("x") }, arguments(&"x".repeat(201))] {
            let error = find_evidence(&vault, &bad, &mut read).unwrap_err();
            assert_eq!(error.code(), "invalid_arguments");
        }
    }

    #[test]
    fn pages_follow_the_cursor_through_every_match_in_rank_order() {
        let everything = find(WIKI, arguments("spaced repetition"));
        let mut paths = Vec::new();
        let mut cursor = None;
        loop {
            let page = find(WIKI, EvidenceArguments { limit: Some(1), cursor: cursor.clone(), ..arguments("spaced repetition") });
            assert_eq!((page.total, page.limited), (everything.total, page.next_cursor.is_some()));
            paths.extend(page.matches.into_iter().map(|found| found.path));
            match page.next_cursor {
                Some(next) => cursor = Some(next),
                None => break,
            }
        }
        let expected: Vec<String> = everything.matches.into_iter().map(|found| found.path).collect();
        assert_eq!(paths, expected);
    }

    #[test]
    fn unreadable_notes_are_listed_and_matched_from_the_index() {
        let vault = fixture(WIKI);
        let mut read = |_: &str| None;
        let evidence = find_evidence(&vault, &arguments("Spaced repetition"), &mut read).expect("valid");
        let paths: Vec<&str> = evidence.matches.iter().map(|found| found.path.as_str()).collect();
        // The title note by its name, Piotr by its property link, Learning by its body links.
        assert_eq!(paths, ["concepts/Spaced repetition.md", "People/Piotr.md", "Notes/Learning.md"]);
        assert_eq!(evidence.unread.len(), 5);
    }

    #[test]
    fn no_match_gives_a_growth_hint_with_near_names() {
        let evidence = find(WIKI, arguments("Spaced repetiton"));
        let hint = evidence.growth_hint.expect("a hint");
        assert_eq!(evidence.total, 0);
        assert_eq!(hint.near_titles[0], "concepts/Spaced repetition.md");
        assert!(hint.message.contains("find_existing_page"), "{}", hint.message);
        let new = find(WIKI, arguments("Quantum chromodynamics")).growth_hint.expect("a hint");
        assert!(new.near_titles.is_empty() && new.message.contains("new to this vault"), "{}", new.message);
    }

    #[test]
    fn a_misspelling_of_an_existing_title_is_never_new_to_this_vault() {
        let wiki = "//- monsters/ogre.md\nBig.\n//- spells/prismatic-spray.md\nRays.\n//- Magic Missile.md\nDarts.\n";
        // A swap of two letters, a hyphenated file name, a letter missing.
        for (title, near) in
            [("Orge", "monsters/ogre.md"), ("Prismatic Spary", "spells/prismatic-spray.md"), ("Magic Misile", "Magic Missile.md")]
        {
            let hint = find(wiki, arguments(title)).growth_hint.expect("a hint");
            assert_eq!(hint.near_titles.first().map(String::as_str), Some(near), "{title}: {}", hint.message);
            assert!(!hint.message.contains("new to this vault"), "{title}: {}", hint.message);
        }
        assert!(find(wiki, arguments("Fireball")).growth_hint.expect("a hint").message.contains("new to this vault"));
    }

    #[test]
    fn phrases_match_on_word_boundaries_without_case_or_normalisation() {
        assert_eq!(find_phrase("a rust book", "rust"), Some(2));
        assert_eq!(find_phrase("rusty rust", "rust"), Some(6));
        assert_eq!(find_phrase("trust", "rust"), None);
        // Issue 37: English inflections of the last word: plural, possessive, `y` to `ies`, and a
        // plural name found in the singular; never inside another word.
        assert_eq!(find_inflected("two opportunity attacks here", "opportunity attack"), Some((4, 19)));
        assert_eq!(find_phrase("the wizard's spell", "wizard"), Some(4));
        assert_eq!(find_phrase("the wizards\u{2019} tower", "wizard"), Some(4));
        assert_eq!(find_inflected("many abilities", "ability"), Some((5, 9)));
        assert_eq!(find_inflected("one ability score", "abilities"), Some((4, 7)));
        assert_eq!(find_inflected("an opportunity attack", "opportunity attacks"), Some((3, 18)));
        assert_eq!(find_inflected("wizardry", "wizard"), None);
        assert_eq!(find_inflected("the bus stops", "bus"), Some((4, 3)));
        assert_eq!(find_inflected("the status quo", "status"), Some((4, 6)));
        let evidence = find("//- A.md\nUn CAFE\u{301} noir.\n", arguments("Café"));
        assert_eq!(evidence.total, 1);
    }
}
