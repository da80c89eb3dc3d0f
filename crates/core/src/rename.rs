//! Plans a move or rename of a note, an attachment or a folder so that every link keeps
//! pointing where it pointed, and proves it before anything is written.
//!
//! The plan is data: the file moves, and per affected note the edits as byte ranges over the
//! text that was read, with that text's hash. Only the target part of a link is replaced, so
//! an alias, a heading path, a block id, the `!` of an embed, a table's `\|` and the quotes of
//! a property stay as written.
//!
//! Planning takes two steps because core reads no files: [`notes_to_read`] names the notes
//! whose text the plan needs, and [`plan_move`] takes those texts. The proof reads every changed
//! note as its new text reads and resolves every link that the move could affect against the
//! vault as it will be; a plan that does not keep every link where it pointed is refused, and
//! nothing is written.
//!
//! The cost grows with the links that change, not with the notes' length: a text whose
//! fingerprint is the index's is not parsed again (its links are the index's), a changed note
//! is read again only where its edits are when nothing else of its parse can change (see
//! `proven_locally`; otherwise it is parsed whole), and each resolution and rewritten target is
//! worked out once per kind of link, path and folder. The move of a note with 46,319 links in
//! from 35,410 notes reads no note whole.
//!
//! The invariant, and its one deliberate exception: after the move every link resolves to
//! where it resolved before, with moved files at their new paths, and unresolved links stay
//! unresolved, except a link that was unresolved because the moved file did not yet have its
//! new name: it now finds that file, and the plan lists it under `newly_resolved`.

use crate::error::{ErrorCode, Failure};
use crate::hex::hex;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::canvas::{is_canvas_path, json_string_content, parse_file};
use crate::facts::text_fingerprint;
use crate::index::{is_note_path, ResolvedLink, Vault};
use crate::link_form::{display_span, encode_destination, followed_display, written_path, Rewrite};
use crate::parse::{parse_note, Link, LinkSource, ParseConfig, Span};
use crate::resolve::{self, file_name, fold, folder, watch_key, FileLookup, Resolution};

/// One replacement in one note's text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextEdit {
    /// UTF-8 byte range of the text that was read.
    pub span: Span,
    pub replacement: String,
}

/// The edits to one note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEdit {
    /// The note's path when the plan was made (before the moves).
    pub path: String,
    /// SHA-256 of the text the edits apply to, as lowercase hex. An edge refuses to apply the
    /// plan when the note's text no longer has this hash.
    pub content_hash: String,
    /// Sorted and disjoint.
    pub edits: Vec<TextEdit>,
}

/// One file moving.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileMove {
    pub from: String,
    pub to: String,
}

/// Why a link is rewritten.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeReason {
    /// It points to a file that moves.
    TargetMoved,
    /// It is in a note that moves, and is written relative to that note's folder.
    SourceMoved,
    /// The move would make it point elsewhere (a name collision), so it is written to keep
    /// pointing at its own target.
    SecondOrder,
    /// `rewrite_link` repoints it to a new target.
    Repointed,
    /// `link_mentions` makes it of a note's name written in plain text.
    Linked,
}

/// One link the plan rewrites.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkChange {
    /// The note holding the link, at its path before the move.
    pub note: String,
    pub line: u32,
    pub before: String,
    pub after: String,
    pub reason: ChangeReason,
}

/// A link that was unresolved and will find the moved file under its new name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewlyResolved {
    pub note: String,
    pub line: u32,
    pub link: String,
    pub resolves_to: String,
}

/// A file a plan creates, with its whole text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileCreate {
    pub path: String,
    pub text: String,
}

/// A move, planned and proven.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MovePlan {
    pub moves: Vec<FileMove>,
    pub edits: Vec<FileEdit>,
    /// New files the plan makes (`commit_wiki_page`'s page).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub creates: Vec<FileCreate>,
    pub changes: Vec<LinkChange>,
    pub newly_resolved: Vec<NewlyResolved>,
    /// SHA-256 over the moves and edits: the same plan always has the same hash.
    pub plan_hash: String,
}

/// Why a move was refused. Nothing is planned and nothing changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MoveError {
    NotFound {
        path: String,
    },
    InvalidName {
        name: String,
        characters: String,
    },
    DestinationExists {
        path: String,
    },
    IntoItself {
        from: String,
        to: String,
    },
    UnrepresentableLink {
        note: String,
        line: u32,
        link: String,
        reason: String,
    },
    /// The edge did not supply the text of a note the plan needs.
    MissingText {
        path: String,
    },
    /// A note's text no longer matches what the index parsed.
    StaleIndex {
        path: String,
    },
    /// The destination is no place for a file of the vault: empty, or in a folder Obsidian
    /// does not index (the trash, the config folder, vaultlink's own, any hidden folder).
    InvalidDestination {
        to: String,
        reason: String,
    },
    /// A folder of the destination is spelt like a folder of the vault but for case or Unicode
    /// normalization: on a case-sensitive disk it would be a second folder beside that one,
    /// on a case-insensitive one the same folder, so it is refused as a file of such a name is.
    FolderSpeltOtherwise {
        asked: String,
        existing: String,
    },
    /// `from` and `to` name the same file: there is nothing to move.
    SamePath {
        path: String,
    },
    /// The arguments of a rewrite cannot make one: an empty target, the same target twice, or
    /// a target too long to be a path.
    InvalidRewrite {
        detail: String,
    },
    /// The moves of a bulk move cannot be one batch: none, a file moved twice, two files to one
    /// place, or a cycle of names.
    InvalidBulk {
        detail: String,
    },
    /// The plan's new link text would pass [`MAX_PLAN_TEXT_BYTES`]: refused as it is made.
    PlanTooLarge {
        detail: String,
    },
}

impl Failure for MoveError {
    fn code(&self) -> ErrorCode {
        match self {
            MoveError::NotFound { .. } => ErrorCode::NoteNotFound,
            MoveError::InvalidName { .. } => ErrorCode::InvalidName,
            MoveError::DestinationExists { .. } | MoveError::FolderSpeltOtherwise { .. } => ErrorCode::DestinationExists,
            MoveError::IntoItself { .. } => ErrorCode::InvalidPath,
            MoveError::UnrepresentableLink { .. } => ErrorCode::UnrepresentableLink,
            MoveError::MissingText { .. } => ErrorCode::InvalidArguments,
            MoveError::StaleIndex { .. } => ErrorCode::ConcurrentModification,
            MoveError::InvalidDestination { .. } => ErrorCode::InvalidPath,
            MoveError::SamePath { .. } => ErrorCode::InvalidArguments,
            MoveError::InvalidRewrite { .. } => ErrorCode::InvalidArguments,
            MoveError::InvalidBulk { .. } => ErrorCode::InvalidArguments,
            MoveError::PlanTooLarge { .. } => ErrorCode::TooLarge,
        }
    }

    fn message(&self) -> String {
        match self {
            MoveError::NotFound { path } => format!("there is no file or folder at `{path}` in this vault"),
            MoveError::InvalidName { name, characters } => {
                format!("`{name}` cannot be a file's name in a vault: it holds {characters}")
            }
            MoveError::DestinationExists { path } => format!("`{path}` already exists"),
            MoveError::FolderSpeltOtherwise { asked, existing } => format!(
                "the folder `{asked}` is the vault's folder `{existing}` spelt otherwise (in case or Unicode normalization): on a case-sensitive disk it would be a second folder beside it; nothing was changed"
            ),
            MoveError::IntoItself { from, to } => format!("`{from}` cannot move into itself (`{to}`)"),
            MoveError::UnrepresentableLink { note, line, link, reason } => {
                format!("the link `{link}` in `{note}` (line {line}) cannot be rewritten: {reason}")
            }
            MoveError::MissingText { path } => format!("the plan needs the text of `{path}`"),
            MoveError::StaleIndex { path } => format!("`{path}` changed since it was indexed"),
            MoveError::InvalidDestination { to, reason } => {
                format!("the destination `to` {to:?} is not a place for a file of the vault: {reason}; nothing was changed")
            }
            MoveError::SamePath { path } => format!("`from` and `to` both name `{path}`: there is nothing to move"),
            MoveError::InvalidRewrite { detail } => format!("{detail}; nothing was planned"),
            MoveError::InvalidBulk { detail } => format!("{detail}; nothing was planned"),
            MoveError::PlanTooLarge { detail } => format!("{detail}; nothing was planned"),
        }
    }

    fn hint(&self) -> &'static str {
        match self {
            MoveError::NotFound { .. } => "Give the path relative to the vault root; call list_notes to see the paths.",
            MoveError::InvalidName { .. } => {
                "Choose a name without [ ] # ^ | : \\ * \" < > ? %% or control characters, not ending with a space or a dot, not a name Windows keeps for a device (CON, PRN, AUX, NUL, COM1-9, LPT1-9), and short enough (a file's name at most 227 bytes, a folder's 255)."
            }
            MoveError::DestinationExists { .. } => "Choose another destination, or move or delete the file that is there first.",
            MoveError::FolderSpeltOtherwise { .. } => {
                "Spell the folder as the vault does (list_notes shows its paths), or choose a folder of another name; to rename that folder, move it."
            }
            MoveError::IntoItself { .. } => "Choose a destination outside the folder being moved.",
            MoveError::UnrepresentableLink { .. } => {
                "Nothing was changed. Rename the note that link points to, or edit that link by hand, then try again."
            }
            MoveError::MissingText { .. } => "Read every note that notes_to_read names and pass its text.",
            MoveError::StaleIndex { .. } => "Nothing was changed. Let the index catch up with the edit, then plan again.",
            MoveError::InvalidDestination { .. } => {
                "Choose a destination in a visible folder of the vault. To delete a note, use delete_note: it moves the note to the trash after showing what links to it."
            }
            MoveError::SamePath { .. } => "Give a `to` that differs from `from` (a change of case alone is a rename).",
            MoveError::InvalidRewrite { .. } => {
                "Give `from_target` as the links write it (find_unresolved_links lists them) and a different, non-empty `to_target`."
            }
            MoveError::InvalidBulk { .. } => {
                "Move each file once, each to its own place; to swap two names, move one of them to a free name first, in a batch of its own."
            }
            MoveError::PlanTooLarge { .. } => {
                "Nothing was changed. Choose a shorter path or target (the links' new text is what grows), or make the change in several smaller ones (a folder's notes in parts, a rewrite note by note)."
            }
        }
    }

    /// True when the same call may succeed later without any change.
    fn retryable(&self) -> bool {
        matches!(self, MoveError::StaleIndex { .. })
    }
}

impl std::fmt::Display for MoveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for MoveError {}

/// SHA-256 of a text as lowercase hex: the hash a plan's edits assume.
pub fn content_hash(text: &str) -> String {
    hex(&Sha256::digest(text.as_bytes()))
}

/// The most bytes of one segment of a path, as filesystems allow (ext4, APFS, NTFS in UTF-16).
pub const MAX_NAME_BYTES: usize = 255;
/// The most bytes of a file's name that a move or a new page may give: the engine's temporary
/// names beside the file (`batch::temporary_name`) add up to `batch::TEMPORARY_NAME_EXTRA_BYTES`
/// to it and must fit `MAX_NAME_BYTES` too, or the file's first rewrite would fail at write time.
pub const MAX_FILE_NAME_BYTES: usize = MAX_NAME_BYTES - crate::batch::TEMPORARY_NAME_EXTRA_BYTES;
/// The most bytes of a link target `rewrite_link` writes (a path of many names).
pub const MAX_TARGET_BYTES: usize = 4096;
/// The most bytes of new link text one `rewrite_link` or move plan holds (each link's new
/// target, and the link as the answer shows it): a plan grows with links × the target's length
/// (20,000 links to a 4 KiB target would be 160 MiB before the proof and the answer copy it
/// again), so past this it is refused as it is made, before it grows further.
pub const MAX_PLAN_TEXT_BYTES: usize = 32 << 20;

