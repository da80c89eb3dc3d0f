//! `schema`: notes that break the `SCHEMA.md` governing their folder, and `schema_file`
//! problems of the `SCHEMA.md` itself.
//!
//! A `SCHEMA.md` declares in its frontmatter the page types (a description, the required
//! properties, the folder new pages of that type go in) and the allowed property vocabulary (a
//! list of names, or a map of name to allowed values, where an empty value allows any value).
//! Obsidian's own `tags`, `aliases` and `cssclasses` are always allowed. A page's type is its
//! `type` property. A `SCHEMA.md` governs the notes of its folder and below it; the nearest one
//! wins. It is read when the index reads the note, as a bounded file: over
//! [`MAX_SCHEMA_BYTES`] it is not read, and past the other limits below it is cut, with a
//! warning. What cannot be read is a `schema_file` finding, never an error.
//!
//! ```text
//! ---
//! types:
//!   concept: {description: An idea or term, required: [type, summary, sources], folder: concepts}
//!   person: {required: [type, summary]}
//! properties:
//!   type: [concept, person]
//!   summary:
//!   sources:
//!   status: [draft, stable]
//! ---
//! ```

use std::collections::BTreeMap;

use serde_json::json;

use super::{Context, Example, Findings, Proposal, Rule, Skipped};
use crate::index::NoteView;
use crate::resolve::{file_name, fold, folder};
pub use crate::schema_file::*;

/// Properties Obsidian itself defines, always allowed.
const OBSIDIAN_PROPERTIES: [&str; 3] = ["tags", "aliases", "cssclasses"];
/// The property that holds a page's type.
const TYPE_PROPERTY: &str = "type";

pub const RULE: Rule = Rule {
    kind: crate::rule_names::SCHEMA.kind,
    code: crate::rule_names::SCHEMA.code,
    summary: "Notes that break the SCHEMA.md of their folder (type, required properties, folder, vocabulary), and SCHEMA.md problems.",
    examples: &[
        Example {
            name: "each kind of violation",
            vault: "//- wiki/SCHEMA.md\n---\ntypes:\n  concept: {required: [type, summary], folder: concepts}\nproperties:\n  type: [concept]\n  summary:\n  status: [draft, stable]\n---\n\
//- wiki/concepts/Good.md\n---\ntype: concept\nsummary: fine\ntags: [x]\n---\n\
//- wiki/Misplaced.md\n---\ntype: concept\nsummary: here\n---\n\
//- wiki/concepts/Thin.md\n---\ntype: concept\nsummary:\nstatus: Draft\nmood: calm\n---\n\
//- wiki/concepts/Odd.md\n---\ntype: essay\n---\n\
//- Outside.md\n---\nmood: any\n---\n",
            expected: &[
                "schema wiki/Misplaced.md -> wiki/SCHEMA.md (move_note)",
                "schema wiki/concepts/Odd.md -> wiki/SCHEMA.md",
                "schema wiki/concepts/Thin.md -> wiki/SCHEMA.md",
                "schema wiki/concepts/Thin.md -> wiki/SCHEMA.md",
                "schema wiki/concepts/Thin.md -> wiki/SCHEMA.md",
            ],
        },
        Example {
            name: "an unreadable SCHEMA.md is a finding, not an error",
            vault: "//- SCHEMA.md\n---\ntypes: [a, b\n---\n//- A.md\n",
            expected: &["schema_file SCHEMA.md"],
        },
        Example { name: "no SCHEMA.md: skipped", vault: "//- A.md\n", expected: &["skipped schema"] },
    ],
    check,
};

