//! Fuzzes the frontmatter span scanner: the block and every string lie on character boundaries
//! inside the text, and every decoded character maps back to raw bytes that spell it.
//! The checks are `crates/core/tests/fuzz_checks`; `cargo test` runs them over the inputs kept in
//! `crates/core/tests/fuzz_regressions/frontmatter/`.

#![no_main]

#[path = "../../crates/core/tests/common/mod.rs"]
mod common;
#[path = "../../crates/core/tests/fuzz_checks/mod.rs"]
mod fuzz_checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::frontmatter_target(data));
