/**
 * A test double of the `obsidian` module: just enough of Obsidian's API, backed by a real
 * folder on disk, to load the plugin in Node. The test bundles and the test host alias
 * `obsidian` to this file.
 *
 * Each class is held to the real type definitions with `implements` (whole classes where they
 * are small, `Pick<…>` of the members the plugin uses where they are not), so a signature that
 * drifts from Obsidian's fails `tsc`. The import below is type-only and erased, so bundling this
 * file under the alias `obsidian` does not import itself.
 */

import type * as obsidian from "obsidian";
import * as fs from "fs";
import * as path from "path";

// ---------------------------------------------------------------------------------------------
// Events

/** What `Events.on` returns; Obsidian's `EventRef` is opaque, this is what the double keeps. */
interface DoubleEventRef extends obsidian.EventRef {
	readonly events: Events;
	readonly name: string;
	readonly callback: (...data: unknown[]) => unknown;
	readonly context: unknown;
}

export class Events implements obsidian.Events {
	private readonly listeners = new Map<string, DoubleEventRef[]>();

	on(name: string, callback: (...data: unknown[]) => unknown, ctx?: unknown): obsidian.EventRef {
		const ref: DoubleEventRef = { events: this, name, callback, context: ctx };
		const list = this.listeners.get(name) ?? [];
		list.push(ref);
		this.listeners.set(name, list);
		return ref;
	}

	off(name: string, callback: (...data: unknown[]) => unknown): void {
		const list = this.listeners.get(name);
		if (list === undefined) return;
		this.listeners.set(
			name,
			list.filter((ref) => ref.callback !== callback),
		);
	}

	offref(ref: obsidian.EventRef): void {
		const doubleRef = ref as DoubleEventRef;
		const list = this.listeners.get(doubleRef.name);
		if (list === undefined) return;
		this.listeners.set(
			doubleRef.name,
			list.filter((other) => other !== doubleRef),
		);
	}

	trigger(name: string, ...data: unknown[]): void {
		// A copy, so a listener that unsubscribes while being called does not skip its neighbour.
		for (const ref of [...(this.listeners.get(name) ?? [])]) this.tryTrigger(ref, data);
	}

	tryTrigger(evt: obsidian.EventRef, args: unknown[]): void {
		const ref = evt as DoubleEventRef;
		try {
			ref.callback.apply(ref.context, args);
		} catch (error) {
			// As Obsidian does: one failing listener must not stop the others, and the error is
			// rethrown on a later tick so it is not lost (in a test it fails the run loudly).
			setTimeout(() => {
				throw error;
			}, 0);
		}
	}

	/** How many listeners are subscribed to `name`; for tests of clean unloading. */
	listenerCount(name: string): number {
		return this.listeners.get(name)?.length ?? 0;
	}

	/** How many listeners are subscribed to any event; for tests of clean unloading. */
	totalListenerCount(): number {
		return [...this.listeners.values()].reduce((sum, list) => sum + list.length, 0);
	}
}

// ---------------------------------------------------------------------------------------------
// Paths and timing helpers

export function normalizePath(input: string): string {
	// Obsidian's rules: one forward slash between segments, none at either end, non-breaking
	// spaces become spaces, Unicode in NFC; the empty path is the root, "/".
	let result = input.replace(/([\\/])+/g, "/").replace(/(^\/+|\/+$)/g, "");
	if (result === "") result = "/";
	return result.replace(/\u00A0|\u202F/g, " ").normalize("NFC");
}

export const debounce: typeof obsidian.debounce = <T extends unknown[], V>(
	cb: (...args: [...T]) => V,
	timeout = 0,
	resetTimer = false,
): obsidian.Debouncer<T, V> => {
	// Obsidian's semantics: the call happens `timeout` ms after the first call of a burst (or
	// after the last one with `resetTimer`), once, with the arguments of the latest call.
	let timer: ReturnType<typeof setTimeout> | null = null;
	let pendingArgs: [...T] | null = null;
	const fire = (): V | void => {
		timer = null;
		const args = pendingArgs;
		pendingArgs = null;
		if (args !== null) return cb(...args);
	};
	const debounced = ((...args: [...T]) => {
		pendingArgs = args;
		if (timer !== null && resetTimer) {
			clearTimeout(timer);
			timer = null;
		}
		if (timer === null) timer = setTimeout(fire, timeout);
		return debounced;
	}) as obsidian.Debouncer<T, V>;
	debounced.cancel = () => {
		if (timer !== null) clearTimeout(timer);
		timer = null;
		pendingArgs = null;
		return debounced;
	};
	debounced.run = () => {
		if (timer === null) return;
		clearTimeout(timer);
		return fire();
	};
	return debounced;
};

// ---------------------------------------------------------------------------------------------
// Files

export abstract class TAbstractFile implements obsidian.TAbstractFile {
	// Typed as Obsidian's Vault so a double file is an Obsidian file to the type checker; at run
	// time it is the double's Vault, the only kind that exists here.
	vault: obsidian.Vault;
	path: string;
	name: string;
	parent: TFolder | null;

	constructor(vault: Vault, filePath: string, parent: TFolder | null) {
		this.vault = vault as unknown as obsidian.Vault;
		this.path = filePath;
		this.name = filePath === "/" ? "" : path.posix.basename(filePath);
		this.parent = parent;
	}

	/** Moves the file to `newPath`; the double's `Vault.rename` keeps its maps in step. */
	setPath(newPath: string, parent: TFolder | null): void {
		this.path = newPath;
		this.name = path.posix.basename(newPath);
		this.parent = parent;
	}
}

export class TFile extends TAbstractFile implements obsidian.TFile {
	stat: obsidian.FileStats;
	basename: string;
	extension: string;

	constructor(vault: Vault, filePath: string, parent: TFolder | null, stat: obsidian.FileStats) {
		super(vault, filePath, parent);
		this.stat = stat;
		this.basename = "";
		this.extension = "";
		this.updateNameParts();
	}

	override setPath(newPath: string, parent: TFolder | null): void {
		super.setPath(newPath, parent);
		this.updateNameParts();
	}

	private updateNameParts(): void {
		const dot = this.name.lastIndexOf(".");
		this.basename = dot > 0 ? this.name.slice(0, dot) : this.name;
		this.extension = dot > 0 ? this.name.slice(dot + 1) : "";
	}
}

export class TFolder extends TAbstractFile implements obsidian.TFolder {
	children: TAbstractFile[] = [];

	isRoot(): boolean {
		return this.path === "/";
	}
}

// ---------------------------------------------------------------------------------------------
// Adapter and vault

export class FileSystemAdapter
	implements
		Pick<obsidian.FileSystemAdapter, "getName" | "getBasePath" | "getFullPath" | "exists" | "stat" | "read" | "write" | "remove" | "mkdir" | "rmdir" | "list">
{
	private readonly basePath: string;
	/**
	 * As on macOS and Windows: the folder's filesystem ignores case, so `exists` finds `Note.md`
	 * when asked for `note.md` (unless `sensitive`, as Obsidian's parameter says), and the vault
	 * refuses to create or rename onto a name another file has but for case. The double emulates
	 * it on any filesystem.
	 */
	readonly caseInsensitive: boolean;

	constructor(basePath: string, caseInsensitive = false) {
		this.basePath = path.resolve(basePath);
		this.caseInsensitive = caseInsensitive;
	}

	getName(): string {
		return path.basename(this.basePath);
	}

	getBasePath(): string {
		return this.basePath;
	}

	getFullPath(normalizedPath: string): string {
		return normalizedPath === "/" ? this.basePath : path.join(this.basePath, ...normalizedPath.split("/"));
	}

	async exists(normalizedPath: string, sensitive = false): Promise<boolean> {
		if (this.caseInsensitive && !sensitive) return this.spelledOnDisk(normalizedPath) !== null;
		return fs.existsSync(this.getFullPath(normalizedPath));
	}

	/**
	 * How the entry at `normalizedPath` is spelt on disk when case is ignored (each segment
	 * matched without regard to case, an exact match first), or null when there is none.
	 */
	spelledOnDisk(normalizedPath: string): string | null {
		if (normalizedPath === "/" || normalizedPath === "") return "/";
		let spelled = "";
		for (const segment of normalizedPath.split("/")) {
			const folder = spelled === "" ? this.basePath : this.getFullPath(spelled);
			let names: string[];
			try {
				names = fs.readdirSync(folder);
			} catch {
				return null;
			}
			const match = names.includes(segment) ? segment : names.find((name) => name.toLowerCase() === segment.toLowerCase());
			if (match === undefined) return null;
			spelled = spelled === "" ? match : `${spelled}/${match}`;
		}
		return spelled;
	}

	async read(normalizedPath: string): Promise<string> {
		return fs.promises.readFile(this.getFullPath(normalizedPath), "utf8");
	}

	/** As Obsidian's: the file's bytes, whatever they hold. */
	async readBinary(normalizedPath: string): Promise<ArrayBuffer> {
		const bytes = await fs.promises.readFile(this.getFullPath(normalizedPath));
		return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
	}

	async write(normalizedPath: string, data: string): Promise<void> {
		const fullPath = this.getFullPath(normalizedPath);
		// Obsidian's adapter writes with Node's writeFile, which may interleave two writes of one
		// file under way at once and leave it garbled; the double refuses the overlap outright,
		// so a caller that does not wait for its last write is found every time, not by chance.
		if (this.writing.has(fullPath)) throw new Error(`${normalizedPath} is being written already: two writes of one file at once can interleave`);
		this.writing.add(fullPath);
		try {
			await fs.promises.mkdir(path.dirname(fullPath), { recursive: true });
			await fs.promises.writeFile(fullPath, data, "utf8");
		} finally {
			this.writing.delete(fullPath);
		}
	}

	/** Files with a write under way. */
	private readonly writing = new Set<string>();

	/**
	 * Obsidian watches the vault's folder, so a file or folder removed through the adapter leaves
	 * the vault's tree too (with `delete`); the double's vault sets this to hear of it.
	 */
	onRemoved: ((normalizedPath: string) => void) | null = null;

	/** As Obsidian's: the file's or folder's type, times and size, or `null` when nothing is there. */
	async stat(normalizedPath: string): Promise<obsidian.Stat | null> {
		try {
			const found = await fs.promises.stat(this.getFullPath(normalizedPath));
			return { type: found.isDirectory() ? "folder" : "file", ctime: found.ctimeMs, mtime: found.mtimeMs, size: found.size };
		} catch {
			return null;
		}
	}

	async remove(normalizedPath: string): Promise<void> {
		await fs.promises.rm(this.getFullPath(normalizedPath));
		this.onRemoved?.(normalizedPath);
	}

	async mkdir(normalizedPath: string): Promise<void> {
		await fs.promises.mkdir(this.getFullPath(normalizedPath), { recursive: true });
	}

	/** As Obsidian's: a folder that is not empty is removed only when `recursive`. */
	async rmdir(normalizedPath: string, recursive: boolean): Promise<void> {
		if (recursive) await fs.promises.rm(this.getFullPath(normalizedPath), { recursive: true });
		else await fs.promises.rmdir(this.getFullPath(normalizedPath));
		this.onRemoved?.(normalizedPath);
	}

	async list(normalizedPath: string): Promise<obsidian.ListedFiles> {
		const entries = await fs.promises.readdir(this.getFullPath(normalizedPath), { withFileTypes: true });
		const join = (name: string) => (normalizedPath === "/" || normalizedPath === "" ? name : `${normalizedPath}/${name}`);
		return {
			files: entries.filter((entry) => !entry.isDirectory()).map((entry) => join(entry.name)),
			folders: entries.filter((entry) => entry.isDirectory()).map((entry) => join(entry.name)),
		};
	}
}