fn check(context: &Context<'_>, findings: &mut Findings) {
    let schemas = schema_files(context.vault);
    let mut used: BTreeMap<&str, &SchemaFile> = BTreeMap::new();
    for (_, (path, file)) in schemas.iter().filter(|(_, (path, _))| context.is_subject(path)) {
        used.insert(path, file);
    }
    let mut violations = Vec::new();
    for note in context.subjects() {
        if super::is_schema_file(note.path) {
            continue;
        }
        let Some((schema_path, file)) = governing(&schemas, note.path) else { continue };
        used.insert(schema_path, file);
        if let Some(schema) = &file.schema {
            check_note(&note, schema_path, schema, &mut violations);
        }
    }
    if used.is_empty() {
        findings.skipped.push(Skipped {
            kind: RULE.kind,
            reason:
                "no SCHEMA.md governs the notes linted: put one, with `types` and `properties` in its frontmatter, in the wiki's folder"
                    .to_owned(),
        });
        return;
    }
    for (path, file) in used {
        if file.problems.is_empty() {
            continue;
        }
        let mut proposal = Proposal::new(
            "schema_file",
            path,
            file.problems.join("; "),
            if file.schema.is_some() {
                "Fix SCHEMA.md so that every rule in it is read; until then the parts listed are not checked.".to_owned()
            } else {
                "Fix SCHEMA.md (a `---` frontmatter block with `types` and `properties`, under 64 KiB); until then its notes are not checked.".to_owned()
            },
        );
        proposal.evidence = Some(json!({"problems": file.problems}));
        findings.proposals.push(proposal);
    }
    findings.proposals.extend(violations);
}

/// Every `SCHEMA.md` of the vault, by its folded folder.
pub fn schema_files(vault: &crate::index::Vault) -> BTreeMap<String, (&str, &SchemaFile)> {
    let mut schemas: BTreeMap<String, (&str, &SchemaFile)> = BTreeMap::new();
    for note in vault.notes() {
        if let Some(file) = note.facts.schema.as_deref() {
            schemas.entry(fold(folder(note.path))).or_insert((note.path, file));
        }
    }
    schemas
}

/// Whether a `SCHEMA.md` declares any rule (page types or a vocabulary): a note that is only
/// named so (a concept note called "Schema") makes no wiki.
pub fn declares_rules(file: &SchemaFile) -> bool {
    file.schema.as_ref().is_some_and(|schema| !schema.types.is_empty() || schema.properties.is_some())
}

/// The `SCHEMA.md` that governs `path` (the nearest in the folders holding it), with its path.
pub fn governing_schema<'a>(vault: &'a crate::index::Vault, path: &str) -> Option<(&'a str, &'a SchemaFile)> {
    governing(&schema_files(vault), path)
}

/// The nearest `SCHEMA.md` in the folders holding `path`.
fn governing<'a>(schemas: &BTreeMap<String, (&'a str, &'a SchemaFile)>, path: &str) -> Option<(&'a str, &'a SchemaFile)> {
    let mut at = fold(folder(path));
    loop {
        if let Some(found) = schemas.get(&at) {
            return Some(*found);
        }
        if at.is_empty() {
            return None;
        }
        at = folder(&at).to_owned();
    }
}

