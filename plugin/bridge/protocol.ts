/**
 * The bridge protocol on one connection: newline-delimited JSON-RPC 2.0, at most 1 MiB a line.
 * The first request must be `hello` with the discovery file's token; after it, `call` runs one
 * of core's operations on the plugin's index and `ping` answers `{}`. The notification `cancel`
 * (`{"id": <a call's id>}`) tells a running call that its client cancelled it: the call stops at
 * its next note read or before it writes, and answers the code `cancelled` (a write already
 * begun finishes whole). A plugin without it ignores the notification, as every notification.
 * `docs/bridge.md` is the protocol whole.
 */

import * as crypto from "crypto";
import type * as net from "net";
import type { ToolOutcome } from "../wasm";
import { incompatibility } from "./compatibility";
import { PROTOCOL_VERSION } from "./discovery";
import { ErrorCode as ToolErrorCode } from "../error-codes";

/** The longest request line accepted, newline excluded; a longer one closes the connection. */
export const MAX_LINE_BYTES = 1024 * 1024;

/**
 * The longest answer line sent, newline excluded: the sidecar reads no longer line
 * (`MAX_ANSWER_BYTES` in crates/sidecar/src/bridge.rs). A longer result is answered with the
 * typed error `too_large` instead, and the connection stays usable.
 */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/** How long a refused connection may go on sending (what is sent is dropped) before it is cut. */
export const CLOSE_GRACE_MS = 2_000;

/** How long a new connection may take to authenticate before it is closed. */
export const HELLO_TIMEOUT_MS = 10_000;

/** The reason a call's `signal` is aborted with when its client cancelled it (not when the connection closed). */
export const CANCELLED_BY_CLIENT = "cancelled by the client";

export const ErrorCode = {
	parseError: -32700,
	invalidRequest: -32600,
	methodNotFound: -32601,
	invalidParams: -32602,
	internalError: -32603,
	/** One of core's operations failed; `data` is its typed error. */
	toolFailed: -32000,
	/** No `hello` first, or a wrong token. The connection is closed after it. */
	unauthorized: -32001,
	/** `hello` from a sidecar of another bridge protocol; the message says which to update. Closed after it. */
	incompatible: -32002,
} as const;

export interface ProtocolContext {
	/** The token from the discovery file. */
	token: string;
	/** The vault's canonical path, reported by `hello`. */
	vaultPath: string;
	/** For example "vaultlink-plugin 0.1.0". */
	serverName: string;
	/** The plugin's version, said in `hello`'s answer and in a version skew's message. */
	pluginVersion: string;
	/**
	 * Runs one of core's operations on the plugin's index (some read a note first). `signal` is
	 * aborted when the connection closes: a call that has not started by then is dropped; and
	 * with the reason `CANCELLED_BY_CLIENT` when the sidecar says the call was cancelled.
	 */
	call(tool: string, args: unknown, signal: AbortSignal): ToolOutcome | Promise<ToolOutcome>;
	helloTimeoutMs?: number;
	/** Told of each connection that presented the right token, with the `client` its `hello` named. */
	onAuthenticated?(client: string | null): void;
	/** Told of a sidecar that presented the right token but speaks another protocol, with what it was told. */
	onIncompatible?(message: string): void;
	/** The longest answer line; `MAX_ANSWER_BYTES` unless a test sets it. */
	maxAnswerBytes?: number;
}

type RequestId = string | number | null;

interface ErrorObject {
	code: number;
	message: string;
	data?: unknown;
}

/**
 * Splits a byte stream into lines without ever holding more than `maxLineBytes` of one line:
 * once a line is longer, `overflowed` turns true and nothing more is returned.
 */
export class LineSplitter {
	private readonly maxLineBytes: number;
	private pending: Buffer[] = [];
	private pendingBytes = 0;
	overflowed = false;

	constructor(maxLineBytes: number = MAX_LINE_BYTES) {
		this.maxLineBytes = maxLineBytes;
	}

