//! Fuzzes move planning on fuzzed vaults: every plan is refused with a code and a reason, or
//! keeps every link where it pointed once applied (the invariant of `crates/core/tests/common`).
//! The checks are `crates/core/tests/fuzz_checks`; `cargo test` runs them over the inputs kept in
//! `crates/core/tests/fuzz_regressions/plan_move/`.

#![no_main]

#[path = "../../crates/core/tests/common/mod.rs"]
mod common;
#[path = "../../crates/core/tests/fuzz_checks/mod.rs"]
mod fuzz_checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_checks::plan_move_target(data));
