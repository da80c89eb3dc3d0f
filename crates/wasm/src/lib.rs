//! vaultlink's core for JavaScript. This crate converts types and errors, nothing else: every
//! decision is made in `vaultlink-core`.
//!
//! What it exports:
//!
//! A thin `cdylib`: the `Vault` handle for JavaScript (`upsert`, `remove`, `rename`, `upsertMany`
//! (the first index, in batches), `configureFromObsidian`, `outgoingLinks`, `backlinks`,
//! `findNote`, `auditRename`, `missingTargets` (the count of missing notes the index keeps), and
//! `call(tool, arguments, read, modified, tag)`, core's `ops::run` with the plugin's callbacks as
//! its `Edge`, which answers `{ok, result, change?}`; `needs`, what the call reads before it runs
//! (core's `needs::needs`), which reads the call into core's request once and keeps it, by
//! number, for the `call` that follows; `sketchesNeeded` and
//! `keepSketches`, the notes a lint's `near_duplicate` needs sketched (core's
//! `ops::sketches_needed`) and their sketches made from the texts the plugin read, a batch
//! at a time; and `planApplied`, the index keeping its own plan history) and the free functions `parseNote` (which adds each link's
//! position as Obsidian counts it, and its `link_fields`: the fields of Obsidian's `LinkCache` and
//! core's `LinkForm`s, for the parity command), `contentHash`, `batchJournal`, `sealJournal` and
//! `openJournal` (for a purpose, `journal` or `kept`, and the vault's key), `journalMaxBytes` and
//! `journalSizeRefusal` (core's bound on a journal's size), `journalAlreadyKept`, `judgeJournal`
//! (core's `lease::judge` of what the plugin observed of a found journal, with the refusal worded
//! for the vault folder), `journalLease` (the lease's timings), `sameBatch` and `undoSteps` (core's
//! `undo_steps::steps` of a journal), the kept changes' names and bounds (`keptChangeName`,
//! `isKeptChangeName`, `changesToForget`), `stepError` (core's wording of what the plugin observed
//! while carrying out a change), `decidedBy` and `lintRules` (core's lint rules, so the plugin
//! offers exactly the kinds `lint_wiki` takes, each saying whether it runs by default). Converts
//! types with serde-wasm-bindgen and nothing else. Tests run in headless Chromium (`tests/web.rs`).

use serde::Serialize;
use vaultlink_core::line_index::{Utf16Index, Utf16Position};

use vaultlink_core::approval::PlanHistory;
use vaultlink_core::error::{CallError, Failure as CoreError};
use vaultlink_core::ops::{self, OpError};
use vaultlink_core::plan;
use wasm_bindgen::prelude::*;

/// The link index of one vault, kept in wasm memory.
#[wasm_bindgen]
#[derive(Debug)]
pub struct Vault {
    inner: vaultlink_core::Vault,
    /// The plan hashes this index's previews gave and those it applied, for core's approval.
    plans: PlanHistory,
    /// Each note's size and content hash, and what changed since the first index was whole
    /// (`beginObserving`): what `detected_moves` and `heal_moves` compare (`Edge::observed`).
    seen: vaultlink_core::seen_since::SeenSince,
    /// The moves a `heal_moves` plan heals, by its plan hash, until the plugin says it applied it
    /// (`planApplied`): then they are no evidence any more (`SeenSince::accept`).
    healing: Option<(String, Vec<(String, String)>)>,
    /// The calls `needs` read into core's request, each under the number it answered, kept for
    /// the `needs`, `sketchesNeeded` and `call` that name it, so that a call's arguments are read
    /// once (the newest [`READ_CALLS_KEPT`]: the plugin's reading calls may interleave, and one
    /// whose reads failed never follows).
    read_calls: std::collections::VecDeque<ReadCall>,
    /// The number the next call read is kept under.
    next_read_call: u32,
}

/// How many calls read by `needs` are kept for their `call`; an older one is read again.
const READ_CALLS_KEPT: usize = 16;

/// A call read into core's request, under the number `needs` answered with it.
#[derive(Debug)]
struct ReadCall {
    number: u32,
    request: ops::Request,
}

/// What a call reads before it runs (core's `needs::Needs`), and the number of the call as read
/// (`call`), which the plugin hands back so that its arguments are not read again; none for
/// arguments core refuses, whose refusal the call then answers.
#[derive(Serialize)]
struct NeedsForJs {
    #[serde(flatten)]
    needs: vaultlink_core::needs::Needs,
    #[serde(skip_serializing_if = "Option::is_none")]
    call: Option<u32>,
}

/// Serializes results as plain objects (not `Map`s), so `JSON.stringify` gives the same JSON
/// as the sidecar's `serde_json`.
fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsError> {
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    value.serialize(&serializer).map_err(|error| JsError::new(&error.to_string()))
}

fn op_error(error: &OpError) -> JsError {
    JsError::new(&format!("{}: {}", error.code(), error.message()))
}

