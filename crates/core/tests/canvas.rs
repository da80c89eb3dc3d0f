//! Canvases (`.canvas`, JSON Canvas) as sources of links: their file cards and the links of
//! their text cards are backlinks of what they name, are rewritten by a move (the JSON edited in
//! place, every other byte kept), are reported by the lint when broken, and are listed among what
//! points at a note about to be deleted. The last tests run on a real canvas, the JSON Canvas
//! project's sample (`fixtures/jsoncanvas`).

mod common;

use common::{apply, check_invariant, index, plan, plan_keeping, Files};
use vaultlink_core::delete::plan_delete;
use vaultlink_core::lint::{lint, LintOptions, RULES};
use vaultlink_core::plan::ChangeReason;

fn vault_files(files: &[(&str, &str)]) -> Files {
    files.iter().map(|(path, text)| ((*path).to_owned(), (*text).to_owned())).collect()
}

/// A board with a file card for `Notes/A.md` (with a heading), a text card linking `[[A]]`,
/// `![[A#Intro]]` and `[md](Notes/A.md)`, a link card and a group, tab-indented as Obsidian
/// writes it.
const BOARD: &str = "{\n\t\"nodes\":[\n\t\t{\"id\":\"f1\",\"type\":\"file\",\"file\":\"Notes/A.md\",\"subpath\":\"#Intro\",\"x\":0,\"y\":0,\"width\":400,\"height\":400},\n\t\t{\"id\":\"t1\",\"type\":\"text\",\"text\":\"Read [[A]] first.\\n\\n![[A#Intro]] and [md](Notes/A.md) \\\"quoted\\\"\",\"x\":0,\"y\":500,\"width\":250,\"height\":60},\n\t\t{\"id\":\"l1\",\"type\":\"link\",\"url\":\"https://example.com\",\"x\":0,\"y\":0,\"width\":1,\"height\":1},\n\t\t{\"id\":\"g1\",\"type\":\"group\",\"label\":\"Group\",\"x\":0,\"y\":0,\"width\":1,\"height\":1}\n\t],\n\t\"edges\":[\n\t\t{\"id\":\"e1\",\"fromNode\":\"f1\",\"toNode\":\"t1\"}\n\t]\n}\n";

fn board_vault() -> Files {
    vault_files(&[("Notes/A.md", "# Intro\ntext\n"), ("Boards/Board.canvas", BOARD), ("Other.md", "[[A]]\n")])
}

#[test]
fn a_canvas_is_a_backlink_of_what_its_cards_name() {
    let vault = index(&board_vault());
    let sources: Vec<(&str, String)> =
        vault.backlinks("Notes/A.md").iter().map(|link| (link.source, link.link.source.describe().0.to_owned())).collect();
    assert_eq!(
        sources,
        [
            ("Boards/Board.canvas", "canvas_file".to_owned()),
            ("Boards/Board.canvas", "canvas_text".to_owned()),
            ("Boards/Board.canvas", "canvas_text".to_owned()),
            ("Boards/Board.canvas", "canvas_text".to_owned()),
            ("Other.md", "body".to_owned()),
        ]
    );
    assert!(!vault.is_note("Boards/Board.canvas"), "a canvas is not a note");
    assert_eq!(vault.inbound_count("Notes/A.md"), 5);
}

#[test]
fn a_file_card_finds_its_file_by_exact_path_only() {
    let canvas = r#"{"nodes":[{"id":"a","type":"file","file":"A.md"},{"id":"b","type":"file","file":"notes/a.md"},{"id":"c","type":"file","file":"Notes/A.md"}]}"#;
    let vault = index(&vault_files(&[("Notes/A.md", ""), ("c.canvas", canvas)]));
    let resolved: Vec<Option<&str>> = vault.outgoing_links("c.canvas").unwrap().iter().map(|link| link.resolution.path()).collect();
    assert_eq!(resolved, [None, None, Some("Notes/A.md")], "no search by name, no case folding");
    // A file arriving at the exact path is found, as the index re-resolves links by name.
    let mut vault = vault;
    vault.upsert("A.md", "");
    assert_eq!(vault.outgoing_links("c.canvas").unwrap()[0].resolution.path(), Some("A.md"));
}

