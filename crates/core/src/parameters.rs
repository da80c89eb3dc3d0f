//! Every operation's parameters, defined once: name, kind, range, allowed values, whether it is
//! required and whether it names a place in the vault, and the rules between parameters that a
//! JSON schema cannot say. [`check`] holds a call's arguments to them, with errors that name the
//! parameter; both edges call it (the sidecar before it forwards or runs a call, the plugin
//! through wasm), and the sidecar's advertised input schemas are tested against this table.

use serde_json::Value;

use crate::error::{CallError, ErrorCode};

/// The most characters of any string argument: paths, targets, topics and cursors are short,
/// and a plan's memory grows with what it is given, so more is refused before anything runs.
pub const MAX_STRING_CHARS: usize = 4096;

/// The largest note the engine reads or writes, in bytes: the folder's walk indexes a larger
/// file without its links and `read_note` refuses it, so a page or a patch's text is bounded by
/// it rather than by [`MAX_STRING_CHARS`].
pub const MAX_NOTE_BYTES: usize = 16 * 1024 * 1024;

/// The members of object parameters that hold a note's text, each bounded by [`MAX_NOTE_BYTES`]
/// (and all of one call together by it too), not by [`MAX_STRING_CHARS`]: the tool, the
/// parameter and the member.
pub const TEXT_MEMBERS: [(&str, &str, &str); 2] = [("commit_wiki_page", "page", "body"), ("commit_wiki_page", "patches", "text")];

/// What a parameter holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Text,
    /// One of these strings.
    Choice(&'static [&'static str]),
    /// A whole number from `minimum` to `maximum` (no upper bound when `None`).
    Whole {
        minimum: u64,
        maximum: Option<u64>,
    },
    Flag,
    /// A list of strings (`lint_wiki` checks its `kinds` itself, naming the kinds).
    Texts,
    /// A JSON object (the operation checks its members).
    Object,
    /// A list of JSON objects (the operation checks their members).
    Objects,
}

/// One parameter of an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parameter {
    pub name: &'static str,
    pub kind: Kind,
    pub required: bool,
}

/// A rule between two parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// `parameter` (when given, and true if it is a boolean) needs `other` to be `value`.
    Needs { parameter: &'static str, other: &'static str, value: bool },
    /// `parameter` cannot be given together with `other` set to `value`.
    Excludes { parameter: &'static str, other: &'static str, value: bool },
}

/// An operation's parameters and rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parameters {
    pub tool: &'static str,
    pub list: &'static [Parameter],
    pub rules: &'static [Rule],
}

/// Parameters that name a place in the vault: each is held to `paths::vault_path_problem`,
/// `paths::hidden_path_problem` and to names of at most `names::MAX_NAME_BYTES` bytes.
pub const PATH_PARAMETERS: [&str; 4] = ["path", "from", "to", "folder"];

/// Parameters that are link targets: at most `names::MAX_TARGET_BYTES` bytes, and names of at
/// most `names::MAX_NAME_BYTES` bytes.
pub const TARGET_PARAMETERS: [&str; 2] = ["from_target", "to_target"];

const RESPONSE_FORMATS: &[&str] = &["concise", "detailed"];

const fn required(name: &'static str, kind: Kind) -> Parameter {
    Parameter { name, kind, required: true }
}

const fn optional(name: &'static str, kind: Kind) -> Parameter {
    Parameter { name, kind, required: false }
}

const TEXT: Kind = Kind::Text;
const FLAG: Kind = Kind::Flag;
const FORMAT: Parameter = optional("response_format", Kind::Choice(RESPONSE_FORMATS));
const LIMIT: Parameter = optional("limit", Kind::Whole { minimum: 1, maximum: Some(crate::answer::MAX_LIMIT as u64) });
const CURSOR: Parameter = optional("cursor", TEXT);
const FOLDER: Parameter = optional("folder", TEXT);
const DRY_RUN: Parameter = optional("dry_run", FLAG);
const APPROVED: Parameter = optional("approved_plan_hash", TEXT);
/// The rule of every tool that plans with a `plan_hash`: approving is not previewing.
const APPROVAL_RULES: &[Rule] = &[Rule::Excludes { parameter: "approved_plan_hash", other: "dry_run", value: true }];
/// The lengths of a cycle `link_graph` looks for, at least and at most.
const CYCLE_LENGTH: Kind =
    Kind::Whole { minimum: crate::graph::MIN_CYCLE_LENGTH as u64, maximum: Some(crate::graph::MAX_CYCLE_LENGTH as u64) };

