//! Helpers shared by the move tests: fixture vaults, planning, applying a plan in memory, and
//! the invariant check.

#![allow(dead_code)]

use std::collections::BTreeMap;
use vaultlink_core::error::Failure;

use vaultlink_core::index::IndexConfig;
use vaultlink_core::plan::{apply_edits, MovePlan};
use vaultlink_core::rename::{notes_to_read, plan_move};
use vaultlink_core::Vault;

pub type Files = BTreeMap<String, String>;

pub fn files(fixture: &str) -> Files {
    let mut files = Files::new();
    let mut current: Option<String> = None;
    for line in fixture.lines() {
        let line = line.strip_prefix("        ").unwrap_or(line.trim_start());
        match line.strip_prefix("//- ") {
            Some(path) => {
                current = Some(path.trim().to_owned());
                files.insert(path.trim().to_owned(), String::new());
            }
            None => {
                if let Some(path) = &current {
                    let text = files.get_mut(path).expect("the file was started");
                    text.push_str(line);
                    text.push('\n');
                }
            }
        }
    }
    files
}

pub fn index(files: &Files) -> Vault {
    let mut vault = Vault::new(IndexConfig::obsidian_defaults());
    for (path, text) in files {
        vault.upsert(path, text);
    }
    vault
}

pub fn plan(files: &Files, from: &str, to: &str) -> Result<MovePlan, String> {
    plan_with(&index(files), files, from, to)
}

/// [`plan`] with each rewritten link keeping the form it was written in (`RewriteForm::Keep`).
#[allow(dead_code)]
pub fn plan_keeping(files: &Files, from: &str, to: &str) -> Result<MovePlan, String> {
    let mut vault = index(files);
    vault.reconfigure(IndexConfig { link_form: vaultlink_core::link_form::RewriteForm::Keep, ..IndexConfig::obsidian_defaults() });
    plan_with(&vault, files, from, to)
}

/// [`plan`] with the index of `files` already built.
pub fn plan_with(vault: &Vault, files: &Files, from: &str, to: &str) -> Result<MovePlan, String> {
    let needed = notes_to_read(vault, from, to).map_err(|error| format!("{} {}", error.code(), error.message()))?;
    let texts: BTreeMap<String, String> = needed.into_iter().map(|path| (path.clone(), files[&path].clone())).collect();
    plan_move(vault, from, to, &texts).map_err(|error| format!("{} {}", error.code(), error.message()))
}

/// Applies a plan to the files, as an edge does: edits first, then moves.
pub fn apply(files: &Files, plan: &MovePlan) -> Files {
    let mut out = files.clone();
    for file in &plan.edits {
        let text = out.get_mut(&file.path).expect("an edited file exists");
        assert_eq!(vaultlink_core::plan::content_hash(text), file.content_hash);
        *text = apply_edits(text, &file.edits);
    }
    for file_move in &plan.moves {
        let text = out.remove(&file_move.from).expect("a moved file exists");
        out.insert(file_move.to.clone(), text);
    }
    out
}

/// The invariant: every link resolves after the move where it resolved before (moved files at
/// their new paths); unresolved links stay unresolved unless the plan lists them as newly
/// resolved; and bytes outside the edited spans are unchanged.
pub fn check_invariant(before: &Files, plan: &MovePlan, after: &Files) {
    let old_vault = index(before);
    check_invariant_with(&old_vault, before, plan, after);
}

