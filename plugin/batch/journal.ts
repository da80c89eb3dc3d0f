/**
 * The journal of a batch being applied inside Obsidian: the same file, in the same format, as
 * the sidecar writes before it changes the folder (`crates/sidecar/src/journal.rs`), at
 * `<vault>/.vaultlink/journal.json`. It holds the pre-image of every note the batch rewrites
 * and every file it moves, is written before the first change and removed once the batch is
 * done or undone. If Obsidian stops part way (a crash, a kill, a power cut), the journal is
 * left, `vaultlink recover <vault>` undoes the batch from it, and until then every move (from
 * either side) is refused with `interrupted_change`, so nothing builds on a half-made batch.
 *
 * The file is sealed with the vault's own key (`seal-keys.ts`: a secret in `.vaultlink/keys`,
 * bound to its key file's identity, which the sidecar finds too whatever sandbox either runs
 * in), by core (`crates/core/src/journal.rs`), for its purpose (a journal, not a kept change),
 * so that a journal that arrives with a vault from anywhere else (whose key file is a copy, or
 * not there), or a kept change copied to its place, is never acted on: recovery refuses any
 * journal whose seal does not verify for that purpose. A journal or kept change larger than
 * core's bound is refused from its size, and never read.
 */

import * as crypto from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { FileSystemAdapter, type DataAdapter } from "obsidian";
import { openIn, sealIn, usableKey } from "../move/seal-keys";
import {
	journalAlreadyKept,
	journalLease,
	journalMaxBytes,
	journalSizeRefusal,
	judgeJournal,
	sameBatch,
	stepError,
	type Journal,
	type ObservedJournal,
	type Purpose,
	type ToolError,
	type Verdict,
} from "../wasm";
import { CHANGES_FOLDER, JOURNAL_FILE, OWN_FOLDER } from "../wire";
import { messageOf } from "../ui/notice";

/** vaultlink's folder in the vault and the journal's file in it, as core names them (`wire.ts`). */
export const JOURNAL_FOLDER = OWN_FOLDER;
export const JOURNAL_PATH = JOURNAL_FILE;

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

/** A new holder id: 128 random bits as hex (core's `lease::HOLDER_HEX` digits). */
export function newHolder(): string {
	return crypto.randomBytes(16).toString("hex");
}

/**
 * The lease of a journal this plugin holds (core's `lease`): the journal file's modification time
 * set to now every `renew_ms` by a timer, and again before each step, so that any process sharing
 * the vault folder (a sidecar in another pid namespace, container or home) tells a change being
 * made from one a crash left, by the file's age alone. Node's `fs` offers no lock the kernel drops
 * when Obsidian dies, so the lease is all there is here. Before each step the holder checks that
 * the file at the journal's place is still the one it holds (nobody recovered it meanwhile) and
 * that it never went `holder_stop_ms` without renewing (by the monotonic clock, which runs on
 * while the process is suspended); otherwise the batch stops.
 */
class Lease {
	private renewed = performance.now();
	private lapsed = false;
	private readonly timer: number;

	constructor(
		private readonly file: string,
		private fd: number,
	) {
		const { renew_ms } = journalLease();
		this.timer = window.setInterval(() => this.renew(), renew_ms);
		this.renew();
	}

	/** Renews the lease, unless it lapsed: a lapsed lease is never renewed again. */
	renew(): void {
		const { holder_stop_ms } = journalLease();
		if (this.lapsed || performance.now() - this.renewed >= holder_stop_ms) {
			this.lapsed = true;
			return;
		}
		try {
			const now = new Date();
			fs.futimesSync(this.fd, now, now);
			this.renewed = performance.now();
		} catch (error) {
			console.error("vaultlink: renewing the journal's lease failed", error);
		}
	}

	/** `null` when the holder may make its next step; `"taken"` or `"lapsed"` when it may not. */
	check(): "taken" | "lapsed" | null {
		try {
			const held = fs.fstatSync(this.fd);
			const there = fs.lstatSync(this.file);
			if (held.ino !== there.ino || held.dev !== there.dev) return "taken";
		} catch {
			return "taken";
		}
		this.renew();
		return this.lapsed ? "lapsed" : null;
	}

	release(): void {
		window.clearInterval(this.timer);
		try {
			fs.closeSync(this.fd);
		} catch {
			// Closed already.
		}
	}
}