/// A writing tool's parameters: its own, then those every writing tool shares, in the order
/// core's `approval::writing_arguments!` declares their fields (`dry_run`, `approved_plan_hash`,
/// after `paged` the page of its preview, and `response_format`), with the rule between them.
macro_rules! writing {
    ($tool:literal, [$($own:expr),* $(,)?]) => {
        Parameters { tool: $tool, list: &[$($own,)* DRY_RUN, APPROVED, FORMAT], rules: APPROVAL_RULES }
    };
    ($tool:literal, [$($own:expr),* $(,)?], paged) => {
        Parameters { tool: $tool, list: &[$($own,)* DRY_RUN, APPROVED, LIMIT, CURSOR, FORMAT], rules: APPROVAL_RULES }
    };
}

/// Every operation's parameters, in the catalogue's order.
pub const ALL: &[Parameters] = &[
    Parameters { tool: "get_outgoing_links", list: &[required("path", TEXT), LIMIT, CURSOR, FORMAT], rules: &[] },
    Parameters { tool: "get_backlinks", list: &[required("path", TEXT), LIMIT, CURSOR, FORMAT], rules: &[] },
    Parameters { tool: "find_unresolved_links", list: &[LIMIT, CURSOR, FORMAT], rules: &[] },
    Parameters { tool: "find_orphans", list: &[FOLDER, LIMIT, CURSOR, FORMAT], rules: &[] },
    Parameters { tool: "resolve_link", list: &[required("from", TEXT), required("link", TEXT), FORMAT], rules: &[] },
    Parameters { tool: "list_notes", list: &[FOLDER, LIMIT, CURSOR, FORMAT], rules: &[] },
    Parameters {
        tool: "read_note",
        list: &[
            required("path", TEXT),
            optional(
                "max_bytes",
                Kind::Whole { minimum: crate::answer::MIN_READ_BYTES as u64, maximum: Some(crate::answer::MAX_READ_BYTES as u64) },
            ),
            CURSOR,
            FORMAT,
        ],
        rules: &[],
    },
    writing!("move_note", [required("from", TEXT), required("to", TEXT)], paged),
    writing!("rewrite_link", [required("from_target", TEXT), required("to_target", TEXT), optional("allow_unresolved", FLAG)], paged),
    Parameters {
        tool: "lint_wiki",
        list: &[FOLDER, optional("excluded_folders", Kind::Texts), optional("kinds", Kind::Texts), LIMIT, CURSOR, FORMAT],
        rules: &[],
    },
    Parameters { tool: "find_existing_page", list: &[required("topic", TEXT), LIMIT, FORMAT], rules: &[] },
    Parameters { tool: "find_evidence", list: &[required("title", TEXT), LIMIT, CURSOR, optional("nodes_only", FLAG), FORMAT], rules: &[] },
    Parameters {
        tool: "delete_note",
        list: &[
            required("path", TEXT),
            optional("confirm", FLAG),
            optional("force", FLAG),
            optional("expected_hash", TEXT),
            optional("expected_mtime", Kind::Whole { minimum: 0, maximum: None }),
            APPROVED,
            FORMAT,
        ],
        rules: &[
            Rule::Needs { parameter: "force", other: "confirm", value: true },
            // `confirm: false` is always a preview: approving a plan with it is a contradiction.
            Rule::Excludes { parameter: "approved_plan_hash", other: "confirm", value: false },
        ],
    },
    writing!("update_properties", [required("path", TEXT), optional("set", Kind::Object), optional("remove", Kind::Texts)]),
    writing!("bulk_move_notes", [required("moves", Kind::Objects)], paged),
    writing!(
        "commit_wiki_page",
        [
            required("page", Kind::Object),
            optional("patches", Kind::Objects),
            optional("prev_hashes", Kind::Object),
            optional("allow_unresolved", Kind::Texts),
            optional("allow_duplicate", FLAG),
        ]
    ),
    Parameters {
        tool: "draft_wiki_page",
        list: &[required("topic", TEXT), optional("type", TEXT), optional("source", TEXT), FORMAT],
        rules: &[],
    },
    writing!("undo_change", [optional("change_id", TEXT), optional("force", FLAG)], paged),
    Parameters {
        tool: "list_changes",
        list: &[optional("limit", Kind::Whole { minimum: 1, maximum: Some(crate::history::KEPT_CHANGES as u64) }), CURSOR, FORMAT],
        rules: &[],
    },
    writing!(
        "link_mentions",
        [optional("path", TEXT), optional("targets", Kind::Texts), optional("exclude", Kind::Texts), optional("first_only", FLAG)],
        paged
    ),
    writing!(
        "fix_broken_links",
        [optional("path", TEXT), optional("min_confidence_percent", Kind::Whole { minimum: 50, maximum: Some(100) })],
        paged
    ),
    Parameters { tool: "server_health", list: &[FORMAT], rules: &[] },
    Parameters {
        tool: "find_link_paths",
        list: &[
            required("from", TEXT),
            required("to", TEXT),
            optional("max_length", Kind::Whole { minimum: 1, maximum: Some(crate::graph::MAX_PATH_LENGTH as u64) }),
            optional("direction", Kind::Choice(&["forward", "any"])),
            LIMIT,
            CURSOR,
            FORMAT,
        ],
        rules: &[],
    },
    Parameters {
        tool: "link_graph",
        list: &[
            required("question", Kind::Choice(&["hubs", "islands", "cycles", "health"])),
            optional("min_length", CYCLE_LENGTH),
            optional("max_length", CYCLE_LENGTH),
            LIMIT,
            CURSOR,
            FORMAT,
        ],
        rules: &[],
    },
    Parameters { tool: "detected_moves", list: &[LIMIT, CURSOR, FORMAT], rules: &[] },
    writing!("heal_moves", [], paged),
    // The command line's `summary`; not a tool of the MCP catalogue.
    Parameters { tool: "vault_summary", list: &[], rules: &[] },
];

