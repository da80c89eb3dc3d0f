/**
 * The plugin's link engine: every use of the link index goes through a `LinkEngine`, whose
 * methods are asynchronous. Two carry it:
 *
 * - `WorkerEngine`, shipped: the index lives in a Web Worker (`worker.ts`) made from source
 *   inlined in main.js, so no engine call blocks Obsidian's UI thread;
 * - `DirectEngine`: the same requests answered on the calling thread (`EngineService`), the
 *   fallback where a worker cannot be made (`startEngine` says so), and the reference the
 *   worker is tested against.
 *
 * Order. Requests reach the engine in the order they are made, and it answers them in that
 * order, so an update made before a call is applied before the call runs. Calls (core's `call`)
 * wait on this side, one at a time, until the engine is free: a call whose caller went away
 * (its `signal` aborted) before its turn is dropped unsent (`CallDroppedError`). A call already
 * sent runs to its end: a worker cannot be interrupted without SharedArrayBuffer, which an
 * Obsidian window need not have, so its answer is left unread instead. Updates and the small
 * queries are sent at once; they overtake only calls still waiting here, which then see a
 * fresher index.
 *
 * A call's texts go to the engine in parts of at most `STAGE_CHARACTERS` characters before
 * the call itself, so posting them never copies the whole vault in one message on the UI thread.
 */

import type { ListedChange, CallOutcome, OutgoingLinks, RenameAudit } from "../wasm";
import type { CallInputs, CallNeeds, EngineFailure, EngineMessage, EngineReply, EngineRequest } from "./protocol";

/** The most characters of note text one message carries to the engine. */
export const STAGE_CHARACTERS = 1 << 20;

/** What a request was rejected with when the engine itself failed (its worker died, or it could not load). */
export class EngineFailedError extends Error {
	constructor(message: string) {
		super(message);
		this.name = "EngineFailedError";
	}
}

/**
 * What a request was rejected with when the engine's worker crashed while it was on its way (or
 * while the index was being built again after the crash): the engine was started again, so the
 * same request may be made again once the vault is indexed.
 */
export class EngineRestartedError extends Error {
	constructor(message: string) {
		super(message);
		this.name = "EngineRestartedError";
	}
}

/** A call dropped before it started, because its caller went away. */
export class CallDroppedError extends Error {
	constructor(tool: string) {
		super(`the call of ${tool} was dropped before it started: its caller went away`);
		this.name = "CallDroppedError";
	}
}

/** An error the engine answered with (an unknown note, for example), with the engine's own words. */
export class EngineError extends Error {
	constructor(failure: EngineFailure) {
		super(failure.message);
		this.name = failure.name === "Error" ? "EngineError" : failure.name;
	}
}

/** Where a `LinkEngine` runs: in a Web Worker, or on the calling thread. */
export type EngineKind = "worker" | "direct";

interface Pending {
	resolve: (value: unknown) => void;
	reject: (error: Error) => void;
}

interface WaitingCall {
	tool: string;
	send: () => Promise<unknown>;
	signal: AbortSignal | undefined;
	resolve: (value: unknown) => void;
	reject: (error: Error) => void;
}

export abstract class LinkEngine {
	abstract readonly kind: EngineKind;
	private nextId = 1;
	private readonly pending = new Map<number, Pending>();
	private readonly calls: WaitingCall[] = [];
	private callRunning = false;
	private failure: Error | null = null;
	private readonly unresolvedListeners = new Set<(count: number) => void>();
	private lastUnresolved: number | null = null;
	/** Set while the index is built again after a crash: calls are refused with it meanwhile. */
	private rebuilding: Error | null = null;

	/** Hands one request to the engine. */
	protected abstract post(message: EngineMessage): void;

	/** Stops the engine; every request still unanswered is rejected. */
	abstract dispose(): void;

	/** Takes one reply or event from the engine. */
	protected receive(reply: EngineReply): void {
		if ("event" in reply) {
			if (reply.event === "unresolved") this.tellUnresolved(reply.count);
			else if (reply.event === "failed") this.fail(new EngineFailedError(`the link engine could not load: ${reply.error.message}`));
			return;
		}
		const pending = this.pending.get(reply.id);
		if (pending === undefined) return;
		this.pending.delete(reply.id);
		if (reply.ok) pending.resolve(reply.value);
		else pending.reject(new EngineError(reply.error));
	}

