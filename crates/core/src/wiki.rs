//! `commit_wiki_page`: a new wiki page and the additive patches that link it from other notes,
//! planned and proven as one change, all or nothing.
//!
//! The page's text is its body with the frontmatter written by `update_properties`' writer (a
//! link value quoted, as Obsidian reads a property link). Before anything is offered, the page
//! and the patched notes are put into a copy of the index as they will be, and every rule is
//! checked there: each link of the page, and each link a patch adds, resolves (or is listed in
//! `allow_unresolved`); the page meets the `SCHEMA.md` that governs it (its type, required
//! properties, vocabulary and folder) and, where the vault has a `SCHEMA.md`, lies in a folder one
//! governs; its path is new, linkable and in a folder Obsidian indexes; each patched note still
//! has the hash the caller read (`prev_hashes`). Every rule broken is named in one refusal.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;

use crate::answer::ResponseFormat;
use crate::error::{ErrorCode, Failure};
use crate::index::{is_note_path, Vault};
use crate::parse::Link;
use crate::plan::{content_hash, FileCreate, FileEdit, MovePlan, TextEdit};
use crate::resolve::{self, fold, Resolution};
use crate::source_hashes::SOURCES_PROPERTY;
use crate::span::Span;
use crate::wiki_request::{CommitArguments, PageInput, PageMode, Patch, PatchKind};

/// The heading a `link` patch goes under when it names none.
pub const SEE_ALSO: &str = "See also";

/// What one patch does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PatchReceipt {
    pub path: String,
    pub kind: PatchKind,
    /// The line added (for `link`, the bullet), or left out when the note already links the page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub added: Option<String>,
    /// True when a `link` patch finds the note already linking the page: nothing is added.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub already_linked: bool,
}

/// What `commit_wiki_page` answers: a short receipt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommitAnswer {
    pub dry_run: bool,
    pub applied: bool,
    pub plan_hash: String,
    /// The page's path, as it is created.
    pub path: String,
    /// The page's content hash once written.
    pub content_hash: String,
    pub patches: Vec<PatchReceipt>,
    /// Links left unresolved because `allow_unresolved` lists them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unresolved_allowed: Vec<String>,
    /// What is worth fixing but did not block the write, each with a code and the note it
    /// concerns: `no_inbound_link`, `possible_duplicate`, `missing_link`, `patch_without_link`,
    /// `unresolved_in_page`. The same in the preview and the receipt.
    pub problems: Vec<crate::page_checks::PageProblem>,
    /// The sources the page cites in its `sources` property: what it ingests.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ingested: Vec<Ingested>,
    /// The page's whole text; only in a `detailed` preview.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Once applied: the id `undo_change` takes to undo it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change_id: Option<String>,
}

/// Why the page is refused: every rule it breaks. Nothing is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRefused {
    pub path: String,
    pub problems: Vec<String>,
    /// True when the only problems are notes changed since they were read (retryable).
    pub stale_only: bool,
}

impl Failure for PageRefused {
    fn code(&self) -> ErrorCode {
        ErrorCode::PageRefused
    }

    fn message(&self) -> String {
        format!("the page `{}` is refused, nothing was changed: {}", self.path, self.problems.join("; "))
    }

    fn hint(&self) -> &'static str {
        if self.stale_only {
            "Read the notes named again (their hashes changed), then commit with the new `prev_hashes`."
        } else {
            "Fix each problem named (create the linked notes first or list them in `allow_unresolved`, fill the required \
properties, choose another path), then commit again."
        }
    }

    fn retryable(&self) -> bool {
        self.stale_only
    }
}

/// Why a commit is refused: a rule of the page broken, or a page the vault has already.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    Page(PageRefused),
    Duplicate(crate::page_checks::DuplicatePage),
}

impl Failure for Refusal {
    fn code(&self) -> ErrorCode {
        match self {
            Refusal::Page(refused) => refused.code(),
            Refusal::Duplicate(duplicate) => duplicate.code(),
        }
    }

    fn message(&self) -> String {
        match self {
            Refusal::Page(refused) => refused.message(),
            Refusal::Duplicate(duplicate) => duplicate.message(),
        }
    }

    fn hint(&self) -> &'static str {
        match self {
            Refusal::Page(refused) => refused.hint(),
            Refusal::Duplicate(duplicate) => duplicate.hint(),
        }
    }

    fn retryable(&self) -> bool {
        match self {
            Refusal::Page(refused) => refused.retryable(),
            Refusal::Duplicate(duplicate) => duplicate.retryable(),
        }
    }
}

/// The page's path as it will be created: trimmed, without a leading `/`, with `.md`.
pub fn page_path(asked: &str) -> String {
    let path = asked.trim().trim_start_matches('/').to_owned();
    if is_note_path(&path) {
        path
    } else {
        format!("{path}.md")
    }
}

/// The characters a heading cannot hold: those Markdown (`\n`, `\r`) or YAML (NEL, LINE
/// SEPARATOR, PARAGRAPH SEPARATOR) reads as a line break. A heading is one line; one holding a
/// break would write a line of its own after it (a new H1, a property) into the patched note.
const LINE_BREAKS: [char; 5] = ['\n', '\r', '\u{85}', '\u{2028}', '\u{2029}'];

/// Why the arguments cannot make a commit before any note is read, as a sentence: a patch's
/// `heading` that holds a line break.
pub fn arguments_problem(arguments: &CommitArguments) -> Option<String> {
    arguments.patches.iter().enumerate().find_map(|(at, patch)| {
        let line_break = patch.heading.as_deref()?.chars().find(|c| LINE_BREAKS.contains(c))?;
        Some(format!(
            "`patches[{at}].heading` holds a line break (U+{:04X}); a heading is one line: give its text alone, without `#`, \
and put other lines in an `append` patch's `text`",
            line_break as u32
        ))
    })
}

/// The notes a commit reads: those it patches, those `prev_hashes` names, and the sources its
/// `sources` property cites (for the content hash the answer reports as ingested).
pub fn notes_needed(vault: &Vault, arguments: &CommitArguments) -> Vec<String> {
    let named = arguments.patches.iter().map(|patch| patch.path.as_str()).chain(arguments.prev_hashes.keys().map(String::as_str));
    let mut found: Vec<String> = named.filter_map(|path| vault.find_note(path)).map(str::to_owned).collect();
    found.extend(cited_sources(vault, &page_path(&arguments.page.path), &arguments.page));
    if arguments.page.mode == PageMode::Overwrite {
        found.extend(vault.find_note(&page_path(&arguments.page.path)).map(str::to_owned));
    }
    found.sort();
    found.dedup();
    found
}

/// A source the page cites in its `sources` property: what was ingested.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Ingested {
    pub path: String,
    /// The source's content hash as it was read for this commit.
    pub content_hash: String,
    /// Its title: the `title` property, else its first H1, else its file name.
    pub title: String,
    /// The pages citing it in their `sources`, this one included.
    pub cited_by: Vec<String>,
}

