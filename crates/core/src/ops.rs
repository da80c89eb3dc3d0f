//! The named operations that agents and the plugin call, with their arguments, results and
//! errors as plain serde data: the single entry of every tool, reading or writing.
//!
//! The sidecar (standalone, on the folder) and the wasm crate (inside the plugin) both run
//! every call through [`call`] (or [`run`] with a parsed [`Request`]), which is why the two paths
//! give equal answers. Names match the MCP tool names, but nothing here knows about MCP. What
//! only the edge can see (a note's text as it is now, its modification time) comes in through
//! the [`Edge`] it hands in, never through the caller's arguments. A writing operation that is
//! approved answers a [`Change`] as well: the steps the edge carries out before it answers.

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use crate::answer::*;
use crate::approval::PlanHistory;
pub use crate::change::{DeleteArguments, MoveArguments, RewriteArguments};
pub use crate::edge::{Change, Edge, ReadBefore};
use crate::error::CallError;
use crate::evidence::EvidenceArguments;
pub use crate::existing::{find_existing_page, ExistingPage, FindPageArguments, PageCandidate, PageEvidence, UnresolvedMentions};
use crate::index::{LinkAt, ResolvedLink, SubpathStatus, Summary, Vault};
use crate::lint::{Proposal, Skipped};
use crate::parse::{parse_note, LinkKind, LinkSource, ParseConfig, Span};
use crate::resolve::{self, fold, Resolution};

/// One call: the operation's name and its arguments, as
/// `{"tool": "get_outgoing_links", "arguments": {"path": "A.md"}}`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "tool", content = "arguments", rename_all = "snake_case")]
pub enum Request {
    GetOutgoingLinks(PagedNoteArguments),
    GetBacklinks(PagedNoteArguments),
    FindUnresolvedLinks(PageArguments),
    FindOrphans(FolderPageArguments),
    ResolveLink(ResolveArguments),
    ListNotes(FolderPageArguments),
    ReadNote(ReadArguments),
    VaultSummary {},
    LintWiki(LintArguments),
    FindExistingPage(FindPageArguments),
    FindEvidence(EvidenceArguments),
    MoveNote(MoveArguments),
    RewriteLink(RewriteArguments),
    DeleteNote(DeleteArguments),
    UpdateProperties(crate::properties::PropertiesArguments),
    BulkMoveNotes(crate::change::BulkMoveArguments),
    CommitWikiPage(crate::wiki_request::CommitArguments),
    DraftWikiPage(crate::draft::DraftArguments),
    UndoChange(crate::history::UndoArguments),
    ListChanges(crate::history_list::ListChangesArguments),
    FindLinkPaths(crate::graph::PathArguments),
    LinkGraph(crate::graph::GraphArguments),
    DetectedMoves(crate::moves_detected::DetectedMovesArguments),
    HealMoves(crate::moves_detected::HealArguments),
    FixBrokenLinks(crate::change::FixLinksArguments),
    LinkMentions(crate::mentions::MentionsArguments),
}

impl Request {
    /// What a writing call that plans with a `plan_hash` said about applying it; `None` for a
    /// read, and for `delete_note`, which confirms instead.
    fn plan_approval(&self) -> Option<crate::approval::PlanApproval> {
        match self {
            Request::MoveNote(arguments) => Some(arguments.approval()),
            Request::RewriteLink(arguments) => Some(arguments.approval()),
            Request::UpdateProperties(arguments) => Some(arguments.approval()),
            Request::BulkMoveNotes(arguments) => Some(arguments.approval()),
            Request::CommitWikiPage(arguments) => Some(arguments.approval()),
            Request::UndoChange(arguments) => Some(arguments.approval()),
            Request::HealMoves(arguments) => Some(arguments.approval()),
            Request::FixBrokenLinks(arguments) => Some(arguments.approval()),
            Request::LinkMentions(arguments) => Some(arguments.approval()),
            _ => None,
        }
    }

    /// The plan hash a writing call approves, when it gives one.
    pub fn approved_plan_hash(&self) -> Option<String> {
        match self {
            Request::DeleteNote(arguments) => arguments.approved_plan_hash.clone(),
            request => request.plan_approval().and_then(|approval| approval.approved_plan_hash),
        }
    }

    /// The operation's name, as callers spell it.
    pub fn name(&self) -> &'static str {
        match self {
            Request::GetOutgoingLinks(_) => "get_outgoing_links",
            Request::GetBacklinks(_) => "get_backlinks",
            Request::FindUnresolvedLinks(_) => "find_unresolved_links",
            Request::FindOrphans(_) => "find_orphans",
            Request::ResolveLink(_) => "resolve_link",
            Request::ListNotes(_) => "list_notes",
            Request::ReadNote(_) => "read_note",
            Request::VaultSummary {} => "vault_summary",
            Request::LintWiki(_) => "lint_wiki",
            Request::FindExistingPage(_) => "find_existing_page",
            Request::FindEvidence(_) => "find_evidence",
            Request::MoveNote(_) => "move_note",
            Request::RewriteLink(_) => "rewrite_link",
            Request::DeleteNote(_) => "delete_note",
            Request::UpdateProperties(_) => "update_properties",
            Request::BulkMoveNotes(_) => "bulk_move_notes",
            Request::CommitWikiPage(_) => "commit_wiki_page",
            Request::DraftWikiPage(_) => "draft_wiki_page",
            Request::UndoChange(_) => "undo_change",
            Request::ListChanges(_) => "list_changes",
            Request::FindLinkPaths(_) => "find_link_paths",
            Request::LinkGraph(_) => "link_graph",
            Request::DetectedMoves(_) => "detected_moves",
            Request::HealMoves(_) => "heal_moves",
            Request::FixBrokenLinks(_) => "fix_broken_links",
            Request::LinkMentions(_) => "link_mentions",
        }
    }

    /// Whether the operation may change the vault, as core's table of tools says (`tools`).
    pub fn writes(&self) -> bool {
        crate::tools::writes_vault(self.name())
    }

    /// Whether the call asks for a change to be made, not previewed: a writing operation whose
    /// arguments apply its plan (`dry_run: false`, or an approved plan hash) or confirm its
    /// delete. An edge takes the vault's lock before it plans such a call, and holds it until
    /// the change is made; a preview plans as a read does.
    pub fn asks_to_apply(&self) -> bool {
        match self {
            Request::DeleteNote(arguments) => arguments.confirm || arguments.approved_plan_hash.is_some(),
            request => request.plan_approval().is_some_and(|approval| approval.asks_to_apply()),
        }
    }
}

/// What a call answers, and what the edge must carry out first when the call changes the vault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The answer, as it holds once `change` (if any) is carried out.
    pub answer: Response,
    pub change: Option<Change>,
}

