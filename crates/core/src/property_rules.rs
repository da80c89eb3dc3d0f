//! What `update_properties` checks of the note as the edit leaves it, as `commit_wiki_page`
//! checks a page: the rules of the `SCHEMA.md` that governs its folder (the lint's `schema`
//! rule: a value outside the vocabulary, a property the schema does not know, a page type its
//! folder does not allow, a required property removed), and the links its set values hold. A
//! rule the edit breaks refuses it (a rule the note broke already does not); a property link
//! that finds no note is reported, as a property may name a page still to write. A convention
//! the schema marks `severity: block` refuses an edit that adds its finding, as it refuses a page.

use crate::canvas::parse_file;
use crate::lint::schema::{declares_rules, governing_schema};
use crate::parse::LinkSource;
use crate::resolve::{fold, folder, resolve};
use crate::Vault;

/// The `SCHEMA.md` governing the note and the rules of it the edited note breaks that it did not
/// break before, worded as the lint words them; `None` when it breaks none.
pub fn broken_rules(vault: &Vault, path: &str, after_text: &str) -> Option<(String, Vec<String>)> {
    let blocks = |file: &crate::lint::schema::SchemaFile| {
        file.schema.as_ref().is_some_and(|schema| schema.conventions.iter().any(|convention| convention.block))
    };
    let (schema_path, file) = governing_schema(vault, path).filter(|(_, file)| declares_rules(file) || blocks(file))?;
    let schema_path = schema_path.to_owned();
    let rules: Vec<&'static crate::lint::Rule> = crate::lint::rule("schema").into_iter().collect();
    let note_folder = folder(path);
    let options =
        crate::lint::LintOptions { folder: (!note_folder.is_empty()).then(|| fold(note_folder)), excluded_folders: Vec::new(), rules };
    let findings = |vault: &Vault| -> Vec<String> {
        crate::lint::lint(vault, &options)
            .proposals
            .into_iter()
            .filter(|proposal| proposal.subject == path)
            .map(|proposal| proposal.detail.unwrap_or(proposal.suggested_action))
            .collect()
    };
    let before = findings(vault);
    let mut after = vault.clone();
    after.upsert(path, after_text);
    let mut broken: Vec<String> = findings(&after).into_iter().filter(|finding| !before.contains(finding)).collect();
    // The conventions it marks `severity: block`, as commit_wiki_page checks them.
    if let Some(schema) = &file.schema {
        broken.extend(crate::conventions::added_violations(vault, &after, schema, &[path]));
    }
    (!broken.is_empty()).then_some((schema_path, broken))
}

/// The links in the properties `keys` of the edited note that find no note, as `key: link`.
pub fn unresolved_links(vault: &Vault, path: &str, after_text: &str, keys: &[String]) -> Vec<String> {
    parse_file(path, after_text, &vault.config().parse)
        .links
        .iter()
        .filter(|link| matches!(&link.source, LinkSource::Property { key, .. } if keys.contains(key)))
        .filter(|link| resolve(vault, path, link).path().is_none())
        .map(|link| match &link.source {
            LinkSource::Property { key, .. } => format!("{key}: {}", &after_text[link.span.range()]),
            _ => after_text[link.span.range()].to_owned(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::approval::PlanHistory;
    use crate::edge::ReadBefore;
    use crate::error::ErrorCode;
    use crate::ops::{call, Response};
    use serde_json::json;

    const SCHEMA: &str = "---\ntypes:\n  concept: {required: [type, summary], folder: concepts}\n  person: {required: [type], folder: people}\nproperties:\n  type: [concept, person]\n  summary:\n  related:\n  status: [draft, stable]\n---\n";

    fn edit(set: serde_json::Value, path: &str) -> Result<crate::properties::PropertiesAnswer, crate::error::CallError> {
        let (vault, texts) = crate::testing::vault_with(&[
            ("wiki/SCHEMA.md", SCHEMA),
            ("wiki/concepts/Graph.md", "---\ntype: concept\nsummary: Nodes\nstatus: draft\n---\n# Graph\n"),
            ("wiki/concepts/Old.md", "---\ntype: concept\nsummary: Old\nlegacy: 1\n---\n# Old\n"),
            ("wiki/concepts/Tree.md", "# Tree\n"),
        ]);
        let mut edge = ReadBefore { texts, ..ReadBefore::default() };
        let outcome = call(&vault, "update_properties", &json!({"path": path, "set": set}), &mut edge, &mut PlanHistory::default())?;
        let Response::Properties(answer) = outcome.answer else { panic!("a properties answer") };
        Ok(answer)
    }

    #[test]
    fn a_value_outside_the_vocabulary_or_a_type_the_folder_does_not_allow_is_refused() {
        for (set, named) in
            [(json!({"status": "wild"}), "wild"), (json!({"type": "person"}), "person"), (json!({"colour": "red"}), "colour")]
        {
            let refused = edit(set.clone(), "wiki/concepts/Graph.md").expect_err("off the schema");
            assert_eq!(refused.code, ErrorCode::PageRefused, "{set}: {refused:?}");
            assert!(refused.message.contains("wiki/SCHEMA.md") && refused.message.contains(named), "{set}: {}", refused.message);
            assert!(refused.hint.contains("SCHEMA.md"), "{refused:?}");
        }
        let fine = edit(json!({"status": "stable"}), "wiki/concepts/Graph.md").expect("in the vocabulary");
        assert_eq!(fine.set, ["status"]);
    }

    #[test]
    fn a_rule_the_note_broke_already_does_not_refuse_another_edit() {
        let fine = edit(json!({"summary": "Older"}), "wiki/concepts/Old.md").expect("`legacy` was there before");
        assert_eq!(fine.set, ["summary"]);
    }

    #[test]
    fn a_set_link_that_finds_no_note_is_reported_and_one_that_finds_one_is_not() {
        let answer =
            edit(json!({"related": ["[[Tree]]", "[[Forest]]"]}), "wiki/concepts/Graph.md").expect("a link may name a page to come");
        assert_eq!(answer.unresolved_links, ["related: [[Forest]]"]);
        let value = serde_json::to_value(&answer).expect("JSON");
        assert_eq!(value["unresolved_links"], json!(["related: [[Forest]]"]));
        let resolved = edit(json!({"related": "[[Tree]]"}), "wiki/concepts/Graph.md").expect("planned");
        assert!(serde_json::to_value(&resolved).expect("JSON").get("unresolved_links").is_none());
    }
}
