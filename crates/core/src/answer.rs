//! What every operation's answer shares: how much of each item it carries, the page limits, and
//! the typed error an operation fails with. `ops` and `evidence` both speak these, so neither
//! imports the other for them.

use crate::error::{ErrorCode, Failure};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The most items one call returns; `limit` is capped here.
pub const MAX_LIMIT: usize = 1_000;
/// Items returned when the caller gives no `limit`.
pub const DEFAULT_LIMIT: usize = 100;
/// When the caller gives no `limit`, a page also ends before its items' JSON passes this many
/// bytes (the first item is always kept), so that a default answer stays under 20 KB with its
/// envelope and an agent's context is not flooded.
pub const DEFAULT_PAGE_BYTES: usize = 16_000;
/// The most bytes of items' JSON one page holds whatever its `limit`: a page given an explicit
/// `limit` still ends before this, so that the whole answer stays under [`MAX_ANSWER_BYTES`].
pub const MAX_PAGE_BYTES: usize = 64_000;
/// The ceiling of every tool's answer on the wire: its JSON as structured content plus the same
/// JSON again as text (escaping can double that copy) stays under this many bytes, whatever the
/// arguments. Pages hold at most [`MAX_PAGE_BYTES`] of items, a `read_note` page at most
/// [`MAX_READ_BYTES`] of JSON-escaped body, and a list inside one item at most [`MAX_LISTED`]
/// entries, with its count; so an answer's JSON stays under a third of this.
pub const MAX_ANSWER_BYTES: usize = 256_000;
/// The most entries a list inside one item (a lint proposal's referrers, an undo's restored
/// notes) holds; the item counts them all.
pub const MAX_LISTED: usize = 50;
/// The most bytes of a note's body one `read_note` call returns when no `max_bytes` is given.
pub const DEFAULT_READ_BYTES: usize = 16_000;
/// The bounds of `read_note`'s `max_bytes`, counted as the body's JSON-escaped bytes.
pub const MIN_READ_BYTES: usize = 1_000;
pub const MAX_READ_BYTES: usize = 64_000;
/// Referrers listed per missing target by `find_unresolved_links`; `referrer_count` counts all.
pub const MAX_REFERRERS_PER_TARGET: usize = 50;

/// How much of each item an answer carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResponseFormat {
    /// Only what is needed to act: fewer tokens for an agent.
    Concise,
    /// Everything, positions and spans included.
    #[default]
    Detailed,
}

/// Why an operation failed, with a stable code an agent can act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpError {
    /// No note at the given path.
    NoteNotFound { path: String },
    /// The arguments do not fit the operation.
    InvalidArguments { detail: String },
}

impl Failure for OpError {
    /// A stable, machine-readable code.
    fn code(&self) -> ErrorCode {
        match self {
            OpError::NoteNotFound { .. } => ErrorCode::NoteNotFound,
            OpError::InvalidArguments { .. } => ErrorCode::InvalidArguments,
        }
    }

    fn message(&self) -> String {
        match self {
            OpError::NoteNotFound { path } => format!("there is no note at `{path}` in this vault"),
            OpError::InvalidArguments { detail } => format!("the arguments do not fit: {detail}"),
        }
    }

    /// What to do next.
    fn hint(&self) -> &'static str {
        match self {
            OpError::NoteNotFound { .. } => {
                "Give the note's path relative to the vault root, such as `Folder/Note.md` (the `.md` may be left out; case does not matter). Call list_notes to see the paths."
            }
            OpError::InvalidArguments { .. } => {
                "Check the tool's input schema: every required parameter present, no unknown ones, and a cursor only as a previous answer gave it."
            }
        }
    }

    /// True when the same call may succeed later without any change.
    fn retryable(&self) -> bool {
        false
    }
}

impl std::fmt::Display for OpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for OpError {}

/// The tag that binds a cursor to what it pages: the list (`scope`: the operation and what it
/// was asked about) and its size when the cursor was given. A cursor from another list, or from
/// before the list changed, carries another tag.
fn cursor_tag(scope: &str, total: usize) -> String {
    let digest = Sha256::digest(format!("{scope}\0{total}").as_bytes());
    crate::hex::hex(&digest[..6])
}

