//! `update_properties`: sets and removes top-level properties of a note's frontmatter without
//! touching anything else in the file. Each property is one entry of the YAML block (its key line
//! and the lines indented under it); an edit replaces, removes or appends whole entries, so
//! every other key, comment, quoting style, order and line break stays byte for byte. A value
//! that holds a link is written quoted, in the form Obsidian reads as a link. The result is
//! proven before it is offered: the block is read again with `serde_yaml` and must hold exactly
//! the properties it held, with the asked change and no other.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::frontmatter::find_block;
use crate::plan::{content_hash, FileEdit, MovePlan, TextEdit};
use crate::span::Span;

crate::approval::writing_arguments! {
    /// What `update_properties` was asked.
    #[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct PropertiesArguments {
        pub path: String,
        /// Properties to set, by key: text, a number, a boolean, or a list of those.
        #[serde(default)]
        pub set: serde_json::Map<String, Value>,
        /// Keys to remove; a key that is not there is left alone.
        #[serde(default)]
        pub remove: Vec<String>,
    }
}

/// What `update_properties` answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PropertiesAnswer {
    pub dry_run: bool,
    pub applied: bool,
    pub plan_hash: String,
    pub path: String,
    /// The keys set and removed (a removed key that was not there is not listed).
    pub set: Vec<String>,
    pub removed: Vec<String>,
    /// The frontmatter's YAML before and after; left out with `concise`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    /// True when the note already holds what was asked: nothing is written, and `set` and
    /// `removed` are empty.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unchanged: bool,
    /// The links the set values hold that find no note, as `key: link` (written all the same).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unresolved_links: Vec<String>,
    /// Once applied: the id `undo_change` takes to undo it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change_id: Option<String>,
}

/// Why the properties cannot be changed as asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PropertiesError {
    /// Nothing to do: no key to set or remove.
    Nothing,
    /// A key or value this tool does not write (`detail` says which and why).
    Unwritable { detail: String },
    /// The frontmatter is not a mapping YAML reads, so entries cannot be told apart.
    Unreadable { path: String, detail: String },
    /// The edited block would not read back as the asked change: the frontmatter is written in
    /// a form whose entries cannot be replaced one by one (an anchor another entry uses, a
    /// flow collection whose later line starts like a key). Refused before writing.
    Unproven { path: String, detail: String },
    /// The edit breaks rules of the `SCHEMA.md` governing the note that it did not break before.
    OffSchema { path: String, schema: String, problems: Vec<String> },
}

impl crate::error::Failure for PropertiesError {
    fn code(&self) -> crate::error::ErrorCode {
        match self {
            PropertiesError::Nothing | PropertiesError::Unwritable { .. } | PropertiesError::Unreadable { .. } => {
                crate::error::ErrorCode::InvalidArguments
            }
            PropertiesError::Unproven { .. } => crate::error::ErrorCode::UnwritableNote,
            PropertiesError::OffSchema { .. } => crate::error::ErrorCode::PageRefused,
        }
    }

    fn message(&self) -> String {
        match self {
            PropertiesError::Nothing => "nothing to change: give `set`, `remove` or both".to_owned(),
            PropertiesError::Unwritable { detail } => detail.clone(),
            PropertiesError::Unreadable { path, detail } => {
                format!("the frontmatter of `{path}` is not YAML properties can be edited in ({detail}); nothing was changed")
            }
            PropertiesError::OffSchema { path, schema, problems } => {
                format!("the edit of `{path}` would break rules of `{schema}`: {}; nothing was changed", problems.join("; "))
            }
            PropertiesError::Unproven { path, detail } => {
                format!(
                    "the frontmatter of `{path}` is written in a form whose entries cannot be edited one by one keeping every other byte: \
edited as asked, {detail}; nothing was changed"
                )
            }
        }
    }