/// A call's answer as it crosses to JavaScript: the one place core's errors become an object
/// (`CallError` serializes as `{code, message, hint, retryable}`).
#[derive(Serialize)]
#[serde(untagged)]
enum CallOutcome<'a> {
    Done {
        ok: bool,
        result: &'a serde_json::Value,
        #[serde(skip_serializing_if = "Option::is_none")]
        change: Option<&'a ops::Change>,
        /// With a change: the paths the plugin must find reached through no symbolic link
        /// (core's `Change::paths_to_guard`).
        #[serde(skip_serializing_if = "Option::is_none")]
        guard: Option<Vec<String>>,
    },
    Failed {
        ok: bool,
        error: &'a CallError,
    },
}

/// A parsed note for JavaScript: the core's result, plus each link's position as Obsidian
/// counts it (UTF-16), in the order of `links`.
#[derive(Serialize)]
struct ParsedForJs {
    #[serde(flatten)]
    note: vaultlink_core::ParsedNote,
    link_positions: Vec<Loc>,
    /// `link_fields[i]`: what Obsidian's `LinkCache` and `FrontmatterLinkCache` hold for
    /// `links[i]`, and its forms, as core reads them.
    link_fields: Vec<LinkFieldsForJs>,
}

#[derive(Serialize)]
struct LinkFieldsForJs {
    link: String,
    display_text: String,
    original: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    key: Option<String>,
    forms: Vec<vaultlink_core::parse::LinkForm>,
}

#[derive(Serialize)]
struct Loc {
    start: Utf16Position,
    end: Utf16Position,
}

/// The journal entry for a batch, to write before its first change: `made_folders` are the
/// batch's folders the plugin found missing.
#[wasm_bindgen(js_name = batchJournal)]
pub fn batch_journal(batch: JsValue, made_folders: JsValue, pid: u32, started_unix_ms: f64, machine: &str) -> Result<JsValue, JsError> {
    let batch: vaultlink_core::batch::Batch =
        serde_wasm_bindgen::from_value(batch).map_err(|error| JsError::new(&format!("not a batch: {error}")))?;
    let made: Vec<String> =
        serde_wasm_bindgen::from_value(made_folders).map_err(|error| JsError::new(&format!("not a list of folders: {error}")))?;
    to_js(&batch.journal(made, pid, started_unix_ms as u64, machine))
}

/// The error a change ends with when the plugin observes `failure` while carrying it out
/// (core's `step::StepError`, `{kind, ...}`): `{code, message, hint, retryable}`, worded as the
/// sidecar words it.
#[wasm_bindgen(js_name = stepError)]
pub fn step_error(failure: JsValue) -> Result<JsValue, JsError> {
    let failure: vaultlink_core::step::StepError =
        serde_wasm_bindgen::from_value(failure).map_err(|error| JsError::new(&format!("not a step error: {error}")))?;
    to_js(&failure.error())
}

/// What to do about the note a batch's `write` (`{path, before, text, edits, ...}`) rewrote and
/// another program saved as `saved` before the commit (core's `step::saved_over`):
/// `{kind: "put_back", text}` or `{kind: "leave", links}`.
#[wasm_bindgen(js_name = savedOver)]
pub fn saved_over(write: JsValue, saved: &str) -> Result<JsValue, JsError> {
    let write = batch_write(write)?;
    to_js(&vaultlink_core::step::saved_over(&write.path, &write.before, &write.text, saved, &write.edits))
}

/// The links a batch's `write` rewrote that `now` still holds as it wrote them (core's
/// `step::links_left`).
#[wasm_bindgen(js_name = linksLeft)]
pub fn links_left(write: JsValue, now: &str) -> Result<JsValue, JsError> {
    let write = batch_write(write)?;
    to_js(&vaultlink_core::step::links_left(&write.path, &write.before, &write.text, now, &write.edits))
}

fn batch_write(write: JsValue) -> Result<vaultlink_core::batch::BatchWrite, JsError> {
    serde_wasm_bindgen::from_value(write).map_err(|error| JsError::new(&format!("not a batch's write: {error}")))
}

/// Which step of core's rule decides among `candidates` for a link in `source`:
/// `"linking-folder"`, `"shortest-path"` or `"lexicographic"`.
#[wasm_bindgen(js_name = decidedBy)]
pub fn decided_by(source: &str, candidates: Vec<String>) -> Result<JsValue, JsError> {
    to_js(&vaultlink_core::resolve::decided_by(source, &candidates))
}

/// What a sealed file is for (`"journal"` or `"kept"`), as core's `journal::Purpose`.
fn purpose_of(purpose: &str) -> Result<vaultlink_core::journal::Purpose, JsError> {
    serde_json::from_value(serde_json::Value::String(purpose.to_owned()))
        .map_err(|_| JsError::new(&format!("not a purpose: {purpose:?} (\"journal\" or \"kept\")")))
}

#[derive(Serialize)]
struct SealedJournal {
    sealed: Option<String>,
    /// Why it cannot be written (a journal past core's bound), as the change's error.
    error: Option<CallError>,
}