/// Characters a path segment cannot hold and still be linked to.
fn bad_characters(segment: &str) -> Vec<String> {
    let mut found: BTreeSet<String> = BTreeSet::new();
    for c in segment.chars() {
        match c {
            // Links cannot hold the first seven; Windows (and so Obsidian, everywhere) refuses
            // the rest in a file's name, and a vault is often synced to Windows.
            '[' | ']' | '#' | '^' | '|' | ':' | '\\' | '*' | '"' | '<' | '>' | '?' => {
                found.insert(format!("`{c}`"));
            }
            c if c.is_control() => {
                found.insert(format!("U+{:04X}", c as u32));
            }
            _ => {}
        }
    }
    if segment.contains("%%") {
        found.insert("`%%`".to_owned());
    }
    if segment.ends_with(' ') || segment.ends_with('.') {
        found.insert("a trailing space or dot".to_owned());
    }
    if segment.is_empty() || segment == "." || segment == ".." {
        found.insert("an empty or dot-only segment".to_owned());
    }
    if segment.len() > MAX_NAME_BYTES {
        found.insert(format!("more than {MAX_NAME_BYTES} bytes in one name, more than filesystems take"));
    }
    // Windows keeps these names for devices, with any extension (`CON.md`, `nul.txt`).
    let base = segment.split('.').next().unwrap_or(segment).trim_end().to_ascii_uppercase();
    // COM and LPT with any digit, 0 and the superscripts ¹ ² ³ included, as Windows refuses.
    let device_digit =
        |rest: &str| matches!(rest, "0" | "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9" | "\u{b9}" | "\u{b2}" | "\u{b3}");
    let reserved = matches!(base.as_str(), "CON" | "PRN" | "AUX" | "NUL" | "CONIN$" | "CONOUT$")
        || base.strip_prefix("COM").or_else(|| base.strip_prefix("LPT")).is_some_and(device_digit);
    if reserved {
        found.insert(format!("`{base}`, a name Windows keeps for a device"));
    }
    found.into_iter().collect()
}

pub(crate) fn check_name(path: &str) -> Result<(), MoveError> {
    // The last segment is checked with and without its extension: `Note .md` ends in a space.
    let stem = path.rsplit_once('.').map(|(stem, _)| stem).filter(|stem| !stem.is_empty() && !stem.ends_with('/'));
    for segment in path.split('/').chain(stem.and_then(|stem| stem.rsplit('/').next())) {
        let bad = bad_characters(segment);
        if !bad.is_empty() {
            return Err(MoveError::InvalidName { name: path.to_owned(), characters: bad.join(", ") });
        }
    }
    Ok(())
}

/// [`check_name`] for a file's new path, whose name also leaves room for the temporary names
/// beside it ([`MAX_FILE_NAME_BYTES`]).
pub(crate) fn check_file_name(path: &str) -> Result<(), MoveError> {
    check_name(path)?;
    let name = path.rsplit('/').next().unwrap_or(path);
    if name.len() > MAX_FILE_NAME_BYTES {
        return Err(MoveError::InvalidName {
            name: path.to_owned(),
            characters: format!(
                "{} bytes in the file's name, more than the {MAX_FILE_NAME_BYTES} that leave room for vaultlink's temporary names beside it",
                name.len()
            ),
        });
    }
    Ok(())
}

/// The folder a folder move empties, spelt as it is in the vault (the caller may have typed it
/// in another case): `None` for the move of one file. Both edges remove what the move left
/// empty under it, and only that.
pub fn moved_folder(from: &str, plan: &MovePlan) -> Option<String> {
    let named = from.trim().trim_matches('/');
    let depth = named.split('/').count();
    plan.moves.iter().find_map(|file_move| {
        let segments: Vec<&str> = file_move.from.split('/').collect();
        (segments.len() > depth && fold(&segments[..depth].join("/")) == fold(named)).then(|| segments[..depth].join("/"))
    })
}

/// Which files move: `(from, to)` pairs, for a file or every file of a folder.
fn moves(vault: &Vault, from: &str, to: &str) -> Result<Vec<(String, String)>, MoveError> {
    let (moves, is_folder) = expand(vault, from, to)?;
    check_moves(vault, &moves, !is_folder)?;
    Ok(moves)
}

/// The `(from, to)` pairs one move asks for, and whether it moves a folder.
fn expand(vault: &Vault, from: &str, to: &str) -> Result<(Vec<(String, String)>, bool), MoveError> {
    let from = from.trim().trim_matches('/');
    let to = to.trim().trim_matches('/');
    if from.is_empty() {
        return Err(MoveError::NotFound { path: from.to_owned() });
    }
    if to.is_empty() {
        return Err(MoveError::InvalidDestination { to: to.to_owned(), reason: "it is empty".to_owned() });
    }
    // The one rule of hidden places (`paths`), for the destinations a bulk move's objects hold too.
    if let Some(reason) = crate::paths::hidden_path_problem(to) {
        return Err(MoveError::InvalidDestination { to: to.to_owned(), reason });
    }
    let moves: Vec<(String, String)> = match vault.find_file(from) {
        Some(file) => {
            // A note keeps being a note: `to` without `.md` gets it.
            let to = if is_note_path(file) && !is_note_path(to) { format!("{to}.md") } else { to.to_owned() };
            vec![(file.to_owned(), to)]
        }
        None => {
            let folded_folder = format!("{}/", fold(from));
            let inside: Vec<&str> = vault.paths().filter(|path| folded_starts_with(path, &folded_folder)).collect();
            if inside.is_empty() {
                return Err(MoveError::NotFound { path: from.to_owned() });
            }
            if fold(to) == fold(from) || fold(to).starts_with(&folded_folder) {
                return Err(MoveError::IntoItself { from: from.to_owned(), to: to.to_owned() });
            }
            inside.iter().map(|path| ((*path).to_owned(), format!("{to}{}", &path[from.len()..]))).collect()
        }
    };
    // A folder move checks the folder's new path; the names inside it are the files' own and
    // stay as they are (a link that cannot be written to one of them is refused later).
    let is_folder = moves.len() > 1 || vault.find_file(from).is_none();
    if is_folder {
        check_name(to)?;
    }
    Ok((moves, is_folder))
}

/// Whether `fold(path)` starts with `folded`, without making the folded path when both are
/// ASCII (every path of a vault is asked when a folder moves).
fn folded_starts_with(path: &str, folded: &str) -> bool {
    if path.is_ascii() && folded.is_ascii() {
        return path.len() >= folded.len() && path.as_bytes()[..folded.len()].eq_ignore_ascii_case(folded.as_bytes());
    }
    fold(path).starts_with(folded)
}

/// The first folder of `path` that holds no file of the vault as it is spelt, and the folder
/// beside it spelt the same but for case or Unicode normalization that holds a file that stays
/// (not in `leaving`, folded paths): `(asked, existing)`. Folders under one the vault has no
/// form of cannot have one either, so only that first folder is compared, with its siblings.
pub fn folder_spelt_otherwise(vault: &Vault, path: &str, leaving: &HashSet<String>) -> Option<(String, String)> {
    let (folder, _) = path.rsplit_once('/')?;
    let mut parent = "";
    for (end, _) in folder.match_indices('/').chain([(folder.len(), "")]) {
        let asked = &folder[..end];
        if vault.paths_under(asked).next().is_some() {
            parent = asked;
            continue;
        }
        let name = &asked[parent.len() + usize::from(!parent.is_empty())..];
        let existing = vault.paths_under(parent).find_map(|file| {
            let inside = &file[parent.len() + usize::from(!parent.is_empty())..];
            let (sibling, _) = inside.split_once('/')?;
            let same = if sibling.is_ascii() && name.is_ascii() { sibling.eq_ignore_ascii_case(name) } else { fold(sibling) == fold(name) };
            (same && !leaving.contains(&fold(file))).then(|| file[..file.len() - inside.len() + sibling.len()].to_owned())
        });
        return existing.map(|existing| (asked.to_owned(), existing));
    }
    None
}

/// Checks the destinations of `moves` taken together: each free, or left by a file that moves
/// away in the same batch, and in folders spelt as the vault spells them
/// ([`folder_spelt_otherwise`]). `check_names` checks each destination's name (a file move's).
fn check_moves(vault: &Vault, moves: &[(String, String)], check_names: bool) -> Result<(), MoveError> {
    let leaving: HashSet<String> = moves.iter().map(|(from, _)| fold(from)).collect();
    // Once per folder: a folder move's files share theirs.
    let mut folders_checked: HashSet<&str> = HashSet::new();
    for (_, to) in moves {
        let folder = to.rsplit_once('/').map_or("", |(folder, _)| folder);
        if folders_checked.insert(folder) {
            if let Some((asked, existing)) = folder_spelt_otherwise(vault, to, &leaving) {
                return Err(MoveError::FolderSpeltOtherwise { asked, existing });
            }
        }
    }
    // A file that stays and is spelt like a destination but for case: on a case-sensitive
    // filesystem `a.md` and `A.md` can both exist, and `a.md` -> `A.md` would replace the other.
    let leaving_exactly: HashSet<&str> = moves.iter().map(|(from, _)| from.as_str()).collect();
    let destinations: HashSet<String> = moves.iter().map(|(_, to)| fold(to)).collect();
    // Only files with a destination's file name can be spelt like it: looked up by name, not by
    // going over every file of the vault.
    let staying_in_the_way: HashSet<String> = moves
        .iter()
        .flat_map(|(_, to)| vault.files_named(&fold(file_name(to))))
        .filter(|path| !leaving_exactly.contains(path) && destinations.contains(&fold(path)))
        .map(fold)
        .collect();
    for (from, to) in moves {
        if staying_in_the_way.contains(&fold(to)) {
            return Err(MoveError::DestinationExists { path: to.clone() });
        }
        if check_names {
            check_file_name(to)?;
        }
        // A file already there is refused, unless it is one that moves away (a rename that
        // changes only case, or files changing places inside a moving folder).
        if from == to {
            return Err(MoveError::SamePath { path: to.clone() });
        }
        if vault.find_file(to).is_some_and(|existing| !leaving.contains(&fold(existing))) {
            return Err(MoveError::DestinationExists { path: to.clone() });
        }
    }
    Ok(())
}

