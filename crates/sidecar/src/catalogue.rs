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
    /// What the tool does, with core's numbers filled in (`catalogue_numbers`).
    pub description: String,
    pub input_schema: Value,
    pub output_schema: Value,
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
}

use vaultlink_core::parameters::MAX_STRING_CHARS;

/// Every tool, built once: a call looks its tool up here, and the list never changes while the
/// program runs.
static CATALOGUE: std::sync::LazyLock<Vec<ToolSpec>> = std::sync::LazyLock::new(build);

pub fn catalogue() -> &'static [ToolSpec] {
    &CATALOGUE
}

fn build() -> Vec<ToolSpec> {
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
        update_properties(),
        bulk_move_notes(),
        draft_wiki_page(),
        commit_wiki_page(),
        undo_change(),
        list_changes(),
        server_health(),
        find_link_paths(),
        link_graph(),
        detected_moves(),
        heal_moves(),
        fix_broken_links(),
        link_mentions(),
    ];
    for tool in &mut tools {
        tool.description = crate::catalogue_numbers::fill(&tool.description);
        crate::catalogue_numbers::fill_schema(&mut tool.input_schema);
        crate::catalogue_numbers::fill_schema(&mut tool.output_schema);
        let format = format!("`concise` leaves out {}.", concise_leaves_out(tool.name));
        if let Some(schema) = tool.input_schema.pointer_mut("/properties/response_format") {
            schema["description"] = json!(format);
        }
        // The output schema types the answer; what its fields mean is said once, in the
        // description, and which nested fields are always there is the server's to keep.
        strip_descriptions(&mut tool.output_schema);
        for nested in
            tool.output_schema.get_mut("properties").and_then(Value::as_object_mut).into_iter().flat_map(|fields| fields.values_mut())
        {
            strip_required(nested);
        }
        if let Some(properties) = tool.input_schema.get_mut("properties").and_then(Value::as_object_mut) {
            // A string of allowed values is bounded by them.
            for schema in properties
                .values_mut()
                .filter(|schema| schema["type"] == "string" && schema.get("maxLength").is_none() && schema.get("enum").is_none())
            {
                schema["maxLength"] = json!(MAX_STRING_CHARS);
            }
        }
    }
    tools
}

/// What `response_format: "concise"` leaves out of `tool`'s answer.
fn concise_leaves_out(tool: &str) -> &'static str {
    match tool {
        "get_outgoing_links" => "columns, spans, display texts, `original` and candidates",
        "get_backlinks" => "columns and display texts",
        "find_unresolved_links" => "each referrer's column and link kind",
        "find_orphans" => "nothing here: both forms are the same list",
        "resolve_link" => "the candidates of an ambiguous link",
        "list_notes" => "aliases and link counts",
        "read_note" => "aliases, tags and headings",
        "move_note" => "`changes` once applied",
        "rewrite_link" => "`changes` once applied",
        "lint_wiki" => "each proposal's `detail`, `tool_args` and `evidence`",
        "find_existing_page" => "the candidates' evidence",
        "find_evidence" => "`word_overlap_percent` (`nodes_only` leaves out excerpts and lines)",
        "delete_note" => "the captured text's split into frontmatter and body (the whole text stays)",
        "update_properties" => "the YAML before and after",
        "bulk_move_notes" => "`changes` once applied",
        "commit_wiki_page" => "nothing: `detailed` adds the page's whole text to a preview",
        "undo_change" => "nothing: both forms are the same receipt",
        "list_changes" => "each change's `arguments` and `touched.paths`",
        "draft_wiki_page" => "nothing: both forms are the same draft",
        "server_health" => "the index's counts, the plugin's details and the evidence for where writes go",
        "find_link_paths" => "each path's links",
        "link_graph" => "islands' notes and cycles' links",
        "detected_moves" => "each move's `notes` and `links_broken` (their totals stay)",
        "heal_moves" => "`changes` once applied",
        "fix_broken_links" => "`repairs` once applied",
        "link_mentions" => "`mentions` once applied",
        _ => "detail",
    }
}

fn strip_required(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            if map.get("required").is_some_and(Value::is_array) {
                map.remove("required");
            }
            map.values_mut().for_each(strip_required);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_required),
        _ => {}
    }
}

fn strip_descriptions(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            // A field's description is a string; a field called `description` is a schema.
            if map.get("description").is_some_and(Value::is_string) {
                map.remove("description");
            }
            // Bounds on what the server answers are the server's to keep, not the agent's to read.
            for bound in ["minimum", "maximum"] {
                if map.get(bound).is_some_and(Value::is_number) {
                    map.remove(bound);
                }
            }
            map.values_mut().for_each(strip_descriptions);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_descriptions),
        _ => {}
    }
}

/// The spec of the tool called `name`.
pub fn find(name: &str) -> Option<&'static ToolSpec> {
    catalogue().iter().find(|tool| tool.name == name)
}

fn read_only(name: &'static str, title: &'static str, description: &'static str, input: Value, output: Value) -> ToolSpec {
    ToolSpec {
        name,
        title,
        description: description.to_owned(),
        input_schema: input,
        output_schema: output,
        read_only: true,
        destructive: false,
        idempotent: true,
    }
}

/// A tool that may change the vault. It rewrites or removes what is there: in MCP, a writer
/// that is not `destructive` promises only additions.
fn writes(name: &'static str, title: &'static str, description: &'static str, input: Value, output: Value) -> ToolSpec {
    ToolSpec { read_only: false, destructive: true, idempotent: false, ..read_only(name, title, description, input, output) }
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
}

fn note_path(what: &str) -> Value {
    json!({"type": "string", "description": format!("{what}, from the vault root, such as `Projects/Alpha.md` (`.md` optional).")})
}

fn response_format() -> Value {
    // Its description is the tool's own: `concise_leaves_out` says what `concise` drops.
    json!({"type": "string", "enum": ["concise", "detailed"], "default": "detailed"})
}

