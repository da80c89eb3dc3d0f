//! `needs::needs` names everything a call reads from its edge: an edge that gathers exactly what
//! it names (the plugin) answers as an edge that is asked as the call runs (the sidecar). Every
//! tool is run on an edge that records what it is asked for, previews, approvals that fail (whose
//! retry is answered from the records of changes) and paths spelled as a person spells them, and
//! what it was asked must be within what `needs` named, no more. (The sketches a lint compares are
//! made first, as both edges make them, `ops::sketches_needed`.)

mod common;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};
use vaultlink_core::approval::PlanHistory;
use vaultlink_core::edge::{Change, Edge, KeptChange, ReadBefore, UnopenedChange};
use vaultlink_core::error::CallError;
use vaultlink_core::moves_detected::Observed;
use vaultlink_core::needs::{needs, Needs};
use vaultlink_core::{ops, Vault};

/// An edge that hands out what it holds and records each thing it was asked for.
#[derive(Default)]
struct Recording {
    held: ReadBefore,
    texts: BTreeSet<String>,
    modified: BTreeSet<String>,
    kept_changes: bool,
    undone_changes: bool,
    observed: bool,
}

impl Edge for Recording {
    fn text(&mut self, path: &str) -> Result<String, CallError> {
        self.texts.insert(path.to_owned());
        self.held.text(path)
    }

    fn modified_ms(&mut self, path: &str) -> Option<u64> {
        self.modified.insert(path.to_owned());
        self.held.modified_ms(path)
    }

    fn tag(&self) -> u32 {
        7
    }

    fn changes(&mut self) -> Vec<KeptChange> {
        self.kept_changes = true;
        self.held.changes()
    }

    fn unopened_changes(&mut self) -> Vec<UnopenedChange> {
        self.kept_changes = true;
        self.held.unopened_changes()
    }

    fn undone_changes(&mut self) -> Vec<KeptChange> {
        self.undone_changes = true;
        self.held.undone_changes()
    }

    fn observed(&mut self) -> Option<Observed> {
        self.observed = true;
        self.held.observed()
    }
}

const VAULT: &str = "
//- Index.md
see [[Plan]], [[notes/Gone]] and [[Beta]]
//- Plan.md
---
status: open
---
the plan, which mentions Beta
//- Beta.md
beta links back to [[Index]]
//- wiki/Old page.md
an old page
";

/// A kept change: the move of `Plan.md` to `archive/Plan.md`, made and kept as an edge keeps it.
fn kept_move(vault: &Vault, files: &common::Files) -> KeptChange {
    let mut edge = ReadBefore { texts: files.clone(), ..ReadBefore::default() };
    let arguments = json!({"from": "Plan.md", "to": "archive/Plan.md", "dry_run": false});
    let outcome = ops::call(vault, "move_note", &arguments, &mut edge, &mut PlanHistory::default()).expect("the move plans");
    let Some(Change::Batch { batch, .. }) = outcome.change else { panic!("an applied move answers its batch") };
    let journal = batch.journal(Vec::new(), 7, 1_000, "machine");
    KeptChange { name: vaultlink_core::history::next_record_name(1_000, &journal.change_id, &[]), journal }
}

/// The calls of every tool: previews, applies, and approvals of a plan hash that is not the plan's.
fn calls() -> Vec<(&'static str, Value)> {
    let wrong = "0".repeat(64);
    vec![
        ("get_outgoing_links", json!({"path": "index"})),
        ("get_backlinks", json!({"path": "Plan"})),
        ("find_unresolved_links", json!({})),
        ("find_orphans", json!({})),
        ("resolve_link", json!({"from": "Index.md", "link": "Plan"})),
        ("list_notes", json!({})),
        ("read_note", json!({"path": "./beta"})),
        ("vault_summary", json!({})),
        ("lint_wiki", json!({})),
        ("find_existing_page", json!({"topic": "Plan"})),
        ("find_evidence", json!({"title": "Beta"})),
        ("move_note", json!({"from": "beta", "to": "archive/Beta.md"})),
        ("move_note", json!({"from": "beta", "to": "archive/Beta.md", "dry_run": false})),
        ("move_note", json!({"from": "beta", "to": "archive/Beta.md", "approved_plan_hash": wrong})),
        ("rewrite_link", json!({"from_target": "Beta", "to_target": "Plan", "approved_plan_hash": wrong})),
        ("delete_note", json!({"path": "beta"})),
        ("delete_note", json!({"path": "./BETA", "confirm": true, "force": true, "expected_mtime": 5})),
        ("delete_note", json!({"path": "wiki/old page", "approved_plan_hash": wrong, "confirm": true, "force": true})),
        ("update_properties", json!({"path": "plan", "set": {"status": "done"}, "approved_plan_hash": wrong})),
        ("bulk_move_notes", json!({"moves": [{"from": "Beta", "to": "b/Beta.md"}], "approved_plan_hash": wrong})),
        ("commit_wiki_page", json!({"page": {"path": "wiki/New", "body": "# New\n[[Plan]]\n"}, "approved_plan_hash": wrong})),
        ("draft_wiki_page", json!({"topic": "Plan"})),
        ("undo_change", json!({})),
        ("undo_change", json!({"dry_run": false})),
        ("undo_change", json!({"approved_plan_hash": wrong})),
        ("list_changes", json!({})),
        ("find_link_paths", json!({"from": "Index", "to": "Beta"})),
        ("link_graph", json!({"question": "hubs"})),
        ("detected_moves", json!({})),
        ("heal_moves", json!({"approved_plan_hash": wrong})),
        ("fix_broken_links", json!({})),
        ("fix_broken_links", json!({"approved_plan_hash": wrong})),
        ("link_mentions", json!({"approved_plan_hash": wrong})),
    ]
}

