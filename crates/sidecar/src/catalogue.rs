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
    /// Rules between parameters that the portable schema subset cannot say: core's
    /// (`parameters`), written into the descriptions and enforced by `parameters::check`.
    pub rules: Vec<Rule>,
}

pub use vaultlink_core::parameters::Rule;
use vaultlink_core::parameters::MAX_STRING_CHARS;

pub fn catalogue() -> Vec<ToolSpec> {
    let mut tools = vec![
        get_outgoing_links(),
        get_backlinks(),
        find_unresolved_links(),
        find_orphans(),
        resolve_link(),
        list_notes(),
        read_note(),
        move_note(),
        rewrite_link(),
        lint_wiki(),
        find_existing_page(),
        find_evidence(),
        delete_note(),
        server_health(),
    ];
    for tool in &mut tools {
        tool.rules = vaultlink_core::parameters::of(tool.name).map(|parameters| parameters.rules.to_vec()).unwrap_or_default();
        if let Some(properties) = tool.input_schema.get_mut("properties").and_then(Value::as_object_mut) {
            for schema in properties.values_mut().filter(|schema| schema["type"] == "string" && schema.get("maxLength").is_none()) {
                schema["maxLength"] = json!(MAX_STRING_CHARS);
            }
        }
    }
    tools
}

/// The spec of the tool called `name`.
pub fn find(name: &str) -> Option<ToolSpec> {
    catalogue().into_iter().find(|tool| tool.name == name)
}

fn read_only(name: &'static str, title: &'static str, description: &'static str, input: Value, output: Value) -> ToolSpec {
    ToolSpec {
        name,
        title,
        description,
        input_schema: input,
        output_schema: output,
        read_only: true,
        destructive: false,
        idempotent: true,
        rules: Vec::new(),
    }
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
}

fn note_path(what: &str) -> Value {
    json!({"type": "string", "description": format!("{what}, relative to the vault root, such as `Projects/Alpha.md`. The `.md` may be left out; case does not matter.")})
}

fn response_format() -> Value {
    json!({"type": "string", "enum": ["concise", "detailed"], "default": "detailed",
           "description": "`concise` leaves out columns, spans, display texts and other detail, to save tokens; `detailed` (the default) gives everything."})
}

fn limit() -> Value {
    json!({"type": "integer", "minimum": 1, "maximum": 1000, "default": 100,
           "description": "How many items to return at most (1 to 1000). Left out, a page holds up to 100 items and ends early to stay under about 16 KB; given, it is obeyed exactly."})
}

fn cursor() -> Value {
    json!({"type": "string", "description": "Where to continue: the `next_cursor` of the previous answer, which holds only for the same list as it was. Leave it out to start at the beginning."})
}

fn folder() -> Value {
    json!({"type": "string", "description": "Only notes in this folder and below it, relative to the vault root."})
}

fn next_cursor() -> Value {
    json!({"type": "string", "description": "Present when there are more items: pass it as `cursor` to get the next page."})
}

fn kind() -> Value {
    json!({"type": "string", "enum": ["wikilink", "embed", "markdown", "markdown_embed"]})
}

fn status() -> Value {
    json!({"type": "string", "enum": ["resolved", "ambiguous", "unresolved"]})
}

fn subpath_status() -> Value {
    json!({"type": "string", "enum": ["found", "missing_heading", "missing_block"],
           "description": "For a link with `#heading` or `#^block` that resolves: whether that heading or block exists in the target."})
}

fn get_outgoing_links() -> ToolSpec {
    read_only(
        "get_outgoing_links",
        "Get a note's outgoing links",
        "Lists the links written in one note, in its body and in its frontmatter properties (wikilinks, embeds, \
markdown links), in order, each with where it is (line; with `detailed`, column and byte span), what it says (target, \
heading or block subpath, display text) and what it resolves to the way Obsidian resolves it: `resolved` with the \
file's path, `ambiguous` (several files match; the chosen one and all candidates are given) or `unresolved`; a \
heading or block reference also says whether that heading or block exists. Use it to see where a note points before \
editing or moving it; use get_backlinks for the links pointing to a note. It reads only; it changes nothing. \
It fails with `note_not_found` when no note has the given path.",
        object(json!({"path": note_path("The note's path"), "response_format": response_format()}), &["path"]),
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "The note's path as found in the vault."},
                "truncated": {"type": "boolean", "description": "True when the note had more links than are kept (50,000)."},
                "links": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "kind": kind(),
                            "source": {"type": "string", "enum": ["body", "property"]},
                            "key": {"type": "string", "description": "The property that holds the link, for a property link."},
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
                            "status": status(),
                            "resolved_path": {"type": "string", "description": "The file the link points to, when it points to one."},
                            "candidates": {"type": "array", "items": {"type": "string"}, "description": "Every matching file, for an ambiguous link."},
                            "subpath_status": subpath_status()
                        },
                        "required": ["kind", "source", "target", "line", "status"]
                    }
                }
            },
            "required": ["path", "links", "truncated"]
        }),
    )
}