/// [`check_invariant`] with the index of `before` already built. The index after the move is
/// that one updated as the plugin updates it (edited notes re-read, moved files renamed),
/// which also checks the incremental path.
pub fn check_invariant_with(old_vault: &Vault, before: &Files, plan: &MovePlan, after: &Files) {
    let moved = |path: &str| plan.moves.iter().find(|m| m.from == path).map_or(path.to_owned(), |m| m.to.clone());
    let mut new_vault = old_vault.clone();
    for file in &plan.edits {
        new_vault.upsert(&file.path, &after[&moved(&file.path)]);
    }
    for file_move in &plan.moves {
        assert!(new_vault.rename(&file_move.from, &file_move.to));
    }
    // Every file that holds links: notes and canvases.
    for source in old_vault.paths().filter(|path| old_vault.outgoing_links(path).is_some()) {
        let old_links = old_vault.outgoing_links(source).expect("a note or canvas");
        let new_links = new_vault.outgoing_links(&moved(source)).expect("the note is still there");
        assert_eq!(old_links.len(), new_links.len(), "{source}: the number of links changed");
        for (old, new) in old_links.iter().zip(&new_links) {
            let expected = old.resolution.path().map(moved);
            let now = new.resolution.path().map(str::to_owned);
            let newly = expected.is_none() && plan.newly_resolved.iter().any(|found| found.note == source && found.line == old.link.line);
            assert!(expected == now || newly, "{source}: {:?} pointed to {expected:?}, now to {now:?}", old.link.target);
            // A link whose text holds another link that the move rewrites (`[see [[Old]]](x.md)`)
            // shows that link's new text; every other link keeps its text as written.
            let holds_a_rewritten_link = plan.edits.iter().filter(|file| file.path == source).flat_map(|file| &file.edits).any(|edit| {
                old.link.span.start < edit.span.start
                    && edit.span.end < old.link.span.end
                    && !(old.link.target_span.start <= edit.span.start && edit.span.end <= old.link.target_span.end)
            });
            if holds_a_rewritten_link {
                assert_eq!((old.link.kind, &old.link.subpath), (new.link.kind, &new.link.subpath));
            } else {
                assert_eq!((old.link.kind, &old.link.display, &old.link.subpath), (new.link.kind, &new.link.display, &new.link.subpath));
            }
        }
    }
    for file in &plan.edits {
        let (old_text, new_text) = (&before[&file.path], &after[&moved(&file.path)]);
        let mut at_old = 0;
        let mut at_new = 0;
        for edit in &file.edits {
            let unchanged = &old_text[at_old..edit.span.start];
            assert_eq!(&new_text[at_new..at_new + unchanged.len()], unchanged, "{}: bytes outside the edits changed", file.path);
            at_new += unchanged.len() + edit.replacement.len();
            at_old = edit.span.end;
        }
        assert_eq!(&new_text[at_new..], &old_text[at_old..]);
    }
}

/// A small deterministic generator (xorshift), so a failure can be replayed from its seed.
pub struct Random(pub u64);

impl Random {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }
}

/// One step of a random test of the index: removes a file picked at random from the index and
/// from `files`, the files it is checked against; answers the step, described.
pub fn remove_at_random(vault: &mut Vault, files: &mut Files, random: &mut Random) -> String {
    let paths: Vec<&str> = files.keys().map(String::as_str).collect();
    let path = random.pick(&paths).to_owned();
    assert!(vault.remove(&path));
    files.remove(&path);
    format!("remove {path}")
}

/// One step of a random test of the index: renames a file picked at random to a path `to` makes,
/// in the index and in `files`. A note stays a note, a canvas a canvas and an attachment an
/// attachment, as a rename keeps what the index read of the file: a path of another kind is
/// replaced by the file's own. Answers the step, described.
pub fn rename_at_random(vault: &mut Vault, files: &mut Files, random: &mut Random, to: impl FnOnce(&mut Random) -> String) -> String {
    let paths: Vec<&str> = files.keys().map(String::as_str).collect();
    let from = random.pick(&paths).to_owned();
    let mut to = to(random);
    let kind = |path: &str| (path.ends_with(".md"), path.ends_with(".canvas"));
    if kind(&from) != kind(&to) {
        to = from.clone();
    }
    assert!(vault.rename(&from, &to));
    let text = files.remove(&from).expect("present");
    files.insert(to.clone(), text);
    format!("rename {from} -> {to}")
}

/// Where the real vaults are: `$VAULTLINK_CORPORA`, else `../shared/corpora` beside the
/// checkout. A user's clone has none; the tests that need them say so.
pub fn corpora_dir() -> std::path::PathBuf {
    match std::env::var_os("VAULTLINK_CORPORA") {
        Some(dir) => std::path::PathBuf::from(dir),
        None => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpora"),
    }
}

/// Written past the test harness's capture, so it shows whether or not the test passes.
pub fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// A corpus's files by vault path: each note with its text, and, with `attachments`, every
/// other file with none. Names starting with a dot are left out, as Obsidian leaves them.
pub fn read_corpus(dir: &std::path::Path, attachments: bool) -> Files {
    fn walk(dir: &std::path::Path, root: &std::path::Path, attachments: bool, out: &mut Files) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.file_name().is_some_and(|name| name.to_string_lossy().starts_with('.')) {
                continue;
            }
            if path.is_dir() {
                walk(&path, root, attachments, out);
                continue;
            }
            let is_note = path.extension().is_some_and(|extension| extension == "md");
            if !is_note && !attachments {
                continue;
            }
            let relative = path.strip_prefix(root).expect("inside the corpus").to_string_lossy().replace('\\', "/");
            let text = if is_note {
                String::from_utf8_lossy(&std::fs::read(&path).expect("a corpus file reads")).into_owned()
            } else {
                String::new()
            };
            out.insert(relative, text);
        }
    }
    let mut files = Files::new();
    walk(dir, dir, attachments, &mut files);
    files
}
