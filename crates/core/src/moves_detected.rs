//! Moves made outside vaultlink (a file manager, `mv`, `git mv`, a script, a sync client): which
//! notes vanished from one path and appeared at another with the same bytes, since the edge last
//! saw the vault, the links each move broke, and `heal_moves`' plan, which rewrites those links
//! as if the move had been made through vaultlink and moves no file.
//!
//! The edge says what it saw ([`Observed`]): the sidecar from the persistent index's previous
//! notes and the folder as it is now ([`Observed::between`]), the plugin from Obsidian's delete
//! and create events, which is how a move made outside Obsidian reaches it. A move is detected
//! only on evidence (the same size and content hash, and one note on each side); every other
//! case that looks like a move is listed with why it was not taken for one, never guessed.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use crate::answer::{page_with_default, OpError, ResponseFormat};
use crate::approval::{PlanApproval, PlanHistory};
use crate::edge::{Change, Edge};
use crate::error::CallError;
use crate::move_answer::MoveAnswer;
use crate::plan::{FileMove, MovePlan};
use crate::resolve::fold;
use crate::seen::SeenNote;
use crate::Vault;

/// The most notes of each side [`detect`] compares: past it, the rest are left out and the
/// answer says so (`observed_truncated`), so a vault replaced whole cannot hold a call.
pub const MAX_OBSERVED: usize = 100_000;
/// The items (moves and ambiguous cases) on a page of `detected_moves` when `limit` is left out.
pub const DEFAULT_DETECTED: usize = 20;

pub use crate::seen::Observed;

/// A move made outside vaultlink, detected.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DetectedMove {
    /// `note`, or `folder` when several notes left one folder for another and nothing is left in
    /// the old one (then `from` and `to` are the folders, and `notes` each note's move).
    pub kind: MoveKind,
    pub from: String,
    pub to: String,
    /// The evidence: each note's bytes are the same at `to` as they were at `from`.
    pub evidence: String,
    /// The notes moved, for a folder (at most `MAX_LISTED`; `notes_total` counts them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<FileMove>,
    pub notes_total: usize,
    /// The links that found the moved notes before and do not now (at most `MAX_LISTED`).
    pub links_broken: Vec<BrokenLink>,
    pub links_broken_total: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MoveKind {
    Note,
    Folder,
}

/// A link a move broke: it found the moved note (or, in a moved note, its target) before.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BrokenLink {
    /// The note holding the link, where it is now.
    pub note: String,
    pub line: u32,
    /// The link's target as written (its subpath kept).
    pub target: String,
    /// Where it found before the move.
    pub found: String,
    /// Where it finds now, when it finds another file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finds_now: Option<String>,
}

/// A note that looks moved, not taken for a move, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AmbiguousMove {
    /// The path the note vanished from.
    pub from: String,
    /// The paths it may have gone to.
    pub candidates: Vec<String>,
    pub why: AmbiguousWhy,
    /// The same, said for a reader, with what to do.
    pub detail: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AmbiguousWhy {
    /// Its bytes appeared at several paths: a copy, and which one is the move is not known.
    Copies,
    /// Several notes held these bytes before and vanished: which went where is not known.
    SameContentVanished,
    /// Nothing with its bytes appeared, but a note of its name did: moved and edited, or not
    /// moved at all.
    ContentDiffers,
    /// Its bytes appeared elsewhere, but a note is at its old path again.
    OldPathExistsAgain,
}

/// What [`detect`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Detected {
    pub moves: Vec<DetectedMove>,
    pub ambiguous: Vec<AmbiguousMove>,
    /// Every note moved, one pair each (a folder's notes too), in path order.
    pub pairs: Vec<(String, String)>,
    /// True when the edge saw more notes change than [`MAX_OBSERVED`].
    pub observed_truncated: bool,
}

