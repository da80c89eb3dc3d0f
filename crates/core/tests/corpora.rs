//! Every note of the real vaults in `shared/corpora` parses without a panic, with every span
//! on character boundaries, and the counts of links and property links are printed.
//!
//! The corpora are not part of the repository. The test looks in `$VAULTLINK_CORPORA`, else in
//! `../shared/corpora` beside the checkout, and says plainly on the terminal when they are
//! absent (a user's clone has none).

use vaultlink_core::parse::{parse_note, LinkSource, ParseConfig};

mod common;

const CORPORA: [&str; 3] = ["kepano-obsidian", "dnd-srd-wiki", "yoshixi-zettelkasten"];

#[test]
fn every_corpus_note_parses() {
    let root = common::corpora_dir();
    if !root.is_dir() {
        common::say(&format!(
            "corpora: NOT RUN: no corpora at {}; set VAULTLINK_CORPORA to the folder holding {}",
            root.display(),
            CORPORA.join(", ")
        ));
        return;
    }
    for corpus in CORPORA {
        let dir = root.join(corpus);
        assert!(dir.is_dir(), "{} is missing from {}", corpus, root.display());
        let files = common::read_corpus(&dir, false);
        let (mut links, mut property_links, mut notes_with_property_links, mut diagnostics) = (0, 0, 0, 0);
        for (path, text) in &files {
            let note = parse_note(path, text, &ParseConfig::OBSIDIAN);
            for link in &note.links {
                for span in [link.span, link.target_span] {
                    assert!(
                        span.end <= text.len() && text.is_char_boundary(span.start) && text.is_char_boundary(span.end),
                        "{path}: span {span:?} is not on character boundaries"
                    );
                }
            }
            let properties = note.links.iter().filter(|link| matches!(link.source, LinkSource::Property { .. })).count();
            links += note.links.len();
            property_links += properties;
            notes_with_property_links += usize::from(properties > 0);
            diagnostics += note.diagnostics.len();
        }
        assert!(!files.is_empty(), "{corpus} has no notes");
        common::say(&format!(
            "corpora: {corpus}: {} notes, {links} links, {property_links} property links in {notes_with_property_links} notes, {diagnostics} diagnostics",
            files.len()
        ));
    }
}

/// The index's counts on each corpus, as reviewed. A change in parsing or resolution shows up
/// here as a diff to look at, not as a silent drift.
const INDEX_SNAPSHOT: [(&str, &str); 3] = [
    ("kepano-obsidian", "notes=103 links=209 resolved=85 unresolved=124 ambiguous=0 orphans=71"),
    ("dnd-srd-wiki", "notes=1028 links=780 resolved=778 unresolved=2 ambiguous=0 orphans=709"),
    ("yoshixi-zettelkasten", "notes=13415 links=37360 resolved=30564 unresolved=6786 ambiguous=10 orphans=1990"),
];

#[test]
fn index_counts_match_the_snapshot() {
    let root = common::corpora_dir();
    if !root.is_dir() {
        common::say(&format!("corpora: NOT RUN: no corpora at {}; the index snapshot was not checked", root.display()));
        return;
    }
    for (corpus, expected) in INDEX_SNAPSHOT {
        let dir = root.join(corpus);
        let vault = common::index(&common::read_corpus(&dir, false));
        let summary = vault.summary();
        let orphans = vault.note_paths().filter(|path| vault.inbound_count(path) == 0).count();
        let actual = format!(
            "notes={} links={} resolved={} unresolved={} ambiguous={} orphans={orphans}",
            summary.notes, summary.links, summary.resolved_links, summary.unresolved_links, summary.ambiguous_links
        );
        common::say(&format!("corpora: {corpus}: index {actual}"));
        assert_eq!(actual, expected, "{corpus}: the index counts changed; if that is intended, update INDEX_SNAPSHOT");
    }
}

/// Moves on real vaults keep every link: the most-linked notes, a spread of others, and one
/// folder, each planned, applied in memory and checked against the invariant.
#[test]
fn moves_keep_every_link_on_the_corpora() {
    let root = common::corpora_dir();
    if !root.is_dir() {
        common::say(&format!("corpora: NOT RUN: no corpora at {}; moves were not checked on them", root.display()));
        return;
    }
    for corpus in CORPORA {
        let dir = root.join(corpus);
        let files = common::read_corpus(&dir, false);
        let vault = common::index(&files);
        let mut by_links: Vec<(&str, usize)> = vault.note_paths().map(|path| (path, vault.backlinks(path).len())).collect();
        by_links.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let mut sources: Vec<String> = by_links.iter().take(3).map(|(path, _)| (*path).to_owned()).collect();
        sources.extend(vault.note_paths().step_by(vault.note_count() / 5 + 1).map(str::to_owned));
        let folder = sources[0].rsplit_once('/').map(|(folder, _)| folder.to_owned());
        let (mut planned, mut refused) = (0, 0);
        let mut moves: Vec<(String, String)> =
            sources.iter().map(|from| (from.clone(), format!("moved by test/{}", from.rsplit('/').next().unwrap_or(from)))).collect();
        if let Some(folder) = folder {
            moves.push((folder.clone(), format!("moved folder/{folder}")));
        }
        for (from, to) in &moves {
            match common::plan_with(&vault, &files, from, to) {
                Ok(plan) => {
                    planned += 1;
                    let after = common::apply(&files, &plan);
                    common::check_invariant_with(&vault, &files, &plan, &after);
                }
                Err(reason) => {
                    refused += 1;
                    common::say(&format!("corpora: {corpus}: moving {from} refused: {reason}"));
                }
            }
        }
        common::say(&format!("corpora: {corpus}: {planned} moves planned and checked, {refused} refused"));
        assert!(planned > 0, "{corpus}: no move could be planned");
    }
}
