//! An index kept current by `upsert`, `remove` and `rename` equals one built from scratch,
//! for random sequences of operations on generated vaults. The vaults reuse a few names in
//! several folders, cases and Unicode normalisations, so files coming and going keep changing
//! which file a link resolves to.

use std::collections::BTreeMap;

use vaultlink_core::index::{missing_target_key, IndexConfig};
use vaultlink_core::ops::{self, PageArguments, ResponseFormat};
use vaultlink_core::resolve::Resolution;
use vaultlink_core::Vault;

mod common;

use common::{remove_at_random, rename_at_random, Random};

const FOLDERS: [&str; 4] = ["", "a/", "b/", "a/deep/"];
const NAMES: [&str; 6] = ["Note", "note", "Caf\u{e9}", "Cafe\u{301}", "Note.1", "Other"];
const ATTACHMENTS: [&str; 2] = ["img.png", "Note.png"];

fn random_path(random: &mut Random) -> String {
    let folder = random.pick(&FOLDERS);
    if random.next().is_multiple_of(5) {
        format!("{folder}{}", random.pick(&ATTACHMENTS))
    } else if random.next().is_multiple_of(7) {
        format!("{folder}{}.canvas", random.pick(&NAMES))
    } else {
        format!("{folder}{}.md", random.pick(&NAMES))
    }
}

/// A canvas: a file card naming a path exactly (one of the vault's or a missing one) and a
/// text card holding a note's links, so canvases come and go among the notes too.
fn random_canvas(random: &mut Random) -> String {
    let card = format!("{}{}.md", random.pick(&FOLDERS), random.pick(&["Note", "Other", "Gone"]));
    let text = random_text(random).replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n");
    format!(
        r#"{{"nodes":[{{"id":"a","type":"file","file":"{card}","x":0,"y":0,"width":10,"height":10}},{{"id":"b","type":"text","text":"{text}","x":0,"y":20,"width":10,"height":10}}],"edges":[]}}"#
    )
}

/// What a file at `path` holds: a note's text, a canvas's JSON, nothing for an attachment.
fn random_content(random: &mut Random, path: &str) -> String {
    if path.ends_with(".canvas") {
        random_canvas(random)
    } else if path.ends_with(".md") {
        random_text(random)
    } else {
        String::new()
    }
}

fn random_text(random: &mut Random) -> String {
    let mut text = String::from("# Heading\n");
    for _ in 0..random.next() % 6 {
        let name = random.pick(&NAMES);
        let folder = random.pick(&FOLDERS);
        let link = match random.next() % 9 {
            0 => format!("[[{name}]]"),
            1 => format!("[[{folder}{name}]]"),
            2 => format!("[x](../{folder}{}.md)", name.replace(' ', "%20")),
            3 => format!("[x](/{folder}{name}.md)"),
            4 => format!("![[{}]]", random.pick(&ATTACHMENTS)),
            5 => format!("[[{name}#Heading]]"),
            // Names no file has, in two cases: unresolved links grouped as one missing note.
            6 => format!("[[{}]]", random.pick(&["Gone", "gone", "Gone.md", "x/Gone"])),
            7 => format!("[[{name}.png]]"),
            _ => format!("[[{name}.md|alias]]"),
        };
        text.push_str(&link);
        text.push('\n');
    }
    text
}

