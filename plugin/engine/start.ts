/**
 * Starts the plugin's link engine: in a Web Worker made from the worker's source inlined in
 * main.js (`inline-worker.mjs`), handed the wasm module this thread compiled; on the calling
 * thread (`DirectEngine`) only where no worker can be made, and then it says so.
 */

import workerSource from "inline-worker:./worker";
import { compiledModule, loadEngine } from "../wasm";
import type { LinkEngine } from "./client";
import { DirectEngine } from "./direct";
import { WorkerEngine } from "./worker-engine";
import { messageOf } from "../ui/notice";

export { workerSource };

/** A worker engine, once its module is loaded; rejects when no worker can be made or it cannot load. */
export async function startWorkerEngine(): Promise<WorkerEngine> {
	const engine = new WorkerEngine(workerSource, await compiledModule());
	try {
		await engine.loaded;
	} catch (error) {
		engine.dispose();
		throw error;
	}
	return engine;
}

/**
 * The link engine: in a worker, or, where none can be made, on this thread, with the reason
 * logged once. The module is loaded on this thread anyway (`loadEngine`) for the pure functions
 * the plugin calls itself (`parseNote`, `contentHash`, `sealJournal`, …); no index lives here.
 */
export async function startEngine(): Promise<LinkEngine> {
	if (typeof Worker !== "function") return direct("this window has no Web Worker");
	try {
		return await startWorkerEngine();
	} catch (error) {
		return direct(`its worker could not be started (${messageOf(error)})`);
	}
}

async function direct(why: string): Promise<DirectEngine> {
	await loadEngine();
	console.warn(`vaultlink: the link engine runs on Obsidian's main thread, since ${why}; long calls such as a lint of the vault pause the app while they run`);
	return new DirectEngine(why);
}