/// A cursor for the item at `offset` of the list `scope` of `total` items: `<offset>.<tag>`.
pub fn cursor_for(scope: &str, total: usize, offset: usize) -> String {
    format!("{offset}.{}", cursor_tag(scope, total))
}

/// The offset a cursor points at, when this server gave it for this list as it is now.
pub fn parse_cursor(cursor: Option<&str>, scope: &str, total: usize) -> Result<usize, OpError> {
    let Some(cursor) = cursor else { return Ok(0) };
    let foreign = || OpError::InvalidArguments {
        detail: format!("`cursor` {cursor:?} is not one this server gave; leave it out to start at the beginning"),
    };
    let (offset, tag) = cursor.split_once('.').ok_or_else(foreign)?;
    let offset: usize = offset.parse().map_err(|_| foreign())?;
    if tag != cursor_tag(scope, total) || offset > total {
        return Err(OpError::InvalidArguments {
            detail: format!(
                "`cursor` {cursor:?} was given for another list or note, or this one changed since; leave it out to start again"
            ),
        });
    }
    Ok(offset)
}

/// One page of `items`, the list `scope` names: `(page, total, next_cursor)`. A cursor is bound
/// to its list ([`cursor_for`]). Without a `limit`, `default_limit` items at most, and the page
/// also ends before its items pass `DEFAULT_PAGE_BYTES` of JSON; with one, before they pass
/// `MAX_PAGE_BYTES`.
pub fn page_with_default<T: Serialize>(
    items: Vec<T>,
    limit: Option<usize>,
    cursor: Option<&str>,
    default_limit: usize,
    scope: &str,
) -> Result<(Vec<T>, usize, Option<String>), OpError> {
    page_built(items, limit, cursor, default_limit, scope, |item| item)
}

/// [`page_with_default`] over a list of keys, each item built from its key by `build` only when
/// the page holds it: a list whose items cost a search each (`find_unresolved_links`' referrers)
/// pays for one page, not the whole list.
pub fn page_built<K, T: Serialize>(
    keys: Vec<K>,
    limit: Option<usize>,
    cursor: Option<&str>,
    default_limit: usize,
    scope: &str,
    mut build: impl FnMut(K) -> T,
) -> Result<(Vec<T>, usize, Option<String>), OpError> {
    let budget = if limit.is_none() { DEFAULT_PAGE_BYTES } else { MAX_PAGE_BYTES };
    let limit = limit.unwrap_or(default_limit);
    if limit == 0 || limit > MAX_LIMIT {
        return Err(OpError::InvalidArguments { detail: format!("`limit` must be from 1 to {MAX_LIMIT}, not {limit}") });
    }
    let total = keys.len();
    let start = parse_cursor(cursor, scope, total)?;
    let mut page = Vec::new();
    let mut bytes = 0;
    for key in keys.into_iter().skip(start).take(limit) {
        let item = build(key);
        // Each item's JSON plus its separating comma.
        bytes += serde_json::to_string(&item).map_or(0, |json| json.len()) + 1;
        if bytes > budget && !page.is_empty() {
            break;
        }
        page.push(item);
    }
    let next = (start + page.len() < total).then(|| cursor_for(scope, total, start + page.len()));
    Ok((page, total, next))
}

/// [`page_with_default`] with [`DEFAULT_LIMIT`].
pub fn page<T: Serialize>(
    items: Vec<T>,
    limit: Option<usize>,
    cursor: Option<&str>,
    scope: &str,
) -> Result<(Vec<T>, usize, Option<String>), OpError> {
    page_with_default(items, limit, cursor, DEFAULT_LIMIT, scope)
}

/// A digest of the list a cursor pages, for its scope: a cursor then stays good only while the
/// list holds the same entries in the same order. Its length alone would let a note added and
/// another removed between pages shift the list under the cursor, which would skip one.
pub fn list_digest<'a>(entries: impl IntoIterator<Item = &'a str>) -> String {
    let mut digest = Sha256::new();
    for entry in entries {
        digest.update(entry.as_bytes());
        digest.update([0]);
    }
    crate::hex::hex(&digest.finalize()[..8])
}