fn get_backlinks() -> ToolSpec {
    read_only(
        "get_backlinks",
        "Get the links that point to a note",
        "Lists every link in the vault that resolves to one note (its backlinks), from note bodies and from \
frontmatter properties, by referring note: which note, where (line; with `detailed`, column and display text), \
and how it is written. Paged: a page ends at `limit` items (default 100, and then near 16 KB); pass `next_cursor` as `cursor` \
for the next; `total` counts all pages. Use it before moving, renaming or deleting a note to see what depends on it; use get_outgoing_links for the links a note makes. \
It reads only. It fails with `note_not_found` when no note has the given path, and with `invalid_arguments` for a \
cursor that no earlier answer gave.",
        object(json!({"path": note_path("The note's path"), "limit": limit(), "cursor": cursor(), "response_format": response_format()}), &["path"]),
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "total": {"type": "integer", "minimum": 0},
                "next_cursor": next_cursor(),
                "backlinks": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "source": {"type": "string", "description": "The note that holds the link."},
                            "kind": kind(),
                            "link_source": {"type": "string", "enum": ["body", "property"]},
                            "key": {"type": "string", "description": "The property that holds the link, for a property link."},
                            "target": {"type": "string", "description": "The target as written in the referring note."},
                            "display": {"type": "string"},
                            "line": {"type": "integer", "minimum": 1},
                            "column": {"type": "integer", "minimum": 1}
                        },
                        "required": ["source", "kind", "link_source", "target", "line"]
                    }
                }
            },
            "required": ["path", "total", "backlinks"]
        }),
    )
}

fn find_unresolved_links() -> ToolSpec {
    read_only(
        "find_unresolved_links",
        "Find links to notes that do not exist",
        "Lists the vault's unresolved links, grouped by the missing target (case-insensitively), each with every \
note that refers to it and where (the first 50 referrers, with `referrer_count` counting all). Paged: a page ends at \
`limit` targets (default 100, and then near 16 KB); pass `next_cursor` as `cursor` for the next. Use it to find dead \
links or pages people expect but nobody wrote; use resolve_link to check one link, lint_wiki for a review with fixes. \
It reads only. It fails with `invalid_arguments` for a cursor no earlier answer gave.",
        object(json!({"limit": limit(), "cursor": cursor(), "response_format": response_format()}), &[]),
        json!({
            "type": "object",
            "properties": {
                "total_targets": {"type": "integer", "minimum": 0},
                "next_cursor": next_cursor(),
                "targets": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "target": {"type": "string", "description": "The missing target as first written."},
                            "referrer_count": {"type": "integer", "minimum": 1, "description": "How many links name it; `referrers` lists the first 50."},
                            "referrers": {
                                "type": "array",
                                "items": {
                                    "type": "object",
                                    "properties": {
                                        "source": {"type": "string"},
                                        "line": {"type": "integer", "minimum": 1},
                                        "column": {"type": "integer", "minimum": 1},
                                        "kind": kind()
                                    },
                                    "required": ["source", "line"]
                                }
                            }
                        },
                        "required": ["target", "referrer_count", "referrers"]
                    }
                }
            },
            "required": ["total_targets", "targets"]
        }),
    )
}

fn find_orphans() -> ToolSpec {
    read_only(
        "find_orphans",
        "Find notes nothing links to",
        "Lists the notes that no other note links to, from its body or its properties (a note's links to itself do \
not count), optionally within a folder; notes in excluded folders are never listed. Paged: a page ends at `limit` \
notes (default 100, and then near 16 KB); pass `next_cursor` as `cursor` for the next. Use it to find forgotten pages; \
use get_backlinks to check one note. It reads only. It fails with `invalid_arguments` for a cursor no earlier answer \
gave.",
        object(json!({"folder": folder(), "limit": limit(), "cursor": cursor(), "response_format": response_format()}), &[]),
        json!({
            "type": "object",
            "properties": {
                "total": {"type": "integer", "minimum": 0},
                "orphans": {"type": "array", "items": {"type": "string"}},
                "next_cursor": next_cursor()
            },
            "required": ["total", "orphans"]
        }),
    )
}

fn resolve_link() -> ToolSpec {
    read_only(
        "resolve_link",
        "Resolve one link as Obsidian would",
        "Tells which file a link would point to if it were written in the note `from`, the way Obsidian resolves \
it: `resolved` with the path, `ambiguous` with every candidate and the one chosen, or `unresolved`; for a heading \
or block reference, whether it exists. The link may be written `[[Note#Heading]]`, `[text](../Note.md)` or as a bare \
target `Note#Heading`. Use it before writing a link, to be sure it lands; use get_outgoing_links for the links a \
note already has. It reads only. It fails with `note_not_found` when `from` is not a note, and with \
`invalid_arguments` when `link` is not a link.",
        object(
            json!({
                "from": note_path("The note the link would be written in"),
                "link": {"type": "string", "description": "The link: `[[Note#Heading]]`, `[text](Note.md)`, or a bare target such as `Note#Heading`."},
                "response_format": {"type": "string", "enum": ["concise", "detailed"], "default": "detailed",
                                    "description": "`concise` leaves out an ambiguous link's candidates; `detailed` (the default) lists them."}
            }),
            &["from", "link"],
        ),
        json!({
            "type": "object",
            "properties": {
                "from": {"type": "string"},
                "target": {"type": "string"},
                "status": status(),
                "resolved_path": {"type": "string"},
                "candidates": {"type": "array", "items": {"type": "string"}},
                "subpath_status": subpath_status()
            },
            "required": ["from", "target", "status"]
        }),
    )
}