/// Each string member of an object, with the member's name.
fn members_of(members: &serde_json::Map<String, Value>) -> Vec<(Option<&str>, &str)> {
    members.iter().filter_map(|(member, value)| Some((Some(member.as_str()), value.as_str()?))).collect()
}

/// The parameters of the operation called `tool`.
pub fn of(tool: &str) -> Option<&'static Parameters> {
    ALL.iter().find(|parameters| parameters.tool == tool)
}

/// Holds `arguments` to the parameters of `tool`: an object (or nothing), no unknown parameter,
/// every required one, each of its kind, range and allowed values, no string over
/// [`MAX_STRING_CHARS`], paths that stay inside the vault, and the rules between parameters. The
/// error names the parameter.
pub fn check(tool: &str, arguments: &Value) -> Result<(), CallError> {
    let mut text_bytes = 0;
    let Some(parameters) = of(tool) else {
        return Err(CallError::new(
            ErrorCode::UnknownTool,
            format!("there is no tool `{tool}`"),
            "Call tools/list to see the tools.",
            false,
        ));
    };
    let invalid = |message: String| {
        CallError::new(ErrorCode::InvalidArguments, message, format!("See the input schema of `{tool}` in tools/list."), false)
    };
    let empty = serde_json::Map::new();
    let given = match arguments {
        Value::Object(map) => map,
        Value::Null => &empty,
        _ => return Err(invalid("the arguments must be a JSON object".to_owned())),
    };
    for key in given.keys() {
        if !parameters.list.iter().any(|parameter| parameter.name == key) {
            let known: Vec<&str> = parameters.list.iter().map(|parameter| parameter.name).collect();
            return Err(invalid(format!("unknown parameter `{key}`; `{tool}` takes: {}", known.join(", "))));
        }
    }
    for parameter in parameters.list.iter().filter(|parameter| parameter.required) {
        if !given.contains_key(parameter.name) {
            return Err(invalid(format!("missing parameter `{}`", parameter.name)));
        }
    }
    for parameter in parameters.list {
        let Some(value) = given.get(parameter.name) else { continue };
        let key = parameter.name;
        let fits = match parameter.kind {
            Kind::Text | Kind::Choice(_) => value.is_string(),
            Kind::Whole { minimum, maximum } => {
                value.as_u64().is_some_and(|number| number >= minimum && maximum.is_none_or(|maximum| number <= maximum))
            }
            Kind::Flag => value.is_boolean(),
            Kind::Texts => value.as_array().is_some_and(|items| items.iter().all(Value::is_string)),
            Kind::Object => value.is_object(),
            Kind::Objects => value.as_array().is_some_and(|items| items.iter().all(Value::is_object)),
        };
        if !fits {
            return Err(invalid(format!("parameter `{key}` must be {}", describe(parameter.kind))));
        }
        let is_text = |member: &str| TEXT_MEMBERS.contains(&(tool, key, member));
        let strings: Vec<(Option<&str>, &str)> = match value {
            Value::String(text) => vec![(None, text)],
            Value::Array(items) => items
                .iter()
                .flat_map(|item| match item {
                    Value::Object(members) => members_of(members),
                    other => other.as_str().map(|text| (None, text)).into_iter().collect::<Vec<_>>(),
                })
                .collect(),
            Value::Object(members) => members.keys().map(|member| (None, member.as_str())).chain(members_of(members)).collect(),
            _ => Vec::new(),
        };
        for (member, text) in &strings {
            if let Some(member) = member.filter(|member| is_text(member)) {
                text_bytes += text.len();
                if text.len() > MAX_NOTE_BYTES || text_bytes > MAX_NOTE_BYTES {
                    return Err(CallError::new(
                        ErrorCode::TooLarge,
                        format!(
                            "`{key}`'s `{member}` texts come to {text_bytes} bytes, over the {MAX_NOTE_BYTES} bytes of the largest note; nothing was planned"
                        ),
                        "Write a smaller page (split it into several pages linked from one), or add the rest in later calls.",
                        false,
                    ));
                }
                continue;
            }
            let length = text.chars().count();
            if length > MAX_STRING_CHARS {
                return Err(invalid(format!("parameter `{key}` is {length} characters, over the {MAX_STRING_CHARS} it may have")));
            }
        }
        // Names and link targets as filesystems take them, counted in bytes (the schema's
        // `maxLength` counts characters, which may be four bytes each).
        if PATH_PARAMETERS.contains(&key) || TARGET_PARAMETERS.contains(&key) {
            let text = value.as_str().unwrap_or_default();
            if TARGET_PARAMETERS.contains(&key) && text.len() > crate::names::MAX_TARGET_BYTES {
                return Err(invalid(format!(
                    "parameter `{key}` is {} bytes, over the {} a link's target may have",
                    text.len(),
                    crate::names::MAX_TARGET_BYTES
                )));
            }
            if let Some(long) = text.split(['/', '\\']).find(|segment| segment.len() > crate::names::MAX_NAME_BYTES) {
                return Err(CallError::new(
                    ErrorCode::InvalidName,
                    format!(
                        "parameter `{key}` has a name of {} bytes ({}…), more than the {} bytes filesystems take in one name; nothing was planned",
                        long.len(),
                        long.chars().take(24).collect::<String>(),
                        crate::names::MAX_NAME_BYTES
                    ),
                    "Shorten the name: each folder or file name of a path may have at most 255 bytes.",
                    false,
                ));
            }
        }
        if let (Kind::Choice(allowed), Value::String(text)) = (parameter.kind, value) {
            if !allowed.contains(&text.as_str()) {
                return Err(invalid(format!("parameter `{key}` must be one of {}", Value::from(allowed.to_vec()))));
            }
        }
        if PATH_PARAMETERS.contains(&key) {
            let path = value.as_str().unwrap_or_default();
            if let Some(problem) = crate::paths::vault_path_problem(path) {
                return Err(path_refused(key, path, problem));
            }
            if let Some(problem) = crate::paths::hidden_path_problem(path) {
                return Err(CallError::new(
                    ErrorCode::InvalidPath,
                    format!("`{key}` {path:?} is not a place of the vault's notes: {problem}; nothing was read or changed"),
                    "Name a note or folder Obsidian shows; files under hidden folders (.vaultlink, .trash, the config folder) are not the vault's notes.",
                    false,
                ));
            }
        }
    }
    for rule in parameters.rules {
        match *rule {
            Rule::Needs { parameter, other, value } => {
                let used = given.get(parameter).is_some_and(|given| given.as_bool() != Some(false));
                if used && given.get(other).and_then(Value::as_bool).unwrap_or(false) != value {
                    return Err(invalid(format!("parameter `{parameter}` needs `{other}: {value}`; add it, or leave `{parameter}` out")));
                }
            }
            Rule::Excludes { parameter, other, value } => {
                if given.contains_key(parameter) && given.get(other).and_then(Value::as_bool) == Some(value) {
                    return Err(invalid(format!(
                        "parameter `{parameter}` cannot be combined with `{other}: {value}`; leave one of them out"
                    )));
                }
            }
        }
    }
    Ok(())
}

