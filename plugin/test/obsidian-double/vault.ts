/** The `obsidian` double's adapter and vault (see `index.ts`). */

import type * as obsidian from "obsidian";
import * as fs from "fs";
import * as path from "path";
import { Events } from "./events";
import { TAbstractFile, TFile, TFolder } from "./files";
import { normalizePath } from "./paths";

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
