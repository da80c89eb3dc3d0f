//! `fix_broken_links`: for every link in scope that finds no note (or finds its note but not the
//! `#heading` it names), the notes it may have meant, ranked with their evidence, and a plan that
//! repoints only the links whose best candidate is confident and clear of the next one.
//!
//! The evidence, strongest first: a move the edge saw (`Evidence::DetectedMove`; `Known::moves`,
//! which `change::fix_broken_links` fills from `moves_detected::detect` on what the edge observed),
//! the same name written in another form (case, Unicode form, `.md`, spaces, hyphens or
//! underscores), the same file name in another folder when only one note has it, an alias or a
//! title (the `title` property or the first H1) of one note, a heading of the target that reads
//! nearly as the link's (`#heading` parts), then names that read alike (Jaro-Winkler similarity,
//! `strsim`, scored only where `similar`'s bound lets it reach the candidate floor). Each candidate
//! has a confidence in 0–1; a link is repaired only when its best candidate reaches the floor
//! (`min_confidence_percent`, [`DEFAULT_FLOOR_PERCENT`]) and the next one is at least [`MARGIN`]
//! below it (a name found as written, by the first five kinds, is not made ambiguous by names that
//! only read alike). The others are listed with their candidates, never guessed.
//!
//! Never repaired: a link inside a template expression (`{{...}}`, `<% ... %>`), which Obsidian
//! shows as whatever the template computes; a link in code (the parser finds none there); a link
//! in a read-only source folder (`sources::leave_sources` takes it out of the plan and lists it).

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Serialize, Serializer};

use crate::canvas::parse_file;
use crate::index::{is_note_path, SubpathStatus, Vault};
use crate::link_form::path_written_to;
use crate::pages::{identity_key, names_of, page_key, Facet};
use crate::parse::{parse_note, Link, LinkSource};
use crate::plan::{apply_edits, assemble, escape_in_property, link_with_target, ChangeReason, LinkChange, MovePlan, TextEdit};
use crate::resolve::{self, file_name, fold, heading_key, Resolution};

mod similar;

/// The floor a candidate's confidence must reach to be repaired when the call names none: on
/// the damage fixture (`tests/repair_damage.rs`) no link is repaired to the wrong note at it.
pub const DEFAULT_FLOOR_PERCENT: u16 = 90;

/// How far (in thousandths) the best candidate must be ahead of the next for a repair: names
/// that read alike within it (`Session 12`, `Session 13`) are ambiguous, not guessed.
pub const MARGIN: u16 = 50;

/// The most candidates listed for a link that is not repaired.
pub const MAX_CANDIDATES: usize = 3;

/// The most links that are not repaired listed in one answer; the count says how many there are.
pub const MAX_UNREPAIRED_LISTED: usize = 50;

/// Why a candidate is one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Evidence {
    /// The edge saw the note the link named move to this path.
    DetectedMove,
    /// The same name in another form: case, Unicode form, `.md`, spaces, hyphens or underscores.
    NameForm,
    /// The only note with the link's file name, in another folder.
    UniqueName,
    /// One of the note's aliases is the link's name.
    Alias,
    /// The note's `title` property or first H1 is the link's name.
    Title,
    /// A heading of the target reads nearly as the link's `#heading`.
    HeadingRenamed,
    /// A name of the note reads nearly as the link's (Jaro-Winkler).
    Similar,
}

/// A confidence in thousandths, answered as a number in 0–1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Confidence(pub u16);

impl Serialize for Confidence {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_f64(f64::from(self.0) / 1000.0)
    }
}

fn confidence(similarity: f64) -> Confidence {
    Confidence((similarity.clamp(0.0, 1.0) * 1000.0).round() as u16)
}

/// A note a broken link may have meant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Candidate {
    /// The note's path.
    pub target: String,
    /// For a heading repair, the heading as the target has it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heading: Option<String>,
    pub evidence: Evidence,
    pub confidence: Confidence,
}

/// What the edge knows that the index does not: moves it saw (old path to new path), the
/// strongest evidence of all. Empty where the edge keeps none.
#[derive(Debug, Clone, Default)]
pub struct Known {
    pub moves: BTreeMap<String, String>,
}

/// Why a broken link is not repaired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Unrepaired {
    /// Two candidates are too close to choose between.
    Ambiguous,
    /// The best candidate is below the floor.
    LowConfidence,
    /// No note reads near enough to be a candidate.
    NoCandidate,
    /// The link is inside a template expression.
    TemplateExpression,
    /// The repaired link could not be written so that it reads back as planned.
    Unrepresentable,
}

/// A broken link left as it is, with its candidates.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LinkLeft {
    pub note: String,
    pub line: u32,
    pub link: String,
    pub reason: Unrepaired,
    pub candidates: Vec<Candidate>,
}

/// One link the plan repairs, with the candidate chosen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Repair {
    pub note: String,
    pub line: u32,
    pub before: String,
    pub after: String,
    pub target: String,
    pub evidence: Evidence,
    pub confidence: Confidence,
}

/// The repairs, planned and proven, and the links left: the first [`MAX_UNREPAIRED_LISTED`],
/// each with its candidates, and how many there are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepairPlan {
    pub plan: MovePlan,
    pub repairs: Vec<Repair>,
    pub left: Vec<LinkLeft>,
    pub left_count: usize,
}

/// Why a repair plan was refused: a repaired note would not read back as planned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotProven {
    pub note: String,
}

impl crate::error::Failure for NotProven {
    fn code(&self) -> crate::error::ErrorCode {
        crate::error::ErrorCode::UnrepresentableLink
    }

