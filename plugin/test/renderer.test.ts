/**
 * The renderer host (`renderer.ts`) follows the rules of Obsidian's window, and the plugin loads
 * under them: Blink's timers, `window` as the global, no synchronous compile of a module over
 * 4 KB, uncaught errors logged rather than fatal.
 *
 * This file does not import `support.ts`, which loads the link engine before the first test: here
 * the engine must still be unloaded when the plugin's `onload` runs.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import manifest from "../../manifest.json";
import VaultlinkPlugin from "../main";
import { kindTitle } from "../lint/report";
import { engineLoaded, lintRules } from "../wasm";
import inlinedWasm from "../wasm/vaultlink_wasm_bg.wasm";
import { App, asObsidianApp, fakeElementOf } from "./obsidian-double";
import {
	MAIN_THREAD_COMPILE_ERROR,
	MAIN_THREAD_INSTANCE_ERROR,
	clearRendererFaults,
	describeRendererFaults,
	nodeTimers,
	rendererFaults,
	rendererInstalled,
	withOnlyRendererFaultLog,
} from "./renderer";

/** The link engine's module as main.js holds it once inflated (esbuild's binary loader gives bytes). */
const wasmBytes = inlinedWasm as unknown as Uint8Array<ArrayBuffer>;

/** The plugin's index; read through a call, so a check that it is null does not narrow later reads. */
const indexOf = (plugin: VaultlinkPlugin) => plugin.index;

/** The smallest valid module: the magic number and version. */
const EMPTY_MODULE = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);

test("the test bundle runs under the renderer's rules from its first line", () => {
	assert.ok(rendererInstalled());
	assert.equal(window, globalThis);
	assert.equal(activeWindow, globalThis);
});

test("global timers are Blink's: numbers without unref, cleared by number; Node's come from require(\"timers\")", async () => {
	const timeout: unknown = setTimeout(() => undefined, 0);
	assert.equal(typeof timeout, "number");
	assert.equal((timeout as { unref?: unknown }).unref, undefined);
	const interval: unknown = setInterval(() => undefined, 1000);
	assert.equal(typeof interval, "number");
	clearInterval(interval as number);

	let fired = false;
	const cancelled = window.setTimeout(() => (fired = true), 5);
	window.clearTimeout(cancelled);
	await new Promise((resolve) => window.setTimeout(resolve, 20));
	assert.equal(fired, false, "a cleared timeout does not fire");
	const args = await new Promise<unknown[]>((resolve) => window.setTimeout((...given: unknown[]) => resolve(given), 0, "a", 1));
	assert.deepEqual(args, ["a", 1], "extra arguments reach the handler");

	const node = nodeTimers.setTimeout(() => undefined, 0);
	assert.equal(typeof node.unref, "function", "Node's own timers keep their handles");
	nodeTimers.clearTimeout(node);
});

test("the main thread refuses to compile or instantiate a module of more than 4 KB synchronously", async () => {
	assert.ok(wasmBytes.byteLength > 4096);
	assert.throws(() => new WebAssembly.Module(wasmBytes), (error: unknown) => error instanceof RangeError && error.message === MAIN_THREAD_COMPILE_ERROR);
	const compiled = await WebAssembly.compile(wasmBytes);
	assert.ok(compiled instanceof WebAssembly.Module, "an asynchronous compile is allowed, and its module is a WebAssembly.Module");
	assert.throws(() => new WebAssembly.Instance(compiled, {}), (error: unknown) => error instanceof RangeError && error.message === MAIN_THREAD_INSTANCE_ERROR);
	// A small module compiles and instantiates synchronously, as in Chromium.
	const small = new WebAssembly.Module(EMPTY_MODULE);
	assert.ok(new WebAssembly.Instance(small) instanceof WebAssembly.Instance);
});