function statOf(fullPath: string): obsidian.FileStats {
	const stat = fs.statSync(fullPath);
	return { ctime: stat.birthtimeMs || stat.ctimeMs, mtime: stat.mtimeMs, size: stat.size };
}

/** Whether the directory, or any below it, holds an entry whose name starts with ".". */
function hasHiddenEntries(fullPath: string): boolean {
	return fs
		.readdirSync(fullPath, { withFileTypes: true })
		.some((entry) => entry.name.startsWith(".") || (entry.isDirectory() && hasHiddenEntries(path.join(fullPath, entry.name))));
}

/** Vault operations a test can make fail with `Vault.failNext`. */
export type FailableOperation = "process" | "modify" | "rename" | "createFolder" | "delete";

interface InjectedFailure {
	operation: FailableOperation;
	path: string;
	remaining: number;
}

function parentPathOf(filePath: string): string {
	const slash = filePath.lastIndexOf("/");
	return slash < 0 ? "/" : filePath.slice(0, slash);
}

/**
 * The vault: a tree of `TFile`/`TFolder` mirroring a folder on disk. Mutations write the files
 * and trigger the events Obsidian triggers (`create`, `modify`, `delete`, `rename` with the old
 * path). Files and folders whose names start with "." are hidden, as in Obsidian.
 */
