//! The "Compare link parsing with Obsidian" command: reads every note, parses it with core and
//! compares the links with Obsidian's metadata cache (`compare.ts`), then writes the full report
//! to the console and shows it in a modal (`modal.ts`).

import { App, Notice, Plugin } from "obsidian";
import { parseNote } from "../wasm";
import { compareNote, formatReport, summarise, type NoteComparison, type ParityReport, type SkippedNote } from "./compare";
import { LinkParityModal } from "./modal";

/** Stable: users bind hotkeys to it. */
export const COMPARE_LINK_PARSING_COMMAND_ID = "compare-link-parsing";

/** Notes compared between turns of the event loop, so a large vault does not freeze the app. */
const NOTES_PER_TURN = 200;

export function registerLinkParityCommand(plugin: Plugin): void {
	plugin.addCommand({
		id: COMPARE_LINK_PARSING_COMMAND_ID,
		name: "Compare link parsing with Obsidian",
		// Returns the run's promise, which Obsidian ignores; tests await it.
		callback: () => runLinkParity(plugin.app),
	});
}

/** Compares every Markdown note of the vault; notes Obsidian has not cached yet are skipped. */
export async function compareVaultLinks(app: App): Promise<ParityReport> {
	const notes: NoteComparison[] = [];
	const skipped: SkippedNote[] = [];
	const files = [...app.vault.getMarkdownFiles()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
	for (const [index, file] of files.entries()) {
		if (index > 0 && index % NOTES_PER_TURN === 0) await new Promise((resolve) => setTimeout(resolve, 0));
		const cache = app.metadataCache.getFileCache(file);
		if (cache === null) {
			skipped.push({ path: file.path, reason: "Obsidian has not cached its metadata yet" });
			continue;
		}
		try {
			const text = await app.vault.cachedRead(file);
			notes.push(compareNote(file.path, text, parseNote(file.path, text), cache));
		} catch (error) {
			skipped.push({ path: file.path, reason: `could not be compared: ${error instanceof Error ? error.message : String(error)}` });
		}
	}
	return summarise(notes, skipped);
}

async function runLinkParity(app: App): Promise<void> {
	try {
		const report = await compareVaultLinks(app);
		console.log(formatReport(report));
		new LinkParityModal(app, report).open();
	} catch (error) {
		console.error("vaultlink: could not compare link parsing", error);
		new Notice(`vaultlink: could not compare link parsing: ${error instanceof Error ? error.message : String(error)}`);
	}
}
