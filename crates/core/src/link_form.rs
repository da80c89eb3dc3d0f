//! The one place where the written form of a link vaultlink rewrites is decided.
//!
//! A move, a bulk move, the undo of a move and the healing of a detected move all rewrite a
//! link through the rename planner, which asks [`written_path`] for the new path of each link
//! and [`followed_display`] for its display text. By default ([`RewriteForm::Obsidian`]) the path
//! is what Obsidian's `MetadataCache.fileToLinktext` gives under the vault's "New link format"
//! (`newLinkFormat` in `.obsidian/app.json`): the file's name when no other file shares it, else
//! its full vault path, under `shortest`; the path from the note's folder under `relative`; the
//! full vault path under `absolute`. A wikilink leaves out `.md`; a markdown link keeps the `.md`
//! it was written with, its angle brackets or its percent-encoding. A display text that named
//! the old file follows the rename, as Obsidian's does since 1.2.1. [`RewriteForm::Keep`] keeps the
//! form each link was written in instead. The cases, each with its source, are in
//! `crates/core/tests/spec/link_form.md`.
//!
//! Whatever form is chosen, the link must still find the file it found: a form that would not
//! (vaultlink's resolution of a folder path is nearby-first, Obsidian's from the root) gives way
//! to the next form that does, the last being the path anchored at the vault's root.
//!
//! `fix_broken_links` writes a repaired link's path in the same forms (`path_written_to`), so a
//! repair and a move never disagree on how a link names a file.

use crate::index::{is_note_path, IndexConfig, NewLinkFormat, Vault};
use crate::parse::{percent_decode, Link, LinkKind, LinkSource};
use crate::resolve::{self, file_name, fold, folder, FileLookup, Resolution};

pub use crate::rewrite_form::RewriteForm;

/// One link to write again: where it is and what it must find.
#[derive(Debug)]
pub struct Rewrite<'l> {
    pub link: &'l Link,
    /// The target as written (path and subpath), decoded for a canvas's text card.
    pub written: &'l str,
    /// Where the linking note was, and where it will be.
    pub old_source: &'l str,
    pub source: &'l str,
    /// The file the link must find after the move.
    pub expected: &'l str,
}

/// The path part of `link` (in `source`, which stays where it is) written to find `expected`, as
/// a move writes it ([`written_path`], under the vault's settings). `None` when no form finds it.
/// `fix_broken_links` writes a repaired link's target with it.
pub(crate) fn path_written_to(vault: &Vault, source: &str, text: &str, link: &Link, expected: &str) -> Option<String> {
    let written = &text[link.target_span.range()];
    let rewrite = Rewrite { link, written, old_source: source, source, expected };
    // Nothing moves, so the files as they will be are the vault's own.
    written_path(vault, vault, vault.config(), &rewrite)
}

/// The new path part of `rewrite`'s target, as the vault's settings in `config` ask, and as it is
/// written in the link (a markdown destination percent-encoded unless in angle brackets).
/// `vault` is the vault before the move, `after` the files as they will be. `None` when no form
/// of a wikilink finds the file unambiguously.
pub fn written_path(vault: &Vault, after: &dyn FileLookup, config: &IndexConfig, rewrite: &Rewrite<'_>) -> Option<String> {
    let link = rewrite.link;
    if link.kind.is_markdown() {
        let angle = link.destination.is_some_and(|destination| destination.angle);
        let encoded = link.destination.is_some_and(|destination| destination.encoded);
        let path_written = rewrite.written.split('#').next().unwrap_or("");
        let wrote_extension = percent_decode(path_written).to_lowercase().ends_with(".md");
        let kept = || kept_markdown_destination(vault, rewrite);
        let path = match config.link_form {
            RewriteForm::Keep => kept(),
            RewriteForm::Obsidian => {
                let omit_md = !wrote_extension && is_note_path(rewrite.expected);
                let form = file_to_linktext(after, config.new_link_format, rewrite.source, rewrite.expected, omit_md);
                if finds(after, rewrite, &form) {
                    form
                } else {
                    kept()
                }
            }
        };
        return Some(if angle { path } else { encode_destination(&path, encoded) });
    }
    let keep_extension = link.path.trim().to_lowercase().ends_with(".md") || !is_note_path(rewrite.expected);
    let mut forms: Vec<String> = Vec::new();
    if config.link_form == RewriteForm::Obsidian {
        forms.push(file_to_linktext(after, config.new_link_format, rewrite.source, rewrite.expected, is_note_path(rewrite.expected)));
    }
    let stem = if keep_extension { rewrite.expected } else { &rewrite.expected[..rewrite.expected.len() - 3] };
    let segments: Vec<&str> = stem.split('/').collect();
    if resolve::is_relative(&link.path) {
        // Written relative to the linking note (`[[../Other]]`), as Obsidian writes links under
        // "Relative path to file": it stays relative, from where the note will be.
        let relative = relative_path(folder(rewrite.source), stem);
        forms.push(if relative.starts_with("../") { relative } else { format!("./{relative}") });
    } else if !link.path.trim().contains('/') {
        for take in 1..=segments.len() {
            forms.push(segments[segments.len() - take..].join("/"));
        }
    } else {
        forms.push(stem.to_owned());
    }
    // Anchored at the root: the one form no other file can share.
    forms.push(format!("/{stem}"));
    forms.into_iter().find(|form| finds(after, rewrite, form))
}

