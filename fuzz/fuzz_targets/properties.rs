//! Fuzzes `update_properties`: one edit (the first byte picks the key, set or removed, and the
//! value) of a note (the rest) is refused with a typed code, never `internal`, or reads back in
//! `serde_yaml` as exactly the asked change with every other byte kept. The checks are
//! `crates/core/tests/fuzz_checks`; `cargo test` runs them over the inputs kept in
//! `crates/core/tests/fuzz_regressions/properties/` and over the tricky frontmatters of
//! `crates/core/tests/properties_yaml.rs`.

#![no_main]

#[path = "../../crates/core/tests/common/mod.rs"]
mod common;
#[path = "../../crates/core/tests/fuzz_checks/mod.rs"]
mod fuzz_checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::properties_target(data));