/// The file's text for `journal` (`{version, pid, tool, started_unix_ms, machine, writes, moves,
/// made_folders}`), sealed for `purpose` (`"journal"`, `"kept"`) with `key`, the key derived from
/// the vault's key file of id `id` ([`seal_key`]) (core's `journal`): `{sealed}`, or `{error}`
/// when it would pass core's bound on a journal's size.
#[wasm_bindgen(js_name = sealJournal)]
pub fn seal_journal(key: &[u8], purpose: &str, id: &str, journal: JsValue) -> Result<JsValue, JsError> {
    let journal: vaultlink_core::journal::Journal =
        serde_wasm_bindgen::from_value(journal).map_err(|error| JsError::new(&format!("not a journal: {error}")))?;
    let binding = vaultlink_core::journal::Binding { purpose: purpose_of(purpose)?, key: id };
    match vaultlink_core::journal::seal(key, binding, &journal) {
        Ok(sealed) => to_js(&SealedJournal { sealed: Some(sealed), error: None }),
        Err(too_large) => to_js(&SealedJournal { sealed: None, error: Some(vaultlink_core::step::StepError::from(too_large).error()) }),
    }
}

#[derive(Serialize)]
struct OpenedJournal {
    journal: Option<vaultlink_core::journal::Journal>,
    /// Why the journal may not be acted on, as the end of a sentence.
    refusal: Option<String>,
}

/// Opens a journal or kept change file's text as a file of `purpose`, with `key`, the key derived
/// from the vault's key file of id `id` (the one the file names, [`journal_key_named`]):
/// `{journal}` when it may be acted on, `{refusal}` (the reason) when it may not.
#[wasm_bindgen(js_name = openJournal)]
pub fn open_journal(key: &[u8], purpose: &str, id: &str, text: &str) -> Result<JsValue, JsError> {
    let binding = vaultlink_core::journal::Binding { purpose: purpose_of(purpose)?, key: id };
    match vaultlink_core::journal::open(key, binding, text.as_bytes()) {
        Ok(journal) => to_js(&OpenedJournal { journal: Some(journal), refusal: None }),
        Err(refusal) => to_js(&OpenedJournal { journal: None, refusal: Some(refusal.message()) }),
    }
}

#[derive(Serialize)]
struct KeyNamed {
    key: Option<String>,
    refusal: Option<String>,
}

/// The id of the key a journal or kept change file's text says it was sealed with (core's
/// `journal::key_named`): `{key}`, or `{refusal}` when the file is refused before any key.
#[wasm_bindgen(js_name = journalKeyNamed)]
pub fn journal_key_named(text: &str) -> Result<JsValue, JsError> {
    match vaultlink_core::journal::key_named(text.as_bytes()) {
        Ok(key) => to_js(&KeyNamed { key: Some(key), refusal: None }),
        Err(refusal) => to_js(&KeyNamed { key: None, refusal: Some(refusal.message()) }),
    }
}

/// The key seals are made with, from a key file's secret and its identity (`ino`, as a BigInt):
/// core's `seal_key::derive`.
#[wasm_bindgen(js_name = sealKey)]
pub fn seal_key(secret: &[u8], identity: u64) -> Vec<u8> {
    vaultlink_core::seal_key::derive(secret, identity).to_vec()
}

/// The ids of the key files to look at, in order, from the names in the keys folder (core's
/// `seal_key::candidates`).
#[wasm_bindgen(js_name = sealKeyCandidates)]
pub fn seal_key_candidates(names: Vec<String>) -> Vec<String> {
    vaultlink_core::seal_key::candidates(names.iter().map(String::as_str))
}

/// The id of a key made now, from 8 random bytes and the ids passed over as unusable (core's
/// `seal_key::new_id`).
#[wasm_bindgen(js_name = sealKeyNewId)]
pub fn seal_key_new_id(random: &[u8], passed_over: Vec<String>) -> Result<String, JsError> {
    let random = random.try_into().map_err(|_| JsError::new("an id is made from 8 random bytes"))?;
    Ok(vaultlink_core::seal_key::new_id(random, &passed_over))
}

/// The secret in a key file's bytes, or `undefined` when they hold none.
#[wasm_bindgen(js_name = sealKeySecret)]
pub fn seal_key_secret(bytes: &[u8]) -> Option<Vec<u8>> {
    vaultlink_core::seal_key::parse_secret(bytes).map(|secret| secret.to_vec())
}

/// Why a key file may not be used (`{kind, detail?}`), from what was seen of it before reading
/// it; `undefined` when it may. `mode` is left out on Windows.
#[wasm_bindgen(js_name = sealKeyUnusable)]
pub fn seal_key_unusable(plain_file: bool, mode: Option<u32>, ours: bool, bytes: f64) -> Result<JsValue, JsError> {
    let file = vaultlink_core::seal_key::KeyFile { plain_file, mode, ours, bytes: bytes as u64 };
    match vaultlink_core::seal_key::check(&file) {
        Ok(()) => Ok(JsValue::UNDEFINED),
        Err(unusable) => to_js(&unusable),
    }
}

