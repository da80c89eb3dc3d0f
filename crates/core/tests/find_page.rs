//! `find_existing_page` looks up the notes a topic concerns in the index of names, which the
//! link index keeps current on every upsert, remove and rename. Its answers must be exactly those
//! of comparing the topic with every note (`find_existing_page_comparing_every_note`, the
//! algorithm before the index): checked here on random sequences of edits to generated vaults
//! and on the real corpora when present, before and after edits, renames and removals.

use std::collections::BTreeMap;

use vaultlink_core::existing::{find_existing_page, find_existing_page_comparing_every_note, FindPageArguments};
use vaultlink_core::index::IndexConfig;
use vaultlink_core::ops::ResponseFormat;
use vaultlink_core::words::topic_words;
use vaultlink_core::Vault;

mod common;

use common::{remove_at_random, rename_at_random, Random};

/// Words names are made of: shared ones (many notes hold them), stop words, a word in two
/// Unicode normalisations, capitals, digits.
const WORDS: [&str; 16] = [
    "prismatic",
    "spray",
    "Spray",
    "light",
    "of",
    "the",
    "caf\u{e9}",
    "Cafe\u{301}",
    "example",
    "Example",
    "proof",
    "limit",
    "2025",
    "x",
    "Q42",
    "\u{130}stanbul",
];
/// What joins the words of a name: spaces, hyphens and underscores count alike for a page name.
const JOINS: [&str; 5] = [" ", " ", "-", "_", "  "];
const FOLDERS: [&str; 4] = ["", "a/", "b/", "a/deep/"];

fn random_name(random: &mut Random) -> String {
    let count = 1 + random.next() % 4;
    let mut name = String::new();
    for at in 0..count {
        if at > 0 {
            name.push_str(random.pick(&JOINS));
        }
        name.push_str(random.pick(&WORDS));
    }
    name
}

fn random_path(random: &mut Random) -> String {
    format!("{}{}.md", random.pick(&FOLDERS), random_name(random).replace(['/', '\\'], " "))
}

/// A note with any of the names a note can have: aliases, a `title`, a `wikidata` item, an H1
/// (or one that names nothing), and links to names that may or may not exist.
fn random_text(random: &mut Random) -> String {
    let mut text = String::new();
    let mut properties = Vec::new();
    if random.next().is_multiple_of(2) {
        let aliases: Vec<String> = (0..1 + random.next() % 3).map(|_| format!("\"{}\"", random_name(random))).collect();
        properties.push(format!("aliases: [{}]", aliases.join(", ")));
    }
    if random.next().is_multiple_of(3) {
        properties.push(format!("title: \"{}\"", random_name(random)));
    }
    if random.next().is_multiple_of(4) {
        properties.push(format!("wikidata: {}", ["Q42", "Q1075", "https://www.wikidata.org/wiki/Q42", "q7"][(random.next() % 4) as usize]));
    }
    if !properties.is_empty() {
        text.push_str(&format!("---\n{}\n---\n", properties.join("\n")));
    }
    match random.next() % 4 {
        0 => text.push_str(&format!("# {}\n", random_name(random))),
        1 => text.push_str("# {{title}}\n"),
        _ => {}
    }
    for _ in 0..random.next() % 3 {
        text.push_str(&format!("See [[{}]].\n", random_name(random)));
    }
    text
}

/// The topics an agent might ask about a vault: its names and their parts, paths, QIDs, and
/// names no note has.
fn topics(vault: &Vault, random: &mut Random, spread: usize) -> Vec<String> {
    let mut topics = Vec::new();
    for (at, note) in vault.notes().enumerate() {
        if at % spread != 0 {
            continue;
        }
        topics.push(note.title().to_owned());
        topics.push(note.path.to_owned());
        topics.push(note.path.trim_end_matches(".md").to_lowercase());
        topics.extend(note.aliases.iter().cloned());
        topics.extend(note.facts.h1.clone());
        topics.extend(topic_words(note.title()).into_iter().take(2));
        // A few of the title's words in another order, with another separator.
        let words: Vec<String> = topic_words(note.title());
        if words.len() > 1 {
            topics.push(words.iter().rev().cloned().collect::<Vec<_>>().join("-"));
        }
    }
    for _ in 0..10 {
        topics.push(random_name(random));
    }
    topics.extend(["Q42", "https://www.wikidata.org/wiki/Q1075", "the of", "nothing here at all"].map(str::to_owned));
    topics
}

