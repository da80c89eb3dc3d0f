//! The near-duplicate sketches made only when `near_duplicate` asks: whichever way an edge
//! sketches the notes (all before the call, in any order, some, or none, leaving core to read
//! them through the call's edge), `lint_wiki` answers finding for finding as a fully sketched
//! index does, on generated notes and on the corpora.

use serde_json::{json, Value};
use vaultlink_core::approval::PlanHistory;
use vaultlink_core::ops::{self, ReadBefore};
use vaultlink_core::sketch::Sketch;
use vaultlink_core::Vault;

mod common;

/// How many of the notes core names an edge sketches before the call.
#[derive(Debug, Clone, Copy)]
enum SketchedBefore {
    /// Every note core asks for, kept in the reverse of the order asked (as threads may finish).
    All,
    /// Every other note core asks for; core reads the rest through the call's edge.
    Half,
    /// None: core reads every note through the call's edge, for that call alone.
    Nothing,
}

/// `lint_wiki`'s answer for `near_duplicate` on `files`, sketched as `how` says, the edge able to
/// read every note.
fn lint(files: &common::Files, how: SketchedBefore) -> Value {
    let mut vault = common::index(files);
    let request = ops::request("lint_wiki", &json!({"kinds": ["near_duplicate"], "limit": 500})).expect("a request");
    let needed = ops::sketches_needed(&mut vault, &request);
    let compared = vault.note_paths().filter(|path| !vaultlink_core::lint::is_schema_file(path)).count();
    assert_eq!(needed.len(), compared);
    let keep: Vec<&String> = match how {
        SketchedBefore::All => needed.iter().rev().collect(),
        SketchedBefore::Half => needed.iter().step_by(2).collect(),
        SketchedBefore::Nothing => Vec::new(),
    };
    for path in &keep {
        assert!(vault.keep_sketch(path, Sketch::of_note(&files[*path])), "{path}");
    }
    // What is still asked for is what was not kept.
    assert_eq!(ops::sketches_needed(&mut vault, &request).len(), needed.len() - keep.len());
    let mut edge = ReadBefore { texts: files.clone(), ..ReadBefore::default() };
    let outcome = ops::run(&vault, &request, &mut edge, &mut PlanHistory::default()).unwrap_or_else(|error| panic!("{}", error.message));
    serde_json::to_value(outcome.answer).expect("serialisable")
}

fn check(files: &common::Files, what: &str) -> usize {
    let sketched_first = lint(files, SketchedBefore::All);
    assert_eq!(sketched_first["skipped"], json!([]), "{what}");
    for how in [SketchedBefore::Half, SketchedBefore::Nothing] {
        assert_eq!(lint(files, how), sketched_first, "{what}: sketched {how:?}");
    }
    sketched_first["total"].as_u64().expect("a total") as usize
}

/// Notes that share most of their words, some identical but for spacing, some unrelated.
fn generated() -> common::Files {
    let word = |seed: usize| format!("w{}", (seed * 2_654_435_761) % 3_001);
    let body = |seed: usize, words: usize| (0..words).map(|at| word(seed * 1_000 + at)).collect::<Vec<_>>().join(" ");
    let mut files = common::Files::new();
    for note in 0..60 {
        let text = match note % 4 {
            0 => body(note, 120),
            1 => format!("{} {}", body(note - 1, 100), body(note + 500, 20)),
            2 => format!("---\ntags: [copy]\n---\n\n{}\n", body(note - 2, 120).replace(' ', "\n")),
            _ => body(note + 900, 15),
        };
        files.insert(format!("f{}/n{note}.md", note % 3), text);
    }
    files.insert("f0/SCHEMA.md".to_owned(), body(0, 120));
    files.insert("pic.png".to_owned(), String::new());
    files
}

#[test]
fn sketching_before_the_call_or_within_it_gives_one_answer() {
    assert!(check(&generated(), "generated notes") >= 30);
}

#[test]
fn a_note_no_edge_can_read_is_left_out_and_said_so() {
    let files = generated();
    let vault = common::index(&files);
    let request = ops::request("lint_wiki", &json!({"kinds": ["near_duplicate"]})).expect("a request");
    let mut texts = files.clone();
    texts.remove("f0/n0.md");
    let mut edge = ReadBefore { texts, ..ReadBefore::default() };
    let answer =
        serde_json::to_value(ops::run(&vault, &request, &mut edge, &mut PlanHistory::default()).expect("an answer").answer).unwrap();
    assert_eq!(answer["skipped"][0]["kind"], "near_duplicate");
    let reason = answer["skipped"][0]["reason"].as_str().unwrap_or_default();
    assert!(reason.starts_with("1 notes were not compared"), "{reason}");
    assert!(!answer["proposals"].as_array().unwrap().iter().any(|proposal| proposal["subject"] == "f0/n0.md"));
}

/// Only a lint that runs `near_duplicate` asks for texts to sketch.
#[test]
fn only_near_duplicate_asks_for_sketches() {
    let mut vault: Vault = common::index(&generated());
    for (tool, arguments) in [
        ("lint_wiki", json!({"kinds": ["orphan"]})),
        ("lint_wiki", json!({"kinds": ["no_such_kind"]})),
        ("get_backlinks", json!({"path": "f0/n0.md"})),
    ] {
        if let Ok(request) = ops::request(tool, &arguments) {
            assert_eq!(ops::sketches_needed(&mut vault, &request), Vec::<String>::new(), "{tool} {arguments}");
        }
    }
    let request = ops::request("lint_wiki", &json!({})).expect("a request");
    assert_eq!(ops::sketches_needed(&mut vault, &request).len(), 60, "near_duplicate runs by default");
}

#[test]
fn on_the_corpora_sketching_before_or_within_the_call_gives_one_answer() {
    let root = common::corpora_dir();
    if !root.is_dir() {
        common::say(&format!("sketches on corpora: NOT RUN: no corpora at {}; set VAULTLINK_CORPORA", root.display()));
        return;
    }
    for corpus in ["dnd-srd-wiki", "yoshixi-zettelkasten"] {
        let files = common::read_corpus(&root.join(corpus), false);
        let found = check(&files, corpus);
        common::say(&format!("sketches on {corpus}: {found} near_duplicate findings, equal whichever way sketched"));
    }
}
