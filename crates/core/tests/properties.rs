//! Runs the cases of `spec/properties.md`: each edit of a note's properties keeps every byte
//! outside the edited entries, and reads back as the asked change.

use vaultlink_core::properties::{plan, PropertiesArguments};
use vaultlink_core::rename::apply_edits;

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
