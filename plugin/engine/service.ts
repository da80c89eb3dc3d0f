/**
 * The link index and what is asked of it: one wasm `Vault` and the answer to each request of
 * `protocol.ts`. It runs inside the engine's Web Worker (`worker.ts`), and on the calling thread
 * only for the direct engine (`direct.ts`: the fallback where no worker can be made, and the
 * reference the worker is tested against). It imports the wasm glue, never `../wasm.ts`, which
 * would bring the module's bytes into the worker's code a second time.
 */

import { Vault } from "../wasm/vaultlink_wasm";
import { UPDATING_OPS, type EngineFailure, type EngineMessage, type EngineReply, type EngineRequest } from "./protocol";

export class EngineService {
	private readonly index = new Vault();
	/** Texts staged for the next call. */
	private staged = new Map<string, string>();
	/** The size of the module's linear memory, for `memoryBytes`; given by whoever loaded the module. */
	private readonly memoryBytes: () => number;

	constructor(memoryBytes: () => number) {
		this.memoryBytes = memoryBytes;
	}

	/** Answers one request; throws what the index throws (an unknown note, arguments that do not fit). */
	handle(request: EngineRequest): unknown {
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
			case "beginObserving":
				index.beginObserving();
				return undefined;
			case "configure":
				return index.configureFromObsidian(request.appJson, request.linkForm);
			case "findNote":
				return index.findNote(request.path);
			case "outgoingLinks":
				return index.outgoingLinks(request.path) as unknown;
			case "backlinks":
				return index.backlinks(request.path) as unknown;
			case "auditRename":
				return index.auditRename(request.from, request.to) as unknown;
			case "needs":
				return index.needs(request.tool, request.args, request.changes, request.call) as unknown;
			case "sketchesNeeded":
				return index.sketchesNeeded(request.tool, request.args, request.call);
			case "keepSketches":
				return index.keepSketches(request.paths, request.texts);
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
					request.call,
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

	/**
	 * How many missing notes the unresolved links name (`find_unresolved_links`' `total_targets`):
	 * the index keeps it current on every upsert, remove and rename, so this walks nothing.
	 */
	unresolvedCount(): number {
		return this.index.missingTargets();
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

/**
 * Answers requests in the order they come, each with one reply through `post`, and after an
 * update tells `post` when the count of unresolved targets changed (the index keeps the count as
 * it changes, so asking after every update costs nothing).
 */
export class EngineHost {
	private readonly service: EngineService;
	private readonly post: (reply: EngineReply) => void;
	private lastCountPosted: number | null = null;
	private freed = false;

	constructor(service: EngineService, post: (reply: EngineReply) => void) {
		this.service = service;
		this.post = post;
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
		if (UPDATING_OPS.has(message.op)) this.tellCount();
	}

	/** Frees the index. */
	free(): void {
		if (this.freed) return;
		this.freed = true;
		this.service.free();
	}

	private tellCount(): void {
		let count: number;
		try {
			count = this.service.unresolvedCount();
		} catch (error) {
			// The status bar keeps the last count; the next update tells it again.
			console.error("vaultlink: could not read the count of unresolved links", error);
			return;
		}
		if (count === this.lastCountPosted) return;
		this.lastCountPosted = count;
		this.post({ event: "unresolved", count });
	}
}