    fn message(&self) -> String {
        format!("the repaired links of `{}` would not read back as planned; nothing was changed", self.note)
    }

    fn hint(&self) -> &'static str {
        "Call again with `path` naming other notes, or repoint the links of this note one target at a time with rewrite_link."
    }
}

/// The notes in scope: every note, the notes under a folder, or one note.
fn in_scope<'v>(vault: &'v Vault, scope: Option<&str>) -> Vec<&'v str> {
    let scope = scope.map(|scope| scope.trim().trim_matches('/')).filter(|scope| !scope.is_empty());
    match scope {
        None => vault.note_paths().collect(),
        Some(scope) => match vault.find_note(scope) {
            Some(note) => vec![note],
            None => {
                let prefix = format!("{}/", fold(scope));
                vault.note_paths().filter(|path| fold(path).starts_with(&prefix)).collect()
            }
        },
    }
}

/// Whether the link is broken: it finds no file, or finds its note but not the heading it names.
fn broken(vault: &Vault, link: &Link, resolution: &Resolution) -> bool {
    match resolution {
        Resolution::Unresolved => !link.path.trim().is_empty(),
        Resolution::Resolved { .. } => vault.subpath_status(link, resolution) == SubpathStatus::MissingHeading,
        Resolution::Ambiguous { .. } => false,
    }
}

/// The notes `fix_broken_links` reads: those in scope holding a broken link, and the targets of
/// links whose heading is missing (their headings are read from their text).
pub fn notes_needed(vault: &Vault, scope: Option<&str>) -> Vec<String> {
    let mut needed: Vec<String> = Vec::new();
    let mut targets: HashSet<String> = HashSet::new();
    for note in in_scope(vault, scope) {
        let Some(links) = vault.outgoing_links(note) else { continue };
        let mut holds = false;
        for found in links.iter().filter(|found| broken(vault, &found.link, found.resolution)) {
            holds = true;
            if let Resolution::Resolved { path } = found.resolution {
                targets.insert(path.clone());
            }
        }
        if holds {
            needed.push(note.to_owned());
        }
    }
    let mut targets: Vec<String> = targets.into_iter().filter(|target| !needed.contains(target)).collect();
    targets.sort();
    needed.extend(targets);
    needed
}

/// The vault's names, looked up once per plan.
struct Names<'v> {
    /// `page_key` of each note's file name to its paths.
    by_form: HashMap<String, Vec<&'v str>>,
    /// `page_key` of each alias, `title` and first H1 to (path, facet).
    by_name: HashMap<String, Vec<(&'v str, Facet)>>,
    /// Every name of every note (identity key), indexed for similarity.
    similar: similar::Index<'v>,
    /// The moves the edge saw, by the old path's folded stem and by its folded file name.
    moves: HashMap<String, Vec<&'v str>>,
}

impl<'v> Names<'v> {
    fn new(vault: &'v Vault, known: &'v Known) -> Names<'v> {
        let mut names =
            Names { by_form: HashMap::new(), by_name: HashMap::new(), similar: similar::Index::default(), moves: HashMap::new() };
        let mut all: Vec<(String, &'v str)> = Vec::new();
        for note in vault.notes() {
            for (facet, name) in names_of(note.title(), note.aliases, note.facts) {
                if facet == Facet::FileName {
                    names.by_form.entry(page_key(name)).or_default().push(note.path);
                } else {
                    let list = names.by_name.entry(page_key(name)).or_default();
                    if !list.iter().any(|(path, _)| *path == note.path) {
                        list.push((note.path, facet));
                    }
                }
                all.push((identity_key(name), note.path));
            }
        }
        names.similar = similar::Index::new(all);
        for (old, new) in &known.moves {
            let old_stem = old.strip_suffix(".md").unwrap_or(old);
            let mut keys = vec![fold(old_stem), fold(link_name(old))];
            keys.dedup();
            for key in keys {
                names.moves.entry(key).or_default().push(new.as_str());
            }
        }
        names
    }
}

/// The name a broken link's path gives: its file name, without `.md`.
fn link_name(path: &str) -> &str {
    let name = file_name(path.trim().trim_end_matches('/'));
    if is_note_path(name) {
        &name[..name.len() - 3]
    } else {
        name
    }
}

/// The digits of a name, in order: names that differ only in them (`Session 12`, `Session 13`)
/// are different notes, not typos.
fn digits(name: &str) -> String {
    name.chars().filter(char::is_ascii_digit).collect()
}

