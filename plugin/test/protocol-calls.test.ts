/**
 * The bridge protocol's handling of calls on one connection, with a stand-in for the index:
 * several calls in flight at once, each answered with its own id whatever order they finish
 * in; an answer over the size limit refused with a typed error on a connection that stays
 * usable; a malformed line answered without closing it; a `cancel` notification aborting the
 * signal of the call it names, and of no other.
 */

import assert from "node:assert/strict";
import * as net from "node:net";
import * as path from "node:path";
import { test } from "node:test";
import { CANCELLED_BY_CLIENT, serveConnection, type ProtocolContext } from "../bridge/protocol";
import type { ToolOutcome } from "../wasm";
import { BridgeClient, temporaryDirectory } from "./support";

const TOKEN = "t".repeat(64);

/** Serves the protocol with `call` on a fresh socket; returns a client that has said hello. */
async function serve(call: ProtocolContext["call"], maxAnswerBytes?: number): Promise<{ client: BridgeClient; stop: () => void }> {
	const socketPath = path.join(temporaryDirectory("protocol"), "s.sock");
	const server = net.createServer((socket) =>
		serveConnection(socket, { token: TOKEN, vaultPath: "/vault", serverName: "test", pluginVersion: "0.0.0", call, maxAnswerBytes }),
	);
	await new Promise<void>((resolve) => server.listen(socketPath, resolve));
	const client = await BridgeClient.connect(socketPath);
	const hello = await client.request("hello", { token: TOKEN, protocol: 1, client: "test" });
	assert.ok(hello?.result !== undefined, JSON.stringify(hello));
	return {
		client,
		stop: () => {
			client.close();
			server.close();
		},
	};
}

function callLine(id: number, tool: string, args: unknown = {}): string {
	return `${JSON.stringify({ jsonrpc: "2.0", id, method: "call", params: { tool, arguments: args } })}\n`;
}

test("calls in flight at once are answered by id, in the order they finish", async () => {
	const release = new Map<string, (outcome: ToolOutcome) => void>();
	const started: string[] = [];
	const { client, stop } = await serve((tool) => {
		started.push(tool);
		return new Promise<ToolOutcome>((resolve) => release.set(tool, resolve));
	});
	try {
		client.sendRaw(callLine(10, "slow") + callLine(11, "fast"));
		while (started.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
		assert.deepEqual(started, ["slow", "fast"], "the second call starts before the first ends");
		release.get("fast")?.({ ok: true, result: { tool: "fast" } });
		const first = await client.nextResponse();
		release.get("slow")?.({ ok: true, result: { tool: "slow" } });
		const second = await client.nextResponse();
		assert.deepEqual([first?.id, first?.result], [11, { tool: "fast" }]);
		assert.deepEqual([second?.id, second?.result], [10, { tool: "slow" }]);
	} finally {
		stop();
	}
});

test("an answer over the size limit is a too_large error, and the connection serves on", async () => {
	const { client, stop } = await serve((tool) => ({ ok: true, result: { text: tool === "big" ? "x".repeat(2_000) : "small" } }), 1_000);
	try {
		const big = await client.request("call", { tool: "big", arguments: {} });
		assert.equal(big?.error?.code, -32000);
		const data = big?.error?.data as Record<string, unknown>;
		assert.equal(data["code"], "too_large");
		assert.equal(data["retryable"], false);
		assert.match(String(data["message"]), /over the bridge's 1000-byte limit/);
		const small = await client.request("call", { tool: "small", arguments: {} });
		assert.deepEqual(small?.result, { text: "small" });
	} finally {
		stop();
	}
});

test("a malformed line after hello is answered with a parse error and the connection stays open", async () => {
	const { client, stop } = await serve(() => ({ ok: true, result: {} }));
	try {
		client.sendRaw("{not json\n");
		const refused = await client.nextResponse();
		assert.equal(refused?.error?.code, -32700);
		assert.equal(client.isClosed, false);
		assert.deepEqual((await client.request("ping"))?.result, {});
	} finally {
		stop();
	}
});

test("a cancel notification aborts the signal of the call it names, which answers, and no other call's", async () => {
	const signals = new Map<string, AbortSignal>();
	const release = new Map<string, (outcome: ToolOutcome) => void>();
	const { client, stop } = await serve((tool, _args, signal) => {
		signals.set(tool, signal);
		return new Promise<ToolOutcome>((resolve) => {
			release.set(tool, resolve);
			signal.addEventListener("abort", () => resolve({ ok: false, error: { code: "cancelled", message: "stopped", hint: "", retryable: false } }));
		});
	});
	try {
		client.sendRaw(callLine(20, "cancelled") + callLine(21, "kept"));
		while (signals.size < 2) await new Promise((resolve) => setTimeout(resolve, 5));
		client.sendRaw(`${JSON.stringify({ jsonrpc: "2.0", method: "cancel", params: { id: 20 } })}\n`);
		const stopped = await client.nextResponse();
		assert.equal(stopped?.id, 20);
		assert.equal((stopped?.error?.data as Record<string, unknown>)["code"], "cancelled");
		assert.equal(signals.get("cancelled")?.reason, CANCELLED_BY_CLIENT);
		assert.equal(signals.get("kept")?.aborted, false, "the other call runs on");
		release.get("kept")?.({ ok: true, result: { tool: "kept" } });
		const kept = await client.nextResponse();
		assert.deepEqual([kept?.id, kept?.result], [21, { tool: "kept" }]);
	} finally {
		stop();
	}
});
