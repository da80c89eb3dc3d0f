//! The checks the fuzz targets make (`fuzz/fuzz_targets/`), one function per target, taking the
//! fuzzer's bytes. They live here so that `cargo test` runs the same checks over the inputs the
//! fuzzers found interesting (`tests/fuzz_regressions/<target>/`), without nightly.

#![allow(dead_code)]

use std::collections::BTreeMap;

use vaultlink_core::frontmatter::{find_block, scan};
use vaultlink_core::parse::{parse_note, ParseConfig};

use crate::common;

/// `parse_note`: no panic; every span inside the text, on character boundaries, each target
/// span inside its link's span.
pub fn parse_note_target(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let note = parse_note("Fuzz.md", &text, &ParseConfig::OBSIDIAN);
    for link in &note.links {
        for span in [link.span, link.target_span] {
            assert!(span.start <= span.end && span.end <= text.len());
            assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
        }
        assert!(link.span.start <= link.target_span.start && link.target_span.end <= link.span.end);
    }
}

/// The frontmatter scanner: the block and every string's span lie inside the text on character
/// boundaries; each string has one source span per byte of its value, in order, inside the
/// string's own span; and each decoded character maps back to raw bytes that spell it: the
/// character itself, an escape (`\…`, `''`), or nothing at a folded line break.
pub fn frontmatter_target(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Some(block) = find_block(&text) else { return };
    for span in [block.span, block.content] {
        assert!(span.start <= span.end && span.end <= text.len(), "block {span:?}");
        assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end), "block {span:?}");
    }
    assert!(block.span.start <= block.content.start && block.content.end <= block.span.end);
    let found = scan(&text, block);
    for string in &found.strings {
        let span = string.span;
        assert!(span.start <= span.end && span.end <= text.len(), "{string:?}");
        assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end), "{string:?}");
        assert!(block.content.start <= span.start && span.end <= block.content.end, "{string:?} outside the block");
        assert_eq!(string.sources.len(), string.value.len(), "one source per byte of {:?}", string.value);
        let mut previous_end = span.start;
        for (at, character) in string.value.char_indices() {
            let first = string.sources[at];
            let last = string.sources[at + character.len_utf8() - 1];
            assert!(first.start >= previous_end || first.start == first.end, "sources out of order in {string:?}");
            assert!(span.start <= first.start && last.end <= span.end, "a source outside {string:?}");
            // The text the scanner read (invalid UTF-8 replaced), not the fuzzer's raw bytes.
            let raw = &text.as_bytes()[first.start..last.end];
            let copied = raw == character.to_string().as_bytes();
            let escaped = raw.first() == Some(&b'\\') || raw == b"''";
            let folded = first.start == last.end && (character == ' ' || character == '\n');
            // A line break written in the file (`\r\n` read as `\n`, or kept in a block scalar).
            let line_break = character == '\n' && (raw == b"\n" || raw == b"\r\n" || raw.is_empty());
            assert!(copied || escaped || folded || line_break, "{character:?} from {:?} in {string:?}", String::from_utf8_lossy(raw));
            if first.start != first.end {
                previous_end = last.end;
            }
        }
    }
}

/// The paths a fuzzed vault's files take: names that collide by case, by name in different
/// folders, attachments, a folder with a sub-folder.
const PATHS: [&str; 10] = ["A.md", "a.md", "dir/A.md", "dir/B.md", "B.md", "Old.md", "sub/Old.md", "img.png", "dir/sub/C.md", "Ü ö.md"];
/// Where a fuzzed move goes: free names, taken names, case-only renames, folders, names core
/// must refuse.
const DESTINATIONS: [&str; 16] = [
    "New.md",
    "dir/New.md",
    "A.md",
    "new/deep/X.md",
    "dir",
    "sub2",
    "b.md",
    "old.md",
    "dir/sub",
    "archive/dir",
    "img2.png",
    "x|y.md",
    "CON.md",
    "dir/a.md",
    "New",
    "Ü Ö.md",
];

/// Move planning on a fuzzed vault: the plan is refused with a code and a reason, or, applied,
/// keeps every link where it pointed (the invariant of `tests/common`).
pub fn plan_move_target(data: &[u8]) {
    if data.len() < 3 {
        return;
    }
    let (present, from, to) = (u16::from(data[0]) | (u16::from(data[1] & 0x03) << 8), data[1] >> 2, data[2]);
    let texts: Vec<String> = data[3..].split(|&byte| byte == 0).map(|text| String::from_utf8_lossy(text).into_owned()).collect();
    let mut files: common::Files = BTreeMap::new();
    for (number, path) in PATHS.iter().enumerate() {
        if present & (1 << number) != 0 {
            let text = if path.ends_with(".md") { texts.get(number).cloned().unwrap_or_default() } else { String::new() };
            files.insert((*path).to_owned(), text);
        }
    }
    let from_choices: Vec<&str> = PATHS.iter().copied().chain(["dir", "sub", "dir/sub", "Old"]).collect();
    let from = from_choices[usize::from(from) % from_choices.len()];
    let to = DESTINATIONS[usize::from(to) % DESTINATIONS.len()];
    match common::plan(&files, from, to) {
        Err(refusal) => {
            let (code, message) = refusal.split_once(' ').expect("a code and a message");
            assert!(!code.is_empty() && !message.trim().is_empty(), "{refusal}");
        }
        Ok(plan) => {
            let after = common::apply(&files, &plan);
            common::check_invariant(&files, &plan, &after);
        }
    }
}