	/** Rejects every request unanswered and every later one with `error`. */
	protected fail(error: Error): void {
		this.failure ??= error;
		const pending = [...this.pending.values()];
		this.pending.clear();
		for (const request of pending) request.reject(this.failure);
		const calls = this.calls.splice(0);
		for (const call of calls) call.reject(this.failure);
	}

	/**
	 * Rejects every request on its way and every call waiting with `error`, and refuses calls with
	 * it until `rebuilt`: the engine started again with an empty index. Updates and queries are
	 * still taken, so the index can be built again.
	 */
	protected restartWith(error: Error): void {
		this.rebuilding = error;
		const pending = [...this.pending.values()];
		this.pending.clear();
		for (const request of pending) request.reject(error);
		const calls = this.calls.splice(0);
		for (const call of calls) call.reject(error);
	}

	/** The index holds the vault again after a restart: calls are taken again. */
	rebuilt(): void {
		this.rebuilding = null;
	}

	private request(request: EngineRequest): Promise<unknown> {
		if (this.failure !== null) return Promise.reject(this.failure);
		const id = this.nextId++;
		const answered = new Promise<unknown>((resolve, reject) => this.pending.set(id, { resolve, reject }));
		try {
			this.post({ ...request, id });
		} catch (error) {
			this.pending.delete(id);
			return Promise.reject(error instanceof Error ? error : new Error(String(error)));
		}
		return answered;
	}

	/** Adds a file or replaces its text (an attachment's is ""). */
	async upsert(path: string, text: string): Promise<void> {
		await this.request({ op: "upsert", path, text });
	}

	/** Adds or replaces many files at once, `paths[i]` holding `texts[i]`: the first index, in batches. */
	async upsertMany(paths: string[], texts: string[]): Promise<void> {
		await this.request({ op: "upsertMany", paths, texts });
	}

	/** Removes a file; false when there was none. */
	async remove(path: string): Promise<boolean> {
		return (await this.request({ op: "remove", path })) as boolean;
	}

	/** Moves a file; false when there was none at `from`. */
	async rename(from: string, to: string): Promise<boolean> {
		return (await this.request({ op: "rename", from, to })) as boolean;
	}

	/**
	 * The first index is whole: the notes that vanish and appear from now on (a move made outside
	 * Obsidian reaches it as a delete and a create) are compared with it by `detected_moves` and
	 * `heal_moves`.
	 */
	async beginObserving(): Promise<void> {
		await this.request({ op: "beginObserving" });
	}

	/** Follows Obsidian's settings from the text of `app.json`; a sentence for each setting it cannot follow. */
	async configure(appJson: string, linkForm?: string): Promise<string[]> {
		return (await this.request({ op: "configure", appJson, linkForm })) as string[];
	}

	/** The path of the note a person means by `path`, or undefined. */
	async findNote(path: string): Promise<string | undefined> {
		return (await this.request({ op: "findNote", path })) as string | undefined;
	}

	/** The note's links with their resolutions; rejects when the index has no such note. */
	async outgoingLinks(path: string): Promise<OutgoingLinks> {
		return (await this.request({ op: "outgoingLinks", path })) as OutgoingLinks;
	}

	/** The links that point to the note, the first thousand; rejects when the index has no such note. */
	backlinks(path: string): Promise<unknown> {
		return this.request({ op: "backlinks", path });
	}

	/** Core's rename audit of the file now at `to`, renamed from `from`. */
	async auditRename(from: string, to: string): Promise<RenameAudit> {
		return (await this.request({ op: "auditRename", from, to })) as RenameAudit;
	}

	/** The notes a call of `tool` with `args` (or the call `needs` read, `call`) needs sketched before it runs (core's `ops::sketches_needed`). */
	async sketchesNeeded(tool: string, args: unknown, call?: number): Promise<string[]> {
		return (await this.request({ op: "sketchesNeeded", tool, args, call })) as string[];
	}

	/** Sketches one batch of the notes `sketchesNeeded` named from their texts; how many the index kept. */
	async keepSketches(paths: string[], texts: string[]): Promise<number> {
		return (await this.request({ op: "keepSketches", paths, texts })) as number;
	}