    fn hint(&self) -> &'static str {
        match self {
            PropertiesError::Nothing | PropertiesError::Unwritable { .. } => {
                "Set keys to text, numbers, booleans or lists of them; remove keys by name."
            }
            PropertiesError::Unreadable { .. } => {
                "Fix the note's YAML (lint_wiki names the problem as malformed_frontmatter), then try again."
            }
            PropertiesError::OffSchema { .. } => {
                "Set values the schema allows (read_note on its SCHEMA.md gives its types and vocabulary), or change SCHEMA.md first."
            }
            PropertiesError::Unproven { .. } => {
                "Edit this property in Obsidian, or write the entries it shares anchors or lines with plainly (no `&anchor` another entry uses with `*alias`, each entry starting on its own line), then try again."
            }
        }
    }
}

/// One top-level entry of the block: its key as YAML reads it, whether it is quoted, and the
/// bytes of its lines.
struct Entry {
    key: String,
    quoted: bool,
    span: Span,
}

impl Entry {
    /// Whether this entry is the property `key`: a plain key YAML reads as a number, a boolean
    /// or null (`1:`, `true:`) is another property than the text key spelt the same.
    fn is(&self, key: &str) -> bool {
        self.key == key
            && (self.quoted
                || serde_yaml::from_str::<serde_yaml::Value>(&self.key).ok() == Some(serde_yaml::Value::String(self.key.clone())))
    }
}

/// The block's top-level entries, in order. An entry runs from its key's line to its last
/// line that is neither blank nor a comment at the start of a line, so that a block scalar or a
/// list with blank lines or comments inside is one entry, while blank lines and comments
/// between entries belong to none and stay when a neighbour is replaced or removed. What this
/// scan gets wrong (a flow collection or a quoted scalar whose later line starts like a key)
/// the proof after the edit refuses.
fn entries(text: &str, content: Span) -> Vec<Entry> {
    let mut found: Vec<Entry> = Vec::new();
    let mut at = content.start;
    while at < content.end {
        let end = text[at..content.end].find('\n').map_or(content.end, |newline| at + newline + 1);
        let line = &text[at..end];
        let bare = line.trim_end_matches(['\r', '\n']);
        let between = bare.trim().is_empty() || bare.starts_with('#');
        let key = (!bare.starts_with([' ', '\t', '#', '-'])).then(|| key_of(line)).flatten();
        if let Some((key, quoted)) = key {
            found.push(Entry { key, quoted, span: Span { start: at, end } });
        } else if !between {
            if let Some(last) = found.last_mut() {
                last.span.end = end;
            }
        }
        at = end;
    }
    found
}

/// The key a top-level line starts, as YAML reads it, plain or quoted, and whether it is quoted.
fn key_of(line: &str) -> Option<(String, bool)> {
    let line = line.trim_end_matches(['\r', '\n']);
    if let Some(quote @ ('"' | '\'')) = line.chars().next() {
        let close = line[1..].find(quote)? + 1;
        let rest = &line[close + 1..];
        return rest.trim_start().starts_with(':').then(|| (line[1..close].to_owned(), true));
    }
    let colon = line.char_indices().find(|&(at, c)| c == ':' && (at + 1 == line.len() || line[at + 1..].starts_with([' ', '\t'])))?;
    Some((line[..colon.0].trim_end().to_owned(), false))
}

/// A value as this tool writes it: YAML text after `key:` (with its leading space or line
/// break), for the line break `newline` the block uses.
fn written(key: &str, value: &Value, newline: &str) -> Result<String, PropertiesError> {
    let scalar = |value: &Value| -> Result<String, PropertiesError> {
        match value {
            Value::String(text) => Ok(quoted_if_needed(text)),
            Value::Number(number) => Ok(number.to_string()),
            Value::Bool(flag) => Ok(flag.to_string()),
            _ => Err(PropertiesError::Unwritable {
                detail: format!("`set.{key}` holds a {} inside a list; a list holds text, numbers or booleans", kind(value)),
            }),
        }
    };
    match value {
        Value::Array(items) if items.is_empty() => Ok(" []".to_owned()),
        Value::Array(items) => {
            let lines: Result<Vec<String>, PropertiesError> =
                items.iter().map(|item| scalar(item).map(|item| format!("  - {item}"))).collect();
            Ok(format!("{newline}{}", lines?.join(newline)))
        }
        Value::Null => Ok(String::new()),
        Value::Object(_) => Err(PropertiesError::Unwritable {
            detail: format!("`set.{key}` is an object; this tool writes text, numbers, booleans and lists of them"),
        }),
        scalar_value => scalar(scalar_value).map(|text| format!(" {text}")),
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Array(_) => "list",
        Value::Object(_) => "object",
        Value::Null => "null",
        _ => "value",
    }
}

