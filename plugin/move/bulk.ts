/**
 * Moving several files at once from the file explorer: with more than one file or folder
 * selected, its context menu offers "Move N items safely…"; the user names a folder, sees every
 * move and every link that changes (a dry run of `bulk_move_notes`, one proven batch), and
 * confirms to apply exactly that plan.
 */

import { App, Notice, Plugin, normalizePath, type Menu, type TAbstractFile } from "obsidian";
import type { ToolHost } from "../host";
import { runCall } from "../change";
import type { MoveAnswer, ToolError } from "../wasm";
import type { HostProvider } from "./command";
import { DestinationModal, MovePreviewModal, describeMove } from "./modals";
import { ERROR_NOTICE_MS, noticeIndexNotLoaded } from "../ui/notice";

/** Adds the bulk move to the file explorer's menu for a selection of several files. */
export function registerBulkMove(plugin: Plugin, host: HostProvider): void {
	plugin.registerEvent(
		plugin.app.workspace.on("files-menu", (menu: Menu, files: TAbstractFile[]) => {
			if (files.length < 2) return;
			menu.addItem((item) =>
				item
					.setTitle(`Move ${files.length} items safely…`)
					.setIcon("folder-input")
					.onClick(() => askFolder(plugin.app, host, files)),
			);
		}),
	);
}

/** The folder the selection shares, from the vault's root ("" for the root). */
function sharedFolder(files: TAbstractFile[]): string {
	const parents = files.map((file) => file.parent?.path ?? "");
	const first = parents[0] ?? "";
	return parents.every((parent) => parent === first) && first !== "/" ? first : "";
}

export function askFolder(app: App, host: HostProvider, files: TAbstractFile[]): DestinationModal {
	const modal = new DestinationModal(app, sharedFolder(files), (folder) => previewBulkMove(app, host, files, folder), {
		title: `Move ${files.length} items`,
		text: "The folder they go to, from the vault's root; each keeps its name. Next you see every link that will change; nothing moves until you confirm.",
	});
	modal.open();
	return modal;
}

/** The moves of the selection into `folder`. */
export function bulkMoves(files: TAbstractFile[], folder: string): { from: string; to: string }[] {
	const into = normalizePath(folder);
	return files.map((file) => ({ from: file.path, to: into === "/" || into === "" ? file.name : `${into}/${file.name}` }));
}

/** Previews moving the selection into `folder` and opens the preview, or says why it cannot be done. */
export async function previewBulkMove(app: App, host: HostProvider, files: TAbstractFile[], folder: string): Promise<void> {
	const ready = await host();
	if (ready === null) {
		noticeIndexNotLoaded();
		return;
	}
	const moves = bulkMoves(files, folder);
	const outcome = await runCall(ready, "bulk_move_notes", { moves, dry_run: true });
	if (!outcome.ok) {
		notifyError(outcome.error);
		return;
	}
	const answer = outcome.result as MoveAnswer;
	new MovePreviewModal(app, answer, () => applyBulkMove(ready, moves, answer)).open();
}

async function applyBulkMove(host: ToolHost, moves: { from: string; to: string }[], preview: MoveAnswer): Promise<void> {
	const outcome = await runCall(host, "bulk_move_notes", { moves, approved_plan_hash: preview.plan_hash });
	if (!outcome.ok) {
		notifyError(outcome.error);
		return;
	}
	new Notice(`vaultlink: ${describeMove(outcome.result as MoveAnswer)}`);
}

function notifyError(error: ToolError): void {
	new Notice(`vaultlink: nothing was moved: ${error.message}. ${error.hint}`, ERROR_NOTICE_MS);
}
