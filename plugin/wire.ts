// Generated from core's types (crates/core/src/wire.rs) by its test `the_plugin_has_the_wire_types_of_core`
// (VAULTLINK_UPDATE_SNAPSHOTS=1 cargo test -p vaultlink-core --test wire rewrites it). Do not edit.

import type { ErrorCode } from "./error-codes";

/**
 * A half-open byte range into the text that was parsed.
 */
export type Span = { start: number, end: number, };

/**
 * A position as Obsidian's `Loc` counts it: 0-based line, 0-based column and offset from the
 * start of the file, both in UTF-16 code units.
 */
export type Utf16Position = { line: number, col: number, offset: number, };

/**
 * Any call's failure as plain data: the one error type every operation of `ops` ends with, and
 * what the edges turn into their own (an MCP tool error, a JavaScript object) in one place each.
 */
export type CallError = { code: ErrorCode, message: string, hint: string, retryable: boolean, };

export type LinkKind = "wikilink" | "embed" | "markdown" | "markdown_embed";

/**
 * Where a link was written.
 */
export type LinkSource = { "source": "body" } | { "source": "property", key: string, key_path: Array<KeySegment>, 
/**
 * How the YAML string that holds the link is written, which decides how a rewritten
 * target is escaped.
 */
quote?: PropertyQuote, } | { "source": "canvas_file", node: string, } | { "source": "canvas_text", node: string, };

/**
 * One step of a key path: a mapping key or a sequence index.
 */
export type KeySegment = string | number;

/**
 * How a property string is written in the YAML.
 */
export type PropertyQuote = "plain" | "single" | "double" | "block";

/**
 * How a markdown link's destination is written.
 */
export type Destination = { 
/**
 * `<a b.md>` rather than `a%20b.md`.
 */
angle: boolean, 
/**
 * The destination holds `%XX` escapes.
 */
encoded: boolean, };

/**
 * One link as written in a note.
 */
export type Link = { kind: LinkKind, 
/**
 * The target part as written (for a property link, after YAML unescaping):
 * `Note#Heading` in `[[Note#Heading|shown]]`.
 */
target: string, 
/**
 * The path part of the target, for markdown links with CommonMark's backslash escapes and
 * character references read, then percent-decoded (`T(1).md` for `T\(1\).md`); empty for
 * a link to a heading or block of the same note (`[[#Heading]]`).
 */
path: string, 
/**
 * What follows the first `#` of the target, with the `#`: `#Heading`, `#^block-id`.
 */
subpath: string | null, 
/**
 * Everything after the first `|` of a wikilink, verbatim, or a markdown link's text.
 */
display: string | null, 
/**
 * The whole link, `[[` to `]]` or `[` to `)`, in the file's bytes.
 */
span: Span, 
/**
 * The target part in the file's bytes (inside `<…>` for an angle-bracket destination).
 */
target_span: Span, 
/**
 * 1-based line of the link's start.
 */
line: number, 
/**
 * 1-based column of the link's start, in characters.
 */
column: number, 
/**
 * For markdown links: how the destination is written.
 */
destination: Destination | null, } & ({ "source": "body" } | { "source": "property", key: string, key_path: Array<KeySegment>, 
/**
 * How the YAML string that holds the link is written, which decides how a rewritten
 * target is escaped.
 */
quote?: PropertyQuote, } | { "source": "canvas_file", node: string, } | { "source": "canvas_text", node: string, });

/**
 * A form of link that Obsidian reads and that a parity check counts on its own, since each
 * needs a rule of its own to read: a relative wikilink, a link in JSON frontmatter, a link in a
 * block scalar.
 */
export type LinkForm = "relative" | "json_frontmatter" | "block_scalar";

/**
 * A heading of the body.
 */
export type Heading = { level: number, text: string, span: Span, };

/**
 * A `^block-id` marker.
 */
export type BlockId = { 
/**
 * The id without the `^`.
 */
id: string, span: Span, };

/**
 * Something the parser noticed that a person may want to fix. Never an error: the note is
 * still parsed.
 */
export type Diagnostic = { 
/**
 * A stable code: `unquoted_property_link`, `malformed_frontmatter`,
 * `frontmatter_not_a_mapping`, `property_scan_mismatch`, `links_truncated`,
 * `frontmatter_too_large`, `frontmatter_too_deep`.
 */
code: string, message: string, span: Span | null, };