/// The candidates for a link whose path finds no file, best first, one per note.
///
/// The look-alikes are those whose similarity reaches `least` (at least [`similar::FLOOR`]): a
/// plan decides with those that can change its decision ([`decisive`]), and lists a link left
/// with all of them.
fn path_candidates(vault: &Vault, names: &Names<'_>, link_path: &str, least: f64) -> Vec<Candidate> {
    let mut found: Vec<Candidate> = Vec::new();
    let add = |found: &mut Vec<Candidate>, target: &str, evidence: Evidence, similarity: f64| {
        found.push(Candidate { target: target.to_owned(), heading: None, evidence, confidence: confidence(similarity) })
    };
    let path = link_path.trim().trim_start_matches('/');
    let stem = path.strip_suffix(".md").unwrap_or(path);
    for new in names.moves.get(&fold(stem)).into_iter().flatten() {
        if vault.find_note(new).is_some() {
            add(&mut found, new, Evidence::DetectedMove, 1.0);
        }
    }
    let name = link_name(path);
    let key = page_key(name);
    if let Some(paths) = names.by_form.get(&key) {
        // The name as the file has it, but written otherwise or in a folder it is not in.
        let same_name: Vec<&&str> = paths.iter().filter(|found| fold(link_name(found)) == fold(name)).collect();
        for found_path in paths {
            let evidence = if same_name.contains(&found_path) { Evidence::UniqueName } else { Evidence::NameForm };
            add(&mut found, found_path, evidence, if evidence == Evidence::NameForm { 0.98 } else { 0.97 });
        }
    }
    if let Some(paths) = names.by_name.get(&key) {
        for (found_path, facet) in paths {
            let evidence = if *facet == Facet::Alias { Evidence::Alias } else { Evidence::Title };
            add(&mut found, found_path, evidence, 0.95);
        }
    }
    let wanted = identity_key(name);
    // A note found by stronger evidence keeps it: its own name reads alike, of course.
    let stronger: HashSet<String> = found.iter().map(|candidate| candidate.target.clone()).collect();
    // Only the best few are ever read (the choice looks at two, a link left lists three), and
    // names found as written come first: the search looks only for the look-alikes that can
    // still be among them, which on a vault of look-alike names is a few, not thousands.
    let keep = MAX_CANDIDATES.saturating_sub(stronger.len());
    if wanted.chars().count() >= 3 && keep > 0 {
        let mut best = similar::Best::new(keep, &wanted, &stronger, least);
        names.similar.search(&wanted, &mut best);
        for (confidence, path) in best.into_held() {
            found.push(Candidate { target: path.to_owned(), heading: None, evidence: Evidence::Similar, confidence });
        }
    }
    let mut best = best_first(found);
    best.truncate(MAX_CANDIDATES);
    best
}

/// Whether the candidate was found by its name as written (in another form or folder, as an
/// alias or title), not by a name that reads alike.
fn named(candidate: &Candidate) -> bool {
    candidate.evidence < Evidence::HeadingRenamed
}

/// One candidate per note (its strongest), best first: names found as written before names that
/// read alike, however alike.
fn best_first(mut found: Vec<Candidate>) -> Vec<Candidate> {
    found.sort_by(|a, b| {
        named(b).cmp(&named(a)).then(b.confidence.cmp(&a.confidence)).then(a.evidence.cmp(&b.evidence)).then(a.target.cmp(&b.target))
    });
    let mut seen: HashSet<(String, Option<String>)> = HashSet::new();
    found.retain(|candidate| seen.insert((candidate.target.clone(), candidate.heading.clone())));
    found
}

/// The candidates for a `#heading` the target does not have: its headings that read nearly as it.
fn heading_candidates(target: &str, text: &str, link: &Link) -> Vec<Candidate> {
    let Some(subpath) = link.subpath.as_deref() else { return Vec::new() };
    let subpath = subpath.trim_start_matches('#');
    // Only one heading (`#A`, not `#A#B`) and not a block.
    if subpath.contains('#') || subpath.starts_with('^') {
        return Vec::new();
    }
    let wanted = heading_key(subpath);
    let parsed = parse_note(target, text, &crate::parse::ParseConfig::OBSIDIAN);
    let found = parsed
        .headings
        .iter()
        .filter_map(|heading| {
            let similarity = strsim::jaro_winkler(&wanted, &heading_key(&heading.text));
            (similarity >= 0.7).then(|| Candidate {
                target: target.to_owned(),
                heading: Some(heading.text.clone()),
                evidence: Evidence::HeadingRenamed,
                confidence: confidence(similarity),
            })
        })
        .collect();
    best_first(found)
}

/// The byte ranges of a text's template expressions: `{{...}}` and `<% ... %>`.
fn template_ranges(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut ranges = Vec::new();
    for (open, close) in [("{{", "}}"), ("<%", "%>")] {
        let mut from = 0;
        while let Some(start) = text[from..].find(open).map(|at| from + at) {
            let Some(length) = text[start + open.len()..].find(close) else { break };
            let end = start + open.len() + length + close.len();
            ranges.push(start..end);
            from = end;
        }
    }
    ranges
}

/// A heading as a link's subpath writes it: the characters a link cannot hold become spaces.
fn heading_written(heading: &str) -> String {
    let cleaned: String =
        heading.chars().map(|c| if matches!(c, '#' | '|' | '^' | '[' | ']' | '%' | ':' | '\\') { ' ' } else { c }).collect();
    cleaned.split_whitespace().collect::<Vec<_>>().join(" ")
}

use crate::edge::RunParts;

/// A note in scope with its broken links, each with what it resolves to.
struct Broken<'t> {
    source: &'t str,
    text: &'t str,
    templates: Vec<std::ops::Range<usize>>,
    links: Vec<(Link, Resolution)>,
}

/// The notes in scope holding broken links (read from `texts`), in the scope's order.
fn broken_links<'t>(vault: &'t Vault, scope: Option<&str>, texts: &'t BTreeMap<String, String>) -> Vec<Broken<'t>> {
    let config = vault.config().parse;
    let mut found = Vec::new();
    for source in in_scope(vault, scope) {
        let Some(text) = texts.get(source) else { continue };
        let links: Vec<(Link, Resolution)> = parse_file(source, text, &config)
            .links
            .into_iter()
            .filter(|link| !link.source.is_canvas())
            .filter_map(|link| {
                let resolution = resolve::resolve(vault, source, &link);
                broken(vault, &link, &resolution).then_some((link, resolution))
            })
            .collect();
        if !links.is_empty() {
            found.push(Broken { source, text, templates: template_ranges(text), links });
        }
    }
    found
}

