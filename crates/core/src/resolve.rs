//! Decides which file a link points to, the way Obsidian does.
//!
//! Names are compared case-insensitively and without regard to Unicode normalisation (a name
//! typed in NFC finds a file whose name is stored in NFD, as macOS stores them). A link without an extension means a Markdown note;
//! a link with one may name an attachment or a dotted note (`[[Note.1]]` finds `Note.1.md`).
//! A bare name matches by file name anywhere in the vault; a path (`[[folder/T]]`) matches
//! files whose path ends with it. Markdown links are relative to the linking note's folder,
//! or to the vault root when they start with `/`.
//!
//! A wikilink whose path starts with `./` or `../` (`[[../Other]]`, which Obsidian writes
//! under *New link format: Relative path to file*) is relative to the linking note's folder,
//! as a markdown link is; past the vault root it finds nothing.
//!
//! When several files match, Obsidian's choice is not documented. Ours: a file under the
//! linking note's folder (in it or in its subfolders) first, then the shortest path, then the
//! lexicographically first. So `[[B]]` in `x/n.md` finds `x/B.md` before a root `B.md`: the
//! vault path `B.md` is not weighed above the linking note's folder. The evidence and the
//! cases are in `crates/core/tests/resolution.rs`. Such a link is reported as ambiguous. A
//! wikilink path with a leading `/` (`[[/Note]]`) is anchored at the vault root, which is how
//! vaultlink writes a link to a root note whose name other folders share.
//!
//! A canvas's file card names its file by its exact vault path, and finds nothing else.

use serde::{Deserialize, Serialize};

use crate::parse::{Link, LinkKind, LinkSource};

/// What a link resolved to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Resolution {
    /// Exactly one file matches.
    Resolved { path: String },
    /// Several files match; `path` is the one chosen, `candidates` all of them, sorted.
    Ambiguous { path: String, candidates: Vec<String> },
    /// No file matches.
    Unresolved,
}

impl Resolution {
    /// The file the link points to, if any.
    pub fn path(&self) -> Option<&str> {
        match self {
            Resolution::Resolved { path } | Resolution::Ambiguous { path, .. } => Some(path),
            Resolution::Unresolved => None,
        }
    }
}

/// The files a resolver can see. The index implements it; tests may too.
pub trait FileLookup {
    /// Every file whose folded file name (see [`fold`]) is `folded_name`.
    fn files_named(&self, folded_name: &str) -> Vec<&str>;
}

/// The form in which names are compared: NFC, then lower case, with the final sigma `ς` read
/// as `σ`.
///
/// Lower-casing gives a capital `Σ` at a word's end the final form `ς`, and what counts as a
/// word's end depends on what follows: `ΟΔΟΣ` alone lowers to `οδος`, but in the file name
/// `ΟΔΟΣ.md` the `.md` after it makes it `σ`. Obsidian lowers a link's name and a file's
/// basename alike with JavaScript's `toLowerCase`, which follows the same rule, so `[[ΟΔΟΣ]]`
/// finds `ΟΔΟΣ.md` there. Comparing `ς` as `σ` makes the fold independent of where a letter
/// stands: the name alone and the name inside a path fold alike, so every link Obsidian
/// resolves by a Greek name resolves here too. The one difference: `[[οδοσ]]` also finds a file
/// spelled `οδος.md`, which Obsidian would leave unresolved; the two spellings are one word.
pub fn fold(name: &str) -> String {
    if name.is_ascii() {
        return name.to_ascii_lowercase();
    }
    use unicode_normalization::UnicodeNormalization;
    name.nfc().collect::<String>().to_lowercase().replace('ς', "σ")
}

/// The form in which headings are compared, as Obsidian matches `[[Note#Heading]]`: the
/// characters a link cannot hold or that Obsidian strips (`#`, `|`, `^`, `:`, `[`, `]`,
/// `\`, `%`, and other ASCII punctuation but `-`, `_` and `'`) become spaces, runs of
/// spaces shrink to one, and case is ignored.
pub fn heading_key(heading: &str) -> String {
    let mut key = String::with_capacity(heading.len());
    let mut pending_space = false;
    for c in fold(heading).chars() {
        let is_space = c.is_whitespace() || (c.is_ascii_punctuation() && !matches!(c, '-' | '_' | '\''));
        if is_space {
            pending_space = !key.is_empty();
        } else {
            if pending_space {
                key.push(' ');
                pending_space = false;
            }
            key.push(c);
        }
    }
    key
}

/// The key under which an index files a name for re-resolution: the folded file name without
/// a final `.md`. A link `[[Note]]`, `[[Note.md]]` and a file `Note.md` share the key `note`,
/// so a file that comes or goes re-resolves exactly the links that may look it up.
pub fn watch_key(name: &str) -> String {
    let name = fold(file_name(name.trim().trim_end_matches('/')));
    match name.strip_suffix(".md") {
        Some(stem) => stem.to_owned(),
        None => name,
    }
}

/// The file name of a vault path: `b.md` for `a/b.md`.
pub fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The folder of a vault path, without a trailing slash: `a` for `a/b.md`, empty at the root.
pub fn folder(path: &str) -> &str {
    path.rfind('/').map_or("", |slash| &path[..slash])
}

