//! Fuzzes the note parser: any text parses without a panic, and every span it reports lies
//! inside the text on character boundaries, with each target span inside its link's span.
//!
//! Run with `cargo +nightly fuzz run parse_note` from the repository root. Inputs that once
//! broke something are kept in `crates/core/tests/fuzz_regressions/` and run by `cargo test`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use vaultlink_core::parse::{parse_note, ParseConfig};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let note = parse_note("Fuzz.md", &text, &ParseConfig::OBSIDIAN);
    for link in &note.links {
        for span in [link.span, link.target_span] {
            assert!(span.start <= span.end && span.end <= text.len());
            assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
        }
        assert!(link.span.start <= link.target_span.start && link.target_span.end <= link.span.end);
    }
});
