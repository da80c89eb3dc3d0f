use std::collections::{BTreeMap, HashSet};

use serde_json::{json, Value};

use crate::approval::PlanHistory;
use crate::edge::{Change, ReadBefore};
use crate::index::IndexConfig;
use crate::ops::{call, Response};
use crate::Vault;

/// The preview of `link_mentions` over `files` with `arguments`, as JSON, and the texts once
/// the previewed plan is applied by its hash.
fn link(files: &[(&str, &str)], arguments: Value) -> (Value, BTreeMap<String, String>) {
    link_in(IndexConfig::obsidian_defaults(), files, arguments)
}

fn link_in(config: IndexConfig, files: &[(&str, &str)], arguments: Value) -> (Value, BTreeMap<String, String>) {
    let mut vault = Vault::new(config);
    let mut texts = BTreeMap::new();
    for (path, text) in files {
        vault.upsert(path, text);
        texts.insert((*path).to_owned(), (*text).to_owned());
    }
    let mut edge = ReadBefore { tag: 1, texts: texts.clone(), ..ReadBefore::default() };
    let mut plans = PlanHistory::default();
    let preview = call(&vault, "link_mentions", &arguments, &mut edge, &mut plans).unwrap_or_else(|error| panic!("{error}"));
    let Response::Mentions(answer) = &preview.answer else { panic!("a mentions answer") };
    assert!(answer.dry_run && preview.change.is_none(), "a preview by default");
    let answer = serde_json::to_value(answer).expect("JSON");
    let mut approved = arguments.clone();
    approved["approved_plan_hash"] = answer["plan_hash"].clone();
    let applied = call(&vault, "link_mentions", &approved, &mut edge, &mut plans).unwrap_or_else(|error| panic!("{error}"));
    let mut after = texts;
    if let Some(Change::Batch { batch, .. }) = applied.change {
        assert_eq!(batch.tool, "link_mentions");
        for write in batch.writes {
            after.insert(write.path, write.text);
        }
    }
    (answer, after)
}

fn linked(answer: &Value) -> Vec<(String, String)> {
    answer["mentions"]
        .as_array()
        .expect("mentions")
        .iter()
        .map(|mention| (mention["text"].as_str().unwrap().to_owned(), mention["target"].as_str().unwrap().to_owned()))
        .collect()
}

const TARGETS: [(&str, &str); 2] = [("Opportunity attack.md", "x\n"), ("Attack.md", "x\n")];

/// `note` in a vault with the two target notes, once linked.
fn note_after(note: &str) -> String {
    let files = [("Note.md", note), TARGETS[0], TARGETS[1]];
    link(&files, json!({})).1["Note.md"].clone()
}

#[test]
fn a_mention_becomes_a_link_keeping_its_text_and_the_longest_name_wins() {
    assert_eq!(
        note_after("An opportunity attack, then an Attack.\n"),
        "An [[Opportunity attack|opportunity attack]], then an [[Attack]].\n"
    );
    // The text the longer name covers is not read again for the shorter.
    let files = [("Note.md", "Opportunity attack\n"), TARGETS[0], TARGETS[1]];
    let (answer, _) = link(&files, json!({}));
    assert_eq!(linked(&answer), [("Opportunity attack".to_owned(), "Opportunity attack.md".to_owned())]);
}

#[test]
fn whole_words_with_the_drafts_inflections() {
    assert_eq!(
        note_after("Attacks, the attack's reach, counterattack, attacker.\n"),
        "[[Attack|Attacks]], the [[Attack|attack]]'s reach, counterattack, attacker.\n"
    );
    let files = [("Note.md", "Two abilities.\n"), ("Ability.md", "x\n")];
    assert_eq!(link(&files, json!({})).1["Note.md"], "Two [[Ability|abilities]].\n");
}