/// Resolves `link`, found in the note at `source`, against `files`.
pub fn resolve(files: &dyn FileLookup, source: &str, link: &Link) -> Resolution {
    match find(files, source, link) {
        Found::Resolved(path) => Resolution::Resolved { path: path.to_owned() },
        Found::Ambiguous(path, candidates) => {
            Resolution::Ambiguous { path: path.to_owned(), candidates: candidates.into_iter().map(str::to_owned).collect() }
        }
        Found::Unresolved => Resolution::Unresolved,
    }
}

/// What [`find`] found: a [`Resolution`] whose paths are borrowed from the files it looked in
/// (or the source), so that an index can file it by its own note ids without copying a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Found<'a> {
    Resolved(&'a str),
    /// The chosen path, and every candidate, sorted.
    Ambiguous(&'a str, Vec<&'a str>),
    Unresolved,
}

/// [`resolve`], borrowing the paths it answers.
pub(crate) fn find<'a>(files: &'a dyn FileLookup, source: &'a str, link: &Link) -> Found<'a> {
    find_path(files, source, link.kind, matches!(link.source, LinkSource::CanvasFile { .. }), &link.path)
}

/// [`find`] for a link given by its kind, whether it is a canvas's file card, and its path: what
/// the index keeps of a link without building it whole.
pub(crate) fn find_path<'a>(files: &'a dyn FileLookup, source: &'a str, kind: LinkKind, canvas_file: bool, path: &str) -> Found<'a> {
    if canvas_file {
        // A canvas's file card opens the file at exactly its path (Obsidian looks it up with
        // `getAbstractFileByPath`): no search by name, no folder, no case folding.
        return files
            .files_named(&fold(file_name(path)))
            .into_iter()
            .find(|found| *found == path)
            .map_or(Found::Unresolved, Found::Resolved);
    }
    let path = path.trim();
    if path.is_empty() {
        return Found::Resolved(source);
    }
    if matches!(kind, LinkKind::Markdown | LinkKind::MarkdownEmbed) || is_relative(path) {
        if let Some(relative) = join_relative(source, path) {
            let found = resolve_linkpath(files, source, &relative, true);
            if found != Found::Unresolved {
                return found;
            }
        }
    }
    // A leading `/` anchors a wikilink at the vault root: `[[/Note]]` is the root's Note.md
    // even when other folders hold one too.
    let rooted = path.starts_with('/');
    resolve_linkpath(files, source, path.trim_start_matches('/'), rooted)
}

pub use crate::parse::is_relative;

/// Which step of the rule decides among several candidates for a link in `source`: a file under
/// the linking note's folder, the shortest path (in UTF-8 bytes), or the lexicographic order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Decision {
    LinkingFolder,
    ShortestPath,
    Lexicographic,
}

/// True when `path` lies under `folder` (in it or in a subfolder); everything is under the root.
fn is_under(path: &str, folder: &str) -> bool {
    folder.is_empty() || path.strip_prefix(folder).is_some_and(|rest| rest.starts_with('/'))
}

/// The step of the rule [`resolve`] applies that decides among `candidates`.
pub fn decided_by(source: &str, candidates: &[String]) -> Decision {
    let source_folder = folder(source);
    let under: Vec<&String> = candidates.iter().filter(|candidate| is_under(candidate, source_folder)).collect();
    if under.len() == 1 && !source_folder.is_empty() {
        return Decision::LinkingFolder;
    }
    let pool: Vec<&String> = if under.is_empty() { candidates.iter().collect() } else { under };
    let shortest = pool.iter().map(|candidate| candidate.len()).min().unwrap_or(0);
    if pool.iter().filter(|candidate| candidate.len() == shortest).count() == 1 {
        Decision::ShortestPath
    } else {
        Decision::Lexicographic
    }
}

/// Resolves a vault path or a name. `exact_path` asks for the whole path to match rather
/// than a suffix of it.
fn resolve_linkpath<'a>(files: &'a dyn FileLookup, source: &str, linkpath: &str, exact_path: bool) -> Found<'a> {
    let folded_linkpath = fold(linkpath);
    let with_extension = [folded_linkpath.as_str(), ".md"];
    let as_written = [folded_linkpath.as_str(), ""];
    let tries: &[[&str; 2]] = if has_extension(linkpath) { &[as_written, with_extension] } else { &[with_extension] };
    for wanted in tries {
        let name = format!("{}{}", file_name(wanted[0]), wanted[1]);
        let mut candidates: Vec<&str> =
            files.files_named(&name).into_iter().filter(|candidate| candidate_matches(candidate, wanted, exact_path)).collect();
        if candidates.is_empty() {
            continue;
        }
        candidates.sort_unstable();
        candidates.dedup();
        let source_folder = folder(source);
        let chosen = *candidates
            .iter()
            .min_by_key(|candidate| (!is_under(candidate, source_folder), candidate.len(), **candidate))
            .expect("candidates is not empty");
        return if candidates.len() == 1 { Found::Resolved(chosen) } else { Found::Ambiguous(chosen, candidates) };
    }
    Found::Unresolved
}