/// Core's refusal of a file sealed with the key `id`, whose file is unusable for `unusable`
/// (`{kind, detail?}`, as [`seal_key_unusable`] gives it, or `{kind: "missing"}`).
#[wasm_bindgen(js_name = sealKeyRefusal)]
pub fn seal_key_refusal(id: &str, unusable: JsValue) -> Result<String, JsError> {
    let why: vaultlink_core::seal_key::Unusable =
        serde_wasm_bindgen::from_value(unusable).map_err(|error| JsError::new(&format!("not a reason: {error}")))?;
    Ok(vaultlink_core::journal::Refusal::NoKey { id: id.to_owned(), why }.message())
}

/// The most bytes a journal or kept change file may have (core's `journal::MAX_FILE_BYTES`): a
/// larger one is refused from its size, and never read.
#[wasm_bindgen(js_name = journalMaxBytes)]
pub fn journal_max_bytes() -> f64 {
    vaultlink_core::journal::MAX_FILE_BYTES as f64
}

/// Why a journal or kept change file of `bytes` bytes is not read, in core's words
/// (`journal::Refusal::TooLarge`); `undefined` when it is within the bound.
#[wasm_bindgen(js_name = journalSizeRefusal)]
pub fn journal_size_refusal(bytes: f64) -> Option<String> {
    let bytes = bytes.max(0.0) as u64;
    (bytes > vaultlink_core::journal::MAX_FILE_BYTES).then(|| vaultlink_core::journal::Refusal::TooLarge { bytes }.message())
}

/// Why a journal opened in the vault is no interrupted change, given the names of the changes
/// kept beside it (core's `history::check_not_kept`): the reason, or `undefined`.
#[wasm_bindgen(js_name = journalAlreadyKept)]
pub fn journal_already_kept(journal: JsValue, names: Vec<String>) -> Result<Option<String>, JsError> {
    let journal: vaultlink_core::journal::Journal =
        serde_wasm_bindgen::from_value(journal).map_err(|error| JsError::new(&format!("not a journal: {error}")))?;
    Ok(vaultlink_core::history::check_not_kept(&journal, &names).err().map(|refusal| refusal.message()))
}

/// What a journal found in the vault means (core's `lease::judge`), given what the plugin
/// observed of it (`lease::Observed`): the verdict (`lease::Verdict`), with `refusal`, the error a
/// change that cannot start meanwhile answers, worded by core with `vault` (the vault folder) and
/// `journal` (the journal's file).
#[wasm_bindgen(js_name = judgeJournal)]
pub fn judge_journal(observed: JsValue, vault: &str, journal: &str) -> Result<JsValue, JsError> {
    let observed: vaultlink_core::lease::Observed =
        serde_wasm_bindgen::from_value(observed).map_err(|error| JsError::new(&format!("not what was observed of a journal: {error}")))?;
    let verdict = vaultlink_core::lease::judge(&observed);
    let refusal = verdict.refusal(vault, journal).error();
    to_js(&serde_json::json!({ "verdict": verdict, "refusal": refusal }))
}

/// The steps that undo `journal`, in order, each with what the edge checks on the disk right
/// before it acts (core's `undo_steps::steps`, which the sidecar carries out on the folder).
#[wasm_bindgen(js_name = undoSteps)]
pub fn undo_steps(journal: JsValue) -> Result<JsValue, JsError> {
    let journal: vaultlink_core::journal::Journal =
        serde_wasm_bindgen::from_value(journal).map_err(|error| JsError::new(&format!("not a journal: {error}")))?;
    to_js(&vaultlink_core::undo_steps::steps(&journal))
}

/// The journal lease's timings (core's `lease`): `{renew_ms, holder_stop_ms, expire_ms}`.
#[wasm_bindgen(js_name = journalLease)]
pub fn journal_lease() -> Result<JsValue, JsError> {
    use vaultlink_core::lease::{EXPIRE_MS, HOLDER_STOP_MS, RENEW_MS};
    to_js(&serde_json::json!({ "renew_ms": RENEW_MS, "holder_stop_ms": HOLDER_STOP_MS, "expire_ms": EXPIRE_MS }))
}

/// Whether a journal found is of the batch `ours` (core's `lease::same_batch`, as the sidecar
/// compares them).
#[wasm_bindgen(js_name = sameBatch)]
pub fn same_batch(found: JsValue, ours: JsValue) -> Result<bool, JsError> {
    let found: vaultlink_core::journal::Journal =
        serde_wasm_bindgen::from_value(found).map_err(|error| JsError::new(&format!("not a journal: {error}")))?;
    let ours: vaultlink_core::journal::Journal =
        serde_wasm_bindgen::from_value(ours).map_err(|error| JsError::new(&format!("not a journal: {error}")))?;
    Ok(vaultlink_core::lease::same_batch(&found, &ours))
}