/**
 * Everything the parser reads from one note.
 */
export type ParsedNote = { 
/**
 * Body and property links, property links first, each group in file order.
 */
links: Array<Link>, headings: Array<Heading>, block_ids: Array<BlockId>, 
/**
 * The frontmatter block, `---` lines included.
 */
frontmatter: Span | null, 
/**
 * Top-level frontmatter keys, in order.
 */
frontmatter_keys: Array<string>, 
/**
 * The frontmatter is a JSON object rather than YAML lines.
 */
frontmatter_json: boolean, aliases: Array<string>, 
/**
 * Tags from the `tags` property and from the body, without `#`, in order, each once.
 */
tags: Array<string>, 
/**
 * The file name without its extension: what Obsidian shows as the note's title.
 */
title: string, 
/**
 * The text of the first level-1 heading.
 */
h1: string | null, diagnostics: Array<Diagnostic>, 
/**
 * True when the note had more than `max_links` links and the rest were dropped.
 */
truncated: boolean, };

/**
 * Whether a link's `#heading` or `#^block` exists in the note it resolves to.
 */
export type SubpathStatus = "not_applicable" | "found" | "missing_heading" | "missing_block";

export type OutgoingLink = { kind: LinkKind, 
/**
 * `body` or `property`.
 */
source: LinkSource["source"], 
/**
 * The property's top-level key, for a property link.
 */
key?: string, 
/**
 * For a property link, the key as Obsidian's `FrontmatterLinkCache.key` writes it:
 * `related.0` for the first item of `related`.
 */
key_path?: string, 
/**
 * The target as written, subpath included, still percent-encoded in a markdown link.
 */
target: string, 
/**
 * The destination as Obsidian's `LinkCache.link` gives it: decoded, without the subpath,
 * and for a markdown link without a final `.md`.
 */
link: string, 
/**
 * The subpath, decoded, with its `#`.
 */
subpath?: string, display?: string, 
/**
 * The text Obsidian shows for the link (`LinkCache.displayText`); `detailed` only.
 */
display_text?: string, 
/**
 * The link as written (`LinkCache.original`); `detailed` only.
 */
original?: string, line: number, column?: number, span?: Span, 
/**
 * `resolved`, `ambiguous` or `unresolved`.
 */
status: "resolved" | "ambiguous" | "unresolved", 
/**
 * The file the link points to, when it points to one.
 */
resolved_path?: string, 
/**
 * Every file that matches, for an ambiguous link.
 */
candidates?: Array<string>, 
/**
 * For a link with `#heading` or `#^block`: whether it exists in the target.
 */
subpath_status?: SubpathStatus, };

export type OutgoingLinks = { 
/**
 * The note's path, as found in the vault.
 */
path: string, links: Array<OutgoingLink>, 
/**
 * How many links the note has; `links` is one page of them.
 */
total: number, 
/**
 * True when the note had more links than the parser keeps.
 */
truncated: boolean, next_cursor?: string, };

/**
 * One replacement in one note's text.
 */
export type TextEdit = { 
/**
 * UTF-8 byte range of the text that was read.
 */
span: Span, replacement: string, };

/**
 * One file moving.
 */
export type FileMove = { from: string, to: string, };

/**
 * Why a link is rewritten.
 */
export type ChangeReason = "target_moved" | "source_moved" | "second_order" | "repointed" | "linked";

/**
 * One link the plan rewrites.
 */
export type LinkChange = { 
/**
 * The note holding the link, at its path before the move.
 */
note: string, line: number, before: string, after: string, reason: ChangeReason, };

/**
 * A link that was unresolved and will find the moved file under its new name.
 */
export type NewlyResolved = { note: string, line: number, link: string, resolves_to: string, };

/**
 * A link inside a source that a move or a rewrite leaves as it is.
 */
export type LinkLeft = { 
/**
 * The source note holding the link.
 */
note: string, line: number, 
/**
 * The link as it is written, and stays.
 */
link: string, 
/**
 * How it would have been written, had the note not been a source.
 */
would_be: string, };

