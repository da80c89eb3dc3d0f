/** The `obsidian` double's app, workspace, metadata (see `index.ts`). */

import type * as obsidian from "obsidian";
import { Plugin } from "./components";
import { Events } from "./events";
import { TAbstractFile, TFile } from "./files";
import { normalizePath } from "./paths";
import { Vault } from "./vault";
import { asObsidianView, doubleViewOf, MarkdownView } from "./views";

/** A note's turn to be read by the metadata cache: its timer while its delay runs. */
interface Turn {
	timer?: ReturnType<typeof setTimeout>;
}

/** How many notes the double's metadata cache reads at once. */
export const MAX_CACHE_READS = 64;

/** How long the double's metadata cache takes to read a changed note again, unless told otherwise. */
export const DEFAULT_METADATA_DELAY_MS = 30;

/** How long an open editor waits before it saves what was typed (`requestSave`: "in 2 seconds"). */
export const EDITOR_SAVE_DELAY_MS = 2000;

/** What the metadata cache makes of a note's text, when a test gives it a way (`MetadataCache.computeCache`). */
export type CacheComputer = (file: TFile, text: string) => obsidian.CachedMetadata | null;

/**
 * The metadata cache answers from fixtures a test sets: the double does not parse Markdown or
 * resolve links, so what "Obsidian" read is whatever the test says it read.
 *
 * - `setFileCache` sets a file's cached metadata. Files without one have no cache yet, as in
 *   Obsidian before it has indexed them.
 * - `resolvedLinks` and `unresolvedLinks` are plain fields, as in Obsidian; a test assigns them.
 * - `setFirstLinkpathDest` sets which file `getFirstLinkpathDest` gives for a linkpath written in
 *   one note. A linkpath without a fixture gives null, as Obsidian does for one that names no file.
 *
 * It lags as Obsidian's does: until the app's start has resolved every note, and from a note's
 * `create` or `modify` until `delayMs` later, `resolved` is false and the cache still holds what
 * it held before. Then the note is read again (through `computeCache`, when a test set one; the
 * fixture stays otherwise), and `changed`, `resolve` and, once nothing waits, `resolved` fire. A
 * rename moves the note's entries to its new path without reading it again and fires none of
 * them ("not called when a file is renamed for performance reasons", as the typings say); a
 * delete drops them and fires `deleted`.
 */
