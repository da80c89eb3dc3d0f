//! Plans a move or rename of a note, an attachment or a folder so that every link keeps
//! pointing where it pointed, and proves it before anything is written.
//!
//! The plan is data: the file moves, and per affected note the edits as byte ranges over the
//! text that was read, with that text's hash. Only the target part of a link is replaced, so
//! an alias, a heading path, a block id, the `!` of an embed, a table's `\|` and the quotes of
//! a property stay as written.
//!
//! Planning takes two steps because core reads no files: [`notes_to_read`] names the notes
//! whose text the plan needs, and [`plan_move`] takes those texts. The proof applies the edits
//! to the texts, parses every changed note again and resolves every link that the move could
//! affect against the vault as it will be; a plan that does not keep every link where it
//! pointed is refused, and nothing is written.
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

use crate::index::{is_note_path, Vault};
use crate::parse::{parse_note, Link, LinkSource, Span};
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
}

impl Failure for MoveError {
    fn code(&self) -> ErrorCode {
        match self {
            MoveError::NotFound { .. } => ErrorCode::NoteNotFound,
            MoveError::InvalidName { .. } => ErrorCode::InvalidName,
            MoveError::DestinationExists { .. } => ErrorCode::DestinationExists,
            MoveError::IntoItself { .. } => ErrorCode::InvalidPath,
            MoveError::UnrepresentableLink { .. } => ErrorCode::UnrepresentableLink,
            MoveError::MissingText { .. } => ErrorCode::InvalidArguments,
            MoveError::StaleIndex { .. } => ErrorCode::ConcurrentModification,
            MoveError::InvalidDestination { .. } => ErrorCode::InvalidPath,
            MoveError::SamePath { .. } => ErrorCode::InvalidArguments,
            MoveError::InvalidRewrite { .. } => ErrorCode::InvalidArguments,
            MoveError::InvalidBulk { .. } => ErrorCode::InvalidArguments,
        }
    }

    fn message(&self) -> String {
        match self {
            MoveError::NotFound { path } => format!("there is no file or folder at `{path}` in this vault"),
            MoveError::InvalidName { name, characters } => {
                format!("`{name}` cannot be a file's name in a vault: it holds {characters}")
            }
            MoveError::DestinationExists { path } => format!("`{path}` already exists"),
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
        }
    }