/// Whether a plain scalar could read as something else than text to some YAML reader (YAML 1.1
/// reads `yes`, `on` and `0755` otherwise than YAML 1.2 does).
fn looks_typed(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    matches!(lower.as_str(), "y" | "n" | "yes" | "no" | "on" | "off" | "true" | "false" | "null" | "~")
        || text.trim_start_matches(['-', '+', '.']).starts_with(|c: char| c.is_ascii_digit())
        || lower.starts_with(".inf")
        || lower.starts_with(".nan")
}

/// Text written plain when every YAML reader reads it back as the same string, else
/// double-quoted (always for a link, which Obsidian reads from a quoted string only).
fn quoted_if_needed(text: &str) -> String {
    let plain_reads_back = !text.is_empty()
        && !looks_typed(text)
        && !text.contains("[[")
        && !text.contains("](")
        && text.trim() == text
        && !text.contains(['\n', '\r', '\t', '"', '\''])
        && serde_yaml::from_str::<serde_yaml::Value>(&format!("k: {text}")).ok().and_then(|value| value.get("k").cloned())
            == Some(serde_yaml::Value::String(text.to_owned()));
    if plain_reads_back {
        text.to_owned()
    } else {
        double_quoted(text)
    }
}

/// `text` as a YAML double-quoted scalar: a JSON string is one with the same value, once the
/// characters YAML does not allow unescaped (DEL, the C1 controls, U+FFFE and U+FFFF), which
/// JSON leaves as they are, are escaped too.
fn double_quoted(text: &str) -> String {
    let json = serde_json::to_string(text).unwrap_or_default();
    let printable = |c: char| !matches!(c, '\u{7f}'..='\u{9f}' | '\u{fffe}' | '\u{ffff}');
    if json.chars().all(printable) {
        return json;
    }
    json.chars().map(|c| if printable(c) { c.to_string() } else { format!("\\u{:04X}", c as u32) }).collect()
}

/// YAML 1.1's merge key, when written plain.
const MERGE_KEY: &str = "<<";

/// The characters YAML 1.1 reads as line breaks besides `\n` and `\r`, which the YAML library
/// (libyaml) folds inside a quoted string, so that no way of writing them reads back as the
/// same text; other readers (YAML 1.2) take them for ordinary characters, so a note holding one
/// reads differently in each.
const YAML_ONLY_LINE_BREAKS: [(char, &str); 3] =
    [('\u{85}', "NEXT LINE"), ('\u{2028}', "LINE SEPARATOR"), ('\u{2029}', "PARAGRAPH SEPARATOR")];

/// The first YAML-only line break of `text`, named, with what to do, as the end of a sentence.
fn yaml_line_break(text: &str) -> Option<String> {
    let (character, name) = text.chars().find_map(|c| YAML_ONLY_LINE_BREAKS.iter().find(|(found, _)| *found == c))?;
    Some(format!(
        "U+{:04X} ({name}), which YAML reads as a line break, so it cannot be written to read back as it was given; \
replace it with a space, or with `\\n` for a line break",
        *character as u32
    ))
}

