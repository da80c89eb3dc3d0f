//! `update_properties` over the YAML forms real frontmatter is written in: every edit of every
//! tricky frontmatter below (each key set to each kind of value or removed, and a new key) is
//! the fuzz target's check (`fuzz_checks::check_property_edit`): refused with a typed code, never
//! `internal`, or read back by `serde_yaml` as exactly the asked change with every other byte
//! kept. The forms that are edited, not refused, say so with their exact result.

mod common;
mod fuzz_checks;

use serde_json::json;
use vaultlink_core::plan::apply_edits;
use vaultlink_core::properties::{plan, PropertiesArguments};

/// Frontmatters in the forms serde_yaml reads that a simple line scanner gets wrong.
pub const TRICKY: &[&str] = &[
    // Block scalars with blank lines inside, folded and literal, with indentation and chomping
    // indicators.
    "---\na: >\n  one\n\n  two\nb: 1\n---\nBody\n",
    "---\na: |\n  one\n\n\n  two\n\nb: 1\n---\n",
    "---\na: |+\n  kept\n\n\nb: 1\n---\n",
    "---\na: >-\n  one\n\n  two\nb: 1\nc: |2\n    indented\n\n   less\n---\n",
    "---\nintro: |1-\n  x\n\n  y\nlast: >+\n  z\n\n---\n",
    "---\na: |\n  # not a comment\n\n  b: not a key\nb: 1\n---\n",
    // Comments between and inside entries, at the start of a line and after a value.
    "---\n# head\na: 1 # after\n\n# between\nb:\n  # inside\n  - x\n# in the list\n  - y\nc: 3\n# tail\n---\n",
    "---\ntags:\n# first\n- x\n- y\nd: 4\n---\n",
    // Anchors and aliases, and a merge key.
    "---\nbase: &b 1\nuse: *b\nother: 2\n---\n",
    "---\nbase: &m\n  x: 1\nmerged:\n  <<: *m\n  y: 2\nlast: z\n---\n",
    "---\n\"<<\": quoted merge\nz: &z [1, 2]\nw: *z\n---\n",
    // Flow collections over several lines.
    "---\nlist: [one,\n  two,\n\n  three]\nmap: {a: 1,\n  b: 2}\nend: 1\n---\n",
    // Quoted scalars over several lines.
    "---\nq: \"one\n  two\"\nr: 'three\n\n  four'\ns: 5\n---\n",
    // Plain scalars over several lines.
    "---\np: one\n  two\n\n  three\nt: 6\n---\n",
    // CRLF and a byte-order mark.
    "---\r\na: >\r\n  one\r\n\r\n  two\r\nb: 1\r\n---\r\nBody\r\n",
    "\u{feff}---\na: 1\n\nb: |\n  x\n\n  y\n---\n",
    "\u{feff}Body without properties\n",
    // Keys quoted, typed or odd.
    "---\n\"quoted key\": 1\n'single': 2\n1: number key\ntrue: bool key\nplain: 3\n---\n",
    "---\n? complex\n: value\nx: 1\n---\n",
    "---\na: 1\nb: 2\n---\n",
    "---\na: 1\nb: 2",
    "---\n---\n",
    "---\n%TAG ! tag:x,2000:\na: 1\n---\n",
    "---\nobject:\n  nested: 1\n\n  more: 2\nafter: 3\n---\n",
    "---\nseq:\n  - one\n\n  - two\nz: 1\n---\n",
    "---\ntabbed:\t1\nkey with spaces: 2\nemoji: 🙂\n---\n",
];

#[test]
fn every_edit_of_every_tricky_frontmatter_is_applied_as_asked_or_refused_with_a_code() {
    for text in TRICKY {
        for selector in 0..=u8::MAX {
            fuzz_checks::check_property_edit(text, selector);
        }
    }
}

fn edited(text: &str, set: serde_json::Value, remove: &[&str]) -> String {
    let arguments = PropertiesArguments {
        path: "N.md".to_owned(),
        set: set.as_object().cloned().unwrap_or_default(),
        remove: remove.iter().map(|key| (*key).to_owned()).collect(),
        dry_run: None,
        approved_plan_hash: None,
        response_format: Default::default(),
    };
    let (plan, _) = plan("N.md", text, &arguments).unwrap_or_else(|error| panic!("{text:?}: {error:?}"));
    plan.edits.first().map_or(text.to_owned(), |file| apply_edits(text, &file.edits))
}

