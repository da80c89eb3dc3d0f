/**
 * The shipped `LinkEngine`: the index in a Web Worker. A plugin is one main.js, so the worker is
 * made from its bundled source, inlined as text (`inline-worker.mjs`), through a `blob:` URL;
 * the wasm module this thread compiled is posted to it and instantiated there. Messages are
 * structured-cloned both ways: no function crosses (`protocol.ts`).
 *
 * A crash. An uncaught error in the worker (an `error` event: the browser keeps the worker
 * running, but the index in it can no longer be trusted) or a message from it that cannot be
 * read ends that worker: it is terminated, every request on its way is rejected with an
 * `EngineRestartedError` (retryable), and a new worker is made from the same source and compiled
 * module, with an empty index. Listeners (`onRestart`) are told, so the plugin builds the index
 * again from the vault and then calls `rebuilt`; calls are refused until then. A crash loop
 * (`MAX_CRASHES` within `CRASH_WINDOW_MS`) moves the engine to this thread (the direct engine's
 * `EngineHost`) rather than restarting forever. A worker that stops answering without an event
 * (stopped by the browser, or by its own `close()`) is not seen: nothing tells a window so.
 */

import { engineMemoryBytes } from "../wasm";
import { LinkEngine, EngineFailedError, EngineRestartedError, type EngineKind } from "./client";
import type { EngineMessage, EngineReply, EngineStart } from "./protocol";
import { EngineHost, EngineService } from "./service";
import { messageOf } from "../ui/notice";

/** Crashes within `CRASH_WINDOW_MS` after which the engine leaves its worker for this thread. */
export const MAX_CRASHES = 3;
export const CRASH_WINDOW_MS = 60_000;

/** What the plugin is told when the engine started again after a crash. */
export interface EngineRestart {
	/** What the worker failed with. */
	reason: string;
	/** True when the engine now runs on this thread, after a crash loop; false for a new worker. */
	onThisThread: boolean;
}

export class WorkerEngine extends LinkEngine {
	/** Resolves once the first worker has compiled the module; rejects if it could not. */
	readonly loaded: Promise<void>;
	private readonly source: string;
	private readonly wasm: WebAssembly.Module;
	private worker: Worker | null;
	/** The engine on this thread, once a crash loop ended the workers. */
	private direct: EngineHost | null = null;
	private stopped = false;
	/** When the recent crashes happened (`Date.now()`), for the crash loop. */
	private crashes: number[] = [];
	private readonly restartListeners = new Set<(restart: EngineRestart) => void>();

	/** Makes the worker from `source` and hands it `wasm`; throws when no worker can be made here. */
	constructor(source: string, wasm: WebAssembly.Module) {
		super();
		this.source = source;
		this.wasm = wasm;
		let settle: { resolve: () => void; reject: (error: Error) => void } = { resolve: () => undefined, reject: () => undefined };
		this.loaded = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
		// Read by `startEngine`; a rejection nobody awaits must not be reported as unhandled.
		this.loaded.catch(() => undefined);
		this.worker = this.spawn(settle);
	}

	get kind(): EngineKind {
		return this.direct === null ? "worker" : "direct";
	}

	/** Calls `listener` after each restart; returns the unsubscription. */
	onRestart(listener: (restart: EngineRestart) => void): () => void {
		this.restartListeners.add(listener);
		return () => this.restartListeners.delete(listener);
	}

	protected post(message: EngineMessage): void {
		if (this.direct !== null) this.direct.answer(message);
		else this.worker?.postMessage(message);
	}

	dispose(): void {
		this.stopWith(new EngineFailedError("the link engine was stopped (the plugin unloaded)"));
	}

	/**
	 * A worker with its handlers. `first` is the first worker's start: its failure to load rejects
	 * `loaded` and stops the engine (`startEngine` then runs it on this thread); a later worker's
	 * failure is a crash.
	 */
	private spawn(first: { resolve: () => void; reject: (error: Error) => void } | null): Worker {
		const url = URL.createObjectURL(new Blob([this.source], { type: "text/javascript" }));
		let worker: Worker;
		try {
			worker = new Worker(url, { name: "vaultlink link engine" });
		} catch (error) {
			URL.revokeObjectURL(url);
			throw error;
		}
		let urlRevoked = false;
		let loaded = false;
		const revoke = () => {
			if (urlRevoked) return;
			urlRevoked = true;
			URL.revokeObjectURL(url);
		};
		worker.onmessage = (event: MessageEvent<EngineReply>) => {
			if (worker !== this.worker) return;
			const reply = event.data;
			if ("event" in reply && reply.event === "loaded") {
				revoke();
				loaded = true;
				first?.resolve();
				return;
			}
			if ("event" in reply && reply.event === "failed") {
				revoke();
				const message = `the link engine could not load in its worker: ${reply.error.message}`;
				if (first !== null) first.reject(new EngineFailedError(message));
				else this.stopWith(new EngineFailedError(message));
				return;
			}
			this.receive(reply);
		};
		worker.onmessageerror = () => {
			if (worker !== this.worker) return;
			if (first !== null && !loaded) this.stopWith(new EngineFailedError("the link engine's worker sent a message that could not be read"));
			else this.crashed(worker, "it sent a message that could not be read");
		};
		worker.onerror = (event: ErrorEvent) => {
			// Logged here, with what happened next; the window need not log it again.
			event.preventDefault();
			if (worker !== this.worker) return;
			revoke();
			if (first !== null && !loaded) {
				const error = new EngineFailedError(`the link engine's worker failed: ${event.message}`);
				first.reject(error);
				console.error(`vaultlink: ${error.message}`);
				this.stopWith(error);
				return;
			}
			this.crashed(worker, event.message);
		};
		const start: EngineStart = { op: "start", wasm: this.wasm };
		worker.postMessage(start);
		return worker;
	}

	/** The worker failed after it loaded: a new one, or this thread after a crash loop. */
	private crashed(worker: Worker, reason: string): void {
		if (this.stopped || worker !== this.worker) return;
		worker.terminate();
		this.worker = null;
		const now = Date.now();
		this.crashes = this.crashes.filter((at) => now - at < CRASH_WINDOW_MS);
		this.crashes.push(now);
		let onThisThread = this.crashes.length >= MAX_CRASHES;
		this.restartWith(new EngineRestartedError(`the link engine's worker failed (${reason}) and was started again; the vault is being indexed again`));
		if (!onThisThread) {
			try {
				this.worker = this.spawn(null);
			} catch {
				onThisThread = true;
			}
		}
		if (onThisThread) {
			try {
				this.direct = new EngineHost(new EngineService(engineMemoryBytes), (reply) => this.receive(reply));
			} catch (error) {
				this.stopWith(new EngineFailedError(`the link engine's worker failed (${reason}), and the engine could not start on this thread: ${messageOf(error)}`));
				return;
			}
		}
		console.error(
			onThisThread
				? `vaultlink: the link engine's worker failed ${this.crashes.length} times within a minute (last: ${reason}); the engine now runs on Obsidian's main thread`
				: `vaultlink: the link engine's worker failed (${reason}); a new one was started`,
		);
		for (const listener of [...this.restartListeners]) listener({ reason, onThisThread });
	}

	private stopWith(error: Error): void {
		if (this.stopped) return;
		this.stopped = true;
		this.worker?.terminate();
		this.worker = null;
		this.direct?.free();
		this.fail(error);
	}
}
