//! The names a note is known by (file name, aliases, `title`, first H1), the forms in which
//! they are compared, and [`PageNames`]: those names indexed, so that `find_existing_page`
//! looks up the few notes a topic concerns instead of comparing it with every note. The link
//! index keeps a `PageNames` current as notes are added, replaced and removed.

use std::collections::HashMap;

use serde::Serialize;

use crate::facts::NoteFacts;
use crate::resolve::fold;
use crate::words::topic_words;

/// Which part of a note names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Facet {
    FileName,
    Alias,
    TitleProperty,
    H1,
}

impl Facet {
    pub fn describe(self) -> &'static str {
        match self {
            Facet::FileName => "file name",
            Facet::Alias => "alias",
            Facet::TitleProperty => "`title` property",
            Facet::H1 => "first H1",
        }
    }
}

/// The form in which names are compared: trimmed, runs of white space as one space, NFC, lower
/// case.
pub fn identity_key(name: &str) -> String {
    let folded = fold(name.trim());
    if folded.contains(char::is_whitespace) {
        folded.split_whitespace().collect::<Vec<_>>().join(" ")
    } else {
        folded
    }
}

/// A name as `find_existing_page` compares names: as [`identity_key`], with hyphens and
/// underscores counted as the same word break as a space (`prismatic-spray` and `Prismatic
/// Spray` name one page). Only for that verdict: link resolution stays Obsidian's, exact.
pub fn page_key(name: &str) -> String {
    identity_key(&name.replace(['-', '_'], " "))
}

/// True when `name` compares equal to `key` (a [`page_key`]).
pub fn same_page_name(key: &str, name: &str) -> bool {
    if name.is_ascii() && key.is_ascii() {
        return same_ascii_words(key, name.split(|c: char| c.is_ascii_whitespace() || c == '-' || c == '_'));
    }
    page_key(name) == key
}

/// True when `name` compares equal to `key` (an [`identity_key`]); allocation-free for ASCII.
pub fn same_identity(key: &str, name: &str) -> bool {
    if name.is_ascii() && key.is_ascii() {
        return same_ascii_words(key, name.split_ascii_whitespace());
    }
    identity_key(name) == key
}

/// Whether `words` (empty ones skipped) are the space-separated words of `key`, ignoring ASCII case.
fn same_ascii_words<'a>(key: &str, words: impl Iterator<Item = &'a str>) -> bool {
    let mut words = words.filter(|word| !word.is_empty());
    let mut wanted = key.split(' ');
    loop {
        match (words.next(), wanted.next()) {
            (None, None) => return true,
            (Some(word), Some(expected)) if word.eq_ignore_ascii_case(expected) => {}
            _ => return false,
        }
    }
}

/// Whether a heading's text names something: not when all it holds is code or a template
/// expression (`` `=this.name` `` for Dataview, `{{title}}`, `<% tp.file.title %>`), which
/// Obsidian shows as whatever it computes, different in every note.
pub fn says_a_name(text: &str) -> bool {
    let mut rest = text.to_owned();
    for (open, close) in [("`", "`"), ("{{", "}}"), ("<%", "%>")] {
        while let Some(start) = rest.find(open) {
            let Some(length) = rest[start + open.len()..].find(close) else { break };
            rest.replace_range(start..start + open.len() + length + close.len(), " ");
        }
    }
    rest.chars().any(char::is_alphanumeric)
}