export class MetadataCache
	extends Events
	implements Pick<obsidian.MetadataCache, "getFileCache" | "getCache" | "resolvedLinks" | "unresolvedLinks" | "getFirstLinkpathDest">
{
	resolvedLinks: Record<string, Record<string, number>> = {};
	unresolvedLinks: Record<string, Record<string, number>> = {};
	/**
	 * Not in Obsidian's typings but there at run time (plugins read it): whether every note's
	 * links are resolved. False from the start until the first resolution, and after each change
	 * until it is resolved.
	 */
	resolved = false;
	/** How long after a note's change its cache is updated. */
	delayMs: number;
	/** How a note's cache is made from its text on a change; null keeps the fixtures as they are. */
	computeCache: CacheComputer | null = null;
	private readonly vault: Vault;
	private readonly caches = new Map<string, obsidian.CachedMetadata>();
	/** Destination paths by source path, then by linkpath. */
	private readonly destinations = new Map<string, Map<string, string | null>>();
	/**
	 * The notes waiting to be read again, each with its turn: a timer until its delay is over,
	 * then a place in the queue of reads. A later change gives the note a new turn, and a read
	 * whose turn was replaced answers nothing.
	 */
	private readonly waiting = new Map<TFile, Turn>();
	/** The notes whose delay is over, in order, read at most `MAX_CACHE_READS` at a time. */
	private readonly queue: { file: TFile; turn: Turn }[] = [];
	private reading = 0;
	private started = false;

	constructor(vault: Vault, delayMs = DEFAULT_METADATA_DELAY_MS) {
		super();
		this.vault = vault;
		this.delayMs = delayMs;
		vault.observe((name, data) => this.follow(name, data));
	}

	/** The app's start: every note is read once, `delayMs` after the layout is ready. */
	startResolving(): void {
		for (const file of this.vault.getMarkdownFiles()) this.schedule(file);
		this.started = true;
		this.resolveIfIdle();
	}

	/** Resolves once `resolved` is true. */
	whenResolved(): Promise<void> {
		if (this.resolved) return Promise.resolve();
		return new Promise((resolve) => {
			const ref = this.on("resolved", () => {
				this.offref(ref);
				resolve();
			});
		});
	}

	private follow(name: string, data: unknown[]): void {
		const [file, oldPath] = data;
		if (!(file instanceof TFile) || file.extension !== "md") return;
		if (name === "create" || name === "modify") {
			if (this.started) this.schedule(file);
		} else if (name === "rename" && typeof oldPath === "string") {
			this.moveEntries(oldPath, file.path);
		} else if (name === "delete") {
			const turn = this.waiting.get(file);
			if (turn?.timer !== undefined) clearTimeout(turn.timer);
			this.waiting.delete(file);
			const previous = this.caches.get(file.path) ?? null;
			this.caches.delete(file.path);
			delete this.resolvedLinks[file.path];
			delete this.unresolvedLinks[file.path];
			this.trigger("deleted", file, previous === null ? null : structuredClone(previous));
			this.resolveIfIdle();
		}
	}

	private schedule(file: TFile): void {
		this.resolved = false;
		const existing = this.waiting.get(file);
		if (existing?.timer !== undefined) clearTimeout(existing.timer);
		const turn: Turn = {};
		turn.timer = setTimeout(() => {
			turn.timer = undefined;
			this.queue.push({ file, turn });
			this.pump();
		}, this.delayMs);
		this.waiting.set(file, turn);
	}

	/**
	 * Starts queued reads while fewer than `MAX_CACHE_READS` are open: Obsidian's cache indexes a
	 * large vault a bounded number of files at a time (it shows its progress), never every file
	 * at once, which on 100,000 notes would pass the process's limit of open files.
	 */
	private pump(): void {
		while (this.reading < MAX_CACHE_READS && this.queue.length > 0) {
			const next = this.queue.shift();
			if (next === undefined) break;
			if (this.waiting.get(next.file) !== next.turn) continue;
			this.reading += 1;
			void this.reread(next.file, next.turn).finally(() => {
				this.reading -= 1;
				this.pump();
			});
		}
	}

	private async reread(file: TFile, turn: Turn): Promise<void> {
		let text: string | null = null;
		try {
			// Obsidian's cache reads the file itself, not through the plugin-visible `vault.read`
			// (which a test may patch to watch or stall the plugin's own reads).
			text = this.vault.getFileByPath(file.path) === file ? await this.vault.adapter.read(file.path) : null;
		} catch {
			text = null;
		}
		// A change while the note was read gave it a new turn: that read answers instead.
		if (this.waiting.get(file) !== turn) return;
		this.waiting.delete(file);
		if (text !== null) {
			if (this.computeCache !== null) {
				const computed = this.computeCache(file, text);
				if (computed === null) this.caches.delete(file.path);
				else this.caches.set(file.path, structuredClone(computed));
			}
			const cache = this.caches.get(file.path);
			if (cache !== undefined) this.trigger("changed", file, text, structuredClone(cache));
			this.trigger("resolve", file);
		}
		this.resolveIfIdle();
	}

	private resolveIfIdle(): void {
		if (!this.started || this.waiting.size > 0 || this.resolved) return;
		this.resolved = true;
		this.trigger("resolved");
	}

	private moveEntries(from: string, to: string): void {
		const cache = this.caches.get(from);
		if (cache !== undefined) {
			this.caches.delete(from);
			this.caches.set(to, cache);
		}
		for (const links of [this.resolvedLinks, this.unresolvedLinks]) {
			const entry = links[from];
			if (entry !== undefined) {
				delete links[from];
				links[to] = entry;
			}
		}
		const destinations = this.destinations.get(from);
		if (destinations !== undefined) {
			this.destinations.delete(from);
			this.destinations.set(to, destinations);
		}
	}

	/** Sets (or with null, clears) the cached metadata of the file at `filePath`. */
	setFileCache(filePath: string, cache: obsidian.CachedMetadata | null): void {
		const normalized = normalizePath(filePath);
		if (cache === null) this.caches.delete(normalized);
		else this.caches.set(normalized, structuredClone(cache));
	}

	getFileCache(file: obsidian.TFile): obsidian.CachedMetadata | null {
		return this.getCache(file.path);
	}

	getCache(filePath: string): obsidian.CachedMetadata | null {
		// A copy, as a caller must not be able to change the fixture through what it was given.
		const cache = this.caches.get(normalizePath(filePath));
		return cache === undefined ? null : structuredClone(cache);
	}

	/**
	 * Sets what `getFirstLinkpathDest(linkpath, sourcePath)` gives: the file at `destinationPath`,
	 * which must exist in the vault when asked for, or null.
	 */
	setFirstLinkpathDest(linkpath: string, sourcePath: string, destinationPath: string | null): void {
		const source = normalizePath(sourcePath);
		const bySource = this.destinations.get(source) ?? new Map<string, string | null>();
		bySource.set(linkpath, destinationPath === null ? null : normalizePath(destinationPath));
		this.destinations.set(source, bySource);
	}

	getFirstLinkpathDest(linkpath: string, sourcePath: string): TFile | null {
		const destination = this.destinations.get(normalizePath(sourcePath))?.get(linkpath) ?? null;
		if (destination === null) return null;
		const file = this.vault.getFileByPath(destination);
		// A fixture naming a file that is not there is a mistake in the test, not an answer.
		if (file === null) throw new Error(`getFirstLinkpathDest fixture for ${JSON.stringify(linkpath)} names ${destination}, which is not a file of the vault`);
		return file;
	}
}

