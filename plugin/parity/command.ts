/**
 * The "Compare link parsing with Obsidian" command: reads every note, parses it with core and
 * compares the links with Obsidian's metadata cache (`compare.ts`), then where each link points
 * in the plugin's index against where Obsidian resolves it (`resolution.ts`), writes the full
 * report to the console and shows it in a modal (`modal.ts`).
 */

import { App, Notice, Plugin, type TFile } from "obsidian";
import { whenMetadataResolved } from "../metadata";
import type { LinkEngine } from "../engine/client";
import { parseNote, type ParsedNote } from "../wasm";
import { compareNote, type NoteComparison } from "./compare";
import { LinkParityModal } from "./modal";
import { formatReport, summarise, type ParityReport, type SkippedNote } from "./report";
import { compareResolution, linkpathsOf, type NoteResolution } from "./resolution";
import { messageOf } from "../ui/notice";

/** Stable: users bind hotkeys to it. */
export const COMPARE_LINK_PARSING_COMMAND_ID = "compare-link-parsing";

/** Notes compared between turns of the event loop, so a large vault does not freeze the app. */
const NOTES_PER_TURN = 200;

/**
 * The plugin's link index once it holds the vault's current texts (the first index complete,
 * no update waiting), or null when there is none.
 */
export type SettledIndex = () => Promise<LinkEngine | null>;

/**
 * How long the command waits for Obsidian's metadata cache to resolve before it says Obsidian is
 * still indexing; read when the command runs, so a test may shorten it.
 */
export type ResolveWait = () => number;

/** Obsidian's metadata cache resolves a changed note within a second or two; a first index of a large vault may take longer. */
export const METADATA_RESOLVE_WAIT_MS = 10_000;

export function registerLinkParityCommand(plugin: Plugin, settledIndex: SettledIndex, resolveWaitMs: ResolveWait = () => METADATA_RESOLVE_WAIT_MS): void {
	plugin.addCommand({
		id: COMPARE_LINK_PARSING_COMMAND_ID,
		name: "Compare link parsing with Obsidian",
		// Returns the run's promise, which Obsidian ignores; tests await it.
		callback: () => runLinkParity(plugin.app, settledIndex, resolveWaitMs()),
	});
}

/**
 * Compares every Markdown note of the vault; notes Obsidian has not cached yet are skipped.
 * Resolution is compared against `index` (skipped for every note when it is null).
 */
export async function compareVaultLinks(app: App, index: LinkEngine | null): Promise<ParityReport> {
	const notes: NoteComparison[] = [];
	const skipped: SkippedNote[] = [];
	const resolutions: NoteResolution[] = [];
	const resolutionSkipped: SkippedNote[] = [];
	const files = [...app.vault.getMarkdownFiles()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
	for (const [position, file] of files.entries()) {
		if (position > 0 && position % NOTES_PER_TURN === 0) await new Promise((resolve) => window.setTimeout(resolve, 0));
		const cache = app.metadataCache.getFileCache(file);
		if (cache === null) {
			const reason = "Obsidian has not cached its metadata yet";
			skipped.push({ path: file.path, reason });
			resolutionSkipped.push({ path: file.path, reason });
			continue;
		}
		let text: string;
		let parsed: ParsedNote;
		try {
			text = await app.vault.cachedRead(file);
			parsed = parseNote(file.path, text);
			notes.push(compareNote(file.path, text, parsed, cache));
		} catch (error) {
			const reason = `could not be compared: ${messageOf(error)}`;
			skipped.push({ path: file.path, reason });
			resolutionSkipped.push({ path: file.path, reason });
			continue;
		}
		const resolution = await compareNoteResolution(app, index, file, text, parsed);
		if ("reason" in resolution) resolutionSkipped.push(resolution);
		else resolutions.push(resolution);
	}
	return summarise(notes, skipped, resolutions, resolutionSkipped);
}

/** Gathers Obsidian's and the index's resolutions of one note and compares them. */
async function compareNoteResolution(app: App, index: LinkEngine | null, file: TFile, text: string, parsed: ParsedNote): Promise<NoteResolution | SkippedNote> {
	if (index === null) return { path: file.path, reason: "the plugin's link index is not loaded" };
	// Keyed by path; a Markdown file's path ends in ".md", so it is never an Object member's name.
	const resolved = app.metadataCache.resolvedLinks[file.path];
	const unresolved = app.metadataCache.unresolvedLinks[file.path];
	// Obsidian gives every note an entry, empty or not, once it has resolved the note's links.
	if (resolved === undefined && unresolved === undefined) {
		return { path: file.path, reason: "Obsidian has not resolved its links yet" };
	}
	try {
		const firstLinkpathDest = new Map(
			linkpathsOf(parsed).map((linkpath) => [linkpath, app.metadataCache.getFirstLinkpathDest(linkpath, file.path)?.path ?? null] as const),
		);
		return compareResolution(file.path, text, parsed, await index.outgoingLinks(file.path), {
			resolvedLinks: resolved ?? {},
			unresolvedLinks: unresolved ?? {},
			firstLinkpathDest,
		});
	} catch (error) {
		return { path: file.path, reason: `resolution could not be compared: ${messageOf(error)}` };
	}
}

async function runLinkParity(app: App, settledIndex: SettledIndex, resolveWaitMs: number): Promise<void> {
	try {
		// Obsidian reads a changed note a moment later: compared before then, its lag would show
		// as disagreement. Wait for its cache to resolve, or say that it has not.
		const [index, resolved] = await Promise.all([settledIndex(), whenMetadataResolved(app, resolveWaitMs)]);
		if (!resolved) {
			new Notice("vaultlink: Obsidian is still indexing the vault, so its links cannot be compared yet; run the comparison again once it is done.");
			return;
		}
		const report = await compareVaultLinks(app, index);
		// Obsidian's guidelines keep plugins to console.debug for what is not a warning or an error;
		// the developer console shows it at its "Verbose" level.
		console.debug(formatReport(report));
		new LinkParityModal(app, report).open();
	} catch (error) {
		console.error("vaultlink: could not compare links", error);
		new Notice(`vaultlink: could not compare links: ${messageOf(error)}`);
	}
}