/**
 * What the `move_note` tool answers, the same on every path.
 */
export type MoveAnswer = { 
/**
 * True when nothing was written: the answer previews the plan.
 */
dry_run: boolean, 
/**
 * True when the plan was applied.
 */
applied: boolean, 
/**
 * Pass this as `approved_plan_hash` to apply exactly this plan.
 */
plan_hash: string, 
/**
 * The files that move, on this page.
 */
moves: Array<FileMove>, 
/**
 * How many files move, on every page.
 */
files_moved: number, 
/**
 * How many notes have links rewritten.
 */
notes_edited: number, 
/**
 * The rewritten links on this page; left out with `concise`.
 */
changes?: Array<LinkChange>, 
/**
 * How many links are rewritten, on every page.
 */
links_changed: number, 
/**
 * The first `MAX_LISTED` links that will resolve once the file is moved.
 */
newly_resolved: Array<NewlyResolved>, 
/**
 * A rewrite's links that find a note today and will find none (`allow_unresolved`).
 */
links_broken?: number, 
/**
 * How many links will newly resolve, when `newly_resolved` was cut.
 */
newly_resolved_count?: number | null, 
/**
 * Present when `moves` or `changes` go on: pass it as `cursor` (with the same arguments)
 * for the next page of the preview.
 */
next_cursor?: string | null, 
/**
 * Once applied: the id `undo_change` takes to undo it.
 */
change_id?: string, 
/**
 * Links inside read-only sources (`source_folders` of a SCHEMA.md) the plan leaves as they
 * are, though the move changes what they find: each is a problem to fix outside the tool.
 */
links_left_in_sources?: Array<LinkLeft>, };

/**
 * A share from 0 to 1, rounded to four places. Compared by its bits: it is only ever a value
 * computed from counts, never NaN.
 */
export type Ratio = number;

export type Health = { notes: number, 
/**
 * Every link of the notes and canvases, resolved or not.
 */
links: number, 
/**
 * Links that find no file (`find_unresolved_links`).
 */
broken_links: number, 
/**
 * Links several files match (`lint_wiki`'s `ambiguous_link`).
 */
ambiguous_links: number, 
/**
 * Notes nothing else links to (`find_orphans`).
 */
orphans: number, 
/**
 * Notes that link to no other file (`lint_wiki`'s `dead_end`; `SCHEMA.md` is none).
 */
dead_ends: number, 
/**
 * How many islands the notes fall into, reading links both ways (a note with no link in
 * or out is one by itself).
 */
island_count: number, 
/**
 * The notes of the largest island.
 */
largest_island: number, 
/**
 * Notes with no link to or from another note.
 */
isolated_notes: number, 
/**
 * `broken_links / links`, `ambiguous_links / links`, `orphans / notes`,
 * `dead_ends / notes`, `largest_island / notes`.
 */
broken_ratio: Ratio, ambiguous_ratio: Ratio, orphan_ratio: Ratio, dead_end_ratio: Ratio, largest_island_share: Ratio, };

/**
 * A link that still names a renamed file's old path and no longer points to the file.
 */
export type StaleLink = { note: string, line: number, 
/**
 * The link's bytes in the note's text, to show it as written.
 */
span: Span, 
/**
 * The link's target, for when the text cannot be read.
 */
target: string, 
/**
 * `body` or `property`.
 */
source: LinkSource["source"], 
/**
 * The property's top-level key, for a property link.
 */
key?: string, 
/**
 * The file the link points to now; absent when it points nowhere.
 */
resolved_path?: string, };

/**
 * One `rewrite_link` call that repoints a rename's stale links written one way.
 */
export type RewriteFix = { from_target: string, to_target: string, };

/**
 * What the audit found for one rename.
 */
export type RenameAudit = { 
/**
 * Why the rename was not checked (its file is gone, or a file is at the old path again).
 */
skipped?: string, 
/**
 * Sorted by note, then line.
 */
stale: Array<StaleLink>, 
/**
 * The calls that repoint every stale link; empty when there is none.
 */
fixes: Array<RewriteFix>, };

/**
 * One note the batch rewrites.
 */