/// The input schema of a writing tool that plans with a `plan_hash`: its own `properties` and
/// `required`, then those every such tool shares (`dry_run`, `approved_plan_hash` as `dry_run`
/// pairs with it, and `response_format`), as core's `parameters` lists them.
fn writing(properties: Value, required: &[&str]) -> Value {
    let shared = json!({
        "dry_run": {"type": "boolean", "description": "Preview only; the default without `approved_plan_hash`."},
        "approved_plan_hash": {"type": "string", "description": "Apply a preview's `plan_hash`; no `dry_run`."},
        "response_format": response_format()
    });
    merged(object(properties, required), shared)
}

/// [`writing`] for a tool whose preview is paged: `limit` and `cursor` too.
fn writing_paged(properties: Value, required: &[&str]) -> Value {
    merged(writing(properties, required), json!({"limit": limit(), "cursor": cursor()}))
}

/// The answer of a writing tool that plans with a `plan_hash`: whether it was a dry run and
/// whether it was applied, the plan's hash and, once applied, the `change_id` undo_change takes;
/// then its own `properties` and `required` fields.
fn plan_answer(properties: Value, required: &[&str]) -> Value {
    let shared = json!({
        "dry_run": {"type": "boolean"},
        "applied": {"type": "boolean"},
        "plan_hash": {"type": "string"},
        "change_id": {"type": "string", "description": "Once applied: the id undo_change takes."}
    });
    let required: Vec<&str> = ["dry_run", "applied", "plan_hash"].into_iter().chain(required.iter().copied()).collect();
    merged(json!({"type": "object", "properties": properties, "required": required}), shared)
}

/// [`plan_answer`] for a tool whose preview is paged: the `next_cursor` too.
fn paged_plan_answer(properties: Value, required: &[&str]) -> Value {
    merged(plan_answer(properties, required), json!({"next_cursor": next_cursor()}))
}

fn limit() -> Value {
    json!({"type": "integer", "minimum": 1, "maximum": 1000, "default": 100,
           "description": "Page size (a default page ends near {DEFAULT_PAGE_KB} KB)."})
}

fn cursor() -> Value {
    json!({"type": "string", "description": "An answer's `next_cursor`."})
}

fn folder() -> Value {
    json!({"type": "string", "description": "Only notes in this folder, and below it."})
}

/// The `path` of a tool that works on a folder, a note or the whole vault.
fn scope() -> Value {
    json!({"type": "string", "description": "A folder or note; else the vault."})
}

fn next_cursor() -> Value {
    json!({"type": "string"})
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
        "Lists one note's (or canvas's) links in order (paged), each with its line, target, subpath and display text, and \
how Obsidian resolves it: `resolved`, `ambiguous` (with the candidates) or `unresolved`, and whether a heading or \
block it names exists. Use it to see where a note points; use get_backlinks for the links into a note. It reads only. It fails with `note_not_found`.",
        object(
            json!({"path": note_path("The note's path"), "limit": limit(), "cursor": cursor(), "response_format": response_format()}),
            &["path"],
        ),
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "The note's path as found in the vault."},
                "truncated": {"type": "boolean", "description": "True when the note had more links than are kept ({MAX_LINKS_PER_NOTE})."},
                "total": {"type": "integer"},
                "next_cursor": next_cursor(),
                "links": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "kind": kind(),
                            "source": {"type": "string", "enum": ["body", "property", "canvas_file", "canvas_text"]},
                            "key": {"type": "string", "description": "The property that holds the link, for a property link."},
                            "target": {"type": "string", "description": "The target as written."},
                            "link": {"type": "string"},
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
            "required": ["path", "links", "total", "truncated"]
        }),
    )
}

