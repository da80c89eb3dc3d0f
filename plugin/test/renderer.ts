/**
 * The rules of the window Obsidian runs a plugin in, for the plugin's tests and the test host.
 *
 * Obsidian evaluates main.js in an Electron renderer window with Node integration, which is less
 * kind than plain Node:
 *
 * - the global `setTimeout` and `setInterval` are Blink's and return a number (there is no
 *   `.unref()`); Node's timers are reachable only through `require("timers")`;
 * - `window` is the global object (`activeWindow` too, in Obsidian's typings);
 * - the main thread refuses to compile or instantiate a WebAssembly module of more than 4 KB
 *   synchronously (`new WebAssembly.Module`, `new WebAssembly.Instance`), with a `RangeError`;
 * - an uncaught exception or an unhandled rejection is logged to the console, and the app goes on;
 * - `Worker` is the browser's dedicated worker (`worker.ts` here, on Node's worker_threads): made
 *   from a `blob:` or `data:` URL, messages structured-cloned (a function cannot be posted), no
 *   Node inside it (no `require`, no `process`: Electron's `nodeIntegrationInWorker` is off), an
 *   uncaught error in it an `error` event on the `Worker`, which the window logs unless a handler
 *   cancels it.
 *
 * `installRenderer()` makes this process's globals follow those rules (once; later calls do
 * nothing). Every test bundle runs it before anything else (plugin/test/build.mjs injects
 * `renderer-install.ts`) and the test host runs it before it loads main.js. A test that needs
 * Node's own timers takes them from `nodeTimers`. What was caught is kept in
 * `rendererFaults()`, so a test can assert that nothing was.
 */

import * as timers from "timers";
import { installWorker } from "./worker";

/** Node's timers, as `require("timers")` gives them inside Obsidian. */
export const nodeTimers = {
	setTimeout: timers.setTimeout,
	clearTimeout: timers.clearTimeout,
	setInterval: timers.setInterval,
	clearInterval: timers.clearInterval,
};

/** The largest module the main thread compiles or instantiates synchronously. */
export const MAIN_THREAD_WASM_LIMIT_BYTES = 4096;

/** Chromium's words when `new WebAssembly.Module` is given more than 4 KB on the main thread. */
export const MAIN_THREAD_COMPILE_ERROR =
	"WebAssembly.Compile is disallowed on the main thread, if the buffer size is larger than 4KB. Use WebAssembly.compile, or compile on a worker thread.";

/** Chromium's words when `new WebAssembly.Instance` is given a module of more than 4 KB on the main thread. */
export const MAIN_THREAD_INSTANCE_ERROR =
	"WebAssembly.Instance is disallowed on the main thread, if the buffer size is larger than 4KB. Use WebAssembly.instantiate.";

/** An error the renderer caught and logged instead of stopping. */
export interface RendererFault {
	kind: "uncaughtException" | "unhandledRejection";
	error: unknown;
}

const faults: RendererFault[] = [];
let installed = false;

/** The uncaught exceptions and unhandled rejections since the process started (or the last `clearRendererFaults`). */
export function rendererFaults(): readonly RendererFault[] {
	return faults;
}

export function clearRendererFaults(): void {
	faults.length = 0;
}

/** How the faults read in an assertion's message. */
export function describeRendererFaults(): string {
	return faults.map((fault) => `${fault.kind}: ${fault.error instanceof Error ? (fault.error.stack ?? fault.error.message) : String(fault.error)}`).join("\n");
}

/** Whether this process follows the renderer's rules. */
export function rendererInstalled(): boolean {
	return installed;
}

/** Makes this process's globals follow the renderer's rules (see the top of this file). */
export function installRenderer(): void {
	if (installed) return;
	installed = true;
	installTimers();
	installWindow();
	installWebAssembly();
	installFaultLog();
	installWorker(logUncaught);
}

type TimerHandler = (...args: unknown[]) => unknown;

function installTimers(): void {
	// Blink's ids are positive integers; a map from each to Node's handle lets clearTimeout work.
	const handles = new Map<number, NodeJS.Timeout>();
	let nextId = 1;
	const handlerOf = (handler: unknown): TimerHandler => {
		if (typeof handler !== "function") throw new TypeError("the renderer host runs function handlers only, not strings");
		return handler as TimerHandler;
	};
	const setTimeoutInRenderer = (handler: unknown, delay?: number, ...args: unknown[]): number => {
		const run = handlerOf(handler);
		const id = nextId++;
		handles.set(
			id,
			nodeTimers.setTimeout(() => {
				handles.delete(id);
				run(...args);
			}, delay),
		);
		return id;
	};
	const setIntervalInRenderer = (handler: unknown, delay?: number, ...args: unknown[]): number => {
		const run = handlerOf(handler);
		const id = nextId++;
		handles.set(
			id,
			nodeTimers.setInterval(() => run(...args), delay),
		);
		return id;
	};
	// As Blink's: one list of ids for both kinds, and anything that is not a live id is ignored
	// (a handle of Node's timers included: it has to go back to `require("timers")`).
	const clearInRenderer = (id: unknown): void => {
		if (typeof id !== "number") return;
		const handle = handles.get(id);
		if (handle === undefined) return;
		handles.delete(id);
		nodeTimers.clearTimeout(handle);
	};
	const global = globalThis as unknown as Record<string, unknown>;
	global["setTimeout"] = setTimeoutInRenderer;
	global["setInterval"] = setIntervalInRenderer;
	global["clearTimeout"] = clearInRenderer;
	global["clearInterval"] = clearInRenderer;
}

