//! What a `SCHEMA.md` says, read from its frontmatter when the index reads the note: the page
//! types and the property vocabulary (`lint::schema` checks notes against it). A bounded read:
//! over [`MAX_SCHEMA_BYTES`] the file is not read, past the other limits it is cut, and what
//! cannot be read is a problem of the file, never an error.

use crate::yaml_text::{cut_chars, yaml_scalar_text, MAX_VALUE_CHARS};

/// A `SCHEMA.md` larger than this is not read.
pub const MAX_SCHEMA_BYTES: usize = 64 * 1024;
/// Page types read; the rest are cut with a warning.
pub const MAX_TYPES: usize = 100;
/// Required properties read per type.
pub const MAX_FIELDS_PER_TYPE: usize = 100;
/// Properties of the vocabulary read.
pub const MAX_PROPERTIES: usize = 500;
/// Allowed values read per property.
pub const MAX_VALUES_PER_PROPERTY: usize = 200;
/// Characters read of a name (type, property, value, folder, description); longer ones are cut.
pub const MAX_NAME_CHARS: usize = MAX_VALUE_CHARS;

/// What was read from one `SCHEMA.md`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SchemaFile {
    /// `None` when the file could not be read as a schema.
    pub schema: Option<Schema>,
    /// Why it could not be read, or what was cut or ignored.
    pub problems: Vec<String>,
}

/// The rules of one `SCHEMA.md`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Schema {
    pub types: Vec<PageType>,
    /// The allowed properties; `None` when the schema does not restrict them.
    pub properties: Option<Vec<PropertyRule>>,
    /// The folders that hold the wiki's sources (clippings, transcripts, papers), relative to
    /// the schema's folder: kept exactly as captured, so no tool writes in them.
    pub source_folders: Vec<String>,
    /// Lint rules the wiki holds its pages to, each with how firmly: `block` refuses a write that
    /// adds a finding of the rule, `warn` (the default) leaves it to `lint_wiki`.
    pub conventions: Vec<Convention>,
}

