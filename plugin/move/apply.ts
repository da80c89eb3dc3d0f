//! The `move_note` tool inside Obsidian: core plans and proves the move from the notes' current
//! texts, and this module applies the plan through the Vault API, all or nothing, the way the
//! sidecar applies it to the folder (`crates/sidecar/src/apply.rs`), so both paths answer alike.
//!
//! Every note the plan edits is checked against the hash the plan was made from before the
//! first write, and again inside `vault.process` as it is written. Files move with
//! `vault.rename`, never `fileManager.renameFile`, whose link updater would rewrite links a
//! second time over the plan's edits. Any failure undoes every step made so far, newest first.

import { TFile, TFolder, type App, type TAbstractFile, type Vault } from "obsidian";
import { saveOpenEditors } from "../editors";
import type { ToolHost } from "../host";
import { abandonJournal, beginJournal, finishJournal, machineName } from "./journal";
import {
	batchJournal,
	batchOf,
	decidePlan,
	PLAN_HISTORY_KEPT,
	moveAnswer,
	movedFolder,
	notesToRead,
	notesToReadForRewrite,
	planMove,
	planRewriteLink,
	type BatchMove,
	type BatchWrite,
	type MovePlan,
	type PlanHistory,
	type ToolError,
	type ToolOutcome,
	type Vault as LinkIndex,
	vaultPathProblem,
} from "../wasm";

/** The arguments of `move_note`, read and checked. */
export interface MoveArguments {
	from: string;
	to: string;
	/** Absent unless given: then the call applies only when `approvedPlanHash` is given. */
	dryRun?: boolean;
	approvedPlanHash?: string;
	/** False for `response_format: "concise"`, which leaves the list of changes out. */
	detailed: boolean;
}

/** A step that either happened or was refused with a typed error. */
export type StepOutcome = { ok: true } | { ok: false; error: ToolError };

const PARAMETERS = ["from", "to", "dry_run", "approved_plan_hash", "response_format"];
const RESPONSE_FORMATS = ["concise", "detailed"];

/** The `move_note` tool: plans, and applies when asked. Moves on one index run one at a time. */
export async function moveNote(host: ToolHost, args: unknown): Promise<ToolOutcome> {
	const parsed = readMoveArguments(args);
	if ("code" in parsed) return { ok: false, error: parsed };
	return oneAtATime(host.index, () => planAndApply(host, "move_note", parsed, () => planFromVault(host, parsed.from, parsed.to)));
}

const REWRITE_PARAMETERS = ["from_target", "to_target", "dry_run", "approved_plan_hash", "response_format"];

/**
 * The `rewrite_link` tool: repoints every link whose target is `from_target` to `to_target`,
 * planned and proven in core from the notes' current texts, applied like a move.
 */
export async function rewriteLink(host: ToolHost, args: unknown): Promise<ToolOutcome> {
	const parsed = readArguments(args, "rewrite_link", REWRITE_PARAMETERS, ["from_target", "to_target"], false);
	if ("code" in parsed) return { ok: false, error: parsed };
	const plan = async (): Promise<{ ok: true; plan: MovePlan } | { ok: false; error: ToolError }> => {
		const needed = await notesWithEditorsSaved(host, () => ({ ok: true, notes: notesToReadForRewrite(host.index, parsed.from) }));
		if (!needed.ok) return needed;
		const read = await readTexts(host.app.vault, needed.notes);
		if (!read.ok) return read;
		return planRewriteLink(host.index, parsed.from, parsed.to, read.texts);
	};
	return oneAtATime(host.index, () => planAndApply(host, "rewrite_link", parsed, plan));
}

async function planAndApply(
	host: ToolHost,
	tool: "move_note" | "rewrite_link",
	args: MoveArguments,
	makePlan: () => Promise<{ ok: true; plan: MovePlan } | { ok: false; error: ToolError }>,
): Promise<ToolOutcome> {
	// The plan is checked against the index, so the index must first hold what the vault holds,
	// as the sidecar refreshes its folder index before every call.
	await host.settle();
	const planned = await makePlan();
	if (!planned.ok) return planned;
	const plan = planned.plan;
	// The one approval decision, core's, as the sidecar makes it.
	const history = historyOf(host.index);
	const decided = decidePlan(plan.plan_hash, { dry_run: args.dryRun, approved_plan_hash: args.approvedPlanHash }, history);
	if (!decided.ok) return decided;
	const apply = decided.apply;
	if (!apply) remember(history.issued, plan.plan_hash);
	if (apply) {
		const applied = await applyPlan(host.app, plan, movedFolderOf(args.from, plan), tool);
		// The writes and renames reach the index through the indexer, from the vault's events;
		// waiting for it means the answer, and every call after it, sees the vault as it is now.
		await host.settle();
		if (!applied.ok) return applied;
		remember(history.applied, plan.plan_hash);
	}
	return { ok: true, result: moveAnswer(plan, !apply, apply, args.detailed) };
}

