//! The journal of a batch being applied inside Obsidian: the same file, in the same format, as
//! the sidecar writes before it changes the folder (`crates/sidecar/src/journal.rs`), at
//! `<vault>/.vaultlink/journal.json`. It holds the pre-image of every note the batch rewrites
//! and every file it moves, is written before the first change and removed once the batch is
//! done or undone. If Obsidian stops part way (a crash, a kill, a power cut), the journal is
//! left, `vaultlink recover <vault>` undoes the batch from it, and until then every move (from
//! either side) is refused with `interrupted_change`, so nothing builds on a half-made batch.
//!
//! The file is sealed with the vault's own key (`seal-keys.ts`: a secret in `.vaultlink/keys`,
//! bound to its key file's identity, which the sidecar finds too whatever sandbox either runs
//! in), by core (`crates/core/src/journal.rs`), for its purpose (a journal, not a kept change),
//! so that a journal that arrives with a vault from anywhere else (whose key file is a copy, or
//! not there), or a kept change copied to its place, is never acted on: recovery refuses any
//! journal whose seal does not verify for that purpose. A journal or kept change larger than
//! core's bound is refused from its size, and never read.

import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { FileSystemAdapter, type DataAdapter } from "obsidian";
import { openIn, sealIn } from "./seal-keys";
import { journalAlreadyKept, journalMaxBytes, journalSizeRefusal, stepError, type Journal, type Purpose, type ToolError } from "../wasm";

export const JOURNAL_FOLDER = ".vaultlink";
export const JOURNAL_PATH = `${JOURNAL_FOLDER}/journal.json`;

/** The journal's format is core's (`crates/core/src/journal.rs`), as `batchJournal` makes it. */
export type { Journal };

/** The `pid` of a journal whose batch failed and could not be wholly undone: nobody applies it any more. */
export const ABANDONED = 0;

type JournalAdapter = Pick<DataAdapter, "exists" | "read" | "write" | "remove" | "mkdir" | "rmdir" | "list" | "stat" | "getName">;

/** The vault's folder on disk; the plugin is desktop only, and its keys and journals are files there. */
function basePath(adapter: Pick<DataAdapter, "getName">): string {
	if (adapter instanceof FileSystemAdapter) return adapter.getBasePath();
	throw new Error("the vault has no folder on disk, so it has no sealing key");
}

/** `journal` sealed with the vault's key as a file of `purpose`; or the error (a journal past core's bound). */
export function sealFor(adapter: Pick<DataAdapter, "getName">, purpose: Purpose, journal: Journal): { sealed: string } | { error: ToolError } {
	return sealIn(basePath(adapter), purpose, journal);
}

/**
 * Reads a journal or a kept change file (a vault path), no more than core's bound: its size is
 * looked at first, and a larger file is refused without being read; the read stops past the bound
 * too (a file that grew meanwhile). `{text}`, or `{refusal}` in core's words.
 */
export async function readBounded(adapter: Pick<DataAdapter, "read" | "stat">, file: string): Promise<{ text: string } | { refusal: string }> {
	if (adapter instanceof FileSystemAdapter) {
		const fd = fs.openSync(path.join(adapter.getBasePath(), ...file.split("/")), "r");
		try {
			const size = fs.fstatSync(fd).size;
			const tooLarge = journalSizeRefusal(size);
			if (tooLarge !== null) return { refusal: tooLarge };
			const bound = journalMaxBytes();
			const buffer = Buffer.alloc(Math.min(size, bound) + 1);
			let read = 0;
			for (let got = 1; got > 0 && read < buffer.length; read += got) got = fs.readSync(fd, buffer, read, buffer.length - read, read);
			if (read > bound) return { refusal: journalSizeRefusal(read) ?? "it is over the bound" };
			return { text: buffer.subarray(0, read).toString("utf8") };
		} finally {
			fs.closeSync(fd);
		}
	}
	const tooLarge = journalSizeRefusal((await adapter.stat(file))?.size ?? 0);
	if (tooLarge !== null) return { refusal: tooLarge };
	return { text: await adapter.read(file) };
}

/** Whether a process with this id runs; one that cannot be asked counts as running. */
function processAlive(pid: number): boolean {
	if (pid <= ABANDONED) return false;
	if (pid === process.pid) return true;
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "EPERM";
	}
}

/** The machine's name, as the journal records it. */
export function machineName(): string {
	return os.hostname();
}