#[test]
fn no_mention_is_linked_in_any_zone_that_is_not_prose() {
    for zone in [
        "---\nsummary: attack\n---\nx\n",
        "# Attack\n",
        "`attack`\n",
        "```\nattack\n```\n",
        "    attack in indented code\n",
        "%% attack %%\n",
        "<!-- attack -->\n",
        "<div>\nattack\n</div>\n",
        "a <span>attack</span> b\n",
        "$attack$ and\n\n$$\nattack\n$$\n",
        "[[Other|attack]] [attack](Other.md) [attack] - [ ] task\n",
        "| a | attack |\n| - | - |\n| attack | b |\n",
        "| a | attack |\n|---\t|---\t|\n| attack | b |\n",
        "#attack and https://example.com/attack\n",
        "An \\*attack\\* escaped\n",
    ] {
        let files = [("Note.md", zone), ("Attack.md", "x\n"), ("Other.md", "x\n")];
        let (answer, after) = link(&files, json!({}));
        let want = if zone.contains("escaped") { 1 } else { 0 };
        assert_eq!(answer["mentions_linked"], json!(want), "{zone:?}: {answer}");
        if want == 0 {
            assert_eq!(after["Note.md"], zone, "{zone:?}");
        }
    }
}

#[test]
fn a_note_is_never_linked_to_itself_and_first_only_links_the_first() {
    let files = [("Attack.md", "An attack is an attack.\n"), ("Note.md", "Attack, attack, attack.\n")];
    let (answer, after) = link(&files, json!({"first_only": true}));
    assert_eq!(answer["mentions_linked"], json!(1), "{answer}");
    assert_eq!(after["Attack.md"], files[0].1);
    assert_eq!(after["Note.md"], "[[Attack]], attack, attack.\n");
    let (_, after) = link(&files, json!({}));
    assert_eq!(after["Note.md"], "[[Attack]], [[Attack|attack]], [[Attack|attack]].\n");
}

#[test]
fn a_name_two_notes_share_is_listed_never_linked() {
    let files = [("Note.md", "The guide, the guide.\n"), ("a/Guide.md", "x\n"), ("b/Guide.md", "x\n")];
    let (answer, after) = link(&files, json!({}));
    assert_eq!(answer["mentions_linked"], json!(0));
    assert_eq!(answer["ambiguous"], json!([{"name": "Guide", "notes": ["a/Guide.md", "b/Guide.md"], "mentions": 2}]), "{answer}");
    assert_eq!(after["Note.md"], files[0].1);
}

#[test]
fn aliases_and_titles_name_their_note_and_short_names_are_skipped() {
    let files = [
        ("Note.md", "Ada wrote to Lovelace about the engine, and AI.\n"),
        ("People/Ada Lovelace.md", "---\naliases: [Lovelace]\n---\nx\n"),
        ("e.md", "---\ntitle: The engine\n---\nx\n"),
        ("AI.md", "x\n"),
    ];
    let (answer, after) = link(&files, json!({}));
    assert_eq!(after["Note.md"], "Ada wrote to [[Ada Lovelace|Lovelace]] about [[e|the engine]], and AI.\n", "{answer}");
    assert_eq!(answer["min_name_chars"], json!(super::MIN_NAME_CHARS));
}

#[test]
fn a_source_folder_is_never_written() {
    let files =
        [("SCHEMA.md", "---\nsource_folders: [raw]\n---\n"), ("raw/Clip.md", "attack\n"), ("Note.md", "attack\n"), ("Attack.md", "x\n")];
    let (answer, after) = link(&files, json!({}));
    assert_eq!(linked(&answer), [("attack".to_owned(), "Attack.md".to_owned())]);
    assert_eq!(after["raw/Clip.md"], "attack\n");
    let (answer, _) = link(&files, json!({"path": "raw"}));
    assert_eq!(answer["mentions_linked"], json!(0), "a folder of sources holds nothing to link: {answer}");
}

#[test]
fn a_markdown_link_vault_gets_markdown_links() {
    let config = IndexConfig { use_markdown_links: true, ..IndexConfig::obsidian_defaults() };
    let files = [("a/Note.md", "An opportunity attack.\n"), ("Opportunity attack.md", "x\n")];
    let (_, after) = link_in(config, &files, json!({}));
    assert_eq!(after["a/Note.md"], "An [opportunity attack](Opportunity%20attack.md).\n");
}