fn list_notes() -> ToolSpec {
    read_only(
        "list_notes",
        "List the vault's notes",
        "Lists the vault's Markdown notes by path, optionally within a folder; with `detailed`, each note's \
aliases and how many links it makes and receives. Paged: a page ends at `limit` notes (default 100, and then near \
16 KB); pass `next_cursor` as `cursor` for the next; `total` counts all pages. Use it to find a note's exact path; \
use read_note to read one, find_existing_page to look for a page by topic. It reads only. It fails with \
`invalid_arguments` for a cursor no earlier answer gave.",
        object(json!({"folder": folder(), "limit": limit(), "cursor": cursor(), "response_format": response_format()}), &[]),
        json!({
            "type": "object",
            "properties": {
                "total": {"type": "integer", "minimum": 0},
                "next_cursor": next_cursor(),
                "notes": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "path": {"type": "string"},
                            "aliases": {"type": "array", "items": {"type": "string"}},
                            "links_out": {"type": "integer", "minimum": 0},
                            "links_in": {"type": "integer", "minimum": 0}
                        },
                        "required": ["path"]
                    }
                }
            },
            "required": ["total", "notes"]
        }),
    )
}

fn read_note() -> ToolSpec {
    read_only(
        "read_note",
        "Read a note",
        "Returns one note's text, split into its YAML frontmatter and its body; with `detailed`, also its \
aliases, tags and headings. A long body comes in pages of at most `max_bytes` (default 16,000) that end between \
lines where they can: `body_bytes` is the whole body's length, and `next_cursor`, when present, is passed as \
`cursor` to read on (frontmatter, aliases, tags and headings come with the first page only). Inside Obsidian it \
reads what Obsidian has; otherwise the file on disk. Use it to read before editing; use get_outgoing_links for its \
links, resolved, and find_existing_page to find a note by topic. It reads only. It fails with `note_not_found` when \
no note has the path, `invalid_path` for a path that leaves the vault, `too_large` for a file over 16 MiB, and \
`invalid_arguments` for a cursor that is not a place in the body (the note changed: start again).",
        object(
            json!({
                "path": note_path("The note's path"),
                "max_bytes": {"type": "integer", "minimum": 1000, "maximum": 1000000, "default": 16000,
                              "description": "The most bytes of the body in one page (1,000 to 1,000,000)."},
                "cursor": {"type": "string", "description": "Where to go on reading: the `next_cursor` of the previous page. Leave it out to start at the beginning."},
                "response_format": response_format()
            }),
            &["path"],
        ),
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "frontmatter": {"type": "string", "description": "The YAML between the `---` lines, when the note has frontmatter (first page only)."},
                "body": {"type": "string", "description": "The body, or the page of it that starts at `cursor`."},
                "body_bytes": {"type": "integer", "minimum": 0, "description": "The whole body's length in UTF-8 bytes."},
                "next_cursor": next_cursor(),
                "aliases": {"type": "array", "items": {"type": "string"}},
                "tags": {"type": "array", "items": {"type": "string"}},
                "headings": {"type": "array", "items": {"type": "string"}}
            },
            "required": ["path", "body", "body_bytes"]
        }),
    )
}

fn move_note() -> ToolSpec {
    let change = json!({
        "type": "object",
        "properties": {
            "note": {"type": "string", "description": "The note holding the link, at its path before the move."},
            "line": {"type": "integer", "minimum": 1},
            "before": {"type": "string"},
            "after": {"type": "string"},
            "reason": {"type": "string", "enum": ["target_moved", "source_moved", "second_order", "repointed"]}
        },
        "required": ["note", "line", "before", "after", "reason"]
    });
    ToolSpec {
        name: "move_note",
        title: "Move or rename a note, attachment or folder, keeping every link",
        description: "Moves or renames a note, an attachment or a folder and rewrites every link that must change so \
that each link in the vault still points where it pointed: links to the moved files (in bodies and in properties), \
the moved notes' own relative markdown links, and links a name collision would otherwise redirect. Only the target of \
a link is rewritten; aliases, headings, block ids, embeds, table escapes and property quoting stay as written. The \
plan is proven before anything is written, and applied all or nothing. By default it is a dry run: nothing changes and \
the answer lists every change with a `plan_hash`; call again with `approved_plan_hash` set to that hash (or with \
`dry_run: false`) to apply it, and it applies only if the plan is still the same; `approved_plan_hash` cannot be \
combined with `dry_run: true`. Use it instead of moving files yourself, which would break links; use rewrite_link to \
repoint links without moving a file. Refusals: `invalid_arguments` (`approved_plan_hash` with `dry_run: true`), `invalid_name` (a name with [ ] # ^ | : %% or control characters, or \
ending with a space or a dot), `destination_exists`, `invalid_path` (a folder into itself, or a path leaving the \
vault), `unrepresentable_link` (some link could not be written to keep its target; nothing changes), \
`plan_hash_mismatch` (the vault changed since the preview: preview again), `concurrent_modification` (a note was \
edited while applying: nothing changed), `note_not_found`.",
        input_schema: object(
            json!({
                "from": note_path("The file or folder to move"),
                "to": {"type": "string", "description": "The new path relative to the vault root, such as `Archive/Old idea.md` or, for a folder, `Archive/2025`. A note keeps its `.md` if it is left out."},
                "dry_run": {"type": "boolean", "default": true, "description": "True (the default, unless `approved_plan_hash` is given) previews the plan and changes nothing."},
                "approved_plan_hash": {"type": "string", "description": "The `plan_hash` of a preview: apply the move only if the plan is still exactly that one. Not with `dry_run: true`."},
                "limit": limit(),
                "cursor": cursor(),
                "response_format": response_format()
            }),
            &["from", "to"],
        ),
        output_schema: json!({
            "type": "object",
            "properties": {
                "dry_run": {"type": "boolean"},
                "applied": {"type": "boolean"},
                "plan_hash": {"type": "string"},
                "moves": {"type": "array", "items": {"type": "object", "properties": {"from": {"type": "string"}, "to": {"type": "string"}}, "required": ["from", "to"]}},
                "files_moved": {"type": "integer", "minimum": 0},
                "notes_edited": {"type": "integer", "minimum": 0},
                "links_changed": {"type": "integer", "minimum": 0},
                "changes": {"type": "array", "items": change},
                "newly_resolved": {
                    "type": "array",
                    "description": "Links that were unresolved and will find the moved file under its new name.",
                    "items": {"type": "object", "properties": {"note": {"type": "string"}, "line": {"type": "integer"}, "link": {"type": "string"}, "resolves_to": {"type": "string"}}, "required": ["note", "line", "link", "resolves_to"]}
                },
                "next_cursor": next_cursor()
            },
            "required": ["dry_run", "applied", "plan_hash", "moves", "files_moved", "notes_edited", "links_changed", "newly_resolved"]
        }),
        read_only: false,
        // It rewrites other notes: in MCP, `false` would promise only additions.
        destructive: true,
        idempotent: false,
        rules: Vec::new(),
    }
}