function installWindow(): void {
	const global = globalThis as unknown as Record<string, unknown>;
	global["window"] = globalThis;
	global["activeWindow"] = globalThis;
}

function byteLengthOf(source: unknown): number | undefined {
	if (ArrayBuffer.isView(source) || source instanceof ArrayBuffer) return source.byteLength;
	return undefined;
}

function installWebAssembly(): void {
	const wasm = WebAssembly as unknown as Record<string, unknown>;
	const RealModule = WebAssembly.Module;
	const RealInstance = WebAssembly.Instance;
	const realCompile = WebAssembly.compile.bind(WebAssembly);
	const realInstantiate = WebAssembly.instantiate.bind(WebAssembly) as (source: unknown, imports?: WebAssembly.Imports) => Promise<unknown>;
	// Each module's size in bytes, however it was compiled, so a synchronous instantiation of a
	// large one is refused as Chromium refuses it.
	const sizes = new WeakMap<WebAssembly.Module, number>();
	wasm["Module"] = new Proxy(RealModule, {
		construct(target, args: unknown[], newTarget: unknown) {
			const size = byteLengthOf(args[0]);
			if (size !== undefined && size > MAIN_THREAD_WASM_LIMIT_BYTES) throw new RangeError(MAIN_THREAD_COMPILE_ERROR);
			const module = Reflect.construct(target, args, newTarget as () => unknown) as WebAssembly.Module;
			if (size !== undefined) sizes.set(module, size);
			return module;
		},
	});
	wasm["Instance"] = new Proxy(RealInstance, {
		construct(target, args: unknown[], newTarget: unknown) {
			const module = args[0];
			const size = module instanceof RealModule ? sizes.get(module) : undefined;
			if (size !== undefined && size > MAIN_THREAD_WASM_LIMIT_BYTES) throw new RangeError(MAIN_THREAD_INSTANCE_ERROR);
			return Reflect.construct(target, args, newTarget as () => unknown) as WebAssembly.Instance;
		},
	});
	wasm["compile"] = async (bytes: BufferSource): Promise<WebAssembly.Module> => {
		const module = await realCompile(bytes);
		const size = byteLengthOf(bytes);
		if (size !== undefined) sizes.set(module, size);
		return module;
	};
	wasm["instantiate"] = async (source: unknown, imports?: WebAssembly.Imports): Promise<unknown> => {
		const result = await realInstantiate(source, imports);
		const size = byteLengthOf(source);
		if (size !== undefined && typeof result === "object" && result !== null && "module" in result) {
			sizes.set((result as WebAssembly.WebAssemblyInstantiatedSource).module, size);
		}
		return result;
	};
}

const logUncaught = (error: unknown): void => {
	faults.push({ kind: "uncaughtException", error });
	console.error("Uncaught", error);
};

const logUnhandled = (reason: unknown): void => {
	faults.push({ kind: "unhandledRejection", error: reason });
	console.error("Uncaught (in promise)", reason);
};

function installFaultLog(): void {
	process.on("uncaughtException", logUncaught);
	process.on("unhandledRejection", logUnhandled);
}

/**
 * Runs `run` with the renderer's fault log as the only listener for uncaught errors, as in
 * Obsidian, where nobody else listens. node:test listens too, and fails the run on any uncaught
 * error; a test of the log itself steps it aside for a moment, and every other test keeps it.
 */
export async function withOnlyRendererFaultLog(run: () => Promise<void>): Promise<void> {
	const others = {
		uncaughtException: process.listeners("uncaughtException").filter((listener) => listener !== logUncaught),
		unhandledRejection: process.listeners("unhandledRejection").filter((listener) => listener !== logUnhandled),
	};
	for (const listener of others.uncaughtException) process.off("uncaughtException", listener);
	for (const listener of others.unhandledRejection) process.off("unhandledRejection", listener);
	try {
		await run();
	} finally {
		for (const listener of others.uncaughtException) process.on("uncaughtException", listener);
		for (const listener of others.unhandledRejection) process.on("unhandledRejection", listener);
	}
}
