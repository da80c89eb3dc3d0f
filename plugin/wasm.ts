//! Loads the link engine: the wasm module built from `crates/wasm` is inlined into main.js as
//! deflated bytes (`engine/inline-wasm.mjs`), and inflated, compiled and instantiated
//! asynchronously, once per process, by `loadEngine`. Never synchronously: Obsidian's window refuses to compile a module of
//! more than 4 KB on its main thread (and the 1.6 MB module would hold up the app's start).
//! Everything else here needs the engine loaded, and throws `EngineLoadingError` before.
//!
//! This thread holds no link index: the index lives in the link engine's Web Worker
//! (`engine/`), which compiles its own copy of the module. What is here are core's pure
//! functions the plugin calls itself, and the types of what the engine answers.

import initialiseWasm, {
	batchJournal as batchJournalInWasm,
	changesToForget as changesToForgetInWasm,
	contentHash as contentHashInWasm,
	isKeptChangeName as isKeptChangeNameInWasm,
	isUndoneChangeName as isUndoneChangeNameInWasm,
	journalAlreadyKept as journalAlreadyKeptInWasm,
	journalKeyNamed as journalKeyNamedInWasm,
	journalLease as journalLeaseInWasm,
	judgeJournal as judgeJournalInWasm,
	sameBatch as sameBatchInWasm,
	journalMaxBytes as journalMaxBytesInWasm,
	journalSizeRefusal as journalSizeRefusalInWasm,
	keptChangeName as keptChangeNameInWasm,
	decidedBy as decidedByInWasm,
	lintRules as lintRulesInWasm,
	openJournal as openJournalInWasm,
	parseNote as parseNoteInWasm,
	sealJournal as sealJournalInWasm,
	sealKey as sealKeyInWasm,
	sealKeyCandidates as sealKeyCandidatesInWasm,
	sealKeyNewId as sealKeyNewIdInWasm,
	sealKeyRefusal as sealKeyRefusalInWasm,
	sealKeySecret as sealKeySecretInWasm,
	sealKeyUnusable as sealKeyUnusableInWasm,
	stepError as stepErrorInWasm,
	undoSteps as undoStepsInWasm,
	savedOver as savedOverInWasm,
	linksLeft as linksLeftInWasm,
	type InitOutput,
} from "./wasm/vaultlink_wasm";
import deflatedWasm from "deflated-wasm:./wasm/vaultlink_wasm_bg.wasm";
import type { ErrorCode } from "./error-codes";

/** The journal written before a batch's first change, as core defines it (`crates/core/src/journal.rs`). */
export interface Journal {
	version: number;
	pid: number;
	/** The random id of the holder applying the batch, which renews its lease (core's `lease`); left out by a vaultlink before leases. */
	holder?: string;
	tool: string;
	started_unix_ms: number;
	machine: string;
	writes: { path: string; temporary: string; before: string; after_hash: string; kind?: "create" | "remove" }[];
	moves: { from: string; to: string; via: string | null; hash?: string }[];
	made_folders: string[];
	/** The id the change is kept under once applied; left out for one that is not kept. */
	change_id?: string;
	/** For an undo: the kept change it consumes, set aside as part of its commit. */
	forget?: string | null;
}

/** A change kept for `undo_change` (core's `history::KeptChange`): its file in the vault and its journal, opened. */
export interface KeptChange {
	name: string;
	journal: Journal;
}

/** A file named as a kept change that would not open (core's `history::UnopenedChange`), with why: no undo uses it, and an undo without an id never reaches past it. */
export interface UnopenedChange {
	name: string;
	why: string;
}

/** A file of the kept changes, as core is handed them: opened, or not. */
export type ListedChange = KeptChange | UnopenedChange;

/** A typed error from one of core's operations, as it crosses to the agent; its code is one of core's (`error-codes.ts`). */
export interface ToolError {
	code: ErrorCode;
	message: string;
	hint: string;
	retryable: boolean;
}