fn check_note(note: &NoteView<'_>, schema_path: &str, schema: &Schema, out: &mut Vec<Proposal>) {
    let violation = |detail: String, action: String, evidence: serde_json::Value| {
        let mut proposal = Proposal::new(RULE.kind, note.path, detail, action);
        proposal.related = vec![schema_path.to_owned()];
        proposal.evidence = Some(evidence);
        proposal
    };
    let schema_folder = folder(schema_path);
    // The page type and what it requires.
    let mut type_reported = false;
    if let Some(type_name) = note.facts.property_text(TYPE_PROPERTY).filter(|_| !schema.types.is_empty()) {
        match schema.types.iter().find(|page_type| fold(&page_type.name) == fold(type_name)) {
            None => {
                let known: Vec<&str> = schema.types.iter().map(|page_type| page_type.name.as_str()).collect();
                type_reported = true;
                out.push(violation(
                    format!("its type `{type_name}` is not one {schema_path} declares ({})", known.join(", ")),
                    "Set `type` to one of the declared types, or declare this type in SCHEMA.md.".to_owned(),
                    json!({"property": TYPE_PROPERTY, "value": type_name, "allowed": known}),
                ));
            }
            Some(page_type) => {
                let missing: Vec<&str> = page_type
                    .required
                    .iter()
                    .map(String::as_str)
                    .filter(|required| note.facts.property(required).is_none_or(|property| property.is_empty()))
                    .collect();
                if !missing.is_empty() {
                    out.push(violation(
                        format!(
                            "a `{}` page needs {}, and it lacks or leaves empty: {}",
                            page_type.name,
                            page_type.required.join(", "),
                            missing.join(", ")
                        ),
                        format!("Fill in {} in the note's properties.", missing.join(", ")),
                        json!({"type": page_type.name, "missing": missing}),
                    ));
                }
                if let Some(type_folder) = page_type.folder.as_deref() {
                    let expected = if schema_folder.is_empty() { type_folder.to_owned() } else { format!("{schema_folder}/{type_folder}") };
                    let folded_expected = fold(&expected);
                    let folded_path = fold(note.path);
                    let inside =
                        folded_path.starts_with(&folded_expected) && folded_path.as_bytes().get(folded_expected.len()) == Some(&b'/');
                    if !inside {
                        let to = format!("{expected}/{}", file_name(note.path));
                        let mut proposal = violation(
                            format!("`{}` pages go in `{expected}`, and this one is in `{}`", page_type.name, folder(note.path)),
                            format!("Move it to `{to}` with move_note, which keeps every link to it."),
                            json!({"type": page_type.name, "folder": expected}),
                        );
                        proposal.tool = Some("move_note");
                        proposal.tool_args = Some(json!({"from": note.path, "to": to}));
                        out.push(proposal);
                    }
                }
            }
        }
    }
    let Some(rules) = &schema.properties else { return };
    // The vocabulary and its allowed values.
    let mut unknown = Vec::new();
    for property in &note.facts.properties {
        let folded = fold(&property.key);
        // `source_hashes` is written by the commit that ingests, whatever the vocabulary says.
        if OBSIDIAN_PROPERTIES.contains(&folded.as_str()) || folded == crate::source_hashes::SOURCE_HASHES_PROPERTY {
            continue;
        }
        let Some(rule) = rules.iter().find(|rule| fold(&rule.name) == folded) else {
            unknown.push(property.key.as_str());
            continue;
        };
        // An undeclared type is reported once, above, not again as a disallowed value.
        if rule.allowed.is_empty() || (type_reported && folded == TYPE_PROPERTY) {
            continue;
        }
        for value in property.values.iter().filter(|value| !value.trim().is_empty()) {
            if rule.allowed.iter().any(|allowed| allowed == value.trim()) {
                continue;
            }
            let near = rule.allowed.iter().find(|allowed| fold(allowed) == fold(value.trim()));
            let hint = near.map(|near| format!(" (it differs from `{near}` only in case or form)")).unwrap_or_default();
            out.push(violation(
                format!("`{}: {value}` is not an allowed value{hint}; {schema_path} allows {}", property.key, rule.allowed.join(", ")),
                match near {
                    Some(near) => format!("Write `{}: {near}`.", property.key),
                    None => format!("Use one of the allowed values of `{}`, or add this one to SCHEMA.md.", property.key),
                },
                json!({"property": property.key, "value": value, "allowed": rule.allowed}),
            ));
        }
    }
    if !unknown.is_empty() {
        out.push(violation(
            format!(
                "propert{} {} {} not in {schema_path}'s vocabulary",
                if unknown.len() == 1 { "y" } else { "ies" },
                unknown.join(", "),
                if unknown.len() == 1 { "is" } else { "are" }
            ),
            "Rename the property to one the schema allows, remove it, or add it to `properties` in SCHEMA.md.".to_owned(),
            json!({"properties": unknown}),
        ));
    }
}