/// Whether `rewrite`'s link with `path` (decoded) as its path finds the file it must.
fn finds(after: &dyn FileLookup, rewrite: &Rewrite<'_>, path: &str) -> bool {
    let probe = Link { path: path.to_owned(), ..rewrite.link.clone() };
    resolves_to(after, rewrite.source, &probe, rewrite.expected)
}

/// Whether a new body link of `kind` from the note at `source`, written with `path` (decoded),
/// finds `target`.
fn new_link_finds(files: &dyn FileLookup, source: &str, kind: LinkKind, path: &str, target: &str) -> bool {
    let nowhere = crate::span::Span { start: 0, end: 0 };
    let probe = Link {
        kind,
        source: LinkSource::Body,
        target: path.to_owned(),
        path: path.to_owned(),
        subpath: None,
        display: None,
        span: nowhere,
        target_span: nowhere,
        line: 1,
        column: 1,
        destination: None,
    };
    resolves_to(files, source, &probe, target)
}

/// Whether `link`, in the note at `source`, finds `target` and only it.
fn resolves_to(files: &dyn FileLookup, source: &str, link: &Link, target: &str) -> bool {
    matches!(resolve::resolve(files, source, link), Resolution::Resolved { path } if path == target)
}

/// Obsidian's `MetadataCache.fileToLinktext(file, sourcePath, omitMdExtension)`: the link text
/// of `target` from the note at `source` under `format`. Under `shortest`, the file's name when a
/// link of it from `source` finds only that file (no other file has the name, or the file sits at
/// the root, which an exact path finds first), else its vault path.
pub fn file_to_linktext(files: &dyn FileLookup, format: NewLinkFormat, source: &str, target: &str, omit_md: bool) -> String {
    let omit = omit_md && is_note_path(target);
    let path = if omit { &target[..target.len() - 3] } else { target };
    match format {
        NewLinkFormat::Absolute => path.to_owned(),
        NewLinkFormat::Relative => {
            // Climb from the note's folder until the path lies below it, as Obsidian does; a
            // file in the note's own folder is written by its name alone, without `./`.
            let mut climb = String::new();
            let mut from = folder(source);
            while !from.is_empty() && !path.starts_with(&format!("{from}/")) {
                climb.push_str("../");
                from = folder(from);
            }
            if from.is_empty() {
                format!("{climb}{path}")
            } else {
                format!("{climb}{}", &path[from.len() + 1..])
            }
        }
        NewLinkFormat::Shortest => {
            let name = file_name(path);
            let unique = !path.contains('/') || files.files_named(&fold(file_name(target))).len() == 1;
            if unique {
                name.to_owned()
            } else {
                path.to_owned()
            }
        }
    }
}