#[test]
fn targets_and_excluded_ids_choose_the_mentions_and_the_hash_covers_them() {
    let files = [("Note.md", "Attack. An opportunity attack. Attack.\n"), TARGETS[0], TARGETS[1]];
    let (all, _) = link(&files, json!({}));
    assert_eq!(all["mentions_linked"], json!(3));
    let (only, after) = link(&files, json!({"targets": ["Attack"]}));
    assert_eq!(only["mentions_linked"], json!(2), "{only}");
    assert_eq!(after["Note.md"], "[[Attack]]. An opportunity attack. [[Attack]].\n");
    let first = all["mentions"][0]["id"].as_str().unwrap();
    assert_eq!(first, "Note.md@0");
    let (fewer, after) = link(&files, json!({"exclude": [first]}));
    assert_eq!(fewer["mentions_linked"], json!(2));
    assert_ne!(fewer["plan_hash"], all["plan_hash"]);
    assert_eq!(after["Note.md"], "Attack. An [[Opportunity attack|opportunity attack]]. [[Attack]].\n");
}

#[test]
fn pages_and_a_wrong_hash_is_refused() {
    let files = [("Note.md", "attack attack attack\n"), ("Attack.md", "x\n")];
    let (vault, texts) = crate::testing::vault_with(&files);
    let mut edge = ReadBefore { tag: 1, texts, ..ReadBefore::default() };
    let mut plans = PlanHistory::default();
    let first = call(&vault, "link_mentions", &json!({"limit": 2}), &mut edge, &mut plans).unwrap();
    let Response::Mentions(first) = first.answer else { panic!("a mentions answer") };
    assert_eq!(first.mentions.as_ref().map(Vec::len), Some(2));
    let cursor = first.next_cursor.clone().expect("a next page");
    let next = call(&vault, "link_mentions", &json!({"limit": 2, "cursor": cursor}), &mut edge, &mut plans).unwrap();
    let Response::Mentions(next) = next.answer else { panic!("a mentions answer") };
    assert_eq!((next.mentions.as_ref().map(Vec::len), next.next_cursor), (Some(1), None));
    let wrong = call(&vault, "link_mentions", &json!({"approved_plan_hash": "0".repeat(64)}), &mut edge, &mut plans);
    assert!(wrong.is_err());
}

/// A spread over three threads, each working its parts from the last: another order than the
/// notes'.
fn on_threads(parts: usize, work: &(dyn Fn(usize) + Sync)) {
    std::thread::scope(|scope| {
        for first in 0..3 {
            scope.spawn(move || (first..parts).step_by(3).rev().for_each(work));
        }
    });
}

#[test]
fn the_plan_is_the_same_whether_the_notes_are_worked_in_turn_or_on_threads() {
    let mut files: Vec<(String, String)> = vec![
        ("a/Guide.md".to_owned(), "x\n".to_owned()),
        ("b/Guide.md".to_owned(), "x\n".to_owned()),
        ("Opportunity attack.md".to_owned(), "x\n".to_owned()),
        ("Attack.md".to_owned(), "---\naliases: [Strike]\n---\nAn attack is a strike.\n".to_owned()),
    ];
    for note in 0..40 {
        let text = format!(
            "Note {note}: an opportunity attack, two attacks, a strike and the guide.\n\n`attack` [[Attack|strike]] \
             then [[Note {}]] and Note {} again.\n",
            (note + 1) % 40,
            (note + 7) % 40
        );
        files.push((format!("n/Note {note}.md"), text));
    }
    let files: Vec<(&str, &str)> = files.iter().map(|(path, text)| (path.as_str(), text.as_str())).collect();
    let (vault, texts) = crate::testing::vault_with(&files);
    let exclude: HashSet<String> = ["n/Note 3.md@12".to_owned()].into();
    for first_only in [false, true] {
        let in_turn = super::plan(&vault, None, None, &exclude, first_only, &texts, &crate::edge::one_after_another);
        let threaded = super::plan(&vault, None, None, &exclude, first_only, &texts, &on_threads);
        assert!(in_turn.mentions.len() > 80, "{}", in_turn.mentions.len());
        assert_eq!(in_turn.ambiguous.len(), 1);
        assert_eq!(in_turn, threaded);
    }
    // A spread that works nothing still gives the plan: core works what it left.
    let none = super::plan(&vault, None, None, &exclude, false, &texts, &|_, _| {});
    assert_eq!(none, super::plan(&vault, None, None, &exclude, false, &texts, &crate::edge::one_after_another));
}