/// The notes the page's `sources` property links, in the vault before the page.
fn cited_sources(vault: &Vault, path: &str, page: &PageInput) -> Vec<String> {
    let Some((_, value)) = page.frontmatter.iter().find(|(key, _)| fold(key) == SOURCES_PROPERTY) else { return Vec::new() };
    let written: Vec<&str> = match value {
        Value::String(one) => vec![one.as_str()],
        Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let parsed = crate::parse::parse_note(path, &written.join("\n"), &vault.config().parse);
    let mut found: Vec<String> = parsed
        .links
        .iter()
        .filter_map(|link| match resolve::resolve(vault, path, link) {
            Resolution::Resolved { path } if vault.is_note(&path) => Some(path),
            _ => None,
        })
        .collect();
    found.sort();
    found.dedup();
    found
}

/// What the page ingests: each note its `sources` property finds, with the hash read, its
/// title and every page of `after` citing it.
fn ingested(after: &Vault, path: &str, page: &PageInput, texts: &BTreeMap<String, String>) -> Vec<Ingested> {
    let mut found = Vec::new();
    for source in cited_sources(after, path, page) {
        let Some(text) = texts.get(&source) else { continue };
        let Some(note) = after.note(&source) else { continue };
        let title = note.facts.property_text("title").or(note.facts.h1.as_deref()).unwrap_or(note.title()).trim().to_owned();
        let mut cited_by: Vec<String> = after
            .backlinks(&source)
            .iter()
            .filter(|link| matches!(&link.link.source, crate::parse::LinkSource::Property { key, .. } if fold(key) == SOURCES_PROPERTY))
            .map(|link| link.source.to_owned())
            .collect();
        cited_by.sort();
        cited_by.dedup();
        found.push(Ingested { path: source, content_hash: content_hash(text), title, cited_by });
    }
    found
}

/// The page with `source_hashes` as this commit reads its sources: each note its `sources`
/// cites, by content hash and path (`source_hashes`). What the caller gave there is replaced, so
/// the page keeps what it was written from, and a page citing no note keeps nothing.
fn with_source_hashes(vault: &Vault, path: &str, page: &PageInput, texts: &BTreeMap<String, String>) -> PageInput {
    use crate::source_hashes::{entry, SOURCE_HASHES_PROPERTY};
    let mut page = page.clone();
    page.frontmatter.retain(|key, _| fold(key) != SOURCE_HASHES_PROPERTY);
    let entries: Vec<Value> = cited_sources(vault, path, &page)
        .iter()
        .filter_map(|source| texts.get(source).map(|text| Value::String(entry(source, &content_hash(text)))))
        .collect();
    if !entries.is_empty() {
        page.frontmatter.insert(SOURCE_HASHES_PROPERTY.to_owned(), Value::Array(entries));
    }
    page
}

/// The plan of the page and its patches, proven in a copy of the index, with the answer of its
/// preview. `texts` are the patched notes' texts as they are now.
pub fn plan(vault: &Vault, arguments: &CommitArguments, texts: &BTreeMap<String, String>) -> Result<(MovePlan, CommitAnswer), Refusal> {
    let mut path = page_path(&arguments.page.path);
    let mut problems: Vec<String> = Vec::new();
    let mut stale: Vec<String> = Vec::new();
    // The page's text before an overwrite, checked against `prev_hash`.
    let mut replaced: Option<&String> = None;
    match arguments.page.mode {
        PageMode::Create => path_problems(vault, &arguments.page.path, &path, &mut problems),
        PageMode::Overwrite => match vault.find_note(&path) {
            None => problems.push(format!(
                "`{path}` is not a note of the vault: `overwrite` replaces a page that exists (leave `mode` out to create one)"
            )),
            Some(existing) => {
                path = existing.to_owned();
                match (&arguments.page.prev_hash, texts.get(existing)) {
                    (None, _) => problems.push(format!(
                        "`page.prev_hash` is needed to overwrite `{path}`: give the content hash it was read with (read_note gives it)"
                    )),
                    (Some(_), None) => problems.push(format!("`{path}` could not be read")),
                    (Some(hash), Some(before)) => {
                        if content_hash(before) != *hash {
                            stale.push(format!("`{path}` changed since it was read (its hash is no longer {hash})"));
                        }
                        replaced = Some(before);
                    }
                }
                if arguments.patches.iter().any(|patch| vault.find_note(&patch.path) == Some(existing)) {
                    problems.push(format!("a patch names `{path}`, the page overwritten: put the text in the page"));
                }
            }
        },
    }
    if arguments.page.mode == PageMode::Create && arguments.page.prev_hash.is_some() {
        problems.push("`page.prev_hash` goes with `mode: overwrite`; a new page has none".to_owned());
    }

    let page = with_source_hashes(vault, &path, &arguments.page, texts);
    let text = page_text(vault, &path, &page, &mut problems);
    let mut after = vault.clone();
    after.upsert(&path, &text);
    // The vault it joins, before the patches: a note known by one of the page's names already,
    // and links its file name would take from the note they find today. Checked whenever the
    // plan is made, so again on the call that applies it.
    let mut duplicates = Vec::new();
    if problems.is_empty() {
        let found = crate::page_checks::duplicates(vault, &after, &path);
        let changed_links = crate::page_checks::changed_links(vault, &after, &path);
        if (!found.is_empty() && !arguments.allow_duplicate) || !changed_links.is_empty() {
            let duplicates = if arguments.allow_duplicate { Vec::new() } else { found };
            return Err(Refusal::Duplicate(crate::page_checks::DuplicatePage { path, duplicates, changed_links }));
        }
        duplicates = found;
    }

    // The patches, each on the note's text as the ones before it left it.
    let mut patched: BTreeMap<String, String> = BTreeMap::new();
    let mut receipts = Vec::new();
    let mut linked: BTreeSet<String> = BTreeSet::new();
    for (at, patch) in arguments.patches.iter().enumerate() {
        let Some(note) = vault.find_note(&patch.path) else {
            problems.push(format!("patches[{at}]: `{}` is not a note of the vault", patch.path));
            continue;
        };
        let Some(current) = patched.get(note).or_else(|| texts.get(note)).cloned() else {
            problems.push(format!("patches[{at}]: `{note}` could not be read"));
            continue;
        };
        // One bullet per note however many `link` patches name it: the first adds it, the
        // others find the note linking the page.
        if patch.kind == PatchKind::Link && patch.text.is_none() && linked.contains(note) {
            receipts.push(PatchReceipt { path: note.to_owned(), kind: PatchKind::Link, added: None, already_linked: true });
            continue;
        }
        match patch_text(&after, note, &path, patch, &current) {
            Ok((new_text, receipt)) => {
                if patch.kind == PatchKind::Link {
                    linked.insert(note.to_owned());
                }
                patched.insert(note.to_owned(), new_text);
                receipts.push(receipt);
            }
            Err(problem) => problems.push(format!("patches[{at}]: {problem}")),
        }
    }
    for (asked, hash) in &arguments.prev_hashes {
        let Some(note) = vault.find_note(asked) else {
            problems.push(format!("prev_hashes names `{asked}`, which is not a note of the vault"));
            continue;
        };
        if texts.get(note).map(|text| content_hash(text)).as_deref() != Some(hash.as_str()) {
            stale.push(format!("`{note}` changed since it was read (its hash is no longer {hash})"));
        }
    }
    for (note, new_text) in &patched {
        after.upsert(note, new_text);
    }

    // Every link of the page resolves in the vault as it will be; each patched note gains no
    // unresolved link.
    let allowed: BTreeSet<String> = arguments.allow_unresolved.iter().map(|target| fold(target.trim())).collect();
    let mut unresolved_allowed = Vec::new();
    let mut check_link = |note: &str, link: &Link, resolution: &Resolution, problems: &mut Vec<String>| {
        let target = link.path.trim();
        if target.is_empty() {
            return;
        }
        match resolution {
            Resolution::Resolved { .. } => {}
            Resolution::Unresolved if allowed.contains(&fold(target)) || allowed.contains(&fold(&link.target)) => {
                if !unresolved_allowed.contains(&link.target) {
                    unresolved_allowed.push(link.target.clone());
                }
            }
            Resolution::Unresolved => problems.push(format!(
                "`{note}` line {}: the link `{}` finds no note (create it first, or list `{}` in `allow_unresolved`)",
                link.line, link.target, link.path
            )),
            Resolution::Ambiguous { candidates, .. } => problems.push(format!(
                "`{note}` line {}: the link `{}` could mean {}; write the path",
                link.line,
                link.target,
                candidates.join(", ")
            )),
        }
    };
    for found in after.outgoing_links(&path).unwrap_or_default() {
        check_link(&path, &found.link, found.resolution, &mut problems);
    }
    for note in patched.keys() {
        let before: BTreeSet<String> = vault
            .outgoing_links(note)
            .unwrap_or_default()
            .iter()
            .filter(|found| !matches!(found.resolution, Resolution::Resolved { .. }))
            .map(|found| found.link.target.clone())
            .collect();
        for found in after.outgoing_links(note).unwrap_or_default() {
            if !before.contains(&found.link.target) {
                check_link(note, &found.link, found.resolution, &mut problems);
            }
        }
    }
    let touched: Vec<&str> = std::iter::once(path.as_str()).chain(patched.keys().map(String::as_str)).collect();
    schema_problems(vault, &after, &path, &touched, &mut problems);

    if !problems.is_empty() || !stale.is_empty() {
        let stale_only = problems.is_empty();
        problems.extend(stale);
        return Err(Refusal::Page(PageRefused { path, problems, stale_only }));
    }

    let mut edits = Vec::new();
    if let Some(before) = replaced {
        if let Some(edit) = difference(before, &text) {
            edits.push(FileEdit { path: path.clone(), content_hash: content_hash(before), edits: vec![edit] });
        }
    }
    for (note, new_text) in &patched {
        let before = &texts[note];
        if let Some(edit) = difference(before, new_text) {
            edits.push(FileEdit { path: note.clone(), content_hash: content_hash(before), edits: vec![edit] });
        }
    }
    let mut hash = crate::plan::PlanHash::new();
    let mode = format!("{:?}", arguments.page.mode);
    hash.record(&[b"commit_wiki_page", path.as_bytes(), mode.as_bytes(), content_hash(&text).as_bytes()]);
    hash.files(&edits, b"");
    let plan_hash = hash.finish();
    let problems = crate::page_checks::problems(vault, &after, &path, arguments, &duplicates);
    let ingested = ingested(&after, &path, &arguments.page, texts);
    let answer = CommitAnswer {
        dry_run: true,
        applied: false,
        plan_hash: plan_hash.clone(),
        path: path.clone(),
        content_hash: content_hash(&text),
        patches: receipts,
        unresolved_allowed,
        problems,
        ingested,
        text: (arguments.response_format == ResponseFormat::Detailed).then(|| text.clone()),
        change_id: None,
    };
    let plan = MovePlan {
        moves: Vec::new(),
        edits,
        creates: if replaced.is_some() { Vec::new() } else { vec![FileCreate { path, text }] },
        changes: Vec::new(),
        newly_resolved: Vec::new(),
        plan_hash,
    };
    Ok((plan, answer))
}

/// What is wrong with the page's path: outside the vault, hidden, unlinkable, or taken.
fn path_problems(vault: &Vault, asked: &str, path: &str, problems: &mut Vec<String>) {
    if asked.trim().trim_matches('/').is_empty() {
        problems.push("`page.path` is empty".to_owned());
        return;
    }
    if let Some(problem) = crate::paths::vault_path_problem(path) {
        problems.push(format!("`{path}` is not a path inside the vault: {problem}"));
        return;
    }
    if let Some(hidden) = path.split('/').find(|segment| segment.starts_with('.')) {
        problems.push(format!("`{path}` is under `{hidden}`, a hidden folder Obsidian does not index"));
    }
    if let Err(error) = crate::names::check_file_name(path) {
        problems.push(error.message());
    }
    if let Some(existing) = vault.find_file(path) {
        problems
            .push(format!("`{existing}` already exists: a page is new (use update_properties or edit the note to change one that exists)"));
    } else if let Some((asked, existing)) = crate::rename::folder_spelt_otherwise(vault, path, &Default::default()) {
        problems.push(format!(
            "the folder `{asked}` is the vault's folder `{existing}` spelt otherwise (in case or Unicode normalization), which on a case-sensitive disk would be a second folder beside it: spell it `{existing}`"
        ));
    }
}

/// The page's text: the body with the frontmatter written before it, `type` first, then the
/// properties its type requires in the schema's order, then the others by name.
fn page_text(vault: &Vault, path: &str, page: &PageInput, problems: &mut Vec<String>) -> String {
    let required: Vec<String> = crate::lint::schema::governing_schema(vault, path)
        .and_then(|(_, file)| file.schema.as_ref())
        .and_then(|schema| {
            let asked = page.frontmatter.get("type")?.as_str()?;
            schema.types.iter().find(|page_type| fold(&page_type.name) == fold(asked)).map(|page_type| page_type.required.clone())
        })
        .unwrap_or_default();
    let mut keys: Vec<&String> = page.frontmatter.keys().collect();
    // The kept hashes go last, after the `sources` they belong to.
    keys.sort_by_key(|key| {
        (
            key.as_str() != "type",
            required.iter().position(|name| name == *key).unwrap_or(usize::MAX),
            key.as_str() == crate::source_hashes::SOURCE_HASHES_PROPERTY,
        )
    });
    let mut text = page.body.clone();
    for key in keys {
        let arguments = crate::properties::PropertiesArguments {
            path: path.to_owned(),
            set: serde_json::Map::from_iter([(key.clone(), page.frontmatter[key].clone())]),
            remove: Vec::new(),
            dry_run: None,
            approved_plan_hash: None,
            response_format: ResponseFormat::Concise,
        };
        match crate::properties::plan(path, &text, &arguments) {
            Ok((plan, _)) => {
                if let Some(file) = plan.edits.first() {
                    text = crate::plan::apply_edits(&text, &file.edits);
                }
            }
            Err(error) => problems.push(format!("page.frontmatter: {}", error.message())),
        }
    }
    text
}

/// The note's text with `patch` carried out, and its receipt.
fn patch_text(after: &Vault, note: &str, page: &str, patch: &Patch, text: &str) -> Result<(String, PatchReceipt), String> {
    let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let heading = patch.heading.as_deref().map(str::trim).filter(|heading| !heading.is_empty());
    let (line, already_linked) = match patch.kind {
        PatchKind::Link => {
            if patch.text.is_some() {
                return Err("a `link` patch writes its own bullet; leave `text` out (use `append` for other text)".to_owned());
            }
            // The note as it is already finds the page, in the vault as it will be.
            let links_it = after
                .outgoing_links(note)
                .unwrap_or_default()
                .iter()
                .any(|found| matches!(found.resolution, Resolution::Resolved { path } if path == page));
            let link = link_from(after, note, page).ok_or_else(|| format!("no link from `{note}` can find `{page}`"))?;
            (format!("- [[{link}]]"), links_it)
        }
        PatchKind::Append => match patch.text.as_deref() {
            Some(added) if !added.trim().is_empty() => {
                (added.trim_end_matches(['\r', '\n']).replace("\r\n", "\n").replace('\n', newline), false)
            }
            _ => return Err("an `append` patch needs `text`".to_owned()),
        },
    };
    let receipt =
        |added: Option<String>, already_linked: bool| PatchReceipt { path: note.to_owned(), kind: patch.kind, added, already_linked };
    if already_linked {
        return Ok((text.to_owned(), receipt(None, true)));
    }
    let heading = heading.or((patch.kind == PatchKind::Link).then_some(SEE_ALSO));
    // Appended text is a paragraph of its own; a bullet (a `link` patch's, or appended text
    // that is a list item) joins the list before it.
    let paragraph = patch.kind == PatchKind::Append && !is_list_item(&line);
    let new_text = match heading {
        None => at_end(text, &line, newline, paragraph),
        Some(heading) => under_heading(text, heading, &line, newline, paragraph),
    };
    Ok((new_text, receipt(Some(line), false)))
}

/// The wikilink path from `note` that finds `page`, as `link_form::new_wikilink_path` writes it.
fn link_from(after: &Vault, note: &str, page: &str) -> Option<String> {
    // Written as every link vaultlink writes is: the vault's "New link format" decides.
    crate::link_form::new_wikilink_path(after, after.config(), note, page)
}

/// Whether `text` starts as a Markdown list item: `- `, `* `, `+ ` or `1. ` / `1) `.
fn is_list_item(text: &str) -> bool {
    let text = text.trim_start();
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let rest = &text[digits..];
    let marker = if digits > 0 { rest.strip_prefix(['.', ')']) } else { rest.strip_prefix(['-', '*', '+']) };
    marker.is_some_and(|after| after.is_empty() || after.starts_with([' ', '\t']))
}

/// `line` added at the end of `text`, on a line of its own (after a blank line when it is a
/// `paragraph`).
fn at_end(text: &str, line: &str, newline: &str, paragraph: bool) -> String {
    let mut out = text.to_owned();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push_str(newline);
    }
    if paragraph && !out.trim().is_empty() && !out.ends_with(&format!("{newline}{newline}")) {
        out.push_str(newline);
    }
    out.push_str(line);
    out.push_str(newline);
    out
}