/// The detected moves of `observed` against the vault as it is now.
pub fn detect(vault: &Vault, observed: &Observed) -> Detected {
    let observed_truncated = observed.vanished.len() > MAX_OBSERVED || observed.appeared.len() > MAX_OBSERVED;
    let notes_only = |list: &[SeenNote]| -> Vec<SeenNote> {
        let mut kept: Vec<SeenNote> =
            list.iter().take(MAX_OBSERVED).filter(|note| crate::index::is_note_path(&note.path)).cloned().collect();
        kept.sort_by(|a, b| a.path.cmp(&b.path));
        kept.dedup_by(|a, b| a.path == b.path);
        kept
    };
    let vanished = notes_only(&observed.vanished);
    // A note appeared only where the vault holds one now: an event older than a later delete
    // names a note that is gone again.
    let appeared: Vec<SeenNote> = notes_only(&observed.appeared).into_iter().filter(|note| vault.is_note(&note.path)).collect();
    let key = |note: &SeenNote| (note.hash, note.size);
    let mut appeared_by_key: HashMap<(u128, u64), Vec<&SeenNote>> = HashMap::new();
    for note in &appeared {
        appeared_by_key.entry(key(note)).or_default().push(note);
    }
    let mut vanished_by_key: HashMap<(u128, u64), Vec<&SeenNote>> = HashMap::new();
    for note in &vanished {
        vanished_by_key.entry(key(note)).or_default().push(note);
    }
    let mut pairs = Vec::new();
    let mut ambiguous = Vec::new();
    let mut matched_appeared: BTreeSet<&str> = BTreeSet::new();
    for note in &vanished {
        let gone = !vault.contains(&note.path);
        let same = appeared_by_key.get(&key(note)).map(Vec::as_slice).unwrap_or_default();
        let holders = vanished_by_key.get(&key(note)).map(Vec::as_slice).unwrap_or_default();
        let candidates = |list: &[&SeenNote]| list.iter().map(|seen| seen.path.clone()).collect::<Vec<_>>();
        if same.is_empty() {
            continue;
        }
        let to = match (holders.len(), same.len()) {
            (1, 1) => Some(same[0]),
            // Several notes of the same bytes (empty ones, templates) moved together: each is
            // paired with the one of its own name when the names pair them one to one.
            (many, also) if many == also => by_unique_name(note, holders, same),
            _ => None,
        };
        match to {
            Some(to) if gone => {
                matched_appeared.insert(to.path.as_str());
                pairs.push((note.path.clone(), to.path.clone()));
            }
            Some(to) => {
                matched_appeared.insert(to.path.as_str());
                ambiguous.push(AmbiguousMove {
                    from: note.path.clone(),
                    candidates: vec![to.path.clone()],
                    why: AmbiguousWhy::OldPathExistsAgain,
                    detail: format!(
                        "{} appeared with the bytes {} held, but a note is at {} again: links to it find that note, so nothing is healed; move_note or rewrite_link repoints them if they meant the moved one",
                        to.path, note.path, note.path
                    ),
                });
            }
            None if same.len() > 1 && holders.len() == 1 => ambiguous.push(AmbiguousMove {
                from: note.path.clone(),
                candidates: candidates(same),
                why: AmbiguousWhy::Copies,
                detail: format!(
                    "{}'s bytes appeared at {} paths, so which is the move and which a copy is not known; rewrite_link repoints its links to the one meant",
                    note.path,
                    same.len()
                ),
            }),
            None => {
                for to in same {
                    matched_appeared.insert(to.path.as_str());
                }
                ambiguous.push(AmbiguousMove {
                    from: note.path.clone(),
                    candidates: candidates(same),
                    why: AmbiguousWhy::SameContentVanished,
                    detail: format!(
                        "{} notes held {}'s bytes and vanished, so which went where is not known; rewrite_link repoints its links to the one meant",
                        holders.len(),
                        note.path
                    ),
                })
            }
        }
    }
    // A vanished note of no matching bytes with a note of its name appeared: say why it is not
    // taken for a move. Only for a note whose path is gone: one edited in place was not moved.
    let hashes_appeared: BTreeSet<(u128, u64)> = appeared.iter().map(key).collect();
    let mut appeared_by_name: HashMap<String, Vec<&SeenNote>> = HashMap::new();
    for note in &appeared {
        if !matched_appeared.contains(note.path.as_str()) {
            appeared_by_name.entry(fold(crate::resolve::file_name(&note.path))).or_default().push(note);
        }
    }
    for note in &vanished {
        if hashes_appeared.contains(&key(note)) || vault.contains(&note.path) {
            continue;
        }
        if let Some(named) = appeared_by_name.get(&fold(crate::resolve::file_name(&note.path))) {
            ambiguous.push(AmbiguousMove {
                from: note.path.clone(),
                candidates: named.iter().map(|seen| seen.path.clone()).collect(),
                why: AmbiguousWhy::ContentDiffers,
                detail: format!(
                    "not detected, content differs: {} vanished and a note of its name appeared, but with other bytes (moved and edited, or another note); move_note cannot heal it, rewrite_link repoints its links if it is the same note",
                    note.path
                ),
            });
        }
    }
    ambiguous.sort_by(|a, b| a.from.cmp(&b.from));
    pairs.sort();
    let moves = group(vault, &pairs);
    Detected { moves, ambiguous, pairs, observed_truncated }
}