/** What a tool answers: the operation's result object, or its typed error. */
export type ToolOutcome = { ok: true; result: unknown } | { ok: false; error: ToolError };

/** The steps of an approved change, decided by core (`ops::Change`), for the plugin to carry out before it answers. */
export type Change = { kind: "batch"; batch: Batch; plan_hash: string } | { kind: "trash"; path: string; before: string; keep: Batch };

/** What core's `call` answers: a tool's outcome, and for an approved change its steps. */
/** `guard`, with a change: core's `Change::paths_to_guard`, the paths no step may reach through a symbolic link. */
export type CallOutcome = { ok: true; result: unknown; change?: Change; guard?: string[] } | { ok: false; error: ToolError };

/** The instantiated module's exports, once `loadEngine` has finished. */
let engine: InitOutput | null = null;
/** The load under way, if one is. */
let loading: Promise<InitOutput> | null = null;

/** What the engine's functions throw before `loadEngine` has finished. */
export class EngineLoadingError extends Error {
	constructor() {
		super("the link engine is still loading");
	}
}

/**
 * Compiles and instantiates the wasm module, asynchronously (`WebAssembly.instantiate`, through
 * wasm-bindgen's default init), if this process has not yet. Resolves at once after the first
 * load; a failed load may be tried again.
 */
export function loadEngine(): Promise<InitOutput> {
	if (engine !== null) return Promise.resolve(engine);
	loading ??= compiledModule().then((module) => initialiseWasm({ module_or_path: module })).then(
		(output) => {
			engine = output;
			return output;
		},
		(error: unknown) => {
			loading = null;
			throw error;
		},
	);
	return loading;
}

/** The module compiled, once per process; a failed compile may be tried again. */
let compiling: Promise<WebAssembly.Module> | null = null;

/**
 * The wasm module compiled from the bytes main.js holds, inflated, asynchronously
 * (`WebAssembly.compile`; the window refuses a synchronous compile), once: this thread
 * instantiates it for the pure functions and the engine's worker is handed the same compiled
 * module, so it is neither inflated nor compiled twice.
 */
export function compiledModule(): Promise<WebAssembly.Module> {
	compiling ??= inflate(deflatedWasm).then((bytes) => WebAssembly.compile(bytes)).catch((error: unknown) => {
		compiling = null;
		throw error;
	});
	return compiling;
}

/** The bytes of a zlib deflate stream, inflated off the main thread's critical path by the platform's DecompressionStream. */
function inflate(deflated: Uint8Array): Promise<ArrayBuffer> {
	const stream = new Blob([deflated as unknown as BlobPart]).stream().pipeThrough(new DecompressionStream("deflate"));
	return new Response(stream).arrayBuffer();
}

/** Whether `loadEngine` has finished. */
export function engineLoaded(): boolean {
	return engine !== null;
}

/** The loaded module's exports; throws `EngineLoadingError` before `loadEngine` has finished. */
function loadedEngine(): InitOutput {
	if (engine === null) throw new EngineLoadingError();
	return engine;
}

/**
 * The size of the module's linear memory in bytes: every index of this process together, plus
 * what the allocator holds. Wasm memory grows and never shrinks, so this is a high-water mark.
 */
export function engineMemoryBytes(): number {
	return loadedEngine().memory.buffer.byteLength;
}

/** A place in a note as Obsidian's `Loc` counts it: 0-based line, UTF-16 column and offset. */
export interface NoteLocation {
	line: number;
	col: number;
	offset: number;
}

/**
 * Where an answer says a link was written (`LinkSource::describe` in `crates/core/src/parse.rs`):
 * a note's body, a property, a canvas's file card or a link in a canvas's text card.
 */
export type LinkSourceName = "body" | "property" | "canvas_file" | "canvas_text";

