/**
 * Carries out core's batch of an approved move or rewrite through the Vault API, all or
 * nothing, as the sidecar carries it out on the folder (`crates/sidecar/src/apply.rs`); what to
 * change was decided in core (`ops::call`, `batch`), and nothing here decides it again.
 *
 * Each note is checked inside `vault.process`, as it is written, to still hold the text the plan
 * was proven on. Files move with `vault.rename`, never `fileManager.renameFile`, whose link
 * updater would rewrite links a second time over the batch's edits. Any failure undoes every
 * step made so far with core's undo steps (`undo_steps`, as the sidecar undoes a journal).
 */

import { TFile, TFolder, type App, type DataAdapter, type TAbstractFile, type Vault } from "obsidian";
import { CHANGES_FOLDER, forgetChange, keepChange, putBackSetAside, setAside } from "./history";
import { abandonJournal, beginJournal, checkLease, finishJournal, machineName, newHolder, removeIfEmpty } from "./journal";
import { firstLinkOnTheWay, presentOnDisk } from "../move/links-out";
import { batchJournal, contentHash, linksLeft, savedOver, stepError, undoSteps, type Batch, type BatchMove, type BatchWrite, type Journal, type ToolError, type UndoCondition, type UndoStep } from "../wasm";
import { messageOf } from "../ui/notice";

/** A step that either happened or was refused with a typed error. */
export type StepOutcome = { ok: true; trashedTo?: string; journal?: Journal } | { ok: false; error: ToolError };

/** A change made so far, to undo on failure. */
type Done =
	| { kind: "wrote"; file: TFile; path: string; before: string; after: string }
	| { kind: "moved"; file: TAbstractFile; from: string; to: string }
	| { kind: "created"; file: TFile; path: string; text: string }
	| { kind: "removed"; path: string; before: string }
	| { kind: "madeFolder"; path: string };

/** A note whose text changed between the check before writing and its own write. */
class ChangedWhileWriting extends Error {
	constructor(readonly path: string) {
		super(`${path} changed while the move was being written`);
	}
}

/** A page an undo removes, found saved over since the plan: the undo is refused as the sidecar refuses it (core's `undo_edited`). */
class RemovedChanged extends ChangedWhileWriting {}

/** A note saved by someone over what the batch wrote, found by the last look before the commit: it is theirs, and not undone (`settleSavedOver`). */
class SavedOver extends ChangedWhileWriting {}

/** The batch's lease on the vault was lost before a step (`journal.ts`'s `checkLease`): `taken` when another process recovered the batch meanwhile. */
class LeaseLost extends Error {
	constructor(readonly taken: boolean) {
		super(taken ? "the journal was taken over by another process" : "the journal's lease lapsed");
	}
}

/** A step that failed, described as the error message says it. */
class StepFailed extends Error {
	constructor(readonly what: string) {
		super(what);
	}
}

/** A step refused because its name is taken: something is at `path` (EEXIST, or Obsidian's "already exists"). */
class StepTaken extends StepFailed {
	constructor(
		what: string,
		readonly step: string,
		readonly path: string,
	) {
		super(what);
	}
}

function concurrent(path: string): ToolError {
	return stepError({ kind: "changed", path });
}

/**
 * Carries out `batch`, all or nothing: checks the vault against it (each move's file there and
 * its destination free, no file where a folder must go, none of core's `guard` paths reached
 * through a symbolic link), writes the journal, writes the notes, makes the folders, moves the
 * files, removes the journal, and trashes the folders a folder move emptied. Each step's paths are
 * looked at again right before it and after it (a folder swapped for a link meanwhile), and what
 * a step moved or made must then be where it should be. Any failed step undoes the batch.
 */