/// SHA-256 of a text as lowercase hex, as a plan's `content_hash`.
/// Where an applied change with `change_id` is kept, applied at `now_unix_ms` beside the kept
/// changes `existing` (core's `history::next_record_name`).
#[wasm_bindgen(js_name = keptChangeName)]
pub fn kept_change_name(now_unix_ms: f64, change_id: &str, existing: Vec<String>) -> String {
    vaultlink_core::history::next_record_name(now_unix_ms.max(0.0) as u64, change_id, &existing)
}

/// Whether a file name in the changes folder is a kept change's.
#[wasm_bindgen(js_name = isKeptChangeName)]
pub fn is_kept_change_name(name: &str) -> bool {
    vaultlink_core::history::is_record_name(name)
}

/// Whether a file name in the changes folder is one an undo set aside, the record that it was
/// made (core's `history::undone_record`).
#[wasm_bindgen(js_name = isUndoneChangeName)]
pub fn is_undone_change_name(name: &str) -> bool {
    vaultlink_core::history::undone_record(name).is_some()
}

/// The kept changes to remove, given each one's name and size in bytes (core's
/// `history::to_forget`).
#[wasm_bindgen(js_name = changesToForget)]
pub fn changes_to_forget(names: Vec<String>, sizes: Vec<f64>) -> Vec<String> {
    let records: Vec<(String, u64)> = names.into_iter().zip(sizes).map(|(name, size)| (name, size.max(0.0) as u64)).collect();
    vaultlink_core::history::to_forget(&records)
}

#[wasm_bindgen(js_name = contentHash)]
pub fn content_hash(text: &str) -> String {
    plan::content_hash(text)
}

/// One lint rule as callers choose it: the `kind` `lint_wiki` takes, its stable `code`, what
/// it finds, and whether it runs by default (`false` for a rule that runs only when named,
/// such as `dead_end`).
#[derive(Serialize)]
struct LintRuleForJs {
    kind: &'static str,
    code: &'static str,
    summary: &'static str,
    by_default: bool,
}

/// Every lint rule of core, in the order their findings are reported: `[{kind, code,
/// summary, by_default}]`, so a caller offers exactly the kinds `lint_wiki` takes.
#[wasm_bindgen(js_name = lintRules)]
pub fn lint_rules() -> Result<JsValue, JsError> {
    let rules: Vec<LintRuleForJs> = vaultlink_core::lint::every_rule()
        .map(|rule| LintRuleForJs { kind: rule.kind, code: rule.code, summary: rule.summary, by_default: rule.by_default() })
        .collect();
    to_js(&rules)
}

/// Parses one note the way the index does. `path` gives the title.
#[wasm_bindgen(js_name = parseNote)]
pub fn parse_note(path: &str, text: &str) -> Result<JsValue, JsError> {
    let note = vaultlink_core::parse_note(path, text, &vaultlink_core::ParseConfig::OBSIDIAN);
    let index = Utf16Index::new(text);
    let link_positions =
        note.links.iter().map(|link| Loc { start: index.position(link.span.start), end: index.position(link.span.end) }).collect();
    let link_fields = note
        .links
        .iter()
        .map(|link| LinkFieldsForJs {
            link: link.link_text(),
            display_text: link.display_text(),
            original: link.original(),
            key: link.frontmatter_key(),
            forms: vaultlink_core::parse::link_forms(&note, link),
        })
        .collect();
    to_js(&ParsedForJs { note, link_positions, link_fields })
}

impl Default for Vault {
    fn default() -> Vault {
        Vault::new()
    }
}

#[wasm_bindgen]
impl Vault {
    #[wasm_bindgen(constructor)]
    pub fn new() -> Vault {
        Vault {
            inner: vaultlink_core::Vault::new(vaultlink_core::index::IndexConfig::obsidian_defaults()),
            plans: PlanHistory::default(),
            seen: vaultlink_core::seen_since::SeenSince::default(),
            healing: None,
            read_calls: std::collections::VecDeque::new(),
            next_read_call: 0,
        }
    }

    /// Adds a file or replaces its text. Paths are vault-relative with `/` separators.
    pub fn upsert(&mut self, path: &str, text: &str) {
        self.seen.upsert(path, text.as_bytes());
        self.inner.upsert(path, text);
    }

    /// The first index is whole: from now on the notes that vanish and appear (a move made
    /// outside Obsidian reaches the plugin as a delete and a create) are compared with it.
    #[wasm_bindgen(js_name = beginObserving)]
    pub fn begin_observing(&mut self) {
        self.seen.begin();
    }

    /// Adds or replaces many files at once, `paths[i]` holding `texts[i]`: the index is the one
    /// `upsert` one by one gives, built faster, since each link resolves once against all of
    /// them. For the first index, in batches.
    #[wasm_bindgen(js_name = upsertMany)]
    pub fn upsert_many(&mut self, paths: Vec<String>, texts: Vec<String>) -> Result<(), JsError> {
        if paths.len() != texts.len() {
            return Err(JsError::new(&format!(
                "upsertMany takes as many texts as paths, not {} texts for {} paths",
                texts.len(),
                paths.len()
            )));
        }
        let parse = self.inner.config().parse;
        let prepared = paths.into_iter().zip(&texts).map(|(path, text)| {
            self.seen.upsert(&path, text.as_bytes());
            let prepared = vaultlink_core::Vault::prepare(&parse, &path, text);
            (path, prepared)
        });
        self.inner.insert_prepared_many(prepared.collect());
        Ok(())
    }