/** Checks `move_note`'s arguments as the sidecar's schema does. */
export function readMoveArguments(args: unknown): MoveArguments | ToolError {
	return readArguments(args, "move_note", PARAMETERS, ["from", "to"], true);
}

/**
 * Checks a planning tool's arguments as the sidecar's schema does: an object, known
 * parameters, their types, and (for paths) that they stay inside the vault. `names` are the
 * two required strings, read as `from` and `to`.
 */
function readArguments(args: unknown, tool: string, parameters: string[], names: [string, string], paths: boolean): MoveArguments | ToolError {
	const invalid = (message: string): ToolError => ({
		code: "invalid_arguments",
		message,
		hint: `See the input schema of \`${tool}\` in tools/list.`,
		retryable: false,
	});
	const given: unknown = args ?? {};
	if (typeof given !== "object" || given === null || Array.isArray(given)) return invalid("the arguments must be a JSON object");
	const record = given as Record<string, unknown>;
	for (const key of Object.keys(record)) {
		if (!parameters.includes(key)) return invalid(`unknown parameter \`${key}\`; \`${tool}\` takes: ${parameters.join(", ")}`);
	}
	for (const key of names) {
		if (!(key in record)) return invalid(`missing parameter \`${key}\``);
	}
	for (const key of [...names, "approved_plan_hash", "response_format"]) {
		if (key in record && typeof record[key] !== "string") return invalid(`parameter \`${key}\` must be a string`);
	}
	if ("dry_run" in record && typeof record["dry_run"] !== "boolean") return invalid("parameter `dry_run` must be a boolean");
	const responseFormat = record["response_format"];
	if (typeof responseFormat === "string" && !RESPONSE_FORMATS.includes(responseFormat)) {
		return invalid(`parameter \`response_format\` must be one of ${JSON.stringify(RESPONSE_FORMATS)}`);
	}
	const from = record[names[0]] as string;
	const to = record[names[1]] as string;
	for (const [key, value] of paths ? ([[names[0], from], [names[1], to]] as const) : []) {
		const problem = vaultPathProblem(value);
		if (problem !== null) {
			return {
				code: "invalid_path",
				message: `\`${key}\` ${JSON.stringify(value)} is not a path inside the vault: ${problem}`,
				hint: "Give paths relative to the vault root as they are spelt on disk, such as `Folder/Note.md`, without a leading `/`, `~` or `..`.",
				retryable: false,
			};
		}
	}
	const parsed: MoveArguments = { from, to, detailed: responseFormat !== "concise" };
	if (typeof record["dry_run"] === "boolean") parsed.dryRun = record["dry_run"];
	if (typeof record["approved_plan_hash"] === "string") parsed.approvedPlanHash = record["approved_plan_hash"];
	return parsed;
}

/** Plans a move from the current text of every note core asks for, read with `vault.read`. */
export async function planFromVault(
	host: ToolHost,
	from: string,
	to: string,
): Promise<{ ok: true; plan: MovePlan } | { ok: false; error: ToolError }> {
	const needed = await notesWithEditorsSaved(host, () => notesToRead(host.index, from, to));
	if (!needed.ok) return needed;
	const read = await readTexts(host.app.vault, needed.notes);
	if (!read.ok) return read;
	return planMove(host.index, from, to, read.texts);
}

/**
 * The notes `which` names, once the open editors of every one of them are saved and the index
 * has caught up with what they saved (which may change the list: a saved note may hold new
 * links, so it is asked again). Without this, a note open in an editor would be planned from the
 * text on disk and then overwritten by the editor's own save a moment later.
 */