export type BatchWrite = { path: string, 
/**
 * The note's text when the plan was made: the batch is refused if the note no longer
 * holds it, and it is the journal's pre-image.
 */
before: string, 
/**
 * The SHA-256 of `before`, as the plan's `content_hash`.
 */
before_hash: string, 
/**
 * The note's new text.
 */
text: string, 
/**
 * The SHA-256 of `text`.
 */
after_hash: string, 
/**
 * The temporary file beside the note that an edge writing through files puts the new text
 * in before renaming it over the note (an edge writing in place leaves it unused).
 */
temporary: string, 
/**
 * The edits over `before` that make `text` (sorted, disjoint), when the write is a plan's;
 * none when it writes a whole text back (an undo's pre-image). An edge hands them to
 * `step::saved_over` when another program saves the note before the commit.
 */
edits?: Array<TextEdit>, };

/**
 * One file the batch creates: nothing may be at `path` when the batch starts, and the file is
 * put there only if the place is still free (an edge writing through files writes `temporary`
 * and renames it without replacing).
 */
export type BatchCreate = { path: string, text: string, 
/**
 * The SHA-256 of `text`.
 */
after_hash: string, temporary: string, };

/**
 * One file the batch removes (an undo's removal of a file a change created): it must still hold
 * `before`, which the journal keeps so that recovery can put it back.
 */
export type BatchRemove = { path: string, before: string, before_hash: string, };

/**
 * One file the batch moves.
 */
export type BatchMove = { from: string, to: string, 
/**
 * For a move that changes only the case of a name: the temporary name it passes through,
 * so that a case-insensitive filesystem cannot take it for nothing to do.
 */
via: string | null, 
/**
 * The destination is where an earlier move of this batch takes a file from: taken when
 * the batch starts, free by the time this move runs.
 */
vacated: boolean, 
/**
 * For a move of a cycle of names: the content hash of the file it moves (the journal's,
 * for recovery).
 */
hash: string | null, };

/**
 * What an edge carries out, in this order: check every write's `before` and that every
 * create's place is free, write the journal, write the notes, make the folders, create the new
 * files, move the files, remove the journal, remove the emptied folders.
 */
export type Batch = { 
/**
 * The tool that made the batch, as the journal names it.
 */
tool: string, writes: Array<BatchWrite>, moves: Array<BatchMove>, 
/**
 * New files (a wiki page), written after the notes, before the moves.
 */
creates: Array<BatchCreate>, 
/**
 * Files removed last, after the moves (an undo of a create).
 */
removes: Array<BatchRemove>, 
/**
 * The id the applied change is kept under for `undo_change` (`history`): once the batch is
 * done, the edge keeps its journal, with this id, in `history::CHANGES_FOLDER`.
 * Empty for a batch that is not kept (an undo).
 */
change_id: string, 
/**
 * The kept change this batch undoes: once it is done, the edge removes that record.
 */
forget: string | null, 
/**
 * The folders the moves and creates need, top first. An edge makes each that is not there yet, and
 * only those go into the journal as made by the batch.
 */
folders: Array<string>, 
/**
 * Folders a folder move may leave empty, deepest first: each is removed if it is empty
 * once the batch is done; one that is not empty stays.
 */
emptied_folders: Array<string>, };

/**
 * The steps of an approved change, for the edge to carry out as they are.
 */
export type Change = { "kind": "batch", batch: Batch, plan_hash: string, } | { "kind": "trash", path: string, before: string, keep: Batch, };

/**
 * What a sealed file is for. The seal covers it, so a file of one purpose never opens as the
 * other.
 */
export type Purpose = "journal" | "kept";

/**
 * What a journal's write does to its file.
 */
export type WriteKind = "replace" | "create" | "remove";

/**
 * A note the batch rewrites. Paths are relative to the vault, with `/`.
 */
export type JournalWrite = { path: string, 
/**
 * The temporary file the new text is written to before it is renamed over the note;
 * empty when the note is written in place (the plugin's `vault.process`).
 */
temporary: string, 
/**
 * The note's text before the batch.
 */
before: string, 
/**
 * The SHA-256 of the text the batch writes.
 */
after_hash: string, 
/**
 * What the batch does to the file: replaces its text (left out of the file), or creates it
 * (`before` is empty: undone by removing the file while it still holds what was written).
 */
kind?: WriteKind, };