/// The pairs of many moves, as one batch: each move expanded as one alone is, then checked
/// together (no file moved twice, no two files to one place, each destination free or left by
/// a file that moves first), and ordered so that a file moves only once its destination is
/// free. In a cycle of names (two notes swapping theirs) one move goes first, to its
/// destination through a third name (`batch::batch` gives it) once that destination is left.
pub fn bulk_moves(vault: &Vault, asked: &[(String, String)]) -> Result<Vec<(String, String)>, MoveError> {
    if asked.is_empty() {
        return Err(MoveError::InvalidBulk { detail: "`moves` is empty".to_owned() });
    }
    let mut all: Vec<(String, String)> = Vec::new();
    let mut sources: HashMap<String, String> = HashMap::new();
    let mut destinations: HashMap<String, String> = HashMap::new();
    for (from, to) in asked {
        let (pairs, is_folder) = expand(vault, from, to)?;
        if !is_folder {
            check_file_name(&pairs[0].1)?;
        }
        for (source, destination) in pairs {
            if let Some(other) = sources.insert(fold(&source), from.clone()) {
                return Err(MoveError::InvalidBulk { detail: format!("`{source}` is moved twice (by `{other}` and by `{from}`)") });
            }
            if destinations.insert(fold(&destination), source.clone()).is_some() {
                return Err(MoveError::InvalidBulk { detail: format!("two files would move to `{destination}`") });
            }
            all.push((source, destination));
        }
    }
    check_moves(vault, &all, false)?;
    // A file moves once no file still to move sits at its destination.
    let mut ordered = Vec::with_capacity(all.len());
    let mut pending = all;
    while !pending.is_empty() {
        let waiting: HashSet<String> = pending.iter().map(|(from, _)| fold(from)).collect();
        let (ready, blocked): (Vec<_>, Vec<_>) =
            pending.into_iter().partition(|(from, to)| fold(to) == fold(from) || !waiting.contains(&fold(to)));
        if ready.is_empty() {
            // A cycle of names (a swap): its first move goes first, through a third name that
            // `batch` gives it, and reaches its destination once that is left.
            // Recovery tells a swap that happened from one that did not by the files' texts,
            // which only notes have for core.
            if let Some((from, _)) = blocked.iter().find(|(from, _)| !is_note_path(from)) {
                return Err(MoveError::InvalidBulk {
                    detail: format!(
                        "`{from}` is in a cycle of names (a swap), which only notes may be in; move it aside first, in a move of its own"
                    ),
                });
            }
            let mut blocked = blocked.into_iter();
            ordered.extend(blocked.next());
            pending = blocked.collect();
            continue;
        }
        ordered.extend(ready);
        pending = blocked;
    }
    Ok(ordered)
}

/// Step one of a bulk move: the notes whose text its plan needs.
pub fn notes_to_read_for_bulk(vault: &Vault, asked: &[(String, String)]) -> Result<Vec<String>, MoveError> {
    let pairs = bulk_moves(vault, asked)?;
    // The notes of a cycle of names too: their batch moves carry the hash of what they hold.
    let destinations: HashSet<String> = pairs.iter().map(|(_, to)| fold(to)).collect();
    let cycle: Vec<String> = pairs.iter().filter(|(from, _)| destinations.contains(&fold(from))).map(|(from, _)| from.clone()).collect();
    let moves = Moves::new(pairs);
    let mut notes: BTreeSet<String> = candidates(vault, &moves).notes.into_iter().map(|(source, _)| source.to_owned()).collect();
    notes.extend(cycle.into_iter().filter(|path| vault.is_note(path)));
    Ok(notes.into_iter().collect())
}

/// Step two of a bulk move: plans and proves every move as one batch.
pub fn plan_bulk_move(vault: &Vault, asked: &[(String, String)], texts: &BTreeMap<String, String>) -> Result<MovePlan, MoveError> {
    plan_pairs(vault, Moves::new(bulk_moves(vault, asked)?), texts)
}

/// The notes whose text [`plan_moves_as_given`] needs for `pairs`.
pub(crate) fn notes_to_read_for_moves_as_given(vault: &Vault, pairs: &[(String, String)]) -> Vec<String> {
    candidates(vault, &Moves::new(pairs.to_vec())).notes.into_iter().map(|(source, _)| source.to_owned()).collect()
}

/// Plans and proves the link edits of `pairs` (each file from where it is to where it ends),
/// taken as given: the caller has checked them and orders the steps itself. An undo's moves
/// back are planned so, as moves: the links made since the change follow the files back.
pub(crate) fn plan_moves_as_given(
    vault: &Vault,
    pairs: Vec<(String, String)>,
    texts: &BTreeMap<String, String>,
) -> Result<MovePlan, MoveError> {
    plan_pairs(vault, Moves::new(pairs), texts)
}

/// The vault's files as they will be after the moves: a view, nothing is copied.
struct After<'a> {
    vault: &'a Vault,
    removed: HashSet<&'a str>,
    /// Folded file name to the paths that arrive with it.
    added: HashMap<String, Vec<String>>,
}

impl<'a> After<'a> {
    fn new(vault: &'a Vault, moves: &Moves) -> After<'a> {
        let mut added: HashMap<String, Vec<String>> = HashMap::new();
        for (_, to) in &moves.list {
            added.entry(fold(file_name(to))).or_default().push(to.clone());
        }
        After { vault, removed: moves.list.iter().filter_map(|(from, _)| vault.find_file(from)).collect(), added }
    }
}

impl FileLookup for After<'_> {
    fn files_named(&self, folded_name: &str) -> Vec<&str> {
        let mut files: Vec<&str> = self.vault.files_named(folded_name).into_iter().filter(|path| !self.removed.contains(path)).collect();
        files.extend(self.added.get(folded_name).into_iter().flatten().map(String::as_str));
        files
    }
}

/// The files that move, as a list and as lookups.
struct Moves {
    list: Vec<(String, String)>,
    to_by_from: QuickMap<String, String>,
    /// Every destination.
    arriving: QuickSet<String>,
}

impl Moves {
    fn new(list: Vec<(String, String)>) -> Moves {
        let to_by_from = list.iter().cloned().collect();
        let arriving = list.iter().map(|(_, to)| to.clone()).collect();
        Moves { list, to_by_from, arriving }
    }

    /// Where `path` is after the moves.
    fn map<'s>(&'s self, path: &'s str) -> &'s str {
        self.to_by_from.get(path).map_or(path, String::as_str)
    }
}

/// The links a move may affect, by note (in path order), each note's by position: every link
/// in a moving note, and every link that looks up a file by a name that leaves or arrives (the
/// index files links by those names). No other link can resolve elsewhere after the move.
fn candidates<'a>(vault: &'a Vault, moves: &Moves) -> Candidates<'a> {
    let mut links: Vec<(&'a str, usize)> = Vec::new();
    for (from, to) in &moves.list {
        for key in [watch_key(from), watch_key(to)] {
            links.extend(vault.links_watching(&key));
        }
        if let Some(outgoing) = vault.outgoing_links(from) {
            if let Some(first) = outgoing.first() {
                links.extend((0..outgoing.len()).map(|index| (first.source, index)));
            }
        }
    }
    // A file whose links run past the index's limit may hold any link past it: it is read, and
    // planned from its whole text (`NoteRead::whole`).
    links.extend(vault.truncated_files().into_iter().map(|source| (source, 0)));
    // Grouped by where each path's text is (the index hands out one string per path), which
    // reads no path: sorted by address and position, each group a run.
    links.sort_unstable_by_key(|(source, index)| (source.as_ptr() as usize, *index));
    links.dedup_by_key(|(source, index)| (source.as_ptr() as usize, *index));
    let mut groups: Vec<(&'a str, std::ops::Range<usize>)> = Vec::new();
    for (at, (source, _)) in links.iter().enumerate() {
        match groups.last_mut() {
            Some((last, run)) if last.as_ptr() == source.as_ptr() => run.end = at + 1,
            _ => groups.push((source, at..at + 1)),
        }
    }
    // Then put in path order. Many notes: by going over the vault's paths, already in order, each
    // looked up among the groups by address; should a group not be met that way (a path handed
    // out in two strings), or for a few notes, by sorting them by path.
    let mut ordered: Vec<(&'a str, std::ops::Range<usize>)> = Vec::with_capacity(groups.len());
    if groups.len() > 1024 {
        for path in vault.paths() {
            if let Ok(at) = groups.binary_search_by_key(&(path.as_ptr() as usize), |(source, _)| source.as_ptr() as usize) {
                ordered.push(groups[at].clone());
            }
        }
    }
    if ordered.len() != groups.len() {
        ordered = groups;
        ordered.sort_by(|a, b| a.0.cmp(b.0));
    }
    let mut indexes: Vec<usize> = links.into_iter().map(|(_, index)| index).collect();
    let mut notes: Vec<(&'a str, std::ops::Range<usize>)> = Vec::with_capacity(ordered.len());
    for (source, run) in ordered {
        if let Some((_, previous)) = notes.last_mut().filter(|(last, _)| *last == source) {
            // Two groups of one path (two strings): their positions merged, in order.
            let mut all: Vec<usize> = indexes[previous.clone()].iter().chain(&indexes[run]).copied().collect();
            all.sort_unstable();
            all.dedup();
            let start = indexes.len();
            indexes.extend(all);
            *previous = start..indexes.len();
            continue;
        }
        notes.push((source, run));
    }
    Candidates { notes, indexes }
}

/// The links a move may affect: each note (in path order) with the range of its links'
/// positions (sorted, each once) in `indexes`.
struct Candidates<'a> {
    notes: Vec<(&'a str, std::ops::Range<usize>)>,
    indexes: Vec<usize>,
}

/// A hash for the plan's own look-ups (addresses, paths, the memos' keys), a multiply and a
/// rotation per 8 bytes: SipHash's protection against chosen collisions buys nothing for maps
/// a single plan builds and drops, and costs more than the look-ups it serves.
#[derive(Default, Clone, Copy)]
struct BuildQuickHasher;

#[derive(Default)]
struct QuickHasher(u64);

type QuickMap<K, V> = HashMap<K, V, BuildQuickHasher>;
type QuickSet<K> = HashSet<K, BuildQuickHasher>;

impl std::hash::BuildHasher for BuildQuickHasher {
    type Hasher = QuickHasher;

    fn build_hasher(&self) -> QuickHasher {
        QuickHasher(0)
    }
}

impl QuickHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl std::hash::Hasher for QuickHasher {
    fn finish(&self) -> u64 {
        // hashbrown takes its bucket from the low bits and its tag from the high ones: both
        // must depend on every word, and a product's low bits depend only on low bits.
        self.0 ^ (self.0 >> 29)
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            self.add(u64::from_le_bytes(<[u8; 8]>::try_from(word).unwrap_or_default()));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            self.add(rest.iter().rev().fold(0, |word, byte| (word << 8) | u64::from(*byte)));
        }
    }

    fn write_u8(&mut self, value: u8) {
        self.add(u64::from(value));
    }

    fn write_usize(&mut self, value: usize) {
        self.add(value as u64);
    }
}

/// Step one: the notes whose text a plan for this move needs.
pub fn notes_to_read(vault: &Vault, from: &str, to: &str) -> Result<Vec<String>, MoveError> {
    let moves = Moves::new(moves(vault, from, to)?);
    Ok(candidates(vault, &moves).notes.into_iter().map(|(source, _)| source.to_owned()).collect())
}

/// Step two: plans and proves the move. `texts` holds the text of every note that
/// [`notes_to_read`] named.
pub fn plan_move(vault: &Vault, from: &str, to: &str, texts: &BTreeMap<String, String>) -> Result<MovePlan, MoveError> {
    plan_pairs(vault, Moves::new(moves(vault, from, to)?), texts)
}

/// How a file whose links run past the index's limit is read for a move: every link of it.
/// The note size limit bounds how many that can be.
const WHOLE_TEXT: ParseConfig = ParseConfig { max_links: usize::MAX };

/// The links of one note as the text given for it reads, with their resolutions before the
/// move. When the text is the one the index read (its fingerprint is the index's), they are the
/// index's links, borrowed; otherwise the text is parsed again, and must hold the links the
/// index holds (the same targets, in the same order), else the index is stale and the plan is
/// refused.
struct NoteRead<'a> {
    indexed: Vec<ResolvedLink<'a>>,
    parsed: Option<Vec<Link>>,
    /// For a file read whole ([`NoteRead::whole`]), the resolutions before the move of its
    /// links past those the index kept, which the index has none of.
    beyond: Vec<Resolution>,
}

impl<'a> NoteRead<'a> {
    fn new(vault: &'a Vault, source: &str, text: &str, config: &ParseConfig) -> Result<NoteRead<'a>, MoveError> {
        let indexed = vault.outgoing_links(source).unwrap_or_default();
        if vault.facts(source).is_some_and(|facts| facts.text_fingerprint == text_fingerprint(text)) {
            return Ok(NoteRead { indexed, parsed: None, beyond: Vec::new() });
        }
        let links = parse_file(source, text, config).links;
        if links.len() != indexed.len() || links.iter().zip(&indexed).any(|(fresh, old)| fresh.target != old.link.target) {
            return Err(MoveError::StaleIndex { path: source.to_owned() });
        }
        Ok(NoteRead { indexed, parsed: Some(links), beyond: Vec::new() })
    }

    /// A file whose links run past the index's limit, read whole: it must begin with the links
    /// the index kept (else the index is stale), and the links past them are resolved here
    /// against the vault before the move, once per kind of link, folder and path.
    fn whole(vault: &'a Vault, source: &str, text: &str) -> Result<NoteRead<'a>, MoveError> {
        let indexed = vault.outgoing_links(source).unwrap_or_default();
        let links = parse_file(source, text, &WHOLE_TEXT).links;
        if links.len() < indexed.len() || links.iter().zip(&indexed).any(|(fresh, old)| fresh.target != old.link.target) {
            return Err(MoveError::StaleIndex { path: source.to_owned() });
        }
        let mut known: QuickMap<String, Resolution> = QuickMap::default();
        let mut key = String::new();
        let beyond = links[indexed.len()..]
            .iter()
            .map(|link| {
                if link.path.trim().is_empty() {
                    return resolve::resolve(vault, source, link);
                }
                resolved_key(&mut key, link, folder(source));
                if let Some(resolution) = known.get(key.as_str()) {
                    return resolution.clone();
                }
                let resolution = resolve::resolve(vault, source, link);
                known.insert(key.clone(), resolution.clone());
                resolution
            })
            .collect();
        Ok(NoteRead { indexed, parsed: Some(links), beyond })
    }

    fn len(&self) -> usize {
        self.parsed.as_ref().map_or(self.indexed.len(), Vec::len)
    }

    fn link(&self, index: usize) -> &Link {
        match &self.parsed {
            Some(links) => &links[index],
            None => self.indexed[index].link,
        }
    }

    fn resolution(&self, index: usize) -> &Resolution {
        match self.indexed.get(index) {
            Some(found) => found.resolution,
            None => &self.beyond[index - self.indexed.len()],
        }
    }
}

/// What one note's part of a plan holds: the text read, its links, the candidates among them,
/// and the edits (each with the position of the link it rewrites).
struct NotePlan<'a> {
    source: &'a str,
    new_source: &'a str,
    text: &'a str,
    read: NoteRead<'a>,
    /// Read whole, past the index's limit ([`NoteRead::whole`]).
    whole: bool,
    candidates: std::borrow::Cow<'a, [usize]>,
    /// The edits, in the order of the text, each with its change and the position of the link
    /// it rewrites.
    edits: Vec<TextEdit>,
    changes: Vec<LinkChange>,
    edited: Vec<usize>,
    /// The display text of each link (by position) whose display follows the rename
    /// (`link_form::followed_display`); every other link keeps its own.
    displays: HashMap<usize, String>,
}

impl NotePlan<'_> {
    /// The display text the link at `index` (read as `old`) must have after the edits.
    fn display_after<'s>(&'s self, index: usize, old: &'s Link) -> Option<&'s str> {
        self.displays.get(&index).map(String::as_str).or(old.display.as_deref())
    }
}

/// Resolutions and rewritten targets after the move, each worked out once: a resolution
/// depends only on the link's kind (markdown or not), its path and the linking note's folder,
/// and a rewritten path only on those and the target (`resolved_key`, `rewrite_key`), so the
/// 46,319 links to one note from 35,410 notes in a few hundred folders need a few hundred of
/// each.
struct Planner<'a> {
    after: After<'a>,
    /// A resolution's key to its place in `targets`.
    resolved: QuickMap<String, usize>,
    /// What each resolution found.
    targets: Vec<Option<String>>,
    /// A rewrite's key to the new path part of the target, or why there is none.
    rewritten: QuickMap<String, Result<String, String>>,
    /// Where keys are written before a look-up.
    key: String,
}