async function notesWithEditorsSaved(
	host: ToolHost,
	which: () => { ok: true; notes: string[] } | { ok: false; error: ToolError },
): Promise<{ ok: true; notes: string[] } | { ok: false; error: ToolError }> {
	for (let pass = 1; ; pass += 1) {
		const needed = which();
		if (!needed.ok) return needed;
		const saved = await saveOpenEditors(host.app, needed.notes);
		if (!saved.ok) return saved;
		if (saved.saved.length === 0) return needed;
		await host.settle();
		// Each pass saves at least one editor that held unsaved text; a user typing into them all
		// the while cannot keep the tool waiting for ever.
		if (pass >= MAX_EDITOR_SAVE_PASSES) return which();
	}
}

/** How many times the editors are saved before a plan is made from what the files then hold. */
const MAX_EDITOR_SAVE_PASSES = 3;

/** The current text of each note, by path, or the first read's error. */
async function readTexts(
	vault: Vault,
	paths: string[],
): Promise<{ ok: true; texts: Record<string, string> } | { ok: false; error: ToolError }> {
	const reads = await Promise.all(paths.map((path) => readNote(vault, path)));
	const texts: Record<string, string> = {};
	for (const read of reads) {
		if ("error" in read) return { ok: false, error: read.error };
		texts[read.path] = read.text;
	}
	return { ok: true, texts };
}

/** A note's text from disk (not the cache: the plan's hashes must be of what is there now). */
async function readNote(vault: Vault, path: string): Promise<{ path: string; text: string } | { error: ToolError }> {
	const file = vault.getAbstractFileByPath(path);
	if (!(file instanceof TFile)) {
		return { error: { code: "note_not_found", message: `\`${path}\` cannot be opened: it is not in the vault`, hint: "Call list_notes to see the paths.", retryable: true } };
	}
	try {
		return { path, text: await vault.read(file) };
	} catch (error) {
		return {
			error: { code: "vault_unreadable", message: `\`${path}\` could not be read: ${messageOf(error)}`, hint: "Check the file's permissions, then call again.", retryable: true },
		};
	}
}

/**
 * The folder a folder move empties, or null for a file move: `from` names a moving file itself
 * (perhaps without `.md`), or a folder above every moving file. Taken from the plan's paths, so
 * it is spelled as the vault spells it even when `from` differs in case.
 */
export function movedFolderOf(from: string, plan: MovePlan): string | null {
	return movedFolder(from, plan) ?? null;
}

// ---------------------------------------------------------------------------------------------
// Applying

/** A change made so far, to undo on failure. */
type Done =
	| { kind: "wrote"; file: TFile; path: string; before: string; after: string }
	| { kind: "moved"; file: TAbstractFile; from: string; to: string }
	| { kind: "madeFolder"; path: string };

/** A note whose text changed between the check before writing and its own write. */
class ChangedWhileWriting extends Error {
	constructor(readonly path: string) {
		super(`${path} changed while the move was being written`);
	}
}

/** A step that failed, described as the error message says it. */
class StepFailed extends Error {
	constructor(readonly what: string) {
		super(what);
	}
}

function concurrent(path: string): ToolError {
	return {
		code: "concurrent_modification",
		message: `\`${path}\` changed after the plan was made; nothing was changed`,
		hint: "Preview the move again (dry run) and approve the new plan.",
		retryable: true,
	};
}

/**
 * Applies `plan` to the vault, all or nothing. Core turns the plan into a batch (`batchOf`: each
 * note's planned and new text, the moves, the folders needed and those a folder move empties,
 * and the journal entry); this only checks the vault against it, carries it out through the
 * Vault API and undoes it on failure, as the sidecar's `apply` does on the folder.
 */