export class Vault
	extends Events
	implements
		Pick<
			obsidian.Vault,
			| "configDir"
			| "getName"
			| "getFiles"
			| "getMarkdownFiles"
			| "getAllLoadedFiles"
			| "getAbstractFileByPath"
			| "getFileByPath"
			| "getFolderByPath"
			| "getRoot"
			| "cachedRead"
			| "read"
			| "create"
			| "createFolder"
			| "modify"
			| "process"
			| "append"
			| "delete"
			| "rename"
			| "on"
		>
{
	readonly adapter: FileSystemAdapter;
	configDir = ".obsidian";
	private readonly root: TFolder;
	private readonly byPath = new Map<string, TAbstractFile>();
	private readonly injectedFailures: InjectedFailure[] = [];
	/**
	 * Obsidian's own parts that follow the vault (the metadata cache, open editors). Told of every
	 * event before the listeners are, and not listeners themselves, so that tests counting a
	 * plugin's listeners count only the plugin's.
	 */
	private readonly observers: ((name: string, data: unknown[]) => void)[] = [];

	constructor(basePath: string, caseInsensitive = false) {
		super();
		this.adapter = new FileSystemAdapter(basePath, caseInsensitive);
		this.root = new TFolder(this, "/", null);
		this.byPath.set("/", this.root);
		this.scan(this.root);
		this.adapter.onRemoved = (removed) => {
			const file = this.byPath.get(normalizePath(removed));
			if (file !== undefined && file !== this.root) this.forget(file);
		};
	}

	/**
	 * Lists a folder as Obsidian's desktop adapter does, symbolic links and junctions included: a
	 * link to a folder is shown as an ordinary folder and a link to a file as an ordinary file,
	 * and every later read, write, rename or delete follows it wherever it leads (Obsidian's help,
	 * "Symbolic links and junctions"). As there, a link whose target overlaps the vault (the vault
	 * itself, a folder above it or one inside it) or another link's target is ignored, and so is
	 * a link that leads nowhere.
	 */
	private scan(folder: TFolder): void {
		const entries = fs.readdirSync(this.adapter.getFullPath(folder.path), { withFileTypes: true });
		entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
		for (const entry of entries) {
			if (entry.name.startsWith(".")) continue;
			const childPath = folder.isRoot() ? entry.name : `${folder.path}/${entry.name}`;
			const fullPath = this.adapter.getFullPath(childPath);
			let kind: "folder" | "file" | null = entry.isDirectory() ? "folder" : entry.isFile() ? "file" : null;
			if (entry.isSymbolicLink()) kind = this.followedLink(fullPath);
			if (kind === "folder") {
				const child = new TFolder(this, childPath, folder);
				this.attach(child);
				this.scan(child);
			} else if (kind === "file") {
				this.attach(new TFile(this, childPath, folder, statOf(fullPath)));
			}
		}
	}

	/** The real targets of the links to folders the vault shows, to keep them disjoint. */
	private readonly linkTargets: string[] = [];

	/** What the link at `fullPath` shows as, following it; null when it is ignored. */
	private followedLink(fullPath: string): "folder" | "file" | null {
		const target = fs.statSync(fullPath, { throwIfNoEntry: false });
		if (target === undefined) return null;
		if (target.isFile()) return "file";
		if (!target.isDirectory()) return null;
		const real = fs.realpathSync(fullPath);
		const overlaps = (other: string) => real === other || real.startsWith(other + path.sep) || other.startsWith(real + path.sep);
		if (overlaps(fs.realpathSync(this.adapter.getBasePath())) || this.linkTargets.some(overlaps)) return null;
		this.linkTargets.push(real);
		return "folder";
	}

	private attach(file: TAbstractFile): void {
		this.byPath.set(file.path, file);
		file.parent?.children.push(file);
	}

	private detach(file: TAbstractFile): void {
		this.byPath.delete(file.path);
		if (file.parent !== null) file.parent.children = file.parent.children.filter((child) => child !== file);
	}

	override on(name: "create" | "modify" | "delete", callback: (file: TAbstractFile) => unknown, ctx?: unknown): obsidian.EventRef;
	override on(name: "rename", callback: (file: TAbstractFile, oldPath: string) => unknown, ctx?: unknown): obsidian.EventRef;
	override on(name: string, callback: (...data: unknown[]) => unknown, ctx?: unknown): obsidian.EventRef;
	override on(name: string, callback: (...data: never[]) => unknown, ctx?: unknown): obsidian.EventRef {
		// The vault's events pass what the overloads above say; Events stores callbacks untyped.
		return super.on(name, callback as (...data: unknown[]) => unknown, ctx);
	}

	override trigger(name: string, ...data: unknown[]): void {
		for (const observer of [...this.observers]) observer(name, data);
		super.trigger(name, ...data);
	}

	/** Tells `observer` of every event of the vault from now on (see `observers`). */
	observe(observer: (name: string, data: unknown[]) => void): () => void {
		this.observers.push(observer);
		return () => this.observers.splice(this.observers.indexOf(observer), 1);
	}

	/** Another file or folder spelt like `normalized` but for case, on a case-insensitive adapter. */
	private caseVariantOf(normalized: string, except?: TAbstractFile): TAbstractFile | null {
		if (!this.adapter.caseInsensitive) return null;
		const lower = normalized.toLowerCase();
		for (const [filePath, file] of this.byPath) {
			if (file !== except && filePath.toLowerCase() === lower) return file;
		}
		return null;
	}

	getName(): string {
		return this.adapter.getName();
	}

	getRoot(): TFolder {
		return this.root;
	}

	getAllLoadedFiles(): TAbstractFile[] {
		return [...this.byPath.values()];
	}

	getFiles(): TFile[] {
		return [...this.byPath.values()].filter((file): file is TFile => file instanceof TFile);
	}

	getMarkdownFiles(): TFile[] {
		return this.getFiles().filter((file) => file.extension === "md");
	}

	getAbstractFileByPath(filePath: string): TAbstractFile | null {
		return this.byPath.get(normalizePath(filePath)) ?? null;
	}

	getFileByPath(filePath: string): TFile | null {
		const file = this.getAbstractFileByPath(filePath);
		return file instanceof TFile ? file : null;
	}

	getFolderByPath(filePath: string): TFolder | null {
		const file = this.getAbstractFileByPath(filePath);
		return file instanceof TFolder ? file : null;
	}

	async cachedRead(file: TFile): Promise<string> {
		return this.read(file);
	}

	async read(file: TFile): Promise<string> {
		return this.adapter.read(file.path);
	}

	/**
	 * Makes the next `times` calls of `operation` on `filePath` (for `rename`, the path being
	 * moved) throw before they change anything, as a full disk or a locked file would. For tests
	 * of what a caller does when the vault refuses a step.
	 */
	failNext(operation: FailableOperation, filePath: string, times = 1): void {
		this.injectedFailures.push({ operation, path: normalizePath(filePath), remaining: times });
	}

	private throwIfInjected(operation: FailableOperation, filePath: string): void {
		const failure = this.injectedFailures.find((entry) => entry.operation === operation && entry.path === filePath);
		if (failure === undefined) return;
		failure.remaining -= 1;
		if (failure.remaining <= 0) this.injectedFailures.splice(this.injectedFailures.indexOf(failure), 1);
		throw new Error(`${operation} of ${filePath} failed (a failure injected by the test)`);
	}

	async create(filePath: string, data: string): Promise<TFile> {
		const normalized = normalizePath(filePath);
		if (this.byPath.has(normalized) || this.caseVariantOf(normalized) !== null) throw new Error(`File already exists: ${normalized}`);
		// Obsidian checks the disk too: a file there that the vault has not listed yet (written a
		// moment ago by a sync or another program) fails the create with "File already exists."
		// rather than being replaced (obsidian-livesync#802, obsidian-gemini#288).
		if (await this.adapter.exists(normalized)) throw new Error("File already exists.");
		const parent = await this.ensureFolder(parentPathOf(normalized));
		await this.adapter.write(normalized, data);
		const file = new TFile(this, normalized, parent, statOf(this.adapter.getFullPath(normalized)));
		this.attach(file);
		this.trigger("create", file);
		return file;
	}

	/**
	 * Creates the folder and any missing parents, each with its `create` event. As in Obsidian,
	 * a folder that already exists is an error.
	 */
	async createFolder(folderPath: string): Promise<TFolder> {
		const normalized = normalizePath(folderPath);
		if (this.byPath.has(normalized)) throw new Error(`Folder already exists: ${normalized}`);
		this.throwIfInjected("createFolder", normalized);
		return this.ensureFolder(normalized);
	}

	/** The folder at `folderPath`, created with any missing parents if it is not there. */
	private async ensureFolder(folderPath: string): Promise<TFolder> {
		const normalized = normalizePath(folderPath);
		const existing = this.byPath.get(normalized);
		if (existing instanceof TFolder) return existing;
		if (existing !== undefined) throw new Error(`A file is in the way of folder ${normalized}`);
		const parent = await this.ensureFolder(parentPathOf(normalized));
		await fs.promises.mkdir(this.adapter.getFullPath(normalized), { recursive: true });
		const folder = new TFolder(this, normalized, parent);
		this.attach(folder);
		this.trigger("create", folder);
		return folder;
	}

	async modify(file: TFile, data: string): Promise<void> {
		this.assertKnown(file);
		this.throwIfInjected("modify", file.path);
		await this.inTurn(file, () => this.write(file, data));
	}

	/**
	 * Reads the file, writes what `fn` makes of it, and returns that; nothing is written if `fn`
	 * throws. Atomic with respect to the vault's own writes of the file, as obsidian.d.ts says
	 * ("Atomically read, modify, and save"): a `modify` or `process` of the same file made
	 * meanwhile waits for it, instead of landing between its read and its write.
	 */
	async process(file: TFile, fn: (data: string) => string): Promise<string> {
		this.assertKnown(file);
		this.throwIfInjected("process", file.path);
		return this.inTurn(file, async () => {
			const data = fn(await this.read(file));
			await this.write(file, data);
			return data;
		});
	}

	/** Runs `change` once every vault write of `file` begun before it is done: one at a time. */
	private async inTurn<T>(file: TFile, change: () => Promise<T>): Promise<T> {
		const before = this.turns.get(file) ?? Promise.resolve();
		const mine = before.then(change, change);
		const settled = mine.then(
			() => undefined,
			() => undefined,
		);
		this.turns.set(file, settled);
		try {
			return await mine;
		} finally {
			if (this.turns.get(file) === settled) this.turns.delete(file);
		}
	}

	/** The last vault write of each file under way. */
	private readonly turns = new Map<TFile, Promise<void>>();

	private async write(file: TFile, data: string): Promise<void> {
		await this.adapter.write(file.path, data);
		file.stat = statOf(this.adapter.getFullPath(file.path));
		this.trigger("modify", file);
	}

	async append(file: TFile, data: string): Promise<void> {
		await this.modify(file, (await this.read(file)) + data);
	}

	/**
	 * Deletes a file, or a folder with everything in it. Without `force`, a folder holding hidden
	 * files (names starting with ".", which the vault does not list) is refused, as Obsidian's
	 * `force` parameter describes.
	 */
	async delete(file: TAbstractFile, force = false): Promise<void> {
		this.assertKnown(file);
		if (file.path === "/") throw new Error("The vault's root cannot be deleted");
		this.throwIfInjected("delete", file.path);
		if (file instanceof TFolder && !force && hasHiddenEntries(this.adapter.getFullPath(file.path))) {
			throw new Error(`Folder ${file.path} holds hidden files; pass force to delete them too`);
		}
		await fs.promises.rm(this.adapter.getFullPath(file.path), { recursive: true, force: true });
		this.forget(file);
	}

	/**
	 * Moves a file to the trash: the system's (`system`), which the double keeps as the vault's
	 * own `.trash` too, since a test must be able to look. Triggers `delete`, as Obsidian does.
	 */
	async trash(file: TAbstractFile, system: boolean): Promise<void> {
		void system;
		this.assertKnown(file);
		this.throwIfInjected("delete", file.path);
		const trash = this.adapter.getFullPath(".trash");
		await fs.promises.mkdir(trash, { recursive: true });
		let target = `${trash}/${file.name}`;
		for (let number = 2; fs.existsSync(target); number++) {
			const dot = file.name.lastIndexOf(".");
			target = dot > 0 ? `${trash}/${file.name.slice(0, dot)} ${number}${file.name.slice(dot)}` : `${trash}/${file.name} ${number}`;
		}
		await fs.promises.rename(this.adapter.getFullPath(file.path), target);
		this.forget(file);
	}

	/** Drops a deleted file or folder from the tree, children first, each with `delete`. */
	private forget(file: TAbstractFile): void {
		if (file instanceof TFolder) for (const child of [...file.children]) this.forget(child);
		this.detach(file);
		this.trigger("delete", file);
	}

	async rename(file: TAbstractFile, newPath: string): Promise<void> {
		this.assertKnown(file);
		const normalized = normalizePath(newPath);
		// On a case-insensitive adapter a name another file has but for case is taken too; the
		// file's own name in another case is not (a rename that changes only case).
		if (this.byPath.has(normalized) || this.caseVariantOf(normalized, file) !== null) throw new Error(`Destination file already exists: ${normalized}`);
		this.throwIfInjected("rename", file.path);
		const parent = await this.ensureFolder(parentPathOf(normalized));
		await fs.promises.rename(this.adapter.getFullPath(file.path), this.adapter.getFullPath(normalized));
		this.move(file, normalized, parent);
	}

	/** Re-keys a renamed file or folder; a folder's descendants get their own `rename`, as in Obsidian. */
	private move(file: TAbstractFile, newPath: string, parent: TFolder): void {
		const oldPath = file.path;
		this.detach(file);
		file.setPath(newPath, parent);
		this.attach(file);
		if (file instanceof TFolder) {
			for (const child of [...file.children]) {
				file.children = file.children.filter((other) => other !== child);
				this.move(child, `${newPath}/${child.name}`, file);
			}
		}
		this.trigger("rename", file, oldPath);
	}

	private assertKnown(file: TAbstractFile): void {
		if (this.byPath.get(file.path) !== file) throw new Error(`Not a file of this vault: ${file.path}`);
	}

	/**
	 * Tells the vault what changed on the disk behind it (`mv`, `cp`, an editor, a sync client),
	 * as Obsidian's file watcher does: it sees paths, not moves, so a file moved outside Obsidian
	 * is a `delete` of the old file and a `create` of a new one, never a `rename` (that event is
	 * only for moves made through Obsidian). A folder moved is a `delete` of each file and folder
	 * in it, children first, then a `create` of the folder and of each file and folder in it,
	 * parents first. A file whose size or modification time changed gets `modify`. Hidden entries
	 * are not listed, as in `scan`.
	 */
	noticeDiskChanges(): void {
		const onDisk = new Map<string, "folder" | "file">();
		const list = (folderPath: string) => {
			const full = folderPath === "" ? this.adapter.getBasePath() : this.adapter.getFullPath(folderPath);
			for (const entry of fs.readdirSync(full, { withFileTypes: true })) {
				if (entry.name.startsWith(".")) continue;
				const childPath = folderPath === "" ? entry.name : `${folderPath}/${entry.name}`;
				const found = fs.statSync(this.adapter.getFullPath(childPath), { throwIfNoEntry: false });
				if (found?.isDirectory()) {
					onDisk.set(childPath, "folder");
					list(childPath);
				} else if (found?.isFile()) {
					onDisk.set(childPath, "file");
				}
			}
		};
		list("");
		const kindOf = (file: TAbstractFile) => (file instanceof TFolder ? "folder" : "file");
		const gone = [...this.byPath.values()].filter((file) => file !== this.root && onDisk.get(file.path) !== kindOf(file));
		// The topmost of what is gone: `forget` takes a folder's children with it, each with its event.
		for (const file of gone.sort((a, b) => (a.path < b.path ? -1 : 1))) {
			if (this.byPath.get(file.path) === file) this.forget(file);
		}
		for (const [filePath, kind] of [...onDisk].sort(([a], [b]) => (a < b ? -1 : 1))) {
			const known = this.byPath.get(filePath);
			if (known instanceof TFile) {
				const stat = statOf(this.adapter.getFullPath(filePath));
				if (stat.mtime === known.stat.mtime && stat.size === known.stat.size) continue;
				known.stat = stat;
				this.trigger("modify", known);
				continue;
			}
			if (known !== undefined) continue;
			const parent = this.byPath.get(parentPathOf(filePath));
			if (!(parent instanceof TFolder)) throw new Error(`The double found ${filePath} on the disk without its folder`);
			const file = kind === "folder" ? new TFolder(this, filePath, parent) : new TFile(this, filePath, parent, statOf(this.adapter.getFullPath(filePath)));
			this.attach(file);
			this.trigger("create", file);
		}
	}
}

