/**
 * Loads the link engine: the wasm module built from `crates/wasm` is inlined into main.js as
 * deflated bytes (`engine/inline-wasm.mjs`), and inflated, compiled and instantiated
 * asynchronously, once per process, by `loadEngine`. Never synchronously: Obsidian's window refuses to compile a module of
 * more than 4 KB on its main thread (and the 1.6 MB module would hold up the app's start).
 * Everything else here needs the engine loaded, and throws `EngineLoadingError` before.
 *
 * This thread holds no link index: the index lives in the link engine's Web Worker
 * (`engine/`), which compiles its own copy of the module. What is here are core's pure
 * functions the plugin calls itself, and the types of what the engine answers.
 */

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
import type * as wire from "./wire";
import type { Batch, BatchWrite, Change, Journal, KeptChange, LinkForm, Purpose, SavedOver, UndoStep, UnopenedChange, Verdict } from "./wire";

// Core's wire types, generated from the Rust types into `wire.ts`; the names the plugin knows
// them by are kept here.
export type {
	Batch,
	BatchCreate,
	BatchMove,
	BatchWrite,
	Change,
	ChangeReason,
	DeleteAnswer,
	FileMove,
	Journal,
	KeptChange,
	LinkChange,
	LinkForm,
	MoveAnswer,
	Needs,
	NewlyResolved,
	OutgoingLink,
	OutgoingLinks,
	Purpose,
	RenameAudit,
	SavedOver,
	SubpathStatus,
	UndoStep,
	UnopenedChange,
	Verdict,
} from "./wire";

/** A file of the kept changes, as core is handed them: opened, or not. */
export type ListedChange = KeptChange | UnopenedChange;

/** A typed error from one of core's operations, as it crosses to the agent (core's `CallError`); its code is one of core's (`error-codes.ts`). */
export type ToolError = wire.CallError;

/** What a tool answers: the operation's result object, or its typed error. */
export type ToolOutcome = { ok: true; result: unknown } | { ok: false; error: ToolError };

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
export type NoteLocation = wire.Utf16Position;

/**
 * Where an answer says a link was written (`LinkSource::describe` in `crates/core/src/parse.rs`):
 * a note's body, a property, a canvas's file card or a link in a canvas's text card.
 */
export type LinkSourceName = wire.LinkSource["source"];

/** One link as core's parser reads it (core's `parse::Link`). */
export type ParsedLink = wire.Link;

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

/** What `parseNote` returns: core's parse of the note, with each link's place as Obsidian counts it and its `LinkCache` fields (the wasm crate's `ParsedForJs`). */
export type ParsedNote = wire.ParsedNote & {
	/** `link_positions[i]` is `links[i]`'s range, counted as Obsidian counts. */
	link_positions: { start: NoteLocation; end: NoteLocation }[];
	/** `link_fields[i]`: `links[i]` as Obsidian's `LinkCache` names its fields, and its forms. */
	link_fields: LinkFields[];
};

/** Parses one note's text as the index does; the wasm glue types the result as `any`. */
export function parseNote(path: string, text: string): ParsedNote {
	loadedEngine();
	return parseNoteInWasm(path, text) as ParsedNote;
}

/** How a link resolved (`crates/core/src/resolve.rs`): one file, several (one chosen), or none. */
export type ResolutionStatus = wire.OutgoingLink["status"];

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

/** Which step of core's rule (`resolve::decided_by`) decides among several candidates for a link in `source`. */
export function decidedBy(source: string, candidates: string[]): "linking-folder" | "shortest-path" | "lexicographic" {
	loadedEngine();
	return decidedByInWasm(source, candidates) as "linking-folder" | "shortest-path" | "lexicographic";
}

/** The journal entry for `batch`, to write before its first change; `made` are its folders found missing. */
export function batchJournal(batch: Batch, made: string[], pid: number, startedUnixMs: number, machine: string): Journal {
	loadedEngine();
	return batchJournalInWasm(batch, made, pid, startedUnixMs, machine) as Journal;
}

/** What the plugin observed while carrying out a change (core's `step::StepError`). */
export type StepFailure = wire.StepError;

/** What the plugin observed of a journal found in the vault (core's `lease::Observed`). */
export type ObservedJournal = wire.Observed;

/** Core's judgement of a found journal (`lease::judge`), and the error a change answers meanwhile, naming `vault` and `journal`. */
export function judgeJournal(observed: ObservedJournal, vault: string, journal: string): { verdict: Verdict; refusal: ToolError } {
	loadedEngine();
	return judgeJournalInWasm(observed, vault, journal) as { verdict: Verdict; refusal: ToolError };
}

/** What must hold on the disk for the second half of a cycle's move through a third name to count as made (core's `undo_steps::Condition`). */
export type UndoCondition = wire.Condition;

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
export type SealKeyUnusable = wire.Unusable;

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

/** A link that points to a note about to be deleted (core's `delete::Referrer`). */
export type DeleteReferrer = wire.Referrer;