/** The leases this plugin holds, by holder id. */
const leases = new Map<string, Lease>();

/** Holds the lease of the journal of `journal`'s batch, just put in place by this plugin: `fd`, the file opened before it was linked into place (so it is never another's). */
function holdLease(base: string, journal: Journal, fd: number): void {
	if (journal.holder === undefined || journal.holder === "") {
		fs.closeSync(fd);
		return;
	}
	const file = path.join(base, ...JOURNAL_PATH.split("/"));
	leases.get(journal.holder)?.release();
	leases.set(journal.holder, new Lease(file, fd));
}

function releaseLease(journal: Journal): void {
	const lease = journal.holder === undefined ? undefined : leases.get(journal.holder);
	lease?.release();
	if (journal.holder !== undefined) leases.delete(journal.holder);
}

/** Whether the holder of `journal`'s batch may make its next step: `null`, or why not (`"taken"`: another process recovered it; `"lapsed"`). */
export function checkLease(journal: Journal): "taken" | "lapsed" | null {
	const lease = journal.holder === undefined ? undefined : leases.get(journal.holder);
	return lease === undefined ? null : lease.check();
}

/** What the plugin observes of the journal file in the vault, beside what opening it found. */
function observe(adapter: JournalAdapter, opened: { journal: Journal } | { refusal: string; whole: boolean }): ObservedJournal {
	let ageMs = 0;
	let plain = true;
	if (adapter instanceof FileSystemAdapter) {
		const base = adapter.getBasePath();
		try {
			const folder = fs.lstatSync(path.join(base, JOURNAL_FOLDER));
			const file = fs.lstatSync(path.join(base, ...JOURNAL_PATH.split("/")));
			plain = folder.isDirectory() && file.isFile();
			ageMs = Date.now() - file.mtimeMs;
		} catch {
			// Gone meanwhile: judged as just written.
		}
	}
	const found =
		"journal" in opened
			? {
					kind: "journal" as const,
					holder: opened.journal.holder ?? "",
					tool: opened.journal.tool,
					pid: opened.journal.pid,
					machine: opened.journal.machine,
					steps: opened.journal.writes.length + opened.journal.moves.length + opened.journal.made_folders.length > 0,
					abandoned: opened.journal.pid === ABANDONED,
				}
			: { kind: "refused" as const, reason: opened.refusal, whole: opened.whole };
	return { opened: found, age_ms: Math.round(ageMs), plain_file: plain, holder: "", locked_elsewhere: false };
}

/** The vault folder as the user would type it, for the messages. */
function vaultFolder(adapter: Pick<DataAdapter, "getName">): string {
	return adapter instanceof FileSystemAdapter ? adapter.getBasePath() : adapter.getName();
}

/** What the journal in the vault means, as core judges it; `null` when there is none. */
export async function judgeFound(adapter: JournalAdapter): Promise<{ verdict: Verdict; refusal: ToolError } | null> {
	if (!(await adapter.exists(JOURNAL_PATH))) return null;
	const opened = await openInVault(adapter);
	// A journal whose change was made and kept, with a later change kept since, is a copy put back.
	const kept = "journal" in opened ? journalAlreadyKept(opened.journal, await keptNames(adapter)) : null;
	const refusedWhy = "refusal" in opened ? opened.refusal : kept;
	// A file that is not yet a whole JSON value may be being written this moment; one past core's
	// bound is never read, and counts as whole (it is left for the user).
	const read = refusedWhy === null ? null : await readBounded(adapter, JOURNAL_PATH).catch(() => null);
	const whole = read === null || "refusal" in read || isWholeJson(read.text);
	const seen: { journal: Journal } | { refusal: string; whole: boolean } =
		refusedWhy !== null ? { refusal: `${JOURNAL_PATH} in ${vaultFolder(adapter)} was left alone: ${refusedWhy}`, whole } : (opened as { journal: Journal });
	return judgeJournal(observe(adapter, seen), vaultFolder(adapter), JOURNAL_PATH);
}

function isWholeJson(text: string): boolean {
	try {
		JSON.parse(text);
		return true;
	} catch {
		return false;
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
		return { refusal: `it cannot be read (${messageOf(error)})` };
	}
	if ("refusal" in read) return read;
	try {
		return openIn(basePath(adapter), purpose, read.text);
	} catch (error) {
		return { refusal: `it cannot be checked: ${messageOf(error)}` };
	}
}

