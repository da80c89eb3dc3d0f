//! vaultlink's core for JavaScript. This crate converts types and errors, nothing else: every
//! decision is made in `vaultlink-core`.

use serde::Serialize;
use std::collections::BTreeMap;
use vaultlink_core::line_index::{Utf16Index, Utf16Position};

use vaultlink_core::error::Failure as CoreError;
use vaultlink_core::ops::{self, OpError, Request};
use vaultlink_core::{evidence, rename};
use wasm_bindgen::prelude::*;

/// The link index of one vault, kept in wasm memory.
#[wasm_bindgen]
#[derive(Debug)]
pub struct Vault {
    inner: vaultlink_core::Vault,
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

#[derive(Serialize)]
struct ErrorBody {
    code: &'static str,
    message: String,
    hint: &'static str,
    retryable: bool,
}

impl ErrorBody {
    /// Any of core's errors, as it crosses to JavaScript: the one place they become an error body.
    fn of(error: &impl CoreError) -> ErrorBody {
        ErrorBody { code: error.code().as_str(), message: error.message(), hint: error.hint(), retryable: error.retryable() }
    }
}

#[derive(Serialize)]
#[serde(untagged)]
enum CallOutcome<T = ops::Response> {
    Done { ok: bool, result: T },
    Failed { ok: bool, error: ErrorBody },
}

/// A parsed note for JavaScript: the core's result, plus each link's position as Obsidian
/// counts it (UTF-16), in the order of `links`.
#[derive(Serialize)]
struct ParsedForJs {
    #[serde(flatten)]
    note: vaultlink_core::ParsedNote,
    link_positions: Vec<Loc>,
}

#[derive(Serialize)]
struct Loc {
    start: Utf16Position,
    end: Utf16Position,
}

#[derive(Serialize)]
struct NotesOutcome {
    ok: bool,
    notes: Vec<String>,
}

#[derive(Serialize)]
struct PlanOutcome {
    ok: bool,
    plan: rename::MovePlan,
}

#[derive(Serialize)]
struct Failure {
    ok: bool,
    error: ErrorBody,
}

fn failure(error: &impl CoreError) -> Failure {
    Failure { ok: false, error: ErrorBody::of(error) }
}

/// What `move_note` answers for `plan`: `{dry_run, applied, plan_hash, moves, notes_edited,
/// changes?, links_changed, newly_resolved}`.
#[wasm_bindgen(js_name = moveAnswer)]
pub fn move_answer(plan: JsValue, dry_run: bool, applied: bool, detailed: bool) -> Result<JsValue, JsError> {
    let plan: rename::MovePlan =
        serde_wasm_bindgen::from_value(plan).map_err(|error| JsError::new(&format!("not a move plan: {error}")))?;
    to_js(&rename::MoveAnswer::new(&plan, dry_run, applied, detailed))
}

#[derive(Serialize)]
struct DeletePlanOutcome {
    ok: bool,
    plan: vaultlink_core::delete::DeletePlan,
}

#[derive(Serialize)]
struct DeleteDecision {
    answer: vaultlink_core::delete::DeleteAnswer,
    delete: bool,
}

/// Decides a `delete_note` request (`{confirm, force, expected_hash, expected_mtime,
/// approved_plan_hash}`) against its plan and the note's modification time in milliseconds:
/// `{answer, delete}`.
#[wasm_bindgen(js_name = decideDelete)]
pub fn decide_delete(plan: JsValue, request: JsValue, mtime: Option<f64>) -> Result<JsValue, JsError> {
    let plan: vaultlink_core::delete::DeletePlan =
        serde_wasm_bindgen::from_value(plan).map_err(|error| JsError::new(&format!("not a delete plan: {error}")))?;
    let request: vaultlink_core::delete::DeleteRequest =
        serde_wasm_bindgen::from_value(request).map_err(|error| JsError::new(&format!("not a delete request: {error}")))?;
    let (answer, delete) = vaultlink_core::delete::decide(&plan, &request, mtime.map(|mtime| mtime as u64));
    to_js(&DeleteDecision { answer, delete })
}

/// The deleted note's text, split as `delete_note` hands it back: `{frontmatter?, body, text}`.
#[wasm_bindgen(js_name = captureNote)]
pub fn capture_note(text: &str) -> Result<JsValue, JsError> {
    to_js(&vaultlink_core::delete::capture(text))
}

/// The `concise` form of a `delete_note` answer.
#[wasm_bindgen(js_name = conciseDeleteAnswer)]
pub fn concise_delete_answer(answer: JsValue) -> Result<JsValue, JsError> {
    let answer: vaultlink_core::delete::DeleteAnswer =
        serde_wasm_bindgen::from_value(answer).map_err(|error| JsError::new(&format!("not a delete answer: {error}")))?;
    to_js(&answer.concise())
}

/// Applies a file's edits (from a plan) to its text.
#[wasm_bindgen(js_name = applyEdits)]
pub fn apply_edits(text: &str, edits: JsValue) -> Result<String, JsError> {
    let edits: Vec<rename::TextEdit> =
        serde_wasm_bindgen::from_value(edits).map_err(|error| JsError::new(&format!("not a list of edits: {error}")))?;
    if edits.windows(2).any(|pair| pair[0].span.end > pair[1].span.start)
        || edits.last().is_some_and(|edit| edit.span.end > text.len())
        || edits.iter().any(|edit| !text.is_char_boundary(edit.span.start) || !text.is_char_boundary(edit.span.end))
    {
        return Err(JsError::new("the edits do not fit this text: it changed since the plan was made"));
    }
    Ok(rename::apply_edits(text, &edits))
}

/// The batch that carries out an approved `plan` (core's `batch`): `{batch}` with the steps the
/// plugin executes (`{tool, writes: [{path, before, before_hash, text, after_hash, temporary}],
/// moves: [{from, to, via}], folders, emptied_folders}`), or `{error}` when a note's text
/// (`texts`, by path) is no longer the one planned on.
#[wasm_bindgen(js_name = batchOf)]
pub fn batch_of(plan: JsValue, texts: JsValue, tool: &str, moved_folder: Option<String>, tag: u32) -> Result<JsValue, JsError> {
    let plan: rename::MovePlan =
        serde_wasm_bindgen::from_value(plan).map_err(|error| JsError::new(&format!("not a move plan: {error}")))?;
    let texts: BTreeMap<String, String> =
        serde_wasm_bindgen::from_value(texts).map_err(|error| JsError::new(&format!("texts must map paths to strings: {error}")))?;
    #[derive(Serialize)]
    struct Batched {
        batch: Option<vaultlink_core::batch::Batch>,
        error: Option<ErrorBody>,
    }
    match vaultlink_core::batch::batch(&plan, &texts, tool, moved_folder.as_deref(), tag) {
        Ok(batch) => to_js(&Batched { batch: Some(batch), error: None }),
        Err(error) => to_js(&Batched { batch: None, error: Some(ErrorBody::of(&error)) }),
    }
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

/// Why `path` is not a path inside the vault (core's `paths::vault_path_problem`, the rule a
/// tool's path must pass), as the end of a sentence; null when it is one.
#[wasm_bindgen(js_name = vaultPathProblem)]
pub fn vault_path_problem(path: &str) -> Option<String> {
    vaultlink_core::paths::vault_path_problem(path).map(str::to_owned)
}

/// The folder a folder move empties, spelt as in the vault; null for the move of one file.
#[wasm_bindgen(js_name = movedFolder)]
pub fn moved_folder(from: &str, plan: JsValue) -> Result<Option<String>, JsError> {
    let plan: rename::MovePlan =
        serde_wasm_bindgen::from_value(plan).map_err(|error| JsError::new(&format!("not a move plan: {error}")))?;
    Ok(rename::moved_folder(from, &plan))
}

/// Whether to apply the plan whose hash is `plan_hash`, given the caller's `{dry_run,
/// approved_plan_hash}` and the plugin's `{issued, applied}` plan hashes: `{apply}`, or `{error: {code, message, hint, retryable}}` (core's
/// `approval`, the one decision both edges make).
#[wasm_bindgen(js_name = decidePlan)]
pub fn decide_plan(plan_hash: &str, approval: JsValue, history: JsValue) -> Result<JsValue, JsError> {
    let approval: vaultlink_core::approval::PlanApproval =
        serde_wasm_bindgen::from_value(approval).map_err(|error| JsError::new(&format!("not an approval: {error}")))?;
    let history: vaultlink_core::approval::PlanHistory =
        serde_wasm_bindgen::from_value(history).map_err(|error| JsError::new(&format!("not a plan history: {error}")))?;
    #[derive(Serialize)]
    struct Decided {
        apply: Option<bool>,
        error: Option<ErrorBody>,
    }
    match vaultlink_core::approval::decide_plan(plan_hash, &approval, &history) {
        Ok(apply) => to_js(&Decided { apply: Some(apply), error: None }),
        Err(error) => to_js(&Decided { apply: None, error: Some(ErrorBody::of(&error)) }),
    }
}

/// The journal file's text for `journal` (`{version, pid, tool, started_unix_ms, machine,
/// writes, moves, made_folders}`), sealed with this user's journal key (core's `journal`).
#[wasm_bindgen(js_name = sealJournal)]
pub fn seal_journal(key: &[u8], journal: JsValue) -> Result<String, JsError> {
    let journal: vaultlink_core::journal::Journal =
        serde_wasm_bindgen::from_value(journal).map_err(|error| JsError::new(&format!("not a journal: {error}")))?;
    Ok(vaultlink_core::journal::seal(key, &journal))
}

#[derive(Serialize)]
struct OpenedJournal {
    journal: Option<vaultlink_core::journal::Journal>,
    /// Why the journal may not be acted on, as the end of a sentence.
    refusal: Option<String>,
}

/// Opens a journal file's text with this user's journal key: `{journal}` when it may be acted
/// on, `{refusal}` (the reason) when it may not.
#[wasm_bindgen(js_name = openJournal)]
pub fn open_journal(key: &[u8], text: &str) -> Result<JsValue, JsError> {
    match vaultlink_core::journal::open(key, text.as_bytes()) {
        Ok(journal) => to_js(&OpenedJournal { journal: Some(journal), refusal: None }),
        Err(refusal) => to_js(&OpenedJournal { journal: None, refusal: Some(refusal.message()) }),
    }
}

/// SHA-256 of a text as lowercase hex, as a plan's `content_hash`.
#[wasm_bindgen(js_name = contentHash)]
pub fn content_hash(text: &str) -> String {
    rename::content_hash(text)
}

/// One lint rule as callers choose it: the `kind` `lint_wiki` takes, its stable `code`, and
/// what it finds.
#[derive(Serialize)]
struct LintRuleForJs {
    kind: &'static str,
    code: &'static str,
    summary: &'static str,
}

/// Every lint rule of core, in the order their findings are reported: `[{kind, code,
/// summary}]`, so a caller offers exactly the kinds `lint_wiki` takes.
#[wasm_bindgen(js_name = lintRules)]
pub fn lint_rules() -> Result<JsValue, JsError> {
    let rules: Vec<LintRuleForJs> =
        vaultlink_core::lint::RULES.iter().map(|rule| LintRuleForJs { kind: rule.kind, code: rule.code, summary: rule.summary }).collect();
    to_js(&rules)
}

/// Parses one note the way the index does. `path` gives the title.
#[wasm_bindgen(js_name = parseNote)]
pub fn parse_note(path: &str, text: &str) -> Result<JsValue, JsError> {
    let note = vaultlink_core::parse_note(path, text, &vaultlink_core::ParseConfig::OBSIDIAN);
    let index = Utf16Index::new(text);
    let link_positions =
        note.links.iter().map(|link| Loc { start: index.position(link.span.start), end: index.position(link.span.end) }).collect();
    to_js(&ParsedForJs { note, link_positions })
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
        Vault { inner: vaultlink_core::Vault::new(vaultlink_core::index::IndexConfig::obsidian_defaults()) }
    }

    /// Adds a file or replaces its text. Paths are vault-relative with `/` separators.
    pub fn upsert(&mut self, path: &str, text: &str) {
        self.inner.upsert(path, text);
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
            let prepared = vaultlink_core::Vault::prepare(&parse, &path, text);
            (path, prepared)
        });
        self.inner.insert_prepared_many(prepared.collect());
        Ok(())
    }

    /// Removes a file; false when there was none.
    pub fn remove(&mut self, path: &str) -> bool {
        self.inner.remove(path)
    }

    /// Moves a file; false when there was none at `from`.
    pub fn rename(&mut self, from: &str, to: &str) -> bool {
        self.inner.rename(from, to)
    }

    /// The path of the note a person means by `path` (exact, `.md` left out, other case or
    /// normalisation), or `undefined`.
    #[wasm_bindgen(js_name = findNote)]
    pub fn find_note(&self, path: &str) -> Option<String> {
        self.inner.find_note(path).map(str::to_owned)
    }

    /// Follows Obsidian's settings from the text of `.obsidian/app.json` (excluded files,
    /// attachment folder, new link format). Returns a sentence for each setting it could not
    /// follow.
    #[wasm_bindgen(js_name = configureFromObsidian)]
    pub fn configure_from_obsidian(&mut self, app_json: &str) -> Vec<String> {
        let (config, warnings) = vaultlink_core::config::from_app_json(app_json);
        self.inner.reconfigure(config);
        warnings
    }

    /// Step one of a move: the notes whose text `planMove` needs, as
    /// `{ok: true, notes}` or `{ok: false, error}`.
    #[wasm_bindgen(js_name = notesToRead)]
    pub fn notes_to_read(&self, from: &str, to: &str) -> Result<JsValue, JsError> {
        match rename::notes_to_read(&self.inner, from, to) {
            Ok(notes) => to_js(&NotesOutcome { ok: true, notes }),
            Err(error) => to_js(&failure(&error)),
        }
    }

    /// Step two: plans and proves the move, given `{path: text}` for every note step one named.
    /// `{ok: true, plan}` or `{ok: false, error}`.
    #[wasm_bindgen(js_name = planMove)]
    pub fn plan_move(&self, from: &str, to: &str, texts: JsValue) -> Result<JsValue, JsError> {
        let texts: BTreeMap<String, String> =
            serde_wasm_bindgen::from_value(texts).map_err(|error| JsError::new(&format!("texts must map paths to strings: {error}")))?;
        match rename::plan_move(&self.inner, from, to, &texts) {
            Ok(plan) => to_js(&PlanOutcome { ok: true, plan }),
            Err(error) => to_js(&failure(&error)),
        }
    }

    /// Step one of `rewrite_link`: the notes holding a link whose target is `from_target`.
    #[wasm_bindgen(js_name = notesToReadForRewrite)]
    pub fn notes_to_read_for_rewrite(&self, from_target: &str) -> Vec<String> {
        rename::notes_to_read_for_rewrite(&self.inner, from_target)
    }

    /// Step two of `rewrite_link`: `{ok: true, plan}` or `{ok: false, error}`.
    #[wasm_bindgen(js_name = planRewriteLink)]
    pub fn plan_rewrite_link(&self, from_target: &str, to_target: &str, texts: JsValue) -> Result<JsValue, JsError> {
        let texts: BTreeMap<String, String> =
            serde_wasm_bindgen::from_value(texts).map_err(|error| JsError::new(&format!("texts must map paths to strings: {error}")))?;
        match rename::plan_rewrite_link(&self.inner, from_target, to_target, &texts) {
            Ok(plan) => to_js(&PlanOutcome { ok: true, plan }),
            Err(error) => to_js(&failure(&error)),
        }
    }

    /// Plans a safe delete of the note at `path` whose current text is `text`:
    /// `{ok: true, plan}` or `{ok: false, error}`.
    #[wasm_bindgen(js_name = planDelete)]
    pub fn plan_delete(&self, path: &str, text: &str) -> Result<JsValue, JsError> {
        match vaultlink_core::delete::plan_delete(&self.inner, path, text) {
            Ok(plan) => to_js(&DeletePlanOutcome { ok: true, plan }),
            Err(error) => to_js(&failure(&error)),
        }
    }

    #[wasm_bindgen(js_name = noteCount)]
    pub fn note_count(&self) -> usize {
        self.inner.note_count()
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

    /// Runs a named operation: `{ok: true, result}` or `{ok: false, error: {code, message,
    /// hint, retryable}}`. A failed operation is an answer, not an exception.
    pub fn call(&self, tool: &str, arguments: JsValue) -> Result<JsValue, JsError> {
        let outcome = match request(tool, arguments).and_then(|request| ops::run(&self.inner, &request)) {
            Ok(result) => CallOutcome::Done { ok: true, result },
            Err(error) => CallOutcome::Failed { ok: false, error: ErrorBody::of(&error) },
        };
        to_js(&outcome)
    }

    /// `find_evidence`: the notes that mention a concept. `read(path)` gives a note's text, or
    /// `undefined` when it cannot be read (the note is then matched from the index alone and
    /// listed as unread). `{ok: true, result}` or `{ok: false, error}`, as `call` answers.
    #[wasm_bindgen(js_name = findEvidence)]
    pub fn find_evidence(&self, arguments: JsValue, read: &js_sys::Function) -> Result<JsValue, JsError> {
        let arguments = if arguments.is_undefined() || arguments.is_null() { js_sys::Object::new().into() } else { arguments };
        let found = serde_wasm_bindgen::from_value::<evidence::EvidenceArguments>(arguments)
            .map_err(|error| OpError::InvalidArguments { detail: error.to_string() })
            .and_then(|arguments| {
                let mut read_text =
                    |path: &str| read.call1(&JsValue::NULL, &JsValue::from_str(path)).ok().and_then(|text| text.as_string());
                evidence::find_evidence(&self.inner, &arguments, &mut read_text)
            });
        let outcome = match found {
            Ok(result) => CallOutcome::Done { ok: true, result },
            Err(error) => CallOutcome::Failed { ok: false, error: ErrorBody::of(&error) },
        };
        to_js(&outcome)
    }
}

/// Builds `{tool, arguments}` and reads it as a core [`Request`], so unknown tools and missing
/// or unknown parameters get serde's precise message.
fn request(tool: &str, arguments: JsValue) -> Result<Request, OpError> {
    let call = js_sys::Object::new();
    let arguments = if arguments.is_undefined() || arguments.is_null() { js_sys::Object::new().into() } else { arguments };
    let invalid = |detail: String| OpError::InvalidArguments { detail };
    js_sys::Reflect::set(&call, &"tool".into(), &tool.into())
        .and_then(|_| js_sys::Reflect::set(&call, &"arguments".into(), &arguments))
        .map_err(|_| invalid("the arguments could not be read".to_owned()))?;
    serde_wasm_bindgen::from_value(call.into()).map_err(|error| invalid(error.to_string()))
}
