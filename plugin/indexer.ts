/**
 * Keeps the wasm link index in step with the vault: the first index of every file, in batches
 * that yield to the event loop, and then per-path updates from the Vault API's events. The index
 * lives in the link engine (`engine/client.ts`, a Web Worker): texts are read here, through the
 * Vault API, and posted to it; each batch is waited for before the next is read, so the first
 * index never holds more than one batch of texts in flight.
 */

import { App, Component, Notice, TAbstractFile, TFile, TFolder, debounce, type Debouncer } from "obsidian";
import type { LinkEngine } from "./engine/client";

export interface IndexerOptions {
	/** Quiet time after the last event for a path before it is re-read. */
	debounceMs: number;
	/** Files read at once during the first index; the event loop gets a turn after each batch. */
	batchSize: number;
	/** Vaults with more notes than this show a progress notice during the first index. */
	progressNoticeThreshold: number;
}

export const DEFAULT_INDEXER_OPTIONS: IndexerOptions = {
	debounceMs: 200,
	// A batch is read concurrently, then put in the index; at about 25 µs a note in wasm
	// (BENCHMARKS.md), 200 notes take some 5 ms, well inside a frame, before the event loop
	// gets its turn.
	batchSize: 200,
	progressNoticeThreshold: 2000,
};

/** A file's text as read for the index, with the generation of its path when the read began. */
interface FileRead {
	path: string;
	generation: number;
	text: string;
}

/** Notes, counted for the progress notice. */
function isMarkdown(file: TFile): boolean {
	return file.extension === "md";
}

/**
 * Files indexed with their text: notes, and canvases (`.canvas`, JSON Canvas), whose file cards
 * and text cards hold links. Obsidian's metadata cache has no links for a canvas, so its text is
 * read as a note's is; core reads the cards. Other files (attachments) are indexed with "", so
 * links to them resolve.
 */
function holdsLinks(file: TFile): boolean {
	return file.extension === "md" || file.extension === "canvas";
}

function yieldToEventLoop(): Promise<void> {
	return new Promise((resolve) => window.setTimeout(resolve, 0));
}

export class Indexer {
	private readonly app: App;
	private readonly index: LinkEngine;
	private readonly options: IndexerOptions;
	/** Paths the index holds, so a folder's rename or delete can reach its files. */
	private readonly indexedPaths = new Set<string>();
	/**
	 * Bumped on every event for a path. A read that finishes after its path's generation moved
	 * on is dropped, so a slow read can never overwrite what a newer event put in the index.
	 */
	private readonly generations = new Map<string, number>();
	private readonly pendingUpdates = new Map<string, Debouncer<[], void>>();
	private inFlightUpdates = 0;
	private idleWaiters: (() => void)[] = [];
	private stopped = false;

	constructor(app: App, index: LinkEngine, options: IndexerOptions = DEFAULT_INDEXER_OPTIONS) {
		this.app = app;
		this.index = index;
		this.options = options;
	}

	/** Subscribes to the vault's events through `component`, so unloading it unsubscribes them. */
	registerEvents(component: Component): void {
		const vault = this.app.vault;
		component.registerEvent(vault.on("create", (file) => this.onChanged(file)));
		component.registerEvent(vault.on("modify", (file) => this.onChanged(file)));
		component.registerEvent(vault.on("delete", (file) => this.onDeleted(file)));
		component.registerEvent(vault.on("rename", (file, oldPath) => this.onRenamed(file, oldPath)));
	}

	/** Indexes every file of the vault. Resolves when done, or early once `stop` was called. */
	async indexAll(): Promise<void> {
		const files = this.app.vault.getFiles();
		const notes = files.filter(isMarkdown).length;
		const notice =
			notes > this.options.progressNoticeThreshold ? new Notice(`vaultlink: indexing the links of ${notes} notes…`, 0) : null;
		try {
			for (let start = 0; start < files.length; start += this.options.batchSize) {
				if (this.stopped) return;
				const batch = files.slice(start, start + this.options.batchSize);
				// Read concurrently, apply in the vault's order: the index is built the same way every time.
				const reads = await Promise.all(batch.map((file) => this.readFile(file, file.path)));
				await this.applyMany(reads);
				notice?.setMessage(
					`vaultlink: indexing the links of ${notes} notes, ${Math.floor((100 * Math.min(start + batch.length, files.length)) / files.length)}%…`,
				);
				await yieldToEventLoop();
			}
			// Every note is in the index: a note that vanishes or appears from now on is compared
			// with this view (an event that came while the vault was read is one of those).
			if (!this.stopped) await this.index.beginObserving();
		} finally {
			notice?.hide();
		}
	}

	/** Resolves once no update is waiting for its debounce or reading its file. */
	whenIdle(): Promise<void> {
		if (this.isIdle()) return Promise.resolve();
		return new Promise((resolve) => this.idleWaiters.push(resolve));
	}

	/** Runs the waiting updates now instead of after their debounce. */
	flush(): void {
		for (const update of [...this.pendingUpdates.values()]) update.run();
	}

	/** Drops waiting updates and makes every later step a no-op; the index may be freed after this. */
	stop(): void {
		this.stopped = true;
		for (const update of this.pendingUpdates.values()) update.cancel();
		this.pendingUpdates.clear();
		this.settleIfIdle();
	}

	private onChanged(file: TAbstractFile): void {
		if (file instanceof TFile) this.scheduleUpdate(file.path);
	}