/// `update_properties` on a fuzzed note: the first byte picks the edit (`property_edit`), the
/// rest is the note's text.
pub fn properties_target(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else { return };
    check_property_edit(&String::from_utf8_lossy(rest), selector);
}

/// The values a fuzzed edit sets: text, a number, a list holding a link, a link.
fn fuzzed_value(selector: u8) -> serde_json::Value {
    match selector & 3 {
        0 => serde_json::json!("done"),
        1 => serde_json::json!(2),
        2 => serde_json::json!(["[[A]]", "b c"]),
        _ => serde_json::json!("[[Home]]"),
    }
}

/// The string keys of a note's frontmatter as `serde_yaml` reads it (none when it reads no
/// mapping).
fn string_keys(text: &str) -> Vec<String> {
    let yaml = find_block(text).map_or("", |block| &text[block.content.range()]);
    match serde_yaml::from_str::<serde_yaml::Value>(yaml) {
        Ok(serde_yaml::Value::Mapping(map)) => map.keys().filter_map(|key| key.as_str().map(str::to_owned)).collect(),
        _ => Vec::new(),
    }
}

/// The edit `selector` asks of `text`: which key (one of the note's, or a new one), whether it
/// is set or removed, and to what.
pub fn property_edit(text: &str, selector: u8) -> (String, Option<serde_json::Value>) {
    let keys = string_keys(text);
    let pick = usize::from(selector >> 3) % (keys.len() + 1);
    let key = keys.get(pick).cloned().unwrap_or_else(|| "fresh".to_owned());
    let value = (selector & 4 == 0).then(|| fuzzed_value(selector));
    (key, value)
}

/// One edit of one note's properties is either refused with a typed code (never `internal`),
/// or applied so that `serde_yaml` reads exactly the asked change, the body is kept, and no
/// line of another entry is among the bytes the edit replaced.
pub fn check_property_edit(text: &str, selector: u8) {
    use vaultlink_core::error::{ErrorCode, Failure};
    use vaultlink_core::properties::{plan, PropertiesArguments};

    let (key, value) = property_edit(text, selector);
    let mut arguments = PropertiesArguments {
        path: "Fuzz.md".to_owned(),
        set: serde_json::Map::new(),
        remove: Vec::new(),
        dry_run: None,
        approved_plan_hash: None,
        response_format: Default::default(),
    };
    match &value {
        Some(value) => {
            arguments.set.insert(key.clone(), value.clone());
        }
        None => arguments.remove.push(key.clone()),
    }
    let (plan, _) = match plan("Fuzz.md", text, &arguments) {
        Ok(planned) => planned,
        Err(refusal) => {
            assert_ne!(refusal.code(), ErrorCode::Internal, "{key:?} {value:?} on {text:?}: {}", refusal.message());
            assert!(!refusal.message().trim().is_empty());
            return;
        }
    };
    let after = plan.edits.first().map_or(text.to_owned(), |file| vaultlink_core::plan::apply_edits(text, &file.edits));
    // The body is kept.
    let body =
        |text: &str| find_block(text).map_or(text.trim_start_matches('\u{feff}').to_owned(), |block| text[block.span.end..].to_owned());
    assert_eq!(body(text), body(&after), "{key:?} {value:?} on {text:?}");
    // serde_yaml reads exactly the asked change.
    let read = |text: &str| {
        let yaml = find_block(text).map_or("", |block| &text[block.content.range()]);
        match serde_yaml::from_str::<serde_yaml::Value>(yaml) {
            Ok(serde_yaml::Value::Mapping(map)) => map,
            Ok(serde_yaml::Value::Null) => serde_yaml::Mapping::new(),
            other => panic!("{key:?} {value:?} on {text:?} was planned, and its frontmatter reads as {other:?}"),
        }
    };
    let mut expected = read(text);
    let name = serde_yaml::Value::String(key.clone());
    match &value {
        Some(value) => {
            expected.insert(name, serde_yaml::to_value(value).expect("a JSON value is YAML"));
        }
        None => {
            expected.remove(&name);
        }
    }
    assert_eq!(read(&after), expected, "{key:?} {value:?} on {text:?} gave {after:?}");
    // Every other byte is kept: the bytes each edit replaces (from the start of their first
    // line) start no other entry's line.
    let replaced_spans = plan.edits.first().map(|file| file.edits.iter().map(|edit| edit.span).collect::<Vec<_>>()).unwrap_or_default();
    for span in replaced_spans.into_iter().filter(|span| span.start < span.end) {
        let line_start = text.as_bytes()[..span.start].iter().rposition(|&byte| byte == b'\n').map_or(0, |at| at + 1);
        for line in text[line_start..span.end].split('\n') {
            for other in string_keys(text).iter().filter(|other| **other != key) {
                // `other:` followed by a space or the line's end (`a:b: 1` is the key `a:b`).
                let starts = [format!("{other}:"), format!("\"{other}\":"), format!("'{other}':")];
                let starts_entry = |written: &String| {
                    line.strip_prefix(written.as_str()).is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t', '\r']))
                };
                assert!(!starts.iter().any(starts_entry), "{key:?} {value:?} on {text:?} replaced the entry of {other:?}: {after:?}");
            }
        }
    }
}
