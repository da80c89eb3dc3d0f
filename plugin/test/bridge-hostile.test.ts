/**
 * The bridge against hostile or broken clients, past what `bridge.test.ts` covers (wrong and
 * missing tokens, a 2 MiB line, requests before hello): a token replayed from another vault's
 * discovery file, a 100 MB line streamed without a newline, more idle connections than the
 * server takes, a client that sends one byte at a time, one that never reads its answers.
 * None of them gets an answer without the token, none stops the plugin serving its sidecar.
 */

import assert from "node:assert/strict";
import * as net from "node:net";
import { test } from "node:test";
import { BridgeServer } from "../bridge/server";
import type VaultlinkPlugin from "../main";
import { BridgeClient, loadPlugin, useTemporaryRuntimeDirectory, writeFixtureVault } from "./support";

useTemporaryRuntimeDirectory();

const FIXTURE = `
//- Alpha.md
Alpha links to [[Beta]].
//- Beta.md
Beta.
`;

function bridgeOf(plugin: VaultlinkPlugin) {
	const info = plugin.bridgeInfo;
	assert.ok(info !== null, "the bridge is up once the plugin is ready");
	return info;
}

/** The sidecar's view: hello with the right token, then a call answers. */
async function stillServes(socketPath: string, token: string): Promise<void> {
	const client = await BridgeClient.connect(socketPath);
	const hello = await client.request("hello", { token, protocol: 1, client: "test" });
	assert.ok(hello?.result !== undefined, `hello succeeds: ${JSON.stringify(hello)}`);
	const answer = await client.request("call", { tool: "get_backlinks", arguments: { path: "Beta.md" } });
	assert.equal((answer?.result as { backlinks: unknown[] }).backlinks.length, 1);
	client.close();
}

/** Everything a raw connection receives until the server closes it, as lines. */
function collect(socket: net.Socket): { lines: () => string[]; closed: Promise<void> } {
	let received = "";
	socket.setEncoding("utf8");
	socket.on("data", (chunk: string) => (received += chunk));
	socket.on("error", () => undefined);
	const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
	return { lines: () => received.split("\n").filter((line) => line !== ""), closed };
}

function connect(socketPath: string): Promise<net.Socket> {
	return new Promise((resolve, reject) => {
		const socket = net.connect(socketPath);
		socket.once("connect", () => resolve(socket));
		socket.once("error", reject);
	});
}

test("a token replayed from another vault's discovery file is refused", async () => {
	const first = await loadPlugin(writeFixtureVault(FIXTURE));
	const second = await loadPlugin(writeFixtureVault(FIXTURE));
	try {
		const [one, two] = [bridgeOf(first.plugin), bridgeOf(second.plugin)];
		assert.notEqual(one.token, two.token, "each vault, each load, has its own token");
		const client = await BridgeClient.connect(one.socketPath);
		const answer = await client.request("hello", { token: two.token, protocol: 1, client: "replay" });
		assert.equal(answer?.error?.code, -32001);
		assert.equal(answer?.result, undefined);
		await client.closed;
		await stillServes(one.socketPath, one.token);
	} finally {
		first.plugin.unload();
		second.plugin.unload();
	}
});

