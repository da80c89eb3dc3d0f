//! The link index and what is asked of it: one wasm `Vault` and the answer to each request of
//! `protocol.ts`. It runs inside the engine's Web Worker (`worker.ts`), and on the calling thread
//! only for the direct engine (`direct.ts`: the fallback where no worker can be made, and the
//! reference the worker is tested against). It imports the wasm glue, never `../wasm.ts`, which
//! would bring the module's bytes into the worker's code a second time.

import { Vault } from "../wasm/vaultlink_wasm";
import { UPDATING_OPS, type EngineFailure, type EngineMessage, type EngineReply, type EngineRequest } from "./protocol";

/** How many missing targets the index's links name (`find_unresolved_links`' `total_targets`). */
function countUnresolved(index: Vault): number {
	const outcome = index.call("find_unresolved_links", { limit: 1 }, undefined, undefined, undefined, undefined) as
		| { ok: true; result: { total_targets: number } }
		| { ok: false; error: { message: string } };
	if (!outcome.ok) throw new Error(`could not count the unresolved links: ${outcome.error.message}`);
	return outcome.result.total_targets;
}

export class EngineService {
	private readonly index = new Vault();
	/** Texts staged for the next call. */
	private staged = new Map<string, string>();
	/** Whether the index changed since the unresolved targets were last counted. */
	private changedSinceCount = true;
	private lastCount: number | null = null;
	/** The size of the module's linear memory, for `memoryBytes`; given by whoever loaded the module. */
	private readonly memoryBytes: () => number;

	constructor(memoryBytes: () => number) {
		this.memoryBytes = memoryBytes;
	}

	/** Answers one request; throws what the index throws (an unknown note, arguments that do not fit). */
	handle(request: EngineRequest): unknown {
		if (UPDATING_OPS.has(request.op)) this.changedSinceCount = true;
		const index = this.index;
		switch (request.op) {
			case "upsert":
				index.upsert(request.path, request.text);
				return undefined;
			case "upsertMany":
				index.upsertMany(request.paths, request.texts);
				return undefined;
			case "remove":
				return index.remove(request.path);
			case "rename":
				return index.rename(request.from, request.to);
			case "configure":
				return index.configureFromObsidian(request.appJson);
			case "findNote":
				return index.findNote(request.path);
			case "outgoingLinks":
				return index.outgoingLinks(request.path) as unknown;
			case "backlinks":
				return index.backlinks(request.path) as unknown;
			case "auditRename":
				return index.auditRename(request.from, request.to) as unknown;
			case "notesNeeded":
				return index.notesNeeded(request.tool, request.args, request.changes);
			case "stage":
				for (const [path, text] of request.texts) this.staged.set(path, text);
				return undefined;
			case "call": {
				const texts = this.staged;
				this.staged = new Map();
				const modified = request.modified;
				return index.call(
					request.tool,
					request.args,
					(path: string) => texts.get(path),
					(path: string) => modified.get(path),
					request.tag,
					request.changes,
				) as unknown;
			}
			case "planApplied":
				index.planApplied(request.planHash);
				return undefined;
			case "noteCount":
				return index.noteCount();
			case "memoryBytes":
				return this.memoryBytes();
			case "unresolvedCount":
				return this.unresolvedCount();
		}
	}

	/** The number of missing targets now, counted again only if the index changed since. */
	unresolvedCount(): number {
		if (this.changedSinceCount || this.lastCount === null) {
			this.lastCount = countUnresolved(this.index);
			this.changedSinceCount = false;
		}
		return this.lastCount;
	}

	/** Whether an update came since the last count. */
	get countIsStale(): boolean {
		return this.changedSinceCount;
	}

	/** Frees the index's wasm memory; nothing may be asked after this. */
	free(): void {
		this.index.free();
	}
}

/** An error as it crosses to the plugin. */
export function failureOf(error: unknown): EngineFailure {
	if (error instanceof Error) return { name: error.name, message: error.message };
	return { name: "Error", message: String(error) };
}

/** Quiet time after the last update before the unresolved targets are counted again. */
export const COUNT_QUIET_MS = 50;

/** Timers as the place the engine runs in gives them (the worker's scope, or the window). */
export interface EngineTimers {
	setTimeout(handler: () => void, delay: number): number;
	clearTimeout(id: number): void;
}

/**
 * Answers requests in the order they come, each with one reply through `post`, and tells `post`
 * when the count of unresolved targets changed: counted again once updates have been quiet for
 * `COUNT_QUIET_MS`, so a burst of saves costs one count, made where the index lives.
 */
export class EngineHost {
	private readonly service: EngineService;
	private readonly post: (reply: EngineReply) => void;
	private readonly timers: EngineTimers;
	private countTimer: number | null = null;
	private lastCountPosted: number | null = null;
	private freed = false;

	constructor(service: EngineService, post: (reply: EngineReply) => void, timers: EngineTimers) {
		this.service = service;
		this.post = post;
		this.timers = timers;
	}

	answer(message: EngineMessage): void {
		if (this.freed) return;
		let reply: EngineReply;
		try {
			const value = this.service.handle(message);
			reply = { id: message.id, ok: true, value };
			if (message.op === "unresolvedCount") this.lastCountPosted = value as number;
		} catch (error) {
			reply = { id: message.id, ok: false, error: failureOf(error) };
		}
		this.post(reply);
		if (UPDATING_OPS.has(message.op)) this.scheduleCount();
	}

	/** Stops counting and frees the index. */
	free(): void {
		if (this.freed) return;
		this.freed = true;
		if (this.countTimer !== null) this.timers.clearTimeout(this.countTimer);
		this.service.free();
	}

	private scheduleCount(): void {
		if (this.countTimer !== null) this.timers.clearTimeout(this.countTimer);
		this.countTimer = this.timers.setTimeout(() => {
			this.countTimer = null;
			if (this.freed || !this.service.countIsStale) return;
			try {
				const count = this.service.unresolvedCount();
				if (count === this.lastCountPosted) return;
				this.lastCountPosted = count;
				this.post({ event: "unresolved", count });
			} catch (error) {
				// The next update counts again; the status bar keeps the last count meanwhile.
				console.error("vaultlink: could not count the unresolved links", error);
			}
		}, COUNT_QUIET_MS);
	}
}