#[test]
fn moving_a_note_rewrites_the_canvas_in_place() {
    let before = board_vault();
    let plan = plan(&before, "Notes/A.md", "Archive/A2.md").expect("the move is planned");
    let after = apply(&before, &plan);
    check_invariant(&before, &plan, &after);
    let expected = BOARD
        .replace("\"file\":\"Notes/A.md\"", "\"file\":\"Archive/A2.md\"")
        .replace("Read [[A]] first.", "Read [[A2]] first.")
        // Written as Obsidian writes a link under "shortest", as in a note: A2's name is unique.
        .replace("![[A#Intro]] and [md](Notes/A.md)", "![[A2#Intro]] and [md](A2.md)");
    assert_eq!(after["Boards/Board.canvas"], expected, "only the link targets changed, the JSON kept its form");
    let canvas_changes = plan.changes.iter().filter(|change| change.note == "Boards/Board.canvas").count();
    assert_eq!(canvas_changes, 4, "{:#?}", plan.changes);
    assert!(plan.changes.iter().all(|change| change.reason == ChangeReason::TargetMoved));
    let card = plan.changes.iter().find(|change| change.before == "Notes/A.md").expect("the file card's change");
    assert_eq!((card.after.as_str(), card.line), ("Archive/A2.md", 3));
}

#[test]
fn targets_written_with_json_escapes_are_replaced_whole() {
    // `\/` and `\u00e9` spell `/` and `é`: the raw bytes of each target are replaced, the new
    // path written as a JSON string (a vault name holds no `"` or `\`: `json_string_content`'s
    // escapes are checked in the canvas module's tests).
    let canvas =
        r#"{"nodes":[{"id":"f","type":"file","file":"Caf\u00e9\/A.md"},{"id":"t","type":"text","text":"\"[[Caf\u00e9\/A]]\"\n"}]}"#;
    let before = vault_files(&[("Café/A.md", ""), ("c.canvas", canvas)]);
    // Kept in their form, the targets are paths with escapes to write again.
    let plan = plan_keeping(&before, "Café/A.md", "Thé/B.md").expect("the move is planned");
    let after = apply(&before, &plan);
    check_invariant(&before, &plan, &after);
    assert_eq!(
        after["c.canvas"],
        r#"{"nodes":[{"id":"f","type":"file","file":"Thé/B.md"},{"id":"t","type":"text","text":"\"[[Thé/B]]\"\n"}]}"#
    );
    let parsed: serde_json::Value = serde_json::from_str(&after["c.canvas"]).expect("the canvas is still JSON");
    assert_eq!(parsed["nodes"][1]["text"], "\"[[Thé/B]]\"\n");
}