fn rewrite_link() -> ToolSpec {
    let mut spec = move_note();
    spec.name = "rewrite_link";
    spec.title = "Repoint every link with one target to another";
    spec.description = "Rewrites every link in the vault whose target is `from_target` (as written, ignoring case and \
a `.md`; in bodies and in properties, resolved or not) so that it points to `to_target` instead. Only the target's path \
changes: headings, block ids, aliases, embeds, table escapes and property quoting stay. Every rewritten note is parsed \
again before anything is written, and the plan is applied all or nothing. By default it is a dry run that lists every \
change with a `plan_hash`; call again with `approved_plan_hash` (or `dry_run: false`) to apply it; \
`approved_plan_hash` cannot be combined with `dry_run: true`. Use it to point links at a different note, or to fix a \
misspelt target; use move_note to move a file, which also fixes its links. Refusals: `invalid_arguments` \
(`approved_plan_hash` with `dry_run: true`), `unrepresentable_link` (`to_target` holds `|`, `#`, `^`, brackets, a line break or what a property cannot \
quote; nothing changes), `plan_hash_mismatch`, `concurrent_modification`.";
    spec.input_schema = object(
        json!({
            "from_target": {"type": "string", "description": "The target the links have now, such as `Old idea` (a `.md` may be left out)."},
            "to_target": {"type": "string", "description": "The target they should have, written as it should appear in the links, such as `Ideas/New idea`."},
            "dry_run": {"type": "boolean", "default": true, "description": "True (the default, unless `approved_plan_hash` is given) previews the plan and changes nothing."},
            "approved_plan_hash": {"type": "string", "description": "The `plan_hash` of a preview: apply only if the plan is still exactly that one. Not with `dry_run: true`."},
            "limit": limit(),
            "cursor": cursor(),
            "response_format": response_format()
        }),
        &["from_target", "to_target"],
    );
    spec
}

/// The lint kinds, as `lint_wiki` takes them.
fn lint_kinds() -> Vec<&'static str> {
    vaultlink_core::lint::RULES.iter().map(|rule| rule.kind).collect()
}

