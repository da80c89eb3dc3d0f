//! Wiki lint and find_existing_page through `ops`, as agents call them: a fixture wiki with a
//! `SCHEMA.md`, the options (folder, excluded folders, kinds, paging, concise), every
//! find_existing_page verdict, and the lint counts on the real corpora when present.

use serde_json::{json, Value};
use vaultlink_core::approval::PlanHistory;
use vaultlink_core::index::IndexConfig;
use vaultlink_core::ops::{self, ReadBefore};
use vaultlink_core::Vault;

mod common;

const WIKI: &str = r#"
        //- wiki/SCHEMA.md
        ---
        types:
          concept: {description: An idea or term, required: [type, summary, sources], folder: concepts}
          person: {required: [type, summary]}
        properties:
          type: [concept, person]
          summary:
          sources:
          status: [draft, stable]
          wikidata:
          title:
        ---
        The rules of this wiki.
        //- wiki/concepts/Zettelkasten.md
        ---
        type: concept
        summary: A slip-box of linked notes.
        sources: ["[[Luhmann]]"]
        aliases: [Slip box]
        wikidata: Q1194880
        ---
        # Zettelkasten
        Kept by [[Niklas Luhmann]] and [[Luhmann]]; see [[Evergreen notes#Origins]].
        //- wiki/people/Niklas Luhmann.md
        ---
        type: person
        summary: A sociologist.
        status: Draft
        ---
        # Niklas Luhmann
        He wrote [[Zettelkasten]] and [[Slip box]] and [[Systems theory]].
        //- wiki/Evergreen notes.md
        ---
        type: concept
        summary: Notes that grow.
        sources: []
        colour: green
        ---
        # Evergreen notes
        From [[Zettelkasten#Nope]] and [[Zettelkasten#^gone]].
        //- wiki/Broken.md
        ---
        up: [[Zettelkasten]]
        ---
        //- wiki/Bad yaml.md
        ---
        title: a: b: c
        ---
        //- archive/Old.md
        [[Systems theory]] [[Luhmann]]
        //- archive/Zettelkasten.md
        # Zettelkasten
"#;

fn wiki(excluded: &[&str]) -> Vault {
    let mut config = IndexConfig::obsidian_defaults();
    config.excluded_folders = excluded.iter().map(|folder| (*folder).to_owned()).collect();
    let mut vault = Vault::new(config);
    let files = common::files(WIKI);
    for (path, text) in &files {
        vault.upsert(path, text);
    }
    // What an edge does before a lint that runs near_duplicate: sketch the notes core asks for.
    vault.sketch_notes(&mut |path| files.get(path).cloned());
    vault
}

fn call(vault: &Vault, tool: &str, arguments: Value) -> Value {
    let outcome = ops::call(vault, tool, &arguments, &mut ReadBefore::default(), &mut PlanHistory::default())
        .unwrap_or_else(|error| panic!("{tool}: {}", error.message));
    serde_json::to_value(outcome.answer).expect("serialisable")
}

/// Each proposal as `kind subject[:line] -> related (tool)`.
fn lines(report: &Value) -> Vec<String> {
    report["proposals"]
        .as_array()
        .expect("proposals")
        .iter()
        .map(|proposal| {
            let mut line = format!("{} {}", proposal["kind"].as_str().unwrap_or(""), proposal["subject"].as_str().unwrap_or(""));
            if let Some(number) = proposal["line"].as_u64() {
                line.push_str(&format!(":{number}"));
            }
            if let Some(related) = proposal["related"].as_array() {
                let related: Vec<&str> = related.iter().filter_map(Value::as_str).collect();
                line.push_str(&format!(" -> {}", related.join(", ")));
            }
            if let Some(tool) = proposal["tool"].as_str() {
                line.push_str(&format!(" ({tool})"));
            }
            line
        })
        .collect()
}

#[test]
fn the_fixture_wiki_lints_as_expected() {
    let vault = wiki(&["archive"]);
    let report = call(&vault, "lint_wiki", json!({}));
    assert_eq!(
        lines(&report),
        [
            "unresolved_link Luhmann -> wiki/concepts/Zettelkasten.md",
            "unresolved_link Slip box -> wiki/people/Niklas Luhmann.md (rewrite_link)",
            "unresolved_link Systems theory -> wiki/people/Niklas Luhmann.md",
            "ambiguous_link Zettelkasten -> archive/Zettelkasten.md, wiki/concepts/Zettelkasten.md",
            // `[[Zettelkasten]]` reaches the shorter path, whose note lacks the heading.
            "broken_heading wiki/Evergreen notes.md:8 -> wiki/concepts/Zettelkasten.md",
            "broken_heading wiki/concepts/Zettelkasten.md:9 -> wiki/Evergreen notes.md",
            "broken_block_ref wiki/Evergreen notes.md:8 -> wiki/concepts/Zettelkasten.md",
            "unquoted_property_link wiki/Broken.md:2",
            "malformed_frontmatter wiki/Bad yaml.md:1",
            "orphan wiki/Bad yaml.md",
            "orphan wiki/Broken.md",
            "duplicate_identity wiki/concepts/Zettelkasten.md -> archive/Zettelkasten.md",
            "schema wiki/Broken.md -> wiki/SCHEMA.md",
            "schema wiki/Evergreen notes.md -> wiki/SCHEMA.md",
            "schema wiki/Evergreen notes.md -> wiki/SCHEMA.md (move_note)",
            "schema wiki/Evergreen notes.md -> wiki/SCHEMA.md",
            "schema wiki/people/Niklas Luhmann.md -> wiki/SCHEMA.md",
            "missing_sources wiki/Evergreen notes.md",
            "missing_sources wiki/concepts/Zettelkasten.md",
        ]
    );
    // Every check ran: near_duplicate needs no note text, since the index keeps the sketches.
    assert_eq!(report["skipped"], json!([]));
    assert_eq!(report["counts"]["schema"], 5);
    // The alias fix names the note by a link that finds only it.
    let slip_box = &report["proposals"][1];
    assert!(report["proposals"][0]["detail"].as_str().unwrap_or("").contains("no file has that name"));
    assert_eq!(slip_box["tool_args"], json!({"from_target": "Slip box", "to_target": "wiki/concepts/Zettelkasten"}));
    let ambiguous = &report["proposals"][3];
    assert!(ambiguous["detail"].as_str().unwrap_or("").contains("it has the shortest path"), "{ambiguous}");
    let misplaced = report["proposals"].as_array().and_then(|all| all.iter().find(|p| p["tool"] == "move_note")).cloned();
    assert_eq!(
        misplaced.expect("a move")["tool_args"],
        json!({"from": "wiki/Evergreen notes.md", "to": "wiki/concepts/Evergreen notes.md"})
    );
}

#[test]
fn an_excluded_note_is_a_target_but_never_a_subject() {
    let excluded = lines(&call(&wiki(&["archive"]), "lint_wiki", json!({"kinds": ["orphan", "unresolved-link"]})));
    assert!(!excluded.iter().any(|line| line.contains("archive/")), "{excluded:?}");
    let included = lines(&call(&wiki(&[]), "lint_wiki", json!({"kinds": ["orphan", "unresolved_link"]})));
    assert!(included.contains(&"orphan archive/Old.md".to_owned()), "{included:?}");
    assert!(included.contains(&"unresolved_link Luhmann -> archive/Old.md, wiki/concepts/Zettelkasten.md".to_owned()), "{included:?}");
    // The argument excludes as the settings do.
    let by_argument = lines(&call(&wiki(&[]), "lint_wiki", json!({"kinds": ["orphan"], "excluded_folders": ["archive"]})));
    assert_eq!(by_argument, ["orphan wiki/Bad yaml.md", "orphan wiki/Broken.md"]);
}

#[test]
fn dead_end_runs_only_when_named() {
    let vault = wiki(&["archive"]);
    let by_default = call(&vault, "lint_wiki", json!({}));
    assert!(by_default["counts"].get("dead_end").is_none(), "{}", by_default["counts"]);
    let named = lines(&call(&vault, "lint_wiki", json!({"kinds": ["dead-end"]})));
    assert_eq!(named, DEAD_ENDS);
    // Named beside others, its findings come after theirs, whatever the order asked.
    let with_orphans = lines(&call(&vault, "lint_wiki", json!({"kinds": ["dead_end", "orphan"]})));
    assert_eq!(with_orphans.iter().position(|line| line.starts_with("dead_end")), Some(with_orphans.len() - DEAD_ENDS.len()));
}

/// The fixture wiki's dead ends: notes linking nowhere, the excluded archive left out. Broken.md's
/// unquoted `[[Zettelkasten]]` is a YAML list, not a link.
const DEAD_ENDS: [&str; 2] = ["dead_end wiki/Bad yaml.md", "dead_end wiki/Broken.md"];

#[test]
fn folder_kinds_paging_and_concise() {
    let vault = wiki(&["archive"]);
    let people = lines(&call(&vault, "lint_wiki", json!({"folder": "wiki/people", "kinds": ["schema", "orphan"]})));
    assert_eq!(people, ["schema wiki/people/Niklas Luhmann.md -> wiki/SCHEMA.md"]);

    let first = call(&vault, "lint_wiki", json!({"limit": 5, "response_format": "concise"}));
    assert_eq!(first["total"].as_u64(), Some(19));
    assert!(first["next_cursor"].as_str().is_some_and(|cursor| cursor.starts_with("5.")), "{}", first["next_cursor"]);
    for proposal in first["proposals"].as_array().expect("proposals") {
        assert!(proposal.get("detail").is_none() && proposal.get("tool_args").is_none() && proposal.get("evidence").is_none());
        assert!(proposal["suggested_action"].is_string());
    }
    // The page after the third: cursors come from answers, bound to the list they page.
    let mut cursor = first["next_cursor"].clone();
    for _ in 0..2 {
        cursor = call(&vault, "lint_wiki", json!({"limit": 5, "cursor": cursor}))["next_cursor"].clone();
    }
    let last = call(&vault, "lint_wiki", json!({"limit": 5, "cursor": cursor}));
    assert_eq!((last["proposals"].as_array().map(Vec::len), last.get("next_cursor")), (Some(4), None));

    let error = ops::call(&vault, "lint_wiki", &json!({"kinds": ["spelling"]}), &mut ReadBefore::default(), &mut PlanHistory::default())
        .expect_err("an unknown kind");
    assert_eq!(error.code, "invalid_arguments");
    assert!(error.message.contains("orphan"), "{}", error.message);
}

#[test]
fn schema_md_findings_say_what_was_cut_or_unreadable() {
    let schema = |text: &str| vaultlink_core::lint::schema::read_schema_file(text);
    let unread = schema(&format!("---\ntypes: {{}}\n---\n{}", "x".repeat(70_000)));
    assert!(unread.schema.is_none() && unread.problems[0].contains("64 KiB"), "{unread:?}");
    assert!(schema("no frontmatter").problems[0].contains("no frontmatter"));
    assert!(schema("---\n- a\n---\n").problems[0].contains("not a mapping"));
    let values: Vec<String> = (0..250).map(|n| format!("v{n}")).collect();
    let cut = schema(&format!("---\nproperties:\n  status: [{}]\n---\n", values.join(", ")));
    let rules = cut.schema.expect("read").properties.expect("a vocabulary");
    assert_eq!(rules[0].allowed.len(), 200);
    assert!(cut.problems[0].contains("only the first 200"), "{:?}", cut.problems);
    let listed = schema("---\nproperties: [type, summary]\n---\n").schema.expect("read");
    assert_eq!(listed.properties.expect("names").len(), 2);
}

fn find(vault: &Vault, topic: &str) -> (String, Vec<String>) {
    let answer = call(vault, "find_existing_page", json!({"topic": topic}));
    let candidates = answer["candidates"]
        .as_array()
        .expect("candidates")
        .iter()
        .map(|candidate| {
            let kinds: Vec<&str> =
                candidate["evidence"].as_array().into_iter().flatten().filter_map(|evidence| evidence["kind"].as_str()).collect();
            format!("{} {} {}", candidate["path"].as_str().unwrap_or(""), candidate["strength"].as_str().unwrap_or(""), kinds.join("+"))
        })
        .collect();
    (answer["verdict"].as_str().unwrap_or("").to_owned(), candidates)
}

#[test]
fn find_existing_page_verdicts() {
    let vault = wiki(&[]);
    let cases: [(&str, &str, &[&str]); 8] = [
        ("niklas luhmann", "exists", &["wiki/people/Niklas Luhmann.md identity file_name+h1"]),
        ("wiki/people/Niklas Luhmann", "exists", &["wiki/people/Niklas Luhmann.md identity path+file_name+h1"]),
        ("SLIP  BOX", "exists", &["wiki/concepts/Zettelkasten.md identity alias"]),
        ("Evergreen Notes", "exists", &["wiki/Evergreen notes.md identity file_name+h1"]),
        ("Q1194880", "exists", &["wiki/concepts/Zettelkasten.md identity wikidata"]),
        (
            "zettelkasten",
            "ambiguous",
            &["archive/Zettelkasten.md identity file_name+h1", "wiki/concepts/Zettelkasten.md identity file_name+h1"],
        ),
        ("Systems theory", "ambiguous", &[]),
        ("Category theory", "new", &[]),
    ];
    for (topic, verdict, candidates) in cases {
        assert_eq!(find(&vault, topic), (verdict.to_owned(), candidates.iter().map(|c| (*c).to_owned()).collect()), "{topic}");
    }
    // Soft evidence alone is never `exists`.
    assert_eq!(
        find(&vault, "Luhmann biography"),
        ("ambiguous".to_owned(), vec!["wiki/people/Niklas Luhmann.md soft word_overlap".to_owned()])
    );
    let mentioned = call(&vault, "find_existing_page", json!({"topic": "Systems theory"}));
    assert_eq!(mentioned["unresolved_links"], json!({"links": 2, "sources": ["archive/Old.md", "wiki/people/Niklas Luhmann.md"]}));
    // With H1 and `title` only (no file of that name).
    let mut titled = Vault::new(IndexConfig::obsidian_defaults());
    titled.upsert("n/1234.md", "---\ntitle: Café Society\n---\n");
    titled.upsert("n/5678.md", "# The Great Gatsby\n");
    assert_eq!(find(&titled, "cafe\u{301} society").0, "exists");
    assert_eq!(find(&titled, "the great gatsby"), ("exists".to_owned(), vec!["n/5678.md identity h1".to_owned()]));
}

#[test]
fn an_h1_that_is_only_code_or_a_template_is_no_name_and_one_finding_lists_a_bounded_number_of_notes() {
    let mut vault = Vault::new(IndexConfig::obsidian_defaults());
    for index in 0..30 {
        // Dataview's inline expression, a template's placeholder: what Obsidian shows differs
        // in every note, so no two notes share a name by it.
        vault.upsert(&format!("notes/n{index}.md"), "# `=this.name`\n\n[[hub]]\n");
        vault.upsert(&format!("tpl/t{index}.md"), "# {{title}}\n\n[[hub]]\n");
        vault.upsert(&format!("shared/s{index}.md"), "---\naliases: [Shared name]\n---\n[[hub]]\n");
    }
    vault.upsert("hub.md", "# Hub\n");
    let report = call(&vault, "lint_wiki", json!({"kinds": ["duplicate_identity"], "limit": 1000}));
    let proposals = report["proposals"].as_array().expect("proposals");
    assert_eq!(proposals.len(), 1, "only the alias is a shared name: {proposals:?}");
    let finding = &proposals[0];
    assert_eq!(finding["evidence"]["note_count"], 30);
    assert!(finding["related"].as_array().expect("related").len() <= 20);
    assert!(finding["detail"].as_str().expect("detail").contains("and 10 more"), "{}", finding["detail"]);
    assert!(serde_json::to_string(finding).expect("json").len() < 8_000, "one finding stays small");
}

#[test]
fn a_proposal_by_file_name_alone_says_so_and_ranks_below_one_with_more_evidence() {
    let mut vault = Vault::new(IndexConfig::obsidian_defaults());
    vault.upsert("Races/Elf.md", "[[traits/Darkvision]] and [[AA]]\n");
    vault.upsert("spells/Darkvision.md", "# Darkvision (spell)\n");
    vault.upsert("Zz/Aardvark.md", "---\naliases: [AA]\n---\n");
    let report = call(&vault, "lint_wiki", json!({"kinds": ["unresolved_link"]}));
    let proposals = report["proposals"].as_array().expect("proposals");
    let subjects: Vec<&str> = proposals.iter().filter_map(|proposal| proposal["subject"].as_str()).collect();
    assert_eq!(subjects, ["AA", "traits/Darkvision"], "the alias match first, the file-name-only one after");
    let weak = &proposals[1];
    assert_eq!(weak["evidence"]["basis"], "file_name_only");
    let detail = weak["detail"].as_str().expect("detail");
    assert!(detail.contains("same file name in another folder") && !detail.contains("finds notes by file name only"), "{detail}");
    assert!(weak["suggested_action"].as_str().expect("action").starts_with("Check that"), "{}", weak["suggested_action"]);
    assert_eq!(proposals[0]["evidence"]["basis"], "other_name");
}

#[test]
fn find_existing_page_counts_hyphens_and_underscores_as_word_breaks() {
    // A vault of kebab-case file names, as a real SRD wiki has them: the page for the topic is
    // the one named so, not one candidate among the notes sharing a word.
    let mut vault = Vault::new(IndexConfig::obsidian_defaults());
    vault.upsert("spells/prismatic-spray.md", "Eight rays of light.\n");
    vault.upsert("spells/prismatic-wall.md", "A wall of light.\n");
    vault.upsert("spells/cone_of_cold.md", "Cold.\n");
    let (verdict, candidates) = find(&vault, "Prismatic Spray");
    assert_eq!(verdict, "exists", "{candidates:?}");
    assert_eq!(candidates[0], "spells/prismatic-spray.md identity file_name");
    assert_eq!(find(&vault, "cone of cold").0, "exists");
    assert_eq!(find(&vault, "Prismatic_Wall").0, "exists");
    // Link resolution stays Obsidian's: `[[Prismatic Spray]]` finds no `prismatic-spray.md`.
    vault.upsert("Index.md", "[[Prismatic Spray]]\n");
    assert_eq!(vault.outgoing_links("Index.md").map(|links| links[0].resolution.path().is_none()), Some(true));
}

// ---------------------------------------------------------------------------------------------
// The corpora

/// How many findings of each kind the snapshot lists in full; the counts cover them all.
const SNAPSHOT_FINDINGS_PER_KIND: usize = 40;

/// The lint report on each corpus, as reviewed: the counts of every kind, what was skipped, and
/// the first findings of each kind, one line each. A change to what the lint finds shows up as
/// a diff of `tests/snapshots/lint-<corpus>.txt`; `VAULTLINK_UPDATE_SNAPSHOTS=1` rewrites the
/// files after a deliberate change.
#[test]
fn lint_reports_on_the_corpora_match_their_snapshots() {
    use vaultlink_core::lint::{self, LintOptions};
    let root = common::corpora_dir();
    if !root.is_dir() {
        common::say(&format!("lint corpora: NOT RUN: no corpora at {}; set VAULTLINK_CORPORA to the folder holding them", root.display()));
        return;
    }
    let update = std::env::var_os("VAULTLINK_UPDATE_SNAPSHOTS").is_some();
    let mut changed = Vec::new();
    for corpus in ["kepano-obsidian", "dnd-srd-wiki", "yoshixi-zettelkasten"] {
        let dir = root.join(corpus);
        assert!(dir.is_dir(), "{corpus} is missing from {}", root.display());
        let files = common::read_corpus(&dir, true);
        let mut vault = common::index(&files);
        vault.sketch_notes(&mut |path| files.get(path).cloned());
        // Every rule, those that run only when named (dead_end) too, so each one's findings are reviewed.
        let options = LintOptions { folder: None, excluded_folders: Vec::new(), rules: lint::every_rule().collect() };
        let outcome = lint::lint(&vault, &options);
        let mut report = format!("# lint_wiki on {corpus}: {} notes, {} findings\n", vault.note_count(), outcome.proposals.len());
        for rule in lint::every_rule() {
            let found: Vec<_> = outcome.proposals.iter().filter(|proposal| proposal.kind == rule.kind).collect();
            report.push_str(&format!("\n## {} ({})\n", rule.kind, found.len()));
            for skipped in outcome.skipped.iter().filter(|skipped| skipped.kind == rule.kind) {
                report.push_str(&format!("skipped: {}\n", skipped.reason));
            }
            for proposal in found.iter().take(SNAPSHOT_FINDINGS_PER_KIND) {
                report.push_str(&proposal.summary_line());
                if let Some(similarity) = proposal.evidence.as_ref().and_then(|evidence| evidence.get("similarity")) {
                    report.push_str(&format!(" [{similarity}]"));
                }
                report.push('\n');
            }
            if found.len() > SNAPSHOT_FINDINGS_PER_KIND {
                report.push_str(&format!("… and {} more\n", found.len() - SNAPSHOT_FINDINGS_PER_KIND));
            }
        }
        let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/snapshots/lint-{corpus}.txt"));
        let stored = std::fs::read_to_string(&file).unwrap_or_default();
        common::say(&format!("lint {corpus}: {} findings", outcome.proposals.len()));
        if stored != report {
            if update {
                std::fs::create_dir_all(file.parent().expect("a folder")).expect("the snapshot folder can be made");
                std::fs::write(&file, &report).expect("the snapshot can be written");
            } else {
                changed.push(format!("{corpus} ({})", file.display()));
            }
        }
    }
    assert!(
        changed.is_empty(),
        "the lint report changed on: {}; review the difference and rerun with VAULTLINK_UPDATE_SNAPSHOTS=1 if it is intended",
        changed.join(", ")
    );
}

/// Issue 34: a frontmatter block nested too deep, or over the bytes a block may hold, was told
/// by the parser (`frontmatter_too_deep`, `frontmatter_too_large`) but never by `lint_wiki`, so
/// a note whose properties Obsidian's reader and ours do not read looked clean. Both are
/// `malformed_frontmatter` findings, each with its own message and what to do.
#[test]
fn a_frontmatter_too_deep_or_too_large_is_a_malformed_frontmatter_finding() {
    let deep = format!("---\nkey: {}x{}\n---\n[[Fine]]\n", "[".repeat(200), "]".repeat(200));
    let large = format!("---\nkey: \"{}\"\n---\n[[Fine]]\n", "x".repeat(vaultlink_core::parse::MAX_FRONTMATTER_BYTES));
    let mut vault = Vault::new(IndexConfig::obsidian_defaults());
    for (path, text) in [("Deep.md", deep.as_str()), ("Large.md", large.as_str()), ("Fine.md", "[[Deep]] [[Large]]\n")] {
        vault.upsert(path, text);
    }
    let report = call(&vault, "lint_wiki", json!({"kinds": ["malformed_frontmatter"], "response_format": "detailed"}));
    assert_eq!(lines(&report), ["malformed_frontmatter Deep.md:1", "malformed_frontmatter Large.md:1"], "{report}");
    let proposals = report["proposals"].as_array().expect("proposals");
    let said = |at: usize| format!("{} {}", proposals[at]["detail"], proposals[at]["suggested_action"]);
    assert!(said(0).contains("nests deeper than 64 levels") && said(0).contains("Flatten"), "{}", said(0));
    assert!(said(1).contains("over the 262144-byte limit") && said(1).contains("shorten"), "{}", said(1));
    let by_default = call(&vault, "lint_wiki", json!({}));
    assert!(lines(&by_default).iter().filter(|line| line.starts_with("malformed_frontmatter")).count() == 2, "{by_default}");
}