test("a 100 MB line streamed without a newline is cut off after 1 MiB, without being held in memory", async () => {
	const { plugin } = await loadPlugin(writeFixtureVault(FIXTURE));
	try {
		const info = bridgeOf(plugin);
		for (const authenticated of [false, true]) {
			const socket = await connect(info.socketPath);
			const received = collect(socket);
			if (authenticated) socket.write(`${JSON.stringify({ jsonrpc: "2.0", id: 0, method: "hello", params: { token: info.token, protocol: 1 } })}\n`);
			const chunk = Buffer.alloc(1024 * 1024, "x".charCodeAt(0));
			const rssBefore = process.memoryUsage().rss;
			let sent = 0;
			let closed = false;
			void received.closed.then(() => (closed = true));
			socket.write(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"padding":"`);
			// 100 MiB, one chunk at a time as the socket drains, until the server hangs up.
			while (sent < 100 * 1024 * 1024 && !closed) {
				const flushed = socket.write(chunk);
				sent += chunk.length;
				if (!flushed) await new Promise<void>((resolve) => {
					socket.once("drain", resolve);
					socket.once("close", resolve);
				});
			}
			await received.closed;
			const growthMb = (process.memoryUsage().rss - rssBefore) / (1024 * 1024);
			const lines = received.lines().map((line) => JSON.parse(line) as { id: unknown; result?: unknown; error?: { code: number; message: string } });
			const refusal = lines.find((line) => line.id === null);
			assert.equal(refusal?.error?.code, -32600, JSON.stringify(lines));
			assert.match(refusal?.error?.message ?? "", /longer than 1048576 bytes/);
			assert.ok(!lines.some((line) => line.id === 1), "the huge request got no answer");
			assert.ok(sent < 100 * 1024 * 1024, `the server hung up before 100 MiB arrived (sent ${sent} bytes)`);
			assert.ok(growthMb < 64, `memory grew by ${growthMb.toFixed(0)} MB`);
		}
		await stillServes(info.socketPath, info.token);
	} finally {
		plugin.unload();
	}
});

/** A bridge on the fixture vault whose every call answers `{answered: true}`. */
function answeringServer(helloTimeoutMs: number): Promise<BridgeServer> {
	return BridgeServer.start({
		vaultPath: writeFixtureVault(FIXTURE),
		pluginVersion: "0.1.0",
		call: () => ({ ok: true, result: { answered: true } }),
		helloTimeoutMs,
	});
}

test("more idle connections than the server takes: none is answered, each is closed, and the sidecar gets in after", async () => {
	const server = await answeringServer(500);
	try {
		const idle = await Promise.all(Array.from({ length: 40 }, () => connect(server.paths.socketPath).then((socket) => ({ socket, ...collect(socket) }))));
		// Every one of them is closed: past the limit at once, the rest when their hello is late.
		await Promise.all(idle.map((connection) => connection.closed));
		for (const connection of idle) {
			for (const line of connection.lines()) {
				const message = JSON.parse(line) as { result?: unknown; error?: { code: number } };
				assert.equal(message.result, undefined, "no answer without the token");
				assert.equal(message.error?.code, -32001);
			}
		}
		const client = await BridgeClient.connect(server.paths.socketPath);
		const hello = await client.request("hello", { token: server.token, protocol: 1 });
		assert.ok(hello?.result !== undefined);
		assert.deepEqual((await client.request("call", { tool: "anything", arguments: {} }))?.result, { answered: true });
		client.close();
	} finally {
		await server.stop();
	}
});

test("tokenless connections cannot lock the sidecar out: with 40 held open, the token holder still gets in at once", async () => {
	// Long enough that none of the idle ones times out during the test.
	const server = await answeringServer(60_000);
	try {
		const idle = await Promise.all(Array.from({ length: 40 }, () => connect(server.paths.socketPath).then((socket) => ({ socket, ...collect(socket) }))));
		const client = await BridgeClient.connect(server.paths.socketPath);
		const hello = await client.request("hello", { token: server.token, protocol: 1 });
		assert.ok(hello?.result !== undefined, JSON.stringify(hello));
		assert.deepEqual((await client.request("call", { tool: "anything", arguments: {} }))?.result, { answered: true });
		// The oldest tokenless ones were closed to keep the budget; none was ever answered.
		const closed = await Promise.all(idle.map((connection) => Promise.race([connection.closed.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 200))])));
		assert.ok(closed.filter(Boolean).length >= 32, `closed: ${closed.filter(Boolean).length}`);
		for (const connection of idle) assert.ok(!connection.lines().some((line) => "result" in (JSON.parse(line) as object)));
		client.close();
		for (const connection of idle) connection.socket.destroy();
	} finally {
		await server.stop();
	}
});

test("a slow client sending one byte at a time is served once its hello is whole; one that sends nothing is closed", async () => {
	const { plugin } = await loadPlugin(writeFixtureVault(FIXTURE));
	try {
		const info = bridgeOf(plugin);
		const socket = await connect(info.socketPath);
		const received = collect(socket);
		const hello = `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "hello", params: { token: info.token, protocol: 1 } })}\n`;
		for (const byte of Buffer.from(hello)) {
			socket.write(Buffer.from([byte]));
			await new Promise((resolve) => setImmediate(resolve));
		}
		socket.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" })}\n`);
		while (received.lines().length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
		const [first, second] = received.lines().map((line) => JSON.parse(line) as { id: number; result?: unknown });
		assert.equal(first?.id, 1);
		assert.ok(first?.result !== undefined);
		assert.deepEqual(second, { jsonrpc: "2.0", id: 2, result: {} });
		socket.destroy();
		await stillServes(info.socketPath, info.token);
	} finally {
		plugin.unload();
	}
});

test("a client that asks and never reads its answers does not stop the server serving others", async () => {
	const { plugin } = await loadPlugin(writeFixtureVault(FIXTURE));
	try {
		const info = bridgeOf(plugin);
		const greedy = await connect(info.socketPath);
		greedy.on("error", () => undefined);
		greedy.pause();
		const request = (id: number) => `${JSON.stringify({ jsonrpc: "2.0", id, method: "call", params: { tool: "list_notes", arguments: { limit: 1000 } } })}\n`;
		greedy.write(`${JSON.stringify({ jsonrpc: "2.0", id: 0, method: "hello", params: { token: info.token, protocol: 1 } })}\n`);
		for (let id = 1; id <= 2_000; id += 1) greedy.write(request(id));
		await stillServes(info.socketPath, info.token);
		greedy.destroy();
		await stillServes(info.socketPath, info.token);
	} finally {
		plugin.unload();
	}
});

test("malformed JSON of every kind before hello closes the connection with no answer to anything", async () => {
	const { plugin } = await loadPlugin(writeFixtureVault(FIXTURE));
	try {
		const info = bridgeOf(plugin);
		for (const garbage of ["{", "}", "[1,2", "\"\\u12\"", "nul", "\u0000\u0001\u0002", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"call\"", "\uFFFD\uFFFE", "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"hello\"}]"]) {
			const socket = await connect(info.socketPath);
			const received = collect(socket);
			socket.write(`${garbage}\n${JSON.stringify({ jsonrpc: "2.0", id: 7, method: "call", params: { tool: "list_notes", arguments: {} } })}\n`);
			await received.closed;
			const lines = received.lines().map((line) => JSON.parse(line) as { id: unknown; result?: unknown; error?: { code: number } });
			assert.equal(lines.length, 1, `${JSON.stringify(garbage)}: ${JSON.stringify(lines)}`);
			assert.equal(lines[0]?.result, undefined);
			assert.ok([-32700, -32600, -32001].includes(lines[0]?.error?.code ?? 0), JSON.stringify(lines));
		}
		await stillServes(info.socketPath, info.token);
	} finally {
		plugin.unload();
	}
});
