/**
 * The "Delete note safely…" command: pick a note, see every link to it (a dry run of
 * `delete_note`), and confirm to move exactly that note to the trash. The preview's
 * `plan_hash` goes back as `approved_plan_hash`, so a note or backlinks changed in between are
 * refused; with backlinks the confirmation is the opt-in (`force`) to leave them dangling.
 */

import { App, Notice, Plugin, type TFile } from "obsidian";
import { NotePickerModal } from "../move/modals";
import type { HostProvider } from "../move/command";
import type { ToolHost } from "../host";
import type { DeleteAnswer, ToolError } from "../wasm";
import { deleteNote } from "../change";
import { DeletePreviewModal } from "./modals";
import { ErrorCode } from "../error-codes";
import { ERROR_NOTICE_MS, noticeIndexNotLoaded } from "../ui/notice";

/** Stable: users bind hotkeys to it. */
export const DELETE_NOTE_COMMAND_ID = "delete-note-safely";

export function registerDeleteNoteCommand(plugin: Plugin, host: HostProvider): void {
	plugin.addCommand({
		id: DELETE_NOTE_COMMAND_ID,
		name: "Delete note safely…",
		callback: () => {
			new NotePickerModal(plugin.app, (file) => previewDelete(plugin.app, host, file.path), {
				placeholder: "Note to delete…",
				// `delete_note` deletes notes only, never a folder or an attachment.
				offers: (file: TFile) => file.extension === "md",
			}).open();
		},
	});
}

/** Previews deleting `path` and opens the preview, or says why it cannot be deleted. */
export async function previewDelete(app: App, host: HostProvider, path: string): Promise<void> {
	const ready = await host();
	if (ready === null) {
		noticeIndexNotLoaded();
		return;
	}
	const outcome = await deleteNote(ready, { path });
	if (!outcome.ok) {
		notifyError(path, outcome.error);
		return;
	}
	const preview = outcome.result as DeleteAnswer;
	new DeletePreviewModal(app, preview, () => applyPreviewedDelete(ready, preview)).open();
}

/** Deletes the note `preview` showed, and only while it and its backlinks are as shown. */
export async function applyPreviewedDelete(host: ToolHost, preview: DeleteAnswer): Promise<void> {
	const outcome = await deleteNote(host, {
		path: preview.path,
		confirm: true,
		force: preview.backlinks.length > 0,
		approved_plan_hash: preview.plan_hash,
	});
	if (!outcome.ok) {
		// A refusal of core's says what blocks the delete, naming the note, in its own sentence.
		if (BLOCKED.has(outcome.error.code)) new Notice(`vaultlink: ${outcome.error.message.replaceAll("`", "")}. Run the command again to see the note as it is now.`, ERROR_NOTICE_MS);
		else notifyError(preview.path, outcome.error);
		return;
	}
	const answer = outcome.result as DeleteAnswer;
	const dangling = answer.forced ? ` ${answer.backlinks.length === 1 ? "1 link to it now points" : `${answer.backlinks.length} links to it now point`} nowhere.` : "";
	new Notice(`vaultlink: Moved ${answer.path} to ${answer.trashed_to ?? "the trash"}.${dangling}`);
}

/** The codes of a confirmed delete that something blocks (core's `delete::DeleteRefused`). */
const BLOCKED: ReadonlySet<string> = new Set([ErrorCode.HasBacklinks, ErrorCode.PlanHashMismatch, ErrorCode.ConcurrentModification]);

function notifyError(path: string, error: ToolError): void {
	new Notice(`vaultlink: ${path} was not deleted: ${error.message}. ${error.hint}`, ERROR_NOTICE_MS);
}
