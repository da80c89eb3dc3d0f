/**
 * What a tool runs against inside Obsidian: the app and the plugin's link engine. Its own
 * module, below the dispatcher (`tools.ts`) and the writing tools it dispatches to, so that
 * none of them imports another that imports it.
 */

import type { App } from "obsidian";
import type { LinkEngine } from "./engine/client";

/** What a tool runs against. */
export interface ToolHost {
	app: App;
	/** The plugin's link index, in its engine (a Web Worker). */
	index: LinkEngine;
	/**
	 * Resolves once the index reflects every vault event so far (the indexer's waiting updates
	 * run, none still reading). Tools that write call it before planning and after writing.
	 */
	settle(): Promise<void>;
}