/** The journal in the vault, opened with the vault's key: the journal, or why it may not be acted on. */
async function openInVault(adapter: JournalAdapter): Promise<{ journal: Journal } | { refusal: string }> {
	return openSealed(adapter, JOURNAL_PATH, "journal");
}

/** The names of the changes kept in the vault (`.vaultlink/changes`), from its listing alone. */
async function keptNames(adapter: JournalAdapter): Promise<string[]> {
	const folder = CHANGES_FOLDER;
	if (!(await adapter.exists(folder))) return [];
	return (await adapter.list(folder)).files;
}

/** Why a batch cannot start while a journal is there, as core judges the journal (`lease::judge`). */
async function refusal(adapter: JournalAdapter): Promise<ToolError> {
	// Gone since it was seen: the change that held the lock was just made.
	const judged = await judgeFound(adapter);
	return judged === null ? stepError({ kind: "just_applied" }) : judged.refusal;
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
 * hard links the journal is created exclusively (`wx`) and then written. `{fd}` (the journal, opened), `"held"`
 * (by someone else), or the error.
 */
function takeLock(base: string, sealed: string): { fd: number } | "held" | Error {
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
		// Opened before it is the journal: the lease is then held on this very file, never on
		// one another process put in its place meanwhile.
		let fd: number | null = null;
		try {
			fd = fs.openSync(own, "r+");
			try {
				fs.linkSync(own, target);
			} catch (error) {
				if (!NO_HARD_LINKS.has((error as NodeJS.ErrnoException).code ?? "")) throw error;
				fs.closeSync(fd);
				fd = null;
				writeNew(target, sealed);
				fd = fs.openSync(target, "r+");
			}
			const taken = fd;
			fd = null;
			return { fd: taken };
		} catch (error) {
			return (error as NodeJS.ErrnoException).code === "EEXIST" ? "held" : error instanceof Error ? error : new Error(String(error));
		} finally {
			if (fd !== null) fs.closeSync(fd);
			removeQuietly(own);
		}
	}
}

/** Writes the journal before the batch's first change, taking the vault's lock; a refusal, changing nothing, when one is there. */
export async function beginJournal(adapter: JournalAdapter, journal: Journal): Promise<ToolError | null> {
	if (await adapter.exists(JOURNAL_PATH)) return refusal(adapter);
	const unwritable = (error: unknown) =>
		stepError({ kind: "journal_unwritable", journal: JOURNAL_PATH, why: messageOf(error) });
	if (adapter instanceof FileSystemAdapter && !("key" in usableKey(adapter.getBasePath()))) return beginFirst(adapter, journal, unwritable);
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
		if (taken instanceof Error) return unwritable(taken);
		try {
			holdLease(adapter.getBasePath(), journal, taken.fd);
		} catch (error) {
			await finishJournal(adapter, journal);
			return unwritable(error);
		}
		return null;
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

/**
 * Begins the batch of a vault with no usable sealing key yet (its first): the lock is taken first,
 * with an empty file (which every reader judges a lock being written while its lease is fresh),
 * and only then is the key made and the journal sealed and written into the very file held. A
 * batch refused because another process holds the lock thus makes no key, and leaves `.vaultlink`
 * as it found it. On a failure after the lock is taken, the lock (this batch's, still empty or
 * part written) is removed.
 */
async function beginFirst(adapter: FileSystemAdapter, journal: Journal, unwritable: (error: unknown) => ToolError): Promise<ToolError | null> {
	const base = adapter.getBasePath();
	const taken = takeLock(base, "");
	if (taken === "held") return refusal(adapter);
	if (taken instanceof Error) return unwritable(taken);
	let failed: ToolError | null = null;
	try {
		const made = sealFor(adapter, "journal", journal);
		if ("error" in made) failed = made.error;
		else {
			fs.writeSync(taken.fd, made.sealed, 0);
			fs.fsyncSync(taken.fd);
		}
	} catch (error) {
		failed = unwritable(error);
	}
	if (failed !== null) {
		fs.closeSync(taken.fd);
		removeQuietly(path.join(base, ...JOURNAL_PATH.split("/")));
		return failed;
	}
	try {
		holdLease(base, journal, taken.fd);
	} catch (error) {
		await finishJournal(adapter, journal);
		return unwritable(error);
	}
	return null;
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
	releaseLease(journal);
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
	releaseLease(journal);
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