/// The appeared note of `note`'s name among `same`, when the names of `holders` and `same` pair
/// them one to one.
fn by_unique_name<'a>(note: &SeenNote, holders: &[&SeenNote], same: &[&'a SeenNote]) -> Option<&'a SeenNote> {
    let names = |list: &[&SeenNote]| list.iter().map(|seen| fold(crate::resolve::file_name(&seen.path))).collect::<BTreeSet<_>>();
    let (before, after) = (names(holders), names(same));
    if before.len() != holders.len() || before != after {
        return None;
    }
    let name = fold(crate::resolve::file_name(&note.path));
    same.iter().copied().find(|seen| fold(crate::resolve::file_name(&seen.path)) == name)
}

/// The folders `from` and `to` a note's move is a part of: what is left of each path once the
/// folders and name they end with alike are taken off; `None` when the names differ or one is at
/// the root.
fn folder_move(from: &str, to: &str) -> Option<(String, String)> {
    let (from_parts, to_parts): (Vec<&str>, Vec<&str>) = (from.split('/').collect(), to.split('/').collect());
    let mut same = 0;
    while same < from_parts.len() && same < to_parts.len() && from_parts[from_parts.len() - 1 - same] == to_parts[to_parts.len() - 1 - same]
    {
        same += 1;
    }
    if same == 0 || same == from_parts.len() || same == to_parts.len() {
        return None;
    }
    Some((from_parts[..from_parts.len() - same].join("/"), to_parts[..to_parts.len() - same].join("/")))
}

/// The moves of `pairs`: one folder move for several notes that left one folder for another when
/// the vault holds nothing in the old folder now, a note move for every other.
fn group(vault: &Vault, pairs: &[(String, String)]) -> Vec<DetectedMove> {
    let mut folders: BTreeMap<(String, String), Vec<&(String, String)>> = BTreeMap::new();
    let mut alone = Vec::new();
    for pair in pairs {
        match folder_move(&pair.0, &pair.1) {
            Some(folders_moved) => folders.entry(folders_moved).or_default().push(pair),
            None => alone.push(pair),
        }
    }
    let before = before_moves(vault, pairs);
    let mut moves = Vec::new();
    for ((from, to), notes) in folders {
        let emptied = vault.paths_under(&from).next().is_none();
        if notes.len() < 2 || !emptied {
            alone.extend(notes);
            continue;
        }
        let broken: Vec<BrokenLink> = notes.iter().flat_map(|pair| links_broken(vault, &before, pairs, pair)).collect();
        let (links_broken, links_broken_total) = crate::answer::capped(broken);
        let (notes, notes_total) =
            crate::answer::capped(notes.iter().map(|(from, to)| FileMove { from: from.clone(), to: to.clone() }).collect());
        moves.push(DetectedMove {
            kind: MoveKind::Folder,
            evidence: format!("{notes_total} notes left {from}/ and appeared under {to}/, each with the same size and content hash"),
            from,
            to,
            notes,
            notes_total,
            links_broken,
            links_broken_total,
        });
    }
    for pair in alone {
        let (links_broken, links_broken_total) = crate::answer::capped(links_broken(vault, &before, pairs, pair));
        moves.push(DetectedMove {
            kind: MoveKind::Note,
            from: pair.0.clone(),
            to: pair.1.clone(),
            evidence: format!("{} vanished and {} appeared with the same size and content hash", pair.0, pair.1),
            notes: Vec::new(),
            notes_total: 1,
            links_broken,
            links_broken_total,
        });
    }
    moves.sort_by(|a, b| a.from.cmp(&b.from));
    moves
}

