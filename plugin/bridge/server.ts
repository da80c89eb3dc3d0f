/**
 * The bridge's server: a Unix socket (a named pipe on Windows) in a private folder, plus the
 * discovery file that tells the sidecar where it is, which token to present and whether the
 * plugin's index is ready. Nothing here listens on TCP.
 */

import * as fs from "fs";
import * as net from "net";
import * as path from "path";
import type { ToolOutcome } from "../wasm";
import { PROTOCOL_VERSION, newToken, removeDiscovery, writeDiscovery, type Discovery, type PluginState } from "./discovery";
import { MAX_SOCKET_PATH_BYTES, bridgePaths, currentEnvironment, type BridgePaths, type PathEnvironment } from "./paths";
import { serveConnection } from "./protocol";

/** Connections served at once; the sidecar needs one, a few spare cover restarts and probes. */
/**
 * Connections that have not yet shown the token: past this many, the oldest is closed to make
 * room, so no number of tokenless clients can keep the sidecar (which holds the token) out.
 * Connections that did show it are the user's own sidecars and are never refused.
 */
const MAX_UNAUTHENTICATED = 8;

/** How long a socket file may take to answer before it is taken for a live server. */
const PROBE_TIMEOUT_MS = 2_000;

export type BridgeStartFailure = "runtime-dir" | "in-use" | "listen";

export class BridgeStartError extends Error {
	readonly reason: BridgeStartFailure;

	constructor(reason: BridgeStartFailure, message: string) {
		super(message);
		this.name = "BridgeStartError";
		this.reason = reason;
	}
}

export interface BridgeServerOptions {
	/** The vault's folder; its canonical path names the socket and discovery file. */
	vaultPath: string;
	/** The plugin's version, for the discovery file and `hello`. */
	pluginVersion: string;
	/** Runs one of core's operations on the plugin's index; `signal` is aborted when its connection closes. */
	call(tool: string, args: unknown, signal: AbortSignal): ToolOutcome | Promise<ToolOutcome>;
	environment?: PathEnvironment;
	helloTimeoutMs?: number;
	/** What the discovery file says at first: `starting` while the first index is built (then {@link BridgeServer.markReady}), `ready` by default. */
	state?: PluginState;
}

function errorCode(error: unknown): string | undefined {
	return typeof error === "object" && error !== null ? (error as NodeJS.ErrnoException).code : undefined;
}

function formatMode(mode: number): string {
	return `0${(mode & 0o777).toString(8)}`;
}

/**
 * Creates the runtime directory with mode 0700, or checks that an existing one is a directory
 * of this user's that nobody else can enter: the token's secrecy rests on it.
 */
export function ensureRuntimeDirectory(directory: string, environment: PathEnvironment): void {
	if (environment.platform === "win32") {
		// %LOCALAPPDATA% is per-user already, and pipes do not live in it.
		fs.mkdirSync(directory, { recursive: true });
		return;
	}
	const created = fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
	// mkdir's mode passes through the umask; set it exactly when this call made the directory.
	if (created !== undefined) fs.chmodSync(directory, 0o700);
	const stat = fs.lstatSync(directory);
	if (!stat.isDirectory()) {
		throw new BridgeStartError(
			"runtime-dir",
			`The bridge's folder ${directory} is not a directory (a symbolic link or a file); remove it, or set VAULTLINK_RUNTIME_DIR to a private directory.`,
		);
	}
	if (environment.uid !== null && stat.uid !== environment.uid) {
		throw new BridgeStartError(
			"runtime-dir",
			`The bridge's folder ${directory} belongs to uid ${stat.uid}, not to you (uid ${environment.uid}); remove it, or set VAULTLINK_RUNTIME_DIR to a directory of yours.`,
		);
	}
	if ((stat.mode & 0o077) !== 0) {
		throw new BridgeStartError(
			"runtime-dir",
			`The bridge's folder ${directory} has mode ${formatMode(stat.mode)}, which lets other users in; run \`chmod 700 ${directory}\` or remove it.`,
		);
	}
}

/** Whether a server answers on the socket at `socketPath`. */
function socketAnswers(socketPath: string): Promise<boolean> {
	return new Promise((resolve, reject) => {
		const probe = net.connect(socketPath);
		const timer = window.setTimeout(() => {
			probe.destroy();
			resolve(true);
		}, PROBE_TIMEOUT_MS);
		probe.once("connect", () => {
			window.clearTimeout(timer);
			probe.destroy();
			resolve(true);
		});
		probe.once("error", (error) => {
			window.clearTimeout(timer);
			const code = errorCode(error);
			if (code === "ECONNREFUSED" || code === "ENOENT") resolve(false);
			else reject(error);
		});
	});
}

function anotherWindowMessage(paths: BridgePaths): string {
	return `Another Obsidian window already serves the vault ${paths.vaultPath} on ${paths.socketPath}; the sidecar talks to that one. Close it to serve the vault from this window.`;
}