/// A key as it is written before `:`: plain when YAML reads it so, else quoted. The key `<<`
/// is always quoted: written plain it is YAML 1.1's merge key, which Obsidian's reader (and
/// PyYAML's, js-yaml's) merges, or rejects when its value is not a mapping, while `serde_yaml`
/// reads a plain key; quoted, every reader reads a property named `<<`.
fn written_key(key: &str) -> String {
    let plain = !key.is_empty()
        && key != MERGE_KEY
        && !looks_typed(key)
        && !key.contains(['#', ':', '"', '\'', '[', ']', '{', '}', ',', '\n'])
        && !key.contains(|c: char| c.is_control() || matches!(c, '\u{fffe}' | '\u{ffff}'))
        && key.trim() == key
        && !key.starts_with(['-', '?', '!', '&', '*', '|', '>', '%', '@', '`']);
    if plain {
        key.to_owned()
    } else {
        double_quoted(key)
    }
}

/// The plan that changes the properties of the note at `path`, whose text is `text`.
pub fn plan(path: &str, text: &str, arguments: &PropertiesArguments) -> Result<(MovePlan, PropertiesAnswer), PropertiesError> {
    if arguments.set.is_empty() && arguments.remove.is_empty() {
        return Err(PropertiesError::Nothing);
    }
    for key in arguments.set.keys().chain(&arguments.remove) {
        if key.trim().is_empty() || key.contains(['\n', '\r']) {
            return Err(PropertiesError::Unwritable { detail: format!("the key {key:?} is empty or spans lines") });
        }
        if let Some(line_break) = yaml_line_break(key) {
            return Err(PropertiesError::Unwritable { detail: format!("the key {key:?} holds {line_break}") });
        }
    }
    for (key, value) in &arguments.set {
        let texts = match value {
            Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
            other => other.as_str().into_iter().collect::<Vec<_>>(),
        };
        if let Some(line_break) = texts.into_iter().find_map(yaml_line_break) {
            return Err(PropertiesError::Unwritable { detail: format!("`set.{key}` holds {line_break}") });
        }
    }
    if let Some(both) = arguments.remove.iter().find(|key| arguments.set.contains_key(*key)) {
        return Err(PropertiesError::Unwritable { detail: format!("`{both}` is both set and removed; give it in one of them") });
    }
    let block = find_block(text);
    let newline = if block.map_or(text, |block| &text[block.span.start..block.span.end]).contains("\r\n") { "\r\n" } else { "\n" };
    let before_yaml = block.map_or("", |block| &text[block.content.range()]);
    let before: serde_yaml::Mapping = match serde_yaml::from_str::<serde_yaml::Value>(before_yaml) {
        Ok(serde_yaml::Value::Mapping(map)) => map,
        Ok(serde_yaml::Value::Null) => serde_yaml::Mapping::new(),
        Ok(_) => return Err(PropertiesError::Unreadable { path: path.to_owned(), detail: "it is not a mapping of keys".to_owned() }),
        Err(error) => return Err(PropertiesError::Unreadable { path: path.to_owned(), detail: error.to_string() }),
    };
    if before_yaml.trim_start().starts_with('{') {
        // Obsidian reads JSON frontmatter but saves it back as YAML; an edit here keeps every
        // other byte, so it does not convert the block behind the user's back.
        return Err(PropertiesError::Unreadable {
            path: path.to_owned(),
            detail: "it is written as JSON; edit the property in Obsidian, which saves the block as YAML, or rewrite it as YAML".to_owned(),
        });
    }
    let found = block.map(|block| entries(text, block.content)).unwrap_or_default();
    let mut edits: Vec<TextEdit> = Vec::new();
    let mut appended = String::new();
    let mut set_keys = Vec::new();
    for (key, value) in &arguments.set {
        let value_text = written(key, value, newline)?;
        // A key that already holds the value is left as it is written (its quoting, its comment).
        let held = before.get(serde_yaml::Value::String(key.clone()));
        if held.is_some() && held == serde_yaml::to_value(value).ok().as_ref() {
            continue;
        }
        match found.iter().find(|entry| entry.is(key)) {
            Some(entry) => {
                // The key as it was written (its quoting) stays.
                let as_written = &text[entry.span.start..entry.span.end];
                let colon = as_written.find(':').unwrap_or(0);
                let kept_key = &as_written[..colon];
                // A merge key written plain is written quoted, as a new `<<` is (`written_key`).
                let quoted_key;
                let kept_key = if kept_key.trim_end() == MERGE_KEY {
                    quoted_key = written_key(key);
                    quoted_key.as_str()
                } else {
                    kept_key
                };
                let mut replacement = format!("{kept_key}:{value_text}{newline}");
                if !as_written.ends_with('\n') {
                    replacement.truncate(replacement.len() - newline.len());
                }
                edits.push(TextEdit { span: entry.span, replacement });
            }
            None => appended.push_str(&format!("{}:{value_text}{newline}", written_key(key))),
        }
        set_keys.push(key.clone());
    }
    let mut removed = Vec::new();
    for key in &arguments.remove {
        if let Some(entry) = found.iter().find(|entry| entry.is(key)) {
            edits.push(TextEdit { span: entry.span, replacement: String::new() });
            removed.push(key.clone());
        }
    }
    if !appended.is_empty() {
        match block {
            Some(block) => {
                // After the last entry's line break: a block whose last line lacks one gets it.
                let needs_break = block.content.end > block.content.start && !text[..block.content.end].ends_with('\n');
                let at = Span { start: block.content.end, end: block.content.end };
                edits.push(TextEdit { span: at, replacement: format!("{}{appended}", if needs_break { newline } else { "" }) });
            }
            None => {
                let start = if text.starts_with('\u{feff}') { '\u{feff}'.len_utf8() } else { 0 };
                edits.push(TextEdit { span: Span { start, end: start }, replacement: format!("---{newline}{appended}---{newline}") });
            }
        }
    }
    edits.sort_by_key(|edit| (edit.span.start, edit.span.end));
    let after_text = crate::plan::apply_edits(text, &edits);
    let after_block = find_block(&after_text);
    let after_yaml = after_block.map_or("", |block| &after_text[block.content.range()]);
    prove(path, text, &after_text, &before, after_yaml, arguments)?;
    let content_hash = content_hash(text);
    let mut hash = crate::plan::PlanHash::new();
    hash.record(&[b"update_properties", path.as_bytes(), content_hash.as_bytes()]);
    for edit in &edits {
        hash.edit(edit);
    }
    let plan_hash = hash.finish();
    let detailed = arguments.response_format == crate::answer::ResponseFormat::Detailed;
    let answer = PropertiesAnswer {
        dry_run: true,
        applied: false,
        plan_hash: plan_hash.clone(),
        path: path.to_owned(),
        set: set_keys,
        removed,
        before: detailed.then(|| before_yaml.to_owned()),
        after: detailed.then(|| after_yaml.to_owned()),
        unchanged: edits.is_empty(),
        unresolved_links: Vec::new(),
        change_id: None,
    };
    let edits = if edits.is_empty() { Vec::new() } else { vec![FileEdit { path: path.to_owned(), content_hash, edits }] };
    Ok((MovePlan { moves: Vec::new(), edits, creates: Vec::new(), changes: Vec::new(), newly_resolved: Vec::new(), plan_hash }, answer))
}