	/** The complete lines that `chunk` finishes, newlines removed. */
	push(chunk: Buffer): Buffer[] {
		const lines: Buffer[] = [];
		let start = 0;
		while (!this.overflowed) {
			const newline = chunk.indexOf(0x0a, start);
			const end = newline < 0 ? chunk.length : newline;
			if (this.pendingBytes + (end - start) > this.maxLineBytes) {
				this.overflowed = true;
				this.pending = [];
				this.pendingBytes = 0;
				break;
			}
			if (newline < 0) {
				if (end > start) {
					this.pending.push(chunk.subarray(start));
					this.pendingBytes += end - start;
				}
				break;
			}
			lines.push(Buffer.concat([...this.pending, chunk.subarray(start, newline)]));
			this.pending = [];
			this.pendingBytes = 0;
			start = newline + 1;
		}
		return lines;
	}
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isRequestId(value: unknown): value is RequestId {
	return typeof value === "string" || typeof value === "number" || value === null;
}

/** serde-wasm-bindgen may hand over maps as `Map`; JSON has only objects for them. */
function jsonReplacer(_key: string, value: unknown): unknown {
	return value instanceof Map ? Object.fromEntries(value) : value;
}

/** Compares in constant time; buffers of unequal length (the length is no secret) never match. */
function tokenMatches(given: unknown, expected: Buffer): boolean {
	if (typeof given !== "string") return false;
	const givenBytes = Buffer.from(given, "utf8");
	return givenBytes.length === expected.length && crypto.timingSafeEqual(givenBytes, expected);
}

/** Serves the bridge protocol on `socket` until either side closes it. */
export function serveConnection(socket: net.Socket, context: ProtocolContext): void {
	const expectedToken = Buffer.from(context.token, "utf8");
	const splitter = new LineSplitter();
	let authenticated = false;
	let closing = false;

	const send = (message: object): void => {
		if (!socket.destroyed) socket.write(`${JSON.stringify(message, jsonReplacer)}\n`);
	};
	const sendResult = (id: RequestId, result: unknown): void => send({ jsonrpc: "2.0", id, result });
	const sendError = (id: RequestId, error: ErrorObject): void => send({ jsonrpc: "2.0", id, error });
	/** Sends a last error, then closes the connection once it is flushed. */
	const closeWith = (id: RequestId, error: ErrorObject): void => {
		if (closing) return;
		closing = true;
		window.clearTimeout(helloTimer);
		if (socket.destroyed) return;
		// Half-close after the last error and drop what still arrives, until the peer closes
		// its side or the grace period ends. Destroying at once would make the kernel answer the
		// peer's unread bytes (the rest of an oversized line) with a reset, which can discard
		// the error line before the peer reads it.
		socket.end(`${JSON.stringify({ jsonrpc: "2.0", id, error })}\n`);
		// Obsidian's window timers are Blink's: a number, with no `unref` (nor a need for one).
		window.setTimeout(() => socket.destroy(), CLOSE_GRACE_MS);
	};
	const unauthorized = (id: RequestId, why: string): void =>
		closeWith(id, { code: ErrorCode.unauthorized, message: `unauthorized: ${why}` });

	/** The calls running, by id: each one's signal, aborted when the client cancels it or the connection closes. */
	const running = new Map<RequestId, AbortController>();
	const helloTimer = window.setTimeout(
		() => unauthorized(null, "no `hello` within the time allowed; connect again and send it first"),
		context.helloTimeoutMs ?? HELLO_TIMEOUT_MS,
	);

	const helloResult = () => ({
		protocol: PROTOCOL_VERSION,
		version: context.pluginVersion,
		vault_path: context.vaultPath,
		server: context.serverName,
	});

	const handleLine = (line: Buffer): void => {
		const text = line.toString("utf8");
		if (text.trim() === "") return;

		let message: unknown;
		try {
			message = JSON.parse(text);
		} catch (error) {
			const parseError = { code: ErrorCode.parseError, message: `parse error: ${(error as Error).message}` };
			if (authenticated) sendError(null, parseError);
			else closeWith(null, parseError);
			return;
		}

		const id = isRecord(message) && isRequestId(message["id"]) ? message["id"] : null;
		const isNotification = isRecord(message) && !("id" in message);
		if (!isRecord(message) || message["jsonrpc"] !== "2.0" || typeof message["method"] !== "string" || !isRequestId(message["id"] ?? null)) {
			const invalid = {
				code: ErrorCode.invalidRequest,
				message: "invalid request: expected one JSON-RPC 2.0 request object per line (batches are not supported)",
			};
			if (authenticated) sendError(id, invalid);
			else closeWith(id, invalid);
			return;
		}
		const method = message["method"];
		const params = message["params"];

		if (method === "hello" || !authenticated) {
			if (method !== "hello") {
				unauthorized(id, "the first request must be `hello` with the token from the discovery file");
			} else if (!isRecord(params) || !tokenMatches(params["token"], expectedToken)) {
				unauthorized(id, "wrong token; read it again from the discovery file (it changes every time the plugin loads)");
			} else if (params["protocol"] !== PROTOCOL_VERSION) {
				// The sidecar's own check says the same; told here, the settings tab shows it too.
				const skew =
					typeof params["protocol"] === "number"
						? incompatibility(
								{ version: typeof params["version"] === "string" ? params["version"] : null, protocol: params["protocol"] },
								{ version: context.pluginVersion, protocol: PROTOCOL_VERSION },
							)
						: null;
				const message = skew ?? `hello names no bridge protocol; this plugin speaks protocol ${PROTOCOL_VERSION}: update the vaultlink program to ${context.pluginVersion} or later`;
				context.onIncompatible?.(message);
				closeWith(id, { code: ErrorCode.incompatible, message, data: { protocol: PROTOCOL_VERSION, version: context.pluginVersion } });
			} else {
				authenticated = true;
				window.clearTimeout(helloTimer);
				context.onAuthenticated?.(typeof params["client"] === "string" ? params["client"] : null);
				if (!isNotification) sendResult(id, helloResult());
			}
			return;
		}
		if (isNotification) {
			if (method === "cancel" && isRecord(params) && isRequestId(params["id"])) running.get(params["id"])?.abort(CANCELLED_BY_CLIENT);
			return;
		}

		switch (method) {
			case "ping":
				sendResult(id, {});
				return;
			case "call":
				handleCall(id, params);
				return;
			default:
				sendError(id, { code: ErrorCode.methodNotFound, message: `method not found: ${method}; the bridge has hello, call and ping` });
		}
	};

	const handleCall = (id: RequestId, params: unknown): void => {
		if (!isRecord(params) || typeof params["tool"] !== "string") {
			sendError(id, { code: ErrorCode.invalidParams, message: "invalid params: `call` takes {\"tool\": string, \"arguments\": object}" });
			return;
		}
		const own = new AbortController();
		if (id !== null) running.set(id, own);
		const reply = (outcome: ToolOutcome): void => {
			if (running.get(id) === own) running.delete(id);
			if (closing) return;
			if (outcome.ok) {
				// Calls run at once and finish in any order; each answer carries its request's id.
				const line = JSON.stringify({ jsonrpc: "2.0", id, result: outcome.result }, jsonReplacer);
				const limit = context.maxAnswerBytes ?? MAX_ANSWER_BYTES;
				const bytes = Buffer.byteLength(line, "utf8");
				if (bytes <= limit) {
					if (!socket.destroyed) socket.write(`${line}\n`);
					return;
				}
				const error = {
					code: ToolErrorCode.TooLarge,
					message: `the answer is ${bytes} bytes, over the bridge's ${limit}-byte limit`,
					hint: "Ask for less: a smaller limit, response_format concise, or a smaller max_bytes.",
					retryable: false,
				};
				sendError(id, { code: ErrorCode.toolFailed, message: error.message, data: error });
			} else {
				sendError(id, { code: ErrorCode.toolFailed, message: outcome.error.message, data: outcome.error });
			}
		};
		const fail = (error: unknown): void => {
			if (running.get(id) === own) running.delete(id);
			console.error("vaultlink: the link engine threw", error);
			if (closing) return;
			sendError(id, { code: ErrorCode.internalError, message: `internal error in the link engine: ${String(error)}` });
		};
		try {
			const outcome = context.call(params["tool"], params["arguments"] ?? {}, own.signal);
			if (outcome instanceof Promise) {
				outcome.then(reply, fail);
			} else {
				reply(outcome);
			}
		} catch (error) {
			fail(error);
		}
	};

	socket.on("data", (chunk: Buffer) => {
		if (closing) return;
		for (const line of splitter.push(chunk)) {
			if (closing) return;
			handleLine(line);
		}
		if (splitter.overflowed) {
			closeWith(null, {
				code: ErrorCode.invalidRequest,
				message: `invalid request: a line longer than ${MAX_LINE_BYTES} bytes; the connection is closed`,
			});
		}
	});
	socket.on("close", () => {
		window.clearTimeout(helloTimer);
		for (const call of running.values()) call.abort();
		running.clear();
	});
	// A peer that vanishes mid-write is normal; there is nobody left to tell.
	socket.on("error", () => undefined);
}
