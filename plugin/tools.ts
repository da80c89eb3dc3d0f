/**
 * Runs the sidecar's tool calls on the plugin's index: every one through core's single entry
 * (`change.ts`, core's `ops::call`), which asks for the notes' texts it needs and hands back the
 * steps of an approved change for the plugin to carry out.
 */

import { runCall } from "./change";
import type { ToolHost } from "./host";
import type { ToolOutcome } from "./wasm";

export type { ToolHost };

/** Runs one call; `signal` aborted (its caller went away) drops it if it has not started. */
export function runTool(host: ToolHost, tool: string, args: unknown, signal?: AbortSignal): Promise<ToolOutcome> {
	return runCall(host, tool, args, signal);
}
