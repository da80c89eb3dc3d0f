/**
 * The engine's Web Worker: the link index lives here, off Obsidian's UI thread. esbuild bundles
 * this file on its own (`plugin/engine/inline-worker.mjs`) and main.js holds the bundle as text,
 * from which `client.ts` makes the worker (a plugin is one main.js, so there is no file to point
 * a worker at). Its first message is the wasm module the window compiled, instantiated here;
 * then each message is one request of `protocol.ts`, answered in the order it came
 * (`EngineHost`). Requests that arrive while the module compiles wait for it.
 */

import initialiseWasm from "../wasm/vaultlink_wasm";
import type { EngineMessage, EngineReply, EngineStart } from "./protocol";
import { EngineHost, EngineService, failureOf } from "./service";

/** The parts of a dedicated worker's global scope this uses. */
interface WorkerScope {
	onmessage: ((event: MessageEvent<EngineMessage | EngineStart>) => void) | null;
	postMessage(message: EngineReply): void;
}

const scope = self as unknown as WorkerScope;
let host: EngineHost | null = null;
/** Requests that came before the module was loaded, in order. */
let waiting: EngineMessage[] | null = [];

scope.onmessage = (event) => {
	const message = event.data;
	if (message.op === "start") {
		start(message.wasm);
		return;
	}
	if (waiting !== null) waiting.push(message);
	else host?.answer(message);
};

function start(wasm: WebAssembly.Module): void {
	// Asynchronous, as the window must: `initialiseWasm` compiles with `WebAssembly.instantiate`.
	initialiseWasm({ module_or_path: wasm }).then(
		(output) => {
			const service = new EngineService(() => output.memory.buffer.byteLength);
			const started = new EngineHost(service, (reply) => scope.postMessage(reply));
			host = started;
			scope.postMessage({ event: "loaded" });
			const queued = waiting ?? [];
			waiting = null;
			for (const message of queued) started.answer(message);
		},
		(error: unknown) => scope.postMessage({ event: "failed", error: failureOf(error) }),
	);
}