/**
 * A file the batch moves. `via` is the intermediate name of a move that changes only the
 * case of a name, made in two renames so a case-insensitive filesystem cannot skip it.
 */
export type JournalMove = { from: string, to: string, via: string | null, 
/**
 * For a move of a cycle of names (a swap): the content hash of the file it moves, so that
 * recovery can tell a move that happened from one that did not (the vault before a swap
 * and after it hold files at the same names).
 */
hash?: string | null, };

/**
 * What a batch is about to change, written before its first change.
 */
export type Journal = { version: number, 
/**
 * The process applying the batch, for the messages: liveness is the lease's (`lease`).
 */
pid: number, 
/**
 * The random id of the holder applying the batch (`lease::HOLDER_HEX` hex digits), which
 * renews the journal's lease while it works; empty in a journal of a vaultlink before leases.
 */
holder?: string, 
/**
 * The tool that made the batch (`move_note`, `rewrite_link`).
 */
tool: string, started_unix_ms: number, 
/**
 * The machine the batch ran on (its host name), for the messages about a journal that is
 * not this machine's. The seal is what proves where a journal was written.
 */
machine: string, writes: Array<JournalWrite>, moves: Array<JournalMove>, 
/**
 * Folders the batch creates, top first.
 */
made_folders: Array<string>, 
/**
 * The id the change is kept under once applied (`history`); empty for one that is not.
 */
change_id?: string, 
/**
 * For an undo: the kept change it consumes (`history::CHANGES_FOLDER/<name>`), set aside
 * (`history::set_aside_name`) as part of the undo's commit, so recovery, undoing the undo,
 * puts it back.
 */
forget?: string | null, };

/**
 * One change kept for `undo_change`, as an edge hands it to core: its file's path in the vault
 * and the journal it holds, opened (`journal::open`).
 */
export type KeptChange = { name: string, journal: Journal, };

/**
 * A file named as a kept change that cannot be used for undo: its name, and why (the refusal of
 * `journal::open`, or the read that failed).
 */
export type UnopenedChange = { name: string, why: string, };

/**
 * What a call reads from its edge before it runs (`Edge`'s methods, each named).
 */
export type Needs = { 
/**
 * Whether it reads the changes kept for `undo_change` (`Edge::changes` and
 * `Edge::unopened_changes`): `list_changes`, `undo_change`, and a call approving a plan,
 * whose retry after the plan was applied is answered from them (`approval::applied_already`).
 */
kept_changes: boolean, 
/**
 * Whether it reads the changes undoes set aside (`Edge::undone_changes`): an undo approving
 * its plan, whose retry is answered from the record of the undo made.
 */
undone_changes: boolean, 
/**
 * Whether it reads what the edge saw change since its first view of the vault
 * (`Edge::observed`): `detected_moves`, `heal_moves` and `fix_broken_links`, whose strongest
 * evidence a move made outside vaultlink is. The edge's view is brought up to date first.
 */
observed: boolean, 
/**
 * The notes whose texts it reads (`Edge::text`), as far as the index tells now: for a call
 * that reads the kept changes, only once they are handed in.
 */
notes: Array<string>, 
/**
 * The files whose modification times it compares (`Edge::modified_ms`), as the index spells
 * them: a delete's note, for its `expected_mtime`.
 */
modified: Array<string>, };

/**
 * A note the undo of a failed change left as it found it, and where its text from before is.
 */
export type KeptNote = { path: string, saved: string, };

/**
 * A change that could not be carried out, as the edge observed it.
 */
export type StepError = { "kind": "changed", path: string, } | { "kind": "saved_over_put_back", path: string, } | { "kind": "saved_over_left", path: string, links: Array<string>, } | { "kind": "created_saved_over", path: string, } | { "kind": "failed", what: string, } | { "kind": "taken", what: string, path: string, } | { "kind": "failed_kept", what: string, kept: Array<KeptNote>, } | { "kind": "undo_incomplete", what: string, left: string, } | { "kind": "changed_before_trash", path: string, } | { "kind": "trash_failed", path: string, why: string, } | { "kind": "through_link", path: string, link: string, } | { "kind": "in_progress", tool: string, pid: number, } | { "kind": "starting" } | { "kind": "interrupted", tool: string, pid: number, vault: string, } | { "kind": "untrusted", reason: string, journal: string, } | { "kind": "just_applied" } | { "kind": "undo_edited", forget: string | null, path: string, } | { "kind": "lease_lost", taken: boolean, } | { "kind": "journal_unwritable", journal: string, why: string, } | { "kind": "journal_too_large", bytes: number, } | { "kind": "busy", tool: string | null, pid: number | null, waited_s: number, } | { "kind": "not_utf8", path: string, } | { "kind": "hard_linked", path: string, links: number, } | { "kind": "unreadable", path: string, why: string, };

