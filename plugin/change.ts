/**
 * Every tool call inside Obsidian goes through core's one entry (core's `ops::call`, run by the
 * link engine: `engine/client.ts`): this module only reads what core asks for and carries out
 * what core decided.
 *
 * A call first learns from core what it reads before it runs (`needs`): its notes, whether the
 * changes kept for undo (read only then, and core asked again with them, since an undo's notes
 * are those its change touched), whether what the index saw change (the vault's events are let
 * in first), and whose modification times. The plugin keeps no list of its own of which tool
 * reads what. A writing call saves the
 * open editors of those notes first, so a plan is never made from a text an editor is about to
 * overwrite, and reads them from disk (`vault.read`: the plan's hashes must be of what is there
 * now); a reading call takes them from Obsidian's cache (`cachedRead`). The engine reads the
 * call's arguments once, when it first answers what the call needs, and keeps the call under the
 * number it answers with (`call`), which every later request about the call names. Reads run at most
 * `READ_CONCURRENCY` at a time, so a call that reads every note (`find_evidence`) does not
 * start thousands of reads at once. The texts, and the modification times core may ask for,
 * cross to the engine as maps (`CallInputs`): core's callbacks run where the index lives. Core
 * then answers, and for an approved change hands back its steps: a batch (`batch/execute.ts`
 * carries it out) or the move of a note to the trash (`batch/delete.ts`). Writing calls on one
 * index run one at a time. A call whose caller went away (`signal`) before it started is dropped.
 * A call its client cancelled (`signal` aborted with `CANCELLED_BY_CLIENT`) stops at its next
 * note read, or before it writes, and answers `cancelled`; a write begun finishes whole. The
 * engine's own computation, once sent, runs to its end (`engine/client.ts`), unread.
 */

import { TFile, type App, type Vault } from "obsidian";
import { applyBatch } from "./batch/execute";
import { forgetChange, forgetOldest, keepChange, listedChanges, undoneChanges } from "./batch/history";
import { machineName } from "./batch/journal";
import type { StepOutcome } from "./batch/execute";
import { trashNote, trashRefusal } from "./batch/delete";
import { saveOpenEditors } from "./editors";
import type { ToolHost } from "./host";
import { CallDroppedError, EngineRestartedError, type LinkEngine } from "./engine/client";
import { batchJournal, stepError, type Batch, type CallOutcome, type Journal, type ListedChange, type Needs, type ToolError, type ToolOutcome } from "./wasm";
import type { CallNeeds } from "./engine/protocol";
import { ErrorCode } from "./error-codes";
import { TOOLS, type ToolName } from "./wire";
import { CANCELLED_BY_CLIENT } from "./bridge/protocol";
import { messageOf } from "./ui/notice";
import { sketchNotes } from "./sketches";

/** How many notes a call reads at once. */
export const READ_CONCURRENCY = 16;

/**
 * Whether `tool` may change the vault, as core's table of tools says (`TOOLS`, generated into
 * `wire.ts`); a name core does not know is read as a reading call, which core then refuses.
 */
export function writesVault(tool: string): boolean {
	return Object.prototype.hasOwnProperty.call(TOOLS, tool) && TOOLS[tool as ToolName].writes;
}

/** A call whose `signal` was aborted stopped at a note read or before its writes: nothing was written. */
class CallStoppedError extends Error {
	/** Where it stopped, such as "after 3 of 40 note reads". */
	constructor(readonly tool: string, readonly where: string) {
		super(`${tool} stopped ${where}`);
	}
}

/**
 * Runs one call of `tool`: a reading one at once, a writing one after the writes before it on
 * this index. Aborting `signal` drops the call if it has not started (then it answers that it
 * was dropped, to nobody); aborted by its client (`CANCELLED_BY_CLIENT`), a running call also
 * stops at its next note read or before it writes, and answers `cancelled`.
 */
export async function runCall(host: ToolHost, tool: string, args: unknown, signal?: AbortSignal): Promise<ToolOutcome> {
	try {
		if (!writesVault(tool)) return await readingCall(host, tool, args, signal);
		return await oneAtATime(host.index, () => {
			if (signal?.aborted === true) throw new CallDroppedError(tool);
			return writingCall(host, tool, args, signal);
		});
	} catch (error) {
		if ((error instanceof CallDroppedError || error instanceof CallStoppedError) && cancelled(signal)) {
			const where = error instanceof CallStoppedError ? error.where : "before it started";
			const message = `the call was cancelled by the client and stopped ${where}; nothing was written`;
			return { ok: false, error: { code: ErrorCode.Cancelled, message, hint: "Call again if the answer is still wanted.", retryable: false } };
		}
		if (error instanceof EngineRestartedError) {
			const hint = "Call again in a moment, once Obsidian has indexed the vault again; for a change, make a dry run first to see whether it was made.";
			return { ok: false, error: { code: ErrorCode.PluginUnavailable, message: error.message, hint, retryable: true } };
		}
		if (!(error instanceof CallDroppedError)) throw error;
		return { ok: false, error: { code: ErrorCode.PluginUnavailable, message: error.message, hint: "Call again.", retryable: true } };
	}
}

