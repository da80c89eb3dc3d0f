//! Runs the cases of `spec/properties.md`: each edit of a note's properties keeps every byte
//! outside the edited entries, and reads back as the asked change.

use vaultlink_core::plan::apply_edits;
use vaultlink_core::properties::{plan, PropertiesArguments};

struct Case {
    name: String,
    crlf: bool,
    set: serde_json::Map<String, serde_json::Value>,
    remove: Vec<String>,
    before: String,
    after: String,
}

fn cases() -> Vec<Case> {
    let spec = include_str!("spec/properties.md");
    let mut cases = Vec::new();
    for section in spec.split("\n## ").skip(1) {
        let (name, rest) = section.split_once('\n').expect("a case has a body");
        let field = |key: &str| rest.lines().find_map(|line| line.strip_prefix(&format!("{key}: ")).map(str::to_owned));
        let fenced = |tag: &str| {
            let open = format!("~~~{tag}\n");
            let start = rest.find(&open).unwrap_or_else(|| panic!("{name}: no {tag}")) + open.len();
            let end = start + rest[start..].find("~~~").unwrap_or_else(|| panic!("{name}: {tag} is not closed"));
            rest[start..end].to_owned()
        };
        cases.push(Case {
            name: name.to_owned(),
            crlf: field("crlf").as_deref() == Some("true"),
            set: serde_json::from_str(&field("set").unwrap_or_else(|| "{}".to_owned())).expect("set is a JSON object"),
            remove: serde_json::from_str(&field("remove").unwrap_or_else(|| "[]".to_owned())).expect("remove is a JSON list"),
            before: fenced("before"),
            after: fenced("after"),
        });
    }
    cases
}

#[test]
fn every_case_keeps_the_text_outside_the_edited_entries() {
    let cases = cases();
    assert!(cases.len() >= 10, "the spec holds its cases ({} found)", cases.len());
    for case in cases {
        let line_breaks = |text: &str| if case.crlf { text.replace('\n', "\r\n") } else { text.to_owned() };
        let (before, after) = (line_breaks(&case.before), line_breaks(&case.after));
        let arguments = PropertiesArguments {
            path: "Note.md".to_owned(),
            set: case.set.clone(),
            remove: case.remove.clone(),
            dry_run: None,
            approved_plan_hash: None,
            response_format: Default::default(),
        };
        let (plan, answer) = plan("Note.md", &before, &arguments).unwrap_or_else(|error| panic!("{}: {error:?}", case.name));
        let edited = plan.edits.first().map_or(before.clone(), |file| apply_edits(&before, &file.edits));
        assert_eq!(edited, after, "{}", case.name);
        assert_eq!(answer.set, case.set.keys().cloned().collect::<Vec<_>>(), "{}", case.name);
        // Read back by the parser: a property link set is a property link.
        let parsed = vaultlink_core::parse_note("Note.md", &edited, &vaultlink_core::ParseConfig::OBSIDIAN);
        for (key, value) in &case.set {
            let wanted = serde_json::to_string(value).unwrap_or_default();
            if wanted.contains("[[") {
                assert!(
                    parsed
                        .links
                        .iter()
                        .any(|link| matches!(&link.source, vaultlink_core::LinkSource::Property { key: found, .. } if found == key)),
                    "{}: `{key}` holds a property link",
                    case.name
                );
            }
        }
    }
}

/// Obsidian reads JSON frontmatter and saves it back as YAML; an edit that keeps every other
/// byte cannot do that, so it refuses and says what to do, and the note is left as it is.
#[test]
fn json_frontmatter_is_refused_with_what_to_do() {
    let arguments = PropertiesArguments {
        path: "Note.md".to_owned(),
        set: serde_json::from_str(r#"{"status": "done"}"#).expect("a JSON object"),
        remove: Vec::new(),
        dry_run: None,
        approved_plan_hash: None,
        response_format: Default::default(),
    };
    let error = plan("Note.md", "---\n{\"up\": \"[[Home]]\"}\n---\nbody\n", &arguments).expect_err("JSON is not edited");
    let message = vaultlink_core::error::Failure::message(&error);
    assert!(message.contains("JSON") && message.contains("rewrite it as YAML"), "{message}");
}

/// Issue 34: a value or key holding a character YAML reads as a line break (NEL, LINE
/// SEPARATOR, PARAGRAPH SEPARATOR) could not be written so that it reads back, and was answered
/// `internal`; it is refused as an invalid argument that names the character.
#[test]
fn a_line_break_yaml_reads_in_a_value_or_key_is_refused_by_name() {
    for (character, name) in [('\u{85}', "U+0085"), ('\u{2028}', "U+2028"), ('\u{2029}', "U+2029")] {
        for (set, remove) in [
            (serde_json::json!({ "status": format!("one{character}two") }), Vec::new()),
            (serde_json::json!({ "list": ["fine", format!("one{character}two")] }), Vec::new()),
            (serde_json::json!({ format!("key{character}name"): "x" }), Vec::new()),
            (serde_json::json!({}), vec![format!("key{character}name")]),
        ] {
            let arguments = PropertiesArguments {
                path: "Note.md".to_owned(),
                set: set.as_object().cloned().unwrap_or_default(),
                remove,
                dry_run: None,
                approved_plan_hash: None,
                response_format: Default::default(),
            };
            let error = plan("Note.md", "---\na: 1\n---\nbody\n", &arguments).expect_err("refused");
            let code = vaultlink_core::error::Failure::code(&error);
            let message = vaultlink_core::error::Failure::message(&error);
            assert_eq!(code, vaultlink_core::error::ErrorCode::InvalidArguments, "{set}: {message}");
            assert!(message.contains(name), "{set}: {message}");
        }
    }
}

/// Issue 34: the characters YAML does not allow unescaped (C0 controls in a key, DEL, the C1
/// controls, U+FFFE, U+FFFF) were written as they are and the edit was answered `internal`;
/// they are written escaped in a double-quoted string, which reads back as the same text.
#[test]
fn characters_yaml_does_not_allow_unescaped_are_written_escaped() {
    let key = "tab\there\u{1}";
    let value = "del\u{7f} c1\u{80}\u{9f} not\u{fffe}\u{ffff}";
    let arguments = PropertiesArguments {
        path: "Note.md".to_owned(),
        set: serde_json::json!({ key: value, "list": [value] }).as_object().cloned().unwrap_or_default(),
        remove: Vec::new(),
        dry_run: None,
        approved_plan_hash: None,
        response_format: Default::default(),
    };
    let before = "---\na: 1\n---\nbody\n";
    let (plan, _) = plan("Note.md", before, &arguments).unwrap_or_else(|error| panic!("{error:?}"));
    let edited = apply_edits(before, &plan.edits[0].edits);
    assert!(edited.contains(r#""tab\there\u0001": "del\u007F c1\u0080\u009F not\uFFFE\uFFFF""#), "{edited}");
    let block = edited.split("---\n").nth(1).expect("a block");
    let read: serde_yaml::Mapping = serde_yaml::from_str(block).expect("YAML");
    assert_eq!(read.get(key).and_then(serde_yaml::Value::as_str), Some(value));
    assert_eq!(read.get("list").and_then(|list| list[0].as_str()), Some(value));
}