/** One link as core's parser reads it (`crates/core/src/parse.rs`), as far as the plugin reads it. */
export interface ParsedLink {
	kind: "wikilink" | "embed" | "markdown" | "markdown_embed";
	/** Where the link was written: the note's body or a property (frontmatter) value. */
	source: "body" | "property" | "canvas_file" | "canvas_text";
	/** A property link's top-level key. */
	key?: string;
	/** A property link's full key path, list indexes as numbers: `["related", 0]`. */
	key_path?: (string | number)[];
	/** The target as written, without brackets or angle brackets (still percent-encoded). */
	target: string;
	/** The target's file part, percent-decoded for Markdown links. */
	path: string;
	/** `#Heading` or `#^block`, percent-decoded for Markdown links; null when there is none. */
	subpath: string | null;
	/** The alias or link text; null for a wikilink without an alias. */
	display: string | null;
	/** UTF-8 byte range of the whole link in the note's text. */
	span: { start: number; end: number };
}

/**
 * A form of link that needs a rule of its own to read (`LinkForm` in `crates/core/src/parse.rs`):
 * a relative wikilink, a link in JSON frontmatter, a link in a block scalar.
 */
export type LinkForm = "relative" | "json_frontmatter" | "block_scalar";

/** Every link form, in the order reports list them. */
export const LINK_FORMS: readonly LinkForm[] = ["relative", "json_frontmatter", "block_scalar"];

/** One link as Obsidian's `LinkCache` names its fields, as core reads them. */
export interface LinkFields {
	/** `LinkCache.link`'s form without the subpath: decoded, a Markdown link without `.md`. */
	link: string;
	/** `LinkCache.displayText`: the alias, else the target with `#` shown as ` > `. */
	display_text: string;
	/** `LinkCache.original`: the link as written. */
	original: string;
	/** A property link's key as `FrontmatterLinkCache.key` writes it: `related.0`. */
	key?: string;
	forms: LinkForm[];
}

/** What `parseNote` returns, as far as the plugin reads it. */
export interface ParsedNote {
	links: ParsedLink[];
	/** `link_positions[i]` is `links[i]`'s range, counted as Obsidian counts. */
	link_positions: { start: NoteLocation; end: NoteLocation }[];
	/** `link_fields[i]`: `links[i]` as Obsidian's `LinkCache` names its fields, and its forms. */
	link_fields: LinkFields[];
	/** True when core stopped at one of its limits and the lists are incomplete. */
	truncated: boolean;
}

/** Parses one note's text as the index does; the wasm glue types the result as `any`. */
export function parseNote(path: string, text: string): ParsedNote {
	loadedEngine();
	return parseNoteInWasm(path, text) as ParsedNote;
}

/** How a link resolved (`crates/core/src/resolve.rs`): one file, several (one chosen), or none. */
export type ResolutionStatus = "resolved" | "ambiguous" | "unresolved";

/**
 * One link of a note with its resolution (`OutgoingLink` in `crates/core/src/ops.rs`, detailed
 * format), as far as the plugin reads it.
 */
export interface OutgoingLink {
	kind: ParsedLink["kind"];
	source: LinkSourceName;
	key?: string;
	/** The target as written: the path part and any `#heading`, percent-encoded in a Markdown link as written. */
	target: string;
	subpath?: string;
	display?: string;
	/** 1-based line of the link's start. */
	line: number;
	/** UTF-8 byte range of the whole link in the note's text. */
	span?: { start: number; end: number };
	status: ResolutionStatus;
	/** The file the link points to: the only match, or the one chosen of several. */
	resolved_path?: string;
	/** Every file that matches, sorted, for an ambiguous link. */
	candidates?: string[];
}

/** What the engine's `outgoingLinks` answers: the note's links in the order `parseNote` gives them. */
export interface OutgoingLinks {
	path: string;
	links: OutgoingLink[];
	truncated: boolean;
}

/**
 * One lint rule of core (`crates/core/src/lint`): the kind `lint_wiki` takes, its code, what it
 * finds, and whether `lint_wiki` runs it when no kinds are named (false for `dead_end`).
 */