/// The key of a resolution from a note in `folder`: the kind, the folder, the path.
fn resolved_key(key: &mut String, link: &Link, folder: &str) {
    key.clear();
    key.push(match link.source {
        // Found by its exact path, unlike any link of the same path.
        LinkSource::CanvasFile { .. } => 'f',
        _ if link.kind.is_markdown() => 'm',
        _ => 'w',
    });
    key.push_str(folder);
    key.push('\0');
    key.push_str(link.path.trim());
}

impl<'a> Planner<'a> {
    fn new(vault: &'a Vault, moves: &Moves) -> Planner<'a> {
        Planner {
            after: After::new(vault, moves),
            resolved: QuickMap::default(),
            targets: Vec::new(),
            rewritten: QuickMap::default(),
            key: String::new(),
        }
    }

    /// What `link`, in the note that will be at `source`, resolves to after the move: the same
    /// as `resolve::resolve` against the vault after it, looked up when a link of the same
    /// kind and path from the same folder was resolved before.
    fn resolve(&mut self, source: &str, link: &Link) -> Option<&str> {
        if link.path.trim().is_empty() {
            // A link to the note itself (`[[#Heading]]`): the one resolution that depends on
            // the whole source path.
            self.targets.push(resolve::resolve(&self.after, source, link).path().map(str::to_owned));
            return self.targets.last().and_then(Option::as_deref);
        }
        resolved_key(&mut self.key, link, folder(source));
        let at = match self.resolved.get(self.key.as_str()) {
            Some(at) => *at,
            None => {
                self.targets.push(resolve::resolve(&self.after, source, link).path().map(str::to_owned));
                self.resolved.insert(self.key.clone(), self.targets.len() - 1);
                self.targets.len() - 1
            }
        };
        self.targets[at].as_deref()
    }

    /// The new target text (path and subpath as written) for `link` in `source` (which moves to
    /// `new_source`), pointing at `expected`.
    fn rewrite_target(&mut self, source: &str, new_source: &str, text: &str, link: &Link, expected: &str) -> Result<String, MoveError> {
        if let LinkSource::CanvasFile { .. } = link.source {
            // A file card names its file by its vault path, whatever the canvas's folder.
            return Ok(json_string_content(expected));
        }
        // In a canvas's text card the target as written is the decoded JSON string's; the raw
        // bytes may hold escapes.
        let written = if link.source.is_canvas() { link.target.as_str() } else { &text[link.target_span.range()] };
        let subpath_written = written.find('#').map_or("", |hash| &written[hash..]);
        let unrepresentable = |reason: String| MoveError::UnrepresentableLink {
            note: source.to_owned(),
            line: link.line,
            link: text[link.span.range()].to_owned(),
            reason,
        };
        // What the new path depends on: for a markdown link, how its destination is written and
        // both folders (it stays relative to the note, found from where the note was); for a
        // wikilink, its path and the new folder.
        let key = &mut self.key;
        key.clear();
        if link.kind.is_markdown() {
            let destination = link.destination.unwrap_or(crate::parse::Destination { angle: false, encoded: false });
            key.push(if destination.angle { 'a' } else { 'm' });
            key.push(if destination.encoded { 'e' } else { 'p' });
            key.push_str(folder(source));
            key.push('\0');
            key.push_str(written.split('#').next().unwrap_or(""));
        } else {
            key.push('w');
            key.push_str(link.path.trim());
        }
        key.push('\0');
        key.push_str(folder(new_source));
        key.push('\0');
        key.push_str(expected);
        if !self.rewritten.contains_key(self.key.as_str()) {
            let rewrite = Rewrite { link, written, old_source: source, source: new_source, expected };
            let made = written_path(self.after.vault, &self.after, self.after.vault.config(), &rewrite)
                .ok_or_else(|| format!("no form of a link to `{expected}` finds it unambiguously"));
            self.rewritten.insert(self.key.clone(), made);
        }
        let new_path: &str = match &self.rewritten[self.key.as_str()] {
            Ok(path) => path,
            Err(reason) => return Err(unrepresentable(reason.clone())),
        };
        let forbidden: &[char] = if link.kind.is_markdown() {
            if link.destination.is_some_and(|destination| destination.angle) {
                &['<', '>', '\n', '\r']
            } else {
                &[' ', '\n', '\r']
            }
        } else {
            &['|', '[', ']', '#', '^', '\n', '\r']
        };
        if new_path.contains(forbidden) || new_path.contains("%%") {
            return Err(unrepresentable(format!("`{new_path}` cannot be written in this kind of link")));
        }
        let new_path = escape_in_property(link, new_path)
            .ok_or_else(|| unrepresentable(format!("`{new_path}` cannot be written inside this property's string")))?;
        let mut target = String::with_capacity(new_path.len() + subpath_written.len());
        target.push_str(&new_path);
        target.push_str(subpath_written);
        Ok(target)
    }
}

/// Plans and proves the moves of `moves`, in their order.
fn plan_pairs(vault: &Vault, moves: Moves, texts: &BTreeMap<String, String>) -> Result<MovePlan, MoveError> {
    let mut planner = Planner::new(vault, &moves);
    let config = vault.config().parse;
    let mut newly_resolved = Vec::new();
    let candidates = candidates(vault, &moves);
    let mut notes: Vec<NotePlan<'_>> = Vec::with_capacity(candidates.notes.len());
    // The notes come in path order, as `texts` keeps them: each text is found by walking along
    // `texts` rather than searching it.
    let mut walk = texts.iter().peekable();
    // The bytes of new link text planned so far, held to MAX_PLAN_TEXT_BYTES as for a rewrite.
    let mut planned_bytes = 0;
    let truncated = vault.truncated_files();
    for (source, run) in &candidates.notes {
        let (source, candidates) = (*source, &candidates.indexes[run.clone()]);
        while walk.next_if(|(path, _)| path.as_str() < source).is_some() {}
        let text = walk
            .next_if(|(path, _)| path.as_str() == source)
            .map(|(_, text)| text)
            .or_else(|| texts.get(source))
            .ok_or_else(|| MoveError::MissingText { path: source.to_owned() })?;
        let whole = truncated.binary_search(&source).is_ok();
        let (read, candidates) = if whole {
            let read = NoteRead::whole(vault, source, text)?;
            let every: Vec<usize> = (0..read.len()).collect();
            (read, std::borrow::Cow::Owned(every))
        } else {
            (NoteRead::new(vault, source, text, &config)?, std::borrow::Cow::Borrowed(candidates))
        };
        let new_source = moves.map(source);
        let (mut edits, mut changes, mut edited) = (Vec::new(), Vec::new(), Vec::new());
        let mut displays = HashMap::new();
        for &index in candidates.iter() {
            let link = read.link(index);
            let expected = read.resolution(index).path().map(|path| moves.map(path));
            let now = planner.resolve(new_source, link);
            let keeps = match (expected, now) {
                (Some(expected), Some(now)) => expected == now,
                (None, None) => true,
                (None, Some(now)) => {
                    newly_resolved.push(NewlyResolved {
                        note: source.to_owned(),
                        line: link.line,
                        link: text[link.span.range()].to_owned(),
                        resolves_to: now.to_owned(),
                    });
                    true
                }
                (Some(_), None) => false,
            };
            if keeps {
                continue;
            }
            let expected = expected.expect("a link that must keep a target has one");
            let reason = if moves.arriving.contains(expected) {
                ChangeReason::TargetMoved
            } else if new_source != source {
                ChangeReason::SourceMoved
            } else {
                ChangeReason::SecondOrder
            };
            let mut replacement = planner.rewrite_target(source, new_source, text, link, expected)?;
            let mut span = link.target_span;
            // A display text naming the old file follows the rename, in the same edit: after
            // the target in a wikilink, before it in a markdown link.
            let new_path = replacement.split('#').next().unwrap_or("");
            let followed = read.resolution(index).path().and_then(|old| followed_display(vault.config(), link, old, expected, new_path));
            if let Some((display, range)) = followed.and_then(|display| Some((display, display_span(text, link)?))) {
                if range.start >= link.target_span.end {
                    replacement = format!("{replacement}{}{display}", &text[link.target_span.end..range.start]);
                    span = Span { start: link.target_span.start, end: range.end };
                } else {
                    replacement = format!("{display}{}{replacement}", &text[range.end..link.target_span.start]);
                    span = Span { start: range.start, end: link.target_span.end };
                }
                displays.insert(index, display);
            }
            let edit = TextEdit { span, replacement };
            let after_text = link_with_edit(text, link, &edit);
            planned_bytes += edit.replacement.len() + after_text.len();
            if planned_bytes > MAX_PLAN_TEXT_BYTES {
                return Err(MoveError::PlanTooLarge {
                    detail: format!(
                        "this move would hold more than {} MiB of new link text (past it at link {} of `{source}`, {} notes in)",
                        MAX_PLAN_TEXT_BYTES >> 20,
                        edits.len() + 1,
                        notes.len() + 1
                    ),
                });
            }
            edits.push(edit);
            changes.push(LinkChange {
                note: source.to_owned(),
                line: link.line,
                before: text[link.span.range()].to_owned(),
                after: after_text,
                reason,
            });
            edited.push(index);
        }
        if !edits.windows(2).all(|pair| pair[0].span.start <= pair[1].span.start) {
            // Links are in file order but for property links before body links, which a
            // frontmatter block puts first too; sorted all the same, should a parse not.
            let mut order: Vec<usize> = (0..edits.len()).collect();
            order.sort_by_key(|&at| edits[at].span.start);
            let mut taken: Vec<Option<(TextEdit, LinkChange, usize)>> =
                edits.into_iter().zip(changes).zip(edited).map(|((edit, change), index)| Some((edit, change, index))).collect();
            (edits, changes, edited) = (Vec::new(), Vec::new(), Vec::new());
            for at in order {
                if let Some((edit, change, index)) = taken[at].take() {
                    edits.push(edit);
                    changes.push(change);
                    edited.push(index);
                }
            }
        }
        notes.push(NotePlan { source, new_source, text, read, whole, candidates, edits, changes, edited, displays });
    }
    for note in notes.iter().filter(|note| !note.edits.is_empty()) {
        prove(&mut planner, &moves, note, &config)?;
    }
    let edited = notes.iter().filter(|note| !note.edits.is_empty()).count();
    let changed = notes.iter().map(|note| note.changes.len()).sum();
    let files =
        notes.into_iter().filter(|note| !note.edits.is_empty()).map(|note| (note.source.to_owned(), note.text, note.edits, note.changes));
    Ok(assemble(&moves.list, (edited, changed), files, newly_resolved))
}

/// The plan: the moves, each edited note's edits (sorted by where they start, disjoint) over the
/// text they apply to, with that text's hash, the changes, and the plan's hash. `sizes`: how
/// many notes and changes there are, so that no list of the plan is copied as it grows.
pub(crate) fn assemble<'t>(
    moves: &[(String, String)],
    sizes: (usize, usize),
    files: impl IntoIterator<Item = (String, &'t str, Vec<TextEdit>, Vec<LinkChange>)>,
    newly_resolved: Vec<NewlyResolved>,
) -> MovePlan {
    let mut file_edits = Vec::with_capacity(sizes.0);
    let mut changes = Vec::with_capacity(sizes.1);
    for (path, text, edits, file_changes) in files {
        assert!(edits.windows(2).all(|pair| pair[0].span.end <= pair[1].span.start), "edits in one note are sorted and disjoint");
        changes.extend(file_changes);
        file_edits.push(FileEdit { path, content_hash: content_hash(text), edits });
    }
    let moves: Vec<FileMove> = moves.iter().map(|(from, to)| FileMove { from: from.clone(), to: to.clone() }).collect();
    // The hash of `move\0{from}\0{to}\n` for each move, then `edit\0{path}\0{hash}\n` for each
    // note and `{start}\0{end}\0{replacement}\n` for each of its edits: gathered in a buffer
    // handed to the hasher a few kilobytes at a time, without a string made for each.
    let mut hasher = Sha256::new();
    let mut buffer: Vec<u8> = Vec::with_capacity(8192);
    let mut add = |parts: &[&[u8]]| {
        for part in parts {
            buffer.extend_from_slice(part);
        }
        if buffer.len() >= 4096 {
            hasher.update(&buffer);
            buffer.clear();
        }
    };
    for file_move in &moves {
        add(&[b"move\0", file_move.from.as_bytes(), b"\0", file_move.to.as_bytes(), b"\n"]);
    }
    for file in &file_edits {
        add(&[b"edit\0", file.path.as_bytes(), b"\0", file.content_hash.as_bytes(), b"\n"]);
        for edit in &file.edits {
            let (mut start, mut end) = ([0; 20], [0; 20]);
            add(&[
                decimal(edit.span.start, &mut start),
                b"\0",
                decimal(edit.span.end, &mut end),
                b"\0",
                edit.replacement.as_bytes(),
                b"\n",
            ]);
        }
    }
    hasher.update(&buffer);
    MovePlan { moves, edits: file_edits, creates: Vec::new(), changes, newly_resolved, plan_hash: hex(&hasher.finalize()) }
}

/// `value` in decimal digits, written at the end of `digits`.
fn decimal(mut value: usize, digits: &mut [u8; 20]) -> &[u8] {
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            return &digits[at..];
        }
    }
}