#[test]
fn every_call_reads_only_what_needs_named() {
    let files = common::files(VAULT);
    let mut vault = common::index(&files);
    let kept = kept_move(&vault, &files);
    let called: BTreeSet<&str> = calls().iter().map(|(tool, _)| *tool).collect();
    let core_tools: BTreeSet<&str> = vaultlink_core::tools::ALL.iter().map(|tool| tool.name).collect();
    assert_eq!(called, core_tools, "every tool of core's table is called here");
    // What the calls asked for, all told: each kind of read is asked by some call, so none of the
    // checks below holds for want of asking.
    let mut asked = (false, false, false, false);
    for (tool, arguments) in calls() {
        let request = ops::request(tool, &arguments).unwrap_or_else(|error| panic!("{tool} {arguments}: {error:?}"));
        // Both edges sketch the notes a lint's near_duplicate compares before anything else.
        for path in ops::sketches_needed(&mut vault, &request) {
            vault.keep_sketch(&path, vaultlink_core::sketch::Sketch::of_note(&files[&path]));
        }
        let first = needs(&vault, &request, &[], &mut || None);
        let changes = if first.kept_changes { vec![kept.clone()] } else { Vec::new() };
        let named: Needs = needs(&vault, &request, &changes, &mut || None);
        assert_eq!(
            (named.kept_changes, named.undone_changes, named.observed),
            (first.kept_changes, first.undone_changes, first.observed),
            "{tool} {arguments}: what it reads besides notes does not depend on the changes handed in"
        );
        let texts: BTreeMap<String, String> =
            named.notes.iter().filter_map(|path| files.get(path).map(|text| (path.clone(), text.clone()))).collect();
        let modified = named.modified.iter().map(|path| (path.clone(), 5)).collect();
        let mut edge = Recording {
            held: ReadBefore { texts, modified_ms: modified, tag: 7, changes, undone: Vec::new(), unopened: Vec::new(), observed: None },
            ..Recording::default()
        };
        let _answer = ops::run(&vault, &request, &mut edge, &mut PlanHistory::default());
        let notes: BTreeSet<String> = named.notes.iter().cloned().collect();
        assert!(edge.texts.is_subset(&notes), "{tool} {arguments}: read {:?}, named {:?}", edge.texts, named.notes);
        let modified: BTreeSet<String> = named.modified.iter().cloned().collect();
        assert!(
            edge.modified.is_subset(&modified),
            "{tool} {arguments}: asked the times of {:?}, named {:?}",
            edge.modified,
            named.modified
        );
        assert!(!edge.kept_changes || named.kept_changes, "{tool} {arguments}: read the kept changes, not named");
        assert!(!edge.undone_changes || named.undone_changes, "{tool} {arguments}: read the undone changes, not named");
        assert!(!edge.observed || named.observed, "{tool} {arguments}: read what the edge observed, not named");
        asked =
            (asked.0 || edge.kept_changes, asked.1 || edge.undone_changes, asked.2 || edge.observed, asked.3 || !edge.modified.is_empty());
    }
    assert_eq!(asked, (true, true, true, true), "(kept changes, undone changes, observed, modification times) were each asked for");
}

#[test]
fn a_call_that_reads_no_records_of_changes_is_told_so() {
    let files = common::files(VAULT);
    let vault = common::index(&files);
    for (tool, arguments) in [("get_backlinks", json!({"path": "Plan"})), ("move_note", json!({"from": "Beta", "to": "b/Beta.md"}))] {
        let named = needs(&vault, &ops::request(tool, &arguments).unwrap(), &[], &mut || None);
        assert_eq!((named.kept_changes, named.undone_changes, named.observed), (false, false, false), "{tool}");
    }
    // An undo's notes are those its change touched: known once the kept changes are handed in.
    let kept = kept_move(&vault, &files);
    let undo = ops::request("undo_change", &json!({})).unwrap();
    assert_eq!(needs(&vault, &undo, &[], &mut || None).notes, Vec::<String>::new());
    assert!(!needs(&vault, &undo, &[kept], &mut || None).notes.is_empty());
    // A delete compares the modification time of its note as the index spells it.
    let delete = ops::request("delete_note", &json!({"path": "./BETA", "confirm": true, "expected_mtime": 5})).unwrap();
    assert_eq!(needs(&vault, &delete, &[], &mut || None).modified, vec!["Beta.md".to_owned()]);
}