export interface LintRule {
	kind: string;
	code: string;
	summary: string;
	by_default: boolean;
}

/** Every lint rule of core, in the order their findings are reported. */
export function lintRules(): LintRule[] {
	loadedEngine();
	return lintRulesInWasm() as LintRule[];
}

// ---------------------------------------------------------------------------------------------
// Move answers (`crates/core/src/rename.rs`)

export interface FileMove {
	from: string;
	to: string;
}

/** Why a link is rewritten: the first three in a move, `repointed` in `rewrite_link`. */
export type ChangeReason = "target_moved" | "source_moved" | "second_order" | "repointed";

/** One link a plan rewrites. */
export interface LinkChange {
	/** The note holding the link, at its path before the move. */
	note: string;
	/** 1-based. */
	line: number;
	before: string;
	after: string;
	reason: ChangeReason;
}

/** A link that was unresolved and will find the moved file under its new name. */
export interface NewlyResolved {
	note: string;
	line: number;
	link: string;
	resolves_to: string;
}

/** What `move_note` answers, the same on both paths. */
export interface MoveAnswer {
	dry_run: boolean;
	applied: boolean;
	plan_hash: string;
	/** The moves on this page of the preview; `files_moved` counts them all. */
	moves: FileMove[];
	files_moved: number;
	notes_edited: number;
	/** Left out of an applied move's receipt with `response_format: "concise"`; a preview keeps it. */
	changes?: LinkChange[];
	links_changed: number;
	/** The first 50; `newly_resolved_count` counts them all when there are more. */
	newly_resolved: NewlyResolved[];
	/** `rewrite_link` with `allow_unresolved`: the links that work today and will find no note. */
	links_broken?: number;
	newly_resolved_count?: number;
	/** Present when the preview's `moves` or `changes` go on. */
	next_cursor?: string;
}

/** What core's rename audit found for the file now at `to`, renamed from `from` (`crates/core/src/audit.rs`). */
export interface RenameAudit {
	skipped?: string;
	stale: { note: string; line: number; span: { start: number; end: number }; target: string; source: LinkSourceName; key?: string; resolved_path?: string }[];
	fixes: { from_target: string; to_target: string }[];
}

/** Which step of core's rule (`resolve::decided_by`) decides among several candidates for a link in `source`. */
export function decidedBy(source: string, candidates: string[]): "linking-folder" | "shortest-path" | "lexicographic" {
	loadedEngine();
	return decidedByInWasm(source, candidates) as "linking-folder" | "shortest-path" | "lexicographic";
}

/** One note a batch rewrites (core's `batch::BatchWrite`): the planned text and the new one. */
export interface BatchWrite {
	path: string;
	before: string;
	before_hash: string;
	text: string;
	after_hash: string;
	temporary: string;
	/** The edits over `before` that make `text`, when the write is a plan's (left out when none). */
	edits?: { span: { start: number; end: number }; replacement: string }[];
}

/** One file a batch moves; `via` is the temporary name of a move that changes only case. */
export interface BatchMove {
	from: string;
	to: string;
	via: string | null;
	/** The destination is where an earlier move of the batch takes a file from. */
	vacated: boolean;
	/** For a move of a cycle of names: the content hash of what it moves. */
	hash: string | null;
}

/** One file a batch creates (a wiki page): nothing may be at `path` when it is written. */
export interface BatchCreate {
	path: string;
	text: string;
	after_hash: string;
	temporary: string;
}

/** The steps that carry out an approved plan, decided by core (`crates/core/src/batch.rs`). */
export interface Batch {
	tool: string;
	writes: BatchWrite[];
	moves: BatchMove[];
	creates: BatchCreate[];
	removes: { path: string; before: string; before_hash: string }[];
	/** The id the change is kept under once done (empty: not kept). */
	change_id: string;
	/** The kept change this batch undoes, to remove once it is done. */
	forget: string | null;
	folders: string[];
	emptied_folders: string[];
}

