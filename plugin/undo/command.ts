/**
 * The "Undo last change" command: a dry run of `undo_change` shows what the last change kept
 * for undo would give back (the notes restored, the files moved back, the pages removed), and
 * confirming applies exactly that undo (its `plan_hash` goes back as `approved_plan_hash`, so a
 * vault that changed in between is refused). What can be undone, and when it is refused, is
 * core's (`crates/core/src/history.rs`).
 */

import { App, Notice, Plugin } from "obsidian";
import type { HostProvider } from "../move/command";
import type { ToolHost } from "../host";
import { runCall } from "../change";
import { PreviewConfirmModal } from "../move/modals";
import type { ToolError } from "../wasm";
import { ERROR_NOTICE_MS, noticeIndexNotLoaded } from "../ui/notice";
import { count } from "../ui/lists";

/** Stable: users bind hotkeys to it. */
export const UNDO_COMMAND_ID = "undo-last-change";

/** What `undo_change` answers (core's `history::UndoAnswer`). */
export interface UndoAnswer {
	dry_run: boolean;
	applied: boolean;
	plan_hash: string;
	change_id: string;
	tool: string;
	restored: string[];
	moved_back: { from: string; to: string }[];
	removed: string[];
	kept_changes: number;
	/** How many entries each list holds in all: the lists are one page of them. */
	counts: { restored: number; moved_back: number; removed: number; relinked: number; backlinks: number };
	next_cursor?: string;
}

export function registerUndoCommand(plugin: Plugin, host: HostProvider): void {
	plugin.addCommand({
		id: UNDO_COMMAND_ID,
		name: "Undo last change",
		callback: () => void previewUndo(plugin.app, host),
	});
}

/** Previews undoing the last kept change and opens the preview, or says why there is none to undo. */
export async function previewUndo(app: App, host: HostProvider): Promise<PreviewConfirmModal | null> {
	const ready = await host();
	if (ready === null) {
		noticeIndexNotLoaded();
		return null;
	}
	const outcome = await runCall(ready, "undo_change", { dry_run: true });
	if (!outcome.ok) {
		notifyError(outcome.error);
		return null;
	}
	const preview = outcome.result as UndoAnswer;
	const modal = new PreviewConfirmModal(app, {
		title: `Undo the last ${toolName(preview.tool)}`,
		render: (container) => renderUndoPreview(container, preview),
		confirmText: "Undo",
		// It can remove what the change made (a page it created), so the keyboard starts on Cancel.
		style: "warning",
		onConfirm: () => applyPreviewedUndo(ready, preview),
	});
	modal.open();
	return modal;
}

/** Draws what the undo gives back. */
export function renderUndoPreview(container: HTMLElement, preview: UndoAnswer): void {
	container.createEl("p", { text: `${describeUndo(preview)}. Each note is given back its text from before the change.` });
	const list = container.createEl("ul");
	for (const path of preview.restored) list.createEl("li", { text: `${path}: restored` });
	for (const moved of preview.moved_back) list.createEl("li", { text: `${moved.from} → ${moved.to}: moved back` });
	for (const path of preview.removed) list.createEl("li", { text: `${path}: removed (the change created it)` });
	const listed = preview.restored.length + preview.moved_back.length + preview.removed.length;
	const all = preview.counts.restored + preview.counts.moved_back + preview.counts.removed;
	if (all > listed) list.createEl("li", { text: `and ${all - listed} more` });
}

/** Applies the undo `preview` showed, and only that one. */
export async function applyPreviewedUndo(host: ToolHost, preview: UndoAnswer): Promise<void> {
	const outcome = await runCall(host, "undo_change", { change_id: preview.change_id, approved_plan_hash: preview.plan_hash });
	if (!outcome.ok) {
		notifyError(outcome.error);
		return;
	}
	new Notice(`vaultlink: Undid the last ${toolName(preview.tool)}: ${describeUndo(outcome.result as UndoAnswer)}.`);
}

/** What an undo does, in one sentence's worth of counts. */
export function describeUndo(answer: UndoAnswer): string {
	const parts = [
		countIfAny(answer.counts.restored, "note restored", "notes restored"),
		countIfAny(answer.counts.moved_back, "file moved back", "files moved back"),
		countIfAny(answer.counts.removed, "new file removed", "new files removed"),
	].filter((part) => part !== null);
	return parts.length === 0 ? "nothing to give back" : parts.join(", ");
}

/** `count`, or nothing when there are none. */
function countIfAny(n: number, one: string, many: string): string | null {
	return n === 0 ? null : count(n, one, many);
}

/** The tool that made a change, as a person says it. */
function toolName(tool: string): string {
	switch (tool) {
		case "move_note":
			return "move";
		case "bulk_move_notes":
			return "bulk move";
		case "rewrite_link":
			return "link rewrite";
		case "update_properties":
			return "property edit";
		case "commit_wiki_page":
			return "new page";
		case "fix_broken_links":
			return "link repair";
		case "link_mentions":
			return "mention links";
		default:
			return "change";
	}
}

function notifyError(error: ToolError): void {
	new Notice(`vaultlink: nothing was undone: ${error.message}. ${error.hint}`, ERROR_NOTICE_MS);
}