/** The `move_note` tool: plans, and applies when asked. */
export function moveNote(host: ToolHost, args: unknown): Promise<ToolOutcome> {
	return runCall(host, "move_note", args);
}

/** The `rewrite_link` tool: repoints every link whose target is `from_target` to `to_target`. */
export function rewriteLink(host: ToolHost, args: unknown): Promise<ToolOutcome> {
	return runCall(host, "rewrite_link", args);
}

/** The `delete_note` tool: previews, and with `confirm` moves the note to Obsidian's trash. */
export function deleteNote(host: ToolHost, args: unknown): Promise<ToolOutcome> {
	return runCall(host, "delete_note", args);
}

/** A reading call: the notes it needs from Obsidian's cache (a note that cannot be read is left out, and core says so). */
async function readingCall(host: ToolHost, tool: string, args: unknown, signal: AbortSignal | undefined): Promise<ToolOutcome> {
	const { app, index } = host;
	let needs = await index.needs(tool, args);
	// What moved is what the vault's deletes and creates say, so those waiting for their
	// debounce reach the index first, as they do before a write.
	if (needs.observed) {
		await host.settle();
		needs = await index.needs(tool, args, undefined, needs.call);
	}
	const changes = await changesAskedFor(app.vault, needs);
	if (needs.kept_changes || needs.undone_changes) needs = await index.needs(tool, args, changes, needs.call);
	// A lint's near_duplicate compares sketches, made now of the notes the index has none of.
	await sketchNotes(index, tool, args, needs.call, (paths) => eachAtMost(READ_CONCURRENCY, paths, (path) => cachedTextOrNull(app, path)));
	if (signal?.aborted === true) throw new CallDroppedError(tool);
	// A note that cannot be read is left out: core lists it as unread (`find_evidence`) or asks for the call again.
	const read = await readsUnlessStopped(tool, needs.notes, signal, (path) => cachedTextOrNull(app, path));
	const texts = new Map<string, string>();
	needs.notes.forEach((path, at) => {
		const text = read[at];
		if (typeof text === "string") texts.set(path, text);
	});
	return answerOf(await index.call(tool, args, { texts, modified: modificationTimes(app.vault, needs.modified), changes, call: needs.call }, signal));
}

/**
 * The records of changes core asked a call for (`needs`): the kept changes, and those undoes set
 * aside, which core tells apart by their names; none when it asked for neither, so a call that
 * does not read them never opens them.
 */
async function changesAskedFor(vault: Vault, needs: Needs): Promise<ListedChange[]> {
	const changes: ListedChange[] = needs.kept_changes ? await listedChanges(vault.adapter) : [];
	if (needs.undone_changes) changes.push(...(await undoneChanges(vault.adapter)));
	return changes;
}

/** Whether the client cancelled the call (a call whose connection closed runs to its end, unread). */
function cancelled(signal: AbortSignal | undefined): boolean {
	return signal?.aborted === true && signal.reason === CANCELLED_BY_CLIENT;
}

/**
 * `read` over every path, at most `READ_CONCURRENCY` at a time, until the client cancels the
 * call: then no read is started and none waited for (a read that never finishes holds nothing
 * up), and it throws `CallStoppedError` saying how many reads had finished.
 */
async function readsUnlessStopped<R>(tool: string, paths: readonly string[], signal: AbortSignal | undefined, read: (path: string) => Promise<R>): Promise<R[]> {
	if (signal === undefined) return eachAtMost(READ_CONCURRENCY, paths, read);
	let finished = 0;
	const stopped = () => new CallStoppedError(tool, `after ${finished} of ${paths.length} note reads`);
	let onAbort = (): void => undefined;
	const aborted = new Promise<never>((_, reject) => {
		onAbort = () => {
			if (cancelled(signal)) reject(stopped());
		};
		if (signal.aborted) onAbort();
		else signal.addEventListener("abort", onAbort, { once: true });
	});
	aborted.catch(() => undefined);
	try {
		return await Promise.race([
			eachAtMost(READ_CONCURRENCY, paths, async (path) => {
				if (cancelled(signal)) throw stopped();
				const text = await read(path);
				finished += 1;
				return text;
			}),
			aborted,
		]);
	} finally {
		signal.removeEventListener("abort", onAbort);
	}
}

