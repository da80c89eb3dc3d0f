//! The inputs the fuzzers found interesting, run through the fuzz targets' own checks by a plain
//! `cargo test`: crashes once found (named after what broke) and a small minimised corpus per
//! target, in `tests/fuzz_regressions/<target>/`. `scripts/fuzz.sh` adds to them.

mod common;
mod fuzz_checks;

fn run(target: &str, check: fn(&[u8])) {
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions").join(target);
    let mut inputs: Vec<_> = std::fs::read_dir(&folder)
        .unwrap_or_else(|error| panic!("{}: {error}", folder.display()))
        .map(|entry| entry.expect("a readable entry").path())
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty(), "{} holds no inputs", folder.display());
    for input in &inputs {
        let data = std::fs::read(input).expect("a readable input");
        let outcome = std::panic::catch_unwind(|| check(&data));
        assert!(outcome.is_ok(), "{target} fails on {}", input.display());
    }
    common::say(&format!("{target}: {} inputs", inputs.len()));
}

#[test]
fn parse_note() {
    run("parse_note", fuzz_checks::parse_note_target);
}

#[test]
fn frontmatter() {
    run("frontmatter", fuzz_checks::frontmatter_target);
}

#[test]
fn plan_move() {
    run("plan_move", fuzz_checks::plan_move_target);
}

#[test]
fn properties() {
    run("properties", fuzz_checks::properties_target);
}
