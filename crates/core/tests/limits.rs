//! Issue 21 (red team, High): memory grew with links × the length of a new name or target, with
//! no cap (a 10 MB `rewrite_link` target drove the server to 23 GB; a 10 KB target over 20,000
//! links peaked at 1 GB). Names and targets are capped at the schema, in bytes, before anything
//! is planned, and a plan's new link text is bounded as it is made. Counted, not timed.

use serde_json::json;
use vaultlink_core::error::{ErrorCode, Failure};
use vaultlink_core::index::{IndexConfig, NewLinkFormat};
use vaultlink_core::link_rewrite::plan_rewrite_link;
use vaultlink_core::names::MAX_TARGET_BYTES;
use vaultlink_core::parameters::check;
use vaultlink_core::plan::MovePlan;
use vaultlink_core::plan::MAX_PLAN_TEXT_BYTES;
use vaultlink_core::rename::plan_move;
use vaultlink_core::Vault;

/// A target of `bytes` bytes, in names of 200 bytes (each under the 255 a name may have).
fn long_target(bytes: usize) -> String {
    let mut target = String::new();
    while target.len() + 201 < bytes {
        target.push_str(&"n".repeat(200));
        target.push('/');
    }
    target.push_str(&"t".repeat(bytes - target.len()));
    target
}

/// `notes` notes of `links` links to `Old` each, and `Old` itself.
fn vault_of_links(notes: usize, links: usize) -> (Vault, std::collections::BTreeMap<String, String>) {
    vault_of("[[Old]] ", notes, links)
}

/// `notes` notes of `links` times `link` each, and `Old.md`.
fn vault_of(link: &str, notes: usize, links: usize) -> (Vault, std::collections::BTreeMap<String, String>) {
    let mut vault = Vault::new(IndexConfig::obsidian_defaults());
    let mut texts = std::collections::BTreeMap::new();
    for note in 0..notes {
        let text = link.repeat(links);
        vault.upsert(&format!("N{note}.md"), &text);
        texts.insert(format!("N{note}.md"), text);
    }
    vault.upsert("Old.md", "# Old\n");
    (vault, texts)
}

/// The bytes of new link text a plan holds: each edit's replacement and each change's `after`.
fn plan_text_bytes(plan: &MovePlan) -> usize {
    plan.edits.iter().flat_map(|file| &file.edits).map(|edit| edit.replacement.len()).sum::<usize>()
        + plan.changes.iter().map(|change| change.after.len()).sum::<usize>()
}

#[test]
fn a_ten_kilobyte_target_or_a_long_name_is_refused_before_planning() {
    // 10 KB of ASCII is over the schema's 4,096 characters; 10 KB of four-byte characters is
    // under it, and over the 4,096 bytes a target may have.
    for target in ["x".repeat(10 * 1024), "𝔵".repeat(10 * 1024 / 4)] {
        let error = check("rewrite_link", &json!({"from_target": "Old", "to_target": target})).expect_err("refused");
        assert_eq!(error.code, ErrorCode::InvalidArguments, "{}", error.message);
        assert!(error.message.contains("`to_target`"), "{}", error.message);
    }
    // A name of 256 bytes (64 four-byte characters, well under the character cap).
    for (tool, arguments) in [
        ("move_note", json!({"from": "Old.md", "to": format!("{}.md", "𝔵".repeat(64))})),
        ("move_note", json!({"from": "Old.md", "to": format!("a/{}/b.md", "x".repeat(256))})),
        ("rewrite_link", json!({"from_target": "Old", "to_target": format!("{}/x", "x".repeat(256))})),
        ("read_note", json!({"path": "x".repeat(300)})),
    ] {
        let error = check(tool, &arguments).expect_err("refused");
        assert_eq!(error.code, ErrorCode::InvalidName, "{}", error.message);
        assert!(error.message.contains("more than the 255 bytes"), "{}", error.message);
    }
    assert_eq!(check("rewrite_link", &json!({"from_target": "Old", "to_target": long_target(MAX_TARGET_BYTES)})), Ok(()));
}