/** A link opened with `Workspace.openLinkText`, as it was asked for. */
export interface OpenedLink {
	linktext: string;
	sourcePath: string;
	newLeaf: obsidian.PaneType | boolean | undefined;
	openViewState: obsidian.OpenViewState | undefined;
}

/**
 * The workspace: its layout becomes ready once the app has started (`App`), and `onLayoutReady`
 * calls back then, or at once after; views registered by type open in leaves the double keeps in
 * a flat list (there are no splits to arrange); `openEditor` opens a note in a Markdown editor
 * (`MarkdownView`); `openLinkText` records what it was asked to open.
 */
export class Workspace
	extends Events
	implements
		Pick<
			obsidian.Workspace,
			| "layoutReady"
			| "onLayoutReady"
			| "getActiveFile"
			| "getLeavesOfType"
			| "iterateAllLeaves"
			| "getRightLeaf"
			| "revealLeaf"
			| "detachLeavesOfType"
			| "openLinkText"
		>
{
	layoutReady = false;
	private readonly layoutCallbacks: (() => unknown)[] = [];
	/** The file in the active editor, which a test sets; null when none is open. */
	activeFile: TFile | null = null;
	/** Every link opened, oldest first, for tests. */
	readonly openedLinks: OpenedLink[] = [];
	private readonly app: obsidian.App;
	private readonly viewCreators = new Map<string, obsidian.ViewCreator>();
	private readonly leaves: WorkspaceLeaf[] = [];

	constructor(app: obsidian.App) {
		super();
		this.app = app;
	}

	onLayoutReady(callback: () => unknown): void {
		// As Obsidian: at once when the layout is ready, else queued until it is.
		if (this.layoutReady) callback();
		else this.layoutCallbacks.push(callback);
	}

	/** The app's start is done: the queued callbacks run, then `layout-ready` fires. */
	setLayoutReady(): void {
		if (this.layoutReady) return;
		this.layoutReady = true;
		for (const callback of this.layoutCallbacks.splice(0)) callback();
		this.trigger("layout-ready");
	}

	iterateAllLeaves(callback: (leaf: obsidian.WorkspaceLeaf) => unknown): void {
		for (const leaf of [...this.leaves]) callback(asObsidianLeaf(leaf));
	}

	/**
	 * Opens `file` in a new leaf's Markdown editor, as clicking it in Obsidian does, and returns the
	 * editor's view; for tests of what the plugin does with notes open in an editor.
	 */
	async openEditor(file: TFile): Promise<MarkdownView> {
		const leaf = new WorkspaceLeaf(this, this.app);
		this.leaves.push(leaf);
		const view = new MarkdownView(asObsidianLeaf(leaf));
		leaf.view = asObsidianView(view);
		await view.open();
		await view.loadFile(file);
		this.activeFile = file;
		return view;
	}

	getActiveFile(): TFile | null {
		return this.activeFile;
	}

	/** What `Plugin.registerView` does; a type registered twice throws, as in Obsidian. */
	registerViewType(type: string, creator: obsidian.ViewCreator): void {
		if (this.viewCreators.has(type)) throw new Error(`Attempting to register an existing view type "${type}"`);
		this.viewCreators.set(type, creator);
	}

	/** Undoes `registerViewType` when its plugin unloads, closing the views of that type. */
	unregisterViewType(type: string): void {
		this.detachLeavesOfType(type);
		this.viewCreators.delete(type);
	}

	/** The creator of a view type, for the double's leaves. */
	viewCreator(type: string): obsidian.ViewCreator | undefined {
		return this.viewCreators.get(type);
	}

	/** Every leaf, oldest first, for tests. */
	get allLeaves(): readonly WorkspaceLeaf[] {
		return this.leaves;
	}

	getLeavesOfType(viewType: string): obsidian.WorkspaceLeaf[] {
		return this.leaves.filter((leaf) => leaf.viewType() === viewType).map(asObsidianLeaf);
	}

	/** A new empty leaf in the right sidebar, whether or not `split` asks for one. */
	getRightLeaf(split: boolean): obsidian.WorkspaceLeaf | null {
		void split;
		const leaf = new WorkspaceLeaf(this, this.app);
		this.leaves.push(leaf);
		return asObsidianLeaf(leaf);
	}

	async revealLeaf(leaf: obsidian.WorkspaceLeaf): Promise<void> {
		const revealed = doubleLeafOf(leaf);
		if (!this.leaves.includes(revealed)) throw new Error("Not a leaf of this workspace");
		revealed.revealed = true;
	}

	detachLeavesOfType(viewType: string): void {
		for (const leaf of this.getLeavesOfType(viewType)) leaf.detach();
	}

	async openLinkText(linktext: string, sourcePath: string, newLeaf?: obsidian.PaneType | boolean, openViewState?: obsidian.OpenViewState): Promise<void> {
		this.openedLinks.push({ linktext, sourcePath, newLeaf, openViewState });
	}

	/** Drops a detached leaf. */
	removeLeaf(leaf: WorkspaceLeaf): void {
		const index = this.leaves.indexOf(leaf);
		if (index >= 0) this.leaves.splice(index, 1);
	}
}