/** A file of `purpose` in the vault, read within core's bound and opened with the vault's key file it names: its journal, or why it may not be acted on. */
export async function openSealed(adapter: Pick<DataAdapter, "read" | "stat" | "getName">, file: string, purpose: Purpose): Promise<{ journal: Journal } | { refusal: string }> {
	let read: { text: string } | { refusal: string };
	try {
		read = await readBounded(adapter, file);
	} catch (error) {
		return { refusal: `it cannot be read (${error instanceof Error ? error.message : String(error)})` };
	}
	if ("refusal" in read) return read;
	try {
		return openIn(basePath(adapter), purpose, read.text);
	} catch (error) {
		return { refusal: `it cannot be checked: ${error instanceof Error ? error.message : String(error)}` };
	}
}

/** The journal in the vault, opened with the vault's key: the journal, or why it may not be acted on. */
async function openInVault(adapter: JournalAdapter): Promise<{ journal: Journal } | { refusal: string }> {
	return openSealed(adapter, JOURNAL_PATH, "journal");
}

/** The names of the changes kept in the vault (`.vaultlink/changes`), from its listing alone. */
async function keptNames(adapter: JournalAdapter): Promise<string[]> {
	const folder = `${JOURNAL_FOLDER}/changes`;
	if (!(await adapter.exists(folder))) return [];
	return (await adapter.list(folder)).files;
}

/** Why a batch cannot start while a journal is there. */
async function refusal(adapter: JournalAdapter): Promise<ToolError> {
	// Gone since it was seen: the change that held the lock was just made.
	if (!(await adapter.exists(JOURNAL_PATH))) return stepError({ kind: "just_applied" });
	const opened = await openInVault(adapter);
	// A journal whose change was made and kept, with a later change kept since, is a copy put back.
	const kept = "journal" in opened ? journalAlreadyKept(opened.journal, await keptNames(adapter)) : null;
	const why = "refusal" in opened ? opened.refusal : kept;
	if (why !== null) return stepError({ kind: "untrusted", reason: `${JOURNAL_PATH} was left alone: ${why}`, journal: JOURNAL_PATH });
	if (!("journal" in opened)) return stepError({ kind: "just_applied" });
	const { tool, pid } = opened.journal;
	return stepError(processAlive(pid) ? { kind: "in_progress", tool, pid } : { kind: "interrupted", tool, pid, vault: "<vault folder>" });
}

/** A number new to each attempt at the lock in this process, so that two attempts never share a file. */
let attempts = 0;

/** Errors of a filesystem that has no hard links (FAT, exFAT, some network ones). */
const NO_HARD_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS"]);

/** Creates `file`, which must not exist, with `text`, synced; private, as the journal holds notes' texts. */
export function writeNew(file: string, text: string): void {
	const fd = fs.openSync(file, "wx", 0o600);
	try {
		fs.writeSync(fd, text);
		fs.fsyncSync(fd);
	} finally {
		fs.closeSync(fd);
	}
}

/** Makes a folder's entries (files created or removed in it) durable; Windows cannot open a folder to sync it, and is left as it is. */
export function syncFolder(folder: string): void {
	if (process.platform === "win32") return;
	const fd = fs.openSync(folder, "r");
	try {
		fs.fsyncSync(fd);
	} finally {
		fs.closeSync(fd);
	}
}

export function removeQuietly(file: string): void {
	try {
		fs.unlinkSync(file);
	} catch {
		// Gone already.
	}
}

/**
 * Takes the vault's lock, the journal file, in one step, as the sidecar does: the sealed journal
 * is written whole under a name of this attempt's own (`journal.json.<pid>-<n>.lock`), then
 * linked to `journal.json` with a hard link, which fails when anything is there (a journal of
 * the sidecar's, or a lock it holds while it plans), so two batches starting at once never both
 * hold it and no one sees a journal half written. Obsidian's adapter has no create that refuses
 * to replace (its `write` replaces; its `rename` and `copy` check first), so this goes through
 * Node's `fs` under the vault's folder, as the plugin is desktop only. On a filesystem without
 * hard links the journal is created exclusively (`wx`) and then written. `"taken"`, `"held"`
 * (by someone else), or the error.
 */
function takeLock(base: string, sealed: string): "taken" | "held" | Error {
	const folder = path.join(base, JOURNAL_FOLDER);
	const target = path.join(base, ...JOURNAL_PATH.split("/"));
	for (let attempt = 0; ; attempt++) {
		const own = path.join(folder, `journal.json.${process.pid}-${attempts++}.lock`);
		try {
			fs.mkdirSync(folder, { recursive: true });
			// Looked at right before the write: a folder swapped for a link would take the journal,
			// which holds notes' texts, out of the vault.
			if (fs.lstatSync(folder).isSymbolicLink()) return new Error(`\`${JOURNAL_FOLDER}\` is a symbolic link, so no journal is written through it`);
			writeNew(own, sealed);
		} catch (error) {
			removeQuietly(own);
			// The folder was removed by a batch finishing a moment ago: made again.
			if ((error as NodeJS.ErrnoException).code === "ENOENT" && attempt < 10) continue;
			return error instanceof Error ? error : new Error(String(error));
		}
		try {
			try {
				fs.linkSync(own, target);
			} catch (error) {
				if (!NO_HARD_LINKS.has((error as NodeJS.ErrnoException).code ?? "")) throw error;
				writeNew(target, sealed);
			}
			return "taken";
		} catch (error) {
			return (error as NodeJS.ErrnoException).code === "EEXIST" ? "held" : error instanceof Error ? error : new Error(String(error));
		} finally {
			removeQuietly(own);
		}
	}
}

