//! Runs the examples of `tests/spec/link_form.md`: each is a vault, its settings and a move or a
//! rewrite, then every link the change rewrites, before and after. The plugin's
//! `link-form.test.ts` runs the same file through the wasm module. Every move is also applied
//! and checked against the invariant (each link finds what it found).

mod common;

use std::collections::BTreeMap;

use common::{apply, check_invariant_with, files, plan_with, Files};
use vaultlink_core::error::Failure;
use vaultlink_core::link_form::RewriteForm;
use vaultlink_core::link_rewrite::{notes_to_read_for_rewrite, plan_rewrite_link};
use vaultlink_core::plan::MovePlan;
use vaultlink_core::Vault;

const FENCE: &str = "````````````````````````````````";
const SPEC: &str = include_str!("spec/link_form.md");

struct Example {
    line: usize,
    app_json: Option<String>,
    keep: bool,
    /// `("move" | "rewrite", from, to)`.
    change: (String, String, String),
    files: Files,
    expected: String,
}

fn examples() -> Vec<Example> {
    let mut out = Vec::new();
    let mut lines = SPEC.lines().enumerate();
    while let Some((number, line)) = lines.next() {
        if line.strip_prefix(FENCE).map(str::trim) != Some("example") {
            continue;
        }
        let (mut app_json, mut keep, mut change) = (None, false, None);
        let (mut fixture, mut expected, mut in_expected) = (String::new(), String::new(), false);
        for (_, line) in lines.by_ref() {
            if line == FENCE {
                break;
            }
            if line == "." && !in_expected {
                in_expected = true;
            } else if in_expected {
                expected.push_str(line);
                expected.push('\n');
            } else if let Some(text) = line.strip_prefix("app.json: ").filter(|_| fixture.is_empty()) {
                app_json = Some(text.to_owned());
            } else if line == "link form: keep" && fixture.is_empty() {
                keep = true;
            } else if let Some((kind, rest)) = line.split_once(": ").filter(|(kind, _)| matches!(*kind, "move" | "rewrite")) {
                let (from, to) = rest.split_once(" → ").expect("a change is `from → to`");
                change = Some((kind.to_owned(), from.to_owned(), to.to_owned()));
            } else {
                fixture.push_str(line);
                fixture.push('\n');
            }
        }
        out.push(Example {
            line: number + 1,
            app_json,
            keep,
            change: change.expect("every example names its change"),
            files: files(&fixture),
            expected,
        });
    }
    out
}

/// What the change rewrites, as the spec writes it, and the plan.
fn run(example: &Example) -> (String, Vault, MovePlan) {
    let (mut config, warnings) = match &example.app_json {
        Some(text) => vaultlink_core::config::from_app_json(text),
        None => (vaultlink_core::index::IndexConfig::obsidian_defaults(), Vec::new()),
    };
    if example.keep {
        config.link_form = RewriteForm::Keep;
    }
    let mut vault = Vault::new(config);
    for (path, text) in &example.files {
        vault.upsert(path, text);
    }
    let (kind, from, to) = &example.change;
    let plan = if kind == "move" {
        plan_with(&vault, &example.files, from, to)
    } else {
        let texts: BTreeMap<String, String> =
            notes_to_read_for_rewrite(&vault, from).into_iter().map(|path| (path.clone(), example.files[&path].clone())).collect();
        plan_rewrite_link(&vault, from, to, &texts).map_err(|error| format!("{} {}", error.code(), error.message()))
    }
    .unwrap_or_else(|error| panic!("the example at line {} was refused: {error}", example.line));
    let mut out = String::new();
    for change in &plan.changes {
        out.push_str(&format!("{}: {} → {}\n", change.note, change.before, change.after));
    }
    for warning in warnings {
        out.push_str(&format!("warning: {warning}\n"));
    }
    (out, vault, plan)
}

#[test]
fn every_example_of_the_spec_writes_its_links_as_it_says() {
    let examples = examples();
    assert!(examples.len() >= 20, "the spec holds {} examples", examples.len());
    let mut failures = Vec::new();
    for example in &examples {
        let (got, vault, plan) = run(example);
        if got != example.expected {
            failures.push(format!("line {}:\nexpected:\n{}got:\n{}", example.line, example.expected, got));
            continue;
        }
        if example.change.0 == "move" {
            let after = apply(&example.files, &plan);
            check_invariant_with(&vault, &example.files, &plan, &after);
        }
    }
    assert!(failures.is_empty(), "{} of {} examples differ:\n\n{}", failures.len(), examples.len(), failures.join("\n"));
}
