//! Link resolution as Obsidian does it, one fixture vault per rule. Each vault is written
//! inline: `//- path` starts a file, the lines after it are its text.

use vaultlink_core::index::IndexConfig;
use vaultlink_core::resolve::Resolution;
use vaultlink_core::Vault;

fn vault(fixture: &str) -> Vault {
    let mut vault = Vault::new(IndexConfig::obsidian_defaults());
    let mut files: Vec<(String, String)> = Vec::new();
    for line in fixture.lines() {
        match line.trim_start().strip_prefix("//- ") {
            Some(path) => files.push((path.trim().to_owned(), String::new())),
            None => {
                if let Some((_, text)) = files.last_mut() {
                    text.push_str(line.trim_start());
                    text.push('\n');
                }
            }
        }
    }
    for (path, text) in &files {
        vault.upsert(path, text);
    }
    vault
}

/// The resolution of every link in `source`, as `target -> path` (`?` when unresolved, `*`
/// after the path when ambiguous).
fn resolutions(vault: &Vault, source: &str) -> Vec<String> {
    vault
        .outgoing_links(source)
        .expect("the source is a note")
        .iter()
        .map(|found| match found.resolution {
            Resolution::Resolved { path } => format!("{} -> {path}", found.link.target),
            Resolution::Ambiguous { path, .. } => format!("{} -> {path}*", found.link.target),
            Resolution::Unresolved => format!("{} -> ?", found.link.target),
        })
        .collect()
}

fn check(fixture: &str, source: &str, expected: &[&str]) {
    assert_eq!(resolutions(&vault(fixture), source), expected, "links of {source}");
}

#[test]
fn names_match_whatever_their_case() {
    check(
        "//- Example.md
         //- Source.md
         [[example]] [[EXAMPLE]] [[Example]]",
        "Source.md",
        &["example -> Example.md", "EXAMPLE -> Example.md", "Example -> Example.md"],
    );
}

#[test]
fn two_notes_with_one_name_are_ambiguous_and_the_nearer_one_is_chosen() {
    let fixture = "//- work/about.md
                   //- home/about.md
                   //- work/Source.md
                   [[about]] [[home/about]]
                   //- Top.md
                   [[about]]";
    check(fixture, "work/Source.md", &["about -> work/about.md*", "home/about -> home/about.md"]);
    // From the root, neither is nearer: the shorter path, then the first in order.
    check(fixture, "Top.md", &["about -> home/about.md*"]);
}

#[test]
fn a_name_in_nfc_finds_a_file_stored_in_nfd() {
    check(
        "//- Cafe\u{301}.md
         //- Source.md
         [[Caf\u{e9}]] [x](Caf%C3%A9.md)",
        "Source.md",
        &["Caf\u{e9} -> Cafe\u{301}.md", "Caf%C3%A9.md -> Cafe\u{301}.md"],
    );
}

#[test]
fn extensions_dotted_names_and_attachments() {
    check(
        "//- T.md
         //- Note.1.md
         //- img/Figure 1.png
         //- Figure.md
         //- Source.md
         [[T.md]] [[T]] [[Note.1]] ![[Figure 1.png]] [[Figure 1]] [[Figure.png]]",
        "Source.md",
        &["T.md -> T.md", "T -> T.md", "Note.1 -> Note.1.md", "Figure 1.png -> img/Figure 1.png", "Figure 1 -> ?", "Figure.png -> ?"],
    );
}

#[test]
fn markdown_links_are_relative_to_the_linking_note() {
    check(
        "//- a/x.md
         //- b/x.md
         //- a/deep/Source.md
         [up](../x.md) [two up](../../b/x.md) [root](/b/x.md) [here](./missing.md) [above the root](../../../x.md)",
        "a/deep/Source.md",
        &["../x.md -> a/x.md", "../../b/x.md -> b/x.md", "/b/x.md -> b/x.md", "./missing.md -> ?", "../../../x.md -> ?"],
    );
}

#[test]
fn aliases_are_not_link_targets() {
    check(
        "//- Artificial intelligence.md
         ---
         aliases: [AI]
         ---
         //- Source.md
         [[AI]] [[Artificial intelligence]]",
        "Source.md",
        &["AI -> ?", "Artificial intelligence -> Artificial intelligence.md"],
    );
}