/// The paths of the broken links that find no file and are not in a template expression, each
/// once, in the order they are first met: the look-alike searches a plan needs.
fn missing_paths<'f>(found: &'f [Broken<'_>]) -> Vec<&'f str> {
    let mut seen: HashSet<&str> = HashSet::new();
    let mut missing = Vec::new();
    for note in found {
        for (link, resolution) in &note.links {
            let in_template = note.templates.iter().any(|range| range.contains(&link.span.start));
            if matches!(resolution, Resolution::Unresolved) && !in_template && seen.insert(link.path.as_str()) {
                missing.push(link.path.as_str());
            }
        }
    }
    missing
}

/// The candidates of each missing path, each searched as one part (`path_candidates`, pure) run
/// by the edge's `run_parts`: slot `i` holds the candidates of `missing[i]` once its part ran.
fn search_parts(
    vault: &Vault,
    names: &Names<'_>,
    missing: &[&str],
    least: f64,
    run_parts: &RunParts<'_>,
) -> Vec<std::sync::OnceLock<Vec<Candidate>>> {
    let slots: Vec<std::sync::OnceLock<Vec<Candidate>>> = missing.iter().map(|_| std::sync::OnceLock::new()).collect();
    let part = |at: usize| {
        if let (Some(path), Some(slot)) = (missing.get(at), slots.get(at)) {
            slot.get_or_init(|| path_candidates(vault, names, path, least));
        }
    };
    run_parts(missing.len(), &part);
    slots
}

/// The parts' results by missing path. A part the edge did not run is searched here, so the
/// candidates are the same whatever the edge ran, and in whatever order.
fn merge<'m>(
    vault: &Vault,
    names: &Names<'_>,
    missing: &[&'m str],
    least: f64,
    slots: Vec<std::sync::OnceLock<Vec<Candidate>>>,
) -> HashMap<&'m str, Vec<Candidate>> {
    missing
        .iter()
        .zip(slots)
        .map(|(path, slot)| (*path, slot.into_inner().unwrap_or_else(|| path_candidates(vault, names, path, least))))
        .collect()
}

/// Plans the repairs of the broken links of the notes in `scope`, from their `texts`: each link
/// whose best candidate reaches `floor` (thousandths) and stands clear of the next is repointed,
/// its target written as a move writes one; the plan is proven as a rewrite's is.
pub fn plan(
    vault: &Vault,
    scope: Option<&str>,
    floor: u16,
    known: &Known,
    texts: &BTreeMap<String, String>,
    run_parts: &RunParts<'_>,
) -> Result<RepairPlan, NotProven> {
    let names = Names::new(vault, known);
    let found = broken_links(vault, scope, texts);
    // The candidates of a missing path depend on it alone: many broken links share one, and each
    // is searched once, as a part the edge may run beside the others.
    let missing = missing_paths(&found);
    let least = decisive(floor);
    let by_path = merge(vault, &names, &missing, least, search_parts(vault, &names, &missing, least, run_parts));
    let mut edits: BTreeMap<String, Vec<(TextEdit, LinkChange)>> = BTreeMap::new();
    let mut repairs: Vec<Repair> = Vec::new();
    // Each link left, with the missing path whose look-alikes it lists (`None` for the others).
    let mut left: Vec<(LinkLeft, Option<&str>)> = Vec::new();
    // What each repaired link must find once written: (note, start) to (path, heading).
    let mut expected: HashMap<(String, usize), (String, Option<String>)> = HashMap::new();
    for note in &found {
        let (source, text, templates) = (note.source, note.text, &note.templates);
        for (link, resolution) in &note.links {
            let written_link = text[link.span.range()].to_owned();
            let searched = matches!(resolution, Resolution::Unresolved).then_some(link.path.as_str());
            let leave = |reason: Unrepaired, candidates: Vec<Candidate>| {
                let candidates = candidates.into_iter().take(MAX_CANDIDATES).collect();
                (LinkLeft { note: source.to_owned(), line: link.line, link: written_link.clone(), reason, candidates }, searched)
            };
            if templates.iter().any(|range| range.contains(&link.span.start)) {
                left.push((leave(Unrepaired::TemplateExpression, Vec::new()).0, None));
                continue;
            }
            let candidates = match &resolution {
                Resolution::Resolved { path } => match texts.get(path) {
                    Some(target_text) => heading_candidates(path, target_text, link),
                    None => Vec::new(),
                },
                _ => by_path.get(link.path.as_str()).cloned().unwrap_or_default(),
            };
            let Some(best) = candidates.first() else {
                left.push(leave(Unrepaired::NoCandidate, Vec::new()));
                continue;
            };
            if best.confidence.0 < floor {
                left.push(leave(Unrepaired::LowConfidence, candidates));
                continue;
            }
            // A name found as it is written (in another form or folder, as an alias or title)
            // is not made ambiguous by names that only read alike.
            let close = |next: &Candidate| next.confidence.0 + MARGIN > best.confidence.0 && (named(next) || !named(best));
            if candidates.get(1).is_some_and(close) {
                left.push(leave(Unrepaired::Ambiguous, candidates));
                continue;
            }
            let best = best.clone();
            let written = &text[link.target_span.range()];
            let replacement = match &best.heading {
                Some(heading) => {
                    let path_part = written.find('#').map_or(written, |hash| &written[..hash]);
                    let heading = heading_written(heading);
                    // A markdown destination holds a heading percent-encoded; one that needs more
                    // than its spaces encoded is left for a person.
                    if link.kind.is_markdown() && !heading.chars().all(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '.')) {
                        left.push(leave(Unrepaired::Unrepresentable, candidates));
                        continue;
                    }
                    let heading = if link.kind.is_markdown() { heading.replace(' ', "%20") } else { heading };
                    format!("{path_part}#{heading}")
                }
                None => {
                    let subpath_written = written.find('#').map_or("", |hash| &written[hash..]);
                    let Some(path) = path_written_to(vault, source, text, link, &best.target) else {
                        left.push(leave(Unrepaired::Unrepresentable, candidates));
                        continue;
                    };
                    format!("{path}{subpath_written}")
                }
            };
            let Some(replacement) = escape_in_property(link, &replacement).map(|cow| cow.into_owned()) else {
                left.push(leave(Unrepaired::Unrepresentable, candidates));
                continue;
            };
            let forbidden: &[char] = if link.kind.is_markdown() { &['<', '>', '\n', '\r'] } else { &['|', '[', ']', '\n', '\r'] };
            if replacement.contains(forbidden) {
                left.push(leave(Unrepaired::Unrepresentable, candidates));
                continue;
            }
            let after = link_with_target(text, link, &replacement);
            expected.insert((source.to_owned(), link.target_span.start), (best.target.clone(), best.heading.clone()));
            repairs.push(Repair {
                note: source.to_owned(),
                line: link.line,
                before: written_link.clone(),
                after: after.clone(),
                target: best.target.clone(),
                evidence: best.evidence,
                confidence: best.confidence,
            });
            edits.entry(source.to_owned()).or_default().push((
                TextEdit { span: link.target_span, replacement },
                LinkChange { note: source.to_owned(), line: link.line, before: written_link, after, reason: ChangeReason::Repointed },
            ));
        }
    }
    let mut files = Vec::with_capacity(edits.len());
    for (path, mut list) in edits {
        list.sort_by_key(|(edit, _)| edit.span.start);
        let text = texts[&path].as_str();
        let (edits, changes): (Vec<TextEdit>, Vec<LinkChange>) = list.into_iter().unzip();
        // Each note is proven alone: one that would not read back as planned keeps its links
        // as they are, listed, and the other notes are still repaired.
        let alone = assemble(&[], (1, changes.len()), [(path.clone(), text, edits.clone(), changes.clone())], Vec::new());
        if prove(vault, &alone, texts, &expected).is_err() {
            repairs.retain(|repair| repair.note != path);
            left.extend(changes.iter().map(|change| {
                let link = change.before.clone();
                (
                    LinkLeft { note: path.clone(), line: change.line, link, reason: Unrepaired::Unrepresentable, candidates: Vec::new() },
                    None,
                )
            }));
            continue;
        }
        files.push((path, text, edits, changes));
    }
    let sizes = (files.len(), files.iter().map(|file| file.3.len()).sum());
    let plan = assemble(&[], sizes, files, Vec::new());
    prove(vault, &plan, texts, &expected)?;
    let left_count = left.len();
    Ok(RepairPlan { plan, repairs, left: listed(vault, &names, left), left_count })
}