/// Every name of a note with the facet it comes from: its title (the file name without `.md`),
/// aliases, `title` property, first H1. Blank names are left out.
pub fn names_of<'a>(title: &'a str, aliases: &'a [String], facts: &'a NoteFacts) -> impl Iterator<Item = (Facet, &'a str)> + Clone + 'a {
    let aliases = aliases.iter().map(|alias| (Facet::Alias, alias.as_str()));
    let property = facts.property_text("title").map(|title| (Facet::TitleProperty, title));
    let h1 = facts.h1.as_deref().filter(|h1| says_a_name(h1)).map(|h1| (Facet::H1, h1));
    std::iter::once((Facet::FileName, title)).chain(aliases).chain(property).chain(h1).filter(|(_, name)| !name.trim().is_empty())
}

/// The Wikidata item a text names: `Q42`, or a Wikidata address ending in it.
pub fn wikidata_qid(text: &str) -> Option<String> {
    let text = text.trim().trim_end_matches('/');
    let last = text.rsplit(['/', ':']).next().unwrap_or(text);
    let digits = last.strip_prefix(['Q', 'q'])?;
    let is_qid = !digits.is_empty() && digits.len() <= 12 && digits.bytes().all(|byte| byte.is_ascii_digit());
    let looks_right = last.len() == text.len() || text.contains("wikidata");
    (is_qid && looks_right).then(|| format!("Q{digits}"))
}

/// Every note's names, indexed three ways: by [`page_key`], by each of their
/// [`topic_words`], and by the Wikidata item of the note's `wikidata` property, each to the ids
/// of the notes in the index's file table (a note filed twice under one key, by two of its names,
/// is listed once). A lookup gives a superset of the notes that match (callers still compare),
/// never fewer: a name [`same_page_name`] matches has the same `page_key`, and a name sharing a
/// topic word holds that word among its own `topic_words`.
#[derive(Debug, Clone, Default)]
pub struct PageNames {
    by_key: HashMap<Box<str>, Vec<u32>, rustc_hash::FxBuildHasher>,
    by_word: HashMap<Box<str>, Vec<u32>, rustc_hash::FxBuildHasher>,
    by_qid: HashMap<Box<str>, Vec<u32>, rustc_hash::FxBuildHasher>,
}

/// The keys under which one note is filed, each once.
fn keys_of(title: &str, aliases: &[String], facts: &NoteFacts) -> (Vec<String>, Vec<String>, Option<String>) {
    let mut keys = Vec::new();
    let mut words = Vec::new();
    for (_, name) in names_of(title, aliases, facts) {
        keys.push(page_key(name));
        words.extend(topic_words(name));
    }
    keys.sort_unstable();
    keys.dedup();
    words.sort_unstable();
    words.dedup();
    (keys, words, facts.property_text("wikidata").and_then(wikidata_qid))
}

fn file(map: &mut HashMap<Box<str>, Vec<u32>, rustc_hash::FxBuildHasher>, key: String, id: u32) {
    match map.get_mut(key.as_str()) {
        Some(ids) => ids.push(id),
        None => {
            map.insert(key.into_boxed_str(), vec![id]);
        }
    }
}

fn unfile(map: &mut HashMap<Box<str>, Vec<u32>, rustc_hash::FxBuildHasher>, key: &str, id: u32) {
    if let Some(ids) = map.get_mut(key) {
        if let Some(at) = ids.iter().position(|held| *held == id) {
            ids.swap_remove(at);
        }
        if ids.is_empty() {
            map.remove(key);
        }
    }
}

impl PageNames {
    /// Files the note `id` (title, aliases and facts as the index keeps them).
    pub fn add(&mut self, id: u32, title: &str, aliases: &[String], facts: &NoteFacts) {
        let (keys, words, qid) = keys_of(title, aliases, facts);
        keys.into_iter().for_each(|key| file(&mut self.by_key, key, id));
        words.into_iter().for_each(|word| file(&mut self.by_word, word, id));
        qid.into_iter().for_each(|qid| file(&mut self.by_qid, qid, id));
    }

    /// Takes out what [`PageNames::add`] filed for the same note.
    pub fn remove(&mut self, id: u32, title: &str, aliases: &[String], facts: &NoteFacts) {
        let (keys, words, qid) = keys_of(title, aliases, facts);
        keys.iter().for_each(|key| unfile(&mut self.by_key, key, id));
        words.iter().for_each(|word| unfile(&mut self.by_word, word, id));
        qid.iter().for_each(|qid| unfile(&mut self.by_qid, qid, id));
    }

    /// Gives back the room each list of ids was left by growing (see `Vault::shrink_lists`).
    pub(crate) fn shrink_lists(&mut self) {
        for map in [&mut self.by_key, &mut self.by_word, &mut self.by_qid] {
            map.values_mut().for_each(Vec::shrink_to_fit);
        }
    }

    /// The bytes these maps hold, for the index's memory count.
    pub fn heap_bytes(&self) -> usize {
        [&self.by_key, &self.by_word, &self.by_qid]
            .into_iter()
            .map(|map| {
                crate::memory::hash_map_bytes(map) + map.iter().map(|(key, ids)| key.len() + crate::memory::vec_bytes(ids)).sum::<usize>()
            })
            .sum()
    }

    /// Notes with a name whose [`page_key`] is `key`.
    pub fn with_key(&self, key: &str) -> &[u32] {
        self.by_key.get(key).map_or(&[], Vec::as_slice)
    }

    /// Notes with a name holding `word` (one of [`topic_words`]).
    pub fn with_word(&self, word: &str) -> &[u32] {
        self.by_word.get(word).map_or(&[], Vec::as_slice)
    }

    /// Notes whose `wikidata` property names the item `qid` (`Q42`).
    pub fn with_qid(&self, qid: &str) -> &[u32] {
        self.by_qid.get(qid).map_or(&[], Vec::as_slice)
    }

    /// The notes a topic can concern, as `find_existing_page` compares them: those with a name
    /// whose page key is `key`, those whose `wikidata` is `qid`, and those with names holding at
    /// least half of `words` (the topic's [`topic_words`], sorted and without repeats), counted
    /// over all their names together. A note holding fewer has no name that shares half of the
    /// topic's words, so no word overlap to report. In no order, each once.
    pub fn concerning(&self, key: &str, qid: Option<&str>, words: &[String]) -> Vec<u32> {
        let mut found: Vec<u32> = self.with_key(key).to_vec();
        found.extend(qid.map_or(&[][..], |qid| self.with_qid(qid)));
        let mut holding: Vec<u32> = words.iter().flat_map(|word| self.with_word(word)).copied().collect();
        if words.len() <= 2 {
            // One shared word is half of one or two: every note holding any of them.
            found.append(&mut holding);
        } else {
            holding.sort_unstable();
            for run in holding.chunk_by(|left, right| left == right) {
                if run.len() * 2 >= words.len() {
                    found.push(run[0]);
                }
            }
        }
        found.sort_unstable();
        found.dedup();
        found
    }
}
