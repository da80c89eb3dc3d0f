//! Loads the link engine: the wasm module built from `crates/wasm` is inlined into main.js as
//! bytes (esbuild's binary loader) and instantiated synchronously, once per process.

import { initSync, Vault } from "./wasm/vaultlink_wasm";
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

/** Runs one of core's named operations on `index`; the wasm glue types the outcome as `any`. */
export function callTool(index: Vault, tool: string, args: unknown): ToolOutcome {
	return index.call(tool, args) as ToolOutcome;
}