/// One `conventions` entry: a lint rule (its kind or code) and its severity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Convention {
    pub rule: String,
    pub block: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageType {
    pub name: String,
    pub description: Option<String>,
    pub required: Vec<String>,
    /// Where pages of this type go, relative to the schema's folder.
    pub folder: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PropertyRule {
    pub name: String,
    /// The allowed values; empty allows any.
    pub allowed: Vec<String>,
}

/// Reads a `SCHEMA.md` from its text. Never fails: what cannot be read becomes a problem.
pub fn read_schema_file(text: &str) -> SchemaFile {
    let mut file = SchemaFile::default();
    if text.len() > MAX_SCHEMA_BYTES {
        file.problems.push(format!(
            "SCHEMA.md is {} bytes, over the {} KiB a schema may have, so it was not read",
            text.len(),
            MAX_SCHEMA_BYTES / 1024
        ));
        return file;
    }
    let Some(block) = crate::frontmatter::find_block(text) else {
        file.problems.push(
            "SCHEMA.md has no frontmatter (a `---` block at the top declaring `types` and `properties`), so there is no schema".to_owned(),
        );
        return file;
    };
    if crate::frontmatter::nests_too_deep(&text[block.content.range()]) {
        file.problems
            .push(format!("SCHEMA.md's frontmatter nests deeper than {} levels, so it was not read", crate::frontmatter::MAX_NESTING));
        return file;
    }
    let yaml = match serde_yaml::from_str::<serde_yaml::Value>(&text[block.content.range()]) {
        Ok(serde_yaml::Value::Mapping(map)) => map,
        Ok(_) => {
            file.problems.push("SCHEMA.md's frontmatter is not a mapping of `types` and `properties`, so there is no schema".to_owned());
            return file;
        }
        Err(error) => {
            file.problems.push(format!("SCHEMA.md's frontmatter is not valid YAML ({error}), so there is no schema"));
            return file;
        }
    };
    let mut schema = Schema::default();
    let types = yaml.get("types");
    let properties = yaml.get("properties");
    let source_folders = yaml.get("source_folders");
    if let Some(conventions) = yaml.get("conventions") {
        read_conventions(conventions, &mut schema, &mut file.problems);
    }
    if types.is_none() && properties.is_none() && source_folders.is_none() && schema.conventions.is_empty() {
        file.problems.push("SCHEMA.md's frontmatter declares neither `types` nor `properties`, so there is no schema".to_owned());
        return file;
    }
    if let Some(folders) = source_folders {
        schema.source_folders = names(folders, MAX_TYPES, "`source_folders`", &mut file.problems)
            .into_iter()
            .map(|folder| folder.trim_matches('/').to_owned())
            .filter(|folder| !folder.is_empty())
            .collect();
    }
    if let Some(types) = types {
        read_types(types, &mut schema, &mut file.problems);
    }
    if let Some(properties) = properties {
        read_properties(properties, &mut schema, &mut file.problems);
    }
    file.schema = Some(schema);
    file
}

fn name(value: &serde_yaml::Value, problems: &mut Vec<String>) -> Option<String> {
    let text = yaml_scalar_text(value)?;
    let text = text.trim();
    if text.chars().count() > MAX_NAME_CHARS {
        problems.push(format!(
            "`{}…` is longer than {MAX_NAME_CHARS} characters and was cut",
            cut_chars(text).chars().take(40).collect::<String>()
        ));
    }
    Some(cut_chars(text)).filter(|text| !text.is_empty())
}

fn names(value: &serde_yaml::Value, limit: usize, what: &str, problems: &mut Vec<String>) -> Vec<String> {
    let items: Vec<&serde_yaml::Value> = match value {
        serde_yaml::Value::Null => Vec::new(),
        serde_yaml::Value::Sequence(items) => items.iter().collect(),
        scalar => vec![scalar],
    };
    if items.len() > limit {
        problems.push(format!("{what} has {} entries; only the first {limit} are read", items.len()));
    }
    items.into_iter().take(limit).filter_map(|item| name(item, problems)).collect()
}

fn read_types(value: &serde_yaml::Value, schema: &mut Schema, problems: &mut Vec<String>) {
    let serde_yaml::Value::Mapping(types) = value else {
        problems.push(
            "`types` is not a map of type names to their rules (`concept: {required: [...], folder: ...}`); it is ignored".to_owned(),
        );
        return;
    };
    if types.len() > MAX_TYPES {
        problems.push(format!("`types` declares {} types; only the first {MAX_TYPES} are read", types.len()));
    }
    for (key, rules) in types.iter().take(MAX_TYPES) {
        let Some(type_name) = name(key, problems) else { continue };
        let mut page_type = PageType { name: type_name.clone(), ..PageType::default() };
        match rules {
            serde_yaml::Value::Null => {}
            serde_yaml::Value::Mapping(rules) => {
                for (field, value) in rules {
                    match yaml_scalar_text(field).as_deref() {
                        Some("description") => page_type.description = name(value, problems),
                        Some("required") => {
                            page_type.required = names(value, MAX_FIELDS_PER_TYPE, &format!("`required` of type `{type_name}`"), problems)
                        }
                        Some("folder") => page_type.folder = name(value, problems).map(|folder| folder.trim_matches('/').to_owned()),
                        other => problems.push(format!(
                            "type `{type_name}` has `{}`, which a schema does not use (only `description`, `required` and `folder`); it is ignored",
                            other.unwrap_or("?")
                        )),
                    }
                }
            }
            _ => problems.push(format!("type `{type_name}` is not a map of `description`, `required` and `folder`; its rules are ignored")),
        }
        schema.types.push(page_type);
    }
}

fn read_conventions(value: &serde_yaml::Value, schema: &mut Schema, problems: &mut Vec<String>) {
    let serde_yaml::Value::Mapping(map) = value else {
        problems.push("`conventions` is not a map of lint rules to their severity (`orphan: block`); it is ignored".to_owned());
        return;
    };
    for (key, rules) in map.iter().take(MAX_TYPES) {
        let Some(rule) = name(key, problems) else { continue };
        let severity = match rules {
            serde_yaml::Value::Mapping(fields) => fields.get("severity").and_then(yaml_scalar_text),
            other => yaml_scalar_text(other),
        };
        let block = match severity.as_deref().map(str::trim) {
            Some("block") => true,
            None | Some("warn") => false,
            Some(other) => {
                problems.push(format!("the convention `{rule}` has the severity `{other}`; a severity is `warn` or `block`, so it warns"));
                false
            }
        };
        if crate::rule_names::rule_name(&rule).is_none() {
            problems.push(format!("the convention `{rule}` names no lint rule; it is ignored"));
            continue;
        }
        schema.conventions.push(Convention { rule, block });
    }
}

fn read_properties(value: &serde_yaml::Value, schema: &mut Schema, problems: &mut Vec<String>) {
    let mut rules = Vec::new();
    match value {
        serde_yaml::Value::Sequence(_) => {
            rules = names(value, MAX_PROPERTIES, "`properties`", problems)
                .into_iter()
                .map(|name| PropertyRule { name, allowed: Vec::new() })
                .collect();
        }
        serde_yaml::Value::Mapping(map) => {
            if map.len() > MAX_PROPERTIES {
                problems.push(format!("`properties` declares {} properties; only the first {MAX_PROPERTIES} are read", map.len()));
            }
            for (key, allowed) in map.iter().take(MAX_PROPERTIES) {
                let Some(property) = name(key, problems) else { continue };
                let what = format!("the allowed values of `{property}`");
                rules.push(PropertyRule { allowed: names(allowed, MAX_VALUES_PER_PROPERTY, &what, problems), name: property });
            }
        }
        _ => {
            problems.push("`properties` is neither a list of names nor a map of names to allowed values; it is ignored".to_owned());
            return;
        }
    }
    schema.properties = Some(rules);
}

// ---------------------------------------------------------------------------------------------
// The rule