/// The edited text reads back as the asked change and nothing else: the same properties but
/// those set (to their values) and those removed, and the same bytes outside the block.
fn prove(
    path: &str,
    text: &str,
    after_text: &str,
    before: &serde_yaml::Mapping,
    after_yaml: &str,
    arguments: &PropertiesArguments,
) -> Result<(), PropertiesError> {
    let unproven = |detail: String| Err(PropertiesError::Unproven { path: path.to_owned(), detail });
    let after: serde_yaml::Mapping = match serde_yaml::from_str::<serde_yaml::Value>(after_yaml) {
        Ok(serde_yaml::Value::Mapping(map)) => map,
        Ok(serde_yaml::Value::Null) => serde_yaml::Mapping::new(),
        Ok(_) => return unproven("it would not read as a mapping of keys".to_owned()),
        Err(error) => return unproven(format!("it would not read as YAML: {error}")),
    };
    // Every key as YAML reads it, text or not: a key of another type is kept as it was.
    let mut expected = before.clone();
    for key in &arguments.remove {
        expected.remove(serde_yaml::Value::String(key.clone()));
    }
    for (key, value) in &arguments.set {
        let value = serde_yaml::to_value(value).unwrap_or(serde_yaml::Value::Null);
        expected.insert(serde_yaml::Value::String(key.clone()), value);
    }
    let actual = after;
    if actual != expected {
        return unproven("its properties would read back otherwise than the asked change".to_owned());
    }
    let body =
        |text: &str| find_block(text).map_or(text.trim_start_matches('\u{feff}').to_owned(), |block| text[block.span.end..].to_owned());
    if body(text) != body(after_text) {
        return unproven("the body would change".to_owned());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn asked(set: Value, remove: &[&str]) -> PropertiesArguments {
        PropertiesArguments {
            path: "N.md".to_owned(),
            set: set.as_object().cloned().unwrap_or_default(),
            remove: remove.iter().map(|key| (*key).to_owned()).collect(),
            dry_run: None,
            approved_plan_hash: None,
            response_format: Default::default(),
        }
    }

    fn edit(text: &str, set: Value, remove: &[&str]) -> String {
        let (plan, _) = plan("N.md", text, &asked(set, remove)).unwrap_or_else(|error| panic!("{error:?}"));
        plan.edits.first().map_or(text.to_owned(), |file| crate::plan::apply_edits(text, &file.edits))
    }

    #[test]
    fn setting_a_key_keeps_every_other_byte() {
        let text = "---\n# a comment\ntitle: 'Old'   # trailing\ntags:\n  - a\n  - b\nup: \"[[Home]]\"\n---\nBody [[x]]\n";
        assert_eq!(
            edit(text, json!({"status": "done"}), &[]),
            "---\n# a comment\ntitle: 'Old'   # trailing\ntags:\n  - a\n  - b\nup: \"[[Home]]\"\nstatus: done\n---\nBody [[x]]\n"
        );
        assert_eq!(
            edit(text, json!({"tags": ["x", "y z"]}), &[]),
            "---\n# a comment\ntitle: 'Old'   # trailing\ntags:\n  - x\n  - y z\nup: \"[[Home]]\"\n---\nBody [[x]]\n"
        );
        assert_eq!(edit(text, json!({}), &["tags"]), "---\n# a comment\ntitle: 'Old'   # trailing\nup: \"[[Home]]\"\n---\nBody [[x]]\n");
    }

    #[test]
    fn links_are_written_quoted_and_crlf_and_missing_blocks_are_kept_as_they_are() {
        assert_eq!(
            edit("---\r\na: 1\r\n---\r\nBody", json!({"related": "[[Other note]]"}), &[]),
            "---\r\na: 1\r\nrelated: \"[[Other note]]\"\r\n---\r\nBody"
        );
        assert_eq!(
            edit("Body only\n", json!({"up": ["[[A]]", 2, true]}), &[]),
            "---\nup:\n  - \"[[A]]\"\n  - 2\n  - true\n---\nBody only\n"
        );
        assert_eq!(edit("---\nn: 1\n---\n", json!({"n": "007", "on": "yes"}), &[]), "---\nn: \"007\"\n\"on\": \"yes\"\n---\n");
    }

    #[test]
    fn what_cannot_be_written_is_refused() {
        let refuse = |text: &str, set: Value, remove: &[&str]| plan("N.md", text, &asked(set, remove)).map(|_| ()).unwrap_err();
        assert_eq!(refuse("x", json!({}), &[]), PropertiesError::Nothing);
        assert!(matches!(refuse("x", json!({"a": {"b": 1}}), &[]), PropertiesError::Unwritable { .. }));
        assert!(matches!(refuse("x", json!({"a": 1}), &["a"]), PropertiesError::Unwritable { .. }));
        assert!(matches!(refuse("---\n- a list\n---\n", json!({"a": 1}), &[]), PropertiesError::Unreadable { .. }));
    }
}