/// The refusal of a path parameter that could leave the vault.
pub fn path_refused(parameter: &str, path: &str, problem: &str) -> CallError {
    CallError::new(
        ErrorCode::InvalidPath,
        format!("`{parameter}` {path:?} is not a path inside the vault: {problem}"),
        "Give paths relative to the vault root as they are spelt on disk, such as `Folder/Note.md`, without a leading `/`, `~` or `..`.",
        false,
    )
}

fn describe(kind: Kind) -> String {
    match kind {
        Kind::Whole { minimum, maximum: Some(maximum) } => format!("a whole number from {minimum} to {maximum}"),
        Kind::Whole { .. } => "a whole number".to_owned(),
        Kind::Text | Kind::Choice(_) => "a string".to_owned(),
        Kind::Flag => "a boolean".to_owned(),
        Kind::Texts => "a list of strings".to_owned(),
        Kind::Object => "an object".to_owned(),
        Kind::Objects => "a list of objects".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn refusal(tool: &str, arguments: Value) -> String {
        check(tool, &arguments).expect_err("refused").message
    }

    #[test]
    fn arguments_are_held_to_the_parameters() {
        assert_eq!(check("move_note", &json!({"from": "A", "to": "B", "dry_run": false})), Ok(()));
        assert_eq!(check("vault_summary_that_is_not", &json!({})).map_err(|error| error.code), Err(ErrorCode::UnknownTool));
        assert_eq!(refusal("move_note", json!({"from": "A"})), "missing parameter `to`");
        assert_eq!(refusal("move_note", json!({"from": "A", "to": "B", "dry_run": "false"})), "parameter `dry_run` must be a boolean");
        assert!(refusal("move_note", json!({"from": "A", "to": "B", "force": true})).starts_with("unknown parameter `force`"));
        assert_eq!(refusal("move_note", json!(["A", "B"])), "the arguments must be a JSON object");
        assert_eq!(refusal("get_backlinks", json!({"path": "A", "limit": 0})), "parameter `limit` must be a whole number from 1 to 1000");
        assert_eq!(refusal("lint_wiki", json!({"kinds": ["orphan", 7]})), "parameter `kinds` must be a list of strings");
        assert_eq!(refusal("lint_wiki", json!({"excluded_folders": "x"})), "parameter `excluded_folders` must be a list of strings");
        assert!(refusal("find_evidence", json!({"title": "x".repeat(MAX_STRING_CHARS + 1)})).contains("over the 4096"));
        assert_eq!(check("find_orphans", &Value::Null), Ok(()));
    }

    /// Reported in issue 34: `commit_wiki_page` could not write a page over 4,096 characters,
    /// the cap for names and targets. A page's body and a patch's text are held to the note
    /// size limit instead; every other string of the call still to the cap.
    #[test]
    fn a_page_body_and_a_patch_text_are_held_to_the_note_size_limit() {
        let long = "x".repeat(100_000);
        let page = |body: &str, text: &str| json!({"page": {"path": "P.md", "body": body}, "patches": [{"path": "A.md", "kind": "append", "text": text}]});
        assert_eq!(check("commit_wiki_page", &page(&long, &long)), Ok(()));
        let over = "x".repeat(MAX_NOTE_BYTES + 1);
        let error = check("commit_wiki_page", &page(&over, "")).expect_err("over the note size limit");
        assert_eq!(error.code, ErrorCode::TooLarge);
        assert!(error.message.contains("`page`'s `body`") && error.message.contains("16777216"), "{}", error.message);
        let half = "x".repeat(MAX_NOTE_BYTES / 2 + 1);
        let error = check("commit_wiki_page", &page(&half, &half)).expect_err("together over the limit");
        assert!(error.message.contains("`patches`'s `text`"), "{}", error.message);
        let path = json!({"page": {"path": long, "body": ""}});
        assert!(refusal("commit_wiki_page", path).contains("over the 4096"));
        let heading = json!({"page": {"path": "P.md"}, "patches": [{"path": "A.md", "kind": "append", "heading": long}]});
        assert!(refusal("commit_wiki_page", heading).contains("over the 4096"));
        let elsewhere = json!({"page": {"path": "P.md"}, "prev_hashes": {"body": long}});
        assert!(refusal("commit_wiki_page", elsewhere).contains("over the 4096"), "a member named `body` elsewhere is not a text");
    }

    #[test]
    fn paths_are_held_to_the_vault_and_rules_name_both_parameters() {
        let error = check("move_note", &json!({"from": "A", "to": "../B"})).expect_err("climbs out");
        assert_eq!(error.code, ErrorCode::InvalidPath);
        assert!(error.message.starts_with("`to` \"../B\" is not a path inside the vault"), "{}", error.message);
        assert_eq!(check("rewrite_link", &json!({"from_target": "../A", "to_target": "/B"})), Ok(()), "link targets are not paths");
        // Issue 21 (red team, High): a move onto `.vaultlink/journal.json` was renamed over the
        // journal and deleted with it at the commit. Refused before anything is planned.
        for (tool, arguments) in [
            ("move_note", json!({"from": "A.md", "to": ".vaultlink/journal.json"})),
            ("move_note", json!({"from": ".vaultlink/journal.json", "to": "B.md"})),
            ("read_note", json!({"path": ".obsidian/app.json"})),
            ("delete_note", json!({"path": ".trash/Old.md", "confirm": true})),
            ("list_notes", json!({"folder": "notes/.hidden"})),
        ] {
            let error = check(tool, &arguments).expect_err("a hidden place");
            assert_eq!(error.code, ErrorCode::InvalidPath, "{arguments}");
            assert!(error.message.contains("is not a place of the vault's notes"), "{}", error.message);
        }
        assert!(check("move_note", &json!({"from": "A.md", "to": ".vaultlink/journal.json"}))
            .expect_err("refused")
            .message
            .contains("vaultlink's own journal"));
        assert!(refusal("delete_note", json!({"path": "A", "force": true})).contains("`force` needs `confirm: true`"));
        assert_eq!(check("delete_note", &json!({"path": "A", "force": false})), Ok(()));
        assert!(refusal("move_note", json!({"from": "A", "to": "B", "dry_run": true, "approved_plan_hash": "x"}))
            .contains("cannot be combined"));
        assert!(refusal("delete_note", json!({"path": "A", "confirm": false, "approved_plan_hash": "x"}))
            .contains("`approved_plan_hash` cannot be combined with `confirm: false`"));
        assert_eq!(check("delete_note", &json!({"path": "A", "approved_plan_hash": "x"})), Ok(()));
    }
}