/** Removes what a crashed server left at `socketPath`, and refuses if a live one answers there. */
async function clearStaleSocket(paths: BridgePaths): Promise<void> {
	let stat: fs.Stats;
	try {
		stat = fs.lstatSync(paths.socketPath);
	} catch (error) {
		if (errorCode(error) === "ENOENT") return;
		throw error;
	}
	if (stat.isDirectory()) {
		throw new BridgeStartError("listen", `${paths.socketPath} is a directory, where the bridge's socket belongs; remove it.`);
	}
	if (stat.isSocket() && (await socketAnswers(paths.socketPath))) {
		throw new BridgeStartError("in-use", anotherWindowMessage(paths));
	}
	// The directory is private to this user, so anything else at this path is our own leftover.
	fs.rmSync(paths.socketPath, { force: true });
}

/**
 * Refuses to start when the discovery file names a socket, other than this server's, that a
 * server answers on: another window serves the vault. A socket that answers nobody is a crash's
 * leftover; when it is in a fresh folder of its own (`<tmpdir>/vaultlink-<random>`), that folder
 * goes with it.
 */
async function refuseIfAnotherServes(paths: BridgePaths): Promise<void> {
	let named: unknown;
	try {
		named = (JSON.parse(fs.readFileSync(paths.discoveryPath, "utf8")) as { socket?: unknown }).socket;
	} catch {
		return;
	}
	if (typeof named !== "string" || named === paths.socketPath) return;
	let stat: fs.Stats;
	try {
		stat = fs.lstatSync(named);
	} catch {
		return;
	}
	if (!stat.isSocket()) return;
	if (await socketAnswers(named)) throw new BridgeStartError("in-use", anotherWindowMessage({ ...paths, socketPath: named }));
	const folder = path.dirname(named);
	const fresh = path.dirname(folder) === path.dirname(paths.socketDir) && /^vaultlink-[A-Za-z0-9]{6}$/.test(path.basename(folder));
	if (fresh && fs.statSync(folder, { throwIfNoEntry: false })?.uid === stat.uid) {
		fs.rmSync(named, { force: true });
		removeEmptyFolder(folder);
	}
}

/** Removes the folder made for this server's socket, if it is one and is empty. */
function removeFreshSocketDirectory(paths: BridgePaths): void {
	if (paths.socketDirIsFresh) removeEmptyFolder(paths.socketDir);
}

function removeEmptyFolder(folder: string): void {
	try {
		fs.rmdirSync(folder);
	} catch {
		// Not empty (something else was put there) or gone: left as it is.
	}
}

/** The last connection that authenticated: when, and the client its `hello` named. */
export interface BridgeConnection {
	at: Date;
	client: string | null;
}

/** The last sidecar refused for speaking another bridge protocol: when, and what it was told. */
export interface BridgeSkew {
	at: Date;
	message: string;
}

export class BridgeServer {
	readonly paths: BridgePaths;
	/** The token a client must present; `regenerateToken` replaces it. */
	token: string;
	/** The last connection that presented the right token, or null when none has yet. */
	lastConnection: BridgeConnection | null = null;
	/** The last sidecar of another bridge protocol, or null when none came; cleared by a compatible one. */
	lastSkew: BridgeSkew | null = null;
	private readonly server: net.Server;
	private readonly connections = new Set<net.Socket>();
	/** Connections yet to show the token, oldest first. */
	private readonly unauthenticated: net.Socket[] = [];
	private readonly platform: NodeJS.Platform;
	private readonly discovery: Discovery;
	private closed: Promise<void> | null = null;

	private constructor(paths: BridgePaths, token: string, server: net.Server, platform: NodeJS.Platform, discovery: Discovery) {
		this.paths = paths;
		this.token = token;
		this.server = server;
		this.platform = platform;
		this.discovery = discovery;
		server.on("connection", (socket) => {
			this.connections.add(socket);
			socket.on("close", () => this.connections.delete(socket));
		});
	}

	/** Counts a new connection as tokenless until it says hello; closes the oldest such past the budget. */
	private admit(socket: net.Socket): void {
		this.unauthenticated.push(socket);
		socket.on("close", () => this.forget(socket));
		while (this.unauthenticated.length > MAX_UNAUTHENTICATED) this.unauthenticated.shift()?.destroy();
	}

	/** The connection showed the token: out of the tokenless budget. */
	private authenticated(socket: net.Socket): void {
		this.forget(socket);
	}

	private forget(socket: net.Socket): void {
		const at = this.unauthenticated.indexOf(socket);
		if (at >= 0) this.unauthenticated.splice(at, 1);
	}

