/**
 * The browser's dedicated `Worker` for the renderer host (`renderer.ts` installs it), on Node's
 * worker_threads, as strict as Chromium's where the plugin could tell:
 *
 * - made from a `blob:` URL (`URL.createObjectURL`) or a `data:` URL, a classic script; any other
 *   URL, or `type: "module"`, throws, as the plugin never uses them; a revoked or unknown blob
 *   URL is an `error` event, as a failed fetch of the script is;
 * - `postMessage` structured-clones at the call, both ways: a function (or anything else the
 *   algorithm refuses) throws a `DataCloneError` there; messages posted before the script has
 *   started wait for it, in order;
 * - the worker's global scope is `self`, with `postMessage`, `onmessage`, `addEventListener`,
 *   `close`, and no Node: `require`, `process`, `module`, `Buffer`, `global`, `setImmediate` and
 *   the rest are absent, as in Electron with `nodeIntegrationInWorker` off (its default);
 * - an error thrown uncaught inside the worker does not stop it: it becomes an `error` event on
 *   the `Worker` (`message`, `filename`, `lineno`, `colno`; no error object crosses), and unless
 *   a handler cancels it (`preventDefault`) the window reports it as uncaught;
 * - `terminate()` stops it at once; nothing it posted after is delivered.
 *
 * Not copied: a worker's own `self.onerror`, `importScripts`, shared and module workers.
 */

import { resolveObjectURL } from "buffer";
import { Worker as ThreadWorker, MessageChannel } from "worker_threads";

/** Runs in the thread first: makes its global scope a worker's, then runs the worker's script. */
const PRELUDE = `
"use strict";
const { parentPort, workerData } = require("worker_threads");
const vm = require("vm");
const nodeProcess = process;
const { source, filename, control } = workerData;
const scope = globalThis;
const describe = (error) => (error instanceof Error ? error.name + ": " + error.message : String(error));
const lineOf = (error) => {
	const found = error instanceof Error && typeof error.stack === "string" ? /:(\\d+):(\\d+)\\)?\\n?/.exec(error.stack.split("\\n").slice(1).join("\\n")) : null;
	return found === null ? { lineno: 0, colno: 0 } : { lineno: Number(found[1]), colno: Number(found[2]) };
};
nodeProcess.on("uncaughtException", (error) => {
	control.postMessage({ message: "Uncaught " + describe(error), filename, ...lineOf(error) });
});
nodeProcess.on("unhandledRejection", (reason) => {
	console.error("Uncaught (in promise)", reason);
});
const events = new EventTarget();
scope.self = scope;
scope.onmessage = null;
scope.onmessageerror = null;
scope.onerror = null;
scope.postMessage = (message, transfer) => parentPort.postMessage(message, transfer);
scope.addEventListener = events.addEventListener.bind(events);
scope.removeEventListener = events.removeEventListener.bind(events);
scope.dispatchEvent = events.dispatchEvent.bind(events);
scope.close = () => parentPort.close();
parentPort.on("message", (data) => {
	const event = new MessageEvent("message", { data });
	if (typeof scope.onmessage === "function") scope.onmessage(event);
	events.dispatchEvent(event);
});
// Node defines some web globals lazily, loading code that needs Node's own globals: load them first.
for (const name of ["fetch", "Request", "Response", "Headers", "FormData", "WebSocket", "crypto", "navigator"]) {
	try {
		void scope[name];
	} catch {}
}
for (const name of ["require", "module", "exports", "__filename", "__dirname", "process", "Buffer", "global", "setImmediate", "clearImmediate"]) {
	delete scope[name];
}
vm.runInThisContext(source, { filename });
`;

/** What an `error` event on a `Worker` carries (Node has no `ErrorEvent`). */
interface WorkerErrorFields {
	message: string;
	filename: string;
	lineno: number;
	colno: number;
}

/** The error a fetch of the worker's script ends with, reported as an `error` event. */
class WorkerScriptError extends Error {}

export class RendererWorker extends EventTarget {
	onmessage: ((event: MessageEvent) => void) | null = null;
	onmessageerror: ((event: MessageEvent) => void) | null = null;
	onerror: ((event: Event & WorkerErrorFields) => void) | null = null;
	private thread: ThreadWorker | null = null;
	/** Messages posted before the script started, already cloned. */
	private waiting: { message: unknown; transfer: Transferable[] }[] = [];
	private terminated = false;
	private readonly reportUncaught: (error: unknown) => void;

