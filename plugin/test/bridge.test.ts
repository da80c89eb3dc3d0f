/**
 * The bridge end to end inside one process: the plugin loaded on the test double serves its
 * socket, and a client speaks the protocol to it as the sidecar does.
 */

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { BridgeServer, BridgeStartError } from "../bridge/server";
import { bridgePaths, canonicalVaultPath, discoveryDirectory, keyOfCanonicalPath } from "../bridge/paths";
import manifest from "../../manifest.json";
import type VaultlinkPlugin from "../main";
import { BridgeClient, loadPlugin, readDiscovery, temporaryDirectory, useTemporaryRuntimeDirectory, writeFixtureVault } from "./support";

const runtimeDir = useTemporaryRuntimeDirectory();

const FIXTURE = `
//- Alpha.md
Alpha links to [[Beta]] and [[Nowhere]].
//- Beta.md
Beta links back to [[Alpha#Top]].
`;

function bridgeOf(plugin: VaultlinkPlugin) {
	const info = plugin.bridgeInfo;
	assert.ok(info !== null, "the bridge is up once the plugin is ready");
	return info;
}

async function withPlugin(body: (plugin: VaultlinkPlugin, vaultDir: string) => Promise<void>): Promise<void> {
	const vaultDir = writeFixtureVault(FIXTURE);
	const { plugin } = await loadPlugin(vaultDir);
	try {
		await body(plugin, vaultDir);
	} finally {
		plugin.unload();
	}
}

/** A client that has said hello with the right token. */
async function authenticatedClient(plugin: VaultlinkPlugin): Promise<BridgeClient> {
	const info = bridgeOf(plugin);
	const client = await BridgeClient.connect(info.socketPath);
	const hello = await client.request("hello", { token: info.token, protocol: 1, client: "test" });
	assert.ok(hello?.result !== undefined, `hello succeeds: ${JSON.stringify(hello)}`);
	return client;
}

test("hello with the discovery file's token, then call answers as the index does", async () => {
	await withPlugin(async (plugin, vaultDir) => {
		const info = bridgeOf(plugin);
		const discovery = readDiscovery(info.discoveryPath);
		const client = await BridgeClient.connect(info.socketPath);
		const hello = await client.request("hello", { token: discovery["token"], protocol: 1, client: "test" });
		assert.deepEqual(hello?.result, {
			protocol: 1,
			version: manifest.version,
			vault_path: fs.realpathSync(vaultDir),
			server: `vaultlink-plugin ${manifest.version}`,
		});

		const index = plugin.index;
		assert.ok(index !== null);
		for (const tool of ["get_outgoing_links", "get_backlinks"]) {
			const direct = await index.call(tool, { path: "Alpha.md" });
			assert.ok(direct.ok, `${tool} succeeds directly: ${JSON.stringify(direct)}`);
			const answer = await client.request("call", { tool, arguments: { path: "Alpha.md" } });
			assert.deepEqual(answer, { jsonrpc: "2.0", id: answer?.id, result: direct.result }, tool);
		}
		assert.deepEqual((await client.request("ping"))?.result, {});
		client.close();
	});
});

test("a failed operation is the JSON-RPC error -32000 carrying the typed error", async () => {
	await withPlugin(async (plugin) => {
		const index = plugin.index;
		assert.ok(index !== null);
		const client = await authenticatedClient(plugin);
		const cases: [string, unknown][] = [
			["get_outgoing_links", { path: "No such note.md" }],
			["get_outgoing_links", {}],
			["no_such_tool", {}],
		];
		for (const [tool, args] of cases) {
			const direct = await index.call(tool, args);
			assert.ok(!direct.ok, `${tool} ${JSON.stringify(args)} fails directly`);
			const answer = await client.request("call", { tool, arguments: args });
			assert.deepEqual(answer?.error, { code: -32000, message: direct.error.message, data: direct.error }, `${tool} ${JSON.stringify(args)}`);
			assert.deepEqual(Object.keys(direct.error).sort(), ["code", "hint", "message", "retryable"]);
		}
		client.close();
	});
});