/// Applies a file's edits to its text. The edits must be sorted and disjoint.
pub fn apply_edits(text: &str, edits: &[TextEdit]) -> String {
    apply_edits_of(text, edits.iter())
}

fn apply_edits_of<'e>(text: &str, edits: impl Iterator<Item = &'e TextEdit>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for edit in edits {
        assert!(at <= edit.span.start && edit.span.end <= text.len(), "edits are sorted, disjoint and inside the text");
        out.push_str(&text[at..edit.span.start]);
        out.push_str(&edit.replacement);
        at = edit.span.end;
    }
    out.push_str(&text[at..]);
    out
}

/// The proof for one note the plan edits: its text with the edits applied reads to as many
/// links, each candidate the same link (kind, heading or block, alias, property) but for the
/// target the plan wrote, and each candidate resolves, from where the note will be and against
/// the vault after the move, where it must. The edits replace link targets only, so the text
/// outside them stays byte for byte. The links that are no candidate look up no name that
/// leaves or arrives, in a note that stays: they resolve as before.
///
/// When the edits provably change nothing but the links they rewrite ([`proven_locally`]),
/// only those links (and a frontmatter block holding one) are read again; otherwise the new
/// text is parsed whole, and a refusal names the first candidate that fails.
fn prove(planner: &mut Planner<'_>, moves: &Moves, note: &NotePlan<'_>, config: &ParseConfig) -> Result<(), MoveError> {
    // A canvas is read again whole: the local re-read reasons about Markdown alone.
    if !is_canvas_path(note.source) && proven_locally(planner, moves, note) {
        return Ok(());
    }
    let new_text = apply_edits_of(note.text, note.edits.iter());
    let now = parse_file(note.new_source, &new_text, if note.whole { &WHOLE_TEXT } else { config }).links;
    for &index in note.candidates.iter() {
        let old = note.read.link(index);
        let unrepresentable = |reason: &str| MoveError::UnrepresentableLink {
            note: note.source.to_owned(),
            line: old.line,
            link: old.target.clone(),
            reason: reason.to_owned(),
        };
        if now.len() != note.read.len() {
            return Err(unrepresentable("the rewritten note would hold a different number of links"));
        }
        let new = &now[index];
        if old.kind != new.kind
            || old.subpath != new.subpath
            || note.display_after(index, old) != new.display.as_deref()
            || old.source != new.source
        {
            return Err(unrepresentable("the rewritten link would read differently (kind, heading, alias or property)"));
        }
        let expected = note.read.resolution(index).path().map(|path| moves.map(path));
        let resolved = planner.resolve(note.new_source, new);
        let holds = match (expected, resolved) {
            (Some(expected), Some(now)) => expected == now,
            (None, _) => true,
            (Some(_), None) => false,
        };
        if !holds {
            let now = resolved.map_or_else(|| "nothing".to_owned(), |path| format!("`{path}`"));
            return Err(MoveError::UnrepresentableLink {
                note: note.source.to_owned(),
                line: new.line,
                link: new.target.clone(),
                reason: format!("it would point to {now} instead of `{}`", expected.unwrap_or_default()),
            });
        }
    }
    Ok(())
}

/// Whether `link`, read again from the note's new text, resolves after the move where the
/// link at `index` must.
fn resolves_as_expected(planner: &mut Planner<'_>, moves: &Moves, note: &NotePlan<'_>, index: usize, link: &Link) -> bool {
    let expected = note.read.resolution(index).path().map(|path| moves.map(path));
    match (expected, planner.resolve(note.new_source, link)) {
        (Some(expected), Some(now)) => expected == now,
        (None, _) => true,
        (Some(_), None) => false,
    }
}

/// The proof of [`prove`] without parsing the note again, when the edits provably change
/// nothing a parse of the note reads but the links they rewrite. True when proven; false when
/// that cannot be shown, or the proof fails, and the note is to be parsed again whole.
///
/// Edits in the frontmatter: the block is read again with them (YAML and the property scan),
/// and must give the same property links, the edited ones resolving where they must; the body
/// after it is the same text. Edits in the body: each must be local ([`edit_is_local`]: the old
/// and the new path are made of characters no Markdown construct reads, outside any context
/// where one would), and then the parse of the new text is the parse of the old one with each
/// rewritten link read again alone, by the parser's own scan (`parse::link_alone`), and every
/// other link where it was, shifted. Why that holds:
/// - pulldown-cmark's structure (code, math, tables, inline links, headings) is unchanged:
///   block structure is decided at line starts and by whole-line forms a line holding `[[` or
///   `](` cannot take, and the changed characters are none of the bytes its inline pass reads
///   (`*_~&\[]<!`|$\n\r{}`): no delimiter, code span, math, entity or table cell changes. What
///   reads other characters is a link destination or title, raw HTML or an autolink, and a
///   link reference definition: the body must hold no `]:` (so no definition, and no
///   `[name]` becomes a link), every `](` must close a simple inline link on its line
///   ([`markdown_links_are_simple`]: no title, no parentheses or spaces in its destination, so
///   no destination or title reaches a rewritten link but its own), and no `<` may come before
///   a rewritten link in its paragraph (text since the last blank line).
/// - vaultlink's scan then finds the same links: it starts a markdown link only where
///   pulldown-cmark starts one (a simple link, read up to its `)`), a wikilink scan stops only
///   at `[`, `]` or a line break (none in a changed path), `%%` comments pair the same (no `%%`
///   in a changed path, none made at its ends), and no rewritten link may sit inside another
///   (a link holding one has a `](` that is not simple).
fn proven_locally(planner: &mut Planner<'_>, moves: &Moves, note: &NotePlan<'_>) -> bool {
    if !note.displays.is_empty() {
        // A followed display text is an edit outside the target, which the local re-read does
        // not reason about: the note is read again whole.
        return false;
    }
    let edits: Vec<(&TextEdit, &str, usize)> = note
        .edits
        .iter()
        .zip(&note.changes)
        .zip(&note.edited)
        .map(|((edit, change), index)| (edit, change.after.as_str(), *index))
        .collect();
    let Some(reread) = reread_locally(note.text, |index| note.read.link(index), note.read.len(), &edits) else { return false };
    let mut edited = edits.iter().map(|(_, _, index)| *index).peekable();
    for (index, new) in reread.properties.iter().enumerate() {
        let old = note.read.link(index);
        if old.kind != new.kind || old.subpath != new.subpath || old.display != new.display || old.source != new.source {
            return false;
        }
        if edited.next_if_eq(&index).is_some() {
            if !resolves_as_expected(planner, moves, note, index, new) {
                return false;
            }
        } else if old.target != new.target {
            return false;
        }
    }
    for (index, new) in &reread.body {
        let old = note.read.link(*index);
        if old.kind != new.kind
            || old.subpath != new.subpath
            || old.display != new.display
            || !resolves_as_expected(planner, moves, note, *index, new)
        {
            return false;
        }
    }
    true
}