    /// Removes a file; false when there was none.
    pub fn remove(&mut self, path: &str) -> bool {
        self.seen.remove(path);
        self.inner.remove(path)
    }

    /// Moves a file; false when there was none at `from`.
    pub fn rename(&mut self, from: &str, to: &str) -> bool {
        self.seen.rename(from, to);
        self.inner.rename(from, to)
    }

    /// The path of the note a person means by `path` (exact, `.md` left out, other case or
    /// normalisation), or `undefined`.
    #[wasm_bindgen(js_name = findNote)]
    pub fn find_note(&self, path: &str) -> Option<String> {
        self.inner.find_note(path).map(str::to_owned)
    }

    /// Follows Obsidian's settings from the text of `.obsidian/app.json` (excluded files,
    /// attachment folder, new link format), and writes rewritten links in `link_form` (the
    /// plugin's setting: `keep`, or `obsidian`, the default, for anything else). Returns a
    /// sentence for each setting it could not follow.
    #[wasm_bindgen(js_name = configureFromObsidian)]
    pub fn configure_from_obsidian(&mut self, app_json: &str, link_form: Option<String>) -> Vec<String> {
        let (mut config, warnings) = vaultlink_core::config::from_app_json(app_json);
        config.link_form = link_form.as_deref().and_then(vaultlink_core::link_form::RewriteForm::named).unwrap_or_default();
        self.inner.reconfigure(config);
        warnings
    }

    /// The rename audit of the file now at `to`, renamed from `from` (core's `audit`):
    /// `{skipped?, stale: [{note, line, span, target, source, key?, resolved_path?}], fixes:
    /// [{from_target, to_target}]}`.
    #[wasm_bindgen(js_name = auditRename)]
    pub fn audit_rename(&self, from: &str, to: &str) -> Result<JsValue, JsError> {
        to_js(&vaultlink_core::audit::audit_rename(&self.inner, from, to))
    }

    #[wasm_bindgen(js_name = noteCount)]
    pub fn note_count(&self) -> usize {
        self.inner.note_count()
    }

    /// How many missing notes the unresolved links name (`find_unresolved_links`'
    /// `total_targets`), which the index keeps current as it changes: no walk over the links.
    #[wasm_bindgen(js_name = missingTargets)]
    pub fn missing_targets(&self) -> usize {
        self.inner.missing_targets()
    }

    /// The links of a note with their resolutions. Throws when there is no such note.
    #[wasm_bindgen(js_name = outgoingLinks)]
    pub fn outgoing_links(&self, path: &str) -> Result<JsValue, JsError> {
        to_js(&ops::outgoing_links(&self.inner, path, ops::ResponseFormat::Detailed).map_err(|error| op_error(&error))?)
    }

    /// The links that point to a note, the first thousand. Throws when there is no such note.
    pub fn backlinks(&self, path: &str) -> Result<JsValue, JsError> {
        let arguments = ops::PagedNoteArguments {
            path: path.to_owned(),
            limit: Some(ops::MAX_LIMIT),
            cursor: None,
            response_format: ops::ResponseFormat::Detailed,
        };
        to_js(&ops::backlinks(&self.inner, &arguments).map_err(|error| op_error(&error))?)
    }

    /// What a call of `tool` with `arguments` reads before it runs (core's `needs::needs`):
    /// `{kept_changes, undone_changes, observed, notes, modified, call?}`, the notes as far as
    /// the index tells now. `changes` are the kept changes (`{name, journal}` each, opened with
    /// `openJournal`, or `{name, why}` for one that would not open), once core asked for them;
    /// those an undo set aside (`isUndoneChangeName`) are told apart by their names. The call is
    /// read into core's request once and kept under the number `call` answers: `needs`,
    /// `sketchesNeeded` and `call` given that number take it as read, without reading `arguments`
    /// again.
    pub fn needs(&mut self, tool: &str, arguments: JsValue, changes: JsValue, call: Option<u32>) -> Result<JsValue, JsError> {
        let Some(number) = self.read_call(tool, arguments, call) else {
            return to_js(&NeedsForJs { needs: vaultlink_core::needs::Needs::default(), call: None });
        };
        let read = self.read_calls.iter().find(|read| read.number == number).map(|read| &read.request);
        let Some(request) = read else { return to_js(&NeedsForJs { needs: vaultlink_core::needs::Needs::default(), call: None }) };
        let seen = &self.seen;
        let needs = vaultlink_core::needs::needs(&self.inner, request, &changes_of(changes), &mut || seen.observed());
        to_js(&NeedsForJs { needs, call: Some(number) })
    }