/// `line` added at the end of the section under `heading` (its last non-blank line), or a new
/// level-2 heading with it at the end of the note when no heading has that text.
fn under_heading(text: &str, heading: &str, line: &str, newline: &str, paragraph: bool) -> String {
    let lines: Vec<(usize, &str)> = line_starts(text);
    let heading_of = |line: &str| -> Option<(usize, String)> {
        let trimmed = line.trim_end_matches(['\r', '\n']);
        let level = trimmed.bytes().take_while(|byte| *byte == b'#').count();
        let rest = &trimmed[level..];
        (level > 0 && level <= 6 && (rest.is_empty() || rest.starts_with([' ', '\t'])))
            .then(|| (level, rest.trim().trim_end_matches('#').trim().to_owned()))
    };
    let mut in_fence = false;
    let mut found: Option<(usize, usize)> = None;
    let mut section_end = text.len();
    for (at, (start, content)) in lines.iter().enumerate() {
        let trimmed = content.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        let Some((level, title)) = heading_of(content) else { continue };
        match found {
            None if fold(&title) == fold(heading) => found = Some((at, level)),
            Some((_, found_level)) if level <= found_level => {
                section_end = *start;
                break;
            }
            _ => {}
        }
    }
    let Some((heading_line, _)) = found else {
        let mut out = text.to_owned();
        if !out.is_empty() {
            if !out.ends_with('\n') {
                out.push_str(newline);
            }
            if !out.ends_with(&format!("{newline}{newline}")) && out.trim() != "" {
                out.push_str(newline);
            }
        }
        out.push_str(&format!("## {heading}{newline}{newline}{line}{newline}"));
        return out;
    };
    // After the section's last line that holds anything.
    let section_start = lines[heading_line].0;
    let section = &text[section_start..section_end];
    let kept = section.trim_end_matches(['\r', '\n', ' ', '\t']).len();
    let at = section_start + kept;
    let mut insert = String::new();
    let rest_starts_line = at == text.len() || text[at..].starts_with(['\r', '\n']);
    insert.push_str(newline);
    if paragraph || at == section_start + section[..kept].lines().next().map_or(0, str::len) {
        // Only the heading so far (a blank line after it, as a section is written), or a
        // paragraph of its own.
        insert.push_str(newline);
    }
    insert.push_str(line);
    if !rest_starts_line {
        insert.push_str(newline);
    }
    let mut out = String::with_capacity(text.len() + insert.len());
    out.push_str(&text[..at]);
    out.push_str(&insert);
    if at == text.len() {
        out.push_str(newline);
    }
    out.push_str(&text[at..]);
    out
}