#[test]
fn a_text_cards_heading_holding_a_quote_is_written_back_as_json() {
    // The heading is read from the decoded JSON string (`Say "hi"`); written back after the new
    // path it is a JSON string's content again (`Say \"hi\"`), as `rewrite_link` writes it.
    let canvas = r#"{"nodes":[{"id":"t","type":"text","text":"[[A#Say \"hi\"]]"}]}"#;
    let before = vault_files(&[("A.md", "# Say \"hi\"\n"), ("c.canvas", canvas)]);
    let plan = plan(&before, "A.md", "B.md").expect("the move is planned");
    let after = apply(&before, &plan);
    check_invariant(&before, &plan, &after);
    assert_eq!(after["c.canvas"], r#"{"nodes":[{"id":"t","type":"text","text":"[[B#Say \"hi\"]]"}]}"#);
}

#[test]
fn moving_the_canvas_keeps_its_cards_pointing_where_they_did() {
    let mut before = board_vault();
    before.insert("Boards/Local.md".to_owned(), String::new());
    let canvas = "{\"nodes\":[{\"id\":\"f\",\"type\":\"file\",\"file\":\"Notes/A.md\"},{\"id\":\"t\",\"type\":\"text\",\"text\":\"[near](Local.md) [[./Local]]\"}]}";
    before.insert("Boards/Near.canvas".to_owned(), canvas.to_owned());
    // The link's relative form is kept, as `--link-form keep` asks.
    let plan = plan_keeping(&before, "Boards/Near.canvas", "Elsewhere/Near.canvas").expect("the move is planned");
    let after = apply(&before, &plan);
    check_invariant(&before, &plan, &after);
    assert_eq!(
        after["Elsewhere/Near.canvas"],
        "{\"nodes\":[{\"id\":\"f\",\"type\":\"file\",\"file\":\"Notes/A.md\"},{\"id\":\"t\",\"type\":\"text\",\"text\":\"[near](Local.md) [[../Boards/Local]]\"}]}",
        // A markdown link that Obsidian still finds by its name stays as written, as in a note.
        "the file card's vault path stays; the text card's relative link follows the canvas"
    );
    assert!(plan.changes.iter().all(|change| change.reason == ChangeReason::SourceMoved));
}

#[test]
fn broken_canvas_links_are_linted_naming_the_canvas() {
    let files = vault_files(&[
        ("Notes/A.md", "# Intro\n"),
        ("Board.canvas", "{\"nodes\":[{\"id\":\"f\",\"type\":\"file\",\"file\":\"Notes/Gone.md\"},{\"id\":\"h\",\"type\":\"file\",\"file\":\"Notes/A.md\",\"subpath\":\"#Nowhere\"},{\"id\":\"t\",\"type\":\"text\",\"text\":\"[[Missing]] [[A]]\"}]}"),
    ]);
    let vault = index(&files);
    let options = LintOptions { folder: None, excluded_folders: Vec::new(), rules: RULES.to_vec() };
    let outcome = lint(&vault, &options);
    let lines: Vec<String> = outcome.proposals.iter().map(|proposal| proposal.summary_line()).collect();
    assert!(lines.contains(&"unresolved_link Notes/Gone.md -> Board.canvas".to_owned()), "{lines:#?}");
    assert!(lines.contains(&"unresolved_link Missing -> Board.canvas".to_owned()), "{lines:#?}");
    assert!(lines.iter().any(|line| line.starts_with("broken_heading") && line.contains("Board.canvas")), "{lines:#?}");
}

#[test]
fn a_malformed_canvas_is_indexed_without_links() {
    let vault = index(&vault_files(&[("A.md", ""), ("Bad.canvas", "{\"nodes\":[{\"type\":\"file\",\"file\":\"A.md\"")]));
    assert_eq!(vault.outgoing_links("Bad.canvas").map(|links| links.len()), Some(0));
    assert!(vault.backlinks("A.md").is_empty());
}

#[test]
fn deleting_a_note_lists_the_canvases_that_point_at_it() {
    let files = board_vault();
    let vault = index(&files);
    let plan = plan_delete(&vault, "Notes/A.md", &files["Notes/A.md"]).expect("the delete is planned");
    let canvas: Vec<(&str, &str, &str)> = plan
        .backlinks
        .iter()
        .filter(|referrer| referrer.note == "Boards/Board.canvas")
        .map(|referrer| (referrer.note.as_str(), referrer.source.as_str(), referrer.link.as_str()))
        .collect();
    assert_eq!(canvas[0], ("Boards/Board.canvas", "canvas_file", "Notes/A.md#Intro"));
    assert_eq!(canvas.len(), 4);
}

/// The JSON Canvas project's own sample canvas, with the files its cards name.
fn sample_vault() -> Files {
    let sample = include_str!("fixtures/jsoncanvas/sample.canvas");
    vault_files(&[
        ("sample.canvas", sample),
        ("readme.md", "# JSON Canvas\n"),
        ("_site/logo.svg", "<svg/>"),
        ("spec/1.0.md", "# JSON Canvas Spec\n"),
        ("docs/apps.md", "# Apps\n"),
    ])
}

#[test]
fn the_real_sample_canvas_links_where_its_cards_say() {
    let vault = index(&sample_vault());
    let links: Vec<(String, Option<&str>)> =
        vault.outgoing_links("sample.canvas").unwrap().iter().map(|link| (link.link.target.clone(), link.resolution.path())).collect();
    assert_eq!(
        links,
        [
            ("readme.md".to_owned(), Some("readme.md")),
            ("_site/logo.svg".to_owned(), Some("_site/logo.svg")),
            ("/docs/apps.md".to_owned(), Some("docs/apps.md")),
            ("spec/1.0.md".to_owned(), Some("spec/1.0.md")),
            ("spec/1.0.md".to_owned(), Some("spec/1.0.md")),
        ]
    );
}

#[test]
fn moving_a_file_of_the_real_sample_canvas_rewrites_its_cards() {
    let before = sample_vault();
    let plan = plan(&before, "spec/1.0.md", "spec/v1.0.md").expect("the move is planned");
    let after = apply(&before, &plan);
    check_invariant(&before, &plan, &after);
    let expected = before["sample.canvas"]
        .replace("\"file\":\"spec/1.0.md\"", "\"file\":\"spec/v1.0.md\"")
        .replace("[Spec](spec/1.0.md)", "[Spec](v1.0.md)");
    assert_eq!(after["sample.canvas"], expected);
    assert_eq!(plan.changes.len(), 2);
    // And the other way round: the canvas moves into a folder, its cards still find their files.
    let plan = common::plan(&before, "sample.canvas", "boards/sample.canvas").expect("the move is planned");
    let after = apply(&before, &plan);
    check_invariant(&before, &plan, &after);
    let moved = index(&after);
    let resolved: Vec<Option<&str>> =
        moved.outgoing_links("boards/sample.canvas").unwrap().iter().map(|link| link.resolution.path()).collect();
    assert_eq!(resolved, [Some("readme.md"), Some("_site/logo.svg"), Some("docs/apps.md"), Some("spec/1.0.md"), Some("spec/1.0.md")]);
}
