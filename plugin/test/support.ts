/**
 * Shared helpers for the plugin's tests: fixture vaults written from inline text, loading the
 * plugin on the test double, and a small client for the bridge protocol.
 *
 * Every test bundle runs under the rules of Obsidian's renderer window (`renderer.ts`). Importing
 * this file also loads the link engine (asynchronously, as the plugin does) before the file's
 * first test, for tests that use it without loading the plugin, and checks after each test that
 * nothing threw uncaught and no promise was rejected unhandled: the renderer would only have
 * logged it, and the test would pass over a broken plugin.
 */

import * as fs from "fs";
import * as net from "net";
import * as os from "os";
import * as path from "path";
import manifest from "../../manifest.json";
import VaultlinkPlugin from "../main";
import type { IndexerOptions } from "../indexer";
import assert from "node:assert/strict";
import { afterEach, before } from "node:test";
import { loadEngine } from "../wasm";
import { clearRendererFaults, describeRendererFaults, rendererFaults } from "./renderer";
import { App, asObsidianApp, type AppOptions, fakeElementOf, openedModals, type FakeElement, type Modal } from "./obsidian-double";

export const REPO_ROOT = VAULTLINK_REPO_ROOT;

before(async () => {
	await loadEngine();
});

afterEach(() => {
	const faults = describeRendererFaults();
	const count = rendererFaults().length;
	clearRendererFaults();
	assert.equal(count, 0, `nothing is thrown uncaught or rejected unhandled during a test; the renderer logged:\n${faults}`);
});

const temporaryDirectories: string[] = [];
process.on("exit", () => {
	for (const directory of temporaryDirectories) fs.rmSync(directory, { recursive: true, force: true });
});

/** A fresh empty directory under the OS's temporary directory, removed when the process exits. */
export function temporaryDirectory(prefix: string): string {
	const directory = fs.mkdtempSync(path.join(os.tmpdir(), `vaultlink-${prefix}-`));
	temporaryDirectories.push(directory);
	return directory;
}

/**
 * Writes a vault from a fixture: each file starts with a `//- path` line, and its text is the
 * lines up to the next header.
 *
 *     //- Notes/Alpha.md
 *     Links to [[Beta]].
 *     //- Beta.md
 */
export function writeFixtureVault(fixture: string): string {
	const vaultDir = temporaryDirectory("vault");
	let current: { filePath: string; lines: string[] } | null = null;
	const flush = () => {
		if (current === null) return;
		const fullPath = path.join(vaultDir, ...current.filePath.split("/"));
		fs.mkdirSync(path.dirname(fullPath), { recursive: true });
		fs.writeFileSync(fullPath, current.lines.join("\n"));
	};
	for (const line of fixture.replace(/^\n/, "").split("\n")) {
		const header = /^\s*\/\/- (.+)$/.exec(line);
		if (header?.[1] !== undefined) {
			flush();
			current = { filePath: header[1].trim(), lines: [] };
		} else if (current !== null) {
			current.lines.push(line.replace(/^\t+/, ""));
		}
	}
	flush();
	return vaultDir;
}

/** A copy of `source` in a temporary directory, so tests can change it freely. */
export function copyVault(source: string): string {
	const vaultDir = temporaryDirectory("vault");
	fs.cpSync(source, vaultDir, { recursive: true });
	return vaultDir;
}

/** Every file under `vaultDir` as a vault path, hidden ones left out as Obsidian does. */
export function listVaultFiles(vaultDir: string): string[] {
	const files: string[] = [];
	const walk = (relative: string) => {
		for (const entry of fs.readdirSync(path.join(vaultDir, relative), { withFileTypes: true })) {
			if (entry.name.startsWith(".")) continue;
			const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
			if (entry.isDirectory()) walk(child);
			else if (entry.isFile()) files.push(child);
		}
	};
	walk("");
	return files.sort();
}

/**
 * Every folder (as `path/`) and file under `vaultDir`, hidden ones too, with each file's bytes
 * (as text when they are UTF-8, else base64), and each symbolic link as where it points:
 * equal snapshots mean byte-identical vaults, but for the plugin's presence lease.
 */
export function snapshotVault(vaultDir: string): Record<string, string> {
	const snapshot: Record<string, string> = {};
	const walk = (relative: string) => {
		const entries = fs.readdirSync(path.join(vaultDir, relative), { withFileTypes: true });
		for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
			const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
			if (entry.isSymbolicLink()) {
				// A link as where it points, never followed: what is behind it is not the vault's.
				snapshot[child] = `symlink:${fs.readlinkSync(path.join(vaultDir, child))}`;
			} else if (entry.isDirectory()) {
				snapshot[`${child}/`] = "";
				walk(child);
			} else {
				const bytes = fs.readFileSync(path.join(vaultDir, child));
				const text = bytes.toString("utf8");
				snapshot[child] = Buffer.from(text, "utf8").equals(bytes) ? text : `base64:${bytes.toString("base64")}`;
			}
		}
	};
	walk("");
	// The plugin's presence lease is engine state, its instance new on every load; its folder
	// counts only when something else is in it.
	delete snapshot[".vaultlink/presence.json"];
	// So are the vault's sealing keys and the line that keeps git out of `.vaultlink`: the first
	// seal makes them and they stay, the vault's own, not any change's.
	for (const name of Object.keys(snapshot)) if (name.startsWith(".vaultlink/keys/") || name === ".vaultlink/.gitignore") delete snapshot[name];
	if (Object.keys(snapshot).every((name) => name === ".vaultlink/" || !name.startsWith(".vaultlink/"))) delete snapshot[".vaultlink/"];
	return snapshot;
}

