/**
 * The messages between the plugin and its link engine, the same whether the engine runs in a
 * Web Worker (`worker.ts`, reached through `postMessage`) or on the calling thread (`direct.ts`).
 * Everything here is plain data that survives the structured clone: no function crosses, so a
 * call's callbacks (a note's text, a file's modification time) cross as maps gathered before it.
 */

import type { ListedChange, Needs } from "../wasm";

/** What only the plugin can see, gathered before a call and handed to core as its edge. */
export interface CallInputs {
	/** The notes' texts core will ask for (`needs`), by path. A note left out is one not read. */
	texts: Map<string, string>;
	/** Modification times in milliseconds, by path, of the files core named (`needs`' `modified`). */
	modified: Map<string, number>;
	/** Names temporary files (the process id). */
	tag?: number;
	/** The kept changes (and those that would not open, and those undoes set aside), when core asked for them (`needs`). */
	changes?: ListedChange[];
	/** The number of the call as core read it when it said what the call needs (`CallNeeds`' `call`): its arguments are not read again. */
	call?: number | undefined;
}

/** What a call reads before it runs (core's `needs::Needs`), with the number of the call as read, none for arguments core refuses. */
export type CallNeeds = Needs & { call?: number };

/** One request to the engine; `id` pairs it with its reply. */
export type EngineRequest =
	| { op: "upsert"; path: string; text: string }
	| { op: "upsertMany"; paths: string[]; texts: string[] }
	| { op: "remove"; path: string }
	| { op: "rename"; from: string; to: string }
	| { op: "configure"; appJson: string; linkForm?: string | undefined }
	/** The first index is whole: what vanishes and appears from now on is compared with it (moves made outside Obsidian). */
	| { op: "beginObserving" }
	| { op: "findNote"; path: string }
	| { op: "outgoingLinks"; path: string }
	| { op: "backlinks"; path: string }
	| { op: "auditRename"; from: string; to: string }
	/** What a call reads before it runs (core's `needs::needs`); `call`, the number an earlier answer gave, names the call as read. */
	| { op: "needs"; tool: string; args: unknown; changes: ListedChange[] | undefined; call: number | undefined }
	/** The notes a lint's `near_duplicate` needs sketched (core's `ops::sketches_needed`). */
	| { op: "sketchesNeeded"; tool: string; args: unknown; call: number | undefined }
	/** One batch of those notes' texts, sketched and kept by the index (then dropped). */
	| { op: "keepSketches"; paths: string[]; texts: string[] }
	/** Texts for the call that follows, sent ahead in parts so that no one message is large. */
	| { op: "stage"; texts: [string, string][] }
	/** Runs core's `call` with the staged texts (then forgets them). */
	| { op: "call"; tool: string; args: unknown; modified: Map<string, number>; tag: number | undefined; changes: ListedChange[] | undefined; call: number | undefined }
	| { op: "planApplied"; planHash: string }
	| { op: "noteCount" }
	| { op: "memoryBytes" }
	| { op: "unresolvedCount" };

/** The operations that change what the index holds, after which its count of unresolved targets may change. */
export const UPDATING_OPS: ReadonlySet<EngineRequest["op"]> = new Set(["upsert", "upsertMany", "remove", "rename", "configure"]);

/** A request as it is posted: with the id its reply carries. */
export type EngineMessage = EngineRequest & { id: number };

/** What an engine error carries across: an `Error` does not survive every structured clone whole. */
export interface EngineFailure {
	name: string;
	message: string;
}

/** The reply to one request, or an event the engine sends on its own. */
export type EngineReply =
	| { id: number; ok: true; value: unknown }
	| { id: number; ok: false; error: EngineFailure }
	/** The engine is loaded and takes requests (the worker's first message). */
	| { event: "loaded" }
	/** The engine could not load; nothing it is asked will be answered. */
	| { event: "failed"; error: EngineFailure }
	/** The number of missing targets changed (`find_unresolved_links`' `total_targets`). */
	| { event: "unresolved"; count: number };

/** The first message to a worker: the wasm module, compiled once by the window (structured-cloned, not compiled again). */
export interface EngineStart {
	op: "start";
	wasm: WebAssembly.Module;
}