/** Writes the journal before the batch's first change, taking the vault's lock; a refusal, changing nothing, when one is there. */
export async function beginJournal(adapter: JournalAdapter, journal: Journal): Promise<ToolError | null> {
	if (await adapter.exists(JOURNAL_PATH)) return refusal(adapter);
	const unwritable = (error: unknown) =>
		stepError({ kind: "journal_unwritable", journal: JOURNAL_PATH, why: error instanceof Error ? error.message : String(error) });
	let sealed: string;
	try {
		const made = sealFor(adapter, "journal", journal);
		if ("error" in made) return made.error;
		sealed = made.sealed;
	} catch (error) {
		return unwritable(error);
	}
	if (adapter instanceof FileSystemAdapter) {
		const taken = takeLock(adapter.getBasePath(), sealed);
		if (taken === "held") return refusal(adapter);
		return taken === "taken" ? null : unwritable(taken);
	}
	// No folder on disk (not a desktop vault, which the plugin is not made for): a check, then a
	// write through the adapter, which cannot refuse to replace.
	try {
		if (!(await adapter.exists(JOURNAL_FOLDER))) await adapter.mkdir(JOURNAL_FOLDER);
		await adapter.write(JOURNAL_PATH, sealed);
	} catch (error) {
		// Only what this batch wrote is taken back: a journal another batch wrote meanwhile stays.
		await finishJournal(adapter, journal);
		return unwritable(error);
	}
	return null;
}

/** Whether two journals are of one batch: the same start, machine, tool and steps (the pid of an abandoned one differs). */
function sameBatch(found: Journal, ours: Journal): boolean {
	return (
		found.started_unix_ms === ours.started_unix_ms &&
		found.machine === ours.machine &&
		found.tool === ours.tool &&
		JSON.stringify(found.moves) === JSON.stringify(ours.moves) &&
		JSON.stringify(found.made_folders) === JSON.stringify(ours.made_folders)
	);
}

/**
 * Removes `folder` from the disk itself when it holds nothing, hidden files included (read from
 * the disk, not the vault's tree, which follows through Obsidian's watcher and may lag): what it
 * found. Errors other than these are thrown.
 */
export async function removeIfEmpty(adapter: Pick<DataAdapter, "exists" | "list" | "rmdir">, folder: string): Promise<"removed" | "absent" | "not empty"> {
	if (!(await adapter.exists(folder, true))) return "absent";
	const listed = await adapter.list(folder);
	if (listed.files.length > 0 || listed.folders.length > 0) return "not empty";
	await adapter.rmdir(folder, false);
	return "removed";
}

/**
 * Removes the journal of `journal`'s batch, and its folder when nothing else is in it. The lock is
 * released by its holder only: a journal of another batch (or one that cannot be opened) stays.
 */
export async function finishJournal(adapter: JournalAdapter, journal: Journal): Promise<void> {
	try {
		if (await adapter.exists(JOURNAL_PATH)) {
			const opened = await openInVault(adapter);
			if (!("journal" in opened) || !sameBatch(opened.journal, journal)) return;
			await adapter.remove(JOURNAL_PATH);
		}
		await removeIfEmpty(adapter, JOURNAL_FOLDER);
	} catch {
		// The folder is gone already, or holds saved pre-images: either way nothing to tidy.
	}
}

/** Marks the journal of a batch that could not be wholly undone as abandoned, so `vaultlink recover` may run while Obsidian does. */
export async function abandonJournal(adapter: JournalAdapter, journal: Journal): Promise<void> {
	try {
		const opened = await openInVault(adapter);
		if ("refusal" in opened) throw new Error(opened.refusal);
		// Only the holder's own journal is marked.
		if (!sameBatch(opened.journal, journal)) throw new Error("the journal in the vault is another batch's");
		const made = sealFor(adapter, "journal", { ...opened.journal, pid: ABANDONED });
		if ("error" in made) throw new Error(made.error.message);
		await adapter.write(JOURNAL_PATH, made.sealed);
	} catch (error) {
		console.error("vaultlink: marking the journal of a failed move as abandoned failed", error);
	}
}
