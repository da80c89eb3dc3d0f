//! Loads the link engine: the wasm module built from `crates/wasm` is inlined into main.js as
//! bytes (esbuild's binary loader) and instantiated synchronously, once per process.

import { initSync, parseNote as parseNoteInWasm, Vault } from "./wasm/vaultlink_wasm";
import wasmBytes from "./wasm/vaultlink_wasm_bg.wasm";

export { Vault };

/** A typed error from one of core's operations, as it crosses to the agent. */
export interface ToolError {
	code: string;
	message: string;
	hint: string;
	retryable: boolean;
}

/** What `Vault.call` returns: the operation's result object, or its typed error. */
export type ToolOutcome = { ok: true; result: unknown } | { ok: false; error: ToolError };

let initialised = false;

/** Instantiates the wasm module if this process has not yet; cheap after the first call. */
export function initialiseEngine(): void {
	if (initialised) return;
	initSync({ module: wasmBytes });
	initialised = true;
}

/** A new, empty link index. */
export function createLinkIndex(): Vault {
	initialiseEngine();
	return new Vault();
}

/** A place in a note as Obsidian's `Loc` counts it: 0-based line, UTF-16 column and offset. */
export interface NoteLocation {
	line: number;
	col: number;
	offset: number;
}

/** One link as core's parser reads it (`crates/core/src/parse.rs`), as far as the plugin reads it. */
export interface ParsedLink {
	kind: "wikilink" | "embed" | "markdown" | "markdown_embed";
	/** Where the link was written: the note's body or a property (frontmatter) value. */
	source: "body" | "property";
	/** A property link's top-level key. */
	key?: string;
	/** A property link's full key path, list indexes as numbers: `["related", 0]`. */
	key_path?: (string | number)[];
	/** The target as written, without brackets or angle brackets (still percent-encoded). */
	target: string;
	/** The target's file part, percent-decoded for Markdown links. */
	path: string;
	/** `#Heading` or `#^block`, percent-decoded for Markdown links; null when there is none. */
	subpath: string | null;
	/** The alias or link text; null for a wikilink without an alias. */
	display: string | null;
	/** UTF-8 byte range of the whole link in the note's text. */
	span: { start: number; end: number };
}

/** What `parseNote` returns, as far as the plugin reads it. */
export interface ParsedNote {
	links: ParsedLink[];
	/** `link_positions[i]` is `links[i]`'s range, counted as Obsidian counts. */
	link_positions: { start: NoteLocation; end: NoteLocation }[];
	/** True when core stopped at one of its limits and the lists are incomplete. */
	truncated: boolean;
}

/** Parses one note's text as the index does; the wasm glue types the result as `any`. */
export function parseNote(path: string, text: string): ParsedNote {
	initialiseEngine();
	return parseNoteInWasm(path, text) as ParsedNote;
}

/** Runs one of core's named operations on `index`; the wasm glue types the outcome as `any`. */
export function callTool(index: Vault, tool: string, args: unknown): ToolOutcome {
	return index.call(tool, args) as ToolOutcome;
}