/// The display text a rewritten link shows after the move, when it follows the rename: a
/// wikilink's alias or a markdown link's text that is the old file's name (`Old` in
/// `[[f/Old|Old]]`, `[Old](f/Old.md)`), or a wikilink's alias that is its old path as written
/// (`[[f/Old|f/Old]]`), becomes the new one, as Obsidian writes it since 1.2.1. Any other display
/// text is kept (`None`), as it is under [`RewriteForm::Keep`] and when the file keeps its name.
pub fn followed_display(config: &IndexConfig, link: &Link, old_target: &str, new_target: &str, new_path: &str) -> Option<String> {
    if config.link_form == RewriteForm::Keep || link.source.is_canvas() {
        return None;
    }
    let display = link.display.as_deref()?;
    let (old_name, new_name) = (basename(old_target), basename(new_target));
    if old_name == new_name && old_target == new_target {
        return None;
    }
    if display == old_name && old_name != new_name {
        return Some(new_name.to_owned());
    }
    let old_path = link.path.trim();
    if !link.kind.is_markdown() && !old_path.is_empty() && display == old_path && display != new_path {
        return Some(new_path.to_owned());
    }
    None
}

/// Obsidian's `TFile.basename`: the file's name without its last extension.
fn basename(path: &str) -> &str {
    let name = file_name(path);
    match name.rfind('.') {
        Some(dot) if dot > 0 => &name[..dot],
        _ => name,
    }
}

/// Where `link`'s display text is in `text`, when it can be rewritten in place: a body link whose
/// alias (after the wikilink's `|`) or text (between a markdown link's `[` and `]`) is written
/// exactly as read.
pub fn display_span(text: &str, link: &Link) -> Option<std::ops::Range<usize>> {
    if link.source != LinkSource::Body {
        return None;
    }
    let display = link.display.as_deref()?;
    let whole = text.get(link.span.range())?;
    let range = if link.kind.is_markdown() {
        let open = whole.find('[')? + 1;
        let start = link.span.start + open;
        let end = start + display.len();
        (text.get(end..)?.starts_with("](") && end <= link.target_span.start).then_some(start..end)?
    } else {
        let end = link.span.end.checked_sub(2)?;
        let start = end.checked_sub(display.len())?;
        (start > link.target_span.end && text.get(start - 1..start)? == "|").then_some(start..end)?
    };
    (text.get(range.clone())? == display).then_some(range)
}

/// A markdown destination to `expected` in the form it was written: vault-absolute with a `/`
/// when it started with one; vault-absolute without it when that is how it found its file
/// (`[x](Folder/Note.md)` from a note elsewhere, which Obsidian reads from the vault's root once
/// the note's own folder has no such path); else relative to the note's folder. The `.md` kept
/// or left out as written. Not yet encoded.
fn kept_markdown_destination(vault: &Vault, rewrite: &Rewrite<'_>) -> String {
    let path_written = rewrite.written.split('#').next().unwrap_or("");
    let decoded = percent_decode(path_written);
    let expected = rewrite.expected;
    let keep_extension = decoded.to_lowercase().ends_with(".md") || !is_note_path(expected);
    let target = if keep_extension { expected.to_owned() } else { expected[..expected.len() - 3].to_owned() };
    let found_relative = join_relative(folder(rewrite.old_source), &decoded).is_some_and(|joined| vault.find_file(&joined).is_some());
    let found_from_root = !decoded.starts_with("./") && !decoded.starts_with("../") && vault.find_file(&decoded).is_some();
    if path_written.starts_with('/') {
        format!("/{target}")
    } else if found_from_root && !found_relative && decoded.contains('/') {
        target
    } else {
        let relative = relative_path(folder(rewrite.source), &target);
        if path_written.starts_with("./") && !relative.starts_with("../") {
            format!("./{relative}")
        } else {
            relative
        }
    }
}

/// `path` read from folder `from`, its `.` and `..` segments taken; `None` when it climbs out
/// of the vault.
fn join_relative(from: &str, path: &str) -> Option<String> {
    let mut parts: Vec<&str> = from.split('/').filter(|part| !part.is_empty()).collect();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            segment => parts.push(segment),
        }
    }
    Some(parts.join("/"))
}

