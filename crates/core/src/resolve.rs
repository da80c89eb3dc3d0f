//! Decides which file a link points to, the way Obsidian does.
//!
//! Names are compared case-insensitively and without regard to Unicode normalisation (a name
//! typed in NFC finds a file whose name is stored in NFD, as macOS stores them). A link without an extension means a Markdown note;
//! a link with one may name an attachment or a dotted note (`[[Note.1]]` finds `Note.1.md`).
//! A bare name matches by file name anywhere in the vault; a path (`[[folder/T]]`) matches
//! files whose path ends with it. Markdown links are relative to the linking note's folder,
//! or to the vault root when they start with `/`.
//!
//! When several files match, Obsidian's choice is not documented, so ours is fixed and
//! simple: a file in the linking note's folder first, then the shortest path, then the
//! lexicographically first. Such a link is reported as ambiguous.

use serde::{Deserialize, Serialize};

use crate::parse::{Link, LinkKind};

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

/// The form in which names are compared: NFC, then lower case.
pub fn fold(name: &str) -> String {
    if name.is_ascii() {
        return name.to_ascii_lowercase();
    }
    use unicode_normalization::UnicodeNormalization;
    name.nfc().collect::<String>().to_lowercase()
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

/// The folded names a link's path may be looked up by: its file name as written and with
/// `.md` added. An index re-resolves a link when a file of one of these names comes or goes.
pub fn lookup_names(linkpath: &str) -> [String; 2] {
    let name = fold(file_name(linkpath.trim().trim_end_matches('/')));
    let with_extension = format!("{name}.md");
    [name, with_extension]
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
    let path = link.path.trim();
    if path.is_empty() {
        return Resolution::Resolved { path: source.to_owned() };
    }
    if matches!(link.kind, LinkKind::Markdown | LinkKind::MarkdownEmbed) {
        if let Some(relative) = join_relative(source, path) {
            let resolution = resolve_linkpath(files, source, &relative, true);
            if resolution != Resolution::Unresolved {
                return resolution;
            }
        }
    }
    resolve_linkpath(files, source, path.trim_start_matches('/'), false)
}

/// Resolves a vault path or a name. `exact_path` asks for the whole path to match rather
/// than a suffix of it.
fn resolve_linkpath(files: &dyn FileLookup, source: &str, linkpath: &str, exact_path: bool) -> Resolution {
    let mut tries = Vec::with_capacity(2);
    if has_extension(linkpath) {
        tries.push(linkpath.to_owned());
    }
    tries.push(format!("{linkpath}.md"));
    for wanted in tries {
        let folded_wanted = fold(&wanted);
        let mut candidates: Vec<&str> = files
            .files_named(file_name(&folded_wanted))
            .into_iter()
            .filter(|candidate| {
                let folded = fold(candidate);
                folded == folded_wanted
                    || (!exact_path && folded.ends_with(&format!("/{folded_wanted}")))
            })
            .collect();
        if candidates.is_empty() {
            continue;
        }
        candidates.sort_unstable();
        candidates.dedup();
        let source_folder = folder(source);
        let chosen = *candidates
            .iter()
            .min_by_key(|candidate| (folder(candidate) != source_folder, candidate.len(), **candidate))
            .expect("candidates is not empty");
        return if candidates.len() == 1 {
            Resolution::Resolved { path: chosen.to_owned() }
        } else {
            Resolution::Ambiguous {
                path: chosen.to_owned(),
                candidates: candidates.into_iter().map(str::to_owned).collect(),
            }
        };
    }
    Resolution::Unresolved
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
}