/// The counts of unresolved links the index keeps as it changes equal a full count, and
/// `find_unresolved_links`, which pages through the missing targets the index keeps and looks up
/// each one's links, answers what grouping every link of the vault gives, page by page.
fn check_unresolved_counts(vault: &Vault, context: &str) {
    let by_walk = unresolved_by_walk(vault);
    assert_eq!(vault.missing_targets(), by_walk.len(), "{context}: the missing targets kept differ from a count");
    assert_eq!(vault.unresolved_link_count(), vault.summary().unresolved_links, "{context}: the unresolved links kept differ from a count");
    let mut paged = Vec::new();
    let mut cursor = None;
    loop {
        let arguments = PageArguments { limit: Some(2), cursor, response_format: ResponseFormat::Detailed };
        let page = ops::unresolved(vault, &arguments).expect("find_unresolved_links answers");
        assert_eq!(page.total_targets, by_walk.len(), "{context}: total_targets");
        paged.extend(page.targets);
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!(paged, by_walk, "{context}: find_unresolved_links differs from grouping every link");
}

/// `find_unresolved_links`' groups, detailed, worked out by walking every link of the vault.
fn unresolved_by_walk(vault: &Vault) -> Vec<ops::MissingTarget> {
    let mut groups: BTreeMap<String, ops::MissingTarget> = BTreeMap::new();
    for found in vault.all_links().filter(|found| *found.resolution == Resolution::Unresolved) {
        let group = groups.entry(missing_target_key(&found.link)).or_insert_with(|| ops::MissingTarget {
            target: found.link.path.trim().to_owned(),
            referrer_count: 0,
            referrers: Vec::new(),
        });
        group.referrer_count += 1;
        if group.referrers.len() < ops::MAX_REFERRERS_PER_TARGET {
            group.referrers.push(ops::Referrer {
                source: found.source.to_owned(),
                line: found.link.line,
                column: Some(found.link.column),
                kind: Some(found.link.kind),
            });
        }
    }
    groups.into_values().collect()
}

fn rebuilt(files: &BTreeMap<String, String>) -> Vault {
    let mut vault = Vault::new(IndexConfig::obsidian_defaults());
    for (path, text) in files {
        vault.upsert(path, text);
    }
    vault
}

#[test]
fn incremental_updates_equal_a_rebuild() {
    for seed in 1..=150u64 {
        let mut random = Random(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let mut files: BTreeMap<String, String> = BTreeMap::new();
        let mut vault = Vault::new(IndexConfig::obsidian_defaults());
        for step in 0..60 {
            let operation = random.next() % 10;
            let description = if operation < 5 || files.is_empty() {
                let path = random_path(&mut random);
                let text = random_content(&mut random, &path);
                vault.upsert(&path, &text);
                files.insert(path.clone(), text);
                format!("upsert {path}")
            } else if operation < 7 {
                remove_at_random(&mut vault, &mut files, &mut random)
            } else {
                rename_at_random(&mut vault, &mut files, &mut random, random_path)
            };
            assert_eq!(
                vault.snapshot(),
                rebuilt(&files).snapshot(),
                "seed {seed}, step {step}: after `{description}` the index differs from a rebuild"
            );
            check_unresolved_counts(&vault, &format!("seed {seed}, step {step}, after `{description}`"));
        }
    }
}

/// Files inserted many at a time (`insert_prepared_many`), into an empty index and then into
/// one that already holds some of them, give the index that one-by-one upserts give.
#[test]
fn batches_of_prepared_files_equal_a_rebuild() {
    let parse = IndexConfig::obsidian_defaults().parse;
    for seed in 1..=150u64 {
        let mut random = Random(seed.wrapping_mul(0x2545_f491_4f6c_dd1d));
        let mut files: BTreeMap<String, String> = BTreeMap::new();
        let mut vault = Vault::new(IndexConfig::obsidian_defaults());
        for _ in 0..3 {
            // A batch of new and changed files, in no particular order.
            let mut batch = Vec::new();
            for _ in 0..random.next() % 12 {
                let path = random_path(&mut random);
                let text = random_content(&mut random, &path);
                files.insert(path.clone(), text.clone());
                batch.push((path.clone(), Vault::prepare(&parse, &path, &text)));
            }
            vault.insert_prepared_many(batch);
            assert_eq!(vault.snapshot(), rebuilt(&files).snapshot(), "seed {seed}");
            check_unresolved_counts(&vault, &format!("seed {seed}, after a batch"));
        }
    }
}