fn get_backlinks() -> ToolSpec {
    read_only(
        "get_backlinks",
        "Get the links that point to a note",
        "Lists every link that resolves to one note, from bodies and properties: the referring note, the line and how it is \
written. Use it before moving, renaming or deleting a note; use get_outgoing_links for the links a note makes. It \
reads only. It fails with `note_not_found`, or `invalid_arguments` for a stale cursor.",
        object(
            json!({"path": note_path("The note's path"), "limit": limit(), "cursor": cursor(), "response_format": response_format()}),
            &["path"],
        ),
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
                            "link_source": {"type": "string", "enum": ["body", "property", "canvas_file", "canvas_text"]},
                            "key": {"type": "string", "description": "The property that holds the link, for a property link."},
                            "target": {"type": "string", "description": "The target as written in the referring note."},
                            "link": {"type": "string"},
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
        "Lists the links that find no note, grouped by missing target, each with its referrers (the first {MAX_REFERRERS_PER_TARGET}; \
`referrer_count` counts all). Use it to find dead links and wanted pages; use resolve_link to check one \
link, lint_wiki for a review with fixes. It reads only. It fails with `invalid_arguments` for a stale cursor.",
        object(json!({"limit": limit(), "cursor": cursor(), "response_format": response_format()}), &[]),
        json!({
            "type": "object",
            "properties": {
                "total_targets": {"type": "integer", "minimum": 0},
                "next_cursor": next_cursor(),
                "truncated_files": {"type": "array", "items": {"type": "string"}, "description": "Files whose links past {MAX_LINKS_PER_NOTE} are unread."},
                "targets": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "target": {"type": "string", "description": "The missing target as first written."},
                            "referrer_count": {"type": "integer", "minimum": 1, "description": "How many links name it; `referrers` lists the first {MAX_REFERRERS_PER_TARGET}."},
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
        "Lists the notes no other note links to (self-links do not count), optionally in one folder. Use it to \
find forgotten pages; use get_backlinks to check one note. It reads only. It fails with `invalid_arguments` for a \
stale cursor.",
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
        "Tells which file a link written in `from` points to, as Obsidian resolves it: `resolved`, `ambiguous` \
(the candidates and the one chosen) or `unresolved`, and whether its heading or block exists. Use it before writing \
a link; use get_outgoing_links for the links a note has. It reads only. It fails with `note_not_found` (`from` is \
not a note) or `invalid_arguments` (`link` is not a link).",
        object(
            json!({
                "from": note_path("The note the link would be written in"),
                "link": {"type": "string", "description": "The link: `[[Note#Heading]]`, `[text](Note.md)`, or a bare target such as `Note#Heading`."},
                "response_format": response_format()
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
        "Lists the vault's notes by path, optionally in one folder; with `detailed`, their aliases and link counts. Use it \
to find a note's exact path; use find_existing_page to look for a page by topic. It reads \
only. It fails with `invalid_arguments` for a stale cursor.",
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
        "Returns one note's frontmatter and body (with `detailed`, also its aliases, tags and headings), a long body in \
pages of `max_bytes` that end between lines; `body_bytes` is the whole body's length. Use it to read a note; use get_outgoing_links for its links, resolved. It reads only. \
It fails with `note_not_found`, `invalid_path`, `too_large` (over {MAX_NOTE_MIB} MiB) or `invalid_arguments` (a stale cursor).",
        object(
            json!({
                "path": note_path("The note's path"),
                "max_bytes": {"type": "integer", "minimum": 1000, "maximum": 64000, "default": 16000,
                              "description": "The most bytes of the body in one page, as JSON escapes it."},
                "cursor": cursor(),
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
    writes(
        "move_note",
        "Move or rename a note, attachment or folder, keeping every link",
        "Moves or renames a note, an attachment or a folder and rewrites every link that must change so that each still \
points where it did, in the form it was written. By default it is a dry run: nothing changes and the answer \
previews the moves and rewritten links (paged) with a `plan_hash`; call again with `approved_plan_hash` (or \
`dry_run: false`) to apply exactly that plan, all or nothing. Use it instead of moving files yourself; use rewrite_link to repoint links, \
delete_note to delete. Refusals: `invalid_path` (into a hidden folder such as `.trash`, into itself, out \
of the vault), `invalid_name`, `destination_exists`, `unrepresentable_link`, `plan_hash_mismatch` (preview again), \
`concurrent_modification`, `note_not_found`, `read_only_source`, `convention_blocked` (a `block` convention).",
        writing_paged(
            json!({
                "from": note_path("The file or folder to move"),
                "to": {"type": "string", "description": "The new path, such as `Archive/Idea.md` or, for a folder, `Archive/2025`."}
            }),
            &["from", "to"],
        ),
        paged_plan_answer(
            json!({
                "moves": {"type": "array", "items": {"type": "object", "properties": {"from": {"type": "string"}, "to": {"type": "string"}}, "required": ["from", "to"]}},
                "files_moved": {"type": "integer", "minimum": 0},
                "notes_edited": {"type": "integer", "minimum": 0},
                "links_changed": {"type": "integer", "minimum": 0},
                "changes": {"type": "array", "items": change},
                "newly_resolved": {
                    "type": "array",
                    "description": "Links that were unresolved and will find the moved file under its new name (at most {MAX_LISTED}).",
                    "items": {"type": "object", "properties": {"note": {"type": "string"}, "line": {"type": "integer"}, "link": {"type": "string"}, "resolves_to": {"type": "string"}}, "required": ["note", "line", "link", "resolves_to"]}
                },
                "newly_resolved_count": {"type": "integer"}
            }),
            &["moves", "files_moved", "notes_edited", "links_changed", "newly_resolved"],
        ),
    )
}

fn rewrite_link() -> ToolSpec {
    let mut spec = move_note();
    spec.name = "rewrite_link";
    spec.title = "Repoint every link with one target to another";
    spec.description = "Rewrites every link whose target is `from_target` (as written, ignoring case and `.md`; a relative \
`../Old.md` too when it finds the note `from_target` names), in notes \
and canvases, to `to_target`; only the target's path changes. A dry run by default: the rewritten links \
(paged) and a `plan_hash`; call again with `approved_plan_hash` (or `dry_run: false`) to apply, all or nothing. Use it \
to repoint links or fix misspelt targets; use move_note to move a file. Refusals: \
`breaks_links` (working links would find no note; `allow_unresolved: true` allows it, answering `links_broken`), \
`unrepresentable_link` (`to_target` holds `|`, `#`, `^`, brackets or a line break), `plan_hash_mismatch`, \
`concurrent_modification`, `convention_blocked` (a `block` convention)."
        .to_owned();
    spec.input_schema = writing_paged(
        json!({
            "from_target": {"type": "string", "description": "The target the links have now, such as `Old idea`."},
            "to_target": {"type": "string", "description": "The target as it should be written, such as `Ideas/New idea`."},
            "allow_unresolved": {"type": "boolean", "description": "Let working links end unresolved."}
        }),
        &["from_target", "to_target"],
    );
    spec.output_schema["properties"]["links_broken"] = json!({"type": "integer"});
    spec
}

/// The lint kinds, as `lint_wiki` takes them: those it runs by default and those it runs only
/// when named.
fn lint_kinds() -> Vec<&'static str> {
    vaultlink_core::lint::every_rule().map(|rule| rule.kind).collect()
}

fn lint_wiki() -> ToolSpec {
    let proposal = json!({
        "type": "object",
        "properties": {
            "kind": {"type": "string", "description": "The lint kind, or `schema_file` for a problem of SCHEMA.md itself."},
            "subject": {"type": "string", "description": "The note the finding is about; for `unresolved_link` and `ambiguous_link`, the target as written."},
            "line": {"type": "integer", "minimum": 1, "description": "The line in `subject`, when the finding is at one place."},
            "related": {"type": "array", "items": {"type": "string"}, "description": "Other notes involved: referrers, candidates, notes sharing a name, the governing SCHEMA.md (at most {MAX_LISTED})."},
            "related_count": {"type": "integer"},
            "detail": {"type": "string", "description": "Why, with the evidence in words (left out with `concise`)."},
            "suggested_action": {"type": "string"},
            "tool": {"type": "string", "enum": ["move_note", "rewrite_link", "commit_wiki_page"], "description": "The vaultlink tool whose call fixes it, where one does."},
            "tool_args": {"type": "object", "description": "The arguments for `tool` (left out with `concise`). Those tools preview by default."},
            "evidence": {"type": "object", "description": "Structured evidence: referrers with lines, the file chosen per link, names shared (left out with `concise`)."}
        },
        "required": ["kind", "subject", "suggested_action"]
    });
    read_only(
        "lint_wiki",
        "Lint the wiki: broken, ambiguous and orphaned links, duplicates, schema",
        "Checks the vault, or one folder, and returns proposals saying why, each naming the call that fixes it \
where one exists (`tool`, `tool_args`). Kinds (see `kinds`) include `duplicate_identity` (notes sharing a name, \
title, H1 or alias), `near_duplicate` (shared wording: a lead), `schema` \
(breaches of the folder's SCHEMA.md), `stale` (a page older than a source it cites, by `source_hashes`) and `dead_end` (notes linking nowhere; run only when named). \
Every answer carries the vault's link `health`, to compare from one lint to the next. \
Use it to review a wiki; use find_existing_page before writing one page. It reads only. It fails \
with `invalid_arguments` for an unknown kind or a stale cursor.",
        object(
            json!({
                "folder": folder(),
                "excluded_folders": {"type": "array", "items": {"type": "string"}, "description": "Folders whose notes are never subjects (they stay link targets)."},
                "kinds": {"type": "array", "items": {"type": "string", "enum": lint_kinds()}, "description": "The kinds to run; all but `dead_end` when left out."},
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
                "truncated": {"type": "boolean", "description": "Present and true when more than {MAX_PROPOSALS} proposals were found; the rest are dropped."},
                "next_cursor": next_cursor(),
                "health": {"type": "object", "description": "The whole vault's link health, whatever `folder` and `kinds` say: link_graph's `health` counts and ratios."}
            },
            "required": ["total", "counts", "proposals", "skipped", "health"]
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
        "Tells whether the vault already has a page on `topic`: `exists`, `ambiguous` or `new`, with the candidates and \
their evidence. One note known by the topic (path, file name, alias, `title`, first H1, or the same Wikidata QID) \
gives `exists`, several give `ambiguous`; softer evidence (unresolved links to it, names sharing half its words) \
gives at most `ambiguous`. Use it before creating a page; use find_evidence for what notes say. It reads \
only. It fails with `invalid_arguments` for an empty topic.",
        object(
            json!({
                "topic": {"type": "string", "description": "A name such as `Zettelkasten`, a path, or a Wikidata QID such as `Q1194880`."},
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
        "Lists the notes that mention a concept, ranked: notes known by the `title`, then those whose \
properties, then whose prose, name or link it; each with `mentions` and a prose excerpt with its line. With \
no match, `growth_hint` names notes with near names. Use it to gather what the vault says before writing on a \
concept; use find_existing_page to decide whether the page exists. It reads only, every note: slower on a large \
vault (it reports progress). It fails with `invalid_arguments` for an empty or over-long title or \
a stale cursor.",
        object(
            json!({
                "title": {"type": "string", "description": "The concept's name, as a page on it would be titled, such as `Spaced repetition`."},
                "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 50, "description": "Page size (left out: up to {DEFAULT_EVIDENCE_LIMIT}, ending near {DEFAULT_PAGE_KB} KB)."},
                "cursor": cursor(),
                "nodes_only": {"type": "boolean", "default": false, "description": "Only the matching notes, their strength and mentions: no excerpts or lines."},
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
            "source": {"type": "string", "enum": ["body", "property", "canvas_file", "canvas_text"]},
            "key": {"type": "string", "description": "The property holding the link, for a property link."}
        },
        "required": ["note", "line", "link", "kind", "source"]
    });
    writes(
        "delete_note",
        "Delete a note safely, showing what links to it",
        "Deletes one note by moving it to the trash (Obsidian's inside Obsidian, else the vault's `.trash`), after showing \
every link to it. Without `confirm: true` it is a dry run listing the backlinks with a `plan_hash` (`blocked_reasons`: what \
would stop it). Confirm with `confirm: true` or the preview's `approved_plan_hash`; it refuses while backlinks exist unless \
`force`, and if `approved_plan_hash`, `expected_hash` or `expected_mtime` no longer hold. Applied, it is kept like every \
change: `change_id` for undo_change, which writes the note back; `captured` holds its text. Use it only to remove a page; \
use move_note to archive or rename one. Refusals: `has_backlinks`, `plan_hash_mismatch`, `concurrent_modification`, \
`invalid_path` (a folder or an attachment), `note_not_found`, `invalid_arguments` (`confirm: false` with a hash).",
        object(
            json!({
                "path": note_path("The note to delete"),
                "confirm": {"type": "boolean", "default": false, "description": "True deletes; false (the default) always previews."},
                "force": {"type": "boolean", "default": false, "description": "Delete although links point to the note (they dangle). Needs `confirm: true`."},
                "expected_hash": {"type": "string", "description": "SHA-256 (hex) of the text the caller read; refuse if the note changed."},
                "expected_mtime": {"type": "integer", "minimum": 0, "description": "The note's modification time as the caller read it (ms since 1970); refuse if it changed."},
                "approved_plan_hash": {"type": "string", "description": "The `plan_hash` of a preview: delete only if nothing in it changed. Not with `confirm: false`."},
                "response_format": response_format()
            }),
            &["path"],
        ),
        json!({
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
                "change_id": {"type": "string"},
                "captured": {"type": "object", "properties": {"frontmatter": {"type": "string"}, "body": {"type": "string"}, "text": {"type": "string"}}, "required": ["body", "text"]},
                "trashed_to": {"type": "string"}
            },
            "required": ["ok", "path", "dry_run", "would_change", "can_confirm", "preview_ready", "blocked_reasons", "backlinks", "forced", "plan_hash"]
        }),
    )
}

fn bulk_move_notes() -> ToolSpec {
    let mut spec = move_note();
    spec.name = "bulk_move_notes";
    spec.title = "Move many notes, attachments or folders at once, keeping every link";
    spec.description = "Moves many notes, attachments or folders as one batch, as move_note moves one: every link \
that must change is rewritten, the plan is proven whole and applied all or nothing. Moves may interact (into a place \
another leaves, into a folder that moves too, a swap of names); a file moved twice or two files sent to one place is refused. By default it is a dry run previewing the moves and rewritten links \
(paged) with a `plan_hash`; call again with `approved_plan_hash` (or `dry_run: false`) to apply it. Use it for a reorganisation that moves many files; use \
move_note for one file or one folder. Refusals: those of move_note, and `invalid_arguments` for a list that cannot be \
one batch.".to_owned();
    spec.input_schema = writing_paged(
        json!({
            "moves": {
                "type": "array",
                "items": {"type": "object", "properties": {"from": {"type": "string"}, "to": {"type": "string"}}, "required": ["from", "to"], "additionalProperties": false},
                "description": "The moves, each `{from, to}` as move_note takes them (at most {MAX_BULK_MOVES})."
            }
        }),
        &["moves"],
    );
    spec
}

fn update_properties() -> ToolSpec {
    writes(
        "update_properties",
        "Set or remove a note's properties, keeping the rest of the file",
        "Sets and removes top-level properties of one note's frontmatter (making the block if none), \
keeping every other byte of the file; a link is written quoted. A dry run by default: the YAML before and after and a \
`plan_hash`; call again with `approved_plan_hash` (or `dry_run: false`) to apply. Held already: `unchanged: true`, \
nothing written. Set links finding no note: `unresolved_links`. Use it for properties; use rewrite_link for links. \
Refusals: `note_not_found`, `page_refused` (off SCHEMA.md's rules or a `block` convention), `invalid_arguments` (an object value, a key set \
and removed, frontmatter not YAML keys), `unwritable_note` (a shared anchor), `plan_hash_mismatch`, \
`concurrent_modification`.",
        writing(
            json!({
                "path": note_path("The note's path"),
                "set": {"type": "object", "description": "Keys to set: text, numbers, booleans or lists of them, such as `{\"status\": \"done\", \"related\": \"[[Other]]\"}`."},
                "remove": {"type": "array", "items": {"type": "string"}, "description": "Keys to remove."}
            }),
            &["path"],
        ),
        plan_answer(
            json!({
                "path": {"type": "string"},
                "set": {"type": "array", "items": {"type": "string"}},
                "removed": {"type": "array", "items": {"type": "string"}},
                "before": {"type": "string"},
                "after": {"type": "string"},
                "unchanged": {"type": "boolean"},
                "unresolved_links": {"type": "array"}
            }),
            &["path", "set", "removed"],
        ),
    )
}

fn draft_wiki_page() -> ToolSpec {
    let suggestions =
        json!({"type": "array", "items": {"type": "object", "properties": {"path": {"type": "string"}, "why": {"type": "string"}}}});
    read_only(
        "draft_wiki_page",
        "Prepare a new wiki page: duplicates, link map, schema, skeleton",
        "Prepares a page on `topic`: find_existing_page's check first (a page known by it is \
returned); else `link_to` (notes to link), `link_from` (notes mentioning it, to link to it), `already_linking`, the \
SCHEMA.md rules for `type` (`schema`) and a `skeleton`: commit_wiki_page's arguments with a linkable path, the \
required keys, the `source` cited in `sources`, a `link` patch per `link_from` note and `prev_hashes`. Use it before \
commit_wiki_page; use find_evidence for what notes say. It reads only. It fails with `note_not_found` (`source`).",
        object(
            json!({
                "topic": {"type": "string", "description": "The page's title, such as `Graph theory`."},
                "type": {"type": "string", "description": "The page's type, as SCHEMA.md declares it."},
                "source": note_path("A note the page draws on"),
                "response_format": response_format()
            }),
            &["topic"],
        ),
        json!({
            "type": "object",
            "properties": {
                "topic": {"type": "string"},
                "verdict": {"type": "string", "enum": ["exists", "ambiguous", "new"]},
                "reason": {"type": "string"},
                "candidates": {"type": "array", "items": {"type": "object", "properties": {"path": {"type": "string"}, "strength": {"type": "string"}}}},
                "link_to": suggestions,
                "link_from": suggestions,
                "already_linking": suggestions,
                "schema": {"type": "object"},
                "skeleton": {"type": "object"}
            },
            "required": ["topic", "verdict", "reason", "link_to", "link_from", "already_linking"]
        }),
    )
}

fn commit_wiki_page() -> ToolSpec {
    // Its patches only add, and a page is replaced only with the hash of the text it replaces.
    let spec = writes(
        "commit_wiki_page",
        "Create a wiki page and link it from other notes, proven, all or nothing",
        "Creates one new page (frontmatter written as Obsidian reads it, a link value quoted) and applies additive patches to existing notes in one change: `link` adds `- [[Page]]` under a heading (\"See also\" by default; once per note, none when it links the page); `append` adds `text` as a paragraph at the end or under `heading`. Every link of the page and every link a patch adds must find a note (or be in `allow_unresolved`); the page must meet its SCHEMA.md (type, required properties, vocabulary, folder, blocking conventions), lie in the wiki, outside its source folders, at a new linkable path; each `prev_hashes` entry must match. A page known by one of its names (find_existing_page's `exists`) is refused unless `allow_duplicate`; one changing where links lead, always. A dry run by default, answering `plan_hash`, non-blocking `problems` and `ingested` sources (the page keeps each cited source's content hash in `source_hashes`, which lint_wiki's `stale` compares); apply with `approved_plan_hash` (or `dry_run: false`). Use it once find_existing_page finds no page; use update_properties or move_note for notes that exist. Refusals: `page_refused`, `duplicate_page`, `read_only_source`, `note_not_found`, `plan_hash_mismatch`, `concurrent_modification`.",
        writing(
            json!({
                "page": {
                    "type": "object",
                    "description": "The new page: `path` (`.md` added when left out), `frontmatter` (keys to text, numbers, booleans or lists of them), `body` (Markdown); `mode: overwrite` with `prev_hash` replaces one.",
                    "properties": {
                        "path": {"type": "string", "maxLength": MAX_STRING_CHARS},
                        "frontmatter": {"type": "object"},
                        "body": {"type": "string"},
                        "mode": {"type": "string", "enum": ["create", "overwrite"]},
                        "prev_hash": {"type": "string"}
                    },
                    "required": ["path"]
                },
                "patches": {
                    "type": "array",
                    "description": "Additions to existing notes, in order.",
                    "items": {
                        "type": "object",
                        "properties": {
                            "path": {"type": "string", "maxLength": MAX_STRING_CHARS},
                            "kind": {"type": "string", "enum": ["link", "append"]},
                            "heading": {"type": "string", "maxLength": MAX_STRING_CHARS},
                            "text": {"type": "string"}
                        },
                        "required": ["path", "kind"]
                    }
                },
                "prev_hashes": {"type": "object", "description": "Each patched note's `content_hash`, by path, from draft_wiki_page's `skeleton` (read_note gives none)."},
                "allow_unresolved": {"type": "array", "items": {"type": "string"}, "description": "Link targets that may stay unresolved (pages still to write)."},
                "allow_duplicate": {"type": "boolean", "description": "Write a second page on a known topic."}
            }),
            &["page"],
        ),
        plan_answer(
            json!({
                "path": {"type": "string"},
                "content_hash": {"type": "string"},
                "patches": {"type": "array", "items": {"type": "object", "properties": {
                    "path": {"type": "string"},
                    "kind": {"type": "string", "enum": ["link", "append"]},
                    "added": {"type": "string"},
                    "already_linked": {"type": "boolean"}
                }}},
                "unresolved_allowed": {"type": "array", "items": {"type": "string"}},
                "problems": {"type": "array", "items": {"type": "object"}},
                "ingested": {"type": "array", "items": {"type": "object"}},
                "text": {"type": "string"}
            }),
            &["path", "content_hash", "patches", "problems"],
        ),
    );
    ToolSpec { destructive: false, ..spec }
}

fn undo_change() -> ToolSpec {
    writes(
        "undo_change",
        "Undo the last applied change (or a named one)",
        "Reverts one applied change (move, rewrite, property edit, bulk move, new page, delete): the last, or the \
one whose `change_id` an applied answer gave. Notes get their text back, moved files go back (links made since \
follow them: `relinked`), new pages are removed, in one batch. Refused when a note it touched changed since (named): \
undo later changes first; or when notes link a new page since (`backlinks`), unless `force`. Without an id it \
takes the newest kept change and never reaches past it. The last {KEPT_CHANGES} \
changes are kept in `.vaultlink/changes` (list_changes lists them); undoing again reverts the one before. A \
delete's undo writes the note back from its kept text. A dry run by default; apply with `approved_plan_hash` (or `dry_run: false`). Use it to take back a wrong change; use move_note for a new one. Refusals: `nothing_to_undo`, `undo_refused`, `plan_hash_mismatch`, \
`read_only_source`.",
        writing_paged(
            json!({
                "change_id": {"type": "string", "description": "The `change_id` of an applied answer; the last change when left out."},
                "force": {"type": "boolean", "description": "Remove a new page even though notes link it since."}
            }),
            &[],
        ),
        paged_plan_answer(
            json!({
                "tool": {"type": "string"},
                "restored": {"type": "array", "items": {"type": "string"}},
                "moved_back": {"type": "array", "items": {"type": "object", "properties": {"from": {"type": "string"}, "to": {"type": "string"}}}},
                "removed": {"type": "array", "items": {"type": "string"}},
                "relinked": {"type": "array", "items": {"type": "string"}},
                "backlinks": {"type": "array", "items": {"type": "object"}},
                "links_left_in_sources": {"type": "array", "items": {"type": "object"}, "description": "Links left inside sources: `note`, `line`, `link`, `would_be`."},
                "kept_changes": {"type": "integer"},
                "counts": {"type": "object", "description": "Each list's size; the lists are a page."}
            }),
            &["change_id", "tool", "restored", "moved_back", "removed", "kept_changes", "counts"],
        ),
    )
}

fn list_changes() -> ToolSpec {
    read_only(
        "list_changes",
        "List the changes undo_change can take back",
        "Lists the changes kept for undo_change, newest first and paged: each one's `change_id`, `tool`, `arguments`, \
when (`applied_at`, UTC), what it `touched` (counts, up to {PATHS_LISTED} paths) and whether undo_change could \
undo it now (`undoable`; if not, `why_not`; `needs_force` when links to a page it made would dangle). `latest` marks the \
one undo_change without an id takes. Use it before undo_change to choose what to undo; use read_note for a note's text. \
It reads only. Refusals: `invalid_arguments` (a stale cursor: start again).",
        object(
            json!({
                "limit": {"type": "integer", "minimum": 1, "maximum": 20, "default": 10},
                "cursor": {"type": "string", "description": "The `next_cursor` of the previous page."},
                "response_format": response_format()
            }),
            &[],
        ),
        json!({
            "type": "object",
            "properties": {
                "total": {"type": "integer"},
                "changes": {"type": "array", "items": {"type": "object", "properties": {
                    "change_id": {"type": "string"},
                    "tool": {"type": "string"},
                    "applied_unix_ms": {"type": "integer"},
                    "applied_at": {"type": "string"},
                    "arguments": {"type": "object"},
                    "touched": {"type": "object", "properties": {
                        "rewritten": {"type": "integer"}, "created": {"type": "integer"}, "removed": {"type": "integer"},
                        "moved": {"type": "integer"}, "paths": {"type": "array", "items": {"type": "string"}}, "paths_total": {"type": "integer"}
                    }},
                    "undoable": {"type": "boolean"},
                    "why_not": {"type": "string"},
                    "needs_force": {"type": "boolean"},
                    "latest": {"type": "boolean"}
                }}},
                "next_cursor": {"type": "string"}
            },
            "required": ["total", "changes"]
        }),
    )
}

fn fix_broken_links() -> ToolSpec {
    writes(
        "fix_broken_links",
        "Repair broken links to the notes meant",
        "Repairs links in scope (`path`) that find no note or `#heading`. Candidates carry \
`evidence` (`name_form`, `unique_name`, `alias`, `title`, `heading_renamed`, `similar`) and a `confidence` 0-1; only \
a best one reaching `min_confidence_percent` ({DEFAULT_FLOOR_PERCENT}) and {MARGIN} above the next is repaired, the rest in \
`unrepaired`, never guessed. Never changes links in code, templates or sources. A dry run by default; apply \
with `approved_plan_hash` (or `dry_run: false`), undoable. Use it after moves outside Obsidian or typos; use \
rewrite_link for one target. Refusals: `note_not_found`, `plan_hash_mismatch`.",
        writing_paged(
            json!({
                "path": scope(),
                "min_confidence_percent": {"type": "integer", "minimum": 50, "maximum": 100, "default": 90}
            }),
            &[],
        ),
        paged_plan_answer(
            json!({
                "notes_edited": {"type": "integer"},
                "links_repaired": {"type": "integer"},
                "repairs": {"type": "array", "items": {"type": "object"}},
                "unrepaired": {"type": "array", "items": {"type": "object"}},
                "unrepaired_count": {"type": "integer"},
                "min_confidence": {"type": "number"},
                "links_left_in_sources": {"type": "array"}
            }),
            &["notes_edited", "links_repaired", "unrepaired", "unrepaired_count", "min_confidence"],
        ),
    )
}

fn link_mentions() -> ToolSpec {
    writes(
        "link_mentions",
        "Link plain-text mentions of notes",
        "Turns plain-text mentions of notes' names (file, alias, `title`) in `path` (or the vault) into \
links keeping the text. Whole words, any case, plurals; the longest name wins; never a note's own name, nor in \
code, links, headings, tables, frontmatter, comments, HTML, math or sources. Shared names go to `ambiguous`, names \
under 3 chars skipped. `targets`, `exclude` (ids), `first_only` narrow. A dry run by default; \
apply with `approved_plan_hash` (or `dry_run: false`), undoable. Use it to connect notes; use fix_broken_links \
for broken links. Refusals: `note_not_found`, `plan_hash_mismatch`.",
        writing_paged(
            json!({
                "path": scope(),
                "targets": {"type": "array", "items": {"type": "string"}},
                "exclude": {"type": "array", "items": {"type": "string"}},
                "first_only": {"type": "boolean", "default": false}
            }),
            &[],
        ),
        paged_plan_answer(
            json!({
                "notes_edited": {"type": "integer"},
                "mentions_linked": {"type": "integer"},
                "mentions": {"type": "array", "items": {"type": "object"}},
                "ambiguous": {"type": "array", "items": {"type": "object"}},
                "ambiguous_count": {"type": "integer"},
                "unprovable": {"type": "array", "items": {"type": "string"}},
                "min_name_chars": {"type": "integer"}
            }),
            &["notes_edited", "mentions_linked", "ambiguous", "ambiguous_count", "min_name_chars"],
        ),
    )
}

fn server_health() -> ToolSpec {
    read_only(
        "server_health",
        "Check where calls run and what the index holds",
        "Reports where calls run (`mode`: `plugin` inside Obsidian, `standalone` on the folder, or `unavailable`), where a \
write would go now and why (`writes`), the versions, the index's counts, whether the folder's index is live and why \
(`folder_index`) and the last bridge error. Use it first when answers look stale or calls fail with \
`plugin_unavailable`; use list_notes for the vault's content. It reads only. It fails with `vault_unreadable`.",
        object(json!({"response_format": response_format()}), &[]),
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
                "folder_index": {
                    "type": "object",
                    "properties": {"mode": {"type": "string", "enum": ["live", "walk", "indexing"]}, "reason": {"type": "string"}},
                    "required": ["mode", "reason"]
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

/// A path's or cycle's notes, and the link taken at each step (`from`, `to`, `source`,
/// `target`, `line`, `direction`), which the description names.
fn graph_walk() -> Value {
    json!({"type": "object", "properties": {
        "notes": {"type": "array", "items": {"type": "string"}}, "links": {"type": "array", "items": {"type": "object"}}
    }})
}

fn find_link_paths() -> ToolSpec {
    read_only(
        "find_link_paths",
        "Find how two notes are connected by links",
        "Finds the shortest chains of links from note `from` to note `to`, at most `max_length` links: each path's notes \
with the link taken at each step (`source` note, `target` as written, `line`). `direction: any` also walks links \
backwards (`backward` steps). At most {MAX_PATHS} paths (`truncated`), paged; if none, `reason` says what to try. Use it \
to explain how two notes relate; use link_graph for the whole vault's shape. It reads only. It fails with \
`note_not_found` or `invalid_arguments` (a stale cursor).",
        object(
            json!({
                "from": note_path("The first note"),
                "to": note_path("The last note"),
                "max_length": {"type": "integer", "minimum": 1, "maximum": 10, "default": 6},
                "direction": {"type": "string", "enum": ["forward", "any"]},
                "limit": limit(),
                "cursor": cursor(),
                "response_format": response_format()
            }),
            &["from", "to"],
        ),
        json!({
            "type": "object",
            "properties": {
                "length": {"type": "integer"},
                "total": {"type": "integer"},
                "paths": {"type": "array", "items": graph_walk()},
                "truncated": {"type": "boolean"},
                "reason": {"type": "string"},
                "next_cursor": next_cursor()
            },
            "required": ["total", "paths"]
        }),
    )
}

fn detected_moves() -> ToolSpec {
    let file_move =
        json!({"type": "object", "properties": {"from": {"type": "string"}, "to": {"type": "string"}}, "required": ["from", "to"]});
    // Each `{note, line, target, found, finds_now}`: said in the description's words, to keep the list short.
    let broken = json!({"type": "object"});
    read_only(
        "detected_moves",
        "List moves made outside vaultlink and the links they broke",
        "Lists the notes and folders moved outside vaultlink (`mv`, a script, a sync client) since the index \
last saw the vault, with `evidence` (same size and content hash; a folder is one move with its `notes`) and the \
`links_broken`. Look-alikes are in `ambiguous` with `why`, never guessed. `observed: false`: nothing to compare with. \
Use it before heal_moves; use find_unresolved_links for every broken link. It reads only. Refusals: \
`invalid_arguments` (a stale cursor).",
        object(json!({"limit": limit(), "cursor": cursor(), "response_format": response_format()}), &[]),
        json!({
            "type": "object",
            "properties": {
                "observed": {"type": "boolean"},
                "moves": {"type": "array", "items": {"type": "object", "properties": {
                    "kind": {"type": "string", "enum": ["note", "folder"]},
                    "from": {"type": "string"},
                    "to": {"type": "string"},
                    "evidence": {"type": "string"},
                    "notes": {"type": "array", "items": file_move},
                    "notes_total": {"type": "integer", "minimum": 0},
                    "links_broken": {"type": "array", "items": broken},
                    "links_broken_total": {"type": "integer", "minimum": 0}
                }, "required": ["kind", "from", "to", "evidence", "notes_total", "links_broken", "links_broken_total"]}},
                // Each `{from, candidates, why, detail}`.
                "ambiguous": {"type": "array", "items": {"type": "object", "properties": {
                    "why": {"type": "string", "enum": ["copies", "same_content_vanished", "content_differs", "old_path_exists_again"]}
                }}},
                "total": {"type": "integer", "minimum": 0},
                "links_broken": {"type": "integer", "minimum": 0},
                "next_cursor": next_cursor()
            },
            "required": ["observed", "moves", "ambiguous", "total", "links_broken"]
        }),
    )
}

/// The vault's link health, as `link_graph`'s `health` answers it and every `lint_wiki` answer
/// carries it (core's `graph::Health`).
fn health_properties() -> Value {
    let count = json!({"type": "integer"});
    let ratio = json!({"type": "number"});
    json!({
        "notes": count, "links": count, "broken_links": count, "ambiguous_links": count, "orphans": count, "dead_ends": count,
        "island_count": count, "largest_island": count, "isolated_notes": count,
        "broken_ratio": ratio, "ambiguous_ratio": ratio, "orphan_ratio": ratio, "dead_end_ratio": ratio,
        "largest_island_share": ratio
    })
}

/// `schema` with `properties` added to its own.
fn merged(mut schema: Value, properties: Value) -> Value {
    if let (Some(into), Value::Object(properties)) = (schema["properties"].as_object_mut(), properties) {
        for (name, property) in properties {
            into.entry(name).or_insert(property);
        }
    }
    schema
}

fn link_graph() -> ToolSpec {
    let count = json!({"type": "integer"});
    read_only(
        "link_graph",
        "Show the shape of the link graph",
        "Answers a `question` about the graph of notes and their links. `hubs`: notes (`path`) by how many notes \
link to them (`in_degree`, `out_degree`), `cut_point` when some notes connect only through it; `islands`: groups of \
notes linked either way, largest first (`size`, `notes`); `cycles`: links that come back round, `min_length` to \
`max_length` links (default {DEFAULT_CYCLE_LENGTHS}; only here), at most {MAX_CYCLES} (`truncated`); `health`: counts, ratios of broken and \
ambiguous links, orphans, dead ends and islands. Paged. Use it to see what holds the vault together or is cut off; use \
find_link_paths for two notes, lint_wiki for fixes. It reads only. It fails with `invalid_arguments`.",
        object(
            json!({
                "question": {"type": "string", "enum": ["hubs", "islands", "cycles", "health"]},
                "min_length": {"type": "integer", "minimum": 2, "maximum": 8},
                "max_length": {"type": "integer", "minimum": 2, "maximum": 8},
                "limit": limit(),
                "cursor": cursor(),
                "response_format": response_format()
            }),
            &["question"],
        ),
        merged(
            json!({
                "type": "object",
                "properties": {
                    "question": {"type": "string"},
                    "total": count, "cut_points": count,
                    "hubs": {"type": "array", "items": {"type": "object"}},
                    "largest_island": count, "isolated_notes": count, "island_count": count,
                    "islands": {"type": "array", "items": {"type": "object"}},
                    "min_length": count, "max_length": count,
                    "cycles": {"type": "array", "items": graph_walk()},
                    "truncated": {"type": "boolean"},
                    "next_cursor": next_cursor()
                },
                "required": ["question"]
            }),
            health_properties(),
        ),
    )
}

fn heal_moves() -> ToolSpec {
    let mut spec = move_note();
    spec.name = "heal_moves";
    spec.title = "Heal the links moves made outside vaultlink broke";
    spec.description = "Rewrites the links broken by the moves detected_moves lists, as move_note would have; it moves no \
file and leaves ambiguous cases alone. A dry run by default (`healed`, links, `plan_hash`); apply with \
`approved_plan_hash` (or `dry_run: false`), all or nothing. Use it after moves made outside vaultlink; use \
rewrite_link for an ambiguous case. Refusals: `read_only_source`, `plan_hash_mismatch`, `concurrent_modification`."
        .to_owned();
    spec.input_schema = writing_paged(json!({}), &[]);
    let properties = spec.output_schema["properties"].as_object_mut().expect("move_note's output properties");
    properties.insert("healed".to_owned(), json!({"type": "array", "items": {"type": "object"}}));
    properties.insert("healed_total".to_owned(), json!({"type": "integer", "minimum": 0}));
    properties.insert("ambiguous".to_owned(), json!({"type": "integer", "minimum": 0}));
    // A heal moves nothing, so what move_note's schema spells out of a link it newly resolves is
    // left to the answer itself.
    properties.insert("newly_resolved".to_owned(), json!({"type": "array", "items": {"type": "object"}}));
    spec.output_schema["required"].as_array_mut().expect("move_note's required fields").extend([
        json!("healed"),
        json!("healed_total"),
        json!("ambiguous"),
    ]);
    spec
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
                // Under `properties` the keys are parameter names (`type` is one), not keywords.
                let names = at.ends_with(".properties");
                for (key, value) in map {
                    assert!(names || !NOT_PORTABLE.contains(&key.as_str()), "{at}: `{key}` is not portable");
                    if key == "type" && !names {
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
            let (name, description) = (tool.name, tool.description.as_str());
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
            // The rules between parameters the schema subset cannot say are core's; each is written
            // into the descriptions.
            let rules = vaultlink_core::parameters::of(name).map(|parameters| parameters.rules).unwrap_or_default();
            for rule in rules {
                use vaultlink_core::parameters::Rule;
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

    /// The router runs a call as core's table of tools says (`tools`: whether it writes), so what
    /// the catalogue advertises of it (`readOnlyHint`) must say the same.
    #[test]
    fn a_tool_is_advertised_read_only_when_core_says_it_does_not_write() {
        for tool in catalogue().iter().filter(|tool| tool.name != "server_health") {
            assert!(vaultlink_core::tools::named(tool.name).is_some(), "core's table lacks {}", tool.name);
            assert_eq!(tool.read_only, !vaultlink_core::tools::writes_vault(tool.name), "{}", tool.name);
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
                    Kind::Choice(allowed) => json!({"type": "string", "enum": allowed}),
                    Kind::Whole { minimum, maximum: Some(maximum) } => json!({"type": "integer", "minimum": minimum, "maximum": maximum}),
                    Kind::Whole { minimum, maximum: None } => json!({"type": "integer", "minimum": minimum}),
                    Kind::Flag => json!({"type": "boolean"}),
                    Kind::Texts => json!({"type": "array"}),
                    Kind::Object => json!({"type": "object"}),
                    Kind::Objects => json!({"type": "array"}),
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