/** The journal entry for `batch`, to write before its first change; `made` are its folders found missing. */
export function batchJournal(batch: Batch, made: string[], pid: number, startedUnixMs: number, machine: string): Journal {
	loadedEngine();
	return batchJournalInWasm(batch, made, pid, startedUnixMs, machine) as Journal;
}

/** What the plugin observed while carrying out a change (core's `step::StepError`). */
export type StepFailure =
	| { kind: "changed"; path: string }
	| { kind: "failed"; what: string }
	| { kind: "taken"; what: string; path: string }
	| { kind: "failed_kept"; what: string; kept: { path: string; saved: string }[] }
	| { kind: "undo_incomplete"; what: string; left: string }
	| { kind: "changed_before_trash"; path: string }
	| { kind: "trash_failed"; path: string; why: string }
	| { kind: "in_progress"; tool: string; pid: number }
	| { kind: "interrupted"; tool: string; pid: number; vault: string }
	| { kind: "untrusted"; reason: string; journal: string }
	| { kind: "just_applied" }
	| { kind: "lease_lost"; taken: boolean }
	| { kind: "undo_edited"; forget: string | null; path: string }
	| { kind: "journal_unwritable"; journal: string; why: string }
	| { kind: "journal_too_large"; bytes: number }
	| { kind: "not_utf8"; path: string }
	| { kind: "hard_linked"; path: string; links: number }
	| { kind: "through_link"; path: string; link: string }
	| { kind: "saved_over_put_back"; path: string }
	| { kind: "saved_over_left"; path: string; links: string[] }
	| { kind: "created_saved_over"; path: string };

/** What the plugin observed of a journal found in the vault (core's `lease::Observed`). */
export interface ObservedJournal {
	opened:
		| { kind: "journal"; holder: string; tool: string; pid: number; machine: string; steps: boolean; abandoned: boolean }
		| { kind: "refused"; reason: string; whole: boolean };
	age_ms: number;
	plain_file: boolean;
	holder: string;
	locked_elsewhere: boolean;
}

/** What a found journal means (core's `lease::Verdict`). */
export type Verdict =
	| { kind: "ours" }
	| { kind: "starting"; tool: string | null; pid: number | null }
	| { kind: "in_progress"; tool: string; pid: number; machine: string; age_ms: number }
	| { kind: "interrupted"; tool: string; pid: number; age_ms: number }
	| { kind: "abandoned"; tool: string; pid: number }
	| { kind: "untrusted"; reason: string };

/** Core's judgement of a found journal (`lease::judge`), and the error a change answers meanwhile, naming `vault` and `journal`. */
export function judgeJournal(observed: ObservedJournal, vault: string, journal: string): { verdict: Verdict; refusal: ToolError } {
	loadedEngine();
	return judgeJournalInWasm(observed, vault, journal) as { verdict: Verdict; refusal: ToolError };
}

/** What must hold on the disk for the second half of a cycle's move through a third name to count as made (core's `undo_steps::Condition`). */
export type UndoCondition = { when: "absent"; path: string } | { when: "holds"; path: string; hash: string | null };

/** One step of the undo of a journal, with what is checked on the disk right before it (core's `undo_steps::UndoStep`). */
export type UndoStep =
	| { step: "remove_temporary"; path: string }
	| { step: "put_back"; path: string; aside: string; temporary: string; before: string; saved: string }
	| { step: "move_back"; from: string; to: string; via: string | null; second_names: string[]; hash: string | null; cycle: UndoCondition | null }
	| { step: "remove_created"; path: string; after_hash: string }
	| { step: "restore"; path: string; aside: string | null; temporary: string; before: string; after_hash: string; saved: string; restorable: string[] }
	| { step: "remove_folder"; path: string }
	| { step: "forget_kept"; change_id: string }
	| { step: "put_back_set_aside"; name: string; aside: string }
	| { step: "remove_journal" };