    /// The number of the call read of `tool`: `call`, when it names one kept, or a call read now
    /// from `arguments` and kept; `None` for arguments core refuses.
    fn read_call(&mut self, tool: &str, arguments: JsValue, call: Option<u32>) -> Option<u32> {
        if let Some(number) = call.filter(|&number| self.read_calls.iter().any(|read| read.number == number && read.request.name() == tool))
        {
            return Some(number);
        }
        let request = arguments_of(arguments).and_then(|arguments| ops::request(tool, &arguments)).ok()?;
        if self.read_calls.len() == READ_CALLS_KEPT {
            self.read_calls.pop_front();
        }
        let number = self.next_read_call;
        self.next_read_call = self.next_read_call.wrapping_add(1);
        self.read_calls.push_back(ReadCall { number, request });
        Some(number)
    }

    /// The notes whose texts the plugin reads, before a call of `tool` with `arguments` (or the
    /// call `needs` read, `call`), for `keepSketches` (core's `ops::sketches_needed`): none but
    /// for a `lint_wiki` that runs `near_duplicate` on notes not sketched yet.
    #[wasm_bindgen(js_name = sketchesNeeded)]
    pub fn sketches_needed(&mut self, tool: &str, arguments: JsValue, call: Option<u32>) -> Vec<String> {
        let Some(number) = self.read_call(tool, arguments, call) else { return Vec::new() };
        match self.read_calls.iter().find(|read| read.number == number) {
            Some(read) => ops::sketches_needed(&mut self.inner, &read.request),
            None => Vec::new(),
        }
    }

    /// Sketches the notes `sketchesNeeded` named from their `texts` (as many as `paths`), and
    /// keeps each sketch whose note has not changed since it was named; returns how many were
    /// kept.
    #[wasm_bindgen(js_name = keepSketches)]
    pub fn keep_sketches(&mut self, paths: Vec<String>, texts: Vec<String>) -> Result<usize, JsError> {
        if paths.len() != texts.len() {
            return Err(JsError::new(&format!(
                "keepSketches takes as many texts as paths, not {} texts for {} paths",
                texts.len(),
                paths.len()
            )));
        }
        let sketch = vaultlink_core::sketch::Sketch::of_note;
        Ok(paths.iter().zip(&texts).filter(|(path, text)| self.inner.keep_sketch(path, sketch(text))).count())
    }

    /// The request of a call of `tool`: the one `needs` read and kept as `call`, taken, or read
    /// now from `arguments` (core's `ops::request`, whose refusal is the call's answer).
    fn request_of(&mut self, tool: &str, arguments: JsValue, call: Option<u32>) -> Result<ops::Request, CallError> {
        let kept = call.and_then(|number| self.read_calls.iter().position(|read| read.number == number && read.request.name() == tool));
        match kept.and_then(|at| self.read_calls.remove(at)) {
            Some(read) => Ok(read.request),
            None => arguments_of(arguments).and_then(|arguments| ops::request(tool, &arguments)),
        }
    }

    /// Runs a named operation (core's `ops::run` of the call read once, the one entry of every
    /// tool): `{ok: true,
    /// result, change?}` or `{ok: false, error: {code, message, hint, retryable}}`. A failed
    /// operation is an answer, not an exception. `read(path)` gives a note's text as it is now
    /// (`undefined` for one not read), `modified(path)` its modification time in milliseconds,
    /// `tag` names temporary files (the process id), `call` is the number `needs` answered for
    /// this call (its arguments then not read again). An approved change answers its steps in
    /// `change` (`{kind: "batch", batch, plan_hash}` or `{kind: "trash", path, before, keep}`) for the
    /// plugin to carry out before it answers `result`; `planApplied` records a batch done.
    // JavaScript hands these in by position: gathered in one object, they would be read by the
    // very conversion a call read once is spared.
    #[allow(clippy::too_many_arguments)]
    pub fn call(
        &mut self,
        tool: &str,
        arguments: JsValue,
        read: Option<js_sys::Function>,
        modified: Option<js_sys::Function>,
        tag: Option<u32>,
        changes: JsValue,
        call: Option<u32>,
    ) -> Result<JsValue, JsError> {
        let ListedChanges { kept: changes, unopened, undone } = listed_of(changes);
        let request = self.request_of(tool, arguments, call);
        // What the plugin saw change is worked out when core asks for it (`Edge::observed`).
        let mut edge = JsEdge { read, modified, tag: tag.unwrap_or(0), changes, unopened, undone, seen: &self.seen };
        let called = request.as_ref().map_err(Clone::clone).and_then(|request| ops::run(&self.inner, request, &mut edge, &mut self.plans));
        // A heal's plan keeps the moves it heals, to be accepted once the plugin carried it out.
        if let (Ok(ops::Request::HealMoves(_)), Ok(ops::Outcome { change: Some(ops::Change::Batch { plan_hash, .. }), .. })) =
            (&request, &called)
        {
            if let Some(observed) = self.seen.observed() {
                self.healing = Some((plan_hash.clone(), vaultlink_core::moves_detected::detect(&self.inner, &observed).pairs));
            }
        }
        match &called {
            Ok(outcome) => to_js(&CallOutcome::Done {
                ok: true,
                // Held under core's ceiling, as the sidecar holds its own answers.
                result: &{
                    let mut result = serde_json::to_value(&outcome.answer).unwrap_or(serde_json::Value::Null);
                    vaultlink_core::answer::bound(&mut result);
                    result
                },
                change: outcome.change.as_ref(),
                guard: outcome.change.as_ref().map(ops::Change::paths_to_guard),
            }),
            Err(error) => to_js(&CallOutcome::Failed { ok: false, error }),
        }
    }