/// What [`reread_locally`] read again.
#[derive(Debug)]
struct Reread {
    /// Every property link of the new text, when an edit is in the frontmatter (else none).
    properties: Vec<Link>,
    /// Each rewritten body link (its position among the note's links) as the new text reads
    /// it, its spans counted from the link's start.
    body: Vec<(usize, Link)>,
}

/// The parts of a note that its edits touch, read again from the new text, when the edits
/// provably change nothing else of its parse (see [`proven_locally`]); `None` when that cannot
/// be shown. `links` gives the note's `count` links as its text reads; each edit comes with the
/// whole new text of the link it rewrites and that link's position, in the order of the text.
fn reread_locally<'l>(text: &str, links: impl Fn(usize) -> &'l Link, count: usize, edits: &[(&TextEdit, &str, usize)]) -> Option<Reread> {
    let body_start = match crate::frontmatter::find_block(text) {
        Some(block) => block.span.end,
        None => usize::from(text.starts_with('\u{feff}')) * '\u{feff}'.len_utf8(),
    };
    let in_front = edits.partition_point(|(edit, _, _)| edit.span.start < body_start);
    let (front_edits, body_edits) = edits.split_at(in_front);
    let mut properties = Vec::new();
    if !front_edits.is_empty() {
        let front = apply_edits_of(&text[..body_start], front_edits.iter().map(|(edit, _, _)| *edit));
        let (block, links_now) = crate::parse::frontmatter_links(&front)?;
        let before = (0..count).take_while(|&index| !matches!(links(index).source, LinkSource::Body)).count();
        if block.end != front.len() || links_now.len() != before {
            return None;
        }
        properties = links_now;
    }
    let mut body = Vec::with_capacity(body_edits.len());
    if !body_edits.is_empty() {
        let body_text = &text[body_start..];
        if body_text.contains("]:") || !markdown_links_are_simple(body_text) {
            return None;
        }
        let mut before = ClearBefore { text, floor: body_start, checked_to: None };
        for (edit, after, index) in body_edits {
            let old = links(*index);
            if old.source != LinkSource::Body || !edit_is_local(text, old, &edit.replacement) || !before.clear_up_to(old.span.start) {
                return None;
            }
            // In a table row `[[a\|b]]` ends its target at the `\`, which only a table does.
            let in_table = text.as_bytes().get(old.target_span.end) == Some(&b'\\');
            body.push((*index, crate::parse::link_alone(after, old.kind, in_table)?));
        }
    }
    Some(Reread { properties, body })
}

/// Characters no Markdown construct reads outside a link destination or title, raw HTML, an
/// autolink or a link reference definition: letters and digits of any script, the space and
/// `-./(),%'`.
fn inert(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, ' ' | '-' | '.' | '/' | '(' | ')' | ',' | '%' | '\'')
}

/// Whether replacing the target of `link` (a body link of `text`) with `replacement` changes
/// only characters that no part of the parse reads: the heading or block part is kept as
/// written; the old and the new path are inert characters without `%%`; a markdown link's are
/// also without spaces and parentheses, in a destination not written in `<…>`.
fn edit_is_local(text: &str, link: &Link, replacement: &str) -> bool {
    let written = &text[link.target_span.range()];
    let (old_path, old_subpath) = written.split_at(written.find('#').unwrap_or(written.len()));
    let (new_path, new_subpath) = replacement.split_at(replacement.find('#').unwrap_or(replacement.len()));
    let markdown = link.kind.is_markdown();
    if old_subpath != new_subpath || old_path.is_empty() || new_path.is_empty() || (markdown && link.destination.is_none_or(|d| d.angle)) {
        return false;
    }
    [old_path, new_path]
        .iter()
        .all(|path| !path.contains("%%") && path.chars().all(|c| inert(c) && !(markdown && matches!(c, ' ' | '(' | ')'))))
}

/// True when every `](` of `body` closes a simple inline link on one line: `[text](destination)`,
/// its `[` not escaped, the text free of `[]\``$` braces, angle brackets and line breaks, the
/// destination (not empty) also of whitespace and control characters, `(`, `"` and `|`, the
/// whole under 4 KB. Then the `[` of each is where pulldown-cmark may start an inline link
/// (the nearest `[` before a `](`, with nothing between that could hide it), no destination or
/// title runs past its `)`, and vaultlink's scan of such a link reads nothing past it either.
fn markdown_links_are_simple(body: &str) -> bool {
    const MOST: usize = 4096;
    let bytes = body.as_bytes();
    let in_text = |byte: u8| !matches!(byte, b'[' | b']' | b'\\' | b'`' | b'$' | b'{' | b'}' | b'<' | b'>' | b'\n' | b'\r');
    let in_destination =
        |byte: u8| in_text(byte) && !(byte.is_ascii_whitespace() || byte.is_ascii_control() || matches!(byte, b'(' | b')' | b'"' | b'|'));
    // Each `(` found with the byte search, then the `]` before it: `(` is rare where wikilinks
    // make `]` common, and a body without `](` is passed over in one quick search.
    if !body.contains("](") {
        return true;
    }
    let mut from = 0;
    while let Some(found) = body[from..].find('(') {
        let paren = from + found;
        from = paren + 1;
        if paren == 0 || bytes[paren - 1] != b']' {
            continue;
        }
        let text_end = paren - 1;
        let destination = paren + 1;
        let Some(open) = bytes[..text_end].iter().rposition(|&byte| !in_text(byte)) else { return false };
        if bytes[open] != b'[' || (open > 0 && bytes[open - 1] == b'\\') {
            return false;
        }
        let Some(length) = bytes[destination..].iter().position(|&byte| !in_destination(byte)) else { return false };
        let close = destination + length;
        if length == 0 || bytes[close] != b')' || close - open >= MOST {
            return false;
        }
        from = close;
    }
    true
}

/// Checks that no `<` comes before each rewritten link in its paragraph (the text since the last
/// blank line, or the body's start), for links asked in increasing order, reading each byte once.
struct ClearBefore<'t> {
    text: &'t str,
    floor: usize,
    /// The start of the last link checked: its paragraph up to it holds no `<`.
    checked_to: Option<usize>,
}

impl ClearBefore<'_> {
    fn clear_up_to(&mut self, at: usize) -> bool {
        let stop = self.checked_to.unwrap_or(self.floor).max(self.floor);
        // Line by line, backwards: the link's own line up to it, then whole lines until a blank
        // one (the link's own line is none: it holds the link).
        let mut end = at;
        let mut first_line = true;
        while end > stop {
            let start = self.text[stop..end].rfind('\n').map_or(stop, |newline| stop + newline + 1);
            let line = &self.text[start..end];
            if !first_line && line.bytes().all(|byte| matches!(byte, b' ' | b'\t' | b'\r')) {
                break;
            }
            if line.contains('<') {
                return false;
            }
            first_line = false;
            end = start.saturating_sub(1).max(stop);
        }
        self.checked_to = Some(at);
        true
    }
}

/// `path` as it is written in the link's place: escaped as its property's YAML string needs
/// (`It's` is `'It''s'` in single quotes), as a JSON string needs in a canvas, as is in the body. `None` when the string cannot
/// hold it.
pub(crate) fn escape_in_property<'p>(link: &Link, path: &'p str) -> Option<std::borrow::Cow<'p, str>> {
    match &link.source {
        LinkSource::Property { quote, .. } => quote.escape(path).map(std::borrow::Cow::Owned),
        LinkSource::Body => Some(std::borrow::Cow::Borrowed(path)),
        LinkSource::CanvasFile { .. } | LinkSource::CanvasText { .. } => Some(std::borrow::Cow::Owned(json_string_content(path))),
    }
}

/// What the `move_note` tool answers, the same on every path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveAnswer {
    /// True when nothing was written: the answer previews the plan.
    pub dry_run: bool,
    /// True when the plan was applied.
    pub applied: bool,
    /// Pass this as `approved_plan_hash` to apply exactly this plan.
    pub plan_hash: String,
    /// The files that move, on this page.
    pub moves: Vec<FileMove>,
    /// How many files move, on every page.
    pub files_moved: usize,
    /// How many notes have links rewritten.
    pub notes_edited: usize,
    /// The rewritten links on this page; left out with `concise`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changes: Option<Vec<LinkChange>>,
    /// How many links are rewritten, on every page.
    pub links_changed: usize,
    /// The first `MAX_LISTED` links that will resolve once the file is moved.
    pub newly_resolved: Vec<NewlyResolved>,
    /// A rewrite's links that find a note today and will find none (`allow_unresolved`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub links_broken: usize,
    /// How many links will newly resolve, when `newly_resolved` was cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub newly_resolved_count: Option<usize>,
    /// Present when `moves` or `changes` go on: pass it as `cursor` (with the same arguments)
    /// for the next page of the preview.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Once applied: the id `undo_change` takes to undo it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change_id: Option<String>,
    /// Links inside read-only sources (`source_folders` of a SCHEMA.md) the plan leaves as they
    /// are, though the move changes what they find: each is a problem to fix outside the tool.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links_left_in_sources: Vec<crate::sources::LinkLeft>,
}