/// Both algorithms answer `topic` alike, to the last byte.
fn check_alike(vault: &Vault, topic: &str, random: &mut Random, context: &str) {
    let limit = [None, None, Some(1), Some(3)][(random.next() % 4) as usize];
    let response_format = if random.next().is_multiple_of(4) { ResponseFormat::Concise } else { ResponseFormat::Detailed };
    let arguments = FindPageArguments { topic: topic.to_owned(), limit, response_format };
    let indexed = find_existing_page(vault, &arguments);
    let every = find_existing_page_comparing_every_note(vault, &arguments);
    assert_eq!(indexed, every, "{context}: topic {topic:?}, limit {limit:?}, {response_format:?}");
}

#[test]
fn the_indexed_lookup_answers_as_comparing_every_note_on_generated_vaults() {
    let mut compared = 0;
    for seed in 1..=40u64 {
        let mut random = Random(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let mut files: BTreeMap<String, String> = BTreeMap::new();
        let mut vault = Vault::new(IndexConfig::obsidian_defaults());
        let parse = vault.config().parse;
        for step in 0..40 {
            let operation = random.next() % 10;
            let description = if operation < 4 || files.is_empty() {
                let path = random_path(&mut random);
                let text = random_text(&mut random);
                vault.upsert(&path, &text);
                files.insert(path.clone(), text);
                format!("upsert {path}")
            } else if operation < 5 {
                // Several at once, as a first index or a refresh does (a path may come twice).
                let batch: Vec<(String, String)> =
                    (0..1 + random.next() % 4).map(|_| (random_path(&mut random), random_text(&mut random))).collect();
                files.extend(batch.iter().cloned());
                vault.insert_prepared_many(batch.iter().map(|(path, text)| (path.clone(), Vault::prepare(&parse, path, text))).collect());
                format!("insert {} prepared", batch.len())
            } else if operation < 7 {
                remove_at_random(&mut vault, &mut files, &mut random)
            } else {
                rename_at_random(&mut vault, &mut files, &mut random, random_path)
            };
            if step % 4 != 3 {
                continue;
            }
            for topic in topics(&vault, &mut random, 1) {
                check_alike(&vault, &topic, &mut random, &format!("seed {seed}, step {step}, after `{description}`"));
                compared += 1;
            }
        }
    }
    assert!(compared > 5_000, "only {compared} topics compared");
}

#[test]
fn the_indexed_lookup_answers_as_comparing_every_note_on_the_corpora() {
    let root = common::corpora_dir();
    let Ok(entries) = std::fs::read_dir(&root) else {
        common::say(&format!(
            "find_page: NOT RUN: no corpora at {}; the indexed find_existing_page was compared on generated vaults only",
            root.display()
        ));
        return;
    };
    let mut corpora: Vec<_> = entries.flatten().map(|entry| entry.path()).filter(|path| path.is_dir()).collect();
    corpora.sort();
    for corpus in corpora {
        let name = corpus.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
        let files = common::read_corpus(&corpus, true);
        let mut vault = common::index(&files);
        let notes = vault.note_count();
        // About 15 notes' topics per corpus and phase: the reference compares each with every
        // note, slow in a debug build on 13,415 notes.
        let spread = notes / 15 + 1;
        let mut random = Random(0x2545_f491_4f6c_dd1d);
        let mut compared = 0;
        for topic in topics(&vault, &mut random, spread) {
            check_alike(&vault, &topic, &mut random, &format!("{name}, as read"));
            compared += 1;
        }
        // Edits: a note given new aliases and a `title`, one renamed to another's name (two
        // notes of one name), one renamed into a new folder, one removed; every 97th note.
        let paths: Vec<String> = vault.note_paths().map(str::to_owned).collect();
        for (at, path) in paths.iter().enumerate().filter(|(at, _)| at % 97 == 0) {
            let other = &paths[(at * 7 + 3) % paths.len()];
            match at / 97 % 4 {
                0 => {
                    let text = format!("---\naliases: [\"{}\", x]\ntitle: {}\n---\n{}", random_name(&mut random), other, files[path]);
                    vault.upsert(path, &text);
                }
                1 => {
                    let to = format!("renamed/{}", other.rsplit('/').next().unwrap_or(other));
                    vault.rename(path, &to);
                }
                2 => {
                    vault.rename(path, &format!("moved/{}", path.rsplit('/').next().unwrap_or(path)));
                }
                _ => {
                    vault.remove(path);
                }
            }
        }
        for topic in topics(&vault, &mut random, spread) {
            check_alike(&vault, &topic, &mut random, &format!("{name}, after edits"));
            compared += 1;
        }
        common::say(&format!("find_page: {name}: {compared} topics answered alike by the index and by comparing all {notes} notes"));
    }
}