/**
 * What an edge does about a note that the batch rewrote from `before` to `written`, and that
 * another program saved as `saved` before the commit, once the batch is undone around it.
 */
export type SavedOver = { "kind": "put_back", text: string, } | { "kind": "leave", links: Array<string>, };

/**
 * What an edge found in the journal's file: a journal it may act on (sealed for this vault, by
 * its rules), told by what decides its liveness, or why it may not act on it.
 */
export type Opened = { "kind": "journal", 
/**
 * The holder's id (empty in a journal of a vaultlink before leases).
 */
holder: string, tool: string, 
/**
 * For the messages only.
 */
pid: number, machine: string, 
/**
 * Whether the journal has any step (a lock taken for planning has none).
 */
steps: boolean, 
/**
 * Marked by its holder as a batch it could not wholly undo: nobody applies it any more.
 */
abandoned: boolean, } | { "kind": "refused", 
/**
 * Why, as a sentence naming the file.
 */
reason: string, 
/**
 * Whether the bytes were a whole JSON value: a file that is not may be being written
 * this moment (the plugin's fallback on a filesystem without hard links creates the file
 * first and fills it after).
 */
whole: boolean, };

/**
 * What an edge observed of a journal file found in the vault.
 */
export type Observed = { opened: Opened, 
/**
 * The observer's clock minus the file's modification time, in milliseconds; negative when
 * the file's time is ahead of the clock.
 */
age_ms: number, 
/**
 * Whether the file, and the `.vaultlink` folder it is in, are a plain file and a plain folder.
 */
plain_file: boolean, 
/**
 * The observer's own holder id (of the change it is making, or its lock), if it holds one.
 */
holder: string, 
/**
 * Whether a kernel lock on the vault is held by another process (the sidecar's; the plugin
 * cannot tell, and says `false`).
 */
locked_elsewhere: boolean, };

/**
 * What a journal file found in the vault means, for the edge that found it.
 */
export type Verdict = { "kind": "ours" } | { "kind": "starting", tool: string | null, pid: number | null, } | { "kind": "in_progress", tool: string, pid: number, machine: string, age_ms: number, } | { "kind": "interrupted", tool: string, pid: number, age_ms: number, } | { "kind": "abandoned", tool: string, pid: number, } | { "kind": "untrusted", reason: string, };

/**
 * What must hold on the disk for a move of a cycle of names through a third name to count as
 * made (`T -> B` after `A -> T`: it happened only if `A` holds what the cycle moved into it, or
 * is empty when nothing did), so a vault whose texts happen to match is not taken for a swap
 * half made.
 */
export type Condition = { "when": "absent", path: string, } | { "when": "holds", path: string, hash: string | null, };

/**
 * One step of an undo, with what the edge checks on the disk right before it. Paths are
 * relative to the vault, with `/`.
 */
export type UndoStep = { "step": "remove_temporary", path: string, } | { "step": "put_back", path: string, aside: string, temporary: string, before: string, saved: string, } | { "step": "move_back", from: string, to: string, via: string | null, second_names: Array<string>, hash: string | null, cycle: Condition | null, } | { "step": "remove_created", path: string, after_hash: string, } | { "step": "restore", path: string, aside: string | null, temporary: string, before: string, after_hash: string, saved: string, restorable: Array<string>, } | { "step": "remove_folder", path: string, } | { "step": "forget_kept", change_id: string, } | { "step": "put_back_set_aside", name: string, aside: string, } | { "step": "remove_journal" };

/**
 * Why a key file is not used. It crosses to the plugin as `{kind, detail?}`.
 */
