//! Fuzzes the note parser: any text parses without a panic, and every span it reports lies
//! inside the text on character boundaries, with each target span inside its link's span.
//!
//! Run with `scripts/fuzz.sh` (or `cargo +nightly fuzz run parse_note`) from the repository
//! root. The checks are `crates/core/tests/fuzz_checks`, which `cargo test` also runs over the
//! inputs kept in `crates/core/tests/fuzz_regressions/parse_note/`.

#![no_main]

#[path = "../../crates/core/tests/common/mod.rs"]
mod common;
#[path = "../../crates/core/tests/fuzz_checks/mod.rs"]
mod fuzz_checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::parse_note_target(data));
