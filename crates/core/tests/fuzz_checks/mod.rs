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