/// The vault as it was before `pairs`: each moved note put back at its old path (its bytes are
/// the same, so its links are too).
fn before_moves(vault: &Vault, pairs: &[(String, String)]) -> Vault {
    let mut before = vault.clone();
    for (from, to) in pairs {
        before.rename(to, from);
    }
    before
}

/// Where a note of the vault before the moves is now.
fn now_path<'a>(pairs: &'a [(String, String)], path: &'a str) -> &'a str {
    pairs.iter().find(|(from, _)| from == path).map_or(path, |(_, to)| to.as_str())
}

/// The links of `pair`'s move that found a file before it and do not find that file now: those
/// to the moved note, and the moved note's own.
fn links_broken(vault: &Vault, before: &Vault, pairs: &[(String, String)], pair: &(String, String)) -> Vec<BrokenLink> {
    let (from, _) = pair;
    let mut links: Vec<(String, crate::Link, String)> = Vec::new();
    for found in before.backlinks(from) {
        if let Some(target) = found.resolution.path() {
            links.push((found.source.to_owned(), found.link.clone(), target.to_owned()));
        }
    }
    for found in before.outgoing_links(from).unwrap_or_default() {
        if let Some(target) = found.resolution.path() {
            if target != from {
                links.push((found.source.to_owned(), found.link.clone(), target.to_owned()));
            }
        }
    }
    let mut broken = Vec::new();
    for (source, link, target) in links {
        let (source_now, target_now) = (now_path(pairs, &source), now_path(pairs, &target));
        let now = vault.outgoing_links(source_now).unwrap_or_default();
        let finds_now = now.iter().find(|found| found.link.span == link.span).and_then(|found| found.resolution.path());
        if finds_now != Some(target_now) {
            broken.push(BrokenLink {
                note: source_now.to_owned(),
                line: link.line,
                target: link.target.clone(),
                found: target_now.to_owned(),
                finds_now: finds_now.map(str::to_owned),
            });
        }
    }
    broken.sort_by(|a, b| (&a.note, a.line).cmp(&(&b.note, b.line)));
    broken.dedup();
    broken
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DetectedMovesArguments {
    #[serde(default)]
    pub limit: Option<usize>,
    #[serde(default)]
    pub cursor: Option<String>,
    #[serde(default)]
    pub response_format: ResponseFormat,
}

/// One item of `detected_moves`' list: a move, or a case not taken for one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum DetectedItem {
    Move(DetectedMove),
    Ambiguous(AmbiguousMove),
}

/// `detected_moves`' answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DetectedMovesAnswer {
    /// False when the edge has no earlier view of the vault to compare with (the first start on
    /// a vault, or the persistent index cleared): nothing can be detected then.
    pub observed: bool,
    /// This page's moves, then the cases not taken for moves.
    pub moves: Vec<DetectedMove>,
    pub ambiguous: Vec<AmbiguousMove>,
    /// How many moves and ambiguous cases there are in all.
    pub total: usize,
    /// How many links the detected moves broke, which `heal_moves` rewrites.
    pub links_broken: usize,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub observed_truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// `detected_moves`: the moves, then the ambiguous cases, paged.