test("the plugin's onload compiles nothing synchronously: it returns, then the engine loads and the first index runs", async () => {
	const vaultDir = fs.mkdtempSync(path.join(os.tmpdir(), "vaultlink-renderer-"));
	const runtimeDir = fs.mkdtempSync(path.join(os.tmpdir(), "vaultlink-rt-"));
	process.env["VAULTLINK_RUNTIME_DIR"] = path.join(runtimeDir, "run");
	try {
		fs.writeFileSync(path.join(vaultDir, "A.md"), "A links to [[B]].\n");
		fs.writeFileSync(path.join(vaultDir, "B.md"), "B.\n");
		assert.equal(engineLoaded(), false, "no test before this one loaded the engine");
		const plugin = new VaultlinkPlugin(asObsidianApp(new App(vaultDir)), { ...manifest });
		// Under the 4 KB rule a synchronous compile in onload would throw here.
		plugin.load();
		assert.equal(engineLoaded(), false, "the engine is still loading when onload returns");
		assert.equal(indexOf(plugin), null);
		assert.equal(plugin.startup.engineLoadedMs, null);
		// The settings tab opened at once waits for the engine, whose rules it lists.
		const tab = plugin.settingsTab;
		assert.ok(tab !== null);
		tab.display();
		await tab.drawing;
		assert.ok(engineLoaded(), "the tab drew once the engine was loaded");
		const drawn = fakeElementOf(tab.containerEl).getText();
		for (const rule of lintRules()) assert.ok(drawn.includes(kindTitle(rule.kind)), `the tab lists the ${rule.kind} check`);
		await plugin.ready;
		assert.ok(engineLoaded());
		assert.equal(indexOf(plugin)?.kind, "worker", "the index lives in a Web Worker, not on the window's thread");
		assert.equal(await indexOf(plugin)?.noteCount(), 2);
		assert.ok(plugin.bridgeInfo !== null, "the bridge is up");
		const { onloadMs, engineLoadedMs, firstIndexStartedMs, firstIndexDoneMs } = plugin.startup;
		assert.ok(engineLoadedMs !== null && firstIndexStartedMs !== null && firstIndexDoneMs !== null);
		assert.ok(onloadMs <= engineLoadedMs && engineLoadedMs <= firstIndexStartedMs && firstIndexStartedMs <= firstIndexDoneMs, JSON.stringify(plugin.startup));
		plugin.unload();
		assert.equal(rendererFaults().length, 0, describeRendererFaults());
	} finally {
		fs.rmSync(vaultDir, { recursive: true, force: true });
		fs.rmSync(runtimeDir, { recursive: true, force: true });
	}
});

test("an uncaught error is logged and recorded, and the process goes on", async () => {
	clearRendererFaults();
	const logged: unknown[][] = [];
	const consoleError = console.error;
	console.error = (...args: unknown[]) => logged.push(args);
	try {
		await withOnlyRendererFaultLog(async () => {
			window.setTimeout(() => {
				throw new Error("thrown in a timer");
			}, 0);
			void Promise.reject(new Error("rejected with nobody listening"));
			await new Promise((resolve) => window.setTimeout(resolve, 20));
		});
	} finally {
		console.error = consoleError;
	}
	const faults = rendererFaults().map((fault) => [fault.kind, fault.error instanceof Error ? fault.error.message : String(fault.error)]);
	clearRendererFaults();
	assert.deepEqual(faults.sort(), [
		["uncaughtException", "thrown in a timer"],
		["unhandledRejection", "rejected with nobody listening"],
	]);
	assert.equal(logged.length, 2, "each is written to the console");
});

/** A worker made from `source` through a blob: URL, as the plugin makes its engine's. */
function workerOf(source: string): Worker {
	const url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
	const worker = new Worker(url);
	// The browser looks the blob up when the worker is made: revoking the URL now is safe.
	URL.revokeObjectURL(url);
	return worker;
}

/** The next message `worker` posts. */
function nextMessage(worker: Worker): Promise<unknown> {
	return new Promise((resolve) => worker.addEventListener("message", (event) => resolve((event as MessageEvent).data), { once: true }));
}

