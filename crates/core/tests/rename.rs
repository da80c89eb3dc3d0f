//! Moves and renames keep every link pointing where it pointed. Each fixture is a small vault
//! (`//- path` starts a file), a move, and the changed files as they must read afterwards; every
//! applied plan is also checked against the invariant by resolving the whole vault before and
//! after. A property test does the same for random moves on generated vaults.

mod common;

use std::collections::BTreeMap;
use vaultlink_core::error::Failure;

use common::{apply, check_invariant, files, plan, plan_keeping, Files, Random};
use vaultlink_core::plan::MovePlan;

/// Moves `from` to `to` in the fixture and checks the files that changed, as `//- path` blocks.
fn check(fixture: &str, from: &str, to: &str, expected_changes: &str) {
    check_planned(fixture, from, to, expected_changes, plan);
}

/// [`check`] with each rewritten link keeping the form it was written in, as `--link-form keep`
/// asks.
fn check_keeping(fixture: &str, from: &str, to: &str, expected_changes: &str) {
    check_planned(fixture, from, to, expected_changes, plan_keeping);
}

fn check_planned(fixture: &str, from: &str, to: &str, expected_changes: &str, plan: fn(&Files, &str, &str) -> Result<MovePlan, String>) {
    let before = files(fixture);
    let plan = plan(&before, from, to).unwrap_or_else(|error| panic!("the move was refused: {error}"));
    let after = apply(&before, &plan);
    check_invariant(&before, &plan, &after);
    let changed: Files =
        after.iter().filter(|(path, text)| before.get(*path) != Some(*text)).map(|(p, t)| (p.clone(), t.clone())).collect();
    let expected = files(expected_changes);
    assert_eq!(changed, expected, "changed files after moving {from} to {to}");
}

fn check_refused(fixture: &str, from: &str, to: &str, code: &str) {
    let error = plan(&files(fixture), from, to).expect_err("the move is refused");
    assert!(error.starts_with(code), "expected {code}, got {error}");
}

#[test]
fn a_table_alias_keeps_its_escape() {
    check(
        "//- Old.md
        //- Index.md
        | note | what |
        | --- | --- |
        | [[Old\\|the old one]] | x |",
        "Old.md",
        "New.md",
        "//- Index.md
        | note | what |
        | --- | --- |
        | [[New\\|the old one]] | x |
        //- New.md",
    );
}