pub fn detected_moves(
    vault: &Vault,
    observed: Option<&Observed>,
    arguments: &DetectedMovesArguments,
) -> Result<DetectedMovesAnswer, OpError> {
    let detected = observed.map(|observed| detect(vault, observed)).unwrap_or_default();
    let links_broken = detected.moves.iter().map(|found| found.links_broken_total).sum();
    let mut items: Vec<DetectedItem> = detected.moves.into_iter().map(DetectedItem::Move).collect();
    items.extend(detected.ambiguous.into_iter().map(DetectedItem::Ambiguous));
    if arguments.response_format == ResponseFormat::Concise {
        for item in &mut items {
            if let DetectedItem::Move(found) = item {
                found.notes.clear();
                found.links_broken.clear();
            }
        }
    }
    let scope = format!(
        "detected_moves\0{}",
        crate::answer::list_digest(items.iter().map(|item| match item {
            DetectedItem::Move(found) => found.from.as_str(),
            DetectedItem::Ambiguous(found) => found.from.as_str(),
        }))
    );
    let (page, total, next_cursor) = page_with_default(items, arguments.limit, arguments.cursor.as_deref(), DEFAULT_DETECTED, &scope)?;
    let (mut moves, mut ambiguous) = (Vec::new(), Vec::new());
    for item in page {
        match item {
            DetectedItem::Move(found) => moves.push(found),
            DetectedItem::Ambiguous(found) => ambiguous.push(found),
        }
    }
    Ok(DetectedMovesAnswer {
        observed: observed.is_some(),
        moves,
        ambiguous,
        total,
        links_broken,
        observed_truncated: detected.observed_truncated,
        next_cursor,
    })
}

crate::approval::writing_arguments! {
    #[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct HealArguments {
    } paged
}

/// `heal_moves`' answer: a move's answer (its `moves` empty: nothing is moved) and the detected
/// moves it heals.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HealAnswer {
    #[serde(flatten)]
    pub answer: MoveAnswer,
    /// Each note's move made outside vaultlink whose links the plan rewrites (at most
    /// `MAX_LISTED`; `healed_total` counts them).
    pub healed: Vec<FileMove>,
    pub healed_total: usize,
    /// The cases not taken for moves, which it leaves alone (`detected_moves` lists them).
    pub ambiguous: usize,
}

/// The notes `heal_moves` reads, where they are now: those whose links the moves' plan rewrites.
pub fn heal_notes_needed(vault: &Vault, observed: Option<&Observed>) -> Vec<String> {
    let Some(observed) = observed else { return Vec::new() };
    let detected = detect(vault, observed);
    let before = before_moves(vault, &detected.pairs);
    let needed = crate::rename::notes_to_read_for_moves_as_given(&before, &detected.pairs);
    needed.iter().map(|path| now_path(&detected.pairs, path).to_owned()).collect()
}

/// `heal_moves`: the links the detected moves broke, rewritten as the moves' own plan made
/// through vaultlink would have rewritten them (proven on the vault as it was before them), with
/// the file moves left out, since they are made; previewed, then applied by its plan hash.
pub fn heal_moves(
    vault: &Vault,
    observed: Option<&Observed>,
    arguments: &HealArguments,
    edge: &mut dyn Edge,
    plans: &mut PlanHistory,
) -> Result<(HealAnswer, Option<Change>), CallError> {
    let detected = observed.map(|observed| detect(vault, observed)).unwrap_or_default();
    let pairs = detected.pairs;
    let before = before_moves(vault, &pairs);
    let mut before_texts = BTreeMap::new();
    let mut texts = BTreeMap::new();
    for path in crate::rename::notes_to_read_for_moves_as_given(&before, &pairs) {
        let now = now_path(&pairs, &path).to_owned();
        let text = edge.text(&now)?;
        before_texts.insert(path, text.clone());
        texts.insert(now, text);
    }
    let moved = crate::rename::plan_moves_as_given(&before, pairs.clone(), &before_texts).map_err(|error| CallError::of(&error))?;
    let mut plan = healed_plan(moved, &pairs);
    let left = crate::sources::leave_sources(vault, &mut plan);
    crate::sources::check_plan(vault, "heal_moves", &plan).map_err(|error| CallError::of(&error))?;
    // With nothing to rewrite there is nothing to apply or keep for undo: the answer stays the
    // preview (`applied: false`), whatever was asked.
    let approval =
        if plan.edits.is_empty() { PlanApproval { dry_run: Some(true), approved_plan_hash: None } } else { arguments.approval() };
    let page = crate::tail::Page { format: arguments.response_format, limit: arguments.limit, cursor: arguments.cursor.as_deref() };
    let (mut answer, change) = crate::tail::finish("heal_moves", &plan, &texts, &[], &approval, page, edge, plans)?;
    answer.links_left_in_sources = left;
    let (healed, healed_total) =
        crate::answer::capped(pairs.iter().map(|(from, to)| FileMove { from: from.clone(), to: to.clone() }).collect());
    Ok((HealAnswer { answer, healed, healed_total, ambiguous: detected.ambiguous.len() }, change))
}