/** Points the bridge at a private runtime directory for this test process. */
export function useTemporaryRuntimeDirectory(): string {
	// Short, because a Unix socket path has to fit in about 100 bytes.
	const runtimeDir = path.join(temporaryDirectory("rt"), "run");
	process.env["VAULTLINK_RUNTIME_DIR"] = runtimeDir;
	return runtimeDir;
}

export interface LoadedPlugin {
	app: App;
	plugin: VaultlinkPlugin;
}

/** Loads the plugin on the double's app for `vaultDir` and waits until it is ready. */
export async function loadPlugin(vaultDir: string, options: Partial<IndexerOptions> = {}, appOptions: AppOptions = {}): Promise<LoadedPlugin> {
	const app = new App(vaultDir, appOptions);
	const plugin = new VaultlinkPlugin(asObsidianApp(app), { ...manifest });
	plugin.indexerOptions = { ...plugin.indexerOptions, debounceMs: 10, ...options };
	plugin.load();
	await plugin.ready;
	return { app, plugin };
}

export interface JsonRpcResponse {
	jsonrpc: "2.0";
	id: string | number | null;
	result?: unknown;
	error?: { code: number; message: string; data?: unknown };
}

/** A test client for the bridge: one request at a time, and a view of when the server closes. */
export class BridgeClient {
	private readonly socket: net.Socket;
	private buffered = "";
	private readonly responses: JsonRpcResponse[] = [];
	private waiter: ((response: JsonRpcResponse | null) => void) | null = null;
	private nextId = 1;
	/** Resolves when the server has closed the connection. */
	readonly closed: Promise<void>;
	isClosed = false;

	private constructor(socket: net.Socket) {
		this.socket = socket;
		socket.setEncoding("utf8");
		socket.on("data", (chunk: string) => {
			this.buffered += chunk;
			let newline: number;
			while ((newline = this.buffered.indexOf("\n")) >= 0) {
				const line = this.buffered.slice(0, newline);
				this.buffered = this.buffered.slice(newline + 1);
				this.deliver(JSON.parse(line) as JsonRpcResponse);
			}
		});
		// Writes into a connection the server has closed fail; the tests look at `closed` instead.
		socket.on("error", () => undefined);
		this.closed = new Promise((resolve) =>
			socket.on("close", () => {
				this.isClosed = true;
				this.waiter?.(null);
				this.waiter = null;
				resolve();
			}),
		);
	}

	static connect(socketPath: string): Promise<BridgeClient> {
		return new Promise((resolve, reject) => {
			const socket = net.connect(socketPath);
			socket.once("connect", () => resolve(new BridgeClient(socket)));
			socket.once("error", reject);
		});
	}

	private deliver(response: JsonRpcResponse): void {
		if (this.waiter !== null) {
			const waiter = this.waiter;
			this.waiter = null;
			waiter(response);
		} else {
			this.responses.push(response);
		}
	}

	/** The next response, or null if the server closed the connection first. */
	nextResponse(): Promise<JsonRpcResponse | null> {
		const queued = this.responses.shift();
		if (queued !== undefined) return Promise.resolve(queued);
		if (this.isClosed) return Promise.resolve(null);
		return new Promise((resolve) => (this.waiter = resolve));
	}

	sendRaw(text: string): void {
		this.socket.write(text);
	}

	/** Sends one request and returns its response (null if the connection closed instead). */
	async request(method: string, params?: unknown): Promise<JsonRpcResponse | null> {
		const id = this.nextId++;
		this.sendRaw(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
		const response = await this.nextResponse();
		if (response !== null && response.id !== id) throw new Error(`response for id ${String(response.id)}, expected ${id}`);
		return response;
	}

	close(): void {
		this.socket.destroy();
	}
}

/** The discovery file's contents. */
export function readDiscovery(discoveryPath: string): Record<string, unknown> {
	return JSON.parse(fs.readFileSync(discoveryPath, "utf8")) as Record<string, unknown>;
}

/** The modal opened last, which must be open and a `kind`; as the double's Modal, to press its keys. */
export function lastModal<T extends object>(kind: abstract new (...args: never[]) => T): Modal & T {
	const modal = openedModals.at(-1);
	assert.ok(modal instanceof kind, `the last modal opened is a ${kind.name}, not ${modal?.constructor.name}`);
	assert.ok(modal.isOpen);
	return modal;
}

/** The button of `modal` whose text is `text`. */
export function buttonOf(modal: Modal, text: string): FakeElement {
	const button = fakeElementOf(modal.contentEl)
		.findAll("button")
		.find((candidate) => candidate.getText() === text);
	assert.ok(button !== undefined, `a ${text} button`);
	return button;
}