test("after hello, bad requests get their JSON-RPC errors and the connection stays open", async () => {
	await withPlugin(async (plugin) => {
		const client = await authenticatedClient(plugin);
		assert.equal((await client.request("frobnicate"))?.error?.code, -32601);
		assert.equal((await client.request("call", { arguments: {} }))?.error?.code, -32602);
		client.sendRaw("{not json\n");
		assert.equal((await client.nextResponse())?.error?.code, -32700);
		client.sendRaw('{"jsonrpc":"1.0","id":7,"method":"ping"}\n');
		assert.equal((await client.nextResponse())?.error?.code, -32600);
		client.sendRaw("[]\n");
		assert.equal((await client.nextResponse())?.error?.code, -32600);
		assert.deepEqual((await client.request("ping"))?.result, {}, "still served");
		assert.equal(client.isClosed, false);
		client.close();
	});
});

test("a wrong token is refused with -32001 and the connection is closed", async () => {
	await withPlugin(async (plugin) => {
		const info = bridgeOf(plugin);
		const wrongTokens: unknown[] = ["0".repeat(64), info.token.slice(0, 63), `${info.token}0`, "", 42, null];
		for (const token of wrongTokens) {
			const client = await BridgeClient.connect(info.socketPath);
			const answer = await client.request("hello", { token, protocol: 1, client: "test" });
			assert.equal(answer?.error?.code, -32001, JSON.stringify(token));
			assert.match(answer?.error?.message ?? "", /^unauthorized/);
			await client.closed;
		}
		const client = await BridgeClient.connect(info.socketPath);
		const answer = await client.request("hello", { protocol: 1 });
		assert.equal(answer?.error?.code, -32001, "no token at all");
		await client.closed;
	});
});

test("a request before hello is refused and the connection is closed", async () => {
	await withPlugin(async (plugin) => {
		const info = bridgeOf(plugin);
		for (const method of ["ping", "call"]) {
			const client = await BridgeClient.connect(info.socketPath);
			const answer = await client.request(method, { tool: "get_backlinks", arguments: { path: "Alpha.md" } });
			assert.equal(answer?.error?.code, -32001, method);
			assert.match(answer?.error?.message ?? "", /^unauthorized/);
			await client.closed;
		}
		const client = await BridgeClient.connect(info.socketPath);
		client.sendRaw("not json at all\n");
		assert.equal((await client.nextResponse())?.error?.code, -32700);
		await client.closed;
	});
});

test("a 2 MiB line is refused, the connection closed, and the server serves on", async () => {
	await withPlugin(async (plugin) => {
		const info = bridgeOf(plugin);
		for (const authenticate of [false, true]) {
			const client = authenticate ? await authenticatedClient(plugin) : await BridgeClient.connect(info.socketPath);
			const huge = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { padding: "x".repeat(2 * 1024 * 1024) } });
			client.sendRaw(`${huge}\n`);
			const answer = await client.nextResponse();
			assert.equal(answer?.error?.code, -32600, `authenticated: ${authenticate}`);
			assert.match(answer?.error?.message ?? "", /longer than 1048576 bytes/);
			await client.closed;
		}
		const client = await authenticatedClient(plugin);
		assert.deepEqual((await client.request("ping"))?.result, {});
		client.close();
	});
});

test("the socket, runtime directory and discovery file are private, and the discovery file says where and how", async () => {
	await withPlugin(async (plugin, vaultDir) => {
		const info = bridgeOf(plugin);
		const socket = fs.lstatSync(info.socketPath);
		assert.ok(socket.isSocket());
		assert.equal(socket.mode & 0o777, 0o600, "socket mode");
		assert.equal(fs.statSync(runtimeDir).mode & 0o777, 0o700, "runtime directory mode");
		assert.equal(fs.statSync(info.discoveryPath).mode & 0o777, 0o600, "discovery file mode");
		assert.equal(path.dirname(info.socketPath), runtimeDir);

		const paths = bridgePaths(vaultDir);
		assert.equal(info.socketPath, paths.socketPath);
		assert.equal(info.discoveryPath, paths.discoveryPath);
		const discovery = readDiscovery(info.discoveryPath);
		assert.deepEqual(discovery, {
			socket: paths.socketPath,
			token: info.token,
			pid: process.pid,
			vault_path: fs.realpathSync(vaultDir),
			protocol: 1,
			plugin_version: "0.1.0",
			state: "ready",
		});
		assert.match(info.token, /^[0-9a-f]{64}$/);
		assert.deepEqual(
			fs.readdirSync(runtimeDir).sort(),
			[path.basename(paths.discoveryPath), path.basename(paths.socketPath)].sort(),
			"no temporary file left behind",
		);
	});
});