	private onDeleted(file: TAbstractFile): void {
		if (file instanceof TFolder) {
			for (const path of this.indexedPathsUnder(file.path)) this.scheduleUpdate(path);
		} else {
			this.scheduleUpdate(file.path);
		}
	}

	private onRenamed(file: TAbstractFile, oldPath: string): void {
		if (this.stopped) return;
		// The move is applied at once, so links keep resolving between the event and the re-read;
		// the re-read then catches a rename that came with an edit, or a file not yet indexed.
		if (file instanceof TFolder) {
			// Obsidian also sends each descendant its own event; whichever comes first does the
			// move and the other finds nothing left to move.
			for (const from of this.indexedPathsUnder(oldPath)) {
				this.renameInIndex(from, file.path + from.slice(oldPath.length));
			}
		} else {
			this.renameInIndex(oldPath, file.path);
		}
	}

	private renameInIndex(from: string, to: string): void {
		this.bumpGeneration(from);
		// `indexedPaths` holds what the index holds, so it says now what the engine's rename will
		// find; the engine applies the rename before any request made after it.
		if (this.indexedPaths.delete(from)) this.indexedPaths.add(to);
		this.track(this.index.rename(from, to));
		this.scheduleUpdate(to);
	}

	/** An update sent to the engine: counted until it is applied, so `whenIdle` waits for it. */
	private track(update: Promise<unknown>): void {
		this.inFlightUpdates += 1;
		update
			.catch((error: unknown) => {
				// The engine stops when the plugin unloads; an update it drops then is no failure.
				if (!this.stopped) console.error("vaultlink: the link index could not be updated", error);
			})
			.finally(() => {
				this.inFlightUpdates -= 1;
				this.settleIfIdle();
			});
	}

	private indexedPathsUnder(folderPath: string): string[] {
		const prefix = `${folderPath}/`;
		return [...this.indexedPaths].filter((path) => path.startsWith(prefix));
	}

	private bumpGeneration(path: string): number {
		const generation = (this.generations.get(path) ?? 0) + 1;
		this.generations.set(path, generation);
		return generation;
	}

	/** Re-reads `path` once events for it have been quiet for the debounce time. */
	private scheduleUpdate(path: string): void {
		if (this.stopped) return;
		this.bumpGeneration(path);
		let update = this.pendingUpdates.get(path);
		if (update === undefined) {
			update = debounce(
				() => {
					this.pendingUpdates.delete(path);
					void this.updatePath(path);
				},
				this.options.debounceMs,
				true,
			);
			this.pendingUpdates.set(path, update);
		}
		update();
	}

	/** Makes the index agree with what the vault has at `path` now: the file's text, or nothing. */
	private async updatePath(path: string): Promise<void> {
		this.inFlightUpdates += 1;
		try {
			const file = this.app.vault.getAbstractFileByPath(path);
			if (file instanceof TFile) {
				await this.indexFile(file, path);
			} else if (!this.stopped) {
				this.indexedPaths.delete(path);
				await this.index.remove(path);
			}
		} catch (error) {
			if (!this.stopped) console.error(`vaultlink: the link index could not be updated for ${path}`, error);
		} finally {
			this.inFlightUpdates -= 1;
			this.settleIfIdle();
		}
	}

	/** Reads `file` (known as `path` when the read was asked for) and puts it in the index. */
	private async indexFile(file: TFile, path: string): Promise<void> {
		await this.apply(await this.readFile(file, path));
	}

	/** The text the index gets for `file`: a note's Markdown or a canvas's JSON, or "" for an attachment; null if unreadable. */
	private async readFile(file: TFile, path: string): Promise<FileRead | null> {
		const generation = this.generations.get(path) ?? 0;
		if (!holdsLinks(file)) return { path, generation, text: "" };
		try {
			return { path, generation, text: await this.app.vault.cachedRead(file) };
		} catch (error) {
			// Usually deleted or renamed while being read; its event brings the index up to date.
			console.warn(`vaultlink: could not read ${path}; it is left out of the index until it changes`, error);
			return null;
		}
	}

	/** Puts a read into the index, unless an event for its path came after the read began. */
	private async apply(read: FileRead | null): Promise<void> {
		if (read === null || this.stopped) return;
		if ((this.generations.get(read.path) ?? 0) !== read.generation) return;
		this.indexedPaths.add(read.path);
		await this.index.upsert(read.path, read.text);
	}

	/** `apply` for a batch: the reads still current go into the index in one call. */
	private async applyMany(reads: (FileRead | null)[]): Promise<void> {
		if (this.stopped) return;
		const current = reads.filter(
			(read): read is FileRead => read !== null && (this.generations.get(read.path) ?? 0) === read.generation,
		);
		for (const read of current) this.indexedPaths.add(read.path);
		try {
			await this.index.upsertMany(
				current.map((read) => read.path),
				current.map((read) => read.text),
			);
		} catch (error) {
			// Stopped while the batch was on its way: the engine is gone with the plugin.
			if (!this.stopped) throw error;
		}
	}

	private isIdle(): boolean {
		return this.pendingUpdates.size === 0 && this.inFlightUpdates === 0;
	}

	private settleIfIdle(): void {
		if (!this.isIdle() && !this.stopped) return;
		const waiters = this.idleWaiters;
		this.idleWaiters = [];
		for (const resolve of waiters) resolve();
	}
}
