/**
 * The sketches a lint's `near_duplicate` compares, made only when it runs: core names the notes
 * the index has no sketch of (`sketchesNeeded`), the plugin reads their texts a batch at a time
 * and hands each batch to the link engine, which sketches and keeps them (`keepSketches`). Only
 * one batch of texts is held at once, however large the vault; a note that cannot be read stays
 * unsketched, and the lint says it was not compared.
 */

import type { LinkEngine } from "./engine/client";

/** Notes read and sketched in one batch. */
export const SKETCH_BATCH = 200;

/**
 * Sketches the notes a call of `tool` with `args` (the engine's call `call`, when `needs` read it)
 * needs sketched, each batch's texts read by
 * `read` (a text, or null for a note it could not read, in the order of the paths); resolves to
 * how many the index kept.
 */
export async function sketchNotes(
	index: LinkEngine,
	tool: string,
	args: unknown,
	call: number | undefined,
	read: (paths: string[]) => Promise<(string | null)[]>,
): Promise<number> {
	const needed = await index.sketchesNeeded(tool, args, call);
	let kept = 0;
	for (let start = 0; start < needed.length; start += SKETCH_BATCH) {
		const batch = needed.slice(start, start + SKETCH_BATCH);
		const texts = await read(batch);
		const paths: string[] = [];
		const found: string[] = [];
		batch.forEach((path, at) => {
			const text = texts[at];
			if (typeof text === "string") {
				paths.push(path);
				found.push(text);
			}
		});
		kept += await index.keepSketches(paths, found);
	}
	return kept;
}