// ---------------------------------------------------------------------------------------------
// App, workspace, metadata

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

// ---------------------------------------------------------------------------------------------
// Components and plugins

export class Component implements obsidian.Component {
	private loaded = false;
	private readonly cleanups: (() => unknown)[] = [];
	private readonly children: Component[] = [];

	load(): void {
		if (this.loaded) return;
		this.loaded = true;
		this.onload();
		for (const child of this.children) child.load();
	}

	onload(): void {}

	unload(): void {
		if (!this.loaded) return;
		this.loaded = false;
		while (this.children.length > 0) this.children.pop()?.unload();
		while (this.cleanups.length > 0) this.cleanups.pop()?.();
		this.onunload();
	}

	onunload(): void {}

	addChild<T extends obsidian.Component>(component: T): T {
		const child = component as unknown as Component;
		this.children.push(child);
		if (this.loaded) child.load();
		return component;
	}

	removeChild<T extends obsidian.Component>(component: T): T {
		const child = component as unknown as Component;
		const index = this.children.indexOf(child);
		if (index >= 0) {
			this.children.splice(index, 1);
			child.unload();
		}
		return component;
	}

	register(cb: () => unknown): void {
		this.cleanups.push(cb);
	}

	registerEvent(eventRef: obsidian.EventRef): void {
		const ref = eventRef as DoubleEventRef;
		this.register(() => ref.events.offref(ref));
	}