/// The path from folder `from` to `to`, with `../` as needed.
pub(crate) fn relative_path(from: &str, to: &str) -> String {
    let from_parts: Vec<&str> = from.split('/').filter(|part| !part.is_empty()).collect();
    let to_parts: Vec<&str> = to.split('/').collect();
    let common = from_parts.iter().zip(&to_parts).take_while(|(a, b)| a == b).count();
    let common = common.min(to_parts.len() - 1);
    let mut out: Vec<&str> = vec![".."; from_parts.len() - common];
    out.extend(&to_parts[common..]);
    out.join("/")
}

/// Percent-encodes what a plain markdown destination cannot hold: spaces, brackets, `%`, `#`,
/// `?`, `<`, `>`, `|`, `^`, `\` and controls; and every non-ASCII byte when the original was
/// encoded.
pub(crate) fn encode_destination(path: &str, encode_non_ascii: bool) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        let must = matches!(c, ' ' | '(' | ')' | '[' | ']' | '%' | '#' | '?' | '<' | '>' | '|' | '^' | '\\' | '"')
            || c.is_control()
            || (encode_non_ascii && !c.is_ascii());
        if must {
            let mut buffer = [0; 4];
            for byte in c.encode_utf8(&mut buffer).bytes() {
                out.push_str(&format!("%{byte:02X}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The path of a new wikilink from the note at `source` to `target`, as a `link` patch of
/// `commit_wiki_page` writes it: Obsidian's form under the vault's "New link format" (with
/// [`RewriteForm::Keep`], which has no written form to keep, the shortest path that finds it),
/// else the shortest path that does; `None` when no form finds `target` unambiguously.
pub fn new_wikilink_path(files: &dyn FileLookup, config: &IndexConfig, source: &str, target: &str) -> Option<String> {
    let stem = if is_note_path(target) { &target[..target.len() - 3] } else { target };
    let segments: Vec<&str> = stem.split('/').collect();
    let mut forms: Vec<String> = Vec::new();
    if config.link_form == RewriteForm::Obsidian {
        forms.push(file_to_linktext(files, config.new_link_format, source, target, true));
    }
    forms.extend((1..=segments.len()).map(|take| segments[segments.len() - take..].join("/")));
    forms.into_iter().find(|form| new_link_finds(files, source, LinkKind::Wikilink, form, target))
}

/// The destination of a new markdown link from the note at `source` to `target`, as a vault
/// whose "Use [[Wikilinks]]" is off writes one: Obsidian's form under its "New link format"
/// (with the `.md`), else the path from the note's folder, else the vault path, the first that
/// finds `target`, percent-encoded; `None` when none does.
pub fn new_markdown_destination(files: &dyn FileLookup, config: &IndexConfig, source: &str, target: &str) -> Option<String> {
    let mut forms: Vec<String> = Vec::new();
    if config.link_form == RewriteForm::Obsidian {
        forms.push(file_to_linktext(files, config.new_link_format, source, target, false));
    }
    forms.push(relative_path(folder(source), target));
    forms.push(target.to_owned());
    forms
        .into_iter()
        .find(|form| new_link_finds(files, source, LinkKind::Markdown, form, target))
        .map(|form| encode_destination(&form, false))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::NewLinkFormat;

    /// A new link (a `link` patch) is written as a rewritten one is: by the vault's "New link
    /// format" under the default form; the shortest path that finds it when the form is kept.
    #[test]
    fn a_new_wikilink_follows_the_new_link_format() {
        let (mut vault, _) = crate::testing::vault_with(&[("notes/A.md", ""), ("wiki/concepts/Forest.md", "")]);
        let written = |vault: &Vault| new_wikilink_path(vault, vault.config(), "notes/A.md", "wiki/concepts/Forest.md");
        assert_eq!(written(&vault).as_deref(), Some("Forest"));
        for (format, form, expected) in [
            (NewLinkFormat::Absolute, RewriteForm::Obsidian, "wiki/concepts/Forest"),
            (NewLinkFormat::Relative, RewriteForm::Obsidian, "../wiki/concepts/Forest"),
            (NewLinkFormat::Absolute, RewriteForm::Keep, "Forest"),
        ] {
            vault.reconfigure(IndexConfig { new_link_format: format, link_form: form, ..IndexConfig::obsidian_defaults() });
            assert_eq!(written(&vault).as_deref(), Some(expected), "{format:?} {form:?}");
        }
    }
}