export type Unusable = { "kind": "missing" } | { "kind": "not_plain_file" } | { "kind": "not_ours" } | { "kind": "mode", "detail": number } | { "kind": "too_large", "detail": number } | { "kind": "not_a_key" } | { "kind": "unreadable", "detail": string };

/**
 * A link that points to the note.
 */
export type Referrer = { 
/**
 * The note that holds the link.
 */
note: string, line: number, 
/**
 * The link as written.
 */
link: string, kind: LinkKind, 
/**
 * `body`, `property`, `canvas_file` (a canvas's file card) or `canvas_text` (a link in a
 * canvas's text card).
 */
source: string, 
/**
 * The property's key, for a property link.
 */
key?: string, };

/**
 * The note's text, split so it can be recreated; `text` is byte for byte what was deleted.
 */
export type Captured = { frontmatter?: string, body: string, text: string, };

/**
 * What `delete_note` answers, the same on every path.
 */
export type DeleteAnswer = { 
/**
 * Always true: a confirmed delete that is blocked is refused as an error, with its code.
 */
ok: boolean, path: string, 
/**
 * True when nothing was deleted because none was asked for.
 */
dry_run: boolean, 
/**
 * True when confirming would delete the note.
 */
would_change: boolean, 
/**
 * True only when repeating the call with `confirm: true` would delete without another
 * opt-in.
 */
can_confirm: boolean, 
/**
 * True when the preview (backlinks and plan hash) is complete.
 */
preview_ready: boolean, 
/**
 * One per condition that blocks a delete: `has_backlinks`, `concurrent_modification`,
 * `plan_hash_mismatch`.
 */
blocked_reasons: Array<string>, backlinks: Array<Referrer>, 
/**
 * True when the delete went ahead despite backlinks; they now dangle.
 */
forced: boolean, plan_hash: string, 
/**
 * After a delete: the id it is kept under for `undo_change`, which puts the note back.
 */
change_id?: string, 
/**
 * After a delete: the note's content, to recreate it.
 */
captured?: Captured, 
/**
 * After a delete: where the note went.
 */
trashed_to?: string, };

/** vaultlink's folder in a vault and its files (core's `own_files` and the modules of each file). */
export const OWN_FOLDER = ".vaultlink";
export const JOURNAL_FILE = ".vaultlink/journal.json";
export const CHANGES_FOLDER = ".vaultlink/changes";
export const KEYS_FOLDER = ".vaultlink/keys";
export const PRESENCE_FILE = ".vaultlink/presence.json";
export const RECOVERED_FOLDER = ".vaultlink/recovered";

/** Why a file of vaultlink's own that could not be read is passed over (core's `own_files::cannot_be_read`). */
export function cannotBeRead(reason: string): string {
	return "it cannot be read (" + reason + ")";
}

/** Every tool core answers (core's `tools::ALL`): whether it may change the vault, and whether it is long (it reports progress). */
export const TOOLS = {
	get_outgoing_links: { writes: false, long: false },
	get_backlinks: { writes: false, long: false },
	find_unresolved_links: { writes: false, long: false },
	find_orphans: { writes: false, long: false },
	resolve_link: { writes: false, long: false },
	list_notes: { writes: false, long: false },
	read_note: { writes: false, long: false },
	move_note: { writes: true, long: true },
	rewrite_link: { writes: true, long: true },
	lint_wiki: { writes: false, long: true },
	find_existing_page: { writes: false, long: false },
	find_evidence: { writes: false, long: true },
	delete_note: { writes: true, long: true },
	update_properties: { writes: true, long: false },
	bulk_move_notes: { writes: true, long: true },
	commit_wiki_page: { writes: true, long: false },
	draft_wiki_page: { writes: false, long: true },
	undo_change: { writes: true, long: false },
	list_changes: { writes: false, long: false },
	link_mentions: { writes: true, long: true },
	fix_broken_links: { writes: true, long: true },
	find_link_paths: { writes: false, long: false },
	link_graph: { writes: false, long: false },
	detected_moves: { writes: false, long: true },
	heal_moves: { writes: true, long: true },
	vault_summary: { writes: false, long: false },
} as const;

/** The name of a tool core answers. */
export type ToolName = keyof typeof TOOLS;