test("a Worker is the browser's: made from a blob: or data: URL, its scope `self` without Node, messages cloned", async () => {
	assert.equal(typeof Worker, "function");
	const worker = workerOf(`
		self.onmessage = (event) => {
			const names = ["require", "process", "module", "exports", "Buffer", "global", "setImmediate", "window", "document"];
			postMessage({
				echoed: event.data,
				self: self === globalThis,
				absent: names.filter((name) => typeof globalThis[name] !== "undefined"),
				wasm: typeof WebAssembly.instantiate,
				decoder: typeof TextDecoder,
			});
		};
	`);
	try {
		const sent = { map: new Map([["a", 1]]), bytes: new Uint8Array([1, 2, 3]), nested: { list: [1, "two", null] } };
		// Posted before the script has started: it waits for it.
		const answer = nextMessage(worker);
		worker.postMessage(sent);
		const received = (await answer) as { echoed: typeof sent; self: boolean; absent: string[]; wasm: string; decoder: string };
		assert.deepEqual(received.echoed, sent, "a structured clone: maps and typed arrays survive");
		assert.notEqual(received.echoed, sent);
		assert.equal(received.self, true);
		assert.deepEqual(received.absent, [], "no Node inside the worker: no require, no process, no Buffer");
		assert.equal(received.wasm, "function");
		assert.equal(received.decoder, "function");
	} finally {
		worker.terminate();
	}

	const fromData = new Worker(`data:text/javascript,${encodeURIComponent("postMessage('from a data: URL')")}`);
	try {
		assert.equal(await nextMessage(fromData), "from a data: URL");
	} finally {
		fromData.terminate();
	}
	assert.throws(() => new Worker("file:///elsewhere/worker.js"), { name: "SecurityError" });
});

test("a function cannot be posted to or from a worker: DataCloneError, at the call", async () => {
	const worker = workerOf(`
		self.onmessage = () => {
			try {
				postMessage({ callback: () => 1 });
				postMessage("posted a function");
			} catch (error) {
				postMessage(error.name);
			}
		};
	`);
	try {
		assert.throws(() => worker.postMessage({ read: (path: string) => path }), { name: "DataCloneError" }, "before the script started");
		const answer = nextMessage(worker);
		worker.postMessage("go");
		assert.equal(await answer, "DataCloneError", "inside the worker too");
		assert.throws(() => worker.postMessage(() => 1), { name: "DataCloneError" }, "once it runs");
	} finally {
		worker.terminate();
	}
});

test("an error thrown uncaught in a worker is an error event on the Worker; the worker goes on, and the window logs it unless cancelled", async () => {
	clearRendererFaults();
	const worker = workerOf(`
		self.onmessage = (event) => {
			if (event.data === "throw") throw new TypeError("broken in the worker");
			postMessage("still here");
		};
	`);
	try {
		const cancelled = new Promise<Event & { message?: string }>((resolve) => {
			worker.onerror = (event) => {
				event.preventDefault();
				resolve(event);
			};
		});
		worker.postMessage("throw");
		const event = await cancelled;
		assert.match(event.message ?? "", /TypeError: broken in the worker/);
		assert.equal(rendererFaults().length, 0, "a cancelled error is not reported");
		const answer = nextMessage(worker);
		worker.postMessage("ping");
		assert.equal(await answer, "still here");

		worker.onerror = null;
		const logged: unknown[][] = [];
		const consoleError = console.error;
		console.error = (...args: unknown[]) => logged.push(args);
		try {
			const reported = new Promise((resolve) => worker.addEventListener("error", resolve, { once: true }));
			worker.postMessage("throw");
			await reported;
		} finally {
			console.error = consoleError;
		}
		const faults = rendererFaults().map((fault) => (fault.error instanceof Error ? fault.error.message : String(fault.error)));
		clearRendererFaults();
		assert.equal(faults.length, 1);
		assert.match(faults[0] ?? "", /broken in the worker/);
		assert.equal(logged.length, 1);
	} finally {
		worker.terminate();
	}
});

test("a terminated worker delivers nothing more", async () => {
	const worker = workerOf(`self.onmessage = (event) => postMessage(event.data);`);
	const first = nextMessage(worker);
	worker.postMessage(1);
	assert.equal(await first, 1);
	let delivered = false;
	worker.onmessage = () => (delivered = true);
	worker.postMessage(2);
	worker.terminate();
	worker.postMessage(3);
	await new Promise((resolve) => window.setTimeout(resolve, 50));
	assert.equal(delivered, false);
});