export async function applyPlan(app: App, plan: MovePlan, movedFolder: string | null, tool = "move_note"): Promise<StepOutcome> {
	const vault = app.vault;
	// The texts the notes have now; core refuses the batch when one is not the planned one.
	const texts: Record<string, string> = {};
	const files = new Map<string, TFile>();
	for (const edit of plan.edits) {
		const file = vault.getAbstractFileByPath(edit.path);
		if (!(file instanceof TFile)) return { ok: false, error: concurrent(edit.path) };
		try {
			texts[edit.path] = await vault.read(file);
		} catch {
			return { ok: false, error: concurrent(edit.path) };
		}
		files.set(edit.path, file);
	}
	const batched = batchOf(plan, texts, tool, movedFolder, process.pid);
	if (!batched.ok) return batched;
	const batch = batched.batch;
	const moving: { file: TFile; move: BatchMove }[] = [];
	for (const move of batch.moves) {
		const file = vault.getAbstractFileByPath(move.from);
		const taken = move.via === null && (vault.getAbstractFileByPath(move.to) !== null || (await vault.adapter.exists(move.to)));
		if (!(file instanceof TFile) || taken) return { ok: false, error: concurrent(move.from) };
		moving.push({ file, move });
	}
	const made: string[] = [];
	for (const folder of batch.folders) {
		const existing = vault.getAbstractFileByPath(folder);
		if (existing !== null && !(existing instanceof TFolder)) return { ok: false, error: writeFailed(`creating ${folder} failed: a file is there`) };
		if (existing === null) made.push(folder);
	}

	// The pre-images go to disk before the first change, so a batch cut short by Obsidian
	// stopping can be undone (`vaultlink recover`); see journal.ts.
	const journal = batchJournal(batch, made, process.pid, Date.now(), machineName());
	const refused = await beginJournal(vault.adapter, journal);
	if (refused !== null) return { ok: false, error: refused };
	const done: Done[] = [];
	try {
		for (const write of batch.writes) {
			const file = files.get(write.path);
			if (file === undefined) throw new ChangedWhileWriting(write.path);
			await writeNote(vault, file, write, done);
		}
		for (const folder of made) {
			await step(`creating ${folder} failed`, () => vault.createFolder(folder));
			done.push({ kind: "madeFolder", path: folder });
		}
		for (const { file, move } of moving) {
			// Obsidian makes a rename that changes only case itself; the journal's `via` is for
			// recovery, which renames through it.
			await step(`moving ${move.from} failed`, () => vault.rename(file, move.to));
			done.push({ kind: "moved", file, from: move.from, to: move.to });
		}
	} catch (error) {
		const leftOver = await undo(vault, done);
		// A batch not wholly undone keeps its journal, for `vaultlink recover`.
		if (leftOver.length === 0) await finishJournal(vault.adapter);
		else await abandonJournal(vault.adapter);
		return { ok: false, error: failureAfterUndo(error, leftOver) };
	}
	await finishJournal(vault.adapter);
	await trashEmptiedFolders(app, batch.emptied_folders);
	return { ok: true };
}

/** Writes one note's new text, checking as it is read for the write that it still holds the planned text. */
async function writeNote(vault: Vault, file: TFile, write: BatchWrite, done: Done[]): Promise<void> {
	let read = false;
	try {
		await step(`writing ${write.path} failed`, () =>
			vault.process(file, (current) => {
				if (current !== write.before) throw new ChangedWhileWriting(write.path);
				read = true;
				return write.text;
			}),
		);
	} finally {
		// Recorded even when the write failed after reading: the undo then finds which text is there.
		if (read) done.push({ kind: "wrote", file, path: write.path, before: write.before, after: write.text });
	}
}

function writeFailed(what: string): ToolError {
	// Worded as the sidecar's `write_failed` words it, for the same refusal.
	return { code: "write_failed", message: `${what}; every change made so far was undone`, hint: "Check the vault folder's permissions and free space, then try again.", retryable: true };
}

/** Runs one step; a failure is rethrown as `StepFailed` naming the step, unless it is a concurrent edit. */
async function step<T>(what: string, run: () => Promise<T>): Promise<T> {
	try {
		return await run();
	} catch (error) {
		if (error instanceof ChangedWhileWriting) throw error;
		throw new StepFailed(`${what}: ${messageOf(error)}`);
	}
}

/**
 * Undoes `done`, newest first. A note is restored only if it still holds what the move wrote:
 * an edit made meanwhile is kept, and named. Returns a sentence for each step not undone.
 */