#[test]
fn names_sharing_a_first_word_are_each_found_with_their_endings() {
    let files = [
        ("Note.md", "The abilities, the abyss, the attacks and theories; the a, the.\n"),
        ("The ability.md", "x\n"),
        ("The abyss.md", "x\n"),
        ("The attack.md", "x\n"),
        ("Theory.md", "x\n"),
        ("The a b.md", "x\n"),
    ];
    assert_eq!(
        link(&files, json!({})).1["Note.md"],
        "[[The ability|The abilities]], [[The abyss|the abyss]], [[The attack|the attacks]] and [[Theory|theories]]; the a, the.\n"
    );
}

/// The prose and the body's links of `text` read in one pass are what a pass of the prose alone
/// and a whole parse read: the proof rests on the links, the mentions on the prose.
fn assert_read_in_one_pass(path: &str, text: &str) {
    let reading = super::Reading::of(path, text);
    assert_eq!(reading.prose, super::prose_ranges(text), "the prose of {path}");
    let parsed = crate::parse::parse_note(path, text, &crate::parse::ParseConfig::OBSIDIAN);
    let body: Vec<_> = parsed.links.into_iter().filter(|link| link.source == crate::parse::LinkSource::Body).collect();
    let shape = |links: &[crate::parse::Link]| -> Vec<String> {
        links
            .iter()
            .map(|link| format!("{:?} {} {:?} {:?} {:?} {:?}", link.kind, link.path, link.subpath, link.display, link.source, link.span))
            .collect()
    };
    match reading.body {
        Some((start, links)) if !parsed.truncated => {
            assert_eq!(start, crate::parse::body_start(text));
            assert_eq!(shape(&links), shape(&body), "the links of {path}");
        }
        Some(_) => {}
        // Only a note with a byte-order mark and no frontmatter is read in two passes.
        None => assert!(text.starts_with('\u{feff}') && crate::frontmatter::find_block(text).is_none(), "{path} read in two passes"),
    }
}

#[test]
fn one_pass_reads_the_prose_and_the_links_as_two_did() {
    let notes = [
        "Plain prose about an Attack and [[Attack]].\n",
        "---\ntitle: Attack\naliases: [\"[[Opportunity attack]]\"]\n---\n# Attack heading\nAn attack, `code attack`, $attack$ and %%attack%%.\n",
        "\u{feff}---\na: b\n---\nAn attack after a mark and a block.\n",
        "\u{feff}# Attack\nA mark and no block: an attack.\n",
        "| a | attack |\n|---\t|---\t|\n| attack | [[x\\|y]] |\n\nAfter the table, an attack.\n",
        "```\t\nattack\n```\t\nAn attack after a fence with a tab.\n",
        "<div>attack</div>\n\nAn <span>attack</span> and <br> an attack.\n- [ ] attack task\n> [!note] attack\n> an attack in a quote\n",
        "[attack](Attack.md) [[Attack#Part|an attack]] ![[Attack]] [^1]\n\n[^1]: an attack\n[ref]: <Attack.md>\n",
        "%% open comment to the end\nattack\n",
        "Lines\r\nwith CRLF: an attack\r\n",
        "",
    ];
    for (at, text) in notes.iter().enumerate() {
        assert_read_in_one_pass(&format!("n{at}.md"), text);
    }
    // Every note of the corpora, when they are here.
    let Some(corpora) = std::env::var_os("VAULTLINK_CORPORA") else { return };
    let mut folders = vec![std::path::PathBuf::from(corpora)];
    let mut read = 0;
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|extension| extension == "md") {
                let Ok(text) = std::fs::read_to_string(&path) else { continue };
                assert_read_in_one_pass(&path.display().to_string(), &text);
                read += 1;
            }
        }
    }
    assert!(read > 0, "no note read from the corpora");
}