#[test]
fn property_links_resolve_and_count_as_backlinks() {
    let vault = vault(
        "//- Target.md
         //- Source.md
         ---
         related: [\"[[Target]]\"]
         ---",
    );
    assert_eq!(resolutions(&vault, "Source.md"), ["Target -> Target.md"]);
    assert_eq!(vault.backlinks("Target.md").len(), 1);
    assert_eq!(vault.inbound_count("Target.md"), 1);
}

/// Obsidian writes `[[../Other]]` itself under *Settings → Files and links → New link format:
/// Relative path to file*, and follows it from the linking note's folder; `./` names that folder.
/// Past the vault root there is nothing to find.
#[test]
fn relative_wikilinks_resolve_from_the_linking_notes_folder() {
    check(
        "//- a/b/Source.md
         [[../Other]] [[./Sibling]] ![[../Other#Heading]] [[../Other.md|alias]] [[../../Top]] [[../../../Above]] [[../Missing]]
         //- a/Other.md
         # Heading
         //- a/b/Sibling.md
         //- Top.md
         //- elsewhere/Other.md
         //- Missing.md",
        "a/b/Source.md",
        &[
            "../Other -> a/Other.md",
            "./Sibling -> a/b/Sibling.md",
            "../Other#Heading -> a/Other.md",
            "../Other.md -> a/Other.md",
            "../../Top -> Top.md",
            "../../../Above -> ?",
            "../Missing -> ?",
        ],
    );
}

/// Among notes of one name, one under the linking note's folder (its subfolders included) wins
/// before the shortest path elsewhere. A root `B.md` is not preferred for being the exact vault
/// path of `[[B]]`: a test vault written in Obsidian (a note on its link resolution: "`[[Same
/// Name]]` - Links to adjacent file", beside "`[[/Same Name]]` - Links to root") shows the note
/// beside the link chosen over the root one; the typings document `getFirstLinkpathDest` only
/// as "the best match". The root one stays reachable as `[[/B]]`.
#[test]
fn a_note_under_the_linking_folder_wins_over_a_shorter_path() {
    let fixture = "//- B.md
         //- x/B.md
         //- x/deep/C.md
         //- C.md
         //- y/C.md
         //- x/Source.md
         [[B]] [[/B]] [[C]]
         //- Root.md
         [[B]] [[C]]
         //- y/z/Source.md
         [[C]]";
    check(fixture, "x/Source.md", &["B -> x/B.md*", "/B -> B.md", "C -> x/deep/C.md*"]);
    check(fixture, "Root.md", &["B -> B.md*", "C -> C.md*"]);
    // y/z has no C under it: the shortest path wins, as before.
    check(fixture, "y/z/Source.md", &["C -> C.md*"]);
}

/// A name in capitals that ends in `Σ` finds its file: lowered alone, `ΟΔΟΣ` ends in the final
/// sigma `ς`, while in `ΟΔΟΣ.md` the `.md` after it keeps `σ`. Obsidian lowers both with
/// JavaScript's `toLowerCase`, which has the same rule, and finds the file; names are compared
/// with `ς` read as `σ`, wherever it stands. An exact name always resolves.
#[test]
fn a_final_capital_sigma_finds_its_file() {
    check(
        "//- ΟΔΟΣ.md
         //- x/ΛΟΓΟΣ ΚΑΙ ΕΡΓΟΝ.md
         //- Source.md
         [[ΟΔΟΣ]] [[οδοσ]] [[οδος]] [[ΟΔΟΣ.md]] [[x/ΛΟΓΟΣ ΚΑΙ ΕΡΓΟΝ]] [[λογος και εργον]] [t](%CE%9F%CE%94%CE%9F%CE%A3.md)",
        "Source.md",
        &[
            "ΟΔΟΣ -> ΟΔΟΣ.md",
            "οδοσ -> ΟΔΟΣ.md",
            "οδος -> ΟΔΟΣ.md",
            "ΟΔΟΣ.md -> ΟΔΟΣ.md",
            "x/ΛΟΓΟΣ ΚΑΙ ΕΡΓΟΝ -> x/ΛΟΓΟΣ ΚΑΙ ΕΡΓΟΝ.md",
            "λογος και εργον -> x/ΛΟΓΟΣ ΚΑΙ ΕΡΓΟΝ.md",
            "%CE%9F%CE%94%CE%9F%CE%A3.md -> ΟΔΟΣ.md",
        ],
    );
}

/// A markdown destination is read with CommonMark's backslash escapes and character references
/// (§2.4, §2.5, §6.3): `T\(1\).md` names `T(1).md`, `Fish &amp; Chips.md` names `Fish & Chips.md`.
#[test]
fn an_escaped_markdown_destination_finds_its_file() {
    check(
        "//- T(1).md
         //- Fish & Chips.md
         //- Source.md
         [a](T\\(1\\).md) [b](<Fish &amp; Chips.md>) [c](Fish%20\\&%20Chips.md)",
        "Source.md",
        &["T\\(1\\).md -> T(1).md", "Fish &amp; Chips.md -> Fish & Chips.md", "Fish%20\\&%20Chips.md -> Fish & Chips.md"],
    );
}

/// A link with a folder path that two files' paths end with (`[[docs/Guide]]` from `x/A.md`,
/// with `docs/Guide.md` and `x/docs/Guide.md`) takes the one under the linking note's folder,
/// as a bare name does, and is ambiguous: lint's `ambiguous_link` names both files and why the
/// nearer one was chosen, and `[[/docs/Guide]]` reaches the root one.
///
/// The evidence for "nearby first": Obsidian documents `getFirstLinkpathDest(linkpath,
/// sourcePath)` only as "the best match" for the source; a test vault written in Obsidian
/// notes "`[[Same Name]]` - Links to adjacent file" and "`[[A Folder/Subfolder/Same Name]]` -
/// Works as if it was local", that is, a partial path is matched against path endings as a name
/// is; and Obsidian rewrites a link it would no longer resolve to the same file when a
/// same-named file appears, which only a rule that weighs nearness needs. Where Obsidian might
/// choose the other file, the `ambiguous_link` finding says so before anyone relies on it.
#[test]
fn a_folder_path_two_files_end_with_finds_the_nearer_and_is_ambiguous() {
    let fixture = "//- docs/Guide.md
         //- x/docs/Guide.md
         //- x/A.md
         [[docs/Guide]] [[/docs/Guide]] [[x/docs/Guide]]
         //- y/B.md
         [[docs/Guide]]";
    check(fixture, "x/A.md", &["docs/Guide -> x/docs/Guide.md*", "/docs/Guide -> docs/Guide.md", "x/docs/Guide -> x/docs/Guide.md"]);
    check(fixture, "y/B.md", &["docs/Guide -> docs/Guide.md*"]);
}