test("every load has a new token", async () => {
	const vaultDir = writeFixtureVault(FIXTURE);
	const tokens = new Set<string>();
	for (let load = 0; load < 3; load += 1) {
		const { plugin } = await loadPlugin(vaultDir);
		tokens.add(bridgeOf(plugin).token);
		plugin.unload();
	}
	assert.equal(tokens.size, 3);
});

test("unloading removes the discovery file and the socket and closes connections", async () => {
	const vaultDir = writeFixtureVault(FIXTURE);
	const { plugin } = await loadPlugin(vaultDir);
	const info = bridgeOf(plugin);
	const client = await authenticatedClient(plugin);
	plugin.unload();
	assert.ok(!fs.existsSync(info.discoveryPath), "discovery file removed");
	assert.ok(!fs.existsSync(info.socketPath), "socket removed");
	await client.closed;
	assert.equal(plugin.bridgeInfo, null);
});

test("the plugin listens on no TCP port", async () => {
	await withPlugin(async (plugin) => {
		const address = plugin.bridgeAddress();
		assert.equal(typeof address, "string", "a Unix socket's address is its path");
		assert.equal(address, bridgeOf(plugin).socketPath);

		if (process.platform !== "linux") return;
		// No socket of this process is in the kernel's TCP LISTEN tables.
		const ownSockets = new Set<string>();
		for (const fd of fs.readdirSync("/proc/self/fd")) {
			try {
				const match = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/self/fd/${fd}`));
				if (match?.[1] !== undefined) ownSockets.add(match[1]);
			} catch {
				// The fd closed while being listed.
			}
		}
		assert.ok(ownSockets.size > 0, "the process holds its Unix sockets");
		for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
			if (!fs.existsSync(table)) continue;
			for (const line of fs.readFileSync(table, "utf8").split("\n").slice(1)) {
				const fields = line.trim().split(/\s+/);
				const LISTEN = "0A";
				if (fields[3] === LISTEN && fields[9] !== undefined) {
					assert.ok(!ownSockets.has(fields[9]), `${table}: this process listens on ${fields[1]}`);
				}
			}
		}
	});
});

/** Leaves a socket file with nobody listening, as a crashed Obsidian would. */
async function leaveStaleSocket(socketPath: string): Promise<void> {
	fs.mkdirSync(path.dirname(socketPath), { recursive: true, mode: 0o700 });
	const script = `require("net").createServer().listen(${JSON.stringify(socketPath)}, () => process.kill(process.pid, "SIGKILL"))`;
	const child = spawn(process.execPath, ["-e", script], { stdio: "ignore" });
	await new Promise((resolve) => child.on("exit", resolve));
	assert.ok(fs.lstatSync(socketPath).isSocket(), "the killed server left its socket file");
}

test("a stale socket left by a crash is replaced", async () => {
	const vaultDir = writeFixtureVault(FIXTURE);
	const paths = bridgePaths(vaultDir);
	await leaveStaleSocket(paths.socketPath);
	const { plugin } = await loadPlugin(vaultDir);
	try {
		const client = await authenticatedClient(plugin);
		assert.deepEqual((await client.request("ping"))?.result, {});
		client.close();
	} finally {
		plugin.unload();
	}
});

test("a second window on the same vault refuses to start and leaves the first one serving", async () => {
	await withPlugin(async (plugin, vaultDir) => {
		const info = bridgeOf(plugin);
		await assert.rejects(
			BridgeServer.start({ vaultPath: vaultDir, pluginVersion: "0.1.0", call: () => ({ ok: true, result: {} }) }),
			(error: unknown) => error instanceof BridgeStartError && error.reason === "in-use" && /another Obsidian window/i.test(error.message),
		);
		assert.equal(readDiscovery(info.discoveryPath)["token"], info.token, "the first window's discovery file is intact");
		const client = await authenticatedClient(plugin);
		assert.deepEqual((await client.request("ping"))?.result, {});
		client.close();
	});
});

// Issue 34: the fallback socket folder `<tmpdir>/vaultlink-<uid>` could be squatted by another
// user. Without XDG_RUNTIME_DIR the socket goes to a folder of a fresh random name, recorded in
// the discovery file and removed with the server; a second window still finds the first serving.
test("without a runtime folder the socket is in a fresh private folder the discovery file names, gone with the server", async () => {
	const vaultDir = writeFixtureVault(FIXTURE);
	const tmpdir = temporaryDirectory("tmp");
	const home = path.join(temporaryDirectory("home"), "h".repeat(70));
	fs.mkdirSync(home, { recursive: true });
	const uid = process.getuid?.() ?? null;
	// The name another user could take first: a folder open to all there changes nothing.
	fs.mkdirSync(path.join(tmpdir, `vaultlink-${uid}`), { mode: 0o777 });
	const environment = { env: {}, platform: process.platform, uid, tmpdir, home };
	const start = () => BridgeServer.start({ vaultPath: vaultDir, pluginVersion: "0.1.0", call: () => ({ ok: true, result: {} }), environment });
	const bridge = await start();
	const folder = path.dirname(bridge.paths.socketPath);
	try {
		assert.equal(path.dirname(folder), tmpdir);
		assert.match(path.basename(folder), /^vaultlink-[A-Za-z0-9]{6}$/);
		assert.equal(fs.lstatSync(folder).mode & 0o777, 0o700);
		const discovery = readDiscovery(bridge.paths.discoveryPath);
		assert.equal(discovery["socket"], bridge.paths.socketPath);
		const client = await BridgeClient.connect(String(discovery["socket"]));
		const hello = await client.request("hello", { token: discovery["token"], protocol: 1, client: "test" });
		assert.ok(hello?.result !== undefined, JSON.stringify(hello));
		client.close();
		await assert.rejects(start(), (error: unknown) => error instanceof BridgeStartError && error.reason === "in-use");
		assert.equal(readDiscovery(bridge.paths.discoveryPath)["token"], bridge.token, "the first window's discovery file is intact");
		assert.deepEqual(fs.readdirSync(tmpdir).sort(), [path.basename(folder), `vaultlink-${uid}`].sort(), "the refused window left no folder");
	} finally {
		await bridge.stop();
	}
	assert.ok(!fs.existsSync(folder), "the folder goes with the server");
});

test("a crash's socket left in a fresh folder of its own goes with its folder when the next server starts", async () => {
	const vaultDir = writeFixtureVault(FIXTURE);
	const tmpdir = temporaryDirectory("tmp");
	const home = path.join(temporaryDirectory("home"), "h".repeat(70));
	const environment = { env: {}, platform: process.platform, uid: process.getuid?.() ?? null, tmpdir, home };
	const discoveryPath = path.join(discoveryDirectory(environment), `${keyOfCanonicalPath(canonicalVaultPath(vaultDir))}.json`);
	fs.mkdirSync(path.dirname(discoveryPath), { recursive: true, mode: 0o700 });
	const crashed = fs.mkdtempSync(path.join(tmpdir, "vaultlink-"));
	const staleSocket = path.join(crashed, "k.sock");
	await leaveStaleSocket(staleSocket);
	fs.writeFileSync(discoveryPath, JSON.stringify({ socket: staleSocket, token: "0".repeat(64) }), { mode: 0o600 });
	const bridge = await BridgeServer.start({ vaultPath: vaultDir, pluginVersion: "0.1.0", call: () => ({ ok: true, result: {} }), environment });
	try {
		assert.ok(!fs.existsSync(crashed), "the crashed server's folder is gone");
		assert.notEqual(path.dirname(bridge.paths.socketPath), crashed);
		assert.equal(readDiscovery(discoveryPath)["socket"], bridge.paths.socketPath);
	} finally {
		await bridge.stop();
	}
});

test("a runtime directory that others can enter is refused", async () => {
	const vaultDir = writeFixtureVault(FIXTURE);
	for (const mode of [0o755, 0o750, 0o701]) {
		const open = path.join(temporaryDirectory("rt"), "open");
		fs.mkdirSync(open);
		fs.chmodSync(open, mode);
		const previous = process.env["VAULTLINK_RUNTIME_DIR"];
		process.env["VAULTLINK_RUNTIME_DIR"] = open;
		try {
			await assert.rejects(
				BridgeServer.start({ vaultPath: vaultDir, pluginVersion: "0.1.0", call: () => ({ ok: true, result: {} }) }),
				(error: unknown) => error instanceof BridgeStartError && error.reason === "runtime-dir" && /chmod 700/.test(error.message),
			);
		} finally {
			process.env["VAULTLINK_RUNTIME_DIR"] = previous;
		}
		assert.deepEqual(fs.readdirSync(open), [], `mode ${mode.toString(8)}: nothing written`);
	}
});

test("a connection that never says hello is closed", async () => {
	const vaultDir = writeFixtureVault(FIXTURE);
	const bridge = await BridgeServer.start({
		vaultPath: vaultDir,
		pluginVersion: "0.1.0",
		call: () => ({ ok: true, result: {} }),
		helloTimeoutMs: 20,
	});
	try {
		const client = await BridgeClient.connect(bridge.paths.socketPath);
		const answer = await client.nextResponse();
		assert.equal(answer?.error?.code, -32001);
		await client.closed;
	} finally {
		await bridge.stop();
	}
	assert.ok(!fs.existsSync(bridge.paths.socketPath));
	assert.ok(!fs.existsSync(bridge.paths.discoveryPath));
});

test("a call whose connection closed before it reached the engine is dropped; the engine never runs it", async () => {
	const vaultDir = writeFixtureVault(FIXTURE);
	const { app, plugin } = await loadPlugin(vaultDir);
	try {
		const index = plugin.index;
		assert.ok(index !== null);
		// Every request the engine is sent, by operation (and tool, for a call).
		const sent: string[] = [];
		const engine = index as unknown as { post(message: { op: string; tool?: string }): void };
		const post = engine.post.bind(engine);
		engine.post = (message) => {
			sent.push(message.tool === undefined ? message.op : `${message.op} ${message.tool}`);
			post(message);
		};
		// find_evidence reads every note first; the reads wait until the client has gone.
		let release: () => void = () => undefined;
		const gate = new Promise<void>((resolve) => (release = resolve));
		let reading: () => void = () => undefined;
		const started = new Promise<void>((resolve) => (reading = resolve));
		const cachedRead = app.vault.cachedRead.bind(app.vault);
		app.vault.cachedRead = async (file) => {
			reading();
			await gate;
			return cachedRead(file);
		};
		const client = await authenticatedClient(plugin);
		client.sendRaw(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "call", params: { tool: "find_evidence", arguments: { title: "alpha" } } })}\n`);
		await started;
		client.close();
		await client.closed;
		// The server sees the connection close a moment later; then the reads may finish.
		const server = (plugin as unknown as { bridge: { bridge: { connections: Set<unknown> } } }).bridge.bridge;
		for (let turn = 0; turn < 1000 && server.connections.size > 0; turn += 1) await new Promise((resolve) => setTimeout(resolve, 5));
		assert.equal(server.connections.size, 0, "the server saw the connection close");
		release();
		// Another client's call runs after it: the engine is free, and the dropped one was never sent.
		const next = await authenticatedClient(plugin);
		const summary = await next.request("call", { tool: "vault_summary", arguments: {} });
		assert.ok(summary?.result !== undefined, JSON.stringify(summary));
		next.close();
		assert.ok(sent.includes("needs find_evidence"), `the dropped call asked which notes it needed: ${sent.join(", ")}`);
		assert.ok(!sent.includes("call find_evidence"), `the engine never ran it: ${sent.join(", ")}`);
		assert.ok(sent.includes("call vault_summary"));
	} finally {
		plugin.unload();
	}
});