impl Outcome {
    /// Records where a delete's file went, once the edge has moved it.
    pub fn trashed_to(&mut self, place: String) {
        if let Response::Deleted(answer) = &mut self.answer {
            answer.trashed_to = Some(place);
        }
    }
}

/// Reads a call as `tool` and its `arguments`, held to the operation's parameters first
/// (`parameters::check`), so a refusal names the parameter as the advertised schema does.
pub fn request(tool: &str, arguments: &Value) -> Result<Request, CallError> {
    crate::parameters::check(tool, arguments)?;
    let arguments = if arguments.is_null() { Value::Object(Default::default()) } else { arguments.clone() };
    serde_json::from_value(serde_json::json!({ "tool": tool, "arguments": arguments }))
        .map_err(|error| CallError::of(&OpError::InvalidArguments { detail: error.to_string() }))
}

/// The notes whose texts `request` will ask its edge for, as far as the index tells now, part of
/// what an edge that reads asynchronously gathers first (`needs::needs`). `changes` are the kept
/// changes (`Edge::changes`), which only `undo_change` and `list_changes` read for their notes.
pub fn notes_needed(vault: &Vault, request: &Request, changes: &[crate::history::KeptChange]) -> Vec<String> {
    match request {
        Request::UndoChange(arguments) => crate::history::notes_needed(vault, arguments, changes),
        Request::ListChanges(arguments) => crate::history_list::notes_needed(vault, arguments, changes),
        Request::ReadNote(arguments) => vault.find_note(&arguments.path).map(|path| vec![path.to_owned()]).unwrap_or_default(),
        Request::FindEvidence(_) => vault.note_paths().map(str::to_owned).collect(),
        Request::DraftWikiPage(_) => crate::draft::notes_needed(vault),
        Request::MoveNote(arguments) => crate::change::move_notes_needed(vault, arguments),
        Request::RewriteLink(arguments) => crate::change::rewrite_notes_needed(vault, arguments),
        Request::DeleteNote(arguments) => crate::change::delete_notes_needed(vault, arguments),
        Request::UpdateProperties(arguments) => crate::change::properties_notes_needed(vault, arguments),
        Request::BulkMoveNotes(arguments) => crate::change::bulk_notes_needed(vault, arguments),
        Request::CommitWikiPage(arguments) => crate::wiki::notes_needed(vault, arguments),
        Request::LintWiki(_) => crate::source_hashes::notes_needed(vault),
        Request::FixBrokenLinks(arguments) => crate::change::fix_links_notes_needed(vault, arguments),
        Request::LinkMentions(arguments) => crate::change::mentions_notes_needed(vault, arguments),
        _ => Vec::new(),
    }
}