/** `run` over every item, at most `limit` at a time; the results in the items' order. */
export async function eachAtMost<T, R>(limit: number, items: readonly T[], run: (item: T) => Promise<R>): Promise<R[]> {
	const results = new Array<R>(items.length);
	let next = 0;
	const worker = async (): Promise<void> => {
		while (next < items.length) {
			const at = next++;
			results[at] = await run(items[at] as T);
		}
	};
	await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
	return results;
}

/**
 * Core's outcome of a writing call, not yet carried out: the index first holds what the vault
 * holds (as the sidecar refreshes its folder index before every call), the open editors of the
 * notes it needs are saved, and those notes are read from disk.
 */
export async function prepareChange(host: ToolHost, tool: string, args: unknown, signal?: AbortSignal): Promise<CallOutcome> {
	await host.settle();
	// Every writing call settles first, so what the index saw change is current already.
	const first = await host.index.needs(tool, args);
	const changes = await changesAskedFor(host.app.vault, first);
	const needed = await notesWithEditorsSaved(host, () => host.index.needs(tool, args, changes, first.call));
	if (!needed.ok) return needed;
	const { notes, modified, call } = needed.needs;
	const read = await readTexts(tool, host.app.vault, notes, signal);
	if (!read.ok) return read;
	return host.index.call(tool, args, { texts: read.texts, modified: modificationTimes(host.app.vault, modified), tag: process.pid, changes, call }, signal);
}

/**
 * The modification times core named (`needs`' `modified`, as the index spells the paths), of
 * the files there are; one that is gone finds no time, and a delete with `expected_mtime` is then
 * refused as changed, never carried out on a guess.
 */
function modificationTimes(vault: Vault, paths: readonly string[]): Map<string, number> {
	const times = new Map<string, number>();
	for (const path of paths) {
		const file = vault.getAbstractFileByPath(path);
		if (file instanceof TFile) times.set(path, file.stat.mtime);
	}
	return times;
}

async function writingCall(host: ToolHost, tool: string, args: unknown, signal: AbortSignal | undefined): Promise<ToolOutcome> {
	const outcome = await prepareChange(host, tool, args, signal);
	if (!outcome.ok || outcome.change === undefined) return answerOf(outcome);
	// The last step boundary before any write: once the change begins, it finishes whole.
	if (cancelled(signal)) throw new CallStoppedError(tool, "before its writes");
	const change = outcome.change;
	// Core's list of the paths the change touches, none of which may be reached through a link.
	const guard = outcome.guard ?? [];
	const done = change.kind === "batch" ? await applyBatch(host.app, change.batch, guard) : await trashKept(host, change, guard);
	// The writes and renames reach the index through the indexer, from the vault's events;
	// waiting for it means the answer, and every call after it, sees the vault as it is now.
	await host.settle();
	if (!done.ok) return done;
	if (change.kind === "batch") {
		await host.index.planApplied(change.plan_hash);
		await forgetAfterBatch(host, change.batch.forget, done.journal);
	}
	const result = done.trashedTo === undefined ? outcome.result : { ...(outcome.result as object), trashed_to: done.trashedTo };
	return { ok: true, result };
}

/**
 * A delete: its change kept for `undo_change` first (core's `keep`, whose journal holds the
 * note's whole text, so the undo writes it back whatever trash Obsidian's setting chose), then
 * the note moved to the trash; a move that fails takes the kept change back out, so the history
 * never holds a delete that was not made.
 */
async function trashKept(host: ToolHost, change: { path: string; before: string; keep: Batch }, guard: readonly string[]): Promise<StepOutcome> {
	const adapter = host.app.vault.adapter;
	// What would refuse the trash is looked at before anything is kept, so that a refused delete
	// leaves `.vaultlink` (its kept changes, the vault's sealing key) as it found it; the trash
	// looks again right before it moves the note.
	const refused = await trashRefusal(host.app, change.path, change.before, guard);
	if (refused !== null) return refused;
	let name: string;
	try {
		name = await keepChange(adapter, batchJournal(change.keep, [], process.pid, Date.now(), machineName()));
	} catch (error) {
		const why = `keeping the change for undo_change failed: ${messageOf(error)}`;
		return { ok: false, error: stepError({ kind: "trash_failed", path: change.path, why }) };
	}
	const done = await trashNote(host.app, change.path, change.before, guard);
	try {
		if (done.ok) await forgetOldest(adapter);
		else await forgetChange(adapter, name);
	} catch (error) {
		console.warn("vaultlink: tidying the changes kept for undo_change after a delete failed", error);
	}
	return done;
}