/**
 * A leaf: empty until `setViewState` opens a registered view in it, which is loaded and then
 * opened (`onOpen`) as in Obsidian; `detach` closes it (`onClose`) and unloads it.
 */
export class WorkspaceLeaf implements Pick<obsidian.WorkspaceLeaf, "getViewState" | "setViewState" | "detach" | "getDisplayText"> {
	/** The open view, null while the leaf is empty (Obsidian's empty view). */
	view: obsidian.View | null = null;
	/** True once `Workspace.revealLeaf` showed it. */
	revealed = false;
	readonly app: obsidian.App;
	private readonly workspace: Workspace;

	constructor(workspace: Workspace, app: obsidian.App) {
		this.workspace = workspace;
		this.app = app;
	}

	viewType(): string {
		return this.view?.getViewType() ?? "empty";
	}

	getViewState(): obsidian.ViewState {
		return { type: this.viewType() };
	}

	async setViewState(viewState: obsidian.ViewState): Promise<void> {
		const creator = this.workspace.viewCreator(viewState.type);
		if (creator === undefined) throw new Error(`The obsidian test double has no view type "${viewState.type}"`);
		await this.closeView();
		const view = creator(asObsidianLeaf(this));
		this.view = view;
		await doubleViewOf(view).open();
	}

	detach(): void {
		this.workspace.removeLeaf(this);
		void this.closeView();
	}