export async function applyBatch(app: App, batch: Batch, guard: readonly string[]): Promise<StepOutcome> {
	const vault = app.vault;
	const linked = firstLinkOnTheWay(vault.adapter, guard);
	if (linked !== null) return { ok: false, error: stepError({ kind: "through_link", ...linked }) };
	const files = new Map<string, TFile>();
	for (const write of batch.writes) {
		const file = vault.getAbstractFileByPath(write.path);
		if (!(file instanceof TFile)) return { ok: false, error: concurrent(write.path) };
		files.set(write.path, file);
	}
	const moving: { file: TFile; move: BatchMove }[] = [];
	// The third names of a cycle's moves: the file an earlier move of the batch puts there.
	const arriving = new Map<string, TFile>();
	for (const move of batch.moves) {
		const arrived = arriving.get(move.from);
		if (arrived !== undefined) {
			moving.push({ file: arrived, move });
			continue;
		}
		const file = vault.getAbstractFileByPath(move.from);
		// A destination an earlier move of the batch leaves is taken now, and free in its turn.
		const taken = !move.vacated && move.via === null && (vault.getAbstractFileByPath(move.to) !== null || (await vault.adapter.exists(move.to)));
		if (!(file instanceof TFile) || taken) return { ok: false, error: concurrent(move.from) };
		moving.push({ file, move });
		arriving.set(move.to, file);
	}
	for (const create of batch.creates) {
		// A file there, even one the vault does not list yet, is in the way.
		if (vault.getAbstractFileByPath(create.path) !== null || (await vault.adapter.exists(create.path))) {
			return { ok: false, error: concurrent(create.path) };
		}
	}
	const removing: TFile[] = [];
	for (const remove of batch.removes) {
		const file = vault.getAbstractFileByPath(remove.path);
		if (!(file instanceof TFile)) return { ok: false, error: concurrent(remove.path) };
		removing.push(file);
	}
	const made: string[] = [];
	for (const folder of batch.folders) {
		const existing = vault.getAbstractFileByPath(folder);
		if (existing !== null && !(existing instanceof TFolder)) return { ok: false, error: stepError({ kind: "taken", what: `creating ${folder} failed`, path: folder }) };
		if (existing === null) made.push(folder);
	}

	// The pre-images go to disk before the first change, so a batch cut short by Obsidian
	// stopping can be undone (`vaultlink recover`); see journal.ts.
	const journal = { ...batchJournal(batch, made, process.pid, Date.now(), machineName()), holder: newHolder() };
	const refused = await beginJournal(vault.adapter, journal);
	if (refused !== null) return { ok: false, error: refused };
	const done: Done[] = [];
	// The kept change's name, once it is kept.
	let kept: string | null = null;
	// Whether the kept change an undo consumes was set aside.
	let setAsideDone = false;
	// Before each step: the journal is still this batch's, and its lease never lapsed.
	const leased = () => {
		const lost = checkLease(journal);
		if (lost !== null) throw new LeaseLost(lost === "taken");
	};
	try {
		const adapter = vault.adapter;
		for (const write of batch.writes) {
			leased();
			const file = files.get(write.path);
			if (file === undefined) throw new ChangedWhileWriting(write.path);
			noLinkOnTheWay(adapter, `writing ${write.path}`, [write.path]);
			await writeNote(vault, file, write, done);
			noLinkOnTheWay(adapter, `writing ${write.path}`, [write.path]);
		}
		for (const folder of made) {
			leased();
			noLinkOnTheWay(adapter, `creating ${folder}`, [folder]);
			await step(`creating ${folder} failed`, () => vault.createFolder(folder), folder);
			done.push({ kind: "madeFolder", path: folder });
			inPlace(adapter, `creating ${folder}`, folder);
		}
		for (const create of batch.creates) {
			leased();
			noLinkOnTheWay(adapter, `creating ${create.path}`, [create.path]);
			// `vault.create` fails when a file is already at the path: it never replaces one.
			const file = await step(`creating ${create.path} failed`, () => vault.create(create.path, create.text), create.path);
			done.push({ kind: "created", file, path: create.path, text: create.text });
			inPlace(adapter, `creating ${create.path}`, create.path);
		}
		for (const { file, move } of moving) {
			leased();
			noLinkOnTheWay(adapter, `moving ${move.from}`, [move.from, move.to]);
			// Obsidian makes a rename that changes only case itself; the journal's `via` is for
			// recovery, which renames through it.
			await step(`moving ${move.from} failed`, () => vault.rename(file, move.to), move.to);
			done.push({ kind: "moved", file, from: move.from, to: move.to });
			inPlace(adapter, `moving ${move.from}`, move.to);
		}
		for (const [at, remove] of batch.removes.entries()) {
			leased();
			const file = removing[at];
			if (file === undefined || (await vault.read(file)) !== remove.before) throw new RemovedChanged(remove.path);
			noLinkOnTheWay(adapter, `removing ${remove.path}`, [remove.path]);
			// A file a kept change created, holding what it wrote: removed from the disk (the vault's
			// tree follows through Obsidian's watcher), not to the trash, so the undone change leaves
			// the vault as it was before it; its text is in the journal until the batch is done.
			await step(`removing ${remove.path} failed`, () => vault.adapter.remove(remove.path));
			done.push({ kind: "removed", path: remove.path, before: remove.before });
		}
		// The last look before the commit: every note written or created holds what the batch put
		// there. `vault.process` is atomic only against the vault's own writes (obsidian.d.ts); a
		// save that came after it (an editor, or another program on the disk) is someone's, and
		// the batch is undone around it.
		for (const write of batch.writes) {
			const file = files.get(write.path);
			if (file === undefined || (await vault.adapter.read(file.path)) !== write.text) throw new SavedOver(write.path);
		}
		for (const change of done) {
			if (change.kind === "created" && (await vault.adapter.read(change.file.path)) !== change.text) throw new SavedOver(change.path);
		}
		// Kept for undo_change as part of the commit: on the disk before the journal goes, so a
		// stop at any step leaves the batch for `vaultlink recover` to undo (with what was kept) or
		// made and kept; and kept while the journal holds the lock, so no undo runs in between.
		leased();
		if (batch.change_id !== "") kept = await step("keeping the change for undo_change failed", () => keepChange(vault.adapter, journal));
		// An undo sets aside the kept change it consumes, as part of its commit too: once the undo
		// is made no undo picks that change again, and `vaultlink recover` puts it back.
		const forget = batch.forget;
		if (forget !== null) setAsideDone = await step(`setting aside the undone change ${forget} failed`, () => setAside(vault.adapter, forget));
		// The commit only while the journal is still this batch's and its lease held.
		leased();
	} catch (error) {
		// Another process took the journal over and undid the batch. A step this window was
		// suspended in the middle of may have been made after that undo: undone too, from the
		// state found (the journal, now the other process's, is left to it).
		if (error instanceof LeaseLost && error.taken) {
			const notUndone = await undo(vault, journal, done);
			await finishJournal(vault.adapter, journal);
			if (notUndone.left.length > 0) return { ok: false, error: failureAfterUndo(error, notUndone, batch.forget) };
			return { ok: false, error: stepError({ kind: "lease_lost", taken: true }) };
		}
		// What was kept of the batch goes with it (the folder too, if keeping it made it).
		if (kept !== null) await forgetChange(vault.adapter, kept).catch(() => undefined);
		else if (batch.change_id !== "") await removeIfEmpty(vault.adapter, CHANGES_FOLDER).catch(() => undefined);
		if (setAsideDone && batch.forget !== null) await putBackSetAside(vault.adapter, batch.forget).catch(() => undefined);
		// A note saved over keeps the save (before the rest is undone, the batch's rewrite in it is
		// put back where the save left it intact, as core decides); everything else is undone.
		const saved = error instanceof SavedOver ? error.path : null;
		const settled = saved === null ? null : await settleSavedOver(vault, batch, files, saved);
		const undone = await undo(
			vault,
			journal,
			done.filter((change) => !((change.kind === "wrote" || change.kind === "created") && change.path === saved)),
		);
		const leftOver = undone.left;
		// A batch not wholly undone keeps its journal, for `vaultlink recover`.
		if (leftOver.length === 0) await finishJournal(vault.adapter, journal);
		else await abandonJournal(vault.adapter, journal);
		if (error instanceof LeaseLost && leftOver.length === 0 && undone.kept.length === 0) return { ok: false, error: stepError({ kind: "lease_lost", taken: false }) };
		return { ok: false, error: settled !== null && leftOver.length === 0 && undone.kept.length === 0 ? settled : failureAfterUndo(error, undone, batch.forget) };
	}
	await finishJournal(vault.adapter, journal);
	// An undo's emptied folders are the ones the undone change made: removed from the disk, as a
	// failed batch removes the folders it made, so the vault is as it was before that change.
	if (batch.forget !== null) await removeEmptiedFolders(vault, batch.emptied_folders);
	else await trashEmptiedFolders(app, batch.emptied_folders);
	return { ok: true, journal };
}