/// `list` cut to [`MAX_LISTED`] entries, and how many it held.
pub fn capped<T>(mut list: Vec<T>) -> (Vec<T>, usize) {
    let count = list.len();
    list.truncate(MAX_LISTED);
    (list, count)
}

/// Every array in `value` (at any depth) cut to [`MAX_LISTED`] entries; an object's array `key`
/// that was cut gains a `key_count` beside it with the number it held. For free-form evidence,
/// whose lists grow with the vault.
pub fn cap_lists(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            let mut counts = Vec::new();
            for (key, entry) in map.iter_mut() {
                if let Value::Array(items) = entry {
                    if items.len() > MAX_LISTED {
                        counts.push((format!("{key}_count"), items.len()));
                        items.truncate(MAX_LISTED);
                    }
                }
                cap_lists(entry);
            }
            for (key, count) in counts {
                map.insert(key, Value::from(count));
            }
        }
        Value::Array(items) => {
            items.truncate(MAX_LISTED);
            items.iter_mut().for_each(cap_lists);
        }
        _ => {}
    }
}

/// The most bytes of JSON an answer holds once [`bound`]: a third of [`MAX_ANSWER_BYTES`], since
/// the wire carries it twice and its text copy's escapes can double it.
pub const MAX_ANSWER_JSON_BYTES: usize = MAX_ANSWER_BYTES / 3;

/// Holds any answer under [`MAX_ANSWER_JSON_BYTES`] of JSON, whatever the tool: both edges apply
/// it to every answer, as the last guard of the ceiling. Answers paged and capped as above are
/// already under it and pass unchanged; an answer still over it (a note with tens of thousands
/// of links, a huge captured text) has its largest list or text halved, again and again, until
/// it fits: a cut list's count goes beside it as `<key>_count`, a cut text's length in bytes as
/// `<key>_bytes`, and the answer says `"cut": true`.
pub fn bound(value: &mut serde_json::Value) {
    let mut cut = false;
    // Each round halves the largest part, so a few dozen rounds bring any answer a call can
    // make under the ceiling; the bound on rounds only guards against a loop.
    for _ in 0..200 {
        if serde_json::to_string(value).map_or(0, |json| json.len()) <= MAX_ANSWER_JSON_BYTES {
            break;
        }
        if !halve_largest(value) {
            break;
        }
        cut = true;
    }
    if cut {
        if let Some(fields) = value.as_object_mut() {
            fields.insert("cut".to_owned(), serde_json::Value::Bool(true));
        }
    }
}

/// The JSON length of `value`.
fn json_len(value: &serde_json::Value) -> usize {
    serde_json::to_string(value).map_or(0, |json| json.len())
}