fn lint_wiki() -> ToolSpec {
    let proposal = json!({
        "type": "object",
        "properties": {
            "kind": {"type": "string", "description": "The lint kind, or `schema_file` for a problem of SCHEMA.md itself."},
            "subject": {"type": "string", "description": "The note the finding is about; for `unresolved_link` and `ambiguous_link`, the target as written."},
            "line": {"type": "integer", "minimum": 1, "description": "The line in `subject`, when the finding is at one place."},
            "related": {"type": "array", "items": {"type": "string"}, "description": "Other notes involved: referrers, candidates, notes sharing a name, the governing SCHEMA.md."},
            "detail": {"type": "string", "description": "Why, with the evidence in words (left out with `concise`)."},
            "suggested_action": {"type": "string"},
            "tool": {"type": "string", "enum": ["move_note", "rewrite_link"], "description": "The vaultlink tool whose call fixes it, where one does."},
            "tool_args": {"type": "object", "description": "The arguments for `tool` (left out with `concise`). Those tools preview by default."},
            "evidence": {"type": "object", "description": "Structured evidence: referrers with lines, the file chosen per link, names shared (left out with `concise`)."}
        },
        "required": ["kind", "subject", "suggested_action"]
    });
    read_only(
        "lint_wiki",
        "Lint the wiki: broken, ambiguous and orphaned links, duplicates, schema",
        "Checks the whole vault, or one folder, and returns proposals `{kind, subject, related, detail, \
suggested_action, tool, tool_args, evidence}`, each found by the real parser and resolver, saying why, and naming the \
vaultlink call that fixes it where one exists (`rewrite_link` for a link whose target another note goes by, \
`move_note` for a page outside its type's folder). Kinds: `unresolved_link` (grouped per missing target with every \
referrer), `ambiguous_link` (which file was chosen and why), `broken_heading`, `broken_block_ref`, \
`unquoted_property_link`, `malformed_frontmatter`, `orphan`, `duplicate_identity` (notes sharing a file name, \
title, H1 or alias), `near_duplicate` (pairs of notes whose bodies share most of their wording, with the estimated \
similarity in `evidence`: a lead for review, never a verdict), `schema` (breaches of the SCHEMA.md governing the \
folder; a SCHEMA.md problem is a `schema_file` finding). A check that cannot run is listed under `skipped` with the \
reason instead of failing the call. Notes in excluded folders are link targets but never subjects. Paged: a page \
ends at `limit` proposals (default 100, and then near 16 KB); pass `next_cursor` as `cursor` for the next; `total` \
and `counts` cover all pages. It reports progress. Use it for a periodic review of a wiki; use \
find_existing_page before writing one new page. It reads only; it changes nothing. It fails with \
`invalid_arguments` for an unknown kind or a cursor no earlier answer gave.",
        object(
            json!({
                "folder": folder(),
                "excluded_folders": {"type": "array", "items": {"type": "string"}, "description": "Folders whose notes are never subjects (they still count as link targets), besides those Obsidian's settings exclude."},
                "kinds": {"type": "array", "items": {"type": "string", "enum": lint_kinds()}, "description": "The kinds to run; all when left out."},
                "limit": limit(),
                "cursor": cursor(),
                "response_format": json!({"type": "string", "enum": ["concise", "detailed"], "default": "detailed",
                    "description": "`concise` leaves out `detail`, `tool_args` and `evidence`, to save tokens; `detailed` (the default) gives everything."})
            }),
            &[],
        ),
        json!({
            "type": "object",
            "properties": {
                "total": {"type": "integer", "minimum": 0},
                "counts": {"type": "object", "description": "Proposals per kind, across pages.", "additionalProperties": {"type": "integer"}},
                "proposals": {"type": "array", "items": proposal},
                "skipped": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"kind": {"type": "string"}, "reason": {"type": "string"}}, "required": ["kind", "reason"]}
                },
                "truncated": {"type": "boolean", "description": "Present and true when more than 100,000 proposals were found; the rest are dropped."},
                "next_cursor": next_cursor()
            },
            "required": ["total", "counts", "proposals", "skipped"]
        }),
    )
}

fn find_existing_page() -> ToolSpec {
    let evidence = json!({
        "type": "object",
        "properties": {
            "kind": {"type": "string", "enum": ["path", "file_name", "alias", "title_property", "h1", "wikidata", "word_overlap"]},
            "value": {"type": "string", "description": "The name, QID or title that matched, as written in the note."},
            "score_percent": {"type": "integer", "minimum": 0, "maximum": 100, "description": "For `word_overlap`: the share of the topic's words found."}
        },
        "required": ["kind", "value"]
    });
    read_only(
        "find_existing_page",
        "Find whether a page on a topic already exists",
        "Tells whether the vault already has a page on `topic`, before a new one is written: verdict `exists`, \
`ambiguous` or `new`, with the candidate notes and their evidence. Identity evidence: the path or file name, an \
`aliases` entry, the `title` property, the first H1, or a `wikidata` property holding the same QID (give `Q42` or a \
Wikidata address as the topic); exactly one note known by the topic gives `exists`, several give `ambiguous`. Soft \
evidence: links already written to the topic that find no note, and names sharing at least half the topic's words; \
soft evidence alone gives `ambiguous`, never `exists`. Nothing gives `new`. Matching ignores case, spacing and Unicode \
normalisation. Use it before creating a page, to extend the existing one instead; use lint_wiki to review the whole \
wiki. It reads only. It fails with `invalid_arguments` for an empty topic.",
        object(
            json!({
                "topic": {"type": "string", "description": "What the page would be about: a name such as `Zettelkasten`, a path such as `Concepts/Zettelkasten`, or a Wikidata QID such as `Q1194880`."},
                "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 10, "description": "How many candidates to return at most."},
                "response_format": json!({"type": "string", "enum": ["concise", "detailed"], "default": "detailed",
                    "description": "`concise` leaves out each candidate's evidence; `detailed` (the default) gives it."})
            }),
            &["topic"],
        ),
        json!({
            "type": "object",
            "properties": {
                "topic": {"type": "string"},
                "verdict": {"type": "string", "enum": ["exists", "ambiguous", "new"]},
                "reason": {"type": "string"},
                "candidates": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "path": {"type": "string"},
                            "strength": {"type": "string", "enum": ["identity", "soft"]},
                            "evidence": {"type": "array", "items": evidence}
                        },
                        "required": ["path", "strength"]
                    }
                },
                "unresolved_links": {
                    "type": "object",
                    "description": "Links already written to the topic that find no note.",
                    "properties": {"links": {"type": "integer", "minimum": 1}, "sources": {"type": "array", "items": {"type": "string"}}},
                    "required": ["links", "sources"]
                }
            },
            "required": ["topic", "verdict", "reason", "candidates"]
        }),
    )
}