/// One item of a move's answer, as its pages list them: every move first, then every change.
#[derive(Serialize)]
#[serde(untagged)]
enum AnswerItem<'a> {
    Move(&'a FileMove),
    Change(&'a LinkChange),
}

impl MoveAnswer {
    /// One page of the answer: the moves, then (with `detailed`) the changes, paged as every
    /// list is (`answer::page`; the counts are on every page), the cursor bound to the plan.
    pub fn paged(
        plan: &MovePlan,
        dry_run: bool,
        applied: bool,
        detailed: bool,
        limit: Option<usize>,
        cursor: Option<&str>,
    ) -> Result<MoveAnswer, crate::answer::OpError> {
        let mut items: Vec<AnswerItem<'_>> = plan.moves.iter().map(AnswerItem::Move).collect();
        if detailed {
            items.extend(plan.changes.iter().map(AnswerItem::Change));
        }
        let scope = format!("move_note\0{}\0{detailed}", plan.plan_hash);
        let (page, _, next_cursor) = crate::answer::page(items, limit, cursor, &scope)?;
        let (mut moves, mut changes) = (Vec::new(), Vec::new());
        for item in page {
            match item {
                AnswerItem::Move(file_move) => moves.push(file_move.clone()),
                AnswerItem::Change(change) => changes.push(change.clone()),
            }
        }
        Ok(MoveAnswer {
            dry_run,
            applied,
            plan_hash: plan.plan_hash.clone(),
            moves,
            files_moved: plan.moves.len(),
            notes_edited: plan.edits.len(),
            changes: detailed.then_some(changes),
            links_changed: plan.changes.len(),
            newly_resolved: plan.newly_resolved.iter().take(crate::answer::MAX_LISTED).cloned().collect(),
            newly_resolved_count: (plan.newly_resolved.len() > crate::answer::MAX_LISTED).then_some(plan.newly_resolved.len()),
            links_broken: 0,
            next_cursor,
            change_id: None,
            links_left_in_sources: Vec::new(),
        })
    }
}

/// The path a canvas's file card in `canvas` names when it is repointed to `to_target`: a card
/// names its file by its exact vault path, so the file a link `[[to_target]]` from the canvas
/// finds, or, when it finds none, `to_target` as a note's path (the card then finds nothing,
/// as such a link does).
fn card_path(vault: &Vault, canvas: &str, to_target: &str) -> String {
    let probe = parse_note(canvas, &format!("[[{to_target}]]"), &vault.config().parse).links;
    let found = probe
        .first()
        .filter(|link| link.path == to_target)
        .and_then(|link| resolve::resolve(vault, canvas, link).path().map(str::to_owned));
    found.unwrap_or_else(|| if is_note_path(to_target) { to_target.to_owned() } else { format!("{to_target}.md") })
}

fn is_zero(count: &usize) -> bool {
    *count == 0
}

/// Whether a link's written target is `target`: the path part, compared as names are, with a
/// `.md` on either side ignored.
pub fn targets_match(link: &Link, target: &str) -> bool {
    let strip = |text: &str| {
        let folded = fold(text.trim().trim_start_matches('/'));
        match folded.strip_suffix(".md") {
            Some(stem) => stem.to_owned(),
            None => folded,
        }
    };
    !link.path.trim().is_empty() && strip(&link.path) == strip(target)
}

/// The one note `from_target` names, as a wikilink of it at the vault's root resolves; none when
/// it names no note, or several (then only links written as it are rewritten).
fn named_note(vault: &Vault, from_target: &str) -> Option<String> {
    let parsed = parse_note("", &format!("[[{}]]", from_target.trim()), &ParseConfig::OBSIDIAN);
    let [link] = parsed.links.as_slice() else { return None };
    match resolve::resolve(vault, "", link) {
        Resolution::Resolved { path } => Some(path),
        _ => None,
    }
}

/// Whether `rewrite_link` repoints `link`, which resolves to `resolved`: its target as written is
/// `from_target`, or it is a relative link (`[x](../Old.md)`, `[[./Old]]`) that Obsidian resolves
/// to `named`, the note `from_target` names.
fn rewrites(link: &Link, resolved: Option<&str>, from_target: &str, named: Option<&str>) -> bool {
    targets_match(link, from_target) || (named.is_some() && resolve::is_relative(&link.path) && resolved == named)
}

/// Step one of `rewrite_link`: the notes holding a link whose target is `from_target`, or a
/// relative link to the note it names.
pub fn notes_to_read_for_rewrite(vault: &Vault, from_target: &str) -> Vec<String> {
    let named = named_note(vault, from_target);
    // Canvases too: their text cards' links and file cards are rewritten as a move rewrites them.
    vault
        .paths()
        .filter(|path| vault.is_note(path) || is_canvas_path(path))
        .filter(|path| {
            vault
                .outgoing_links(path)
                .is_some_and(|links| links.iter().any(|found| rewrites(found.link, found.resolution.path(), from_target, named.as_deref())))
        })
        .map(str::to_owned)
        .collect()
}

/// Plans repointing every link whose target is `from_target` (as written, compared as names
/// are) to `to_target`, free text. Only the path part of each target changes; the heading,
/// block, alias and the rest stay. The plan is proven as a move is: every rewritten link must
/// parse back to exactly one link with the new target and everything else as it was.
pub fn plan_rewrite_link(
    vault: &Vault,
    from_target: &str,
    to_target: &str,
    texts: &BTreeMap<String, String>,
) -> Result<MovePlan, MoveError> {
    let to_target = to_target.trim();
    let invalid = |detail: String| Err(MoveError::InvalidRewrite { detail });
    if from_target.trim().is_empty() {
        return invalid("`from_target` is empty, and no link has an empty target".to_owned());
    }
    if to_target.is_empty() {
        return invalid("`to_target` is empty: a link needs a target".to_owned());
    }
    if from_target.trim() == to_target {
        return invalid(format!("`from_target` and `to_target` are both {to_target:?}: there is nothing to rewrite"));
    }
    if to_target.len() > MAX_TARGET_BYTES {
        return invalid(format!("`to_target` is {} bytes, over the {MAX_TARGET_BYTES} a link's target may have", to_target.len()));
    }
    if to_target.split('/').any(|segment| segment.len() > MAX_NAME_BYTES) {
        return invalid(format!("`to_target` has a name of more than {MAX_NAME_BYTES} bytes, more than filesystems take"));
    }
    let config = vault.config().parse;
    let mut edits: BTreeMap<String, Vec<(TextEdit, LinkChange)>> = BTreeMap::new();
    // The bytes of new link text planned so far, held to MAX_PLAN_TEXT_BYTES.
    let mut planned_bytes = 0;
    let named = named_note(vault, from_target);
    for source in notes_to_read_for_rewrite(vault, from_target) {
        let text = texts.get(&source).ok_or_else(|| MoveError::MissingText { path: source.clone() })?;
        let links = parse_file(&source, text, &config).links;
        let repointed = |link: &&Link| {
            let resolved = named.is_some().then(|| resolve::resolve(vault, &source, link));
            rewrites(link, resolved.as_ref().and_then(Resolution::path), from_target, named.as_deref())
        };
        for link in links.iter().filter(repointed) {
            // In a canvas's text card the target as written is the decoded JSON string's.
            let written = if link.source.is_canvas() { link.target.as_str() } else { &text[link.target_span.range()] };
            // A file card's heading is its own key (`subpath`), which stays.
            let card = matches!(link.source, LinkSource::CanvasFile { .. });
            let subpath_written = if card { "" } else { written.find('#').map_or("", |hash| &written[hash..]) };
            let unrepresentable = |reason: String| MoveError::UnrepresentableLink {
                note: source.clone(),
                line: link.line,
                link: text[link.span.range()].to_owned(),
                reason,
            };
            // A `.md` the author wrote stays written in a markdown link: `[x](Old.md)` becomes
            // `[x](New.md)`. A wikilink written as Obsidian writes one leaves it out
            // (`link_form`); kept as written when the link's form is kept.
            let keeps_form = vault.config().link_form == crate::link_form::RewriteForm::Keep;
            let wrote_extension = link.path.trim().to_lowercase().ends_with(".md") && (link.kind.is_markdown() || keeps_form);
            let target = if card {
                card_path(vault, &source, to_target)
            } else if wrote_extension && !to_target.to_lowercase().ends_with(".md") {
                format!("{to_target}.md")
            } else {
                to_target.to_owned()
            };
            let path = if link.kind.is_markdown() {
                if link.destination.is_some_and(|destination| destination.angle) {
                    target.clone()
                } else {
                    encode_destination(&target, link.destination.is_some_and(|destination| destination.encoded))
                }
            } else {
                target.clone()
            };
            let forbidden: &[char] = if link.kind.is_markdown() {
                &['<', '>', '\n', '\r']
            } else if card {
                &['\n', '\r']
            } else {
                &['|', '[', ']', '#', '^', '\n', '\r']
            };
            if to_target.is_empty() || path.contains(forbidden) || path.contains("%%") || path.chars().any(char::is_control) {
                return Err(unrepresentable(format!("{to_target:?} cannot be written as the target of this link")));
            }
            let path = escape_in_property(link, &path)
                .ok_or_else(|| unrepresentable(format!("{to_target:?} cannot be written inside this property's string")))?;
            // A subpath read from a canvas card's decoded text is written back as JSON again.
            let subpath_written = if link.source.is_canvas() { json_string_content(subpath_written) } else { subpath_written.to_owned() };
            let replacement = format!("{path}{subpath_written}");
            let after = link_with_target(text, link, &replacement);
            planned_bytes += replacement.len() + after.len();
            if planned_bytes > MAX_PLAN_TEXT_BYTES {
                let links: usize = edits.values().map(Vec::len).sum::<usize>() + 1;
                return Err(MoveError::PlanTooLarge {
                    detail: format!(
                        "rewriting these links to a target of {} bytes would hold more than {} MiB of new link text (past it at link {links})",
                        to_target.len(),
                        MAX_PLAN_TEXT_BYTES >> 20
                    ),
                });
            }
            edits.entry(source.clone()).or_default().push((
                TextEdit { span: link.target_span, replacement },
                LinkChange {
                    note: source.clone(),
                    line: link.line,
                    before: text[link.span.range()].to_owned(),
                    after,
                    reason: ChangeReason::Repointed,
                },
            ));
        }
    }
    let sizes = (edits.len(), edits.values().map(Vec::len).sum());
    let files = edits.into_iter().map(|(path, mut list)| {
        list.sort_by_key(|(edit, _)| edit.span.start);
        let text = texts[&path].as_str();
        let (edits, changes): (Vec<TextEdit>, Vec<LinkChange>) = list.into_iter().unzip();
        (path, text, edits, changes)
    });
    let plan = assemble(&[], sizes, files, Vec::new());
    // The proof: each note parses to as many links, the rewritten ones with the new target,
    // the others exactly as before.
    for file in &plan.edits {
        let text = &texts[&file.path];
        let before = parse_file(&file.path, text, &config).links;
        let now = parse_file(&file.path, &apply_edits(text, &file.edits), &config).links;
        let rewritten: HashSet<usize> = file.edits.iter().map(|edit| edit.span.start).collect();
        let fails = now.len() != before.len()
            || before.iter().zip(&now).any(|(old, new)| {
                let same_shape =
                    old.kind == new.kind && old.subpath == new.subpath && old.display == new.display && old.source == new.source;
                let target_ok = if rewritten.contains(&old.target_span.start) {
                    let written = fold(new.path.trim());
                    let wanted = fold(to_target);
                    let card =
                        matches!(new.source, LinkSource::CanvasFile { .. }) && written == fold(&card_path(vault, &file.path, to_target));
                    card || written == wanted || written.strip_suffix(".md") == Some(wanted.as_str())
                } else {
                    new.target == old.target
                };
                !same_shape || !target_ok
            });
        if fails {
            return Err(MoveError::UnrepresentableLink {
                note: file.path.clone(),
                line: 0,
                link: from_target.to_owned(),
                reason: format!("the note would not read back with {to_target:?} as the new target"),
            });
        }
    }
    Ok(plan)
}

/// The whole written link `link` of `text` with `edit` (its target, and maybe its display text)
/// applied: what a change shows as the link after it.
fn link_with_edit(text: &str, link: &Link, edit: &TextEdit) -> String {
    let mut after = String::with_capacity(link.span.end - link.span.start + edit.replacement.len());
    after.push_str(&text[link.span.start..edit.span.start]);
    after.push_str(&edit.replacement);
    after.push_str(&text[edit.span.end..link.span.end]);
    after
}

/// The whole written link `link` of `text` with its target (`target_span`) replaced by
/// `replacement`: what a change shows as the link after it.
pub(crate) fn link_with_target(text: &str, link: &Link, replacement: &str) -> String {
    let mut after = String::with_capacity(link.span.end - link.span.start + replacement.len());
    after.push_str(&text[link.span.start..link.target_span.start]);
    after.push_str(replacement);
    after.push_str(&text[link.target_span.end..link.span.end]);
    after
}

/// The path part of `link` (in `source`, which stays where it is) written to find `expected`, as
/// a move writes it (`link_form::written_path`, under the vault's settings). `None` when no form
/// finds it. `fix_broken_links` writes a repaired link's target with it.
pub(crate) fn path_written_to(vault: &Vault, source: &str, text: &str, link: &Link, expected: &str) -> Option<String> {
    let written = &text[link.target_span.range()];
    let after = After::new(vault, &Moves::new(Vec::new()));
    let rewrite = Rewrite { link, written, old_source: source, source, expected };
    written_path(vault, &after, vault.config(), &rewrite)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::ParseConfig;

    struct Random(u64);

    impl Random {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
            items[(self.next() % items.len() as u64) as usize]
        }
    }

    /// Names a link is written with, and names a rewrite writes: inert ones and every kind of
    /// character that is not.
    const NAMES: [&str; 22] = [
        "N",
        "Note",
        "a b",
        "Rinami",
        "moved/Rinami (renamed)",
        "../up/Other",
        "\u{dc}n\u{ef} c\u{f6}d\u{e9}",
        "x(y)",
        "pa(ren",
        "pa)ren",
        "a_b",
        "c*d",
        "e`f",
        "g$h",
        "i<j",
        "k%l",
        "m%%n",
        "o'p",
        "q:r",
        "s{t}",
        "u~v",
        "w&x",
    ];

    /// Lines around links, with `{}` for a link's target: every construct that reads the
    /// characters around or inside a link.
    const LINES: [&str; 66] = [
        "text [[{}]] more",
        "[[{}|alias]] and [[{}#Heading]]",
        "![[{}]]",
        "[[{}#^b1|shown]]",
        "[t]({}.md)",
        "![t]({}.md#H)",
        "[t](<{}.md>)",
        "[t]({}.md \"title\")",
        "[x]([[{}]])",
        "[see [[{}]]](url.md)",
        "[[{}]](url.md)",
        "[[{}]][ref]",
        "[ref]: /url",
        "[n]: <[[{}]]>",
        "`code [[{}]]` and [[{}]]",
        "$math [[{}]]$ [[{}]]",
        "$[[{}]]$",
        "<span title=\"[[{}]]\">[[{}]]</span>",
        "<a x=[[{}]]>",
        "<!-- [[{}]] -->",
        "<div>",
        "</div>",
        "| [[{}\\|alias]] | cell |",
        "| --- | --- |",
        "|---\t|---\t|",
        "%%[[{}]]%%",
        "%[[{}]]%",
        "%%",
        "**[[{}]]** _[[{}]]_ ~~[[{}]]~~",
        "[a](b.md) [[{}]]",
        "[[{}]] [a](b.md)",
        "[a](b c) [[{}]]",
        "[x](y [[{}]]",
        "    [[{}]]",
        "```",
        "> [[{}]]",
        "- [[{}]]",
        "# [[{}]]",
        "===",
        "",
        "",
        "  ",
        "\\[[{}]]",
        "[[[{}]]]",
        "[[a [[{}]]",
        "{ [[{}]] }",
        "*[[{}]]*",
        "&amp;[[{}]]&",
        "[x](`[[{}]]`)",
        "[a `]` b](c.md) [[{}]]",
        "[a [b](c.md) [[{}]]](d.md)",
        "<http://x.y/[[{}]]>",
        "[n]: [[{}]]",
        "[n]: x \"[[{}]]\"",
        "[n]: x ([[{}]])",
        "[t]({}.md)",
        "[t]({}.md)",
        "[t]({}.md) and [[{}]]",
        "[n]: [[{}]]\n| [[{}\\|alias]] | cell |\n| --- | --- |",
        "[n]: x ([[{}]])\n| [[{}\\|alias]] | cell |\n| --- | --- |",
        "| [[{}\\|alias]] | cell |\n| --- | --- |\n| [[{}\\|b]] | c |",
        "[n]: [[{}]] \"t`\n[[{}]]` x\"",
        "[n]: <{}.md> \"t`\n[[{}]]` x\"",
        "<a\nx=[[{}]] y=\"`\">\n[[{}]]`",
        "[x `[` y](c.md) [[{}]] `[[{}]]`",
        "<a x=[[{}]] y=\"`\">\n[[{}]]`",
    ];

    fn random_note(random: &mut Random) -> String {
        let mut text = String::new();
        let newline = if random.next().is_multiple_of(5) { "\r\n" } else { "\n" };
        if random.next().is_multiple_of(2) {
            let name = random.pick(&NAMES);
            let quoted = match random.next() % 4 {
                0 => format!("\"[[{name}]]\""),
                1 => format!("'[[{}]]'", name.replace('\'', "''")),
                2 => format!("[[{name}]]"),
                _ => format!("|{newline}  [[{name}]]"),
            };
            text.push_str(&format!(
                "---{newline}up: {quoted}{newline}tags: [a]{newline}other: \"[[{}]]\"{newline}---{newline}",
                random.pick(&NAMES)
            ));
        }
        for _ in 0..random.next() % 9 {
            let line = random.pick(&LINES);
            let mut filled = String::new();
            for (at, part) in line.split("{}").enumerate() {
                if at > 0 {
                    filled.push_str(random.pick(&NAMES));
                }
                filled.push_str(part);
            }
            text.push_str(&filled);
            text.push_str(newline);
        }
        text
    }

    /// Checks a [`Reread`] of `text` with `edits` against a parse of the whole new text.
    fn check_reread(text: &str, old: &[Link], edits: &[(TextEdit, String, usize)], reread: &Reread, case: &str) {
        let new_text = apply_edits_of(text, edits.iter().map(|(edit, _, _)| edit));
        let now = parse_note("n.md", &new_text, &ParseConfig::OBSIDIAN).links;
        // Where an offset of the old text is in the new one.
        let shift = |at: usize| {
            let moved: isize = edits
                .iter()
                .filter(|(edit, _, _)| edit.span.end <= at)
                .map(|(edit, _, _)| edit.replacement.len() as isize - edit.span.range().len() as isize)
                .sum();
            (at as isize + moved) as usize
        };
        let mut expected: Vec<Link> = Vec::new();
        for (index, link) in old.iter().enumerate() {
            if index < reread.properties.len() {
                expected.push(reread.properties[index].clone());
            } else if let Some((_, alone)) = reread.body.iter().find(|(edited, _)| *edited == index) {
                let start = shift(link.span.start);
                let at = |span: Span| Span { start: span.start + start, end: span.end + start };
                expected.push(Link { span: at(alone.span), target_span: at(alone.target_span), ..alone.clone() });
            } else {
                let at = |span: Span| Span { start: shift(span.start), end: shift(span.end) };
                expected.push(Link { span: at(link.span), target_span: at(link.target_span), ..link.clone() });
            }
        }
        let shape = |links: &[Link]| {
            links
                .iter()
                .map(|link| {
                    format!(
                        "{:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
                        link.kind,
                        link.source,
                        link.target,
                        link.path,
                        link.subpath,
                        link.display,
                        link.span,
                        link.target_span,
                        link.destination
                    )
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(shape(&expected), shape(&now), "{case}\n--- old text\n{text}\n--- new text\n{new_text}");
    }

    /// The same check on every note of the corpora and the generated vault (when present, as
    /// `$VAULTLINK_CORPORA` or `../shared/corpora` beside the checkout, and `$VAULTLINK_GENERATED`),
    /// with every link of each note renamed at once. Without them it says so and checks nothing more
    /// than the randomized test above.
    #[test]
    fn a_local_reread_of_every_real_note_is_what_a_whole_parse_reads() {
        let corpora = std::env::var_os("VAULTLINK_CORPORA")
            .map_or_else(|| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpora"), std::path::PathBuf::from);
        let mut folders: Vec<std::path::PathBuf> =
            std::fs::read_dir(&corpora).into_iter().flatten().flatten().map(|entry| entry.path()).collect();
        folders.extend(std::env::var_os("VAULTLINK_GENERATED").map(std::path::PathBuf::from));
        if !folders.iter().any(|folder| folder.is_dir()) {
            eprintln!("no corpora at {} (set VAULTLINK_CORPORA): the local re-read was checked on generated notes only", corpora.display());
        }
        for folder in folders.into_iter().filter(|folder| folder.is_dir()) {
            let (mut notes, mut edited, mut local) = (0, 0, 0);
            let mut stack = vec![folder.clone()];
            while let Some(dir) = stack.pop() {
                for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                    let path = entry.path();
                    if path.is_dir() {
                        stack.push(path);
                        continue;
                    }
                    if path.extension().is_none_or(|extension| extension != "md") {
                        continue;
                    }
                    let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap_or_default()).into_owned();
                    notes += 1;
                    let old = parse_note("n.md", &text, &ParseConfig::OBSIDIAN).links;
                    let mut edits: Vec<(TextEdit, String, usize)> = Vec::new();
                    for (index, link) in old.iter().enumerate() {
                        let written = &text[link.target_span.range()];
                        let subpath = written.find('#').map_or("", |hash| &written[hash..]);
                        if written.len() == subpath.len() {
                            continue;
                        }
                        let path = if link.kind.is_markdown() { "moved/Rinami%20%28renamed%29.md" } else { "moved/Rinami (renamed)" };
                        let replacement = format!("{path}{subpath}");
                        let after = link_with_target(&text, link, &replacement);
                        edits.push((TextEdit { span: link.target_span, replacement }, after, index));
                    }
                    if edits.is_empty() {
                        continue;
                    }
                    edited += 1;
                    let refs: Vec<(&TextEdit, &str, usize)> =
                        edits.iter().map(|(edit, after, index)| (edit, after.as_str(), *index)).collect();
                    if let Some(reread) = reread_locally(&text, |index| &old[index], old.len(), &refs) {
                        local += 1;
                        check_reread(&text, &old, &edits, &reread, &path.display().to_string());
                    }
                }
            }
            eprintln!("{}: {notes} notes, {edited} with links, {local} read again locally", folder.display());
        }
    }

    /// The claim [`proven_locally`] rests on: whenever [`reread_locally`] reads a note's edited
    /// links alone, a parse of the whole new text gives exactly the old links, shifted, with the
    /// edited ones (and the frontmatter's) as read again.
    #[test]
    fn a_local_reread_is_what_a_whole_parse_reads() {
        let config = ParseConfig::OBSIDIAN;
        let (mut local, mut tried) = (0, 0);
        for seed in 1..=20_000u64 {
            let mut random = Random(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
            let text = random_note(&mut random);
            let old = parse_note("n.md", &text, &config).links;
            if old.is_empty() {
                continue;
            }
            // Rewrite some links' paths, keeping what follows the `#` as written.
            let mut edits: Vec<(TextEdit, String, usize)> = Vec::new();
            for (index, link) in old.iter().enumerate() {
                if !random.next().is_multiple_of(2) {
                    continue;
                }
                let written = &text[link.target_span.range()];
                let subpath = written.find('#').map_or("", |hash| &written[hash..]);
                let mut path = random.pick(&NAMES).to_owned();
                if link.kind.is_markdown() && !random.next().is_multiple_of(4) {
                    path = path.replace(' ', "%20").replace('(', "%28").replace(')', "%29") + ".md";
                }
                let replacement = format!("{path}{subpath}");
                let after = link_with_target(&text, link, &replacement);
                edits.push((TextEdit { span: link.target_span, replacement }, after, index));
            }
            if edits.is_empty() {
                continue;
            }
            tried += 1;
            let refs: Vec<(&TextEdit, &str, usize)> = edits.iter().map(|(edit, after, index)| (edit, after.as_str(), *index)).collect();
            let Some(reread) = reread_locally(&text, |index| &old[index], old.len(), &refs) else { continue };
            local += 1;
            check_reread(&text, &old, &edits, &reread, &format!("seed {seed}"));
        }
        assert!(local > 2_000, "only {local} of {tried} edited notes were read again locally");
    }
}
