//! What an edge learning of the vault's changes one event at a time keeps (`seen_since`) gives
//! the same vanished and appeared notes as the two whole views compared (`Observed::between`),
//! so the plugin detects the moves the sidecar detects on the folder.

use vaultlink_core::moves_detected::{detect, MoveKind, Observed};
use vaultlink_core::seen_since::{Seen, SeenSince};
use vaultlink_core::SeenNote;

fn note(path: &str, text: &str) -> SeenNote {
    let seen = Seen::of(text.as_bytes());
    SeenNote { path: path.to_owned(), size: seen.size, hash: seen.hash }
}

fn watching(notes: &[(&str, &str)]) -> SeenSince {
    let mut seen = SeenSince::default();
    for (path, text) in notes {
        seen.upsert(path, text.as_bytes());
    }
    seen.begin();
    seen
}

#[test]
fn nothing_is_observed_before_the_first_view_is_whole() {
    let mut seen = SeenSince::default();
    seen.upsert("a.md", b"A");
    assert_eq!(seen.observed(), None);
    seen.begin();
    assert_eq!(seen.observed(), Some(Observed::default()));
}

#[test]
fn a_move_as_a_delete_and_a_create_is_what_the_two_views_compared_give() {
    let before = [("a.md", "alpha"), ("b.md", "[[a]]"), ("c.md", "gamma"), ("pic.png", "")];
    let mut seen = watching(&before);
    // `mv a.md sub/a.md`, an edit of c.md, a new note and a removed attachment.
    seen.remove("a.md");
    seen.upsert("sub/a.md", b"alpha");
    seen.upsert("c.md", b"gamma, edited");
    seen.upsert("d.md", b"delta");
    seen.remove("pic.png");
    let first: Vec<SeenNote> = before.iter().filter(|(path, _)| path.ends_with(".md")).map(|(path, text)| note(path, text)).collect();
    let now = vec![note("b.md", "[[a]]"), note("c.md", "gamma, edited"), note("d.md", "delta"), note("sub/a.md", "alpha")];
    assert_eq!(seen.observed(), Some(Observed::between(&first, &now)));

    let mut vault = vaultlink_core::Vault::new(vaultlink_core::index::IndexConfig::obsidian_defaults());
    for (path, text) in [("b.md", "[[a]]"), ("c.md", "gamma, edited"), ("d.md", "delta"), ("sub/a.md", "alpha")] {
        vault.upsert(path, text);
    }
    let detected = detect(&vault, &seen.observed().unwrap());
    assert_eq!(detected.pairs, vec![("a.md".to_owned(), "sub/a.md".to_owned())]);
    assert_eq!(detected.moves[0].kind, MoveKind::Note);
}

#[test]
fn a_note_changed_back_or_moved_back_is_no_change() {
    let mut seen = watching(&[("a.md", "alpha")]);
    seen.upsert("a.md", b"other");
    seen.upsert("a.md", b"alpha");
    seen.remove("a.md");
    seen.upsert("b.md", b"alpha");
    seen.remove("b.md");
    seen.upsert("a.md", b"alpha");
    assert_eq!(seen.observed(), Some(Observed::default()));
}

#[test]
fn a_rename_through_obsidian_is_no_evidence_of_a_move_outside_it() {
    let mut seen = watching(&[("a.md", "alpha"), ("b.md", "beta")]);
    seen.rename("a.md", "moved/a.md");
    assert_eq!(seen.observed(), Some(Observed::default()));
    // A move made outside Obsidian after it is still seen, from where Obsidian put the note.
    seen.remove("moved/a.md");
    seen.upsert("far/a.md", b"alpha");
    assert_eq!(seen.observed(), Some(Observed { vanished: vec![note("moved/a.md", "alpha")], appeared: vec![note("far/a.md", "alpha")] }));
}

#[test]
fn attachments_are_not_kept_and_a_view_past_its_bound_is_given_up_not_cut() {
    let mut seen = watching(&[("a.md", "alpha")]);
    seen.upsert("picture.png", b"bytes");
    seen.remove("picture.png");
    assert_eq!(seen.observed(), Some(Observed::default()));
    for number in 0..=vaultlink_core::seen_since::MAX_CHANGED {
        seen.upsert(&format!("new/{number}.md"), b"new");
    }
    assert_eq!(seen.observed(), None, "too much changed to compare: nothing is observed, rather than a part of it");
}

#[test]
fn a_healed_move_is_no_evidence_any_more_whatever_the_heal_wrote_into_the_note() {
    let mut seen = watching(&[("a.md", "alpha, see [[b]]"), ("b.md", "beta"), ("c.md", "gamma")]);
    // Two moves made outside Obsidian; the first is healed, the second is not.
    seen.remove("a.md");
    seen.upsert("sub/a.md", b"alpha, see [[b]]");
    seen.remove("c.md");
    seen.upsert("sub/c.md", b"gamma");
    seen.accept(&[("a.md".to_owned(), "sub/a.md".to_owned())]);
    // The heal rewrote a link in the moved note itself, as its own move would have.
    seen.upsert("sub/a.md", b"alpha, see [[../b]]");
    let mut vault = vaultlink_core::Vault::new(vaultlink_core::index::IndexConfig::obsidian_defaults());
    for (path, text) in [("sub/a.md", "alpha, see [[../b]]"), ("b.md", "beta"), ("sub/c.md", "gamma")] {
        vault.upsert(path, text);
    }
    let detected = detect(&vault, &seen.observed().unwrap());
    assert_eq!(detected.pairs, vec![("c.md".to_owned(), "sub/c.md".to_owned())], "only the move not healed is left");
    assert!(detected.ambiguous.is_empty(), "the healed note is not taken for a move plus an edit: {:?}", detected.ambiguous);
}