	constructor(url: string | URL, options: { name?: string; type?: string; credentials?: string } = {}, reportUncaught: (error: unknown) => void = () => undefined) {
		super();
		this.reportUncaught = reportUncaught;
		if (options.type !== undefined && options.type !== "classic") throw new TypeError(`this host makes classic workers only, not ${options.type} ones`);
		const href = String(url);
		let source: Promise<string>;
		if (href.startsWith("blob:")) {
			// As the browser, the blob is looked up now, so revoking the URL right after is safe.
			const blob = resolveObjectURL(href);
			source = blob === undefined ? Promise.reject(new WorkerScriptError(`the worker's script at ${href} could not be loaded`)) : blob.text();
		} else if (href.startsWith("data:")) {
			source = fetchDataUrl(href);
		} else {
			throw new DOMException(`Failed to construct 'Worker': Script at '${href}' cannot be accessed from this host, which makes workers from blob: and data: URLs only.`, "SecurityError");
		}
		source.then(
			(text) => this.start(text, href),
			(error: unknown) => this.fireError({ message: error instanceof Error ? error.message : String(error), filename: href, lineno: 0, colno: 0 }),
		);
	}

	postMessage(message: unknown, transfer: Transferable[] | { transfer?: Transferable[] } = []): void {
		const transferList = Array.isArray(transfer) ? transfer : (transfer.transfer ?? []);
		if (this.terminated) return;
		if (this.thread !== null) {
			// Node's port clones at the call and throws a DataCloneError, as Chromium's does.
			this.thread.postMessage(message, transferList as never);
			return;
		}
		this.waiting.push({ message: structuredClone(message, { transfer: transferList as never }), transfer: [] });
	}

	terminate(): void {
		if (this.terminated) return;
		this.terminated = true;
		this.waiting = [];
		void this.thread?.terminate();
		this.thread = null;
	}

	private start(source: string, filename: string): void {
		if (this.terminated) return;
		const control = new MessageChannel();
		const thread = new ThreadWorker(PRELUDE, {
			eval: true,
			workerData: { source, filename, control: control.port2 },
			transferList: [control.port2],
			// Messages only; the worker's console goes where the window's does.
			stdout: false,
			stderr: false,
		});
		this.thread = thread;
		thread.on("message", (data: unknown) => {
			if (this.terminated) return;
			const event = new MessageEvent("message", { data });
			this.onmessage?.(event);
			this.dispatchEvent(event);
		});
		thread.on("messageerror", () => {
			if (this.terminated) return;
			const event = new MessageEvent("messageerror", {});
			this.onmessageerror?.(event);
			this.dispatchEvent(event);
		});
		control.port1.on("message", (fields: WorkerErrorFields) => {
			if (!this.terminated) this.fireError(fields);
		});
		control.port1.unref();
		// The thread itself failing (it cannot, but for its prelude) is the worker failing.
		thread.on("error", (error: Error) => {
			if (!this.terminated) this.fireError({ message: `Uncaught ${error.name}: ${error.message}`, filename, lineno: 0, colno: 0 });
		});
		for (const { message } of this.waiting.splice(0)) thread.postMessage(message);
	}

	private fireError(fields: WorkerErrorFields): void {
		const event = Object.assign(new Event("error", { cancelable: true }), fields, { error: null });
		this.onerror?.(event);
		this.dispatchEvent(event);
		if (!event.defaultPrevented) this.reportUncaught(new Error(`${fields.message} (in the worker at ${fields.filename}:${fields.lineno})`));
	}
}

async function fetchDataUrl(href: string): Promise<string> {
	const comma = href.indexOf(",");
	if (comma < 0) throw new WorkerScriptError(`${href.slice(0, 40)}… is not a data: URL`);
	const header = href.slice(5, comma);
	const body = href.slice(comma + 1);
	return header.endsWith(";base64") ? Buffer.from(body, "base64").toString("utf8") : decodeURIComponent(body);
}

/** Makes `Worker` the global the plugin makes its engine's worker with; `reportUncaught` logs what the window would. */
export function installWorker(reportUncaught: (error: unknown) => void): void {
	const global = globalThis as unknown as Record<string, unknown>;
	global["Worker"] = class Worker extends RendererWorker {
		constructor(url: string | URL, options?: { name?: string; type?: string }) {
			super(url, options, reportUncaught);
		}
	};
}