/// The plan of the moves `pairs` made through vaultlink, as the heal of the same moves made
/// outside it: no file moves, and each edit of a moved note made where the note is now. Its hash
/// binds the moves it heals and the plan's own.
fn healed_plan(mut plan: MovePlan, pairs: &[(String, String)]) -> MovePlan {
    plan.moves.clear();
    for file in &mut plan.edits {
        file.path = now_path(pairs, &file.path).to_owned();
    }
    for change in &mut plan.changes {
        change.note = now_path(pairs, &change.note).to_owned();
    }
    for found in &mut plan.newly_resolved {
        found.note = now_path(pairs, &found.note).to_owned();
    }
    let mut hash = crate::plan::PlanHash::new();
    hash.record(&[b"heal_moves"]);
    for (from, to) in pairs {
        hash.record(&[from.as_bytes(), to.as_bytes()]);
    }
    hash.record(&[plan.plan_hash.as_bytes()]);
    plan.plan_hash = hash.finish();
    plan
}

#[cfg(test)]
mod tests {
    use std::hash::{Hash, Hasher};

    use serde_json::json;

    use super::*;
    use crate::edge::ReadBefore;
    use crate::ops::{call, Response};

    /// A stand-in for the edges' content hash: any hash of the bytes will do for core.
    fn seen(path: &str, text: &str) -> SeenNote {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        text.hash(&mut hasher);
        SeenNote { path: path.to_owned(), size: text.len() as u64, hash: u128::from(hasher.finish()) }
    }

    /// The vault as it is now, and what the edge saw change since `before`.
    fn world(before: &[(&str, &str)], now: &[(&str, &str)]) -> (Vault, ReadBefore) {
        let (vault, texts) = crate::testing::vault_with(now);
        let before: Vec<SeenNote> = before.iter().map(|(path, text)| seen(path, text)).collect();
        let now: Vec<SeenNote> = now.iter().map(|(path, text)| seen(path, text)).collect();
        let edge = ReadBefore { tag: 4, texts, observed: Some(Observed::between(&before, &now)), ..ReadBefore::default() };
        (vault, edge)
    }

    fn detected(before: &[(&str, &str)], now: &[(&str, &str)]) -> Detected {
        let (vault, mut edge) = world(before, now);
        detect(&vault, &edge.observed().unwrap())
    }

    #[test]
    fn a_note_moved_by_mv_is_detected_with_the_links_it_broke() {
        let found = detected(
            &[("notes/A.md", "alpha"), ("B.md", "see [a](notes/A.md) and [[A]]")],
            &[("archive/A.md", "alpha"), ("B.md", "see [a](notes/A.md) and [[A]]")],
        );
        assert_eq!(found.pairs, vec![("notes/A.md".to_owned(), "archive/A.md".to_owned())]);
        assert!(found.ambiguous.is_empty());
        let moved = &found.moves[0];
        assert_eq!((moved.kind, moved.from.as_str(), moved.to.as_str()), (MoveKind::Note, "notes/A.md", "archive/A.md"));
        // `[[A]]` still finds the note by its name; the path link does not.
        assert_eq!(moved.links_broken_total, 1);
        assert_eq!(moved.links_broken[0].target, "notes/A.md");
        assert_eq!((moved.links_broken[0].found.as_str(), moved.links_broken[0].finds_now.as_deref()), ("archive/A.md", None));
    }