fn find_evidence() -> ToolSpec {
    read_only(
        "find_evidence",
        "Find the notes that mention a concept, with excerpts",
        "Lists the notes that mention a concept, ranked deterministically: notes known by the `title` (file name, alias, \
`title` property, first H1) first, then notes whose properties link to it or name it, then notes whose body prose \
says it or links to it; within each, notes whose own names share more of the title's words first, then by path. \
Each match has `mentions` and a prose excerpt of at most 200 characters (headings, tables and code are skipped) \
with its line. Paged: a page ends at `limit` matches (default 50, and then near 16 KB); pass `next_cursor` as \
`cursor` for the next; `total` counts every match and `limited` says whether more remain. With no match, \
`growth_hint` names notes with near names (shared words or a near spelling). Matching ignores case, spacing and \
Unicode normalisation and respects word boundaries (`rust` does not match `trust`). Use it to gather what the vault \
already says before writing or extending a page on a concept; use find_existing_page to decide whether the page \
itself exists, and get_backlinks for the links to one known note. It reads only; it reads every note's text, so it \
is slower than the other read tools on a large vault (it reports progress). Notes in excluded folders are not searched; a note that \
could not be read is listed under `unread`. It fails with `invalid_arguments` for an empty title, a title over 200 \
characters, a `limit` outside 1 to 1000, or a cursor no earlier answer gave.",
        object(
            json!({
                "title": {"type": "string", "description": "The concept's name, as a page about it would be titled, such as `Spaced repetition`. `[[…]]` around it is ignored."},
                "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 50, "description": "How many matches to return at most. Left out, a page holds up to 50 and ends early to stay under about 16 KB; given, it is obeyed exactly."},
                "cursor": cursor(),
                "nodes_only": {"type": "boolean", "default": false, "description": "When true, only the matching notes with their strength and mentions, without excerpts or lines: for building a list of related notes cheaply."},
                "response_format": json!({"type": "string", "enum": ["concise", "detailed"], "default": "detailed",
                    "description": "`concise` leaves out `word_overlap_percent`; `detailed` (the default) gives it."})
            }),
            &["title"],
        ),
        json!({
            "type": "object",
            "properties": {
                "title": {"type": "string", "description": "The title searched for, as understood."},
                "total": {"type": "integer", "minimum": 0},
                "limited": {"type": "boolean", "description": "True when more matches follow on later pages."},
                "next_cursor": next_cursor(),
                "matches": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "path": {"type": "string"},
                            "match": {"type": "string", "enum": ["title", "frontmatter", "body"]},
                            "mentions": {"type": "integer", "minimum": 0},
                            "word_overlap_percent": {"type": "integer", "minimum": 0, "maximum": 100},
                            "line": {"type": "integer", "minimum": 1},
                            "excerpt": {"type": "string", "maxLength": 200}
                        },
                        "required": ["path", "match", "mentions"]
                    }
                },
                "growth_hint": {
                    "type": "object",
                    "properties": {"message": {"type": "string"}, "near_titles": {"type": "array", "items": {"type": "string"}}},
                    "required": ["message", "near_titles"]
                },
                "unread": {"type": "array", "items": {"type": "string"}, "description": "Notes whose text could not be read (at most 10 listed)."}
            },
            "required": ["title", "total", "limited", "matches"]
        }),
    )
}