	registerDomEvent<K extends keyof WindowEventMap>(el: Window, type: K, callback: (this: HTMLElement, ev: WindowEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
	registerDomEvent<K extends keyof DocumentEventMap>(el: Document, type: K, callback: (this: HTMLElement, ev: DocumentEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
	registerDomEvent<K extends keyof HTMLElementEventMap>(el: HTMLElement, type: K, callback: (this: HTMLElement, ev: HTMLElementEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
	/** Listens on one of the double's elements until the component unloads; it has no window or document. */
	registerDomEvent(el: Window | Document | HTMLElement, type: string, callback: (this: HTMLElement, ev: never) => unknown, options?: boolean | AddEventListenerOptions): void {
		const candidate: unknown = el;
		if (!(candidate instanceof FakeElement)) throw new Error("The obsidian test double has no window or document to listen on");
		candidate.addEventListener(type, callback, options);
		this.register(() => candidate.removeEventListener(type, callback, options));
	}

	registerInterval(id: number): number {
		this.register(() => clearInterval(id));
		return id;
	}
}

export abstract class Plugin
	extends Component
	implements
		Pick<obsidian.Plugin, "manifest" | "addCommand" | "removeCommand" | "loadData" | "saveData" | "registerView" | "addStatusBarItem" | "addSettingTab">
{
	readonly app: App;
	manifest: obsidian.PluginManifest;
	/** Commands added with `addCommand`, by id; tests look them up here. */
	readonly commands = new Map<string, obsidian.Command>();
	/** Status-bar items added with `addStatusBarItem` and not yet removed, oldest first; tests read them here. */
	readonly statusBarItems: FakeElement[] = [];
	/** Setting tabs added with `addSettingTab` and not yet removed; tests open them here. */
	readonly settingTabs: PluginSettingTab[] = [];

	constructor(app: App, manifest: obsidian.PluginManifest) {
		super();
		this.app = app;
		this.manifest = manifest;
	}

	addCommand(command: obsidian.Command): obsidian.Command {
		this.commands.set(command.id, command);
		return command;
	}

	removeCommand(commandId: string): void {
		this.commands.delete(commandId);
	}

	registerView(type: string, viewCreator: obsidian.ViewCreator): void {
		this.app.workspace.registerViewType(type, viewCreator);
		this.register(() => this.app.workspace.unregisterViewType(type));
	}

	/** A status-bar item, removed when the plugin unloads, as in Obsidian. */
	addStatusBarItem(): HTMLElement {
		const item = new FakeElement("div");
		item.addClass("status-bar-item");
		this.statusBarItems.push(item);
		this.register(() => this.statusBarItems.splice(this.statusBarItems.indexOf(item), 1));
		return asHTMLElement(item);
	}

	/** A setting tab, removed when the plugin unloads, as in Obsidian. */
	addSettingTab(settingTab: obsidian.PluginSettingTab): void {
		const candidate: unknown = settingTab;
		if (!(candidate instanceof PluginSettingTab)) throw new Error("Not a setting tab of the obsidian test double");
		this.settingTabs.push(candidate);
		this.register(() => this.settingTabs.splice(this.settingTabs.indexOf(candidate), 1));
	}

	/** Where Obsidian keeps the plugin's data: `<configDir>/plugins/<id>/data.json` in the vault. */
	get dataPath(): string {
		return `${this.app.vault.configDir}/plugins/${this.manifest.id}/data.json`;
	}

	/** The plugin's `data.json` parsed, or null when there is none; text that is not JSON rejects. */
	async loadData(): Promise<unknown> {
		const adapter = this.app.vault.adapter;
		if (!(await adapter.exists(this.dataPath))) return null;
		return JSON.parse(await adapter.read(this.dataPath)) as unknown;
	}

	async saveData(data: unknown): Promise<void> {
		await this.app.vault.adapter.write(this.dataPath, JSON.stringify(data, null, 2));
	}
}

// ---------------------------------------------------------------------------------------------
// Views

/**
 * A view in a leaf. Obsidian's `onOpen` and `onClose` are protected; the double's leaf calls
 * them through `open` and `close`, which load and unload the view as Obsidian does.
 */
export abstract class View
	extends Component
	implements Pick<obsidian.View, "app" | "icon" | "navigation" | "leaf" | "containerEl" | "scope" | "getViewType" | "getDisplayText" | "getIcon">
{
	app: obsidian.App;
	icon = "";
	navigation = false;
	leaf: obsidian.WorkspaceLeaf;
	containerEl: HTMLElement = asHTMLElement(new FakeElement("div"));
	scope: obsidian.Scope | null = null;

	constructor(leaf: obsidian.WorkspaceLeaf) {
		super();
		this.leaf = leaf;
		this.app = doubleLeafOf(leaf).app;
	}

	abstract getViewType(): string;
	abstract getDisplayText(): string;

	getIcon(): string {
		return this.icon;
	}

	async onOpen(): Promise<void> {}

	async onClose(): Promise<void> {}

	/** Loads the view and opens it, as a leaf does. */
	async open(): Promise<void> {
		this.load();
		await this.onOpen();
	}

	/** Closes the view and unloads it, as a leaf does. */
	async close(): Promise<void> {
		await this.onClose();
		this.unload();
	}
}

/** A view with a header and a content element, as plugins' own views are. */
export abstract class ItemView extends View implements Pick<obsidian.ItemView, "contentEl"> {
	contentEl: HTMLElement;

	constructor(leaf: obsidian.WorkspaceLeaf) {
		super(leaf);
		this.containerEl.createDiv({ cls: "view-header" });
		this.contentEl = this.containerEl.createDiv({ cls: "view-content" });
	}
}

/**
 * The editor of a `MarkdownView`: its text, which the test types into. What is typed stays in
 * the view until it is saved: `requestSave` saves it `EDITOR_SAVE_DELAY_MS` after the last
 * change, as Obsidian's editor does, and `view.save()` saves it at once.
 */
export class Editor implements Pick<obsidian.Editor, "getValue" | "setValue"> {
	constructor(private readonly view: MarkdownView) {}

	getValue(): string {
		return this.view.getViewData();
	}

	/** Replaces the text, as typing does: unsaved until the view saves it. */
	setValue(content: string): void {
		this.view.data = content;
		this.view.requestSave();
	}
}

/**
 * A note open in a Markdown editor (Obsidian's `MarkdownView`, a `TextFileView`). It keeps the
 * text in memory (`data`); a save writes it with `vault.modify`. A change to the file on disk
 * while nothing is unsaved is shown in the editor; with unsaved text, the editor keeps its own,
 * and its save, when it comes, writes over what is on disk, as in Obsidian.
 */
export class MarkdownView
	extends ItemView
	implements Pick<obsidian.MarkdownView, "file" | "data" | "requestSave" | "save" | "getViewData" | "setViewData" | "clear" | "getViewType" | "getDisplayText">
{
	file: TFile | null = null;
	data = "";
	readonly editor: Editor = new Editor(this);
	/** The text last read from or written to the file. */
	private savedData = "";
	private readonly saveLater: obsidian.Debouncer<[], Promise<void>> = debounce(() => this.save(), EDITOR_SAVE_DELAY_MS, true);
	private stopFollowing: (() => void) | null = null;

	/** Saves `EDITOR_SAVE_DELAY_MS` after the last call. */
	requestSave = (): void => {
		this.saveLater();
	};

	getViewType(): string {
		return "markdown";
	}

	getDisplayText(): string {
		return this.file?.basename ?? "No file";
	}

	getViewData(): string {
		return this.data;
	}

	setViewData(data: string, clear: boolean): void {
		void clear;
		this.data = data;
	}

	clear(): void {
		this.data = "";
	}

	/** Whether the editor holds text not yet saved to the file. */
	get dirty(): boolean {
		return this.data !== this.savedData;
	}

	/** Opens `file` in the editor. */
	async loadFile(file: TFile): Promise<void> {
		const vault = doubleVaultOf(file);
		this.file = file;
		this.savedData = await vault.read(file);
		this.setViewData(this.savedData, true);
		this.stopFollowing?.();
		this.stopFollowing = vault.observe((name, data) => {
			if (name !== "modify" || data[0] !== this.file || this.dirty) return;
			void vault.read(file).then((text) => {
				if (this.dirty) return;
				this.savedData = text;
				this.setViewData(text, false);
			});
		});
	}

	/** Writes the editor's text to the file when it differs from what was saved. */
	async save(clear?: boolean): Promise<void> {
		void clear;
		this.saveLater.cancel();
		const file = this.file;
		if (file === null || !this.dirty) return;
		const data = this.data;
		await doubleVaultOf(file).modify(file, data);
		this.savedData = data;
	}

	override async onClose(): Promise<void> {
		// Obsidian saves an editor as it closes.
		await this.save();
		this.stopFollowing?.();
		this.stopFollowing = null;
	}
}

function doubleVaultOf(file: TFile): Vault {
	const candidate: unknown = file.vault;
	if (!(candidate instanceof Vault)) throw new Error("Not a file of the obsidian test double");
	return candidate;
}

/** A view of the double as Obsidian's type, for a test's own view creator to return. */
export function asObsidianView(view: View): obsidian.View {
	return view as unknown as obsidian.View;
}

/** The double's view behind one a creator made. */
export function doubleViewOf(view: obsidian.View): View {
	const candidate: unknown = view;
	if (!(candidate instanceof View)) throw new Error("Not a view of the obsidian test double");
	return candidate;
}

// ---------------------------------------------------------------------------------------------
// Elements

/** A listener added with `addEventListener`, as the double calls it. */
type FakeListener = (this: HTMLElement, ev: never) => unknown;

/**
 * A keyboard event as the double dispatches it: the fields handlers read, and the two calls
 * they make. Handed to plugin code as Obsidian's `KeyboardEvent`.
 */
export class FakeKeyboardEvent {
	readonly type = "keydown";
	readonly key: string;
	readonly target: FakeElement | null;
	currentTarget: FakeElement | null = null;
	readonly shiftKey = false;
	readonly ctrlKey = false;
	readonly altKey = false;
	readonly metaKey = false;
	defaultPrevented = false;
	propagationStopped = false;

	constructor(key: string, target: FakeElement | null) {
		this.key = key;
		this.target = target;
	}

	preventDefault(): void {
		this.defaultPrevented = true;
	}

	stopPropagation(): void {
		this.propagationStopped = true;
	}
}

/** The element that has the keyboard focus, as `document.activeElement`; null for the body. */
let activeFakeElement: FakeElement | null = null;

/** The element with the keyboard focus, or null when nothing has it. */
export function activeElement(): FakeElement | null {
	return activeFakeElement;
}

/**
 * Presses `key` as a user would, for tests: a `keydown` goes to the focused element and bubbles
 * up through its ancestors; then, as Obsidian's keymap does, the handlers of `scope` (a
 * modal's) run, and one returning false prevents the default; last, unless prevented, Enter
 * on a focused button clicks it, as browsers do.
 */
export function pressKey(key: string, scope?: Scope): FakeKeyboardEvent {
	const target = activeFakeElement;
	const event = new FakeKeyboardEvent(key, target);
	for (let element = target; element !== null && !event.propagationStopped; element = element.parent) {
		event.currentTarget = element;
		element.fire(event);
	}
	event.currentTarget = null;
	if (scope !== undefined && !event.defaultPrevented) scope.handle(event);
	if (!event.defaultPrevented && key === "Enter" && target?.tag === "button") target.click();
	return event;
}

/**
 * The few members of Obsidian's `HTMLElement` helpers that the plugin's views use, recorded as a
 * tree so tests can read what was rendered. It is not a DOM: anything else throws. It keeps
 * the keyboard focus (one element at a time, as a document does), `keydown` listeners, and
 * serialises to HTML for the DOM snapshots.
 */
export class FakeElement
	implements
		Pick<
			HTMLElement,
			| "createEl"
			| "createDiv"
			| "createSpan"
			| "setText"
			| "getText"
			| "tagName"
			| "empty"
			| "addClass"
			| "removeClass"
			| "hasClass"
			| "setAttr"
			| "getAttr"
			| "focus"
			| "blur"
			| "click"
			| "onClickEvent"
			| "addEventListener"
			| "removeEventListener"
		>,
		Pick<HTMLInputElement, "value" | "select" | "setSelectionRange" | "selectionStart" | "selectionEnd">
{
	readonly tag: string;
	readonly classes: string[] = [];
	readonly attributes = new Map<string, string>();
	readonly children: FakeElement[] = [];
	/** The element this one was created in; null for a root, or once removed by `empty`. */
	parent: FakeElement | null = null;
	/** An input's value. */
	value = "";
	/** An input's selection, as UTF-16 offsets into `value`. */
	selectionStart: number | null = null;
	selectionEnd: number | null = null;
	/** True while the element has the keyboard focus. */
	focused = false;
	/** What a click does; `onClickEvent` and the double's `ButtonComponent.onClick` set it. */
	clickAction: ((evt: MouseEvent) => unknown) | null = null;
	/** What typing into a field does besides setting its value: its component's change callbacks. */
	inputAction: (() => unknown) | null = null;
	/** The element's own text, set by `setText` or `{text}`; children come after it. */
	private ownText = "";
	private readonly listeners: { type: string; listener: FakeListener }[] = [];

	constructor(tag: string) {
		this.tag = tag;
	}

	/** The tag in upper case, as the DOM gives an HTML element's `tagName`. */
	get tagName(): string {
		return this.tag.toUpperCase();
	}

	createEl<K extends keyof HTMLElementTagNameMap>(
		tag: K,
		o?: DomElementInfo | string,
		callback?: (el: HTMLElementTagNameMap[K]) => void,
	): HTMLElementTagNameMap[K] {
		const child = new FakeElement(tag);
		child.apply(typeof o === "string" ? { cls: o } : (o ?? {}));
		child.parent = this;
		this.children.push(child);
		const element = asHTMLElement<HTMLElementTagNameMap[K]>(child);
		callback?.(element);
		return element;
	}

	createDiv(o?: DomElementInfo | string, callback?: (el: HTMLDivElement) => void): HTMLDivElement {
		return this.createEl("div", o, callback);
	}

	createSpan(o?: DomElementInfo | string, callback?: (el: HTMLSpanElement) => void): HTMLSpanElement {
		return this.createEl("span", o, callback);
	}

	setText(val: string | DocumentFragment): void {
		if (typeof val !== "string") throw new Error("The obsidian test double has no DocumentFragment");
		this.removeChildren();
		this.ownText = val;
	}

	/** The text of the element and its descendants, as `textContent` would give it. */
	getText(): string {
		return this.ownText + this.children.map((child) => child.getText()).join("");
	}

	empty(): void {
		this.removeChildren();
		this.ownText = "";
	}

	/** Detaches every child; a focused descendant loses the focus, as a removed element does. */
	private removeChildren(): void {
		for (const child of this.children) child.parent = null;
		if (activeFakeElement !== null && this.children.some((child) => child.contains(activeFakeElement))) {
			activeFakeElement.blur();
		}
		this.children.length = 0;
	}

	/** Whether `other` is this element or one of its descendants. */
	contains(other: FakeElement | null): boolean {
		for (let element = other; element !== null; element = element.parent) if (element === this) return true;
		return false;
	}

	addClass(...classes: string[]): void {
		for (const cls of classes) if (!this.classes.includes(cls)) this.classes.push(cls);
	}

	removeClass(...classes: string[]): void {
		for (const cls of classes) {
			const index = this.classes.indexOf(cls);
			if (index >= 0) this.classes.splice(index, 1);
		}
	}

	hasClass(cls: string): boolean {
		return this.classes.includes(cls);
	}

	setAttr(qualifiedName: string, value: string | number | boolean | null): void {
		if (value === null) this.attributes.delete(qualifiedName);
		else this.attributes.set(qualifiedName, String(value));
	}

	getAttr(qualifiedName: string): string | null {
		return this.attributes.get(qualifiedName) ?? null;
	}

	/** Takes the keyboard focus from whichever element had it. */
	focus(): void {
		if (activeFakeElement !== null && activeFakeElement !== this) activeFakeElement.focused = false;
		activeFakeElement = this;
		this.focused = true;
	}

	blur(): void {
		if (activeFakeElement === this) activeFakeElement = null;
		this.focused = false;
	}

	addEventListener(type: string, listener: FakeListener | EventListenerOrEventListenerObject | null, options?: boolean | AddEventListenerOptions): void {
		void options;
		if (type !== "keydown") throw new Error(`The obsidian test double dispatches keydown events only, not ${type}`);
		if (typeof listener !== "function") throw new Error("The obsidian test double takes listener functions only");
		const fn = listener as FakeListener;
		if (!this.listeners.some((entry) => entry.type === type && entry.listener === fn)) this.listeners.push({ type, listener: fn });
	}

	removeEventListener(type: string, listener: FakeListener | EventListenerOrEventListenerObject | null, options?: boolean | EventListenerOptions): void {
		void options;
		const index = this.listeners.findIndex((entry) => entry.type === type && entry.listener === listener);
		if (index >= 0) this.listeners.splice(index, 1);
	}

	/** How many listeners the element has, for tests of clean unloading. */
	listenerCount(): number {
		return this.listeners.length;
	}

	/** Calls this element's listeners for `event`, as the element the event is passing through. */
	fire(event: FakeKeyboardEvent): void {
		const element = asHTMLElement(this);
		for (const { type, listener } of [...this.listeners]) {
			if (type === event.type) (listener as (this: HTMLElement, ev: unknown) => unknown).call(element, event);
		}
	}

	/** Makes `listener` what a click does; the double keeps one listener an element. */
	onClickEvent(listener: (this: HTMLElement, ev: MouseEvent) => unknown): void {
		const element = asHTMLElement(this);
		this.clickAction = (evt) => listener.call(element, evt);
	}

	/** Clicks the element, as a user would, for tests. */
	click(): void {
		this.clickAction?.({} as MouseEvent);
	}

	/** Replaces a field's text as typing would, calling its component's change callbacks, for tests. */
	type(value: string): void {
		this.value = value;
		this.inputAction?.();
	}

	select(): void {
		this.setSelectionRange(0, this.value.length);
	}

	setSelectionRange(start: number | null, end: number | null): void {
		this.selectionStart = start;
		this.selectionEnd = end;
	}

	/** Every descendant (depth first, in order) with the tag, for tests. */
	findAll(tag: string): FakeElement[] {
		return this.children.flatMap((child) => [...(child.tag === tag ? [child] : []), ...child.findAll(tag)]);
	}

	/** Every descendant (depth first, in order) with the class, for tests. */
	findAllWithClass(cls: string): FakeElement[] {
		return this.children.flatMap((child) => [...(child.hasClass(cls) ? [child] : []), ...child.findAllWithClass(cls)]);
	}

	/**
	 * What the element shows, for tests: one line per descendant that has text of its own, as
	 * its tag and text, indented two spaces per level below this element's children.
	 */
	outline(): string[] {
		return this.children.flatMap((child) => child.outlineAt(0));
	}

	private outlineAt(depth: number): string[] {
		const own = this.ownText === "" ? [] : [`${"  ".repeat(depth)}${this.tag} ${this.ownText}`];
		return [...own, ...this.children.flatMap((child) => child.outlineAt(depth + 1))];
	}

	/**
	 * The element as HTML, one element a line, indented by depth: its tag, classes, attributes
	 * (sorted), an input's value, and its text, escaped. What the DOM snapshots store.
	 */
	toHTML(depth = 0): string {
		const indent = "  ".repeat(depth);
		const attributes = new Map(this.attributes);
		if (this.classes.length > 0) attributes.set("class", this.classes.join(" "));
		if ((this.tag === "input" || this.tag === "textarea") && this.value !== "") attributes.set("value", this.value);
		const attributeText = [...attributes.entries()]
			.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
			.map(([name, value]) => (value === "" ? ` ${name}` : ` ${name}="${escapeHTML(value)}"`))
			.join("");
		const open = `${indent}<${this.tag}${attributeText}>`;
		if (VOID_ELEMENTS.has(this.tag)) return open;
		if (this.children.length === 0) return `${open}${escapeHTML(this.ownText)}</${this.tag}>`;
		const text = this.ownText === "" ? [] : [`${indent}  ${escapeHTML(this.ownText)}`];
		return [open, ...text, ...this.children.map((child) => child.toHTML(depth + 1)), `${indent}</${this.tag}>`].join("\n");
	}

	private apply(info: DomElementInfo): void {
		const unsupported = Object.keys(info).filter((name) => !["text", "cls", "attr", "title"].includes(name));
		if (unsupported.length > 0) throw new Error(`The obsidian test double does not support ${unsupported.join(", ")} in createEl`);
		if (info.text !== undefined) this.setText(info.text);
		if (info.cls !== undefined) this.addClass(...(typeof info.cls === "string" ? info.cls.split(" ") : info.cls));
		for (const [name, value] of Object.entries(info.attr ?? {})) if (value !== null) this.attributes.set(name, String(value));
		if (info.title !== undefined) this.attributes.set("title", info.title);
	}
}

/** Elements HTML writes without a closing tag. */
const VOID_ELEMENTS = new Set(["input", "br", "hr", "img"]);

function escapeHTML(text: string): string {
	return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** A fake element as the DOM type plugin code expects; the one cast between the two lives here. */
export function asHTMLElement<T extends HTMLElement = HTMLElement>(element: FakeElement): T {
	return element as unknown as T;
}

/** The fake behind an element the double handed out, for tests to read. */
export function fakeElementOf(element: HTMLElement): FakeElement {
	const fake: unknown = element;
	if (!(fake instanceof FakeElement)) throw new Error("Not an element of the obsidian test double");
	return fake;
}

// ---------------------------------------------------------------------------------------------
// Keymap scopes and modals

export class Scope implements obsidian.Scope {
	private readonly handlers: { handler: obsidian.KeymapEventHandler; func: obsidian.KeymapEventListener }[] = [];

	register(modifiers: obsidian.Modifier[] | null, key: string | null, func: obsidian.KeymapEventListener): obsidian.KeymapEventHandler {
		const handler: obsidian.KeymapEventHandler = { scope: this, modifiers: modifiers === null ? null : modifiers.join(","), key };
		this.handlers.push({ handler, func });
		return handler;
	}

	unregister(handler: obsidian.KeymapEventHandler): void {
		const index = this.handlers.findIndex((entry) => entry.handler === handler);
		if (index >= 0) this.handlers.splice(index, 1);
	}

	/** Presses `key` with no modifiers, as `pressKey` does with this scope, for tests. */
	press(key: string): FakeKeyboardEvent {
		return pressKey(key, this);
	}

	/**
	 * Calls the handlers registered for the event's key (or for any key), newest first, until
	 * one returns false, which prevents the event's default, as Obsidian's keymap does.
	 */
	handle(event: FakeKeyboardEvent): void {
		const keyboardEvent = event as unknown as KeyboardEvent;
		for (const { handler, func } of [...this.handlers].reverse()) {
			if (handler.key !== null && handler.key !== event.key) continue;
			if (handler.modifiers !== null && handler.modifiers !== "") continue;
			if (func(keyboardEvent, { modifiers: "", key: event.key, vkey: event.key }) === false) {
				event.preventDefault();
				return;
			}
		}
	}
}

/** Every modal opened, oldest first, so tests can see what the user was shown. */
export const openedModals: Modal[] = [];

export class Modal
	implements
		Pick<
			obsidian.Modal,
			| "app"
			| "scope"
			| "containerEl"
			| "modalEl"
			| "titleEl"
			| "contentEl"
			| "shouldRestoreSelection"
			| "open"
			| "close"
			| "onOpen"
			| "onClose"
			| "setTitle"
			| "setContent"
			| "setCloseCallback"
		>
{
	app: obsidian.App;
	scope = new Scope();
	containerEl: HTMLElement = asHTMLElement(new FakeElement("div"));
	modalEl: HTMLElement;
	titleEl: HTMLElement;
	contentEl: HTMLElement;
	shouldRestoreSelection = true;
	isOpen = false;
	private closeCallback: (() => unknown) | null = null;

	constructor(app: obsidian.App) {
		this.app = app;
		this.modalEl = this.containerEl.createDiv({ cls: "modal" });
		this.titleEl = this.modalEl.createDiv({ cls: "modal-title" });
		this.contentEl = this.modalEl.createDiv({ cls: "modal-content" });
		// As in Obsidian: Escape closes the modal.
		this.scope.register([], "Escape", () => {
			this.close();
			return false;
		});
	}

	open(): void {
		if (this.isOpen) return;
		this.isOpen = true;
		// The focus moves into the modal: whatever had it outside no longer does.
		const focused = activeFakeElement;
		if (focused !== null && !fakeElementOf(this.containerEl).contains(focused)) focused.blur();
		openedModals.push(this);
		void this.onOpen();
	}

	close(): void {
		if (!this.isOpen) return;
		this.isOpen = false;
		// The modal leaves the document, and the focus with it.
		const focused = activeFakeElement;
		if (focused !== null && fakeElementOf(this.containerEl).contains(focused)) focused.blur();
		this.onClose();
		this.closeCallback?.();
	}

	onOpen(): Promise<void> | void {}

	onClose(): void {}

	setTitle(title: string): this {
		this.titleEl.setText(title);
		return this;
	}

	setContent(content: string | DocumentFragment): this {
		this.contentEl.setText(content);
		return this;
	}

	setCloseCallback(callback: () => unknown): this {
		this.closeCallback = callback;
		return this;
	}
}

// ---------------------------------------------------------------------------------------------
// Suggest modals

/**
 * A suggest modal: the query is its input's value; Enter chooses the first suggestion for it
 * (Obsidian's highlighted one before the arrow keys move it), closing the modal first, as
 * Obsidian does.
 */
export abstract class SuggestModal<T>
	extends Modal
	implements
		Pick<
			obsidian.SuggestModal<T>,
			| "limit"
			| "emptyStateText"
			| "inputEl"
			| "resultContainerEl"
			| "setPlaceholder"
			| "setInstructions"
			| "onNoSuggestion"
			| "selectSuggestion"
			| "selectActiveSuggestion"
			| "getSuggestions"
			| "renderSuggestion"
			| "onChooseSuggestion"
		>
{
	limit = 100;
	emptyStateText = "No results found.";
	inputEl: HTMLInputElement;
	resultContainerEl: HTMLElement;
	/** What `setInstructions` was given, for tests. */
	instructions: obsidian.Instruction[] = [];

	constructor(app: obsidian.App) {
		super(app);
		this.inputEl = this.modalEl.createEl("input", { cls: "prompt-input" });
		this.resultContainerEl = this.modalEl.createDiv({ cls: "prompt-results" });
		this.scope.register([], "Enter", (evt) => {
			this.selectActiveSuggestion(evt);
			return false;
		});
	}

	setPlaceholder(placeholder: string): void {
		fakeElementOf(this.inputEl).attributes.set("placeholder", placeholder);
	}

	setInstructions(instructions: obsidian.Instruction[]): void {
		this.instructions = instructions;
	}

	onNoSuggestion(): void {}

	selectSuggestion(value: T, evt: MouseEvent | KeyboardEvent): void {
		this.close();
		this.onChooseSuggestion(value, evt);
	}

	selectActiveSuggestion(evt: MouseEvent | KeyboardEvent): void {
		const first = this.currentSuggestions()[0];
		if (first === undefined) this.onNoSuggestion();
		else this.selectSuggestion(first, evt);
	}

	/** The suggestions for the query now in the input, as rendered, for tests. */
	currentSuggestions(): T[] {
		const suggestions = this.getSuggestions(this.inputEl.value);
		if (suggestions instanceof Promise) throw new Error("The obsidian test double supports synchronous suggestions only");
		return suggestions.slice(0, this.limit);
	}

	abstract getSuggestions(query: string): T[] | Promise<T[]>;
	abstract renderSuggestion(value: T, el: HTMLElement): void;
	abstract onChooseSuggestion(item: T, evt: MouseEvent | KeyboardEvent): void;
}

/**
 * A fuzzy suggest modal. The double matches the query's characters in order, ignoring case,
 * and ranks by where the match starts; Obsidian's scoring is finer, but what matches is the same.
 */
export abstract class FuzzySuggestModal<T>
	extends SuggestModal<obsidian.FuzzyMatch<T>>
	implements Pick<obsidian.FuzzySuggestModal<T>, "getSuggestions" | "renderSuggestion" | "onChooseSuggestion" | "getItems" | "getItemText" | "onChooseItem">
{
	getSuggestions(query: string): obsidian.FuzzyMatch<T>[] {
		const wanted = query.toLowerCase().replace(/\s+/g, "");
		const matches: obsidian.FuzzyMatch<T>[] = [];
		for (const item of this.getItems()) {
			const text = this.getItemText(item).toLowerCase();
			let at = -1;
			let first = -1;
			for (const character of wanted) {
				at = text.indexOf(character, at + 1);
				if (at < 0) break;
				if (first < 0) first = at;
			}
			if (at >= 0 || wanted === "") matches.push({ item, match: { score: -Math.max(first, 0), matches: [] } });
		}
		return matches.sort((a, b) => b.match.score - a.match.score);
	}

	renderSuggestion(item: obsidian.FuzzyMatch<T>, el: HTMLElement): void {
		el.setText(this.getItemText(item.item));
	}

	onChooseSuggestion(item: obsidian.FuzzyMatch<T>, evt: MouseEvent | KeyboardEvent): void {
		this.onChooseItem(item.item, evt);
	}

	abstract getItems(): T[];
	abstract getItemText(item: T): string;
	abstract onChooseItem(item: T, evt: MouseEvent | KeyboardEvent): void;
}

// ---------------------------------------------------------------------------------------------
// Setting components

export abstract class BaseComponent implements obsidian.BaseComponent {
	disabled = false;

	then(cb: (component: this) => unknown): this {
		cb(this);
		return this;
	}

	setDisabled(disabled: boolean): this {
		this.disabled = disabled;
		return this;
	}
}

/** A text field; `type` stands in for the user typing into it, for tests. */
export class TextComponent extends BaseComponent implements obsidian.TextComponent {
	inputEl: HTMLInputElement;
	private readonly changeCallbacks: ((value: string) => unknown)[] = [];

	constructor(containerEl: HTMLElement) {
		super();
		this.inputEl = containerEl.createEl("input", { attr: { type: "text" } });
		fakeElementOf(this.inputEl).inputAction = () => this.onChanged();
	}

	getValue(): string {
		return this.inputEl.value;
	}

	setValue(value: string): this {
		this.inputEl.value = value;
		return this;
	}

	setPlaceholder(placeholder: string): this {
		fakeElementOf(this.inputEl).attributes.set("placeholder", placeholder);
		return this;
	}

	onChange(callback: (value: string) => unknown): this {
		this.changeCallbacks.push(callback);
		return this;
	}

	onChanged(): void {
		for (const callback of this.changeCallbacks) callback(this.getValue());
	}

	registerOptionListener(): this {
		throw new Error("The obsidian test double has no option listeners");
	}

	/** Replaces the field's text as typing would, calling the `onChange` callbacks. */
	type(value: string): void {
		this.setValue(value);
		this.onChanged();
	}
}

/** A button; clicking its element (`FakeElement.click`) calls `onClick`'s callback unless it is disabled. */
export class ButtonComponent extends BaseComponent implements obsidian.ButtonComponent {
	buttonEl: HTMLButtonElement;
	constructor(containerEl: HTMLElement) {
		super();
		this.buttonEl = containerEl.createEl("button");
	}

	setButtonText(name: string): this {
		this.buttonEl.setText(name);
		return this;
	}

	setCta(): this {
		this.buttonEl.addClass("mod-cta");
		return this;
	}

	removeCta(): this {
		const classes = fakeElementOf(this.buttonEl).classes;
		if (classes.includes("mod-cta")) classes.splice(classes.indexOf("mod-cta"), 1);
		return this;
	}

	setWarning(): this {
		this.buttonEl.addClass("mod-warning");
		return this;
	}

	setDestructive(): this {
		this.buttonEl.addClass("mod-destructive");
		return this;
	}

	removeDestructive(): this {
		const classes = fakeElementOf(this.buttonEl).classes;
		if (classes.includes("mod-destructive")) classes.splice(classes.indexOf("mod-destructive"), 1);
		return this;
	}

	setTooltip(tooltip: string): this {
		fakeElementOf(this.buttonEl).attributes.set("aria-label", tooltip);
		return this;
	}

	setIcon(): this {
		throw new Error("The obsidian test double has no icons");
	}

	setClass(cls: string): this {
		this.buttonEl.addClass(cls);
		return this;
	}

	override setDisabled(disabled: boolean): this {
		super.setDisabled(disabled);
		if (disabled) fakeElementOf(this.buttonEl).attributes.set("disabled", "");
		else fakeElementOf(this.buttonEl).attributes.delete("disabled");
		return this;
	}

	onClick(callback: (evt: MouseEvent) => unknown): this {
		fakeElementOf(this.buttonEl).clickAction = (evt) => (this.disabled ? undefined : callback(evt));
		return this;
	}
}

/** An on/off switch; `toggleEl` clicked (or `setValue` and `onClick`) flips it and calls `onChange`. */
export class ToggleComponent extends BaseComponent implements obsidian.ToggleComponent {
	toggleEl: HTMLElement;
	private value = false;
	private readonly changeCallbacks: ((value: boolean) => unknown)[] = [];

	constructor(containerEl: HTMLElement) {
		super();
		this.toggleEl = containerEl.createDiv({ cls: "checkbox-container", attr: { role: "switch", "aria-checked": "false", tabindex: "0" } });
		fakeElementOf(this.toggleEl).clickAction = () => this.onClick();
	}

	getValue(): boolean {
		return this.value;
	}

	setValue(on: boolean): this {
		this.value = on;
		const element = fakeElementOf(this.toggleEl);
		if (on) element.addClass("is-enabled");
		else element.removeClass("is-enabled");
		element.attributes.set("aria-checked", String(on));
		return this;
	}

	/** Flips the switch, as a click does, unless it is disabled. */
	onClick(): void {
		if (this.disabled) return;
		this.setValue(!this.value);
		for (const callback of this.changeCallbacks) callback(this.value);
	}

	onChange(callback: (value: boolean) => unknown): this {
		this.changeCallbacks.push(callback);
		return this;
	}

	setTooltip(tooltip: string): this {
		fakeElementOf(this.toggleEl).attributes.set("aria-label", tooltip);
		return this;
	}

	registerOptionListener(): this {
		throw new Error("The obsidian test double has no option listeners");
	}
}

/** A multi-line text field; `type` stands in for the user typing into it, for tests. */
export class TextAreaComponent extends BaseComponent implements obsidian.TextAreaComponent {
	inputEl: HTMLTextAreaElement;
	private readonly changeCallbacks: ((value: string) => unknown)[] = [];

	constructor(containerEl: HTMLElement) {
		super();
		this.inputEl = containerEl.createEl("textarea");
		fakeElementOf(this.inputEl).inputAction = () => this.onChanged();
	}

	getValue(): string {
		return this.inputEl.value;
	}

	setValue(value: string): this {
		this.inputEl.value = value;
		return this;
	}

	setPlaceholder(placeholder: string): this {
		fakeElementOf(this.inputEl).attributes.set("placeholder", placeholder);
		return this;
	}

	onChange(callback: (value: string) => unknown): this {
		this.changeCallbacks.push(callback);
		return this;
	}

	onChanged(): void {
		for (const callback of this.changeCallbacks) callback(this.getValue());
	}

	registerOptionListener(): this {
		throw new Error("The obsidian test double has no option listeners");
	}

	/** Replaces the field's text as typing would, calling the `onChange` callbacks. */
	type(value: string): void {
		this.setValue(value);
		this.onChanged();
	}
}

/** One row of a settings tab: a name and description on the left, controls on the right. */
export class Setting
	implements
		Pick<
			obsidian.Setting,
			| "settingEl"
			| "infoEl"
			| "nameEl"
			| "descEl"
			| "controlEl"
			| "components"
			| "setName"
			| "setDesc"
			| "setClass"
			| "setHeading"
			| "setDisabled"
			| "addButton"
			| "addToggle"
			| "addText"
			| "addTextArea"
			| "then"
		>
{
	settingEl: HTMLElement;
	infoEl: HTMLElement;
	nameEl: HTMLElement;
	descEl: HTMLElement;
	controlEl: HTMLElement;
	components: obsidian.BaseComponent[] = [];

	constructor(containerEl: HTMLElement) {
		this.settingEl = containerEl.createDiv({ cls: "setting-item" });
		this.infoEl = this.settingEl.createDiv({ cls: "setting-item-info" });
		this.nameEl = this.infoEl.createDiv({ cls: "setting-item-name" });
		this.descEl = this.infoEl.createDiv({ cls: "setting-item-description" });
		this.controlEl = this.settingEl.createDiv({ cls: "setting-item-control" });
	}

	setName(name: string | DocumentFragment): obsidian.Setting {
		this.nameEl.setText(name);
		return this.asObsidian();
	}

	setDesc(desc: string | DocumentFragment): obsidian.Setting {
		this.descEl.setText(desc);
		return this.asObsidian();
	}

	setClass(cls: string): obsidian.Setting {
		this.settingEl.addClass(cls);
		return this.asObsidian();
	}

	setHeading(): obsidian.Setting {
		this.settingEl.addClass("setting-item-heading");
		return this.asObsidian();
	}

	setDisabled(disabled: boolean): obsidian.Setting {
		for (const component of this.components) component.setDisabled(disabled);
		return this.asObsidian();
	}

	addButton(cb: (component: obsidian.ButtonComponent) => unknown): obsidian.Setting {
		return this.add(new ButtonComponent(this.controlEl), cb);
	}

	addToggle(cb: (component: obsidian.ToggleComponent) => unknown): obsidian.Setting {
		return this.add(new ToggleComponent(this.controlEl), cb);
	}

	addText(cb: (component: obsidian.TextComponent) => unknown): obsidian.Setting {
		return this.add(new TextComponent(this.controlEl), cb);
	}

	addTextArea(cb: (component: obsidian.TextAreaComponent) => unknown): obsidian.Setting {
		return this.add(new TextAreaComponent(this.controlEl), cb);
	}

	then(cb: (setting: obsidian.Setting) => unknown): obsidian.Setting {
		cb(this.asObsidian());
		return this.asObsidian();
	}

	private add<T extends BaseComponent, O>(component: T, cb: (component: O) => unknown): obsidian.Setting {
		this.components.push(component as unknown as obsidian.BaseComponent);
		cb(component as unknown as O);
		return this.asObsidian();
	}

	/** This row as Obsidian's type, which its chained calls return. */
	private asObsidian(): obsidian.Setting {
		return this as unknown as obsidian.Setting;
	}
}

/** Every setting row drawn, for tests to find by name. */
export function settingsIn(containerEl: HTMLElement): FakeElement[] {
	return fakeElementOf(containerEl).findAllWithClass("setting-item");
}

/** A settings tab; the test opens it with `display()`, as Obsidian does when the user picks it. */
export abstract class SettingTab implements Pick<obsidian.SettingTab, "app" | "containerEl" | "display" | "hide"> {
	app: obsidian.App;
	containerEl: HTMLElement = asHTMLElement(new FakeElement("div"));

	constructor(app: obsidian.App) {
		this.app = app;
		this.containerEl.addClass("vertical-tab-content");
	}

	abstract display(): void;

	hide(): void {
		this.containerEl.empty();
	}
}

export abstract class PluginSettingTab extends SettingTab {
	readonly plugin: obsidian.Plugin;

	constructor(app: obsidian.App, plugin: obsidian.Plugin) {
		super(app);
		this.plugin = plugin;
	}
}

// ---------------------------------------------------------------------------------------------
// Notices

/** Every notice shown, oldest first, so tests can see what the user was told. */
export const shownNotices: Notice[] = [];

export class Notice implements obsidian.Notice {
	message: string;
	readonly duration: number | undefined;
	/** Every message this notice showed, oldest first. */
	readonly history: string[] = [];
	hidden = false;

	constructor(message: string | DocumentFragment, duration?: number) {
		this.message = String(message);
		this.duration = duration;
		this.history.push(this.message);
		shownNotices.push(this);
	}

	/** The notice's element: a fake one, which takes a click action (`onClickEvent`) a test can click. */
	private readonly element = new FakeElement("div");

	get noticeEl(): HTMLElement {
		return asHTMLElement(this.element);
	}

	get containerEl(): HTMLElement {
		throw new Error("The obsidian test double has no DOM: Notice.containerEl");
	}

	get messageEl(): HTMLElement {
		throw new Error("The obsidian test double has no DOM: Notice.messageEl");
	}

	setMessage(message: string | DocumentFragment): this {
		this.message = String(message);
		this.history.push(this.message);
		return this;
	}

	hide(): void {
		this.hidden = true;
	}
}

// ---------------------------------------------------------------------------------------------
// Menus

/**
 * A context menu, as the file explorer hands one to `files-menu` handlers (with several files
 * selected) and `file-menu` ones: items are added, and a test clicks one by its title.
 */
export class Menu implements Pick<obsidian.Menu, "addItem" | "addSeparator"> {
	readonly items: MenuItem[] = [];

	addItem(cb: (item: obsidian.MenuItem) => unknown): obsidian.Menu {
		const item = new MenuItem();
		cb(item);
		this.items.push(item);
		return this as unknown as obsidian.Menu;
	}

	addSeparator(): obsidian.Menu {
		return this as unknown as obsidian.Menu;
	}

	/** The item with this title; clicking it runs its handler as a click in Obsidian does. */
	item(title: string): MenuItem | undefined {
		return this.items.find((item) => item.title === title);
	}
}

export class MenuItem implements Omit<obsidian.MenuItem, never> {
	title = "";
	icon: string | null = null;
	checked: boolean | null = null;
	disabled = false;
	warning = false;
	label = false;
	section = "";

	setChecked(checked: boolean | null): this {
		this.checked = checked;
		return this;
	}

	setDisabled(disabled: boolean): this {
		this.disabled = disabled;
		return this;
	}

	setWarning(isWarning: boolean): this {
		this.warning = isWarning;
		return this;
	}

	setIsLabel(isLabel: boolean): this {
		this.label = isLabel;
		return this;
	}

	setSection(section: string): this {
		this.section = section;
		return this;
	}
	private handler: ((evt: MouseEvent | KeyboardEvent) => unknown) | null = null;

	setTitle(title: string | DocumentFragment): this {
		this.title = String(title);
		return this;
	}

	setIcon(icon: string | null): this {
		this.icon = icon;
		return this;
	}

	onClick(callback: (evt: MouseEvent | KeyboardEvent) => unknown): this {
		this.handler = callback;
		return this;
	}

	/** A click, as Obsidian gives it; a disabled item does nothing. */
	click(): void {
		if (!this.disabled) this.handler?.({} as MouseEvent);
	}
}