/// Parses and runs one call: [`request`], then [`run`].
pub fn call(vault: &Vault, tool: &str, arguments: &Value, edge: &mut dyn Edge, plans: &mut PlanHistory) -> Result<Outcome, CallError> {
    run(vault, &request(tool, arguments)?, edge, plans)
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoteArguments {
    /// The note's path relative to the vault root; `.md` may be left out.
    pub path: String,
    #[serde(default)]
    pub response_format: ResponseFormat,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PagedNoteArguments {
    pub path: String,
    pub limit: Option<usize>,
    pub cursor: Option<String>,
    #[serde(default)]
    pub response_format: ResponseFormat,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PageArguments {
    pub limit: Option<usize>,
    pub cursor: Option<String>,
    #[serde(default)]
    pub response_format: ResponseFormat,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FolderPageArguments {
    /// Only notes in this folder (and below it).
    pub folder: Option<String>,
    pub limit: Option<usize>,
    pub cursor: Option<String>,
    #[serde(default)]
    pub response_format: ResponseFormat,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResolveArguments {
    /// The note the link is written in.
    pub from: String,
    /// The link: `[[Note#Heading]]`, `[text](../Note.md)`, or a bare target `Note#Heading`.
    pub link: String,
    /// `concise` leaves out an ambiguous link's candidates.
    #[serde(default)]
    pub response_format: ResponseFormat,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadArguments {
    pub path: String,
    #[serde(default)]
    pub response_format: ResponseFormat,
    /// The most bytes of the body to return (a page); `DEFAULT_READ_BYTES` when left out.
    #[serde(default)]
    pub max_bytes: Option<usize>,
    /// Where to continue: the `next_cursor` of the previous page (an offset in the body, bound
    /// to the note and its text).
    #[serde(default)]
    pub cursor: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LintArguments {
    /// Only notes in this folder (and below it) are subjects.
    pub folder: Option<String>,
    /// Folders whose notes are never subjects (they stay link targets), besides those the
    /// vault's settings exclude.
    #[serde(default)]
    pub excluded_folders: Vec<String>,
    /// The kinds to run (`unresolved_link` or `unresolved-link`); all when left out.
    pub kinds: Option<Vec<String>>,
    pub limit: Option<usize>,
    pub cursor: Option<String>,
    #[serde(default)]
    pub response_format: ResponseFormat,
}

/// What an operation returns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Response {
    OutgoingLinks(OutgoingLinks),
    Backlinks(Backlinks),
    Unresolved(Unresolved),
    Orphans(Orphans),
    Resolved(ResolvedTarget),
    Notes(NoteList),
    Note(NoteText),
    Summary(Summary),
    Lint(LintReport),
    ExistingPage(ExistingPage),
    Evidence(crate::evidence::Evidence),
    Moved(crate::move_answer::MoveAnswer),
    Deleted(crate::delete::DeleteAnswer),
    Properties(crate::properties::PropertiesAnswer),
    Committed(crate::wiki::CommitAnswer),
    Undone(crate::history::UndoAnswer),
    Changes(crate::history_list::ChangesList),
    Draft(Box<crate::draft::DraftAnswer>),
    LinkPaths(crate::graph::LinkPaths),
    Graph(crate::graph::GraphAnswer),
    DetectedMoves(crate::moves_detected::DetectedMovesAnswer),
    Healed(crate::moves_detected::HealAnswer),
    Repaired(crate::repair::RepairAnswer),
    Mentions(crate::mentions::MentionsAnswer),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct OutgoingLinks {
    /// The note's path, as found in the vault.
    pub path: String,
    pub links: Vec<OutgoingLink>,
    /// How many links the note has; `links` is one page of them.
    pub total: usize,
    /// True when the note had more links than the parser keeps.
    pub truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub next_cursor: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct OutgoingLink {
    pub kind: LinkKind,
    /// `body` or `property`.
    #[cfg_attr(feature = "typescript", ts(type = "LinkSource[\"source\"]"))]
    pub source: &'static str,
    /// The property's top-level key, for a property link.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub key: Option<String>,
    /// For a property link, the key as Obsidian's `FrontmatterLinkCache.key` writes it:
    /// `related.0` for the first item of `related`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub key_path: Option<String>,
    /// The target as written, subpath included, still percent-encoded in a markdown link.
    pub target: String,
    /// The destination as Obsidian's `LinkCache.link` gives it: decoded, without the subpath,
    /// and for a markdown link without a final `.md`.
    pub link: String,
    /// The subpath, decoded, with its `#`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub subpath: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub display: Option<String>,
    /// The text Obsidian shows for the link (`LinkCache.displayText`); `detailed` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub display_text: Option<String>,
    /// The link as written (`LinkCache.original`); `detailed` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub original: Option<String>,
    pub line: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub column: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub span: Option<Span>,
    /// `resolved`, `ambiguous` or `unresolved`.
    #[cfg_attr(feature = "typescript", ts(type = "\"resolved\" | \"ambiguous\" | \"unresolved\""))]
    pub status: &'static str,
    /// The file the link points to, when it points to one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub resolved_path: Option<String>,
    /// Every file that matches, for an ambiguous link.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub candidates: Option<Vec<String>>,
    /// For a link with `#heading` or `#^block`: whether it exists in the target.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub subpath_status: Option<SubpathStatus>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Backlinks {
    pub path: String,
    /// How many links point here in all, across pages.
    pub total: usize,
    pub backlinks: Vec<Backlink>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Backlink {
    /// The note that holds the link.
    pub source: String,
    pub kind: LinkKind,
    /// `body` or `property`.
    pub link_source: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// For a property link, the key as `FrontmatterLinkCache.key` writes it (`related.0`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key_path: Option<String>,
    pub target: String,
    /// The destination as `LinkCache.link` gives it (see [`OutgoingLink::link`]).
    pub link: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display: Option<String>,
    pub line: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unresolved {
    /// How many missing targets in all, across pages.
    pub total_targets: usize,
    pub targets: Vec<MissingTarget>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// The notes and canvases with more links than the index reads (the first
    /// `MAX_REFERRERS_PER_TARGET`, in path order): a missing target named only past the limit
    /// is not counted above.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub truncated_files: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MissingTarget {
    /// The missing target as first written.
    pub target: String,
    /// How many links name it, across the vault.
    pub referrer_count: usize,
    /// The first `MAX_REFERRERS_PER_TARGET` of them.
    pub referrers: Vec<Referrer>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Referrer {
    pub source: String,
    pub line: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<LinkKind>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Orphans {
    pub total: usize,
    /// Notes no other note links to, from its body or its properties.
    pub orphans: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResolvedTarget {
    pub from: String,
    pub target: String,
    pub status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved_path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidates: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subpath_status: Option<SubpathStatus>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NoteList {
    pub total: usize,
    pub notes: Vec<NoteEntry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NoteEntry {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aliases: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub links_out: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub links_in: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NoteText {
    pub path: String,
    /// The YAML between the `---` lines, when the note has frontmatter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frontmatter: Option<String>,
    /// The text after the frontmatter, or the page of it that starts at the cursor.
    pub body: String,
    /// The length of the whole body in bytes, across pages.
    pub body_bytes: usize,
    /// Present when the body goes on: pass it as `cursor` to read the next page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aliases: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub headings: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LintReport {
    /// How many proposals in all, across pages.
    pub total: usize,
    /// Proposals per kind, across pages.
    pub counts: std::collections::BTreeMap<&'static str, usize>,
    pub proposals: Vec<Proposal>,
    /// Checks that could not run, with the reason.
    pub skipped: Vec<Skipped>,
    /// True when more than `lint::MAX_PROPOSALS` were found and the rest dropped.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// The whole vault's link health (`link_graph`'s `health`), whatever the lint's folder and
    /// kinds: one lint after another shows how the links fare over time.
    pub health: crate::graph::Health,
}

/// Runs one operation on the index; `edge` supplies what only it can see, `plans` are the plan
/// hashes the edge has answered (for the approval of a writing operation).
pub fn run(vault: &Vault, request: &Request, edge: &mut dyn Edge, plans: &mut PlanHistory) -> Result<Outcome, CallError> {
    let outcome = dispatch(vault, request, edge, plans);
    // A retried call (after a dropped connection, say) whose plan was applied already cannot be
    // carried out again: its note moved, its plan is another. Say that it was applied.
    // An undo consumes the change it undoes: the change set aside is the record of it.
    match (outcome, request.approved_plan_hash()) {
        (Err(failed), Some(approved)) => {
            let records = match request {
                Request::UndoChange(_) => edge.undone_changes(),
                _ => edge.changes(),
            };
            match crate::approval::applied_already(&approved, &records, plans) {
                Some(applied) => Err(CallError::of(&applied)),
                None => Err(failed),
            }
        }
        (outcome, _) => outcome,
    }
}

fn dispatch(vault: &Vault, request: &Request, edge: &mut dyn Edge, plans: &mut PlanHistory) -> Result<Outcome, CallError> {
    let error = |error: OpError| CallError::of(&error);
    let answer = match request {
        Request::GetOutgoingLinks(arguments) => outgoing_links_page(vault, arguments).map(Response::OutgoingLinks).map_err(error)?,
        Request::GetBacklinks(arguments) => backlinks(vault, arguments).map(Response::Backlinks).map_err(error)?,
        Request::FindUnresolvedLinks(arguments) => unresolved(vault, arguments).map(Response::Unresolved).map_err(error)?,
        Request::FindOrphans(arguments) => orphans(vault, arguments).map(Response::Orphans).map_err(error)?,
        Request::ResolveLink(arguments) => resolve_link(vault, arguments).map(Response::Resolved).map_err(error)?,
        Request::ListNotes(arguments) => list_notes(vault, arguments).map(Response::Notes).map_err(error)?,
        Request::ReadNote(arguments) => {
            let path = find(vault, &arguments.path).map_err(error)?;
            let text = edge.text(path)?;
            read_note(vault, arguments, &text).map(Response::Note).map_err(error)?
        }
        Request::VaultSummary {} => Response::Summary(vault.summary()),
        Request::ListChanges(arguments) => {
            crate::history_list::list_changes(vault, arguments, edge).map(Response::Changes).map_err(error)?
        }
        Request::LintWiki(arguments) => {
            // The sources pages keep hashes of, for `stale`; one the edge cannot read is not compared.
            let hashes = crate::source_hashes::current_hashes(vault, &mut |path| edge.text(path).ok());
            // The notes `near_duplicate` needs that the edge did not sketch before the call.
            let sketches =
                if wants_sketches(arguments) { vault.sketches_read(&mut |path| edge.text(path).ok()) } else { Default::default() };
            lint_wiki_reading(vault, arguments, Some(&hashes), Some(&sketches)).map(Response::Lint).map_err(error)?
        }
        Request::FindLinkPaths(arguments) => crate::graph::link_paths(vault, arguments).map(Response::LinkPaths).map_err(error)?,
        Request::LinkGraph(arguments) => crate::graph::link_graph(vault, arguments).map(Response::Graph).map_err(error)?,
        Request::FindExistingPage(arguments) => find_existing_page(vault, arguments).map(Response::ExistingPage).map_err(error)?,
        Request::FindEvidence(arguments) => {
            // A note the edge cannot read is listed as unread, and matched from the index alone.
            let mut read = |path: &str| edge.text(path).ok();
            crate::evidence::find_evidence(vault, arguments, &mut read).map(Response::Evidence).map_err(error)?
        }
        Request::DraftWikiPage(arguments) => {
            let mut read = |path: &str| edge.text(path).ok();
            crate::draft::draft(vault, arguments, &mut read).map(|draft| Response::Draft(Box::new(draft))).map_err(error)?
        }
        Request::MoveNote(arguments) => return moved(crate::change::move_note(vault, arguments, edge, plans)?),
        Request::RewriteLink(arguments) => return moved(crate::change::rewrite_link(vault, arguments, edge, plans)?),
        Request::BulkMoveNotes(arguments) => return moved(crate::change::bulk_move_notes(vault, arguments, edge, plans)?),
        Request::DeleteNote(arguments) => {
            let (answer, change) = crate::change::delete_note(vault, arguments, edge)?;
            return Ok(Outcome { answer: Response::Deleted(answer), change });
        }
        Request::UpdateProperties(arguments) => {
            let (answer, change) = crate::change::update_properties(vault, arguments, edge, plans)?;
            return Ok(Outcome { answer: Response::Properties(answer), change });
        }
        Request::CommitWikiPage(arguments) => {
            let (answer, change) = crate::change::commit_wiki_page(vault, arguments, edge, plans)?;
            return Ok(Outcome { answer: Response::Committed(answer), change });
        }
        Request::UndoChange(arguments) => {
            let (answer, change) = crate::history::undo_change(vault, arguments, edge, plans)?;
            return Ok(Outcome { answer: Response::Undone(answer), change });
        }
        Request::DetectedMoves(arguments) => {
            let observed = edge.observed();
            crate::moves_detected::detected_moves(vault, observed.as_ref(), arguments).map(Response::DetectedMoves).map_err(error)?
        }
        Request::HealMoves(arguments) => {
            let observed = edge.observed();
            let (answer, change) = crate::moves_detected::heal_moves(vault, observed.as_ref(), arguments, edge, plans)?;
            return Ok(Outcome { answer: Response::Healed(answer), change });
        }
        Request::FixBrokenLinks(arguments) => {
            let (answer, change) = crate::change::fix_broken_links(vault, arguments, edge, plans)?;
            return Ok(Outcome { answer: Response::Repaired(answer), change });
        }
        Request::LinkMentions(arguments) => {
            let (answer, change) = crate::change::link_mentions(vault, arguments, edge, plans)?;
            return Ok(Outcome { answer: Response::Mentions(answer), change });
        }
    };
    Ok(Outcome { answer, change: None })
}

fn moved((answer, change): (crate::move_answer::MoveAnswer, Option<Change>)) -> Result<Outcome, CallError> {
    Ok(Outcome { answer: Response::Moved(answer), change })
}

fn find<'a>(vault: &'a Vault, path: &str) -> Result<&'a str, OpError> {
    vault.find_note(path).ok_or_else(|| OpError::NoteNotFound { path: path.to_owned() })
}

fn status(resolution: &Resolution) -> &'static str {
    match resolution {
        Resolution::Resolved { .. } => "resolved",
        Resolution::Ambiguous { .. } => "ambiguous",
        Resolution::Unresolved => "unresolved",
    }
}

fn candidates(resolution: &Resolution) -> Option<Vec<String>> {
    match resolution {
        Resolution::Ambiguous { candidates, .. } => Some(candidates.clone()),
        _ => None,
    }
}

fn link_source(source: &LinkSource) -> (&'static str, Option<String>) {
    source.describe()
}

fn subpath_status(vault: &Vault, found: &ResolvedLink<'_>) -> Option<SubpathStatus> {
    match vault.subpath_status(&found.link, found.resolution) {
        SubpathStatus::NotApplicable => None,
        status => Some(status),
    }
}

pub fn outgoing_links(vault: &Vault, path: &str, format: ResponseFormat) -> Result<OutgoingLinks, OpError> {
    // A canvas holds links too: its file cards and the links of its text cards.
    let canvas = vault.find_file(path).filter(|found| crate::canvas::is_canvas_path(found));
    let path = match canvas {
        Some(canvas) => canvas,
        None => find(vault, path)?,
    };
    let detailed = format == ResponseFormat::Detailed;
    let links: Vec<OutgoingLink> = vault
        .outgoing_links(path)
        .unwrap_or_default()
        .iter()
        .map(|found| {
            let link = &found.link;
            let (source, key) = link_source(&link.source);
            OutgoingLink {
                kind: link.kind,
                source,
                key,
                key_path: link.frontmatter_key(),
                target: link.target.clone(),
                link: link.link_text(),
                subpath: link.subpath.clone(),
                display: if detailed { link.display.clone() } else { None },
                display_text: detailed.then(|| link.display_text()),
                original: detailed.then(|| link.original()),
                line: link.line,
                column: detailed.then_some(link.column),
                span: detailed.then_some(link.span),
                status: status(found.resolution),
                resolved_path: found.resolution.path().map(str::to_owned),
                candidates: if detailed { candidates(found.resolution) } else { None },
                subpath_status: subpath_status(vault, found),
            }
        })
        .collect();
    Ok(OutgoingLinks { path: path.to_owned(), total: links.len(), links, truncated: vault.is_truncated(path), next_cursor: None })
}

/// `get_outgoing_links`: one page of a note's links, the cursor bound to the note's links as
/// they are (where each is, and what it names).
pub fn outgoing_links_page(vault: &Vault, arguments: &PagedNoteArguments) -> Result<OutgoingLinks, OpError> {
    let mut answer = outgoing_links(vault, &arguments.path, arguments.response_format)?;
    let places: Vec<String> = answer.links.iter().map(|link| format!("{}:{:?}:{}", link.line, link.span, link.link)).collect();
    let scope = format!("get_outgoing_links\0{}\0{}", answer.path, list_digest(places.iter().map(String::as_str)));
    let (links, _, next_cursor) = page(std::mem::take(&mut answer.links), arguments.limit, arguments.cursor.as_deref(), &scope)?;
    answer.links = links;
    answer.next_cursor = next_cursor;
    Ok(answer)
}

pub fn backlinks(vault: &Vault, arguments: &PagedNoteArguments) -> Result<Backlinks, OpError> {
    let path = find(vault, &arguments.path)?;
    let detailed = arguments.response_format == ResponseFormat::Detailed;
    // Each page builds its own backlinks only: a note linked from tens of thousands of places is
    // paged through in as many calls, and building every one on each was most of the CLI's
    // `backlinks` at 100,000 notes.
    let build = |found: LinkAt<'_>| {
        let found = found.build();
        let (link_source, key) = link_source(&found.link.source);
        Backlink {
            source: found.source.to_owned(),
            kind: found.link.kind,
            link_source,
            key,
            key_path: found.link.frontmatter_key(),
            target: found.link.target.clone(),
            link: found.link.link_text(),
            display: if detailed { found.link.display.clone() } else { None },
            line: found.link.line,
            column: detailed.then_some(found.link.column),
        }
    };
    // Only the page's own places are put in order; a cursor that does not hold is refused by
    // `page_built` as for any list.
    let scope = format!("get_backlinks\0{path}");
    let total = vault.backlink_count(path);
    let start = parse_cursor(arguments.cursor.as_deref(), &scope, total).unwrap_or(0);
    let limit = arguments.limit.unwrap_or(DEFAULT_LIMIT);
    let (backlinks, total, next_cursor) = page_built(
        vault.backlinks_ordered_within(path, start..start.saturating_add(limit)),
        arguments.limit,
        arguments.cursor.as_deref(),
        DEFAULT_LIMIT,
        &scope,
        build,
    )?;
    Ok(Backlinks { path: path.to_owned(), total, backlinks, next_cursor })
}

pub fn unresolved(vault: &Vault, arguments: &PageArguments) -> Result<Unresolved, OpError> {
    let detailed = arguments.response_format == ResponseFormat::Detailed;
    // Grouped by the folded path, so `[[Foo]]` and `[[foo]]` are one missing note; the index
    // keeps the groups, and a page looks up the links of its own groups only.
    let missing_target = |key: &str| {
        let links = vault.unresolved_links_to(key);
        MissingTarget {
            target: links.first().map(|found| found.link.path.trim().to_owned()).unwrap_or_default(),
            referrer_count: links.len(),
            referrers: links
                .iter()
                .take(MAX_REFERRERS_PER_TARGET)
                .map(|found| Referrer {
                    source: found.source.to_owned(),
                    line: found.link.line,
                    column: detailed.then_some(found.link.column),
                    kind: detailed.then_some(found.link.kind),
                })
                .collect(),
        }
    };
    let (targets, total_targets, next_cursor) = page_built(
        vault.missing_target_keys(),
        arguments.limit,
        arguments.cursor.as_deref(),
        DEFAULT_LIMIT,
        "find_unresolved_links",
        missing_target,
    )?;
    let truncated_files = vault.truncated_files().into_iter().take(MAX_REFERRERS_PER_TARGET).map(str::to_owned).collect();
    Ok(Unresolved { total_targets, targets, next_cursor, truncated_files })
}

fn in_folder(path: &str, folder: Option<&str>) -> bool {
    match folder.map(|folder| folder.trim_matches('/')) {
        None | Some("") => true,
        Some(folder) => {
            let folded_path = fold(path);
            let folded_folder = fold(folder);
            folded_path.starts_with(&folded_folder) && folded_path.as_bytes().get(folded_folder.len()) == Some(&b'/')
        }
    }
}

pub fn orphans(vault: &Vault, arguments: &FolderPageArguments) -> Result<Orphans, OpError> {
    let all: Vec<String> = vault
        .note_paths()
        .filter(|path| in_folder(path, arguments.folder.as_deref()) && !vault.is_excluded(path))
        .filter(|path| vault.inbound_count(path) == 0)
        .map(str::to_owned)
        .collect();
    let scope = format!("find_orphans\0{:?}\0{}", arguments.folder, list_digest(all.iter().map(String::as_str)));
    let (orphans, total, next_cursor) = page(all, arguments.limit, arguments.cursor.as_deref(), &scope)?;
    Ok(Orphans { total, orphans, next_cursor })
}

pub fn resolve_link(vault: &Vault, arguments: &ResolveArguments) -> Result<ResolvedTarget, OpError> {
    let from = find(vault, &arguments.from)?;
    let written = arguments.link.trim();
    let text = if written.starts_with('[') || written.starts_with("![") { written.to_owned() } else { format!("[[{written}]]") };
    let parsed = parse_note(from, &text, &ParseConfig::OBSIDIAN);
    let Some(link) = parsed.links.first() else {
        return Err(OpError::InvalidArguments {
            detail: format!(
                "`link` {:?} is not a link; give `[[Note]]`, `[text](Note.md)` or a bare target such as `Note#Heading`",
                arguments.link
            ),
        });
    };
    let resolution = resolve::resolve(vault, from, link);
    let subpath_status = match vault.subpath_status(link, &resolution) {
        SubpathStatus::NotApplicable => None,
        status => Some(status),
    };
    Ok(ResolvedTarget {
        from: from.to_owned(),
        target: link.target.clone(),
        status: status(&resolution),
        resolved_path: resolution.path().map(str::to_owned),
        candidates: if arguments.response_format == ResponseFormat::Detailed { candidates(&resolution) } else { None },
        subpath_status,
    })
}

pub fn list_notes(vault: &Vault, arguments: &FolderPageArguments) -> Result<NoteList, OpError> {
    let detailed = arguments.response_format == ResponseFormat::Detailed;
    let all: Vec<NoteEntry> = vault
        .note_paths()
        .filter(|path| in_folder(path, arguments.folder.as_deref()))
        .map(|path| NoteEntry {
            path: path.to_owned(),
            aliases: detailed.then(|| vault.aliases(path).to_vec()),
            links_out: detailed.then(|| vault.outgoing_links(path).map_or(0, |links| links.len())),
            links_in: detailed.then(|| vault.inbound_count(path)),
        })
        .collect();
    // The cursor is bound to the list itself: a note added and another removed between pages
    // would keep its length and shift it, skipping a note.
    let scope = format!("list_notes\0{:?}\0{}", arguments.folder, list_digest(all.iter().map(|note| note.path.as_str())));
    let (notes, total, next_cursor) = page(all, arguments.limit, arguments.cursor.as_deref(), &scope)?;
    Ok(NoteList { total, notes, next_cursor })
}

/// `read_note`, given the note's `text` as the edge read it.
pub fn read_note(vault: &Vault, arguments: &ReadArguments, text: &str) -> Result<NoteText, OpError> {
    let path = find(vault, &arguments.path)?;
    let parsed = parse_note(path, text, &ParseConfig::OBSIDIAN);
    let detailed = arguments.response_format == ResponseFormat::Detailed;
    let (frontmatter, body) = match crate::frontmatter::find_block(text) {
        Some(block) => (Some(&text[block.content.range()]), &text[block.span.end..]),
        None => (None, text.trim_start_matches('\u{feff}')),
    };
    let max_bytes = arguments.max_bytes.unwrap_or(DEFAULT_READ_BYTES);
    if !(MIN_READ_BYTES..=MAX_READ_BYTES).contains(&max_bytes) {
        return Err(OpError::InvalidArguments {
            detail: format!("`max_bytes` must be from {MIN_READ_BYTES} to {MAX_READ_BYTES}, not {max_bytes}"),
        });
    }
    // The cursor is bound to this note as it is now: an edit between pages, or another
    // note's cursor, is refused rather than read from a shifted place.
    let scope = format!("read_note\0{path}\0{}", crate::plan::content_hash(text));
    let start = parse_cursor(arguments.cursor.as_deref(), &scope, body.len())?;
    if !body.is_char_boundary(start) {
        return Err(OpError::InvalidArguments {
            detail: format!(
                "`cursor` {start} is not a place in this note's body (the note may have changed); leave it out to read from the start"
            ),
        });
    }
    let end = page_end(body, start, max_bytes);
    let first = start == 0;
    Ok(NoteText {
        path: path.to_owned(),
        frontmatter: if first { frontmatter.map(str::to_owned) } else { None },
        body: body[start..end].to_owned(),
        body_bytes: body.len(),
        next_cursor: (end < body.len()).then(|| cursor_for(&scope, body.len(), end)),
        aliases: (detailed && first).then(|| parsed.aliases.clone()),
        tags: (detailed && first).then(|| parsed.tags.clone()),
        headings: (detailed && first).then(|| parsed.headings.iter().map(|heading| heading.text.clone()).collect()),
    })
}

/// Where a page of `body` that starts at `start` ends: before its text passes `max_bytes` as
/// JSON writes it (a quote or a line break takes two bytes there, so a page of them holds fewer
/// characters and the answer stays within its ceiling), after the last line break in its second
/// half when there is one (so pages end between lines), and always on a character boundary.
fn page_end(body: &str, start: usize, max_bytes: usize) -> usize {
    let mut escaped = 0;
    let mut end = start;
    for character in body[start..].chars() {
        escaped += json_escaped_len(character);
        if escaped > max_bytes {
            break;
        }
        end += character.len_utf8();
    }
    if end == body.len() {
        return end;
    }
    // `max_bytes` is at least `MIN_READ_BYTES`, longer than any escaped character, so `end > start`.
    assert!(end > start, "a page holds at least one character");
    match body[start..end].rfind('\n') {
        Some(newline) if newline + 1 > (end - start) / 2 => start + newline + 1,
        _ => end,
    }
}

pub fn lint_wiki(vault: &Vault, arguments: &LintArguments) -> Result<LintReport, OpError> {
    lint_wiki_reading(vault, arguments, None, None)
}

/// The rules a `lint_wiki` call runs: those it names in `kinds`, or every rule that runs by
/// default.
pub(crate) fn lint_rules(arguments: &LintArguments) -> Result<Vec<&'static crate::lint::Rule>, OpError> {
    Ok(match &arguments.kinds {
        None => crate::lint::RULES.to_vec(),
        Some(kinds) => kinds
            .iter()
            .map(|kind| {
                crate::lint::rule(kind).ok_or_else(|| OpError::InvalidArguments {
                    detail: format!(
                        "`kinds` holds {kind:?}, which is not a lint kind; the kinds are {}",
                        crate::lint::RULES.iter().map(|rule| rule.kind).collect::<Vec<_>>().join(", ")
                    ),
                })
            })
            .collect::<Result<Vec<_>, OpError>>()?,
    })
}

/// Whether a `lint_wiki` call with `arguments` runs `near_duplicate`, which compares the notes'
/// sketches; false for arguments it refuses.
pub fn wants_sketches(arguments: &LintArguments) -> bool {
    lint_rules(arguments).is_ok_and(|rules| rules.iter().any(|rule| rule.kind == crate::lint::near_duplicate::RULE.kind))
}

/// The notes whose texts an edge reads and sketches before `request` runs, in path order, each
/// marked in the index as asked for (`Vault::sketches_wanted`, which keeps what the edge hands
/// back, `Vault::keep_sketch`): none for any call but a `lint_wiki` that runs `near_duplicate`, or
/// when every note is sketched. The sidecar sketches them a slice at a time on every core, the
/// plugin a batch at a time.
pub fn sketches_needed(vault: &mut Vault, request: &Request) -> Vec<String> {
    match request {
        Request::LintWiki(arguments) if wants_sketches(arguments) => vault.sketches_wanted(),
        _ => Vec::new(),
    }
}

/// `lint_wiki` with the current content hashes of the sources pages keep hashes of, by path
/// (`source_hashes::current_hashes`), which the `stale` rule compares, and the sketches made for
/// this call of the notes the index holds none of (`Vault::sketches_read`).
pub fn lint_wiki_reading(
    vault: &Vault,
    arguments: &LintArguments,
    source_hashes: Option<&std::collections::BTreeMap<String, String>>,
    sketches_read: Option<&std::collections::HashMap<String, crate::sketch::Sketch>>,
) -> Result<LintReport, OpError> {
    let rules = lint_rules(arguments)?;
    let options =
        crate::lint::LintOptions { folder: arguments.folder.clone(), excluded_folders: arguments.excluded_folders.clone(), rules };
    let outcome = crate::lint::lint_with(vault, &options, source_hashes, sketches_read);
    let mut counts = std::collections::BTreeMap::new();
    for proposal in &outcome.proposals {
        *counts.entry(proposal.kind).or_insert(0) += 1;
    }
    let scope = format!("lint_wiki\0{:?}\0{:?}\0{:?}", arguments.folder, arguments.kinds, arguments.excluded_folders);
    let mut all = outcome.proposals;
    all.iter_mut().for_each(Proposal::cap_lists);
    let (mut proposals, total, next_cursor) = page(all, arguments.limit, arguments.cursor.as_deref(), &scope)?;
    if arguments.response_format == ResponseFormat::Concise {
        for proposal in &mut proposals {
            proposal.detail = None;
            proposal.tool_args = None;
            proposal.evidence = None;
        }
    }
    let health = crate::graph::vault_health(vault);
    Ok(LintReport { total, counts, proposals, skipped: outcome.skipped, truncated: outcome.truncated, next_cursor, health })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Failure;
    use crate::index::IndexConfig;

    fn vault() -> Vault {
        let mut vault = Vault::new(IndexConfig::obsidian_defaults());
        vault.upsert("A.md", "---\nup: \"[[B]]\"\n---\n[[B#Top|bee]] [[Nowhere]] [[nowhere]]");
        vault.upsert("B.md", "# Top\n");
        vault.upsert("C.md", "");
        vault
    }

    fn request(json: &str) -> Request {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn outgoing_links_carry_their_resolution() {
        let result = outgoing_links(&vault(), "a", ResponseFormat::Detailed).unwrap();
        assert_eq!(result.path, "A.md");
        let statuses: Vec<_> = result.links.iter().map(|link| (link.source, link.status, link.resolved_path.as_deref())).collect();
        assert_eq!(
            statuses,
            [
                ("property", "resolved", Some("B.md")),
                ("body", "resolved", Some("B.md")),
                ("body", "unresolved", None),
                ("body", "unresolved", None)
            ]
        );
        assert_eq!(result.links[1].subpath.as_deref(), Some("#Top"));
        assert_eq!(result.links[1].subpath_status, Some(SubpathStatus::Found));
        let concise = outgoing_links(&vault(), "a", ResponseFormat::Concise).unwrap();
        assert!(concise.links.iter().all(|link| link.span.is_none() && link.display.is_none()));
    }

    #[test]
    fn every_lint_carries_the_whole_vaults_health_whatever_its_scope() {
        let mut vault = vault();
        let arguments: LintArguments = serde_json::from_str(r#"{"folder": "Elsewhere", "kinds": ["orphan"]}"#).unwrap();
        let before = lint_wiki(&vault, &arguments).unwrap();
        assert_eq!(before.total, 0, "no note is in the folder");
        assert_eq!(before.health, crate::graph::vault_health(&vault));
        assert_eq!((before.health.notes, before.health.broken_links, before.health.orphans), (3, 2, 2));
        // Mending one note's broken links shows in the next lint's health.
        vault.upsert("A.md", "---\nup: \"[[B]]\"\n---\n[[B#Top|bee]] [[C]]");
        let after = lint_wiki(&vault, &arguments).unwrap();
        assert_eq!((after.health.broken_links, after.health.orphans), (0, 1));
        let json = serde_json::to_value(&after).unwrap();
        assert_eq!(json["health"]["broken_links"], 0, "the wire carries it as `health`");
    }

    #[test]
    fn a_missing_note_is_a_typed_error() {
        let mut edge = ReadBefore::default();
        let error = run(
            &vault(),
            &request(r#"{"tool": "get_outgoing_links", "arguments": {"path": "Z.md"}}"#),
            &mut edge,
            &mut PlanHistory::default(),
        )
        .unwrap_err();
        assert_eq!(error.code, crate::error::ErrorCode::NoteNotFound);
        assert!(error.message.contains("Z.md"));
    }

    #[test]
    fn backlinks_page_with_a_cursor() {
        let vault = vault();
        let first = backlinks(
            &vault,
            &PagedNoteArguments { path: "B".into(), limit: Some(1), cursor: None, response_format: ResponseFormat::Concise },
        )
        .unwrap();
        assert_eq!((first.total, first.backlinks.len()), (2, 1));
        assert!(first.next_cursor.as_deref().is_some_and(|cursor| cursor.starts_with("1.")), "{:?}", first.next_cursor);
        assert_eq!(first.backlinks[0].link_source, "property");
        let second = backlinks(
            &vault,
            &PagedNoteArguments { path: "B".into(), limit: Some(1), cursor: first.next_cursor, response_format: ResponseFormat::Concise },
        )
        .unwrap();
        assert_eq!((second.backlinks.len(), second.next_cursor), (1, None));
        let bad = backlinks(
            &vault,
            &PagedNoteArguments { path: "B".into(), limit: Some(0), cursor: None, response_format: ResponseFormat::Concise },
        );
        assert_eq!(bad.unwrap_err().code(), "invalid_arguments");
    }

    #[test]
    fn unresolved_links_group_by_target() {
        let result = unresolved(&vault(), &PageArguments { limit: None, cursor: None, response_format: ResponseFormat::Detailed }).unwrap();
        assert_eq!(result.total_targets, 1);
        assert_eq!(result.targets[0].target, "Nowhere");
        assert_eq!(result.targets[0].referrers.len(), 2);
    }

    /// Reported in issue 34: links past the index's limit named a missing note, and
    /// `find_unresolved_links` said nothing of them.
    #[test]
    fn unresolved_links_name_the_files_read_in_part() {
        let mut config = IndexConfig::obsidian_defaults();
        config.parse.max_links = 2;
        let mut limited = Vault::new(config);
        limited.upsert("Many.md", "[[B]] [[B]] [[Gone]]");
        limited.upsert("Board.canvas", r#"{"nodes":[{"id":"a","type":"text","text":"[[B]] [[B]]"}]}"#);
        limited.upsert("Few.md", "[[B]] [[Gone]]");
        limited.upsert("B.md", "");
        let result = unresolved(&limited, &PageArguments { limit: None, cursor: None, response_format: ResponseFormat::Concise }).unwrap();
        assert_eq!(result.truncated_files, ["Board.canvas", "Many.md"]);
        assert_eq!(result.targets[0].referrers.len(), 1, "Gone is named in Few.md, and past the limit in Many.md");
        let whole = unresolved(&vault(), &PageArguments { limit: None, cursor: None, response_format: ResponseFormat::Concise }).unwrap();
        assert!(whole.truncated_files.is_empty());
        assert!(!serde_json::to_string(&whole).unwrap().contains("truncated_files"));
    }

    #[test]
    fn orphans_have_no_inbound_links() {
        let result =
            orphans(&vault(), &FolderPageArguments { folder: None, limit: None, cursor: None, response_format: ResponseFormat::Concise })
                .unwrap();
        assert_eq!(result.orphans, ["A.md", "C.md"]);
    }

    #[test]
    fn resolve_link_takes_written_or_bare_links() {
        let vault = vault();
        for link in ["[[b#top]]", "B#Top", "[x](B.md#Top)"] {
            let result =
                resolve_link(&vault, &ResolveArguments { from: "C".into(), link: link.into(), response_format: ResponseFormat::Detailed })
                    .unwrap();
            assert_eq!(
                (result.status, result.resolved_path.as_deref(), result.subpath_status),
                ("resolved", Some("B.md"), Some(SubpathStatus::Found)),
                "{link}"
            );
        }
        let missing =
            resolve_link(&vault, &ResolveArguments { from: "C".into(), link: "B#Gone".into(), response_format: ResponseFormat::Concise })
                .unwrap();
        assert_eq!(missing.subpath_status, Some(SubpathStatus::MissingHeading));
    }

    #[test]
    fn read_note_splits_frontmatter_and_body() {
        let vault = vault();
        let text = "---\nup: \"[[B]]\"\n---\nHello";
        let result = read_note(
            &vault,
            &ReadArguments { path: "A".into(), response_format: ResponseFormat::Detailed, max_bytes: None, cursor: None },
            text,
        )
        .unwrap();
        assert_eq!(result.frontmatter.as_deref(), Some("up: \"[[B]]\"\n"));
        assert_eq!(result.body, "Hello");
        assert_eq!((result.body_bytes, result.next_cursor), (5, None));
    }

    /// Reads a body page by page: the pages join into the body, each within the budget.
    fn read_pages(text: &str, max_bytes: usize) -> Vec<String> {
        let vault = vault();
        let mut pages = Vec::new();
        let mut cursor = None;
        loop {
            let arguments =
                ReadArguments { path: "A".into(), response_format: ResponseFormat::Concise, max_bytes: Some(max_bytes), cursor };
            let page = read_note(&vault, &arguments, text).unwrap();
            assert!(page.body.len() <= max_bytes, "{} > {max_bytes}", page.body.len());
            assert_eq!(page.frontmatter.is_some(), pages.is_empty() && text.starts_with("---"));
            pages.push(page.body);
            match page.next_cursor {
                Some(next) => cursor = Some(next),
                None => return pages,
            }
        }
    }

    #[test]
    fn read_note_pages_a_long_body_by_bytes() {
        let lines: String = (0..400).map(|number| format!("Line {number}: é, 漢字 and [[B]]\n")).collect();
        let text = format!("---\nup: x\n---\n{lines}");
        let pages = read_pages(&text, 1_000);
        assert!(pages.len() > 10);
        assert_eq!(pages.concat(), lines);
        // Pages end between lines when a line break is in reach.
        assert!(pages.iter().all(|page| page.ends_with('\n')));
        let unbroken = "漢".repeat(2_000);
        let pages = read_pages(&unbroken, 1_000);
        assert_eq!(pages.concat(), unbroken);
    }

    #[test]
    fn read_note_refuses_a_cursor_inside_a_character_or_past_the_end() {
        let vault = vault();
        for cursor in ["1", "99", "x"] {
            let arguments =
                ReadArguments { path: "A".into(), response_format: ResponseFormat::Concise, max_bytes: None, cursor: Some(cursor.into()) };
            assert_eq!(read_note(&vault, &arguments, "漢字").unwrap_err().code(), "invalid_arguments", "{cursor}");
        }
    }

    #[test]
    fn a_default_page_stays_within_its_byte_budget_and_an_explicit_limit_is_obeyed() {
        let items: Vec<String> = (0..1_000).map(|number| format!("{number:0>200}")).collect();
        let (first, total, next) = page(items.clone(), None, None, "list").unwrap();
        assert_eq!(total, 1_000);
        assert!(first.len() < DEFAULT_LIMIT && serde_json::to_string(&first).unwrap().len() <= DEFAULT_PAGE_BYTES + 2);
        assert_eq!(next, Some(cursor_for("list", 1_000, first.len())));
        let (explicit, _, _) = page(items, Some(300), None, "list").unwrap();
        assert_eq!(explicit.len(), 300);
        let (huge, _, _) = page(vec!["x".repeat(100_000)], None, None, "list").unwrap();
        assert_eq!(huge.len(), 1, "the first item is always kept");
    }

    #[test]
    fn a_cursor_is_bound_to_its_list_and_refused_when_foreign_or_stale() {
        let items: Vec<u32> = (0..10).collect();
        let (_, _, next) = page(items.clone(), Some(3), None, "list_notes\0None").unwrap();
        let next = next.expect("a next page");
        let (second, _, _) = page(items.clone(), Some(3), Some(&next), "list_notes\0None").unwrap();
        assert_eq!(second, [3, 4, 5]);
        for (cursor, scope, items, expected) in [
            ("3", "list_notes\0None", items.clone(), "not one this server gave"),
            ("x.y", "list_notes\0None", items.clone(), "not one this server gave"),
            (next.as_str(), "get_backlinks\0A.md", items.clone(), "another list or note, or this one changed"),
            (next.as_str(), "list_notes\0None", (0..11).collect::<Vec<u32>>(), "another list or note, or this one changed"),
        ] {
            let error = page(items, Some(3), Some(cursor), scope).unwrap_err();
            assert!(error.message().contains(expected), "{cursor} {scope:?}: {}", error.message());
        }
    }

    #[test]
    fn a_list_notes_cursor_is_refused_once_a_note_came_and_another_went() {
        let mut vault = vault();
        let first =
            |cursor: Option<String>| FolderPageArguments { folder: None, limit: Some(1), cursor, response_format: ResponseFormat::Concise };
        let page = list_notes(&vault, &first(None)).unwrap();
        assert_eq!(page.notes[0].path, "A.md");
        let cursor = page.next_cursor.expect("a next page");
        assert_eq!(list_notes(&vault, &first(Some(cursor.clone()))).unwrap().notes[0].path, "B.md");
        // The same number of notes, but `B.md` would have been skipped.
        vault.remove("A.md");
        vault.upsert("0.md", "");
        let error = list_notes(&vault, &first(Some(cursor))).unwrap_err();
        assert_eq!(error.code(), "invalid_arguments");
        assert!(error.message().contains("changed since; leave it out to start again"), "{}", error.message());
    }

    #[test]
    fn a_read_note_page_of_quotes_holds_fewer_characters_so_its_json_stays_within_max_bytes() {
        let vault = vault();
        let text = "\"".repeat(5_000);
        let arguments = ReadArguments { path: "A".into(), response_format: ResponseFormat::Concise, max_bytes: Some(1_000), cursor: None };
        let page = read_note(&vault, &arguments, &text).unwrap();
        assert_eq!(page.body.len(), 500);
        assert!(serde_json::to_string(&page.body).unwrap().len() <= 1_002);
        let too_many = ReadArguments { max_bytes: Some(MAX_READ_BYTES + 1), ..arguments };
        assert_eq!(read_note(&vault, &too_many, &text).unwrap_err().code(), "invalid_arguments");
    }

    #[test]
    fn read_notes_cursor_is_refused_after_an_edit_between_pages_or_for_another_note() {
        let mut vault = Vault::new(IndexConfig::obsidian_defaults());
        let text = format!("{}\n", "line of prose\n".repeat(200));
        vault.upsert("A.md", &text);
        vault.upsert("B.md", &text);
        let read = |path: &str, text: &str, cursor: Option<String>| {
            read_note(
                &vault,
                &ReadArguments { path: path.into(), response_format: ResponseFormat::Concise, max_bytes: Some(1_000), cursor },
                text,
            )
        };
        let first = read("A.md", &text, None).unwrap();
        let next = first.next_cursor.clone().expect("a second page");
        assert!(read("A.md", &text, Some(next.clone())).is_ok());
        let edited = format!("inserted\n{text}");
        let stale = read("A.md", &edited, Some(next.clone())).unwrap_err();
        assert!(stale.message().contains("changed since") && stale.hint().contains("cursor"), "{}", stale.message());
        assert!(read("B.md", &text, Some(next)).unwrap_err().message().contains("another list"), "another note's cursor");
        assert!(read("A.md", &text, Some("1000".into())).unwrap_err().message().contains("not one this server gave"));
    }

    #[test]
    fn unknown_parameters_are_refused() {
        let error =
            serde_json::from_str::<Request>(r#"{"tool": "get_outgoing_links", "arguments": {"path": "A", "paht": 1}}"#).unwrap_err();
        assert!(error.to_string().contains("paht"), "{error}");
    }
}