fn delete_note() -> ToolSpec {
    let referrer = json!({
        "type": "object",
        "properties": {
            "note": {"type": "string"},
            "line": {"type": "integer", "minimum": 1},
            "link": {"type": "string", "description": "The link as written."},
            "kind": kind(),
            "source": {"type": "string", "enum": ["body", "property"]},
            "key": {"type": "string", "description": "The property holding the link, for a property link."}
        },
        "required": ["note", "line", "link", "kind", "source"]
    });
    ToolSpec {
        name: "delete_note",
        title: "Delete a note safely, showing what links to it",
        description: "Deletes one note by moving it to the trash (Obsidian's trash inside Obsidian; the vault's `.trash` \
folder otherwise), after showing every link that points to it (from bodies and properties). Without `confirm: true` \
it is a dry run: nothing changes, and the answer lists the backlinks and a `plan_hash`. With `confirm: true` it refuses \
while backlinks exist unless `force: true` (which needs `confirm: true`; they then dangle, and the answer lists them); it never edits another note \
(use rewrite_link or move_note first to repoint them). `expected_hash` or `expected_mtime` (milliseconds) refuse the \
delete if the note changed since the caller read it; `approved_plan_hash` refuses it if anything in the preview \
changed. Every answer says where things stand: `ok`, `dry_run`, `would_change`, `can_confirm` (true only when \
repeating with `confirm: true` would delete without another opt-in), `blocked_reasons` (`has_backlinks`, \
`concurrent_modification`, `plan_hash_mismatch`), `backlinks`, `forced`; after a delete, `captured` (the note's text, \
byte for byte, to recreate it) and `trashed_to`. Use it only to remove a page; use move_note to archive or rename \
one, and get_backlinks to only look at what links to it. Refusals: folders and attachments (`invalid_path`), a \
missing note (`note_not_found`), `force` without `confirm: true` (`invalid_arguments`).",
        input_schema: object(
            json!({
                "path": note_path("The note to delete"),
                "confirm": {"type": "boolean", "default": false, "description": "True deletes; false (the default) previews."},
                "force": {"type": "boolean", "default": false, "description": "Delete even though links point to the note; they will dangle. Needs `confirm: true`."},
                "expected_hash": {"type": "string", "description": "SHA-256 (hex) of the text the caller read; refuse if the note changed."},
                "expected_mtime": {"type": "integer", "minimum": 0, "description": "The note's modification time as the caller read it, in milliseconds since 1970; refuse if it changed."},
                "approved_plan_hash": {"type": "string", "description": "The `plan_hash` of a preview: delete only if nothing in it changed."},
                "response_format": {"type": "string", "enum": ["concise", "detailed"], "default": "detailed",
                                    "description": "`concise` leaves out the captured note's split into frontmatter and body (its whole text stays)."}
            }),
            &["path"],
        ),
        output_schema: json!({
            "type": "object",
            "properties": {
                "ok": {"type": "boolean"},
                "path": {"type": "string"},
                "dry_run": {"type": "boolean"},
                "would_change": {"type": "boolean"},
                "can_confirm": {"type": "boolean"},
                "preview_ready": {"type": "boolean"},
                "blocked_reasons": {"type": "array", "items": {"type": "string", "enum": ["has_backlinks", "concurrent_modification", "plan_hash_mismatch"]}},
                "backlinks": {"type": "array", "items": referrer},
                "forced": {"type": "boolean"},
                "plan_hash": {"type": "string"},
                "captured": {"type": "object", "properties": {"frontmatter": {"type": "string"}, "body": {"type": "string"}, "text": {"type": "string"}}, "required": ["body", "text"]},
                "trashed_to": {"type": "string"}
            },
            "required": ["ok", "path", "dry_run", "would_change", "can_confirm", "preview_ready", "blocked_reasons", "backlinks", "forced", "plan_hash"]
        }),
        read_only: false,
        destructive: true,
        idempotent: false,
        rules: Vec::new(),
    }
}