    /// Records that the batch of the plan `plan_hash` was carried out, for the approval of later
    /// calls (an approval of it again is then `already_applied`).
    #[wasm_bindgen(js_name = planApplied)]
    pub fn plan_applied(&mut self, plan_hash: &str) {
        self.plans.record_applied(plan_hash);
        if let Some((healed, moves)) = self.healing.take() {
            if healed == plan_hash {
                self.seen.accept(&moves);
            } else {
                self.healing = Some((healed, moves));
            }
        }
    }
}

/// What the plugin hands a call: its callbacks, as core's `Edge`.
struct JsEdge<'a> {
    read: Option<js_sys::Function>,
    modified: Option<js_sys::Function>,
    tag: u32,
    changes: Vec<vaultlink_core::history::KeptChange>,
    unopened: Vec<vaultlink_core::history::UnopenedChange>,
    undone: Vec<vaultlink_core::history::KeptChange>,
    /// What the plugin saw change since its first index, for the calls that ask.
    seen: &'a vaultlink_core::seen_since::SeenSince,
}

/// A file of the kept changes as JavaScript hands it in: opened (`{name, journal}`), or not
/// (`{name, why}`).
#[derive(serde::Deserialize)]
#[serde(untagged)]
enum Listed {
    Kept(vaultlink_core::history::KeptChange),
    Unopened(vaultlink_core::history::UnopenedChange),
}

/// The files of the kept changes as JavaScript hands them in.
struct ListedChanges {
    kept: Vec<vaultlink_core::history::KeptChange>,
    /// Those that could not be opened.
    unopened: Vec<vaultlink_core::history::UnopenedChange>,
    /// Those an undo set aside (`history::undone_record`), the records of undoes made; one that
    /// did not open records nothing.
    undone: Vec<vaultlink_core::history::KeptChange>,
}

/// The kept changes JavaScript hands in, sorted by their names (none for `undefined` or what
/// cannot be read).
fn listed_of(changes: JsValue) -> ListedChanges {
    let mut sorted = ListedChanges { kept: Vec::new(), unopened: Vec::new(), undone: Vec::new() };
    if changes.is_undefined() || changes.is_null() {
        return sorted;
    }
    let listed: Vec<Listed> = serde_wasm_bindgen::from_value(changes).unwrap_or_default();
    for item in listed {
        match item {
            Listed::Kept(change) if vaultlink_core::history::undone_record(&change.name).is_some() => sorted.undone.push(change),
            Listed::Unopened(change) if vaultlink_core::history::undone_record(&change.name).is_some() => {}
            Listed::Kept(change) => sorted.kept.push(change),
            Listed::Unopened(change) => sorted.unopened.push(change),
        }
    }
    sorted
}

/// The kept changes JavaScript hands in.
fn changes_of(changes: JsValue) -> Vec<vaultlink_core::history::KeptChange> {
    listed_of(changes).kept
}

impl ops::Edge for JsEdge<'_> {
    fn text(&mut self, path: &str) -> Result<String, CallError> {
        let text = self.read.as_ref().and_then(|read| read.call1(&JsValue::NULL, &JsValue::from_str(path)).ok());
        text.and_then(|text| text.as_string()).ok_or_else(|| CallError::not_supplied(path))
    }

    fn modified_ms(&mut self, path: &str) -> Option<u64> {
        let modified = self.modified.as_ref()?.call1(&JsValue::NULL, &JsValue::from_str(path)).ok()?;
        modified.as_f64().filter(|time| time.is_finite() && *time >= 0.0).map(|time| time as u64)
    }

    fn tag(&self) -> u32 {
        self.tag
    }

    fn changes(&mut self) -> Vec<vaultlink_core::history::KeptChange> {
        self.changes.clone()
    }

    fn unopened_changes(&mut self) -> Vec<vaultlink_core::history::UnopenedChange> {
        self.unopened.clone()
    }

    fn undone_changes(&mut self) -> Vec<vaultlink_core::history::KeptChange> {
        self.undone.clone()
    }

    fn observed(&mut self) -> Option<vaultlink_core::moves_detected::Observed> {
        self.seen.observed()
    }
}

/// A call's arguments from JavaScript as JSON (`undefined` and `null` as no arguments), for
/// core's parameter check.
fn arguments_of(arguments: JsValue) -> Result<serde_json::Value, CallError> {
    if arguments.is_undefined() || arguments.is_null() {
        return Ok(serde_json::Value::Null);
    }
    serde_wasm_bindgen::from_value(arguments)
        .map_err(|error| CallError::of(&OpError::InvalidArguments { detail: format!("the arguments could not be read: {error}") }))
}