	getDisplayText(): string {
		return this.view?.getDisplayText() ?? "New tab";
	}

	private async closeView(): Promise<void> {
		const view = this.view;
		this.view = null;
		if (view !== null) await doubleViewOf(view).close();
	}
}

/** The double's leaf as Obsidian's type, for handing to plugin code. */
export function asObsidianLeaf(leaf: WorkspaceLeaf): obsidian.WorkspaceLeaf {
	return leaf as unknown as obsidian.WorkspaceLeaf;
}

/** The double's leaf behind one the plugin was handed. */
export function doubleLeafOf(leaf: obsidian.WorkspaceLeaf): WorkspaceLeaf {
	const candidate: unknown = leaf;
	if (!(candidate instanceof WorkspaceLeaf)) throw new Error("Not a leaf of the obsidian test double");
	return candidate;
}

/** The part of `FileManager` the plugin uses: `trashFile`, into the vault's `.trash` (Obsidian's default). */
export class FileManager implements Pick<obsidian.FileManager, "trashFile"> {
	constructor(private readonly vault: Vault) {}

	async trashFile(file: TAbstractFile): Promise<void> {
		await this.vault.trash(file, false);
	}
}

/** How the double's app is made. */
export interface AppOptions {
	/** The vault's folder ignores case, as on macOS and Windows (`FileSystemAdapter.caseInsensitive`). */
	caseInsensitive?: boolean;
	/** How long the metadata cache takes to read a changed note again (`DEFAULT_METADATA_DELAY_MS`). */
	metadataDelayMs?: number;
}

/**
 * The app. It starts as Obsidian does, a moment after it is made (so that a plugin loaded at
 * once loads before the layout is ready, as plugins enabled at startup do): the vault sends a
 * `create` for every file and folder (the startup storm), then the layout is ready
 * (`onLayoutReady` callbacks, `layout-ready`), then the metadata cache reads every note and
 * resolves (`resolved`) after its delay. `started` resolves once the layout is ready.
 */
export class App implements Pick<obsidian.App, "isDarkMode"> {
	readonly vault: Vault;
	readonly workspace: Workspace;
	readonly metadataCache: MetadataCache;
	readonly fileManager: FileManager;
	readonly started: Promise<void>;

	constructor(vaultPath: string, options: AppOptions = {}) {
		this.vault = new Vault(vaultPath, options.caseInsensitive ?? false);
		this.workspace = new Workspace(asObsidianApp(this));
		this.metadataCache = new MetadataCache(this.vault, options.metadataDelayMs);
		this.fileManager = new FileManager(this.vault);
		this.started = new Promise((resolve) =>
			setTimeout(() => {
				this.startUp();
				resolve();
			}, 0),
		);
	}

	private startUp(): void {
		for (const file of this.vault.getAllLoadedFiles()) {
			if (file !== this.vault.getRoot()) this.vault.trigger("create", file);
		}
		this.workspace.setLayoutReady();
		this.metadataCache.startResolving();
	}

	isDarkMode(): boolean {
		return false;
	}
}

/** The double's plugin behind a plugin typed against Obsidian, for tests to read its commands. */
export function doublePluginOf(plugin: obsidian.Plugin): Plugin {
	const candidate: unknown = plugin;
	if (!(candidate instanceof Plugin)) throw new Error("Not a plugin of the obsidian test double");
	return candidate;
}

/**
 * The double's `App` as Obsidian's type, for handing to plugin code, which is typed against the
 * real API. The one cast between the two worlds lives here.
 */
export function asObsidianApp(app: App): obsidian.App {
	return app as unknown as obsidian.App;
}