async function undo(vault: Vault, done: Done[]): Promise<string[]> {
	const leftOver: string[] = [];
	for (const change of [...done].reverse()) {
		try {
			if (change.kind === "moved") {
				await vault.rename(change.file, change.from);
			} else if (change.kind === "wrote") {
				if ((await vault.read(change.file)) === change.before) continue;
				await vault.process(change.file, (current) => {
					if (current !== change.after) throw new Error("it was edited meanwhile, and keeps that edit");
					return change.before;
				});
			} else {
				// The batch's own folder, made a moment ago: removed from the disk itself (the
				// vault's tree follows through Obsidian's watcher), and never to the trash, so the
				// undone batch leaves the vault as it was rather than a new folder in the trash.
				// Read from the disk, not the tree, which may not have caught up with the undo's
				// renames; a folder holding anything, hidden files included, is left and named.
				const adapter = vault.adapter;
				if (!(await adapter.exists(change.path, true))) continue;
				const listed = await adapter.list(change.path);
				if (listed.files.length > 0 || listed.folders.length > 0) throw new Error("something else was put in it");
				await adapter.rmdir(change.path, false);
			}
		} catch (error) {
			leftOver.push(`${describeUndone(change)} (${messageOf(error)})`);
		}
	}
	if (leftOver.length > 0) console.error(`vaultlink: undoing a failed move left changes behind: ${leftOver.join("; ")}`);
	return leftOver;
}

function describeUndone(change: Done): string {
	switch (change.kind) {
		case "moved":
			return `${change.to} could not be moved back to ${change.from}`;
		case "wrote":
			return `${change.path} could not be restored`;
		case "madeFolder":
			return `the folder ${change.path} could not be removed`;
	}
}

/** The error a failed batch answers once it was undone (`leftOver`: the steps that could not be). */
function failureAfterUndo(error: unknown, leftOver: string[]): ToolError {
	const what =
		error instanceof ChangedWhileWriting
			? `\`${error.path}\` changed while the move was being written`
			: error instanceof StepFailed
				? error.what
				: `the move failed: ${messageOf(error)}`;
	if (leftOver.length > 0) {
		return {
			code: "write_failed",
			message: `${what}; undoing the changes made so far failed in part: ${leftOver.join("; ")}`,
			hint: "Run `vaultlink recover <vault folder>` to undo the rest from the journal the move left in .vaultlink (or put the files named here right by hand), then preview the move again.",
			retryable: false,
		};
	}
	// Everything was undone: a note edited meanwhile is a concurrent modification, as when the
	// check before writing finds it; anything else is a failed write.
	if (error instanceof ChangedWhileWriting) return concurrent(error.path);
	return {
		code: "write_failed",
		message: `${what}; every change made so far was undone`,
		hint: "Check the vault folder's permissions and free space, then try again.",
		retryable: true,
	};
}

/**
 * After a folder move, moves the folders it left empty (core's `emptied_folders`, deepest first)
 * to the trash with `fileManager.trashFile`, which follows the user's "Deleted files" setting, as
 * Obsidian does with what it removes. A folder still holding anything, hidden files included,
 * stays.
 */
async function trashEmptiedFolders(app: App, folders: string[]): Promise<void> {
	const vault = app.vault;
	for (const folder of folders) {
		const node = vault.getAbstractFileByPath(folder);
		if (!(node instanceof TFolder) || node.children.length > 0) continue;
		try {
			// A folder with hidden files (which the vault does not list) is left, as the
			// sidecar's `remove_dir` leaves it.
			const listed = await vault.adapter.list(node.path);
			if (listed.files.length > 0 || listed.folders.length > 0) continue;
			await app.fileManager.trashFile(node);
		} catch {
			// Left as it is: tidying, after the batch is applied.
		}
	}
}

function messageOf(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}

/** The plan hashes answered for each index, which core's approval tells apart. */
const histories = new WeakMap<LinkIndex, PlanHistory>();

function historyOf(index: LinkIndex): PlanHistory {
	let history = histories.get(index);
	if (history === undefined) {
		history = { issued: [], applied: [] };
		histories.set(index, history);
	}
	return history;
}

/** Keeps `hash` as the newest of `list`, at most PLAN_HISTORY_KEPT of them. */
function remember(list: string[], hash: string): void {
	const at = list.indexOf(hash);
	if (at >= 0) list.splice(at, 1);
	list.push(hash);
	if (list.length > PLAN_HISTORY_KEPT) list.shift();
}

/** The moves running on each index; a move starts once the one before it has finished. */
const movesByIndex = new WeakMap<LinkIndex, Promise<unknown>>();

function oneAtATime<T>(index: LinkIndex, run: () => Promise<T>): Promise<T> {
	const previous = movesByIndex.get(index) ?? Promise.resolve();
	const next = previous.then(run, run);
	movesByIndex.set(
		index,
		next.catch(() => undefined),
	);
	return next;
}