/** The steps that undo `journal`, in order (core's `undo_steps::steps`), as the sidecar carries them out on the folder. */
export function undoSteps(journal: Journal): UndoStep[] {
	loadedEngine();
	return undoStepsInWasm(journal) as UndoStep[];
}

/** The journal lease's timings (core's `lease`). */
export function journalLease(): { renew_ms: number; holder_stop_ms: number; expire_ms: number } {
	loadedEngine();
	return journalLeaseInWasm() as { renew_ms: number; holder_stop_ms: number; expire_ms: number };
}

/** Whether a journal found is of the batch `ours` (core's `lease::same_batch`, as the sidecar compares them). */
export function sameBatch(found: Journal, ours: Journal): boolean {
	loadedEngine();
	return sameBatchInWasm(found, ours);
}

/** What to do about a note saved over after a batch rewrote it (core's `step::saved_over`). */
export type SavedOver = { kind: "put_back"; text: string } | { kind: "leave"; links: string[] };

/** Whether the batch's `write` lies intact in `saved`, another program's save of the note, and the save with it taken back. */
export function savedOver(write: BatchWrite, saved: string): SavedOver {
	loadedEngine();
	return savedOverInWasm(write, saved) as SavedOver;
}

/** The links the batch's `write` rewrote that `now` still holds as it wrote them (core's `step::links_left`). */
export function linksLeft(write: BatchWrite, now: string): string[] {
	loadedEngine();
	return linksLeftInWasm(write, now) as string[];
}

/** The error a change ends with for `failure`, worded by core as the sidecar words it. */
export function stepError(failure: StepFailure): ToolError {
	loadedEngine();
	return stepErrorInWasm(failure) as ToolError;
}

/**
 * What a sealed file is for (core's `journal::Purpose`): the journal of a change being made, or a
 * change kept for `undo_change`. The seal covers it, and the id of the vault's key it was sealed
 * with, so neither file can be taken for the other, or for another vault's.
 */
export type Purpose = "journal" | "kept";

/** The file's text for `journal`, sealed by core for `purpose` with `key`, derived from the vault's key file of id `id` (`move/seal-keys.ts`); or the error when it would pass core's bound on its size. */
export function sealJournal(key: Uint8Array, purpose: Purpose, id: string, journal: unknown): { sealed: string } | { error: ToolError } {
	loadedEngine();
	const sealed = sealJournalInWasm(key, purpose, id, journal) as { sealed?: string | null; error?: ToolError | null };
	return typeof sealed.sealed === "string" ? { sealed: sealed.sealed } : { error: sealed.error as ToolError };
}

/** A file's text opened as a file of `purpose` with `key`, derived from the vault's key file of id `id` (the one the file names): `journal` when it may be acted on, else `refusal`, why not. */
export function openJournal(key: Uint8Array, purpose: Purpose, id: string, text: string): { journal?: unknown; refusal?: string | null } {
	loadedEngine();
	return openJournalInWasm(key, purpose, id, text) as { journal?: unknown; refusal?: string | null };
}

/** The id of the key a file's text says it was sealed with (core's `journal::key_named`), or why the file is refused before any key. */
export function journalKeyNamed(text: string): { key?: string | null; refusal?: string | null } {
	loadedEngine();
	return journalKeyNamedInWasm(text) as { key?: string | null; refusal?: string | null };
}

/** Why a key file is not used (core's `seal_key::Unusable`). */
export interface SealKeyUnusable {
	kind: "missing" | "not_plain_file" | "not_ours" | "mode" | "too_large" | "not_a_key" | "unreadable";
	detail?: unknown;
}

/** The key seals are made with, from a key file's secret and identity (`ino`): core's `seal_key::derive`. */
export function sealKey(secret: Uint8Array, identity: bigint): Uint8Array {
	loadedEngine();
	return sealKeyInWasm(secret, identity);
}

