//! Every tool the MCP server offers: name, title, description, input and output schemas and
//! annotations, defined once. The same catalogue serves calls forwarded to the plugin and
//! calls run on the folder, so an agent sees one server whichever path answers.
//!
//! Input schemas stay in the portable subset every MCP client accepts: a plain object root,
//! no `$ref`, `oneOf`, `allOf`, `const` or type arrays.

use serde_json::{json, Value};

/// One tool, as advertised.
#[derive(Debug, Clone)]
pub struct ToolSpec {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub input_schema: Value,
    pub output_schema: Value,
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
}

pub fn catalogue() -> Vec<ToolSpec> {
    vec![get_outgoing_links()]
}

fn get_outgoing_links() -> ToolSpec {
    ToolSpec {
        name: "get_outgoing_links",
        title: "Get a note's outgoing links",
        description: "Lists the links written in one note (wikilinks, embeds, markdown links), in order, \
each with where it is (line, column, byte span), what it says (target, heading or block subpath, display text) \
and what it resolves to the way Obsidian resolves it: `resolved` with the file's path, `ambiguous` \
(several files match; the one Obsidian-style resolution picks is given) or `unresolved`. \
Use it to see where a note points before editing or moving it. It reads only; it changes nothing. \
It fails with `note_not_found` when no note has the given path.",
        input_schema: json!({
            "type": "object",
            "properties": {
                "path": {
                    "type": "string",
                    "description": "The note's path relative to the vault root, such as `Projects/Alpha.md`. The `.md` may be left out; case does not matter."
                }
            },
            "required": ["path"],
            "additionalProperties": false
        }),
        output_schema: json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "The note's path as found in the vault."},
                "truncated": {"type": "boolean", "description": "True when the note had more links than are kept (50,000)."},
                "links": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "kind": {"type": "string", "enum": ["wikilink", "embed", "markdown", "markdown_embed"]},
                            "target": {"type": "string", "description": "The target as written."},
                            "subpath": {"type": "string", "description": "`#Heading` or `#^block-id`, when the link has one."},
                            "display": {"type": "string", "description": "The alias or link text, when there is one."},
                            "line": {"type": "integer", "minimum": 1},
                            "column": {"type": "integer", "minimum": 1, "description": "In characters."},
                            "span": {
                                "type": "object",
                                "description": "UTF-8 byte range of the whole link in the file.",
                                "properties": {"start": {"type": "integer", "minimum": 0}, "end": {"type": "integer", "minimum": 0}},
                                "required": ["start", "end"]
                            },
                            "status": {"type": "string", "enum": ["resolved", "ambiguous", "unresolved"]},
                            "resolved_path": {"type": "string", "description": "The file the link points to, when it points to one."}
                        },
                        "required": ["kind", "target", "line", "column", "span", "status"]
                    }
                }
            },
            "required": ["path", "links", "truncated"]
        }),
        read_only: true,
        destructive: false,
        idempotent: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keywords outside the portable subset of JSON Schema that some MCP clients reject.
    const NOT_PORTABLE: [&str; 5] = ["$ref", "oneOf", "allOf", "anyOf", "const"];

    fn check_portable(schema: &Value, at: &str) {
        match schema {
            Value::Object(map) => {
                for (key, value) in map {
                    assert!(!NOT_PORTABLE.contains(&key.as_str()), "{at}: `{key}` is not portable");
                    if key == "type" {
                        assert!(value.is_string(), "{at}: a type array is not portable");
                    }
                    check_portable(value, &format!("{at}.{key}"));
                }
            }
            Value::Array(items) => items.iter().for_each(|item| check_portable(item, at)),
            _ => {}
        }
    }

    #[test]
    fn input_schemas_are_portable_objects() {
        for tool in catalogue() {
            assert_eq!(tool.input_schema["type"], "object", "{}", tool.name);
            check_portable(&tool.input_schema, tool.name);
            assert!(tool.description.len() > 80, "{} needs a real description", tool.name);
        }
    }
}
