//! Runs the sidecar's tool calls on the plugin's index. Most run in core as they are; those
//! that need notes' texts (`read_note`, `find_evidence`) get them here, through the Vault API,
//! because core never reads files; `move_note` plans in core and applies the plan here
//! (`move/apply.ts`).

import { TFile } from "obsidian";
import { deleteNote } from "./delete/apply";
import { moveNote, rewriteLink } from "./move/apply";
import type { ToolHost } from "./host";
import { callTool, findEvidence, type ToolOutcome } from "./wasm";

export type { ToolHost };

/** Tools whose core operation takes the note's text in a `text` argument. */
const NEEDS_TEXT = new Set(["read_note"]);

export async function runTool(host: ToolHost, tool: string, args: unknown): Promise<ToolOutcome> {
	const { app, index } = host;
	if (tool === "move_note") return moveNote(host, args);
	if (tool === "rewrite_link") return rewriteLink(host, args);
	if (tool === "delete_note") return deleteNote(host, args);
	if (tool === "find_evidence") return findEvidenceInVault(host, args);
	if (!NEEDS_TEXT.has(tool) || typeof args !== "object" || args === null) {
		return callTool(index, tool, args);
	}
	// The text is the edge's to supply, never the caller's: a caller's own is dropped.
	const record: Record<string, unknown> = { ...(args as Record<string, unknown>) };
	delete record["text"];
	const path = typeof record["path"] === "string" ? index.findNote(record["path"]) : undefined;
	const file = path === undefined ? null : app.vault.getAbstractFileByPath(path);
	if (!(file instanceof TFile)) {
		// Core answers `note_not_found` with its own wording.
		return callTool(index, tool, record);
	}
	const text = await app.vault.cachedRead(file);
	return callTool(index, tool, { ...record, text });
}

/** `find_evidence`: reads every note's text (from Obsidian's cache where it has one), then lets core rank. */
async function findEvidenceInVault(host: ToolHost, args: unknown): Promise<ToolOutcome> {
	const { app, index } = host;
	const texts = new Map<string, string>();
	await Promise.all(
		app.vault.getMarkdownFiles().map(async (file) => {
			try {
				texts.set(file.path, await app.vault.cachedRead(file));
			} catch {
				// Core lists the note as unread and matches it from the index alone.
			}
		}),
	);
	return findEvidence(index, args, (path) => texts.get(path));
}