/// The least similarity a look-alike needs to change a plan's decision at `floor` (thousandths):
/// a link is repaired when its best candidate reaches the floor and the next is [`MARGIN`] below
/// it, so a look-alike below `floor - MARGIN` can neither be chosen nor make the best ambiguous;
/// a name found as written is never made ambiguous by a look-alike at all. Searching for these
/// alone lets the search pass over far more names than a search for every candidate.
fn decisive(floor: u16) -> f64 {
    similar::FLOOR.max((f64::from(floor.saturating_sub(MARGIN)) - 0.5) / 1000.0)
}

/// The links left that an answer lists, each with every candidate: the look-alikes below what
/// the decision needed ([`decisive`]) are searched for these alone. A link that had none that
/// could decide, but has one at all, is left for its low confidence, as a search for every
/// candidate would have said at once; the other reasons do not depend on them.
fn listed(vault: &Vault, names: &Names<'_>, left: Vec<(LinkLeft, Option<&str>)>) -> Vec<LinkLeft> {
    let mut every: HashMap<&str, Vec<Candidate>> = HashMap::new();
    left.into_iter()
        .take(MAX_UNREPAIRED_LISTED)
        .map(|(mut link, searched)| {
            if let Some(path) = searched {
                let candidates = every.entry(path).or_insert_with(|| path_candidates(vault, names, path, similar::FLOOR));
                link.candidates = candidates.iter().take(MAX_CANDIDATES).cloned().collect();
                if link.reason == Unrepaired::NoCandidate && !link.candidates.is_empty() {
                    link.reason = Unrepaired::LowConfidence;
                }
            }
            link
        })
        .collect()
}

/// The proof: each repaired note parses to as many links, each repaired one finding the note
/// (and heading) chosen, every other one as it was.
fn prove(
    vault: &Vault,
    plan: &MovePlan,
    texts: &BTreeMap<String, String>,
    expected: &HashMap<(String, usize), (String, Option<String>)>,
) -> Result<(), NotProven> {
    let config = vault.config().parse;
    for file in &plan.edits {
        let text = &texts[&file.path];
        let before = parse_file(&file.path, text, &config).links;
        let now = parse_file(&file.path, &apply_edits(text, &file.edits), &config).links;
        let fails = now.len() != before.len()
            || before.iter().zip(&now).any(|(old, new)| {
                let same_shape = old.kind == new.kind && old.display == new.display && same_source(&old.source, &new.source);
                let target_ok = match expected.get(&(file.path.clone(), old.target_span.start)) {
                    Some((path, heading)) => {
                        let resolution = resolve::resolve(vault, &file.path, new);
                        let finds = resolution.path() == Some(path.as_str());
                        let heading_ok = match heading {
                            Some(heading) => {
                                new.subpath.as_deref().map(|subpath| heading_key(subpath.trim_start_matches('#')))
                                    == Some(heading_key(heading))
                            }
                            None => new.subpath == old.subpath,
                        };
                        finds && heading_ok
                    }
                    None => new.target == old.target && new.subpath == old.subpath,
                };
                !same_shape || !target_ok
            });
        if fails {
            return Err(NotProven { note: file.path.clone() });
        }
    }
    Ok(())
}