fn line_starts(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < text.len() {
        let end = text[at..].find('\n').map_or(text.len(), |newline| at + newline + 1);
        out.push((at, &text[at..end]));
        at = end;
    }
    out
}

/// The one edit that turns `before` into `after`: the span between their common start and end.
fn difference(before: &str, after: &str) -> Option<TextEdit> {
    if before == after {
        return None;
    }
    let mut start = before.bytes().zip(after.bytes()).take_while(|(a, b)| a == b).count();
    while !before.is_char_boundary(start) || !after.is_char_boundary(start) {
        start -= 1;
    }
    let most = before.len().min(after.len()) - start;
    let mut end = before.bytes().rev().zip(after.bytes().rev()).take(most).take_while(|(a, b)| a == b).count();
    while !before.is_char_boundary(before.len() - end) || !after.is_char_boundary(after.len() - end) {
        end -= 1;
    }
    Some(TextEdit { span: Span { start, end: before.len() - end }, replacement: after[start..after.len() - end].to_owned() })
}

/// The schema's rules for the page, checked in the vault as it will be: the page lint's
/// findings about it, and a page outside every wiki of a vault that has one.
fn schema_problems(vault: &Vault, after: &Vault, path: &str, touched: &[&str], problems: &mut Vec<String>) {
    use crate::lint::schema::declares_rules;
    let schemas = crate::lint::schema::schema_files(vault);
    // Only a SCHEMA.md that declares rules makes a wiki (a note merely named "Schema" does not).
    let Some((schema_path, file)) = crate::lint::schema::governing_schema(after, path).filter(|(_, file)| declares_rules(file)) else {
        if let Some((any, _)) = schemas.values().find(|(_, file)| declares_rules(file)) {
            problems.push(format!("`{path}` is in no folder a SCHEMA.md governs (the vault's wiki has `{any}`); put the page in the wiki"));
        }
        return;
    };
    if let Some(schema) = &file.schema {
        let page_type = after.facts(path).and_then(|facts| facts.property_text("type"));
        if page_type.is_none() && !schema.types.is_empty() {
            let names: Vec<&str> = schema.types.iter().map(|page_type| page_type.name.as_str()).collect();
            problems.push(format!("{schema_path} declares page types ({}): give the page a `type`", names.join(", ")));
        }
    }
    let rules: Vec<&'static crate::lint::Rule> =
        ["schema", "unquoted_property_link", "broken_heading", "broken_block_ref", "malformed_frontmatter"]
            .iter()
            .filter_map(|name| crate::lint::rule(name))
            .collect();
    let folder = resolve::folder(path);
    let options = crate::lint::LintOptions { folder: (!folder.is_empty()).then(|| fold(folder)), excluded_folders: Vec::new(), rules };
    for proposal in crate::lint::lint(after, &options).proposals {
        if proposal.subject == path {
            problems.push(proposal.detail.unwrap_or(proposal.suggested_action));
        }
    }
    if let Some(schema) = &file.schema {
        problems.extend(crate::conventions::added_violations(vault, after, schema, touched));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use crate::testing::vault_with as vault;

    fn arguments(value: Value) -> CommitArguments {
        serde_json::from_value(value).unwrap_or_else(|error| panic!("{error}"))
    }

    const SCHEMA: &str = "---\ntypes:\n  concept: {required: [type, summary], folder: concepts}\nproperties:\n  type: [concept]\n  summary:\n  related:\n---\n";

    #[test]
    fn a_page_with_its_links_and_a_see_also_patch_is_planned() {
        let (vault, texts) = vault(&[
            ("wiki/SCHEMA.md", SCHEMA),
            ("wiki/concepts/Graph.md", "# Graph\n\nNodes.\n\n## See also\n\n- [[Tree]]\n\n## Notes\nx\n"),
            ("wiki/concepts/Tree.md", "# Tree\r\nA tree.\r\n"),
        ]);
        let asked = arguments(json!({
            "page": {"path": "wiki/concepts/Forest", "frontmatter": {"type": "concept", "summary": "Many trees", "related": "[[Tree]]"}, "body": "# Forest\n\nSee [[Graph]].\n"},
            "patches": [{"path": "wiki/concepts/Graph.md", "kind": "link"}, {"path": "wiki/concepts/Tree.md", "kind": "link"}],
            "prev_hashes": {"wiki/concepts/Tree.md": content_hash("# Tree\r\nA tree.\r\n")}
        }));
        let (plan, answer) = plan(&vault, &asked, &texts).unwrap_or_else(|refused| panic!("{}", refused.message()));
        assert_eq!(answer.path, "wiki/concepts/Forest.md");
        assert_eq!(
            plan.creates[0].text,
            "---\ntype: concept\nsummary: Many trees\nrelated: \"[[Tree]]\"\n---\n# Forest\n\nSee [[Graph]].\n"
        );
        let graph = crate::plan::apply_edits(&texts["wiki/concepts/Graph.md"], &plan.edits[0].edits);
        assert_eq!(graph, "# Graph\n\nNodes.\n\n## See also\n\n- [[Tree]]\n- [[Forest]]\n\n## Notes\nx\n");
        let tree = crate::plan::apply_edits(&texts["wiki/concepts/Tree.md"], &plan.edits[1].edits);
        assert_eq!(tree, "# Tree\r\nA tree.\r\n\r\n## See also\r\n\r\n- [[Forest]]\r\n");
    }

    #[test]
    fn every_broken_rule_is_named_in_one_refusal() {
        let (vault, texts) = vault(&[("wiki/SCHEMA.md", SCHEMA), ("wiki/concepts/Graph.md", "# Graph\n"), ("Elsewhere.md", "")]);
        let asked = arguments(json!({
            "page": {"path": "wiki/Bad|Name", "frontmatter": {"type": "concept", "mood": "calm"}, "body": "[[Nowhere]] [[Later]]"},
            "patches": [{"path": "wiki/concepts/Graph.md", "kind": "append"}],
            "allow_unresolved": ["Later"],
            "prev_hashes": {"wiki/concepts/Graph.md": "00"}
        }));
        let refused = plan(&vault, &asked, &texts).unwrap_err();
        let message = refused.message();
        for said in ["`|`", "Nowhere", "summary", "mood", "go in `wiki/concepts`", "needs `text`", "changed since it was read"] {
            assert!(message.contains(said), "{said}: {message}");
        }
        assert!(!message.contains("Later"), "{message}");
        assert!(!refused.retryable());

        // A note merely named "Schema" (a concept note, no rules) makes no wiki.
        let (concepts, concept_texts) =
            crate::testing::vault_with(&[("Philosophy/Schema.md", "---\ntags: [philosophy]\n---\nA mental model.\n")]);
        assert!(plan(&concepts, &arguments(json!({"page": {"path": "Loose", "body": "x"}})), &concept_texts).is_ok());
        let outside = arguments(json!({"page": {"path": "Loose", "body": "x"}}));
        assert!(plan(&vault, &outside, &texts).unwrap_err().message().contains("no folder a SCHEMA.md governs"));
        let taken = arguments(json!({"page": {"path": "wiki/concepts/graph", "frontmatter": {"type": "concept", "summary": "s"}}}));
        assert!(plan(&vault, &taken, &texts).unwrap_err().message().contains("already exists"));
    }

    /// Issue 34: a page in `notes/` beside the vault's `Notes/` made a second folder on a
    /// case-sensitive disk; refused as a page whose name is taken is.
    #[test]
    fn a_page_in_a_folder_spelt_otherwise_is_refused() {
        let (vault, texts) = vault(&[("Notes/A.md", "a\n"), ("Caf\u{e9}/B.md", "b\n")]);
        for (path, existing) in [("notes/New", "Notes"), ("NOTES/deeper/New", "Notes"), ("Cafe\u{301}/New", "Caf\u{e9}")] {
            let refused = plan(&vault, &arguments(json!({"page": {"path": path, "body": "x\n"}})), &texts).unwrap_err();
            assert!(refused.message().contains(&format!("spell it `{existing}`")), "{path}: {}", refused.message());
        }
        assert!(plan(&vault, &arguments(json!({"page": {"path": "Notes/New", "body": "x\n"}})), &texts).is_ok());
    }

    #[test]
    fn a_prev_hash_of_a_note_not_patched_is_checked_too() {
        let (vault, texts) = vault(&[("A.md", "a\n"), ("B.md", "b\n")]);
        let hashes = json!({"B.md": content_hash("b\n")});
        let asked =
            arguments(json!({"page": {"path": "New", "body": "x\n"}, "patches": [{"path": "A", "kind": "link"}], "prev_hashes": hashes}));
        assert_eq!(notes_needed(&vault, &asked), ["A.md", "B.md"]);
        assert!(plan(&vault, &asked, &texts).is_ok());
        let stale = arguments(json!({"page": {"path": "New", "body": "x\n"}, "prev_hashes": {"B.md": content_hash("old\n")}}));
        let refused = plan(&vault, &stale, &texts).unwrap_err();
        assert!(refused.retryable(), "{}", refused.message());
    }

    #[test]
    fn a_note_already_linking_the_page_is_left_as_it_is() {
        let (vault, texts) = vault(&[("A.md", "Waiting for [[New page]].\n")]);
        let asked = arguments(json!({"page": {"path": "New page", "body": "# New page\n"}, "patches": [{"path": "A", "kind": "link"}]}));
        let (plan, answer) = plan(&vault, &asked, &texts).unwrap_or_else(|refused| panic!("{}", refused.message()));
        assert!(plan.edits.is_empty());
        assert!(answer.patches[0].already_linked);
    }

    /// Issue 37: a page whose alias and H1 are an existing note's name was written beside it;
    /// `Spells/rules/Darkvision.md` beside `Darkvision.md` made existing links ambiguous.
    #[test]
    fn a_duplicate_page_is_refused_unless_meant_and_a_changed_link_always() {
        let (vault, texts) = vault(&[
            ("Forgetting curve.md", "# Forgetting curve\n"),
            ("Darkvision.md", "# Darkvision\n"),
            ("Races/Elf.md", "Elves have [[Darkvision]].\n"),
        ]);
        let page = json!({"path": "Memory/Ebbinghaus", "frontmatter": {"aliases": ["Forgetting curve"]}, "body": "# Forgetting curve\n"});
        let refused = plan(&vault, &arguments(json!({"page": page})), &texts).unwrap_err();
        assert_eq!(refused.code(), ErrorCode::DuplicatePage);
        assert!(refused.message().contains("`Forgetting curve.md`") && refused.message().contains("alias"), "{}", refused.message());
        assert!(plan(&vault, &arguments(json!({"page": page, "allow_duplicate": true})), &texts).is_ok());

        let darkvision = json!({"path": "Spells/rules/Darkvision", "body": "The rule.\n"});
        for allow_duplicate in [false, true] {
            let asked = arguments(json!({"page": darkvision, "allow_duplicate": allow_duplicate}));
            let refused = plan(&vault, &asked, &texts).unwrap_err();
            assert_eq!(refused.code(), ErrorCode::DuplicatePage);
            assert!(refused.message().contains("`Races/Elf.md` line 1 `Darkvision` finds `Darkvision.md` today"), "{}", refused.message());
        }
    }

    /// The duplicate is checked again on the call that applies the plan: a note given the page's
    /// name after the preview refuses it.
    #[test]
    fn a_duplicate_made_after_the_preview_refuses_the_approval() {
        use crate::edge::ReadBefore;
        use crate::ops::{call, Response};
        let mut vault = Vault::new(crate::index::IndexConfig::obsidian_defaults());
        vault.upsert("Other.md", "text\n");
        let mut edge = ReadBefore { tag: 1, ..ReadBefore::default() };
        let mut plans = crate::approval::PlanHistory::default();
        let asked = json!({"page": {"path": "Spaced repetition", "body": "# Spaced repetition\n"}});
        let preview = call(&vault, "commit_wiki_page", &asked, &mut edge, &mut plans).unwrap();
        let Response::Committed(answer) = &preview.answer else { panic!("a commit's answer") };
        vault.upsert("Other.md", "---\naliases: [Spaced repetition]\n---\ntext\n");
        let approved = json!({"page": asked["page"], "approved_plan_hash": answer.plan_hash});
        let refused = call(&vault, "commit_wiki_page", &approved, &mut edge, &mut plans).unwrap_err();
        assert_eq!(refused.code, ErrorCode::DuplicatePage);
        assert!(refused.message.contains("`Other.md`"), "{}", refused.message);
    }

    /// Issue 37: what should not block the write came back nowhere. Each problem, in the preview
    /// and alike in the receipt.
    #[test]
    fn what_does_not_block_the_write_is_listed_in_the_preview_and_the_receipt() {
        use crate::edge::ReadBefore;
        use crate::ops::{call, Response};
        let files = [("Forest fire.md", "Fires.\n"), ("Trees.md", "About forests.\n"), ("Graph.md", "# Graph\n")];
        let (vault, texts) = vault(&files);
        let mut edge = ReadBefore { tag: 1, texts: texts.clone(), ..ReadBefore::default() };
        let mut plans = crate::approval::PlanHistory::default();
        let asked = json!({
            "page": {"path": "Forest", "body": "# Forest\n\nSee [[Later]].\n"},
            "patches": [{"path": "Graph.md", "kind": "append", "text": "More about woods."}],
            "prev_hashes": {"Trees.md": content_hash("About forests.\n")},
            "allow_unresolved": ["Later"]
        });
        let preview = call(&vault, "commit_wiki_page", &asked, &mut edge, &mut plans).unwrap();
        let Response::Committed(previewed) = &preview.answer else { panic!("a commit's answer") };
        let said: Vec<(&str, &str)> = previewed.problems.iter().map(|problem| (problem.code, problem.path.as_str())).collect();
        assert_eq!(
            said,
            [
                ("no_inbound_link", "Forest.md"),
                ("possible_duplicate", "Forest fire.md"),
                ("missing_link", "Trees.md"),
                ("patch_without_link", "Graph.md"),
                ("unresolved_in_page", "Forest.md")
            ]
        );
        let approved = json!({"page": asked["page"], "patches": asked["patches"], "prev_hashes": asked["prev_hashes"],
            "allow_unresolved": ["Later"], "approved_plan_hash": previewed.plan_hash});
        let applied = call(&vault, "commit_wiki_page", &approved, &mut edge, &mut plans).unwrap();
        let Response::Committed(receipt) = &applied.answer else { panic!("a commit's answer") };
        assert!(receipt.applied);
        assert_eq!(receipt.problems, previewed.problems);

        // A page linked from the note that mentions it, by a patch whose text links it, has none.
        let linked = json!({
            "page": {"path": "Woodland", "body": "# Woodland\n"},
            "patches": [{"path": "Trees.md", "kind": "append", "text": "See [[Woodland]]."}],
            "prev_hashes": {"Trees.md": content_hash("About forests.\n")}
        });
        let (_, answer) = plan(&vault, &arguments(linked), &texts).unwrap_or_else(|refused| panic!("{}", refused.message()));
        assert_eq!(answer.problems, []);
    }

    /// Issue 37: a draft made from a source listed it among the page's links but left
    /// `sources` empty, and nothing said what was ingested.
    #[test]
    fn a_page_drawn_from_a_source_cites_it_and_the_commit_says_what_was_ingested() {
        use crate::edge::ReadBefore;
        use crate::ops::{call, Response};
        let clip = "---\ntitle: How memory fades\n---\nA clip on the forgetting curve.\n";
        let files = [("raw/Clip.md", clip), ("Older page.md", "---\nsources: [\"[[Clip]]\"]\n---\nOld.\n")];
        let (vault, texts) = vault(&files);
        let mut edge = ReadBefore { tag: 1, texts: texts.clone(), ..ReadBefore::default() };
        let mut plans = crate::approval::PlanHistory::default();
        let draft = call(&vault, "draft_wiki_page", &json!({"topic": "Forgetting curve", "source": "raw/Clip.md"}), &mut edge, &mut plans)
            .unwrap_or_else(|error| panic!("{error}"));
        let Response::Draft(drafted) = &draft.answer else { panic!("a draft's answer") };
        let skeleton = drafted.skeleton.as_ref().expect("a skeleton");
        assert_eq!(skeleton.page.frontmatter.get("sources"), Some(&json!(["[[Clip]]"])));

        let page = json!({"path": skeleton.page.path, "frontmatter": skeleton.page.frontmatter, "body": "# Forgetting curve\n"});
        let (plan, answer) =
            plan(&vault, &arguments(json!({"page": page})), &texts).unwrap_or_else(|refused| panic!("{}", refused.message()));
        let kept = format!("---\nsources:\n  - \"[[Clip]]\"\nsource_hashes:\n  - \"{} raw/Clip.md\"\n---\n", content_hash(clip));
        assert!(plan.creates[0].text.starts_with(&kept), "{}", plan.creates[0].text);
        let said: Vec<(&str, &str, &str, Vec<&str>)> = answer
            .ingested
            .iter()
            .map(|source| {
                (
                    source.path.as_str(),
                    source.content_hash.as_str(),
                    source.title.as_str(),
                    source.cited_by.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        let hash = content_hash(clip);
        assert_eq!(said, [("raw/Clip.md", hash.as_str(), "How memory fades", vec!["Older page.md", "raw/Forgetting curve.md"])]);
    }

    /// Issue 37: two patches to one note added two identical bullets, and appended text ran
    /// into the note's last paragraph.
    #[test]
    fn one_bullet_per_note_and_appended_text_on_a_paragraph_of_its_own() {
        let (vault, texts) = vault(&[("A.md", "# A\nLast line.\n"), ("B.md", "# B\n\n## Notes\nA line.\n\n## Other\nx\n")]);
        let asked = arguments(json!({
            "page": {"path": "New", "body": "# New\n"},
            "patches": [
                {"path": "A", "kind": "link"}, {"path": "A.md", "kind": "link"},
                {"path": "A", "kind": "append", "text": "More on [[New]]."},
                {"path": "B", "kind": "append", "heading": "Notes", "text": "See [[New]]."},
                {"path": "B", "kind": "append", "heading": "Other", "text": "- [[New]]"}
            ]
        }));
        let (plan, answer) = plan(&vault, &asked, &texts).unwrap_or_else(|refused| panic!("{}", refused.message()));
        let a = crate::plan::apply_edits(&texts["A.md"], &plan.edits[0].edits);
        assert_eq!(a, "# A\nLast line.\n\n## See also\n\n- [[New]]\n\nMore on [[New]].\n");
        assert!(answer.patches[1].already_linked && answer.patches[1].added.is_none());
        let b = crate::plan::apply_edits(&texts["B.md"], &plan.edits[1].edits);
        assert_eq!(b, "# B\n\n## Notes\nA line.\n\nSee [[New]].\n\n## Other\nx\n- [[New]]\n");
        assert!(is_list_item("- a") && is_list_item("12. b") && is_list_item("*") && !is_list_item("-a") && !is_list_item("1.5 kg"));
    }

    /// Issue 37: the workflow could not replace a page deliberately. `overwrite` with the hash
    /// the page was read with replaces it in place (its backlinks kept, an edit the undo reverts).
    #[test]
    fn a_page_is_overwritten_with_its_prev_hash_and_keeps_its_backlinks() {
        let before = "# Forest\n\nOld text.\n";
        let (vault, texts) = vault(&[("Forest.md", before), ("Trees.md", "See [[Forest]].\n")]);
        let page = |prev_hash: Option<String>| json!({"path": "forest", "mode": "overwrite", "prev_hash": prev_hash, "body": "# Forest\n\nNew text.\n"});
        let mut needed = notes_needed(&vault, &arguments(json!({"page": page(None)})));
        needed.sort();
        assert_eq!(needed, ["Forest.md"]);
        let (planned, answer) = plan(&vault, &arguments(json!({"page": page(Some(content_hash(before)))})), &texts)
            .unwrap_or_else(|refused| panic!("{}", refused.message()));
        assert!(planned.creates.is_empty());
        assert_eq!((planned.edits[0].path.as_str(), planned.edits[0].content_hash.as_str()), ("Forest.md", content_hash(before).as_str()));
        assert_eq!(crate::plan::apply_edits(before, &planned.edits[0].edits), "# Forest\n\nNew text.\n");
        assert!(!answer.problems.iter().any(|problem| problem.code == "no_inbound_link"));

        let stale = plan(&vault, &arguments(json!({"page": page(Some(content_hash("other")))})), &texts).unwrap_err();
        assert!(stale.retryable() && stale.message().contains("changed since it was read"), "{}", stale.message());
        let unhashed = plan(&vault, &arguments(json!({"page": page(None)})), &texts).unwrap_err();
        assert!(unhashed.message().contains("`page.prev_hash` is needed"), "{}", unhashed.message());
        let missing = json!({"page": {"path": "Nowhere", "mode": "overwrite", "prev_hash": "00"}});
        assert!(plan(&vault, &arguments(missing), &texts).unwrap_err().message().contains("replaces a page that exists"));
        // Without `overwrite`, a page that exists is refused as ever.
        let create = json!({"page": {"path": "Forest", "body": "x\n"}});
        assert!(plan(&vault, &arguments(create), &texts).unwrap_err().message().contains("already exists"));
    }

    /// Issue 37: SCHEMA.md could not mark a rule as blocking. `severity: block` refuses a write
    /// that adds its finding; `warn` and findings there before do not.
    #[test]
    fn a_blocking_convention_refuses_a_write_that_adds_its_finding() {
        let schema = |severity: &str| {
            format!("---\ntypes:\n  concept: {{required: [type]}}\nconventions:\n  orphan: {severity}\n  near_duplicate: warn\n---\n")
        };
        for (severity, refused) in [("block", true), ("{severity: block}", true), ("warn", false)] {
            let text = schema(severity);
            let (vault, texts) = vault(&[("wiki/SCHEMA.md", &text), ("wiki/Old.md", "---\ntype: concept\n---\nLonely.\n")]);
            let lonely = arguments(json!({"page": {"path": "wiki/New", "frontmatter": {"type": "concept"}, "body": "# New\n"}}));
            let answer = plan(&vault, &lonely, &texts);
            assert_eq!(answer.is_err(), refused, "{severity}");
            if let Err(refusal) = answer {
                assert!(refusal.message().contains("the convention `orphan` is `severity: block`"), "{}", refusal.message());
            }
            // Linked from the old note, the page is no orphan; the old note's own finding was
            // there before and is not the write's.
            let linked = arguments(json!({
                "page": {"path": "wiki/New", "frontmatter": {"type": "concept"}, "body": "# New\n"},
                "patches": [{"path": "wiki/Old.md", "kind": "link"}]
            }));
            assert!(plan(&vault, &linked, &texts).is_ok(), "{severity}");
        }
        let unknown = crate::schema_file::read_schema_file("---\nconventions:\n  spelling: block\n  orphan: loud\n---\n");
        assert!(unknown.problems.iter().any(|problem| problem.contains("`spelling` names no lint rule")), "{:?}", unknown.problems);
        assert!(unknown.problems.iter().any(|problem| problem.contains("`loud`")), "{:?}", unknown.problems);
    }

    /// Issue 37: lint could not tell a page older than a source it cites. The commit keeps each
    /// source's hash in the page; lint compares it with the source as the edge reads it now, and
    /// committing the page again keeps the new hash.
    #[test]
    fn a_page_keeps_its_sources_hashes_and_lint_says_stale_when_one_changes() {
        use crate::edge::ReadBefore;
        use crate::ops::{call, Response};
        let schema =
            "---\ntypes:\n  concept: {required: [type, sources]}\nproperties:\n  type: [concept]\n  sources:\nsource_folders: [raw]\n---\n";
        let clip = "A clip on the forgetting curve.\n";
        let (mut vault, texts) = vault(&[("wiki/SCHEMA.md", schema), ("wiki/raw/Clip.md", clip)]);
        let mut edge = ReadBefore { tag: 1, texts: texts.clone(), ..ReadBefore::default() };
        let mut plans = crate::approval::PlanHistory::default();
        // A `source_hashes` the caller gives is replaced by what the commit reads.
        let page = json!({"path": "wiki/Forgetting curve", "body": "# Forgetting curve\n",
            "frontmatter": {"type": "concept", "sources": ["[[Clip]]"], "source_hashes": ["made up"]}});
        let applied = call(&vault, "commit_wiki_page", &json!({"page": page, "dry_run": false}), &mut edge, &mut plans)
            .unwrap_or_else(|error| panic!("{error}"));
        let Some(crate::edge::Change::Batch { batch, .. }) = &applied.change else { panic!("a batch") };
        let written = batch.creates.iter().find(|create| create.path == "wiki/Forgetting curve.md").expect("the page");
        let page_text = written.text.clone();
        let old_hash = content_hash(clip);
        assert!(page_text.contains(&format!("source_hashes:\n  - \"{old_hash} wiki/raw/Clip.md\"\n")), "{page_text}");
        vault.upsert("wiki/Forgetting curve.md", &page_text);
        edge.texts.insert("wiki/Forgetting curve.md".to_owned(), page_text.clone());

        let lint = |vault: &Vault, edge: &mut ReadBefore| {
            let request = crate::ops::request("lint_wiki", &json!({"kinds": ["stale"]})).unwrap();
            assert_eq!(crate::ops::notes_needed(vault, &request, &[]), ["wiki/raw/Clip.md"]);
            let outcome =
                call(vault, "lint_wiki", &json!({"kinds": ["stale"], "response_format": "detailed"}), edge, &mut Default::default())
                    .unwrap();
            let Response::Lint(report) = outcome.answer else { panic!("a lint report") };
            report
        };
        let fresh = lint(&vault, &mut edge);
        assert!(fresh.proposals.is_empty() && fresh.skipped.is_empty(), "{:?} {:?}", fresh.proposals, fresh.skipped);

        // The source changes (a clipping fixed by hand, before it was declared read-only).
        let changed = "A clip on the forgetting curve, corrected.\n";
        vault.upsert("wiki/raw/Clip.md", changed);
        edge.texts.insert("wiki/raw/Clip.md".to_owned(), changed.to_owned());
        let stale = lint(&vault, &mut edge);
        let said: Vec<String> = stale.proposals.iter().map(crate::lint::Proposal::summary_line).collect();
        assert_eq!(said, ["stale wiki/Forgetting curve.md -> wiki/raw/Clip.md (commit_wiki_page)"]);
        let detail = stale.proposals[0].detail.as_deref().unwrap_or_default();
        assert!(detail.contains(&old_hash) && detail.contains(&content_hash(changed)), "{detail}");
        assert!(stale.proposals[0].suggested_action.contains("Re-read `wiki/raw/Clip.md`"), "{}", stale.proposals[0].suggested_action);
        // Without the sources' texts, the rule says it could not compare.
        let unread = crate::ops::lint_wiki(&vault, &serde_json::from_value(json!({})).unwrap()).unwrap();
        assert!(unread.skipped.iter().any(|skipped| skipped.kind == "stale"), "{:?}", unread.skipped);

        // Committed again over the page, with the hash it was read with: current again.
        let again = json!({"page": {"path": "wiki/Forgetting curve", "mode": "overwrite", "prev_hash": content_hash(&page_text),
            "body": "# Forgetting curve\n\nCorrected.\n", "frontmatter": {"type": "concept", "sources": ["[[Clip]]"]}}, "dry_run": false});
        let applied = call(&vault, "commit_wiki_page", &again, &mut edge, &mut plans).unwrap_or_else(|error| panic!("{error}"));
        let Some(crate::edge::Change::Batch { batch, .. }) = &applied.change else { panic!("a batch") };
        let rewritten = batch.writes[0].text.clone();
        assert!(rewritten.contains(&format!("  - \"{} wiki/raw/Clip.md\"\n", content_hash(changed))), "{rewritten}");
        vault.upsert("wiki/Forgetting curve.md", &rewritten);
        assert!(lint(&vault, &mut edge).proposals.is_empty(), "{rewritten}");
    }
}