/// The case an agent met in a real vault: most of its notes held a block scalar with a blank
/// line inside, and no property of theirs could be edited.
#[test]
fn a_block_scalar_with_a_blank_line_inside_is_kept_and_its_neighbours_edited() {
    let text = "---\na: >\n  one\n\n  two\nb: 1\n---\nBody\n";
    assert_eq!(edited(text, json!({"b": 2}), &[]), "---\na: >\n  one\n\n  two\nb: 2\n---\nBody\n");
    assert_eq!(edited(text, json!({"a": "x"}), &[]), "---\na: x\nb: 1\n---\nBody\n");
    assert_eq!(edited(text, json!({}), &["a"]), "---\nb: 1\n---\nBody\n");
    assert_eq!(edited(text, json!({"c": 3}), &[]), "---\na: >\n  one\n\n  two\nb: 1\nc: 3\n---\nBody\n");
    let crlf = text.replace('\n', "\r\n");
    assert_eq!(edited(&crlf, json!({"b": 2}), &[]), "---\r\na: >\r\n  one\r\n\r\n  two\r\nb: 2\r\n---\r\nBody\r\n");
}

/// Comments between entries stay where they are when a neighbour is removed or replaced; a
/// comment inside an entry goes with it.
#[test]
fn comments_between_entries_stay_and_those_inside_go_with_their_entry() {
    let text = "---\na: 1 # after\n\n# between\nb:\n  # inside\n  - x\n\n  - y\n# tail\n---\n";
    assert_eq!(edited(text, json!({}), &["b"]), "---\na: 1 # after\n\n# between\n# tail\n---\n");
    assert_eq!(edited(text, json!({}), &["a"]), "---\n\n# between\nb:\n  # inside\n  - x\n\n  - y\n# tail\n---\n");
    assert_eq!(edited(text, json!({"b": "z"}), &[]), "---\na: 1 # after\n\n# between\nb: z\n# tail\n---\n");
}

/// A key YAML reads as a number or a boolean is another property than the text key of the same
/// spelling: setting the text key adds it, quoted, and leaves the other alone.
#[test]
fn a_typed_key_is_not_the_text_key_spelt_the_same() {
    let text = "---\n1: number key\nplain: 3\n---\n";
    assert_eq!(edited(text, json!({"1": "text"}), &[]), "---\n1: number key\nplain: 3\n\"1\": text\n---\n");
}

/// An edit the note already holds plans no write and says so, and a key already holding its
/// value is left as it is written (its quoting, its comment) while another key is set.
#[test]
fn an_edit_that_changes_nothing_writes_nothing_and_says_so() {
    let text = "---\nstatus: 'done' # kept\ncount: 2\n---\nBody\n";
    let arguments = |set: serde_json::Value, remove: &[&str]| PropertiesArguments {
        path: "N.md".to_owned(),
        set: set.as_object().cloned().unwrap_or_default(),
        remove: remove.iter().map(|key| (*key).to_owned()).collect(),
        dry_run: None,
        approved_plan_hash: None,
        response_format: Default::default(),
    };
    let (same, answer) = plan("N.md", text, &arguments(json!({"status": "done", "count": 2}), &["absent"])).expect("planned");
    assert!(same.edits.is_empty(), "{same:?}");
    assert!(answer.unchanged && answer.set.is_empty() && answer.removed.is_empty(), "{answer:?}");
    assert_eq!(serde_json::to_value(&answer).expect("JSON")["unchanged"], json!(true));
    let (_, answer) = plan("N.md", text, &arguments(json!({"status": "done", "count": 3}), &[])).expect("planned");
    assert!(!answer.unchanged && answer.set == ["count"], "{answer:?}");
    assert!(serde_json::to_value(&answer).expect("JSON").get("unchanged").is_none());
    assert_eq!(edited(text, json!({"status": "done", "count": 3}), &[]), "---\nstatus: 'done' # kept\ncount: 3\n---\nBody\n");
}