fn same_source(old: &LinkSource, new: &LinkSource) -> bool {
    old == new
}

/// What `fix_broken_links` answers, the same on every path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RepairAnswer {
    /// True when nothing was written: the answer previews the plan.
    pub dry_run: bool,
    /// True when the plan was applied.
    pub applied: bool,
    /// Pass this as `approved_plan_hash` to apply exactly this plan.
    pub plan_hash: String,
    /// How many notes have links repaired.
    pub notes_edited: usize,
    /// How many links are repaired, on every page.
    pub links_repaired: usize,
    /// The repaired links on this page, each with its evidence; left out with `concise` once
    /// applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repairs: Option<Vec<Repair>>,
    /// The broken links left as they are (the first [`MAX_UNREPAIRED_LISTED`], on the first page),
    /// each with why and its candidates.
    pub unrepaired: Vec<LinkLeft>,
    /// How many broken links are left, on every page.
    pub unrepaired_count: usize,
    /// The floor a repair's confidence had to reach.
    pub min_confidence: Confidence,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Once applied: the id `undo_change` takes to undo it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change_id: Option<String>,
    /// Links in read-only sources (`source_folders` of a SCHEMA.md) left as they are.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links_left_in_sources: Vec<crate::sources::LinkLeft>,
}

impl RepairAnswer {
    /// One page of the repairs (`answer::page`, the cursor bound to the plan); the links left are
    /// on the first page.
    pub fn paged(
        repair: &RepairPlan,
        floor: u16,
        detailed: bool,
        limit: Option<usize>,
        cursor: Option<&str>,
    ) -> Result<RepairAnswer, crate::answer::OpError> {
        let scope = format!("fix_broken_links\0{}", repair.plan.plan_hash);
        let (page, _, next_cursor) = crate::answer::page(repair.repairs.iter().collect(), limit, cursor, &scope)?;
        let first = cursor.is_none();
        Ok(RepairAnswer {
            dry_run: true,
            applied: false,
            plan_hash: repair.plan.plan_hash.clone(),
            notes_edited: repair.plan.edits.len(),
            links_repaired: repair.repairs.len(),
            repairs: detailed.then(|| page.into_iter().cloned().collect()),
            unrepaired: if first { repair.left.iter().take(MAX_UNREPAIRED_LISTED).cloned().collect() } else { Vec::new() },
            unrepaired_count: repair.left_count,
            min_confidence: Confidence(floor),
            next_cursor,
            change_id: None,
            links_left_in_sources: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::approval::PlanHistory;
    use crate::edge::{Change, ReadBefore};
    use crate::ops::{call, Response};
    use crate::testing::vault_with;
    use serde_json::{json, Value};

    /// The preview of `fix_broken_links` over `files` with `arguments`, as JSON, and the texts
    /// once it is applied.
    fn fix(files: &[(&str, &str)], arguments: Value) -> (Value, std::collections::BTreeMap<String, String>) {
        let (vault, texts) = vault_with(files);
        let mut edge = ReadBefore { tag: 1, texts: texts.clone(), ..ReadBefore::default() };
        let mut plans = PlanHistory::default();
        let preview = call(&vault, "fix_broken_links", &arguments, &mut edge, &mut plans).unwrap_or_else(|error| panic!("{error}"));
        let Response::Repaired(answer) = &preview.answer else { panic!("a repair's answer") };
        assert!(answer.dry_run && preview.change.is_none(), "a preview by default");
        let answer = serde_json::to_value(answer).expect("JSON");
        let mut approved = arguments.clone();
        approved["approved_plan_hash"] = answer["plan_hash"].clone();
        let applied = call(&vault, "fix_broken_links", &approved, &mut edge, &mut plans).unwrap_or_else(|error| panic!("{error}"));
        let mut after = texts;
        if let Some(Change::Batch { batch, .. }) = applied.change {
            for write in batch.writes {
                after.insert(write.path, write.text);
            }
        }
        (answer, after)
    }

    fn repaired(answer: &Value) -> Vec<(String, String, String)> {
        answer["repairs"]
            .as_array()
            .expect("repairs")
            .iter()
            .map(|repair| {
                let text = |key: &str| repair[key].as_str().expect(key).to_owned();
                (text("before"), text("after"), text("evidence"))
            })
            .collect()
    }

    fn owned(items: &[(&str, &str, &str)]) -> Vec<(String, String, String)> {
        items.iter().map(|(a, b, c)| ((*a).to_owned(), (*b).to_owned(), (*c).to_owned())).collect()
    }

    #[test]
    fn each_kind_of_evidence_repairs_its_link() {
        let files = [
            ("Notes.md", "[[my-note]] [[Old/Place/Topic]] [[Lovelace]] [[Kickoff]] [[Opportunity atack]] [[Guide#Instalation]]\n"),
            ("My Note.md", "x\n"),
            ("New/Topic.md", "x\n"),
            ("People/Ada Lovelace.md", "---\naliases: [Lovelace]\n---\nx\n"),
            ("2024-01-01.md", "# Kickoff\n"),
            ("Opportunity attack.md", "x\n"),
            ("Guide.md", "# Guide\n## Installation\n## Usage\n"),
        ];
        let (answer, after) = fix(&files, json!({}));
        assert_eq!(
            repaired(&answer),
            owned(&[
                ("[[my-note]]", "[[My Note]]", "name_form"),
                ("[[Old/Place/Topic]]", "[[Topic]]", "unique_name"),
                ("[[Lovelace]]", "[[Ada Lovelace]]", "alias"),
                ("[[Kickoff]]", "[[2024-01-01]]", "title"),
                ("[[Opportunity atack]]", "[[Opportunity attack]]", "similar"),
                ("[[Guide#Instalation]]", "[[Guide#Installation]]", "heading_renamed"),
            ])
        );
        assert_eq!(answer["unrepaired_count"], json!(0), "{answer}");
        assert_eq!(
            after["Notes.md"],
            "[[My Note]] [[Topic]] [[Ada Lovelace]] [[2024-01-01]] [[Opportunity attack]] [[Guide#Installation]]\n"
        );
        let confidence = answer["repairs"][4]["confidence"].as_f64().expect("a number");
        assert!(confidence > 0.9 && confidence < 1.0, "{confidence}");
    }

    #[test]
    fn a_markdown_link_and_a_property_link_are_repaired_in_their_own_form() {
        let files = [
            ("a/Notes.md", "---\nsee: \"[[Opportunity atack]]\"\n---\n[x](../Opportunity%20atack.md) [y](../Guide.md#Instalation)\n"),
            ("Opportunity attack.md", "x\n"),
            ("Guide.md", "## Installation\n"),
        ];
        let (_, after) = fix(&files, json!({}));
        assert_eq!(
            after["a/Notes.md"],
            "---\nsee: \"[[Opportunity attack]]\"\n---\n[x](Opportunity%20attack.md) [y](../Guide.md#Installation)\n"
        );
    }

    #[test]
    fn ambiguous_and_unlike_names_are_listed_with_their_candidates_never_guessed() {
        let files = [
            ("Notes.md", "[[Gone/Topic]] [[Cat]] [[Zebra crossing]] [[Sesion 12]]\n"),
            ("A/Topic.md", "x\n"),
            ("B/Topic.md", "x\n"),
            ("Car.md", "x\n"),
            ("Session 12.md", "x\n"),
            ("Session 13.md", "x\n"),
        ];
        let (answer, after) = fix(&files, json!({}));
        assert_eq!(repaired(&answer), owned(&[("[[Sesion 12]]", "[[Session 12]]", "similar")]), "{answer}");
        let left: Vec<(&str, &str, usize)> = answer["unrepaired"]
            .as_array()
            .expect("a list")
            .iter()
            .map(|link| (link["link"].as_str().unwrap(), link["reason"].as_str().unwrap(), link["candidates"].as_array().unwrap().len()))
            .collect();
        assert_eq!(left, [("[[Gone/Topic]]", "ambiguous", 2), ("[[Cat]]", "low_confidence", 1), ("[[Zebra crossing]]", "no_candidate", 0)]);
        assert_eq!(after["Notes.md"], "[[Gone/Topic]] [[Cat]] [[Zebra crossing]] [[Session 12]]\n");
        // A lower floor lets the look-alike through.
        let (answer, _) = fix(&files, json!({"min_confidence_percent": 80}));
        assert!(repaired(&answer).iter().any(|(before, after, _)| before == "[[Cat]]" && after == "[[Car]]"), "{answer}");
    }

    #[test]
    fn no_link_in_code_a_template_or_a_source_folder_is_repaired() {
        let schema = "---\nsource_folders: [raw]\n---\n";
        let note = "`[[Opportunity atack]]`\n```\n[[Opportunity atack]]\n```\n<% tp.file.include(\"[[Opportunity atack]]\") %> {{[[Opportunity atack]]}}\n[[Opportunity atack]]\n";
        let files =
            [("SCHEMA.md", schema), ("raw/Clip.md", "[[Opportunity atack]]\n"), ("Notes.md", note), ("Opportunity attack.md", "x\n")];
        let (answer, after) = fix(&files, json!({}));
        assert_eq!(repaired(&answer), owned(&[("[[Opportunity atack]]", "[[Opportunity attack]]", "similar")]));
        let fixed = format!("{}[[Opportunity attack]]\n", &note[..note.len() - "[[Opportunity atack]]\n".len()]);
        assert_eq!(after["Notes.md"], fixed);
        assert_eq!(after["raw/Clip.md"], "[[Opportunity atack]]\n");
        assert_eq!(answer["links_left_in_sources"][0]["note"], json!("raw/Clip.md"));
        let reasons: Vec<&str> = answer["unrepaired"].as_array().unwrap().iter().map(|link| link["reason"].as_str().unwrap()).collect();
        assert_eq!(reasons, ["template_expression", "template_expression"]);
    }

    #[test]
    fn a_name_found_as_written_is_not_made_ambiguous_by_look_alikes() {
        let files = [("Notes.md", "[[Archive/Wall of Stone]]\n"), ("Spells/Wall of Stone.md", "x\n"), ("Spells/Wall of Stones.md", "x\n")];
        let (answer, _) = fix(&files, json!({}));
        assert_eq!(repaired(&answer), owned(&[("[[Archive/Wall of Stone]]", "[[Wall of Stone]]", "unique_name")]), "{answer}");
    }

    #[test]
    fn a_heading_a_markdown_link_cannot_hold_plainly_is_listed_not_written() {
        let files = [("Notes.md", "[y](Guide.md#Instalation%20(v2))\n"), ("Guide.md", "## Installation (v2)\n")];
        let (answer, after) = fix(&files, json!({}));
        assert_eq!(answer["links_repaired"], json!(0), "{answer}");
        assert_eq!(answer["unrepaired"][0]["reason"], json!("unrepresentable"), "{answer}");
        assert_eq!(answer["unrepaired"][0]["candidates"][0]["heading"], json!("Installation (v2)"), "{answer}");
        assert_eq!(after["Notes.md"], files[0].1);
    }

    #[test]
    fn a_move_the_edge_saw_repairs_the_link_it_broke_before_any_name() {
        use crate::moves_detected::Observed;
        let seen =
            |path: &str, text: &str| crate::seen::SeenNote { path: path.to_owned(), size: text.len() as u64, hash: 7 + text.len() as u128 };
        let now = [("Notes.md", "[[notes/Plan]]\n"), ("archive/Old plan draft.md", "the plan\n"), ("Plans.md", "x\n")];
        let before = [seen("Notes.md", now[0].1), seen("notes/Plan.md", now[1].1), seen("Plans.md", now[2].1)];
        let after: Vec<_> = now.iter().map(|(path, text)| seen(path, text)).collect();
        let (vault, texts) = vault_with(&now);
        let mut edge = ReadBefore { tag: 1, texts, observed: Some(Observed::between(&before, &after)), ..ReadBefore::default() };
        let preview = call(&vault, "fix_broken_links", &json!({}), &mut edge, &mut PlanHistory::default()).unwrap();
        let Response::Repaired(answer) = preview.answer else { panic!("a repair's answer") };
        let answer = serde_json::to_value(answer).unwrap();
        assert_eq!(repaired(&answer), owned(&[("[[notes/Plan]]", "[[Old plan draft]]", "detected_move")]), "{answer}");
        assert_eq!(answer["repairs"][0]["confidence"], json!(1.0));
        // Without the move, the look-alike `Plans` would have been taken.
        let (answer, _) = fix(&now, json!({}));
        assert_eq!(repaired(&answer), owned(&[("[[notes/Plan]]", "[[Plans]]", "similar")]), "{answer}");
    }

    #[test]
    fn the_plan_is_the_same_whatever_order_the_edge_runs_the_searches_in() {
        use std::cell::RefCell;
        let mut files: Vec<(String, String)> = vec![
            ("Opportunity attack.md".to_owned(), "x\n".to_owned()),
            ("Session 12.md".to_owned(), "x\n".to_owned()),
            ("Session 13.md".to_owned(), "x\n".to_owned()),
            ("Car.md".to_owned(), "x\n".to_owned()),
        ];
        for at in 0..40 {
            files.push((format!("Note {at}.md"), "x\n".to_owned()));
            let links = ["[[Opportunity atack]]", "[[Sesion 12]]", "[[Cat]]", "[[Zebra crossing]]", "[[Nte 7]]", "{{[[Cat]]}}"];
            let text: String = links.iter().cycle().skip(at).take(3).map(|link| format!("{link} [[Missing {at}]]\n")).collect();
            files.push((format!("notes/From {at}.md"), text));
        }
        let files: Vec<(&str, &str)> = files.iter().map(|(path, text)| (path.as_str(), text.as_str())).collect();
        let (vault, texts) = vault_with(&files);
        let plan = |run: &super::RunParts<'_>| super::plan(&vault, None, 900, &super::Known::default(), &texts, run).expect("proven");
        let counted = RefCell::new(0);
        let in_order = plan(&|count, part| {
            *counted.borrow_mut() = count;
            (0..count).for_each(part)
        });
        assert!(*counted.borrow() > 40, "each missing path is one part: {}", counted.borrow());
        assert!(!in_order.repairs.is_empty() && !in_order.left.is_empty(), "{in_order:?}");
        // Backwards, every other one first, or none at all (core searches what the edge left).
        assert_eq!(plan(&|count, part| (0..count).rev().for_each(part)), in_order);
        assert_eq!(plan(&|count, part| (0..count).step_by(2).chain((1..count).step_by(2)).for_each(part)), in_order);
        assert_eq!(plan(&|_, _| {}), in_order);
    }

    #[test]
    fn the_scope_is_a_note_or_a_folder() {
        let files = [("a/One.md", "[[Opportunity atack]]\n"), ("b/Two.md", "[[Opportunity atack]]\n"), ("Opportunity attack.md", "x\n")];
        for (scope, note) in [("a", "a/One.md"), ("b/Two", "b/Two.md")] {
            let (answer, _) = fix(&files, json!({"path": scope}));
            let notes: Vec<&str> = answer["repairs"].as_array().unwrap().iter().map(|repair| repair["note"].as_str().unwrap()).collect();
            assert_eq!(notes, [note], "{scope}");
        }
        let (vault, texts) = vault_with(&files);
        let mut edge = ReadBefore { tag: 1, texts, ..ReadBefore::default() };
        let error = call(&vault, "fix_broken_links", &json!({"path": "nowhere"}), &mut edge, &mut PlanHistory::default()).unwrap_err();
        assert_eq!(error.code, crate::error::ErrorCode::NoteNotFound);
    }
}