#[test]
fn headings_blocks_extensions_and_embed_sizes_stay() {
    check_keeping(
        "//- Topic.md
        # Intro
        text ^b1
        //- A.md
        [[Topic#Intro]] [[Topic#^b1|see]] [[Topic.md]] ![[Topic#Intro|300]] [[#Self]]",
        "Topic.md",
        "Subject.md",
        "//- A.md
        [[Subject#Intro]] [[Subject#^b1|see]] [[Subject.md]] ![[Subject#Intro|300]] [[#Self]]
        //- Subject.md
        # Intro
        text ^b1",
    );
}

#[test]
fn markdown_links_keep_their_encoding_and_brackets() {
    check(
        "//- docs/My Note.md
        //- A.md
        [a](docs/My%20Note.md#Top) [b](<docs/My Note.md>) ![c](/docs/My%20Note.md)",
        "docs/My Note.md",
        "archive/Your (old) Note.md",
        // Written as Obsidian writes them under "shortest": the name alone, unique in the vault,
        // still encoded or in angle brackets.
        "//- A.md
        [a](Your%20%28old%29%20Note.md#Top) [b](<Your (old) Note.md>) ![c](Your%20%28old%29%20Note.md)
        //- archive/Your (old) Note.md",
    );
}

#[test]
fn a_moved_note_rewrites_its_own_relative_links() {
    check(
        "//- a/Source.md
        [up](../Target.md) [[Target]] [[#Here]]
        //- Target.md",
        "a/Source.md",
        "b/c/Source.md",
        // A bare markdown link stays bare under "shortest", as Obsidian writes it.
        "//- b/c/Source.md
        [up](Target.md) [[Target]] [[#Here]]",
    );
}

#[test]
fn property_links_change_only_the_link() {
    check(
        "//- Old.md
        //- A.md
        ---
        related: [\"[[Old]]\", \"[[Other]]\"]
        note: \"see [[Old|the old]] and [[Other]] here\"
        single: '[[Old]]'
        ---
        body",
        "Old.md",
        "New name.md",
        "//- A.md
        ---
        related: [\"[[New name]]\", \"[[Other]]\"]
        note: \"see [[New name|the old]] and [[Other]] here\"
        single: '[[New name]]'
        ---
        body
        //- New name.md",
    );
}

/// Relative wikilinks, as Obsidian writes them under "New link format: Relative path to file",
/// stay relative on both kinds of move: the target moving, and the linking note moving.
#[test]
fn relative_wikilinks_stay_relative_when_either_end_moves() {
    let fixture = "//- a/b/Source.md
        [[../Other]] [[./Sibling|s]] ![[../Other#Heading]] [[../Other.md|alias]]
        //- a/Other.md
        # Heading
        //- a/b/Sibling.md
        //- c/Other.md";
    // The target moves.
    check_keeping(
        fixture,
        "a/Other.md",
        "d/e/Other.md",
        "//- a/b/Source.md
        [[../../d/e/Other]] [[./Sibling|s]] ![[../../d/e/Other#Heading]] [[../../d/e/Other.md|alias]]
        //- d/e/Other.md
        # Heading",
    );
    // The linking note moves: from a/ the same notes are `./Other` and `./b/Sibling`. Left as
    // they were, `[[../Other]]` would now find c/Other.md... or nothing: the proof would say.
    check_keeping(
        fixture,
        "a/b/Source.md",
        "a/Source.md",
        "//- a/Source.md
        [[./Other]] [[./b/Sibling|s]] ![[./Other#Heading]] [[./Other.md|alias]]",
    );
    check_keeping(
        fixture,
        "a/b/Source.md",
        "c/d/Source.md",
        "//- c/d/Source.md
        [[../../a/Other]] [[../../a/b/Sibling|s]] ![[../../a/Other#Heading]] [[../../a/Other.md|alias]]",
    );
}

/// YAML's own escapes, not a refusal: a `'` doubles inside single quotes, a double-quoted or
/// plain or block string needs none (YAML 1.2, 7.3).
#[test]
fn a_rewritten_property_link_is_escaped_as_its_string_needs() {
    check(
        "//- Old.md
        //- A.md
        ---
        single: '[[Old]]'
        double: \"[[Old|o]]\"
        plain: see [[Old]]
        block: >-
          then [[Old]]
        json: ['[[Old]]', \"[[Old]]\"]
        ---
        body",
        "Old.md",
        "It's.md",
        "//- A.md
        ---
        single: '[[It''s]]'
        double: \"[[It's|o]]\"
        plain: see [[It's]]
        block: >-
          then [[It's]]
        json: ['[[It''s]]', \"[[It's]]\"]
        ---
        body
        //- It's.md",
    );
}

#[test]
fn same_names_in_two_folders_get_a_path() {
    check(
        "//- a/About.md
        //- A.md
        [[About]]
        //- b/Other.md",
        "b/Other.md",
        "b/About.md",
        "//- b/About.md",
    );
    // The moved file takes a name another note has: the moved one's links get a path.
    check(
        "//- a/Topic.md
        //- x/Old.md
        //- A.md
        [[Old]] [[Topic]]",
        "x/Old.md",
        "x/Topic.md",
        "//- A.md
        [[x/Topic]] [[Topic]]
        //- x/Topic.md",
    );
}

#[test]
fn a_bare_name_made_ambiguous_keeps_its_target() {
    // [[Note]] in x/A.md finds root Note.md; a note moved into x/ as Note.md would win the
    // linking-folder rule, so the link is rewritten to keep pointing at the root note.
    check(
        "//- Note.md
        //- x/A.md
        [[Note]]
        //- y/Draft.md",
        "y/Draft.md",
        "x/Note.md",
        "//- x/A.md
        [[/Note]]
        //- x/Note.md",
    );
}

#[test]
fn a_folder_moves_with_its_links() {
    check(
        "//- proj/One.md
        [two](Two.md) [[Two]]
        //- proj/Two.md
        //- Home.md
        [[proj/One]] [o](proj/One.md)",
        "proj",
        "archive/2025",
        // Obsidian's "shortest" form: One's name is unique in the vault.
        "//- Home.md
        [[One]] [o](One.md)
        //- archive/2025/One.md
        [two](Two.md) [[Two]]
        //- archive/2025/Two.md",
    );
}

#[test]
fn refusals_say_why() {
    let vault = "//- A.md\n[[B]]\n//- B.md\n//- dir/C.md";
    check_refused(vault, "B.md", "B#2.md", "invalid_name");
    check_refused(vault, "B.md", "a|b.md", "invalid_name");
    check_refused(vault, "B.md", "trailing .md", "invalid_name");
    // Names Windows refuses, which a vault synced to Windows could not hold.
    for name in [
        "CON.md",
        "con.md",
        "nul",
        "Com1.md",
        "LPT9.txt.md",
        "dir/AUX/B.md",
        "trailing./B.md",
        "a?.md",
        "a*.md",
        "a<b.md",
        "a\"b.md",
        "NUL .md",
    ] {
        check_refused(vault, "B.md", name, "invalid_name");
    }
    check_refused(vault, "B.md", "A.md", "destination_exists");
    // Found by the plan_move fuzzer: `a.md` and `A.md` both exist (a case-sensitive
    // filesystem), and `a.md` -> `A.md` would have replaced the other one.
    check_refused("//- a.md\n//- A.md\n[[B]]\n//- B.md\n[[a]] [[A]]", "a.md", "A.md", "destination_exists");
    check_refused("//- d/a.md\n//- e/A.md\n//- x.md\n[[a]]", "d", "e", "destination_exists");
    check_refused(vault, "B.md", "a.md", "destination_exists");
    check_refused(vault, "Nope.md", "X.md", "note_not_found");
    check_refused(vault, "dir", "dir/sub", "invalid_path");
}

fn refusal(fixture: &str, from: &str, to: &str) -> String {
    plan(&files(fixture), from, to).expect_err("the move is refused")
}

#[test]
fn a_move_into_the_trash_the_config_folder_or_vaultlinks_folder_is_refused_at_the_preview() {
    let vault = "//- A.md\n[[B]]\n//- B.md\n";
    for to in [".trash/B.md", ".obsidian/B.md", ".vaultlink/journal.json", ".vaultlink/B.md", "dir/.hidden/B.md", ".B.md", ".config/B"] {
        let error = refusal(vault, "B.md", to);
        assert!(error.starts_with("invalid_path") && error.contains("not a place for a file of the vault"), "{to}: {error}");
    }
    assert!(refusal(vault, "B.md", ".trash/B.md").contains("use delete_note"), "the trash is delete_note's");
}

#[test]
fn a_move_to_nothing_blames_the_destination() {
    let error = refusal("//- B.md\n", "B.md", "");
    assert!(error.starts_with("invalid_path") && error.contains("`to`") && error.contains("empty"), "{error}");
    let error = refusal("//- B.md\n", "B.md", "/");
    assert!(error.contains("`to`"), "{error}");
}

#[test]
fn a_move_onto_itself_says_there_is_nothing_to_move() {
    for to in ["B.md", "B"] {
        let error = refusal("//- A.md\n[[B]]\n//- B.md\n", "B.md", to);
        assert!(error.starts_with("invalid_arguments") && error.contains("nothing to move"), "{to}: {error}");
    }
}

#[test]
fn device_names_are_refused_as_windows_refuses_them() {
    let vault = "//- B.md\n";
    for name in ["COM0.md", "LPT0.md", "COM\u{b9}.md", "lpt\u{b2}.md", "COM\u{b3}.txt.md", "CONIN$.md", "conout$.md"] {
        check_refused(vault, "B.md", name, "invalid_name");
    }
    for fine in ["COM10.md", "COMA.md", "CONSOLE.md", "LPT.md"] {
        assert!(plan(&files(vault), "B.md", fine).is_ok(), "{fine}");
    }
}

#[test]
fn a_name_over_255_bytes_is_refused_before_planning() {
    let vault = "//- B.md\n";
    let long = format!("{}.md", "é".repeat(127));
    let error = refusal(vault, "B.md", &long);
    assert!(error.starts_with("invalid_name") && error.contains("255 bytes"), "{error}");
    assert!(plan(&files(vault), "B.md", &format!("{}.md", "a".repeat(vaultlink_core::names::MAX_FILE_NAME_BYTES - 3))).is_ok());
}

/// Issue 21: a name that fit 255 bytes but whose temporary name beside it did not (the name
/// plus `.vaultlink-<pid>.tmp`) was planned, and failed at write time; it is refused at the
/// preview. A folder's name has no temporary names, and may take all 255 bytes.
#[test]
fn a_file_name_whose_temporary_name_would_not_fit_is_refused_at_the_preview() {
    let vault = "//- B.md\n//- A.md\n[[B]]\n";
    let long = format!("{}.md", "a".repeat(vaultlink_core::names::MAX_FILE_NAME_BYTES - 2));
    assert!(long.len() <= 255);
    let error = refusal(vault, "B.md", &long);
    assert!(error.starts_with("invalid_name") && error.contains("temporary names") && error.contains("227"), "{error}");
    let folder = format!("{}/B.md", "f".repeat(255));
    assert!(plan(&files(vault), "B.md", &folder).is_ok(), "a folder's name may take 255 bytes");
}

#[test]
fn a_case_only_rename_is_a_move() {
    check("//- A.md\n[[note]]\n//- Note.md", "Note.md", "note.md", "//- note.md");
}

#[test]
fn a_link_that_was_unresolved_may_find_the_new_name() {
    let before = files("//- A.md\n[[Wanted]]\n//- Draft.md");
    let plan = plan(&before, "Draft.md", "Wanted.md").expect("planned");
    assert_eq!(plan.newly_resolved.len(), 1);
    assert_eq!(plan.newly_resolved[0].resolves_to, "Wanted.md");
    check_invariant(&before, &plan, &apply(&before, &plan));
}

const FOLDERS: [&str; 4] = ["", "a/", "b c/", "a/deep/"];
const NAMES: [&str; 6] = ["Note", "My note", "Caf\u{e9} (draft)", "Note.1", "Other", "x"];

fn random_vault(random: &mut Random) -> Files {
    let mut files = Files::new();
    for _ in 0..8 {
        let path = format!("{}{}.md", random.pick(&FOLDERS), random.pick(&NAMES));
        let mut text = String::new();
        if random.next().is_multiple_of(3) {
            text.push_str(&format!("---\nrelated: [\"[[{}]]\"]\nnote: \"see [[{}|it]]\"\n---\n", random.pick(&NAMES), random.pick(&NAMES)));
        }
        for _ in 0..random.next() % 5 {
            let name = random.pick(&NAMES);
            let folder = random.pick(&FOLDERS);
            let line = match random.next() % 10 {
                8 => format!("[[../{folder}{name}]]\n"),
                9 => format!("![[./{name}#Heading]]\n"),
                0 => format!("[[{name}]]\n"),
                1 => format!("| [[{folder}{name}\\|alias]] | cell |\n| --- | --- |\n"),
                2 => format!("[x](<{folder}{name}.md>)\n"),
                3 => format!("[x]({}.md#H)\n", format!("{folder}{name}").replace(' ', "%20").replace('(', "%28").replace(')', "%29")),
                4 => format!("`[[{name}]]` and %%[[{name}]]%%\n"),
                5 => format!("```\n[[{name}]]\n```\n"),
                6 => format!("![[{name}#Heading|200]]\n"),
                _ => format!("[[{folder}{name}.md|n]]\n"),
            };
            text.push_str(&line);
        }
        text.push_str("# Heading\n");
        files.insert(path, text);
    }
    files
}

#[test]
fn random_moves_are_refused_or_keep_every_link() {
    let (mut planned, mut refused) = (0, 0);
    for seed in 1..=300u64 {
        let mut random = Random(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let before = random_vault(&mut random);
        let paths: Vec<&str> = before.keys().map(String::as_str).collect();
        let from = random.pick(&paths).to_owned();
        let to = format!("{}{}.md", random.pick(&FOLDERS), random.pick(&["Moved", "Note", "x", "New (1)", "Caf\u{e9}"]));
        match plan(&before, &from, &to) {
            Ok(plan) => {
                planned += 1;
                let after = apply(&before, &plan);
                check_invariant(&before, &plan, &after);
            }
            Err(reason) => {
                refused += 1;
                assert!(!reason.is_empty(), "seed {seed}: a refusal gives a reason");
            }
        }
    }
    assert!(planned > 100, "only {planned} of 300 random moves were planned ({refused} refused)");
}

fn rewrite(files: &Files, from_target: &str, to_target: &str) -> Result<MovePlan, String> {
    let vault = common::index(files);
    let needed = vaultlink_core::link_rewrite::notes_to_read_for_rewrite(&vault, from_target);
    let texts: BTreeMap<String, String> = needed.into_iter().map(|path| (path.clone(), files[&path].clone())).collect();
    vaultlink_core::link_rewrite::plan_rewrite_link(&vault, from_target, to_target, &texts)
        .map_err(|error| format!("{} {}", error.code(), error.message()))
}

#[test]
fn rewrite_link_repoints_every_link_with_a_target() {
    let before = files(
        "//- A.md
        ---
        up: \"[[Old idea|the idea]]\"
        ---
        [[old idea#Why]] and ![[Old idea.md|200]] and [x](Old%20idea.md#Why) and [[Other]]
        | [[Old idea\\|alias]] | cell |
        | --- | --- |",
    );
    let plan = rewrite(&before, "Old idea", "Ideas/New (2026) idea").expect("planned");
    let after = apply(&before, &plan);
    // A wikilink written by a rewrite leaves out `.md`, as Obsidian writes one; a markdown
    // link keeps the `.md` it was written with.
    assert_eq!(
        after["A.md"],
        "---\nup: \"[[Ideas/New (2026) idea|the idea]]\"\n---\n\
         [[Ideas/New (2026) idea#Why]] and ![[Ideas/New (2026) idea|200]] and [x](Ideas/New%20%282026%29%20idea.md#Why) and [[Other]]\n\
         | [[Ideas/New (2026) idea\\|alias]] | cell |\n| --- | --- |\n"
    );
    assert_eq!(plan.changes.len(), 5);
}

#[test]
fn rewrite_link_repoints_relative_links_that_resolve_to_the_note_from_target_names() {
    // `../Old.md` and `./Old` from `Notes/` find the root's Old.md, as `Old` does; `../Other/Old.md`
    // finds another note of that name, and `./Missing.md` none: those stay.
    let before = files(
        "//- Old.md
        # Old
        //- Other/Old.md
        # Another old
        //- Notes/A.md
        [x](../Old.md#Why) and [[../Old|it]] and [y](../Other/Old.md) and [z](./Missing.md)
        //- Notes/Deeper/B.md
        ![w](../../Old.md)",
    );
    let plan = rewrite(&before, "/Old", "New").expect("planned");
    let after = apply(&before, &plan);
    assert_eq!(after["Notes/A.md"], "[x](New.md#Why) and [[New|it]] and [y](../Other/Old.md) and [z](./Missing.md)\n");
    assert_eq!(after["Notes/Deeper/B.md"], "![w](New.md)\n");
    // A name two notes share names neither: only links written as it are rewritten.
    let ambiguous = files("//- Old.md\n# Old\n//- Other/Old.md\n# Another\n//- Notes/A.md\n[x](../Old.md) [[Old]]\n");
    let after = apply(&ambiguous, &rewrite(&ambiguous, "Old", "New").expect("planned"));
    assert_eq!(after["Notes/A.md"], "[x](../Old.md) [[New]]\n");
}

#[test]
fn rewrite_link_refuses_targets_that_cannot_be_written() {
    let before = files("//- A.md\n[[Old]]\n");
    for bad in ["x]]\ninjected", "a|b", "a#b", "[[x"] {
        let refusal = rewrite(&before, "Old", bad).expect_err(bad);
        assert!(refusal.starts_with("unrepresentable_link"), "{bad:?}: {refusal}");
    }
}

#[test]
fn a_rewrite_to_the_same_target_or_from_nothing_is_refused_before_planning() {
    let vault = files("//- A.md\n[[Old]] [[Old]]\n//- B.md\n[[Old]]\n");
    for (from_target, to_target, expected) in [
        ("Old", "Old", "nothing to rewrite"),
        ("Old", " Old ", "nothing to rewrite"),
        ("", "New", "`from_target` is empty"),
        ("  ", "New", "`from_target` is empty"),
        ("Old", "", "`to_target` is empty"),
    ] {
        let error = rewrite(&vault, from_target, to_target).expect_err("refused");
        assert!(error.starts_with("invalid_arguments") && error.contains(expected), "{from_target:?} -> {to_target:?}: {error}");
    }
    assert!(rewrite(&vault, "Old", "old").is_ok(), "a change of case is a rewrite");
}

#[test]
fn a_rewrite_target_too_long_to_be_a_path_is_refused_before_planning() {
    let vault = files("//- A.md\n[[Old]]\n");
    let error = rewrite(&vault, "Old", &"x".repeat(10 * 1024 * 1024)).expect_err("refused");
    assert!(error.starts_with("invalid_arguments") && error.contains("over the 4096"), "{}", &error[..200.min(error.len())]);
    let error = rewrite(&vault, "Old", &format!("a/{}", "y".repeat(300))).expect_err("refused");
    assert!(error.contains("255 bytes"), "{error}");
}

#[test]
fn a_table_whose_delimiter_row_holds_tabs_keeps_its_escaped_alias_in_a_move() {
    check(
        "//- A.md\n| Link\t| Notes\t|\n|---\t|---\t|\n| [[Note\\|Alias]] | x |\n//- Note.md\n",
        "Note.md",
        "dir/Renamed.md",
        "//- A.md\n| Link\t| Notes\t|\n|---\t|---\t|\n| [[Renamed\\|Alias]] | x |\n//- dir/Renamed.md\n",
    );
}

#[test]
fn a_markdown_link_keeps_its_form_in_a_move_vault_absolute_relative_or_rooted() {
    // Vault-absolute without a `/`: how it found its file from a note in another folder.
    check_keeping(
        "//- Notes/Index.md\n[Class](Compendium/Rules/Class.md)\n//- Compendium/Rules/Class.md\n",
        "Compendium/Rules/Class.md",
        "Compendium/Rules/Classes/Class.md",
        "//- Notes/Index.md\n[Class](Compendium/Rules/Classes/Class.md)\n//- Compendium/Rules/Classes/Class.md\n",
    );
    // Relative to the note's folder, as written.
    check_keeping(
        "//- Compendium/Index.md\n[Class](Rules/Class.md)\n//- Compendium/Rules/Class.md\n",
        "Compendium/Rules/Class.md",
        "Compendium/Rules/Classes/Class.md",
        "//- Compendium/Index.md\n[Class](Rules/Classes/Class.md)\n//- Compendium/Rules/Classes/Class.md\n",
    );
    check_keeping(
        "//- Notes/Index.md\n[Class](../Compendium/Class.md)\n//- Compendium/Class.md\n",
        "Compendium/Class.md",
        "Compendium/Rules/Class.md",
        "//- Notes/Index.md\n[Class](../Compendium/Rules/Class.md)\n//- Compendium/Rules/Class.md\n",
    );
    // Rooted with a `/`.
    check_keeping(
        "//- Notes/Index.md\n[Class](/Compendium/Class.md)\n//- Compendium/Class.md\n",
        "Compendium/Class.md",
        "Compendium/Rules/Class.md",
        "//- Notes/Index.md\n[Class](/Compendium/Rules/Class.md)\n//- Compendium/Rules/Class.md\n",
    );
    // The linking note moves: a vault-absolute link stays as it is written.
    check_keeping(
        "//- Notes/Index.md\n[Class](Compendium/Class.md)\n//- Compendium/Class.md\n",
        "Notes/Index.md",
        "Elsewhere/Deep/Index.md",
        "//- Elsewhere/Deep/Index.md\n[Class](Compendium/Class.md)\n",
    );
}

/// Issue 34: a destination in a folder spelt like one of the vault's but for case or Unicode
/// normalization (`notes/` beside `Notes/`, `Cafe\u{301}/` beside `Café/`) made a second folder
/// beside it on a case-sensitive disk, where a file of such a name is refused. Refused alike,
/// by a move, a folder move and a bulk move, naming the folder as the vault spells it; a folder
/// renamed in case alone, whose files all leave, is still a rename.
#[test]
fn a_folder_spelt_like_another_but_for_case_or_normalization_is_refused() {
    let vault = "//- Notes/a.md\n//- Caf\u{e9}/b.md\n//- Inbox/c.md\n[[a]] [[b]]\n//- Inbox/Deep/d.md\n";
    for (from, to, existing) in [
        ("Inbox/c.md", "notes/c.md", "Notes"),
        ("Inbox/c.md", "NOTES/sub/c.md", "Notes"),
        ("Inbox/c.md", "Cafe\u{301}/c.md", "Caf\u{e9}"),
        ("Inbox/c.md", "CAF\u{c9}/c.md", "Caf\u{e9}"),
        ("Inbox/c.md", "Inbox/deep/c.md", "Inbox/Deep"),
        ("Inbox", "notes", "Notes"),
        ("Inbox/Deep", "notes/Deep", "Notes"),
    ] {
        let error = refusal(vault, from, to);
        assert!(error.starts_with("destination_exists"), "{from} -> {to}: {error}");
        assert!(error.contains(&format!("`{existing}`")), "{from} -> {to}: {error}");
    }
    // Into the folder as the vault spells it, or a new folder of another name.
    for (from, to) in [("Inbox/c.md", "Notes/c.md"), ("Inbox/c.md", "Notes/sub/c.md"), ("Inbox/c.md", "Other/c.md")] {
        assert!(plan(&files(vault), from, to).is_ok(), "{from} -> {to}: {:?}", plan(&files(vault), from, to).err());
    }
    let pairs = [("Inbox/c.md".to_owned(), "notes/c.md".to_owned())];
    let index = common::index(&files(vault));
    let error = vaultlink_core::rename::bulk_moves(&index, &pairs).expect_err("refused");
    assert_eq!(error.code(), vaultlink_core::error::ErrorCode::DestinationExists, "{}", error.message());
    // Every file of `Notes/` moved into `notes/`: nothing stays in the other spelling.
    let every = [("Notes/a.md".to_owned(), "notes/a.md".to_owned()), ("Inbox/c.md".to_owned(), "notes/c.md".to_owned())];
    assert!(vaultlink_core::rename::bulk_moves(&index, &every).is_ok());
}

/// A vault indexed with at most `max_links` links kept per note, as the index keeps 50,000.
fn index_keeping(files: &Files, max_links: usize) -> vaultlink_core::Vault {
    let mut config = vaultlink_core::index::IndexConfig::obsidian_defaults();
    config.parse.max_links = max_links;
    let mut vault = vaultlink_core::Vault::new(config);
    for (path, text) in files {
        vault.upsert(path, text);
    }
    vault
}

/// Reported in issue 34: a note with 60,000 `[[Target]]` (and a canvas with as many cards)
/// moved `applied` while the 10,000 links past the index's limit still named `Target`. A note
/// whose links reach the limit is planned from its whole text, every link of it.
#[test]
fn a_note_with_more_links_than_the_index_keeps_is_planned_from_its_whole_text() {
    let card = |at: usize| format!("{{\"id\":\"c{at}\",\"type\":\"file\",\"file\":\"Target.md\"}}");
    let cards: Vec<String> = (0..5).map(card).collect();
    let before = files(&format!(
        "//- Target.md\n//- Many.md\n{}\n//- Late.md\n[[Other]] [[Other]] [[Other]] [[Target]] [[Target#Part]]\n//- Other.md\n//- Board.canvas\n{{\"nodes\":[{}]}}",
        "[[Target]] ".repeat(5),
        cards.join(",")
    ));
    let vault = index_keeping(&before, 3);
    assert!(vault.is_truncated("Many.md") && vault.is_truncated("Late.md"));
    let needed = vaultlink_core::rename::notes_to_read(&vault, "Target.md", "Sub/Renamed.md").expect("planned");
    assert!(needed.contains(&"Late.md".to_owned()), "a note whose only links to the file are past the limit is read: {needed:?}");
    let texts: BTreeMap<String, String> = needed.iter().map(|path| (path.clone(), before[path].clone())).collect();
    let plan = vaultlink_core::rename::plan_move(&vault, "Target.md", "Sub/Renamed.md", &texts).expect("planned");
    let after = apply(&before, &plan);
    assert_eq!(after["Many.md"], format!("{}\n", "[[Renamed]] ".repeat(5)));
    assert_eq!(after["Late.md"], "[[Other]] [[Other]] [[Other]] [[Renamed]] [[Renamed#Part]]\n");
    assert_eq!(after["Board.canvas"].matches("Sub/Renamed.md").count(), 5, "{}", after["Board.canvas"]);
    assert!(!after.values().any(|text| text.contains("Target")), "{after:?}");
    assert_eq!(plan.changes.len(), 5 + 2 + 5);
}

/// The text given for a note past the limit must still begin with the links the index kept.
#[test]
fn a_note_past_the_limit_whose_text_is_not_the_indexed_one_is_refused() {
    let before = files(&format!("//- Target.md\n//- Many.md\n{}", "[[Target]] ".repeat(5)));
    let vault = index_keeping(&before, 3);
    let texts = BTreeMap::from([("Many.md".to_owned(), "[[Elsewhere]] [[Target]]".to_owned())]);
    let error = vaultlink_core::rename::plan_move(&vault, "Target.md", "Renamed.md", &texts).expect_err("stale");
    assert_eq!(error.code(), vaultlink_core::error::ErrorCode::ConcurrentModification, "{}", error.message());
}