/**
 * What a note saved over after the batch wrote it becomes, as the sidecar settles it on the
 * folder: the save with the batch's rewrite put back, written only while it still holds the
 * save, when core finds the rewrite intact in it (`savedOver`); else the save as it is, its
 * rewritten links named. A file the batch created keeps the save.
 */
async function settleSavedOver(vault: Vault, batch: Batch, files: Map<string, TFile>, path: string): Promise<ToolError> {
	const write = batch.writes.find((candidate) => candidate.path === path);
	const file = files.get(path);
	if (write === undefined || file === undefined) return stepError({ kind: "created_saved_over", path });
	// The file follows the batch's moves; the undo takes it back.
	const read = () => vault.adapter.read(file.path).catch(() => "");
	const saved = await read();
	const decided = savedOver(write, saved);
	if (decided.kind === "leave") return stepError({ kind: "saved_over_left", path, links: decided.links });
	try {
		await vault.process(file, (current) => {
			if (current !== saved) throw new ChangedWhileWriting(path);
			return decided.text;
		});
		return stepError({ kind: "saved_over_put_back", path });
	} catch {
		// Saved again meanwhile, or the write failed: the note is as the other program left it.
		return stepError({ kind: "saved_over_left", path, links: linksLeft(write, await read()) });
	}
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

/** Fails the step `what` (the batch is then undone) when one of `paths` is now reached through a symbolic link. */
function noLinkOnTheWay(adapter: DataAdapter, what: string, paths: readonly string[]): void {
	const linked = firstLinkOnTheWay(adapter, paths);
	if (linked !== null) throw new StepFailed(`${what} failed: \`${linked.path}\` now goes through \`${linked.link}\`, a symbolic link`);
}

/**
 * After a step that put something at `vaultPath`: no link on the way to it, and it is there, seen
 * without following a link. A folder swapped for a link and back around the step would have
 * taken it out of the vault; then the batch is undone.
 */
function inPlace(adapter: DataAdapter, what: string, vaultPath: string): void {
	noLinkOnTheWay(adapter, what, [vaultPath]);
	if (!presentOnDisk(adapter, vaultPath)) throw new StepFailed(`${what} failed: \`${vaultPath}\` is not where it was put`);
}

function writeFailed(what: string): ToolError {
	return stepError({ kind: "failed", what });
}

/**
 * Runs one step; a failure is rethrown as `StepFailed` naming the step, unless it is a concurrent
 * edit. A step making something at `makes` that finds the name taken (EEXIST from the disk, or
 * Obsidian's "already exists") is a `StepTaken`: no step replaces anything.
 */
async function step<T>(what: string, run: () => Promise<T>, makes?: string): Promise<T> {
	try {
		return await run();
	} catch (error) {
		if (error instanceof ChangedWhileWriting) throw error;
		const taken = (error as NodeJS.ErrnoException | null)?.code === "EEXIST" || /already exists/i.test(messageOf(error));
		if (makes !== undefined && taken) throw new StepTaken(`${what}: ${messageOf(error)}`, what, makes);
		throw new StepFailed(`${what}: ${messageOf(error)}`);
	}
}

/**
 * Undoes `done` with core's steps (`undo_steps`, through wasm): the batch's journal cut to what
 * was made is handed to core, which says what to undo, in which order, and what each step must
 * find first, as the sidecar undoes a journal on the folder; this carries the steps out through
 * the Vault API. A note is restored only while it holds what the batch wrote; one saved over
 * since keeps the save, and its text from before is saved under `.vaultlink/recovered/`. Returns
 * a sentence for each step that could not be carried out (the journal is then kept, for
 * `vaultlink recover`), and the notes left as they were found with where their text from
 * before is kept, which the answer must name rather than say everything was undone.
 */
async function undo(vault: Vault, journal: Journal, done: Done[]): Promise<Undone> {
	const leftOver: string[] = [];
	const kept: KeptNote[] = [];
	const moved = new Map<string, TAbstractFile>();
	for (const change of done) if (change.kind === "moved") moved.set(change.to, change.file);
	for (const step of undoSteps(madeSoFar(journal, done))) {
		// What was kept of the batch, and its journal, are the caller's (`forgetChange`, `putBackSetAside`, `finishJournal`).
		if (step.step === "forget_kept" || step.step === "put_back_set_aside" || step.step === "remove_journal") continue;
		try {
			// An undo writes only inside the vault too: a step whose place is now reached through a
			// link is left, and named. (A move is undone from wherever the file went, link or not.)
			const place = step.step === "move_back" ? step.from : step.path;
			const linked = firstLinkOnTheWay(vault.adapter, [place]);
			if (linked !== null) throw new Error(`\`${linked.path}\` goes through \`${linked.link}\`, a symbolic link`);
			await carryOut(vault, step, moved, kept);
		} catch (error) {
			leftOver.push(`${describeStep(step)} (${messageOf(error)})`);
		}
	}
	if (leftOver.length > 0) console.error(`vaultlink: undoing a failed move left changes behind: ${leftOver.join("; ")}`);
	return { left: leftOver, kept };
}

/** A note the undo left as it found it, and where its text from before the change is kept. */
interface KeptNote {
	path: string;
	saved: string;
}

/** What an undo could not carry out (`left`), and the notes it left as found (`kept`). */
interface Undone {
	left: string[];
	kept: KeptNote[];
}

/** The batch's journal, cut to the changes made so far (`done`), for core's undo steps. */
function madeSoFar(journal: Journal, done: Done[]): Journal {
	const made = (kind: Done["kind"], path: string) => done.some((change) => change.kind === kind && change.kind !== "moved" && change.path === path);
	const kindOf = { create: "created", remove: "removed" } as const;
	return {
		...journal,
		writes: journal.writes.filter((write) => made(write.kind === undefined || write.kind === "replace" ? "wrote" : kindOf[write.kind], write.path)),
		moves: journal.moves.filter((move) => done.some((change) => change.kind === "moved" && change.from === move.from && change.to === move.to)),
		made_folders: journal.made_folders.filter((folder) => made("madeFolder", folder)),
		change_id: "",
		forget: null,
	};
}

/**
 * Carries out one of core's undo steps through the Vault API, checking its precondition right
 * before it. The plugin writes notes in place and lets Obsidian make a rename that changes only
 * case, so it never leaves a temporary file, an aside or a case-only intermediate name: one found
 * is not its own, and is left for `vaultlink recover`.
 */
async function carryOut(vault: Vault, step: UndoStep, moved: Map<string, TAbstractFile>, kept: KeptNote[]): Promise<void> {
	const adapter = vault.adapter;
	const notOurs = (path: string) => new Error(`\`${path}\` is there, which only \`vaultlink recover\` puts right`);
	switch (step.step) {
		case "remove_temporary":
			if (await adapter.exists(step.path)) throw notOurs(step.path);
			return;
		case "put_back": {
			if (await adapter.exists(step.aside)) throw notOurs(step.aside);
			// A file there again is someone's, and stays.
			if (await adapter.exists(step.path)) return;
			try {
				await vault.create(step.path, step.before);
			} catch (error) {
				// Saved there since the look: it keeps that save, and the text from before is kept beside it.
				if (!(await adapter.exists(step.path))) throw error;
				await keepEdited(adapter, step.before, step.saved);
				kept.push({ path: step.path, saved: step.saved });
			}
			return;
		}
		case "move_back": {
			if (step.via !== null && (await existsExactly(adapter, step.via))) throw notOurs(step.via);
			if (await existsExactly(adapter, step.from)) return;
			// The plugin knows this move was made (`done`): its file found at neither name went
			// somewhere the undo cannot bring it back from, which the answer names.
			if (!(await existsExactly(adapter, step.to))) throw new Error(`\`${step.to}\` is not where it was moved`);
			if (step.hash !== null && !(await holds(adapter, step.to, step.hash))) return;
			if (step.cycle !== null && !(await met(adapter, step.cycle))) return;
			const file = moved.get(step.to) ?? vault.getAbstractFileByPath(step.to);
			if (file === null) throw new Error(`\`${step.to}\` is not in the vault`);
			await vault.rename(file, step.from);
			return;
		}
		case "remove_created":
			// The batch's own new file goes from the disk itself, as the folders it made do, and
			// only while it holds what the batch wrote; one edited since is someone's, and stays.
			if (await holds(adapter, step.path, step.after_hash)) await adapter.remove(step.path);
			return;
		case "restore": {
			if (step.aside !== null && (await adapter.exists(step.aside))) throw notOurs(step.aside);
			const text = await readIfThere(adapter, step.path);
			if (text === step.before) return;
			const file = vault.getAbstractFileByPath(step.path);
			// The batch's own text, or its write torn by a stop (core's `restorable` says which):
			// restored only while the note still holds it.
			const found = text === null ? null : contentHash(text);
			if (found !== null && step.restorable.includes(found)) {
				if (!(file instanceof TFile)) throw new Error(`\`${step.path}\` is not in the vault`);
				try {
					await vault.process(file, (current) => {
						if (contentHash(current) !== found) throw new ChangedWhileWriting(step.path);
						return step.before;
					});
					return;
				} catch (error) {
					if (!(error instanceof ChangedWhileWriting)) throw error;
				}
			}
			// Edited, or removed, by someone since, or written part way: what is there stays, and
			// the text from before is kept beside it.
			await keepEdited(adapter, step.before, step.saved);
			kept.push({ path: step.path, saved: step.saved });
			return;
		}
		case "remove_folder":
			// The batch's own folder: removed from the disk itself (the vault's tree follows through
			// Obsidian's watcher), and never to the trash, so the undone batch leaves the vault as it
			// was rather than a new folder in the trash; one holding anything, hidden files
			// included, stays.
			await removeIfEmpty(adapter, step.path);
			return;
		case "forget_kept":
		case "put_back_set_aside":
		case "remove_journal":
			return;
	}
}

/** Saves `before` at `saved` (under `.vaultlink/recovered/`) unless it holds it already. */
async function keepEdited(adapter: DataAdapter, before: string, saved: string): Promise<void> {
	if ((await readIfThere(adapter, saved)) === before) return;
	const folder = saved.slice(0, saved.lastIndexOf("/"));
	if (folder !== "" && !(await adapter.exists(folder))) await adapter.mkdir(folder);
	await adapter.write(saved, before);
}

async function readIfThere(adapter: DataAdapter, path: string): Promise<string | null> {
	return (await adapter.exists(path)) ? adapter.read(path).catch(() => null) : null;
}

/** Whether the file at `path` holds text of content hash `hash`. */
async function holds(adapter: DataAdapter, path: string, hash: string): Promise<boolean> {
	const text = await readIfThere(adapter, path);
	return text !== null && contentHash(text) === hash;
}

/** Whether core's condition for a move of a cycle of names holds on the disk. */
async function met(adapter: DataAdapter, condition: UndoCondition): Promise<boolean> {
	if (condition.when === "absent") return !(await adapter.exists(condition.path));
	return (await existsExactly(adapter, condition.path)) && (condition.hash === null || (await holds(adapter, condition.path, condition.hash)));
}

/** Whether something is at `vaultPath` under exactly that name (not another case of it, on a disk that ignores case). */
function existsExactly(adapter: DataAdapter, vaultPath: string): Promise<boolean> {
	return adapter.exists(vaultPath, true);
}

function describeStep(step: UndoStep): string {
	switch (step.step) {
		case "move_back":
			return `${step.to} could not be moved back to ${step.from}`;
		case "restore":
			return `${step.path} could not be restored`;
		case "remove_created":
			return `the new file ${step.path} could not be removed`;
		case "put_back":
			return `${step.path} could not be put back`;
		case "remove_folder":
			return `the folder ${step.path} could not be removed`;
		case "remove_temporary":
			return `the temporary file ${step.path} could not be removed`;
		default:
			return "the change's record could not be put right";
	}
}

/** The error a failed batch answers once it was undone (`leftOver`: the steps that could not be). */
function failureAfterUndo(error: unknown, undone: Undone, forget: string | null): ToolError {
	const leftOver = undone.left;
	const what =
		error instanceof ChangedWhileWriting
			? `\`${error.path}\` changed while the move was being written`
			: error instanceof StepFailed
				? error.what
				: `the move failed: ${messageOf(error)}`;
	if (leftOver.length > 0) return stepError({ kind: "undo_incomplete", what, left: leftOver.join("; ") });
	// Everything was undone but notes left as found: the answer names them and where their text is.
	if (undone.kept.length > 0) return stepError({ kind: "failed_kept", what, kept: undone.kept });
	// Everything was undone: a note edited meanwhile is a concurrent modification, as when the
	// check before writing finds it; anything else is a failed write.
	if (error instanceof RemovedChanged) return stepError({ kind: "undo_edited", forget, path: error.path });
	if (error instanceof ChangedWhileWriting) return concurrent(error.path);
	if (error instanceof StepTaken) return stepError({ kind: "taken", what: error.step, path: error.path });
	return writeFailed(what);
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
		if (firstLinkOnTheWay(vault.adapter, [folder]) !== null) continue;
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

/** Removes each folder (deepest first) from the disk while it holds nothing, hidden files included. */
async function removeEmptiedFolders(vault: Vault, folders: string[]): Promise<void> {
	for (const folder of folders) {
		try {
			if (firstLinkOnTheWay(vault.adapter, [folder]) !== null) continue;
			await removeIfEmpty(vault.adapter, folder);
		} catch {
			// Left as it is: tidying, after the batch is applied.
		}
	}
}