	/**
	 * What a call of `tool` with `args` reads before it runs (core's `needs::needs`): the notes,
	 * whether the kept changes and those undoes set aside (then asked again with `changes`, which
	 * decide an undo's notes), whether what the index saw change, and whose modification times.
	 * `call`, the number an earlier answer gave, names the call as the engine read it, so its
	 * arguments are read once.
	 */
	async needs(tool: string, args: unknown, changes?: ListedChange[], call?: number): Promise<CallNeeds> {
		return (await this.request({ op: "needs", tool, args, changes, call })) as CallNeeds;
	}

	/** The notes whose texts a call of `tool` with `args` will ask for (`needs`' `notes`). */
	async notesNeeded(tool: string, args: unknown, changes?: ListedChange[]): Promise<string[]> {
		return (await this.needs(tool, args, changes)).notes;
	}

	/**
	 * Runs one of core's operations (core's `ops::call`) with what the plugin gathered for it,
	 * once the calls before it have finished; dropped (`CallDroppedError`) if `signal` is aborted
	 * before its turn.
	 */
	call(tool: string, args: unknown, inputs: Partial<CallInputs> = {}, signal?: AbortSignal): Promise<CallOutcome> {
		const texts = inputs.texts ?? new Map<string, string>();
		const send = async (): Promise<unknown> => {
			const staging: Promise<unknown>[] = [];
			for (const part of partsOf(texts)) staging.push(this.request({ op: "stage", texts: part }));
			const answer = this.request({ op: "call", tool, args, modified: inputs.modified ?? new Map<string, number>(), tag: inputs.tag, changes: inputs.changes, call: inputs.call });
			await Promise.all(staging);
			return answer;
		};
		return new Promise<unknown>((resolve, reject) => {
			this.calls.push({ tool, send, signal, resolve, reject });
			this.nextCall();
		}) as Promise<CallOutcome>;
	}

	private nextCall(): void {
		if (this.callRunning) return;
		for (;;) {
			const call = this.calls.shift();
			if (call === undefined) return;
			if (this.failure !== null) {
				call.reject(this.failure);
				continue;
			}
			if (this.rebuilding !== null) {
				call.reject(this.rebuilding);
				continue;
			}
			if (call.signal?.aborted === true) {
				call.reject(new CallDroppedError(call.tool));
				continue;
			}
			this.callRunning = true;
			call.send().then(call.resolve, call.reject).finally(() => {
				this.callRunning = false;
				this.nextCall();
			});
			return;
		}
	}

	/** Records that the batch of `planHash` was carried out, for the approval of later calls. */
	async planApplied(planHash: string): Promise<void> {
		await this.request({ op: "planApplied", planHash });
	}

	/** How many notes the index holds. */
	async noteCount(): Promise<number> {
		return (await this.request({ op: "noteCount" })) as number;
	}

	/** The size of the engine's wasm linear memory in bytes (a high-water mark: it never shrinks). */
	async memoryBytes(): Promise<number> {
		return (await this.request({ op: "memoryBytes" })) as number;
	}

	/** How many missing targets the index's links name now (after every update made before). */
	async unresolvedCount(): Promise<number> {
		const count = (await this.request({ op: "unresolvedCount" })) as number;
		this.tellUnresolved(count);
		return count;
	}

	/**
	 * Calls `listener` with the number of missing targets whenever the engine finds it changed
	 * after updates (and once now, if it is known); returns the unsubscription.
	 */
	onUnresolvedCount(listener: (count: number) => void): () => void {
		this.unresolvedListeners.add(listener);
		if (this.lastUnresolved !== null) listener(this.lastUnresolved);
		return () => this.unresolvedListeners.delete(listener);
	}

	private tellUnresolved(count: number): void {
		if (count === this.lastUnresolved) return;
		this.lastUnresolved = count;
		for (const listener of [...this.unresolvedListeners]) listener(count);
	}
}

/** The texts in parts of at most `STAGE_CHARACTERS` characters (a larger note is a part alone). */
function* partsOf(texts: Map<string, string>): Generator<[string, string][]> {
	let part: [string, string][] = [];
	let characters = 0;
	for (const entry of texts) {
		const size = entry[0].length + entry[1].length;
		if (part.length > 0 && characters + size > STAGE_CHARACTERS) {
			yield part;
			part = [];
			characters = 0;
		}
		part.push(entry);
		characters += size;
	}
	if (part.length > 0) yield part;
}