/**
 * After a batch, which was kept for `undo_change` as part of its commit (`batch/execute.ts`):
 * forgets the oldest kept changes past core's bounds, or the kept change it undid. The change
 * stands whatever happens here.
 */
async function forgetAfterBatch(host: ToolHost, forget: string | null, journal: Journal | undefined): Promise<void> {
	const adapter = host.app.vault.adapter;
	try {
		if (journal?.change_id !== undefined && journal.change_id !== "") await forgetOldest(adapter);
		if (forget !== null) await forgetChange(adapter, forget);
	} catch (error) {
		console.warn("vaultlink: the change was applied, but forgetting the changes kept for undo_change failed", error);
	}
}

function answerOf(outcome: CallOutcome): ToolOutcome {
	return outcome.ok ? { ok: true, result: outcome.result } : outcome;
}

/**
 * What `which` says the call needs, once the open editors of every note it names are saved and
 * the index has caught up with what they saved (which may change the list: a saved note may hold
 * new links, so it is asked again). Without this, a note open in an editor would be planned from
 * the text on disk and then overwritten by the editor's own save a moment later.
 */
async function notesWithEditorsSaved(host: ToolHost, which: () => Promise<CallNeeds>): Promise<{ ok: true; needs: CallNeeds } | { ok: false; error: ToolError }> {
	for (let pass = 1; ; pass += 1) {
		const needs = await which();
		const saved = await saveOpenEditors(host.app, needs.notes);
		if (!saved.ok) return saved;
		if (saved.saved.length === 0) return { ok: true, needs };
		await host.settle();
		// Each pass saves at least one editor that held unsaved text; a user typing into them all
		// the while cannot keep the tool waiting for ever.
		if (pass >= MAX_EDITOR_SAVE_PASSES) return { ok: true, needs: await which() };
	}
}

/** How many times the editors are saved before a plan is made from what the files then hold. */
const MAX_EDITOR_SAVE_PASSES = 3;

/** The current text of each note from disk, by path, or the first read's error. */
async function readTexts(tool: string, vault: Vault, paths: string[], signal: AbortSignal | undefined): Promise<{ ok: true; texts: Map<string, string> } | { ok: false; error: ToolError }> {
	const reads = await readsUnlessStopped(tool, paths, signal, (path) => readNote(vault, path));
	const texts = new Map<string, string>();
	for (const read of reads) {
		if ("error" in read) return { ok: false, error: read.error };
		texts.set(read.path, read.text);
	}
	return { ok: true, texts };
}

async function readNote(vault: Vault, path: string): Promise<{ path: string; text: string } | { error: ToolError }> {
	const file = vault.getAbstractFileByPath(path);
	if (!(file instanceof TFile)) {
		return { error: { code: ErrorCode.NoteNotFound, message: `\`${path}\` cannot be opened: it is not in the vault`, hint: "Call list_notes to see the paths.", retryable: true } };
	}
	try {
		const text = await exactText(vault, file);
		if (text === null) return { error: stepError({ kind: "not_utf8", path }) };
		return { path, text };
	} catch (error) {
		const message = messageOf(error);
		return { error: stepError({ kind: "unreadable", path, why: message }) };
	}
}

/**
 * A note's text as it is on disk, or null when its bytes are not UTF-8 text. `vault.read`
 * decodes such bytes as U+FFFD, which a plan would write back over them (issue 21), so a text
 * holding U+FFFD is read again as bytes and decoded strictly; only a note whose bytes are UTF-8
 * (U+FFFD written as itself) passes.
 */
async function exactText(vault: Vault, file: TFile): Promise<string | null> {
	const text = await vault.read(file);
	if (!text.includes("\uFFFD")) return text;
	const bytes = await vault.adapter.readBinary(file.path);
	try {
		new TextDecoder("utf-8", { fatal: true }).decode(bytes);
		return text;
	} catch (error) {
		if (error instanceof TypeError) return null;
		throw error;
	}
}

/** The writing calls running on each index; one starts once the one before it has finished. */
const writesByIndex = new WeakMap<LinkEngine, Promise<unknown>>();

function oneAtATime<T>(index: LinkEngine, run: () => Promise<T>): Promise<T> {
	const previous = writesByIndex.get(index) ?? Promise.resolve();
	const next = previous.then(run, run);
	writesByIndex.set(
		index,
		next.catch(() => undefined),
	);
	return next;
}

/** A note's text from Obsidian's cache, or null when there is no such note or it cannot be read. */
export async function cachedTextOrNull(app: App, path: string): Promise<string | null> {
	const file = app.vault.getAbstractFileByPath(path);
	if (!(file instanceof TFile)) return null;
	try {
		return await app.vault.cachedRead(file);
	} catch {
		return null;
	}
}