#[test]
fn a_plan_of_a_long_target_over_many_links_stays_bounded() {
    let target = long_target(MAX_TARGET_BYTES);
    // 20,000 links, as the red team's: refused as the plan is made, once its new text passes
    // the bound, not after it holds all of it.
    let (vault, texts) = vault_of_links(20, 1000);
    let error = plan_rewrite_link(&vault, "Old", &target, &texts).expect_err("refused");
    assert_eq!(error.code(), ErrorCode::TooLarge);
    let message = error.message();
    assert!(message.contains("more than 32 MiB of new link text"), "{message}");
    let at: usize =
        message.rsplit("at link ").next().and_then(|rest| rest.trim_end_matches(|c: char| !c.is_ascii_digit()).parse().ok()).unwrap();
    // Each link holds the target twice (the edit, and the link in the answer): the plan stopped
    // at the first link past the bound.
    let per_link = 2 * MAX_TARGET_BYTES + "[[]]".len();
    assert!(at * per_link > MAX_PLAN_TEXT_BYTES && (at - 1) * per_link <= MAX_PLAN_TEXT_BYTES + per_link, "stopped at link {at}");
    assert!(at < 20_000);

    // Under the bound, a plan is made, and what it holds is counted within it.
    let (vault, texts) = vault_of_links(2, 1000);
    let plan = plan_rewrite_link(&vault, "Old", &target, &texts).expect("planned");
    assert_eq!(plan.changes.len(), 2000);
    let bytes = plan_text_bytes(&plan);
    assert!(bytes >= 2000 * per_link && bytes <= MAX_PLAN_TEXT_BYTES, "{bytes} bytes");
}

/// Issue 21: `move_note`'s plan had no bound, where `rewrite_link`'s had. A note moved to a long
/// path rewrites every Markdown link to it (a wikilink by name still resolves and is left), each
/// holding the new path twice: refused with `too_large` as the plan is made, at the first link
/// past the bound, not once it holds all 20,000.
#[test]
fn a_move_whose_plan_would_pass_the_bound_is_refused_as_it_is_made() {
    let to = format!("{}.md", long_target(MAX_TARGET_BYTES - 3));
    let (mut vault, texts) = vault_of("[x](Old.md) ", 20, 1000);
    // Under "absolute" every rewritten link holds the whole long path.
    vault.reconfigure(IndexConfig { new_link_format: NewLinkFormat::Absolute, ..IndexConfig::obsidian_defaults() });
    let error = plan_move(&vault, "Old.md", &to, &texts).expect_err("refused");
    assert_eq!(error.code(), ErrorCode::TooLarge);
    let message = error.message();
    assert!(message.contains("more than 32 MiB of new link text") && message.contains("nothing was planned"), "{message}");
    assert!(error.hint().contains("shorter path"), "{}", error.hint());
    let at: usize = message.split("at link ").nth(1).and_then(|rest| rest.split(' ').next()).and_then(|n| n.parse().ok()).unwrap();
    let notes_in: usize = message.rsplit(", ").next().and_then(|rest| rest.split(' ').next()).and_then(|n| n.parse().ok()).unwrap();
    // Each link holds the path twice (the edit, and the link in the answer).
    let per_link = 2 * to.len() + "[x]()".len();
    let links = (notes_in - 1) * 1000 + at;
    assert!(links * per_link > MAX_PLAN_TEXT_BYTES && links * per_link <= MAX_PLAN_TEXT_BYTES + 2 * per_link, "stopped at link {links}");

    // Under the bound, the move is planned, and what it holds is counted within it.
    let (mut vault, texts) = vault_of("[x](Old.md) ", 2, 1000);
    vault.reconfigure(IndexConfig { new_link_format: NewLinkFormat::Absolute, ..IndexConfig::obsidian_defaults() });
    let plan = plan_move(&vault, "Old.md", &to, &texts).expect("planned");
    assert_eq!(plan.changes.len(), 2000);
    let bytes = plan_text_bytes(&plan);
    assert!(bytes >= 2000 * per_link && bytes <= MAX_PLAN_TEXT_BYTES, "{bytes} bytes");
}