/// [`path_matches`] on `candidate` folded; an ASCII path (most are) is compared in place,
/// since folding it only lowers its case, without allocating its folded form.
fn candidate_matches(candidate: &str, wanted: &[&str; 2], exact_path: bool) -> bool {
    if !candidate.is_ascii() {
        return path_matches(&fold(candidate), wanted, exact_path);
    }
    let ends_with = |text: &str, suffix: &str| {
        text.len() >= suffix.len() && text.as_bytes()[text.len() - suffix.len()..].eq_ignore_ascii_case(suffix.as_bytes())
    };
    if !ends_with(candidate, wanted[1]) {
        return false;
    }
    let stem = &candidate[..candidate.len() - wanted[1].len()];
    if !ends_with(stem, wanted[0]) {
        return false;
    }
    let before = &stem[..stem.len() - wanted[0].len()];
    before.is_empty() || (!exact_path && before.ends_with('/'))
}

/// True when the folded `path` is the wanted path (`wanted[0]` followed by `wanted[1]`), or,
/// unless `exact_path`, ends with `/` and the wanted path.
fn path_matches(path: &str, wanted: &[&str; 2], exact_path: bool) -> bool {
    let Some(stem) = path.strip_suffix(wanted[1]) else { return false };
    let Some(before) = stem.strip_suffix(wanted[0]) else { return false };
    before.is_empty() || (!exact_path && before.ends_with('/'))
}

fn has_extension(linkpath: &str) -> bool {
    file_name(linkpath).rfind('.').is_some_and(|dot| dot > 0 && dot + 1 < file_name(linkpath).len())
}

/// Joins a markdown link's path to the source note's folder, folding `.` and `..`.
/// `None` when `..` climbs above the vault root.
fn join_relative(source: &str, path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    let rest = match path.strip_prefix('/') {
        Some(rest) => rest,
        None => {
            parts.extend(folder(source).split('/').filter(|part| !part.is_empty()));
            path
        }
    };
    for part in rest.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse_note, ParseConfig};

    struct Files(Vec<&'static str>);

    impl FileLookup for Files {
        fn files_named(&self, folded_name: &str) -> Vec<&str> {
            self.0.iter().copied().filter(|path| fold(file_name(path)) == folded_name).collect()
        }
    }

    fn check(files: &[&'static str], source: &str, text: &str, expected: Option<&str>) {
        let files = Files(files.to_vec());
        let link = &parse_note(source, text, &ParseConfig::OBSIDIAN).links[0];
        assert_eq!(resolve(&files, source, link).path(), expected, "{text} from {source}");
    }

    #[test]
    fn names_match_case_insensitively_anywhere() {
        check(&["a/Example.md"], "b.md", "[[example]]", Some("a/Example.md"));
        check(&["Note.md"], "b.md", "[[Note.md]]", Some("Note.md"));
        check(&["Note.1.md"], "b.md", "[[Note.1]]", Some("Note.1.md"));
        check(&["img/Figure 1.png"], "b.md", "![[Figure 1.png]]", Some("img/Figure 1.png"));
        check(&["x/Figure.md"], "b.md", "[[Figure.png]]", None);
    }

    #[test]
    fn paths_match_by_suffix_and_same_folder_wins() {
        check(&["a/T.md", "b/T.md"], "c.md", "[[b/T]]", Some("b/T.md"));
        check(&["a/T.md", "b/T.md"], "b/x.md", "[[T]]", Some("b/T.md"));
        check(&["T.md", "a/T.md"], "c.md", "[[T]]", Some("T.md"));
    }

    #[test]
    fn markdown_links_are_relative() {
        check(&["a/x.md", "b/x.md"], "a/n.md", "[x](../b/x.md)", Some("b/x.md"));
        check(&["a/My Note.md"], "a/n.md", "[x](My%20Note.md)", Some("a/My Note.md"));
        check(&["b/x.md"], "a/n.md", "[x](/b/x.md)", Some("b/x.md"));
    }

    #[test]
    fn the_step_that_decides_among_candidates_is_named() {
        let candidates = |paths: &[&str]| paths.iter().map(|path| (*path).to_owned()).collect::<Vec<_>>();
        assert_eq!(decided_by("A/n.md", &candidates(&["A/T.md", "B/T.md"])), Decision::LinkingFolder);
        assert_eq!(decided_by("A/n.md", &candidates(&["A/deep/T.md", "T.md"])), Decision::LinkingFolder, "a subfolder counts");
        assert_eq!(decided_by("A/n.md", &candidates(&["A/T.md", "A/x/T.md", "T.md"])), Decision::ShortestPath);
        assert_eq!(decided_by("n.md", &candidates(&["A/T.md", "BB/T.md"])), Decision::ShortestPath);
        assert_eq!(decided_by("n.md", &candidates(&["A/T.md", "B/T.md"])), Decision::Lexicographic);
        assert_eq!(decided_by("n.md", &candidates(&["é/T.md", "ab/T.md"])), Decision::Lexicographic, "bytes, not characters");
    }
}