fn server_health() -> ToolSpec {
    read_only(
        "server_health",
        "Check where calls run and what the index holds",
        "Reports on this server: `mode` (`plugin` when calls run inside Obsidian through the vaultlink plugin, \
`standalone` when the sidecar works on the vault folder itself, `unavailable` when `--mode plugin` was asked and \
no plugin answers), the vault's path, the sidecar's and the plugin's versions, the index's counts (notes, \
attachments, links resolved, unresolved and ambiguous), and the last bridge error with its time. Use it first when \
answers look stale or calls fail with `plugin_unavailable`, or to learn whether writes go through Obsidian (`writes`: \
where a write would go now and the evidence for it); use \
list_notes or lint_wiki for the vault's content. It reads only; in standalone mode the first call indexes the \
folder (with progress). It fails with `vault_unreadable` when the vault folder cannot be read.",
        object(
            json!({"response_format": {"type": "string", "enum": ["concise", "detailed"], "default": "detailed",
                                       "description": "`concise` leaves out the index's counts and the plugin's details; `detailed` (the default) gives them."}}),
            &[],
        ),
        json!({
            "type": "object",
            "properties": {
                "mode": {"type": "string", "enum": ["plugin", "standalone", "unavailable"]},
                "requested_mode": {"type": "string", "enum": ["auto", "plugin", "standalone"], "description": "The `--mode` the sidecar was started with."},
                "vault": {"type": "string", "description": "The vault folder's absolute path."},
                "sidecar_version": {"type": "string"},
                "plugin": {
                    "type": "object",
                    "properties": {
                        "connected": {"type": "boolean"},
                        "server": {"type": "string", "description": "What the plugin calls itself, such as `vaultlink-plugin 0.1.0`."},
                        "version": {"type": "string"},
                        "state": {"type": "string", "enum": ["starting", "ready"], "description": "`starting` while the plugin builds its first index, when it has announced itself."},
                        "reason": {"type": "string", "description": "Why no plugin answers, when none does."}
                    },
                    "required": ["connected"]
                },
                "writes": {
                    "type": "object",
                    "description": "Where a write (move_note, rewrite_link, delete_note) would go now: `plugin` (inside Obsidian), `folder` (the sidecar writes the files itself: no Obsidian has the vault open), or `refused` (Obsidian may have the vault open and its plugin does not answer).",
                    "properties": {
                        "go_to": {"type": "string", "enum": ["plugin", "folder", "refused"]},
                        "evidence": {"type": "array", "items": {"type": "string"}, "description": "What the decision rests on, one finding an item (the discovery file, Obsidian's obsidian.json and single-instance lock); left out when concise."}
                    },
                    "required": ["go_to"]
                },
                "index": {
                    "type": "object",
                    "properties": {
                        "notes": {"type": "integer", "minimum": 0},
                        "attachments": {"type": "integer", "minimum": 0},
                        "links": {"type": "integer", "minimum": 0},
                        "resolved_links": {"type": "integer", "minimum": 0},
                        "unresolved_links": {"type": "integer", "minimum": 0},
                        "ambiguous_links": {"type": "integer", "minimum": 0}
                    },
                    "required": ["notes", "attachments", "links", "resolved_links", "unresolved_links", "ambiguous_links"]
                },
                "last_bridge_error": {
                    "type": "object",
                    "properties": {"message": {"type": "string"}, "at_unix_ms": {"type": "integer", "minimum": 0}},
                    "required": ["message", "at_unix_ms"]
                }
            },
            "required": ["mode", "requested_mode", "vault", "sidecar_version", "plugin", "writes"]
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use vaultlink_core::error::ErrorCode;

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
    fn descriptions_say_what_when_effects_and_refusals() {
        let names: Vec<&str> = catalogue().iter().map(|tool| tool.name).collect();
        let codes: Vec<&str> = ErrorCode::ALL.iter().map(|code| code.as_str()).collect();
        for tool in catalogue() {
            let (name, description) = (tool.name, tool.description);
            assert!(!tool.title.is_empty(), "{name} has a title");
            // It opens with what it does: a verb, such as "Lists" or "Moves".
            let opening = description.split_whitespace().next().unwrap_or_default();
            assert!(opening.ends_with('s') && opening.chars().next().is_some_and(char::is_uppercase), "{name} opens with {opening:?}");
            // When to use it, and which sibling to use instead.
            assert!(description.contains("Use it"), "{name} says when to use it");
            assert!(
                names.iter().any(|other| *other != name && description.contains(&format!("use {other}"))),
                "{name} names a sibling to use instead"
            );
            // Its side effects.
            if tool.read_only {
                assert!(description.contains("It reads only"), "{name} says it reads only");
            } else {
                assert!(description.contains("dry run"), "{name} says it previews by default");
            }
            // Its refusals, by their stable codes.
            let named: Vec<&str> = codes.iter().copied().filter(|code| description.contains(&format!("`{code}`"))).collect();
            assert!(!named.is_empty(), "{name} names the codes of its refusals");
            for rule in &tool.rules {
                let (Rule::Needs { parameter, other, .. } | Rule::Excludes { parameter, other, .. }) = *rule;
                assert!(
                    description.contains(&format!("`{parameter}`")) && description.contains(&format!("`{other}")),
                    "{name}: the rule on {parameter}"
                );
                let parameter_text = tool.input_schema["properties"][parameter]["description"].as_str().unwrap_or_default();
                assert!(parameter_text.contains(&format!("`{other}")), "{name}.{parameter} states its rule");
            }
            assert_eq!(tool.output_schema["type"], "object", "{name}");
        }
    }

    #[test]
    fn every_tool_that_answers_more_than_an_acknowledgement_takes_a_response_format() {
        for tool in catalogue() {
            let format = &tool.input_schema["properties"]["response_format"];
            assert_eq!(format["enum"], json!(["concise", "detailed"]), "{}", tool.name);
            assert!(format["description"].as_str().is_some_and(|text| text.contains("`concise` leaves out")), "{}", tool.name);
        }
    }

    #[test]
    fn the_readme_documents_every_error_code() {
        let readme = include_str!("../../../README.md");
        for code in ErrorCode::ALL {
            assert!(readme.contains(&format!("| `{code}` |")), "README.md's table of error codes lacks `{code}`");
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

    /// The advertised input schemas say what core's parameters are (`parameters`), which hold
    /// every call on either path: the same names, which are required, kinds, ranges and values.
    #[test]
    fn input_schemas_advertise_cores_parameters() {
        use vaultlink_core::parameters::{self, Kind};
        for tool in catalogue() {
            let core = parameters::of(tool.name).unwrap_or_else(|| panic!("core has no parameters for {}", tool.name));
            let properties = tool.input_schema["properties"].as_object().expect("properties");
            let names: Vec<&str> = core.list.iter().map(|parameter| parameter.name).collect();
            let mut advertised: Vec<&str> = properties.keys().map(String::as_str).collect();
            let mut sorted = names.clone();
            advertised.sort_unstable();
            sorted.sort_unstable();
            assert_eq!(advertised, sorted, "{}", tool.name);
            let required: Vec<&str> = core.list.iter().filter(|parameter| parameter.required).map(|parameter| parameter.name).collect();
            assert_eq!(tool.input_schema["required"], json!(required), "{}", tool.name);
            for parameter in core.list {
                let schema = &properties[parameter.name];
                let expected = match parameter.kind {
                    Kind::Text => json!({"type": "string", "maxLength": MAX_STRING_CHARS}),
                    Kind::Choice(allowed) => json!({"type": "string", "enum": allowed, "maxLength": MAX_STRING_CHARS}),
                    Kind::Whole { minimum, maximum: Some(maximum) } => json!({"type": "integer", "minimum": minimum, "maximum": maximum}),
                    Kind::Whole { minimum, maximum: None } => json!({"type": "integer", "minimum": minimum}),
                    Kind::Flag => json!({"type": "boolean"}),
                    Kind::Texts => json!({"type": "array"}),
                };
                for (key, value) in expected.as_object().expect("an object") {
                    assert_eq!(&schema[key], value, "{}.{}: {key}", tool.name, parameter.name);
                }
                if matches!(parameter.kind, Kind::Whole { maximum: None, .. }) {
                    assert!(schema.get("maximum").is_none(), "{}.{}", tool.name, parameter.name);
                }
            }
        }
    }
}