    #[test]
    fn a_folder_moved_by_a_script_is_one_move_with_its_notes() {
        let found = detected(
            &[("old/x.md", "x"), ("old/deep/y.md", "y"), ("Index.md", "[[old/x]] [[old/deep/y]]")],
            &[("new/x.md", "x"), ("new/deep/y.md", "y"), ("Index.md", "[[old/x]] [[old/deep/y]]")],
        );
        assert_eq!(found.moves.len(), 1);
        let folder = &found.moves[0];
        assert_eq!((folder.kind, folder.from.as_str(), folder.to.as_str(), folder.notes_total), (MoveKind::Folder, "old", "new", 2));
        assert_eq!(folder.links_broken_total, 2);
    }

    #[test]
    fn notes_moved_out_of_a_folder_that_still_holds_others_are_note_moves() {
        let found = detected(
            &[("old/x.md", "x"), ("old/y.md", "y"), ("old/z.md", "z")],
            &[("new/x.md", "x"), ("new/y.md", "y"), ("old/z.md", "z")],
        );
        assert_eq!(found.moves.iter().map(|found| found.kind).collect::<Vec<_>>(), vec![MoveKind::Note, MoveKind::Note]);
    }

    #[test]
    fn a_copy_left_in_place_is_no_move_and_two_copies_are_listed_not_guessed() {
        let copy = detected(&[("A.md", "alpha")], &[("A.md", "alpha"), ("B.md", "alpha")]);
        assert!(copy.moves.is_empty() && copy.ambiguous.is_empty());

        let two = detected(&[("A.md", "alpha")], &[("B.md", "alpha"), ("C.md", "alpha")]);
        assert!(two.moves.is_empty());
        assert_eq!(two.ambiguous[0].why, AmbiguousWhy::Copies);
        assert_eq!(two.ambiguous[0].candidates, vec!["B.md", "C.md"]);
    }

    #[test]
    fn a_move_plus_an_edit_is_not_detected_and_says_the_content_differs() {
        let found = detected(&[("A.md", "alpha")], &[("sub/A.md", "alpha, edited")]);
        assert!(found.moves.is_empty());
        assert_eq!(found.ambiguous[0].why, AmbiguousWhy::ContentDiffers);
        assert!(found.ambiguous[0].detail.starts_with("not detected, content differs"));
        // Without a note of its name, a vanished note is a delete, and not listed.
        assert!(detected(&[("A.md", "alpha")], &[("B.md", "beta")]).ambiguous.is_empty());
    }

    #[test]
    fn a_note_at_the_old_path_again_is_listed_not_healed() {
        let found = detected(&[("A.md", "alpha")], &[("A.md", "a new alpha"), ("sub/A.md", "alpha")]);
        assert!(found.moves.is_empty());
        assert_eq!(found.ambiguous[0].why, AmbiguousWhy::OldPathExistsAgain);
    }

    #[test]
    fn notes_of_the_same_bytes_moved_together_pair_by_name_or_are_listed() {
        let paired = detected(&[("a/x.md", ""), ("a/y.md", "")], &[("b/x.md", ""), ("b/y.md", "")]);
        assert_eq!(paired.pairs.len(), 2);
        let unsure = detected(&[("a/x.md", ""), ("b/x.md", "")], &[("c/x.md", ""), ("d/x.md", "")]);
        assert!(unsure.pairs.is_empty());
        assert!(unsure.ambiguous.iter().all(|found| found.why == AmbiguousWhy::SameContentVanished));
    }

