//! The shipped `LinkEngine`: the index in a Web Worker. A plugin is one main.js, so the worker is
//! made from its bundled source, inlined as text (`inline-worker.mjs`), through a `blob:` URL;
//! the wasm module this thread compiled is posted to it and instantiated there. Messages are
//! structured-cloned both ways: no function crosses (`protocol.ts`).

import { LinkEngine, EngineFailedError } from "./client";
import type { EngineMessage, EngineReply, EngineStart } from "./protocol";

export class WorkerEngine extends LinkEngine {
	readonly kind = "worker";
	/** Resolves once the worker has compiled the module; rejects if it could not. */
	readonly loaded: Promise<void>;
	private readonly worker: Worker;
	private stopped = false;

	/** Makes the worker from `source` and hands it `wasm`; throws when no worker can be made here. */
	constructor(source: string, wasm: WebAssembly.Module) {
		super();
		const url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
		let worker: Worker;
		try {
			worker = new Worker(url, { name: "vaultlink link engine" });
		} catch (error) {
			URL.revokeObjectURL(url);
			throw error;
		}
		this.worker = worker;
		let settle: { resolve: () => void; reject: (error: Error) => void } = { resolve: () => undefined, reject: () => undefined };
		this.loaded = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
		// Read by `startEngine`; a rejection nobody awaits must not be reported as unhandled.
		this.loaded.catch(() => undefined);
		let urlRevoked = false;
		const revoke = () => {
			if (urlRevoked) return;
			urlRevoked = true;
			URL.revokeObjectURL(url);
		};
		worker.onmessage = (event: MessageEvent<EngineReply>) => {
			const reply = event.data;
			if ("event" in reply && reply.event === "loaded") {
				revoke();
				settle.resolve();
				return;
			}
			if ("event" in reply && reply.event === "failed") {
				revoke();
				settle.reject(new EngineFailedError(`the link engine could not load in its worker: ${reply.error.message}`));
			}
			this.receive(reply);
		};
		worker.onmessageerror = () => {
			this.stopWith(new EngineFailedError("the link engine's worker sent a message that could not be read"));
		};
		worker.onerror = (event: ErrorEvent) => {
			// Logged here, with what to do; the window need not log it again.
			event.preventDefault();
			revoke();
			const error = new EngineFailedError(`the link engine's worker failed: ${event.message}`);
			settle.reject(error);
			console.error(`vaultlink: ${error.message}; disable and enable the plugin to start it again`);
			this.stopWith(error);
		};
		const start: EngineStart = { op: "start", wasm };
		worker.postMessage(start);
	}

	protected post(message: EngineMessage): void {
		this.worker.postMessage(message);
	}

	dispose(): void {
		this.stopWith(new EngineFailedError("the link engine was stopped (the plugin unloaded)"));
	}

	private stopWith(error: Error): void {
		if (this.stopped) return;
		this.stopped = true;
		this.worker.terminate();
		this.fail(error);
	}
}
