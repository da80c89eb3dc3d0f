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
