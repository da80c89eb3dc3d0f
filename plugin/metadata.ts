/**
 * Whether Obsidian's metadata cache has caught up with the vault. It reads a note a while after
 * the note changes and resolves its links after that, so a comparison with it, or a check of
 * what Obsidian's own link updater has done, has to wait for it rather than report its lag.
 */

import type { App } from "obsidian";

/**
 * Whether the metadata cache has resolved every note. Obsidian keeps this in `resolved`, which
 * its typings do not declare (plugins read it all the same); where it is absent, the cache is
 * taken as resolved, since nothing says otherwise.
 */
export function metadataResolved(app: App): boolean {
	const flag = (app.metadataCache as unknown as { resolved?: unknown }).resolved;
	return flag !== false;
}

/**
 * Resolves true once the metadata cache has resolved (its `resolved` event, which Obsidian
 * fires after the first index and after each change), or false if it has not within `timeoutMs`.
 */
export function whenMetadataResolved(app: App, timeoutMs: number): Promise<boolean> {
	if (metadataResolved(app)) return Promise.resolve(true);
	return new Promise((resolve) => {
		const cache = app.metadataCache;
		const finish = (resolved: boolean) => {
			window.clearTimeout(timer);
			cache.offref(ref);
			resolve(resolved);
		};
		const ref = cache.on("resolved", () => finish(true));
		const timer = window.setTimeout(() => finish(metadataResolved(app)), timeoutMs);
	});
}
