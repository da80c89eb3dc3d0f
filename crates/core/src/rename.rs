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

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use crate::canvas::{is_canvas_path, parse_file};
use crate::facts::text_fingerprint;
use crate::index::{is_note_path, ResolvedLink, Vault};
use crate::link_form::{display_span, followed_display, written_path, Rewrite};
use crate::move_error::MoveError;
use crate::names::{check_file_name, check_name};
use crate::parse::{Link, LinkSource, ParseConfig, Span};
use crate::plan::{
    apply_edits_of, assemble, link_with_edit, ChangeReason, LinkChange, MovePlan, NewlyResolved, TextEdit, MAX_PLAN_TEXT_BYTES,
};
use crate::reread::reread_locally;
use crate::resolve::{self, file_name, fold, folder, watch_key, FileLookup, Resolution};
use crate::retarget::{prove_links, same_but_target, target_with_path, Unproven};

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
            None => &self.indexed[index].link,
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
        let unrepresentable = |reason: String| MoveError::UnrepresentableLink {
            note: source.to_owned(),
            line: link.line,
            link: text[link.span.range()].to_owned(),
            reason,
        };
        if let LinkSource::CanvasFile { .. } = link.source {
            // A file card names its file by its vault path, whatever the canvas's folder.
            return target_with_path(text, link, expected).map_err(unrepresentable);
        }
        // In a canvas's text card the target as written is the decoded JSON string's; the raw
        // bytes may hold escapes.
        let written = if link.source.is_canvas() { link.target.as_str() } else { &text[link.target_span.range()] };
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
        match &self.rewritten[self.key.as_str()] {
            Ok(path) => target_with_path(text, link, path).map_err(unrepresentable),
            Err(reason) => Err(unrepresentable(reason.clone())),
        }
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
    let proof = prove_links(
        note.read.len(),
        |index| note.read.link(index),
        &now,
        note.candidates.iter().copied(),
        |index, old| note.display_after(index, old),
        |index, new| resolves_as_expected(planner, moves, note, index, new),
    );
    let Err((index, unproven)) = proof else { return Ok(()) };
    let old = note.read.link(index);
    let unrepresentable = |reason: &str| MoveError::UnrepresentableLink {
        note: note.source.to_owned(),
        line: old.line,
        link: old.target.clone(),
        reason: reason.to_owned(),
    };
    Err(match unproven {
        Unproven::Count => unrepresentable("the rewritten note would hold a different number of links"),
        Unproven::Shape => unrepresentable("the rewritten link would read differently (kind, heading, alias or property)"),
        Unproven::Target => {
            let new = &now[index];
            let expected = note.read.resolution(index).path().map(|path| moves.map(path));
            let now = planner.resolve(note.new_source, new).map_or_else(|| "nothing".to_owned(), |path| format!("`{path}`"));
            MoveError::UnrepresentableLink {
                note: note.source.to_owned(),
                line: new.line,
                link: new.target.clone(),
                reason: format!("it would point to {now} instead of `{}`", expected.unwrap_or_default()),
            }
        }
    })
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
        if !same_but_target(old, new, old.display.as_deref()) {
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
        if !same_but_target(old, new, old.display.as_deref()) || !resolves_as_expected(planner, moves, note, *index, new) {
            return false;
        }
    }
    true
}