	/** Listens on the vault's socket and writes the discovery file; rejects with a `BridgeStartError` saying what to do. */
	static async start(options: BridgeServerOptions): Promise<BridgeServer> {
		const environment = options.environment ?? currentEnvironment();
		const paths = bridgePaths(options.vaultPath, environment);
		const isWindows = environment.platform === "win32";
		if (!isWindows && Buffer.byteLength(paths.socketPath) > MAX_SOCKET_PATH_BYTES) {
			removeFreshSocketDirectory(paths);
			throw new BridgeStartError(
				"runtime-dir",
				`The socket path ${paths.socketPath} is longer than ${MAX_SOCKET_PATH_BYTES} bytes, which Unix sockets cannot take; set VAULTLINK_RUNTIME_DIR to a shorter directory (for the plugin and the sidecar alike).`,
			);
		}
		try {
			ensureRuntimeDirectory(paths.discoveryDir, environment);
			if (!isWindows && paths.socketDir !== paths.discoveryDir) ensureRuntimeDirectory(paths.socketDir, environment);
			// A fresh folder's socket is new; a server already serving the vault is found through the
			// discovery file, which names its socket wherever it is.
			if (paths.socketDirIsFresh) await refuseIfAnotherServes(paths);
			if (!isWindows) await clearStaleSocket(paths);
		} catch (error) {
			removeFreshSocketDirectory(paths);
			throw error;
		}

		const token = newToken();
		const discovery: Discovery = {
			socket: paths.socketPath,
			token,
			pid: process.pid,
			vault_path: paths.vaultPath,
			protocol: PROTOCOL_VERSION,
			plugin_version: options.pluginVersion,
			state: options.state ?? "ready",
		};
		// Each connection is served with the token of the moment it arrived.
		const server = net.createServer({ allowHalfOpen: false }, (socket) => {
			bridge.admit(socket);
			serveConnection(socket, {
				token: bridge.token,
				vaultPath: paths.vaultPath,
				serverName: `vaultlink-plugin ${options.pluginVersion}`,
				pluginVersion: options.pluginVersion,
				call: (tool, args, signal) => options.call(tool, args, signal),
				helloTimeoutMs: options.helloTimeoutMs,
				onAuthenticated: (client) => {
					bridge.authenticated(socket);
					bridge.lastConnection = { at: new Date(), client };
					bridge.lastSkew = null;
				},
				onIncompatible: (message) => {
					bridge.lastSkew = { at: new Date(), message };
				},
			});
		});
		const bridge: BridgeServer = new BridgeServer(paths, token, server, environment.platform, discovery);

		await new Promise<void>((resolve, reject) => {
			const onError = (error: unknown) => {
				removeFreshSocketDirectory(paths);
				reject(
					errorCode(error) === "EADDRINUSE"
						? new BridgeStartError("in-use", anotherWindowMessage(paths))
						: new BridgeStartError("listen", `Could not listen on ${paths.socketPath}: ${String(error)}`),
				);
			};
			server.once("error", onError);
			server.listen(paths.socketPath, () => {
				server.off("error", onError);
				resolve();
			});
		});
		server.on("error", (error) => console.error("vaultlink: the bridge's server failed", error));

		try {
			// The directory is 0700 already; the socket's own mode says the same to anyone checking.
			if (!isWindows) fs.chmodSync(paths.socketPath, 0o600);
			writeDiscovery(paths.discoveryPath, discovery);
		} catch (error) {
			await bridge.stop();
			throw error;
		}
		return bridge;
	}

	/**
	 * Replaces the token: the discovery file is rewritten with the new one, and every open
	 * connection, authenticated with the old one, is closed; a sidecar reconnects with the new.
	 */
	regenerateToken(): void {
		if (this.closed !== null) throw new Error("The bridge is stopped; turn it on again to get a new token.");
		const token = newToken();
		writeDiscovery(this.paths.discoveryPath, { ...this.discovery, token });
		this.token = token;
		this.discovery.token = token;
		for (const socket of this.connections) socket.destroy();
	}

	/** What the discovery file says of the plugin's index. */
	get state(): PluginState {
		return this.discovery.state;
	}

	/** Rewrites the discovery file with `"state": "ready"`: the first index is built. */
	markReady(): void {
		if (this.closed !== null || this.discovery.state === "ready") return;
		this.discovery.state = "ready";
		writeDiscovery(this.paths.discoveryPath, this.discovery);
	}

	/** The listening address: a socket path, never a TCP port. */
	address(): string | net.AddressInfo | null {
		return this.server.address();
	}

	/**
	 * Removes the discovery file and the socket and closes every connection; the files are gone
	 * when this returns, and the promise resolves once the server has closed.
	 */
	stop(): Promise<void> {
		if (this.closed !== null) return this.closed;
		// The discovery file first, so no new sidecar picks up a server about to go away.
		removeDiscovery(this.paths.discoveryPath, this.token);
		this.closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
		for (const socket of this.connections) socket.destroy();
		if (this.platform !== "win32") fs.rmSync(this.paths.socketPath, { force: true });
		removeFreshSocketDirectory(this.paths);
		return this.closed;
	}
}