    #[test]
    fn heal_moves_previews_then_rewrites_the_broken_links_and_moves_nothing() {
        let (vault, mut edge) = world(
            &[("notes/A.md", "alpha [t](T.md)"), ("T.md", "t"), ("archive/T.md", "another t"), ("B.md", "see [a](notes/A.md)")],
            &[("archive/A.md", "alpha [t](T.md)"), ("T.md", "t"), ("archive/T.md", "another t"), ("B.md", "see [a](notes/A.md)")],
        );
        let mut plans = PlanHistory::default();
        let preview = call(&vault, "heal_moves", &json!({}), &mut edge, &mut plans).unwrap();
        assert!(preview.change.is_none());
        let Response::Healed(answer) = &preview.answer else { panic!("heal_moves' answer") };
        assert!(answer.answer.dry_run && answer.answer.moves.is_empty());
        assert_eq!(answer.healed, vec![FileMove { from: "notes/A.md".to_owned(), to: "archive/A.md".to_owned() }]);
        assert_eq!(answer.answer.links_changed, 2);

        let approved = json!({"approved_plan_hash": answer.answer.plan_hash});
        let applied = call(&vault, "heal_moves", &approved, &mut edge, &mut plans).unwrap();
        let Some(Change::Batch { batch, .. }) = &applied.change else { panic!("a batch") };
        assert_eq!(batch.tool, "heal_moves");
        assert!(batch.moves.is_empty());
        let written: BTreeMap<&str, &str> = batch.writes.iter().map(|write| (write.path.as_str(), write.text.as_str())).collect();
        assert_eq!(written.get("B.md"), Some(&"see [a](A.md)"));
        // The moved note's link, which finds another note from its new folder, is written to
        // find its own again, as a move through vaultlink writes it.
        assert_eq!(written.get("archive/A.md"), Some(&"alpha [t](../T.md)"));
    }

    #[test]
    fn heal_moves_without_an_earlier_view_heals_nothing_and_says_none_was_observed() {
        let (vault, _) = crate::testing::vault_with(&[("A.md", "[[B]]")]);
        let mut edge = ReadBefore::default();
        let listed = call(&vault, "detected_moves", &json!({}), &mut edge, &mut PlanHistory::default()).unwrap();
        let Response::DetectedMoves(answer) = listed.answer else { panic!("detected_moves' answer") };
        assert!(!answer.observed && answer.total == 0);
        let mut plans = PlanHistory::default();
        let healed = call(&vault, "heal_moves", &json!({}), &mut edge, &mut plans).unwrap();
        let Response::Healed(answer) = healed.answer else { panic!("heal_moves' answer") };
        assert_eq!((answer.healed_total, answer.answer.links_changed), (0, 0));
        // Approved, it still changes nothing and keeps nothing for undo_change.
        let approved = json!({"approved_plan_hash": answer.answer.plan_hash});
        let again = call(&vault, "heal_moves", &approved, &mut edge, &mut plans).unwrap();
        let Response::Healed(answer) = again.answer else { panic!("heal_moves' answer") };
        assert!(again.change.is_none() && !answer.answer.applied);
    }

    #[test]
    fn detected_moves_pages_its_moves_then_the_cases_it_leaves() {
        let (vault, mut edge) =
            world(&[("A.md", "a"), ("B.md", "b"), ("C.md", "c")], &[("x/A.md", "a"), ("y/B.md", "b"), ("D.md", "c"), ("E.md", "c")]);
        let mut plans = PlanHistory::default();
        let first = call(&vault, "detected_moves", &json!({"limit": 2}), &mut edge, &mut plans).unwrap();
        let Response::DetectedMoves(first) = first.answer else { panic!("detected_moves' answer") };
        assert_eq!((first.moves.len(), first.ambiguous.len(), first.total), (2, 0, 3));
        let rest = call(&vault, "detected_moves", &json!({"limit": 2, "cursor": first.next_cursor}), &mut edge, &mut plans).unwrap();
        let Response::DetectedMoves(rest) = rest.answer else { panic!("detected_moves' answer") };
        assert_eq!((rest.moves.len(), rest.ambiguous.len(), rest.next_cursor), (0, 1, None));
    }
}
