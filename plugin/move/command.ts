/**
 * The "Move note safely…" command: pick a file, type its new path, see every link the move
 * rewrites (a dry run of `move_note`), and confirm to apply exactly that plan (its `plan_hash`
 * is passed back as `approved_plan_hash`, so a vault that changed in between is refused).
 */

import { App, Notice, Plugin, normalizePath, type TFile } from "obsidian";
import type { ToolHost } from "../host";
import type { MoveAnswer, ToolError } from "../wasm";
import { moveNote } from "../change";
import { DestinationModal, MovePreviewModal, NotePickerModal, describeMove } from "./modals";
import { ERROR_NOTICE_MS, noticeIndexNotLoaded } from "../ui/notice";

/** Stable: users bind hotkeys to it. */
export const MOVE_NOTE_COMMAND_ID = "move-note-safely";

/** The tools' host once the index holds what the vault holds, or null when the plugin is unloaded. */
export type HostProvider = () => Promise<ToolHost | null>;

export function registerMoveNoteCommand(plugin: Plugin, host: HostProvider): void {
	plugin.addCommand({
		id: MOVE_NOTE_COMMAND_ID,
		name: "Move note safely…",
		callback: () => {
			new NotePickerModal(plugin.app, (file) => askDestination(plugin.app, host, file)).open();
		},
	});
}

function askDestination(app: App, host: HostProvider, file: TFile): void {
	new DestinationModal(app, file.path, (to) => previewMove(app, host, file.path, to)).open();
}

/** Previews moving `from` to `to` and opens the preview, or says why the move cannot be made. */
export async function previewMove(app: App, host: HostProvider, from: string, to: string): Promise<void> {
	const ready = await host();
	if (ready === null) {
		noticeIndexNotLoaded();
		return;
	}
	// Typed paths are tidied as Obsidian tidies them (no leading or doubled slashes).
	const destination = normalizePath(to);
	const outcome = await moveNote(ready, { from, to: destination, dry_run: true });
	if (!outcome.ok) {
		notifyError(from, outcome.error);
		return;
	}
	const answer = outcome.result as MoveAnswer;
	new MovePreviewModal(app, answer, () => applyPreviewedMove(ready, from, destination, answer)).open();
}

/** Applies the plan `preview` showed, and only that plan. */
export async function applyPreviewedMove(host: ToolHost, from: string, to: string, preview: MoveAnswer): Promise<void> {
	const outcome = await moveNote(host, { from, to, approved_plan_hash: preview.plan_hash });
	if (!outcome.ok) {
		notifyError(from, outcome.error);
		return;
	}
	new Notice(`vaultlink: ${describeMove(outcome.result as MoveAnswer)}`);
}

function notifyError(from: string, error: ToolError): void {
	new Notice(`vaultlink: ${from} was not moved: ${error.message}. ${error.hint}`, ERROR_NOTICE_MS);
}