/// Halves the largest list (of two entries or more) or text (over 64 bytes) in `value`, noting
/// what it held beside it; false when there is nothing left to halve.
fn halve_largest(value: &mut serde_json::Value) -> bool {
    use serde_json::Value;
    // The path to the largest part, as object keys and array indexes.
    fn largest(value: &Value, path: &mut Vec<PathStep>, best: &mut Option<(usize, Vec<PathStep>)>) {
        let size = json_len(value);
        let halvable = match value {
            Value::Array(items) => items.len() >= 2,
            Value::String(text) => text.len() > 64,
            _ => false,
        };
        if halvable && best.as_ref().is_none_or(|(most, _)| size > *most) {
            *best = Some((size, path.clone()));
        }
        match value {
            Value::Object(map) => {
                for (key, entry) in map {
                    path.push(PathStep::Key(key.clone()));
                    largest(entry, path, best);
                    path.pop();
                }
            }
            Value::Array(items) => {
                for (index, entry) in items.iter().enumerate() {
                    path.push(PathStep::Index(index));
                    largest(entry, path, best);
                    path.pop();
                }
            }
            _ => {}
        }
    }
    let mut best = None;
    largest(value, &mut Vec::new(), &mut best);
    let Some((_, path)) = best else { return false };
    let Some((last, parents)) = path.split_last() else {
        // The answer itself is the largest part: only an object's members are cut.
        return false;
    };
    let mut parent = &mut *value;
    for step in parents {
        parent = match (step, parent) {
            (PathStep::Key(key), Value::Object(map)) => map.get_mut(key).expect("the path was found in this value"),
            (PathStep::Index(index), Value::Array(items)) => &mut items[*index],
            _ => return false,
        };
    }
    let note = |length: usize, suffix: &str| match last {
        PathStep::Key(key) => Some((format!("{key}_{suffix}"), length)),
        PathStep::Index(_) => None,
    };
    let target = match (last, &mut *parent) {
        (PathStep::Key(key), Value::Object(map)) => map.get_mut(key),
        (PathStep::Index(index), Value::Array(items)) => items.get_mut(*index),
        _ => None,
    };
    let noted = match target {
        Some(Value::Array(items)) => {
            let count = items.len();
            items.truncate(count / 2);
            note(count, "count")
        }
        Some(Value::String(text)) => {
            let bytes = text.len();
            let mut end = bytes / 2;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text.truncate(end);
            note(bytes, "bytes")
        }
        _ => return false,
    };
    if let (Some((key, length)), Value::Object(map)) = (noted, parent) {
        // The first count stands: a list halved twice still counts what it held at the start.
        map.entry(key).or_insert(Value::from(length));
    }
    true
}

#[derive(Debug, Clone)]
enum PathStep {
    Key(String),
    Index(usize),
}

/// The bytes `character` takes inside a JSON string.
pub fn json_escaped_len(character: char) -> usize {
    match character {
        '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
        control if (control as u32) < 0x20 => 6,
        other => other.len_utf8(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_explicit_limit_still_ends_the_page_before_its_byte_ceiling() {
        let items: Vec<String> = (0..1_000).map(|number| format!("{number:0>2000}")).collect();
        let (page, total, next) = page(items, Some(MAX_LIMIT), None, "list").unwrap();
        assert_eq!(total, 1_000);
        assert!(page.len() < 40 && serde_json::to_string(&page).unwrap().len() <= MAX_PAGE_BYTES + 2, "{}", page.len());
        assert_eq!(next, Some(cursor_for("list", 1_000, page.len())));
    }

    #[test]
    fn lists_in_evidence_are_cut_and_counted() {
        let mut evidence = serde_json::json!({"referrers": (0..379).collect::<Vec<_>>(), "known_as": [1, 2], "basis": "none"});
        cap_lists(&mut evidence);
        assert_eq!(evidence["referrers"].as_array().map(Vec::len), Some(MAX_LISTED));
        assert_eq!(evidence["referrers_count"], 379);
        assert_eq!(evidence["known_as"], serde_json::json!([1, 2]));
        assert!(evidence.get("known_as_count").is_none());
    }

    #[test]
    fn bound_holds_any_answer_under_its_ceiling_and_counts_what_it_cut() {
        let links: Vec<serde_json::Value> =
            (0..20_000).map(|number| serde_json::json!({"target": format!("Note {number}"), "line": number})).collect();
        let mut answer = serde_json::json!({"path": "Big.md", "links": links, "text": "x".repeat(400_000)});
        bound(&mut answer);
        assert!(json_len(&answer) <= MAX_ANSWER_JSON_BYTES, "{}", json_len(&answer));
        assert_eq!(answer["links_count"], 20_000);
        assert_eq!(answer["text_bytes"], 400_000);
        assert_eq!(answer["cut"], true);
        assert_eq!(answer["path"], "Big.md");
        let mut small = serde_json::json!({"links": [1, 2, 3]});
        bound(&mut small);
        assert_eq!(small, serde_json::json!({"links": [1, 2, 3]}), "an answer under the ceiling passes unchanged");
    }

    #[test]
    fn a_list_digest_changes_when_one_entry_replaces_another() {
        assert_ne!(list_digest(["a.md", "b.md", "c.md"]), list_digest(["a.md", "c.md", "d.md"]));
        assert_eq!(list_digest(["a.md", "b.md"]), list_digest(["a.md", "b.md"]));
    }
}