    fn hint(&self) -> &'static str {
        match self {
            MoveError::NotFound { .. } => "Give the path relative to the vault root; call list_notes to see the paths.",
            MoveError::InvalidName { .. } => {
                "Choose a name without [ ] # ^ | : \\ * \" < > ? %% or control characters, not ending with a space or a dot, and not a name Windows keeps for a device (CON, PRN, AUX, NUL, COM1-9, LPT1-9)."
            }
            MoveError::DestinationExists { .. } => "Choose another destination, or move or delete the file that is there first.",
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
/// The most bytes of a link target `rewrite_link` writes (a path of many names).
pub const MAX_TARGET_BYTES: usize = 4096;
/// The most bytes of new link text one `rewrite_link` plan holds (each link's new target, and
/// the link as the answer shows it): a plan grows with links × the target's length (20,000
/// links to a 4 KiB target would be 160 MiB before the proof and the answer copy it again), so
/// past this it is refused as it is made, before it grows further.
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
            let inside: Vec<&str> = vault.paths().filter(|path| fold(path).starts_with(&folded_folder)).collect();
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

/// Checks the destinations of `moves` taken together: each free, or left by a file that moves
/// away in the same batch. `check_names` checks each destination's name (a file move's).
fn check_moves(vault: &Vault, moves: &[(String, String)], check_names: bool) -> Result<(), MoveError> {
    let leaving: HashSet<String> = moves.iter().map(|(from, _)| fold(from)).collect();
    // A file that stays and is spelt like a destination but for case: on a case-sensitive
    // filesystem `a.md` and `A.md` can both exist, and `a.md` -> `A.md` would replace the other.
    let leaving_exactly: HashSet<&str> = moves.iter().map(|(from, _)| from.as_str()).collect();
    let destinations: HashSet<String> = moves.iter().map(|(_, to)| fold(to)).collect();
    let staying_in_the_way: HashSet<String> =
        vault.paths().filter(|path| !leaving_exactly.contains(path) && destinations.contains(&fold(path))).map(fold).collect();
    for (from, to) in moves {
        if staying_in_the_way.contains(&fold(to)) {
            return Err(MoveError::DestinationExists { path: to.clone() });
        }
        if check_names {
            check_name(to)?;
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
            check_name(&pairs[0].1)?;
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
    let mut notes: BTreeSet<String> = candidates(vault, &moves).into_iter().map(|candidate| candidate.source).collect();
    notes.extend(cycle.into_iter().filter(|path| vault.is_note(path)));
    Ok(notes.into_iter().collect())
}

/// Step two of a bulk move: plans and proves every move as one batch.
pub fn plan_bulk_move(vault: &Vault, asked: &[(String, String)], texts: &BTreeMap<String, String>) -> Result<MovePlan, MoveError> {
    plan_pairs(vault, Moves::new(bulk_moves(vault, asked)?), texts)
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

/// The files that move, as a list and as a lookup.
struct Moves {
    list: Vec<(String, String)>,
    to_by_from: HashMap<String, String>,
}

impl Moves {
    fn new(list: Vec<(String, String)>) -> Moves {
        let to_by_from = list.iter().cloned().collect();
        Moves { list, to_by_from }
    }

    /// Where `path` is after the moves.
    fn map(&self, path: &str) -> String {
        self.to_by_from.get(path).cloned().unwrap_or_else(|| path.to_owned())
    }
}

/// A link that the move may affect, with what it must resolve to afterwards.
struct Candidate {
    source: String,
    index: usize,
    expected: Option<String>,
}

/// The links a move may affect: every link in a moving note, and every link that looks up a
/// file by a name that leaves or arrives (the index files links by those names).
fn candidates(vault: &Vault, moves: &Moves) -> Vec<Candidate> {
    let mut wanted: BTreeSet<(String, usize)> = BTreeSet::new();
    for (from, to) in &moves.list {
        for key in [watch_key(from), watch_key(to)] {
            wanted.extend(vault.links_watching(&key).into_iter().map(|(source, index)| (source.to_owned(), index)));
        }
        if vault.is_note(from) {
            let count = vault.outgoing_links(from).map_or(0, |links| links.len());
            wanted.extend((0..count).map(|index| (from.clone(), index)));
        }
    }
    let mut found = Vec::with_capacity(wanted.len());
    let mut current: Option<(String, Vec<Option<String>>)> = None;
    for (source, index) in wanted {
        if current.as_ref().is_none_or(|(path, _)| *path != source) {
            let resolutions = vault
                .outgoing_links(&source)
                .unwrap_or_default()
                .iter()
                .map(|link| link.resolution.path().map(|path| moves.map(path)))
                .collect();
            current = Some((source.clone(), resolutions));
        }
        let expected = current.as_ref().and_then(|(_, resolutions)| resolutions.get(index).cloned()).flatten();
        found.push(Candidate { source, index, expected });
    }
    found
}

/// Step one: the notes whose text a plan for this move needs.
pub fn notes_to_read(vault: &Vault, from: &str, to: &str) -> Result<Vec<String>, MoveError> {
    let moves = Moves::new(moves(vault, from, to)?);
    let notes: BTreeSet<String> = candidates(vault, &moves).into_iter().map(|candidate| candidate.source).collect();
    Ok(notes.into_iter().collect())
}

/// Step two: plans and proves the move. `texts` holds the text of every note that
/// [`notes_to_read`] named.
pub fn plan_move(vault: &Vault, from: &str, to: &str, texts: &BTreeMap<String, String>) -> Result<MovePlan, MoveError> {
    plan_pairs(vault, Moves::new(moves(vault, from, to)?), texts)
}

/// Plans and proves the moves of `moves`, in their order.
fn plan_pairs(vault: &Vault, moves: Moves, texts: &BTreeMap<String, String>) -> Result<MovePlan, MoveError> {
    let after = After::new(vault, &moves);
    let config = vault.config().parse;
    let mut parsed: BTreeMap<String, Vec<Link>> = BTreeMap::new();
    let mut edits: BTreeMap<String, Vec<(TextEdit, LinkChange)>> = BTreeMap::new();
    let mut newly_resolved = Vec::new();
    let mut checked: Vec<Candidate> = Vec::new();
    for candidate in candidates(vault, &moves) {
        let text = texts.get(&candidate.source).ok_or_else(|| MoveError::MissingText { path: candidate.source.clone() })?;
        let links = parsed.entry(candidate.source.clone()).or_insert_with(|| parse_note(&candidate.source, text, &config).links);
        let indexed = vault.outgoing_links(&candidate.source).unwrap_or_default();
        if links.len() != indexed.len() || links.iter().zip(&indexed).any(|(fresh, old)| fresh.target != old.link.target) {
            return Err(MoveError::StaleIndex { path: candidate.source.clone() });
        }
        let link = &links[candidate.index];
        let new_source = moves.map(&candidate.source);
        let now = resolve::resolve(&after, &new_source, link);
        let keeps = match (&candidate.expected, now.path()) {
            (Some(expected), Some(now)) => expected == now,
            (None, None) => true,
            (None, Some(now)) => {
                newly_resolved.push(NewlyResolved {
                    note: candidate.source.clone(),
                    line: link.line,
                    link: text[link.span.range()].to_owned(),
                    resolves_to: now.to_owned(),
                });
                true
            }
            (Some(_), None) => false,
        };
        if !keeps {
            let expected = candidate.expected.clone().expect("a link that must keep a target has one");
            let reason = if moves.list.iter().any(|(_, to)| *to == expected) {
                ChangeReason::TargetMoved
            } else if new_source != candidate.source {
                ChangeReason::SourceMoved
            } else {
                ChangeReason::SecondOrder
            };
            let replacement = rewrite_target(&after, &candidate.source, &new_source, text, link, &expected)?;
            let mut after_text = text[link.span.start..link.target_span.start].to_owned();
            after_text.push_str(&replacement);
            after_text.push_str(&text[link.target_span.end..link.span.end]);
            edits.entry(candidate.source.clone()).or_default().push((
                TextEdit { span: link.target_span, replacement },
                LinkChange {
                    note: candidate.source.clone(),
                    line: link.line,
                    before: text[link.span.range()].to_owned(),
                    after: after_text,
                    reason,
                },
            ));
        }
        checked.push(candidate);
    }
    let plan = assemble(&moves.list, edits, newly_resolved, texts);
    prove(&after, &moves, &plan, &checked, &parsed, texts, &config)?;
    Ok(plan)
}

fn assemble(
    moves: &[(String, String)],
    edits: BTreeMap<String, Vec<(TextEdit, LinkChange)>>,
    newly_resolved: Vec<NewlyResolved>,
    texts: &BTreeMap<String, String>,
) -> MovePlan {
    let mut file_edits = Vec::new();
    let mut changes = Vec::new();
    for (path, mut list) in edits {
        list.sort_by_key(|(edit, _)| edit.span.start);
        assert!(list.windows(2).all(|pair| pair[0].0.span.end <= pair[1].0.span.start), "edits in one note are disjoint");
        let content_hash = content_hash(&texts[&path]);
        let (edits, list_changes): (Vec<TextEdit>, Vec<LinkChange>) = list.into_iter().unzip();
        changes.extend(list_changes);
        file_edits.push(FileEdit { path, content_hash, edits });
    }
    let moves: Vec<FileMove> = moves.iter().map(|(from, to)| FileMove { from: from.clone(), to: to.clone() }).collect();
    let mut hasher = Sha256::new();
    for file_move in &moves {
        hasher.update(format!("move\0{}\0{}\n", file_move.from, file_move.to));
    }
    for file in &file_edits {
        hasher.update(format!("edit\0{}\0{}\n", file.path, file.content_hash));
        for edit in &file.edits {
            hasher.update(format!("{}\0{}\0{}\n", edit.span.start, edit.span.end, edit.replacement));
        }
    }
    MovePlan { moves, edits: file_edits, creates: Vec::new(), changes, newly_resolved, plan_hash: hex(&hasher.finalize()) }
}

/// Applies a file's edits to its text. The edits must be sorted and disjoint.
pub fn apply_edits(text: &str, edits: &[TextEdit]) -> String {
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

/// The proof: every changed note parses to the same links, each resolving where it must, and
/// every affected link that was not changed still resolves where it must.
fn prove(
    after: &After<'_>,
    moves: &Moves,
    plan: &MovePlan,
    checked: &[Candidate],
    parsed: &BTreeMap<String, Vec<Link>>,
    texts: &BTreeMap<String, String>,
    config: &crate::parse::ParseConfig,
) -> Result<(), MoveError> {
    let edited: BTreeMap<&str, &FileEdit> = plan.edits.iter().map(|file| (file.path.as_str(), file)).collect();
    let mut reparsed: BTreeMap<&str, (Vec<Link>, Vec<Link>)> = BTreeMap::new();
    for (path, file) in &edited {
        let text = &texts[*path];
        let new_path = moves.map(path);
        let before = parsed[*path].clone();
        let new_text = apply_edits(text, &file.edits);
        let now = parse_note(&new_path, &new_text, config).links;
        reparsed.insert(path, (before, now));
    }
    for candidate in checked {
        let new_source = moves.map(&candidate.source);
        let link = match reparsed.get(candidate.source.as_str()) {
            Some((before, now)) => {
                let unrepresentable = |reason: &str| MoveError::UnrepresentableLink {
                    note: candidate.source.clone(),
                    line: before.get(candidate.index).map_or(0, |link| link.line),
                    link: before.get(candidate.index).map_or_else(String::new, |link| link.target.clone()),
                    reason: reason.to_owned(),
                };
                if now.len() != before.len() {
                    return Err(unrepresentable("the rewritten note would hold a different number of links"));
                }
                let (old, new) = (&before[candidate.index], &now[candidate.index]);
                if old.kind != new.kind || old.subpath != new.subpath || old.display != new.display || old.source != new.source {
                    return Err(unrepresentable("the rewritten link would read differently (kind, heading, alias or property)"));
                }
                new.clone()
            }
            None => parsed[&candidate.source][candidate.index].clone(),
        };
        let now = resolve::resolve(after, &new_source, &link);
        let holds = match (&candidate.expected, now.path()) {
            (Some(expected), Some(now)) => expected == now,
            (None, _) => true,
            (Some(_), None) => false,
        };
        if !holds {
            return Err(MoveError::UnrepresentableLink {
                note: candidate.source.clone(),
                line: link.line,
                link: link.target.clone(),
                reason: format!(
                    "it would point to {} instead of `{}`",
                    now.path().map_or_else(|| "nothing".to_owned(), |path| format!("`{path}`")),
                    candidate.expected.as_deref().unwrap_or_default()
                ),
            });
        }
    }
    Ok(())
}

/// The new target text (path and subpath as written) for `link` in `source` (which moves to
/// `new_source`), pointing at `expected`.
fn rewrite_target(after: &After<'_>, source: &str, new_source: &str, text: &str, link: &Link, expected: &str) -> Result<String, MoveError> {
    let written = &text[link.target_span.range()];
    let subpath_written = written.find('#').map_or("", |hash| &written[hash..]);
    let unrepresentable = |reason: String| MoveError::UnrepresentableLink {
        note: source.to_owned(),
        line: link.line,
        link: text[link.span.range()].to_owned(),
        reason,
    };
    let new_path = if link.kind.is_markdown() {
        markdown_destination(after.vault, source, new_source, expected, link, written)
    } else {
        wikilink_path(after, new_source, link, expected)
            .ok_or_else(|| unrepresentable(format!("no form of a link to `{expected}` finds it unambiguously")))?
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
    let new_path = escape_in_property(link, &new_path)
        .ok_or_else(|| unrepresentable(format!("`{new_path}` cannot be written inside this property's string")))?;
    Ok(format!("{new_path}{subpath_written}"))
}

/// `path` as it is written in the link's place: escaped as its property's YAML string needs
/// (`It's` is `'It''s'` in single quotes), as is in the body. `None` when the string cannot
/// hold it.
fn escape_in_property(link: &Link, path: &str) -> Option<String> {
    match &link.source {
        LinkSource::Property { quote, .. } => quote.escape(path),
        LinkSource::Body => Some(path.to_owned()),
    }
}

/// The path part of a wikilink to `expected` from `source`: the bare name when it is unique
/// and the original was bare, a relative path when it was relative, else the shortest path that
/// finds it unambiguously.
fn wikilink_path(after: &After<'_>, source: &str, link: &Link, expected: &str) -> Option<String> {
    let keep_extension = link.path.trim().to_lowercase().ends_with(".md") || !is_note_path(expected);
    let stem = if keep_extension { expected } else { &expected[..expected.len() - 3] };
    let was_bare = !link.path.trim().contains('/');
    let segments: Vec<&str> = stem.split('/').collect();
    let mut forms: Vec<String> = Vec::new();
    if resolve::is_relative(&link.path) {
        // Written relative to the linking note (`[[../Other]]`), as Obsidian writes links under
        // "Relative path to file": it stays relative, from where the note will be.
        let relative = relative_path(folder(source), stem);
        forms.push(if relative.starts_with("../") { relative } else { format!("./{relative}") });
    } else if was_bare {
        for take in 1..=segments.len() {
            forms.push(segments[segments.len() - take..].join("/"));
        }
    } else {
        forms.push(stem.to_owned());
    }
    // Anchored at the root: the one form no other file can share.
    forms.push(format!("/{stem}"));
    forms.into_iter().find(|form| {
        let probe = Link { path: form.clone(), ..link.clone() };
        matches!(resolve::resolve(after, source, &probe), Resolution::Resolved { path } if path == expected)
    })
}

/// A markdown destination to `expected` from `source` (which was at `old_source`), written in
/// the original's form: vault-absolute with a `/` when it started with one; vault-absolute
/// without it when that is how it found its file (`[x](Folder/Note.md)` from a note elsewhere,
/// which Obsidian reads from the vault's root once the note's own folder has no such path);
/// else relative to the note's folder. Encoded when it was encoded or must be; the `.md` kept or
/// left out as written.
fn markdown_destination(vault: &Vault, old_source: &str, source: &str, expected: &str, link: &Link, written: &str) -> String {
    let path_written = written.split('#').next().unwrap_or("");
    let decoded = percent_decode_lossy(path_written);
    let keep_extension = decoded.to_lowercase().ends_with(".md") || !is_note_path(expected);
    let target = if keep_extension { expected.to_owned() } else { expected[..expected.len() - 3].to_owned() };
    let found_relative = join_relative(folder(old_source), &decoded).is_some_and(|joined| vault.find_file(&joined).is_some());
    let found_from_root = !decoded.starts_with("./") && !decoded.starts_with("../") && vault.find_file(&decoded).is_some();
    let path = if path_written.starts_with('/') {
        format!("/{target}")
    } else if found_from_root && !found_relative && decoded.contains('/') {
        target
    } else {
        let relative = relative_path(folder(source), &target);
        if path_written.starts_with("./") && !relative.starts_with("../") {
            format!("./{relative}")
        } else {
            relative
        }
    };
    let angle = link.destination.is_some_and(|destination| destination.angle);
    let encoded = link.destination.is_some_and(|destination| destination.encoded);
    if angle {
        path
    } else {
        encode_destination(&path, encoded)
    }
}

fn percent_decode_lossy(text: &str) -> String {
    crate::parse::percent_decode(text)
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
fn relative_path(from: &str, to: &str) -> String {
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
fn encode_destination(path: &str, encode_non_ascii: bool) -> String {
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
    pub newly_resolved: Vec<NewlyResolved>,
    /// Present when `moves` or `changes` go on: pass it as `cursor` (with the same arguments)
    /// for the next page of the preview.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Once applied: the id `undo_change` takes to undo it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change_id: Option<String>,
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
            newly_resolved: plan.newly_resolved.clone(),
            next_cursor,
            change_id: None,
        })
    }
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

/// Step one of `rewrite_link`: the notes holding a link whose target is `from_target`.
pub fn notes_to_read_for_rewrite(vault: &Vault, from_target: &str) -> Vec<String> {
    vault
        .note_paths()
        .filter(|path| vault.outgoing_links(path).is_some_and(|links| links.iter().any(|found| targets_match(found.link, from_target))))
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
    for source in notes_to_read_for_rewrite(vault, from_target) {
        let text = texts.get(&source).ok_or_else(|| MoveError::MissingText { path: source.clone() })?;
        let links = parse_note(&source, text, &config).links;
        for link in links.iter().filter(|link| targets_match(link, from_target)) {
            let written = &text[link.target_span.range()];
            let subpath_written = written.find('#').map_or("", |hash| &written[hash..]);
            let unrepresentable = |reason: String| MoveError::UnrepresentableLink {
                note: source.clone(),
                line: link.line,
                link: text[link.span.range()].to_owned(),
                reason,
            };
            // A `.md` the author wrote stays written: `[x](Old.md)` becomes `[x](New.md)`.
            let wrote_extension = link.path.trim().to_lowercase().ends_with(".md");
            let target = if wrote_extension && !to_target.to_lowercase().ends_with(".md") {
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
            let forbidden: &[char] = if link.kind.is_markdown() { &['<', '>', '\n', '\r'] } else { &['|', '[', ']', '#', '^', '\n', '\r'] };
            if to_target.is_empty() || path.contains(forbidden) || path.contains("%%") || path.chars().any(char::is_control) {
                return Err(unrepresentable(format!("{to_target:?} cannot be written as the target of this link")));
            }
            let path = escape_in_property(link, &path)
                .ok_or_else(|| unrepresentable(format!("{to_target:?} cannot be written inside this property's string")))?;
            let replacement = format!("{path}{subpath_written}");
            let mut after = text[link.span.start..link.target_span.start].to_owned();
            after.push_str(&replacement);
            after.push_str(&text[link.target_span.end..link.span.end]);
            planned_bytes += replacement.len() + after.len();
            if planned_bytes > MAX_PLAN_TEXT_BYTES {
                let links: usize = edits.values().map(Vec::len).sum::<usize>() + 1;
                return invalid(format!(
                    "rewriting these links to a target of {} bytes would hold more than {} MiB of new link text (past it at link {links})",
                    to_target.len(),
                    MAX_PLAN_TEXT_BYTES >> 20
                ));
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
    let plan = assemble(&[], edits, Vec::new(), texts);
    // The proof: each note parses to as many links, the rewritten ones with the new target,
    // the others exactly as before.
    for file in &plan.edits {
        let text = &texts[&file.path];
        let before = parse_note(&file.path, text, &config).links;
        let now = parse_note(&file.path, &apply_edits(text, &file.edits), &config).links;
        let rewritten: HashSet<usize> = file.edits.iter().map(|edit| edit.span.start).collect();
        let fails = now.len() != before.len()
            || before.iter().zip(&now).any(|(old, new)| {
                let same_shape =
                    old.kind == new.kind && old.subpath == new.subpath && old.display == new.display && old.source == new.source;
                let target_ok = if rewritten.contains(&old.target_span.start) {
                    let written = fold(new.path.trim());
                    let wanted = fold(to_target);
                    written == wanted || written.strip_suffix(".md") == Some(wanted.as_str())
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