/** The ids of the key files to look at, in core's order and bound, from the names in the keys folder. */
export function sealKeyCandidates(names: string[]): string[] {
	loadedEngine();
	return sealKeyCandidatesInWasm(names);
}

/** The id of a key made now, from 8 random bytes, below every id passed over (core's `seal_key::new_id`). */
export function sealKeyNewId(random: Uint8Array, passedOver: string[]): string {
	loadedEngine();
	return sealKeyNewIdInWasm(random, passedOver);
}

/** The secret in a key file's bytes, or undefined when they hold none. */
export function sealKeySecret(bytes: Uint8Array): Uint8Array | undefined {
	loadedEngine();
	return sealKeySecretInWasm(bytes);
}

/** Why a key file may not be used, from what was seen of it before reading it (`mode` undefined on Windows); undefined when it may. */
export function sealKeyUnusable(plainFile: boolean, mode: number | undefined, ours: boolean, bytes: number): SealKeyUnusable | undefined {
	loadedEngine();
	return (sealKeyUnusableInWasm(plainFile, mode, ours, bytes) as SealKeyUnusable | undefined) ?? undefined;
}

/** Core's refusal of a file sealed with the key `id`, whose file is unusable. */
export function sealKeyRefusal(id: string, unusable: SealKeyUnusable): string {
	loadedEngine();
	return sealKeyRefusalInWasm(id, unusable);
}

/** The most bytes a journal or kept change file may have (core's `journal::MAX_FILE_BYTES`); a larger one is never read. */
export function journalMaxBytes(): number {
	loadedEngine();
	return journalMaxBytesInWasm();
}

/** Why a journal or kept change file of `bytes` bytes is not read, in core's words; null when it is within core's bound. */
export function journalSizeRefusal(bytes: number): string | null {
	loadedEngine();
	return journalSizeRefusalInWasm(bytes) ?? null;
}

/** Why a journal in the vault is no interrupted change, given the names of the changes kept beside it (core's `history::check_not_kept`); null when it may be one. */
export function journalAlreadyKept(journal: Journal, keptNames: string[]): string | null {
	loadedEngine();
	return journalAlreadyKeptInWasm(journal, keptNames) ?? null;
}

/** Where an applied change is kept, beside the kept changes `existing` (core's `history::next_record_name`). */
export function keptChangeName(nowUnixMs: number, changeId: string, existing: string[]): string {
	loadedEngine();
	return keptChangeNameInWasm(nowUnixMs, changeId, existing);
}

/** Whether a path in the changes folder is a kept change's. */
export function isKeptChangeName(name: string): boolean {
	loadedEngine();
	return isKeptChangeNameInWasm(name);
}

/** Whether a path in the changes folder is a kept change an undo set aside, the record that the undo was made. */
export function isUndoneChangeName(name: string): boolean {
	loadedEngine();
	return isUndoneChangeNameInWasm(name);
}

/** The kept changes to remove past core's bounds (count and size). */
export function changesToForget(records: { name: string; size: number }[]): string[] {
	loadedEngine();
	return changesToForgetInWasm(records.map((record) => record.name), new Float64Array(records.map((record) => record.size)));
}

/** SHA-256 of `text` as lowercase hex, as a plan's `content_hash`. */
export function contentHash(text: string): string {
	loadedEngine();
	return contentHashInWasm(text);
}

/** A link that points to a note about to be deleted. */
export interface DeleteReferrer {
	note: string;
	line: number;
	link: string;
	kind: string;
	source: LinkSourceName;
	key?: string;
}

/** What `delete_note` answers; `captured` and `trashed_to` are filled in after a delete. */
export interface DeleteAnswer {
	ok: boolean;
	path: string;
	dry_run: boolean;
	would_change: boolean;
	can_confirm: boolean;
	preview_ready: boolean;
	blocked_reasons: string[];
	backlinks: DeleteReferrer[];
	forced: boolean;
	plan_hash: string;
	captured?: { frontmatter?: string; body: string; text: string };
	trashed_to?: string;
}
